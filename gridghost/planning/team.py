"""Exact solutions of a team game (:class:`~gridghost.core.game.Game`: one agent against ``k``
ghosts that move together): the zero-sum game, each side's best response to a fixed policy of
the other, two fixed policies against each other, and exploitability.

They mirror the one-ghost solvers of :mod:`gridghost.planning.solve`: one decision of the agent
is one full turn (its move with slip, then the team's joint move), ``gamma`` discounts per full
turn, values are the agent's return (the team's own for :func:`solve_team_ghosts`), and the
outcome probabilities count full turns. A state is the agent's position and the ghosts' positions,
``(agent_pos, ghost_positions)``, with ``ghost_positions`` one ``(row, col)`` per ghost in the
ghosts' order; the team is one player whose move is the ghosts' ``k`` moves (a joint index, ghost
0 the lowest base-4 digit, as :meth:`~gridghost.core.game.Game.joint_index`). With the team's
moves simultaneous and the state known to everyone, the game is turn-based, so pure optimal
policies exist and value iteration finds them.

The state space has ``cells ** (k + 1)`` states: the solvers estimate the memory they need before
allocating anything and refuse beyond ``max_bytes`` (default
:data:`~gridghost.planning.team_model.MAX_BYTES`). The team's best move is found without
enumerating its ``4 ** k`` joint moves (:mod:`gridghost.planning.team_model`).

>>> import numpy as np
>>> from gridghost.core.layout import Layout
>>> layout = Layout(np.zeros((3, 4), int), goals=[(0, 3)], agent_start=(2, 0), ghost_start=[(0, 2), (2, 3)])
>>> game = solve_team_game(layout, "longitudinal", ghosts=2)
>>> start = layout.agent_start, layout.ghost_starts
>>> game.capture_probability(*start) > solve_team_agent(layout, "longitudinal", ghosts=2).capture_probability(*start)
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gridghost.core.checks import check_limit
from gridghost.core.game import Game
from gridghost.core.names import NUM_ACTIONS
from gridghost.core.rules import Outcome, Rewards, Side
from gridghost.core.slip import SlipModel
from gridghost.planning import iteration
from gridghost.planning.iteration import _check_settings
from gridghost.planning.team_iteration import (
    TeamRule,
    agent_greedy,
    check_ends,
    joint_indices,
    outcome_within,
    team_greedy,
    team_iterate,
)
from gridghost.planning.team_model import MAX_BYTES, TeamModel, team_bytes, team_states
from gridghost.planning.team_policy import agent_policy_array, policy_bytes, team_game, team_rule

__all__ = [
    "MAX_BYTES",
    "TeamAgentSolution",
    "TeamGameSolution",
    "TeamGhostsSolution",
    "TeamPolicyEvaluation",
    "evaluate_team_policies",
    "solve_team_agent",
    "solve_team_game",
    "solve_team_ghosts",
    "team_agent_exploitability",
    "team_bytes",
    "team_exploitability",
    "team_ghosts_exploitability",
    "team_states",
]

#: How many horizons' outcome probabilities a solution keeps.
_OUTCOMES_KEPT = 4


def _grid_policy(model: TeamModel, table: np.ndarray) -> np.ndarray:
    """A per-state table with -1 where the game is over, as a grid-shaped array."""
    out = np.where(model.live, table, -1).astype(np.int8 if table.max(initial=0) < 127 else np.int16)
    return model.grid(out)


class _TeamSolution:
    """What every team solution shares.

    Attributes:
        team: the :class:`~gridghost.core.game.Game`; ``layout`` its map, ``ghosts`` its size.
        model: the :class:`~gridghost.planning.team_model.TeamModel` solved.
        gamma, tol, horizon: the settings; ``sweeps`` the sweeps made, ``residual`` the last change.
        start: the start state, ``(agent_start, ghost_starts)``.
        values: ``float64[rows, cols, (rows, cols) * k]``, each state's value (agent to move; 0
            where the game is over).
    """

    def __setattr__(self, name: str, value: Any) -> None:
        # A solution's tables are read-only, as the one-ghost solutions' are.
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
        object.__setattr__(self, name, value)

    def __init__(self, model: TeamModel, gamma: float, tol: float, horizon: int | None, values: np.ndarray,
                 sweeps: int, residual: float) -> None:
        self.model, self.team, self.layout, self.ghosts = model, model.team, model.team.layout, model.ghosts
        self.gamma, self.tol, self.horizon, self.sweeps, self.residual = gamma, tol, horizon, sweeps, residual
        self.start = (self.layout.agent_start, tuple(self.layout.ghost_starts[: self.ghosts]))
        self._values = values
        self.values = model.grid(values)
        self._outcomes: dict[tuple[Outcome, int], np.ndarray] = {}

    def __repr__(self) -> str:
        horizon = "" if self.horizon is None else f", horizon={self.horizon}"
        return (f"{type(self).__name__}(layout={self.layout.name!r}, ghosts={self.ghosts}, gamma={self.gamma:g}"
                f"{horizon}, sweeps={self.sweeps}, residual={self.residual:.2g})")

    def _policies(self) -> tuple[np.ndarray | str, TeamRule]:
        raise NotImplementedError  # pragma: no cover - every solution defines it

    def _live(self, agent_pos: Any, ghost_positions: Any) -> tuple[int, ...]:
        index = self.model.state(agent_pos, ghost_positions)
        if not self.model.live[index]:
            raise ValueError(f"the game is over with the {self.model.describe(index)} (caught, or the agent on a "
                             "goal): nobody moves there")
        return index

    def value(self, agent_pos: Any, ghost_positions: Any) -> float:
        """The state's value, agent to move (0 where the game is over).

        Raises:
            TypeError, ValueError: ``agent_pos`` is not a cell of the map, or ``ghost_positions``
                not ``k`` of them.
        """
        return float(self._values[self.model.state(agent_pos, ghost_positions)])

    def _outcome(self, agent_pos: Any, ghost_positions: Any, event: Outcome, horizon: Any) -> float:
        horizon = check_limit(horizon, "horizon", allow_none=False, maximum=iteration.MAX_ITERATIONS)
        index = self.model.state(agent_pos, ghost_positions)
        key = (event, horizon)
        if key not in self._outcomes:
            if len(self._outcomes) >= _OUTCOMES_KEPT:
                del self._outcomes[next(iter(self._outcomes))]
            self._outcomes[key] = outcome_within(self.model, *self._policies(), event, horizon)
        return float(self._outcomes[key][index])

    def success_probability(self, agent_pos: Any, ghost_positions: Any, horizon: int = 100) -> float:
        """The probability that the agent reaches a goal within ``horizon`` full turns from this
        state (agent to move), both sides following this solution's policies.

        Raises:
            TypeError, ValueError: a position is not a cell of the map, or ``horizon`` not an int >= 1.
        """
        return self._outcome(agent_pos, ghost_positions, Outcome.GOAL, horizon)

    def capture_probability(self, agent_pos: Any, ghost_positions: Any, horizon: int = 100) -> float:
        """The probability that the team catches the agent within ``horizon`` full turns from
        this state, both sides following this solution's policies.

        Raises:
            TypeError, ValueError: as :meth:`success_probability`.
        """
        return self._outcome(agent_pos, ghost_positions, Outcome.CAUGHT, horizon)


class _JointActions(_TeamSolution):
    """A team solution with a team policy table (joint indices per state), read by positions."""

    _team_joint: np.ndarray

    def team_action(self, agent_pos: Any, ghost_positions: Any) -> tuple[int, ...]:
        """The team's move (each ghost's action, in the ghosts' order) with the team to move at
        these positions.

        Raises:
            TypeError, ValueError: a position is not a cell of the map, or the game is over.
        """
        joint = int(self._team_joint[self._live(agent_pos, ghost_positions)])
        return tuple(joint // NUM_ACTIONS**i % NUM_ACTIONS for i in range(self.model.ghosts))


def _team_solution_parts(model: TeamModel, landing: np.ndarray, how: str) -> tuple[np.ndarray, TeamRule]:
    """The team's greedy policy for the values its moves land on: joint indices and the rule."""
    actions = team_greedy(model, landing, how)
    return joint_indices(actions), TeamRule("table", model.joint_next(actions))


