"""Teams in every view that serves them: the AEC env, the parallel env and the Gymnasium view with
``ghosts=k`` (k >= 2), their observations, masks and infos; and the one-ghost views unchanged."""

from __future__ import annotations

import importlib
import pickle
import warnings
from collections import Counter
from typing import Any

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

import gridghost
from gridghost import testing
from gridghost.config import resolve
from gridghost.config.settings import GameSpec
from gridghost.core.game import Game
from gridghost.core.layout import Layout
from gridghost.core.rules import GameState, Outcome, Side
from gridghost.core.slip import NoSlip
from gridghost.envs.aec import CheckedGridGhostEnv, GridGhostEnv
from gridghost.envs.compat import AgentInterface
from gridghost.envs.parallel import _BothObserve
from gridghost.envs.single_agent import GridGhostGymEnv
from gridghost.sensing.observations import grid_channels, make_observations, vector_slots

ENV_ID = "gridghost/GridGhost-v1"
#: An open 5 x 5 map with three ghost starts, away from the agent.
OPEN = Layout(np.zeros((5, 5), int), goals=[(0, 0)], agent_start=(2, 2), ghost_start=[(4, 4), (0, 4), (4, 0)])
#: Ghost 1 next to the agent's first step up: ghost 1 can catch it at once.
CATCH = Layout(np.zeros((5, 5), int), goals=[(0, 0)], agent_start=(2, 2), ghost_start=[(4, 4), (1, 3)])
#: Two ghosts that can step onto one cell, (0, 3), together.
SHARE = Layout(np.zeros((5, 5), int), goals=[(4, 0)], agent_start=(2, 2), ghost_start=[(0, 4), (0, 2)])
#: Ghost 0 two cells right of the agent: the agent's double slip right walks into it.
SLIP = Layout(np.zeros((5, 5), int), goals=[(0, 0)], agent_start=(2, 2), ghost_start=[(2, 4), (4, 4)])
LEFT, DOWN, RIGHT, UP = range(4)


def _team_after_agent(env: Any, action: int) -> None:
    """Reset the AEC env (seed 0) and play the agent's ``action``: the team is to move."""
    env.reset(seed=0)
    env.step(action)
    assert env.agent_selection == "ghost_0"


# -- the conformance suite and PettingZoo's tests ----------------------------------------------------
@pytest.mark.parametrize("k", [2, 3])
def test_the_aec_and_parallel_views_of_a_team_conform(k: int) -> None:
    testing.aec_conformance(lambda: gridghost.env(layout=OPEN, ghosts=k, max_cycles=8))
    testing.aec_conformance(lambda: gridghost.raw_env(layout=OPEN, ghosts=k, obs_type="grid", view_radius=2,
                                                      ghost_credit="catcher"))
    testing.parallel_conformance(lambda: gridghost.parallel_env(layout=OPEN, ghosts=k, max_cycles=8))
    testing.parallel_conformance(lambda: gridghost.parallel_env(layout=OPEN, ghosts=k, obs_type="vector",
                                                                action_mask_in_obs=True))


@pytest.mark.parametrize("k", [1, 2, 3])
def test_the_gymnasium_views_of_a_team_conform(k: int) -> None:
    if k > 1:
        testing.gymnasium_conformance(lambda: gymnasium.make(ENV_ID, layout=OPEN, ghosts=k, max_episode_steps=12))
    testing.gymnasium_conformance(lambda: gymnasium.make(ENV_ID, layout=OPEN, ghosts=k, controlled="ghosts",
                                                         obs_type="grid", max_episode_steps=12))


@pytest.mark.parametrize("k", [2, 3])
def test_pettingzoo_api_and_seed_tests_pass_for_a_team(k: int) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(gridghost.env(layout=OPEN, ghosts=k, max_cycles=10, obs_type="vector"), num_cycles=60)
    # "agent" is named, not numbered; anything else api_test warns about is a real problem
    assert {str(w.message) for w in caught} <= {
        'We recommend agents to be named in the format <descriptor>_<number>, like "player_0"'}
    parallel_api_test(gridghost.parallel_env(layout=OPEN, ghosts=k, max_cycles=10), num_cycles=60)
    seed_test(lambda: gridghost.env(layout=OPEN, ghosts=k, max_cycles=10), num_cycles=60)
    parallel_seed_test(lambda: gridghost.parallel_env(layout=OPEN, ghosts=k, max_cycles=10), num_cycles=60)


