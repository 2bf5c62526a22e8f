"""The observation encoders, one class per encoding: ``"dict"`` (the reference), ``"vector"``,
``"belief"``, ``"grid"`` and ``"text"``, each serving the agent and every ghost of a game with
``k`` ghosts (one ghost is a team of one). The module docstring of :mod:`gridghost.sensing.observations`
describes what each holds; :func:`~gridghost.sensing.observations.make_observations` chooses and wraps them.
"""

from __future__ import annotations

import functools
import itertools
import string
from collections.abc import Callable
from operator import itemgetter
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

from gridghost.core.checks import check_limit
from gridghost.core.layout import COLOURS, ITEM_FLAGS
from gridghost.core.rules import ACTION_DELTAS, NEIGHBOUR_ORDER, NUM_ACTIONS, Board, Side, read_only
from gridghost.sensing.encoding import (
    _ONGOING,
    GHOSTS_CHANNEL,
    MAX_VIEW_RADIUS,
    OUT_OF_MAP_CHANNEL,
    STEP_COUNT_CHANNEL,
    TEXT_CHARSET,
    Observations,
    StepCount,
    _offset_table,
    grid_channels,
    observer_names,
    vector_slots,
)


class DictObservations(Observations):
    """The reference dict observations of the agent and each ghost on one board.

    Each observer sees its own cell and its neighbours, then, per other (see :class:`Observations`;
    one ghost's only other is the agent, the agent's are the ghosts), ``<name>_relative_pos``
    and ``<name>_distance``: ``ghost_relative_pos`` for one ghost, ``ghost_1_relative_pos`` in a
    team, ``agent_relative_pos`` for a ghost. Only the agent sees its cell's ``text``.

    Args:
        board: the precomputed board of the layout.
        step_count: adds ``"step_count"``, a ``float32[1]`` in [0, 1], when given.
        ghosts: the number of ghosts ``k`` (1..:data:`~gridghost.core.MAX_GHOSTS`).

    Raises:
        TypeError, ValueError: ``ghosts`` is not an int in 1..:data:`~gridghost.core.MAX_GHOSTS`.
    """

    def __init__(self, board: Board, step_count: StepCount | None = None, ghosts: int = 1) -> None:
        self._serve(ghosts, step_count)
        self._belief: Callable[[], np.ndarray] | None = None
        layout = board.layout
        rows, cols, n = layout.rows, layout.cols, board.num_cells
        colours = layout.colours

        self._has_item = tuple(
            read_only(np.array(layout.has_item(*board.position(i)), dtype=np.int8)) for i in range(n)
        )
        self._colour = tuple(int(c) for c in colours.ravel())
        self._is_goal = tuple(int(g) for g in board.is_goal)

        padded = np.pad(colours, 1)  # a neighbour outside the grid reads colour 0
        # per cell and neighbour, in NEIGHBOUR_ORDER: (accessible, colour)
        self._neighbours = tuple(
            tuple((int(board.next_cell[i][action] != i), int(padded[r + 1 + dr, c + 1 + dc]))
                  for _, action in NEIGHBOUR_ORDER for dr, dc in [ACTION_DELTAS[action]])
            for i, (r, c) in enumerate(map(board.position, range(n)))
        )
        # The same entries as dicts, one per distinct value, that an observation copies: a copy
        # costs less than building the dict (_surroundings). They never leave the encoder.
        shared: dict[tuple[tuple[str, Any], ...], dict[str, Any]] = {}

        def template(**entries: Any) -> dict[str, Any]:
            return shared.setdefault(tuple(entries.items()), entries)

        self._neighbour_templates = tuple(tuple(template(accessible=accessible, colour=colour)
                                                for accessible, colour in pairs) for pairs in self._neighbours)
        # per observer index: the agent's cell entries end with the cell's text, a ghost's do not
        ghost_cells = tuple(template(colour=self._colour[i], has_item=None, is_goal=self._is_goal[i]) for i in range(n))
        agent_cells = tuple(template(**entries, text=layout.text_at(*board.position(i)))
                            for i, entries in enumerate(ghost_cells))
        self._cell_templates = (agent_cells, *(ghost_cells,) * self.ghosts)

        self._key, self._centre, offsets = _offset_table(board)
        self._offset = tuple(read_only(offset) for offset in offsets)
        self._distance = board.distance
        names = observer_names(self.ghosts)
        # _pairs[index]: (other, its relative_pos key, its distance key) per other of observer index
        self._pairs = tuple(tuple((other, f"{names[other]}_relative_pos", f"{names[other]}_distance")
                                  for other in others) for others in self._others)
        self._first = tuple(pairs[0][1:] for pairs in self._pairs)  # the first other's two keys
        self._further = tuple(pairs[1:] for pairs in self._pairs)  # a team's further others

        text_chars = set("".join(layout.texts.values()))
        neighbour_space = spaces.Dict(
            {
                name: spaces.Dict({"accessible": spaces.Discrete(2), "colour": spaces.Discrete(len(COLOURS))})
                for name, _ in NEIGHBOUR_ORDER
            }
        )
        bound = np.array([rows - 1, cols - 1], dtype=np.int32)

        def observer_space(index: int) -> spaces.Dict:
            cell: dict[str, spaces.Space[Any]] = {
                "colour": spaces.Discrete(len(COLOURS)),
                "has_item": spaces.MultiBinary(len(ITEM_FLAGS)),
                "is_goal": spaces.Discrete(2),
            }
            if not index:
                cell["text"] = spaces.Text(
                    max_length=max([len(t) for t in layout.texts.values()] + [1]),
                    min_length=0,
                    charset=frozenset(string.ascii_letters + string.digits) | text_chars,
                )
            entries: dict[str, spaces.Space[Any]] = {"current_cell": spaces.Dict(cell), "neighbors": neighbour_space}
            for _, relative, distance in self._pairs[index]:
                entries[relative] = spaces.Box(-bound, bound, dtype=np.int32)
                entries[distance] = spaces.Discrete(n)
            if step_count is not None:
                entries["step_count"] = spaces.Box(0.0, 1.0, shape=(1,), dtype=np.float32)
            return spaces.Dict(entries)

        self._spaces = {key: observer_space(index) for index, key in enumerate(self.keys)}
        if self._team and step_count is None and self._plain:  # a team's plain dicts: one fill of their keys
            # each observer's keys in order, copied and filled per observation: it never grows
            self._team_keys = tuple(dict.fromkeys(("current_cell", "neighbors", *itertools.chain.from_iterable(
                pair[1:] for pair in pairs))) for pairs in self._pairs)
            self._observers = {key: functools.partial(self._team_view, index) for index, key in enumerate(self.keys)}

    #: Whether the encoder's observations are the plain dicts (a subclass that adds entries says no).
    _plain: ClassVar[bool] = True

    def _agent_observes(self, state: Any) -> dict[str, Any]:
        return self._view(state.agent, state.ghosts[0], 0)

    def _ghost_observes(self, state: Any) -> dict[str, Any]:
        return self._view(state.ghosts[0], state.agent, 1)

    def _observe(self, index: int, state: Any) -> dict[str, Any]:
        cells = (state[0], *state[1])  # (agent, ghosts...)
        me, pairs = cells[index], self._pairs[index]
        observation = self._view(me, cells[pairs[0][0]], index)
        if not index and len(pairs) > 1 and (self._step_count is not None or self._belief is not None):
            for name in pairs[0][1:]:  # a team's agent lists its ghosts after these, as it always has
                observation[name] = observation.pop(name)
        return self._add_others(observation, cells, me, self._further[index])

    def _team_view(self, index: int, state: Any) -> dict[str, Any]:
        """:meth:`_observe` of a team without a step count or a belief map: the same dict, filled
        into a copy of the observer's keys."""
        cells = (state[0], *state[1])  # (agent, ghosts...)
        me = cells[index]
        observation = self._team_keys[index].copy()
        observation["current_cell"], observation["neighbors"] = self._surroundings(me, index)
        return self._add_others(observation, cells, me, self._pairs[index])

    def _add_others(self, observation: dict[str, Any], cells: tuple[int, ...], me: int,
                    pairs: tuple[tuple[int, str, str], ...]) -> dict[str, Any]:
        """``observation`` with, for each ``(other, relative key, distance key)`` of ``pairs``, that
        other's offset from cell ``me`` (a fresh array) and its distance (``cells``: the agent's,
        then the ghosts')."""
        key, offset, distance, base = self._key, self._offset, self._distance[me], self._key[me] - self._centre
        for other, relative, far in pairs:
            other_cell = cells[other]
            observation[relative] = offset[key[other_cell] - base].copy()
            observation[far] = distance[other_cell]
        return observation

    def _surroundings(self, me: int, index: int) -> tuple[dict[str, Any], dict[str, Any]]:
        """Observer ``index``'s ``current_cell`` and ``neighbors`` entries from cell ``me`` (fresh
        dicts: copies of the cell's templates, with a fresh ``has_item`` array)."""
        cell = self._cell_templates[index][me].copy()
        cell["has_item"] = self._has_item[me].copy()
        up, right, down, left = self._neighbour_templates[me]
        return cell, {"up": up.copy(), "right": right.copy(), "down": down.copy(), "left": left.copy()}

    def _view(self, me: int, other: int, index: int) -> dict[str, Any]:
        """Observer ``index``'s observation from cell ``me``, with its first other on cell ``other``."""
        cell, neighbours = self._surroundings(me, index)
        relative, far = self._first[index]
        observation: dict[str, Any] = {
            "current_cell": cell,
            "neighbors": neighbours,
            relative: self._offset[self._key[other] - self._key[me] + self._centre].copy(),
            far: self._distance[me][other],
        }
        if self._step_count is not None:
            observation["step_count"] = np.array([self._step_count()], dtype=np.float32)
        if self._belief is not None and not index:
            observation["belief"] = np.asarray(self._belief(), dtype=np.float32)
        return observation


