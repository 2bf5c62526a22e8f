"""The batched engine against the single envs: the same distribution, the same games when nothing
is random, Gymnasium's auto-reset, the batched exact filter, and every refused input."""

from __future__ import annotations

import math
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers import TimeLimit

import gridghost
from gridghost.batched import (
    TABLE_BYTES,
    BatchedGame,
    BatchedHistogramFilter,
    GridGhostVectorEnv,
    UnsupportedSetting,
)
from gridghost.core.game import Game
from gridghost.core.layout import CLASSIC, Layout
from gridghost.core.rules import GameState, Outcome, Side, board_for
from gridghost.core.slip import NoSlip, make_slip
from gridghost.envs.aec import raw_env
from gridghost.envs.single_agent import GridGhostGymEnv
from gridghost.maps.levels import MapGenerator
from gridghost.sensing.filters import HistogramFilter
from gridghost.sensing.observations import GridObservations
from gridghost.sensing.sensors import ColorSensor, ItemSensor

from helpers import chi_square_p_value

GENERATED = Layout.generate(8, 8, seed=3)
#: No slip and a perfect sensor: nothing random is left in a game with a table opponent.
#: (with the reference's rewards, which the engine keeps and the Gymnasium views replace)
EXACT = dict(slip="none", color_sensor_quality=1.0, rewards="reference")
#: The chi-square tests' significance level (the seeds are fixed, so each test's outcome is too).
ALPHA = 1e-3