def test_the_suite_catches_a_team_env_whose_ghosts_move_one_by_one() -> None:
    # the suite can fail on a team: a ghost that moved before its teammates chose breaks the kernel check
    class OneByOne(GridGhostEnv):
        def step(self, action: Any) -> None:
            name = self.agent_selection
            super().step(action)
            if name == "ghost_0" and self._held:  # carry out ghost 0's move at once
                game = self._game
                self._game = game._replace(ghosts=(self.kernel.moves[game.ghosts[0], action], *game.ghosts[1:]))

    with pytest.raises(AssertionError, match="kernel"):
        testing.pettingzoo_views.check_aec_kernel(lambda: OneByOne(layout=OPEN, ghosts=2, max_cycles=8))


# -- the rules as the AEC env plays them ------------------------------------------------------------
# The chi-square test below is deterministic (fixed seeds). Its threshold is the 0.999 quantile of
# the chi-square distribution with m - 1 degrees of freedom (m outcomes with a positive
# probability): a correct env exceeds it for one seed set in a thousand, and a wrong probability
# (0.2 instead of 0.1 for one of 3000 samples) gives a statistic in the hundreds. scipy is not a
# dependency, so the quantiles are written out.
CHI2_999 = {1: 10.828, 2: 13.816, 3: 16.266, 4: 18.467}


@pytest.mark.parametrize(("slip", "action"), [({"slip_probability": 0.2}, RIGHT),
                                              ({"slip_probability": 0.3, "slip_type": "perpendicular"}, RIGHT)])
def test_sampled_play_of_a_team_matches_the_kernels_exact_probabilities(slip: dict, action: int) -> None:
    env = gridghost.raw_env(layout=SLIP, ghosts=2, **slip)
    kernel: Game = env.kernel
    start = kernel.initial_state()
    exact = {after: p for p, after, _, _ in kernel.successors(start, action)}
    samples, counts = 3000, Counter()
    for seed in range(samples):
        env.reset(seed=seed)
        env.step(action)
        counts[env.game_state] += 1
        if env.game_state.outcome == Outcome.ONGOING:  # the team's move: one outcome, the kernel's
            before = env.game_state
            env.step(UP)
            env.step(LEFT)
            assert env.game_state == kernel.ghosts_step(before, (UP, LEFT))
    assert set(counts) <= set(exact), f"outcomes the kernel gives no probability: {set(counts) - set(exact)}"
    assert any(after.outcome == Outcome.CAUGHT for after in exact) or slip.get("slip_type")
    statistic = sum((counts[after] - samples * p) ** 2 / (samples * p) for after, p in exact.items())
    assert statistic < CHI2_999[len(exact) - 1], (statistic, counts, exact)


def test_no_ghost_sees_a_teammates_choice_and_the_team_moves_together() -> None:
    for obs_type in ("vector", "grid", "dict", "text"):
        env = gridghost.raw_env(layout=OPEN, ghosts=2, slip_probability=0.0, obs_type=obs_type)
        _team_after_agent(env, UP)
        before, state = env.game_state, env.state()
        seen = env.observe("ghost_1")
        env.step(LEFT)  # ghost 0 chooses: held
        assert env.agent_selection == "ghost_1"
        assert env.game_state == before and np.array_equal(env.state(), state)
        assert testing.common.same(env.observe("ghost_1"), seen) is None, obs_type
        assert testing.common.same(env.last()[0], seen) is None
        assert env.rewards == {"agent": 0.0, "ghost_0": 0.0, "ghost_1": 0.0}
        env.step(UP)  # ghost 1 chooses: both moves apply together
        assert env.game_state.ghosts == env.kernel.ghosts_step(before, (LEFT, UP)).ghosts == (23, 4)
        assert env.agent_selection == "agent" and env.cycles == 1


def test_any_ghost_catches_and_a_catchers_credit_pays_only_it() -> None:
    for credit, ghost_0 in (("team", 50.0), ("catcher", 0.0)):
        env = gridghost.raw_env(layout=CATCH, ghosts=2, slip_probability=0.0, ghost_credit=credit)
        _team_after_agent(env, UP)  # to (1, 2), next to ghost 1 at (1, 3)
        env.step(UP)
        env.step(LEFT)  # ghost 1 steps onto the agent
        assert env.game_state.outcome == Outcome.CAUGHT
        assert env.rewards == {"agent": -50.0, "ghost_0": ghost_0, "ghost_1": 50.0}
        assert all(env.terminations.values())
        for name in env.possible_agents:
            info = env.infos[name]
            assert info["caught_by_ghost"] and info["catchers"].tolist() == [0, 1]


