"""The AEC env: PettingZoo's own tests, turn order, truncation, seeding, rewards, infos, state,
pickling and bad input."""

from __future__ import annotations

import copy
import pathlib
import pickle
import re
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import gridghost
from gridghost.core.layout import Layout
from gridghost.core.rules import Action, Rewards
from gridghost.core.slip import LongitudinalSlip, PerpendicularSlip
from gridghost.envs import NUMERIC_INFO_KEYS
from gridghost.sensing.filters import HistogramFilter, ParticleFilter
from gridghost.sensing.observations import WAITING_MASK
from gridghost.sensing.sensors import ColorSensor, ItemSensor

from helpers import load_traces, plain, record_rest

CONSTRUCTORS = {"env": gridghost.env, "raw_env": gridghost.raw_env}

# What PettingZoo's api_test says about any env with dict observations and named (not numbered)
# agents; anything else it warns about is a real problem.
ACKNOWLEDGED_API_WARNINGS = (
    "Observation is not a NumPy array",
    "We recommend agents to be named in the format",
    "Observation space for each agent probably should be",
    "Agents have different observation space sizes",
)


@pytest.mark.parametrize("make", CONSTRUCTORS.values(), ids=CONSTRUCTORS.keys())
def test_pettingzoo_api_test_passes_without_surprises(make) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(make(), num_cycles=1000)
    surprises = {str(w.message) for w in caught if not str(w.message).startswith(ACKNOWLEDGED_API_WARNINGS)}
    assert not surprises


@pytest.mark.parametrize("make", CONSTRUCTORS.values(), ids=CONSTRUCTORS.keys())
def test_pettingzoo_seed_test_passes(make) -> None:
    seed_test(make, num_cycles=500)


def test_pettingzoo_render_test_passes_for_every_declared_mode() -> None:
    assert gridghost.env().metadata["render_modes"] == ["human", "rgb_array", "ansi"]
    render_test(gridghost.env)  # checks each mode's return type; human draws to the dummy display


def test_metadata() -> None:
    env = gridghost.env()
    assert env.metadata["name"] == "gridghost_v0"
    assert env.metadata["is_parallelizable"] is False
    assert env.possible_agents == ["agent", "ghost"]
    assert env.unwrapped is env


# -- turn order and truncation ------------------------------------------------------------------

def stand_still(env) -> list[tuple[str, bool, bool]]:
    """Agent bumps into the border above its start, ghost into the border right of its start:
    nobody ever moves, so only truncation can end the episode."""
    seen = []
    for name in env.agent_iter():
        _, _, termination, truncation, _ = env.last()
        seen.append((name, termination, truncation))
        if termination or truncation:
            env.step(None)
        else:
            env.step(Action.UP if name == "agent" else Action.RIGHT)
    return seen


@pytest.mark.parametrize("max_cycles", [1, 3, 10])
def test_each_side_gets_exactly_max_cycles_moves_then_one_dead_step(max_cycles: int) -> None:
    env = gridghost.env(max_cycles=max_cycles)
    env.reset(seed=0)
    seen = stand_still(env)
    live = [(name, term, trunc) for name, term, trunc in seen if not (term or trunc)]
    assert live == [("agent", False, False), ("ghost", False, False)] * max_cycles
    assert seen[len(live):] == [("agent", False, True), ("ghost", False, True)]
    assert env.agents == [] and env.cycles == max_cycles


def test_termination_gives_both_sides_a_dead_step_in_turn_order() -> None:
    layout = Layout(colours=[[0, 0, 0]], goals=[(0, 0)], agent_start=(0, 1), ghost_start=(0, 2))
    env = gridghost.env(layout=layout, slip="none")
    env.reset(seed=0)
    env.step(Action.RIGHT)  # agent walks into the ghost
    assert env.terminations == {"agent": True, "ghost": True}
    assert env.agent_selection == "ghost"
    assert env.infos["agent"]["caught_by_ghost"] is True and env.infos["ghost"]["caught_by_ghost"] is True
    env.step(None)
    assert env.agent_selection == "agent"
    assert not env.state()[:, :, 3].any()  # nobody is to move any more
    env.step(None)
    assert env.agents == []
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step(None)
    with pytest.raises(RuntimeError, match="episode is over"):
        env.last()


# -- seeding -------------------------------------------------------------------------------------

def episodes(env, seeds: list[int | None]) -> list:
    out = []
    for i, seed in enumerate(seeds):
        env.reset(seed=seed)
        out.append(record_rest(env, policy_seed=i))
    return out


def test_same_seed_same_episode_on_the_same_and_on_another_env() -> None:
    env = gridghost.env(slip_probability=0.5)
    first = episodes(env, [3])
    assert episodes(env, [3]) == first
    assert episodes(gridghost.env(slip_probability=0.5), [3]) == first


def test_different_seeds_give_different_episodes() -> None:
    env = gridghost.env(slip_probability=0.5)
    runs = [episodes(env, [seed]) for seed in range(5)]
    assert all(runs[0] != other for other in runs[1:])


