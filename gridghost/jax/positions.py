"""The JAX views with a team of ``k >= 2`` ghosts: the computed path.

With one ghost the views play the NumPy engine's folded tables (a state is one index). A team's
joint states grow as ``cells**(k + 1)``, so with ``ghosts >= 2`` a game's state holds the global
cells themselves (:class:`TeamEnvState`: the agent's and ``ghosts: int[k]``), and a step is the
team's rules written once for both engines (:mod:`gridghost.batched.team`, with ``jax.numpy``)
over its tables, with :mod:`gridghost.core.episode`'s (truncation, auto-reset, the opening reward).

Each side's ``"vector"`` observation is the team encoder's (the single envs'): the observer's
one-ghost vector with its first other as the opponent, then the offset and distance slots of
each further other, read from the NumPy team engine's rows of an observer and one other (a slot
depends on the two cells only). A ``"grid"`` is gathered from the NumPy team engine's planes
(:func:`gridghost.jax.observe.team_grids`).

A learning team's opponent agent is random or plays agent tables (``params.planned``, one drawn per
episode by the weights ``params.pool`` and kept in :attr:`TeamEnvState.member`), the NumPy
engine's layout of them; :func:`team_table` tabulates a JAX team for the solver.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from gridghost.batched import BatchedGame
from gridghost.batched import team as rules
from gridghost.batched.observe import PAIR_SLOTS, TEAM
from gridghost.batched.positions import PositionGame, explore_order, exploring_cells
from gridghost.config.opponents import GAME_OVER, AgentPool, agent_tables, draw_members, is_agent_table, live_states
from gridghost.config.settings import GameSpec
from gridghost.core import episode
from gridghost.core.checks import check_choice, is_int
from gridghost.core.names import AGENT, NUM_ACTIONS
from gridghost.jax.checks import _facts, _span
from gridghost.jax.observe import team_grids
from gridghost.jax.tables import EnvParams, Layout, device_grids
from gridghost.sensing.encoding import _others

#: The opponents a one-side team view plays against by name, per learning side (a learning team
#: also plays agent tables and pools of them).
TEAM_OPPONENTS: dict[str, tuple[str, ...]] = {AGENT: ("chase", "random"), TEAM: ("random", "minimax", "optimal")}


def asks_for_team(arguments: dict[str, Any]) -> bool:
    """Whether a view's keyword arguments ask for a team (``ghosts >= 2``: ``spec``'s, else the
    ``ghosts`` keyword, else 1); a bad ``ghosts`` is left to the settings' check, which names it."""
    spec = arguments.get("spec")
    source = spec if isinstance(spec, dict) and "ghosts" in spec else arguments
    ghosts = spec.ghosts if isinstance(spec, GameSpec) else source.get("ghosts", 1)
    return bool(isinstance(ghosts, (int, np.integer)) and not isinstance(ghosts, bool) and ghosts >= 2)


class TeamEnvState(NamedTuple):
    """One team game (a pytree; batched by ``vmap``, each leaf then gains a leading axis ``N``).

    Attributes:
        agent: ``int32``, the agent's global cell (``map * cells + cell``).
        ghosts: ``int32[k]``, the ghosts' global cells, in the ghosts' order.
        steps, to_move, ended: as :class:`~gridghost.jax.EnvState`'s.
        member: ``int32``, the member of ``params.planned`` a learning team plays this episode,
            drawn at every reset (0 without agent tables); ``None`` in a state built by hand
            reads as 0, which only a view whose params hold one table accepts.
    """

    agent: Any
    ghosts: Any
    steps: Any
    to_move: Any
    ended: Any
    member: Any = None


