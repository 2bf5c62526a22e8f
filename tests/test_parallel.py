"""The parallel view: PettingZoo's Parallel API tests, the semantics of PettingZoo's own
turn-based conversion, the turn flags and masks, and bad input."""

from __future__ import annotations

import types

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import max_cycles_test, parallel_api_test, parallel_seed_test
from pettingzoo.utils import turn_based_aec_to_parallel

import gridghost
from gridghost.envs.parallel import DEFAULT_MAX_CYCLES, GridGhostParallelEnv

from helpers import plain

ENCODINGS = ["dict", "vector", "grid", "text", "belief_vector", "belief"]

# A corridor on which neither a catch nor a goal can happen within four half-turns without slip:
# the ghost is 9 steps from the agent, the goal 10, so PettingZoo's max_cycles_test (unseeded
# random play) always reaches the limit it checks.
LONG_CORRIDOR = """\
+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+
| G   .   .   .   .   .   .   .   .   A   .   .   .   .   .   .   .   .   .   * |
+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+
"""


@pytest.mark.parametrize("obs_type", ENCODINGS)
def test_parallel_api_test_passes_for_every_encoding(obs_type):
    parallel_api_test(gridghost.parallel_env(obs_type=obs_type), num_cycles=400)


@pytest.mark.parametrize("options", [dict(obs_type="vector", action_mask_in_obs=True),
                                     dict(obs_type="grid", view_radius=2, append_step_count=True),
                                     dict(difficulty=2, obs_type="vector"),
                                     dict(use_ghost=False, obs_type="vector", max_cycles=7)])
def test_parallel_api_test_passes_with_options(options):
    parallel_api_test(gridghost.parallel_env(**options), num_cycles=400)


@pytest.mark.parametrize("obs_type", ["dict", "vector", "grid"])
def test_parallel_seed_test_passes(obs_type):
    parallel_seed_test(lambda: gridghost.parallel_env(obs_type=obs_type))


