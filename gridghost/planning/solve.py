"""Exact solutions of the game: the agent's MDP, the ghost's MDP, the zero-sum game, two fixed
policies against each other, and exploitability.

gridghost's maps are small enough to solve exactly, which gives every experiment a ground truth:
how often a perfect agent reaches a goal against the chasing ghost, what the game is worth when
both sides play perfectly, and how far a learned policy is from either.

Value iteration runs over full turns (the agent's move with slip, then the ghost's answer) of
the :class:`~gridghost.planning.model.TurnModel`, and ``gamma`` discounts per full turn. The
game is a :class:`~gridghost.core.game.Game` (``game=``: the map, the slip model and both sides'
rewards), or its settings one by one. Each side's policy is a state policy
(:mod:`gridghost.planning.policy`).

>>> from gridghost.core.layout import CLASSIC
>>> sol = solve_agent(CLASSIC, "longitudinal", ghost="chase", gamma=0.99)
>>> round(sol.success_probability(CLASSIC.agent_start, CLASSIC.ghost_start), 3) > 0.9
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gridghost.core import tunables
from gridghost.core.checks import check_limit
from gridghost.core.game import Game
from gridghost.core.layout import Cell, Layout
from gridghost.core.rules import Outcome, Rewards, Side
from gridghost.core.slip import SlipModel
from gridghost.planning import iteration
from gridghost.planning.arguments import solver_game

# Value iteration lives in iteration; its names import from here too, as before the split.
from gridghost.planning.iteration import (  # noqa: F401
    _MAXIMISE,
    _MINIMISE,
    _OUTCOMES_KEPT,
    MAX_ITERATIONS,
    Rule,
    _check_settings,
    _iterate,
    _outcome_within,
    greedy,
)
from gridghost.planning.model import TurnModel, cached_solution, turn_model
from gridghost.planning.policy import one_hot, policy_array


class _Solution:
    """What every solution shares: the model, the settings and how value iteration went.

    With a ``horizon``, values are those of a game cut after that many turns, and the policies
    (``action``, ``policy`` and what the probabilities below follow) are the first turn's, the
    best with the whole horizon to go, played at every turn.

    Attributes:
        layout: the map.
        model: the :class:`~gridghost.planning.model.TurnModel` solved.
        gamma, tol, horizon: the settings.
        sweeps: the value-iteration sweeps made.
        residual: the largest change of a value in the last sweep.
    """

    _values: np.ndarray  # the values of the live states, agent to move, and the sink's 0

    def __setattr__(self, name: str, value: Any) -> None:
        # Solutions are shared through a cache: their arrays are read-only.
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
        object.__setattr__(self, name, value)

    def __init__(self, model: TurnModel, gamma: float, tol: float, horizon: int | None, sweeps: int,
                 residual: float) -> None:
        self.model, self.layout = model, model.game.layout
        self.gamma, self.tol, self.horizon = gamma, tol, horizon
        self.sweeps, self.residual = sweeps, residual
        self._outcomes: dict[tuple[Outcome, int], tuple[np.ndarray, np.ndarray]] = {}

    def __repr__(self) -> str:
        horizon = "" if self.horizon is None else f", horizon={self.horizon}"
        return (f"{type(self).__name__}(layout={self.layout.name!r}, slip={self.model.game.slip!r}, "
                f"gamma={self.gamma:g}{horizon}, sweeps={self.sweeps}, residual={self.residual:.2g})")

    def cache_reserve(self) -> int:
        """The bytes the outcome tables computed on demand may add (the solution cache counts them
        when it takes the solution in): :data:`_OUTCOMES_KEPT` pairs of ``float64[num_live + 1]``."""
        return _OUTCOMES_KEPT * 2 * 8 * (self.model.num_live + 1)

    def _live(self, agent_pos: Any, ghost_pos: Any) -> int:
        index = self.model.live_index(agent_pos, ghost_pos)
        if index == self.model.num_live:
            raise ValueError(
                f"the game is over with the agent at {tuple(agent_pos)} and the ghost at {tuple(ghost_pos)} "
                "(caught, or the agent on a goal): nobody moves there"
            )
        return index

    def _policies(self) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError  # pragma: no cover - every solution defines it

    def value(self, agent_pos: Any, ghost_pos: Any) -> float:
        """The expected discounted return from this state, agent to move, when both sides play
        this solution's policies (the agent's return, or the ghost's for a
        :class:`GhostSolution`); 0 where the game is over.

        Raises:
            TypeError, ValueError: a position is not a cell of the layout.
        """
        return float(self._values[self.model.live_index(agent_pos, ghost_pos)])

    def _outcome(self, agent_pos: Any, ghost_pos: Any, event: Outcome, horizon: int) -> tuple[float, float]:
        horizon = check_limit(horizon, "horizon", allow_none=False, maximum=iteration.MAX_ITERATIONS)
        index = self.model.live_index(agent_pos, ghost_pos)
        key = (event, horizon)
        if key not in self._outcomes:
            if len(self._outcomes) >= _OUTCOMES_KEPT:
                del self._outcomes[next(iter(self._outcomes))]
            self._outcomes[key] = _outcome_within(self.model, *self._policies(), event, horizon)
        probability, timing = self._outcomes[key]
        return float(probability[index]), float(timing[index])

    def success_probability(self, agent_pos: Any, ghost_pos: Any, horizon: int = 100) -> float:
        """The probability that the agent reaches a goal within ``horizon`` full turns from this
        state (agent to move), both sides following this solution's policies; 0 where the game
        is over.

        Raises:
            TypeError, ValueError: a position is not a cell of the layout, or ``horizon`` is not
                an int >= 1.
        """
        return self._outcome(agent_pos, ghost_pos, Outcome.GOAL, horizon)[0]

    def capture_probability(self, agent_pos: Any, ghost_pos: Any, horizon: int = 100) -> float:
        """The probability that the ghost catches the agent within ``horizon`` full turns from
        this state (agent to move), both sides following this solution's policies.

        Raises:
            TypeError, ValueError: as :meth:`success_probability`.
        """
        return self._outcome(agent_pos, ghost_pos, Outcome.CAUGHT, horizon)[0]

    def capture_time(self, agent_pos: Any, ghost_pos: Any, horizon: int = 100) -> float:
        """The expected number of full turns until the ghost catches the agent, among the games
        from this state that end with a catch within ``horizon`` turns (``nan`` if none does).

        Raises:
            TypeError, ValueError: as :meth:`success_probability`.
        """
        probability, timing = self._outcome(agent_pos, ghost_pos, Outcome.CAUGHT, horizon)
        return timing / probability if probability > 0.0 else float("nan")


class _OneSide(_Solution):
    """One side's MDP against a fixed policy of the other, solved: what :class:`AgentSolution` and
    :class:`GhostSolution` share. Values are that side's own returns."""

    def __init__(self, model: TurnModel, side: Side, opponent: np.ndarray, gamma: float, tol: float,
                 horizon: int | None, progress_bar: bool = False) -> None:
        agent, ghost = (_MAXIMISE, opponent) if side == Side.AGENT else (opponent, _MAXIMISE)
        values, agent_q, ghost_q, sweeps, residual = _iterate(model, agent, ghost, side, gamma, tol, horizon,
                                                              progress_bar)
        super().__init__(model, gamma, tol, horizon, sweeps, residual)
        self._side, self._opponent = side, opponent
        self._values, self._q = values, agent_q if side == Side.AGENT else ghost_q
        self._actions = greedy(self._q, _MAXIMISE)
        self.values = model.expand(values[:-1])
        self.q_values = model.expand(self._q.T)
        self.policy = model.expand(self._actions, fill=-1)

    def _policies(self) -> tuple[np.ndarray, np.ndarray]:
        mine = one_hot(self._actions)
        return (mine, self._opponent) if self._side == Side.AGENT else (self._opponent, mine)

    def q(self, agent_pos: Any, ghost_pos: Any) -> np.ndarray:
        """This side's action values (``float64[4]``) with this side to move at these positions.

        Raises:
            TypeError, ValueError: a position is not a cell of the layout, or the game is over.
        """
        return self._q[:, self._live(agent_pos, ghost_pos)].copy()

    def action(self, agent_pos: Any, ghost_pos: Any) -> int:
        """This side's greedy action with this side to move at these positions (ties to the
        lowest action).

        Raises:
            TypeError, ValueError: as :meth:`q`.
        """
        return int(self._actions[self._live(agent_pos, ghost_pos)])


