"""The batched engine with a ghost team (``ghosts >= 2``, the computed path): the AEC env's games
half-turn by half-turn under shared uniforms, the kernel's distribution of the agent's moves, the
team Gymnasium view's games, and every refused input."""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.wrappers import TimeLimit

import gridghost
import gridghost.testing
from gridghost.batched import BatchedGame, GridGhostVectorEnv, UnsupportedSetting
from gridghost.config.parts import build_map_parts
from gridghost.config.settings import resolve
from gridghost.core import halfturn
from gridghost.core.layout import Layout
from gridghost.core.rules import Side
from gridghost.core.slip import NoSlip, SlipModel
from gridghost.envs.single_agent import GridGhostGymEnv
from gridghost.maps.levels import MapGenerator

MAPS = {2: Layout.generate(6, 6, seed=0, ghosts=2), 3: Layout.generate(6, 6, seed=0, ghosts=3)}
EXACT = dict(slip="none", color_sensor_quality=1.0, rewards="reference")
#: The chi-square distribution's p = 0.001 critical values by degrees of freedom.
CHI2_999 = {1: 10.828, 2: 13.816, 3: 16.266, 4: 18.467, 5: 20.515, 6: 22.458, 7: 24.322, 8: 26.124}


def _chi_square(counts: np.ndarray, probabilities: np.ndarray) -> tuple[float, int]:
    """Pearson's statistic of ``counts`` against ``probabilities`` and its degrees of freedom."""
    expected = counts.sum() * probabilities
    return float(((counts - expected) ** 2 / expected).sum()), len(counts) - 1


class _Uniforms:
    """A generator stand-in for the AEC env: its slip draws are the uniforms queued (the engine's);
    then a perfect sensor's draw, which changes nothing."""

    def __init__(self) -> None:
        self.queue: list[float] = []

    def random(self) -> float:
        return self.queue.pop(0) if self.queue else 0.5

    def integers(self, *args: Any, **kwargs: Any) -> int:
        raise AssertionError("longitudinal slip draws no group member")


#: The encodings the team engine serves, by id: the vector, the whole map's grid, and an
#: egocentric grid with the channels last.
ENCODINGS = {"vector": dict(obs_type="vector"), "grid": dict(obs_type="grid"),
             "grid-r2-hwc": dict(obs_type="grid", view_radius=2, grid_layout="hwc")}