#: The largest map whose team vector encoder keeps a cells x cells table of its pairs' slots
#: (16,384 rows of three floats at most); larger maps look each pair's slots up apart.
_PAIR_TABLE_CELLS = 128


class VectorObservations(Observations):
    """The ``"vector"`` encoding: one flat ``float32`` vector per observer, laid out as in
    :func:`vector_slots` (:data:`~gridghost.sensing.encoding.VECTOR_SLOTS` for one ghost), built from the dict
    observation's tables; with ``belief``, the ``"belief_vector"`` encoding. Every observer's
    space is one object.

    Args:
        board, ghosts: as :class:`DictObservations` (three slots, offset and distance, per other).
        belief: when given, appends a flattened ``rows x cols`` belief map: for the agent what
            this returns (its belief filter's map), for a ghost the one-hot of its own cell.
        step_count: appends the normalised step count as one more slot, when given.

    Raises:
        TypeError, ValueError: as :class:`DictObservations`.
    """

    def __init__(
        self, board: Board, belief: Callable[[], np.ndarray] | None = None, step_count: StepCount | None = None,
        ghosts: int = 1,
    ) -> None:
        self._serve(ghosts, step_count, belief=belief)
        layout = board.layout
        dicts = DictObservations(board)
        one_hot = np.eye(len(COLOURS), dtype=np.float32)
        self._cells = tuple(
            np.concatenate((
                one_hot[dicts._colour[cell]],
                dicts._has_item[cell],
                [dicts._is_goal[cell]],
                [accessible for accessible, _ in neighbours],
                *(one_hot[colour] for _, colour in neighbours),
            )).astype(np.float32)
            for cell, neighbours in enumerate(dicts._neighbours)
        )
        cell_slots = len(self._cells[0])
        self._key, self._centre, self._distance = dicts._key, dicts._centre, board.distance
        # The pair slots looked up per observation, by offset (as the dict encoder finds it) and
        # by distance + 1 (-1 is no path), instead of a cells x cells table. The arithmetic
        # (offsets divided in float64, distances in float32) fixes the values.
        scale = np.array([max(layout.rows - 1, 1), max(layout.cols - 1, 1)], dtype=np.float32)
        offsets = np.array(dicts._offset)
        self._offset_slots = tuple(read_only(slots) for slots in (offsets / scale).astype(np.float32))
        distances = np.arange(-1, board.diameter + 1, dtype=np.float32) / float(max(board.diameter, 1))
        self._distance_slots = tuple(read_only(slot) for slot in distances[:, None])

        self._belief = belief
        self._own_cell = tuple(read_only(row) for row in np.eye(board.num_cells, dtype=np.float32))
        size = len(vector_slots(ghosts)) + (board.num_cells if belief is not None else 0) + (step_count is not None)
        low = np.zeros(size, dtype=np.float32)
        # each other's (d_row, d_col) in [-1, 1], its distance in [0, 1]
        low[cell_slots : cell_slots + 3 * ghosts].reshape(ghosts, 3)[:, :2] = -1.0
        self._spaces = dict.fromkeys(self.keys, spaces.Box(low, np.ones_like(low), dtype=np.float32))
        if ghosts == 1 and belief is None and step_count is None:  # the plain vector: one concatenation
            self._observers = {Side.AGENT: self._agent_pair, Side.GHOST: self._ghost_pair}
        elif belief is None and step_count is None and board.num_cells <= _PAIR_TABLE_CELLS:
            # a team's plain vector on a small map: each (observer, other) pair's three slots are
            # one row of a cells x cells table, the same float32 values as the slots looked up apart
            key = np.array(self._key)
            table = np.concatenate((np.stack(self._offset_slots)[key[None, :] - key[:, None] + self._centre],
                                    np.stack(self._distance_slots)[board.distance_table + 1]), axis=2)
            self._pair_table = read_only(table)
            self._unbuilt_rows()
            self._pick = tuple(itemgetter(*others) for others in self._others)  # a tuple: 2 others or more
            self._observers = {key: functools.partial(self._team_pairs, index) for index, key in enumerate(self.keys)}

    def _agent_pair(self, state: Any) -> np.ndarray:
        return self._pair(state.agent, state.ghosts[0])

    def _ghost_pair(self, state: Any) -> np.ndarray:
        return self._pair(state.ghosts[0], state.agent)

    def _pair(self, me: int, other: int) -> np.ndarray:
        """:meth:`_observe` of one ghost without a belief map or a step count: the learners' hot path."""
        return np.concatenate((self._cells[me], self._offset_slots[self._key[other] - self._key[me] + self._centre],
                               self._distance_slots[self._distance[me][other] + 1]))

    def _unbuilt_rows(self) -> None:
        """Forget the table's rows as views (each observer cell's built when first observed from it:
        a map's encoder costs no cells x cells views up front)."""
        self._pair_rows: list[tuple[np.ndarray, ...] | None] = [None] * len(self._pair_table)

    def _pair_row(self, me: int) -> tuple[np.ndarray, ...]:
        """Cell ``me``'s row of the table, as one view per other cell, kept."""
        row = self._pair_rows[me] = tuple(self._pair_table[me])
        return row

    def __getstate__(self) -> dict[str, Any]:
        # the table's rows are views of one array: pickled, each would be an array of its own
        return {key: value for key, value in self.__dict__.items() if key != "_pair_rows"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if "_pair_table" in state:
            self._unbuilt_rows()

    def _team_pairs(self, index: int, state: Any) -> np.ndarray:
        """:meth:`_observe` of a team without a belief map or a step count, each pair's slots
        read from the cells x cells table."""
        if index:  # a ghost: the agent, then its teammates
            cells = (state[0], *state[1])
            me, others = cells[index], self._pick[index](cells)
        else:  # the agent: the ghosts, in order
            me, others = state[0], state[1]
        row = self._pair_rows[me] or self._pair_row(me)
        return np.concatenate((self._cells[me], *itemgetter(*others)(row)))  # 2 others or more: a tuple

    def _observe(self, index: int, state: Any) -> np.ndarray:
        cells = (state.agent, *state.ghosts)
        me = cells[index]
        key, offsets, distances = self._key, self._offset_slots, self._distance_slots
        base, distance = key[me] - self._centre, self._distance[me]
        parts = [self._cells[me]]
        for other in self._others[index]:
            cell = cells[other]
            parts.append(offsets[key[cell] - base])
            parts.append(distances[distance[cell] + 1])
        if self._belief is not None:
            parts.append(np.asarray(self._belief(), dtype=np.float32).reshape(-1) if not index else self._own_cell[me])
        if self._step_count is not None:
            parts.append(np.array([self._step_count()], dtype=np.float32))
        return np.concatenate(parts)


class BeliefObservations(DictObservations):
    """The dict observations, with the agent's belief map added under ``"belief"``.

    Args:
        board, step_count, ghosts: as :class:`DictObservations`.
        belief: returns the current belief, a ``rows x cols`` array of probabilities.

    Raises:
        TypeError, ValueError: as :class:`DictObservations`.
    """

    _plain: ClassVar[bool] = False

    def __init__(
        self, board: Board, belief: Callable[[], np.ndarray], step_count: StepCount | None = None, ghosts: int = 1
    ) -> None:
        super().__init__(board, step_count, ghosts)
        self._settings["belief"] = self._belief = belief
        agent, shape = self.keys[0], board.layout.shape
        agent_space = self._spaces[agent]
        assert isinstance(agent_space, spaces.Dict)  # the dict encoding's
        self._spaces[agent] = spaces.Dict(
            {**agent_space.spaces, "belief": spaces.Box(0.0, 1.0, shape=shape, dtype=np.float32)}
        )


def check_view_radius(value: Any, argument: str = "view_radius") -> int | None:
    """Return ``value`` if it is a grid's view radius: ``None`` (the whole map) or an int in
    1..:data:`MAX_VIEW_RADIUS` (the one check of the setting, which its declaration names).

    Raises:
        TypeError, ValueError: anything else; the message names ``argument``.
    """
    return check_limit(value, argument, maximum=MAX_VIEW_RADIUS, none_means="the whole map")


class GridObservations(Observations):
    """The ``"grid"`` encoding: one-hot planes over the whole map, or over a window centred on
    the observer (see the module docstring and :func:`grid_channels`).

    The agent's ``opponent`` plane marks every ghost, a ghost's the agent; a team of two ghosts
    or more adds the plane :data:`GHOSTS_CHANNEL`, every ghost's cell (the observer's own
    included), so that one space serves every observer. In a window only what lies in it appears.
    Everything but the positions is precomputed per side and per "to move" flag, so an
    observation is one array copy (of a window of the padded map, when egocentric) and one
    assignment per position.

    Args:
        board, ghosts: as :class:`DictObservations`.
        view_radius: ``None`` for the whole map, or ``k`` in 1..:data:`MAX_VIEW_RADIUS` for a
            ``(2k+1) x (2k+1)`` window centred on the observer.
        step_count: adds the constant plane ``step_count``, when given.
        channels_last: ``rows x cols x C`` instead of ``C x rows x cols``.

    Raises:
        TypeError, ValueError: ``view_radius`` is not ``None`` nor an int in 1..:data:`MAX_VIEW_RADIUS`;
            ``ghosts`` as :class:`DictObservations`.
    """

    def __init__(self, board: Board, view_radius: int | None = None, step_count: StepCount | None = None,
                 channels_last: bool = False, ghosts: int = 1) -> None:
        self._serve(ghosts, step_count, view_radius=view_radius, channels_last=channels_last)
        layout = board.layout
        rows, cols, n = layout.rows, layout.cols, board.num_cells
        radius = check_view_radius(view_radius)
        channels = grid_channels(radius, step_count is not None, ghosts)
        index = {name: channel for channel, name in enumerate(channels)}
        self._out_channel = index.get(OUT_OF_MAP_CHANNEL)

        # per cell, the channels of GRID_CHANNELS up to "goal", in their order: walls, colours, items, goal
        staying = np.array(board.next_cell) == np.arange(n)[:, None]
        cells = np.column_stack((staying[:, [action for _, action in NEIGHBOUR_ORDER]],
                                 layout.colours.reshape(n, 1) == np.arange(len(COLOURS)),
                                 [layout.has_item(*board.position(cell)) for cell in range(n)], board.is_goal))
        planes = np.zeros((len(channels), rows, cols), dtype=np.float32)
        planes[: index["goal"] + 1] = cells.T.reshape(-1, rows, cols)
        if radius is not None:  # pad with the out-of-map channel, so that every window is a slice
            planes = np.pad(planes, ((0, 0), (radius, radius), (radius, radius)))
            planes[index[OUT_OF_MAP_CHANNEL]] = np.pad(np.zeros((rows, cols)), radius, constant_values=1.0)
        inside = planes[index[OUT_OF_MAP_CHANNEL]] == 0 if radius is not None else np.ones(planes.shape[1:], bool)

        def variant(side: Side, to_move: bool) -> np.ndarray:
            array = planes.copy()
            array[index["to_move"]] = inside & to_move
            array[index["is_ghost"]] = inside & (side == Side.GHOST)
            return read_only(np.ascontiguousarray(np.moveaxis(array, 0, -1)) if channels_last else array)

        # _planes[side][to_move]: the static planes of that side when it is (not) to move
        self._planes = {side: (variant(side, False), variant(side, True)) for side in Side}
        # the opponents each observer marks in its opponent plane: the agent every ghost, a ghost the agent
        self._opponents = (tuple(range(1, ghosts + 1)), *((0,),) * ghosts)
        positions = [board.position(cell) for cell in range(n)]

        def at(channel: int, r: int, c: int) -> tuple[int, int, int]:
            return (r, c, channel) if channels_last else (channel, r, c)

        def marks(channel: int) -> tuple[tuple[int, int, int] | None, ...]:
            """Where a position is marked in ``channel``, by :attr:`_place` of its cell less
            :attr:`_shift` of the observer's."""
            if radius is None:
                return tuple(at(channel, r, c) for r, c in positions)
            return tuple(at(channel, radius + dr, radius + dc) if abs(dr) <= radius and abs(dc) <= radius else None
                         for dr, dc in offsets.tolist())

        if radius is None:
            self._window: tuple[Any, ...] = (slice(None),) * n
            self._place, self._shift = tuple(range(n)), (0,) * n
        else:
            width = 2 * radius + 1
            spatial = [(slice(r, r + width), slice(c, c + width)) for r, c in positions]
            self._window = tuple((*window, slice(None)) if channels_last else (slice(None), *window)
                                 for window in spatial)
            # a position's index in the window by offset, as DictObservations finds offsets
            key, centre, offsets = _offset_table(board)
            self._place, self._shift = key, tuple(k - centre for k in key)
        self._self_at = marks(index["self"]) if radius is None else (at(index["self"], radius, radius),) * n
        self._opponent_at = marks(index["opponent"])
        self._ghosts_at = marks(index[GHOSTS_CHANNEL]) if ghosts > 1 else ()
        self._step_at: Any = index.get(STEP_COUNT_CHANNEL)
        self._out_at: Any = self._out_channel
        if channels_last:
            self._step_at, self._out_at = (..., self._step_at), (..., self._out_at)
        shape = self._planes[Side.AGENT][False][self._window[0]].shape  # what every observation copies
        self._spaces = dict.fromkeys(self.keys, spaces.Box(0.0, 1.0, shape=shape, dtype=np.float32))

    def _agent_observes(self, state: Any) -> np.ndarray:
        return self._view(state.agent, state.ghosts[0], Side.AGENT, state)

    def _ghost_observes(self, state: Any) -> np.ndarray:
        return self._view(state.ghosts[0], state.agent, Side.GHOST, state)

    def _observe(self, index: int, state: Any) -> np.ndarray:
        cells = (state.agent, *state.ghosts)
        me, opponents = cells[index], self._opponents[index]
        observation = self._view(me, cells[opponents[0]], self._sides[index], state)
        place, shift = self._place, self._shift[me]
        for other in opponents[1:]:  # the agent's further opponents: a team's other ghosts
            at = self._opponent_at[place[cells[other]] - shift]
            if at is not None:
                observation[at] = 1.0
        for ghost in cells[1:] if self._team else ():
            at = self._ghosts_at[place[ghost] - shift]
            if at is not None:
                observation[at] = 1.0
        return observation

    def _view(self, me: int, other: int, side: Side, state: Any) -> np.ndarray:
        """The observation from cell ``me`` of ``side``'s observer with its first opponent on
        cell ``other`` (a team's further ghosts are :meth:`_observe`'s)."""
        observation = self._planes[side][state.turn == side and state.outcome == _ONGOING][self._window[me]].copy()
        observation[self._self_at[me]] = 1.0
        at = self._opponent_at[self._place[other] - self._shift[me]]
        if at is not None:
            observation[at] = 1.0
        if self._step_count is not None:
            fraction = self._step_count()
            if self._out_channel is None:
                observation[self._step_at] = fraction
            else:  # 0 outside the map, like every channel but out_of_map
                np.multiply(1.0 - observation[self._out_at], fraction, out=observation[self._step_at])
        return observation


def _cell_sentences(colour: int, flags: tuple[int, ...], goal: bool, open_ways: list[str]) -> str:
    """What the ``"text"`` encoding says about the observer's own cell."""
    names = [name for name, flag in zip(ITEM_FLAGS, flags, strict=True) if flag]
    items = ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0] if names else "no items"
    ways = ", ".join(open_ways) if open_ways else "none"
    goal_phrase = "a goal" if goal else "not a goal"
    return f"Your cell is {COLOURS[colour]}, with {items}, {goal_phrase}. Open: {ways}."


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