class AgentSolution(_OneSide):
    """The agent's MDP against a fixed ghost, solved (:func:`solve_agent`).

    Attributes:
        values: ``float64[rows, cols, rows, cols]``, the optimal value of every state (agent to
            move; 0 where the game is over).
        q_values: ``float64[rows, cols, rows, cols, 4]``, the agent's action values.
        policy: ``int64[rows, cols, rows, cols]``, the greedy action (-1 where the game is over).
        ghost: the ghost's policy, ``float64[rows, cols, rows, cols, 4]`` probabilities (ghost to
            move).
    """

    def __init__(self, model: TurnModel, ghost: np.ndarray, gamma: float, tol: float, horizon: int | None,
                 progress_bar: bool = False) -> None:
        super().__init__(model, Side.AGENT, ghost, gamma, tol, horizon, progress_bar)
        self.ghost = model.expand(ghost.T)


class GhostSolution(_OneSide):
    """The ghost's MDP against a fixed agent, solved (:func:`solve_ghost`): values are the
    ghost's own returns.

    Turns start with the agent's move, as everywhere in the solver, so the reward of the agent's
    reply to a ghost move is discounted once more than the ghost's move. A learning ghost's
    Gymnasium step is its move plus that reply, undiscounted between them: with ``gamma < 1``
    its action values differ from :attr:`q_values` by that discount.

    Attributes:
        values: ``float64[rows, cols, rows, cols]``, the ghost's optimal value of every state with
            the agent to move (0 where the game is over).
        q_values: ``float64[rows, cols, rows, cols, 4]``, the ghost's action values with the ghost
            to move.
        policy: ``int64[rows, cols, rows, cols]``, the ghost's greedy action with the ghost to
            move (-1 where the game is over).
        agent: the agent's policy, ``float64[rows, cols, rows, cols, 4]`` probabilities.
    """

    def __init__(self, model: TurnModel, agent: np.ndarray, gamma: float, tol: float, horizon: int | None,
                 progress_bar: bool = False) -> None:
        super().__init__(model, Side.GHOST, agent, gamma, tol, horizon, progress_bar)
        self.agent = model.expand(agent.T)


