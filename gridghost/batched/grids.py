"""The batched engine's ``"grid"`` observations, computed from the games' positions.

A joint-state table of grids (one observation per map, agent cell and ghost cell) grows with
``maps * cells**2 * channels * cells``: gigabytes over a few hundred levels. Here each map's
static planes (walls, colours, items, goals, ``is_ghost``, and ``to_move`` where the map is;
``out_of_map`` and the padding of an egocentric window) are stored once: ``[maps, C * H * W]``
for the whole map, one row per map, and for a window of radius k the padded planes cut into
strips of ``2k + 1`` cells (one per padded row and column: ``2k + 1`` times the padded planes,
still linear in the maps), so that a window is ``C * (2k + 1)`` strips (``2k + 1`` channels
last) gathered with one ``take``. A step then writes the position planes from the positions
(``self``, ``opponent`` and, for a team of ghosts, ``ghosts``) and clears ``to_move`` where the
observer is not to move.

The static planes are read off the single env's encoder itself (one observation per cell of each
map, its position planes cleared), so every row equals that encoder's output for the same state
by construction of the planes and by the placement rules of :mod:`gridghost.sensing.observations`
(the observer's cell, the opponent's when it is in the window, the ``to_move`` plane where the
map is); ``tests/test_batched.py`` compares them over many levels, both sides and both layouts.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gridghost.core.rules import Board, GameState, Outcome, Side, read_only
from gridghost.sensing.encoding import GHOSTS_CHANNEL
from gridghost.sensing.observations import Observations, grid_channels


def grid_bytes(maps: int, rows: int, cols: int, view_radius: int | None, ghosts: int = 1) -> int:
    """The bytes of one side's static planes over ``maps`` maps of ``rows x cols`` (``ghosts``
    ghosts) as :class:`GridPlanes` stores them: the planes for the whole map; for a window of
    radius k, the strips of ``2k + 1`` cells starting at each column of each padded row."""
    channels = len(grid_channels(view_radius, ghosts=ghosts))
    if view_radius is None:
        return maps * channels * rows * cols * 4
    return maps * channels * (rows + 2 * view_radius) * cols * (2 * view_radius + 1) * 4


def encoder_bytes(rows: int, cols: int, view_radius: int | None) -> int:
    """The bytes of the planes one map's single-env grid encoder keeps (padded when egocentric,
    per side and to-move flag), alive while the engine's tables are built."""
    pad = 0 if view_radius is None else 2 * view_radius
    return 4 * len(grid_channels(view_radius)) * (rows + pad) * (cols + pad) * 4


def gather_bytes(view_radius: int | None, channels_last: bool, ghosts: int = 1) -> int:
    """The bytes the index temporaries of :meth:`GridPlanes.gather` take per observer and game: the
    map and joint state, the positions' flat indices (two per ghost of a team), a window's strips."""
    marks = 64 + (0 if ghosts == 1 else 32 * ghosts)
    if view_radius is None:
        return marks
    width = 2 * view_radius + 1
    return marks + 8 * (1 + (width if channels_last else width * len(grid_channels(view_radius, ghosts=ghosts))))


def _static_planes(encoders: Sequence[Observations], side: Side, view_radius: int | None, channels_last: bool,
                   size: tuple[int, int], index: dict[str, int]) -> np.ndarray:
    """Each map's planes that do not move, channels first, ``[map, C, rows + 2k, cols + 2k]``
    (``k`` the view radius, 0 for the whole map): the observations of the encoders' first
    observer of ``side`` (its ghosts all on one cell) with the position channels cleared
    (written from the positions at each step)."""
    rows, cols = size
    cells = rows * cols
    pad = 0 if view_radius is None else view_radius
    width = 2 * pad + 1
    moving = [index[name] for name in ("self", "opponent", GHOSTS_CHANNEL) if name in index]
    static = np.zeros((len(encoders), len(index), rows + 2 * pad, cols + 2 * pad), dtype=np.float32)
    for m, encoder in enumerate(encoders):
        k = encoder.ghosts
        observe = encoder.observer(encoder.keys[0 if side == Side.AGENT else 1])
        # the whole map needs one observation; a window one per cell, which together cover the padding
        for cell in range(1 if view_radius is None else cells):
            other = (cell + 1) % cells
            state = (GameState(cell, (other,) * k, side, Outcome.ONGOING) if side == Side.AGENT
                     else GameState(other, (cell,) * k, side, Outcome.ONGOING))
            seen = np.asarray(observe(state), dtype=np.float32)
            if channels_last:
                seen = np.moveaxis(seen, -1, 0)
            seen = seen.copy()
            seen[moving] = 0.0  # written from the positions at each step
            if view_radius is None:
                static[m] = seen
            else:
                r, c = divmod(cell, cols)
                static[m, :, r : r + width, c : c + width] = seen
    return static


