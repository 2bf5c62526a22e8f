"""What the sides of the JAX views see: the spaces, each side's observation of a state (the NumPy
engine's tables, or the grid from the positions) and the action masks (:class:`Observing`, a part of
:mod:`gridghost.jax.env`'s engine), and the views' own calls that return them
(:class:`BothSidesObservations`, :class:`OneSideObservations`).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import jax
import jax.numpy as jnp

from gridghost.batched.observe import TEAM
from gridghost.core.checks import check_choice
from gridghost.core.names import AGENT, AGENTS, GHOST
from gridghost.core.rules import NUM_ACTIONS
from gridghost.jax.checks import CallChecks, EnvState, _facts
from gridghost.jax.tables import EnvParams


def grid_view(grid: dict[str, Any], facts: tuple[Any, ...], m: Any, local: Any, not_to_move: Any,
              opponents: Any = None, mates: Any = None) -> Any:
    """One observer's ``"grid"`` as :meth:`GridPlanes.gather <gridghost.batched.grids.GridPlanes.gather>`
    writes it, from the planes' device arrays ``grid`` and their :attr:`~gridghost.jax.tables.Layout.grid`
    ``facts``.

    Args:
        m, local: the map, and the local joint state of the observer with its first opponent.
        not_to_move: a ``bool`` scalar: the ``to_move`` plane is cleared.
        opponents, mates: as ``gather``'s ``opponents`` and ``ghosts`` (``None``: ``local``'s
            opponent alone, no ``ghosts`` plane).

    Returns:
        ``float32[shape]``.
    """
    shape, _, _, radius = facts
    if radius is None:
        flat = grid["static"][m]
    else:
        flat = grid["static"][grid["window_at"][local] + m * grid["map_strips"] + grid["offsets"]].reshape(-1)
    flat = flat.at[grid["self_at"][local]].set(1.0)
    flat = flat.at[grid["opponent_at"][local if opponents is None else opponents]].set(1.0)
    if mates is not None:
        flat = flat.at[grid["ghosts_at"][mates]].set(1.0)
    return (flat * jnp.where(not_to_move, grid["keep"], 1.0)).reshape(shape)


def team_grids(grids: dict[str, dict[str, Any]], facts: dict[str, Any], agent: Any, ghosts: Any, cells: int,
               waits: dict[str, Any]) -> dict[str, Any]:
    """A team game's ``"grid"`` observations, per side of ``waits`` (``"agent"``: the agent's;
    ``"ghosts"``: each ghost's, ``[k, *shape]``), as the NumPy team engine gathers them.

    Args:
        grids, facts: the planes' device arrays and static facts per side (``"agent"``, ``"ghosts"``).
        agent, ghosts: the global cells, ``int`` and ``int[k]``.
        cells: the cells of one map.
        waits: per side to observe, a ``bool`` scalar: it is not to move.

    Returns:
        Per side of ``waits``, its observation.
    """
    m = agent // cells
    mine, team = agent - m * cells, ghosts - m * cells
    pairs = mine * cells + team  # the agent with each ghost
    seen = {}
    if AGENT in waits:
        seen[AGENT] = grid_view(grids[AGENT], facts[AGENT], m, pairs[0], waits[AGENT], pairs, pairs)
    if TEAM in waits:  # ghost i: the agent as its opponent, every ghost (teammate in the agent's place) as a mate
        seen[TEAM] = jax.vmap(lambda pair, cell: grid_view(grids[TEAM], facts[TEAM], m, pair, waits[TEAM],
                                                           mates=team * cells + cell))(pairs, team)
    return seen


class Observing(CallChecks):
    """The spaces, the observations and the action masks of one game (a part of the JAX views'
    engine, which sets the attributes annotated below)."""

    _spaces: dict[str, gymnasium.spaces.Space[Any]]
    _flagged: dict[str, bool]
    _grid: dict[str, Any]

    def observation_space(self, agent: str | None = None) -> gymnasium.spaces.Space:
        """A side's observation space, as the NumPy engine's: one ghost's two sides have the
        same; with a team, the agent's is ``Box(D)`` and the team's ``Box(k, D)``.

        Args:
            agent: ``"agent"``, ``"ghost"`` or ``None`` (the learner's, for one side); with a team
                ``"agent"`` or ``"ghosts"`` (a lone learner's view: only its own, or ``None``).

        Returns:
            The space of one game's observation by ``agent``.

        Raises:
            ValueError: ``agent`` names no side of this view.
        """
        return self._spaces[self._side(agent)]

    def action_space(self, agent: str | None = None) -> gymnasium.spaces.Space[Any]:
        """A side's action space: ``Discrete(4)`` (0 left, 1 down, 2 right, 3 up), and for a
        team ``MultiDiscrete([4] * k)``.

        Args:
            agent: as :meth:`observation_space`'s.

        Returns:
            The space of ``agent``'s action in one game.

        Raises:
            ValueError: ``agent`` names no side of this view.
        """
        if self._side(agent) == TEAM:
            return gymnasium.spaces.MultiDiscrete([NUM_ACTIONS] * self.spec.ghosts)
        return gymnasium.spaces.Discrete(NUM_ACTIONS)

    def _side(self, agent: str | None) -> str:
        """The side ``agent`` names (``None``: the learner, or with one ghost either side);
        one ghost's views accept ``"agent"``, ``"ghost"`` and ``None`` (a team's view its own sides)."""
        return check_choice(agent, "agent", AGENTS, allow_none=True) or AGENT

    def _observe(self, side: str, state: Any, not_to_move: Any, params: EnvParams) -> Any:
        """``side``'s observation of the global ``state``, its ``to_move`` plane cleared (or the
        not-to-move row taken) where ``not_to_move``."""
        layout = self.layout
        if side in self._grid:
            m, local = jnp.divmod(state, layout.states)
            return grid_view(params.grids[side], self._grid[side], m, local, not_to_move)
        table = params.observations[side]
        if self._flagged[side]:
            state = state + jnp.where(not_to_move, layout.num_maps * layout.states, 0)
        return table[state]

    def _cells(self, state: Any) -> tuple[Any, Any]:
        """The agent's and the ghost's global cells (``map * cells + cell``) in the global ``state``."""
        cells = self.layout.num_cells
        m, local = jnp.divmod(state, self.layout.states)
        agent, ghost = jnp.divmod(local, cells)
        return m * cells + agent, m * cells + ghost

    def _masks(self, state: EnvState, params: EnvParams) -> dict[str, Any]:
        """Per side, ``bool[4]``: the moves that change its cell in ``state``."""
        agent, ghost = self._cells(state.state)
        return {AGENT: params.masks[agent], GHOST: params.masks[ghost]}


class BothSidesObservations(Observing):
    """Both sides' observations and masks of a state, for :class:`~gridghost.jax.env.GridGhostJax`."""

    def observations(self, state: EnvState, params: EnvParams | None = None) -> dict[str, Any]:
        """Both sides' observations of ``state``: each flagged not to move unless it is to move
        (``state.to_move``) in a game that goes on (a game that ended shows it to neither).

        Args:
            state: one game's :class:`EnvState` (``jax.vmap`` it for a batch).
            params: the tables (default :attr:`default_params`).

        Returns:
            ``{"agent": observation, "ghost": observation}``.

        Raises:
            TypeError, ValueError: a state or params that this view cannot play (see :meth:`step`).
        """
        params = self._params(params)
        self._check_state(state, "state", False)
        return self._observations(state, params)

    def _observations(self, state: EnvState, params: EnvParams) -> dict[str, Any]:
        agent_moves = state.to_move == 0
        agent, ghost = self._cells(state.state)
        over = params.goals[agent] | (agent == ghost)  # a state the game ended in
        return {AGENT: self._observe(AGENT, state.state, ~agent_moves | over, params),
                GHOST: self._observe(GHOST, state.state, agent_moves | state.ended, params)}

    def get_avail_actions(self, state: EnvState, params: EnvParams | None = None) -> dict[str, Any]:
        """Per side, ``bool[4]``: the moves that change its cell (the single envs'
        ``info["action_mask"]``). Every move is legal; a move into a wall stays put. The side not
        to move gets its mask too, and its action is ignored.

        Args:
            state, params: as :meth:`observations`'s.

        Raises:
            TypeError, ValueError: as :meth:`observations`.
        """
        params = self._params(params)
        self._check_state(state, "state", False)
        return self._masks(state, params)


