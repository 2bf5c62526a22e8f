"""The one-ghost game's full turns compiled by numba (the ``fast`` extra): :class:`CompiledTurn`.

A :class:`~gridghost.planning.joint.JointTurn` reads every live state's successors from the
:class:`~gridghost.planning.model.TurnModel`'s tables, about 120 bytes a state, and NumPy
streams each intermediate array through memory: on a 64 x 64 map a sweep is bound by that
traffic. With one ghost the successors have a structure the tables do not need to spell out.
The live states of the agent on cell ``c`` are one row, ordered by the ghost's cell ``g`` (``g``
skips ``c``); the agent's move lands on cell ``d`` whatever ``g`` is, so its successors are the
row of ``d`` read in order; the ghost's move keeps the row. :class:`CompiledTurn` sweeps row by
row from the cells' tables alone (the slip model's destinations, the board's moves, the goals),
with the arithmetic of :class:`~gridghost.planning.joint.JointTurn` in the same order, so a
sweep's values and action values are bit for bit the same (the tests hold them equal on maps
with walls, several goals and rewards of every sign).

The rules it reads the tables with are :mod:`gridghost.core.halfturn`'s for one ghost: the
agent's half-turn is a catch where it lands on the ghost's cell (even a goal cell), else a goal
where it lands on a goal; the ghost's half-turn is a catch where it lands on the agent's cell.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from gridghost.core.rules import NUM_ACTIONS, Outcome, Side
from gridghost.planning.model import TurnModel, by_outcome

#: The most slip outcomes per action the compiled sweep takes (every built-in slip model's);
#: models with more are swept by :class:`~gridghost.planning.joint.JointTurn`.
MAX_OUTCOMES = 3
#: The fewest cells of a map whose game is swept compiled: smaller maps keep the NumPy sweeps and
#: solves (a few seconds at most; numba's first compile takes about 7).
FROM_CELLS = 2048


def applies(game: Any, gamma: float, horizon: int | None) -> bool:
    """Whether :func:`~gridghost.planning.solve_game` sweeps ``game`` compiled: numba can be
    imported, one ghost on a grid's moves on a map of at least :data:`FROM_CELLS` cells, at most
    :data:`MAX_OUTCOMES` slip outcomes per action, ``gamma < 1`` and no horizon."""
    return horizon is None and gamma < 1.0 and game.num_cells >= FROM_CELLS and _grid(game) is not None and available()


def _grid(game: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """The ghost's moves as :func:`_steps` gives them where the game can be swept compiled (see
    :meth:`CompiledTurn.fits`), else ``None``."""
    if game.ghosts != 1 or max(len(probabilities) for probabilities, _ in game.outcomes) > MAX_OUTCOMES:
        return None
    return _steps(np.asarray(game.moves))


@functools.cache
def available() -> bool:
    """Whether numba can be imported here (imported once to find out, about a second: only where
    a game is otherwise swept compiled; an installed numba that fails to import counts as none)."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def _kernels() -> Any:
    """The compiled functions' module (numba compiles them on first use, or reads its cache)."""
    from gridghost.planning import _kernels

    return _kernels


