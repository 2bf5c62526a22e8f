"""The observation encoders, one class per encoding: ``"dict"`` (the reference), ``"vector"``,
``"belief"``, ``"grid"`` and ``"text"``. The module docstring of :mod:`gridghost.sensing.observations`
describes what each holds; :func:`~gridghost.sensing.observations.make_observations` chooses and wraps them.
"""

from __future__ import annotations

import functools
import itertools
import string
from collections.abc import Callable
from typing import Any, cast

import numpy as np
from gymnasium import spaces

from gridghost.core.checks import check_limit
from gridghost.core.layout import COLOURS, ITEM_FLAGS
from gridghost.core.rules import ACTION_DELTAS, NEIGHBOUR_ORDER, NUM_ACTIONS, Board, GameState, Side
from gridghost.sensing.encoding import (
    _ONGOING,
    MAX_VIEW_RADIUS,
    OUT_OF_MAP_CHANNEL,
    STEP_COUNT_CHANNEL,
    TEXT_CHARSET,
    VECTOR_SLOTS,
    Observations,
    StepCount,
    _me_other,
    _moved_last,
    _read_only,
    grid_channels,
)


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
        return np.concatenate(
            (
                self._cells[me],
                self._offset_slots[self._key[other] - self._key[me] + self._centre],
                self._distance_slots[self._distance[me][other] + 1],
            )
        )

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
        radius = check_view_radius(view_radius)
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
        self._channels_last = channels_last
        if radius is None:  # the offsets of every pair of cells, for teams (see _position_in)
            dicts = DictObservations(board)
            self._key, self._centre = dicts._key, dicts._centre
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

    def _position_in(self, me: int, other: int) -> tuple[int, int, int] | None:
        """Where the observation of the observer on cell ``me`` marks ``other`` in the ``opponent``
        plane, or ``None`` when it lies outside the window (teams mark every ghost this way)."""
        if self._radius is None:
            return self._opponent_at[other]  # type: ignore[no-any-return]
        return self._opponent_by_offset[self._key[other] - self._key[me] + self._centre]  # type: ignore[no-any-return]

    def _in_channel(self, at: tuple[int, int, int], channel: int) -> tuple[int, int, int]:
        """The index ``at`` (of a cell in some plane) moved to plane ``channel``."""
        return (at[0], at[1], channel) if self._channels_last else (channel, at[1], at[2])

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
        cell, offset, distance = TextObservations._longest_parts(rows, cols)
        opening = max(len(f"You are the {me}. ") for me, _ in _ROLE_PHRASES.values())
        turn = max(len(_TURN_PHRASES[2].format(opponent=other)) for _, other in _ROLE_PHRASES.values())
        steps = 0 if step_count is None else len(step_count.sentence_of(step_count.max_cycles))
        return opening + cell + len(" The ghost is , .") + offset + distance + turn + steps

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
