"""The batched engine's computed path: N games of a ghost team stepped from their positions.

A team of ``k`` ghosts has ``cells**(k + 1)`` joint states, too many to fold into turn tables.
:class:`PositionGame` (what :class:`~gridghost.batched.engine.BatchedGame` is for ``ghosts >= 2``)
keeps each game's global cells instead (the agent's ``int64[N]``, the ghosts' ``int64[N, k]``) and
steps them with the team's rules written once for both engines (:mod:`gridghost.batched.team`),
the episode's around them (the slip outcome of a uniform, truncation, the opening reward) from
:mod:`gridghost.core.episode`, as on the table path.

Observations (``"vector"``, and ``"belief_vector"`` with the filter's beliefs) are gathered per
observer from two tables read off the single env's team encoder: the observer's own slots by its
cell, and the three slots of each other (offset and distance) by the pair of cells. A row is the
observer's own slots followed by its others' in the encoder's order (the agent's: the ghosts in
index order; ghost ``i``'s: the agent, then its teammates), so it is the encoder's output for
the same state. ``"grid"`` observations are the one-ghost engine's
(:class:`~gridghost.batched.grids.GridPlanes` of the team encoder), marking every ghost.

Sides: ``"agent"`` (``int[N]`` actions, ``float[N]`` rewards, ``[N, D]`` observations) and
``"ghosts"``, the whole team (``int[N, k]`` actions, each ghost's ``float[N, k]`` rewards,
``[N, k, D]`` observations stacked in ghost order, as the team's Gymnasium view stacks them).

Exploring starts of a learning team (:attr:`PositionGame.explore_starts`, the JAX one-side team
view's ``params.explore_starts``): with that probability an episode starts from a uniformly drawn
state, :func:`exploring_cells` (the agent on a cell off its map's goals, each ghost on any cell
but the agent's, independently), from which the opponent agent makes its opening move as it does
from the map's start; an opening move that would end the game there (onto a goal or a ghost) is
not played, and the episode begins at the drawn state with the team to move.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import numpy as np

from gridghost.batched.engine import _TURN_CYCLES, COMPUTED_PATH, BatchedGame, BatchedStep
from gridghost.batched.filter import filter_game_bytes
from gridghost.batched.grids import gather_bytes
from gridghost.batched.limits import (
    UnsupportedSetting,
    tables_refused,
)
from gridghost.batched.observe import PAIR_SLOTS, TEAM, PositionObserver
from gridghost.batched.tables import all_maps
from gridghost.batched.team import TeamTables, TeamTurns, team_tables
from gridghost.config.opponents import (
    TEAM_DEFAULT_OPPONENTS,
    TEAM_OPPONENTS,
    agent_members,
    agent_tables,
    draw_members,
    is_agent_table,
    solver_policy,
)
from gridghost.config.parts import build_encoder, build_map_parts
from gridghost.core import episode
from gridghost.core.checks import check_probability
from gridghost.core.layout import Layout
from gridghost.core.names import AGENT, GHOST, NUM_ACTIONS
from gridghost.core.rules import Side
from gridghost.sensing.encoding import VECTOR_SLOTS

#: The uniforms an exploring start takes, before one per ghost: whether to explore, the agent's cell.
EXPLORE_DRAWS = 2


def explore_order(goals: np.ndarray) -> np.ndarray:
    """Per map its cells off the goals first (in order), then its goals: ``int64[maps, cells]``
    from the goals ``bool[maps, cells]``, the ``starts`` of :func:`exploring_cells`."""
    return np.argsort(goals, axis=1, kind="stable")


def exploring_cells(uniforms: Any, starts: Any, counts: Any, m: Any, cells: int, xp: Any = np,
                    dtype: Any = np.int64) -> tuple[Any, Any]:
    """An exploring start's local cells on map ``m``, from uniforms in [0, 1) (the one code both
    engines draw it with): the agent uniformly on one of the ``counts[m]`` cells off the map's
    goals (``starts[m]`` lists them first), each ghost uniformly on any cell but the agent's.

    Args:
        uniforms: ``[1 + k, ...]``: the agent's uniform, then one per ghost (trailing axes: games).
        starts: ``int[maps, cells]``, per map its cells off the goals first.
        counts: ``int[maps]``, per map its cells off the goals.
        m: the map(s), broadcasting with the uniforms' trailing axes.
        cells: the cells of a map.
        xp: the array library (``numpy`` or ``jax.numpy``); dtype: its int type for the cells.

    Returns:
        ``(agent, ghosts)``: the agent's cell(s) and the ghosts' ``[k, ...]``, local to the map.
    """
    def below(uniform: Any, n: Any) -> Any:  # an int in 0..n-1
        return xp.minimum((uniform * n).astype(dtype), n - 1)

    agent = starts[m, below(uniforms[0], counts[m])]
    ghosts = below(uniforms[1:], cells - 1)
    return agent, ghosts + (ghosts >= agent)  # every cell but the agent's, uniformly


class PositionGame(TeamTurns, PositionObserver, BatchedGame):
    """:class:`~gridghost.batched.engine.BatchedGame` for a team of ``ghosts >= 2`` (the module
    docstring says how it steps); built by ``BatchedGame(num_games, ghosts=k, ...)``, with its
    arguments. Its sides are ``"agent"`` and ``"ghosts"``: ``controlled="agent"`` (against
    ``"chase"``, every ghost's chasing move, the default, ``"random"`` or the team solver's
    ``"minimax"``), ``controlled="ghosts"`` (the team learning, :meth:`step_ghost` with
    ``int[N, k]``, against a ``"random"`` agent, the default, the solver's ``"minimax"`` or
    ``"optimal"``, an agent table or a pool of them, :class:`~gridghost.config.opponents.AgentPool`,
    one member drawn per episode from the engine's generator) or ``None`` (both,
    :meth:`step_agent` then :meth:`step_ghost`). It serves
    ``obs_type="vector"``, ``"belief_vector"`` (the agent's belief from the engine's exact
    filter, as for one ghost) and ``"grid"``.

    Attributes:
        ghosts: the team's size ``k``.
    """

    ghosts: int
    _GHOST_SIDE = TEAM
    xp = np
    _explore_starts = 0.0

    @property
    def explore_starts(self) -> float:
        """The probability, in [0, 1], that a learning team's episode starts from a uniformly drawn
        state (the module docstring says how); 0 (the default) draws nothing more than before.

        Raises:
            TypeError: a value that is not a real number.
            ValueError: a value outside [0, 1], or above 0 for an engine whose team does not learn
                alone (``controlled="agent"`` or ``None``: ``reset(starts=...)`` places those games).
        """
        return self._explore_starts

    @explore_starts.setter
    def explore_starts(self, value: float) -> None:
        share = check_probability(value, "explore_starts")
        if share and self.controlled != TEAM:
            raise ValueError(f"explore_starts explores for a learning team (controlled='ghosts'), this engine's "
                             f"learner is {self.controlled!r}: place its games with reset(starts=...)")
        self._explore_starts = share

    # -- construction ----------------------------------------------------------------------------
    def _build(self, opponent: Any, belief_filter: str | None, first: Layout, count: int) -> None:
        """The per-map tables the rules read (see the module docstring), the observation tables,
        the sensors and the observation space."""
        if self.controlled == GHOST:
            raise ValueError("controlled='ghost' controls one ghost; with ghosts >= 2 the team learns as "
                             "controlled='ghosts' (or pass controlled=None for both sides)")
        learner = self.controlled
        self._opponent = None
        if learner is not None:
            named = TEAM_DEFAULT_OPPONENTS[learner] if opponent is None else opponent
            tables = learner == TEAM and is_agent_table(named)
            if not tables and (not isinstance(named, str) or named not in TEAM_OPPONENTS[learner]):
                served = list(TEAM_OPPONENTS[learner])
                also = ", an agent table or an AgentPool" if learner == TEAM else ""
                raise UnsupportedSetting(f"the batched engine plays a team's opponent from {served}{also} with "
                                         f"controlled={learner!r}, got opponent={opponent!r}")
            self._opponent = named
        cells = first.rows * first.cols
        self.num_cells = cells
        self._sides = (AGENT, TEAM) if learner is None else (learner,)
        self.layouts = layouts = all_maps(first, self.generator, count)
        maps = len(layouts)  # refused where the per-map tables exceed the budget
        estimate = maps * cells * (cells * (2 * PAIR_SLOTS * 4 + 8) + 8 * NUM_ACTIONS * 8 + 2 * 4 * len(VECTOR_SLOTS))
        if estimate > self.table_bytes:
            raise tables_refused(f"the batched team tables of {maps:,} map(s) of {cells} cells", estimate,
                                 self.table_bytes)
        parts = [build_map_parts(self.config, layout, with_filter=False) for layout in layouts]
        kernels: list[Any] = [part.kernel for part in parts]  # team kernels (ghosts >= 2)
        head = kernels[0]
        self.ghosts = k = head.ghosts
        self.catcher = head.credit == "catcher"
        self._slip_bounds(head)
        self._team = team_tables(kernels, self._k)  # then the flat views, goals and masks the engine reads
        self._moves = self._team.moves.reshape(-1)
        self._dest = self._team.destinations.reshape(-1)
        self._boards(kernels)
        self._opening(kernels)
        self._random_opponent = isinstance(self._opponent, str) and self._opponent == "random"
        chasers = learner == AGENT and self._opponent == "chase"
        planned = learner is not None and not self._random_opponent and not chasers
        #: The planned opponent's tables ``uint8[P, entries]`` and weights ``float64[P]`` (``None``
        #: for a scripted opponent): the solver's player (``P = 1``), or a learning team's agent
        #: tables (:func:`~gridghost.config.opponents.agent_tables`).
        self._planned: np.ndarray | None = None
        self._pool: np.ndarray | None = None
        if planned:
            self._planned, self._pool = self._planned_table(kernels)
        #: The maps' kernels, which agent tables are checked against (a learning team's table opponent).
        self._kernels = kernels if planned and learner == TEAM else []
        # the random opponent's uniforms: one per ghost; a learning team's opponent agent always has its row
        self._b = k if learner == AGENT and self._random_opponent else int(learner == TEAM)
        self._sensor_row = 1 + self._b  # a step's uniforms: the slip, the opponent's, then the readings
        encoders: list[Any] = [part.encoder for part in parts]
        if belief_filter is not None and self.obs_type != "grid":  # the agent's belief: the engine's exact filter
            believed = dataclasses.replace(self.config, obs_type="belief_vector")
            encoders = [build_encoder(believed, part.kernel.board, functools.partial(np.zeros, first.shape))
                        for part in parts]
        self._bind_sensors(parts, belief_filter, int(np.prod(encoders[0].space(AGENT).shape)))
        self._team_observations(parts, encoders)

    def _game_bytes(self, observation_size: int, sensors: int, filtered: bool) -> int:
        """The bytes one game takes in a team's per-game buffers: its cells and a step's index
        arrays, the draws and readings, per observer its observations (and a grid's gather)."""
        k = self.ghosts
        grid = gather_bytes(self.config.view_radius, self.config.grid_layout == "hwc", k) if self.obs_type == "grid" \
            else 0
        return (8 * (8 * (k + 1) + 2 * (1 + k + sensors)) + 4 * 4 * observation_size * (k + 1)
                + (filter_game_bytes(self.num_cells) if filtered else 0) + (k + 1) * grid)

    def _planned_table(self, kernels: list[Any]) -> tuple[np.ndarray, np.ndarray]:
        """The planned opponent on every map, ``uint8[P, entries]`` by ``map * cells**(k + 1)`` +
        the flat joint state (the agent's cell, then each ghost's), with its weights
        ``float64[P]``: the solver's player (the agent's action, or the team's joint move, ghost
        ``i``'s in bits ``2i, 2i + 1``; ``P = 1``), or the agent tables given.

        Raises:
            ValueError: the tables exceed :attr:`table_bytes`, or the solver's own budget; agent
                tables that do not fit the maps (:func:`~gridghost.config.opponents.agent_tables`).
            TypeError: agent tables that are not int arrays.
        """
        size = len(kernels) * self.num_cells ** (self.ghosts + 1)
        count = 1 if isinstance(self._opponent, str) else len(agent_members(self._opponent))
        if count * size > self.table_bytes:
            what = "opponent's agent tables" if count > 1 or not isinstance(self._opponent, str) else \
                f"opponent={self._opponent!r}'s tables"
            raise tables_refused(f"the {what} of {len(kernels):,} map(s) for {self.ghosts} ghosts", count * size,
                                 self.table_bytes)
        if not isinstance(self._opponent, str):
            return agent_tables(self._opponent, kernels)
        side = Side.AGENT if self.controlled == TEAM else Side.GHOST
        # -1 (game over, never read): 255
        tables = [solver_policy(kernel, self._opponent, side).astype(np.uint8).reshape(-1) for kernel in kernels]
        return np.concatenate(tables)[None], np.ones(1)

    def _planned_moves(self, agents: np.ndarray, ghosts: np.ndarray, base: np.ndarray,
                       members: np.ndarray | None = None) -> np.ndarray:
        """The planned player's entry of every game's joint state (global cells on maps ``base``),
        from pool member ``members`` (``None``: the first)."""
        cells, k = self.num_cells, self.ghosts
        index = agents - base
        for i in range(k):
            index = index * cells + ghosts[:, i] - base
        index += base * cells**k  # the map's block: map * cells**(k + 1)
        planned: np.ndarray = self._planned  # type: ignore[assignment]  # set with a planner
        if members is not None and len(planned) > 1:
            index += members * planned.shape[1]
        return planned.reshape(-1).take(index).astype(np.int64)

    @property
    def members(self) -> np.ndarray:
        """Each game's member of the opponent's pool this episode, ``int64[N]`` (0 without a pool)."""
        return self._member.copy()

    def _buffers(self) -> None:
        super()._buffers()
        n, k = self.num_games, self.ghosts
        self._landed = np.empty(n, dtype=np.int64)
        self._agent = np.zeros(n, dtype=np.int64)
        # ghost cells column by column ([N, k] in Fortran order): the rules' "any ghost" over the
        # trailing axis then reduces k contiguous columns, about 15x faster than k-long rows
        self._ghosts = np.zeros((n, k), dtype=np.int64, order="F")
        self._moved = np.zeros((n, k), dtype=np.int64, order="F")
        self._team_index = np.zeros((n, k), dtype=np.int64, order="F")
        self._answer = np.zeros((n, k), dtype=np.int64, order="F")
        self._base = np.zeros(n, dtype=np.int64)  # each game's map * cells
        self._member = np.zeros(n, dtype=np.int64)  # each game's member of the opponent's pool
        self._rewards = {AGENT: np.zeros(n), TEAM: np.zeros((n, k))}
        self._returns = {AGENT: np.zeros(n), TEAM: np.zeros((n, k))}
        self._ended_returns = {AGENT: np.zeros(0), TEAM: np.zeros((0, k))}
        self._ended_positions = (np.zeros(0, dtype=np.int64), np.zeros((0, k), dtype=np.int64))

    # -- the engine's own forms of the team's rules (team.TeamTurns composes them) ---------------
    def _landing(self, agents: np.ndarray, actions: np.ndarray, uniform: np.ndarray) -> np.ndarray:
        """Each agent's final cell after ``actions`` with the slip outcome ``uniform`` picks (for
        every game: into the engine's buffer)."""
        full = len(agents) == self.num_games
        index = self._index if full else np.empty(len(agents), np.int64)
        np.multiply(actions, self._k, out=index)
        if self._same_bounds:
            episode.slip_outcome(uniform, self._bounds[0], out=index, scratch=self._hit[: len(agents)])
        else:
            episode.slip_outcome(uniform, self._bounds, actions, out=index, scratch=self._hit[: len(agents)])
        index *= len(self._goals)
        index += agents
        return self._dest.take(index, out=self._landed if full else None)

    def _team_moves(self, tables: TeamTables, ghosts: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """:func:`~gridghost.core.halfturn.team_moves` (``moves[ghosts, actions]``) as one ``take``
        of the flat next-cell table into a buffer, a seventh of the two-array index's time
        (``tests/test_batched_teams.py`` holds the two equal)."""
        index = np.multiply(ghosts, NUM_ACTIONS, out=self._team_index)
        index += actions
        self._moves.take(index.T, out=self._moved.T)  # [k, N]: both contiguous
        return self._moved

    def _chasers(self, agents: np.ndarray, ghosts: np.ndarray, base: np.ndarray) -> np.ndarray:
        """Every ghost's chasing move, ``int64[N, k]``."""
        index = np.multiply(agents, self.num_cells, out=self._index)
        index -= base
        rows = np.add(ghosts, index[:, None], out=self._team_index)
        self._team.chase.take(rows.T, out=self._answer.T)  # [k, N]: both contiguous
        return self._answer

    def _team_answer(self, landed: np.ndarray, ghosts: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
        """The opponent team's actions: every ghost's chasing move, random or planned."""
        if self._random_opponent:
            return (uniforms[1 : 1 + self.ghosts].T * NUM_ACTIONS).astype(np.int64)
        if self._planned is not None:  # every ghost's move of the team's planned joint move
            joint = self._planned_moves(landed, ghosts, self._base, self._member)
            for i in range(self.ghosts):
                np.bitwise_and(joint >> (2 * i), NUM_ACTIONS - 1, out=self._answer[:, i])
            return self._answer
        return self._chasers(landed, ghosts, self._base)

    def _agent_answer(self, agents: np.ndarray, ghosts: np.ndarray, base: np.ndarray,
                      uniforms: np.ndarray, members: np.ndarray) -> np.ndarray:
        """The opponent agent's action in every game: random (from ``uniforms``) or planned (by
        pool member ``members``)."""
        if self._planned is None:
            return (uniforms * NUM_ACTIONS).astype(np.int64)
        # the marker (255) is where the game is over, which no answer reads
        return np.minimum(self._planned_moves(agents, ghosts, base, members), NUM_ACTIONS - 1)

    # -- steps -------------------------------------------------------------------------------------
    def _turn(self, actions: np.ndarray) -> BatchedStep:
        """One learner's turn (:meth:`~gridghost.batched.team.TeamTurns._agent_turn` or
        ``_team_turn``), then its end."""
        uniforms = self._uniforms
        self._rng.random(out=uniforms)  # type: ignore[union-attr]  # set by reset
        agents, ghosts, learner = self._agent, self._ghosts, self.controlled
        if learner == AGENT:
            cells, moved, reward, self._terminated = self._agent_turn(
                self._team, agents, ghosts, actions, lambda at, moves: self._landing(at, moves, uniforms[0]),
                lambda landed: self._team_answer(landed, ghosts, uniforms))
            self._landed = agents  # the buffer of the next landing
        else:
            cells, moved, reward, self._terminated = self._team_turn(
                self._team, agents, ghosts, actions, lambda at, moves: self._landing(at, moves, uniforms[0]),
                lambda moved: self._agent_answer(agents, moved, self._base, uniforms[1], self._member))
            if self._opening_reward:
                reward[self._steps == 0] += self._opening_reward
            self._moved = ghosts  # the buffer of the next move
        self._agent, self._ghosts, self._rewards[learner] = cells, moved, reward  # type: ignore[index]
        return self._turn_end(learner, actions)  # type: ignore[arg-type]

    def _turn_end(self, learner: str, actions: np.ndarray) -> BatchedStep:
        """One learner's turn, after its rules: the count, the returns, next-step restarts,
        truncation, the readings (the agent's, after its move: it does not move again in the
        turn) and the observations."""
        terminated, reward = self._terminated, self._rewards[learner]
        self._steps += _TURN_CYCLES[AGENT if learner == AGENT else GHOST]
        self._returns[learner] += reward
        restart, maps = self._restart, None
        if len(restart):  # ended in the last call (next-step mode): a new episode instead
            maps = self._place(restart, self._uniforms[:, restart])
            reward[restart] = 0.0
            terminated[restart] = False
            self._returns[learner][restart] = 0.0
        self._truncate(terminated, self._truncated)
        if self._draw_readings:  # a restarted game's at its start, from its uniforms as _place drew them
            self._read(self._agent, self._uniforms, self._sensor_row)
        if self.filter is not None:  # the agent's exact belief, as for one ghost
            self.filter.advance(actions)
            if len(restart):
                self.filter.reset(restart, maps)
            self.filter.weigh(self.readings)
        return self._finish(terminated, self._truncated)

    def _agent_half(self, actions: np.ndarray) -> BatchedStep:
        uniforms = self._uniforms
        self._rng.random(out=uniforms)  # type: ignore[union-attr]
        agents = self._agent
        landed = self._landing(agents, actions, uniforms[0])
        outcomes, self._rewards[AGENT], self._rewards[TEAM] = self._agent_lands(self._team, landed, self._ghosts)
        self._landed, self._agent = agents, landed
        return self._agent_half_end(landed, outcomes, uniforms, actions)

    def _ghost_half(self, actions: np.ndarray) -> BatchedStep:
        ghosts = self._ghosts
        moved, self._rewards[AGENT], self._rewards[TEAM], terminated = self._team_half(
            self._team, self._agent, ghosts, actions, self._ended)
        self._ghosts, self._moved, self._terminated = moved, ghosts, terminated
        return self._ghost_half_end(terminated)

    def _final_observations(self, games: np.ndarray, ended: np.ndarray) -> dict[str, np.ndarray]:
        self._ended_positions = (self._agent[games], self._ghosts[games])
        waiting = self._waiting[games]  # two sides: the team waits at a turn's end
        return {side: self._team_gather(side, *self._ended_positions, self._base[games], games=games,
                                        not_to_move=waiting if self.controlled is None and side == TEAM else ended)
                for side in self._sides}

    def _rewards_of(self) -> tuple[str, ...]:
        return self._sides

    # -- resets ------------------------------------------------------------------------------------
    def _place(self, rows: np.ndarray, uniforms: np.ndarray, cells: tuple[np.ndarray, np.ndarray] | None = None,
               explore: np.ndarray | None = None) -> np.ndarray | None:
        """Put games ``rows`` at the start of a new episode, from their columns of ``uniforms``
        (row 0 the opening slip, row 1 the random opening move): a level drawn per game; for a
        learning team, after the opponent agent's opening move (with a pool, by the member drawn
        for the episode from the engine's generator, after the maps), from the map's start or,
        with :attr:`explore_starts`, an exploring start drawn from ``explore`` (``[2 + k, rows]``:
        whether, then :func:`exploring_cells`'; ``None``: drawn from the generator after the
        members, only where ``explore_starts > 0``). Returns the maps drawn (``None`` with one
        map), for the filter."""
        start = self._team.start
        starts = len(start)
        maps = self._rng.integers(starts, size=len(rows)) if starts > 1 else np.zeros(len(rows), np.int64)  # type: ignore[union-attr]
        base = maps * self.num_cells
        agents, ghosts = start[maps, 0], start[maps, 1:]
        if cells is not None:
            agents, ghosts = cells[0] + base, cells[1] + base[:, None]
        members = np.zeros(len(rows), np.int64)
        if self._pool is not None and len(self._pool) > 1:
            members = draw_members(self._rng.random(len(rows)), self._pool)  # type: ignore[union-attr]
        self._member[rows] = members
        if self.controlled == TEAM:  # the opening move
            if explore is None and self._explore_starts:
                explore = self._rng.random((EXPLORE_DRAWS + self.ghosts, len(rows)))  # type: ignore[union-attr]
            if explore is not None:
                agents, ghosts = self._exploring(explore, maps, base, agents, ghosts)
            opening = self._agent_answer(agents, ghosts, base, uniforms[1], members)
            landed = self._landing(agents, opening, uniforms[0])
            if explore is not None:  # an opening that would end the game is not played
                ends = self._team.goals[landed] | (ghosts == landed[:, None]).any(axis=1)
                landed = np.where(ends, agents, landed)
            agents = landed
        self._agent[rows], self._ghosts[rows], self._base[rows] = agents, ghosts, base
        self._steps[rows] = 0
        if self._draw_readings:
            self._read(agents, uniforms, self._sensor_row, rows)
        return maps if starts > 1 else None

    def _exploring(self, explore: np.ndarray, maps: np.ndarray, base: np.ndarray, agents: np.ndarray,
                   ghosts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The games' first cells: an exploring start where ``explore[0] < explore_starts``, else
        the ``agents`` and ``ghosts`` given (global cells)."""
        goals = self._team.goals.reshape(-1, self.num_cells)
        agent, team = exploring_cells(explore[1:], explore_order(goals), (~goals).sum(axis=1), maps, self.num_cells)
        chosen = explore[0] < self._explore_starts
        return np.where(chosen, agent + base, agents), np.where(chosen[:, None], team.T + base[:, None], ghosts)

    def _reset_rows(self, rows: np.ndarray, cells: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        uniforms = self._rng.random((self._sensor_row + len(self.sensor_tables.counts), len(rows)))  # type: ignore[union-attr]
        maps = self._place(rows, uniforms, cells)
        for side in self._returns:
            self._returns[side][rows] = 0.0
        if self.filter is not None:
            self.filter.reset(rows, maps)
            self.filter.weigh(self.readings[:, rows], games=rows)

    # -- observations ------------------------------------------------------------------------------
    def _observe(self, agent_waits: np.ndarray | None = None, ghost_waits: np.ndarray | None = None) -> None:
        for side in self._sides:
            self._team_gather(side, self._agent, self._ghosts, self._base, out=self._obs[side],
                              not_to_move=agent_waits if side == AGENT else ghost_waits)

    # -- what the games are at ---------------------------------------------------------------------
    def _cells(self, ended: bool = False) -> tuple[np.ndarray, np.ndarray]:
        return self._ended_positions if ended else (self._agent.copy(), self._ghosts.copy())

    def export_tables(self) -> Any:
        """Refused: a team's games are computed from positions, not played from tables.

        Raises:
            UnsupportedSetting: always.
        """
        raise UnsupportedSetting("a team's batched games (ghosts >= 2) are computed from positions; there are no "
                                 "turn tables to export")


COMPUTED_PATH.append(PositionGame)
