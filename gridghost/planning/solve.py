"""Exact solutions of the game, for one ghost or a team of ``k``: the agent's MDP, the ghosts'
MDP, the zero-sum game, two fixed policies against each other, and exploitability.

gridghost's maps are small enough to solve exactly, which gives every experiment a ground truth:
how often a perfect agent reaches a goal against the chasing ghost, what the game is worth when
both sides play perfectly, and how far a learned policy is from either.

Value iteration runs over full turns (the agent's move with slip, then the ghosts' answer) of
the :class:`~gridghost.planning.model.TurnModel`, and ``gamma`` discounts per full turn. The
game is a :class:`~gridghost.core.game.Game` (``game=``: the map, the slip model, both sides'
rewards and the number of ghosts), or its settings one by one. Each side's policy is a state
policy (:mod:`gridghost.planning.policy`). The ghosts are one player whose move is their joint
move; a state is ``(agent_pos, ghost_pos)``, with ``ghost_pos`` one ``(row, col)`` for one ghost
and a sequence of ``k`` of them for ``k`` ghosts. Where both sides decide or play a named policy
(``"chase"``, ``"random"``), permuting the ghosts changes no value, and a team's states are
stored once per multiset of ghost cells.

>>> from gridghost.core.layout import CLASSIC
>>> sol = solve_agent(CLASSIC, "longitudinal", ghost="chase", gamma=0.99)
>>> round(sol.success_probability(CLASSIC.agent_start, CLASSIC.ghost_start), 3) > 0.9
True
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from gridghost.core import tunables
from gridghost.core.checks import check_limit
from gridghost.core.layout import Layout
from gridghost.core.policies import ChasePolicy, RandomPolicy
from gridghost.core.rules import NUM_ACTIONS, Outcome, Rewards, Side
from gridghost.core.slip import SlipModel
from gridghost.planning import compiled, iteration
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
from gridghost.planning.model import TurnModel, by_outcome, cached_solution, turn_model
from gridghost.planning.policy import one_hot, policy_array


class _Solution:
    """What every solution shares: the model, the settings and how value iteration went.

    With a ``horizon``, values are those of a game cut after that many turns, and the policies
    (``action``, ``policy`` and what the probabilities below follow) are the first turn's, the
    best with the whole horizon to go, played at every turn. The tables over every state
    (``values``, ``policy``, ...) are built when first read.

    Attributes:
        layout: the map; ``ghosts`` the number of ghosts ``k``.
        model: the :class:`~gridghost.planning.model.TurnModel` solved.
        start: the start state, ``(agent_pos, ghost_pos)``.
        gamma, tol, horizon: the settings.
        sweeps: the passes over the states made: value iteration's sweeps, and without a horizon
            (one ghost, ``gamma < 1``) the passes of the linear solves that finish them (each
            about a third of a sweep) and, in the game on maps of 2,048 cells or more, the
            in-place sweeps that start them (see :func:`~gridghost.planning.iteration._iterate`).
        residual: the largest change of a value in the last sweep.
    """

    _values: np.ndarray  # the values of the live states, agent to move, and the sink's 0
    #: The tables over every state, built from the solution on first reading.
    _TABLES: ClassVar[dict[str, Any]] = {"values": lambda self: self.model.expand(self._values[:-1])}
    #: How the ghosts choose where they decide: against the agent, or for their own return.
    _GHOST_RULE = _MINIMISE
    #: Where the ghosts decide: their joint action values after the values the last sweep read,
    #: computed when first read (a team moved one ghost at a time builds its joint tables then).
    _GHOSTS_DECIDE: ClassVar[dict[str, Any]] = {
        "_ghost_q": lambda self: self.model.ghost_q(self._read, self._summed, self.gamma),
        "_ghost_actions": lambda self: greedy(self._ghost_q, self._GHOST_RULE),
    }

    def __setattr__(self, name: str, value: Any) -> None:
        # Solutions are shared through a cache: their arrays are read-only.
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
        object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        build = type(self)._TABLES.get(name)
        if build is None or name.startswith("__"):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        setattr(self, name, build(self))
        return self.__dict__[name]

    def __init__(self, model: TurnModel, agent: Rule, ghost: Rule, side: Side, gamma: float, tol: float,
                 horizon: int | None, progress_bar: bool = False) -> None:
        # value iteration with each side's rule, side's rewards summed; a side's fixed policy is kept
        self._values, agent_q, self._read, self.sweeps, self.residual = _iterate(model, agent, ghost, side, gamma,
                                                                                 tol, horizon, progress_bar)
        self._summed = side
        self.model, self.layout, self.ghosts = model, model.game.layout, model.ghosts
        starts = self.layout.ghost_starts[: self.ghosts]
        self.start = (self.layout.agent_start, starts[0] if self.ghosts == 1 else tuple(starts))
        self.gamma, self.tol, self.horizon = gamma, tol, horizon
        self._outcomes: dict[tuple[Outcome, int], tuple[np.ndarray, np.ndarray]] = {}
        self._agent, self._ghost = agent, ghost
        if isinstance(agent, str):
            self._agent_q, self._agent_actions = agent_q, greedy(agent_q, _MAXIMISE)

    def __repr__(self) -> str:
        horizon = "" if self.horizon is None else f", horizon={self.horizon}"
        ghosts = "" if self.ghosts == 1 else f", ghosts={self.ghosts}"
        return (f"{type(self).__name__}(layout={self.layout.name!r}, slip={self.model.game.slip!r}{ghosts}, "
                f"gamma={self.gamma:g}{horizon}, sweeps={self.sweeps}, residual={self.residual:.2g})")

    def cache_reserve(self) -> int:
        """The bytes the tables computed on demand may add (the solution cache counts them when it
        takes the solution in): :data:`_OUTCOMES_KEPT` pairs of outcome tables ``float64[num_live
        + 1]``, the model's rewards still to spread, and the tables not yet built (each its
        8-byte values or actions per state: one, or one per action or joint action)."""
        model, states = self.model, self.model.game.num_cells ** (self.ghosts + 1)
        widths = {"values": 1, "policy": 1, "agent_policy": 1, "ghost_policy": 1, "team_policy": 0,
                  "_ghost_actions": 1, "agent_q_values": NUM_ACTIONS, "agent": NUM_ACTIONS}
        widest = max(NUM_ACTIONS, model.joints)
        pending = sum((model.num_live if name.startswith("_") else states) * widths.get(name, widest)
                      for name in self._TABLES if name not in self.__dict__)
        return _OUTCOMES_KEPT * 2 * 8 * (model.num_live + 1) + model.cache_reserve() + 8 * pending

    def _live(self, agent_pos: Any, ghost_pos: Any) -> int:
        index = self.model.live_index(agent_pos, ghost_pos)
        if index == self.model.num_live:
            where = tuple(ghost_pos) if self.ghosts == 1 else ", ".join(str(tuple(cell)) for cell in ghost_pos)
            ghosts = "ghost" if self.ghosts == 1 else "ghosts"
            raise ValueError(f"the game is over with the agent at {tuple(agent_pos)} and the {ghosts} at {where} "
                             "(caught, or the agent on a goal): nobody moves there")
        return index

    def _policies(self) -> tuple[np.ndarray, np.ndarray]:
        """Both sides' probabilities over the live states: a fixed policy, or a deciding side's greedy actions."""
        return (one_hot(self._agent_actions) if isinstance(self._agent, str) else self._agent,
                one_hot(self._ghost_actions, self.model.joints) if isinstance(self._ghost, str) else self._ghost)

    def _q(self, side: Side, agent_pos: Any, ghost_pos: Any) -> np.ndarray:
        """``side``'s action values in a live state: the agent's ``float64[4]``, the ghosts'
        ``float64[4 ** k]`` by the joint indices of their own order."""
        live = self._live(agent_pos, ghost_pos)
        if side == Side.AGENT:
            return self._agent_q[:, live].copy()
        return self._ghost_q[self.model.stored_joints(np.array([self.model.ghost_indices(ghost_pos)]))[0], live]

    def _move(self, side: Side, agent_pos: Any, ghost_pos: Any, team: bool = False) -> Any:
        """``side``'s greedy action in a live state (the ghosts' by :attr:`_GHOST_RULE`): an int,
        or each ghost's action in their order for ``k >= 2`` ghosts (or with ``team``). With
        states stored by multisets, the ghosts' best joint action of their own order, so that
        ties go to its lowest joint index as in every other state."""
        best = int(greedy(self._q(side, agent_pos, ghost_pos)[:, None],
                          _MAXIMISE if side == Side.AGENT else self._GHOST_RULE)[0])
        return best if side == Side.AGENT or (self.ghosts == 1 and not team) else self.model.game.joint_actions(best)

    def value(self, agent_pos: Any, ghost_pos: Any) -> float:
        """The expected discounted return from this state, agent to move, when both sides play
        this solution's policies (the agent's return, or the ghosts' for a
        :class:`GhostSolution`); 0 where the game is over.

        Raises:
            TypeError, ValueError: a position is not a cell of the layout (or not ``k`` of them).
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

    def _reachable_success(self, agent_pos: Any, ghost_pos: Any, horizon: int) -> float | None:
        """:meth:`success_probability` over the states reachable from this one alone
        (:func:`~gridghost.planning.iteration.reachable_outcome`), or ``None`` where a fixed
        policy is not deterministic."""
        agent_actions, ghost_actions = _deterministic(self._agent), _deterministic(self._ghost)
        if isinstance(self._agent, str):
            agent_actions = self._agent_actions
        if agent_actions is None or (ghost_actions is None and not isinstance(self._ghost, str)):
            return None
        rewards = by_outcome(self.model.game, Side.GHOST, self._summed)

        def choose(states: np.ndarray, moves: np.ndarray, ends: np.ndarray) -> np.ndarray:
            if ghost_actions is not None:
                return ghost_actions[states]  # type: ignore[no-any-return]
            q = self._read.take(moves, mode="clip")
            q *= self.gamma
            q += rewards[ends]
            return greedy(q, self._GHOST_RULE)

        start = self.model.live_index(agent_pos, ghost_pos)
        return iteration.reachable_outcome(self.model, start, agent_actions, choose, Outcome.GOAL, horizon)

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
        """The probability that the ghosts catch the agent within ``horizon`` full turns from
        this state (agent to move), both sides following this solution's policies.

        Raises:
            TypeError, ValueError: as :meth:`success_probability`.
        """
        return self._outcome(agent_pos, ghost_pos, Outcome.CAUGHT, horizon)[0]

    def capture_time(self, agent_pos: Any, ghost_pos: Any, horizon: int = 100) -> float:
        """The expected number of full turns until the ghosts catch the agent, among the games
        from this state that end with a catch within ``horizon`` turns (``nan`` if none does).

        Raises:
            TypeError, ValueError: as :meth:`success_probability`.
        """
        probability, timing = self._outcome(agent_pos, ghost_pos, Outcome.CAUGHT, horizon)
        return timing / probability if probability > 0.0 else float("nan")