def test_unseeded_resets_continue_the_stream() -> None:
    a, b = gridghost.env(slip_probability=0.5), gridghost.env(slip_probability=0.5)
    continued = episodes(a, [11, None, None])
    assert continued == episodes(b, [11, None, None])
    # The unseeded episodes are new draws, not replays of the seeded one.
    reseeded = episodes(a, [11, 11, 11])
    assert continued[0] == reseeded[0]
    assert continued[1] != reseeded[1] or continued[2] != reseeded[2]


def test_reset_without_any_seed_works() -> None:
    env = gridghost.env()
    env.reset()
    assert env.agent_selection == "agent" and isinstance(env.np_random, np.random.Generator)


# -- rewards -------------------------------------------------------------------------------------

def replay_with_last(record: dict, **kwargs) -> tuple[dict[str, float], list[tuple[str, float]]]:
    """Replay a golden trace through agent_iter/last; return each side's summed last() rewards."""
    env = gridghost.env(**record["config"], **kwargs)
    env.reset(seed=record["seed"])
    actions = iter(step["action"] for step in record["steps"])
    totals = {"agent": 0.0, "ghost": 0.0}
    for name in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        totals[name] += reward
        if term or trunc:
            env.step(None)
            continue
        action = next(actions, None)
        if action is None:  # the recording stopped before the episode ended
            break
        env.step(action)
    return totals


TRACES = load_traces("env_traces.jsonl")


def test_per_episode_reward_sums_are_exact() -> None:
    """What each side accumulates through last() equals the recorded half-turn rewards, once each:
    rewards are neither lost nor counted twice (api_test cannot see a reward that is never
    cleared). Only finished episodes are compared: their last rewards reach both sides."""
    finished = [r for r in TRACES if r["steps"][-1]["terminated"]]
    assert len(finished) >= 50
    for record in finished:
        expected = sum(step["reward"] for step in record["steps"])
        totals = replay_with_last(record)
        assert totals["agent"] == expected
        assert totals["ghost"] == -expected


@pytest.mark.parametrize("max_cycles", [1, 4])
def test_reward_sums_of_truncated_episodes_are_exact_for_any_reward_scheme(max_cycles: int) -> None:
    """Nobody moves (see stand_still), so each side's total is known in closed form."""
    ghost_rewards = Rewards(step=2.0, goal=0.0, caught=0.0, wait=-0.5)
    env = gridghost.env(max_cycles=max_cycles, ghost_rewards=ghost_rewards)
    env.reset(seed=0)
    totals = {"agent": 0.0, "ghost": 0.0}
    for name in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        totals[name] += reward
        env.step(None if term or trunc else (Action.UP if name == "agent" else Action.RIGHT))
    assert totals == {"agent": -1.0 * max_cycles, "ghost": (2.0 - 0.5) * max_cycles}


def test_zero_sum_for_every_half_turn_and_every_episode_of_random_play() -> None:
    env = gridghost.raw_env(slip_probability=0.3)
    for seed in range(30):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        totals = {"agent": 0.0, "ghost": 0.0}
        for name in env.agent_iter():
            _, reward, term, trunc, _ = env.last()
            totals[name] += reward
            env.step(None if term or trunc else int(rng.integers(4)))
            assert env.rewards.get("agent", 0.0) + env.rewards.get("ghost", 0.0) == 0.0
        assert totals["agent"] + totals["ghost"] == 0.0
        assert totals["agent"] != 0.0


def test_configured_rewards_reach_both_sides() -> None:
    layout = Layout(colours=[[0, 0, 0, 0]], goals=[(0, 3)], agent_start=(0, 0), ghost_start=(0, 2))
    env = gridghost.raw_env(layout=layout, slip="none", rewards=Rewards(step=-0.1, goal=1.0, caught=-1.0),
                            ghost_rewards=Rewards(step=0.0, goal=-2.0, caught=5.0, wait=-0.01))
    env.reset(seed=0)
    env.step(Action.LEFT)  # the agent bumps into the border
    assert env.rewards == {"agent": -0.1, "ghost": 0.0}
    env.step(Action.LEFT)  # the ghost comes closer, catches nobody
    assert env.rewards == {"agent": 0.0, "ghost": -0.01}
    env.step(Action.UP)
    env.step(Action.LEFT)  # the ghost walks into the agent
    assert env.rewards == {"agent": -1.0, "ghost": 5.0}
    assert env.terminations == {"agent": True, "ghost": True}


# -- infos ---------------------------------------------------------------------------------------

INFOS_PAGE = pathlib.Path(__file__).parent.parent / "docs" / "infos.md"


def documented_info_keys() -> dict[tuple[str, str], set[str]]:
    """The key lists of the Infos page's section on reference infos, by (side, moment)."""
    doc = INFOS_PAGE.read_text()
    section = doc[doc.index("\n## The reference's infos"):]
    entries = re.findall(r"\n- (agent|ghost|both), ([a-z -]+): (.*?)(?=\n- |\n\n)", section, flags=re.S)
    assert len(entries) == 5
    return {(side, moment): set(re.findall(r"[a-z_]+", keys.split("(")[0])) - {"or"}
            for side, moment, keys in entries}


