"""The team kernel: one agent against a team of ``k`` ghosts that move together.

A :class:`TeamGame` plays the rules of :class:`~gridghost.core.game.Game` with ``k`` ghosts, and
reads every board and slip table from the one-ghost game it wraps:

- the agent moves first, with slip, exactly as in the one-ghost game; it is caught when its
  final cell is any ghost's cell, else it reaches a goal if the cell is one;
- then the ghost team moves: every ghost picks one move (no slip) from the same state and the
  moves take effect together; the agent is caught when any ghost ends on its cell;
- ghosts may share a cell: none blocks another, so the joint moves are the product of the single
  moves and a team of ``k`` ghosts on one cell plays as one ghost;
- rewards are the team's: every ghost gets the ghost's reward of the half-turn (zero-sum with
  the agent by default). With ``credit="catcher"`` a capture pays the ghost's capture reward to
  the ghosts on the agent's cell only; the others get the reward of a half-turn that ended
  nothing.

Whose turn it is, the cycle count and truncation are the episode's rules
(:mod:`gridghost.core.episode`), with :attr:`~gridghost.core.rules.Side.GHOST` standing for the
whole team. With ``k = 1`` every method gives what the :class:`~gridghost.core.game.Game` gives
(with a one-ghost tuple where it gives a cell); the views play ``k = 1`` on the ``Game`` itself.

>>> import numpy as np
>>> from gridghost.core.game import Game
>>> from gridghost.core.layout import Layout
>>> from gridghost.core.slip import NoSlip
>>> layout = Layout(np.zeros((3, 3), int), goals=[(0, 0)], agent_start=(1, 1), ghost_start=[(2, 2), (2, 0)])
>>> team = TeamGame(Game(layout, NoSlip()), ghosts=2)
>>> state = team.agent_step(team.initial_state(), 1, np.random.default_rng(0))[0]  # down, to (2, 1)
>>> team.ghosts_step(state, (0, 2)).outcome   # both step onto it
<Outcome.CAUGHT: 1>
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from gridghost.core.checks import check_action, check_ghosts
from gridghost.core.episode import next_mover
from gridghost.core.game import Game
from gridghost.core.names import NUM_ACTIONS, ghost_names
from gridghost.core.rules import GameState, Outcome, Side

_AGENT, _GHOST = Side.AGENT, Side.GHOST
_ONGOING, _CAUGHT, _GOAL = Outcome.ONGOING, Outcome.CAUGHT, Outcome.GOAL
_AFTER_TEAM_TURN = Side(next_mover(int(_GHOST)))
#: How a team's capture reward is shared: ``"team"`` pays every ghost, ``"catcher"`` the ghosts on
#: the agent's cell.
CREDITS: tuple[str, ...] = ("team", "catcher")


class TeamState(NamedTuple):
    """Everything that changes during an episode of a team game.

    Attributes:
        agent: the agent's cell index.
        ghosts: each ghost's cell index, in the ghosts' order.
        turn: the side to move next (:attr:`~gridghost.core.rules.Side.GHOST`: the whole team).
        outcome: :attr:`~gridghost.core.rules.Outcome.ONGOING` until the game ends.
    """

    agent: int
    ghosts: tuple[int, ...]
    turn: Side = Side.AGENT
    outcome: Outcome = Outcome.ONGOING


class TeamTransitions(NamedTuple):
    """One half-turn from ``n`` team states at once (:meth:`TeamGame.transitions`), ``m`` outcomes each.

    Attributes:
        probabilities: ``float64[m]``, each outcome's probability (the same in every state).
        agents: ``int64[n, m]``, the agent's cell after the move.
        ghosts: ``int64[n, m, k]``, the ghosts' cells after the move.
        outcomes: ``int8[n, m]``, how the half-turn ended.
        agent_rewards, ghost_rewards: ``float64[n, m]``, the agent's reward and every ghost's
            (the team's share; see :meth:`TeamGame.ghost_rewards_of` for the catcher's credit).
    """

    probabilities: np.ndarray
    agents: np.ndarray
    ghosts: np.ndarray
    outcomes: np.ndarray
    agent_rewards: np.ndarray
    ghost_rewards: np.ndarray


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


class TeamGame:
    """The rules of one agent against ``ghosts`` ghosts on the map of ``game``.

    Args:
        game: the one-ghost :class:`~gridghost.core.game.Game` whose map, slip model and rewards
            the team plays (the ghost must be in the game).
        ghosts: the team's size, ``1..MAX_GHOSTS``; the ghosts start on the map's first
            ``ghosts`` ghost starts (:attr:`~gridghost.core.layout.Layout.ghost_starts`).
        credit: ``"team"`` (every ghost gets the team's reward) or ``"catcher"`` (a capture pays
            only the ghosts on the agent's cell).

    Attributes:
        game: as given; ``layout``, ``board``, ``slip``, ``num_cells``, ``moves``, ``goals``,
            ``agent_rewards`` and ``ghost_rewards`` are its.
        ghosts: the team's size.
        names: the ghosts' agent names (:func:`~gridghost.core.names.ghost_names`).
        starts: the ghosts' start cells, as cell indices.

    Raises:
        TypeError: ``game`` is not a Game, ``ghosts`` not an int or ``credit`` not a str.
        ValueError: ``ghosts`` outside ``1..MAX_GHOSTS``, a map with fewer ghost starts than
            ghosts, a game without its ghost (``use_ghost=False``), or an unknown ``credit``.
    """

    def __init__(self, game: Game, ghosts: int, credit: str = "team") -> None:
        if not isinstance(game, Game):
            raise TypeError(f"game must be a gridghost.core.game.Game, got {game!r}")
        self.ghosts = check_ghosts(ghosts)
        self.credit = check_credit(credit)
        if not game.use_ghost:
            raise ValueError("a team plays only with its ghosts in the game: use_ghost=False takes one ghost out")
        layout = game.layout
        if len(layout.ghost_starts) < self.ghosts:
            raise ValueError(f"ghosts={self.ghosts} needs a map with {self.ghosts} ghost starts; map "
                             f"{layout.name!r} has {len(layout.ghost_starts)} ({list(layout.ghost_starts)})")
        self.game = game
        self.layout, self.board, self.slip = layout, game.board, game.slip
        self.num_cells, self.moves, self.goals = game.num_cells, game.moves, game.goals
        self.agent_rewards, self.ghost_rewards = game.agent_rewards, game.ghost_rewards
        self.names = ghost_names(self.ghosts)
        self.starts = tuple(game.board.index(cell) for cell in layout.ghost_starts[: self.ghosts])
        self._next_cell, self._landing = game.board.next_cell, tuple(
            _GOAL if goal else _ONGOING for goal in game.board.is_goal)

    def __reduce__(self) -> tuple[Any, ...]:
        return TeamGame, (self.game, self.ghosts, self.credit)

    def __repr__(self) -> str:
        return f"TeamGame({self.layout!r}, ghosts={self.ghosts}, credit={self.credit!r})"

    # -- states and half-turns -------------------------------------------------------------------
    def initial_state(self) -> TeamState:
        """The state after ``reset``: everyone on their start cell, the agent to move."""
        return TeamState(self.board.index(self.layout.agent_start), self.starts, _AGENT, _ONGOING)

    def opening_can_end(self) -> bool:
        """Whether some outcome of some opening move of the agent ends the game (a goal, or a
        ghost within its reach), as :meth:`Game.opening_can_end
        <gridghost.core.game.Game.opening_can_end>` asks of one ghost: the learning ghosts' first
        observations come after that move, so such maps cannot serve them."""
        start = self.initial_state()
        return any(after.outcome != _ONGOING
                   for action in range(NUM_ACTIONS) for _, after, _, _ in self.successors(start, action))

    def _landed(self, cell: int, ghosts: tuple[int, ...]) -> TeamState:
        """The state after the agent's move ends on ``cell``: only the final cell counts."""
        if cell in ghosts:
            return TeamState(cell, ghosts, _GHOST, _CAUGHT)
        return TeamState(cell, ghosts, _GHOST, self._landing[cell])

    def agent_step(self, state: TeamState, action: int, rng: np.random.Generator) -> tuple[TeamState, tuple[int, ...]]:
        """The agent's half-turn: its slip drawn from ``rng`` as in the one-ghost game, then caught
        if its final cell is a ghost's, else a goal if it is one.

        Returns:
            The next state and the moves carried out (``()`` when it stayed).

        Raises:
            TypeError, ValueError: ``action`` is not an int in 0..3.
            ValueError: it is not the agent's turn or the game is over (nothing is drawn).
        """
        action = check_action(action, "agent")
        if state.turn != _AGENT or state.outcome != _ONGOING:
            raise ValueError(f"the agent cannot move in state {state}")
        moves = self.slip.sample(action, rng)
        cell = state.agent
        for move in moves:
            cell = self._next_cell[cell][move]
        return self._landed(cell, state.ghosts), moves

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

    def ghosts_step(self, state: TeamState, actions: Sequence[int]) -> TeamState:
        """The team's half-turn: every ghost makes its move (no slip) from ``state``, together;
        caught if any ghost ends on the agent's cell.

        Args:
            state: a state with the team to move.
            actions: one action per ghost, in the ghosts' order.

        Raises:
            TypeError, ValueError: as :meth:`check_joint_action`.
            ValueError: it is not the team's turn or the game is over.
        """
        actions = self.check_joint_action(actions)
        if state.turn != _GHOST or state.outcome != _ONGOING:
            raise ValueError(f"the ghosts cannot move in state {state}")
        next_cell = self._next_cell
        ghosts = tuple(next_cell[cell][action] for cell, action in zip(state.ghosts, actions, strict=True))
        return TeamState(state.agent, ghosts, _AFTER_TEAM_TURN, _CAUGHT if state.agent in ghosts else _ONGOING)

    def rewards(self, mover: Side, outcome: Outcome) -> tuple[float, float]:
        """``(agent's reward, each ghost's team reward)`` for a half-turn of ``mover`` ending in ``outcome``."""
        return self.game.rewards(mover, outcome)

    def ghost_rewards_of(self, mover: Side, state: TeamState) -> tuple[float, ...]:
        """Each ghost's reward for a half-turn of ``mover`` that led to ``state``: the team's
        reward for every ghost, or with ``credit="catcher"`` the capture reward for the ghosts
        on the agent's cell and the reward of an uneventful half-turn for the others."""
        team = self.game.rewards(mover, state.outcome)[1]
        if self.credit == "team" or state.outcome != _CAUGHT:
            return (team,) * self.ghosts
        others = self.game.rewards(mover, _ONGOING)[1]
        return tuple(team if cell == state.agent else others for cell in state.ghosts)

    def successors(self, state: TeamState, action: Any) -> list[tuple[float, TeamState, float, float]]:
        """The exact distribution of the half-turn of the side to move: ``action`` is the agent's
        int, or the team's ``k`` actions.

        Returns:
            ``[(probability, next_state, agent_reward, ghost_reward), ...]``: probabilities
            positive and summing to 1, equal next states merged, in the slip model's order; the
            ghost reward is the team's.

        Raises:
            TypeError, ValueError: a bad action (see :meth:`agent_step`, :meth:`ghosts_step`).
            ValueError: the game is over.
        """
        if state.turn == _GHOST:
            after = self.ghosts_step(state, action)
            return [(1.0, after, *self.rewards(_GHOST, after.outcome))]
        action = check_action(action, "agent")
        if state.outcome != _ONGOING:
            raise ValueError(f"the agent cannot move in state {state}")
        probabilities, destinations = self.game.outcomes[action]
        merged: dict[TeamState, float] = {}
        for probability, cell in zip(probabilities.tolist(), destinations[:, state.agent].tolist(), strict=True):
            after = self._landed(cell, state.ghosts)
            merged[after] = merged.get(after, 0.0) + probability
        return [(p, after, *self.rewards(_AGENT, after.outcome)) for after, p in merged.items() if p > 0.0]

    def transitions(self, side: Side, action: Any, agents: np.ndarray, ghosts: np.ndarray) -> TeamTransitions:
        """The half-turn ``action`` of ``side`` from many states at once, for planners and batches.

        Args:
            side: the side to move.
            action: the agent's int, or the team's ``k`` actions.
            agents: ``int[n]`` agent cells; ``ghosts``: ``int[n, k]`` ghost cells, of states
                where the game goes on.

        Returns:
            A :class:`TeamTransitions` with the slip model's outcomes for the agent (in its
            order, not merged) and one outcome for the team.

        Raises:
            TypeError, ValueError: a bad side, action or cell array, or a state where the game is over.
        """
        if not isinstance(side, Side):
            raise TypeError(f"side must be a gridghost.core.rules.Side, got {side!r}")
        agents, ghosts = np.asarray(agents), np.asarray(ghosts)
        if agents.ndim != 1 or ghosts.shape != (len(agents), self.ghosts) or not (
                np.issubdtype(agents.dtype, np.integer) and np.issubdtype(ghosts.dtype, np.integer)):
            raise TypeError(f"agents must be int[n] and ghosts int[n, {self.ghosts}] cell indices, got shapes "
                            f"{agents.shape} and {ghosts.shape}, dtypes {agents.dtype} and {ghosts.dtype}")
        for cells, argument in ((agents, "agents"), (ghosts, "ghosts")):
            if cells.size and not (cells.min() >= 0 and cells.max() < self.num_cells):
                raise ValueError(f"{argument} must be cell indices 0..{self.num_cells - 1}")
        agents, ghosts = agents.astype(np.int64), ghosts.astype(np.int64)
        over = self.goals[agents] | (ghosts == agents[:, None]).any(axis=1)
        if over.any():
            raise ValueError(f"the game is over in state {int(np.argmax(over))}: nobody moves there")
        if side == _AGENT:
            probabilities, destinations = self.game.outcomes[check_action(action, "agent")]
            agents = destinations[:, agents].T  # [n, m]
            ghosts = np.broadcast_to(ghosts[:, None, :], (*agents.shape, self.ghosts))
            caught = (ghosts == agents[..., None]).any(axis=-1)
            landed = np.where(self.goals[agents], np.int8(_GOAL), np.int8(_ONGOING))
            outcomes = np.where(caught, np.int8(_CAUGHT), landed)
        else:
            joint = np.array(self.check_joint_action(action))
            probabilities = np.ones(1)
            ghosts = self.moves[ghosts, joint[None, :]][:, None, :]  # [n, 1, k]
            agents = agents[:, None]
            outcomes = np.where((ghosts == agents[..., None]).any(axis=-1), np.int8(_CAUGHT), np.int8(_ONGOING))
        agent_table, ghost_table = self.game._reward_arrays[side]
        return TeamTransitions(probabilities, agents, ghosts, outcomes, agent_table[outcomes], ghost_table[outcomes])

    # -- joint actions and the chasing team -------------------------------------------------------
    def joint_index(self, actions: Sequence[int]) -> int:
        """The index ``sum(actions[i] * 4**i)`` of a joint action (ghost 0 the lowest digit)."""
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

    def chase_actions(self, state: TeamState) -> tuple[int, ...]:
        """Every ghost's chasing move (the reference's rule, each ghost on its own): a team of
        independent chasers."""
        table = self.game.chase_bytes
        base = state.agent * self.num_cells
        return tuple(table[base + cell] for cell in state.ghosts)

    def one_ghost_state(self, state: TeamState, ghost: int = 0) -> GameState:
        """The one-ghost :class:`~gridghost.core.rules.GameState` seen with only ``ghost`` on the board."""
        return GameState(state.agent, state.ghosts[ghost], state.turn, state.outcome)
