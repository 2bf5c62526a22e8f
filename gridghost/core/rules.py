"""The game's rules, free of rendering, PettingZoo and Gymnasium.

The rules hold the vocabulary of the game: actions, sides, outcomes, the immutable
:class:`GameState`, the rewards and the board's tables. The half-turn transitions that use them
live in the game kernel, :mod:`gridghost.core.game`, which the AEC env, the single-agent views, the
filters, planners and batched engines all share.

Cells are numbered row-major (``index = row * cols + col``); :class:`Board` precomputes, once per
layout, where each move leads, which moves change the cell, and all shortest-path distances
(built in NumPy; a layout has at most :data:`~gridghost.core.MAX_CELLS` cells).

The argument checks every module shares live in :mod:`gridghost.core.checks`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, fields
from enum import IntEnum
from typing import Any, NamedTuple

import numpy as np

from gridghost.core.checks import check_rate
from gridghost.core.layout import Layout
from gridghost.core.names import ACTION_NAMES, AGENT, GHOST, MAX_CELLS, NUM_ACTIONS, Cell  # noqa: F401 - re-exported
from gridghost.core.recent import RecentCache


class Action(IntEnum):
    """The four moves, shared by both sides."""

    LEFT = 0
    DOWN = 1
    RIGHT = 2
    UP = 3


#: ``(d_row, d_col)`` of each action.
ACTION_DELTAS: tuple[Cell, ...] = ((0, -1), (1, 0), (0, 1), (-1, 0))
#: Neighbour directions in the order observations list them, with the action that goes there.
NEIGHBOUR_ORDER: tuple[tuple[str, int], ...] = (
    ("up", Action.UP),
    ("right", Action.RIGHT),
    ("down", Action.DOWN),
    ("left", Action.LEFT),
)


class Side(IntEnum):
    """Who moves."""

    AGENT = 0
    GHOST = 1


#: Each side's :class:`Side`, by its agent name (``AGENTS[side]`` is the reverse).
SIDE_OF: dict[str, Side] = {AGENT: Side.AGENT, GHOST: Side.GHOST}


class Outcome(IntEnum):
    """How a half-turn ended."""

    ONGOING = 0
    CAUGHT = 1
    GOAL = 2


class _StateFields(NamedTuple):
    agent: int
    ghosts: tuple[int, ...]
    turn: Side = Side.AGENT
    outcome: Outcome = Outcome.ONGOING


class GameState(_StateFields):
    """Everything that changes during an episode, for any number of ghosts.

    A one-ghost state holds a one-cell ``ghosts`` tuple; :attr:`ghost` reads that cell. An int
    given as ``ghosts`` (the one-ghost spelling ``GameState(agent, ghost_cell)`` of earlier
    releases, which old code and pickles use) is taken as that one-cell tuple.

    Attributes:
        agent: the agent's cell index.
        ghosts: each ghost's cell index, in the ghosts' order.
        turn: the side to move next (:attr:`Side.GHOST`: every ghost, together).
        outcome: :attr:`Outcome.ONGOING` until the game ends.

    Raises:
        TypeError: ``ghosts`` is neither an int nor a tuple or list of ints.
    """

    __slots__ = ()

    def __new__(cls, agent: int, ghosts: tuple[int, ...] | int, turn: Side = Side.AGENT,
                outcome: Outcome = Outcome.ONGOING) -> GameState:
        if type(ghosts) is not tuple or not ((len(ghosts) == 1 and type(ghosts[0]) is int)  # the common case, first
                                             or all(type(cell) is int for cell in ghosts)):
            if isinstance(ghosts, (int, np.integer)) and not isinstance(ghosts, bool):
                ghosts = (int(ghosts),)
            elif isinstance(ghosts, (tuple, list)) and all(
                    isinstance(cell, (int, np.integer)) and not isinstance(cell, bool) for cell in ghosts):
                ghosts = tuple(int(cell) for cell in ghosts)
            else:
                raise TypeError(f"ghosts must be a tuple of int cell indices (or one int for one ghost), "
                                f"got {ghosts!r}")
        return tuple.__new__(cls, (agent, ghosts, turn, outcome))

    @property
    def ghost(self) -> int:
        """The ghost's cell in a one-ghost state.

        Raises:
            ValueError: the state holds more than one ghost (read :attr:`ghosts`).
        """
        ghosts = self[1]
        if len(ghosts) != 1:
            raise ValueError(f"state.ghost reads a one-ghost state; this one has {len(ghosts)} ghosts: "
                             f"read state.ghosts")
        return ghosts[0]


@dataclass(frozen=True)
class Rewards:
    """One side's reward for each kind of half-turn.

    The defaults are the agent's rewards in the reference game.

    Attributes:
        step: after an agent move that ends nothing.
        goal: after an agent move that reaches a goal.
        caught: after any move that puts both on one cell.
        wait: after a ghost move that catches nobody.
    """

    step: float = -1.0
    goal: float = 100.0
    caught: float = -50.0
    wait: float = 0.0

    def __post_init__(self) -> None:
        for field in ("step", "goal", "caught", "wait"):
            value = getattr(self, field)
            if not isinstance(value, (int, float, np.integer, np.floating)) or isinstance(value, bool):
                raise TypeError(f"Rewards.{field} must be a number, got {value!r}")
            try:
                number = float(value)
            except OverflowError:
                number = float("inf")
            if not math.isfinite(number):
                raise ValueError(f"Rewards.{field} must be a finite float, got {value!r}")
            object.__setattr__(self, field, number)

    def scaled(self, factor: float) -> Rewards:
        """These rewards multiplied by ``factor``: the same game, the same optimal policies (for a
        positive factor) and every value multiplied by ``factor``.

        >>> Rewards().scaled(0.01) == REWARD_PRESETS["normalised"]
        True

        Raises:
            TypeError: ``factor`` is not a number.
            ValueError: ``factor`` is not finite and positive (a negative one would swap the
                sides' goals, zero would erase the game).
        """
        factor = check_rate(factor, "factor")
        return Rewards(**{field.name: getattr(self, field.name) * factor for field in fields(self)})

    def negated(self) -> Rewards:
        """The zero-sum opponent's rewards."""
        # 0.0 - x, not -x: a zero reward stays 0.0 rather than becoming -0.0.
        return Rewards(step=0.0 - self.step, goal=0.0 - self.goal, caught=0.0 - self.caught, wait=0.0 - self.wait)

    def of(self, mover: Side, outcome: Outcome) -> float:
        """The reward of a half-turn in which ``mover`` moved and ``outcome`` resulted."""
        if outcome == Outcome.CAUGHT:
            return self.caught
        if outcome == Outcome.GOAL:
            return self.goal
        return self.step if mover == Side.AGENT else self.wait


#: The named rewards of the agent (``rewards="normalised"`` in every view and solver function):
#: ``"reference"`` is the original game's (goal +100, caught -50, step -1); ``"normalised"`` is
#: the same divided by 100 (goal +1, caught -0.5, step -0.01), so that returns lie in about
#: [-1.5, 1] and a policy-gradient learner's value loss does not swamp its policy loss. Dividing
#: every reward by one positive number keeps the game and its optimal policies; the solver's values
#: come out divided by the same number.
REWARD_PRESETS: dict[str, Rewards] = {
    "reference": Rewards(),
    "normalised": Rewards(step=-0.01, goal=1.0, caught=-0.5, wait=0.0),
}


def make_rewards(value: Rewards | str | None, argument: str = "rewards") -> Rewards:
    """The agent's rewards from what a view or solver function was given.

    Args:
        value: a :class:`Rewards`, the name of one of :data:`REWARD_PRESETS`, or ``None`` for
            the reference's.
        argument: the argument's name, for the error messages.

    Returns:
        The :class:`Rewards`.

    Raises:
        TypeError: neither a :class:`Rewards`, a name nor ``None``.
        ValueError: a name that is no preset.
    """
    if value is None:
        return REWARD_PRESETS["reference"]
    if isinstance(value, Rewards):
        return value
    if isinstance(value, str):
        if value not in REWARD_PRESETS:
            raise ValueError(f"unknown {argument} preset {value!r}; accepted: {sorted(REWARD_PRESETS)} "
                             "or a gridghost.Rewards")
        return REWARD_PRESETS[value]
    raise TypeError(f"{argument} must be a gridghost.Rewards, one of {sorted(REWARD_PRESETS)} or None, got {value!r}")


#: :func:`board_for` keeps the boards it built until their estimated sizes add up to this
#: many bytes, dropping the least recently used first.
BOARD_CACHE_BYTES = 128 * 2**20
#: The all-pairs search runs over blocks of sources whose working table stays this small, so
#: that its scattered reads and writes hit the processor's cache.
_SEARCH_BLOCK_BYTES = 8 * 2**20
_UNREACHED = np.iinfo(np.int16).max
#: Boards of up to this many cells also keep their distances as tuples of ints, the fastest
#: scalar lookup (the env reads one per half-turn); larger ones index the table's rows.
_TUPLE_CELLS = 256


def _search_block(next_cell: np.ndarray, sources: np.ndarray) -> np.ndarray:
    """Breadth-first distances from each of ``sources`` (a ``len(sources) x cells`` int16
    table, :data:`_UNREACHED` where no path exists), all sources searched at once.

    The frontier is a list of (source, cell) pairs as flat indices into the table; each level
    expands it one action at a time, so a pair found by one action is already marked when the
    next action looks, and no pair enters the next frontier twice.
    """
    cells = len(next_cell)
    table = np.full(len(sources) * cells, _UNREACHED, dtype=np.int16)
    base = np.arange(len(sources), dtype=np.int32) * cells  # the pair's row in the flat table
    cell = sources.astype(np.int32)
    table[base + cell] = 0
    moves = [np.ascontiguousarray(next_cell[:, action], dtype=np.int32) for action in range(NUM_ACTIONS)]
    level = 0
    while cell.size:
        level += 1
        bases, found = [], []
        for move in moves:
            target = move.take(cell)
            flat = base + target
            new = np.flatnonzero(table.take(flat) == _UNREACHED)
            table[flat.take(new)] = level
            bases.append(base.take(new))
            found.append(target.take(new))
        base, cell = np.concatenate(bases), np.concatenate(found)
    return table.reshape(len(sources), cells)


def _all_pairs_distances(next_cell: np.ndarray, cols: int) -> np.ndarray:
    """The ``cells x cells`` shortest-path lengths (int16, -1 where no path exists) of the
    movement table ``next_cell`` (``cells x 4``, row-major cells of a grid ``cols`` wide).

    Every move changes ``row + col`` by one, so the grid is bipartite: only the sources with an
    even ``row + col`` are searched, and the distances from an odd cell ``s`` to any ``t != s``
    are ``1 + min`` over the (even) neighbours of ``s`` of their distances to ``t``.
    """
    cells = len(next_cell)
    index = np.arange(cells)
    odd = (index // cols + index % cols) % 2 == 1
    even_cells, odd_cells = np.flatnonzero(~odd), np.flatnonzero(odd)
    table = np.empty((cells, cells), dtype=np.int16)
    block = max(1, _SEARCH_BLOCK_BYTES // (2 * cells))
    for start in range(0, len(even_cells), block):
        sources = even_cells[start : start + block]
        table[sources] = _search_block(next_cell, sources)
    if len(odd_cells):
        table[odd_cells] = _UNREACHED  # a blocked move stays on the odd cell: no candidate
        nearest = np.full((len(odd_cells), cells), _UNREACHED, dtype=np.int16)
        for action in range(NUM_ACTIONS):
            np.minimum(nearest, table.take(next_cell[odd_cells, action], axis=0), out=nearest)
        nearest += nearest != _UNREACHED
        nearest[np.arange(len(odd_cells)), odd_cells] = 0
        table[odd_cells] = nearest
    table[table == _UNREACHED] = -1
    return table


class _DistanceRows(tuple):  # type: ignore[type-arg]
    """A distance table's rows as read-only memoryviews (indexing one gives a Python int);
    pickles and copies as the table, which memoryviews alone cannot."""

    table: np.ndarray

    def __new__(cls, table: np.ndarray) -> _DistanceRows:
        rows = super().__new__(cls, (memoryview(row) for row in table))
        rows.table = table
        return rows

    def __reduce__(self) -> tuple[Any, ...]:
        return _DistanceRows, (self.table,)


class Board:
    """Movement and distance tables for one layout, computed once and shared.

    Use :func:`board_for` to get the cached board of a layout. Its tables stay small because a
    layout has at most :data:`~gridghost.core.MAX_CELLS` cells.

    Args:
        layout: the map.

    Attributes:
        layout: the layout the tables describe.
        num_cells: ``rows * cols``.
        next_cell: ``next_cell[cell][action]``, the cell a single move leads to (the same cell
            when a wall or the border blocks it); a tuple of tuples for fast scalar lookups.
        action_mask: ``action_mask[cell]``, a read-only ``int8[4]`` array, 1 where the move
            changes the cell.
        distance_table: the read-only ``cells x cells`` int16 array of shortest-path lengths
            through the walls, ``-1`` when no path exists; symmetric.
        distance: ``distance[a][b]``, the same lengths as Python ints, for fast scalar lookups
            (tuples of ints on small boards, read-only memoryviews over the table's rows on
            large ones).
        diameter: the largest distance between two connected cells.
        is_goal: ``is_goal[cell]``, a tuple of bools.

    """

    def __init__(self, layout: Layout) -> None:
        rows, cols = layout.rows, layout.cols  # at most MAX_CELLS cells: Layout refuses more
        self.layout = layout
        self.num_cells = rows * cols

        table = np.empty((self.num_cells, NUM_ACTIONS), dtype=np.int64)
        for r, c in layout.cells():
            for action, (dr, dc) in enumerate(ACTION_DELTAS):
                target = (r + dr, c + dc)
                table[self.index((r, c)), action] = self.index((r, c) if layout.blocked((r, c), target) else target)
        self.next_cell: tuple[tuple[int, ...], ...] = tuple(map(tuple, table.tolist()))

        mask = read_only((table != np.arange(self.num_cells)[:, None]).astype(np.int8))
        self.action_mask: tuple[np.ndarray, ...] = tuple(mask)

        self.distance_table = distance = read_only(_all_pairs_distances(table, cols))
        self.distance: tuple[tuple[int, ...] | memoryview, ...] = (
            tuple(map(tuple, distance.tolist())) if self.num_cells <= _TUPLE_CELLS else _DistanceRows(distance)
        )
        self.diameter = int(distance.max())

        goals = {self.index(g) for g in layout.goals}
        self.is_goal: tuple[bool, ...] = tuple(cell in goals for cell in range(self.num_cells))

    @property
    def nbytes(self) -> int:
        """An estimate of the memory the board holds, in bytes: the distance table (twice on
        small boards, as array and tuples) plus about half a kilobyte per cell for the per-cell
        tuples, arrays and views."""
        pointers = 8 * self.num_cells**2 if self.num_cells <= _TUPLE_CELLS else 0
        return self.distance_table.nbytes + pointers + 512 * self.num_cells

    def index(self, cell: Cell) -> int:
        """The index of a ``(row, col)`` cell."""
        return cell[0] * self.layout.cols + cell[1]

    def position(self, index: int) -> Cell:
        """The ``(row, col)`` of a cell index."""
        return divmod(index, self.layout.cols)

    def initial_state(self) -> GameState:
        """The state after ``reset`` with one ghost: both at their start cells, the agent to move."""
        return GameState(self.index(self.layout.agent_start), (self.index(self.layout.ghost_start),))

    def __reduce__(self) -> tuple[Any, ...]:
        # Memoryviews do not pickle; a board is a function of its layout.
        return board_for, (self.layout,)


#: The cached boards, bounded by :data:`BOARD_CACHE_BYTES` (a map generator visits thousands of layouts).
_boards: RecentCache[Board] = RecentCache(lambda: BOARD_CACHE_BYTES, lambda board: board.nbytes)


def board_for(layout: Layout) -> Board:
    """The :class:`Board` of ``layout``, from a cache bounded by :data:`BOARD_CACHE_BYTES`.

    A board dropped from the cache keeps working for whoever still holds it.
    """
    return _boards.get(layout, lambda: Board(layout))


def read_only(array: np.ndarray) -> np.ndarray:
    """``array`` itself, made read-only: a table shared by every caller, which none may change.

    >>> read_only(np.zeros(2)).flags.writeable
    False
    """
    array.setflags(write=False)
    return array


def cached_board_bytes() -> int:
    """The estimated bytes (:attr:`Board.nbytes`) of the boards :func:`board_for` keeps."""
    return _boards.total


@functools.lru_cache(maxsize=1024)  # custom slip models may have many long move sequences
def describe_moves(intended: int, moves: tuple[int, ...]) -> tuple[bool, str]:
    """The reference's ``slipped`` flag and ``actual_action`` text for one agent move.

    >>> describe_moves(2, (2, 2))
    (True, 'right, right')
    >>> describe_moves(1, ())
    (True, 'stay')
    """
    slipped = moves != (intended,)
    return slipped, ", ".join(ACTION_NAMES[m] for m in moves) or "stay"
