"""Observation encoders: what each side sees, and the space that declares it.

An encoder is built once per layout and answers two questions per side: :meth:`space` (the
Gymnasium space, the same object on every call) and :meth:`observe` (a fresh observation of a
:class:`~gridghost.core.rules.GameState`). Everything that depends only on the cell is precomputed.

``"dict"`` is the reference observation. The agent sees::

    {"current_cell": {"colour": int, "has_item": int8[3], "is_goal": int, "text": str},
     "neighbors": {"up" | "right" | "down" | "left": {"accessible": int, "colour": int}},
     "ghost_relative_pos": int32[2],   # ghost minus agent, (d_row, d_col)
     "ghost_distance": int}            # shortest path through the walls

Every observation is made of fresh objects (Gymnasium's checker insists, and users keep them).

The ghost sees the same without ``text``, with ``agent_relative_pos`` (agent minus ghost) and
``agent_distance``. A neighbour outside the grid reads ``accessible`` 0 and ``colour`` 0; a
neighbour behind a wall reads ``accessible`` 0 and its own colour.

``"vector"`` flattens the same information (without the cell's ``text`` label, which only names
cells that ``is_goal`` and the start already tell apart) into a ``float32`` vector for learning
libraries. It is egocentric, "self" and "opponent", so the agent's and the ghost's spaces are
the same object. Its 26 slots, named in :data:`VECTOR_SLOTS`:

====== ===================================================================================
slots  meaning
====== ===================================================================================
0-2    own cell colour, one-hot (white, red, green)
3-5    own cell ``has_item`` (dog, flower, notes), 0 or 1
6      own cell is a goal, 0 or 1
7-10   neighbour ``accessible`` (up, right, down, left), 0 or 1
11-22  neighbour colour one-hot, three slots per neighbour in the order up, right, down, left
       (a neighbour outside the grid reads white, as in the dict observation)
23-24  opponent minus self ``(d_row, d_col)``, divided by ``(rows - 1, cols - 1)``: in [-1, 1]
25     shortest-path distance to the opponent divided by the layout's largest distance between
       two connected cells: in [0, 1]
====== ===================================================================================

``"belief"`` is the ``"dict"`` observation with the agent's belief added: ``"belief"``, a fresh
``float32`` ``rows x cols`` map of the probability of each cell from the env's belief filter
(see :mod:`gridghost.sensing.filters`), declared as a ``Box(0, 1)``. The ghost's observation stays its
dict. Being the dict encoding with one more entry, it keeps the reference's ``Text`` label and
the two sides' spaces differ, as with ``"dict"``.

``"belief_vector"`` is the ``"vector"`` observation followed by a belief map flattened row by
row (``rows * cols`` more slots, each in [0, 1]), the same ``Box`` for both sides. The agent's
part is its belief filter's map (the env's filter; ``"histogram"`` when none is given). The
ghost never slips and starts from a known cell, so its exact belief about its own position is
certain: its part is the one-hot of its own cell.

``"grid"`` is a stack of one-hot planes, a ``float32`` ``Box(0, 1)`` of shape ``C x rows x cols``
(``float32`` so that learning libraries take it as features, not as an image). The channels, in
the order of :data:`GRID_CHANNELS`:

======= ===================================================================================
channel meaning
======= ===================================================================================
0-3     a wall (or the border) on the cell's up, right, down, left side: a move that way stays
4-6     the cell's colour, one-hot (white, red, green)
7-9     the cell's ``has_item`` flags (dog, flower, notes)
10      the cell is a goal
11      the observer's cell
12      the opponent's cell
13      all ones when the observer is to move (all zeros once the game has ended)
14      all ones when the observer is the ghost (one shared policy must know its side)
======= ===================================================================================

With ``view_radius=k`` the grid is egocentric: a ``C' x (2k+1) x (2k+1)`` window centred on
the observer, with one more channel, ``out_of_map`` (15), that is 1 outside the map; outside
the map every other channel is 0. The opponent appears only when it is inside the window.
:func:`grid_channels` names the channels of every variant.

``"text"`` is a short plain-English description for language-model agents, a top-level
``gymnasium.spaces.Text`` (:data:`TEXT_CHARSET`; its ``max_length`` bounds every observation
of any layout of that size), the same space for both sides. For example, the agent at the
classic start::

    You are the agent. Your cell is white, with no items, not a goal. Open: right, down,
    left. The ghost is 3 down and 2 right, 5 steps away. Your move.

Options (the env's keyword arguments of the same names):

- ``append_step_count=True`` adds the cycles played divided by ``max_cycles`` (in [0, 1];
  a ``max_cycles`` is required): one more ``float32`` slot at the end of ``"vector"`` and
  ``"belief_vector"``; one more constant plane ``step_count`` at the end of ``"grid"`` (0
  outside the map in an egocentric window); a ``"step_count"`` entry (``Box(0, 1, (1,))``) in
  ``"dict"`` and ``"belief"``; a closing sentence ``Cycle 3 of 100.`` in ``"text"``.
- ``action_mask_in_obs=True`` wraps the encoding as ``{"observation": ..., "action_mask":
  int8[4]}`` (PettingZoo's classic form), the mask being the observer's
  :attr:`~gridghost.core.rules.Board.action_mask` of its cell, as in ``info["action_mask"]``. Not
  with ``"text"``: it would put a ``Text`` inside a ``Dict``, which learning libraries refuse
  (the text already says which ways are open).
- ``view_radius=k`` (``"grid"`` only), above.
- ``grid_layout="hwc"`` (``"grid"`` only) puts the channels last: ``rows x cols x C`` (or
  ``(2k+1) x (2k+1) x C'``), the layout RLlib's default CNN encoder and TensorFlow/JAX
  convolutions read; ``"chw"``, channels first, is the default (PyTorch convolutions).

The spaces of ``"vector"``, ``"belief_vector"``, ``"grid"`` and ``"text"`` depend only on the
layout's size and the options, so an env may keep its first space when the map changes.

>>> from gridghost.core.layout import CLASSIC
>>> from gridghost.core.rules import board_for
>>> vectors = VectorObservations(board_for(CLASSIC))
>>> state = GameState(agent=2, ghost=19)   # agent at (0, 2), ghost at (3, 4)
>>> vector = vectors.observe(Side.AGENT, state)
>>> vector[23:25].tolist(), bool(vector[25] == np.float32(5 / 13))   # largest distance: 13
([1.0, 0.5], True)
>>> vectors.space(Side.AGENT) is vectors.space(Side.GHOST)
True
"""

