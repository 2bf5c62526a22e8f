"""The game kernel: one object that owns a turn.

A :class:`Game` is built from a layout, a slip model and the rewards. It holds the board's tables
(NumPy arrays for planners, filters and batches; tuples for the scalar hot path), the initial
state, the two half-turn transitions the env calls, the exact distribution of each half-turn
(:meth:`Game.successors`, in the spirit of Gymnasium FrozenLake's ``P[s][a]``), a vectorised
slip sampler, and the chasing ghost as a ``cells x cells`` action table. Everything that needs
the motion model asks this one object; none enumerates slip outcomes or walks moves itself.

>>> from gridghost.core.layout import CLASSIC
>>> from gridghost.core.slip import LongitudinalSlip
>>> game = Game(CLASSIC, LongitudinalSlip(0.2))
>>> start = game.initial_state()
>>> [(round(p, 2), game.board.position(s.agent), r) for p, s, r, _ in game.successors(start, 1)]
[(0.1, (0, 2), -1.0), (0.9, (1, 2), -1.0)]
"""

from __future__ import annotations

import weakref
from typing import Any, NamedTuple

import numpy as np

from gridghost.core.checks import check_action, check_instance
from gridghost.core.episode import next_mover, slip_bounds, slip_outcome
from gridghost.core.layout import Layout
from gridghost.core.policies import chase_rule
from gridghost.core.rules import (
    NUM_ACTIONS,
    Board,
    GameState,
    Outcome,
    Rewards,
    Side,
    board_for,
    make_rewards,
)
from gridghost.core.slip import Moves, SlipModel

_AGENT, _GHOST = Side.AGENT, Side.GHOST
_ONGOING, _CAUGHT, _GOAL = Outcome.ONGOING, Outcome.CAUGHT, Outcome.GOAL
_new_state = GameState._make
#: Whose turn follows the ghost's half-turn (the episode's turn rule, as a constant for the hot path).
_AFTER_GHOST_TURN = Side(next_mover(int(_GHOST)))

#: One half-turn's outcome: ``(probability, next_state, agent_reward, ghost_reward)``.
Successor = tuple[float, GameState, float, float]


class Transitions(NamedTuple):
    """One half-turn from ``n`` states at once (:meth:`Game.transitions`), ``k`` outcomes each.

    Attributes:
        probabilities: ``float64[k]``, each outcome's probability (the same in every state).
        agents, ghosts: ``int64[n, k]``, the cells after the move.
        outcomes: ``int8[n, k]``, how the half-turn ended (:class:`~gridghost.core.rules.Outcome`).
        agent_rewards, ghost_rewards: ``float64[n, k]``, each side's reward.
    """

    probabilities: np.ndarray
    agents: np.ndarray
    ghosts: np.ndarray
    outcomes: np.ndarray
    agent_rewards: np.ndarray
    ghost_rewards: np.ndarray


#: Agent cells per block when the chase table is built.
_CHASE_BLOCK = 256
#: Chase tables (as an array and as bytes) by board, shared by every game on one layout while the
#: board lives.
_CHASE_TABLES: weakref.WeakKeyDictionary[Any, tuple[np.ndarray, bytes]] = weakref.WeakKeyDictionary()