class GameSolution(_Solution):
    """The zero-sum game, solved (:func:`solve_game`): the agent maximises its return, the ghost
    minimises it, slip is chance. Values are the agent's.

    Attributes:
        values: ``float64[rows, cols, rows, cols]``, the game's value of every state, agent to
            move (0 where the game is over).
        agent_q_values: ``float64[rows, cols, rows, cols, 4]``, the agent's action values.
        ghost_q_values: ``float64[rows, cols, rows, cols, 4]``, the ghost's action values (the
            agent's return after each ghost move), ghost to move.
        agent_policy, ghost_policy: ``int64[rows, cols, rows, cols]``, each side's optimal action
            (the ghost's with the ghost to move; -1 where the game is over).
    """

    def __init__(self, model: TurnModel, gamma: float, tol: float, horizon: int | None,
                 progress_bar: bool = False) -> None:
        values, agent_q, ghost_q, sweeps, residual = _iterate(model, _MAXIMISE, _MINIMISE, Side.AGENT, gamma, tol,
                                                              horizon, progress_bar)
        super().__init__(model, gamma, tol, horizon, sweeps, residual)
        self._values, self._agent_q, self._ghost_q = values, agent_q, ghost_q
        self._agent_actions = greedy(agent_q, _MAXIMISE)
        self._ghost_actions = greedy(ghost_q, _MINIMISE)
        self.values = model.expand(values[:-1])
        self.agent_q_values = model.expand(agent_q.T)
        self.ghost_q_values = model.expand(ghost_q.T)
        self.agent_policy = model.expand(self._agent_actions, fill=-1)
        self.ghost_policy = model.expand(self._ghost_actions, fill=-1)

    def _policies(self) -> tuple[np.ndarray, np.ndarray]:
        return one_hot(self._agent_actions), one_hot(self._ghost_actions)

    def agent_q(self, agent_pos: Any, ghost_pos: Any) -> np.ndarray:
        """The agent's action values (``float64[4]``) in this state, agent to move.

        Raises:
            TypeError, ValueError: a position is not a cell of the layout, or the game is over.
        """
        return self._agent_q[:, self._live(agent_pos, ghost_pos)].copy()

    def ghost_q(self, agent_pos: Any, ghost_pos: Any) -> np.ndarray:
        """The ghost's action values (``float64[4]``, the agent's return) with the ghost to move.

        Raises:
            TypeError, ValueError: as :meth:`agent_q`.
        """
        return self._ghost_q[:, self._live(agent_pos, ghost_pos)].copy()

    def agent_action(self, agent_pos: Any, ghost_pos: Any) -> int:
        """The agent's optimal action in this state (ties to the lowest action).

        Raises:
            TypeError, ValueError: as :meth:`agent_q`.
        """
        return int(self._agent_actions[self._live(agent_pos, ghost_pos)])

    def ghost_action(self, agent_pos: Any, ghost_pos: Any) -> int:
        """The ghost's optimal action with the ghost to move at these positions.

        Raises:
            TypeError, ValueError: as :meth:`agent_q`.
        """
        return int(self._ghost_actions[self._live(agent_pos, ghost_pos)])