def documented_numeric_keys() -> list[str]:
    """The numeric infos' keys as the Infos page lists them, in order."""
    listed = re.search(r"The keys, in order: (.*?), then every sensor's keys", INFOS_PAGE.read_text(),
                       flags=re.S).group(1)
    return [key.strip() for key in listed.replace("\n", " ").split(",")]


@pytest.mark.parametrize("kwargs, extra", [
    (dict(), ["color_measurement"]),
    (dict(sensors=[ColorSensor(gridghost.CLASSIC), ItemSensor(gridghost.CLASSIC)], belief_filter="histogram",
          expert="minimax"),
     ["color_measurement", "cnn_prediction", "cnn_probs", "estimated_pos", "estimated_cell", "expert_action"]),
], ids=["default", "sensors-filter-expert"])
def test_numeric_infos_have_one_documented_key_set_for_both_sides_at_every_moment(kwargs: dict, extra: list) -> None:
    """What Tianshou's buffer and TorchRL's tensordicts need: the same keys at the reset and at
    every half-turn, for both sides, each value a number, a bool or an array of a fixed shape."""
    assert documented_numeric_keys() == list(NUMERIC_INFO_KEYS)
    expected = [*documented_numeric_keys(), *extra]
    env = gridghost.env(slip_probability=0.5, **kwargs)
    shapes: dict[str, tuple] = {}
    rng = np.random.default_rng(0)
    for seed in range(15):
        env.reset(seed=seed)
        for _ in env.agent_iter():
            for info in env.infos.values():
                assert list(info) == expected
                for key, value in info.items():
                    assert isinstance(value, (int, float, bool, np.ndarray)), (key, value)
                    shape = np.shape(value)
                    assert shapes.setdefault(key, shape) == shape, key
            _, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else int(rng.integers(4)))
    assert shapes["actual_moves"] == (2,) and shapes["action_mask"] == (4,)
    assert shapes.get("cnn_probs", (3,)) == (3,)


def test_numeric_infos_describe_the_half_turn() -> None:
    env = gridghost.raw_env(slip_probability=0.0)
    env.reset(seed=0)
    info = env.infos["ghost"]
    assert (info["to_move"], info["mover"], info["intended_action"], info["slipped"]) == (0, -1, -1, False)
    assert info["actual_moves"].tolist() == [-1] and info["distance"] == 5
    env.step(int(Action.DOWN))  # (0, 2) -> (1, 2)
    for side in ("agent", "ghost"):
        info = env.infos[side]
        assert (info["to_move"], info["mover"], info["intended_action"], info["slipped"]) == (1, 0, 1, False)
        assert info["actual_moves"].tolist() == [1] and not info["reached_goal"] and not info["caught_by_ghost"]
    assert env.infos["agent"]["action_mask"].tolist() == env.board.action_mask[env.game_state.agent].tolist()
    assert env.infos["ghost"]["action_mask"].tolist() == env.board.action_mask[env.game_state.ghost].tolist()
    env.step(int(Action.UP))
    assert (env.infos["agent"]["to_move"], env.infos["agent"]["mover"]) == (0, 1)
    assert env.infos["agent"]["intended_action"] == 1  # the agent's last move persists


def test_numeric_actual_moves_pad_the_slip_models_outcomes() -> None:
    env = gridghost.raw_env(slip_probability=1.0)  # longitudinal: stay or a double move
    seen = set()
    for seed in range(20):
        env.reset(seed=seed)
        env.step(int(Action.RIGHT))
        seen.add(tuple(env.infos["agent"]["actual_moves"].tolist()))
    assert seen == {(-1, -1), (2, 2)}


def test_a_sensor_reading_text_without_possible_measurements_needs_reference_infos() -> None:
    class Label(gridghost.Sensor):
        name = "label"

        def __init__(self) -> None:
            self.layout = gridghost.CLASSIC

        def measure(self, state, rng):
            return "here"

    env = gridghost.raw_env(sensors=[ColorSensor(gridghost.CLASSIC), Label()])
    with pytest.raises(TypeError, match=r"not a number, bool or array.*reference_infos=True"):
        env.reset(seed=0)
    reference = gridghost.raw_env(sensors=[ColorSensor(gridghost.CLASSIC), Label()], reference_infos=True)
    reference.reset(seed=0)
    assert reference.infos["agent"]["label"] == "here"


def test_reference_infos_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match="reference_infos must be a bool"):
        gridghost.env(reference_infos=1)


def test_info_keys_are_exactly_the_documented_ones() -> None:
    documented = documented_info_keys()
    env = gridghost.env(reference_infos=True)
    seen: dict[tuple[str, str], set[str]] = {}
    rng = np.random.default_rng(0)
    for seed in range(40):
        env.reset(seed=seed)
        for side in ("agent", "ghost"):
            assert set(env.infos[side]) == documented[(side, "after reset")]
        for _ in env.agent_iter():
            _, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else int(rng.integers(4)))
            if term or trunc:
                continue
            for side in ("agent", "ghost"):
                keys = set(env.infos[side])
                ending = keys & documented[("both", "when the game ends")]
                seen.setdefault(("both", "when the game ends"), set()).update(ending)
                assert keys - ending == documented[(side, "after a half-turn")]
    assert seen[("both", "when the game ends")] == {"reached_goal", "caught_by_ghost"}


