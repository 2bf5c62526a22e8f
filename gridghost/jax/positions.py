"""The JAX views with a team of ``k >= 2`` ghosts: the computed path.

With one ghost the views play the NumPy engine's folded tables (a state is one index). A team's
joint states grow as ``cells**(k + 1)``, so with ``ghosts >= 2`` a game's state holds the cells
themselves, the agent's and ``ghosts: int[k]`` (``EnvState.state`` is the agent's cell and
``EnvState.ghosts`` the team's, both global: ``map * cells + cell``), and a step computes the
half-turn with the kernel's rules, :mod:`gridghost.core.halfturn` (the agent's landing, the team's
simultaneous move, the catch, each ghost's credited reward) and :mod:`gridghost.core.episode`
(the slip outcome of a uniform, the ended game's team half, truncation, auto-reset, the opening
reward), over small tables read from the kernel (:func:`team_tables`): the board's next cells,
the slip model's destinations (:attr:`Game.outcomes <gridghost.core.game.Game.outcomes>`), the
reward of each mover and outcome, the chasing move of a ghost.

Each side's ``"vector"`` observation is the team encoder's (the single envs'): the observer's
one-ghost vector with its first other as the opponent, then the offset and distance slots of
each further other, read from the one-ghost observation table of the same maps (a slot depends
on the two cells only). A ``"grid"`` is gathered from the NumPy team engine's planes
(:func:`gridghost.jax.observe.team_grids`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import jax.numpy as jnp
import numpy as np
from gymnasium import spaces

from gridghost.batched import BatchedGame
from gridghost.batched.observe import team_planes
from gridghost.batched.tables import slip_bounds
from gridghost.config.parts import build_map_parts
from gridghost.config.settings import GameSpec
from gridghost.core import episode, halfturn
from gridghost.core.checks import check_choice
from gridghost.core.names import AGENT, NUM_ACTIONS
from gridghost.core.rules import Outcome, Side
from gridghost.jax.checks import _check_moves, _facts, _span
from gridghost.jax.observe import team_grids
from gridghost.jax.tables import EnvParams, Layout, device_grids
from gridghost.sensing.encoding import VECTOR_SLOTS

#: The opponents a one-side team view plays against, per learning side.
TEAM_OPPONENTS: dict[str, tuple[str, ...]] = {AGENT: ("chase", "random"), "ghosts": ("random",)}
#: The learning side's name for the whole team.
TEAM = "ghosts"


def asks_for_team(arguments: dict[str, Any]) -> bool:
    """Whether a view's keyword arguments ask for a team (``ghosts >= 2``: ``spec``'s, else the
    ``ghosts`` keyword, else 1); a bad ``ghosts`` is left to the settings' check, which names it."""
    spec = arguments.get("spec")
    source = spec if isinstance(spec, dict) and "ghosts" in spec else arguments
    ghosts = spec.ghosts if isinstance(spec, GameSpec) else source.get("ghosts", 1)
    return bool(isinstance(ghosts, (int, np.integer)) and not isinstance(ghosts, bool) and ghosts >= 2)


def others_of(k: int) -> np.ndarray:
    """``int[k + 1, k]``: each observer's others as positions in ``(agent, ghost 0, ...)``, as the
    team encoder orders them (the agent: the ghosts; ghost ``i``: the agent, then its teammates)."""
    return np.array([list(range(1, k + 1))] + [[0, *(j + 1 for j in range(k) if j != i)] for i in range(k)])