class Game:
    """The rules of one game, with every table derived from them, built once.

    Args:
        layout: the map.
        slip: the agent's slip model.
        rewards: the agent's :class:`~gridghost.core.rules.Rewards`, or a preset's name
            (:data:`~gridghost.core.rules.REWARD_PRESETS`: ``"reference"``, ``"normalised"``);
            ``None`` means the reference's.
        ghost_rewards: the ghost's; ``None`` means zero-sum (the agent's negated).
        use_ghost: ``False`` takes the ghost out of the game: it cannot catch the agent and the
            turn stays with the agent.

    Attributes:
        layout, slip, use_ghost: as given.
        agent_rewards, ghost_rewards: the resolved rewards.
        board: the layout's :class:`~gridghost.core.rules.Board` (tuples, and the distance table).
        num_cells: ``rows * cols``.
        moves: read-only ``int64[cells, 4]``, the cell a single move leads to.
        action_masks: read-only ``int8[cells, 4]``, 1 where the move changes the cell.
        goals: read-only ``bool[cells]``.
        outcomes: ``outcomes[action] = (probabilities, destinations)``: the slip model's
            outcome probabilities (``float64[k]``) and, per outcome, the cell every start cell
            ends in (read-only ``int64[k, cells]``).

    Raises:
        TypeError: ``layout``, ``slip`` or a reward is of the wrong type.
        ValueError: the layout is larger than a board serves, or an unknown rewards preset.
    """

    def __init__(
        self,
        layout: Layout,
        slip: SlipModel,
        rewards: Rewards | str | None = None,
        ghost_rewards: Rewards | None = None,
        use_ghost: bool = True,
    ) -> None:
        check_instance(layout, "layout", Layout)
        check_instance(slip, "slip", SlipModel)
        agent_rewards = make_rewards(rewards)
        check_instance(ghost_rewards, "ghost_rewards", Rewards, allow_none=True)
        self.layout = layout
        self.slip = slip
        self.use_ghost = bool(use_ghost)
        self.agent_rewards = agent_rewards
        self.ghost_rewards = ghost_rewards or self.agent_rewards.negated()
        self.board = board = board_for(layout)
        self.num_cells = board.num_cells
        # the scalar hot path's tuples and bound method
        self._next_cell, self._sample = board.next_cell, slip.sample
        # the outcome of an agent landing on each cell when the ghost is not there, and whose turn
        # follows (the agent's again when the ghost is out of the game)
        self._landing = tuple(_GOAL if goal else _ONGOING for goal in board.is_goal)
        self._after_agent_turn = Side(next_mover(int(_AGENT), self.use_ghost))

        self.moves = _read_only(np.array(board.next_cell, dtype=np.int64))
        self.action_masks = _read_only(np.array(board.action_mask, dtype=np.int8))
        self.goals = _read_only(np.array(board.is_goal, dtype=bool))
        self.outcomes = tuple(self._outcome_table(action) for action in range(NUM_ACTIONS))
        # the same as tuples for successors(): per action, (probabilities, per cell its destinations)
        self._outcome_tuples = tuple(
            (tuple(probabilities.tolist()), tuple(map(tuple, destinations.T.tolist())))
            for probabilities, destinations in self.outcomes
        )
        # Per action, for agent_moves: the running probabilities a uniform is compared with, in the
        # order sampling walks the outcomes (the engines' order too), and the destinations.
        self._sampler = tuple((_read_only(slip_bounds(probabilities)), destinations)
                              for probabilities, destinations in self.outcomes)
        # (agent's reward, ghost's reward) per (mover, outcome)
        self._rewards = {
            mover: tuple((self.agent_rewards.of(mover, o), self.ghost_rewards.of(mover, o)) for o in Outcome)
            for mover in Side
        }
        # the same as arrays indexed by outcome, per mover: (agent's rewards, ghost's rewards)
        self._reward_arrays = {
            mover: tuple(_read_only(np.array(side)) for side in zip(*self._rewards[mover], strict=True))
            for mover in Side
        }
        self._chase: tuple[np.ndarray, bytes] | None = None

    def __reduce__(self) -> tuple[Any, ...]:
        return Game, (self.layout, self.slip, self.agent_rewards, self.ghost_rewards, self.use_ghost)

    def _destinations(self, moves: Moves) -> np.ndarray:
        """The cell every start cell ends in after ``moves`` (one array lookup per move)."""
        cells = np.arange(self.num_cells)
        for move in moves:
            cells = self.moves[cells, move]
        return cells

    def _outcome_table(self, action: int) -> tuple[np.ndarray, np.ndarray]:
        outcomes = self.slip.outcomes(action)
        probabilities = _read_only(np.array([p for p, _ in outcomes]))
        destinations = _read_only(np.stack([self._destinations(moves) for _, moves in outcomes]))
        return probabilities, destinations

    # -- states and half-turns -------------------------------------------------------------------
    def initial_state(self) -> GameState:
        """The state after ``reset``: both at their start cells, the agent to move."""
        return self.board.initial_state()

    def opening_can_end(self) -> bool:
        """Whether some outcome of some opening move of the agent ends the game (a goal or the
        ghost within its reach). A learning ghost's first observation comes after that move, and
        Gymnasium's ``reset`` cannot report a finished episode, so such maps cannot serve it."""
        start = self.initial_state()
        return any(after.outcome != Outcome.ONGOING
                   for action in range(NUM_ACTIONS) for _, after, _, _ in self.successors(start, action))

    def agent_step(self, state: GameState, action: int, rng: np.random.Generator) -> tuple[GameState, Moves]:
        """The agent's half-turn: draw its slip from ``rng`` (as :meth:`SlipModel.sample`) and
        carry out the moves. Only the final cell counts: caught if it is the ghost's, else goal
        reached if it is a goal. Without the ghost in play nobody is caught and the turn stays
        with the agent.

        Returns:
            The next state and the moves carried out (``()`` when it stayed).

        Raises:
            TypeError, ValueError: ``action`` is not an int in 0..3.
            ValueError: it is not the agent's turn or the game is over (nothing is drawn).
        """
        if type(action) is not int or not 0 <= action < NUM_ACTIONS:  # check_action's fast path, inline
            action = check_action(action, "agent")
        if state.turn != _AGENT or state.outcome != _ONGOING:
            raise ValueError(f"the agent cannot move in state {state}")
        moves = self._sample(action, rng)
        cell, ghost = state.agent, state.ghost
        next_cell = self._next_cell
        for move in moves:
            cell = next_cell[cell][move]
        # _landed, inlined: this is the env's hot path
        if cell == ghost and self.use_ghost:
            return _new_state((cell, ghost, _GHOST, _CAUGHT)), moves
        return _new_state((cell, ghost, self._after_agent_turn, self._landing[cell])), moves

    def ghost_step(self, state: GameState, action: int) -> GameState:
        """The ghost's half-turn: one move, no slip; caught if it lands on the agent.

        Raises:
            TypeError, ValueError: ``action`` is not an int in 0..3.
            ValueError: it is not the ghost's turn or the game is over.
        """
        if type(action) is not int or not 0 <= action < NUM_ACTIONS:
            action = check_action(action, "ghost")
        agent, cell, turn, outcome = state
        if turn != _GHOST or outcome != _ONGOING:
            raise ValueError(f"the ghost cannot move in state {state}")
        cell = self._next_cell[cell][action]
        return _new_state((agent, cell, _AFTER_GHOST_TURN, _CAUGHT if cell == agent else _ONGOING))

    def rewards(self, mover: Side, outcome: Outcome) -> tuple[float, float]:
        """``(agent's reward, ghost's reward)`` for a half-turn of ``mover`` ending in ``outcome``."""
        return self._rewards[mover][outcome]

    def successors(self, state: GameState, action: int) -> list[Successor]:
        """The exact distribution of the half-turn ``action`` of the side to move, for one state:
        what :meth:`transitions` gives for many, with outcomes that lead to the same next state
        merged. It reads the same outcome tables, as tuples.

        Returns:
            ``[(probability, next_state, agent_reward, ghost_reward), ...]``: probabilities
            positive and summing to 1, in the order the slip model lists the outcomes.

        Raises:
            TypeError, ValueError: ``action`` is not an int in 0..3.
            ValueError: the game is over.
        """
        if state.turn == _GHOST:
            after = self.ghost_step(state, action)
            return [(1.0, after, *self._rewards[_GHOST][after.outcome])]
        action = check_action(action, "agent")
        if state.outcome != _ONGOING:
            raise ValueError(f"the agent cannot move in state {state}")
        probabilities, cells = self._outcome_tuples[action]
        merged: dict[GameState, float] = {}
        for probability, cell in zip(probabilities, cells[state.agent], strict=True):
            after = self._landed(cell, state.ghost)
            merged[after] = merged.get(after, 0.0) + probability
        return [(p, after, *self._rewards[_AGENT][after.outcome]) for after, p in merged.items() if p > 0.0]

    def _landed(self, cell: int, ghost: int) -> GameState:
        """The state after the agent's move ends on ``cell``: only the final cell counts
        (:meth:`agent_step` has this inline, :meth:`transitions` as arrays)."""
        if cell == ghost and self.use_ghost:
            return _new_state((cell, ghost, _GHOST, _CAUGHT))
        return _new_state((cell, ghost, self._after_agent_turn, self._landing[cell]))

    def transitions(self, side: Side, action: int, agents: np.ndarray, ghosts: np.ndarray) -> Transitions:
        """The half-turn ``action`` of ``side`` from many states at once: the rules of a move,
        vectorised, for planners and batches (:meth:`successors` reads one state of it).

        Only the final cell of a move counts. After the agent's move: caught if it is the ghost's
        cell (when the ghost plays), else goal reached if it is a goal. After the ghost's move
        (one move, no slip): caught if it is the agent's cell.

        Args:
            side: the side to move.
            action: its action, an int in 0..3.
            agents, ghosts: ``int[n]`` cell indices of states where the game goes on.

        Returns:
            A :class:`Transitions` of ``k`` outcomes per state (the slip model's outcomes for the
            agent, in its order and not merged; one for the ghost).

        Raises:
            TypeError, ValueError: ``side`` is not a :class:`~gridghost.core.rules.Side`, ``action``
                not an int in 0..3, or ``agents``/``ghosts`` not equal-length integer arrays of
                cells; ValueError too for the ghost's move when it is out of the game, or a state
                where the game is over (the agent on the ghost's cell or on a goal).
        """
        if not isinstance(side, Side):
            raise TypeError(f"side must be a gridghost.core.rules.Side, got {side!r}")
        action = check_action(action, side.name.lower())
        agents, ghosts = np.asarray(agents), np.asarray(ghosts)
        for cells, argument in ((agents, "agents"), (ghosts, "ghosts")):
            if cells.ndim != 1 or not np.issubdtype(cells.dtype, np.integer):
                raise TypeError(f"{argument} must be a 1-d array of int cell indices, got shape {cells.shape} "
                                f"and dtype {cells.dtype}")
            self._check_cells(cells, argument)
        if agents.shape != ghosts.shape:
            raise ValueError(f"agents and ghosts must have the same length, got {len(agents)} and {len(ghosts)}")
        if side == _GHOST and not self.use_ghost:
            raise ValueError("the ghost does not move: it is out of the game (use_ghost=False)")
        over = self.goals[agents] | ((agents == ghosts) if self.use_ghost else False)
        if over.any():
            raise ValueError(f"the game is over in state {int(np.argmax(over))} (agent {int(agents[over][0])}, "
                             f"ghost {int(ghosts[over][0])}): nobody moves there")
        agents, ghosts = agents.astype(np.int64), ghosts.astype(np.int64)
        if side == _AGENT:
            probabilities, destinations = self.outcomes[action]
            agents = destinations[:, agents].T
            ghosts = np.broadcast_to(ghosts[:, None], agents.shape)
            outcomes = np.where(self.goals[agents], np.int8(_GOAL), np.int8(_ONGOING))
            if self.use_ghost:
                outcomes[agents == ghosts] = _CAUGHT
        else:
            probabilities = _CERTAIN
            ghosts = self.moves[ghosts, action][:, None]
            agents = agents[:, None]
            outcomes = np.where(agents == ghosts, np.int8(_CAUGHT), np.int8(_ONGOING))
        rewards = self._reward_arrays[side]
        return Transitions(probabilities, agents, ghosts, outcomes, rewards[0][outcomes], rewards[1][outcomes])

    def agent_moves(self, cells: Any, actions: Any, uniforms: Any) -> np.ndarray:
        """Where agents at ``cells`` end up after ``actions``, slip drawn from ``uniforms``: the
        vectorised :meth:`SlipModel.sample`.

        A uniform picks the outcome group exactly as ``sample`` does (``u`` below a group's
        running sum takes it), so the same uniform means the same group in the scalar and the
        batched paths; within a group of several equally likely members (the perpendicular
        slip's two sides) the uniform's place inside the group's share picks the member, where
        ``sample`` makes a second draw. Where only one outcome is possible the uniform is read
        but changes nothing.

        Args:
            cells: cell indices, any shape.
            actions: actions 0..3, the same shape (or broadcastable).
            uniforms: numbers in [0, 1), the same shape (or broadcastable).

        Returns:
            The cells after the moves (an ``int64`` array of the broadcast shape). Catching and
            goals are not decided here.

        Raises:
            TypeError: ``cells`` or ``actions`` are not integers, or ``uniforms`` not real numbers.
            ValueError: a cell, action or uniform is out of range.
        """
        arrays = []
        for value, argument, kind in ((cells, "cells", np.integer), (actions, "actions", np.integer),
                                      (uniforms, "uniforms", np.floating)):
            array = np.asarray(value)
            if not np.issubdtype(array.dtype, kind) and not (kind is np.floating and array.dtype.kind in "iu"):
                raise TypeError(f"{argument} must be an array of {kind.__name__}s, got dtype {array.dtype}")
            arrays.append(array)
        cells, actions, uniforms = np.broadcast_arrays(arrays[0].astype(np.int64), arrays[1].astype(np.int64),
                                                       arrays[2].astype(float))
        self._check_cells(cells, "cells")
        if actions.size and not (actions.min() >= 0 and actions.max() < NUM_ACTIONS):
            raise ValueError(f"actions must lie in 0..{NUM_ACTIONS - 1}")
        if uniforms.size and not (uniforms.min() >= 0.0 and uniforms.max() < 1.0):
            raise ValueError("uniforms must lie in [0, 1)")
        result = np.empty(cells.shape, dtype=np.int64)
        for action in range(NUM_ACTIONS):
            chosen = actions == action
            if not chosen.any():
                continue
            bounds, destinations = self._sampler[action]
            outcome = slip_outcome(uniforms[chosen], bounds)
            result[chosen] = destinations[outcome, cells[chosen]]
        return result

    def _check_cells(self, cells: np.ndarray, argument: str) -> None:
        """Refuse an integer array ``cells`` holding something other than cell indices."""
        if cells.size and not (cells.min() >= 0 and cells.max() < self.num_cells):
            raise ValueError(f"{argument} must be cell indices 0..{self.num_cells - 1}")

    # -- the chasing ghost -----------------------------------------------------------------------
    @property
    def chase_table(self) -> np.ndarray:
        """The chasing ghost's action for every ``(agent cell, ghost cell)`` pair: a read-only
        ``int8[cells, cells]`` array, built on first use (see :func:`chase_table`)."""
        return self._chase_tables()[0]

    @property
    def chase_bytes(self) -> bytes:
        """:attr:`chase_table` as bytes, ``chase_bytes[agent * num_cells + ghost]`` a Python int:
        the fastest scalar lookup (no NumPy scalar), for turn loops."""
        return self._chase_tables()[1]

    def _chase_tables(self) -> tuple[np.ndarray, bytes]:
        if self._chase is None:
            tables = _CHASE_TABLES.get(self.board)
            if tables is None:
                table = chase_table(self.moves, self.layout.cols)
                tables = _CHASE_TABLES[self.board] = (table, table.tobytes())
            self._chase = tables
        return self._chase

    def chase_action(self, state: GameState) -> int:
        """The chasing ghost's move in ``state``."""
        return int(self.chase_table[state.agent, state.ghost])