from __future__ import annotations

import functools
import itertools
import string
from collections.abc import Callable
from typing import Any, cast

import numpy as np
from gymnasium import spaces

from gridghost.core.checks import check_choice, check_flag, check_limit
from gridghost.core.layout import COLOURS, ITEM_FLAGS, MAX_CELLS
from gridghost.core.rules import ACTION_DELTAS, NEIGHBOUR_ORDER, NUM_ACTIONS, Board, GameState, Outcome, Side

OBS_TYPES: tuple[str, ...] = ("dict", "vector", "belief", "grid", "belief_vector", "text")
#: The channels of a whole-map ``"grid"`` observation, in order (see the module docstring).
GRID_CHANNELS: tuple[str, ...] = (
    *(f"wall_{name}" for name, _ in NEIGHBOUR_ORDER),
    *(f"colour_{name}" for name in COLOURS),
    *(f"has_{flag}" for flag in ITEM_FLAGS),
    "goal",
    "self",
    "opponent",
    "to_move",
    "is_ghost",
)
#: The channel an egocentric grid (``view_radius=k``) adds after :data:`GRID_CHANNELS`.
OUT_OF_MAP_CHANNEL = "out_of_map"
#: The planes of a grid that decide where a move leads and what it meets: the walls, the goals,
#: the opponent and the window's border. The colour and item planes are the sensors' cues (a grid
#: shows the true positions, so they tell a policy nothing about the game, and a network that
#: reads them can tell training levels apart and memorise them); ``self`` is the centre of an
#: egocentric window, and ``to_move`` and ``is_ghost`` are constant for one learning side.
MOVE_PLANES: tuple[str, ...] = ("wall_up", "wall_right", "wall_down", "wall_left", "goal", "opponent", "out_of_map")
#: The channel ``append_step_count=True`` adds at the end of a grid.
STEP_COUNT_CHANNEL = "step_count"
#: The orders of a ``"grid"`` observation's axes: channels first (the default) or last.
GRID_LAYOUTS: tuple[str, ...] = ("chw", "hwc")
#: The action a side that waits may send in the parallel view: its action mask allows exactly
#: this one, and whatever the side sends is not carried out.
NO_OP_ACTION = 0
#: The action mask of a side that waits in the parallel view: only :data:`NO_OP_ACTION` (a mask
#: is never all zeros, which masked samplers would divide by).
WAITING_MASK = np.zeros(NUM_ACTIONS, dtype=np.int8)
WAITING_MASK[NO_OP_ACTION] = 1
WAITING_MASK.setflags(write=False)
#: The largest ``view_radius``: its window holds at most :data:`~gridghost.core.MAX_CELLS` cells.
MAX_VIEW_RADIUS = (int(MAX_CELLS**0.5) - 1) // 2
#: The characters a ``"text"`` observation may hold.
TEXT_CHARSET: frozenset[str] = frozenset(string.ascii_letters + string.digits + " .,:")
#: What each slot of a ``"vector"`` observation holds.
VECTOR_SLOTS: tuple[str, ...] = (
    *(f"colour_{name}" for name in COLOURS),
    *(f"has_{flag}" for flag in ITEM_FLAGS),
    "is_goal",
    *(f"{name}_accessible" for name, _ in NEIGHBOUR_ORDER),
    *(f"{name}_colour_{colour}" for name, _ in NEIGHBOUR_ORDER for colour in COLOURS),
    "opponent_d_row",
    "opponent_d_col",
    "opponent_distance",
)


_ONGOING = Outcome.ONGOING


def grid_channels(view_radius: int | None = None, append_step_count: bool = False) -> tuple[str, ...]:
    """The channel names of a ``"grid"`` observation with these options, in order.

    >>> grid_channels(2, True)[-2:]
    ('out_of_map', 'step_count')
    """
    return (
        *GRID_CHANNELS,
        *((OUT_OF_MAP_CHANNEL,) if view_radius is not None else ()),
        *((STEP_COUNT_CHANNEL,) if append_step_count else ()),
    )