def team_tables(engine: BatchedGame, spec: GameSpec, controlled: str | None,
                opponent: str | None) -> tuple[Layout, EnvParams]:
    """The computed path's :class:`Layout` and :class:`EnvParams` for ``spec``'s team on the
    maps of ``engine`` (the one-ghost engine of the same maps and settings, whose observation
    table, masks and goals the team reads).

    ``params.turns`` holds ``moves`` (``int32[maps * cells, 4]``, global next cells),
    ``destinations`` (``int32[maps * cells, 4, K]``, the agent's cell after each slip outcome),
    ``rewards`` (``float32[2, 2, 3]``: mover, then the agent's or the team's reward, then the
    outcome) and ``chase`` (``int32[maps * cells * cells]``, a chasing ghost's move from
    ``map * cells**2 + agent * cells + ghost``, local cells); ``params.start`` is
    ``int32[maps, 1 + k]`` (the agent's and the ghosts' start cells), ``params.starts`` per map
    the cells an exploring start may put the agent on, ``params.opening`` a learning team's
    ``int32[maps, 4, K]`` (the agent's cell after its opening move).

    Raises:
        ValueError: a map with fewer ghost starts than ghosts; with the team learning, a map
            where the agent's opening move can end the game.
    """
    tables = engine.export_tables()
    cells, maps = tables.num_cells, tables.num_maps
    # the team's kernel per map (it refuses a map with too few ghost starts) and its one-ghost game
    teams: list[Any] = [spec.game(level) for level in engine.layouts]
    games: list[Any] = [dataclasses.replace(spec, ghosts=1).game(level) for level in engine.layouts]
    if controlled == TEAM:
        for team, level in zip(teams, engine.layouts, strict=True):
            if team.opening_can_end():
                raise ValueError(f"controlled='ghosts' needs maps where the agent's opening move cannot end the "
                                 f"game; on map {level.name!r} it can")
    bounds, sizes = slip_bounds(games[0])
    slips = int(sizes.max())
    offsets = np.arange(maps)[:, None] * cells
    moves = np.concatenate([game.moves + offset for game, offset in zip(games, offsets[:, 0], strict=True)])
    destinations = np.zeros((maps * cells, NUM_ACTIONS, slips), dtype=np.int64)
    for m, game in enumerate(games):
        for action, (_, reached) in enumerate(game.outcomes):
            pad = np.r_[np.arange(len(reached)), np.full(slips - len(reached), len(reached) - 1)]
            destinations[m * cells:(m + 1) * cells, action] = reached[pad].T + m * cells
    rewards = np.array([[[games[0].rewards(mover, outcome)[side] for outcome in Outcome] for side in (0, 1)]
                        for mover in (Side.AGENT, Side.GHOST)], dtype=np.float32)
    start = np.array([[game.board.index(level.agent_start), *team.starts]
                      for game, team, level in zip(games, teams, engine.layouts, strict=True)]) + offsets
    goals = tables.goals.reshape(maps, cells)
    counts = (~goals).sum(axis=1)
    starts = np.argsort(goals, axis=1, kind="stable")  # per map the cells off its goals first, then padding
    opening = np.zeros(0)
    if controlled == TEAM:
        opening = destinations.reshape(maps, cells, NUM_ACTIONS, slips)[np.arange(maps), start[:, 0] - offsets[:, 0]]
    chase = np.concatenate([np.frombuffer(game.chase_bytes, dtype=np.uint8) for game in games])
    random = controlled is not None and opponent == "random"
    grids: dict[str, dict[str, Any]] = {}
    facts: tuple[Any, ...] = ()
    if spec.obs_type == "grid":  # the team encoder's planes, as the NumPy team engine's
        parts = [build_map_parts(spec, level, with_filter=False) for level in engine.layouts]
        planes = team_planes([part.encoder for part in parts], [part.kernel.board for part in parts],
                            spec.view_radius, spec.grid_layout == "hwc", engine.table_bytes)
        grids, facts = device_grids({side: grid.export() for side, grid in planes.items()})
    layout = Layout(controlled, maps, cells, slips, NUM_ACTIONS if random else 1,
                    bool((bounds == bounds[0]).all()), (), facts, tables.max_cycles, tables.max_episode_steps)
    turns = {"moves": moves, "destinations": destinations, "rewards": rewards, "chase": chase}
    params = EnvParams(
        turns={key: jnp.asarray(value, dtype=jnp.float32 if key == "rewards" else jnp.int32)
               for key, value in turns.items()},
        bounds=jnp.asarray(bounds, dtype=jnp.float32), start=jnp.asarray(start, dtype=jnp.int32),
        opening=jnp.asarray(opening, dtype=jnp.int32),
        opening_reward=jnp.float32(rewards[0, 1, int(Outcome.ONGOING)] if controlled == TEAM else 0.0),
        observations={side: jnp.asarray(table) for side, table in tables.observations.items() if side == AGENT},
        grids=grids,
        masks=jnp.asarray(tables.masks, dtype=bool), goals=jnp.asarray(tables.goals),
        starts=jnp.asarray(starts, dtype=jnp.int32), start_counts=jnp.asarray(counts, dtype=jnp.int32),
        levels=jnp.arange(maps, dtype=jnp.int32), explore_starts=jnp.float32(0.0))
    return layout, params