class TeamGameSolution(_JointActions):
    """The zero-sum team game, solved (:func:`solve_team_game`): the agent maximises its return,
    the team minimises it. Values are the agent's.

    Attributes:
        agent_policy: ``int8[rows, cols, (rows, cols) * k]``, the agent's minimax action (-1
            where the game is over).
        team_policy: ``int[rows, cols, (rows, cols) * k]``, the team's minimax joint move (a joint
            index) with the team to move (-1 where the game is over).
    """

    def __init__(self, model: TeamModel, gamma: float, tol: float, horizon: int | None,
                 progress_bar: bool = False) -> None:
        values, q, landing, sweeps, residual = _run(model, "max", TeamRule("min"), Side.AGENT, gamma, tol, horizon,
                                                    progress_bar)
        super().__init__(model, gamma, tol, horizon, values, sweeps, residual)
        self._landing, self._agent_q = landing, q
        self._agent_actions = agent_greedy(q)
        self._team_joint, self._team_rule = _team_solution_parts(model, landing, "min")
        self.agent_policy = _grid_policy(model, self._agent_actions)
        self.team_policy = _grid_policy(model, self._team_joint)

    def _policies(self) -> tuple[np.ndarray | str, TeamRule]:
        return self._agent_actions, self._team_rule

    def agent_action(self, agent_pos: Any, ghost_positions: Any) -> int:
        """The agent's minimax action in this state (ties to the lowest action).

        Raises:
            TypeError, ValueError: a position is not a cell of the map, or the game is over.
        """
        return int(self._agent_actions[self._live(agent_pos, ghost_positions)])

    def agent_q(self, agent_pos: Any, ghost_positions: Any) -> np.ndarray:
        """The agent's action values (``float64[4]``) in this state, agent to move.

        Raises:
            TypeError, ValueError: as :meth:`agent_action`.
        """
        index = self._live(agent_pos, ghost_positions)
        return np.array([float(q[index]) for q in self._agent_q])

    def team_q(self, agent_pos: Any, ghost_positions: Any) -> np.ndarray:
        """The team's joint action values (``float64[4 ** k]``, the agent's return after each joint
        move, by joint index) with the team to move at these positions.

        Raises:
            TypeError, ValueError: as :meth:`agent_action`.
        """
        index = self._live(agent_pos, ghost_positions)
        moves, joints = self.model.moves, NUM_ACTIONS**self.ghosts
        out = np.empty(joints)
        for joint in range(joints):
            ghosts = [int(moves[cell, joint // NUM_ACTIONS**i % NUM_ACTIONS]) for i, cell in enumerate(index[1:])]
            out[joint] = self._landing[(index[0], *ghosts)]
        return out


class TeamAgentSolution(_TeamSolution):
    """The agent's best response to a fixed team policy, solved (:func:`solve_team_agent`).

    Attributes:
        policy: ``int8[rows, cols, (rows, cols) * k]``, the agent's best action (-1 where the game
            is over).
    """

    def __init__(self, model: TeamModel, team: TeamRule, gamma: float, tol: float, horizon: int | None,
                 progress_bar: bool = False) -> None:
        values, q, _, sweeps, residual = _run(model, "max", team, Side.AGENT, gamma, tol, horizon, progress_bar)
        super().__init__(model, gamma, tol, horizon, values, sweeps, residual)
        self._team, self._q = team, q
        self._actions = agent_greedy(q)
        self.policy = _grid_policy(model, self._actions)

    def _policies(self) -> tuple[np.ndarray | str, TeamRule]:
        return self._actions, self._team

    def action(self, agent_pos: Any, ghost_positions: Any) -> int:
        """The agent's best action in this state (ties to the lowest action).

        Raises:
            TypeError, ValueError: a position is not a cell of the map, or the game is over.
        """
        return int(self._actions[self._live(agent_pos, ghost_positions)])

    def q(self, agent_pos: Any, ghost_positions: Any) -> np.ndarray:
        """The agent's action values (``float64[4]``) in this state.

        Raises:
            TypeError, ValueError: as :meth:`action`.
        """
        index = self._live(agent_pos, ghost_positions)
        return np.array([float(q[index]) for q in self._q])


class TeamGhostsSolution(_JointActions):
    """The team's best response to a fixed agent policy, solved (:func:`solve_team_ghosts`): the
    team maximises its own (the team's) reward. Values are the team's.

    Attributes:
        policy: ``int[rows, cols, (rows, cols) * k]``, the team's best joint move with the team to
            move (-1 where the game is over).
    """

    def __init__(self, model: TeamModel, agent: np.ndarray | str, gamma: float, tol: float, horizon: int | None,
                 progress_bar: bool = False) -> None:
        values, _, landing, sweeps, residual = _run(model, agent, TeamRule("max"), Side.GHOST, gamma, tol, horizon,
                                                    progress_bar)
        super().__init__(model, gamma, tol, horizon, values, sweeps, residual)
        self._agent = agent
        self._team_joint, self._team_rule = _team_solution_parts(model, landing, "max")
        self.policy = _grid_policy(model, self._team_joint)

    def _policies(self) -> tuple[np.ndarray | str, TeamRule]:
        return self._agent, self._team_rule


class TeamPolicyEvaluation(_TeamSolution):
    """Two fixed policies of a team game against each other, evaluated exactly
    (:func:`evaluate_team_policies`). Values are the agent's."""

    def __init__(self, model: TeamModel, agent: np.ndarray | str, team: TeamRule, gamma: float, tol: float,
                 horizon: int | None, progress_bar: bool = False) -> None:
        values, _, _, sweeps, residual = _run(model, agent, team, Side.AGENT, gamma, tol, horizon, progress_bar)
        super().__init__(model, gamma, tol, horizon, values, sweeps, residual)
        self._agent, self._team = agent, team

    def _policies(self) -> tuple[np.ndarray | str, TeamRule]:
        return self._agent, self._team


def _run(model: TeamModel, agent: Any, team: TeamRule, side: Side, gamma: float, tol: float, horizon: int | None,
         progress_bar: bool = False) -> tuple[np.ndarray, list[np.ndarray], np.ndarray, int, float]:
    """Value iteration of ``side``'s rewards, from the value of a game that never ends (so that
    states that never end are exact at once) or, with ``gamma=1``, after checking that it ends."""
    if horizon is None and gamma >= 1.0:
        check_ends(model, agent, team)
    start = model.continuing_reward(side) / (1.0 - gamma) if gamma < 1.0 else 0.0
    return team_iterate(model, agent, team, model.reward_arrays(side), gamma, tol, horizon, start=start,
                        progress_bar=progress_bar)


# -- the solvers -------------------------------------------------------------------------------------
def _model(layout: Any, slip: Any, rewards: Any, ghosts: Any, game: Any, spec: Any, max_bytes: Any,
           per_state: Any = None) -> TeamModel:
    team = team_game(layout, slip, rewards, ghosts, game=game, spec=spec)
    extra = per_state(team.ghosts) if callable(per_state) else 0
    return TeamModel(team, max_bytes, extra)


def solve_team_game(layout: Any = None, slip: str | SlipModel | None = None, rewards: Rewards | str | None = None,
                    ghosts: int | None = None, gamma: float = 0.99, tol: float = 1e-10, horizon: int | None = None, *,
                    game: Game | Any = None, spec: Any = None, max_bytes: int | None = None,
                    progress_bar: bool = False) -> TeamGameSolution:
    """Solve the zero-sum team game: the agent maximises its return, the team of ghosts (one
    player choosing all their moves) minimises it, slip is chance.

    Args:
        layout, slip, rewards, gamma, tol, horizon, progress_bar: as
            :func:`~gridghost.planning.solve_game`.
        ghosts: the team's size with the settings one by one (default 2; the ghosts start on the
            map's first starts).
        game: the whole game instead: a :class:`~gridghost.core.game.Game` (or a one-ghost
            :class:`~gridghost.core.game.Game`, played as a team of one).
        spec: the game's settings instead (a :class:`gridghost.GameSpec` with ``ghosts=k``), read
            as ``spec.game()``.
        max_bytes: the memory budget in bytes (``None``: :data:`MAX_BYTES`).

    Returns:
        The :class:`TeamGameSolution`.

    Raises:
        TypeError, ValueError: a bad argument, or a game too large for ``max_bytes`` (refused
            before anything is allocated; the message gives its states and bytes).
        RuntimeError: the tolerance was not reached.
    """
    gamma, tol, horizon = _check_settings(gamma, tol, horizon, progress_bar)
    model = _model(layout, slip, rewards, ghosts, game, spec, max_bytes)
    return TeamGameSolution(model, gamma, tol, horizon, progress_bar)


def solve_team_agent(layout: Any = None, slip: str | SlipModel | None = None, team: Any = "chase",
                     rewards: Rewards | str | None = None, ghosts: int | None = None, gamma: float = 0.99,
                     tol: float = 1e-10, horizon: int | None = None, *, game: Game | Any = None, spec: Any = None,
                     max_bytes: int | None = None, progress_bar: bool = False) -> TeamAgentSolution:
    """Solve the agent's MDP against a fixed team policy (its best response).

    Args:
        team: the team's state policy (see :mod:`gridghost.planning.team_policy`): ``"chase"``
            (independent chasers), ``"random"``, a callable ``(agent_pos, ghost_positions) -> k
            actions``, or an array (a :class:`TeamGameSolution`'s ``team_policy``, say).
        layout, slip, rewards, ghosts, gamma, tol, horizon, game, spec, max_bytes, progress_bar:
            as :func:`solve_team_game`.

    Returns:
        The :class:`TeamAgentSolution`.

    Raises:
        TypeError, ValueError, RuntimeError: as :func:`solve_team_game`, and a bad ``team``.
    """
    gamma, tol, horizon = _check_settings(gamma, tol, horizon, progress_bar)
    model = _model(layout, slip, rewards, ghosts, game, spec, max_bytes, lambda k: policy_bytes(team=team, ghosts=k))
    return TeamAgentSolution(model, team_rule(team, model, "team"), gamma, tol, horizon, progress_bar)


def solve_team_ghosts(layout: Any = None, slip: str | SlipModel | None = None, agent: Any = "random",
                      rewards: Rewards | str | None = None, ghosts: int | None = None, gamma: float = 0.99,
                      tol: float = 1e-10, horizon: int | None = None, *, game: Game | Any = None,
                      spec: Any = None, max_bytes: int | None = None,
                      progress_bar: bool = False) -> TeamGhostsSolution:
    """Solve the team's MDP against a fixed agent policy: the team maximises its own reward (the
    game's ghost rewards, every ghost's share under ``credit="team"``).

    Args:
        agent: the agent's state policy: ``"random"``, a callable ``(agent_pos, ghost_positions) ->
            action`` or an array (a :class:`TeamGameSolution`'s ``agent_policy``, say).
        layout, slip, rewards, ghosts, gamma, tol, horizon, game, spec, max_bytes, progress_bar:
            as :func:`solve_team_game`.

    Returns:
        The :class:`TeamGhostsSolution`.

    Raises:
        TypeError, ValueError, RuntimeError: as :func:`solve_team_game`, and a bad ``agent``.
    """
    gamma, tol, horizon = _check_settings(gamma, tol, horizon, progress_bar)
    model = _model(layout, slip, rewards, ghosts, game, spec, max_bytes, lambda k: policy_bytes(agent=agent))
    return TeamGhostsSolution(model, agent_policy_array(agent, model, "agent"), gamma, tol, horizon, progress_bar)


def evaluate_team_policies(agent_policy: Any, team_policy: Any, layout: Any = None,
                           slip: str | SlipModel | None = None, rewards: Rewards | str | None = None,
                           ghosts: int | None = None, gamma: float = 0.99, tol: float = 1e-10,
                           horizon: int | None = None, *, game: Game | Any = None, spec: Any = None,
                           max_bytes: int | None = None, progress_bar: bool = False) -> TeamPolicyEvaluation:
    """Evaluate a fixed agent policy against a fixed team policy exactly: the agent's value and
    the outcome probabilities within a horizon, from every state.

    Args:
        agent_policy: as ``agent`` of :func:`solve_team_ghosts`.
        team_policy: as ``team`` of :func:`solve_team_agent`.
        layout, slip, rewards, ghosts, gamma, tol, horizon, game, spec, max_bytes, progress_bar:
            as :func:`solve_team_game`.

    Raises:
        TypeError, ValueError, RuntimeError: as the solvers.
    """
    gamma, tol, horizon = _check_settings(gamma, tol, horizon, progress_bar)
    model = _model(layout, slip, rewards, ghosts, game, spec, max_bytes,
                   lambda k: policy_bytes(agent_policy, team_policy, k))
    return TeamPolicyEvaluation(model, agent_policy_array(agent_policy, model), team_rule(team_policy, model), gamma,
                                tol, horizon, progress_bar)


def _start_value(model: TeamModel, agent: Any, team: TeamRule, gamma: float, tol: float,
                 horizon: int | None) -> float:
    """The agent's value from the start with each side's rule."""
    return float(_run(model, agent, team, Side.AGENT, gamma, tol, horizon)[0][model.start()])


def team_exploitability(agent_policy: Any, team_policy: Any, layout: Any = None,
                        slip: str | SlipModel | None = None, rewards: Rewards | str | None = None,
                        ghosts: int | None = None, gamma: float = 0.99, tol: float = 1e-10,
                        horizon: int | None = None, *, game: Game | Any = None, spec: Any = None,
                        max_bytes: int | None = None) -> float:
    """What the two policies give away together against exact best responses, from the start, in
    the zero-sum team game of the agent's rewards (OpenSpiel's NashConv, as
    :func:`~gridghost.planning.exploitability`): ``max_a v(a, team_policy) - min_t v(agent_policy, t)``,
    the sum of :func:`team_agent_exploitability` and :func:`team_ghosts_exploitability`.

    Args:
        agent_policy, team_policy: as :func:`evaluate_team_policies`.
        layout, slip, rewards, ghosts, gamma, tol, horizon, game, spec, max_bytes: as :func:`solve_team_game`.

    Raises:
        TypeError, ValueError, RuntimeError: as the solvers.
    """
    gamma, tol, horizon = _check_settings(gamma, tol, horizon)
    model = _model(layout, slip, rewards, ghosts, game, spec, max_bytes,
                   lambda k: policy_bytes(agent_policy, team_policy, k))
    team, agent = team_rule(team_policy, model), agent_policy_array(agent_policy, model)
    return (_start_value(model, "max", team, gamma, tol, horizon)
            - _start_value(model, agent, TeamRule("min"), gamma, tol, horizon))


def team_agent_exploitability(agent_policy: Any, layout: Any = None, slip: str | SlipModel | None = None,
                              rewards: Rewards | str | None = None, ghosts: int | None = None, gamma: float = 0.99,
                              tol: float = 1e-10, horizon: int | None = None, *, game: Game | Any = None,
                              spec: Any = None, max_bytes: int | None = None) -> float:
    """How far below the team game's value an agent policy falls against a team that best
    responds to it, from the start: ``v* - min_t v(agent_policy, t)``, >= 0, 0 for a minimax agent.

    Args:
        agent_policy: as :func:`evaluate_team_policies`.
        layout, slip, rewards, ghosts, gamma, tol, horizon, game, spec, max_bytes: as :func:`solve_team_game`.

    Raises:
        TypeError, ValueError, RuntimeError: as the solvers.
    """
    gamma, tol, horizon = _check_settings(gamma, tol, horizon)
    model = _model(layout, slip, rewards, ghosts, game, spec, max_bytes, lambda k: policy_bytes(agent_policy))
    agent = agent_policy_array(agent_policy, model)
    return (_start_value(model, "max", TeamRule("min"), gamma, tol, horizon)
            - _start_value(model, agent, TeamRule("min"), gamma, tol, horizon))


def team_ghosts_exploitability(team_policy: Any, layout: Any = None, slip: str | SlipModel | None = None,
                               rewards: Rewards | str | None = None, ghosts: int | None = None, gamma: float = 0.99,
                               tol: float = 1e-10, horizon: int | None = None, *, game: Game | Any = None,
                               spec: Any = None, max_bytes: int | None = None) -> float:
    """How far above the team game's value an agent that best responds to a team policy gets,
    from the start: ``max_a v(a, team_policy) - v*``, >= 0, 0 for a minimax team. Independent
    chasers (``"chase"``) give away what coordination would take.

    Args:
        team_policy: as :func:`evaluate_team_policies`.
        layout, slip, rewards, ghosts, gamma, tol, horizon, game, spec, max_bytes: as :func:`solve_team_game`.

    Raises:
        TypeError, ValueError, RuntimeError: as the solvers.
    """
    gamma, tol, horizon = _check_settings(gamma, tol, horizon)
    model = _model(layout, slip, rewards, ghosts, game, spec, max_bytes,
                   lambda k: policy_bytes(team=team_policy, ghosts=k))
    team = team_rule(team_policy, model)
    return (_start_value(model, "max", team, gamma, tol, horizon)
            - _start_value(model, "max", TeamRule("min"), gamma, tol, horizon))