class PolicyEvaluation(_Solution):
    """Two fixed state policies played against each other, evaluated exactly
    (:func:`evaluate_policies`). Values are the agent's.

    Attributes:
        values: ``float64[rows, cols, rows, cols]``, the agent's expected discounted return from
            every state, agent to move (0 where the game is over).
        agent, ghost: the two policies, ``float64[rows, cols, rows, cols, 4]`` probabilities.
    """

    def __init__(self, model: TurnModel, agent: np.ndarray, ghost: np.ndarray, gamma: float, tol: float,
                 horizon: int | None, progress_bar: bool = False) -> None:
        values, _, _, sweeps, residual = _iterate(model, agent, ghost, Side.AGENT, gamma, tol, horizon, progress_bar)
        super().__init__(model, gamma, tol, horizon, sweeps, residual)
        self._values, self._agent, self._ghost = values, agent, ghost
        self.values = model.expand(values[:-1])
        self.agent, self.ghost = model.expand(agent.T), model.expand(ghost.T)

    def _policies(self) -> tuple[np.ndarray, np.ndarray]:
        return self._agent, self._ghost


# -- the solvers -----------------------------------------------------------------------------------
def solve_agent(layout: Layout | None = None, slip: str | SlipModel | None = None, ghost: Any = "chase",
                rewards: Rewards | str | None = None, gamma: float = 0.99, tol: float = 1e-10,
                horizon: int | None = None, *, game: Game | None = None, spec: Any = None, config: Any = None,
                progress_bar: bool = False) -> AgentSolution:
    """Solve the agent's MDP against a fixed ghost.

    Args:
        layout: the map; ``None`` means the classic map.
        slip: the agent's slip model, or a slip type name (probability 0.2); ``None`` means
            longitudinal slip of 0.2, the envs' default.
        ghost: the ghost's state policy: ``"chase"``, ``"random"``, a callable ``(agent_pos,
            ghost_pos) -> action`` or probabilities ``(rows, cols, rows, cols, 4)`` (ghost to move).
        rewards: the agent's rewards (a :class:`~gridghost.core.rules.Rewards` or a preset's name,
            ``"reference"`` or ``"normalised"``); ``None`` means the reference's. Values come
            out in the units of these rewards.
        gamma: the discount per full turn, in (0, 1].
        tol: value iteration stops when no value changes by more than this in a sweep.
        horizon: if given, the values of a game cut after this many turns (and its first turn's
            greedy policy) instead of the unending game's.
        game: the whole game at once instead of ``layout``, ``slip`` and ``rewards``: a
            :class:`~gridghost.core.game.Game` with the ghost in play (an env's is
            ``env.unwrapped.config.game()``); its agent rewards are the agent's.
        spec: the game's settings instead, a :class:`gridghost.GameSpec` (an env's ``.config``),
            read as ``game=spec.game()``.
        config: deprecated (a :class:`DeprecationWarning`): an env's settings, read as
            ``game=config.game()``.
        progress_bar: count value iteration's sweeps on a progress bar on stderr, with an ETA
            estimated from how fast the values settle (worth it on large maps; a solution
            found in the cache draws none).

    Returns:
        The :class:`AgentSolution`.

    Raises:
        TypeError, ValueError: a bad argument (see :func:`~gridghost.planning.policy.policy_array`
            for ``ghost``), ``game`` together with a setting, a game without the ghost, or
            ``gamma=1`` without a horizon where the agent could make the game go on for ever.
        RuntimeError: the tolerance was not reached in :data:`MAX_ITERATIONS` sweeps.
    """
    gamma, tol, horizon = _check_settings(gamma, tol, horizon, progress_bar)
    game = solver_game(layout, slip, rewards, game=game, spec=spec, config=config)
    model = turn_model(game)
    if isinstance(ghost, str):
        return cached_solution(game, ("agent", ghost, gamma, tol, horizon), lambda: AgentSolution(
            model, policy_array(ghost, model, Side.GHOST, "ghost"), gamma, tol, horizon, progress_bar))
    return AgentSolution(model, policy_array(ghost, model, Side.GHOST, "ghost", gamma), gamma, tol, horizon,
                         progress_bar)


