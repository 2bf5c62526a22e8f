"""The observation encoders of a team game, one agent against ``k >= 2`` ghosts:
:class:`TeamObservations` extends each one-ghost encoder of :mod:`gridghost.sensing.encoders` to
the team (the module docstring of :mod:`gridghost.sensing.observations` describes those).
"""

from __future__ import annotations

import functools
from typing import Any, cast

import numpy as np
from gymnasium import spaces

from gridghost.core.names import AGENT, ghost_names
from gridghost.core.rules import Board, GameState, Side
from gridghost.sensing.encoders import (
    _TURN_PHRASES,
    DictObservations,
    GridObservations,
    TextObservations,
    VectorObservations,
)
from gridghost.sensing.encoding import _ONGOING, TEXT_CHARSET, VECTOR_SLOTS, Observations, grid_channels

#: A team's waiting phrases: the agent's, then a ghost's.
_TEAM_WAITING = (" The ghosts move next.", " The agent moves next.")


def _team_names(ghosts: int) -> tuple[str, ...]:
    """How a team's text names each player: ``"The agent"``, ``"Ghost 0"``, ..."""
    return ("The agent", *(f"Ghost {index}" for index in range(ghosts)))


def _team_opening(index: int, names: tuple[str, ...]) -> str:
    """A team's text's opening for observer ``index``: ``"You are the agent. "``, ``"You are ghost 1. "``."""
    return "You are the agent. " if index == 0 else f"You are {names[index].lower()}. "


def _team_text_space(texts: TextObservations, board: Board, ghosts: int) -> spaces.Text:
    """The ``Text`` space of a team of ``ghosts`` (see :func:`_team_text`), the same for every observer."""
    layout = board.layout
    cell, offset, distance = TextObservations._longest_parts(layout.rows, layout.cols)
    names = _team_names(ghosts)
    opening = max(len(_team_opening(index, names)) for index in range(ghosts + 1))
    other = max(len(f" {name} is , .") for name in names) + offset + distance
    turn = max(len(phrase) for phrase in (*_TEAM_WAITING, _TURN_PHRASES[0], _TURN_PHRASES[1]))
    steps = 0 if texts._step_count is None else len(texts._step_count.sentence_of(texts._step_count.max_cycles))
    return spaces.Text(max_length=opening + cell + ghosts * other + turn + steps, min_length=1,
                       charset=TEXT_CHARSET)


def _team_text(texts: TextObservations, index: int, cells: tuple[int, ...], others: tuple[int, ...],
               state: Any) -> str:
    """The text of observer ``index`` of a team game (0 the agent, ``i + 1`` ghost ``i``):
    its cell, then each of its ``others`` (indices into ``cells``) with offset and distance."""
    me = cells[index]
    names = _team_names(len(cells) - 1)
    side = Side.GHOST if index else Side.AGENT
    key, centre, distances = texts._key, texts._centre, texts._distance
    parts = [_team_opening(index, names), texts._cells[me]]
    for other in others:
        cell = cells[other]
        parts.append(f" {names[other]} is {texts._offsets[key[cell] - key[me] + centre]}, "
                     f"{texts._distances[distances[me][cell] + 1]}.")
    parts.append(_TURN_PHRASES[0] if state.outcome != _ONGOING else _TURN_PHRASES[1] if state.turn == side
                 else _TEAM_WAITING[index > 0])
    if texts._step_count is not None:
        parts.append(texts._step_count.sentence())
    return "".join(parts)


def team_vector_slots(ghosts: int) -> tuple[str, ...]:
    """The slots of a team's ``"vector"`` observation (before a belief map, a step count or a
    turn flag): :data:`VECTOR_SLOTS`, whose ``opponent`` is the first of the observer's others,
    then three slots per further other, ``other_<m>_d_row``, ``other_<m>_d_col`` and
    ``other_<m>_distance`` (see :class:`TeamObservations`).

    >>> team_vector_slots(2)[-3:]
    ('other_1_d_row', 'other_1_d_col', 'other_1_distance')
    """
    return (*VECTOR_SLOTS, *(f"other_{m}_{slot}" for m in range(1, ghosts) for slot in ("d_row", "d_col", "distance")))


