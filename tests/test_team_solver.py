"""The team solver (gridghost.planning.team): its values against a brute-force value iteration over
every joint move, the one-ghost solver at k = 1, best responses and exploitability, the memory
budget, and bad input."""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import gridghost
from gridghost.core.game import Game
from gridghost.core.layout import CLASSIC, Layout
from gridghost.core.rules import GameState, Outcome, Side
from gridghost.core.slip import LongitudinalSlip, NoSlip
from gridghost.planning import (
    agent_exploitability,
    evaluate_team_policies,
    ghost_exploitability,
    solve_agent,
    solve_game,
    solve_team_agent,
    solve_team_game,
    solve_team_ghosts,
    team_agent_exploitability,
    team_exploitability,
    team_ghosts_exploitability,
)
from gridghost.planning.team_model import MAX_BYTES, TeamModel, team_bytes

SLIP = LongitudinalSlip(0.2)
ROOT = Path(__file__).resolve().parent.parent


def tiny(rows: int, cols: int, ghosts: list[tuple[int, int]], walls: bool = True) -> Layout:
    """A small map with a goal in the top-right corner and the agent in the bottom-left."""
    vertical = np.zeros((rows, cols - 1), dtype=bool)
    if walls and rows > 1 and cols > 2:
        vertical[0, 0] = True
    return Layout(np.zeros((rows, cols), int), goals=[(0, cols - 1)], agent_start=(rows - 1, 0),
                  ghost_start=ghosts, walls_vertical=vertical, name=f"tiny {rows}x{cols}")


def guarded_pair() -> Layout:
    """The shipped guarded map with a second ghost in the top-left corner (the Teams page's example)."""
    layout = gridghost.maps.load("guarded")
    data = layout.to_dict()
    data["ghost_start"] = [list(layout.ghost_start), [0, 0]]
    return Layout.from_dict(data)


# -- brute force --------------------------------------------------------------------------------------
def brute_force(team: Game, gamma: float, sweeps: int, event: Outcome | None = None,
                agent_policy: Any = None, team_policy: Any = None) -> dict[tuple[int, ...], float]:
    """Value iteration in plain Python over every state and every one of the 4^k joint moves,
    through Game.successors: the agent maximises and the team minimises, unless a policy
    (a function of the state index) is given; with ``event``, the probability of that outcome."""
    cells, k = team.num_cells, team.ghosts
    joints = [team.joint_actions(joint) for joint in range(4**k)]  # by joint index, ghost 0 the lowest digit
    live = [(a, *g) for a in range(cells) for g in itertools.product(range(cells), repeat=k)
            if a not in g and not team.goals[a]]

    def reward(outcome: Outcome, agent_reward: float) -> float:
        return float(outcome == event) if event is not None else agent_reward

    agent_moves = {s: [team.successors(GameState(s[0], s[1:]), action) for action in range(4)] for s in live}
    team_moves: dict[tuple[int, ...], list[Any]] = {}
    for outcomes in agent_moves.values():
        for _, after, _, _ in itertools.chain.from_iterable(outcomes):
            key = (after.agent, *after.ghosts)
            if after.outcome == Outcome.ONGOING and key not in team_moves:
                team_moves[key] = [team.successors(after, joint)[0] for joint in joints]
    values = dict.fromkeys(live, 0.0)
    for _ in range(sweeps):
        def between(key: tuple[int, ...], values: dict = values) -> float:
            options = [reward(s.outcome, r) + (gamma * values[(s.agent, *s.ghosts)] if s.outcome == Outcome.ONGOING
                                               else 0.0) for _, s, r, _ in team_moves[key]]
            return options[team_policy(key)] if team_policy else min(options)

        new = {}
        for s in live:
            q = [sum(p * (reward(after.outcome, r) + (between((after.agent, *after.ghosts))
                                                      if after.outcome == Outcome.ONGOING else 0.0))
                     for p, after, r, _ in outcomes) for outcomes in agent_moves[s]]
            new[s] = q[agent_policy(s)] if agent_policy else max(q)
        values = new
    return values