@pytest.mark.parametrize("encoding", list(ENCODINGS))
@pytest.mark.parametrize("credit", ["team", "catcher"])
@pytest.mark.parametrize("k", [2, 3])
def test_team_games_are_the_aec_envs_under_shared_uniforms(k: int, credit: str, encoding: str) -> None:
    # both sides learning, with slip: every half-turn's rewards (each ghost's, with its credit),
    # ends and both sides' observations (a grid's to_move plane included) are the AEC env's,
    # whose slip draws are the engine's uniforms
    games, layout = 4, MAPS[k]
    settings = dict(layout=layout, ghosts=k, ghost_credit=credit, slip="longitudinal", slip_probability=0.3,
                    color_sensor_quality=1.0, rewards="reference", max_cycles=10, **ENCODINGS[encoding])
    batch = BatchedGame(games, seed=3, controlled=None, **settings)
    envs = [gridghost.env(**settings) for _ in range(games)]
    draws = [_Uniforms() for _ in range(games)]
    first = batch.reset()
    names = envs[0].possible_agents
    for game, env in enumerate(envs):
        env.reset(seed=game)
        env.unwrapped.np_random = draws[game]
        assert np.array_equal(env.observe("agent"), first["agent"][game])
        for i, name in enumerate(names[1:]):
            assert np.array_equal(env.observe(name), first["ghosts"][game, i])
    rng = np.random.default_rng(2)
    finished = caught = 0
    for _ in range(40):
        actions = rng.integers(0, 4, size=games)
        result = batch.step_agent(actions)
        for game, env in enumerate(envs):
            draws[game].queue.append(float(batch._uniforms[0, game]))
            env.step(int(actions[game]))
            draws[game].queue.clear()  # no draw when the slip outcome is certain
            assert result.rewards["agent"][game] == env.rewards["agent"]
            assert result.rewards["ghosts"][game].tolist() == [env.rewards[name] for name in names[1:]]
            assert result.terminations[game] == env.terminations["agent"]
            if not env.terminations["agent"]:
                assert np.array_equal(result.observations["agent"][game], env.observe("agent"))
        team = rng.integers(0, 4, size=(games, k))
        result = batch.step_ghost(team)
        for game, env in enumerate(envs):
            if env.terminations["agent"]:
                assert result.rewards["agent"][game] == 0.0 and not result.rewards["ghosts"][game].any()
            else:
                for i in range(k):
                    env.step(int(team[game, i]))
                assert result.rewards["agent"][game] == env.rewards["agent"]
                assert result.rewards["ghosts"][game].tolist() == [env.rewards[name] for name in names[1:]]
            done = env.terminations["agent"] or env.truncations["agent"]
            assert (result.terminations[game], result.truncations[game]) == (env.terminations["agent"],
                                                                            env.truncations["agent"])
            if done:  # reset at the end of the turn, the last sight kept
                row = list(result.final_games).index(game)
                assert np.array_equal(result.final_observations["agent"][row], env.observe("agent"))
                for i, name in enumerate(names[1:]):
                    assert np.array_equal(result.final_observations["ghosts"][row, i], env.observe(name))
                finished += 1
                caught += len(set(result.rewards["ghosts"][game].tolist())) > 1
                env.reset()
                env.unwrapped.np_random = draws[game]
            assert np.array_equal(result.observations["agent"][game], env.observe("agent"))
            for i, name in enumerate(names[1:]):
                assert np.array_equal(result.observations["ghosts"][game, i], env.observe(name))
    assert finished >= games


@pytest.mark.parametrize(("k", "controlled", "opponent", "encoding"), [
    (2, "agent", "chase", "vector"), (3, "agent", "chase", "vector"), (2, "agent", "minimax", "vector"),
    (2, "ghosts", "minimax", "vector"), pytest.param(2, "ghosts", "optimal", "vector", marks=pytest.mark.slow),
    (3, "agent", "chase", "grid"), (2, "ghosts", "minimax", "grid-r2-hwc"),
    pytest.param(2, "agent", "minimax", "grid-r2-hwc", marks=pytest.mark.slow),
    pytest.param(3, "ghosts", "minimax", "grid", marks=pytest.mark.slow),
])
def test_one_learner_plays_the_team_gymnasium_views_games(k: int, controlled: str, opponent: str,
                                                          encoding: str) -> None:
    # no slip, perfect sensors, a table opponent (the chasing team or the team solver's players):
    # nothing random is left; next-step auto-reset (a grid shows an ended game to no one's move)
    games, layout = 5, MAPS[k]
    batch = BatchedGame(games, seed=4, ghosts=k, layout=layout, controlled=controlled, opponent=opponent,
                        max_episode_steps=15, **EXACT, **ENCODINGS[encoding])
    envs = [TimeLimit(GridGhostGymEnv(controlled, opponent, ghosts=k, layout=layout, **EXACT, **ENCODINGS[encoding]),
                      15) for _ in range(games)]
    observations = batch.reset()[controlled]
    for game, env in enumerate(envs):
        assert np.array_equal(env.reset(seed=game)[0], observations[game])
    rng = np.random.default_rng(0)
    restart, ended = [False] * games, 0
    step = batch.step_agent if controlled == "agent" else batch.step_ghost
    for _ in range(40):
        actions = rng.integers(0, 4, size=(games, k) if controlled == "ghosts" else games)
        result = step(actions)
        rewards = result.rewards[controlled]
        for game, env in enumerate(envs):
            if restart[game]:
                expected = (env.reset()[0], 0.0, False, False)
            else:
                action = actions[game].tolist() if controlled == "ghosts" else int(actions[game])
                observation, reward, terminated, truncated, _ = env.step(action)
                expected = (observation, reward, terminated, truncated)
            got = (result.observations[controlled][game], float(np.mean(rewards[game])),
                   result.terminations[game], result.truncations[game])
            assert np.array_equal(expected[0], got[0]) and expected[1:] == got[1:], (game, expected, got)
            restart[game] = bool(got[2] or got[3])
            ended += restart[game]
    assert ended > games