# -- the same distribution -----------------------------------------------------------------------------
# The joint distribution of (observation before, action, observation after, reward, done) is the
# visits of (observation before, action) times the transition kernel given them. Consecutive
# transitions of one game are not independent draws (the walk stays near where it was), so a
# plain chi-square over the joint overstates the evidence: it rejected identical engines on the
# 8x8 map. Given the observation before and the action, though, each transition is an independent
# draw of the kernel (the actions are drawn at random, independently of the game). So the test
# compares the kernels, stratum by stratum, and sums the statistics; the visits are compared per
# game (1,000 independent games a sample), by the share of their steps that end an episode.
def _rows(before: np.ndarray, actions: np.ndarray, after: np.ndarray, rewards: np.ndarray,
          done: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per transition, its stratum (observation before, action) and its outcome (observation
    after, reward, done), each as one row of bytes."""
    def void(parts: tuple[np.ndarray, ...]) -> np.ndarray:
        rows = np.ascontiguousarray(np.concatenate(parts, axis=1).astype(np.float32))
        return rows.view(np.dtype((np.void, rows.shape[1] * 4))).ravel()

    return void((before, actions[:, None])), void((after, rewards[:, None], done[:, None]))


class Sample:
    """Transitions of a sample: strata, outcomes, and the game each came from."""

    def __init__(self, parts: list[tuple[np.ndarray, ...]], games: list[np.ndarray]) -> None:
        strata, outcomes = zip(*(_rows(*part) for part in parts), strict=True)
        self.strata, self.outcomes = np.concatenate(strata), np.concatenate(outcomes)
        self.games = np.concatenate(games)
        self.done = np.concatenate([part[4] for part in parts]).astype(bool)

    def __len__(self) -> int:
        return len(self.strata)


def _batched_sample(layout: Layout, slip: str, games: int, steps: int, seed: int) -> Sample:
    """Every transition of ``games`` batched games over ``steps`` calls (random actions); a call
    that restarts a game (next-step auto-reset) is no transition."""
    batch = BatchedGame(games, seed=seed, layout=layout, slip=slip, max_episode_steps=100)
    before = batch.reset()["agent"].copy()
    actions = np.random.default_rng(seed + 1).integers(0, 4, size=(steps, games))
    restart = np.zeros(games, dtype=bool)
    parts, ids = [], []
    for action in actions:
        result = batch.step_agent(action)
        after = result.observations["agent"]
        live = ~restart
        parts.append((before[live], action[live], after[live], result.rewards["agent"][live],
                       (result.terminations | result.truncations)[live]))
        ids.append(np.flatnonzero(live))
        restart = result.terminations | result.truncations
        before = after.copy()
    return Sample(parts, ids)


def _single_sample(layout: Layout, slip: str, games: int, steps: int, seed: int) -> Sample:
    """The same process played by the single Gymnasium env, one game after the other: ``games``
    runs of ``steps`` calls from a reset, restarting a finished episode in place of a step."""
    env = TimeLimit(GridGhostGymEnv(obs_type="vector", layout=layout, slip=slip, rewards="reference"), 100)
    actions = np.random.default_rng(seed + 1).integers(0, 4, size=(games, steps)).tolist()
    rows, ids = [], []
    for game in range(games):
        before, _ = env.reset(seed=seed * 100_000 + game)
        restart = False
        for action in actions[game]:
            if restart:
                before, _ = env.reset()
                restart = False
                continue
            after, reward, terminated, truncated, _ = env.step(action)
            restart = terminated or truncated
            rows.append((before, action, after, reward, restart))
            ids.append(game)
            before = after
    before, action, after, reward, done = zip(*rows, strict=True)
    part = (np.array(before), np.array(action, float), np.array(after), np.array(reward), np.array(done, float))
    return Sample([part], [np.array(ids)])


def _kernel_chi_square(first: Sample, second: Sample) -> tuple[float, int, float]:
    """Pearson's chi-square test that both samples draw their outcomes from one distribution in
    every stratum (a 2 x outcomes contingency table per stratum, summed). In each stratum the
    outcomes expected fewer than 5 times in either sample are pooled into one column.

    Returns:
        ``(statistic, degrees of freedom, p-value)``.
    """
    strata, stratum = np.unique(np.concatenate((first.strata, second.strata)), return_inverse=True)
    outcomes, outcome = np.unique(np.concatenate((first.outcomes, second.outcomes)), return_inverse=True)
    pairs, pair = np.unique(stratum * len(outcomes) + outcome, return_inverse=True)
    source = np.r_[np.zeros(len(first), int), np.ones(len(second), int)]
    counts = np.stack([np.bincount(pair[source == s], minlength=len(pairs)) for s in (0, 1)]).astype(float)
    of_pair = pairs // len(outcomes)  # each pair's stratum
    totals = np.stack([np.bincount(of_pair, counts[s], len(strata)) for s in (0, 1)])  # per stratum and sample
    expected = counts.sum(axis=0) * (totals / totals.sum(axis=0))[:, of_pair]
    sparse = (expected < 5).any(axis=0)
    cells_counts, cells_expected = (
        np.concatenate((values[:, ~sparse],
                        np.stack([np.bincount(of_pair[sparse], row[sparse], len(strata)) for row in values])), axis=1)
        for values in (counts, expected))
    used = (cells_expected > 0).all(axis=0)  # not the columns of a stratum one sample never saw
    statistic = float(((cells_counts[:, used] - cells_expected[:, used]) ** 2 / cells_expected[:, used]).sum())
    columns = np.bincount(np.concatenate((of_pair[~sparse], np.arange(len(strata))))[used], minlength=len(strata))
    both = (totals > 0).all(axis=0)  # a stratum seen in one sample only says nothing about its kernel
    dof = int((columns[both] - 1).clip(min=0).sum())
    return statistic, dof, chi_square_p_value(statistic, dof)


def _visits_test(first: Sample, second: Sample) -> float:
    """Welch's two-sample z-test on the share of a game's transitions that end an episode, each
    game (independent of the others) one observation; returns the two-sided p-value."""
    shares = []
    for sample in (first, second):
        steps = np.bincount(sample.games)
        ended = np.bincount(sample.games, sample.done.astype(float), len(steps))
        shares.append(ended[steps > 0] / steps[steps > 0])
    z = (shares[0].mean() - shares[1].mean()) / math.sqrt(sum(s.var(ddof=1) / len(s) for s in shares))
    return math.erfc(abs(z) / math.sqrt(2))


def _kernel_turns(game: Game, states: np.ndarray, action: int) -> list[dict[tuple[int, float, bool], float]]:
    """The kernel's exact distribution of one learning agent's turn (its move, then the chasing
    ghost's answer where the game goes on) from each ongoing state: (next state, agent's reward,
    terminated) -> probability, from :meth:`Game.transitions`."""
    cells = game.num_cells
    agents, ghosts = np.divmod(states, cells)
    move = game.transitions(Side.AGENT, action, agents, ghosts)
    rows: list[dict[tuple[int, float, bool], float]] = [{} for _ in states]
    for j, probability in enumerate(move.probabilities):
        after_agent, outcome, reward = move.agents[:, j], move.outcomes[:, j], move.agent_rewards[:, j].copy()
        after_ghost = ghosts.copy()
        ended = outcome != Outcome.ONGOING
        for ghost_action in range(4):
            chosen = np.flatnonzero(~ended & (game.chase_table[after_agent, ghosts] == ghost_action))
            if len(chosen):
                answer = game.transitions(Side.GHOST, ghost_action, after_agent[chosen], ghosts[chosen])
                after_ghost[chosen] = answer.ghosts[:, 0]
                reward[chosen] += answer.agent_rewards[:, 0]
                ended[chosen] = answer.outcomes[:, 0] != Outcome.ONGOING
        for i in range(len(states)):
            key = (int(after_agent[i] * cells + after_ghost[i]), float(reward[i]), bool(ended[i]))
            rows[i][key] = rows[i].get(key, 0.0) + float(probability)
    return rows


@pytest.mark.parametrize("slip", ["longitudinal", "perpendicular"])
@pytest.mark.parametrize("layout", [CLASSIC, GENERATED], ids=["classic", "generated-8x8"])
def test_every_turn_of_the_engines_tables_is_the_kernels_exactly(layout: Layout, slip: str) -> None:
    # The exact form of the sampled test below, over every ongoing state and action (not only the
    # visited ones): the outcome a uniform picks (the bounds it reaches) and the folded turn
    # table's next state, reward and end, merged per state and action, are the kernel's.
    tables = BatchedGame(1, seed=0, layout=layout, slip=slip).export_tables()
    game = Game(layout, make_slip(slip), rewards="reference")
    cells, k = game.num_cells, tables.k
    assert (tables.num_maps, tables.num_cells, tables.b) == (1, cells, 1)
    states = np.arange(cells * cells)
    agents, ghosts = np.divmod(states, cells)
    states = states[~(game.goals[agents] | (agents == ghosts))]
    for action in range(4):
        bounds = tables.bounds[action]
        probabilities = np.diff(np.r_[0.0, bounds[np.isfinite(bounds)], 1.0])
        index = ((states[:, None] * 4 + action) * k + np.arange(len(probabilities))).ravel()
        nexts, rewards, ended = (tables.turns[key][index].reshape(len(states), -1)
                                 for key in ("next", "reward", "terminated"))
        for i, expected in enumerate(_kernel_turns(game, states, action)):
            engine: dict[tuple[int, float, bool], float] = {}
            for j, probability in enumerate(probabilities):
                key = (int(nexts[i, j]), float(rewards[i, j]), bool(ended[i, j]))
                engine[key] = engine.get(key, 0.0) + float(probability)
            assert engine.keys() == expected.keys(), (states[i], action)
            assert all(engine[key] == pytest.approx(expected[key], abs=1e-12) for key in expected), (states[i], action)


def test_transitions_have_the_single_envs_distribution() -> None:
    # The small sampled case (the exact tables are the test above): the steps that read the
    # tables, the observations, truncation and auto-reset, against the single env; 300 games x
    # 100 calls from each, as many as tell another slip probability apart (the test below).
    batched = _batched_sample(CLASSIC, "longitudinal", 300, 100, seed=11)
    single = _single_sample(CLASSIC, "longitudinal", 300, 100, seed=12)
    assert len(batched) > 20_000 and len(single) > 20_000
    statistic, dof, p = _kernel_chi_square(batched, single)
    visits = _visits_test(batched, single)
    print(f"classic longitudinal: chi2 {statistic:.1f}, dof {dof}, p {p:.3f}; visits p {visits:.3f}")
    assert dof > 50
    assert p > ALPHA and visits > ALPHA, (statistic, dof, p, visits)


@pytest.mark.slow  # a second or more: .ci/run runs the slow group
def test_the_chi_square_test_tells_another_game_apart() -> None:
    # the same test against a single env with another slip probability: rejected
    batched = _batched_sample(CLASSIC, "longitudinal", 300, 100, seed=11)
    env = TimeLimit(GridGhostGymEnv(obs_type="vector", slip="longitudinal", slip_probability=0.3,
                                    rewards="reference"), 100)
    rng = np.random.default_rng(5)
    rows = []
    before, _ = env.reset(seed=5)
    while len(rows) < len(batched):
        action = int(rng.integers(4))
        after, reward, terminated, truncated, _ = env.step(action)
        rows.append((before, action, after, reward, terminated or truncated))
        before = env.reset()[0] if terminated or truncated else after
    part = tuple(np.array(column, float) for column in zip(*rows, strict=True))
    other = Sample([part], [np.zeros(len(rows), int)])
    assert _kernel_chi_square(batched, other)[2] < ALPHA


# -- the same games ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("layout", "controlled", "obs_type"), [
    (CLASSIC, "agent", "vector"), (CLASSIC, "agent", "grid"), (GENERATED, "agent", "belief_vector"),
    (GENERATED, "ghost", "vector"), (CLASSIC, "ghost", "grid"),
])
def test_deterministic_games_are_the_single_envs(layout: Layout, controlled: str, obs_type: str) -> None:
    opponent = "chase" if controlled == "agent" else "minimax"
    games = 6
    batch = BatchedGame(games, seed=4, controlled=controlled, opponent=opponent, obs_type=obs_type, layout=layout,
                        max_episode_steps=30, **EXACT)
    envs = [TimeLimit(GridGhostGymEnv(controlled=controlled, opponent=opponent, obs_type=obs_type, layout=layout,
                                      **EXACT), 30) for _ in range(games)]
    observations = batch.reset()[controlled]
    for game, env in enumerate(envs):
        assert np.array_equal(env.reset(seed=game)[0], observations[game])
    step = batch.step_agent if controlled == "agent" else batch.step_ghost
    rng = np.random.default_rng(0)
    restart = [False] * games
    ended = 0
    for _ in range(120):
        actions = rng.integers(0, 4, size=games)
        result = step(actions)
        for game, env in enumerate(envs):
            if restart[game]:
                expected = (env.reset()[0], 0.0, False, False)
            else:
                observation, reward, terminated, truncated, _ = env.step(int(actions[game]))
                expected = (observation, reward, terminated, truncated)
            got = (result.observations[controlled][game], result.rewards[controlled][game],
                   result.terminations[game], result.truncations[game])
            assert np.array_equal(expected[0], got[0]) and expected[1:] == got[1:], (game, expected, got)
            restart[game] = bool(got[2] or got[3])
            ended += restart[game]
    assert ended > games  # episodes ended and restarted along the way


def test_two_learning_sides_play_the_aec_game_half_turn_by_half_turn() -> None:
    games = 5
    batch = BatchedGame(games, seed=1, controlled=None, obs_type="grid", layout=GENERATED, max_cycles=12, **EXACT)
    envs = [raw_env(obs_type="grid", layout=GENERATED, max_cycles=12, **EXACT) for _ in range(games)]
    for game, env in enumerate(envs):
        env.reset(seed=game)
    first = batch.reset()
    for game, env in enumerate(envs):
        for side in ("agent", "ghost"):
            assert np.array_equal(env.observe(side), first[side][game])
    rng = np.random.default_rng(2)
    finished = 0
    for _ in range(60):
        for mover, step in (("agent", batch.step_agent), ("ghost", batch.step_ghost)):
            actions = rng.integers(0, 4, size=games)
            result = step(actions)
            for game, env in enumerate(envs):
                ended_before = env.terminations["agent"] or env.truncations["agent"]
                if not ended_before:
                    env.step(int(actions[game]))
                    for side in ("agent", "ghost"):
                        assert result.rewards[side][game] == env.rewards[side]
                else:
                    assert result.rewards["agent"][game] == result.rewards["ghost"][game] == 0.0
                done = env.terminations["agent"] or env.truncations["agent"]
                assert result.terminations[game] == env.terminations["agent"]
                if mover == "ghost" and done:  # the turn is over: the game restarts, its last sight kept
                    row = list(result.final_games).index(game)
                    for side in ("agent", "ghost"):
                        assert np.array_equal(result.final_observations[side][row], env.observe(side))
                    env.reset()
                    finished += 1
                for side in ("agent", "ghost"):
                    if not (mover == "agent" and done):
                        assert np.array_equal(result.observations[side][game], env.observe(side)), (game, side)
    assert finished >= games


GRID_LEVELS = MapGenerator(7, 5, num_levels=24)


def _expected_grids(batch: BatchedGame, encoders: dict, side: str, turn: str, ended: np.ndarray) -> np.ndarray:
    """What the single env's encoder of each game's map gives for its state: ``turn`` to move,
    over where ``ended``."""
    agents, ghosts = batch.positions
    rows = []
    for game, level in enumerate(batch.maps.tolist()):
        outcome = Outcome.GOAL if ended[game] else Outcome.ONGOING
        state = GameState(int(agents[game]), int(ghosts[game]), Side[turn.upper()], outcome)
        rows.append(encoders[level].observe(Side[side.upper()], state))
    return np.stack(rows)


@pytest.mark.parametrize(("controlled", "view_radius", "grid_layout"), [
    (None, None, "chw"), (None, 2, "hwc"), (None, 5, "chw"), ("agent", 5, "hwc"), ("agent", None, "hwc"),
    ("ghost", 1, "chw"), ("ghost", 3, "hwc"),
])
def test_grid_rows_are_the_encoders_over_many_levels(controlled: str | None, view_radius: int | None,
                                                     grid_layout: str) -> None:
    games = 16
    batch = BatchedGame(games, seed=5, controlled=controlled, obs_type="grid", view_radius=view_radius,
                        grid_layout=grid_layout, layout=GRID_LEVELS, max_episode_steps=None if controlled is None
                        else 12, max_cycles=12 if controlled is None else None)
    encoders = {level: GridObservations(board_for(layout), view_radius, channels_last=grid_layout == "hwc")
                for level, layout in enumerate(batch.layouts)}
    assert batch.observation_space == encoders[0].space(Side.AGENT)
    sides = ("agent", "ghost") if controlled is None else (controlled,)
    first = batch.reset()
    for side in sides:
        turn = "agent" if controlled is None else side
        assert np.array_equal(first[side], _expected_grids(batch, encoders, side, turn, np.zeros(games, bool)))
    rng = np.random.default_rng(6)
    seen, compared = set(), 0
    for _ in range(40):
        seen.update(batch.maps.tolist())
        if controlled is None:
            result = batch.step_agent(rng.integers(0, 4, size=games))
            for side in sides:
                expected = _expected_grids(batch, encoders, side, "ghost", result.terminations)
                assert np.array_equal(result.observations[side], expected), side
            result = batch.step_ghost(rng.integers(0, 4, size=games))
            ended = np.zeros(games, bool)  # every finished game has restarted (same-step)
        else:
            step = batch.step_agent if controlled == "agent" else batch.step_ghost
            result = step(rng.integers(0, 4, size=games))
            ended = result.terminations
        for side in sides:
            turn = "agent" if controlled is None else side
            assert np.array_equal(result.observations[side], _expected_grids(batch, encoders, side, turn, ended))
            compared += games
    assert len(seen) >= 12 and compared >= 40 * games  # many levels, every call checked


@pytest.mark.slow  # a second or more: .ci/run runs the slow group
def test_egocentric_grids_over_500_levels_fit_the_table_budget() -> None:
    """The joint-state table of these grids would take 1.6 GiB; the planes take megabytes."""
    levels = MapGenerator(6, 6, num_levels=500)
    batch = BatchedGame(64, seed=0, obs_type="grid", view_radius=5, layout=levels, opponent="chase")
    assert len(batch.layouts) == 500
    assert batch._table_bytes(500, 6, 6, batch._k, batch._b, [Side.AGENT]) <= TABLE_BYTES
    observations = batch.reset()["agent"]
    encoders = {level: GridObservations(board_for(batch.layouts[level]), 5) for level in set(batch.maps.tolist())}
    assert np.array_equal(observations, _expected_grids(batch, encoders, "agent", "agent", np.zeros(64, bool)))


@pytest.mark.parametrize("settings", [  # the vector rows take a second or more: .ci/run runs the slow group
    dict(obs_type="grid"), dict(obs_type="grid", view_radius=5),
    pytest.param(dict(obs_type="vector"), marks=pytest.mark.slow),
    dict(obs_type="grid", controlled=None, view_radius=2, grid_layout="hwc"),
    pytest.param(dict(obs_type="vector", controlled="ghost"), marks=pytest.mark.slow),
    dict(obs_type="grid", slip="none", controlled="ghost"),
])
def test_the_memory_estimates_bound_what_construction_and_steps_take(settings: dict) -> None:
    import tracemalloc

    games, levels = 500, MapGenerator(6, 6, num_levels=12)
    BatchedGame(1, layout=levels, **settings)  # the levels are built and cached: not counted
    tracemalloc.start()
    try:
        batch = BatchedGame(games, seed=0, layout=levels, autoreset_mode="same_step", max_episode_steps=8, **settings)
        built = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        batch.reset()
        for turn in range(30):
            actions = np.full(games, turn % 4)
            if batch.controlled is None:
                batch.step_agent(actions)
                batch.step_ghost(actions)
            else:
                (batch.step_agent if batch.controlled == "agent" else batch.step_ghost)(actions)
        stepped = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    tables = batch._table_bytes(12, 6, 6, batch._k, batch._b, [Side.AGENT] * len(batch._sides))
    per_game = batch._game_bytes(int(np.prod(batch.observation_space.shape)), len(batch.sensors), False)
    assert built <= tables + games * per_game and stepped <= games * per_game
    assert tables <= 3 * built  # an estimate, not a refusal of what fits


# -- auto-reset -----------------------------------------------------------------------------------------
def _walk_to_a_goal(autoreset_mode: str) -> tuple[BatchedGame, list]:
    """One game on the classic map, no slip: left, then down three times reaches the Ziel goal
    (3, 1) from the start (0, 2) before the chasing ghost catches the agent."""
    batch = BatchedGame(1, seed=0, autoreset_mode=autoreset_mode, **EXACT)
    batch.reset()
    return batch, [batch.step_agent(np.array([action])) for action in (0, 1, 1, 1)]


def test_next_step_keeps_the_final_observation_and_resets_on_the_next_call() -> None:
    env = GridGhostGymEnv(obs_type="vector", **EXACT)
    env.reset(seed=0)
    finals = [env.step(action) for action in (0, 1, 1, 1)]
    assert finals[-1][2]  # the route ends the game
    batch, results = _walk_to_a_goal("next_step")
    last = results[-1]
    assert last.terminations[0] and len(last.final_games) == 0
    assert np.array_equal(last.observations["agent"][0], finals[-1][0])  # the final observation itself
    assert last.rewards["agent"][0] == finals[-1][1]
    restarted = batch.step_agent(np.array([2]))  # the action is ignored: the game restarts
    assert np.array_equal(restarted.observations["agent"][0], env.reset()[0])
    assert restarted.rewards["agent"][0] == 0.0 and not restarted.terminations[0] and not restarted.truncations[0]
    assert batch.positions[0][0] == 2  # back on the start cell (0, 2)


def test_same_step_keeps_the_final_observation_and_resets_at_once() -> None:
    env = GridGhostGymEnv(obs_type="vector", **EXACT)
    start, _ = env.reset(seed=0)
    finals = [env.step(action) for action in (0, 1, 1, 1)]
    _, results = _walk_to_a_goal("same_step")
    last = results[-1]
    assert last.terminations[0] and last.final_games.tolist() == [0]
    assert np.array_equal(last.final_observations["agent"][0], finals[-1][0])
    assert np.array_equal(last.observations["agent"][0], start)


def test_the_step_limit_truncates_as_time_limit_and_max_cycles_do() -> None:
    limited = BatchedGame(3, seed=0, max_episode_steps=2, **EXACT)
    limited.reset()
    limited.step_agent(np.array([2, 2, 2]))
    assert limited.step_agent(np.array([2, 2, 2])).truncations.all()
    cycles = BatchedGame(3, seed=0, max_cycles=2, autoreset_mode="same_step", **EXACT)
    cycles.reset()
    assert not cycles.step_agent(np.array([2, 2, 2])).truncations.any()
    result = cycles.step_agent(np.array([2, 2, 2]))
    assert result.truncations.all() and result.final_games.tolist() == [0, 1, 2]


# -- reproducibility ----------------------------------------------------------------------------------------
def _run(seed: int, **settings) -> list[np.ndarray]:
    batch = BatchedGame(64, seed=seed, obs_type="belief_vector", max_episode_steps=20, **settings)
    out = [batch.reset()["agent"].copy()]
    actions = np.random.default_rng(9).integers(0, 4, size=(60, 64))
    for action in actions:
        result = batch.step_agent(action)
        out += [result.observations["agent"].copy(), result.rewards["agent"].copy(), result.terminations.copy(),
                batch.readings.copy()]
    return out


def test_seeded_runs_are_reproducible_and_seeds_matter() -> None:
    settings = dict(slip="perpendicular", sensors=[ColorSensor(0.7), ItemSensor()],
                    layout=MapGenerator(6, 6, num_levels=3))
    first, again, other = _run(5, **settings), _run(5, **settings), _run(6, **settings)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other, strict=True))
    batch = BatchedGame(8, seed=3)
    start = batch.reset(seed=21)["agent"].copy()
    played = [batch.step_agent(np.full(8, 1)).rewards["agent"].copy() for _ in range(5)]
    assert np.array_equal(batch.reset(seed=21)["agent"], start)
    assert all(np.array_equal(batch.step_agent(np.full(8, 1)).rewards["agent"], r) for r in played)



@pytest.mark.parametrize("seed", [True, np.bool_(True), -1, 1.0, "1", [], [1, True], [1, -2]])
def test_reset_refuses_a_seed_that_is_not_an_int_or_a_list_of_them(seed) -> None:
    with pytest.raises(TypeError, match="seed must be None, an int >= 0 or a list of them"):
        BatchedGame(2).reset(seed=seed)


def test_reset_takes_numpy_ints_as_seeds_as_python_ints() -> None:
    def start(seed):  # the levels drawn at reset follow the seed
        return BatchedGame(16, layout=MapGenerator(6, 6, num_levels=3)).reset(seed=seed)["agent"]

    assert np.array_equal(start([np.int64(7), np.uint8(2)]), start([7, 2]))
    assert not np.array_equal(start([7, 3]), start([7, 2]))
# -- the batched filter ----------------------------------------------------------------------------------------
def test_batched_filter_equals_one_histogram_filter_per_game() -> None:
    generator = MapGenerator(6, 6, num_levels=3)
    sensors = [ColorSensor(0.7), ItemSensor(accuracy=0.8)]
    batch = BatchedGame(12, seed=2, obs_type="belief_vector", layout=generator, sensors=sensors,
                        slip="perpendicular", max_episode_steps=15)
    batch.reset()
    filters: dict[int, HistogramFilter] = {}

    def exact(game: int, fresh: bool) -> HistogramFilter:
        layout = batch.layouts[batch.maps[game]]
        if fresh:
            filters[game] = HistogramFilter(layout, batch.slip, [s.for_layout(layout) for s in sensors])
            filters[game].update(readings(game))
        return filters[game]

    def readings(game: int) -> dict:
        return {sensor.name: sensor.possible_measurements()[batch.readings[s, game]]
                for s, sensor in enumerate(batch.sensors)}

    for game in range(12):
        exact(game, True)
    rng = np.random.default_rng(3)
    restart = np.zeros(12, dtype=bool)
    for _ in range(80):
        actions = rng.integers(0, 4, size=12)
        result = batch.step_agent(actions)
        beliefs = batch.filter.belief()
        for game in range(12):
            if restart[game]:
                tracker = exact(game, True)
            else:
                tracker = filters[game]
                tracker.predict(int(actions[game]))
                tracker.update(readings(game))
            assert np.abs(beliefs[game] - tracker.belief()).max() < 1e-12
            # the observation's belief slots are that belief, as float32
            assert np.array_equal(result.observations["agent"][game, 26:], beliefs[game].ravel().astype(np.float32))
        restart = result.terminations | result.truncations
    assert len(set(batch.maps.tolist())) > 1


def test_batched_filter_on_its_own_checks_its_inputs() -> None:
    sensor = ColorSensor(CLASSIC, 0.8)
    batched = BatchedHistogramFilter(CLASSIC, NoSlip(), [sensor], 3)
    single = HistogramFilter(CLASSIC, NoSlip(), [sensor])
    batched.predict([1, 1, 1])
    batched.update(np.array([[0, 0, 0]]))
    single.predict(1)
    single.update({"color_measurement": 0})
    assert np.abs(batched.belief()[1] - single.belief()).max() < 1e-12
    with pytest.raises(ValueError, match="shape"):
        batched.update(np.array([0, 0, 0]))
    with pytest.raises(ValueError, match=r"indices 0\.\.2"):
        batched.update(np.array([[0, 3, 0]]))
    with pytest.raises(ValueError, match="one size"):
        BatchedHistogramFilter([CLASSIC, GENERATED], NoSlip(), [sensor], 2)


# -- the Gymnasium vector env ---------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
@pytest.mark.parametrize(("controlled", "opponent"), [("agent", None), ("ghost", "minimax")])
def test_make_vec_matches_sync_vector_env(mode: AutoresetMode, controlled: str, opponent: str | None) -> None:
    settings = dict(controlled=controlled, opponent=opponent, obs_type="vector", **EXACT)
    batched = gymnasium.make_vec(gridghost.ENV_ID, num_envs=4, vectorization_mode="vector_entry_point",
                                 autoreset_mode=mode, **settings)
    sync = gymnasium.make_vec(gridghost.ENV_ID, num_envs=4, vectorization_mode="sync",
                              vector_kwargs={"autoreset_mode": mode}, **settings)
    assert isinstance(batched.unwrapped, GridGhostVectorEnv)
    assert batched.metadata["autoreset_mode"] == sync.metadata["autoreset_mode"] == mode
    for name in ("single_observation_space", "observation_space", "single_action_space", "action_space"):
        assert getattr(batched, name) == getattr(sync, name), name
    first, _ = batched.reset(seed=0)
    assert np.array_equal(first, sync.reset(seed=0)[0])
    rng = np.random.default_rng(1)
    finals = 0
    for _ in range(150):
        actions = rng.integers(0, 4, size=4)
        ours, theirs = batched.step(actions), sync.step(actions)
        for mine, expected in zip(ours[:4], theirs[:4], strict=True):
            assert mine.dtype == expected.dtype and np.array_equal(mine, expected)
        if "final_obs" in theirs[4]:
            assert np.array_equal(ours[4]["_final_obs"], theirs[4]["_final_obs"])
            for game in np.flatnonzero(theirs[4]["_final_obs"]):
                assert np.array_equal(ours[4]["final_obs"][game], theirs[4]["final_obs"][game])
                finals += 1
        else:
            assert "final_obs" not in ours[4]
    assert finals > 0 or mode == AutoresetMode.NEXT_STEP


@pytest.mark.parametrize(("controlled", "mode"), [("agent", "next_step"), ("agent", "same_step"),
                                                ("ghost", "next_step"), ("ghost", "same_step")])
def test_vector_env_infos_hold_the_episodes_statistics(controlled: str, mode: str) -> None:
    envs = 8
    env = GridGhostVectorEnv(envs, controlled=controlled, obs_type="vector", max_episode_steps=15,
                             autoreset_mode=mode, layout=MapGenerator(6, 6, num_levels=10), rewards="reference")
    env.reset(seed=3)
    rng = np.random.default_rng(4)
    returns, lengths = np.zeros(envs), np.zeros(envs, dtype=int)
    restart = np.zeros(envs, dtype=bool)
    checked = successes = 0
    for _ in range(150):
        _, rewards, terminated, truncated, infos = env.step(rng.integers(0, 4, size=envs))
        returns[restart], lengths[restart] = 0.0, 0  # next-step: this call restarted them
        returns[~restart] += rewards[~restart]
        lengths[~restart] += 1
        done = terminated | truncated
        if not done.any():
            assert infos == {}
        else:
            for key in ("episode_return", "episode_length", "is_success"):
                assert np.array_equal(infos[f"_{key}"], done) and infos[key].shape == (envs,)
                assert infos[key].dtype.kind in "fiub"
            assert np.array_equal(infos["episode_return"], np.where(done, returns, 0.0))
            assert np.array_equal(infos["episode_length"], np.where(done, lengths, 0))
            # the last step's reward says who won: the agent's +100 for a goal, the ghost's +50 or
            # +51 for a capture (its step rewards are +1, the negative of the agent's)
            won = (rewards >= 99) if controlled == "agent" else (rewards >= 50)
            assert np.array_equal(infos["is_success"], done & terminated & won)
            assert ("final_obs" in infos) == (mode == "same_step")
            checked += int(done.sum())
            successes += int(infos["is_success"].sum())
        if mode == "same_step":
            returns[done], lengths[done] = 0.0, 0
        else:
            restart = done
    assert checked > 50 and 0 < successes < checked


def test_vector_env_reset_mask_and_masks() -> None:
    env = GridGhostVectorEnv(3, obs_type="vector", **EXACT)
    env.reset(seed=0)
    env.step(np.array([2, 2, 1]))
    moved = env.step(np.array([2, 2, 1]))[0]
    observations, infos = env.reset(options={"reset_mask": np.array([False, True, False])})
    start, _ = GridGhostGymEnv(obs_type="vector", **EXACT).reset(seed=0)
    assert np.array_equal(observations[1], start) and np.array_equal(observations[0], moved[0]) and infos == {}
    assert env.action_masks().shape == (3, 4) and env.action_masks().dtype == bool
    with pytest.raises(ValueError, match="reset_mask"):
        env.reset(options={"reset_mask": np.zeros(3, dtype=bool)})


def test_make_vec_falls_back_to_sync_for_what_the_engine_does_not_serve() -> None:
    with pytest.warns(UserWarning, match="falling back to gymnasium.vector.SyncVectorEnv"):
        env = gymnasium.make_vec(gridghost.ENV_ID, num_envs=2, obs_type="dict")
    assert isinstance(env, gymnasium.vector.SyncVectorEnv)
    assert env.single_observation_space == gymnasium.make(gridghost.ENV_ID, obs_type="dict").observation_space


# -- refused inputs ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("actions", "error", "match"), [
    (np.zeros(3, dtype=np.int64), ValueError, r"shape \(4,\)"),
    (np.zeros((4, 1), dtype=np.int64), ValueError, r"shape \(4,\)"),
    (np.zeros(4), TypeError, "int array"),
    (np.array([True, False, True, False]), TypeError, "int array"),
    (np.array([0, 1, 4, 0]), ValueError, r"0\.\.3"),
    (np.array([0, -1, 2, 0]), ValueError, r"0\.\.3"),
])
def test_bad_actions_are_refused_and_change_nothing(actions, error, match) -> None:
    batch, untouched = BatchedGame(4, seed=0), BatchedGame(4, seed=0)
    batch.reset()
    untouched.reset()
    with pytest.raises(error, match=match):
        batch.step_agent(actions)
    valid = np.array([1, 2, 1, 2])
    after, expected = batch.step_agent(valid), untouched.step_agent(valid)  # no draw, no move was made
    assert np.array_equal(after.observations["agent"], expected.observations["agent"])
    assert np.array_equal(after.rewards["agent"], expected.rewards["agent"])


@pytest.mark.parametrize(("num_games", "error"), [(0, ValueError), (-2, ValueError), (1.5, TypeError),
                                                  (True, TypeError), ("4", TypeError)])
def test_bad_numbers_of_games_are_refused(num_games, error) -> None:
    with pytest.raises(error, match="num_games must be an int"):
        BatchedGame(num_games)


@pytest.mark.parametrize(("settings", "error", "match"), [
    (dict(obs_type="dict"), UnsupportedSetting, "obs_type"),
    (dict(opponent=lambda observation: 0), UnsupportedSetting, "table"),
    (dict(belief_filter="particle"), UnsupportedSetting, "histogram"),
    (dict(render_mode="human"), UnsupportedSetting, "render_mode"),
    (dict(use_ghost=False), UnsupportedSetting, "use_ghost"),
    (dict(colour="red"), TypeError, "unexpected keyword"),
    (dict(controlled="both"), ValueError, "controlled"),
    (dict(autoreset_mode="later"), ValueError, "autoreset_mode"),
    (dict(controlled=None, autoreset_mode="next_step"), ValueError, "same_step"),
    (dict(controlled=None, opponent="chase"), ValueError, "both sides learn"),
    (dict(opponent="optimal"), ValueError, "plays the agent"),
    (dict(controlled="ghost", opponent="chase"), ValueError, "chasing ghost"),
    (dict(controlled="ghost", obs_type="belief_vector"), ValueError, "follows the agent"),
    (dict(slip_probability=1.5), ValueError, "slip_probability"),
    (dict(layout=MapGenerator(6, 6)), UnsupportedSetting, "num_levels"),
    (dict(layout=Layout.generate(40, 40, seed=0), obs_type="grid"), ValueError, "TABLE_BYTES"),
])
def test_bad_settings_are_refused(settings, error, match) -> None:
    with pytest.raises(error, match=match):
        BatchedGame(2, **settings)


# -- the memory budgets: table_bytes= and the settings of gridghost.batched -----------------------------
BUDGET_LEVELS = dict(layout=MapGenerator(6, 6, num_levels=3), obs_type="grid", view_radius=5)


def _grid_levels_bytes() -> int:
    """What the tables of :data:`BUDGET_LEVELS` take by the engine's estimate."""
    batch = BatchedGame(1, **BUDGET_LEVELS)
    return batch._table_bytes(3, 6, 6, batch._k, batch._b, [Side.AGENT])


def test_table_bytes_sets_the_tables_budget_of_one_engine() -> None:
    needed = _grid_levels_bytes()
    with pytest.raises(ValueError, match=r"3 map\(s\) of 6x6 with obs_type='grid' would take about .* more than the "
                                         r"tables' budget of .*; raise it with table_bytes="):
        BatchedGame(1, table_bytes=needed - 1, **BUDGET_LEVELS)
    assert BatchedGame(1, table_bytes=needed, **BUDGET_LEVELS).table_bytes == needed
    assert BatchedGame(1).table_bytes == TABLE_BYTES
    vector = GridGhostVectorEnv(2, table_bytes=needed, **BUDGET_LEVELS)  # the vector env passes it on
    assert vector.game.table_bytes == needed
    with pytest.raises(ValueError, match="table_bytes="):
        GridGhostVectorEnv(2, table_bytes=needed - 1, **BUDGET_LEVELS)


@pytest.mark.parametrize(("value", "error"), [(0, ValueError), (-5, ValueError), (1.5, TypeError), (True, TypeError),
                                              ("512", TypeError)])
def test_a_bad_table_bytes_is_refused_by_every_view(value, error) -> None:
    with pytest.raises(error, match=r"table_bytes must be an int >= 1 or None \(gridghost.batched.TABLE_BYTES\)"):
        BatchedGame(1, table_bytes=value)
    with pytest.raises(error, match="table_bytes must be"):
        GridGhostVectorEnv(1, table_bytes=value)
    with pytest.raises(error, match="table_bytes must be"):  # checked before the fallback to SyncVectorEnv
        gymnasium.make_vec("gridghost/GridGhost-v1", num_envs=1, vectorization_mode="vector_entry_point",
                           obs_type="dict", table_bytes=value)


def test_the_fallback_to_single_envs_takes_a_table_bytes() -> None:
    with pytest.warns(UserWarning, match="falling back"):
        envs = gymnasium.make_vec("gridghost/GridGhost-v1", num_envs=2, vectorization_mode="vector_entry_point",
                                  obs_type="dict", table_bytes=2**30)
    assert isinstance(envs, gymnasium.vector.SyncVectorEnv)
    envs.close()


def test_a_level_set_over_the_budget_is_refused_before_its_levels_are_built() -> None:
    """3,000 levels of the recipe's grid were generated (and solved) for minutes, then refused."""
    built: list[int] = []

    class Counting(MapGenerator):
        def level(self, index: int) -> Layout:
            built.append(index)
            return super().level(index)

    levels = Counting(6, 6, num_levels=50)
    built.clear()
    # the least tables (8 MiB) fit, the grid's whole estimate (about 33 MiB) does not
    with pytest.raises(ValueError, match=r"50 map\(s\) of 6x6 with obs_type='grid' would take about 3\d MiB"):
        BatchedGame(2, layout=levels, obs_type="grid", view_radius=5, table_bytes=10 * 2**20)
    assert set(built) == {levels.start_level}  # the first level only (the settings and the measure read it)


def test_the_budgets_set_on_gridghost_batched_are_the_ones_the_engine_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """The refusal said to set gridghost.batched.TABLE_BYTES, and setting it did nothing
    (the engine had imported the number)."""
    import gridghost.batched as batched

    needed = _grid_levels_bytes()
    monkeypatch.setattr(batched, "TABLE_BYTES", needed - 1)
    assert needed - 1 == batched.TABLE_BYTES
    with pytest.raises(ValueError, match="more than the tables' budget"):
        BatchedGame(1, **BUDGET_LEVELS)
    assert BatchedGame(1, table_bytes=needed, **BUDGET_LEVELS).table_bytes == needed  # the keyword wins
    monkeypatch.setattr(batched, "TABLE_BYTES", needed)
    assert BatchedGame(1, **BUDGET_LEVELS).table_bytes == needed
    monkeypatch.setattr(batched, "BUFFER_BYTES", 2**20)
    with pytest.raises(ValueError, match=r"more than gridghost.batched.BUFFER_BYTES = 1 MiB"):
        BatchedGame(100_000)
    monkeypatch.setattr(batched, "MAX_GAMES", 10)
    with pytest.raises(ValueError, match=r"num_games must be an int in 1..10"):
        BatchedGame(11)
    with pytest.raises(ValueError, match=r"num_games must be an int in 1..10"):
        BatchedHistogramFilter(CLASSIC, NoSlip(), [], 11)


def test_calls_out_of_turn_are_refused() -> None:
    agent = BatchedGame(2)
    with pytest.raises(RuntimeError, match="reset"):
        agent.step_agent(np.zeros(2, dtype=np.int64))
    agent.reset(seed=0)
    with pytest.raises(RuntimeError, match="step_agent"):
        agent.step_ghost(np.zeros(2, dtype=np.int64))
    both = BatchedGame(2, controlled=None)
    both.reset(seed=0)
    with pytest.raises(RuntimeError, match="step_agent"):
        both.step_ghost(np.zeros(2, dtype=np.int64))
    both.step_agent(np.zeros(2, dtype=np.int64))
    with pytest.raises(RuntimeError, match="step_ghost"):
        both.step_agent(np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="side="):
        both.action_masks()
    with pytest.raises(ValueError, match="side="):
        both.episodes()
    with pytest.raises(ValueError, match="side"):
        agent.episodes("referee")
    assert both.episodes("ghost").returns.shape == (2,)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert both.action_masks("ghost").shape == (2, 4)


# -- exploring starts: reset(starts=...) ------------------------------------------------------------------
def _cell(layout: Layout, row: int, col: int) -> int:
    return row * layout.cols + col


def test_reset_starts_places_the_chosen_games_and_leaves_the_others_and_the_draws_alone() -> None:
    plain = BatchedGame(6, seed=4, layout=CLASSIC)
    placed = BatchedGame(6, seed=4, layout=CLASSIC)
    for game in (plain, placed):
        game.reset()
    agents, ghosts = np.array([_cell(CLASSIC, 2, 2), 0]), np.array([_cell(CLASSIC, 0, 1), _cell(CLASSIC, 3, 3)])
    plain.reset(games=[1, 4])
    placed.reset(games=[4, 1], starts=(agents, ghosts))  # the cells follow the games as given: 4, then 1
    start = board_for(CLASSIC).initial_state()
    assert placed.positions[0].tolist() == [start.agent, agents[1], start.agent, start.agent, agents[0], start.agent]
    assert placed.positions[1].tolist() == [start.ghost, ghosts[1], start.ghost, start.ghost, ghosts[0], start.ghost]
    # The same numbers were drawn: the games that were not placed go on exactly alike.
    actions = np.array([0, 1, 2, 3, 0, 1])
    a, b = plain.step_agent(actions), placed.step_agent(actions)
    others = [0, 2, 3, 5]
    np.testing.assert_array_equal(plain.positions[0][others], placed.positions[0][others])
    np.testing.assert_array_equal(a.rewards["agent"][others], b.rewards["agent"][others])
    assert placed.episodes().lengths.tolist() == [1] * 6


@pytest.mark.parametrize("order", [[3, 1], [5, 0, 2], [2, 5, 0]])
def test_reset_starts_go_to_the_games_in_the_order_given(order: list[int]) -> None:
    """``games=[3, 1]`` gave game 3 the start meant for game 1 (starts followed sorted indices)."""
    game = BatchedGame(6, seed=0, layout=CLASSIC, controlled=None, obs_type="belief_vector", color_sensor_quality=1.0)
    game.reset()
    agents = np.array([_cell(CLASSIC, 2, 2), 0, _cell(CLASSIC, 1, 0)])[: len(order)]
    ghosts = np.array([_cell(CLASSIC, 0, 1), _cell(CLASSIC, 3, 3), _cell(CLASSIC, 2, 4)])[: len(order)]
    game.reset(games=order, starts=(agents, ghosts))
    assert game.positions[0][order].tolist() == agents.tolist()
    assert game.positions[1][order].tolist() == ghosts.tolist()
    # each placed game's belief weighed the reading taken on its own agent's cell (a perfect sensor:
    # the cells of that colour only; the three cells have two colours, so a mix-up would show)
    assert (game.filter.beliefs[order, agents] > 0).all()


@pytest.mark.parametrize("games", [[1, 3, 1], np.array([4, 4])])
def test_reset_refuses_a_game_named_twice_and_draws_nothing(games) -> None:
    """A repeated game index was merged silently (and its two starts became one)."""
    game, clean = (BatchedGame(6, seed=0, layout=CLASSIC) for _ in range(2))
    for each in (game, clean):
        each.reset()
    repeated = int(np.asarray(games)[-1])
    count = len(games)
    with pytest.raises(ValueError, match=f"games must name each game once: game {repeated} is given 2 times"):
        game.reset(games=games, starts=(np.arange(count) + 5, np.arange(count) + 10))
    with pytest.raises(ValueError, match=f"game {repeated} is given 2 times"):
        game.reset(games=games)
    actions = np.arange(6) % 4
    a, b = game.step_agent(actions), clean.step_agent(actions)  # the same stream: nothing was drawn
    np.testing.assert_array_equal(np.stack(game.positions), np.stack(clean.positions))
    np.testing.assert_array_equal(a.rewards["agent"], b.rewards["agent"])


def test_the_batched_filter_resets_its_games_in_the_order_given_and_refuses_repeats_and_bad_indices() -> None:
    levels = MapGenerator(6, 6, num_levels=3)
    belief = BatchedHistogramFilter(tuple(levels.level(i) for i in range(3)), NoSlip(), [], 4)
    belief.reset(games=[3, 0], maps=[2, 1])
    assert belief.maps.tolist() == [1, 0, 0, 2]
    with pytest.raises(ValueError, match="game 3 is given 2 times"):
        belief.reset(games=[3, 3], maps=[1, 2])
    with pytest.raises(ValueError, match="mask must have shape"):
        belief.reset(games=[True, False], maps=[1])  # was read as the indices [1, 0]
    with pytest.raises(ValueError, match=r"game indices must lie in 0\.\.3"):
        belief.reset(games=[4])  # was an IndexError from inside NumPy
    assert belief.maps.tolist() == [1, 0, 0, 2]


def test_a_placed_game_moves_rewards_and_ends_as_the_kernel_says() -> None:
    """Without slip, a placed game's half-turns are the kernel's from that state."""
    from gridghost.core.game import Game

    kernel = Game(CLASSIC, NoSlip(), rewards="normalised")
    board = board_for(CLASSIC)
    goal = board.index(CLASSIC.goals[0])
    for agent, ghost in ((_cell(CLASSIC, 2, 1), _cell(CLASSIC, 0, 4)), (goal - CLASSIC.cols, 0), (6, 7)):
        for action in range(4):
            game = BatchedGame(1, seed=0, layout=CLASSIC, controlled=None, **{**EXACT, "rewards": "normalised"})
            game.reset()
            game.reset(games=[0], starts=(np.array([agent]), np.array([ghost])))
            step = game.step_agent(np.array([action]))
            after, _ = kernel.agent_step(GameState(agent, ghost), action, np.random.default_rng(0))
            assert (game.positions[0][0], game.positions[1][0]) == (after.agent, after.ghost)
            assert bool(step.terminations[0]) == (after.outcome != Outcome.ONGOING)
            assert step.rewards["agent"][0] == pytest.approx(kernel.rewards(Side.AGENT, after.outcome)[0])


def test_reset_starts_are_refused_for_a_learning_ghost_alone() -> None:
    game = BatchedGame(2, seed=1, layout=CLASSIC, controlled="ghost")
    game.reset()
    with pytest.raises(ValueError, match="starts places games with the agent to move; a learning ghost alone"):
        game.reset(starts=(np.array([5, 7]), np.array([0, 1])))


@pytest.mark.parametrize(("starts", "error", "message"), [
    ([np.array([1]), np.array([2])], TypeError, "tuple"),
    ((np.array([1, 2]), np.array([3, 4]), np.array([5, 6])), TypeError, "tuple"),
    ((np.array([1]), np.array([2, 3])), TypeError, "the agent cells must be an int array of shape"),
    ((np.array([1, 2]), np.array([2.0, 3.0])), TypeError, "the ghost cells must be an int array"),
    ((np.array([1, 99]), np.array([2, 3])), ValueError, "the agent cells must lie in 0..19"),
    ((np.array([1, 2]), np.array([-1, 3])), ValueError, "the ghost cells must lie in 0..19"),
    ((np.array([1, 3]), np.array([2, 3])), ValueError, "different cells; game 5 puts both on cell 3"),
])
def test_reset_refuses_bad_starts_and_draws_nothing(starts, error, message) -> None:
    game, clean = (BatchedGame(8, seed=0, layout=CLASSIC) for _ in range(2))
    for each in (game, clean):
        each.reset()
    with pytest.raises(error, match=message):
        game.reset(games=[2, 5], starts=starts)
    actions = np.arange(8) % 4
    a, b = game.step_agent(actions), clean.step_agent(actions)  # the same stream: nothing was drawn
    np.testing.assert_array_equal(np.stack(game.positions), np.stack(clean.positions))
    np.testing.assert_array_equal(a.rewards["agent"], b.rewards["agent"])


def test_reset_refuses_an_agent_start_on_a_goal() -> None:
    game = BatchedGame(3, seed=0, layout=CLASSIC)
    game.reset()
    goal = next(iter(CLASSIC.goals))
    agents = np.array([0, _cell(CLASSIC, *goal), 2])
    message = f"cannot start on a goal; game 1 starts it on cell {agents[1]}, a goal of its map"
    with pytest.raises(ValueError, match=message):
        game.reset(starts=(agents, np.array([5, 6, 7])))
    assert game.positions[0].tolist() == [board_for(CLASSIC).initial_state().agent] * 3


@pytest.mark.parametrize("controlled", ["agent", "ghost", None])
def test_exported_tables_are_read_only_views_of_what_the_steps_read(controlled: str | None) -> None:
    # gridghost.jax plays these tables: they must be the ones the engine steps with, and
    # exporting them must not let anyone write into the engine
    games = BatchedGame(3, seed=0, controlled=controlled, obs_type="grid", view_radius=2)
    tables = games.export_tables()
    arrays = [*tables.turns.values(), tables.start, tables.bounds, tables.masks, tables.goals,
              *(value for grid in tables.grids.values() for value in grid.values() if isinstance(value, np.ndarray))]
    assert arrays and not any(array.flags.writeable for array in arrays)
    expected = {"next", "reward", "terminated"} if controlled else {
        f"{side}_{part}" for side in ("agent", "ghost") for part in ("next", "outcome", "rewards")}
    assert set(tables.turns) == expected
    assert (tables.opening is not None) == (controlled == "ghost")
    assert set(tables.grids) == ({"agent", "ghost"} if controlled is None else {controlled})
    cells = games.num_cells
    assert tables.num_cells == cells and tables.num_maps == 1 and tables.k == 3
    if controlled != "ghost":  # a learning ghost's games start after the agent's opening move
        games.reset()
        agents, ghosts = games.positions
        assert (agents * cells + ghosts == tables.start[0]).all()
    assert games._tables["start"].flags.writeable  # the engine's own arrays stay its own


def test_exported_tables_refuse_the_belief_of_the_filter() -> None:
    with pytest.raises(UnsupportedSetting, match="belief of obs_type='belief_vector' is the engine's filter"):
        BatchedGame(2, obs_type="belief_vector").export_tables()


def test_a_scripted_opponent_without_a_state_table_is_refused_not_played_as_the_chasing_ghost(monkeypatch) -> None:
    from gridghost.batched.tables import opponent_table
    from gridghost.core.game import Game

    game = Game(CLASSIC, NoSlip())
    np.testing.assert_array_equal(opponent_table("chase", game, Side.GHOST), game.chase_table.ravel())
    assert opponent_table("random", game, Side.GHOST) is None
    # a scripted player added to the opponents' registry passes the name check and reaches the table
    # builder by its name, with no planner behind it
    monkeypatch.setattr("gridghost.batched.tables.planned_opponent", lambda opponent, game, side: None)
    with pytest.raises(UnsupportedSetting, match=r"no state table for the scripted opponent 'cautious'"):
        opponent_table("cautious", game, Side.GHOST)
