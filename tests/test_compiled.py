"""The one-ghost game's compiled sweeps (gridghost.planning.compiled, the fast extra) against
JointTurn's NumPy sweeps, bit for bit, and the game they solve against a plain value iteration;
and where they apply."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from test_solve_tail import PEAK, RELAXED, lowest_best, plain_iteration

import gridghost.planning.iteration as iteration
from gridghost.core.game import Game
from gridghost.core.layout import Layout
from gridghost.core.rules import Rewards, Side
from gridghost.core.slip import LongitudinalSlip, PerpendicularSlip, SlipModel
from gridghost.planning import TurnModel, budget, clear_caches, compiled, solve_agent, solve_game
from gridghost.planning.budget import model_bytes
from gridghost.planning.joint import JointTurn
from gridghost.planning.model import turn_model


class Doubled(SlipModel):
    """Two outcomes of the same move (one destination twice) and a stay."""

    def _groups(self, action: int) -> tuple[tuple[float, tuple[tuple[int, ...], ...]], ...]:
        return (0.25, ((action,),)), (0.25, ((action,),)), (0.5, ((),))


def one_row() -> Layout:
    """A map of one row: two of the ghost's moves never open (steps of 0)."""
    return Layout(np.zeros((1, 7), dtype=int), [(0, 6)], (0, 0), (0, 3))


#: The maps of the in-place sweeps' tests, one whose ghost can stand on a goal next to the agent
#: (the agent's move there is a catch, not a goal) with rewards of every sign, the ghost's wait
#: included, and slip models of two outcomes and of one destination twice.
MAPS = {**RELAXED,
        "ghost on a goal": (Layout.generate(6, 6, seed=4), LongitudinalSlip(0.3),
                            Rewards(step=0.5, goal=-3.0, caught=7.0, wait=0.25)),
        "two outcomes": (Layout.generate(7, 5, seed=5), LongitudinalSlip(1.0), Rewards(wait=-2.0)),
        "one destination twice": (Layout.generate(5, 6, seed=6, walls="scattered"), Doubled(0.5), None),
        "one row": (one_row(), PerpendicularSlip(0.3), Rewards(step=-0.1, goal=1.0, caught=-1.0, wait=0.5))}
#: The maps whose games end too soon for their values to be extrapolated on the way.
SHORT = ("classic", "no slip", "two outcomes", "one destination twice", "one row")


@pytest.mark.compiled
@pytest.mark.parametrize("name", list(MAPS))
@pytest.mark.parametrize("side", [Side.AGENT, Side.GHOST])
def test_a_compiled_sweep_is_the_numpy_sweep_bit_for_bit(name: str, side: Side) -> None:
    layout, slip, rewards = MAPS[name]
    model = TurnModel(Game(layout, slip, rewards=rewards) if rewards is not None else Game(layout, slip))
    numpy_turn, kernel = JointTurn(model, side, "min"), compiled.CompiledTurn(model, side)
    rng = np.random.default_rng(0)
    values = np.zeros(model.num_live + 1)
    values[:-1] = rng.normal(0.0, 20.0, model.num_live)  # any values: every state's arithmetic counts
    expected_q = np.empty((4, model.num_live))
    numpy_turn.turn(values, 0.9, "min", out=expected_q)
    q, out = np.empty((4, model.num_live)), np.zeros(model.num_live + 1)
    change = kernel.sweep(values, out, 0.9, q)
    assert np.array_equal(q, expected_q)
    assert np.array_equal(out[:-1], expected_q.max(axis=0)) and out[-1] == 0.0
    assert change == np.abs(out[:-1] - values[:-1]).max()
    # in place, in order: each row from the rows before it (a NumPy JointTurn.relax in the same order)
    order = np.ascontiguousarray(kernel.rows[::-1])
    relaxed = values.copy()
    kernel.relax(relaxed, 0.9, order)
    reference = values.copy()
    numpy_turn.relaxed = 0
    numpy_turn._order = [(int(kernel.rowstart[c]), int(kernel.rowstart[c]) + model.game.num_cells - 1) for c in order]
    numpy_turn.relax(reference, 0.9, "max")
    assert np.array_equal(relaxed, reference)