def test_the_learning_team_plays_the_kernels_rules() -> None:
    # each turn of a learning team from the engine's positions and uniforms, replayed on the
    # kernel: the team's move, the random agent's answer (its action and slip from the uniforms)
    k, games = 2, 64
    batch = BatchedGame(games, seed=5, ghosts=k, controlled="ghosts", layout=MAPS[k], ghost_credit="catcher",
                        slip="longitudinal", slip_probability=0.3, rewards="reference", autoreset_mode="same_step")
    kernel = resolve(layout=MAPS[k], ghosts=k, ghost_credit="catcher", slip="longitudinal",
                                slip_probability=0.3, rewards="reference").game()
    batch.reset()
    rng = np.random.default_rng(1)
    draws, ends = _Uniforms(), 0
    for _ in range(30):
        agents, ghosts = (position.copy() for position in batch.positions)
        before = batch._steps.copy()
        team = rng.integers(0, 4, size=(games, k))
        result = batch.step_ghost(team)
        for game in range(games):
            state = kernel.initial_state()._replace(agent=int(agents[game]), ghosts=tuple(ghosts[game].tolist()),
                                                    turn=Side.GHOST)
            moved = kernel.ghosts_step(state, tuple(team[game].tolist()))
            rewards = np.array(kernel.ghost_rewards_of(Side.GHOST, moved))
            after = moved
            if moved.outcome == 0:
                draws.queue[:] = [float(batch._uniforms[0, game])]
                after = kernel.agent_step(moved, int(batch._uniforms[1, game] * 4), draws)[0]  # type: ignore[arg-type]
                rewards = rewards + kernel.ghost_rewards_of(Side.AGENT, after)
            if before[game] == 0:
                rewards = rewards + kernel.rewards(Side.AGENT, after.outcome * 0)[1]
            assert result.rewards["ghosts"][game].tolist() == pytest.approx(rewards.tolist(), abs=1e-12)
            assert result.terminations[game] == (after.outcome != 0)
            if after.outcome == 0:
                assert (batch.positions[0][game], tuple(batch.positions[1][game])) == (after.agent, after.ghosts)
            ends += after.outcome != 0
    assert ends > 10


def test_the_agents_sampled_moves_have_the_kernels_probabilities() -> None:
    # chi-square of the agent's landing cells from one state, 20,000 games, against the kernel's
    # exact distribution (Game.successors), per action
    k, games = 2, 20_000
    layout = MAPS[k]
    kernel = resolve(layout=layout, ghosts=k, slip="perpendicular", slip_probability=0.4).game()
    batch = BatchedGame(games, seed=9, ghosts=k, controlled=None, layout=layout, slip="perpendicular",
                        slip_probability=0.4)
    state = kernel.initial_state()

    def statistic(batch: BatchedGame) -> tuple[float, int]:
        total, dof = 0.0, 0
        for action in range(4):
            batch.reset()
            batch.step_agent(np.full(games, action))
            exact = {after.agent: p for p, after, _, _ in kernel.successors(state, action)}
            landed = batch.positions[0]
            assert set(np.unique(landed).tolist()) <= set(exact)  # nothing the kernel calls impossible
            counts = np.array([(landed == cell).sum() for cell in exact])
            chi2, df = _chi_square(counts, np.array(list(exact.values())))
            total, dof = total + chi2, dof + df
        return total, dof

    chi2, dof = statistic(batch)
    assert dof >= 4 and chi2 < CHI2_999[dof], (chi2, dof)
    # and the test tells another slip probability apart
    chi2, dof = statistic(BatchedGame(games, seed=9, ghosts=k, controlled=None, layout=layout, slip="perpendicular",
                                      slip_probability=0.3))
    assert chi2 > CHI2_999[dof], (chi2, dof)


