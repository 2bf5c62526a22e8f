"""What every observation encoder of :mod:`gridghost.sensing.observations` shares: the names of an
observation's parts (the encodings, the grid's channels, the vector's slots, the text's characters),
the :class:`Observations` base class and the appended :class:`StepCount`. The module docstring of
:mod:`gridghost.sensing.observations` describes the encodings.
"""

from __future__ import annotations

import functools
import string
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces

from gridghost.core.checks import check_ghosts, check_limit
from gridghost.core.layout import COLOURS, ITEM_FLAGS, MAX_CELLS
from gridghost.core.names import AGENT, ghost_names
from gridghost.core.rules import NEIGHBOUR_ORDER, NUM_ACTIONS, Board, Outcome, Side, read_only

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
#: The channel an egocentric grid (a window of radius ``k``) adds after :data:`GRID_CHANNELS`.
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
WAITING_MASK = read_only((np.arange(NUM_ACTIONS) == NO_OP_ACTION).astype(np.int8))
#: The largest radius of an egocentric grid's window: it holds at most :data:`~gridghost.core.MAX_CELLS` cells.
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
#: The channel a team's ``"grid"`` observation (two ghosts or more) adds at its end: 1 on every
#: cell that holds a ghost.
GHOSTS_CHANNEL = "ghosts"


_ONGOING = Outcome.ONGOING


def grid_channels(radius: int | None = None, append_step_count: bool = False, ghosts: int = 1) -> tuple[str, ...]:
    """The channel names of a ``"grid"`` observation with these options, in order: ``radius`` is
    the egocentric window's (``None``: the whole map), ``append_step_count`` adds the step count,
    and a team of ``ghosts >= 2`` adds :data:`GHOSTS_CHANNEL` last.

    >>> grid_channels(2, True)[-2:]
    ('out_of_map', 'step_count')
    >>> grid_channels(ghosts=2)[-1]
    'ghosts'
    """
    return (
        *GRID_CHANNELS,
        *((OUT_OF_MAP_CHANNEL,) if radius is not None else ()),
        *((STEP_COUNT_CHANNEL,) if append_step_count else ()),
        *((GHOSTS_CHANNEL,) if ghosts > 1 else ()),
    )


def vector_slots(ghosts: int = 1) -> tuple[str, ...]:
    """The slots of a ``"vector"`` observation of a game with ``ghosts`` ghosts (before a belief
    map, a step count or a turn flag): :data:`VECTOR_SLOTS`, whose ``opponent`` is the first of
    the observer's others, then three slots per further other, ``other_<m>_d_row``,
    ``other_<m>_d_col`` and ``other_<m>_distance``.

    >>> vector_slots(2)[-3:]
    ('other_1_d_row', 'other_1_d_col', 'other_1_distance')
    """
    return (*VECTOR_SLOTS, *(f"other_{m}_{slot}" for m in range(1, ghosts) for slot in ("d_row", "d_col", "distance")))


def observer_names(ghosts: int) -> tuple[str, ...]:
    """Every observer of a game with ``ghosts`` ghosts by agent name: ``"agent"``, then the
    ghosts' names (``"ghost"`` alone for one ghost)."""
    return (AGENT, *ghost_names(ghosts))


def _others(ghosts: int) -> tuple[tuple[int, ...], ...]:
    """Each observer's others, as indices into ``(agent, ghost 0, ..., ghost k-1)``: the agent's
    are the ghosts in order; ghost ``i``'s are the agent, then its teammates in order."""
    return tuple(
        tuple(range(1, ghosts + 1)) if index == 0 else (0, *(j + 1 for j in range(ghosts) if j != index - 1))
        for index in range(ghosts + 1)
    )


def _offset_table(board: Board) -> tuple[tuple[int, ...], int, np.ndarray]:
    """``(key, centre, offsets)``: ``offsets[key[other] - key[me] + centre]`` is the ``(d_row,
    d_col)`` of cell ``other`` from cell ``me``, one row per offset rather than per pair of
    cells, so that large layouts need no cells x cells table."""
    rows, cols = board.layout.rows, board.layout.cols
    width = 2 * cols - 1
    key = tuple(r * width + c for r, c in map(board.position, range(board.num_cells)))
    offsets = np.array([(dr, dc) for dr in range(1 - rows, rows) for dc in range(1 - cols, cols)], dtype=np.int32)
    return key, (rows - 1) * width + cols - 1, offsets


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
    """What every encoder offers: each observer's space and observations.

    An encoder of a game with ``k`` ghosts observes a state's agent and ghosts (``state.ghosts``)
    from each observer's point of view: observer 0 is the agent, observer ``i + 1`` ghost ``i``;
    one ghost is a team of one. Subclasses fill ``_spaces`` and call :meth:`_serve`.
    """

    _spaces: dict[Any, spaces.Space[Any]]
    _observers: dict[Any, Callable[[Any], Any]]
    #: The observers, by key: the two sides for one ghost, else the agent names (``"agent"``,
    #: ``"ghost_0"``, ...).
    keys: tuple[Any, ...] = tuple(Side)
    #: The number of ghosts ``k`` of the game observed.
    ghosts: int = 1

    def _serve(self, ghosts: int, step_count: StepCount | None, **settings: Any) -> None:
        """Key the observers (:attr:`keys`) for ``ghosts`` ghosts, each served by :meth:`_observe`,
        and keep the encoder's ``step_count`` and other keyword arguments (but ``board``)."""
        self._settings = {"step_count": step_count, **settings}
        self._step_count = step_count
        self.ghosts = check_ghosts(ghosts)
        self._team = ghosts > 1
        self._others = _others(ghosts)
        self._sides = (Side.AGENT, *(Side.GHOST,) * ghosts)  # each observer's side, by index
        if self._team:
            self.keys = observer_names(ghosts)
            self._observers = {key: functools.partial(self._observe, index) for index, key in enumerate(self.keys)}
        else:  # bound methods: the interpreter calls them without a partial's detour through C
            self._observers = {Side.AGENT: self._agent_observes, Side.GHOST: self._ghost_observes}

    def _agent_observes(self, state: Any) -> Any:
        return self._observe(0, state)

    def _ghost_observes(self, state: Any) -> Any:
        return self._observe(1, state)

    def _observe(self, index: int, state: Any) -> Any:
        """Observer ``index``'s observation of ``state`` (0 the agent, ``i + 1`` ghost ``i``)."""
        raise NotImplementedError

    def side_of(self, key: Any) -> Side:
        """The side of the observer ``key``: a side itself, or an agent name."""
        return Side.AGENT if key == Side.AGENT or key == AGENT else Side.GHOST

    def space(self, side: Any) -> spaces.Space[Any]:
        """The observation space of ``side`` (the same object on every call; for every encoding
        but ``"dict"`` and ``"belief"`` the same object for both sides)."""
        return self._spaces[side]

    def observe(self, side: Any, state: Any) -> Any:
        """A fresh observation of ``state`` from ``side``'s point of view."""
        return self._observers[side](state)

    def observer(self, side: Any) -> Callable[[Any], Any]:
        """The function behind :meth:`observe` for one side, for callers on a hot path."""
        return self._observers[side]