@pytest.mark.compiled
@pytest.mark.parametrize("name", list(MAPS))
def test_the_compiled_game_has_a_plain_value_iterations_values_and_moves(name: str, monkeypatch) -> None:
    layout, slip, rewards = MAPS[name]
    monkeypatch.setattr(compiled, "FROM_CELLS", 0)
    made, moved = [], []
    sweep, move = compiled.CompiledTurn.sweep, compiled.CompiledTurn.moved
    monkeypatch.setattr(compiled.CompiledTurn, "sweep", lambda turn, *args: made.append(1) or sweep(turn, *args))
    monkeypatch.setattr(compiled.CompiledTurn, "moved", lambda turn: moved.append(1) or move(turn))
    clear_caches()
    game = solve_game(layout, slip, rewards)
    assert made and game.residual <= 1e-10
    # the maps whose games go on long enough have their values extrapolated on the way
    assert bool(moved) == (name not in SHORT)
    values, agent_q, ghost_q = plain_iteration(game.model, "max", "min", Side.AGENT)
    assert np.abs(game.model.expand(values[:-1]) - game.values).max() <= 1e-9
    assert np.array_equal(game.agent_policy, game.model.expand(lowest_best(agent_q, True), fill=-1))
    assert np.array_equal(game._ghost_actions, lowest_best(ghost_q, False))
    made.clear()
    solve_agent(layout, slip, ghost="chase", rewards=rewards)  # a fixed side keeps the NumPy sweeps
    assert not made


def test_the_numpy_sweeps_serve_where_numba_is_missing_or_the_game_does_not_fit(monkeypatch) -> None:
    layout, slip, _ = MAPS["classic"]
    model = TurnModel(Game(layout, slip))
    monkeypatch.setattr(compiled, "FROM_CELLS", 0)
    monkeypatch.setattr(compiled, "available", lambda: False)
    assert iteration._compiled(model, Side.AGENT, "max", "min", None, 0.99) is None
    monkeypatch.setattr(compiled, "available", lambda: True)
    assert iteration._compiled(model, Side.AGENT, "max", "min", 10, 0.99) is None  # a horizon
    assert iteration._compiled(model, Side.AGENT, "max", "min", None, 1.0) is None  # no discount
    assert iteration._compiled(model, Side.AGENT, "max", np.ones((4, model.num_live)), None, 0.99) is None
    monkeypatch.setattr(compiled, "FROM_CELLS", model.game.num_cells + 1)
    assert iteration._compiled(model, Side.AGENT, "max", "min", None, 0.99) is None  # a small map
    team = TurnModel(Game(Layout.generate(5, 5, seed=1, ghosts=2), slip, ghosts=2))
    assert not compiled.CompiledTurn.fits(team)
    with pytest.raises(ValueError, match="model: one ghost"):
        compiled.CompiledTurn(team, Side.AGENT)


@pytest.mark.compiled
def test_the_compiled_memory_estimate_is_never_below_a_solves_arrays() -> None:
    """The compiled game's estimate less its fixed part (numba and the loops, loaded by a first
    solve before counting), against the most a fresh process's arrays took at once during the
    solve (tracemalloc, which NumPy reports its arrays to); the model's tables are never built."""
    warm = ("from gridghost.planning import clear_caches, compiled\ncompiled.FROM_CELLS = 0\n"
            "solve_game(Layout.generate(5, 5, seed=1), LongitudinalSlip(0.2))  # numba and the loops loaded\n"
            "clear_caches()\ntracemalloc.start()")
    solve = "solve_game(layout, LongitudinalSlip(0.2))"
    script = PEAK.format(size=24, solve=solve).replace("tracemalloc.start()", warm)
    script += "assert 'agent_next' not in solution.model.__dict__ and solution.model._joint_tables is None\n"
    done = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True)
    peak = json.loads(done.stdout.strip().splitlines()[-1])
    layout = Layout.generate(24, 24, seed=0)
    estimate = model_bytes(24 * 24, len(layout.goals), 1, compiled=True) - budget._COMPILED_FIXED
    assert peak <= estimate <= 1.25 * peak


def test_a_model_a_compiled_solve_made_builds_its_tables_under_the_next_callers_budget() -> None:
    layout = Layout.generate(12, 12, seed=7)
    game = Game(layout, LongitudinalSlip(0.2))
    cells, goals = game.num_cells, len(layout.goals)
    clear_caches()
    small = model_bytes(cells, goals, 1, compiled=True)
    model = turn_model(game, max_bytes=small, compiled=True)
    assert "agent_next" not in model.__dict__ and model._joint_tables is None
    with pytest.raises(ValueError, match="max_bytes"):  # the tables' budget is the caller's, not the maker's
        turn_model(game, max_bytes=model_bytes(cells, goals, 1) - 1)
    assert turn_model(game) is model and "agent_next" in model.__dict__ and model._joint_tables is not None
    assert "agents" not in model.__dict__  # the cells the tables were built from are forgotten again
    expected = TurnModel(game)
    assert np.array_equal(model.agent_next, expected.agent_next)
    assert np.array_equal(model.ghost_next, expected.ghost_next)


def test_a_numba_that_fails_to_import_leaves_the_numpy_sweeps(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "numba", None)  # what an install broken on import looks like
    compiled.available.cache_clear()
    try:
        assert not compiled.available()
    finally:
        compiled.available.cache_clear()