class _OneSide(_Solution):
    """One side's MDP against a fixed policy of the other, solved: what :class:`AgentSolution` and
    :class:`GhostSolution` share. Values are that side's own returns."""

    _side: Side
    _TABLES: ClassVar[dict[str, Any]] = {
        **_Solution._TABLES,
        "q_values": lambda self: (self.model.expand(self._agent_q.T) if self._side == Side.AGENT
                                  else self.model.expand_q(self._ghost_q)),
        "policy": lambda self: (self.model.expand(self._agent_actions, fill=-1) if self._side == Side.AGENT
                                else _greedy_joint(self.model, self._ghost_q, _MAXIMISE)),
    }

    def q(self, agent_pos: Any, ghost_pos: Any) -> np.ndarray:
        """This side's action values with this side to move at these positions: ``float64[4]``
        for the agent, ``float64[4 ** k]`` by joint index for the ghosts.

        Raises:
            TypeError, ValueError: a position is not a cell of the layout, or the game is over.
        """
        return self._q(self._side, agent_pos, ghost_pos)

    def action(self, agent_pos: Any, ghost_pos: Any) -> Any:
        """This side's greedy action with this side to move at these positions (ties to the
        lowest action): an int, or each ghost's action for ``k >= 2`` ghosts.

        Raises:
            TypeError, ValueError: as :meth:`q`.
        """
        return self._move(self._side, agent_pos, ghost_pos)