def test_infos_are_fresh_objects_every_half_turn() -> None:
    env = gridghost.env()
    env.reset(seed=2)
    seen = []
    for _ in env.agent_iter(20):
        _, _, term, trunc, info = env.last()
        seen.append(info)
        info["color_measurement"] = "scribbled"  # a careless user cannot corrupt the env
        if info["mover"] == -1:  # the reset's info: its arrays are its own copies
            info["action_mask"][:] = 9
        else:
            with pytest.raises(ValueError, match="read-only"):
                info["action_mask"][:] = 9
        env.step(None if term or trunc else 2)
    assert len({id(i) for i in seen}) == len(seen)
    assert set(env.infos["agent"]["action_mask"].tolist()) <= {0, 1}
    assert env.infos["agent"]["color_measurement"] in (0, 1, 2)


def test_action_mask_is_the_movers_accessibility() -> None:
    env = gridghost.raw_env(slip_probability=0.4)
    order = {"left": Action.LEFT, "down": Action.DOWN, "right": Action.RIGHT, "up": Action.UP}
    for seed in range(10):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            mask = info["action_mask"]
            assert mask.dtype == np.int8 and mask.shape == (4,)
            for direction, action in order.items():
                assert mask[action] == obs["neighbors"][direction]["accessible"]
            env.step(None if term or trunc else int(rng.integers(4)))


# -- state, positions, render --------------------------------------------------------------------

def test_state_marks_agent_ghost_goals_and_turn() -> None:
    env = gridghost.env()
    env.reset(seed=0)
    state = env.state()
    assert env.state_space.contains(state)
    assert state.shape == (4, 5, 4) and state.dtype == np.int8
    assert np.argwhere(state[:, :, 0]).tolist() == [[0, 2]]
    assert np.argwhere(state[:, :, 1]).tolist() == [[3, 4]]
    assert np.argwhere(state[:, :, 2]).tolist() == [[3, 1], [3, 4]]
    assert not state[:, :, 3].any()
    env.step(Action.DOWN)
    after = env.state()
    assert after[:, :, 3].all()
    assert np.argwhere(after[:, :, 0]).tolist() == [list(env.agent_pos)]


def test_ansi_picture_shows_the_positions() -> None:
    env = gridghost.env(render_mode="ansi")
    env.reset(seed=0)
    picture = env.render()
    lines = picture.splitlines()
    assert lines[0] == "cycle 0/100: agent to move"
    agent_row = lines[2 + 2 * env.agent_pos[0]]
    assert agent_row[2 + 4 * env.agent_pos[1]] == "A"
    ghost_row = lines[2 + 2 * env.ghost_pos[0]]
    assert ghost_row[2 + 4 * env.ghost_pos[1]] == "G"


def test_render_without_a_mode_warns() -> None:
    env = gridghost.env()
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="without a render_mode"):
        assert env.render() is None


def test_close_can_be_called_twice_and_the_text_renderer_still_draws() -> None:
    env = gridghost.env(render_mode="ansi")
    env.reset(seed=0)
    before = env.render()
    env.close()
    env.close()
    assert env.render() == before


# -- pickling ------------------------------------------------------------------------------------

# A pickled copy: gridghost.testing's check_aec_pickle (tests/test_conformance.py).
def test_a_mid_episode_deep_copy_continues_identically() -> None:
    env = gridghost.env(slip_probability=0.5, max_cycles=40)
    env.reset(seed=4)
    for action in (1, 3, 0, 2, 1, 1, 3):
        env.step(action)
    assert env.agents == ["agent", "ghost"] and not any(env.terminations.values())
    twin = copy.deepcopy(env)
    assert twin.agent_pos == env.agent_pos and twin.agent_selection == env.agent_selection
    assert record_rest(twin) == record_rest(env)


# -- bad input -----------------------------------------------------------------------------------

def snapshot(env) -> tuple:
    return (env.game_state, env.agent_selection, dict(env.rewards), dict(env._cumulative_rewards),
            plain(env.infos), env.np_random.bit_generator.state)


@pytest.mark.parametrize(
    ("action", "error", "message"),
    [
        (4, ValueError, "must lie in 0..3, got 4"),
        (-1, ValueError, "must lie in 0..3, got -1"),
        (np.int64(7), ValueError, "got 7"),
        (1.0, TypeError, "must be an int in 0..3"),
        (float("nan"), TypeError, "got nan"),
        (np.float32(2), TypeError, "float32"),
        ("up", TypeError, "got 'up'"),
        (True, TypeError, "bool"),
        (None, TypeError, "None is only accepted from terminated or truncated agents"),
        (np.array([1]), TypeError, "ndarray"),
        ([1], TypeError, "list"),
    ],
)
@pytest.mark.parametrize("make", CONSTRUCTORS.values(), ids=CONSTRUCTORS.keys())
def test_rejected_actions_raise_and_change_nothing(make, action, error, message) -> None:
    env = make()
    env.reset(seed=0)
    env.step(1)  # now the ghost is to move; check both sides' guards
    for _ in range(2):
        before = snapshot(env)
        with pytest.raises(error, match=message):
            env.step(action)
        assert snapshot(env) == before
        env.step(0)