def _read_only(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def _moved_last(array: np.ndarray) -> np.ndarray:
    """A read-only copy of ``array`` with its first (channel) axis moved last."""
    return _read_only(np.ascontiguousarray(np.moveaxis(array, 0, -1)))


def _me_other(side: Side, state: GameState) -> tuple[int, int]:
    """The observer's cell and the opponent's."""
    return (state.agent, state.ghost) if side == Side.AGENT else (state.ghost, state.agent)


class StepCount:
    """The step count an encoding appends: cycles played, and that over ``max_cycles``.

    Args:
        cycles: returns the cycles played in the current episode.
        max_cycles: the episode's limit in cycles (an int >= 1).

    Raises:
        TypeError, ValueError: ``max_cycles`` is not an int >= 1.
    """

    def __init__(self, cycles: Callable[[], int], max_cycles: int) -> None:
        if not callable(cycles):
            raise TypeError(f"cycles must be a callable returning the cycles played, got {cycles!r}")
        self._cycles = cycles
        self.max_cycles = check_limit(max_cycles, "max_cycles", allow_none=False)

    def __call__(self) -> float:
        """The cycles played over ``max_cycles``, in [0, 1]."""
        return self._cycles() / self.max_cycles

    def sentence(self) -> str:
        """The step count as the ``"text"`` encoding says it: ``" Cycle 3 of 100."``."""
        return self.sentence_of(self._cycles())

    def sentence_of(self, cycles: int) -> str:
        """The sentence for ``cycles`` cycles played."""
        return f" Cycle {cycles} of {self.max_cycles}."


class Observations:
    """What every encoder offers: each side's space and observations.

    Subclasses fill ``_spaces`` and ``_observers`` (one entry per :class:`~gridghost.core.rules.Side`).
    """

    _spaces: dict[Side, spaces.Space[Any]]
    _observers: dict[Side, Callable[[GameState], Any]]

    def space(self, side: Side) -> spaces.Space[Any]:
        """The observation space of ``side`` (the same object on every call; for every encoding
        but ``"dict"`` and ``"belief"`` the same object for both sides)."""
        return self._spaces[side]

    def observe(self, side: Side, state: GameState) -> Any:
        """A fresh observation of ``state`` from ``side``'s point of view."""
        return self._observers[side](state)

    def observer(self, side: Side) -> Callable[[GameState], Any]:
        """The function behind :meth:`observe` for one side, for callers on a hot path."""
        return self._observers[side]


class DictObservations(Observations):
    """The reference dict observations of the agent and the ghost on one board.

    Args:
        board: the precomputed board of the layout.
        step_count: adds ``"step_count"``, a ``float32[1]`` in [0, 1], when given.
    """

    def __init__(self, board: Board, step_count: StepCount | None = None) -> None:
        layout = board.layout
        rows, cols, n = layout.rows, layout.cols, board.num_cells
        colours = layout.colours

        self._has_item = tuple(
            _read_only(np.array(layout.has_item(*board.position(i)), dtype=np.int8)) for i in range(n)
        )
        self._colour = tuple(int(c) for c in colours.ravel())
        self._is_goal = tuple(int(g) for g in board.is_goal)
        self._text = tuple(layout.text_at(*board.position(i)) for i in range(n))

        neighbours = []
        for i in range(n):
            r, c = board.position(i)
            entries = []
            for _, action in NEIGHBOUR_ORDER:
                dr, dc = ACTION_DELTAS[action]
                inside = 0 <= r + dr < rows and 0 <= c + dc < cols
                colour = int(colours[r + dr, c + dc]) if inside else 0
                entries.append((int(board.next_cell[i][action] != i), colour))
            neighbours.append(tuple(entries))
        self._neighbours = tuple(neighbours)

        # One array per (d_row, d_col) offset rather than per pair of cells, so that large layouts
        # need no cells x cells table: _offset[_key[other] - _key[me] + _centre] is other - me.
        width = 2 * cols - 1
        self._key = tuple(r * width + c for r, c in map(board.position, range(n)))
        self._centre = (rows - 1) * width + cols - 1
        offsets = np.array([(dr, dc) for dr in range(1 - rows, rows) for dc in range(1 - cols, cols)], dtype=np.int32)
        self._offsets = offsets
        self._offset = tuple(_read_only(offset) for offset in offsets)
        self._distance = board.distance

        text_chars = set("".join(layout.texts.values()))
        neighbour_space = spaces.Dict(
            {
                name: spaces.Dict({"accessible": spaces.Discrete(2), "colour": spaces.Discrete(len(COLOURS))})
                for name, _ in NEIGHBOUR_ORDER
            }
        )
        bound = np.array([rows - 1, cols - 1], dtype=np.int32)

        def side_space(with_text: bool, opponent: str) -> spaces.Dict:
            cell: dict[str, spaces.Space[Any]] = {
                "colour": spaces.Discrete(len(COLOURS)),
                "has_item": spaces.MultiBinary(len(ITEM_FLAGS)),
                "is_goal": spaces.Discrete(2),
            }
            if with_text:
                cell["text"] = spaces.Text(
                    max_length=max([len(t) for t in layout.texts.values()] + [1]),
                    min_length=0,
                    charset=frozenset(string.ascii_letters + string.digits) | text_chars,
                )
            entries: dict[str, spaces.Space[Any]] = {
                "current_cell": spaces.Dict(cell),
                "neighbors": neighbour_space,
                f"{opponent}_relative_pos": spaces.Box(-bound, bound, dtype=np.int32),
                f"{opponent}_distance": spaces.Discrete(n),
            }
            if step_count is not None:
                entries["step_count"] = spaces.Box(0.0, 1.0, shape=(1,), dtype=np.float32)
            return spaces.Dict(entries)

        self._step_count = step_count
        self._spaces = {Side.AGENT: side_space(True, "ghost"), Side.GHOST: side_space(False, "agent")}
        self._observers = {Side.AGENT: self._agent_view, Side.GHOST: self._ghost_view}

    def _agent_view(self, state: GameState) -> dict[str, Any]:
        return self._view(state.agent, state.ghost, True, "ghost_relative_pos", "ghost_distance")

    def _ghost_view(self, state: GameState) -> dict[str, Any]:
        return self._view(state.ghost, state.agent, False, "agent_relative_pos", "agent_distance")

    def _view(self, me: int, other: int, with_text: bool, relative_key: str, distance_key: str) -> dict[str, Any]:
        cell = {"colour": self._colour[me], "has_item": self._has_item[me].copy(), "is_goal": self._is_goal[me]}
        if with_text:
            cell["text"] = self._text[me]
        (ua, uc), (ra, rc), (da, dc), (la, lc) = self._neighbours[me]
        observation = {
            "current_cell": cell,
            "neighbors": {
                "up": {"accessible": ua, "colour": uc},
                "right": {"accessible": ra, "colour": rc},
                "down": {"accessible": da, "colour": dc},
                "left": {"accessible": la, "colour": lc},
            },
            relative_key: self._offset[self._key[other] - self._key[me] + self._centre].copy(),
            distance_key: self._distance[me][other],
        }
        if self._step_count is not None:
            observation["step_count"] = np.array([self._step_count()], dtype=np.float32)
        return observation


#: How many (observer cell, other cell) vectors a vector encoder keeps once built (``_vector``):
#: every pair of a map of up to 128 cells, about 4 MB at most.
_CACHED_PAIRS = 128 * 128


class VectorObservations(Observations):
    """The ``"vector"`` encoding: one flat ``float32`` vector per side, laid out as in
    :data:`VECTOR_SLOTS`, built from the dict observation's tables; with ``belief``, the
    ``"belief_vector"`` encoding.

    Args:
        board: the precomputed board of the layout.
        belief: when given, appends a flattened ``rows x cols`` belief map: for the agent what
            this returns (its belief filter's map), for the ghost the one-hot of its own cell.
        step_count: appends the normalised step count as one more slot, when given.
    """

    def __init__(
        self, board: Board, belief: Callable[[], np.ndarray] | None = None, step_count: StepCount | None = None
    ) -> None:
        layout = board.layout
        dicts = DictObservations(board)
        colours = len(COLOURS)
        one_hot = np.eye(colours, dtype=np.float32)
        cells = []
        for cell in range(board.num_cells):
            neighbours = dicts._neighbours[cell]
            cells.append(
                np.concatenate(
                    (
                        one_hot[dicts._colour[cell]],
                        dicts._has_item[cell],
                        [dicts._is_goal[cell]],
                        [accessible for accessible, _ in neighbours],
                        *(one_hot[colour] for _, colour in neighbours),
                    )
                ).astype(np.float32)
            )
        self._cells = tuple(cells)
        self._cell_slots = len(cells[0]) if cells else 0
        self._key, self._centre, self._distance = dicts._key, dicts._centre, board.distance
        # The pair slots looked up per observation, by offset (as the dict encoder finds it) and
        # by distance + 1 (-1 is no path), instead of a cells x cells table. The arithmetic
        # (offsets divided in float64, distances in float32) fixes the values.
        scale = np.array([max(layout.rows - 1, 1), max(layout.cols - 1, 1)], dtype=np.float32)
        self._offset_slots = tuple(_read_only(slots) for slots in (dicts._offsets / scale).astype(np.float32))
        distances = np.arange(-1, board.diameter + 1, dtype=np.float32) / float(max(board.diameter, 1))
        self._distance_slots = tuple(_read_only(slot) for slot in distances[:, None])

        self._num_cells = board.num_cells
        self._pairs: dict[int, np.ndarray] = {}  # _vector's, by me * cells + other
        self._belief, self._step_count = belief, step_count
        self._own_cell = tuple(_read_only(row) for row in np.eye(board.num_cells, dtype=np.float32))
        size = len(VECTOR_SLOTS) + (board.num_cells if belief is not None else 0) + (step_count is not None)
        low = np.zeros(size, dtype=np.float32)
        low[self._cell_slots : self._cell_slots + 2] = -1.0
        self._space = spaces.Box(low, np.ones_like(low), dtype=np.float32)
        self._spaces = dict.fromkeys(Side, self._space)
        if belief is None and step_count is None:
            self._observers = {Side.AGENT: self._agent_vector, Side.GHOST: self._ghost_vector}
        else:
            self._observers = {side: functools.partial(self._extended_vector, side) for side in Side}

    def _agent_vector(self, state: GameState) -> np.ndarray:
        return self._vector(state.agent, state.ghost)

    def _ghost_vector(self, state: GameState) -> np.ndarray:
        return self._vector(state.ghost, state.agent)

    def _vector(self, me: int, other: int) -> np.ndarray:
        # A pair's vector is built on first use and copied after: a copy costs a fraction of the
        # concatenation. Past _CACHED_PAIRS kept pairs (larger maps), the others are built each time.
        pair = me * self._num_cells + other
        known = self._pairs.get(pair)
        if known is not None:
            return known.copy()
        vector = np.concatenate(
            (
                self._cells[me],
                self._offset_slots[self._key[other] - self._key[me] + self._centre],
                self._distance_slots[self._distance[me][other] + 1],
            )
        )
        if len(self._pairs) < _CACHED_PAIRS:
            self._pairs[pair] = vector.copy()
        return vector

    def _extended_vector(self, side: Side, state: GameState) -> np.ndarray:
        me, other = _me_other(side, state)
        parts = [
            self._cells[me],
            self._offset_slots[self._key[other] - self._key[me] + self._centre],
            self._distance_slots[self._distance[me][other] + 1],
        ]
        if self._belief is not None:
            parts.append(
                np.asarray(self._belief(), dtype=np.float32).reshape(-1) if side == Side.AGENT else self._own_cell[me]
            )
        if self._step_count is not None:
            parts.append(np.array([self._step_count()], dtype=np.float32))
        return np.concatenate(parts)


class BeliefObservations(DictObservations):
    """The dict observations, with the agent's belief map added under ``"belief"``.

    Args:
        board: the precomputed board of the layout.
        belief: returns the current belief, a ``rows x cols`` array of probabilities.
        step_count: adds ``"step_count"`` as :class:`DictObservations` does, when given.
    """

    def __init__(
        self, board: Board, belief: Callable[[], np.ndarray], step_count: StepCount | None = None
    ) -> None:
        super().__init__(board, step_count)
        self._belief = belief
        shape = board.layout.shape
        agent_space = self._spaces[Side.AGENT]
        assert isinstance(agent_space, spaces.Dict)  # the dict encoding's
        self._spaces[Side.AGENT] = spaces.Dict(
            {**agent_space.spaces, "belief": spaces.Box(0.0, 1.0, shape=shape, dtype=np.float32)}
        )
        self._observers[Side.AGENT] = self._agent_belief_view

    def _agent_belief_view(self, state: GameState) -> dict[str, Any]:
        observation = self._agent_view(state)
        observation["belief"] = np.asarray(self._belief(), dtype=np.float32)
        return observation


class GridObservations(Observations):
    """The ``"grid"`` encoding: one-hot planes over the whole map, or over a window centred on
    the observer (see the module docstring and :func:`grid_channels`).

    Everything but the two positions is precomputed per side and per "to move" flag, so an
    observation is one array copy (of a window of the padded map, when egocentric) and two
    assignments.

    Args:
        board: the precomputed board of the layout.
        view_radius: ``None`` for the whole map, or ``k`` in 1..:data:`MAX_VIEW_RADIUS` for a
            ``(2k+1) x (2k+1)`` window centred on the observer.
        step_count: adds the constant plane ``step_count``, when given.
        channels_last: ``rows x cols x C`` instead of ``C x rows x cols``.

    Raises:
        TypeError, ValueError: ``view_radius`` is not ``None`` nor an int in 1..:data:`MAX_VIEW_RADIUS`.
    """

    def __init__(self, board: Board, view_radius: int | None = None, step_count: StepCount | None = None,
                 channels_last: bool = False) -> None:
        layout = board.layout
        rows, cols, n = layout.rows, layout.cols, board.num_cells
        radius = check_limit(view_radius, "view_radius", maximum=MAX_VIEW_RADIUS, none_means="the whole map")
        channels = grid_channels(radius, step_count is not None)
        index = {name: channel for channel, name in enumerate(channels)}
        self._self_channel, self._opponent_channel = index["self"], index["opponent"]
        self._step_channel = index.get(STEP_COUNT_CHANNEL)
        self._out_channel = index.get(OUT_OF_MAP_CHANNEL)
        self._radius, self._step_count = radius, step_count

        planes = np.zeros((len(channels), rows, cols), dtype=np.float32)
        staying = np.array(board.next_cell) == np.arange(n)[:, None]
        for name, action in NEIGHBOUR_ORDER:
            planes[index[f"wall_{name}"]] = staying[:, action].reshape(rows, cols)
        for colour, name in enumerate(COLOURS):
            planes[index[f"colour_{name}"]] = layout.colours == colour
        items = np.array([layout.has_item(*board.position(cell)) for cell in range(n)]).reshape(rows, cols, -1)
        for flag, name in enumerate(ITEM_FLAGS):
            planes[index[f"has_{name}"]] = items[:, :, flag]
        planes[index["goal"]] = np.array(board.is_goal).reshape(rows, cols)
        if radius is not None:  # pad with the out-of-map channel, so that every window is a slice
            padded = np.zeros((len(channels), rows + 2 * radius, cols + 2 * radius), dtype=np.float32)
            padded[index[OUT_OF_MAP_CHANNEL]] = 1.0
            planes[index[OUT_OF_MAP_CHANNEL]] = 0.0
            padded[:, radius : radius + rows, radius : radius + cols] = planes
            planes = padded
        inside = planes[index[OUT_OF_MAP_CHANNEL]] == 0 if radius is not None else np.ones(planes.shape[1:], bool)

        def variant(side: Side, to_move: bool) -> np.ndarray:
            array = planes.copy()
            array[index["to_move"]] = inside & to_move
            array[index["is_ghost"]] = inside & (side == Side.GHOST)
            return _read_only(array)

        # _planes[side][to_move]: the static planes of that side when it is (not) to move
        self._planes = {side: (variant(side, False), variant(side, True)) for side in Side}
        positions = [board.position(cell) for cell in range(n)]
        if radius is None:
            self._window: tuple[Any, ...] = (slice(None),) * n
            self._self_at = tuple((self._self_channel, r, c) for r, c in positions)
            shape: tuple[int, ...] = (len(channels), rows, cols)
        else:
            width = 2 * radius + 1
            self._window = tuple((slice(None), slice(r, r + width), slice(c, c + width)) for r, c in positions)
            self._self_at = ((self._self_channel, radius, radius),) * n
            shape = (len(channels), width, width)
            # the opponent's index in the window by offset, as DictObservations finds offsets
            dicts = DictObservations(board)
            self._key, self._centre = dicts._key, dicts._centre
            self._opponent_by_offset = tuple(
                (self._opponent_channel, radius + dr, radius + dc) if abs(dr) <= radius and abs(dc) <= radius else None
                for dr, dc in dicts._offsets.tolist()
            )
        self._opponent_at = tuple((self._opponent_channel, r, c) for r, c in positions)
        self._step_at: Any = self._step_channel
        self._out_at: Any = self._out_channel
        if channels_last:  # the same arrays and indices with the channel axis moved last
            self._planes = {side: (_moved_last(pair[0]), _moved_last(pair[1])) for side, pair in self._planes.items()}
            if radius is not None:
                self._window = tuple(window[1:] for window in cast(tuple[tuple[slice, ...], ...], self._window))
            self._self_at = tuple((r, c, channel) for channel, r, c in self._self_at)
            self._opponent_at = tuple((r, c, channel) for channel, r, c in self._opponent_at)
            if radius is not None:
                self._opponent_by_offset = tuple(
                    None if at is None else (at[1], at[2], at[0]) for at in self._opponent_by_offset)
            self._step_at, self._out_at = (..., self._step_channel), (..., self._out_channel)
            shape = (*shape[1:], shape[0])
        self._space = spaces.Box(0.0, 1.0, shape=shape, dtype=np.float32)
        self._spaces = dict.fromkeys(Side, self._space)
        self._observers = {side: functools.partial(self._grid, side) for side in Side}

    def _grid(self, side: Side, state: GameState) -> np.ndarray:
        me, other = _me_other(side, state)
        observation = self._planes[side][state.turn == side and state.outcome == _ONGOING][self._window[me]].copy()
        observation[self._self_at[me]] = 1.0
        if self._radius is None:
            observation[self._opponent_at[other]] = 1.0
        else:
            opponent = self._opponent_by_offset[self._key[other] - self._key[me] + self._centre]
            if opponent is not None:
                observation[opponent] = 1.0
        if self._step_count is not None:
            fraction = self._step_count()
            if self._out_channel is None:
                observation[self._step_at] = fraction
            else:  # 0 outside the map, like every channel but out_of_map
                np.multiply(1.0 - observation[self._out_at], fraction, out=observation[self._step_at])
        return observation


def _items_phrase(flags: tuple[int, ...]) -> str:
    names = [name for name, flag in zip(ITEM_FLAGS, flags, strict=True) if flag]
    if not names:
        return "with no items"
    return "with " + (names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1])