class TeamEngine(rules.TeamTurns):
    """What both views' team paths share: the tables, the draws, the starts, the slip, the
    chasers, the observations, the state checks and the spaces, around the half-turns of
    :class:`~gridghost.batched.team.TeamTurns` (a part of a JAX view, placed before its
    one-ghost engine: these methods take the place of that engine's, which sets the attributes
    annotated below)."""

    xp = jnp
    spec: GameSpec
    engine: BatchedGame
    layout: Layout
    layouts: tuple[Any, ...]
    _grid: dict[str, Any]
    _state_type: Any = TeamEnvState
    #: The ids of the last agent tables checked (``params.planned``, ``params.pool``), and the arrays.
    _checked_tables: tuple[int, int] = (0, 0)
    _kept: tuple[Any, ...] = ()
    _reset_slots: dict[str, int]
    _turn_slots: dict[str, int]
    default_params: EnvParams
    _params: Callable[[EnvParams | None], EnvParams]
    # the engine's: an int in 0..n-1 from a uniform, the slip outcome of a move, the step limits
    _below: Callable[[Any, Any], Any]
    _slip: Callable[[Any, Any, EnvParams], Any]
    _truncated: Callable[[Any, Any], Any]
    # each path's: the side ``agent`` names (``None``: a lone learner's own), refusing any other
    _side: Callable[[str | None], str]

    def _build(self, controlled: str | None, options: dict[str, Any]) -> EnvParams:
        """After refusing (``ValueError``) an opponent the JAX team cannot play, the NumPy team
        engine of the same settings and learner (:class:`~gridghost.batched.positions.PositionGame`,
        which refuses what it cannot build) and the :class:`Layout` and :class:`EnvParams` read
        off it (sets :attr:`engine`, :attr:`layout` and the sides' spaces; returns the params).

        ``params.turns`` is its :class:`~gridghost.batched.team.TeamTables` as ``int32``,
        ``float32`` and ``bool`` arrays (``params.start`` and ``params.goals`` are its ``start``
        and ``goals``); ``params.observations["agent"]`` its ``"vector"`` rows of an observer and
        one other (the own slots and that other's); ``params.grids`` its grid planes;
        ``params.starts`` holds per map the cells an exploring start may put the agent on;
        ``params.opening`` is empty (a team's opening move is played from ``destinations``).
        """
        opponent = options.get("opponent")
        if controlled is not None:
            accepted = TEAM_OPPONENTS[controlled]
            table = controlled == TEAM and is_agent_table(opponent)
            if opponent is not None and not table and (not isinstance(opponent, str) or opponent not in accepted):
                also = ", an agent table or an AgentPool" if controlled == TEAM else ""
                raise ValueError(f"opponent must be one of {list(accepted)}{also} (or None: {accepted[0]!r}) with "
                                 f"ghosts >= 2 and controlled={controlled!r}, got {opponent!r}")
        #: The NumPy team engine of one game whose tables these functions play.
        self.engine = engine = PositionGame(1, controlled=controlled, spec=self.spec, **options)
        self.ghosts, self.catcher = engine.ghosts, engine.catcher
        self._others = np.array(_others(self.ghosts))  # as the team encoder orders them
        self._spaces = engine._spaces  # per side, the team encoder's space
        shared, cells, maps = engine._team, engine.num_cells, len(engine.layouts)
        goals = shared.goals.reshape(maps, cells)
        starts = explore_order(goals)  # per map the cells off its goals first, then padding
        grids, facts = device_grids({side: grid.export() for side, grid in engine._grids.items()})
        vector = {} if engine._grids else {AGENT: engine._wide[AGENT][:, : engine._own_slots + PAIR_SLOTS]}
        self.layout = Layout(controlled, maps, cells, engine._k, NUM_ACTIONS if engine._random_opponent else 1, (),
                             facts, engine.max_cycles, engine.max_episode_steps)
        turns = rules.TeamTables(*(jnp.asarray(value, dtype=jnp.float32 if value.dtype.kind == "f" else
                                              jnp.bool_ if value.dtype.kind == "b" else jnp.int32) for value in shared))
        #: Whether a learning team plays agent tables (``params.planned``), one drawn per episode.
        self.plays_tables = controlled == TEAM and engine._planned is not None
        entries = maps * cells ** (self.ghosts + 1)
        if self.plays_tables and entries > np.iinfo(np.int32).max:
            raise ValueError(f"the agent tables of {maps} map(s) of {cells} cells for {self.ghosts} ghosts are too "
                             "large for 32-bit indices: use fewer levels")
        planned, pool = (engine._planned, engine._pool) if self.plays_tables else (np.zeros((0, 0)), np.zeros(0))
        self._live = live_states(goals, self.ghosts) if self.plays_tables else np.zeros(0, dtype=bool)
        self._kernels = engine._kernels
        return EnvParams(
            turns=turns, bounds=jnp.asarray(engine._bounds, dtype=jnp.float32), start=turns.start,
            opening=jnp.zeros(0, dtype=jnp.int32), opening_reward=jnp.float32(engine._opening_reward),
            observations={side: jnp.asarray(table) for side, table in vector.items()}, grids=grids, goals=turns.goals,
            masks=jnp.asarray(engine._masks, dtype=bool), starts=jnp.asarray(starts, dtype=jnp.int32),
            start_counts=jnp.asarray((~goals).sum(axis=1), dtype=jnp.int32), levels=jnp.arange(maps, dtype=jnp.int32),
            explore_starts=jnp.float32(0.0), planned=jnp.asarray(planned, dtype=jnp.uint8),
            pool=jnp.asarray(pool, dtype=jnp.float32))

    def _landing(self, uniform: Any, params: EnvParams) -> Callable[[Any, Any], Any]:
        """``(agent, action) -> cell``: where the agent's move lands it, with the slip outcome
        ``uniform`` picks."""
        return lambda agent, action: params.turns.destinations[action, self._slip(uniform, action, params), agent]

    def _chasers(self, agent: Any, ghosts: Any, params: EnvParams) -> Any:
        """Every ghost's chasing move, ``int[k]`` (a team of independent chasers)."""
        cells = self.layout.num_cells
        return params.turns.chase[agent * cells + ghosts - agent // cells * cells]

    def _team_observations(self, agent: Any, ghosts: Any, params: EnvParams, observers: slice = slice(None)) -> Any:
        """The ``"vector"`` of each of ``observers`` (positions in ``(agent, ghost 0, ...)``),
        ``float32[observers, D]``, as the team encoder builds them."""
        cells = self.layout.num_cells
        m = agent // cells
        everyone = jnp.concatenate((agent[None], ghosts)) - m * cells
        table = params.observations[AGENT]
        others = everyone[self._others[observers]]  # [observers, k]
        # the row of (observer, other): the observer's cell slots, then the pair's three
        rows = table[(m * cells + everyone[observers, None]) * cells + others]  # [observers, k, D1]
        slots = table.shape[1] - PAIR_SLOTS
        return jnp.concatenate((rows[:, 0], rows[:, 1:, slots:].reshape(rows.shape[0], -1)), axis=1)

    def _draws(self, controlled: str | None) -> tuple[list[str], list[str]]:
        k = self.ghosts
        # a learning team's own draws first, then the exploring start's (as a learning agent's)
        own = [] if controlled != TEAM else ["opening_slip", "member"] if self.plays_tables else \
            ["opening", "opening_slip"]
        reset = [*own, "explore", "start", *(f"ghost_{i}" for i in range(k))]
        # appended for a learning team's exploring starts: drawn from their own key in a batch
        self._appended_draws = 2 + k if controlled == TEAM else 0
        opponents = {AGENT: k, TEAM: 1}.get(controlled, 0) if self.layout.b > 1 else 0  # type: ignore[arg-type]
        return reset, ["slip", *(f"opponent_{i}" for i in range(opponents))]

    def _new_state(self, uniforms: Any, params: EnvParams, m: Any) -> TeamEnvState:
        """A new episode on map ``m``: its pool member (drawn from the weights ``params.pool``
        where the view plays agent tables), then its cells (:meth:`_first_state`)."""
        slot = self._reset_slots
        member = draw_members(uniforms[slot["member"]], params.pool, xp=jnp) if "member" in slot else 0
        member = jnp.asarray(member, dtype=jnp.int32)
        zero = jnp.int32(0)
        return TeamEnvState(*self._first_state(uniforms, params, m, member), zero, zero, jnp.zeros((), dtype=bool),
                            member)

    def _planned_agent(self, member: Any, agent: Any, ghosts: Any, params: EnvParams) -> Any:
        """The agent's action of table ``member`` of ``params.planned`` (global cells)."""
        cells = self.layout.num_cells
        m = agent // cells
        index = agent - m * cells
        for i in range(self.ghosts):
            index = index * cells + ghosts[i] - m * cells
        index = index + m * cells ** (self.ghosts + 1)
        # the marker (255) is where the game is over, which no answer reads
        return jnp.minimum(params.planned[member, index], NUM_ACTIONS - 1).astype(jnp.int32)

    def _first_state(self, uniforms: Any, params: EnvParams, m: Any, member: Any = 0) -> tuple[Any, Any]:
        """The agent's and the ghosts' cells of a new episode on map ``m``: its start, or with
        probability ``explore_starts`` a uniform one (:func:`~gridghost.batched.positions.exploring_cells`);
        a learning team's after the agent's opening move from there (random, or table
        ``member``'s), which is not played where it would end the game (from an exploring start)."""
        cells, k, slot = self.layout.num_cells, self.ghosts, self._reset_slots
        first = slot["start"]
        agent, ghosts = exploring_cells(uniforms[first:first + 1 + k], params.starts, params.start_counts, m, cells,
                                        jnp, jnp.int32)
        explore = uniforms[slot["explore"]] < params.explore_starts
        agent = jnp.where(explore, agent + m * cells, params.start[m, 0])
        ghosts = jnp.where(explore, ghosts + m * cells, params.start[m, 1:])
        if self.layout.controlled == TEAM:  # the agent's opening move
            action = self._planned_agent(member, agent, ghosts, params) if self.plays_tables else \
                self._below(uniforms[slot["opening"]], NUM_ACTIONS)
            landed = self._landing(uniforms[slot["opening_slip"]], params)(agent, action)
            ends = params.goals[landed] | (ghosts == landed).any()  # only from an exploring start
            agent = jnp.where(ends, agent, landed)
        return agent.astype(jnp.int32), ghosts.astype(jnp.int32)

    def _check_cells(self, values: dict[str, np.ndarray | None], argument: str) -> None:
        """Refuse concrete cells outside this view's maps, or ghosts off their agent's map."""
        cells, total = self.layout.num_cells, self.layout.num_maps * self.layout.num_cells
        for name in ("agent", "ghosts"):
            array = values[name]
            if array is not None and ((array < 0) | (array >= total)).any():
                raise ValueError(f"{argument}.{name} must hold cells of this view in 0..{total - 1} (map * {cells} + "
                                 f"cell), got {_span(array)}")
        agent, ghosts = values["agent"], values["ghosts"]
        if agent is not None and ghosts is not None and (ghosts // cells != (agent // cells)[..., None]).any():
            raise ValueError(f"{argument}.ghosts must lie on the agent's map (map * {cells} + cell)")

    def _filled(self, state: Any, params: EnvParams) -> Any:
        """``state`` with ``member`` 0 where it is ``None`` (refused where ``params`` hold a pool
        of several tables), and a concrete ``member`` checked against the pool."""
        if not isinstance(state, TeamEnvState):
            return state  # refused by the state's check
        tables = params.planned.shape[0]
        if state.member is None:
            if tables > 1:
                raise ValueError(f"state.member is None, but params hold a pool of {tables} agent tables: pass the "
                                 "state reset or step returned, whose member names the episode's table")
            return state._replace(member=jnp.zeros(np.shape(state.steps), dtype=jnp.int32))
        _, dtype, member = _facts(state.member, "state.member")
        if member is not None and dtype.kind in "iu" and ((member < 0) | (member >= max(tables, 1))).any():
            raise ValueError(f"state.member must name a table of params.planned, in 0..{max(tables, 1) - 1}, got "
                             f"{_span(member)}")
        return state

    def _check_opponent(self, params: EnvParams) -> None:
        """Refuse agent tables (``params.planned``, ``params.pool``) this view cannot play: shapes
        and dtypes always, values where concrete (once per pair of arrays)."""
        own = self.default_params
        if self.plays_tables and self._checked_tables == (id(params.planned), id(params.pool)):
            return  # the same immutable arrays as the last checked
        shape, dtype, planned = _facts(params.planned, "params.planned")
        pool_shape, pool_dtype, pool = _facts(params.pool, "params.pool")
        if not self.plays_tables:
            if shape != own.planned.shape or pool_shape != own.pool.shape:
                raise ValueError("params.planned and params.pool hold agent tables, but this view plays no table "
                                 "(build it with controlled='ghosts' and opponent='minimax', 'optimal', a table or "
                                 "an AgentPool)")
            return
        entries = own.planned.shape[1]
        if len(shape) != 2 or shape[1] != entries or not shape[0] or dtype != np.uint8:
            raise ValueError(f"params.planned must be uint8[P, {entries}], P >= 1 agent tables of this view's maps "
                             f"(opponent_params builds them), got shape {shape} and dtype {dtype}")
        if pool_shape != (shape[0],) or pool_dtype != np.float32:
            raise ValueError(f"params.pool must be float32[{shape[0]}], one weight per table of params.planned, "
                             f"got shape {pool_shape} and dtype {pool_dtype}")
        if planned is None or pool is None:
            return
        wrong = (planned > NUM_ACTIONS - 1) & ((planned != GAME_OVER) | self._live)
        if wrong.any():
            member, entry = np.argwhere(wrong)[0]
            raise ValueError(f"params.planned must hold actions 0..3 where the game goes on ({GAME_OVER} where it is "
                             f"over); table {member}, entry {entry} holds {planned[member, entry]}")
        if not np.isfinite(pool).all() or (pool < 0).any() or abs(float(pool.sum(dtype=np.float64)) - 1.0) > 1e-5:
            raise ValueError(f"params.pool must be weights >= 0 summing to 1, got {pool.tolist()}")
        if isinstance(params.planned, jax.Array) and isinstance(params.pool, jax.Array):  # immutable: kept checked
            self._checked_tables = (id(params.planned), id(params.pool))
            self._kept = (params.planned, params.pool)  # their ids stay theirs

    def _masks(self, state: Any, params: EnvParams) -> dict[str, Any]:
        """Per side, the moves that change its cells: the agent's ``bool[4]``, the team's ``bool[k, 4]``."""
        return {AGENT: params.masks[state.agent], TEAM: params.masks[state.ghosts]}


class TeamBothSides(TeamEngine):
    """:class:`~gridghost.jax.GridGhostJax`'s team path: both sides learn, the team's actions,
    rewards, masks and observations under ``"ghosts"`` with a leading axis ``k``."""

    agents: tuple[str, ...] = (AGENT, TEAM)

    def _side(self, agent: str | None) -> str:
        return str(check_choice(agent, "agent", self.agents))

    def _observations(self, state: Any, params: EnvParams) -> dict[str, Any]:
        if self._grid:  # each side flagged not to move as with one ghost
            agent_moves, over = state.to_move == 0, params.goals[state.agent] | (state.ghosts == state.agent).any()
            return team_grids(params.grids, self._grid, state.agent, state.ghosts, self.layout.num_cells,
                              {AGENT: ~agent_moves | over, TEAM: agent_moves | state.ended})
        seen = self._team_observations(state.agent, state.ghosts, params)
        return {AGENT: seen[0], TEAM: seen[1:]}

    def _agent_half(self, uniform: Any, state: Any, action: Any, params: EnvParams) -> tuple[Any, ...]:
        cell = self._landing(uniform, params)(state.agent, action)
        outcome, agent_reward, team_rewards = self._agent_lands(params.turns, cell, state.ghosts)
        terminated = outcome != 0
        env = TeamEnvState(cell, state.ghosts, state.steps, jnp.int32(episode.next_mover(episode.AGENT_TO_MOVE)),
                           terminated, state.member)
        return env, {AGENT: agent_reward, TEAM: team_rewards}, terminated, jnp.zeros((), dtype=bool)

    def _ghost_half(self, state: Any, actions: Any, params: EnvParams) -> tuple[Any, ...]:
        ghosts, agent_reward, team_rewards, terminated = self._team_half(params.turns, state.agent, state.ghosts,
                                                                         actions, state.ended)
        to_move = episode.next_mover(episode.GHOST_TO_MOVE)
        steps = episode.count_cycles(state.steps, to_move)
        env = TeamEnvState(state.agent, ghosts, steps, jnp.int32(to_move), jnp.zeros((), dtype=bool), state.member)
        return env, {AGENT: agent_reward, TEAM: team_rewards}, terminated, self._truncated(steps, terminated)


class TeamOneSide(TeamEngine):
    """:class:`~gridghost.jax.GridGhostJaxSingle`'s team path: the agent learns against a team
    (chasers or random), or the team learns (``controlled="ghosts"``: ``MultiDiscrete`` actions,
    its observations ``k x D``, its reward the mean of the ghosts') against a random agent or
    agent tables (``params.planned``: the solver's agent, a table, or a pool with one member
    drawn per episode, :meth:`opponent_params`)."""

    controlled: str

    def _side(self, agent: str | None) -> str:
        check_choice(agent, "agent", (self.controlled,), allow_none=True)
        return self.controlled

    def opponent_params(self, tables: Any, weights: Any = None, capacity: int | None = None,
                        params: EnvParams | None = None) -> EnvParams:
        """``params`` with the agent tables a learning team plays: one drawn per episode at
        reset, from the reset's key, with probability its weight, and played for the whole
        episode. A jitted trainer that takes ``params`` as an argument plays a new pool without
        recompiling as long as the number of rows is unchanged: ``capacity`` pads the pool to a
        fixed size with rows of weight 0, which are never drawn.

        Args:
            tables: one agent table, a sequence of them, a 2-D stack ``(P, maps * cells**(k + 1))``
                or an :class:`~gridghost.config.opponents.AgentPool` (with its weights), in any
                form :func:`~gridghost.config.opponents.agent_tables` reads (the solver's
                ``AgentSolution.policy`` included, stacked ``[maps, ...]`` for several maps).
            weights: ``P`` probabilities (>= 0, summing to 1); ``None``: the pool's own, or uniform.
            capacity: the rows of the result (>= ``P``); ``None``: ``P``.
            params: the params to change (default :attr:`default_params`).

        Returns:
            The params, ``planned`` ``uint8[capacity, entries]`` and ``pool`` ``float32[capacity]``.

        Raises:
            ValueError: the view plays no table (built with ``opponent="random"``), a table that
                does not fit the maps, bad weights, ``capacity`` below ``P``, or ``params`` not
                this view's.
            TypeError: tables that are not int arrays, weights not real, ``capacity`` not an int.
        """
        if not self.plays_tables:
            raise ValueError("this view plays no agent table: build it with controlled='ghosts' and opponent="
                             "'minimax', 'optimal', an agent table or an AgentPool to play tables")
        base = self._params(params)
        if weights is not None:
            tables = AgentPool(tables.tables if isinstance(tables, AgentPool) else tables, weights)
        planned, pool = agent_tables(tables, self._kernels, "tables")
        rows = len(planned) if capacity is None else capacity
        if not is_int(rows):
            raise TypeError(f"capacity must be an int >= {len(planned)} (the tables given), got {capacity!r}")
        if rows < len(planned):
            raise ValueError(f"capacity must be >= {len(planned)}, the tables given, got {capacity!r}")
        padded = np.zeros((rows, planned.shape[1]), dtype=np.uint8)
        padded[: len(planned)] = planned
        weights_ = np.zeros(rows, dtype=np.float32)
        weights_[: len(pool)] = pool
        result = base._replace(planned=jnp.asarray(padded), pool=jnp.asarray(weights_))
        self._check_opponent(result)
        return result

    def _learner_view(self, env: Any, params: EnvParams, terminated: Any = None) -> Any:
        """The learner's observation of ``env``, flagged not to move where ``terminated`` (which
        a ``"vector"``, without a turn flag, does not show)."""
        if self._grid:
            waits = jnp.zeros((), dtype=bool) if terminated is None else terminated
            return team_grids(params.grids, self._grid, env.agent, env.ghosts, self.layout.num_cells,
                              {self.controlled: waits})[self.controlled]
        if self.controlled == AGENT:
            return self._team_observations(env.agent, env.ghosts, params, slice(0, 1))[0]
        return self._team_observations(env.agent, env.ghosts, params, slice(1, None))

    def _turn(self, uniforms: Any, state: Any, action: Any, params: EnvParams) -> tuple[Any, ...]:
        slot = self._turn_slots
        random = [uniforms[slot[name]] for name in slot if name.startswith("opponent")]
        landing = self._landing(uniforms[slot["slip"]], params)
        if self.controlled == AGENT:
            agent, ghosts, reward, terminated = self._agent_turn(
                params.turns, state.agent, state.ghosts, action, landing,
                lambda landed: self._chasers(landed, state.ghosts, params) if not random else
                self._below(jnp.stack(random), NUM_ACTIONS))
        else:
            agent, ghosts, reward, terminated = self._team_turn(
                params.turns, state.agent, state.ghosts, action, landing,
                (lambda moved: self._planned_agent(state.member, state.agent, moved, params)) if self.plays_tables
                else lambda moved: self._below(random[0], NUM_ACTIONS))
            reward = episode.with_opening_reward(reward.mean(), state.steps, params.opening_reward, xp=jnp)
        steps = episode.count_cycles(state.steps, episode.AGENT_TO_MOVE)
        env = TeamEnvState(agent, ghosts, steps, jnp.int32(0), jnp.zeros((), dtype=bool), state.member)
        return env, reward.astype(jnp.float32), terminated, self._truncated(steps, terminated)


def team_table(env: Any, act: Callable[[Any], Any], params: EnvParams | None = None, *,
               batch: int = 65_536) -> np.ndarray:
    """A learned JAX team's joint moves in every state of every map: ``act`` asked with the
    team's observation in every joint state where the game goes on, ghosts to move, so that the
    exact best response to the team is one call of the solver
    (``solve_agent(ghost=table[m], game=spec.game(env.layouts[m]))``) and so is its
    exploitability (:func:`~gridghost.planning.ghost_exploitability`).

    Args:
        env: a team's JAX view whose team observes: ``GridGhostJaxSingle("ghosts", ghosts=k,
            ...)``, or ``GridGhostJax(ghosts=k, ...)`` (the team's observation with the team
            to move).
        act: ``act(observations[N, k, ...]) -> int[N, k]``, the team's greedy moves (a jitted
            function works as it is).
        params: the tables to observe with (default: the view's ``default_params``).
        batch: the most states ``act`` is asked at once.

    Returns:
        ``int64[maps, (rows, cols) * (k + 1), k]``: each ghost's move by map, the agent's cell and
        each ghost's (0 where the game is over), ``table[m]`` the form the solver takes for the
        ghosts on map ``m`` (that of :func:`~gridghost.planning.tabulate.tabulate_team`).

    Raises:
        TypeError: ``env`` is not a team view whose team observes, ``act`` is not callable or
            answers other than ints of shape ``(N, k)``; ``batch`` not an int.
        ValueError: an answer outside 0..3 (naming the state), ``batch`` below 1, bad ``params``.
    """
    from gridghost.planning.tabulate import policy_answer

    if not isinstance(env, TeamBothSides) and not (isinstance(env, TeamOneSide) and env.controlled == TEAM):
        raise TypeError(f"env must be a team's JAX view whose team observes (GridGhostJaxSingle('ghosts', ghosts=k) "
                        f"or GridGhostJax(ghosts=k)), got {type(env).__name__}")
    if not callable(act):
        raise TypeError(f"act must be a callable act(observations[N, k, ...]) -> int[N, k], got {act!r}")
    if not is_int(batch) or batch < 1:
        raise (TypeError if not is_int(batch) else ValueError)(f"batch must be an int >= 1, got {batch!r}")
    params = env._params(params)
    layout, k = env.layout, env.ghosts
    cells, maps = layout.num_cells, layout.num_maps
    goals = np.asarray(params.goals).reshape(maps, cells)
    states = np.flatnonzero(live_states(goals, k))
    digits = np.stack(np.unravel_index(states, (maps, *(cells,) * (k + 1))))  # the map, then each local cell
    cells_of = digits[1:] + digits[0] * cells  # global cells: [1 + k, n]

    def view(agent: Any, ghosts: Any) -> Any:
        zero = jnp.int32(0)
        state = TeamEnvState(agent, ghosts, zero, jnp.int32(1), jnp.zeros((), dtype=bool), zero)
        if isinstance(env, TeamBothSides):
            return env._observations(state, params)[TEAM]
        return env._learner_view(state._replace(to_move=zero), params)

    observe = jax.jit(jax.vmap(view))
    table = np.zeros((maps * cells ** (k + 1), k), dtype=np.int64)
    for first in range(0, len(states), batch):
        part = slice(first, first + batch)
        agents, ghosts = cells_of[0, part], cells_of[1:, part].T
        seen = observe(jnp.asarray(agents, dtype=jnp.int32), jnp.asarray(ghosts, dtype=jnp.int32))
        actions = policy_answer(act(seen), (len(states[part]), k), "the team's actions, int[N, k]")
        bad = np.argwhere((actions < 0) | (actions >= NUM_ACTIONS))
        if len(bad):
            row, ghost = bad[0]
            where = ", ".join(f"{int(cell) % cells}" for cell in cells_of[1:, first + row])
            raise ValueError(f"act returned action {actions[row, ghost]} for ghost {ghost} on map "
                             f"{digits[0, first + row]} with the agent on cell {cells_of[0, first + row] % cells} and "
                             f"the ghosts on cells {where}; actions are 0..{NUM_ACTIONS - 1}")
        table[states[part]] = actions
    rows, cols = env.layouts[0].shape
    return table.reshape(maps, *(rows, cols) * (k + 1), k)