@pytest.mark.parametrize("action", [np.int32(2), np.int64(2), np.uint8(2), np.array(2)])
def test_numpy_integer_actions_are_accepted(action) -> None:
    a, b = gridghost.env(), gridghost.env()
    a.reset(seed=0)
    b.reset(seed=0)
    a.step(action)
    b.step(2)
    assert a.agent_pos == b.agent_pos and plain(a.infos) == plain(b.infos)


def test_a_dead_agent_only_accepts_none() -> None:
    env = gridghost.env(max_cycles=1)
    env.reset(seed=0)
    env.step(Action.UP)
    env.step(Action.RIGHT)
    with pytest.raises(ValueError, match="only valid action is None"):
        env.step(0)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (dict(slip_probability=1.1), ValueError, r"slip_probability must lie in \[0, 1\]"),
        (dict(slip_probability=-0.2), ValueError, "slip_probability"),
        (dict(slip_probability=float("nan")), ValueError, "slip_probability"),
        (dict(slip_probability="high"), TypeError, "slip_probability"),
        (dict(color_sensor_quality=1.5), ValueError, r"color_sensor_quality must lie in \[0, 1\]"),
        (dict(color_sensor_quality=-1), ValueError, "color_sensor_quality"),
        (dict(slip_type="diagonal"), ValueError,
         r"unknown slip_type 'diagonal'; accepted: \['longitudinal', 'none', 'perpendicular'\]"),
        (dict(obs_type="vectorised"), ValueError, "unknown obs_type 'vectorised'"),
        (dict(max_cycles=0), ValueError, r"max_cycles must be an int >= 1 or None \(no limit\), got 0"),
        (dict(max_cycles=-5), ValueError, "max_cycles"),
        (dict(max_cycles=2.5), TypeError, "max_cycles must be an int"),
        (dict(max_cycles=True), TypeError, "max_cycles"),
        (dict(render_mode="video"), ValueError, "unknown render_mode 'video'"),
        (dict(render_mode="rgb"), ValueError,
         r"unknown render_mode 'rgb'; accepted: None or one of \['human', 'rgb_array', 'ansi'\]"),
        (dict(layout=42), TypeError, "layout must be a Layout, a MapGenerator, a shipped map's name"),
        (dict(rewards={"goal": 1}), TypeError, "rewards must be a gridghost.Rewards"),
        (dict(ghost_rewards=0), TypeError, "ghost_rewards must be a gridghost.Rewards"),
    ],
)
@pytest.mark.parametrize("make", CONSTRUCTORS.values(), ids=CONSTRUCTORS.keys())
def test_bad_constructor_arguments_raise(make, kwargs, error, message) -> None:
    with pytest.raises(error, match=message):
        make(**kwargs)


def test_unknown_agent_names_raise() -> None:
    env = gridghost.env()
    env.reset(seed=0)
    for call in (env.observation_space, env.action_space, env.observe):
        with pytest.raises(ValueError, match="unknown agent 'player_0'; agents: \\['agent', 'ghost'\\]"):
            call("player_0")


@pytest.mark.parametrize("make", CONSTRUCTORS.values(), ids=CONSTRUCTORS.keys())
def test_using_the_env_before_reset_raises_clearly(make) -> None:
    env = make()
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)
    with pytest.raises(RuntimeError, match="call reset"):
        env.observe("agent")
    with pytest.raises(RuntimeError, match="call reset"):
        env.state()
    with pytest.raises(AttributeError, match="rewards does not exist before reset"):
        env.rewards  # noqa: B018
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        env.nonsense  # noqa: B018


def test_checked_env_requires_a_step_for_every_yielded_agent() -> None:
    env = gridghost.env()
    with pytest.raises(RuntimeError, match="call reset"):
        env.agent_iter()
    env.reset(seed=0)
    iterator = iter(env.agent_iter())
    assert next(iterator) == "agent"
    with pytest.raises(RuntimeError, match="call step"):
        next(iterator)
    env.step(0)
    assert next(iterator) == "ghost"


def test_options_must_be_a_dict() -> None:
    env = gridghost.env()
    env.reset(seed=0, options={"anything": 1})
    with pytest.raises(TypeError, match="options must be a dict or None"):
        env.reset(options=["fast"])


# -- components and registry ---------------------------------------------------------------------

def test_components_can_be_passed_as_objects() -> None:
    by_name = gridghost.env(slip="perpendicular", slip_probability=0.3, color_sensor_quality=0.9)
    by_object = gridghost.env(slip=gridghost.PerpendicularSlip(0.3),
                              sensors=[gridghost.ColorSensor(gridghost.CLASSIC, 0.9)])
    assert episodes(by_name, [5, 6]) == episodes(by_object, [5, 6])


def test_without_sensors_the_info_has_no_measurement() -> None:
    env = gridghost.env(sensors=[])
    env.reset(seed=0)
    env.step(1)
    assert "color_measurement" not in env.infos["agent"]