def _cell_sentences(colour: int, flags: tuple[int, ...], goal: bool, open_ways: list[str]) -> str:
    """What the ``"text"`` encoding says about the observer's own cell."""
    ways = ", ".join(open_ways) if open_ways else "none"
    goal_phrase = "a goal" if goal else "not a goal"
    return f"Your cell is {COLOURS[colour]}, {_items_phrase(flags)}, {goal_phrase}. Open: {ways}."


def _offset_phrase(d_row: int, d_col: int) -> str:
    """Where the opponent is, relative to the observer: ``"3 down and 2 right"``."""
    parts = [
        f"{abs(d)} {word}"
        for d, word in ((d_row, "down" if d_row > 0 else "up"), (d_col, "right" if d_col > 0 else "left"))
        if d
    ]
    return " and ".join(parts) or "on your cell"


def _distance_phrase(distance: int) -> str:
    if distance < 0:
        return "with no path between you"
    return f"{distance} step{'' if distance == 1 else 's'} away"


_TURN_PHRASES = (" The game is over.", " Your move.", " The {opponent} moves next.")
_ROLE_PHRASES = {Side.AGENT: ("agent", "ghost"), Side.GHOST: ("ghost", "agent")}


class TextObservations(Observations):
    """The ``"text"`` encoding: a short English description of what the observer sees, for
    language-model agents, in a :class:`gymnasium.spaces.Text` over :data:`TEXT_CHARSET` whose
    ``max_length`` depends only on the layout's size (and the step limit, with a step count).

    Args:
        board: the precomputed board of the layout.
        step_count: closes the text with ``Cycle c of max_cycles.``, when given.
    """

    def __init__(self, board: Board, step_count: StepCount | None = None) -> None:
        layout = board.layout
        rows, cols, n = layout.rows, layout.cols, board.num_cells
        self._cells = tuple(
            _cell_sentences(
                int(layout.colours[board.position(cell)]),
                layout.has_item(*board.position(cell)),
                board.is_goal[cell],
                [name for name, action in NEIGHBOUR_ORDER if board.action_mask[cell][action]],
            )
            for cell in range(n)
        )
        dicts = DictObservations(board)
        self._key, self._centre, self._distance = dicts._key, dicts._centre, board.distance
        self._offsets = tuple(_offset_phrase(dr, dc) for dr, dc in dicts._offsets.tolist())
        self._distances = tuple(_distance_phrase(d) for d in range(-1, board.diameter + 1))
        self._step_count = step_count
        # (opening, "to move" phrase, "not to move" phrase) per side
        self._phrases = {
            side: (f"You are the {me}. ", _TURN_PHRASES[1], _TURN_PHRASES[2].format(opponent=other))
            for side, (me, other) in _ROLE_PHRASES.items()
        }
        self._space = spaces.Text(max_length=self._max_length(rows, cols, step_count), min_length=1,
                                  charset=TEXT_CHARSET)
        self._spaces = dict.fromkeys(Side, self._space)
        self._observers = {side: functools.partial(self._text, side) for side in Side}

    @staticmethod
    def _max_length(rows: int, cols: int, step_count: StepCount | None) -> int:
        """The longest text any state of any ``rows x cols`` layout can give: the longest of
        each part, whatever the map."""
        directions = [name for name, _ in NEIGHBOUR_ORDER]
        cell = max(
            len(_cell_sentences(colour, flags, goal, list(itertools.compress(directions, ways))))
            for colour in range(len(COLOURS))
            for flags in itertools.product((0, 1), repeat=len(ITEM_FLAGS))
            for goal in (False, True)
            for ways in itertools.product((False, True), repeat=NUM_ACTIONS)
        )
        offset = max(len(_offset_phrase(dr, dc)) for dr in (0, 1 - rows) for dc in (0, 1 - cols))
        distance = max(len(_distance_phrase(d)) for d in (-1, rows * cols - 1))
        opening = max(len(f"You are the {me}. ") for me, _ in _ROLE_PHRASES.values())
        turn = max(len(_TURN_PHRASES[2].format(opponent=other)) for _, other in _ROLE_PHRASES.values())
        steps = 0 if step_count is None else len(step_count.sentence_of(step_count.max_cycles))
        return opening + cell + len(" The ghost is , .") + offset + distance + turn + steps

    def _text(self, side: Side, state: GameState) -> str:
        me, other = _me_other(side, state)
        opening, to_move, waiting = self._phrases[side]
        turn = _TURN_PHRASES[0] if state.outcome != _ONGOING else to_move if state.turn == side else waiting
        text = (
            f"{opening}{self._cells[me]} The {_ROLE_PHRASES[side][1]} is "
            f"{self._offsets[self._key[other] - self._key[me] + self._centre]}, "
            f"{self._distances[self._distance[me][other] + 1]}.{turn}"
        )
        return text if self._step_count is None else text + self._step_count.sentence()