def check_team_settings(spec: GameSpec, controlled: str | None, opponent: Any) -> str | None:
    """The opponent a team view plays (``None`` with both sides learning), after refusing the
    settings the computed path does not serve.

    Raises:
        ValueError: an opponent the team's learner cannot play against.
    """
    if controlled is None:
        return None
    accepted = TEAM_OPPONENTS[controlled]
    chosen = accepted[0] if opponent is None else opponent
    if not isinstance(chosen, str) or chosen not in accepted:
        raise ValueError(f"opponent must be one of {list(accepted)} (or None: {accepted[0]!r}) with ghosts >= 2 and "
                         f"controlled={controlled!r}, got {opponent!r}")
    return chosen


class TeamRules:
    """The half-turns, the starts and the observations of a team game on the computed path (a
    part of the JAX views' engine, which sets the attributes annotated below)."""

    layout: Layout
    _grid: dict[str, Any]
    ghosts: int
    catcher: bool
    _others: np.ndarray
    # the engine's: an int in 0..n-1 from a uniform, and the slip outcome of a move
    _below: Callable[[Any, Any], Any]
    _slip: Callable[[Any, Any, EnvParams], Any]
    _truncated: Callable[[Any, Any], Any]

    def _team_start(self, uniforms: Any, params: EnvParams, m: Any) -> tuple[Any, Any]:
        """Map ``m``'s start, or with probability ``explore_starts`` (from ``uniforms[0]``) a
        uniform one: the agent on a cell off the goals, each ghost on any other cell."""
        cells, k = self.layout.num_cells, self.ghosts
        start = params.start[m]
        agent = params.starts[m, self._below(uniforms[1], params.start_counts[m])]
        ghosts = self._below(uniforms[2:2 + k], cells - 1)
        ghosts = ghosts + (ghosts >= agent)  # every cell but the agent's, uniformly
        explore = uniforms[0] < params.explore_starts
        return (jnp.where(explore, agent + m * cells, start[0]),
                jnp.where(explore, ghosts + m * cells, start[1:]))

    def _agent_lands(self, slip: Any, agent: Any, ghosts: Any, action: Any, params: EnvParams) -> tuple[Any, ...]:
        """The agent's half-turn with slip outcome ``slip``: ``(cell, outcome, agent reward,
        ghosts' rewards [k])``."""
        cell = params.turns["destinations"][agent, action, slip]
        outcome = halfturn.agent_lands(cell, ghosts, params.goals, xp=jnp)
        return (cell, outcome, *self._credited(0, cell, ghosts, outcome, params))

    def _team_lands(self, agent: Any, ghosts: Any, actions: Any, params: EnvParams) -> tuple[Any, ...]:
        """The team's half-turn: ``(ghosts' cells [k], outcome, agent reward, ghosts' rewards [k])``."""
        moved = halfturn.team_moves(params.turns["moves"], ghosts, actions)
        outcome = halfturn.team_lands(agent, moved, xp=jnp)
        return (moved, outcome, *self._credited(1, agent, moved, outcome, params))

    def _credited(self, mover: int, agent: Any, ghosts: Any, outcome: Any, params: EnvParams) -> tuple[Any, Any]:
        """The agent's reward and each ghost's of a half-turn of ``mover`` (0 the agent, 1 the team)."""
        table = params.turns["rewards"][mover]
        team = halfturn.credited(table[1, outcome], table[1, 0], agent, ghosts, outcome, self.catcher, xp=jnp)
        return table[0, outcome], team.astype(jnp.float32)

    def _chasers(self, agent: Any, ghosts: Any, params: EnvParams) -> Any:
        """Every ghost's chasing move, ``int[k]`` (a team of independent chasers)."""
        cells = self.layout.num_cells
        return params.turns["chase"][agent * cells + ghosts - agent // cells * cells]

    def _team_observations(self, agent: Any, ghosts: Any, params: EnvParams, observers: slice = slice(None)) -> Any:
        """The ``"vector"`` of each of ``observers`` (positions in ``(agent, ghost 0, ...)``),
        ``float32[observers, D]``, as the team encoder builds them."""
        cells = self.layout.num_cells
        m = agent // cells
        everyone = jnp.concatenate((agent[None], ghosts)) - m * cells
        table = params.observations[AGENT]
        others = everyone[self._others[observers]]  # [observers, k]
        # the one-ghost row of (observer, other): the observer's cell slots, then the pair's three
        rows = table[(m * cells + everyone[observers, None]) * cells + others]  # [observers, k, D1]
        slots = table.shape[1] - 3
        return jnp.concatenate((rows[:, 0], rows[:, 1:, slots:].reshape(rows.shape[0], -1)), axis=1)


class TeamEnvState(NamedTuple):
    """One team game (a pytree; batched by ``vmap``, each leaf then gains a leading axis ``N``).

    Attributes:
        agent: ``int32``, the agent's global cell (``map * cells + cell``).
        ghosts: ``int32[k]``, the ghosts' global cells, in the ghosts' order.
        steps, to_move, ended: as :class:`~gridghost.jax.EnvState`'s.
    """

    agent: Any
    ghosts: Any
    steps: Any
    to_move: Any
    ended: Any


class TeamEngine(TeamRules):
    """What both views' team paths share: the tables, the draws, the starts, the state checks and
    the spaces (a part of a JAX view, placed before its one-ghost engine: these methods take the
    place of that engine's)."""

    spec: GameSpec
    engine: BatchedGame
    default_params: EnvParams
    _reset_slots: dict[str, int]
    _turn_slots: dict[str, int]
    reset_draws: int
    turn_draws: int
    _first_observation: Callable[[Any, EnvParams], Any]
    _check_turn: Callable[[str, Any, Any, int | None], None]
    _params: Callable[[EnvParams | None], EnvParams]
    # each path's: the side ``agent`` names (``None``: a lone learner's own), refusing any other
    _side: Callable[[str | None], str]

    def _build(self, controlled: str | None, options: dict[str, Any]) -> EnvParams:
        """The one-ghost engine of the same maps, then the team's tables (see :func:`team_tables`)."""
        opponent = check_team_settings(self.spec, controlled, options.pop("opponent", None))
        self.ghosts, self.catcher = self.spec.ghosts, self.spec.ghost_credit == "catcher"
        self._others = others_of(self.ghosts)
        one = dataclasses.replace(self.spec, ghosts=1, ghost_credit="team")
        #: The one-ghost NumPy engine of the same maps (its observation table, masks and goals).
        self.engine = BatchedGame(1, spec=one, **options)
        self.layout, params = team_tables(self.engine, self.spec, controlled, opponent)
        self._opponent = opponent
        return params

    def _slots(self, controlled: str | None) -> None:
        layout, k = self.layout, self.ghosts
        names = ["level"] if layout.num_maps > 1 else []
        if controlled != TEAM:
            names += ["explore", "start", *(f"ghost_{i}" for i in range(k))]
        else:
            names += ["opening", "opening_slip"]
        self._reset_slots = {name: i for i, name in enumerate(names)}
        self.reset_draws = len(names)
        opponents = {AGENT: k, TEAM: 1}.get(controlled, 0) if layout.b > 1 else 0  # type: ignore[arg-type]
        turn = ["slip", *(f"opponent_{i}" for i in range(opponents))]
        self._turn_slots = {name: i for i, name in enumerate(turn)}
        self.turn_draws = len(turn)

    def _reset_core(self, uniforms: Any, params: EnvParams) -> tuple[Any, Any]:
        slot = self._reset_slots
        m = params.levels[self._below(uniforms[slot["level"]], params.levels.shape[0]) if "level" in slot else 0]
        if self.layout.controlled != TEAM:
            agent, ghosts = self._team_start(uniforms[slot["explore"]:], params, m)
        else:  # after the random agent's opening move
            action = self._below(uniforms[slot["opening"]], NUM_ACTIONS)
            agent = params.opening[m, action, self._slip(uniforms[slot["opening_slip"]], action, params)]
            ghosts = params.start[m, 1:]
        env = TeamEnvState(agent.astype(jnp.int32), ghosts.astype(jnp.int32), jnp.int32(0), jnp.int32(0),
                           jnp.zeros((), dtype=bool))
        return self._first_observation(env, params), env

    def _check_state(self, state: Any, argument: str, batch: bool, half: int | None = None) -> tuple[int, ...]:
        """Refuse a ``state`` this view cannot step (see the one-ghost engine's check); returns
        its batch shape."""
        if not isinstance(state, TeamEnvState):
            raise TypeError(f"{argument} must be a gridghost.jax.TeamEnvState (from reset or step; ghosts="
                            f"{self.ghosts}), got {type(state).__name__}")
        facts = {name: _facts(getattr(state, name), f"{argument}.{name}") for name in TeamEnvState._fields}
        shape = facts["agent"][0]
        if batch and (len(shape) != 1 or not shape[0]):
            raise ValueError(f"{argument} must be a batch of games, {argument}.agent of shape (N,), got shape {shape}")
        if not batch and shape != ():
            raise ValueError(f"{argument} must be one game's TeamEnvState, {argument}.agent a scalar, got shape "
                             f"{shape}: step a batch with the batch_ functions or jax.vmap")
        for name, (got, dtype, _) in facts.items():
            want = (*shape, self.ghosts) if name == "ghosts" else shape
            if got != want:
                raise ValueError(f"{argument}.{name} must have shape {want} (ghosts={self.ghosts}), got {got}")
            if dtype.kind not in ("b" if name == "ended" else "iu"):
                raise TypeError(f"{argument}.{name} must be {'bool' if name == 'ended' else 'int'}, got dtype {dtype}")
        values = {name: array for name, (_, _, array) in facts.items()}
        cells = self.layout.num_maps * self.layout.num_cells
        for name in ("agent", "ghosts"):
            array = values[name]
            if array is not None and ((array < 0) | (array >= cells)).any():
                raise ValueError(f"{argument}.{name} must hold cells of this view in 0..{cells - 1} "
                                 f"(map * {self.layout.num_cells} + cell), got {_span(array)}")
        agent, ghosts = values["agent"], values["ghosts"]
        if agent is not None and ghosts is not None and (
                ghosts // self.layout.num_cells != (agent // self.layout.num_cells)[..., None]).any():
            raise ValueError(f"{argument}.ghosts must lie on the agent's map (map * {self.layout.num_cells} + cell)")
        if values["steps"] is not None and (values["steps"] < 0).any():
            raise ValueError(f"{argument}.steps must be >= 0, got {_span(values['steps'])}")
        self._check_turn(argument, values["to_move"], values["ended"], half)
        return shape

    def _check_team(self, actions: Any, argument: str, shape: tuple[int, ...]) -> None:
        """Refuse the team's ``actions`` unless they are ints of ``shape + (k,)`` in 0..3."""
        _check_moves(actions, argument, (*shape, self.ghosts))

    def _masks(self, state: Any, params: EnvParams) -> dict[str, Any]:
        """Per side, the moves that change its cells: the agent's ``bool[4]``, the team's ``bool[k, 4]``."""
        return {AGENT: params.masks[state.agent], TEAM: params.masks[state.ghosts]}

    def observation_space(self, agent: str | None = None) -> spaces.Box:
        """A side's observation space: the agent's ``Box(D)``, the team's ``Box(k, D)`` (a lone
        learner's: its own, ``agent`` ``None`` or its name).

        Raises:
            ValueError: ``agent`` names no side of this view.
        """
        return self._vector_space() if self._side(agent) == AGENT else self._team_space()

    def action_space(self, agent: str | None = None) -> spaces.Space[Any]:
        """A side's action space: ``Discrete(4)`` for the agent, ``MultiDiscrete([4] * k)`` for the
        team (a lone learner's: its own, ``agent`` ``None`` or its name).

        Raises:
            ValueError: ``agent`` names no side of this view.
        """
        return spaces.Discrete(NUM_ACTIONS) if self._side(agent) == AGENT else \
            spaces.MultiDiscrete([NUM_ACTIONS] * self.ghosts)

    def _vector_space(self) -> spaces.Box:
        """One observer's space, as the team encoder's (``"vector"`` or ``"grid"``)."""
        if self._grid:
            return spaces.Box(0.0, 1.0, self._grid[AGENT][0], dtype=np.float32)
        base = self.engine.observation_space
        assert isinstance(base, spaces.Box)
        cut = len(VECTOR_SLOTS)
        low = np.concatenate((base.low[:cut], np.tile(np.array([-1, -1, 0], dtype=np.float32), self.ghosts - 1),
                              base.low[cut:]))
        return spaces.Box(low, np.ones_like(low), dtype=np.float32)

    def _team_space(self) -> spaces.Box:
        """The team's stacked observations, ``k x D``."""
        one = self._vector_space()
        return spaces.Box(np.stack([one.low] * self.ghosts), np.stack([one.high] * self.ghosts), dtype=np.float32)


class TeamBothSides(TeamEngine):
    """:class:`~gridghost.jax.GridGhostJax`'s team path: both sides learn, the team's actions,
    rewards, masks and observations under ``"ghosts"`` with a leading axis ``k``."""

    agents: tuple[str, ...] = (AGENT, TEAM)

    def _side(self, agent: str | None) -> str:
        check_choice(agent, "agent", self.agents)
        return str(agent)

    def _observations(self, state: Any, params: EnvParams) -> dict[str, Any]:
        if self._grid:  # each side flagged not to move as with one ghost
            agent_moves, over = state.to_move == 0, params.goals[state.agent] | (state.ghosts == state.agent).any()
            return team_grids(params.grids, self._grid, state.agent, state.ghosts, self.layout.num_cells,
                              {AGENT: ~agent_moves | over, TEAM: agent_moves | state.ended})
        seen = self._team_observations(state.agent, state.ghosts, params)
        return {AGENT: seen[0], TEAM: seen[1:]}

    def _check_actions(self, actions: Any, shape: tuple[int, ...], half: int | None) -> None:
        if half is not None:
            (_check_moves if half == 0 else self._check_team)(actions, "actions" if shape else "action", shape)
            return
        if not isinstance(actions, Mapping) or set(actions) != set(self.agents):
            raise ValueError(f"actions must be a dict with the keys {list(self.agents)}: the agent's action and the "
                             f"team's {self.ghosts} (the side not to move is ignored), got {actions!r}")
        _check_moves(actions[AGENT], "actions['agent']", shape)
        self._check_team(actions[TEAM], "actions['ghosts']", shape)

    def _agent_half(self, uniform: Any, state: Any, action: Any, params: EnvParams) -> tuple[Any, ...]:
        cell, outcome, agent_reward, team_rewards = self._agent_lands(
            self._slip(uniform, action, params), state.agent, state.ghosts, action, params)
        terminated = outcome != 0
        env = TeamEnvState(cell, state.ghosts, state.steps, jnp.int32(episode.next_mover(episode.AGENT_TO_MOVE)),
                           terminated)
        return env, {AGENT: agent_reward, TEAM: team_rewards}, terminated, jnp.zeros((), dtype=bool)

    def _ghost_half(self, state: Any, actions: Any, params: EnvParams) -> tuple[Any, ...]:
        moved, outcome, agent_reward, team_rewards = self._team_lands(state.agent, state.ghosts, actions, params)
        # a game that ended in the agent's half stays, and pays nothing
        ghosts, (agent_reward, team_rewards), terminated = episode.ghost_half_after_end(
            state.ended, state.ghosts, moved, (agent_reward, team_rewards), outcome != 0, xp=jnp)
        to_move = episode.next_mover(episode.GHOST_TO_MOVE)
        steps = episode.count_cycles(state.steps, to_move)
        env = TeamEnvState(state.agent, ghosts, steps, jnp.int32(to_move), jnp.zeros((), dtype=bool))
        return env, {AGENT: agent_reward, TEAM: team_rewards}, terminated, self._truncated(steps, terminated)


class TeamOneSide(TeamEngine):
    """:class:`~gridghost.jax.GridGhostJaxSingle`'s team path: the agent learns against a team
    (chasers or random), or the team learns (``controlled="ghosts"``: ``MultiDiscrete`` actions,
    its observations ``k x D``, its reward the mean of the ghosts') against a random agent."""

    controlled: str

    def _side(self, agent: str | None) -> str:
        check_choice(agent, "agent", (self.controlled,), allow_none=True)
        return self.controlled

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

    def _check_actions(self, actions: Any, shape: tuple[int, ...], half: int | None) -> None:
        argument = "actions" if shape else "action"
        (_check_moves if self.controlled == AGENT else self._check_team)(actions, argument, shape)

    def _turn(self, uniforms: Any, state: Any, action: Any, params: EnvParams) -> tuple[Any, ...]:
        slot = self._turn_slots
        random = [uniforms[slot[name]] for name in slot if name.startswith("opponent")]
        if self.controlled == AGENT:
            slip = self._slip(uniforms[slot["slip"]], action, params)
            first = self._agent_lands(slip, state.agent, state.ghosts, action, params)
            agent = first[0]
            answer = self._chasers(agent, state.ghosts, params) if not random else \
                self._below(jnp.stack(random), NUM_ACTIONS)
            second = self._team_lands(agent, state.ghosts, answer, params)
            ghosts = jnp.where(first[1] != 0, state.ghosts, second[0])
        else:
            first = self._team_lands(state.agent, state.ghosts, action, params)
            ghosts = first[0]
            answer = self._below(random[0], NUM_ACTIONS)
            second = self._agent_lands(self._slip(uniforms[slot["slip"]], answer, params), state.agent, ghosts,
                                       answer, params)
            agent = jnp.where(first[1] != 0, state.agent, second[0])
        ended = first[1] != 0
        terminated = ended | (second[1] != 0)
        learner = 2 if self.controlled == AGENT else 3  # the agent's reward, or the team's [k]
        reward = first[learner] + jnp.where(ended, 0.0, second[learner])
        if self.controlled != AGENT:
            reward = episode.with_opening_reward(reward.mean(), state.steps, params.opening_reward, xp=jnp)
        steps = episode.count_cycles(state.steps, episode.AGENT_TO_MOVE)
        env = TeamEnvState(agent, ghosts, steps, jnp.int32(0), jnp.zeros((), dtype=bool))
        return env, reward.astype(jnp.float32), terminated, self._truncated(steps, terminated)