def test_pettingzoo_registry_makes_the_env() -> None:
    import pettingzoo

    if not hasattr(pettingzoo, "make"):
        pytest.fail("the installed PettingZoo has no registry; gridghost's tests need PettingZoo >= 1.27")
    made = pettingzoo.make("aec", gridghost.ENV_ID, max_cycles=7, slip_type="perpendicular")
    assert isinstance(made.unwrapped, gridghost.GridGhostEnv)
    assert made.max_cycles == 7 and made.slip == gridghost.PerpendicularSlip(0.2)
    made.reset(seed=0)
    assert made.agent_selection == "agent"


class NoisyDistance(gridghost.Sensor):
    """A custom sensor: the agent's row plus noise, from whatever generator the env hands it."""

    name = "noisy_row"

    def __init__(self, layout: Layout) -> None:
        self.layout = layout

    def measure(self, state, rng):
        return divmod(state.agent, self.layout.cols)[0] + float(rng.normal())

    def likelihood(self, measurement):
        raise NotImplementedError("not needed here")


def test_a_custom_sensor_reports_reproducibly_without_moving_the_game() -> None:
    plain_env = gridghost.env(slip_probability=0.5)
    sensing = gridghost.env(slip_probability=0.5,
                            sensors=[gridghost.ColorSensor(gridghost.CLASSIC), NoisyDistance(gridghost.CLASSIC)])
    for seed in (1, 2):
        base = episodes(plain_env, [seed])[0]
        with_sensor = episodes(sensing, [seed])[0]
        strip = [(name, obs, r, te, tr, {k: v for k, v in info.items() if k != "noisy_row"}, a, g)
                 for name, obs, r, te, tr, info, a, g in with_sensor]
        assert strip == base  # same trajectory, same colour readings
        readings = [info["noisy_row"] for *_, info, _, _ in with_sensor if "noisy_row" in info]
        assert readings and all(isinstance(x, float) for x in readings)
        assert readings == [info["noisy_row"] for *_, info, _, _ in episodes(sensing, [seed])[0] if "noisy_row" in info]


@pytest.mark.parametrize("name", ["slipped", "ghost_distance", "action_mask", "mover", "caught_by_ghost"])
def test_a_sensor_cannot_overwrite_the_envs_own_info_keys(name: str) -> None:
    sensor = NoisyDistance(gridghost.CLASSIC)
    sensor.name = name
    with pytest.raises(ValueError, match=f"reports under '{name}', an info key the env writes itself"):
        gridghost.env(sensors=[sensor])


def test_a_sensor_without_a_layout_is_rejected() -> None:
    class Bare(gridghost.Sensor):
        name = "bare"

    with pytest.raises(TypeError, match="must have a layout attribute"):
        gridghost.env(sensors=[Bare()])


# -- variants the single-agent views use -------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs", [dict(obs_type="vector"), dict(use_ghost=False), dict(use_ghost=False, obs_type="vector")]
)
def test_api_test_passes_without_the_ghost_and_with_vector_observations(kwargs: dict) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(gridghost.env(**kwargs), num_cycles=300)
    surprises = {str(w.message) for w in caught if not str(w.message).startswith(ACKNOWLEDGED_API_WARNINGS)}
    assert not surprises


def test_without_the_ghost_only_the_agent_moves_and_nothing_catches_it() -> None:
    env = gridghost.env(use_ghost=False, slip_probability=0.0)
    assert env.possible_agents == ["agent"]
    with pytest.raises(ValueError, match="unknown agent 'ghost'; agents: \\['agent'\\]"):
        env.observation_space("ghost")
    env.reset(seed=0)
    # Down the right-hand column onto the ghost's start cell (3, 4), which is also a goal.
    for action in (2, 2, 1, 1, 1):
        assert env.agent_selection == "agent"
        env.step(action)
    assert env.ghost_pos == (3, 4) and env.agent_pos == (3, 4)
    assert env.infos["agent"]["reached_goal"] is True and env.infos["agent"]["caught_by_ghost"] is False
    assert env.rewards == {"agent": 100.0} and env.cycles == 5


def test_max_cycles_none_never_truncates() -> None:
    env = gridghost.env(max_cycles=None, use_ghost=False)
    env.reset(seed=0)
    for _ in range(500):
        env.step(3)  # up from the start cell bumps into the border
    assert env.agents == ["agent"] and not env.truncations["agent"] and env.cycles == 500


def test_an_unseeded_first_reset_is_replayed_by_its_drawn_seed() -> None:
    sensors = [gridghost.ColorSensor(gridghost.CLASSIC), NoisyDistance(gridghost.CLASSIC)]
    first = gridghost.env(slip_probability=0.5, sensors=sensors)
    first.reset()
    drawn = first.np_random_seed
    assert isinstance(drawn, int)
    again = gridghost.env(slip_probability=0.5, sensors=sensors)
    again.reset(seed=drawn)
    assert record_rest(first) == record_rest(again)  # the custom sensor's readings included


def test_use_ghost_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match="use_ghost must be a bool, got 'no'"):
        gridghost.env(use_ghost="no")


# -- the agent's belief filter -------------------------------------------------------------------
def item_env(**kwargs) -> gridghost.GridGhostEnv:
    """The env with the colour sensor and the item classifier."""
    sensors = [ColorSensor(gridghost.CLASSIC), ItemSensor(gridghost.CLASSIC)]
    return gridghost.raw_env(sensors=sensors, **kwargs)