class MaskedObservations(Observations):
    """Another encoder's observations wrapped as PettingZoo's classic ``{"observation": ...,
    "action_mask": int8[4]}``, the mask being :attr:`~gridghost.core.rules.Board.action_mask` of the
    observer's cell (what ``info["action_mask"]`` holds). Sides that share the inner space share
    the wrapped one.

    Args:
        inner: the encoder to wrap.
        board: the board of the layout.
        waiting_masked: :data:`WAITING_MASK` for a side that is not to move (only the no-op is
            legal, and nothing it sends is carried out), for views where both sides observe at
            every half-turn.
    """

    def __init__(self, inner: Observations, board: Board, waiting_masked: bool = False) -> None:
        mask_space = spaces.Box(0, 1, shape=(NUM_ACTIONS,), dtype=np.int8)
        self._waiting_masked = waiting_masked
        wrapped: dict[int, spaces.Dict] = {}
        for side in Side:
            space = inner.space(side)
            if id(space) not in wrapped:
                wrapped[id(space)] = spaces.Dict({"observation": space, "action_mask": mask_space})
        self._spaces = {side: wrapped[id(inner.space(side))] for side in Side}
        self._inner = {side: inner.observer(side) for side in Side}
        self._masks = board.action_mask
        self._observers = {side: functools.partial(self._masked, side) for side in Side}

    def _masked(self, side: Side, state: GameState) -> dict[str, Any]:
        if self._waiting_masked and (state.turn != side or state.outcome != _ONGOING):
            mask = WAITING_MASK.copy()  # nothing this side sends now is carried out
        else:
            mask = self._masks[state.agent if side == Side.AGENT else state.ghost].copy()
        return {"observation": self._inner[side](state), "action_mask": mask}