def solve_ghost(layout: Layout | None = None, slip: str | SlipModel | None = None, agent: Any = "random",
                rewards: Rewards | str | None = None, ghost_rewards: Rewards | None = None, gamma: float = 0.99,
                tol: float = 1e-10, horizon: int | None = None, *, game: Game | None = None,
                spec: Any = None, config: Any = None, progress_bar: bool = False) -> GhostSolution:
    """Solve the ghost's MDP against a fixed agent: the ghost maximises its own return.

    Args:
        layout, slip, rewards, gamma, tol, horizon: as :func:`solve_agent`.
        agent: the agent's state policy: ``"random"``, a callable ``(agent_pos, ghost_pos) ->
            action`` or probabilities ``(rows, cols, rows, cols, 4)``.
        ghost_rewards: the ghost's rewards; ``None`` means zero-sum (the agent's negated).
        game, spec, config: as :func:`solve_agent` (the game's ghost rewards are the ghost's).
        progress_bar: as :func:`solve_agent`.

    Returns:
        The :class:`GhostSolution`.

    Raises:
        TypeError, ValueError, RuntimeError: as :func:`solve_agent`.
    """
    gamma, tol, horizon = _check_settings(gamma, tol, horizon, progress_bar)
    model = turn_model(solver_game(layout, slip, rewards, ghost_rewards, game=game, spec=spec, config=config))
    return GhostSolution(model, policy_array(agent, model, Side.AGENT, "agent", gamma), gamma, tol, horizon,
                         progress_bar)