class AgentSolution(_OneSide):
    """The agent's MDP against fixed ghosts, solved (:func:`solve_agent`). Grids below are
    written for one ghost; ``k`` ghosts add a ``(rows, cols)`` per ghost after the agent's.

    Attributes:
        values: ``float64[rows, cols, rows, cols]``, the optimal value of every state (agent to
            move; 0 where the game is over).
        q_values: ``float64[rows, cols, rows, cols, 4]``, the agent's action values.
        policy: ``int64[rows, cols, rows, cols]``, the greedy action (-1 where the game is over).
        ghost: the ghosts' policy, ``float64[rows, cols, rows, cols, 4 ** k]`` probabilities
            (ghosts to move).
    """

    _side = Side.AGENT
    _TABLES: ClassVar[dict[str, Any]] = {**_OneSide._TABLES, "ghost": lambda self: self.model.expand_q(self._ghost)}

    def __init__(self, model: TurnModel, ghost: np.ndarray, gamma: float, tol: float, horizon: int | None,
                 progress_bar: bool = False) -> None:
        super().__init__(model, _MAXIMISE, ghost, Side.AGENT, gamma, tol, horizon, progress_bar)


class GhostSolution(_OneSide):
    """The ghosts' MDP against a fixed agent, solved (:func:`solve_ghost`): values are the
    ghosts' own returns (the team's reward, which every ghost gets under ``credit="team"``).

    Turns start with the agent's move, as everywhere in the solver, so the reward of the agent's
    reply to a ghost move is discounted once more than the ghost's move. A learning ghost's
    Gymnasium step is its move plus that reply, undiscounted between them: with ``gamma < 1``
    its action values differ from :attr:`q_values` by that discount.

    Attributes:
        values: ``float64[rows, cols, rows, cols]``, the ghosts' optimal value of every state with
            the agent to move (0 where the game is over).
        q_values: ``float64[rows, cols, rows, cols, 4 ** k]``, the ghosts' action values with the
            ghosts to move, by joint index.
        policy: ``int64[rows, cols, rows, cols]``, the ghosts' greedy (joint) action with the
            ghosts to move (-1 where the game is over).
        agent: the agent's policy, ``float64[rows, cols, rows, cols, 4]`` probabilities.
    """

    _side, _GHOST_RULE = Side.GHOST, _MAXIMISE
    _TABLES: ClassVar[dict[str, Any]] = {**_OneSide._TABLES, **_Solution._GHOSTS_DECIDE,
                                         "agent": lambda self: self.model.expand(self._agent.T)}

    def __init__(self, model: TurnModel, agent: np.ndarray, gamma: float, tol: float, horizon: int | None,
                 progress_bar: bool = False) -> None:
        super().__init__(model, agent, _MAXIMISE, Side.GHOST, gamma, tol, horizon, progress_bar)

    def team_action(self, agent_pos: Any, ghost_pos: Any) -> tuple[int, ...]:
        """Each ghost's greedy action (a tuple for any ``k``) with the ghosts to move at these
        positions (a :class:`GameSolution`'s: their optimal action in the zero-sum game).

        Raises:
            TypeError, ValueError: a position is not a cell of the layout, or the game is over.
        """
        return self._move(Side.GHOST, agent_pos, ghost_pos, team=True)