#: The channel a team's ``"grid"`` observation adds at its end: 1 on every cell that holds a ghost.
GHOSTS_CHANNEL = "ghosts"


def team_grid_channels(radius: int | None = None, append_step_count: bool = False) -> tuple[str, ...]:
    """The channels of a team's ``"grid"`` observation: :func:`grid_channels`, then :data:`GHOSTS_CHANNEL`."""
    return (*grid_channels(radius, append_step_count), GHOSTS_CHANNEL)


def observer_names(ghosts: int) -> tuple[str, ...]:
    """Every observer of a team game by agent name: ``"agent"``, then the ghosts' names."""
    return (AGENT, *ghost_names(ghosts))


class TeamObservations(Observations):
    """A one-ghost encoder's observations extended to a team of ``k`` ghosts, keyed by agent name
    (``"agent"``, ``"ghost_0"``, ...) and observing a :class:`~gridghost.core.rules.GameState`.

    Each observer sees the one-ghost observation of the state with one ghost on the board (the
    agent: ghost 0, its "opponent"; ghost ``i``: itself, opposite the agent), extended with its
    *others*: the agent's others are the ghosts in index order; ghost ``i``'s are the agent, then
    its teammates in index order (``i`` skipped). Every encoding stays the same for ``k = 1``
    (which the views play with the one-ghost encoders themselves):

    - ``"vector"`` / ``"belief_vector"``: after the opponent's three slots, three more per further
      other (``d_row``, ``d_col``, distance, scaled as the opponent's; :func:`team_vector_slots`),
      before the belief map and the step count. The agent's and every ghost's space is one object.
    - ``"grid"``: the agent's ``opponent`` plane marks every ghost; a ghost's marks the agent; one
      more plane, ``ghosts`` (:func:`team_grid_channels`), marks every ghost's cell (the
      observer's own included) for every observer, so one space serves all. Egocentric with
      ``view_radius``: only what lies in the window appears.
    - ``"dict"`` / ``"belief"``: the agent's ``ghost_relative_pos`` and ``ghost_distance`` become
      ``<name>_relative_pos`` and ``<name>_distance`` per ghost; a ghost keeps
      ``agent_relative_pos`` and ``agent_distance`` and gains the same two per teammate.
    - ``"text"``: every other is named with its offset and distance ("Ghost 1 is 2 up, 2 steps
      away."); a ghost opens with "You are ghost 1."

    Args:
        inner: the one-ghost encoder of the encoding (not wrapped for masks or turns).
        obs_type: its encoding's name.
        board: the board of the layout.
        ghosts: the team's size ``k`` (2 or more).
    """

    def __init__(self, inner: Observations, obs_type: str, board: Board, ghosts: int) -> None:
        self.ghosts = ghosts
        self.keys = observer_names(ghosts)
        self._inner = {side: inner.observer(side) for side in Side}
        dicts = DictObservations(board)
        self._key, self._centre, self._distance = dicts._key, dicts._centre, board.distance
        self._kind = obs_type if obs_type in ("grid", "text") else "vector" if "vector" in obs_type else "dict"
        # others[index]: the observer's others, as indices into (agent, ghost 0, ..., ghost k-1)
        self._others = tuple(
            tuple(range(1, ghosts + 1)) if index == 0 else (0, *(j + 1 for j in range(ghosts) if j != index - 1))
            for index in range(ghosts + 1)
        )
        base = inner.space(Side.AGENT)
        if self._kind == "vector":
            assert isinstance(base, spaces.Box)
            self._vectors = cast(VectorObservations, inner)
            self._cut = len(VECTOR_SLOTS)
            # per other: d_row and d_col in [-1, 1], the distance in [0, 1]
            others = np.tile(np.array([-1, -1, 0], dtype=np.float32), ghosts - 1)
            low = np.concatenate((base.low[: self._cut], others, base.low[self._cut:]))
            shared: spaces.Space[Any] = spaces.Box(low, np.ones_like(low), dtype=np.float32)
            self._spaces = dict.fromkeys(self.keys, shared)
        elif self._kind == "grid":
            grids = cast(GridObservations, inner)
            self._grids = grids
            shape = base.shape
            assert shape is not None
            self._last = len(shape) - 1 if grids._channels_last else 0
            extended = list(shape)
            extended[self._last] += 1
            self._ghost_channel = shape[self._last]
            self._spaces = dict.fromkeys(self.keys, spaces.Box(0.0, 1.0, shape=tuple(extended), dtype=np.float32))
        elif self._kind == "text":
            texts = cast(TextObservations, inner)
            self._texts = texts
            self._spaces = dict.fromkeys(self.keys, _team_text_space(texts, board, ghosts))
        else:
            self._dicts = dicts
            agent_space, ghost_space = inner.space(Side.AGENT), inner.space(Side.GHOST)
            assert isinstance(agent_space, spaces.Dict) and isinstance(ghost_space, spaces.Dict)
            pair = {key: agent_space[f"ghost_{key}"] for key in ("relative_pos", "distance")}
            names = self.keys
            self._spaces = {}
            for index, name in enumerate(names):
                entries = dict((ghost_space if index else agent_space).spaces)
                if not index:
                    del entries["ghost_relative_pos"], entries["ghost_distance"]
                for other in self._others[index]:
                    if other:
                        entries.update({f"{names[other]}_{key}": space for key, space in pair.items()})
                self._spaces[name] = spaces.Dict(entries)
        # the plain vector (no belief map, no step count) is built directly: the hot path of vector learners
        plain = self._kind == "vector" and self._vectors._belief is None and self._vectors._step_count is None
        view = self._plain_vector if plain else self._team_view
        self._observers = {name: functools.partial(view, index) for index, name in enumerate(self.keys)}

    def side_of(self, key: str) -> Side:
        """The side of the observer named ``key``."""
        return Side.AGENT if key == AGENT else Side.GHOST

    def _cells(self, state: Any) -> tuple[int, ...]:
        return (state.agent, *state.ghosts)

    def _plain_vector(self, index: int, state: Any) -> np.ndarray:
        """:meth:`_team_view` of a plain ``"vector"``, in one concatenation."""
        cells = (state.agent, *state.ghosts)
        me = cells[index]
        key, centre, distance, vectors = self._key, self._centre, self._distance[me], self._vectors
        offsets, distances, base = vectors._offset_slots, vectors._distance_slots, key[me] - centre
        parts = [vectors._cells[me]]
        for other in self._others[index]:
            cell = cells[other]
            parts.append(offsets[key[cell] - base])
            parts.append(distances[distance[cell] + 1])
        return np.concatenate(parts)

    def _team_view(self, index: int, state: Any) -> Any:
        """Observer ``index``'s observation (0 the agent, ``i + 1`` ghost ``i``) of the team state."""
        cells = self._cells(state)
        me = cells[index]
        one = GameState(state.agent, state.ghosts[index - 1] if index else state.ghosts[0], state.turn, state.outcome)
        observation = self._inner[Side.GHOST if index else Side.AGENT](one)
        others = self._others[index]
        key, centre = self._key, self._centre
        if self._kind == "vector":
            vectors = self._vectors
            extra = [part for other in others[1:] for part in (
                vectors._offset_slots[key[cells[other]] - key[me] + centre],
                vectors._distance_slots[self._distance[me][cells[other]] + 1])]
            return np.concatenate((observation[: self._cut], *extra, observation[self._cut:]))
        if self._kind == "grid":
            grids = self._grids
            plane = np.zeros_like(observation[(slice(None),) * self._last + (slice(0, 1),)])
            extended = np.concatenate((observation, plane), axis=self._last)
            for ghost in cells[1:]:
                at = grids._position_in(me, ghost)
                if at is not None:
                    extended[grids._in_channel(at, self._ghost_channel)] = 1.0
                    if not index:  # the agent's opponents: every ghost
                        extended[at] = 1.0
            return extended
        if self._kind == "text":
            return _team_text(self._texts, index, cells, others, state)
        if not index:
            del observation["ghost_relative_pos"], observation["ghost_distance"]
        dicts, names = self._dicts, self.keys
        for other in others:
            if other:
                cell = cells[other]
                observation[f"{names[other]}_relative_pos"] = dicts._offset[key[cell] - key[me] + centre].copy()
                observation[f"{names[other]}_distance"] = self._distance[me][cell]
        return observation
