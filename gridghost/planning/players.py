"""Players that know the answer: planners that read the true state (:class:`OptimalAgent`,
:class:`MinimaxAgent`, :class:`MinimaxGhost`), the QMDP agent that reads a belief
(:class:`QMDPAgent`), and the experts the views consult by name (:data:`EXPERTS`).

>>> from gridghost.core.layout import CLASSIC
>>> ghost = MinimaxGhost(CLASSIC, "longitudinal")
>>> ghost(CLASSIC.agent_start, CLASSIC.ghost_start) in range(4)
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gridghost.core.checks import check_choice
from gridghost.core.game import Game
from gridghost.core.layout import Layout
from gridghost.core.rules import NUM_ACTIONS, Rewards, Side
from gridghost.core.slip import SlipModel
from gridghost.planning.policy import StatePolicy
from gridghost.planning.solve import greedy, solve_agent, solve_game


def _table(policy: np.ndarray) -> np.ndarray:
    """A solution's ``policy`` (``[rows, cols, rows, cols]``, -1 where the game is over) as a
    ``cells x cells`` table of actions (0 where the game is over)."""
    cells = policy.shape[0] * policy.shape[1]
    return np.maximum(policy, 0).reshape(cells, cells)


class OptimalAgent(StatePolicy):
    """The optimal agent against a fixed ghost (the greedy policy of
    :func:`~gridghost.planning.solve.solve_agent`). It reads the true state: both positions,
    which the agent's own observation does not give.

    Args:
        layout, slip, ghost, rewards, gamma, tol: as :func:`~gridghost.planning.solve.solve_agent`
            (a planner plays the unending game's stationary policy, so there is no horizon).

    Attributes:
        solution: the :class:`~gridghost.planning.solve.AgentSolution`.

    Raises:
        TypeError, ValueError, RuntimeError: as :func:`~gridghost.planning.solve.solve_agent`.
    """

    def __init__(self, layout: Layout | None = None, slip: str | SlipModel | None = None, ghost: Any = "chase",
                 rewards: Rewards | str | None = None, gamma: float = 0.99, tol: float = 1e-10) -> None:
        self.solution = solution = solve_agent(layout, slip, ghost, rewards, gamma, tol)
        super().__init__(solution.layout, Side.AGENT, _table(solution.policy))

    @classmethod
    def for_game(cls, game: Game, gamma: float = 0.99) -> OptimalAgent:
        """The optimal agent against the chasing ghost on ``game``'s layout, slip and rewards."""
        return cls(game.layout, game.slip, "chase", game.agent_rewards, gamma)


class _MinimaxPlayer(StatePolicy):
    """One side's optimal policy in the zero-sum game
    (:func:`~gridghost.planning.solve.solve_game`): what :class:`MinimaxAgent` and
    :class:`MinimaxGhost` share."""

    _side: Side

    def __init__(self, layout: Layout | None = None, slip: str | SlipModel | None = None,
                 rewards: Rewards | str | None = None, gamma: float = 0.99, tol: float = 1e-10) -> None:
        self.solution = solution = solve_game(layout, slip, rewards, gamma, tol)
        policy = solution.agent_policy if self._side == Side.AGENT else solution.ghost_policy
        super().__init__(solution.layout, self._side, _table(policy))

    @classmethod
    def for_game(cls, game: Game, gamma: float = 0.99) -> _MinimaxPlayer:
        """This side's minimax player for ``game``'s layout, slip and rewards."""
        return cls(game.layout, game.slip, game.agent_rewards, gamma)


class MinimaxAgent(_MinimaxPlayer):
    """The agent's optimal policy in the zero-sum game
    (:func:`~gridghost.planning.solve.solve_game`): the best it can do against a ghost that plays
    perfectly. It reads the true state.

    Args:
        layout, slip, rewards, gamma, tol: as :func:`~gridghost.planning.solve.solve_game` (a
            planner plays the unending game's stationary policy, so there is no horizon).

    Attributes:
        solution: the :class:`~gridghost.planning.solve.GameSolution`.

    Raises:
        TypeError, ValueError, RuntimeError: as :func:`~gridghost.planning.solve.solve_game`.
    """

    _side = Side.AGENT


class MinimaxGhost(_MinimaxPlayer):
    """The ghost's optimal policy in the zero-sum game
    (:func:`~gridghost.planning.solve.solve_game`): it minimises the agent's return against an
    agent that plays perfectly. It reads the true state, which the chasing ghost's observation
    holds too (the agent's offset), but the ghost's observation does not (its own position).
    Its arguments, attributes and errors are :class:`MinimaxAgent`'s.
    """

    _side = Side.GHOST


class QMDPAgent:
    """The classic POMDP baseline: the action maximising the belief-weighted Q-values of the
    fully observed problem (QMDP). It reads only what the agent really knows: its belief over
    its own cell and the observation's ``ghost_relative_pos``. The belief is conditioned on that
    offset (cells from which the ghost would lie outside the grid get no weight).

    Args:
        layout, slip, rewards, gamma, tol: as :func:`~gridghost.planning.solve.solve_agent`.
        ghost: whose Q-values: ``"minimax"`` (the zero-sum game's) or a ghost state policy for
            :func:`~gridghost.planning.solve.solve_agent` (``"chase"``, the default).
        belief_filter: the filter to read when the observation holds no ``"belief"`` (the
            ``obs_type="belief"`` observation does); for example an ``AgentInterface``'s
            ``belief_filter``.

    Raises:
        TypeError, ValueError, RuntimeError: as the solvers.
    """

    def __init__(self, layout: Layout | None = None, slip: str | SlipModel | None = None, ghost: Any = "chase",
                 rewards: Rewards | str | None = None, gamma: float = 0.99, tol: float = 1e-10,
                 belief_filter: Any = None) -> None:
        if belief_filter is not None and not callable(getattr(belief_filter, "belief", None)):
            raise TypeError(f"belief_filter must have a belief() method (a gridghost filter), got {belief_filter!r}")
        self.belief_filter = belief_filter
        minimax = isinstance(ghost, str) and ghost == "minimax"
        solution = (solve_game(layout, slip, rewards, gamma, tol) if minimax
                    else solve_agent(layout, slip, ghost, rewards, gamma, tol))
        self.layout = layout = solution.layout
        rows, cols = layout.shape
        q = solution.agent_q_values if minimax else solution.q_values
        self._q = q.reshape(rows * cols, rows * cols, NUM_ACTIONS)
        self._rows, self._cols = np.divmod(np.arange(rows * cols), cols)

    def q(self, belief: Any, ghost_relative_pos: Any) -> np.ndarray:
        """The belief-weighted action values ``float64[4]``.

        Args:
            belief: ``rows x cols`` probabilities of the agent's cell.
            ghost_relative_pos: the ghost's cell minus the agent's, ``(d_row, d_col)``.

        Raises:
            TypeError: ``ghost_relative_pos`` is not a pair of ints.
            ValueError: a belief of the wrong shape or not of finite numbers >= 0, or no cell
                consistent with the offset.
        """
        rows, cols = self.layout.shape
        weights = np.asarray(belief, dtype=float)
        if weights.shape != (rows, cols):
            raise ValueError(f"belief must be a {rows} x {cols} array, got shape {weights.shape}")
        if not np.isfinite(weights).all() or (weights < 0).any():
            raise ValueError("belief must hold finite probabilities >= 0")
        offset = np.asarray(ghost_relative_pos)
        if offset.shape != (2,) or not np.issubdtype(offset.dtype, np.integer):
            raise TypeError(f"ghost_relative_pos must be a (d_row, d_col) pair of ints, got {ghost_relative_pos!r}")
        d_row, d_col = (int(v) for v in offset)
        ghost_rows, ghost_cols = self._rows + d_row, self._cols + d_col
        inside = (ghost_rows >= 0) & (ghost_rows < rows) & (ghost_cols >= 0) & (ghost_cols < cols)
        if not inside.any():
            raise ValueError(f"no cell of the {rows} x {cols} layout has a ghost at offset {(d_row, d_col)}")
        weights = np.where(inside, weights.ravel(), 0.0)
        if weights.sum() <= 0.0:  # the belief rules out every consistent cell: trust the offset
            weights = inside.astype(float)
        agents = np.flatnonzero(weights)
        ghosts = ghost_rows[agents] * cols + ghost_cols[agents]
        return weights[agents] @ self._q[agents, ghosts] / weights[agents].sum()

    def __call__(self, observation: Any) -> int:
        """The QMDP action for an agent observation (a dict with ``ghost_relative_pos``, and
        ``belief`` unless the agent has a ``belief_filter``).

        Raises:
            ValueError: the observation holds neither a belief nor an offset this agent can use.
        """
        try:
            offset = observation["ghost_relative_pos"]
        except (KeyError, TypeError, IndexError):
            raise ValueError("QMDPAgent reads the agent's dict observation (ghost_relative_pos); "
                             f"got {observation!r}") from None
        belief = observation.get("belief") if isinstance(observation, dict) else None
        if belief is None:
            if self.belief_filter is None:
                raise ValueError("QMDPAgent needs a belief: use obs_type='belief' or pass belief_filter=")
            belief = self.belief_filter.belief()
        q = self.q(belief, offset)
        return int(greedy(q[:, None])[0])

    def __repr__(self) -> str:
        return f"QMDPAgent(layout={self.layout.name!r})"


# -- experts for the views -------------------------------------------------------------------------
#: The experts an env can consult (``expert=``): ``"minimax"``, both sides' optimal moves in the
#: zero-sum game; ``"optimal"``, the agent's optimal move against the chasing ghost.
EXPERTS: tuple[str, ...] = ("minimax", "optimal")

#: The state policies the views build by name for a side.
NAMED_POLICIES: dict[str, dict[Side, type[StatePolicy]]] = {
    "minimax": {Side.AGENT: MinimaxAgent, Side.GHOST: MinimaxGhost},
    "optimal": {Side.AGENT: OptimalAgent},
}


def expert_tables(game: Game, expert: str) -> dict[Side, bytes]:
    """The expert's action for every state, per side it advises, as bytes indexed ``agent cell *
    cells + ghost cell`` (a Python int per lookup, for the envs' hot path).

    Raises:
        ValueError: an unknown expert, or a game without the ghost.
    """
    check_choice(expert, "expert", EXPERTS)
    return {side: kind.for_game(game).table.tobytes() for side, kind in NAMED_POLICIES[expert].items()}