class TurnObservations(Observations):
    """An encoding that says whether the observer moves next, for views where both sides observe
    at every half-turn (:mod:`gridghost.envs.parallel`).

    ``"grid"`` (channel ``to_move``) and ``"text"`` (its closing phrase) say it already and pass
    through unchanged. ``"vector"`` and ``"belief_vector"`` get one more ``float32`` slot at the
    end, ``"dict"`` and ``"belief"`` a ``"to_move"`` entry (``Discrete(2)``): 1 when the observer
    moves next, 0 while it waits and once the game has ended.

    Args:
        inner: the encoder to extend.
        obs_type: the name of ``inner``'s encoding, one of :data:`OBS_TYPES`.
    """

    def __init__(self, inner: Observations, obs_type: str) -> None:
        self._kind = "same" if obs_type in ("grid", "text") else "box" if "vector" in obs_type else "dict"
        self._inner = {side: inner.observer(side) for side in Side}
        extended: dict[int, spaces.Space[Any]] = {}
        for side in Side:
            space = inner.space(side)
            if id(space) not in extended:
                extended[id(space)] = self._extend(space)
        self._spaces = {side: extended[id(inner.space(side))] for side in Side}
        flagged: dict[Side, Callable[[GameState], Any]] = {
            side: functools.partial(self._flagged, side) for side in Side}
        self._observers = dict(self._inner) if self._kind == "same" else flagged

    def _extend(self, space: spaces.Space[Any]) -> spaces.Space[Any]:
        if self._kind == "same":
            return space
        if self._kind == "box":
            assert isinstance(space, spaces.Box)
            return spaces.Box(np.append(space.low, np.float32(0)), np.append(space.high, np.float32(1)),
                              dtype=np.float32)
        assert isinstance(space, spaces.Dict)
        return spaces.Dict({**space.spaces, "to_move": spaces.Discrete(2)})

    def _flagged(self, side: Side, state: GameState) -> Any:
        observation = self._inner[side](state)
        to_move = state.turn == side and state.outcome == _ONGOING
        if self._kind == "box":
            return np.append(observation, np.float32(to_move))
        observation["to_move"] = int(to_move)
        return observation