@pytest.mark.parametrize(("rows", "cols", "ghosts", "sweeps"), [
    (2, 3, [(0, 0), (1, 2)], 12),
    (1, 5, [(0, 2), (0, 3)], 12),
    (1, 4, [(0, 1), (0, 2), (0, 3)], 6),
    pytest.param(2, 3, [(0, 0), (1, 2), (1, 1)], 6, marks=pytest.mark.slow),
])
def test_the_team_game_has_the_values_of_a_brute_force_value_iteration(rows: int, cols: int, ghosts: list,
                                                                        sweeps: int) -> None:
    team = Game(tiny(rows, cols, ghosts), SLIP, ghosts=len(ghosts))
    solution = solve_team_game(game=team, gamma=0.9, horizon=sweeps)
    expected = brute_force(team, 0.9, sweeps)
    got = {s: float(solution._values[s]) for s in expected}
    assert max(abs(got[s] - expected[s]) for s in expected) < 1e-9
    assert len({round(v, 6) for v in expected.values()}) > 5  # the values differ from state to state
    # the team's policy reaches the min over every joint move, the agent's the max
    model = solution.model
    for s in list(expected)[:: max(1, len(expected) // 40)]:
        where = model.position(s[0]), [model.position(g) for g in s[1:]]
        q = solution.agent_q(*where)
        assert q[solution.agent_action(*where)] == q.max()
        team_q = solution.team_q(*where)
        assert team_q[team.joint_index(solution.team_action(*where))] <= team_q.min() + 1e-9


def test_fixed_policies_and_outcome_probabilities_match_the_brute_force() -> None:
    team = Game(tiny(2, 3, [(0, 0), (1, 2)]), SLIP, ghosts=2)
    solution = solve_team_game(game=team, gamma=0.95)
    model = solution.model
    agent = lambda s: int(solution._agent_actions[s])  # noqa: E731
    joint = lambda s: int(solution._team_joint[s])  # noqa: E731
    start = solution.start
    for event, method in ((Outcome.GOAL, solution.success_probability), (Outcome.CAUGHT, solution.capture_probability)):
        expected = brute_force(team, 1.0, 15, event, agent, joint)
        assert method(*start, horizon=15) == pytest.approx(expected[model.start()], abs=1e-12)
    chasers = solve_team_agent(game=team, team="chase", gamma=0.95, horizon=10)
    chase = lambda s: team.joint_index(team.chase_actions(GameState(s[0], s[1:])))  # noqa: E731
    expected = brute_force(team, 0.95, 10, team_policy=chase)
    assert max(abs(float(chasers._values[s]) - v) for s, v in expected.items()) < 1e-9


def test_one_ghost_as_a_team_of_one_is_the_one_ghost_solver() -> None:
    game = Game(CLASSIC, SLIP)
    one, team = solve_game(game=game), solve_team_game(game=game)
    assert np.abs(one.values - team.values).max() < 1e-9
    assert (one.agent_policy == team.agent_policy).all() and (one.ghost_policy == team.team_policy).all()
    assert not (team.values.flags.writeable or team.team_policy.flags.writeable)
    start = CLASSIC.agent_start, CLASSIC.ghost_start
    assert team.success_probability(start[0], [start[1]]) == pytest.approx(one.success_probability(*start), abs=1e-12)
    chasing = solve_team_agent(game=game, team="chase")
    assert np.abs(chasing.values - solve_agent(game=game).values).max() < 1e-9
    assert team_ghosts_exploitability("chase", game=game) == pytest.approx(ghost_exploitability("chase", game=game),
                                                                           abs=1e-7)
    assert team_agent_exploitability("random", game=game) == pytest.approx(agent_exploitability("random", game=game),
                                                                           abs=1e-7)


def test_every_ghost_more_can_only_help_the_team_up_to_four() -> None:
    layout = Layout(np.zeros((2, 4), int), goals=[(0, 3)], agent_start=(1, 0),
                    ghost_start=[(0, 0), (1, 3), (1, 2), (0, 2)], name="four ghosts")
    values = []
    for k in range(1, 5):
        solution = solve_team_game(layout, SLIP, ghosts=k)
        values.append(solution.value(*solution.start))
        assert len(solution.team_action(*solution.start)) == k
        assert solution.team_policy.shape == (2, 4) * (k + 1) and solution.team_policy.max() < 4**k
    assert values == sorted(values, reverse=True) and values[0] > values[-1]


def test_the_grid_shifts_reduce_as_gathers_do() -> None:
    model = TeamModel(Game(tiny(3, 4, [(0, 0), (2, 3)]), SLIP, ghosts=2))
    values = np.random.default_rng(0).random(model.shape)
    shifts, model._shifts = model._shifts, None
    for axis, how in itertools.product((1, 2), ("min", "max")):
        model._shifts = None
        slow = model.reduce_axis(values, axis, how, np.empty(model.shape))
        model._shifts = shifts
        assert np.array_equal(model.reduce_axis(values, axis, how, np.empty(model.shape)), slow)
    assert shifts is not None


# -- best responses and exploitability -----------------------------------------------------------------
def test_the_minimax_pair_is_unexploitable_and_independent_chasers_are_exploited() -> None:
    team = Game(tiny(3, 4, [(0, 1), (2, 3)], walls=False), SLIP, ghosts=2)
    game = solve_team_game(game=team)
    assert team_ghosts_exploitability(game.team_policy, game=team) == pytest.approx(0.0, abs=1e-6)
    assert team_agent_exploitability(game.agent_policy, game=team) == pytest.approx(0.0, abs=1e-6)
    assert team_exploitability(game.agent_policy, game.team_policy, game=team) == pytest.approx(0.0, abs=1e-6)
    chasing = team_ghosts_exploitability("chase", game=team)
    assert chasing > 1.0  # the chasers bunch up and let the agent through sometimes
    wandering = team_agent_exploitability("random", game=team)
    assert wandering > 1.0
    assert team_exploitability("random", "chase", game=team) == pytest.approx(chasing + wandering, abs=1e-6)
    chasers = solve_team_agent(game=team, team="chase")
    start = game.start
    assert chasers.success_probability(*start) > game.success_probability(*start)
    # the best response is at least as good as any agent policy against the chasers, everywhere
    random_agent = evaluate_team_policies("random", "chase", game=team)
    assert (chasers.values >= random_agent.values - 1e-9).all()
    assert evaluate_team_policies(chasers.policy, "chase", game=team).value(*start) == pytest.approx(
        chasers.value(*start), abs=1e-7)


def test_the_teams_best_response_to_the_minimax_agent_holds_it_to_the_games_value() -> None:
    team = Game(tiny(3, 4, [(0, 0), (2, 3)]), SLIP, ghosts=2)
    game = solve_team_game(game=team)
    reply = solve_team_ghosts(game=team, agent=game.agent_policy)
    assert reply.value(*game.start) == pytest.approx(-game.value(*game.start), abs=1e-7)  # zero-sum rewards
    against_random = solve_team_ghosts(game=team, agent="random")
    assert against_random.value(*game.start) > reply.value(*game.start)
    assert against_random.policy.shape == (3, 4) * 3 and against_random.policy.max() < 16


def test_every_form_of_a_team_policy_plays_the_same() -> None:
    team = Game(tiny(2, 3, [(0, 0), (1, 2)]), SLIP, ghosts=2)
    model = TeamModel(team)
    chase = evaluate_team_policies("random", "chase", game=team)
    joint = np.zeros(model.shape, dtype=np.int64)
    per_ghost = np.zeros((*model.shape, 2), dtype=np.int64)
    for s in zip(*np.nonzero(model.live), strict=True):
        per_ghost[s] = team.chase_actions(GameState(int(s[0]), tuple(int(g) for g in s[1:])))
        joint[s] = team.joint_index(per_ghost[s])
    probabilities = np.eye(16)[joint]

    def chase_callable(agent_pos: Any, ghost_positions: Any) -> tuple[int, ...]:
        state = model.state(agent_pos, ghost_positions)
        return team.chase_actions(GameState(state[0], state[1:]))

    for form in (joint, per_ghost, probabilities, chase_callable, model.grid(joint)):
        assert np.abs(evaluate_team_policies("random", form, game=team).values - chase.values).max() < 1e-9
    uniform = evaluate_team_policies("random", np.full((*model.shape, 16), 1 / 16), game=team)
    assert np.abs(uniform.values - evaluate_team_policies("random", "random", game=team).values).max() < 1e-9


# -- the budget ------------------------------------------------------------------------------------------
def test_a_team_too_large_for_the_budget_is_refused_before_anything_is_allocated() -> None:
    team = Game(tiny(3, 4, [(0, 0), (2, 3)]), SLIP, ghosts=2)
    needed = team_bytes(12, 2)
    with pytest.raises(ValueError, match=r"12 \*\* 3 = 1,728 joint states, about [\d,]+ bytes .*max_bytes=1,000"):
        solve_team_game(game=team, max_bytes=1000)
    assert solve_team_game(game=team, max_bytes=needed).sweeps > 0
    huge = Game(Layout.generate(16, 16, seed=0), SLIP, ghosts=1)
    big = Layout.from_dict({**huge.layout.to_dict(), "ghost_start": [[0, 0], [0, 1], [0, 2], [0, 3]]})
    with pytest.raises(ValueError, match=r"256 \*\* 5 = 1,099,511,627,776 joint states.*max_bytes=1,073,741,824"):
        solve_team_game(big, SLIP, ghosts=4)  # 1.1e12 states: allocating would fail outright
    assert MAX_BYTES == 2**30
    with pytest.raises(ValueError, match="max_bytes"):
        solve_team_agent(game=team, max_bytes=10**3)


def test_the_budget_estimate_covers_what_a_solve_allocates() -> None:
    import tracemalloc

    team = Game(Layout.generate(5, 5, seed=3, ghosts=2), SLIP, ghosts=2)
    tracemalloc.start()
    try:
        solution = solve_team_game(game=team)
        solution.success_probability(*solution.start)  # the outcome tables come on top of the solution
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert 0.6 * team_bytes(25, 2) < peak <= team_bytes(25, 2)


@pytest.mark.parametrize("value", [0, -5, 1.5, "1GiB", True])
def test_a_bad_budget_is_named(value: Any) -> None:
    team = Game(tiny(2, 3, [(0, 0), (1, 2)]), SLIP, ghosts=2)
    with pytest.raises((TypeError, ValueError), match="max_bytes"):
        solve_team_game(game=team, max_bytes=value)


# -- bad input -------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small() -> tuple[Game, Any]:
    team = Game(tiny(2, 3, [(0, 0), (1, 2)]), SLIP, ghosts=2)
    return team, solve_team_game(game=team)


@pytest.mark.parametrize(("agent_pos", "ghosts", "error", "message"), [
    ((1, 0), [(0, 0)], TypeError, "ghost_positions must be a sequence of 2"),
    ((1, 0), [(0, 0), (0, 1), (1, 1)], TypeError, "ghost_positions must be a sequence of 2"),
    ((1, 0), (0, 0), TypeError, "ghost_positions must be a sequence of 2"),
    ((5, 0), [(0, 0), (0, 1)], ValueError, "agent_pos"),
    ((1, 0), [(0, 0), (0, 9)], ValueError, r"ghost_positions\[1\]"),
])
def test_bad_positions_are_named(small: Any, agent_pos: Any, ghosts: Any, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        small[1].value(agent_pos, ghosts)


def test_a_finished_state_has_no_actions(small: Any) -> None:
    with pytest.raises(ValueError, match=r"the game is over with the agent at .1, 0., ghosts at .1, 0."):
        small[1].agent_action((1, 0), [(1, 0), (0, 0)])
    assert small[1].value((1, 0), [(1, 0), (0, 0)]) == 0.0
    with pytest.raises(ValueError, match="horizon"):
        small[1].success_probability(*small[1].start, horizon=0)


@pytest.mark.parametrize(("team_policy", "error", "message"), [
    ("minimax", ValueError, "team_policy must be 'chase' or 'random'"),
    (np.zeros((6, 6)), ValueError, r"team_policy must be an array of shape \(2, 3, 2, 3, 2, 3"),
    (np.full((6, 6, 6), 16), ValueError, "team_policy must hold actions 0..15 where the game goes on"),
    (np.full((6, 6, 6, 16), 0.5), ValueError, "probabilities must sum to 1 in every state"),
    (np.full((6, 6, 6), True), ValueError, "team_policy"),
    (lambda agent, ghosts: (0,), ValueError, "must hold 2 actions"),
    (lambda agent: (0, 0), TypeError, r"called as policy\(agent_pos, ghost_positions\)"),
    (3.5, TypeError, "team_policy must be 'chase', 'random'"),
])
def test_bad_team_policies_are_named(small: Any, team_policy: Any, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        evaluate_team_policies("random", team_policy, game=small[0])


@pytest.mark.parametrize(("agent_policy", "error", "message"), [
    ("chase", ValueError, "agent_policy must be 'random'"),
    (np.full((6, 6, 6), 4), ValueError, "agent_policy must hold actions 0..3"),
    (np.full((6, 6, 6, 4), 0.3), ValueError, "probabilities must sum to 1"),
    (np.full((6, 6, 6, 4), -0.25), ValueError, "probabilities >= 0"),
    (lambda agent, ghosts: 7, ValueError, "agent_policy at agent"),
    (object(), TypeError, "agent_policy must be 'random'"),
])
def test_bad_agent_policies_are_named(small: Any, agent_policy: Any, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        team_agent_exploitability(agent_policy, game=small[0])


def test_the_game_is_passed_once_and_must_be_a_game(small: Any) -> None:
    with pytest.raises(ValueError, match="not both"):
        solve_team_game(CLASSIC, game=small[0])
    with pytest.raises(ValueError, match="not both"):
        solve_team_game(ghosts=2, game=small[0])
    with pytest.raises(TypeError, match=r"game must be a gridghost.core.game.Game"):
        solve_team_game(game="classic")
    with pytest.raises(TypeError, match=r"spec must be a gridghost.GameSpec"):
        solve_team_game(spec=42)
    with pytest.raises(ValueError, match="ghosts=2 needs a map with 2 ghost starts"):
        solve_team_game(CLASSIC, ghosts=2)
    with pytest.raises(ValueError, match=r"ghosts must be an int in 1..4"):
        solve_team_game(guarded_pair(), ghosts=5)
    with pytest.raises(ValueError, match="gamma must be a number in"):
        solve_team_game(game=small[0], gamma=0.0)


def test_undiscounted_values_without_a_horizon_are_refused_where_the_game_may_not_end(small: Any) -> None:
    with pytest.raises(ValueError, match="gamma=1 without a horizon: the game may never end"):
        solve_team_game(game=small[0], gamma=1.0)
    assert solve_team_game(game=small[0], gamma=1.0, horizon=5).sweeps == 5


def test_the_one_ghost_solvers_name_the_team_solvers_for_a_team() -> None:
    team = Game(guarded_pair(), SLIP, ghosts=2)
    with pytest.raises(TypeError, match=r"game is a team game .2 ghosts.*solve_team_game"):
        solve_game(game=team)
    spec = gridghost.GameSpec(layout=guarded_pair(), ghosts=2)
    with pytest.raises(TypeError, match=r"spec is a team game .2 ghosts.*solve_team_game"):
        solve_agent(spec=spec)
    assert solve_team_game(spec=spec).success_probability(*solve_team_game(game=team).start) < 0.1


def test_the_team_solver_reads_a_spec_and_no_slip_game() -> None:
    layout = tiny(2, 3, [(0, 0), (1, 2)])
    spec = gridghost.GameSpec(layout=layout, ghosts=2, slip=NoSlip())
    solution = solve_team_game(spec=spec)
    assert solution.team.ghosts == 2 and solution.model.game.slip == NoSlip()
    assert isinstance(solution.model.game, Game) and Side.AGENT == 0


# -- the coordination maps ---------------------------------------------------------------------------------
TEAM_MAPS = [name for name in gridghost.maps.names() if len(gridghost.maps.load(name).ghost_starts) >= 2]


def test_three_coordination_maps_ship() -> None:
    assert TEAM_MAPS == ["team_crossroads", "team_eight", "team_ring"]


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.slow) if name == "team_crossroads" else name
                                  for name in TEAM_MAPS])
def test_a_coordination_map_takes_two_ghosts_that_work_together(name: str) -> None:
    layout = gridghost.maps.load(name)
    game = Game(layout, SLIP)  # the defaults: longitudinal slip 0.2, the reference's rewards, gamma 0.99
    one = solve_game(game=game).success_probability(layout.agent_start, layout.ghost_start, horizon=100)
    team = Game(game.layout, game.slip, ghosts=2)
    start = layout.agent_start, layout.ghost_starts[:2]
    chasers = solve_team_agent(game=team, team="chase").success_probability(*start, horizon=100)
    optimum = solve_team_game(game=team).success_probability(*start, horizon=100)
    assert one >= 0.5 and chasers >= 0.5 and optimum <= 0.1, (one, chasers, optimum)
    # the solver docs print the three numbers exactly
    row = f"| `{name}` | {layout.rows}x{layout.cols} | {one:.6f} | {chasers:.6f} | {optimum:.6f} |"
    assert row in (ROOT / "docs" / "solver.md").read_text(encoding="utf-8")


def run_script(*args: str) -> str:
    """A script's stdout, run with this checkout's gridghost first on the path."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, check=True, timeout=300,
                          env=env).stdout


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_team_maps_benchmark_prints_the_three_numbers_of_every_team_map() -> None:
    out = run_script("benchmarks/team_maps.py")
    rows = re.findall(r"^(team_\w+)\s+\d+x\d+\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+yes\s", out, flags=re.M)
    assert [row[0] for row in rows] == TEAM_MAPS
    for _, one, chasers, optimum in rows:
        assert float(one) >= 0.5 and float(chasers) >= 0.5 and float(optimum) <= 0.1


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_team_solve_benchmark_prints_a_time_and_a_ratio() -> None:
    out = run_script("benchmarks/team_solve.py", "--rounds", "1", "--no-progress", "--cases", "2 ghosts, 8x8")
    assert re.search(r"^2 ghosts, 8x8\s+262,144\s+\d+\.\d\d s\s+2 s\s+\d+\s+[\d.]+ ms\s+[\d.]+ ms\s+[\d.]+x\s+[\d.]+ s",
                     out, flags=re.M), out
