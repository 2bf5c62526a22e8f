"""The one-ghost solver's sweeps and the linear solves that finish them, against a plain value
iteration written here over the turn model's arrays; and the memory estimate against what a solve
really takes, measured in a fresh process."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import gridghost.planning.iteration as iteration
from gridghost.core.game import Game
from gridghost.core.layout import CLASSIC, Layout
from gridghost.core.rules import Rewards, Side
from gridghost.core.slip import LongitudinalSlip, NoSlip, PerpendicularSlip
from gridghost.planning import TurnModel, clear_caches, solve_agent, solve_game, solve_ghost
from gridghost.planning.joint import JointTurn
from gridghost.planning.model import model_bytes

SLIP = LongitudinalSlip(0.2)
MAPS = {"classic": CLASSIC, "8x8": Layout.generate(8, 8, seed=1), "12x12": Layout.generate(12, 12, seed=2)}


def plain_iteration(model: TurnModel, agent: object, ghost: object, side: Side, gamma: float = 0.99,
                    tol: float = 1e-12) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Jacobi value iteration over full turns, every state at once, from the value of a game that
    never ends, until no value changes by more than ``tol``: the values (the sink's 0 last), the
    agent's action values and the ghost's, after the values of the last sweep."""
    sink = model.num_live
    values = np.zeros(sink + 1)
    values[:sink] = model.continuing_reward(side) / (1.0 - gamma)
    rewards, expected = model.ghost_reward[side], model.agent_expected[side]
    for _ in range(100_000):
        ghost_q = rewards + gamma * values[model.ghost_next]
        between = np.zeros(sink + 1)
        if isinstance(ghost, str):
            between[:sink] = ghost_q.min(axis=0) if ghost == "min" else ghost_q.max(axis=0)
        else:
            between[:sink] = (ghost_q * ghost).sum(axis=0)
        agent_q = expected + (model.agent_prob[:, :, None] * between[model.agent_next]).sum(axis=1)
        new = agent_q.max(axis=0) if isinstance(agent, str) else (agent_q * agent).sum(axis=0)
        change = np.abs(new - values[:sink]).max(initial=0.0)
        values[:sink] = new
        if change <= tol:
            return values, agent_q, ghost_q
    raise AssertionError("the reference did not converge")


def lowest_best(q: np.ndarray, maximise: bool) -> np.ndarray:
    """Per state, the lowest action within 1e-9 (relative) of the best."""
    best = q.max(axis=0) if maximise else q.min(axis=0)
    slack = 1e-9 * np.maximum(1.0, np.abs(best))
    return np.argmax(q >= best - slack if maximise else q <= best + slack, axis=0)


@pytest.mark.parametrize("name", list(MAPS))
def test_the_game_has_the_values_and_moves_of_a_plain_value_iteration(name: str) -> None:
    layout = MAPS[name]
    clear_caches()
    solution = solve_game(layout, SLIP)
    values, agent_q, ghost_q = plain_iteration(solution.model, "max", "min", Side.AGENT)
    assert np.abs(solution.model.expand(values[:-1]) - solution.values).max() <= 1e-9
    assert solution.sweeps > 0 and solution.residual <= 1e-10
    model = solution.model
    assert np.array_equal(solution.agent_policy, model.expand(lowest_best(agent_q, True), fill=-1))
    ghost_moves = lowest_best(ghost_q, False)
    for live in range(0, model.num_live, max(1, model.num_live // 200)):
        agent, ghost = (divmod(int(cell), layout.cols) for cell in (model.agents[live], model.ghost_cells[live, 0]))
        assert solution.ghost_action(agent, ghost) == ghost_moves[live]


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.slow) if name == "12x12" else name
                                  for name in MAPS])  # a second or more: .ci/run runs the slow group
def test_each_side_against_a_fixed_policy_has_the_values_of_a_plain_value_iteration(name: str) -> None:
    layout = MAPS[name]
    clear_caches()
    agent = solve_agent(layout, SLIP, ghost="chase")
    values, agent_q, _ = plain_iteration(agent.model, "max", agent._ghost, Side.AGENT)
    assert np.abs(agent.model.expand(values[:-1]) - agent.values).max() <= 1e-9
    assert np.array_equal(agent.policy, agent.model.expand(lowest_best(agent_q, True), fill=-1))
    ghost = solve_ghost(layout, SLIP, agent="random")
    values, _, ghost_q = plain_iteration(ghost.model, ghost._agent, "max", Side.GHOST)
    assert np.abs(ghost.model.expand(values[:-1]) - ghost.values).max() <= 1e-9
    assert np.array_equal(ghost._ghost_actions, lowest_best(ghost_q, True))


def several_goals(size: int = 9, seed: int = 3) -> Layout:
    """A walled map with goals in three corners."""
    rng = np.random.default_rng(seed)
    while True:
        try:
            return Layout(colours=rng.integers(0, 3, (size, size)), goals=[(size - 1, 0), (size - 1, size - 1), (0, 0)],
                          agent_start=(0, size // 2), ghost_start=(size - 1, size // 2),
                          walls_horizontal=rng.random((size - 1, size)) < 0.2,
                          walls_vertical=rng.random((size, size - 1)) < 0.2)
        except ValueError:  # something unreachable: draw again
            continue


RELAXED = {"classic": (CLASSIC, SLIP, None), "12x12": (MAPS["12x12"], PerpendicularSlip(0.3), None),
           "several goals": (several_goals(), SLIP, Rewards(step=-2.0, goal=30.0)),
           "no slip": (MAPS["8x8"], NoSlip(), None)}


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.slow) if name == "12x12" else name
                                  for name in RELAXED])  # a second or more: .ci/run runs the slow group
