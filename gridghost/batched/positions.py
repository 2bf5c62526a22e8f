"""The batched engine's computed path: N games of a ghost team stepped from their positions.

A team of ``k`` ghosts has ``cells**(k + 1)`` joint states, too many to fold into turn tables.
:class:`PositionGame` (what :class:`~gridghost.batched.engine.BatchedGame` is for ``ghosts >= 2``)
keeps each game's positions instead (the agent's cell ``int64[N]``, the ghosts' ``int64[N, k]``,
as *global* cells ``map * cells + cell``, so that games on different maps share every table) and
computes each half-turn by calling the kernel's rules of :mod:`gridghost.core.halfturn` on them:
the agent's landing and catch, the team's simultaneous move and its catch, each ghost's credited
reward. What the rules read are small per-map tables taken from the game kernel: the board's
next cells, the slip model's outcome destinations (:attr:`~gridghost.core.game.Game.outcomes`),
the goals, both sides' rewards per outcome and the chasing ghost's table. The episode's rules
around the half-turns (the slip outcome of a uniform, truncation, the opening reward, the end in
the agent's half) are :mod:`gridghost.core.episode`'s, as on the table path.

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
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import numpy as np

from gridghost.batched.engine import _TURN_CYCLES, COMPUTED_PATH, BatchedGame, BatchedStep
from gridghost.batched.filter import BatchedHistogramFilter, filter_game_bytes
from gridghost.batched.grids import gather_bytes
from gridghost.batched.limits import (
    UnsupportedSetting,
    check_buffers,
    tables_refused,
)
from gridghost.batched.observe import PAIR_SLOTS, TEAM, PositionObserver
from gridghost.batched.tables import ONGOING, all_maps, sensor_tables
from gridghost.config.parts import build_encoder, build_map_parts
from gridghost.core import episode, halfturn
from gridghost.core.layout import Layout
from gridghost.core.names import AGENT, GHOST, NUM_ACTIONS
from gridghost.core.rules import Outcome, Side
from gridghost.sensing.encoding import VECTOR_SLOTS

#: The opponents the computed path plays, per learner (``None``: the first one): scripted, or the
#: team solver's players (``"minimax"``, and the agent's best response to the chasing team,
#: ``"optimal"``) from their state tables, where those fit the tables' budget.
TEAM_OPPONENTS: dict[str, tuple[str, ...]] = {AGENT: ("chase", "random", "minimax"),
                                              TEAM: ("random", "minimax", "optimal")}


class PositionGame(PositionObserver, BatchedGame):
    """:class:`~gridghost.batched.engine.BatchedGame` for a team of ``ghosts >= 2`` (the module
    docstring says how it steps); built by ``BatchedGame(num_games, ghosts=k, ...)``, with its
    arguments. Its sides are ``"agent"`` and ``"ghosts"``: ``controlled="agent"`` (against
    ``"chase"``, every ghost's chasing move, the default, ``"random"`` or the team solver's
    ``"minimax"``), ``controlled="ghosts"`` (the team learning, :meth:`step_ghost` with
    ``int[N, k]``, against a ``"random"`` agent, the default, or the solver's ``"minimax"`` or
    ``"optimal"``) or ``None`` (both, :meth:`step_agent` then :meth:`step_ghost`). It serves
    ``obs_type="vector"``, ``"belief_vector"`` (the agent's belief from the engine's exact
    filter, as for one ghost) and ``"grid"``.

    Attributes:
        ghosts: the team's size ``k``.
    """

    ghosts: int
    _GHOST_SIDE = TEAM

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
            named = TEAM_OPPONENTS[learner][0] if opponent is None else opponent
            if not isinstance(named, str) or named not in TEAM_OPPONENTS[learner]:
                served = list(TEAM_OPPONENTS[learner])
                raise UnsupportedSetting(f"the batched engine plays a team's opponent from {served} with "
                                         f"controlled={learner!r}, got opponent={opponent!r}")
            self._opponent = named
        cells = first.rows * first.cols
        self.num_cells = cells
        self._sides = (AGENT, TEAM) if learner is None else (learner,)
        self.layouts = layouts = all_maps(first, self.generator, count)
        self._team_budget(len(layouts), cells)
        parts = [build_map_parts(self.config, layout, with_filter=False) for layout in layouts]
        kernels: list[Any] = [part.kernel for part in parts]  # team kernels (ghosts >= 2)
        head = kernels[0]
        self.ghosts = k = head.ghosts
        self._catcher = head.credit == "catcher"
        self._slip_bounds(head)
        self._kernel_tables(kernels)
        self._opening(kernels)
        self._random_opponent = self._opponent == "random"
        self._planned = None if self._opponent not in ("minimax", "optimal") else self._planned_table(kernels)
        # the random opponent's uniforms: one per ghost; a learning team's opponent agent always has its row
        self._b = k if learner == AGENT and self._random_opponent else int(learner == TEAM)
        self._sensor_row = 1 + self._b  # a step's uniforms: the slip, the opponent's, then the readings
        self.sensors = parts[0].sensors
        self.sensor_tables = sensor_tables([part.sensors for part in parts])
        self._draw_readings = learner != TEAM
        self.filter = None
        encoders = [part.encoder for part in parts]
        if belief_filter is not None and learner == TEAM:
            raise ValueError("belief_filter follows the agent; a learning team alone has none (use "
                             "obs_type='vector' or 'grid', or controlled=None)")
        if belief_filter is not None and self.obs_type != "grid":  # the agent's belief: the engine's exact filter
            believed = dataclasses.replace(self.config, obs_type="belief_vector")
            encoders = [build_encoder(believed, part.kernel.board, functools.partial(np.zeros, first.shape))
                        for part in parts]
        per_game = (8 * (8 * (k + 1) + 2 * (1 + k + len(self.sensors))) + 4 * 4 * self._size_of(encoders[0]) * (k + 1)
                    + (filter_game_bytes(cells) if belief_filter is not None else 0)
                    + (k + 1) * (gather_bytes(self.config.view_radius, self.config.grid_layout == "hwc", k)
                                 if self.obs_type == "grid" else 0))
        check_buffers(self.num_games, per_game, f"a team of {k} ghosts on {first.rows}x{first.cols} maps")
        if belief_filter is not None:
            self.filter = BatchedHistogramFilter(layouts, self.slip, self.sensors, self.num_games)
        self._team_observations(parts, encoders)

    @staticmethod
    def _size_of(encoder: Any) -> int:
        """The floats of one observer's observation under ``encoder``."""
        return int(np.prod(encoder.space(AGENT).shape))

    def _team_budget(self, maps: int, cells: int) -> None:
        """Refuse ``maps`` maps whose per-map tables exceed :attr:`table_bytes`."""
        entries = maps * cells * cells
        estimate = entries * (2 * PAIR_SLOTS * 4 + 8) + maps * cells * (8 * NUM_ACTIONS * 8 + 2 * 4 * len(VECTOR_SLOTS))
        if estimate > self.table_bytes:
            raise tables_refused(f"the batched team tables of {maps:,} map(s) of {cells} cells", estimate,
                                 self.table_bytes)

    def _kernel_tables(self, kernels: list[Any]) -> None:
        """The board, slip, goal, chase, start and reward tables of every map, by global cell."""
        cells = self.num_cells
        offsets = np.arange(len(kernels)) * cells
        self._moves = np.concatenate([np.asarray(kernel.moves, dtype=np.int64) + offset
                                      for kernel, offset in zip(kernels, offsets, strict=True)]).reshape(-1)
        self._goals = np.concatenate([np.asarray(kernel.goals, dtype=bool) for kernel in kernels])
        self._goal_anywhere = np.logical_or.reduce(self._goals.reshape(len(kernels), -1), axis=0)
        self._masks = np.concatenate([np.array(kernel.board.action_mask) for kernel in kernels]).astype(np.int8)
        # the chasing ghost's move, by (global agent cell) * cells + local ghost cell
        self._chase = np.concatenate([kernel.chase_table.ravel() for kernel in kernels]).astype(np.int64)
        state = [kernel.initial_state() for kernel in kernels]
        self._agent_starts = np.array([s.agent for s in state], dtype=np.int64) + offsets
        self._ghost_starts = np.array([s.ghosts for s in state], dtype=np.int64) + offsets[:, None]
        # both sides' rewards of a half-turn by mover and outcome: [mover, outcome]
        head = kernels[0]
        pays = np.array([[head.rewards(mover, outcome) for outcome in Outcome] for mover in Side])
        self._agent_pay, self._team_pay = pays[..., 0].copy(), pays[..., 1].copy()
        # the slip model's destinations, [action, outcome, global cell] (outcomes padded with the last,
        # never drawn: their bound is inf)
        width = self._k
        dest = np.empty((NUM_ACTIONS, width, len(kernels) * cells), dtype=np.int64)
        for m, kernel in enumerate(kernels):
            for action, (_, destinations) in enumerate(kernel.outcomes):
                pad = np.r_[np.arange(len(destinations)), np.full(width - len(destinations), len(destinations) - 1)]
                dest[action, :, m * cells : (m + 1) * cells] = destinations[pad] + offsets[m]
        self._dest = dest.reshape(-1)

    def _planned_table(self, kernels: list[Any]) -> np.ndarray:
        """The team solver's player of the opponent's side on every map, ``uint8`` by ``map *
        cells**(k + 1)`` + the flat joint state (the agent's cell, then each ghost's): the agent's
        action, or the team's joint move (ghost ``i``'s in bits ``2i, 2i + 1``).

        Raises:
            ValueError: the tables exceed :attr:`table_bytes`, or the solver's own budget.
        """
        from gridghost.planning.solve import solve_agent, solve_game

        size = len(kernels) * self.num_cells ** (self.ghosts + 1)
        if size > self.table_bytes:
            raise tables_refused(f"opponent={self._opponent!r}'s tables of {len(kernels):,} map(s) for {self.ghosts} "
                                 "ghosts", size, self.table_bytes)
        tables = []
        for kernel in kernels:
            if self._opponent == "optimal":
                actions = solve_agent(game=kernel, ghost="chase").policy
            else:
                solution = solve_game(game=kernel)
                actions = solution.agent_policy if self.controlled == TEAM else solution.team_policy
            tables.append(np.asarray(actions).astype(np.uint8).reshape(-1))  # -1 (game over, never read): 255
        return np.concatenate(tables)

    def _planned_moves(self, agents: np.ndarray, ghosts: np.ndarray, base: np.ndarray) -> np.ndarray:
        """The planned player's entry of every game's joint state (global cells on maps ``base``)."""
        cells, k = self.num_cells, self.ghosts
        index = agents - base
        for i in range(k):
            index = index * cells + ghosts[:, i] - base
        index += base * cells**k  # the map's block: map * cells**(k + 1)
        return self._planned.take(index).astype(np.int64)  # type: ignore[union-attr]  # set with a planner

    def _planned_team(self, agents: np.ndarray, ghosts: np.ndarray, base: np.ndarray) -> np.ndarray:
        """Every ghost's move of the team's planned joint move, ``int64[N, k]``."""
        joint = self._planned_moves(agents, ghosts, base)
        for i in range(self.ghosts):
            np.bitwise_and(joint >> (2 * i), NUM_ACTIONS - 1, out=self._answer[:, i])
        return self._answer

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
        self._rewards = {AGENT: np.zeros(n), TEAM: np.zeros((n, k))}
        self._returns = {AGENT: np.zeros(n), TEAM: np.zeros((n, k))}
        self._ended_returns = {AGENT: np.zeros(0), TEAM: np.zeros((0, k))}
        self._ended_positions = (np.zeros(0, dtype=np.int64), np.zeros((0, k), dtype=np.int64))

    # -- the rules of a half-turn, on positions ----------------------------------------------------
    def _agent_moves(self, agents: np.ndarray, actions: np.ndarray, uniform: np.ndarray, out: np.ndarray) -> np.ndarray:
        """Each agent's final cell after ``actions`` with the slip outcome ``uniform`` picks."""
        index = self._index[: len(agents)] if len(agents) == self.num_games else np.empty(len(agents), np.int64)
        np.multiply(actions, self._k, out=index)
        if self._same_bounds:
            episode.slip_outcome(uniform, self._bounds[0], out=index, scratch=self._hit[: len(agents)])
        else:
            episode.slip_outcome(uniform, self._bounds, actions, out=index, scratch=self._hit[: len(agents)])
        index *= len(self._goals)
        index += agents
        return self._dest.take(index, out=out)

    def _credited(self, mover: Side, agents: np.ndarray, ghosts: np.ndarray, outcomes: np.ndarray) -> np.ndarray:
        """Each ghost's reward of ``mover``'s half-turn (the kernel's credit rule)."""
        pay = self._team_pay[mover]
        return halfturn.credited(pay.take(outcomes), pay[ONGOING], agents, ghosts, outcomes, self._catcher)

    def _team_moves(self, ghosts: np.ndarray, actions: np.ndarray) -> np.ndarray:
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
        self._chase.take(rows.T, out=self._answer.T)  # [k, N]: both contiguous
        return self._answer

    def _agent_answer(self, agents: np.ndarray, ghosts: np.ndarray, base: np.ndarray,
                      uniforms: np.ndarray) -> np.ndarray:
        """The opponent agent's action in every game: random (from ``uniforms``) or planned."""
        if self._planned is None:
            return self._random_moves(uniforms)
        return np.minimum(self._planned_moves(agents, ghosts, base), NUM_ACTIONS - 1)  # over (255): never played

    def _random_moves(self, uniforms: np.ndarray) -> np.ndarray:
        return (uniforms * NUM_ACTIONS).astype(np.int64)

    # -- steps -------------------------------------------------------------------------------------
    def _turn(self, actions: np.ndarray) -> BatchedStep:
        return self._agent_turn(actions) if self.controlled == AGENT else self._team_turn(actions)

    def _agent_turn(self, actions: np.ndarray) -> BatchedStep:
        """The learning agent's move, then the team's answer (chasing, random or planned)."""
        uniforms = self._uniforms
        self._rng.random(out=uniforms)  # type: ignore[union-attr]  # set by reset
        agents, ghosts = self._agent, self._ghosts
        landed = self._agent_moves(agents, actions, uniforms[0], self._landed)
        first = halfturn.agent_lands(landed, ghosts, self._goals)
        over = first != ONGOING
        if self._random_opponent:
            answer = self._random_moves(uniforms[1 : 1 + self.ghosts].T)
        elif self._planned is not None:
            answer = self._planned_team(landed, ghosts, self._base)
        else:
            answer = self._chasers(landed, ghosts, self._base)
        moved = self._team_moves(ghosts, answer)
        second = halfturn.team_lands(landed, moved)
        reward = self._rewards[AGENT]
        np.add(self._agent_pay[Side.AGENT].take(first), np.where(over, 0.0, self._agent_pay[Side.GHOST].take(second)),
               out=reward)
        np.not_equal(second, ONGOING, out=self._terminated)
        self._terminated |= over
        np.copyto(moved, ghosts, where=over[:, None])
        self._agent, self._ghosts = landed, moved
        self._landed, self._moved = agents, ghosts
        return self._turn_end(AGENT, actions)

    def _team_turn(self, actions: np.ndarray) -> BatchedStep:
        """The learning team's move, then the opponent agent's answer (random or planned, with slip)."""
        uniforms = self._uniforms
        self._rng.random(out=uniforms)  # type: ignore[union-attr]  # set by reset
        agents, ghosts = self._agent, self._ghosts
        moved = self._team_moves(ghosts, actions)
        first = halfturn.team_lands(agents, moved)
        over = first != ONGOING
        answer = self._agent_answer(agents, moved, self._base, uniforms[1])
        landed = self._agent_moves(agents, answer, uniforms[0], self._landed)
        np.copyto(landed, agents, where=over)
        second = halfturn.agent_lands(landed, moved, self._goals)
        second[over] = ONGOING
        answered = self._credited(Side.AGENT, landed, moved, second)
        answered[over] = 0.0  # the answer that was not played pays nothing
        reward = self._rewards[TEAM]
        np.add(self._credited(Side.GHOST, agents, moved, first), answered, out=reward)
        if self._opening_reward:
            np.equal(self._steps, 0, out=self._bools)
            reward[self._bools] += self._opening_reward
        np.not_equal(second, ONGOING, out=self._terminated)
        self._terminated |= over
        self._landed, self._agent, self._ghosts, self._moved = agents, landed, moved, ghosts
        return self._turn_end(TEAM, actions)

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
        agents, ghosts = self._agent, self._ghosts
        landed = self._agent_moves(agents, actions, uniforms[0], self._landed)
        first = halfturn.agent_lands(landed, ghosts, self._goals)
        self._agent_pay[Side.AGENT].take(first, out=self._rewards[AGENT])
        self._rewards[TEAM][...] = self._credited(Side.AGENT, landed, ghosts, first)
        for side in (AGENT, TEAM):
            self._returns[side] += self._rewards[side]
        np.not_equal(first, ONGOING, out=self._terminated)
        np.copyto(self._ended, self._terminated)
        self._ended_games = self._no_games
        self._truncated.fill(False)
        self._landed, self._agent = agents, landed
        self._read(landed, uniforms, 1)
        if self.filter is not None:
            self.filter.advance(actions)
            self.filter.weigh(self.readings)
        self._phase = GHOST
        self._observe(self._waiting, self._terminated)
        return BatchedStep(dict(self._obs), dict(self._rewards), self._terminated, self._truncated,
                           self._no_games, self._no_finals)

    def _ghost_half(self, actions: np.ndarray) -> BatchedStep:
        agents, ghosts = self._agent, self._ghosts
        moved = self._team_moves(ghosts, actions)
        second = halfturn.team_lands(agents, moved)
        self._agent_pay[Side.GHOST].take(second, out=self._rewards[AGENT])
        self._rewards[TEAM][...] = self._credited(Side.GHOST, agents, moved, second)
        terminated = self._terminated
        np.not_equal(second, ONGOING, out=terminated)
        # the games that ended in the agent's half: the team does not move, nothing is paid
        episode.ghost_half_after_end(self._ended, ghosts, moved, (self._rewards[AGENT], self._rewards[TEAM]),
                                     terminated, inplace=True)
        self._ghosts, self._moved = moved, ghosts
        for side in (AGENT, TEAM):
            self._returns[side] += self._rewards[side]
        episode.count_cycles(self._steps, episode.next_mover(episode.GHOST_TO_MOVE), out=self._steps)
        self._truncate(terminated, self._truncated)
        self._phase = AGENT
        self._ended.fill(False)
        return self._finish(terminated, self._truncated)

    def _finish(self, terminated: np.ndarray, truncated: np.ndarray) -> BatchedStep:
        """Auto-reset the games that ended (same-step mode; next-step mode marks them for the
        next call) and gather the observations."""
        done = episode.resets_now(terminated | truncated)
        final_games, finals = self._no_games, self._no_finals
        two_sides = self.controlled is None
        if self.autoreset_mode == "same_step":
            final_games = np.flatnonzero(done)
            self._ended_games = final_games
            if len(final_games):
                self._ended_positions = (self._agent[final_games], self._ghosts[final_games])
                self._ended_lengths = self._steps[final_games]
                self._ended_returns = {side: self._returns[side][final_games] for side in self._rewards_of()}
                ended, waiting = terminated[final_games], self._waiting[final_games]
                finals = {side: self._team_gather(side, self._agent[final_games], self._ghosts[final_games],
                                                  self._base[final_games], games=final_games,
                                                  not_to_move=waiting if two_sides and side == TEAM else ended)
                          for side in self._sides}
                self._reset_rows(final_games)
            self._observe(None, self._waiting if two_sides else None)
        else:
            self._restart = np.flatnonzero(done)
            self._observe(terminated, terminated)
        return BatchedStep(dict(self._obs), {side: self._rewards[side] for side in self._rewards_of()},
                           terminated, truncated, final_games, finals)

    def _rewards_of(self) -> tuple[str, ...]:
        return self._sides

    # -- resets ------------------------------------------------------------------------------------
    def _place(self, rows: np.ndarray, uniforms: np.ndarray,
               cells: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray | None:
        """Put games ``rows`` at the start of a new episode, from their columns of ``uniforms``
        (row 0 the opening slip, row 1 the random opening move): a level drawn per game; for a
        learning team, after the opponent agent's opening move. Returns the maps drawn (``None``
        with one map), for the filter."""
        starts = len(self._agent_starts)
        maps = self._rng.integers(starts, size=len(rows)) if starts > 1 else np.zeros(len(rows), np.int64)  # type: ignore[union-attr]
        base = maps * self.num_cells
        agents, ghosts = self._agent_starts[maps], self._ghost_starts[maps]
        if cells is not None:
            agents, ghosts = cells[0] + base, cells[1] + base[:, None]
        if self.controlled == TEAM:  # the opening move
            opening = self._agent_answer(agents, ghosts, base, uniforms[1])
            agents = self._agent_moves(agents, opening, uniforms[0], np.empty(len(rows), dtype=np.int64))
        self._agent[rows], self._ghosts[rows], self._base[rows] = agents, ghosts, base
        self._steps[rows] = 0
        if self._draw_readings:
            self._read(agents, uniforms, self._sensor_row, rows)
        return maps if starts > 1 else None

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
        """Gather every observing side's observations from the games' positions; ``*_waits``:
        where that side is not to move (a grid's ``to_move``), ``None`` for nowhere."""
        for side in self._sides:
            self._team_gather(side, self._agent, self._ghosts, self._base, out=self._obs[side],
                              not_to_move=agent_waits if side == AGENT else ghost_waits)

    # -- what the games are at ---------------------------------------------------------------------
    def _cells(self, ended: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """New arrays of the global cells of the agents ``[N]`` and the ghosts ``[N, k]`` of the
        games now, or with ``ended`` of the games that ended in the last call, at their end."""
        return self._ended_positions if ended else (self._agent.copy(), self._ghosts.copy())

    def export_tables(self) -> Any:
        """Refused: a team's games are computed from positions, not played from tables.

        Raises:
            UnsupportedSetting: always.
        """
        raise UnsupportedSetting("a team's batched games (ghosts >= 2) are computed from positions; there are no "
                                 "turn tables to export")


COMPUTED_PATH.append(PositionGame)