def test_api_test_passes_with_belief_observations() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(gridghost.env(obs_type="belief", belief_filter="particle"), num_cycles=300)
    surprises = {str(w.message) for w in caught if not str(w.message).startswith(ACKNOWLEDGED_API_WARNINGS)}
    assert not surprises


@pytest.mark.parametrize("belief_filter", ["particle", "histogram"])
def test_a_filter_never_changes_the_game(belief_filter: str) -> None:
    """Same seed, same actions: the same observations, rewards, readings and positions with the
    filter on as with it off (the filter and the item sensor draw from streams of their own)."""
    plain_run, filtered = item_env(), item_env(belief_filter=belief_filter)
    plain_run.reset(seed=21)
    filtered.reset(seed=21)
    without = record_rest(plain_run, policy_seed=4)
    with_filter = record_rest(filtered, policy_seed=4)
    assert len(without) == len(with_filter) > 10
    for off, on in zip(without, with_filter, strict=True):
        on_info = dict(on[5])
        assert on_info.pop("estimated_pos") and on_info.pop("estimated_cell")
        assert (*off[:5], off[5], *off[6:]) == (*on[:5], on_info, *on[6:])


def test_the_env_keeps_its_exact_filter_in_step_and_reports_its_estimate() -> None:
    """An exact filter fed by hand with the env's readings and the agent's intended moves gives
    the belief and the estimate the env shows."""
    env = item_env(obs_type="belief")
    mirror = HistogramFilter(env.layout, env.slip, env.sensors)
    env.reset(seed=5)
    mirror.update(env.infos["agent"])
    rng = np.random.default_rng(2)
    checked = 0
    for name in env.agent_iter():
        obs, _, termination, truncation, info = env.last()
        if name == "agent":
            assert obs["belief"].dtype == np.float32 and obs["belief"].shape == (4, 5)
            assert np.allclose(obs["belief"], mirror.belief(), atol=1e-7)
            estimate = mirror.estimate()
            assert info["estimated_pos"].tolist() == estimate["float_pos"]
            assert info["estimated_cell"].tolist() == estimate["cell_pos"]
            assert env.observation_space("agent").contains(obs)
            checked += 1
        else:
            assert "belief" not in obs and env.observation_space("ghost").contains(obs)
        action = None if termination or truncation else int(rng.integers(4))
        env.step(action)
        if name == "agent" and action is not None:
            mirror.predict(action)
            mirror.update(env.infos["agent"])
    assert checked > 5


def test_belief_observations_default_to_the_exact_filter_and_are_fresh() -> None:
    env = gridghost.env(obs_type="belief")
    assert isinstance(env.belief_filter, HistogramFilter)
    env.reset(seed=0)
    first = env.observe("agent")
    first["belief"][:] = 7
    assert env.observe("agent")["belief"].max() <= 1.0


def test_same_seed_same_estimates_and_reset_with_the_drawn_seed_replays_them() -> None:
    def estimates(env: gridghost.GridGhostEnv, seed: int | None) -> list:
        env.reset(seed=seed)
        return [info["estimated_pos"] for *_, info, _, _ in record_rest(env, policy_seed=1) if "estimated_pos" in info]

    first, second = item_env(belief_filter="particle"), item_env(belief_filter="particle")
    assert estimates(first, 3) == estimates(second, 3)
    assert estimates(first, None) == estimates(second, None)  # unseeded resets continue alike
    unseeded = item_env(belief_filter="particle")
    drawn = estimates(unseeded, None)
    assert estimates(unseeded, unseeded.np_random_seed) == drawn
    # The env seeds the filter from the reset seed: the same moves scatter its particles the
    # same way for the same seed and differently for another.
    assert particles_after_moves(7) == particles_after_moves(7)
    assert particles_after_moves(7) != particles_after_moves(8)


def particles_after_moves(seed: int) -> list[list[int]]:
    env = gridghost.raw_env(belief_filter=ParticleFilter(gridghost.CLASSIC, LongitudinalSlip(0.2), []), use_ghost=False,
                            slip_probability=0.2)
    env.reset(seed=seed)
    particles = []
    for action in (0, 1, 2, 3):
        env.belief_filter.predict(action)
        particles.append(env.belief_filter.particles.tolist())
    return particles


def test_a_filter_copy_carries_on_identically() -> None:
    env = item_env(belief_filter="particle")
    env.reset(seed=9)
    env.step(1)
    env.step(0)
    for twin in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        assert record_rest(twin, policy_seed=6) == record_rest(copy.deepcopy(env), policy_seed=6)