def chase_table(moves: np.ndarray, cols: int) -> np.ndarray:
    """The chasing ghost's rule (:func:`~gridghost.core.policies.chase_rule`) for every pair of cells.

    The rule depends on the signs of the agent's offset, on whether the vertical gap is at least
    the horizontal one, and on which of the ghost's four moves are open: it is tabulated once over
    those 3 x 3 x 2 x 16 cases, and the table reads that. Built in blocks of agent cells, so that
    the work arrays stay small next to the table.

    Args:
        moves: ``int[cells, 4]``, the cell a single move leads to.
        cols: the layout's number of columns.

    Returns:
        A read-only ``int8[cells, cells]`` array indexed ``[agent cell, ghost cell]``.
    """
    cells = moves.shape[0]
    ghosts = np.arange(cells)
    open_ = moves != ghosts[:, None]  # [ghost cell, action]
    masks = (open_ << np.arange(NUM_ACTIONS)).sum(axis=1)  # the open moves of each ghost cell, as bits
    rows, columns = (a.astype(np.int16) for a in np.divmod(ghosts, cols))
    table = np.empty((cells, cells), dtype=np.int8)
    for start in range(0, cells, _CHASE_BLOCK):
        agents = slice(start, min(start + _CHASE_BLOCK, cells))
        dr = rows[agents, None] - rows[None, :]  # [agent, ghost]
        dc = columns[agents, None] - columns[None, :]
        table[agents] = _CHASE_CASES[np.sign(dr) + 1, np.sign(dc) + 1, (np.abs(dr) >= np.abs(dc)).astype(np.int8),
                                     masks[None, :]]
    return _read_only(table)