#: The closing phrases: the game is over, the observer's move.
_OVER, _YOUR_MOVE = " The game is over.", " Your move."


class TextObservations(Observations):
    """The ``"text"`` encoding: a short English description of what the observer sees, for
    language-model agents, in a :class:`gymnasium.spaces.Text` over :data:`TEXT_CHARSET` whose
    ``max_length`` depends only on the layout's size and the number of ghosts (and the step
    limit, with a step count). The observer's cell, then each of its others with offset and
    distance ("The ghost is 3 down, 3 steps away."; in a team "Ghost 1 is 2 up, 2 steps away.").

    Args:
        board, ghosts: as :class:`DictObservations`.
        step_count: closes the text with ``Cycle c of max_cycles.``, when given.

    Raises:
        TypeError, ValueError: as :class:`DictObservations`.
    """

    def __init__(self, board: Board, step_count: StepCount | None = None, ghosts: int = 1) -> None:
        self._serve(ghosts, step_count)
        layout = board.layout
        self._cells = tuple(
            _cell_sentences(
                int(layout.colours[board.position(cell)]),
                layout.has_item(*board.position(cell)),
                board.is_goal[cell],
                [name for name, action in NEIGHBOUR_ORDER if board.action_mask[cell][action]],
            )
            for cell in range(board.num_cells)
        )
        self._key, self._centre, offsets = _offset_table(board)
        self._distance = board.distance
        self._offsets = tuple(_offset_phrase(dr, dc) for dr, dc in offsets.tolist())
        self._distances = tuple(_distance_phrase(d) for d in range(-1, board.diameter + 1))
        # how the text names each player, the agent first; each observer's opening ("You are the
        # agent. ", "You are ghost 1. ") and its closing phrase while it waits
        k = self.ghosts
        players = ("The agent", "The ghost") if k == 1 else ("The agent", *(f"Ghost {i}" for i in range(k)))
        self._openings = tuple(f"You are {name[0].lower()}{name[1:]}. " for name in players)
        self._waits = (f" The {'ghost moves' if k == 1 else 'ghosts move'} next.", *(" The agent moves next.",) * k)
        # _named[index]: (other, " <its name> is ") per other of observer index
        self._named = tuple(tuple((other, f" {players[other]} is ") for other in others) for others in self._others)
        # the longest text any state of any layout of this size can give: the longest of each part, whatever the map
        cell, offset, distance = self._longest_parts(layout.rows, layout.cols)
        other = max(len(f" {name} is , .") for name in players) + offset + distance
        turn = max(len(phrase) for phrase in (_OVER, _YOUR_MOVE, *self._waits))
        steps = 0 if step_count is None else len(step_count.sentence_of(step_count.max_cycles))
        longest = max(len(phrase) for phrase in self._openings) + cell + self.ghosts * other + turn + steps
        self._spaces = dict.fromkeys(self.keys, spaces.Text(max_length=longest, min_length=1, charset=TEXT_CHARSET))

    @staticmethod
    @functools.cache
    def _longest_parts(rows: int, cols: int) -> tuple[int, int, int]:
        """The longest own-cell sentences, offset phrase and distance phrase of any ``rows x cols`` layout."""
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
        return cell, offset, distance

    def _observe(self, index: int, state: Any) -> str:
        cells = (state.agent, *state.ghosts)
        me = cells[index]
        key, distance, base = self._key, self._distance[me], self._key[me] - self._centre
        text = self._openings[index] + self._cells[me]
        for other, named in self._named[index]:
            cell = cells[other]
            text += f"{named}{self._offsets[key[cell] - base]}, {self._distances[distance[cell] + 1]}."
        if state.outcome != _ONGOING:
            text += _OVER
        else:
            text += _YOUR_MOVE if state.turn == self._sides[index] else self._waits[index]
        return text if self._step_count is None else text + self._step_count.sentence()