class GridPlanes:
    """One side's ``"grid"`` observations of N games, from per-map static planes and positions.

    The tables are keyed by a *local joint state* ``a * cells + g``: a cell ``a`` in the agent's
    place and ``g`` in a ghost's. The agent's observer is on ``a`` and marks a ghost on ``g``; a
    ghost's is on ``g`` and marks ``a`` (the agent, or in the ``ghosts`` plane a teammate).

    Args:
        encoders: each map's ``"grid"`` encoder (the single env's, one per map, same options and
            number of ghosts).
        boards: each map's board, in the same order (all maps of one size).
        side: the observing side (a team's ghosts are all alike).
        view_radius: ``None`` (the whole map) or the window's radius, as the encoders were built.
        channels_last: the encoders' ``grid_layout == "hwc"``.

    Raises:
        ValueError: the encoders and boards differ in number, or the maps in size.
    """

    def __init__(self, encoders: Sequence[Observations], boards: Sequence[Board], side: Side,
                 view_radius: int | None, channels_last: bool) -> None:
        if len(encoders) != len(boards) or not boards:
            raise ValueError(f"encoders and boards must be one per map, got {len(encoders)} and {len(boards)}")
        rows, cols = boards[0].layout.rows, boards[0].layout.cols
        if any((board.layout.rows, board.layout.cols) != (rows, cols) for board in boards):
            raise ValueError("the batched engine's maps must all have one size")
        channels = grid_channels(view_radius, ghosts=encoders[0].ghosts)
        index = {name: channel for channel, name in enumerate(channels)}
        self.radius, self.channels_last = view_radius, channels_last
        cells = rows * cols
        self._to_move = index["to_move"]
        pad = 0 if view_radius is None else view_radius
        width = 2 * pad + 1
        static = _static_planes(encoders, side, view_radius, channels_last, (rows, cols), index)
        if channels_last:
            static = np.ascontiguousarray(np.moveaxis(static, 1, -1))
        self.shape: tuple[int, ...] = ((rows, cols) if view_radius is None else (width, width))
        self.shape = (*self.shape, len(channels)) if channels_last else (len(channels), *self.shape)
        size = int(np.prod(self.shape))
        self._size = size

        def flat(channel: int, r: np.ndarray, c: np.ndarray) -> np.ndarray:
            """The flat index of (channel, r, c) in one observation."""
            h, w = self.shape[:2] if channels_last else self.shape[1:]
            return (r * w + c) * len(channels) + channel if channels_last else (channel * h + r) * w + c

        positions = np.divmod(np.arange(cells), cols)
        if view_radius is None:
            self_at = flat(index["self"], *positions)
        else:
            self_at = np.full(cells, flat(index["self"], np.array(pad), np.array(pad)))
            d_row = positions[0][None, :] - positions[0][:, None]  # [me, other]: other minus observer
            d_col = positions[1][None, :] - positions[1][:, None]
            inside = (np.abs(d_row) <= pad) & (np.abs(d_col) <= pad)
        # by the local joint state (agent * cells + ghost): where the observer and the others are
        agent_of, ghost_of = np.divmod(np.arange(cells * cells), cells)
        mine, theirs = (agent_of, ghost_of) if side == Side.AGENT else (ghost_of, agent_of)

        def marks(channel: str) -> np.ndarray:
            """By local joint state, the flat index of the other's mark in ``channel``."""
            if view_radius is None:
                return flat(index[channel], *positions)[theirs].astype(np.int64)
            # an other outside the window "writes" the observer's own 1 again: no mask at each step
            at = np.where(inside, flat(index[channel], pad + d_row, pad + d_col), self_at[:, None])
            return at[mine, theirs].astype(np.int64)

        self._self_at = self_at[mine].astype(np.int64)
        self._opponent_at = marks("opponent")
        self._ghosts_at = marks(GHOSTS_CHANNEL) if GHOSTS_CHANNEL in index else None
        if view_radius is None:
            self.static = static.reshape(len(boards), -1)
        else:
            # A window is w strips of w * C floats (channels last) or C * w strips of w floats
            # (channels first): each padded row's strips from every column are stored, so a step
            # gathers whole strips. strip index: [map, (channel,) padded row, column]
            strides = static.strides
            if channels_last:
                shape = (len(boards), rows + 2 * pad, cols, width, len(channels))
                view = (strides[0], strides[1], strides[2], strides[2], strides[3])
                offsets = np.arange(width) * cols
            else:
                shape = (len(boards), len(channels), rows + 2 * pad, cols, width)
                view = (strides[0], strides[1], strides[2], strides[3], strides[3])
                offsets = ((np.arange(len(channels))[:, None] * (rows + 2 * pad) + np.arange(width)[None, :])
                           * cols).ravel()
            strips = np.lib.stride_tricks.as_strided(static, shape, view, writeable=False)
            self.static = np.ascontiguousarray(strips).reshape(-1, size // len(offsets))
            self._map_strips = len(self.static) // len(boards)  # strips per map
            self._offsets = offsets.astype(np.int64)
            self._window_at = mine.astype(np.int64)  # a window's first strip: the observer's cell's
        read_only(self.static)
        self._starts = np.zeros(0, dtype=np.int64)

    def export(self) -> dict[str, np.ndarray | int | bool | tuple[int, ...]]:
        """What :meth:`gather` reads, for engines on other array libraries: ``static`` (the
        planes, or a window's strips), ``self_at``, ``opponent_at`` and, for a team,
        ``ghosts_at`` (by local joint state, the flat index written 1 in an observation),
        ``window_at`` (the first strip of a window, by local state), ``offsets`` (a window's
        strips after its first), ``map_strips`` (strips per map), ``to_move`` (the plane
        cleared where the observer is not to move), ``radius``, ``channels_last`` and
        ``shape``. Read-only views; ``window_at``, ``offsets`` and ``map_strips`` are absent
        for the whole map, ``ghosts_at`` with one ghost."""
        exported: dict[str, np.ndarray | int | bool | tuple[int, ...]] = {
            "static": self.static, "self_at": self._self_at, "opponent_at": self._opponent_at,
            "to_move": self._to_move, "channels_last": self.channels_last, "shape": self.shape}
        if self._ghosts_at is not None:
            exported["ghosts_at"] = self._ghosts_at
        if self.radius is not None:
            exported.update(window_at=self._window_at, offsets=self._offsets, map_strips=self._map_strips,
                            radius=self.radius)
        return {key: read_only(value.view()) if isinstance(value, np.ndarray) else value
                for key, value in exported.items()}

    def gather(self, maps: np.ndarray, local: np.ndarray, not_to_move: np.ndarray | None,
               out: np.ndarray, opponents: np.ndarray | None = None, ghosts: np.ndarray | None = None) -> np.ndarray:
        """Write the observations of games on ``maps`` (indices into the maps) in the local joint
        states ``local`` (``agent cell * cells + ghost cell``: the observer's, with its first
        opponent) into ``out``.

        Args:
            maps, local: ``int64[n]``.
            not_to_move: ``bool[n]``, where the observer is not to move (its ``to_move`` plane is
                zero), or ``None`` for nowhere.
            out: ``float32[n, *shape]``, the buffer written and returned.
            opponents: ``int64[n, j]``, the local joint states of the observer with each
                opponent (the agent's: one per ghost), or ``None``: ``local``'s alone.
            ghosts: a team's ``int64[n, k]``, the local joint states whose other is marked in
                the ``ghosts`` plane (every ghost); ``None`` with one ghost.

        Returns:
            ``out``.
        """
        n = len(maps)
        if len(self._starts) < n:
            self._starts = np.arange(0, n * self._size, self._size, dtype=np.int64)
        starts = self._starts[:n]
        if self.radius is None:
            self.static.take(maps, axis=0, out=out.reshape(n, -1), mode="clip")
        else:
            first = self._window_at.take(local)
            first += maps * self._map_strips
            strips = first[:, None] + self._offsets
            self.static.take(strips.reshape(-1), axis=0, out=out.reshape(-1, self.static.shape[1]), mode="clip")
        flat = out.reshape(-1)
        flat[starts + self._self_at.take(local)] = 1.0
        if opponents is None:
            flat[starts + self._opponent_at.take(local)] = 1.0
        else:
            flat[(starts[:, None] + self._opponent_at.take(opponents)).reshape(-1)] = 1.0
        if ghosts is not None and self._ghosts_at is not None:
            flat[(starts[:, None] + self._ghosts_at.take(ghosts)).reshape(-1)] = 1.0
        if not_to_move is not None:
            rows = np.flatnonzero(not_to_move)
            if len(rows):
                if self.channels_last:
                    out[rows, ..., self._to_move] = 0.0
                else:
                    out[rows, self._to_move] = 0.0
        return out