def check_observation_options(
    obs_type: Any,
    view_radius: Any = None,
    action_mask_in_obs: Any = False,
    append_step_count: Any = False,
    max_cycles: Any = None,
    grid_layout: Any = "chw",
) -> None:
    """Check an encoding and its options together, under the argument names envs take them by
    (:func:`make_observations` starts with this; the config resolver calls it before any map is
    built).

    Raises:
        ValueError: an unknown ``obs_type`` or ``grid_layout``; ``view_radius`` or ``grid_layout``
            with another encoding than ``"grid"``, or ``view_radius`` out of range;
            ``action_mask_in_obs`` with ``"text"``; ``append_step_count`` without ``max_cycles``.
        TypeError: ``view_radius`` is not an int; ``action_mask_in_obs`` or
            ``append_step_count`` is not a bool.
    """
    check_choice(obs_type, "obs_type", OBS_TYPES)
    check_flag(action_mask_in_obs, "action_mask_in_obs")
    check_flag(append_step_count, "append_step_count")
    if view_radius is not None and obs_type != "grid":
        raise ValueError(f"view_radius only applies to obs_type='grid' (an egocentric window); got obs_type="
                         f"{obs_type!r} with view_radius={view_radius!r}; leave view_radius None")
    check_limit(view_radius, "view_radius", maximum=MAX_VIEW_RADIUS, none_means="the whole map")
    check_choice(grid_layout, "grid_layout", GRID_LAYOUTS)
    if grid_layout != "chw" and obs_type != "grid":
        raise ValueError(f"grid_layout only applies to obs_type='grid' (the order of its axes); got obs_type="
                         f"{obs_type!r} with grid_layout={grid_layout!r}; leave it 'chw'")
    if action_mask_in_obs and obs_type == "text":
        raise ValueError("action_mask_in_obs=True would put the Text observation inside a Dict, which learning "
                         "libraries refuse; obs_type='text' says which ways are open, and info['action_mask'] holds "
                         "the mask")
    if append_step_count and max_cycles is None:
        raise ValueError("append_step_count=True divides the cycles played by max_cycles, and max_cycles is None "
                         "(the Gymnasium view leaves truncation to TimeLimit by default): pass max_cycles=N")