def test_ghosts_may_share_a_cell() -> None:
    env = gridghost.raw_env(layout=SHARE, ghosts=2, slip_probability=0.0, obs_type="grid")
    _team_after_agent(env, DOWN)
    env.step(LEFT)
    env.step(RIGHT)  # both onto (0, 3)
    assert env.ghost_positions == ((0, 3), (0, 3)) and env.game_state.outcome == Outcome.ONGOING
    state = env.state()
    assert state[0, 3, 1] == state[0, 3, 2] == 1 and state[:, :, 1:3].sum() == 2
    ghosts_plane = env.observe("agent")[grid_channels(ghosts=2).index("ghosts")]
    assert ghosts_plane.sum() == 1.0 and ghosts_plane[0, 3] == 1.0


@pytest.mark.parametrize(("old", "name", "now"), [
    ("gridghost.envs.team_aec", "TeamGridGhostEnv", GridGhostEnv),
    ("gridghost.envs.team_aec", "CheckedTeamGridGhostEnv", CheckedGridGhostEnv),
    ("gridghost.envs.teams", "TeamPlay", GridGhostEnv),
    ("gridghost.envs.team_gym", "TeamGymEnv", GridGhostGymEnv),
])
def test_the_team_env_classes_import_from_their_old_places_as_the_one_class_with_a_warning(
        old: str, name: str, now: type) -> None:
    module = importlib.import_module(old)
    new = rf"{now.__module__}.{now.__name__}".replace(".", r"\.")
    message = rf"{old}\.{name} is deprecated: use {new} \(removed in gridghost"
    with pytest.warns(DeprecationWarning, match=message):
        assert getattr(module, name) is now
    # one class for every team size, chosen by no switch
    assert "__new__" not in vars(GridGhostEnv) and "__new__" not in vars(GridGhostGymEnv)


def test_a_team_envs_agents_spaces_state_and_cycles() -> None:
    env = gridghost.env(layout=OPEN, ghosts=3, max_cycles=2)
    assert type(env) is CheckedGridGhostEnv and type(gridghost.raw_env(layout=OPEN, ghosts=2)) is GridGhostEnv
    assert env.possible_agents == ["agent", "ghost_0", "ghost_1", "ghost_2"]
    assert env.state_space.shape == (5, 5, 6)
    env.reset(seed=1)
    assert env.state()[:, :, 1:4].sum() == 3 and env.state()[4, 0, 3] == 1 and env.state()[0, 0, 4] == 1
    order = [name for name in env.agent_iter(8) if env.step(None if any(env.last()[2:4]) else UP) is None]
    assert order == ["agent", "ghost_0", "ghost_1", "ghost_2"] * 2
    assert env.cycles == 2 and all(env.truncations.values())
    assert type(pickle.loads(pickle.dumps(env))) is CheckedGridGhostEnv


def test_a_team_envs_numeric_infos_per_ghost() -> None:
    env = gridghost.raw_env(layout=OPEN, ghosts=3, slip_probability=0.0)
    _team_after_agent(env, RIGHT)  # the agent at (2, 3)
    infos, board, state = env.infos, env.board, env.game_state
    assert len({tuple(info) for info in infos.values()}) == 1  # the same keys for every agent
    distances = [board.distance[state.agent][cell] for cell in state.ghosts]
    assert infos["agent"]["distance"] == min(distances)
    for index in range(3):
        info = infos[f"ghost_{index}"]
        assert info["distance"] == distances[index] and info["to_move"] == 1 and info["mover"] == 0
        assert info["ghost_distances"].tolist() == distances
        assert np.array_equal(info["action_mask"], board.action_mask[state.ghosts[index]])
        assert not info["action_mask"].flags.writeable and info["catchers"].tolist() == [0, 0, 0]


@pytest.mark.parametrize("settings", [{}, {"belief_filter": "histogram"}, {"action_mask_in_obs": True}])
def test_every_team_info_holds_its_keys_in_order_each_set(settings: dict[str, Any]) -> None:
    # a publish fills a copy of keys laid out in advance (the estimate's and the team's too):
    # every info of every half-turn and reset holds them in the documented order, none left unset
    from gridghost.envs.infos import NUMERIC_INFO_KEYS

    env = gridghost.env(layout=OPEN, ghosts=2, max_cycles=6, **settings)
    rng = np.random.default_rng(0)
    env.reset(seed=2)
    keys = [key for key in NUMERIC_INFO_KEYS if key != "action_mask" or not settings.get("action_mask_in_obs")]
    sensors = [key for key in env.infos["agent"] if key not in keys and key not in
               ("estimated_pos", "estimated_cell", "ghost_distances", "catchers")]
    expected = [*keys, *sensors, *(["estimated_pos", "estimated_cell"] if settings.get("belief_filter") else []),
                "ghost_distances", "catchers"]
    seen = 0
    for episode in range(6):
        if episode:
            env.reset()
        for name in env.agent_iter():
            _, _, terminated, truncated, info = env.last()
            assert info is env.infos[name]
            state, board = env.game_state, env.board
            distances = [board.distance[state.agent][cell] for cell in state.ghosts]
            for agent, entry in env.infos.items():
                assert list(entry) == expected and all(value is not None for value in entry.values())
                assert entry["ghost_distances"].tolist() == distances
                assert entry["distance"] == (min(distances) if agent == "agent" else
                                             distances[int(agent[-1])])
                seen += 1
            env.step(None if terminated or truncated else int(rng.integers(4)))
    assert seen > 100