class OneSideObservations(Observing):
    """The learner's observation and mask of a state, for :class:`~gridghost.jax.env.GridGhostJaxSingle`."""

    controlled: str

    def observe(self, state: EnvState, terminated: Any, params: EnvParams | None = None) -> Any:
        """The learner's observation of ``state`` (flagged not to move where ``terminated``).

        Args:
            state: one game's :class:`EnvState` (``jax.vmap`` it for a batch).
            terminated: a ``bool`` scalar, the game ended (the observation then shows no side to move).
            params: the tables (default :attr:`default_params`).

        Raises:
            TypeError, ValueError: a state or params that this view cannot play (see :meth:`step`),
                or ``terminated`` not a ``bool`` scalar.
        """
        params = self._params(params)
        self._check_state(state, "state", False)
        shape, dtype, _ = _facts(terminated, "terminated")
        if shape != () or dtype.kind != "b":
            raise TypeError(f"terminated must be a bool scalar, got shape {shape} and dtype {dtype}")
        return self._learner_view(state, params, terminated)

    def _learner_view(self, state: EnvState, params: EnvParams, terminated: Any = None) -> Any:
        """The learner's observation of ``state``, flagged not to move where ``terminated``
        (``None``: a game that goes on)."""
        return self._observe(self.controlled, state.state,
                             jnp.zeros((), dtype=bool) if terminated is None else terminated, params)

    def action_masks(self, state: EnvState, params: EnvParams | None = None) -> Any:
        """``bool[4]``: the moves that change the learner's cell.

        Args:
            state, params: as :meth:`observe`'s.

        Raises:
            TypeError, ValueError: a state or params that this view cannot play (see :meth:`step`).
        """
        params = self._params(params)
        self._check_state(state, "state", False)
        return self._learner_masks(state, params)

    def _learner_masks(self, state: EnvState, params: EnvParams) -> Any:
        return self._masks(state, params)[self.controlled]