def make_observations(
    obs_type: str,
    board: Board,
    belief: Callable[[], np.ndarray] | None = None,
    cycles: Callable[[], int] | None = None,
    *,
    view_radius: int | None = None,
    action_mask_in_obs: bool = False,
    append_step_count: bool = False,
    max_cycles: int | None = None,
    both_observe: bool = False,
    grid_layout: str = "chw",
) -> Observations:
    """Build the encoder named ``obs_type`` for ``board``, with the options.

    The spaces of every encoding but ``"dict"`` and ``"belief"`` depend only on the board's
    size and the options, so an encoder rebuilt for another map of the same size has equal ones.

    Args:
        obs_type: one of :data:`OBS_TYPES`.
        board: the precomputed board of the layout.
        belief: for ``"belief"`` and ``"belief_vector"``, what returns the agent's current
            belief map.
        cycles: with ``append_step_count``, what returns the cycles played in the episode.
        view_radius: ``"grid"`` only: ``None`` (the whole map) or the radius of an egocentric
            window, an int in 1..:data:`MAX_VIEW_RADIUS`.
        action_mask_in_obs: wrap the observation with the observer's action mask (not with
            ``"text"``).
        append_step_count: add the cycles played over ``max_cycles``.
        max_cycles: the episode's limit; required with ``append_step_count``.
        both_observe: for a view where both sides observe at every half-turn (the parallel
            env): say whether the observer moves next (:class:`TurnObservations`) and, with
            ``action_mask_in_obs``, give a waiting side :data:`WAITING_MASK`.
        grid_layout: ``"grid"`` only: one of :data:`GRID_LAYOUTS`, channels first or last.

    Raises:
        ValueError: ``obs_type`` is unknown; a belief encoding without a belief to show;
            ``view_radius`` or ``grid_layout="hwc"`` with another encoding than ``"grid"``, or
            ``view_radius`` out of range, or an unknown ``grid_layout``;
            ``action_mask_in_obs`` with ``"text"``; ``append_step_count`` without
            ``max_cycles`` or ``cycles``.
        TypeError: ``view_radius`` is not an int; ``action_mask_in_obs`` or
            ``append_step_count`` is not a bool.
    """
    check_observation_options(obs_type, view_radius, action_mask_in_obs, append_step_count, max_cycles, grid_layout)
    if belief is None and obs_type in ("belief", "belief_vector"):
        raise ValueError(f"obs_type={obs_type!r} shows a belief filter's map; this view has no belief filter")
    step_count = None
    if append_step_count:
        if cycles is None:
            raise ValueError("append_step_count=True needs cycles, what returns the cycles played")
        assert max_cycles is not None  # check_observation_options refused it
        step_count = StepCount(cycles, max_cycles)
    encoder: Observations
    if obs_type in ("vector", "belief_vector"):
        encoder = VectorObservations(board, belief if obs_type == "belief_vector" else None, step_count)
    elif obs_type == "grid":
        encoder = GridObservations(board, view_radius, step_count, channels_last=grid_layout == "hwc")
    elif obs_type == "text":
        encoder = TextObservations(board, step_count)
    elif obs_type == "belief":
        encoder = BeliefObservations(board, belief, step_count)  # type: ignore[arg-type]  # checked above
    else:
        encoder = DictObservations(board, step_count)
    if both_observe:
        encoder = TurnObservations(encoder, obs_type)
    return MaskedObservations(encoder, board, both_observe) if action_mask_in_obs else encoder