def test_a_team_refuses_the_one_ghost_settings_and_too_few_starts() -> None:
    for setting, value in (("reference_infos", True), ("expert", "minimax")):
        with pytest.raises(ValueError, match=setting):
            gridghost.env(layout=OPEN, ghosts=2, **{setting: value})
    with pytest.raises(ValueError, match="ghost starts"):
        gridghost.env(layout=SLIP, ghosts=3)
    with pytest.raises(ValueError, match="AgentInterface is the reference's one-ghost interface"):
        AgentInterface(render=False, spec=GameSpec(layout=OPEN, ghosts=2))


def test_a_bad_ghost_action_changes_nothing_in_the_aec_env() -> None:
    env = gridghost.env(layout=OPEN, ghosts=2, slip_probability=0.0)
    _team_after_agent(env, UP)
    env.step(LEFT)
    for bad in (4, -1, "up", None, 1.5):
        with pytest.raises((TypeError, ValueError)):
            env.step(bad)
    assert env.agent_selection == "ghost_1" and env._held == (LEFT,)


# -- the parallel env -------------------------------------------------------------------------------
def test_a_parallel_step_moves_the_whole_team_and_refuses_actions_for_the_wrong_ghosts() -> None:
    env = gridghost.parallel_env(layout=OPEN, ghosts=2, slip_probability=0.0)
    env.reset(seed=0)
    env.step({"agent": UP})
    before = env.aec_env.game_state
    for actions, match in (({"ghost_0": LEFT}, "ghost_1"),
                           ({"ghost_0": LEFT, "ghost_1": 7}, "ghost_1"),
                           ({"ghost_0": LEFT, "ghost_1": UP, "ghost": 0}, "unknown sides"),
                           ({"ghost_0": LEFT, "ghost_1": UP, "ghost_2": 0}, "unknown sides")):
        with pytest.raises(ValueError, match=match):
            env.step(actions)
        assert env.aec_env.game_state == before and env.aec_env._held == ()
    _, rewards, *_, infos = env.step({"agent": 0, "ghost_0": LEFT, "ghost_1": UP})
    assert env.aec_env.game_state.ghosts == env.aec_env.kernel.ghosts_step(before, (LEFT, UP)).ghosts
    assert rewards == {"agent": 0.0, "ghost_0": 0.0, "ghost_1": 0.0}
    assert infos["ghost_0"]["action_mask"].tolist() == [1, 0, 0, 0]  # waiting: the no-op only


# -- the Gymnasium view -----------------------------------------------------------------------------
def test_the_agent_plays_against_a_chasing_team() -> None:
    env = gymnasium.make(ENV_ID, layout=OPEN, ghosts=2, slip_probability=0.0)
    assert type(env.unwrapped) is GridGhostGymEnv and env.action_space == gymnasium.spaces.Discrete(4)
    env.reset(seed=0)
    game = env.unwrapped.game
    kernel: Game = game.kernel
    after_agent = kernel.agent_step(game.game_state, UP, np.random.default_rng(0))[0]
    env.step(UP)
    assert game.game_state == kernel.ghosts_step(after_agent, kernel.chase_actions(after_agent))


def test_the_team_learns_as_one_env_with_a_multidiscrete_action() -> None:
    env = gymnasium.make(ENV_ID, layout=OPEN, ghosts=3, controlled="ghosts", slip_probability=0.0)
    assert env.action_space == gymnasium.spaces.MultiDiscrete([4, 4, 4])
    observation, info = env.reset(seed=0)
    names = ("ghost_0", "ghost_1", "ghost_2")
    game = env.unwrapped.game
    assert observation.shape == (3, len(vector_slots(3)))
    for index, name in enumerate(names):  # every ghost's own observation, in order
        assert np.array_equal(observation[index], game.observe(name))
    assert info["action_mask"].shape == (3, 4) and env.unwrapped.action_masks().shape == (12,)
    before = game.game_state
    opening = sum(game.rewards[name] for name in names) / 3  # the opponent agent's opening move: paid now
    _, reward, *_ = env.step(np.array([LEFT, UP, RIGHT]))
    moved = game.kernel.ghosts_step(before, (LEFT, UP, RIGHT))
    assert game.game_state.ghosts == moved.ghosts and moved.outcome == Outcome.ONGOING
    # the mean of the ghosts' rewards of both half-turns: the team's move, then the opponent agent's
    team_move = sum(game.kernel.ghost_rewards_of(Side.GHOST, moved)) / 3
    assert reward == opening + team_move + sum(game.rewards[name] for name in names) / 3 and opening != 0.0
    for bad, error in (([0, 1], ValueError), ([0, 1, 2, 3], ValueError), ([0, 1, 4], ValueError),
                       (np.array([0.0, 1.0, 2.0]), TypeError), (2, TypeError)):
        state = game.game_state
        with pytest.raises(error, match="action"):
            env.step(bad)
        assert game.game_state == state