@pytest.mark.parametrize(("settings", "error", "match"), [
    (dict(ghosts=5), ValueError, "ghosts must be an int in 1..4"),
    (dict(ghosts=0), ValueError, "ghosts must be an int in 1..4"),
    (dict(ghosts=2.0), TypeError, "ghosts must be an int"),
    (dict(ghosts=2, controlled="ghost"), ValueError, "controlled='ghost' controls one ghost"),
    (dict(controlled="ghosts"), UnsupportedSetting, "controlled='ghosts' is the team's learner"),
    (dict(ghosts=2, obs_type="grid", append_step_count=True, max_cycles=9), UnsupportedSetting,
     "append_step_count=True"),
    (dict(ghosts=2, obs_type="grid", view_radius=2, table_bytes=60_000), ValueError, "team grid planes"),
    (dict(ghosts=2, opponent="optimal"), UnsupportedSetting, "opponent='optimal'"),
    (dict(ghosts=2, controlled="ghosts", opponent="chase"), UnsupportedSetting, "opponent='chase'"),
])
def test_bad_team_settings_are_refused_naming_the_argument(settings: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        BatchedGame(3, layout=MAPS[2], **settings)


@pytest.mark.parametrize(("controlled", "side", "actions", "match"), [
    ("ghosts", "ghost", np.zeros(3, int), r"actions must have shape \(3, 2\), one action per ghost"),
    ("ghosts", "ghost", np.zeros((2, 3), int), r"actions must have shape \(3, 2\)"),
    ("ghosts", "ghost", np.full((3, 2), 4), r"actions must lie in 0..3"),
    ("agent", "agent", np.zeros((3, 2), int), r"actions must have shape \(3,\)"),
    (None, "agent", np.zeros((3, 2), int), r"actions must have shape \(3,\)"),
])
def test_wrong_action_shapes_are_refused_and_change_nothing(controlled: str | None, side: str,
                                                            actions: np.ndarray, match: str) -> None:
    batch = BatchedGame(3, seed=0, ghosts=2, controlled=controlled, layout=MAPS[2])
    batch.reset()
    before = [position.copy() for position in batch.positions]
    with pytest.raises(ValueError, match=match):
        (batch.step_agent if side == "agent" else batch.step_ghost)(actions)
    assert all(np.array_equal(a, b) for a, b in zip(before, batch.positions, strict=True))
    with pytest.raises(RuntimeError, match="built-in opponent" if controlled else "half-turn"):
        (batch.step_ghost if side == "agent" else batch.step_agent)(np.zeros((3, 2) if side == "agent" else 3, int))


def test_make_vec_serves_teams_natively_and_falls_back_for_the_rest() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        agent = gymnasium.make_vec("gridghost/GridGhost-v1", num_envs=3, vectorization_mode="vector_entry_point",
                                   ghosts=2, layout=MAPS[2])
        team = gymnasium.make_vec("gridghost/GridGhost-v1", num_envs=3, vectorization_mode="vector_entry_point",
                                  ghosts=3, controlled="ghosts", layout=MAPS[3])
    assert isinstance(agent, GridGhostVectorEnv) and isinstance(team, GridGhostVectorEnv)
    single = GridGhostGymEnv(ghosts=3, controlled="ghosts", layout=MAPS[3], obs_type="vector")
    assert team.single_action_space == single.action_space == gymnasium.spaces.MultiDiscrete([4, 4, 4])
    assert team.single_observation_space == single.observation_space
    observations, _ = team.reset(seed=0)
    assert observations.shape == (3, 3, *single.observation_space.shape[1:])
    _, rewards, _, _, _ = team.step(np.zeros((3, 3), int))
    assert rewards.shape == (3,) and team.action_masks().shape == (3, 12)
    with pytest.raises(ValueError, match=r"actions must have shape \(3, 3\)"):
        team.step(np.zeros(3, int))
    with pytest.warns(UserWarning, match="falling back"):
        fallback = gymnasium.make_vec("gridghost/GridGhost-v1", num_envs=2, vectorization_mode="vector_entry_point",
                                      ghosts=2, layout=MAPS[2], belief_filter="particle")
    assert isinstance(fallback, gymnasium.vector.SyncVectorEnv)


@pytest.mark.parametrize("k", [2, 4])
def test_the_engines_one_take_team_move_is_the_kernels_rule(k: int) -> None:
    # the engine's team move (one take of the flat next-cell table, into its buffer) against
    # core.halfturn.team_moves over random cells and moves of every game
    layout = Layout.generate(6, 6, seed=1, ghosts=k)
    batch = BatchedGame(500, seed=0, ghosts=k, controlled=None, layout=layout)
    rng = np.random.default_rng(k)
    ghosts = np.asfortranarray(rng.integers(0, 36, size=(500, k)))
    actions = rng.integers(0, 4, size=(500, k))
    expected = halfturn.team_moves(np.asarray(resolve(layout=layout, ghosts=k).game().moves), ghosts, actions)
    assert np.array_equal(batch._team_moves(batch._team, ghosts, actions), expected)
    assert (expected != ghosts).any() and (expected == ghosts).any()


#: Two views in the default suite (both learners at k = 2 with the belief, the learning team at
#: k = 3); the others in the slow group.
TEAM_VIEWS = [
    pytest.param(lambda: BatchedGame(3, ghosts=2, controlled=None, layout=MAPS[2], max_cycles=6,
                                     ghost_credit="catcher"), id="k2-two-sides-catcher", marks=pytest.mark.slow),
    pytest.param(lambda: BatchedGame(3, ghosts=3, controlled="ghosts", layout=MAPS[3], autoreset_mode="same_step",
                                     max_episode_steps=6), id="k3-ghosts-same-step"),
    pytest.param(lambda: BatchedGame(3, ghosts=3, controlled=None, layout=MAPS[3], slip="longitudinal"),
                 id="k3-two-sides", marks=pytest.mark.slow),
    pytest.param(lambda: BatchedGame(3, ghosts=2, controlled=None, layout=MAPS[2], obs_type="belief_vector",
                                     max_cycles=8), id="k2-two-sides-belief"),
    pytest.param(lambda: BatchedGame(3, ghosts=3, layout=MAPS[3], obs_type="belief_vector", max_episode_steps=6,
                                     autoreset_mode="same_step"), id="k3-agent-belief-same-step",
                 marks=pytest.mark.slow),
    pytest.param(lambda: BatchedGame(3, ghosts=2, layout=MAPS[2], max_episode_steps=6), id="k2-agent-next-step",
                 marks=pytest.mark.slow),
    pytest.param(lambda: BatchedGame(3, ghosts=2, controlled="ghosts", layout=MAPS[2]), id="k2-ghosts-next-step",
                 marks=pytest.mark.slow),
    pytest.param(lambda: BatchedGame(3, ghosts=2, controlled=None, layout=MAPS[2], obs_type="grid", view_radius=1,
                                     max_cycles=6), id="k2-two-sides-grid-r1"),
    pytest.param(lambda: BatchedGame(3, ghosts=3, layout=MAPS[3], obs_type="grid", grid_layout="hwc",
                                     belief_filter="histogram", max_episode_steps=6, autoreset_mode="same_step"),
                 id="k3-agent-grid-hwc-belief-same-step", marks=pytest.mark.slow),
    pytest.param(lambda: BatchedGame(3, ghosts=3, controlled="ghosts", layout=MAPS[3], obs_type="grid",
                                     view_radius=2), id="k3-ghosts-grid-r2-next-step", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("make", TEAM_VIEWS)
def test_the_batched_engine_conforms_with_a_team(make: Any) -> None:
    gridghost.testing.batched_conformance(make)


def _vector(**settings: Any) -> Any:
    return lambda: gymnasium.make_vec("gridghost/GridGhost-v1", num_envs=3, vectorization_mode="vector_entry_point",
                                      **settings)


#: The team's vector views: the learning team at k = 3 (same-step) in the default suite, the rest slow.
TEAM_VECTOR_VIEWS = [
    pytest.param(_vector(ghosts=3, layout=MAPS[3], controlled="ghosts", autoreset_mode="same_step",
                         max_episode_steps=6), id="k3-ghosts-same-step"),
    pytest.param(_vector(ghosts=2, layout=MAPS[2]), id="k2-agent-next-step", marks=pytest.mark.slow),
    pytest.param(_vector(ghosts=2, layout=MAPS[2], controlled="ghosts", ghost_credit="catcher"),
                 id="k2-ghosts-catcher", marks=pytest.mark.slow),
    pytest.param(_vector(ghosts=3, layout=MAPS[3], autoreset_mode="same_step", opponent="random"),
                 id="k3-agent-random-same-step", marks=pytest.mark.slow),
    pytest.param(_vector(ghosts=2, layout=MAPS[2], controlled="ghosts", obs_type="grid", autoreset_mode="same_step",
                         max_episode_steps=6), id="k2-ghosts-grid-same-step"),
    pytest.param(_vector(ghosts=3, layout=MAPS[3], obs_type="grid", view_radius=2, grid_layout="hwc"),
                 id="k3-agent-grid-r2-hwc-next-step", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("make", TEAM_VECTOR_VIEWS)
def test_the_vector_env_conforms_with_a_team(make: Any) -> None:
    gridghost.testing.vector_conformance(make)


def test_a_teams_level_set_plays_every_level_with_its_own_encoder() -> None:
    # games on a generator's levels: each row is that level's team encoder output for the game's state
    levels = MapGenerator(6, 6, ghosts=2, num_levels=4)
    batch = BatchedGame(40, seed=2, ghosts=2, controlled=None, layout=levels, max_cycles=5)
    spec = resolve(layout=levels, ghosts=2, obs_type="vector")
    parts = [build_map_parts(spec, layout, with_filter=False) for layout in batch.layouts]
    observations = batch.reset()
    rng, seen = np.random.default_rng(0), set()
    for _ in range(12):
        agents, ghosts = batch.positions
        seen.update(batch.maps.tolist())
        for game, level in enumerate(batch.maps.tolist()):
            start = parts[level].kernel.initial_state()
            state = start._replace(agent=int(agents[game]), ghosts=tuple(ghosts[game].tolist()))
            encoder = parts[level].encoder
            assert np.array_equal(observations["agent"][game], encoder.observer("agent")(state))
            for i, name in enumerate(parts[level].kernel.names):
                assert np.array_equal(observations["ghosts"][game, i], encoder.observer(name)(state))
        batch.step_agent(rng.integers(0, 4, size=40))
        observations = batch.step_ghost(rng.integers(0, 4, size=(40, 2))).observations
    assert seen == {0, 1, 2, 3}


class _LeftSlips(SlipModel):
    """Only a move left may slip (stay, with the model's probability): outcomes differ by action."""

    def _groups(self, action: int) -> Any:
        if action == 0:
            return ((self.probability, ((),)), (1 - self.probability, ((action,),)))
        return ((1.0, ((action,),)),)


@pytest.mark.parametrize(("ghosts", "controlled", "learner"), [(1, "ghost", "ghost"), (2, "ghosts", "team")])
def test_a_learning_ghost_side_refuses_a_slip_whose_outcomes_differ_by_action(ghosts: int, controlled: str,
                                                                              learner: str) -> None:
    """Its opponent agent's slip is one uniform read with one action's bounds: refused, never misread."""
    layout = Layout.generate(6, 6, seed=0, ghosts=ghosts)
    with pytest.raises(UnsupportedSetting, match=f"a learning {learner}'s opponent agent slips by one uniform"):
        BatchedGame(2, ghosts=ghosts, controlled=controlled, layout=layout, slip=_LeftSlips(0.5))
    assert BatchedGame(2, ghosts=ghosts, controlled="agent", layout=layout, slip=_LeftSlips(0.5)).num_games == 2

@pytest.mark.parametrize(("ghosts", "controlled"), [(1, "ghost"), (2, "ghosts")])
def test_a_learning_ghost_side_refuses_a_map_whose_opening_move_can_end_the_game(ghosts: int,
                                                                                 controlled: str) -> None:
    """Its first observation comes after the agent's opening move, which must leave a game to play."""
    from gridghost.core.game import Game

    close = (Layout.generate(4, 4, seed=seed, min_distance=1, ghosts=ghosts) for seed in range(200))
    layout = next(each for each in close if Game(each, NoSlip(), ghosts=ghosts).opening_can_end())
    with pytest.raises(ValueError, match=f"controlled='{controlled}' needs maps where the agent's opening move"):
        BatchedGame(2, ghosts=ghosts, controlled=controlled, layout=layout, **EXACT)
    assert BatchedGame(2, ghosts=ghosts, controlled="agent", layout=layout, **EXACT).num_games == 2

def test_reset_starts_place_a_team_and_refuse_bad_cells_naming_starts() -> None:
    batch = BatchedGame(3, seed=0, ghosts=2, layout=MAPS[2], **EXACT)
    batch.reset()
    agents, ghosts = np.array([7, 8, 9]), np.array([[0, 0], [1, 2], [20, 21]])
    batch.reset(games=[0, 2, 1], starts=(agents, ghosts))
    got_agents, got_ghosts = batch.positions
    assert got_agents.tolist() == [7, 9, 8] and got_ghosts.tolist() == [[0, 0], [20, 21], [1, 2]]
    for starts, error, message in [
        ((agents, ghosts[:, :1]), TypeError, r"starts: the ghost cells must be an int array of shape \(3, 2\)"),
        ((agents, np.array([[7, 0], [1, 2], [3, 4]])), ValueError, "no ghost may start on the agent's cell; game 0"),
        ((agents, np.full((3, 2), 36)), ValueError, r"starts: the ghost cells must lie in 0..35"),
        ([agents, ghosts], TypeError, "starts must be None or a tuple"),
    ]:
        with pytest.raises(error, match=message):
            batch.reset(starts=starts)
    with pytest.raises(ValueError, match="starts places games with the agent to move"):
        BatchedGame(3, seed=0, ghosts=2, controlled="ghosts", layout=MAPS[2]).reset(starts=(agents, ghosts))


@pytest.mark.parametrize("controlled", ["agent", "ghosts"])
def test_the_vector_envs_episode_infos_sum_the_rewards_it_returned(controlled: str) -> None:
    env = GridGhostVectorEnv(4, controlled=controlled, ghosts=2, layout=MAPS[2], max_episode_steps=8,
                             ghost_credit="catcher")
    env.reset(seed=1)
    rng, sums, checked = np.random.default_rng(1), np.zeros(4), 0
    for _ in range(40):
        actions = rng.integers(0, 4, size=(4, 2) if controlled == "ghosts" else 4)
        _, rewards, terminated, truncated, infos = env.step(actions)
        sums += rewards
        for row in np.flatnonzero(terminated | truncated):
            assert infos["_episode_return"][row] and infos["episode_return"][row] == pytest.approx(sums[row])
            # the learner won exactly when its last reward was a win's (normalised rewards: the goal's, the catch's)
            assert infos["is_success"][row] == (terminated[row] and rewards[row] > 0)
            sums[row], checked = 0.0, checked + 1
    assert checked >= 4