class GameSolution(_Solution):
    """The zero-sum game, solved (:func:`solve_game`): the agent maximises its return, the ghosts
    (one player choosing their joint move) minimise it, slip is chance. Values are the agent's.
    Grids are written for one ghost; ``k`` ghosts add a ``(rows, cols)`` per ghost.

    Attributes:
        values: ``float64[rows, cols, rows, cols]``, the game's value of every state, agent to
            move (0 where the game is over).
        agent_q_values: ``float64[rows, cols, rows, cols, 4]``, the agent's action values.
        ghost_q_values: ``float64[rows, cols, rows, cols, 4 ** k]``, the ghosts' action values
            (the agent's return after each joint move), ghosts to move.
        agent_policy, ghost_policy: ``int64[rows, cols, rows, cols]``, each side's optimal action
            (the ghosts' joint action with the ghosts to move; -1 where the game is over);
            ``team_policy`` is ``ghost_policy``.
    """

    _TABLES: ClassVar[dict[str, Any]] = {
        **_Solution._TABLES,
        **_Solution._GHOSTS_DECIDE,
        "agent_q_values": lambda self: self.model.expand(self._agent_q.T),
        "ghost_q_values": lambda self: self.model.expand_q(self._ghost_q),
        "agent_policy": lambda self: self.model.expand(self._agent_actions, fill=-1),
        "ghost_policy": lambda self: _greedy_joint(self.model, self._ghost_q, _MINIMISE),
        "team_policy": lambda self: self.ghost_policy,
    }

    def __init__(self, model: TurnModel, gamma: float, tol: float, horizon: int | None,
                 progress_bar: bool = False) -> None:
        super().__init__(model, _MAXIMISE, _MINIMISE, Side.AGENT, gamma, tol, horizon, progress_bar)

    def agent_q(self, agent_pos: Any, ghost_pos: Any) -> np.ndarray:
        """The agent's action values (``float64[4]``) in this state, agent to move.

        Raises:
            TypeError, ValueError: a position is not a cell of the layout, or the game is over.
        """
        return self._q(Side.AGENT, agent_pos, ghost_pos)

    def ghost_q(self, agent_pos: Any, ghost_pos: Any) -> np.ndarray:
        """The ghosts' action values (``float64[4 ** k]`` by joint index, the agent's return)
        with the ghosts to move; ``team_q`` is the same.

        Raises:
            TypeError, ValueError: as :meth:`agent_q`.
        """
        return self._q(Side.GHOST, agent_pos, ghost_pos)

    team_q = ghost_q

    def agent_action(self, agent_pos: Any, ghost_pos: Any) -> int:
        """The agent's optimal action in this state (ties to the lowest action).

        Raises:
            TypeError, ValueError: as :meth:`agent_q`.
        """
        return self._move(Side.AGENT, agent_pos, ghost_pos)

    def ghost_action(self, agent_pos: Any, ghost_pos: Any) -> Any:
        """The ghosts' optimal action with the ghosts to move at these positions: an int for one
        ghost, each ghost's action for ``k >= 2``.

        Raises:
            TypeError, ValueError: as :meth:`agent_q`.
        """
        return self._move(Side.GHOST, agent_pos, ghost_pos)

    team_action = GhostSolution.team_action