def test_max_cycles_test_passes():
    # PettingZoo's test counts a parallel env's max_cycles in parallel steps; gridghost's counts
    # game cycles, two parallel steps each, so the test's limit is halved here.
    module = types.SimpleNamespace(
        env=lambda max_cycles: gridghost.env(layout=LONG_CORRIDOR, slip="none", max_cycles=max_cycles),
        parallel_env=lambda max_cycles: gridghost.parallel_env(layout=LONG_CORRIDOR, slip="none",
                                                                max_cycles=max_cycles // 2),
    )
    for _ in range(5):  # it resets without a seed
        max_cycles_test(module)


def test_registered_for_pettingzoo_make():
    env = pettingzoo.make("parallel", gridghost.ENV_ID, obs_type="vector", max_cycles=10)
    assert isinstance(env, GridGhostParallelEnv)
    assert env.max_cycles == 10 and env.aec_env.max_cycles == 10


def _random_actions(env, rng):
    return {name: int(rng.integers(4)) for name in env.agents}


def _without_turn_keys(info):
    """An info without the keys the two views give differently: the waiting side's mask, and
    PettingZoo's text ``active_agent`` (ours is the number ``to_move``, in every info already)."""
    return plain({key: value for key, value in info.items() if key not in ("action_mask", "active_agent")})


@pytest.mark.parametrize("max_cycles", [3, 25])
def test_same_semantics_as_pettingzoos_turn_based_conversion(max_cycles):
    """The grid encoding says whose turn it is in both, so observations compare as they are."""
    ours = gridghost.parallel_env(obs_type="grid", max_cycles=max_cycles)
    theirs = turn_based_aec_to_parallel(gridghost.raw_env(obs_type="grid", max_cycles=max_cycles))
    rng = np.random.default_rng(3)
    endings = set()
    for seed in range(60):
        (obs_a, info_a), (obs_b, info_b) = ours.reset(seed=seed), theirs.reset(seed=seed)
        assert obs_a.keys() == obs_b.keys()
        for name in obs_a:
            np.testing.assert_array_equal(obs_a[name], obs_b[name])
            assert _without_turn_keys(info_a[name]) == _without_turn_keys(info_b[name])
        while ours.agents:
            assert ours.agents == theirs.agents
            actions = _random_actions(ours, rng)
            a, b = ours.step(actions), theirs.step(actions)
            for ours_part, theirs_part in zip(a[:4], b[:4], strict=True):
                assert ours_part.keys() == theirs_part.keys()
            for name in a[0]:
                np.testing.assert_array_equal(a[0][name], b[0][name])
                assert a[1][name] == b[1][name] and a[2][name] == b[2][name] and a[3][name] == b[3][name]
                assert _without_turn_keys(a[4][name]) == _without_turn_keys(b[4][name])
            if ours.agents:
                assert {("agent", "ghost")[info["to_move"]] for info in a[4].values()} == {
                    b[4][name]["active_agent"] for name in ours.agents}
        assert theirs.agents == []
        endings.add("truncated" if any(a[3].values()) else "terminated")
    assert endings == {"truncated", "terminated"}  # both ways of ending were compared


def test_every_observation_says_whose_turn_it_is():
    env = gridghost.parallel_env(obs_type="vector")
    aec = gridghost.raw_env(obs_type="vector")
    assert env.observation_space("agent").shape == (aec.observation_space("agent").shape[0] + 1,)
    rng = np.random.default_rng(0)
    observations, infos = env.reset(seed=5)
    aec.reset(seed=5)
    while env.agents:
        mover = ("agent", "ghost")[infos["agent"]["to_move"]]
        for name, observation in observations.items():
            assert observation[-1] == (name == mover)
            np.testing.assert_array_equal(observation[:-1], aec.observe(name))
        actions = _random_actions(env, rng)
        aec.step(actions[aec.agent_selection])
        observations, _, _, _, infos = env.step(actions)
    assert all(observation[-1] == 0 for observation in observations.values())  # the game has ended


def test_dict_observations_gain_a_to_move_entry():
    env = gridghost.parallel_env()
    observations, _ = env.reset(seed=0)
    assert observations["agent"]["to_move"] == 1 and observations["ghost"]["to_move"] == 0
    assert env.observation_space("ghost").contains(observations["ghost"])
    observations, *_ = env.step({"agent": 1, "ghost": 0})
    assert observations["agent"]["to_move"] == 0 and observations["ghost"]["to_move"] == 1


def test_the_waiting_sides_mask_allows_only_the_no_op_in_info_and_observation():
    """Never an all-zero mask (masked samplers divide by the mask's sum): the waiting side may
    send only action 0, which is not carried out; at the end both sides get that mask too."""
    env = gridghost.parallel_env(obs_type="vector", action_mask_in_obs=True)
    plain_infos = gridghost.parallel_env(obs_type="vector")  # the mask in the info instead
    board = env.aec_env.board
    no_op = np.array([1, 0, 0, 0], np.int8)
    rng = np.random.default_rng(1)
    checked = ended = 0
    for seed in range(20):
        observations, infos = env.reset(seed=seed)
        _, plain_info = plain_infos.reset(seed=seed)
        while env.agents:
            mover = ("agent", "ghost")[infos["agent"]["to_move"]]
            state = env.aec_env.game_state
            for name in env.agents:
                cell = state.agent if name == "agent" else state.ghost
                expected = board.action_mask[cell] if name == mover else no_op
                np.testing.assert_array_equal(plain_info[name]["action_mask"], expected)
                np.testing.assert_array_equal(observations[name]["action_mask"], expected)
                assert "action_mask" not in infos[name]  # one place only: TorchRL fails on two
                checked += 1
            actions = _random_actions(env, rng)
            observations, _, _, _, infos = env.step(actions)
            *_, plain_info = plain_infos.step(actions)
        for name in observations:
            np.testing.assert_array_equal(plain_info[name]["action_mask"], no_op)
            np.testing.assert_array_equal(observations[name]["action_mask"], no_op)
            ended += 1
    assert checked > 40 and ended == 40


def test_the_waiting_sides_action_is_ignored_whatever_it_is():
    moves = []
    for waiting_action in (0, 1, 2, 3, None):
        env = gridghost.parallel_env(obs_type="vector")
        env.reset(seed=4)
        rng = np.random.default_rng(4)
        trace = []
        while env.agents:
            mover = env.aec_env.agent_selection
            actions = {name: (int(rng.integers(4)) if name == mover else waiting_action) for name in env.agents}
            observations, rewards, *_ = env.step(actions)
            trace.append((plain(observations), rewards))
        moves.append(trace)
    assert all(trace == moves[0] for trace in moves[1:])


@pytest.mark.parametrize("flag", [np.True_, True])
def test_use_ghost_as_a_numpy_bool_is_taken(flag):
    env = gridghost.parallel_env(use_ghost=flag, max_cycles=9)  # cycles: an odd number is fine
    assert env.max_cycles == 9 and env.aec_env.max_cycles == 9 and env.possible_agents == ["agent", "ghost"]


def test_use_ghost_that_is_not_a_bool_is_refused():
    with pytest.raises(TypeError, match="use_ghost must be a bool"):
        gridghost.parallel_env(use_ghost=1)


@pytest.mark.parametrize("max_cycles", [200, 10, None])
def test_an_explicit_max_cycles_next_to_a_config_is_refused(max_cycles):
    config = gridghost.env(max_cycles=7).config
    with pytest.raises(ValueError, match=r"as config= or as keywords, not both; got config and \['max_cycles'\]"):
        gridghost.parallel_env(config=config, max_cycles=max_cycles)
    assert gridghost.parallel_env(config=config).max_cycles == 7
    assert gridghost.parallel_env(spec=config).max_cycles == 7


def test_only_the_movers_action_is_carried_out():
    a = gridghost.parallel_env(obs_type="vector")
    b = gridghost.parallel_env(obs_type="vector")
    a.reset(seed=9)
    b.reset(seed=9)
    for agent_move, ghost_move in [(1, 0), (2, 3), (0, 1)]:
        mover = a.aec_env.agent_selection
        move = agent_move if mover == "agent" else ghost_move
        first = a.step({"agent": agent_move, "ghost": ghost_move})
        other = b.step({mover: move})  # the waiting side's action left out
        np.testing.assert_array_equal(first[0]["agent"], other[0]["agent"])
        assert a.aec_env.game_state == b.aec_env.game_state


@pytest.mark.parametrize(("use_ghost", "steps_per_cycle"), [(True, 2), (False, 1)])
def test_max_cycles_counts_game_cycles_as_in_every_view(use_ghost, steps_per_cycle):
    """Before 0.4 the parallel env counted half-turns (this env stopped after 3 steps, default 200)."""
    env = gridghost.parallel_env(layout=LONG_CORRIDOR, slip="none", max_cycles=3, obs_type="vector",
                                 use_ghost=use_ghost)
    aec = gridghost.env(layout=LONG_CORRIDOR, slip="none", max_cycles=3, obs_type="vector", use_ghost=use_ghost)
    env.reset(seed=0)
    aec.reset(seed=0)
    steps = 0
    while env.agents:
        _, _, terminations, truncations, _ = env.step(dict.fromkeys(env.agents, 3))
        steps += 1
    assert steps == 3 * steps_per_cycle and all(truncations.values()) and not any(terminations.values())
    assert env.max_cycles == aec.max_cycles == 3
    assert gridghost.parallel_env().max_cycles == DEFAULT_MAX_CYCLES == gridghost.env().max_cycles == 100


def test_config_rebuilds_the_same_parallel_game():
    env = gridghost.parallel_env(obs_type="vector", difficulty=2, max_cycles=40)
    twin = gridghost.parallel_env(config=env.config.to_dict())
    assert twin.max_cycles == 40
    rng_a, rng_b = np.random.default_rng(2), np.random.default_rng(2)
    for seed in range(5):
        obs_a, _ = env.reset(seed=seed)
        obs_b, _ = twin.reset(seed=seed)
        np.testing.assert_array_equal(obs_a["agent"], obs_b["agent"])
        while env.agents:
            a, b = env.step(_random_actions(env, rng_a)), twin.step(_random_actions(twin, rng_b))
            assert a[1] == b[1] and a[2] == b[2] and a[3] == b[3]
            for name in a[0]:
                np.testing.assert_array_equal(a[0][name], b[0][name])
        assert twin.agents == []


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    (dict(max_cycles=0), ValueError, "max_cycles"),
    (dict(max_cycles=2.0), TypeError, "max_cycles"),
    (dict(config=gridghost.GameConfig(), max_cycles=10), ValueError, "not both"),
    (dict(obs_type="pixels"), ValueError, "obs_type"),
])
def test_bad_settings_are_refused(kwargs, error, match):
    with pytest.raises(error, match=match):
        gridghost.parallel_env(**kwargs)