@pytest.mark.parametrize("obs_type", ["dict", "text", "grid"])
def test_the_teams_observation_stacks_every_ghosts(obs_type: str) -> None:
    env = gymnasium.make(ENV_ID, layout=OPEN, ghosts=2, controlled="ghosts", obs_type=obs_type, view_radius=None)
    observation, _ = env.reset(seed=0)
    game = env.unwrapped.game
    assert env.observation_space.contains(observation)
    if obs_type == "dict":
        assert list(observation) == ["ghost_0", "ghost_1"]
    elif obs_type == "text":
        assert observation == f"{game.observe('ghost_0')} {game.observe('ghost_1')}"
    else:
        assert observation.shape == (2, *game.observation_space("ghost_0").shape)


def test_the_team_views_refuse_what_they_do_not_serve() -> None:
    with pytest.raises(ValueError, match=r"unknown opponent 'optimal'; accepted: \['chase', 'random', 'minimax'\]"):
        gymnasium.make(ENV_ID, layout=OPEN, ghosts=2, controlled="agent", opponent="optimal")
    with pytest.raises(ValueError, match="controlled='ghosts'"):
        gymnasium.make(ENV_ID, layout=OPEN, ghosts=2, controlled="ghost")
    with pytest.raises(ValueError, match="opponent"):
        gymnasium.make(ENV_ID, layout=OPEN, ghosts=2, controlled="ghosts", opponent="chase")
    with pytest.raises(ValueError, match="opening move"):
        gymnasium.make(ENV_ID, layout=SLIP, ghosts=2, controlled="ghosts")  # a double slip reaches ghost 0
    # one ghost learning as a team: the one-ghost solver's agent is served
    env = gymnasium.make(ENV_ID, controlled="ghosts", opponent="minimax")
    env.reset(seed=0)
    assert env.step([UP])[1] is not None


# -- observations -----------------------------------------------------------------------------------
def test_the_team_encodings_place_every_ghost() -> None:
    team = Game(OPEN, NoSlip(), ghosts=3)
    state = GameState(team.board.index((2, 2)), tuple(team.board.index(cell) for cell in ((4, 4), (0, 4), (2, 1))))
    vectors = make_observations("vector", team.board, ghosts=3)
    assert len({id(vectors.space(name)) for name in vectors.keys}) == 1
    ghost_1 = vectors.observe("ghost_1", state)
    slots = dict(zip(vector_slots(3), ghost_1.tolist(), strict=True))
    assert (slots["opponent_d_row"], slots["opponent_d_col"]) == (0.5, -0.5)  # the agent, from (0, 4)
    assert (slots["other_1_d_row"], slots["other_1_d_col"]) == (1.0, 0.0)  # ghost 0 at (4, 4)
    assert (slots["other_2_d_row"], slots["other_2_d_col"]) == (0.5, -0.75)  # ghost 2 at (2, 1)
    grid = make_observations("grid", team.board, ghosts=3, view_radius=1).observe("agent", state)
    channels = grid_channels(1, ghosts=3)
    assert grid[channels.index("ghosts")].sum() == 1.0 and grid[channels.index("ghosts"), 1, 0] == 1.0
    assert grid[channels.index("opponent")].sum() == 1.0  # only ghost 2 lies in the window
    whole = make_observations("grid", team.board, ghosts=3).observe("ghost_0", state)
    assert whole[channels.index("ghosts") - 1].sum() == 3.0 and whole[channels.index("opponent")].sum() == 1.0
    dicts = make_observations("dict", team.board, ghosts=3)
    assert {"ghost_0_distance", "ghost_2_relative_pos"} <= set(dicts.observe("agent", state))
    assert "ghost_0_relative_pos" not in dicts.space("ghost_0").spaces
    assert dicts.observe("ghost_0", state)["ghost_2_relative_pos"].tolist() == [-2, -3]
    text = make_observations("text", team.board, ghosts=3).observe("ghost_2", state)
    assert text.startswith("You are ghost 2.") and "Ghost 0 is 2 down and 3 right, 5 steps away." in text