def _chase_cases() -> np.ndarray:
    """:func:`~gridghost.core.policies.chase_rule` for every case ``[sign(dr) + 1, sign(dc) + 1,
    |dr| >= |dc|, open-move bits]`` (cases that cannot occur are filled all the same)."""
    cases = np.empty((3, 3, 2, 2**NUM_ACTIONS), dtype=np.int8)
    for sign_r, sign_c, vertical_first, bits in np.ndindex(cases.shape):
        dr = (sign_r - 1) * (2 if vertical_first else 1)
        dc = (sign_c - 1) * (1 if vertical_first else 2)
        open_ = tuple(bool(bits >> action & 1) for action in range(NUM_ACTIONS))
        cases[sign_r, sign_c, vertical_first, bits] = chase_rule(dr, dc, open_)  # type: ignore[arg-type]
    return _read_only(cases)


def chase_action(board: Board, agent_cell: int, ghost_cell: int) -> int:
    """The chasing ghost's move with the agent at ``agent_cell`` and itself at ``ghost_cell``
    (cell indices), straight from the rule; :attr:`Game.chase_table` holds it for every pair.

    >>> from gridghost.core.layout import CLASSIC
    >>> from gridghost.core.rules import board_for
    >>> chase_action(board_for(CLASSIC), 2, 19)   # agent at (0, 2), ghost at (3, 4): up
    3
    """
    (ar, ac), (gr, gc) = board.position(agent_cell), board.position(ghost_cell)
    mask = board.action_mask[ghost_cell]
    return chase_rule(ar - gr, ac - gc, (bool(mask[0]), bool(mask[1]), bool(mask[2]), bool(mask[3])))


def _read_only(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


_CERTAIN = _read_only(np.ones(1))


_CHASE_CASES = _chase_cases()

