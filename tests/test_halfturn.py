"""The half-turn rules (gridghost.core.halfturn) against an oracle written from the rules, on Python
scalars, NumPy and, where jax is installed, jax.numpy (the JAX cases carry the ``jax`` marker)."""

from __future__ import annotations

import importlib
import itertools
from typing import Any

import numpy as np
import pytest

from gridghost.core.halfturn import agent_lands, credited, team_lands, team_moves
from gridghost.core.layout import Layout
from gridghost.core.rules import Outcome, board_for

XPS = [pytest.param("numpy", id="numpy"), pytest.param("jax.numpy", id="jax", marks=pytest.mark.jax)]

# 3 x 3, a wall in the middle (a cell nobody enters), a goal in the corner (2, 2)
LAYOUT = Layout(np.array([[0, 0, 0], [0, 1, 0], [0, 0, 0]]), goals=[(2, 2)], agent_start=(0, 0),
                ghost_start=[(0, 2), (2, 0), (1, 0)])
BOARD = board_for(LAYOUT)
CELLS = BOARD.num_cells
GOALS = np.array(BOARD.is_goal)


@pytest.fixture(params=XPS)
def xp(request: pytest.FixtureRequest) -> Any:
    """The array namespace of a case: numpy, or jax.numpy (skipped where jax is not installed)."""
    if request.param == "jax.numpy":
        pytest.importorskip("jax")
    return importlib.import_module(request.param)


def _lands_oracle(cell: int, ghosts: tuple[int, ...]) -> int:
    if cell in ghosts:
        return Outcome.CAUGHT
    return Outcome.GOAL if BOARD.is_goal[cell] else Outcome.ONGOING


def _every_state(k: int) -> tuple[np.ndarray, np.ndarray]:
    states = list(itertools.product(range(CELLS), repeat=k + 1))
    cells = np.array(states)
    return cells[:, 0], cells[:, 1:]


@pytest.mark.parametrize("k", [1, 2, 3])
def test_the_agent_lands_caught_on_any_ghost_else_on_a_goal_else_the_game_goes_on(k: int, xp: Any) -> None:
    agents, ghosts = _every_state(k)
    expected = [_lands_oracle(int(a), tuple(int(g) for g in row)) for a, row in zip(agents, ghosts, strict=True)]
    got = np.asarray(agent_lands(xp.asarray(agents), xp.asarray(ghosts), xp.asarray(GOALS), xp=xp))
    assert got.tolist() == expected
    assert {Outcome.CAUGHT, Outcome.GOAL, Outcome.ONGOING} <= set(expected)
    # the scalar form: an int and a tuple of ghost cells
    for a, row in zip(agents[:50].tolist(), ghosts[:50].tolist(), strict=True):
        assert int(agent_lands(a, tuple(row), GOALS)) == _lands_oracle(a, tuple(row))


@pytest.mark.parametrize("k", [1, 2, 3])
def test_the_team_moves_together_without_blocking_and_catches_from_any_ghost(k: int, xp: Any) -> None:
    agents, ghosts = _every_state(k)
    rng = np.random.default_rng(k)
    actions = rng.integers(0, 4, size=ghosts.shape)
    moves = np.array(BOARD.next_cell)
    moved = np.asarray(team_moves(xp.asarray(moves), xp.asarray(ghosts), xp.asarray(actions)))
    for row, acts, after in zip(ghosts.tolist(), actions.tolist(), moved.tolist(), strict=True):
        assert after == [BOARD.next_cell[cell][action] for cell, action in zip(row, acts, strict=True)]
    outcomes = np.asarray(team_lands(xp.asarray(agents), xp.asarray(moved), xp=xp))
    caught = [int(a) in row for a, row in zip(agents.tolist(), moved.tolist(), strict=True)]
    assert outcomes.tolist() == [Outcome.CAUGHT if c else Outcome.ONGOING for c in caught]
    assert any(caught) and not all(caught)
    assert int(team_lands(3, (3,) * k)) == Outcome.CAUGHT and int(team_lands(3, (4,) * k)) == Outcome.ONGOING


@pytest.mark.parametrize("catcher", [False, True])
def test_credit_pays_the_team_or_only_the_catchers(catcher: bool, xp: Any) -> None:
    agents = np.array([4, 4, 4, 2])
    ghosts = np.array([[4, 1, 4], [0, 1, 2], [4, 4, 4], [2, 2, 2]])
    outcomes = np.array([Outcome.CAUGHT, Outcome.ONGOING, Outcome.CAUGHT, Outcome.GOAL], dtype=np.int8)
    team = np.array([1.0, -0.1, 1.0, -1.0])
    quiet = np.array([-0.1, -0.1, -0.1, -0.1])
    got = np.asarray(credited(xp.asarray(team), xp.asarray(quiet), xp.asarray(agents), xp.asarray(ghosts),
                              xp.asarray(outcomes), catcher, xp=xp))
    if catcher:
        expected = [[1.0, -0.1, 1.0], [-0.1] * 3, [1.0] * 3, [-1.0] * 3]
    else:
        expected = [[1.0] * 3, [-0.1] * 3, [1.0] * 3, [-1.0] * 3]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-6)
    scalar = credited(1.0, -0.1, 4, (4, 1), Outcome.CAUGHT, catcher)
    assert np.asarray(scalar).tolist() == ([1.0, -0.1] if catcher else [1.0, 1.0])
