"""A team game as dense NumPy arrays: the state space, the memory budget, and the reductions over
the team's joint moves that the team solver (:mod:`gridghost.planning.team`) sweeps with.

A state is ``(agent cell, ghost 0's cell, ..., ghost k-1's cell)`` with the agent to move; the
arrays hold every such tuple, ``cells ** (k + 1)`` of them, in an array of shape
``(cells,) * (k + 1)`` (axis 0 the agent, axis ``1 + i`` ghost ``i``). The states where the game
is over (the agent on a ghost's cell or on a goal) stay in the arrays with value 0: they are a
fraction ``(k + goals) / cells`` of them, and keeping them keeps every move a plain shift of one
axis. The team decides in the state between the two half-turns (the agent has moved, the team is
to move), indexed by the same tuple.

The team's best joint move is a min over ``4 ** k`` joint moves; since the ghosts move together
and independently, ``min over (m_1..m_k) of W[a, m_1(g_1), ..., m_k(g_k)]`` is ``k`` successive
mins over one ghost axis each (:meth:`TeamModel.reduce_axis`): ``4 k`` shifts of the array
instead of ``4 ** k`` gathers.

The solver refuses a game whose arrays would not fit :data:`MAX_BYTES` (or the ``max_bytes``
passed), before allocating anything (:func:`team_bytes` is the estimate).

>>> import numpy as np
>>> from gridghost.core.game import Game
>>> from gridghost.core.layout import Layout
>>> from gridghost.core.slip import NoSlip
>>> layout = Layout(np.zeros((3, 3), int), goals=[(0, 0)], agent_start=(1, 1), ghost_start=[(2, 2), (2, 0)])
>>> model = TeamModel(Game(layout, NoSlip(), ghosts=2))
>>> model.shape, int(model.live.sum())  # 9 ** 3 states: the agent off the goal and off both ghosts in 8 * 8 * 8
((9, 9, 9), 512)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gridghost.core.checks import check_cell, check_limit
from gridghost.core.game import Game
from gridghost.core.names import NUM_ACTIONS
from gridghost.core.rules import Outcome, Side

#: The most bytes of arrays the team solver allocates unless told otherwise (``max_bytes=``): 1 GiB
#: takes 2 ghosts on a 13 x 13 map, 3 ghosts on a 6 x 7 one or 4 ghosts on a 4 x 5 one.
MAX_BYTES = 2**30
#: How many bytes a solve has alive at its peak, per state: a solution's arrays (values, the
#: agent's action values, the team's landing values, both policies) while the outcome
#: probabilities are iterated in a workspace of eleven float64 arrays, with the rewards and the
#: masks (measured with tracemalloc: 204 at most, for 2 to 4 ghosts).
BYTES_PER_STATE = 208
#: What a fixed agent policy of probabilities adds per state (four float64; a fixed action adds
#: one byte), and a fixed team policy (the index of the state its move leads to).
AGENT_POLICY_BYTES, TEAM_TABLE_BYTES = 32, 8

# The shift of one ghost axis, seen as (rows, cols), each move reads from: (row, col) offsets.
_OFFSETS = ((0, -1), (1, 0), (0, 1), (-1, 0))


def team_states(cells: int, ghosts: int) -> int:
    """The number of joint states of ``ghosts`` ghosts on a map of ``cells`` cells: ``cells ** (ghosts + 1)``."""
    return cells ** (ghosts + 1)


def team_bytes(cells: int, ghosts: int, per_state: int = 0) -> int:
    """The bytes a team solve of ``ghosts`` ghosts on ``cells`` cells allocates, about
    (:data:`BYTES_PER_STATE` per state, plus ``per_state`` for fixed policies)."""
    return team_states(cells, ghosts) * (BYTES_PER_STATE + per_state)


def check_budget(team: Game, max_bytes: Any, per_state: int = 0) -> int:
    """Refuse a team game whose arrays exceed the budget, before anything is allocated.

    Args:
        team: the game.
        max_bytes: the budget, an int >= 1, or ``None`` for :data:`MAX_BYTES`.
        per_state: the bytes per state that fixed policies add.

    Returns:
        The estimated bytes.

    Raises:
        TypeError, ValueError: ``max_bytes`` is not an int >= 1 or ``None``.
        ValueError: the estimate exceeds the budget (the message gives the states and bytes).
    """
    budget = check_limit(max_bytes, "max_bytes", none_means="gridghost.planning.team_model.MAX_BYTES")
    budget = MAX_BYTES if budget is None else budget
    needed = team_bytes(team.num_cells, team.ghosts, per_state)
    if needed > budget:
        states = team_states(team.num_cells, team.ghosts)
        raise ValueError(
            f"a team of {team.ghosts} ghosts on map {team.layout.name!r} ({team.num_cells} cells) has "
            f"{team.num_cells} ** {team.ghosts + 1} = {states:,} joint states, about {needed:,} bytes "
            f"({needed / 2**20:,.0f} MiB) of arrays; the budget is max_bytes={budget:,} ({budget / 2**20:,.0f} MiB): "
            "pass a larger max_bytes, or solve a smaller map or team"
        )
    return needed


class TeamModel:
    """A :class:`~gridghost.core.game.Game` as dense arrays over its joint states.

    Args:
        team: the game.
        max_bytes: the memory budget (see :func:`check_budget`); ``None`` means :data:`MAX_BYTES`.
        per_state: the bytes per state that the caller's fixed policies add to the estimate.

    Attributes:
        team, game: the team game and the one-ghost game it wraps.
        ghosts, cells: the team's size and the map's cell count.
        shape: ``(cells,) * (ghosts + 1)``; ``size`` its product.
        caught: ``bool[shape]``, the agent on a ghost's cell.
        goal: ``bool[cells, 1, ..., 1]``, the agent on a goal (broadcasts against ``shape``).
        live: ``bool[shape]``, the game goes on (neither); ``over`` its negation.

    Raises:
        TypeError: ``team`` is not a Game.
        TypeError, ValueError: as :func:`check_budget`.
    """

    def __init__(self, team: Game, max_bytes: Any = None, per_state: int = 0) -> None:
        if not isinstance(team, Game):
            raise TypeError(f"team must be a gridghost.core.game.Game, got {team!r}")
        self.bytes = check_budget(team, max_bytes, per_state)
        self.team = self.game = team
        self.ghosts, self.cells = k, cells = team.ghosts, team.num_cells
        self.rows, self.cols = team.layout.shape
        self.shape = (cells,) * (k + 1)
        self.size = cells ** (k + 1)
        self.moves = np.asarray(team.moves)
        agent = np.arange(cells).reshape((cells,) + (1,) * k)
        self.caught = np.zeros(self.shape, dtype=bool)
        for axis in range(1, k + 1):
            self.caught |= agent == self._along(np.arange(cells), axis)
        self.goal = np.asarray(team.goals).reshape((cells,) + (1,) * k)
        self.live = ~self.caught & ~self.goal
        self.over = ~self.live
        # The agent's slip outcomes per action: (probability, destination of every cell, or None
        # where it is the cell itself).
        identity = np.arange(cells)
        self.agent_outcomes = tuple(
            tuple((float(p), None if np.array_equal(dest, identity) else np.asarray(dest))
                  for p, dest in zip(*team.outcomes[action], strict=True) if p > 0.0)
            for action in range(NUM_ACTIONS))
        self._shifts = self._grid_shifts()

    def _along(self, values: np.ndarray, axis: int) -> np.ndarray:
        """``values`` (``[cells]``) shaped to broadcast along ``axis`` of :attr:`shape`."""
        shape = [1] * (self.ghosts + 1)
        shape[axis] = self.cells
        return values.reshape(shape)

    def _grid_shifts(self) -> tuple[np.ndarray, tuple[np.ndarray, ...]] | None:
        """Whether every move leads to the grid neighbour or stays (so that a move along an axis is
        a shifted slice): ``(stays, opens)`` as ``[cells]`` masks (a cell where some move stays;
        per move, the cells it leaves), or ``None`` when not."""
        rows, cols = self.rows, self.cols
        r, c = np.divmod(np.arange(self.cells), cols)
        opens = []
        for move, (dr, dc) in enumerate(_OFFSETS):
            target = self.moves[:, move]
            moved = target != np.arange(self.cells)
            inside = (r + dr >= 0) & (r + dr < rows) & (c + dc >= 0) & (c + dc < cols)
            if not np.array_equal(target[moved], ((r + dr) * cols + c + dc)[moved]) or (moved & ~inside).any():
                return None
            opens.append(moved)
        stays = ~np.logical_and.reduce(opens)
        return stays, tuple(opens)

    # -- rewards -------------------------------------------------------------------------------------
    def reward_arrays(self, side: Side) -> tuple[np.ndarray, np.ndarray]:
        """``side``'s rewards of the two half-turns as arrays over the state each leads to: the
        agent's move ending at ``(a', G)`` and the team's move ending at ``(a', G')``."""
        game = self.game
        agent = {outcome: game.rewards(Side.AGENT, outcome)[side] for outcome in Outcome}
        team = {outcome: game.rewards(Side.GHOST, outcome)[side] for outcome in Outcome}
        return self._by_outcome(agent, team)

    def event_arrays(self, event: Outcome) -> tuple[np.ndarray, np.ndarray]:
        """1 for the half-turns that end the game in ``event``, else 0, as :meth:`reward_arrays`."""
        hits = {outcome: float(outcome == event) for outcome in Outcome}
        return self._by_outcome(hits, hits)

    def _by_outcome(self, agent: dict[Outcome, float], team: dict[Outcome, float]) -> tuple[np.ndarray, np.ndarray]:
        after_agent = np.where(self.caught, agent[Outcome.CAUGHT],
                               np.where(self.goal, agent[Outcome.GOAL], agent[Outcome.ONGOING]))
        after_team = np.where(self.caught, team[Outcome.CAUGHT], team[Outcome.ONGOING])
        return after_agent, after_team

    def continuing_reward(self, side: Side) -> float:
        """``side``'s reward of a full turn that ends nothing."""
        game = self.game
        return game.rewards(Side.AGENT, Outcome.ONGOING)[side] + game.rewards(Side.GHOST, Outcome.ONGOING)[side]

    # -- one axis at a time -----------------------------------------------------------------------
    def take_move(self, values: np.ndarray, axis: int, move: int) -> np.ndarray:
        """``values`` with the cell on ``axis`` replaced by where ``move`` leads from it."""
        return values.take(self.moves[:, move], axis=axis)

    def reduce_axis(self, values: np.ndarray, axis: int, how: str, out: np.ndarray,
                    scratch: np.ndarray | None = None) -> np.ndarray:
        """The best of the four moves along ghost ``axis`` (1..k), for every state at once:
        ``out[..., g, ...] = min (how="min"), max ("max") or mean ("mean") over moves m of
        values[..., moves[g, m], ...]``.

        On a grid, a move along one axis is a shifted slice of it, so this is five passes over
        the array with no gather.

        Args:
            values: ``float64[shape]``; ``out``: where the result goes (not ``values``).
            scratch: an array of the model's shape the last axis may write into (one is made
                when none is given).
        """
        if how == "mean" or self._shifts is None:
            return self._reduce_by_take(values, axis, how, out)
        stays, opens = self._shifts
        cells = self.cells
        pre, post = cells**axis, cells ** (self.ghosts - axis)
        # the last axis as two dimensions, not three: NumPy's inner loop then runs along the cells
        shape, mask = ((pre, cells), (1, cells)) if post == 1 else ((pre, cells, post), (1, cells, 1))
        src, dst = values.reshape(shape), out.reshape(shape)
        ufunc, worst = (np.minimum, np.inf) if how == "min" else (np.maximum, -np.inf)
        np.copyto(dst, src)
        np.copyto(dst, worst, where=~stays.reshape(mask))
        if post == 1:
            scratch = np.empty_like(dst) if scratch is None else scratch.reshape(shape)
        # A move is a shift of the flat cell index by dr * cols + dc; the cells it leaves (opens)
        # never wrap round a row's end, so the shifted slices stay whole.
        for move, (dr, dc) in enumerate(_OFFSETS):
            step = dr * self.cols + dc
            to, frm = (slice(0, cells - step), slice(step, cells)) if step > 0 else \
                (slice(-step, cells), slice(0, cells + step))
            target = dst[:, to]
            if post > 1:  # a mask constant along the inner loop is cheap
                ufunc(target, src[:, frm], out=target, where=opens[move][to].reshape(1, -1, 1))
            else:  # one varying along it is not: a move that stays is barred by an infinite penalty
                penalty = np.where(opens[move][to], 0.0, worst)
                shifted = np.add(src[:, frm], penalty, out=scratch[:, to])  # type: ignore[index]
                ufunc(target, shifted, out=target)
        return out

    def _reduce_by_take(self, values: np.ndarray, axis: int, how: str, out: np.ndarray) -> np.ndarray:
        taken = [self.take_move(values, axis, move) for move in range(NUM_ACTIONS)]
        if how == "mean":
            np.add.reduce(taken, out=out)
            out *= 1.0 / NUM_ACTIONS
        else:
            (np.minimum if how == "min" else np.maximum).reduce(taken, out=out)
        return out

    # -- states and positions ------------------------------------------------------------------------
    def state(self, agent_pos: Any, ghost_positions: Any) -> tuple[int, ...]:
        """The index ``(agent cell, ghost cells...)`` of a state given as positions.

        Raises:
            TypeError, ValueError: ``agent_pos`` is not a ``(row, col)`` cell of the map, or
                ``ghost_positions`` not a sequence of ``k`` of them.
        """
        rows, cols, k = self.rows, self.cols, self.ghosts
        agent = check_cell(agent_pos, "agent_pos", rows, cols)
        if isinstance(ghost_positions, np.ndarray):
            ghost_positions = [tuple(cell) for cell in ghost_positions.tolist()] if ghost_positions.ndim == 2 else None
        if not isinstance(ghost_positions, (list, tuple)) or len(ghost_positions) != k or (
                k and not isinstance(ghost_positions[0], (list, tuple, np.ndarray))):
            raise TypeError(f"ghost_positions must be a sequence of {k} (row, col) cells, one per ghost, "
                            f"got {ghost_positions!r}")
        cells = [check_cell(cell, f"ghost_positions[{i}]", rows, cols) for i, cell in enumerate(ghost_positions)]
        return (agent[0] * cols + agent[1], *(row * cols + col for row, col in cells))

    def position(self, cell: int) -> tuple[int, int]:
        """The ``(row, col)`` of a cell index."""
        return divmod(int(cell), self.cols)

    def describe(self, index: tuple[Any, ...]) -> str:
        """A state's positions in words, for messages."""
        ghosts = ", ".join(str(self.position(cell)) for cell in index[1:])
        return f"agent at {self.position(index[0])}, ghosts at {ghosts}"

    def start(self) -> tuple[int, ...]:
        """The index of the start state."""
        initial = self.team.initial_state()
        return (initial.agent, *initial.ghosts)

    def grid(self, values: np.ndarray) -> np.ndarray:
        """Per-state ``values`` (``[shape, ...]``) as ``[rows, cols] * (k + 1) + [...]``: a view."""
        return values.reshape((self.rows, self.cols) * (self.ghosts + 1) + values.shape[self.ghosts + 1:])

    def joint_next(self, actions: np.ndarray) -> np.ndarray:
        """The flat index of the state each state's joint move leads to (the agent stays).

        Args:
            actions: ``int[shape + (k,)]``, each ghost's move in each state (any move where the
                game is over).
        """
        flat = np.zeros(self.shape, dtype=np.int64)
        stride = 1
        for axis in range(self.ghosts, -1, -1):
            cells = self._along(np.arange(self.cells), axis)
            if axis > 0:
                cells = self.moves[cells, actions[..., axis - 1]]
            flat = flat + cells * stride
            stride *= self.cells
        return flat.ravel()