def solve_game(layout: Layout | None = None, slip: str | SlipModel | None = None, rewards: Rewards | str | None = None,
               gamma: float = 0.99, tol: float = 1e-10, horizon: int | None = None, *, game: Game | None = None,
               spec: Any = None, config: Any = None, progress_bar: bool = False) -> GameSolution:
    """Solve the zero-sum turn-based stochastic game: the agent maximises its return, the ghost
    minimises it, and slip is chance. Both sides move in turn and see the state, so pure
    optimal policies exist and value iteration finds them.

    Args:
        layout, slip, rewards, gamma, tol, horizon, game, spec, config, progress_bar: as :func:`solve_agent`.

    Returns:
        The :class:`GameSolution`.

    Raises:
        TypeError, ValueError, RuntimeError: as :func:`solve_agent` (with ``gamma=1``, the two
            sides together could make the game go on for ever).
    """
    gamma, tol, horizon = _check_settings(gamma, tol, horizon, progress_bar)
    game = solver_game(layout, slip, rewards, game=game, spec=spec, config=config)
    return _solved_game(game, gamma, tol, horizon,
                        progress_bar)


def _solved_game(game: Game, gamma: float, tol: float, horizon: int | None, progress_bar: bool = False) -> GameSolution:
    """The game's solution, shared through the solution cache."""
    return cached_solution(game, ("game", gamma, tol, horizon),
                           lambda: GameSolution(turn_model(game), gamma, tol, horizon, progress_bar))


def evaluate_policies(agent_policy: Any, ghost_policy: Any, layout: Layout | None = None,
                      slip: str | SlipModel | None = None, rewards: Rewards | str | None = None, gamma: float = 0.99,
                      tol: float = 1e-10, horizon: int | None = None, *, game: Game | None = None,
                      spec: Any = None, config: Any = None, progress_bar: bool = False) -> PolicyEvaluation:
    """Evaluate two fixed state policies against each other exactly: the agent's value, and the
    probabilities of a goal or a catch within a horizon, from any state (a learned pair's ground
    truth, next to the win rates an experiment measures).

    Args:
        agent_policy: the agent's state policy (see :func:`solve_ghost`).
        ghost_policy: the ghost's state policy (see :func:`solve_agent`).
        layout, slip, rewards, gamma, tol, horizon, game, spec, config, progress_bar: as :func:`solve_agent`.

    Returns:
        The :class:`PolicyEvaluation`.

    Raises:
        TypeError, ValueError, RuntimeError: as the solvers (with ``gamma=1``, the two policies
            may never end the game).
    """
    gamma, tol, horizon = _check_settings(gamma, tol, horizon, progress_bar)
    model = turn_model(solver_game(layout, slip, rewards, game=game, spec=spec, config=config))
    return PolicyEvaluation(model, policy_array(agent_policy, model, Side.AGENT, "agent_policy", gamma),
                            policy_array(ghost_policy, model, Side.GHOST, "ghost_policy", gamma), gamma, tol, horizon,
                            progress_bar)


def exploitability(agent_policy: Any, ghost_policy: Any, layout: Layout | None = None,
                   slip: str | SlipModel | None = None, rewards: Rewards | str | None = None, gamma: float = 0.99,
                   tol: float = 1e-10, horizon: int | None = None, *, game: Game | None = None,
                   spec: Any = None, config: Any = None) -> float:
    """How much the two policies give away together against exact best responses, from the start
    state, in the zero-sum game of the agent's rewards (OpenSpiel's NashConv).

    It is ``max_a v(a, ghost_policy) - min_g v(agent_policy, g)``: what the agent would gain by
    switching to a best response, plus what the ghost would gain (in the agent's return it
    takes away). It is also :func:`agent_exploitability` plus :func:`ghost_exploitability`, each
    side's distance from the game's value; the sum is 0 (up to the tolerance) exactly when the
    pair is a minimax equilibrium. To judge one learned side, use that side's term: a perfect
    agent paired with the chasing ghost still shows the chasing ghost's gap.

    Args:
        agent_policy: the agent's state policy (see :func:`solve_ghost`).
        ghost_policy: the ghost's state policy (see :func:`solve_agent`).
        layout, slip, rewards, gamma, tol, horizon, game, spec, config: as :func:`solve_agent`.

    Returns:
        The exploitability, in units of the agent's return.

    Raises:
        TypeError, ValueError, RuntimeError: as the solvers.
    """
    gamma, tol, horizon = _check_settings(gamma, tol, horizon)
    model = turn_model(solver_game(layout, slip, rewards, game=game, spec=spec, config=config))
    ghost = policy_array(ghost_policy, model, Side.GHOST, "ghost_policy", gamma)
    agent = policy_array(agent_policy, model, Side.AGENT, "agent_policy", gamma)
    return (_start_value(model, _MAXIMISE, ghost, gamma, tol, horizon)
            - _start_value(model, agent, _MINIMISE, gamma, tol, horizon))