def test_in_place_sweeps_and_short_solves_reach_a_plain_value_iterations_game(name: str, monkeypatch) -> None:
    """The game's solves on large maps start with in-place sweeps, agent cell by agent cell, and aim
    their linear solves short of the end: made on small maps here, the game ends at a plain value
    iteration's values and moves; a fixed side's solves keep to the plain sweeps."""
    layout, slip, rewards = RELAXED[name]
    monkeypatch.setattr(iteration, "_RELAX_FROM", 0)
    monkeypatch.setattr(iteration, "_SHALLOW_FROM", 0)
    relaxed = []
    relax = JointTurn.relax
    monkeypatch.setattr(JointTurn, "relax", lambda turn, *args: relaxed.append(1) or relax(turn, *args))
    clear_caches()
    game = solve_game(layout, slip, rewards)
    assert relaxed and game.residual <= 1e-10
    values, agent_q, ghost_q = plain_iteration(game.model, "max", "min", Side.AGENT)
    assert np.abs(game.model.expand(values[:-1]) - game.values).max() <= 1e-9
    assert np.array_equal(game.agent_policy, game.model.expand(lowest_best(agent_q, True), fill=-1))
    assert np.array_equal(game._ghost_actions, lowest_best(ghost_q, False))
    relaxed.clear()
    solve_agent(layout, slip, ghost="chase", rewards=rewards)
    solve_ghost(layout, slip, agent="random", rewards=rewards)
    assert not relaxed


def test_in_place_sweeps_go_agent_cell_by_agent_cell_from_the_goals() -> None:
    """The order of the in-place sweeps: every live state once, each agent cell's states together,
    the cells by their fewest moves to a goal, counted here by a walk of the map's moves."""
    layout = several_goals()
    model = TurnModel(Game(layout, SLIP))
    order = JointTurn(model, Side.AGENT, "min").cell_order()
    covered = np.concatenate([np.arange(start, stop) for start, stop in order])
    assert np.array_equal(np.sort(covered), np.arange(model.num_live))
    game, cells = model.game, model.game.num_cells
    steps = {int(cell): 0 for cell in np.flatnonzero(game.goals)}
    for depth in range(1, cells):
        frontier = [cell for cell in range(cells) if cell not in steps
                    and any(steps.get(int(game.moves[cell, action])) == depth - 1 for action in range(4))]
        steps.update((cell, depth) for cell in frontier)
    firsts = [int(model.agents[start]) for start, _ in order]
    assert all(len(set(model.agents[start:stop].tolist())) == 1 for start, stop in order)
    assert [steps.get(cell, cells) for cell in firsts] == sorted(steps.get(cell, cells) for cell in firsts)


def test_the_values_do_not_depend_on_the_linear_solves(monkeypatch) -> None:
    """A solve that fails (or is never tried) leaves the sweeps to finish alone, at the same values."""
    layout = MAPS["8x8"]
    clear_caches()
    solved = solve_game(layout, SLIP)
    monkeypatch.setattr(iteration, "_evaluate", lambda fixed, values, target, work: (None, 0))
    clear_caches()
    alone = solve_game(layout, SLIP)
    assert np.abs(solved.values - alone.values).max() <= 1e-9
    assert np.array_equal(solved.agent_policy, alone.agent_policy)
    assert alone.sweeps > solved.sweeps  # the solve made fewer passes over the states


def test_a_horizon_is_swept_exactly_without_linear_solves() -> None:
    layout = MAPS["8x8"]
    clear_caches()
    model = TurnModel(Game(layout, SLIP))
    horizon = 7
    values = np.zeros(model.num_live + 1)
    for _ in range(horizon):
        ghost_q = model.ghost_reward[Side.AGENT] + 0.99 * values[model.ghost_next]
        between = np.append(ghost_q.min(axis=0), 0.0)
        agent_q = model.agent_expected[Side.AGENT] + (model.agent_prob[:, :, None] * between[model.agent_next]).sum(1)
        values = np.append(agent_q.max(axis=0), 0.0)
    solution = solve_game(layout, SLIP, horizon=horizon)
    assert solution.sweeps == horizon
    assert np.abs(model.expand(values[:-1]) - solution.values).max() <= 1e-12


PEAK = """
import json, tracemalloc
from gridghost.core.layout import Layout
from gridghost.core.slip import LongitudinalSlip
from gridghost.planning import solve_agent, solve_game
layout = Layout.generate({size}, {size}, seed=0)
tracemalloc.start()
solution = {solve}
print(json.dumps(tracemalloc.get_traced_memory()[1]))
"""


@pytest.mark.slow  # a subprocess per solve: .ci/run runs the slow group
@pytest.mark.parametrize("size", [12, 24])
@pytest.mark.parametrize("solver", ["game", "agent"])
def test_the_memory_estimate_is_never_below_a_solves_peak(size: int, solver: str) -> None:
    """The estimate the budget is checked against, against the most a fresh process's arrays
    took at once during the solve (tracemalloc, which NumPy reports its arrays to)."""
    solve = ("solve_game(layout, LongitudinalSlip(0.2))" if solver == "game"
             else "solve_agent(layout, LongitudinalSlip(0.2), ghost='chase')")
    done = subprocess.run([sys.executable, "-c", PEAK.format(size=size, solve=solve)], check=True,
                          capture_output=True, text=True)
    peak = json.loads(done.stdout.strip().splitlines()[-1])
    layout = Layout.generate(size, size, seed=0)
    estimate = model_bytes(size * size, len(layout.goals), 1, policy=solver == "agent")
    assert peak <= estimate
    if size == 24:  # large enough that the fixed part of the estimate does not dominate it
        assert estimate <= 1.25 * peak