class PolicyEvaluation(_Solution):
    """Two fixed state policies played against each other, evaluated exactly
    (:func:`evaluate_policies`). Values are the agent's.

    Attributes:
        values: ``float64[rows, cols, rows, cols]``, the agent's expected discounted return from
            every state, agent to move (0 where the game is over).
        agent, ghost: the two policies, ``float64[rows, cols, rows, cols, 4]`` probabilities
            (``4 ** k`` joint actions for ``k`` ghosts).
    """

    _TABLES: ClassVar[dict[str, Any]] = {
        **_Solution._TABLES,
        "agent": lambda self: self.model.expand(self._agent.T),
        "ghost": lambda self: self.model.expand_q(self._ghost),
    }

    def __init__(self, model: TurnModel, agent: np.ndarray, ghost: np.ndarray, gamma: float, tol: float,
                 horizon: int | None, progress_bar: bool = False) -> None:
        super().__init__(model, agent, ghost, Side.AGENT, gamma, tol, horizon, progress_bar)


def _deterministic(rule: Rule) -> np.ndarray | None:
    """The action per live state of a fixed policy (``[actions, num_live]``) that is one-hot,
    else (a deciding side, or a policy that draws) ``None``."""
    if isinstance(rule, str) or not (((rule == 0.0) | (rule == 1.0)).all() and (rule.sum(axis=0) == 1.0).all()):
        return None
    return np.argmax(rule, axis=0)


# -- the solvers -----------------------------------------------------------------------------------
def _greedy_joint(model: TurnModel, q: np.ndarray, rule: str) -> np.ndarray:
    """The ghosts' best joint action in every state (-1 where the game is over), in that state's
    ghost order: the greedy of ``q`` read in each state's own order, so that with states stored
    by multisets ties go to the lowest joint index of that order, as without the symmetry."""
    values = model.expand_q(q)
    best = greedy(values.reshape(-1, model.joints).T, rule).reshape(values.shape[:-1])
    return np.where(model.expand(np.ones(model.num_live, dtype=bool)), best, -1)


def named(policy: Any) -> bool:
    """Whether ``policy`` is one of the named ones (``"chase"``, ``"random"``, or their policy
    objects), which treat the ghosts alike: a team's states may then be stored by multisets."""
    return isinstance(policy, str) or type(policy) in (ChasePolicy, RandomPolicy)


def _game(layout: Any, slip: Any, rewards: Any, ghost_rewards: Any, game: Any, spec: Any, config: Any,
          ghosts: Any) -> Any:
    return solver_game(layout, slip, rewards, ghost_rewards, game=game, spec=spec, config=config, ghosts=ghosts,
                       stacklevel=4)