def agent_exploitability(agent_policy: Any, layout: Layout | None = None, slip: str | SlipModel | None = None,
                         rewards: Rewards | str | None = None, gamma: float = 0.99, tol: float = 1e-10,
                         horizon: int | None = None, *, game: Game | None = None, spec: Any = None,
                         config: Any = None) -> float:
    """How far below the game's value an agent policy falls against a ghost that best responds
    to it, from the start: ``v* - min_g v(agent_policy, g)``, >= 0, 0 for a minimax agent.

    Args:
        agent_policy: the agent's state policy (see :func:`solve_ghost`).
        layout, slip, rewards, gamma, tol, horizon, game, spec, config: as :func:`solve_agent`.

    Raises:
        TypeError, ValueError, RuntimeError: as the solvers.
    """
    gamma, tol, horizon = _check_settings(gamma, tol, horizon)
    game = solver_game(layout, slip, rewards, game=game, spec=spec, config=config)
    return _one_sided(Side.AGENT, agent_policy, game, gamma, tol, horizon)


def ghost_exploitability(ghost_policy: Any, layout: Layout | None = None, slip: str | SlipModel | None = None,
                         rewards: Rewards | str | None = None, gamma: float = 0.99, tol: float = 1e-10,
                         horizon: int | None = None, *, game: Game | None = None, spec: Any = None,
                         config: Any = None) -> float:
    """How far above the game's value an agent that best responds to a ghost policy gets, from
    the start: ``max_a v(a, ghost_policy) - v*``, >= 0, 0 for a minimax ghost.

    Args:
        ghost_policy: the ghost's state policy (see :func:`solve_agent`).
        layout, slip, rewards, gamma, tol, horizon, game, spec, config: as :func:`solve_agent`.

    Raises:
        TypeError, ValueError, RuntimeError: as the solvers.
    """
    gamma, tol, horizon = _check_settings(gamma, tol, horizon)
    game = solver_game(layout, slip, rewards, game=game, spec=spec, config=config)
    return _one_sided(Side.GHOST, ghost_policy, game, gamma, tol, horizon)


def _one_sided(side: Side, policy: Any, game: Game, gamma: float, tol: float, horizon: int | None) -> float:
    """What ``side``'s policy gives away against a best response, next to the game's value."""
    model = turn_model(game)
    value = _solved_game(game, gamma, tol, horizon).value(*_start_of(model))
    if side == Side.AGENT:
        agent = policy_array(policy, model, side, "agent_policy", gamma)
        return value - _start_value(model, agent, _MINIMISE, gamma, tol, horizon)
    ghost = policy_array(policy, model, side, "ghost_policy", gamma)
    return _start_value(model, _MAXIMISE, ghost, gamma, tol, horizon) - value


def _start_value(model: TurnModel, agent: Rule, ghost: Rule, gamma: float, tol: float, horizon: int | None) -> float:
    """The agent's value from the start with each side playing its :data:`Rule` (a best
    response where the rule is ``"max"`` or ``"min"``)."""
    values = _iterate(model, agent, ghost, Side.AGENT, gamma, tol, horizon)[0]
    return float(values[model.live_index(*_start_of(model))])


def _start_of(model: TurnModel) -> tuple[Cell, Cell]:
    return model.game.layout.agent_start, model.game.layout.ghost_start


# MAX_ITERATIONS is read where value iteration runs: setting solve.MAX_ITERATIONS sets that one.
tunables.forward(__name__, iteration, ("MAX_ITERATIONS",))