@pytest.mark.parametrize("k", [2, 3])
def test_a_team_vector_reads_the_same_from_its_pair_table_as_slot_by_slot(k: int, monkeypatch: Any) -> None:
    # a small map's team vector reads each pair's slots from a cells x cells table; a large map's
    # looks them up apart: both give the same float32 vectors, ghosts on the agent's cell too
    from gridghost.sensing import encoders

    board = Game(Layout.generate(8, 8, seed=1, ghosts=3), NoSlip(), ghosts=k).board
    table = make_observations("vector", board, ghosts=k)
    monkeypatch.setattr(encoders, "_PAIR_TABLE_CELLS", board.num_cells - 1)
    apart = make_observations("vector", board, ghosts=k)
    assert hasattr(table, "_pair_table") and not hasattr(apart, "_pair_table")
    rng = np.random.default_rng(k)
    for _ in range(200):
        agent = int(rng.integers(board.num_cells))
        ghosts = tuple(int(cell) for cell in rng.choice([agent, *rng.integers(board.num_cells, size=k)], size=k))
        state = GameState(agent, ghosts, Side(int(rng.integers(2))), Outcome.ONGOING)
        for key in table.keys:
            got, expected = table.observe(key, state), apart.observe(key, state)
            assert got.dtype == expected.dtype == np.float32 and np.array_equal(got, expected)
    big = Game(Layout.generate(12, 12, seed=1, ghosts=3), NoSlip(), ghosts=k).board  # 144 cells: no table
    assert not hasattr(make_observations("vector", big, ghosts=k), "_pair_table")


def _same_observation(got: Any, expected: Any) -> bool:
    """Whether two dict observations hold the same keys in the same order and equal values (arrays
    of one dtype, each a writable array of its own)."""
    if isinstance(expected, dict):
        return list(got) == list(expected) and all(_same_observation(got[key], expected[key]) for key in expected)
    if isinstance(expected, np.ndarray):
        return (got is not expected and got.dtype == expected.dtype and got.flags.writeable
                and np.array_equal(got, expected))
    return type(got) is type(expected) and got == expected


@pytest.mark.parametrize("k", [2, 3])
def test_a_team_dict_observation_is_the_general_paths_every_time_a_fresh_one(k: int) -> None:
    # a team's plain dicts are filled into a copy of each observer's keys: the same dicts, in the
    # same order, as the general path that step counts and belief maps take; pickled alike
    from gridghost.sensing.encoders import BeliefObservations, DictObservations
    from gridghost.sensing.encoding import StepCount

    board = Game(Layout.generate(6, 6, seed=2, ghosts=3), NoSlip(), ghosts=k).board
    dicts = make_observations("dict", board, ghosts=k)
    assert isinstance(dicts, DictObservations)
    copied = pickle.loads(pickle.dumps(dicts))
    rng = np.random.default_rng(k)
    for _ in range(100):
        agent = int(rng.integers(board.num_cells))
        ghosts = tuple(int(cell) for cell in rng.choice([agent, *rng.integers(board.num_cells, size=k)], size=k))
        state = GameState(agent, ghosts, Side(int(rng.integers(2))), Outcome.ONGOING)
        for index, key in enumerate(dicts.keys):
            expected = DictObservations._observe(dicts, index, state)
            got = dicts.observe(key, state)
            assert _same_observation(got, expected) and _same_observation(copied.observe(key, state), expected)
            assert _same_observation(dicts.observe(key, state), got)  # a fresh dict and fresh arrays each time
            assert dicts.space(key).contains(got)
    # a step count or a belief map keeps the general path, with its own order of keys
    counted = DictObservations(board, StepCount(lambda: 1, 4), ghosts=k)
    assert list(counted.observe("agent", state))[2] == "step_count"
    believed = BeliefObservations(board, lambda: np.full(board.layout.shape, 0.5), ghosts=k)
    assert list(believed.observe("agent", state))[2] == "belief" and "belief" not in believed.observe("ghost_0", state)


# -- one ghost: unchanged ---------------------------------------------------------------------------
def test_one_ghost_keeps_the_one_ghost_classes_names_and_spaces() -> None:
    assert type(gridghost.env()) is CheckedGridGhostEnv and type(gridghost.raw_env(ghosts=1)) is GridGhostEnv
    assert type(gridghost.parallel_env(ghosts=1).aec_env) is _BothObserve
    assert type(gymnasium.make(ENV_ID).unwrapped) is GridGhostGymEnv
    for obs_type in ("dict", "vector", "grid", "text"):
        default, explicit = gridghost.env(obs_type=obs_type), gridghost.env(obs_type=obs_type, ghosts=1)
        assert explicit.possible_agents == ["agent", "ghost"]
        assert all(default.observation_space(name) == explicit.observation_space(name) for name in ("agent", "ghost"))
        assert default.state_space == explicit.state_space
    encoder = make_observations("vector", Game(OPEN, NoSlip(), ghosts=1).board, ghosts=1)
    assert set(encoder.keys) == set(Side)