def solve_agent(layout: Layout | None = None, slip: str | SlipModel | None = None, ghost: Any = "chase",
                rewards: Rewards | str | None = None, gamma: float = 0.99, tol: float = 1e-10,
                horizon: int | None = None, *, game: Any = None, spec: Any = None, config: Any = None,
                ghosts: int | None = None, max_bytes: int | None = None, progress_bar: bool = False) -> AgentSolution:
    """Solve the agent's MDP against fixed ghosts.

    Args:
        layout: the map; ``None`` means the classic map.
        slip: the agent's slip model, or a slip type name (probability 0.2); ``None`` means
            longitudinal slip of 0.2, the envs' default.
        ghost: the ghosts' state policy: ``"chase"``, ``"random"``, a callable ``(agent_pos,
            ghost_pos) -> action`` or probabilities ``(rows, cols, rows, cols, 4)`` (ghosts to
            move; see :func:`~gridghost.planning.policy.policy_array` for every form and ``k`` ghosts).
        rewards: the agent's rewards (a :class:`~gridghost.core.rules.Rewards` or a preset's name,
            ``"reference"`` or ``"normalised"``); ``None`` means the reference's. Values come
            out in the units of these rewards.
        gamma: the discount per full turn, in (0, 1].
        tol: value iteration stops when no value changes by more than this in a sweep.
        horizon: if given, the values of a game cut after this many turns (and its first turn's
            greedy policy) instead of the unending game's.
        game: the whole game at once instead of ``layout``, ``slip`` and ``rewards``: a
            :class:`~gridghost.core.game.Game` with its ghosts in play (an env's is
            ``env.unwrapped.config.game()``); its agent rewards are the agent's.
        spec: the game's settings instead, a :class:`gridghost.GameSpec` (an env's ``.config``),
            read as ``game=spec.game()``.
        config: deprecated (a :class:`DeprecationWarning`): an env's settings, read as
            ``game=config.game()``.
        ghosts: with the settings one by one, the number of ghosts (``None``: 1), on the map's
            first ghost starts.
        max_bytes: the memory budget in bytes (``None``: :data:`~gridghost.planning.model.MAX_BYTES`),
            checked before anything is allocated.
        progress_bar: count value iteration's sweeps on a progress bar on stderr, with an ETA
            estimated from how fast the values settle (worth it on large maps; a solution
            found in the cache draws none).

    Returns:
        The :class:`AgentSolution`.

    Raises:
        TypeError, ValueError: a bad argument (see :func:`~gridghost.planning.policy.policy_array`
            for ``ghost``), ``game`` together with a setting, a game without the ghost, a game
            too large for ``max_bytes``, or ``gamma=1`` without a horizon where the agent could
            make the game go on for ever.
        RuntimeError: the tolerance was not reached in :data:`MAX_ITERATIONS` sweeps.
    """
    gamma, tol, horizon = _check_settings(gamma, tol, horizon, progress_bar)
    game = _game(layout, slip, rewards, None, game, spec, config, ghosts)
    model = turn_model(game, named(ghost), max_bytes, policy=True)
    def build() -> AgentSolution:
        return AgentSolution(model, policy_array(ghost, model, Side.GHOST, "ghost", gamma), gamma, tol, horizon,
                             progress_bar)
    return cached_solution(game, ("agent", ghost, gamma, tol, horizon), build) if isinstance(ghost, str) else build()


def solve_ghost(layout: Layout | None = None, slip: str | SlipModel | None = None, agent: Any = "random",
                rewards: Rewards | str | None = None, ghost_rewards: Rewards | None = None, gamma: float = 0.99,
                tol: float = 1e-10, horizon: int | None = None, *, game: Any = None,
                spec: Any = None, config: Any = None, ghosts: int | None = None, max_bytes: int | None = None,
                progress_bar: bool = False) -> GhostSolution:
    """Solve the ghosts' MDP against a fixed agent: the ghosts maximise their own return.

    Args:
        layout, slip, rewards, gamma, tol, horizon: as :func:`solve_agent`.
        agent: the agent's state policy: ``"random"``, a callable ``(agent_pos, ghost_pos) ->
            action`` or probabilities ``(rows, cols, rows, cols, 4)``.
        ghost_rewards: the ghosts' rewards; ``None`` means zero-sum (the agent's negated).
        game, spec, config, ghosts, max_bytes, progress_bar: as :func:`solve_agent` (the game's
            ghost rewards are the ghosts').

    Returns:
        The :class:`GhostSolution`.

    Raises:
        TypeError, ValueError, RuntimeError: as :func:`solve_agent`.
    """
    gamma, tol, horizon = _check_settings(gamma, tol, horizon, progress_bar)
    model = turn_model(_game(layout, slip, rewards, ghost_rewards, game, spec, config, ghosts), named(agent),
                       max_bytes, joint=False, policy=True)
    return GhostSolution(model, policy_array(agent, model, Side.AGENT, "agent", gamma), gamma, tol, horizon,
                         progress_bar)


