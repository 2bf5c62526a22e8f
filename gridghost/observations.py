"""Observation encoders: what each side sees, and the space that declares it.

An encoder is built once per layout and answers two questions per side: :meth:`space` (the
Gymnasium space, the same object on every call) and :meth:`observe` (a fresh observation of a
:class:`~gridghost.rules.GameState`). Everything that depends only on the cell is precomputed.

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
(see :mod:`gridghost.filters`), declared as a ``Box(0, 1)``. The ghost's observation stays its
dict. Being the dict encoding with one more entry, it keeps the reference's ``Text`` label and
the two sides' spaces differ, as with ``"dict"``.

>>> from gridghost.layout import CLASSIC
>>> from gridghost.rules import board_for
>>> vectors = VectorObservations(board_for(CLASSIC))
>>> state = GameState(agent=2, ghost=19)   # agent at (0, 2), ghost at (3, 4)
>>> vector = vectors.observe(Side.AGENT, state)
>>> vector[23:25].tolist(), bool(vector[25] == np.float32(5 / 13))   # largest distance: 13
([1.0, 0.5], True)
>>> vectors.space(Side.AGENT) is vectors.space(Side.GHOST)
True
"""

from __future__ import annotations

import string
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces

from gridghost.checks import check_choice
from gridghost.layout import COLOURS, ITEM_FLAGS
from gridghost.rules import ACTION_DELTAS, NEIGHBOUR_ORDER, Board, GameState, Side

OBS_TYPES: tuple[str, ...] = ("dict", "vector", "belief")
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


def _read_only(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array

class DictObservations:
    """The reference dict observations of the agent and the ghost on one board.

    Args:
        board: the precomputed board of the layout.
    """

    def __init__(self, board: Board) -> None:
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
            return spaces.Dict(
                {
                    "current_cell": spaces.Dict(cell),
                    "neighbors": neighbour_space,
                    f"{opponent}_relative_pos": spaces.Box(-bound, bound, dtype=np.int32),
                    f"{opponent}_distance": spaces.Discrete(n),
                }
            )

        self._spaces = {Side.AGENT: side_space(True, "ghost"), Side.GHOST: side_space(False, "agent")}
        self._observers: dict[Side, Callable[[GameState], dict[str, Any]]] = {
            Side.AGENT: self._agent_view,
            Side.GHOST: self._ghost_view,
        }

    def space(self, side: Side) -> spaces.Dict:
        """The observation space of ``side`` (the same object on every call)."""
        return self._spaces[side]

    def observe(self, side: Side, state: GameState) -> dict[str, Any]:
        """A fresh observation of ``state`` from ``side``'s point of view."""
        return self._observers[side](state)

    def observer(self, side: Side) -> Callable[[GameState], dict[str, Any]]:
        """The function behind :meth:`observe` for one side, for callers on a hot path."""
        return self._observers[side]

    def _agent_view(self, state: GameState) -> dict[str, Any]:
        return self._view(state.agent, state.ghost, True, "ghost_relative_pos", "ghost_distance")

    def _ghost_view(self, state: GameState) -> dict[str, Any]:
        return self._view(state.ghost, state.agent, False, "agent_relative_pos", "agent_distance")

    def _view(self, me: int, other: int, with_text: bool, relative_key: str, distance_key: str) -> dict[str, Any]:
        cell = {"colour": self._colour[me], "has_item": self._has_item[me].copy(), "is_goal": self._is_goal[me]}
        if with_text:
            cell["text"] = self._text[me]
        (ua, uc), (ra, rc), (da, dc), (la, lc) = self._neighbours[me]
        return {
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


class VectorObservations:
    """The ``"vector"`` encoding: one flat ``float32`` vector per side, laid out as in
    :data:`VECTOR_SLOTS`, built from the dict observation's tables.

    Args:
        board: the precomputed board of the layout.
    """

    def __init__(self, board: Board) -> None:
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

        low = np.zeros(len(VECTOR_SLOTS), dtype=np.float32)
        low[self._cell_slots : self._cell_slots + 2] = -1.0
        self._space = spaces.Box(low, np.ones_like(low), dtype=np.float32)
        self._observers: dict[Side, Callable[[GameState], np.ndarray]] = {
            Side.AGENT: self._agent_vector,
            Side.GHOST: self._ghost_vector,
        }

    def space(self, side: Side) -> spaces.Box:
        """The observation space, the same ``Box`` object for both sides."""
        return self._space

    def observe(self, side: Side, state: GameState) -> np.ndarray:
        """A fresh vector observation of ``state`` from ``side``'s point of view."""
        return self._observers[side](state)

    def observer(self, side: Side) -> Callable[[GameState], np.ndarray]:
        """The function behind :meth:`observe` for one side, for callers on a hot path."""
        return self._observers[side]

    def _agent_vector(self, state: GameState) -> np.ndarray:
        return self._vector(state.agent, state.ghost)

    def _ghost_vector(self, state: GameState) -> np.ndarray:
        return self._vector(state.ghost, state.agent)

    def _vector(self, me: int, other: int) -> np.ndarray:
        return np.concatenate(
            (
                self._cells[me],
                self._offset_slots[self._key[other] - self._key[me] + self._centre],
                self._distance_slots[self._distance[me][other] + 1],
            )
        )


class BeliefObservations(DictObservations):
    """The dict observations, with the agent's belief map added under ``"belief"``.

    Args:
        board: the precomputed board of the layout.
        belief: returns the current belief, a ``rows x cols`` array of probabilities.
    """

    def __init__(self, board: Board, belief: Callable[[], np.ndarray]) -> None:
        super().__init__(board)
        self._belief = belief
        shape = board.layout.shape
        agent_space = self._spaces[Side.AGENT]
        self._spaces[Side.AGENT] = spaces.Dict(
            {**agent_space.spaces, "belief": spaces.Box(0.0, 1.0, shape=shape, dtype=np.float32)}
        )
        self._observers[Side.AGENT] = self._agent_belief_view

    def _agent_belief_view(self, state: GameState) -> dict[str, Any]:
        observation = self._agent_view(state)
        observation["belief"] = np.asarray(self._belief(), dtype=np.float32)
        return observation


def make_observations(
    obs_type: str, board: Board, belief: Callable[[], np.ndarray] | None = None
) -> DictObservations | VectorObservations:
    """Build the encoder named ``obs_type`` for ``board``.

    Args:
        obs_type: one of :data:`OBS_TYPES`.
        board: the precomputed board of the layout.
        belief: for ``"belief"``, what returns the agent's current belief map.

    Raises:
        ValueError: ``obs_type`` is unknown, or ``"belief"`` without a belief to show.
    """
    check_choice(obs_type, "obs_type", OBS_TYPES)
    if obs_type == "vector":
        return VectorObservations(board)
    if obs_type == "belief":
        if belief is None:
            raise ValueError("obs_type='belief' shows a belief filter's map; this view has no belief filter")
        return BeliefObservations(board, belief)
    return DictObservations(board)