def test_the_learning_teams_opponent_agent_is_any_policy_the_one_ghost_view_takes() -> None:
    class Up:  # a reference-style class, built with its action space
        def __init__(self, action_space: Any) -> None:
            self.action_space = action_space

        def get_action(self, observation: Any) -> int:
            return UP

    for opponent in (Up, lambda observation: UP):
        env = gymnasium.make(ENV_ID, layout=OPEN, ghosts=2, controlled="ghosts", opponent=opponent,
                             slip_probability=0.0)
        env.reset(seed=0)
        assert env.unwrapped.game.agent_pos == (1, 2)  # the opening move: up
    with pytest.raises(TypeError, match="policy"):
        gymnasium.make(ENV_ID, layout=OPEN, ghosts=2, controlled="ghosts", opponent=3)


def test_a_team_env_draws_every_ghost_and_the_teams_moves() -> None:
    env = gridghost.env(ghosts=3, layout=OPEN, render_mode="ansi", obs_type="vector")
    env.reset(seed=1)
    for action in (1, 0, 3, 2):  # the agent down, then ghost_0 left, ghost_1 up, ghost_2 right
        env.step(action)
    picture = env.render()
    rows = picture.splitlines()
    # rows[0] is the headline, the cells of row r are line 2 + 2r: ghost_0 (4, 3), ghost_1 (0, 4), ghost_2 (4, 1)
    assert rows[2].index("G1") == 18 and rows[10].index("G2") == 6 and rows[10].index("G ") == 14
    status = env.unwrapped._status()
    assert status.ghost_action == ("left", "up", "right") and status.to_move == "agent"
    env.step(0)
    assert env.unwrapped._status().to_move == "ghosts"


@pytest.mark.parametrize(("controlled", "opponent"), [("agent", "minimax"), ("ghosts", "minimax"),
                                                      ("ghosts", "optimal")])
def test_the_planned_team_opponents_play_the_team_solvers_moves(controlled: str, opponent: str) -> None:
    from gridghost.planning import solve_agent, solve_game

    env = gymnasium.make(ENV_ID, layout=OPEN, ghosts=2, controlled=controlled, opponent=opponent, obs_type="vector")
    game = env.unwrapped.config.game()
    if controlled == "agent":
        expected = solve_game(game=game).team_action
    elif opponent == "minimax":
        expected = solve_game(game=game).agent_action
    else:
        expected = solve_agent(game=game, ghost="chase").action
    env.reset(seed=3)
    rng, played = np.random.default_rng(0), 0
    for _ in range(40):
        aec = env.unwrapped.game  # the AEC env the view plays
        before = aec.game_state
        cells = (aec.board.position(before.agent), [aec.board.position(g) for g in before.ghosts])
        action = rng.integers(4) if controlled == "agent" else rng.integers(4, size=2)
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            env.reset()
            continue
        after = aec.game_state
        if controlled == "agent":  # the team answered the agent's move from the state after it
            moved = aec.board.position(after.agent), [aec.board.position(g) for g in before.ghosts]
            want = expected(*moved)
            assert tuple(aec.board.position(g) for g in after.ghosts) == tuple(
                aec.board.position(aec.board.next_cell[g][a]) for g, a in zip(before.ghosts, want, strict=True))
        else:  # the agent answered the team's move: its intended move is the solver's
            moved = cells[0], [aec.board.position(g) for g in after.ghosts]
            assert aec._last_move[0] == expected(*moved)
        played += 1
    assert played > 10


# -- a state table of the agent against a learning team ---------------------------------------------
def _ghosts_only(view: str, opponent: Any, **settings: Any) -> tuple[Any, Any]:
    """The ghosts-only view ``view`` against ``opponent``, and the AEC env it plays."""
    settings = {"layout": "team_eight", "ghosts": 2, "obs_type": "vector", **settings}
    if view == "gym":
        env = gymnasium.make(ENV_ID, controlled="ghosts", opponent=opponent, **settings)
        return env, env.unwrapped.game
    env = gridghost.parallel_env(controlled="ghosts", opponent=opponent, **settings)
    return env, env.aec_env