@pytest.mark.parametrize(("actions", "error", "match"), [
    ([0, 1], TypeError, "actions must be a dict"),
    ({"ghost": 0}, ValueError, "action for 'agent'"),
    ({"agent": None, "ghost": 0}, ValueError, "action for 'agent'"),
    ({"agent": 0, "pacman": 1}, ValueError, "unknown sides"),
    ({"agent": 4}, ValueError, "0..3"),
    ({"agent": 0, "ghost": 7}, ValueError, "0..3"),
    ({"agent": 0, "ghost": 1.5}, TypeError, "int"),
])
def test_bad_actions_are_refused_and_change_nothing(actions, error, match):
    env = gridghost.parallel_env(obs_type="vector")
    env.reset(seed=0)
    before = env.aec_env.game_state
    with pytest.raises(error, match=match):
        env.step(actions)
    assert env.aec_env.game_state == before and env.agents == ["agent", "ghost"]


def test_stepping_before_reset_or_after_the_end_raises():
    env = gridghost.parallel_env(obs_type="vector", layout=LONG_CORRIDOR, slip="none", max_cycles=1)
    with pytest.raises(RuntimeError, match="reset"):
        env.step({"agent": 0})
    env.reset(seed=0)
    env.step({"agent": 0})
    env.step({"ghost": 0})
    assert env.agents == []
    with pytest.raises(RuntimeError, match="reset"):
        env.step({"agent": 0})