def _steps(moves: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Each move's step between cells and where it is open (``int64[4]``, ``bool[4, cells]``), if
    every move from every cell is that step or none, else ``None``."""
    cells = np.arange(len(moves))
    opens = np.ascontiguousarray((moves != cells[:, None]).T)
    steps = np.zeros(moves.shape[1], dtype=np.int64)
    for move, open_ in enumerate(opens):
        taken = moves[open_, move] - cells[open_]
        if taken.size and (taken != taken[0]).any():
            return None
        steps[move] = taken[0] if taken.size else 0
    return steps, opens


class CompiledTurn:
    """The one-ghost game's full turns (the agent maximising, the ghost minimising ``side``'s
    return), swept row by row by compiled code from the cells' tables (see the module): a plain
    sweep (:meth:`sweep`, :class:`~gridghost.planning.joint.JointTurn`'s values bit for bit) and
    an in-place one (:meth:`relax`).

    Args:
        model: the game, of one ghost.
        side: whose rewards are summed.

    Raises:
        ValueError: the model does not fit the compiled sweep (more than one ghost, more than
            :data:`MAX_OUTCOMES` slip outcomes per action, or moves other than a grid's; check
            :meth:`fits` first).
        ImportError: numba cannot be imported.
    """

    def __init__(self, model: TurnModel, side: Side) -> None:
        grid = _grid(model.game)
        if grid is None:
            raise ValueError(f"model: one ghost, at most {MAX_OUTCOMES} slip outcomes per action and a grid's moves "
                             "are compiled")
        self.kernels = _kernels()
        game, sink = model.game, model.num_live
        cells = game.num_cells
        self.goals = np.ascontiguousarray(game.goals, dtype=np.bool_)
        index = model.index.reshape(cells, cells)
        # each row's first live index; a state's is rowstart[c] + g - (g > c)
        live = index < sink
        self.rowstart = np.where(live.any(axis=1), index.min(axis=1), 0).astype(np.int64)
        ghost = np.arange(cells)
        expected = np.where(live, self.rowstart[:, None] + ghost - (ghost > np.arange(cells)[:, None]), sink)
        if not np.array_equal(expected, index):  # the layout of the live states this relies on
            raise AssertionError("the live states are not laid out by agent cell, then ghost cell")
        self.moves = np.ascontiguousarray(game.moves, dtype=np.int64)
        self.steps, self.opens = grid
        self.dest = np.empty((NUM_ACTIONS, MAX_OUTCOMES, cells), dtype=np.int64)
        self.prob = np.zeros((NUM_ACTIONS, MAX_OUTCOMES))
        for action, (probabilities, destinations) in enumerate(game.outcomes):
            width = len(probabilities)
            self.dest[action, :width], self.prob[action, :width] = destinations, probabilities
            self.dest[action, width:] = destinations[0]  # padding: probability 0
        agent, ghosts = by_outcome(game, Side.AGENT, side), by_outcome(game, Side.GHOST, side)
        self.ra = np.array([agent[Outcome.ONGOING], agent[Outcome.CAUGHT], agent[Outcome.GOAL]], dtype=np.float64)
        self.rg = np.array([ghosts[Outcome.ONGOING], ghosts[Outcome.CAUGHT]], dtype=np.float64)
        self.rows = np.flatnonzero(live.any(axis=1)).astype(np.int64)  # the agent's cells off the goals
        self.between = np.zeros(sink + 1)  # the values with the ghost to move, the sink last and 0
        self.relaxed = 0

    @staticmethod
    def fits(model: TurnModel) -> bool:
        """Whether the model can be swept compiled: one ghost, at most :data:`MAX_OUTCOMES` slip
        outcomes per action, and each of the ghost's moves one step of the same size from every
        cell or none (a grid's)."""
        return _grid(model.game) is not None

    def sweep(self, values: np.ndarray, out: np.ndarray, gamma: float, agent_q: np.ndarray) -> float:
        """One sweep of full turns from ``values`` (``[num_live + 1]``, the sink last and 0): the
        agent's action values into ``agent_q`` (``[4, num_live]``), their best into ``out`` (its
        sink left as it is). Returns the largest change from ``values``."""
        return float(self.kernels.sweep(values, out, gamma, self.rows, self.rowstart, self.moves, self.steps,
                                        self.opens, self.rg, self.dest, self.prob, self.goals, self.ra,
                                        self.between, agent_q))

    def moved(self) -> None:
        """The values were changed outside a sweep: the next in-place sweep makes every row's
        ghost-to-move values from them first."""
        self.relaxed = 0

    def relax(self, values: np.ndarray, gamma: float, order: np.ndarray) -> float:
        """One in-place sweep (as :meth:`JointTurn.relax <gridghost.planning.joint.JointTurn.relax>`):
        row by row in ``order`` (agent cells), each row's new values written into ``values``, and
        its ghost-to-move values made from them, before the next row is swept; the first sweep
        makes every row's ghost-to-move values first. Returns the largest change of a value."""
        kernels = self.kernels
        if self.relaxed == 0:
            kernels.ghosts(values, gamma, self.rows, self.rowstart, self.moves, self.steps, self.opens, self.rg,
                           self.between)
        self.relaxed += 1
        scratch = np.empty((NUM_ACTIONS, 0))  # relax keeps no action values
        return float(kernels.relax(values, gamma, order, self.rowstart, self.moves, self.steps, self.opens, self.rg,
                                   self.dest, self.prob, self.goals, self.ra, self.between, scratch))