def _agents_choices(view: str, seed: int, episodes: int, opponent: Any, **settings: Any) -> list[tuple[Any, int]]:
    """Every state the opponent agent chose a move in, ``(agent cell, ghost cells)``, with the
    move it intended, over ``episodes`` games of random ghosts from ``seed``."""
    env, aec = _ghosts_only(view, opponent, **settings)
    layout, rng, seen = aec.layout, np.random.default_rng(seed), []
    for episode in range(episodes):
        _, info = env.reset(seed=seed + episode)
        info = info if view == "gym" else info["ghost_0"]
        seen.append(((layout.agent_start, tuple(layout.ghost_starts[:2])), info["intended_action"]))  # the opening
        while True:
            agent = aec.game_state.agent
            moves = rng.integers(4, size=2)
            if view == "gym":
                _, _, terminated, truncated, info = env.step(moves)
            else:
                _, _, terminations, truncations, infos = env.step(dict(zip(env.agents, moves.tolist(), strict=True)))
                terminated, truncated, info = terminations["ghost_0"], truncations["ghost_0"], infos["ghost_0"]
            if info["mover"] == 0:  # the agent answered the team's move from the ghosts' new cells
                ghosts = tuple(aec.board.position(cell) for cell in aec.game_state.ghosts)
                seen.append(((aec.board.position(agent), ghosts), info["intended_action"]))
            if terminated or truncated:
                break
    return seen


@pytest.mark.parametrize("view", ["gym", "parallel"])
@pytest.mark.parametrize("table", ["minimax", "scrambled"])
def test_a_learning_team_plays_the_agents_state_table_move_for_move(view: str, table: str) -> None:
    from gridghost.planning import solve_game

    if table == "minimax":  # the solver's agent: int64[5, 7, 5, 7, 5, 7], -1 where the game is over
        actions = solve_game(spec=resolve(layout="team_eight", ghosts=2)).agent_policy
    else:  # any moves at all, so that no other player of the agent could pass for it
        actions = np.random.default_rng(5).integers(4, size=(5, 7) * 3)
    seen = _agents_choices(view, 0, 6, actions, max_cycles=30)
    assert len(seen) > 40
    for (agent, ghosts), intended in seen:
        assert intended == actions[(*agent, *ghosts[0], *ghosts[1])], (agent, ghosts)
    assert len({intended for _, intended in seen}) > 1


def test_a_table_of_probabilities_draws_the_agents_moves_seeded_from_the_reset_seed() -> None:
    # up or left, half and half, in every state
    probabilities = np.zeros((5, 7) * 3 + (4,))
    probabilities[..., [LEFT, UP]] = 0.5
    seen = _agents_choices("parallel", 0, 4, probabilities)
    assert {intended for _, intended in seen} == {LEFT, UP}
    counts = Counter(intended for _, intended in seen)
    assert abs(counts[UP] - counts[LEFT]) < 4 * np.sqrt(len(seen))  # half and half, within 4 sigma
    assert _agents_choices("parallel", 0, 4, probabilities) == seen
    assert _agents_choices("parallel", 9, 4, probabilities) != seen


def test_the_ghosts_only_views_refuse_a_state_table_that_does_not_fit_the_game() -> None:
    from gridghost.planning import OptimalAgent, solve_game

    one_ghost = solve_game(spec=resolve(layout="team_eight")).agent_policy  # int64[5, 7, 5, 7]
    crossroads = np.zeros((7, 7) * 3, dtype=np.int64)  # the size of team_crossroads' tables
    other_map = np.zeros((5, 7) * 3, dtype=np.int64)
    other_map[0, 0] = -1  # as if (0, 0) were a goal: a state where this game goes on has no move
    bad = [
        (one_ghost, ValueError, r"opponent must be an array of shape \(5, 7, 5, 7, 5, 7, 4\) or \(5, 7, 5, 7, 5, 7\)"),
        (crossroads, ValueError, r"got shape \(7, 7, 7, 7, 7, 7\)"),
        (other_map, ValueError, r"opponent must hold actions 0..3 where the game goes on; at "),
        (np.full((5, 7) * 3 + (4,), 0.3), ValueError, "opponent's probabilities must sum to 1"),
        (np.full((5, 7) * 3, 4), ValueError, r"opponent must hold actions 0..3"),
        (OptimalAgent, TypeError, "a state policy of one ghost's game; this game has 2 ghosts"),
    ]
    for view in ("gym", "parallel"):
        for table, error, message in bad:
            with pytest.raises(error, match=message):
                _ghosts_only(view, table)
        with pytest.raises(ValueError, match="opponent is a state table of one map, and the game draws a new map"):
            _ghosts_only(view, np.zeros((6, 6) * 3, dtype=np.int64), layout=gridghost.MapGenerator(6, 6, ghosts=2))
    # one ghost learning as a team of one takes the one-ghost solver's StatePolicy and its table
    for table in (OptimalAgent, one_ghost):
        _ghosts_only("gym", table, ghosts=1)[0].reset(seed=0)