def solve_game(layout: Layout | None = None, slip: str | SlipModel | None = None, rewards: Rewards | str | None = None,
               gamma: float = 0.99, tol: float = 1e-10, horizon: int | None = None, *, game: Any = None,
               spec: Any = None, config: Any = None, ghosts: int | None = None, max_bytes: int | None = None,
               progress_bar: bool = False) -> GameSolution:
    """Solve the zero-sum turn-based stochastic game: the agent maximises its return, the ghosts
    minimise it, and slip is chance. Both sides move in turn and see the state, so pure
    optimal policies exist and value iteration finds them.

    Args:
        layout, slip, rewards, gamma, tol, horizon, game, spec, config: as :func:`solve_agent`.
        ghosts, max_bytes, progress_bar: as :func:`solve_agent`.

    Returns:
        The :class:`GameSolution`.

    Raises:
        TypeError, ValueError, RuntimeError: as :func:`solve_agent` (with ``gamma=1``, the two
            sides together could make the game go on for ever).
    """
    gamma, tol, horizon = _check_settings(gamma, tol, horizon, progress_bar)
    game = _game(layout, slip, rewards, None, game, spec, config, ghosts)
    # the budget, checked before a cached solution is looked up (a compiled solve's reads no tables)
    turn_model(game, True, max_bytes, joint=False, compiled=compiled.applies(game, gamma, horizon))
    return solved_game(game, gamma, tol, horizon, progress_bar, max_bytes)


def solved_game(game: Any, gamma: float, tol: float, horizon: int | None, progress_bar: bool = False,
                max_bytes: Any = None) -> GameSolution:
    """The game's solution, shared through the solution cache."""
    fast = compiled.applies(game, gamma, horizon)
    return cached_solution(game, ("game", gamma, tol, horizon),
                           lambda: GameSolution(turn_model(game, True, max_bytes, joint=False, compiled=fast), gamma,
                                                tol, horizon, progress_bar))


def evaluate_policies(agent_policy: Any, ghost_policy: Any, layout: Layout | None = None,
                      slip: str | SlipModel | None = None, rewards: Rewards | str | None = None, gamma: float = 0.99,
                      tol: float = 1e-10, horizon: int | None = None, *, game: Any = None,
                      spec: Any = None, config: Any = None, ghosts: int | None = None, max_bytes: int | None = None,
                      progress_bar: bool = False) -> PolicyEvaluation:
    """Evaluate two fixed state policies against each other exactly: the agent's value, and the
    probabilities of a goal or a catch within a horizon, from any state (a learned pair's ground
    truth, next to the win rates an experiment measures).

    Args:
        agent_policy: the agent's state policy (see :func:`solve_ghost`).
        ghost_policy: the ghosts' state policy (see :func:`solve_agent`).
        layout, slip, rewards, gamma, tol, horizon, game, spec, config: as :func:`solve_agent`.
        ghosts, max_bytes, progress_bar: as :func:`solve_agent`.

    Returns:
        The :class:`PolicyEvaluation`.

    Raises:
        TypeError, ValueError, RuntimeError: as the solvers (with ``gamma=1``, the two policies
            may never end the game).
    """
    gamma, tol, horizon = _check_settings(gamma, tol, horizon, progress_bar)
    model = turn_model(_game(layout, slip, rewards, None, game, spec, config, ghosts),
                       named(agent_policy) and named(ghost_policy), max_bytes)
    return PolicyEvaluation(model, policy_array(agent_policy, model, Side.AGENT, "agent_policy", gamma),
                            policy_array(ghost_policy, model, Side.GHOST, "ghost_policy", gamma), gamma, tol, horizon,
                            progress_bar)


# MAX_ITERATIONS is read where value iteration runs: setting solve.MAX_ITERATIONS sets that one.
tunables.forward(__name__, iteration, ("MAX_ITERATIONS",))