def test_pictures_show_the_belief_unless_switched_off() -> None:
    env = gridghost.raw_env(render_mode="rgb_array", belief_filter="histogram")
    env.reset(seed=0)
    with_belief = env.render()
    hidden = gridghost.raw_env(render_mode="rgb_array", belief_filter="histogram", show_belief=False)
    hidden.reset(seed=0)
    without = hidden.render()
    no_filter = gridghost.raw_env(render_mode="rgb_array")
    no_filter.reset(seed=0)
    assert (without == no_filter.render()).all()
    assert (with_belief != without).any()


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (dict(belief_filter="kalman"), ValueError, r"belief_filter 'kalman'; accepted: \['particle', 'histogram'\]"),
        (dict(belief_filter=3), TypeError, "belief_filter must be one of"),
        (dict(obs_type="belief", belief_filter="nope"), ValueError, "unknown belief_filter 'nope'"),
    ],
)
def test_bad_belief_filters_raise(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        gridghost.env(**kwargs)


def test_a_filter_built_for_something_else_is_refused() -> None:
    layout = gridghost.CLASSIC
    colour = ColorSensor(layout)
    other = Layout(colours=[[0, 1]], goals=[(0, 1)], agent_start=(0, 0), ghost_start=(0, 1))
    with pytest.raises(ValueError, match="follows"):
        gridghost.env(belief_filter=HistogramFilter(other, LongitudinalSlip(0.2), []))
    with pytest.raises(ValueError, match="predicts with PerpendicularSlip"):
        gridghost.env(belief_filter=HistogramFilter(layout, PerpendicularSlip(0.2), [colour]))
    with pytest.raises(ValueError, match=r"reads \[ItemSensor.*\], which are not the env's sensors"):
        gridghost.env(belief_filter=HistogramFilter(layout, LongitudinalSlip(0.2), [ItemSensor(layout)]))
    # A look-alike of the env's colour sensor (same info key, another noise model) would make the
    # filter wrong, or fail mid-step on a reading it believes impossible.
    with pytest.raises(ValueError, match=r"reads \[ColorSensor\(layout='classic', quality=1.0\)\], which are not"):
        gridghost.env(sensors=[colour], belief_filter=HistogramFilter(layout, LongitudinalSlip(0.2),
                                                                      [ColorSensor(layout, 1.0)]))
    matching = ParticleFilter(layout, LongitudinalSlip(0.2), [colour], num_particles=50)
    assert gridghost.env(sensors=[colour], belief_filter=matching).belief_filter is matching


def test_show_belief_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match="show_belief must be a bool"):
        gridghost.env(show_belief="yes")


def test_numeric_estimates_are_read_only() -> None:
    env = gridghost.raw_env(belief_filter="histogram")
    env.reset(seed=0)
    env.step(1)
    for key in ("estimated_pos", "estimated_cell"):
        with pytest.raises(ValueError, match="read-only"):
            env.infos["agent"][key][0] = 99


@pytest.mark.parametrize("make, settings", [
    (gridghost.raw_env, {}),
    (gridghost.raw_env, dict(sensors=[ColorSensor(gridghost.CLASSIC), ItemSensor(gridghost.CLASSIC)],
                             belief_filter="histogram", expert="minimax")),
    (gridghost.raw_env, dict(reference_infos=True)),
    (gridghost.raw_env, dict(use_ghost=False)),
    (gridghost.parallel_env, dict(obs_type="vector")),
], ids=["numeric", "sensors-filter-expert", "reference", "no-ghost", "parallel"])
def test_reset_infos_hold_writable_arrays_of_their_own_and_half_turns_read_only_ones(make, settings) -> None:
    # Trainers build their specs from the reset's infos with torch.as_tensor, which warns about
    # read-only arrays: those are fresh copies, shared with nothing. A half-turn's arrays are the
    # env's read-only tables (no copy on the hot path): writing into them raises.
    env = make(**settings)
    board = getattr(env, "aec_env", env).board
    tables = [board.distance_table, *board.action_mask, WAITING_MASK]
    rng = np.random.default_rng(0)
    resets: list[np.ndarray] = []
    half_turns: list[np.ndarray] = []

    def arrays(infos: dict) -> list[np.ndarray]:
        return [a for info in infos.values() for a in info.values() if isinstance(a, np.ndarray)]

    parallel = make is gridghost.parallel_env
    for seed in range(3):
        if parallel:
            _, infos = env.reset(seed=seed)
        else:
            env.reset(seed=seed)
            infos = env.infos
        resets += arrays(infos)
        for _ in range(10):
            if parallel:
                if not env.agents:
                    break
                *_, infos = env.step({name: int(rng.integers(4)) for name in env.agents})
            else:
                _, _, term, trunc, _ = env.last()
                if term or trunc:
                    break
                env.step(int(rng.integers(4)))
                infos = env.infos
            half_turns += arrays(infos)
    assert len(resets) >= 6 and len(half_turns) >= 20
    assert all(array.flags.writeable and array.base is None for array in resets)
    for i, array in enumerate(resets):
        assert not any(np.shares_memory(array, table) for table in tables)
        assert not any(np.shares_memory(array, other) for other in resets[i + 1:] + half_turns)
    assert not any(array.flags.writeable for array in half_turns)


def test_each_info_has_its_own_estimate() -> None:
    env = gridghost.raw_env(belief_filter="histogram", reference_infos=True)
    env.reset(seed=0)
    env.step(1)
    after_agent = env.infos["agent"]
    env.step(0)
    after_ghost = env.infos["agent"]
    assert after_agent["estimated_pos"] == after_ghost["estimated_pos"]  # the ghost's move changes no belief
    after_agent["estimated_pos"]["cell_pos"][0] = 99
    assert after_ghost["estimated_pos"]["cell_pos"][0] != 99
