"""The game kernel: one object that owns a turn, for one agent against ``k`` ghosts.

A :class:`Game` is built from a layout, a slip model, the rewards and the team's size ``ghosts``
(1 to :data:`~gridghost.core.names.MAX_GHOSTS`). The rules inside a half-turn are
:mod:`gridghost.core.halfturn`'s, which the array forms call; the scalar hot path keeps its own
lines, tested equal to them. The game holds the board's tables, the initial state, the half-turn
transitions the env calls, the exact distribution of each half-turn (:meth:`Game.successors`, in
the spirit of Gymnasium FrozenLake's ``P[s][a]``), a vectorised slip sampler, and the chasing
ghost as a ``cells x cells`` action table: everything that needs the motion model asks this one
object.

>>> from gridghost.core.layout import CLASSIC
>>> from gridghost.core.slip import LongitudinalSlip
>>> game = Game(CLASSIC, LongitudinalSlip(0.2))
>>> start = game.initial_state()
>>> [(round(p, 2), game.board.position(s.agent), r) for p, s, r, _ in game.successors(start, 1)]
[(0.1, (0, 2), -1.0), (0.9, (1, 2), -1.0)]
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Sequence
from operator import getitem, itemgetter
from typing import Any, NamedTuple

import numpy as np

from gridghost.core import halfturn
from gridghost.core.checks import check_action, check_ghosts, check_instance
from gridghost.core.episode import next_mover, slip_bounds, slip_outcome
from gridghost.core.layout import Layout
from gridghost.core.names import ghost_names
from gridghost.core.policies import chase_action, chase_table  # noqa: F401 - chase_action re-exported
from gridghost.core.rules import (
    NUM_ACTIONS,
    GameState,
    Outcome,
    Rewards,
    Side,
    board_for,
    make_rewards,
    read_only,
)
from gridghost.core.slip import Moves, SlipModel

_AGENT, _GHOST = Side.AGENT, Side.GHOST
_ONGOING, _CAUGHT, _GOAL = Outcome.ONGOING, Outcome.CAUGHT, Outcome.GOAL
#: A state from its four fields, unchecked (every caller passes a 4-tuple it built): what
#: ``GameState._make`` does without its Python-level length check, at half a hot-path call's cost.
_new_state = functools.partial(tuple.__new__, GameState)
#: Whose turn follows the ghost's half-turn (the episode's turn rule, as a constant for the hot path).
_AFTER_GHOST_TURN = Side(next_mover(int(_GHOST)))

#: One half-turn's outcome: ``(probability, next_state, agent_reward, ghost_reward)``.
Successor = tuple[float, GameState, float, float]
#: How a team's capture reward is shared: ``"team"`` pays every ghost, ``"catcher"`` the ghosts on
#: the agent's cell.
CREDITS: tuple[str, ...] = ("team", "catcher")


def check_credit(value: Any, argument: str = "credit") -> str:
    """Return ``value`` if it is one of :data:`CREDITS`.

    Raises:
        TypeError: not a ``str``.
        ValueError: not one of :data:`CREDITS`.
    """
    if not isinstance(value, str):
        raise TypeError(f"{argument} must be one of {list(CREDITS)}, got {value!r}")
    if value not in CREDITS:
        raise ValueError(f"{argument} must be one of {list(CREDITS)}, got {value!r}")
    return value


class Transitions(NamedTuple):
    """One half-turn from ``n`` states at once (:meth:`Game.transitions`), ``m`` outcomes each.

    Attributes:
        probabilities: ``float64[m]``, each outcome's probability (the same in every state).
        agents: ``int64[n, m]``, the agent's cell after the move.
        ghosts: the ghosts' cells after the move: ``int64[n, m]`` when the ghosts were given as
            ``int[n]`` (one ghost), else ``int64[n, m, k]``.
        outcomes: ``int8[n, m]``, how the half-turn ended (:class:`~gridghost.core.rules.Outcome`).
        agent_rewards, ghost_rewards: ``float64[n, m]``, the agent's reward and every ghost's
            (the team's share; :meth:`Game.ghost_rewards_of` applies the catcher's credit).
    """

    probabilities: np.ndarray
    agents: np.ndarray
    ghosts: np.ndarray
    outcomes: np.ndarray
    agent_rewards: np.ndarray
    ghost_rewards: np.ndarray


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
        ghost_rewards: each ghost's; ``None`` means zero-sum (the agent's negated).
        use_ghost: ``False`` takes the ghost out of the game (one ghost only): it cannot catch
            the agent and the turn stays with the agent.
        ghosts: the team's size ``k``, ``1..MAX_GHOSTS``; the ghosts start on the map's first
            ``k`` ghost starts (:attr:`~gridghost.core.layout.Layout.ghost_starts`).
        credit: ``"team"`` (every ghost gets the team's reward) or ``"catcher"`` (a capture pays
            only the ghosts on the agent's cell).

    Attributes:
        layout, slip, use_ghost, ghosts, credit: as given.
        agent_rewards, ghost_rewards: the resolved rewards.
        names: the ghosts' agent names (:func:`~gridghost.core.names.ghost_names`).
        starts: the ghosts' start cells, as cell indices.
        board: the layout's :class:`~gridghost.core.rules.Board` (tuples, and the distance table).
        num_cells: ``rows * cols``.
        moves: read-only ``int64[cells, 4]``, the cell a single move leads to.
        action_masks: read-only ``int8[cells, 4]``, 1 where the move changes the cell.
        goals: read-only ``bool[cells]``.
        outcomes: ``outcomes[action] = (probabilities, destinations)``: the slip model's
            outcome probabilities (``float64[m]``) and, per outcome, the cell every start cell
            ends in (read-only ``int64[m, cells]``).
        max_moves: how many single moves one agent move can carry out (the slip model's longest
            outcome).

    Raises:
        TypeError: ``layout``, ``slip``, a reward, ``ghosts`` or ``credit`` is of the wrong type.
        ValueError: the layout is larger than a board serves, an unknown rewards preset,
            ``ghosts`` outside ``1..MAX_GHOSTS`` or more than the map's ghost starts, ``ghosts > 1``
            with ``use_ghost=False``, or an unknown ``credit``.
    """

    def __init__(
        self,
        layout: Layout,
        slip: SlipModel,
        rewards: Rewards | str | None = None,
        ghost_rewards: Rewards | None = None,
        use_ghost: bool = True,
        ghosts: int = 1,
        credit: str = "team",
    ) -> None:
        check_instance(layout, "layout", Layout)
        check_instance(slip, "slip", SlipModel)
        agent_rewards = make_rewards(rewards)
        check_instance(ghost_rewards, "ghost_rewards", Rewards, allow_none=True)
        self.ghosts = check_ghosts(ghosts)
        self.credit = check_credit(credit)
        if self.ghosts > 1 and not use_ghost:
            raise ValueError(f"ghosts={self.ghosts} plays only with its ghosts in the game: use_ghost=False "
                             "takes the one ghost out")
        if len(layout.ghost_starts) < self.ghosts:
            raise ValueError(f"ghosts={self.ghosts} needs a map with {self.ghosts} ghost starts; map "
                             f"{layout.name!r} has {len(layout.ghost_starts)} ({list(layout.ghost_starts)})")
        self.layout = layout
        self.slip = slip
        self.use_ghost = bool(use_ghost)
        self.agent_rewards = agent_rewards
        self.ghost_rewards = ghost_rewards or self.agent_rewards.negated()
        self.board = board = board_for(layout)
        self.num_cells = board.num_cells
        self.names = ghost_names(self.ghosts)
        self.starts = tuple(board.index(cell) for cell in layout.ghost_starts[: self.ghosts])
        self._initial = _new_state((board.index(layout.agent_start), self.starts, _AGENT, _ONGOING))
        # the scalar hot path's tuples and bound method
        self._next_cell, self._sample = board.next_cell, slip.sample
        # the outcome of an agent landing on each cell when no ghost is there, and whose turn
        # follows (the agent's again when the ghost is out of the game)
        self._landing = tuple(_GOAL if goal else _ONGOING for goal in board.is_goal)
        self._after_agent_turn = Side(next_mover(int(_AGENT), self.use_ghost))

        self.moves = read_only(np.array(board.next_cell, dtype=np.int64))
        self.action_masks = read_only(np.array(board.action_mask, dtype=np.int8))
        self.goals = read_only(np.array(board.is_goal, dtype=bool))
        self.outcomes = tuple(self._outcome_table(action) for action in range(NUM_ACTIONS))
        self.max_moves = slip.longest
        # the same as tuples for successors(): per action, (probabilities, per cell its destinations)
        self._outcome_tuples = tuple(
            (tuple(probabilities.tolist()), tuple(map(tuple, destinations.T.tolist())))
            for probabilities, destinations in self.outcomes
        )
        # Per action, for agent_moves: the running probabilities a uniform is compared with, in the
        # order sampling walks the outcomes (the engines' order too), and the destinations.
        self._sampler = tuple((read_only(slip_bounds(probabilities)), destinations)
                              for probabilities, destinations in self.outcomes)
        # (agent's reward, ghost's reward) per (mover, outcome)
        self._rewards = {
            mover: tuple((self.agent_rewards.of(mover, o), self.ghost_rewards.of(mover, o)) for o in Outcome)
            for mover in Side
        }
        # the same as arrays indexed by outcome, per mover: (agent's rewards, ghost's rewards)
        self._reward_arrays = {
            mover: tuple(read_only(np.array(side)) for side in zip(*self._rewards[mover], strict=True))
            for mover in Side
        }

    def __reduce__(self) -> tuple[Any, ...]:
        return Game, (self.layout, self.slip, self.agent_rewards, self.ghost_rewards, self.use_ghost, self.ghosts,
                      self.credit)

    def __repr__(self) -> str:
        return f"Game({self.layout!r}, {self.slip!r}, ghosts={self.ghosts}, credit={self.credit!r})"

    def _outcome_table(self, action: int) -> tuple[np.ndarray, np.ndarray]:
        """The outcomes' probabilities of ``action`` and, per outcome, the cell every start cell ends in."""
        outcomes = self.slip.outcomes(action)
        destinations = np.tile(np.arange(self.num_cells), (len(outcomes), 1))
        for cells, (_, moves) in zip(destinations, outcomes, strict=True):
            for move in moves:  # one array lookup per single move
                cells[:] = self.moves[cells, move]
        return read_only(np.array([p for p, _ in outcomes])), read_only(destinations)

    # -- states and half-turns -------------------------------------------------------------------
    def initial_state(self) -> GameState:
        """The state after ``reset``: everyone on their start cell, the agent to move."""
        return self._initial

    def opening_can_end(self) -> bool:
        """Whether some outcome of some opening move of the agent ends the game (a goal or a
        ghost within its reach). A learning ghost's first observation comes after that move, and
        Gymnasium's ``reset`` cannot report a finished episode, so such maps cannot serve it."""
        start = self.initial_state()
        return any(after.outcome != Outcome.ONGOING
                   for action in range(NUM_ACTIONS) for _, after, _, _ in self.successors(start, action))

    def agent_step(self, state: GameState, action: int, rng: np.random.Generator) -> tuple[GameState, Moves]:
        """The agent's half-turn: draw its slip from ``rng`` (as :meth:`SlipModel.sample`) and
        carry out the moves. Only the final cell counts: caught if it is a ghost's, else goal
        reached if it is a goal. Without the ghost in play nobody is caught and the turn stays
        with the agent.

        Returns:
            The next state and the moves carried out (``()`` when it stayed).

        Raises:
            TypeError, ValueError: ``action`` is not an int in 0..3.
            ValueError: it is not the agent's turn, the game is over, or ``state`` holds another number
                of ghosts than the game (nothing is drawn).
        """
        if type(action) is not int or not 0 <= action < NUM_ACTIONS:  # check_action's fast path, inline
            action = check_action(action, "agent")
        if state.turn != _AGENT or state.outcome != _ONGOING:
            raise ValueError(f"the agent cannot move in state {state}")
        cell, ghosts = state.agent, state.ghosts
        if len(ghosts) != self.ghosts:
            self._check_size(state)
        moves = self._sample(action, rng)
        next_cell = self._next_cell
        for move in moves:
            cell = next_cell[cell][move]
        # _landed, inlined: this is the env's hot path
        if cell in ghosts and self.use_ghost:
            return _new_state((cell, ghosts, _GHOST, _CAUGHT)), moves
        return _new_state((cell, ghosts, self._after_agent_turn, self._landing[cell])), moves

    def ghost_step(self, state: GameState, action: Any) -> GameState:
        """The ghosts' half-turn: every ghost makes its move (no slip) from ``state``, together;
        caught if any ghost ends on the agent's cell. :meth:`ghosts_step` is this method.

        Args:
            state: a state with the ghosts to move.
            action: one ghost's int action, or the ``k`` ghosts' actions in the ghosts' order
                (a sequence or 1-d integer array; one action in a sequence for one ghost too).

        Raises:
            TypeError, ValueError: a bad action (see :meth:`check_joint_action`).
            ValueError: it is not the ghosts' turn or the game is over.
        """
        if type(action) is not int or not 0 <= action < NUM_ACTIONS or self.ghosts != 1:
            return self._team_step(state, action)
        try:
            agent, (cell,), turn, outcome = state
        except ValueError:  # not a one-ghost state: _team_step refuses it by name
            return self._team_step(state, action)
        if turn != _GHOST or outcome != _ONGOING:
            raise ValueError(f"the ghost cannot move in state {state}")
        cell = self._next_cell[cell][action]  # halfturn.team_moves and team_lands, for one ghost
        return _new_state((agent, (cell,), _AFTER_GHOST_TURN, _CAUGHT if cell == agent else _ONGOING))

    def _team_step(self, state: GameState, action: Any) -> GameState:
        """:meth:`ghost_step` for any ``k`` and any spelling of the actions."""
        actions = self._ghost_actions(action)
        self._check_size(state)
        if state.turn != _GHOST or state.outcome != _ONGOING:
            raise ValueError(f"the {'ghost' if self.ghosts == 1 else 'ghosts'} cannot move in state {state}")
        return self._team_moves(state, actions)

    def _team_moves(self, state: GameState, actions: tuple[int, ...]) -> GameState:
        """The team's half-turn with nothing checked: ``actions`` are ``k`` ints in 0..3 and it is
        the ghosts' turn of a game going on in ``state`` (what :meth:`_team_step` checks, and the
        AEC env's turn order and action checks guarantee: it calls this directly)."""
        agent, cells = state[0], state[1]
        if len(cells) > 1:  # itemgetter of two cells or more: a tuple of their rows
            ghosts = tuple(map(getitem, itemgetter(*cells)(self._next_cell), actions))
        else:
            ghosts = (self._next_cell[cells[0]][actions[0]],)
        return _new_state((agent, ghosts, _AFTER_GHOST_TURN, _CAUGHT if agent in ghosts else _ONGOING))

    ghosts_step = ghost_step

    def _ghost_actions(self, action: Any) -> tuple[int, ...]:
        """The ghosts' actions as :meth:`ghost_step` takes them (one ghost's action alone, too), checked."""
        if self.ghosts == 1 and not isinstance(action, (Sequence, np.ndarray)):
            return (check_action(action, "ghost"),)
        return self.check_joint_action(action)

    def _check_size(self, state: GameState) -> None:
        """Refuse a state whose number of ghosts is not this game's."""
        if len(state.ghosts) != self.ghosts:
            raise ValueError(f"state holds {len(state.ghosts)} ghosts ({state}); this game plays {self.ghosts}")

    def check_joint_action(self, actions: Any, argument: str = "actions") -> tuple[int, ...]:
        """``actions`` as a tuple of ``k`` ints in 0..3, one per ghost in the ghosts' order.

        Raises:
            TypeError: not a sequence or 1-d integer array, or an entry not an int.
            ValueError: the wrong length, or an entry outside 0..3.
        """
        if type(actions) in (list, tuple) and len(actions) == self.ghosts and all(
                type(action) is int and 0 <= action < NUM_ACTIONS for action in actions):
            return tuple(actions)  # the fast path: the envs hand over checked ints every team move
        if isinstance(actions, np.ndarray):
            if actions.ndim != 1 or not np.issubdtype(actions.dtype, np.integer):
                raise TypeError(f"{argument} must be {self.ghosts} ints in 0..{NUM_ACTIONS - 1}, one per ghost; "
                                f"got an array of shape {actions.shape} and dtype {actions.dtype}")
            actions = actions.tolist()
        if not isinstance(actions, Sequence) or isinstance(actions, (str, bytes)):
            raise TypeError(f"{argument} must be a sequence of {self.ghosts} ints in 0..{NUM_ACTIONS - 1}, "
                            f"one per ghost, got {actions!r}")
        if len(actions) != self.ghosts:
            raise ValueError(f"{argument} must hold {self.ghosts} actions, one per ghost "
                             f"({', '.join(self.names)}), got {len(actions)}: {list(actions)!r}")
        return tuple(check_action(action, name) for action, name in zip(actions, self.names, strict=True))

    def rewards(self, mover: Side, outcome: Outcome) -> tuple[float, float]:
        """``(agent's reward, each ghost's team reward)`` for a half-turn of ``mover`` ending in ``outcome``."""
        return self._rewards[mover][outcome]

    def ghost_rewards_of(self, mover: Side, state: GameState) -> tuple[float, ...]:
        """Each ghost's reward for a half-turn of ``mover`` that led to ``state``: the team's
        reward for every ghost, or with ``credit="catcher"`` the capture reward for the ghosts
        on the agent's cell and the reward of an uneventful half-turn for the others
        (:func:`~gridghost.core.halfturn.credited`, for one state)."""
        self._check_size(state)
        table = self._rewards[mover]
        team = table[state.outcome][1]
        if self.credit == "team" or state.outcome != _CAUGHT:
            return (team,) * self.ghosts
        quiet, agent = table[_ONGOING][1], state.agent
        return tuple(team if cell == agent else quiet for cell in state.ghosts)

    def successors(self, state: GameState, action: Any) -> list[Successor]:
        """The exact distribution of the half-turn ``action`` of the side to move, for one state:
        what :meth:`transitions` gives for many, with outcomes that lead to the same next state
        merged. It reads the same outcome tables, as tuples.

        Args:
            state: the state.
            action: the agent's int, or the ghosts' actions (as :meth:`ghost_step` takes them).

        Returns:
            ``[(probability, next_state, agent_reward, ghost_reward), ...]``: probabilities
            positive and summing to 1, in the order the slip model lists the outcomes; the ghost
            reward is the team's.

        Raises:
            TypeError, ValueError: a bad action (see :meth:`agent_step`, :meth:`ghost_step`).
            ValueError: the game is over, or ``state`` holds another number of ghosts than the game.
        """
        if state.turn == _GHOST:
            after = self.ghost_step(state, action)
            return [(1.0, after, *self._rewards[_GHOST][after.outcome])]
        action = check_action(action, "agent")
        if state.outcome != _ONGOING:
            raise ValueError(f"the agent cannot move in state {state}")
        self._check_size(state)
        probabilities, cells = self._outcome_tuples[action]
        merged: dict[GameState, float] = {}
        for probability, cell in zip(probabilities, cells[state.agent], strict=True):
            after = self._landed(cell, state.ghosts)
            merged[after] = merged.get(after, 0.0) + probability
        return [(p, after, *self._rewards[_AGENT][after.outcome]) for after, p in merged.items() if p > 0.0]

    def _landed(self, cell: int, ghosts: tuple[int, ...]) -> GameState:
        """The state after the agent's move ends on ``cell``: only the final cell counts
        (:meth:`agent_step` has this inline, :meth:`transitions` as arrays)."""
        if cell in ghosts and self.use_ghost:
            return _new_state((cell, ghosts, _GHOST, _CAUGHT))
        return _new_state((cell, ghosts, self._after_agent_turn, self._landing[cell]))

    def transitions(self, side: Side, action: Any, agents: np.ndarray, ghosts: np.ndarray) -> Transitions:
        """The half-turn ``action`` of ``side`` from many states at once: the rules of a move,
        vectorised (:mod:`gridghost.core.halfturn`), for planners and batches
        (:meth:`successors` reads one state of it).

        Args:
            side: the side to move.
            action: the agent's int in 0..3, or the ghosts' actions (as :meth:`ghost_step`).
            agents: ``int[n]`` agent cells; ``ghosts``: the ghosts' cells, ``int[n, k]``, or
                ``int[n]`` for one ghost; of states where the game goes on.

        Returns:
            A :class:`Transitions` with the slip model's outcomes for the agent (in its order,
            not merged) and one outcome for the ghosts; its ``ghosts`` has the given layout
            (``int[n, m]`` for ``int[n]``, else ``int[n, m, k]``).

        Raises:
            TypeError, ValueError: ``side`` is not a :class:`~gridghost.core.rules.Side`, a bad
                action, or ``agents``/``ghosts`` not integer arrays of cells of those shapes;
                ValueError too for the ghost's move when it is out of the game, or a state
                where the game is over (the agent on a ghost's cell or on a goal).
        """
        if not isinstance(side, Side):
            raise TypeError(f"side must be a gridghost.core.rules.Side, got {side!r}")
        agents, ghosts, one = self._state_arrays(agents, ghosts)
        if side == _GHOST and not self.use_ghost:
            raise ValueError("the ghost does not move: it is out of the game (use_ghost=False)")
        # without the ghost in play no ghost cell can catch: an empty ghost axis
        catching = ghosts if self.use_ghost else ghosts[:, :0]
        over = halfturn.agent_lands(agents, catching, self.goals) != _ONGOING
        if over.any():
            where = int(np.argmax(over))
            raise ValueError(f"the game is over in state {where} (agent {int(agents[where])}, ghost"
                             f"{'' if one else 's'} {ghosts[where, 0] if one else ghosts[where].tolist()}): "
                             "nobody moves there")
        if side == _AGENT:
            probabilities, destinations = self.outcomes[check_action(action, "agent")]
            agents = destinations[:, agents].T  # [n, m]
            ghosts = np.broadcast_to(ghosts[:, None, :], (*agents.shape, ghosts.shape[1]))
            outcomes = halfturn.agent_lands(agents, ghosts if self.use_ghost else ghosts[..., :0], self.goals)
        else:
            probabilities = _CERTAIN
            joint = np.array(self._ghost_actions(action))
            ghosts = halfturn.team_moves(self.moves, ghosts, joint)[:, None, :]  # [n, 1, k]
            agents = agents[:, None]
            outcomes = halfturn.team_lands(agents, ghosts)
        outcomes = outcomes.astype(np.int8, copy=False)
        rewards = self._reward_arrays[side]
        return Transitions(probabilities, agents, ghosts[..., 0] if one else ghosts, outcomes,
                           rewards[0][outcomes], rewards[1][outcomes])

    def _state_arrays(self, agents: Any, ghosts: Any) -> tuple[np.ndarray, np.ndarray, bool]:
        """``agents`` as ``int64[n]``, ``ghosts`` as ``int64[n, k]`` and whether it came as ``int[n]``."""
        agents, ghosts = np.asarray(agents), np.asarray(ghosts)
        one = ghosts.ndim == 1 and self.ghosts == 1
        team = f"an int[n, {self.ghosts}] array" + (" (or a 1-d array)" if self.ghosts == 1 else "")
        for cells, argument, shaped, shape in (
                (agents, "agents", agents.ndim == 1, "a 1-d array"),
                (ghosts, "ghosts", one or (ghosts.ndim == 2 and ghosts.shape[1] == self.ghosts), team)):
            if not shaped or not np.issubdtype(cells.dtype, np.integer):
                raise TypeError(f"{argument} must be {shape} of int cell indices, got shape {cells.shape} "
                                f"and dtype {cells.dtype}")
            self._check_cells(cells, argument)
        if len(agents) != len(ghosts):
            raise ValueError(f"agents and ghosts must have the same length, got {len(agents)} and {len(ghosts)}")
        ghosts = ghosts.astype(np.int64)
        return agents.astype(np.int64), (ghosts[:, None] if one else ghosts), one

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
        return self._chase_tables[0]

    @property
    def chase_bytes(self) -> bytes:
        """:attr:`chase_table` as bytes, ``chase_bytes[agent * num_cells + ghost]`` a Python int:
        the fastest scalar lookup (no NumPy scalar), for turn loops."""
        return self._chase_tables[1]

    @functools.cached_property
    def _chase_tables(self) -> tuple[np.ndarray, bytes]:
        tables = _CHASE_TABLES.get(self.board)
        if tables is None:
            table = chase_table(self.moves, self.layout.cols)
            tables = _CHASE_TABLES[self.board] = (table, table.tobytes())
        return tables

    def chase_action(self, state: GameState) -> int:
        """The chasing ghost's move in the one-ghost ``state``.

        Raises:
            ValueError: ``state`` holds more than one ghost (see :meth:`chase_actions`).
        """
        try:
            (ghost,) = state.ghosts
        except ValueError:
            raise ValueError(f"chase_action moves one ghost; this state has {len(state.ghosts)}: use "
                             "chase_actions") from None
        return self.chase_bytes[state.agent * self.num_cells + ghost]

    def chase_actions(self, state: GameState) -> tuple[int, ...]:
        """Every ghost's chasing move (the reference's rule, each ghost on its own): a team of
        independent chasers."""
        self._check_size(state)
        table = self.chase_bytes
        base = state.agent * self.num_cells
        return tuple(table[base + cell] for cell in state.ghosts)

    # -- joint actions ---------------------------------------------------------------------------
    def joint_index(self, actions: Sequence[int]) -> int:
        """The index ``sum(actions[i] * 4**i)`` of a joint action (ghost 0 the lowest digit).

        Raises:
            TypeError, ValueError: as :meth:`check_joint_action`.
        """
        actions = self.check_joint_action(actions)
        return sum(action * NUM_ACTIONS**i for i, action in enumerate(actions))

    def joint_actions(self, index: int) -> tuple[int, ...]:
        """The ghosts' actions of the joint action ``index`` (the inverse of :meth:`joint_index`).

        Raises:
            ValueError: ``index`` outside ``0..4**k - 1``.
        """
        if not 0 <= index < NUM_ACTIONS**self.ghosts:
            raise ValueError(f"index must lie in 0..{NUM_ACTIONS**self.ghosts - 1}, got {index!r}")
        return tuple(index // NUM_ACTIONS**i % NUM_ACTIONS for i in range(self.ghosts))


_CERTAIN = read_only(np.ones(1))


