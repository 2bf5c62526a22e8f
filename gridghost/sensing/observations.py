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
- ``action_mask_in_obs=True`` wraps the encoding in PettingZoo's classic form (:class:`MaskedObservations`).
  Not with ``"text"``: it would put a ``Text`` inside a ``Dict``, which learning libraries refuse
  (the text already says which ways are open).
- ``view_radius=k`` (``"grid"`` only), above.
- ``grid_layout="hwc"`` (``"grid"`` only) puts the channels last: ``rows x cols x C`` (or
  ``(2k+1) x (2k+1) x C'``), the layout RLlib's default CNN encoder and TensorFlow/JAX
  convolutions read; ``"chw"``, channels first, is the default (PyTorch convolutions).

Teams (``ghosts=k``, ``k >= 2``): every encoder serves the agent and every ghost, keyed by
agent name (``"agent"``, ``"ghost_0"``, ...; the two sides for one ghost), and each observer
sees its *others*: the agent the ghosts in order; ghost ``i`` the agent, then its teammates in
order (:func:`vector_slots` and :data:`GHOSTS_CHANNEL` name what a team adds; the Teams page
says it for every encoding). ``k = 1`` is the encodings above.

>>> from gridghost.core.layout import CLASSIC
>>> from gridghost.core.rules import board_for
>>> vectors = VectorObservations(board_for(CLASSIC))
>>> state = GameState(agent=2, ghosts=(19,))   # agent at (0, 2), ghost at (3, 4)
>>> vector = vectors.observe(Side.AGENT, state)
>>> vector[23:25].tolist(), bool(vector[25] == np.float32(5 / 13))   # largest distance: 13
([1.0, 0.5], True)
>>> vectors.space(Side.AGENT) is vectors.space(Side.GHOST)
True
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces

from gridghost._moved import moved_name
from gridghost.core.checks import check_choice, check_flag, check_ghosts
from gridghost.core.rules import NUM_ACTIONS, Board, GameState, Side
from gridghost.sensing.encoders import (
    BeliefObservations,
    DictObservations,
    GridObservations,
    TextObservations,
    VectorObservations,
    check_view_radius,
)

# The encoders' shared names live in encoding; every one is importable from here too, as before the split.
from gridghost.sensing.encoding import (  # noqa: F401
    _ONGOING,
    GHOSTS_CHANNEL,
    GRID_CHANNELS,
    GRID_LAYOUTS,
    MAX_VIEW_RADIUS,
    MOVE_PLANES,
    NO_OP_ACTION,
    OBS_TYPES,
    OUT_OF_MAP_CHANNEL,
    STEP_COUNT_CHANNEL,
    TEXT_CHARSET,
    VECTOR_SLOTS,
    WAITING_MASK,
    Observations,
    StepCount,
    grid_channels,
    observer_names,
    vector_slots,
)


class _Wrapper(Observations):
    """An encoder over another, ``inner``: the same observers, each distinct inner space
    extended once by ``extend`` (observers that share the inner space share the extended one)."""

    def __init__(self, inner: Observations, extend: Callable[[spaces.Space[Any]], spaces.Space[Any]]) -> None:
        self.keys, self.side_of, self.ghosts = inner.keys, inner.side_of, inner.ghosts  # type: ignore[method-assign]
        self._inner = {key: inner.observer(key) for key in self.keys}
        distinct = {id(inner.space(key)): inner.space(key) for key in self.keys}
        extended = {ident: extend(space) for ident, space in distinct.items()}
        self._spaces = {key: extended[id(inner.space(key))] for key in self.keys}


class MaskedObservations(_Wrapper):
    """Another encoder's observations wrapped as PettingZoo's classic ``{"observation": ...,
    "action_mask": int8[4]}``, the mask being :attr:`~gridghost.core.rules.Board.action_mask` of the
    observer's own cell (what ``info["action_mask"]`` holds). Observers that share the inner
    space share the wrapped one.

    Args:
        inner: the encoder to wrap.
        board: the board of the layout.
        waiting_masked: :data:`WAITING_MASK` for an observer that is not to move (only the no-op
            is legal, and nothing it sends is carried out), for views where every observer
            observes at every half-turn.
    """

    def __init__(self, inner: Observations, board: Board, waiting_masked: bool = False) -> None:
        mask_space = spaces.Box(0, 1, shape=(NUM_ACTIONS,), dtype=np.int8)
        self._waiting_masked = waiting_masked
        super().__init__(inner, lambda space: spaces.Dict({"observation": space, "action_mask": mask_space}))
        self._masks = board.action_mask
        self._observers = {key: functools.partial(self._masked, key, index, self.side_of(key))
                           for index, key in enumerate(self.keys)}

    def _masked(self, key: Any, index: int, side: Side, state: Any) -> dict[str, Any]:
        if self._waiting_masked and (state.turn != side or state.outcome != _ONGOING):
            mask = WAITING_MASK.copy()  # nothing this observer sends now is carried out
        else:
            cells = (state.agent, *state.ghosts)
            mask = self._masks[cells[index]].copy()
        return {"observation": self._inner[key](state), "action_mask": mask}


class TurnObservations(_Wrapper):
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
        super().__init__(inner, self._extend)
        flagged: dict[Any, Callable[[GameState], Any]] = {
            side: functools.partial(self._flagged, side, self.side_of(side)) for side in self.keys}
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

    def _flagged(self, key: Any, side: Side, state: GameState) -> Any:
        observation = self._inner[key](state)
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
    check_view_radius(view_radius)
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
    ghosts: int = 1,
) -> Observations:
    """Build the encoder named ``obs_type`` for ``board``, with the options.

    The spaces of every encoding but ``"dict"`` and ``"belief"`` depend only on the board's
    size and the options, so an encoder rebuilt for another map of the same size has equal ones
    (an env may keep its first space when the map changes).

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
        ghosts: the number of ghosts ``k``; above 1 the encoder is keyed by agent name and
            observes states with ``k`` ghosts.

    Raises:
        TypeError, ValueError: the options, as :func:`check_observation_options` refuses them;
            ``ghosts`` is not an int in 1..:data:`~gridghost.core.MAX_GHOSTS`.
        ValueError: a belief encoding without a belief to show; ``append_step_count`` without
            ``cycles``.
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
    ghosts = check_ghosts(ghosts)
    encoder: Observations
    if obs_type in ("vector", "belief_vector"):
        encoder = VectorObservations(board, belief if obs_type == "belief_vector" else None, step_count, ghosts)
    elif obs_type == "grid":
        encoder = GridObservations(board, view_radius, step_count, grid_layout == "hwc", ghosts)
    elif obs_type == "text":
        encoder = TextObservations(board, step_count, ghosts)
    elif obs_type == "belief":
        encoder = BeliefObservations(board, belief, step_count, ghosts)  # type: ignore[arg-type]  # checked above
    else:
        encoder = DictObservations(board, step_count, ghosts)
    if both_observe:
        encoder = TurnObservations(encoder, obs_type)
    return MaskedObservations(encoder, board, both_observe) if action_mask_in_obs else encoder


def _team_observations(inner: Observations, obs_type: str, board: Board, ghosts: int) -> Observations:
    """What ``TeamObservations(inner, obs_type, board, ghosts)`` built before every encoder served
    teams: ``inner``'s encoder with its options, for ``ghosts`` ghosts."""
    del obs_type  # the encoder's class says it
    return type(inner)(board, ghosts=check_ghosts(ghosts), **inner._settings)  # type: ignore[attr-defined, call-arg]


def _team_grid_channels(radius: int | None = None, append_step_count: bool = False) -> tuple[str, ...]:
    """What ``team_grid_channels(radius, append_step_count)`` named: a team's grid channels."""
    return grid_channels(radius, append_step_count, 2)


def __getattr__(name: str) -> Any:
    """A deprecated team name of before every encoder served teams (``TeamObservations``,
    ``TeamMaskedObservations``, ``team_vector_slots``, ``team_grid_channels``), read with a
    :class:`DeprecationWarning` naming its replacement."""
    return moved_name(__name__, name)
