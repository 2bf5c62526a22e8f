"""Observation encoders: what each side sees, and the space that declares it.

An encoder is built once per layout and answers two questions per side: :meth:`space` (the
Gymnasium space, the same object on every call) and :meth:`observe` (a fresh observation of a
:class:`~gridghost.rules.GameState`). Everything that depends only on the cell is precomputed.

``"dict"`` is the reference observation. The agent sees::

    {"current_cell": {"colour": int, "has_item": int8[3], "is_goal": int, "text": str},
     "neighbors": {"up" | "right" | "down" | "left": {"accessible": int, "colour": int}},
     "ghost_relative_pos": int32[2],   # ghost minus agent, (d_row, d_col)
     "ghost_distance": int}            # shortest path through the walls

``has_item`` is a read-only array shared by every observation of that cell (it never changes);
the relative position is a fresh array.

The ghost sees the same without ``text``, with ``agent_relative_pos`` (agent minus ghost) and
``agent_distance``. A neighbour outside the grid reads ``accessible`` 0 and ``colour`` 0; a
neighbour behind a wall reads ``accessible`` 0 and its own colour.
"""

from __future__ import annotations

import string
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces

from gridghost.layout import COLOURS, ITEM_FLAGS
from gridghost.rules import ACTION_DELTAS, NEIGHBOUR_ORDER, Board, GameState, Side

OBS_TYPES: tuple[str, ...] = ("dict",)


def _read_only(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def check_obs_type(obs_type: object) -> str:
    """Return ``obs_type`` if it names a known encoding.

    Raises:
        ValueError: ``obs_type`` is not one of :data:`OBS_TYPES`.
    """
    if not isinstance(obs_type, str) or obs_type not in OBS_TYPES:
        raise ValueError(f"unknown obs_type {obs_type!r}; accepted: {list(OBS_TYPES)}")
    return obs_type


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

        positions = np.array([board.position(i) for i in range(n)], dtype=np.int32)
        # relative[a, b] = position(b) - position(a), the observer a's view of opponent b.
        relative = positions[None, :, :] - positions[:, None, :]
        relative.setflags(write=False)
        self._relative = relative
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
        cell = {"colour": self._colour[me], "has_item": self._has_item[me], "is_goal": self._is_goal[me]}
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
            relative_key: self._relative[me, other].copy(),
            distance_key: self._distance[me][other],
        }


def make_observations(obs_type: str, board: Board) -> DictObservations:
    """Build the encoder named ``obs_type`` for ``board``.

    Raises:
        ValueError: ``obs_type`` is unknown.
    """
    check_obs_type(obs_type)
    return DictObservations(board)
