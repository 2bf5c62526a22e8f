"""The batched engine's table builder: every table a step of
:class:`~gridghost.batched.engine.BatchedGame` reads, folded once per map from the game kernel and
stacked (the module docstring of :mod:`gridghost.batched.engine` says what they hold), measured
against the memory budgets of :mod:`gridghost.batched.limits` before they are made, and exported
for the engines on other array libraries (:class:`EngineTables`), by :class:`TableBuilder`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from gridghost.batched.filter import BatchedHistogramFilter, filter_game_bytes
from gridghost.batched.grids import GridPlanes, encoder_bytes, gather_bytes, grid_bytes
from gridghost.batched.limits import (
    MAP_PART_BYTES,
    TABLE_ENTRY_BYTES,
    UnsupportedSetting,
    check_buffers,
    tables_refused,
)
from gridghost.batched.tables import (
    ONGOING,
    SensorTables,
    all_maps,
    half_turns,
    observation_table,
    opponent_table,
    sensor_tables,
    slip_bounds,
)
from gridghost.config.opponents import DEFAULT_OPPONENTS
from gridghost.config.parts import MapParts, build_encoder, build_map_parts
from gridghost.config.settings import GameConfig
from gridghost.core import episode
from gridghost.core.game import Game
from gridghost.core.layout import Layout
from gridghost.core.names import AGENT, AGENTS, GHOST
from gridghost.core.rules import NUM_ACTIONS, Side, read_only
from gridghost.core.slip import SlipModel
from gridghost.maps.levels import MapGenerator


class EngineTables(NamedTuple):
    """Everything a step of :class:`BatchedGame` reads, as read-only NumPy arrays
    (:meth:`BatchedGame.export_tables`): for engines on other array libraries (``gridghost.jax``)
    that play the same tables instead of writing the rules again. States are numbered
    ``map * cells**2 + agent cell * cells + ghost cell``, cells ``map * cells + cell``.

    Attributes:
        controlled: the learning side, ``"agent"``, ``"ghost"`` or ``None`` (both).
        num_maps, num_cells: the maps stacked, and the cells of one.
        k: the slip outcomes per move; a move's outcome is the number of ``bounds[action]`` a
            uniform reaches.
        b: 4 with a random opponent (its action drawn as one more index), else 1.
        bounds: ``float64[4, k - 1]``, the running slip probabilities per action (``inf`` padded).
        turns: the folded turn tables. One learner: ``"next"``, ``"reward"``, ``"terminated"``,
            flat by ``((state * 4 + action) * b + opponent's action) * k + slip outcome``. Two
            learners: ``"agent_next"``, ``"agent_outcome"``, ``"agent_rewards"`` (``[2, ...]``, the
            agent's and the ghost's) by ``(state * 4 + action) * k + slip outcome``, and
            ``"ghost_next"``, ``"ghost_outcome"``, ``"ghost_rewards"`` by ``state * 4 + action``.
        start: ``int64[maps]``, each map's first state.
        opening: a learning ghost alone: the state after the agent's opening move, flat by
            ``(map * b + agent action) * k + slip outcome``; else ``None``.
        opening_reward: what a learning ghost's first step adds for that move (else 0).
        observations: per observing side, ``float32[flags * states, ...]``: the observation of
            each state, ``flags`` = 2 when it differs with the observer not to move (rows
            ``states..`` then); absent for ``"grid"``.
        grids: per observing side with ``obs_type="grid"``, :meth:`GridPlanes.export`.
        masks: ``int8[maps * cells, 4]``, the moves that change each cell.
        goals: ``bool[maps * cells]``; goal_anywhere: ``bool[cells]``, a goal of some map.
        max_cycles, max_episode_steps: the limits, as the engine applies them.
    """

    controlled: str | None
    num_maps: int
    num_cells: int
    k: int
    b: int
    bounds: np.ndarray
    turns: dict[str, np.ndarray]
    start: np.ndarray
    opening: np.ndarray | None
    opening_reward: float
    observations: dict[str, np.ndarray]
    grids: dict[str, dict[str, Any]]
    masks: np.ndarray
    goals: np.ndarray
    goal_anywhere: np.ndarray
    max_cycles: int | None
    max_episode_steps: int | None


class TableBuilder:
    """The tables of :class:`~gridghost.batched.engine.BatchedGame` (a part of it: the engine
    inherits this class). :meth:`_build` reads the engine's resolved settings (the attributes
    annotated below, set by the constructor first) and sets every table, the maps, the sensors,
    the filter and the observation space."""

    # read: the engine's settings, resolved by its constructor before it calls _build
    num_games: int
    controlled: str | None
    obs_type: str
    config: GameConfig
    table_bytes: int
    generator: MapGenerator | None
    slip: SlipModel
    max_cycles: int | None
    max_episode_steps: int | None

    # -- construction ----------------------------------------------------------------------------
    def _build(self, opponent: Any, belief_filter: str | None, first: Layout, count: int) -> None:
        """Every table, per map, stacked (see the module docstring): the ``count`` maps from
        ``first`` on, measured against the budget from the first before the others are built."""
        cells = first.rows * first.cols
        self.num_cells, self._states = cells, cells * cells
        sides = [Side.AGENT, Side.GHOST] if self.controlled is None else [Side.AGENT if self.controlled == AGENT
                                                                          else Side.GHOST]
        self._sides = tuple(AGENTS[side] for side in sides)
        head = build_map_parts(self.config, first, with_filter=False)
        self._slip_bounds(head.kernel)
        answers = self._answers(opponent, count)
        first_answers = answers(head.kernel)
        self._random_opponent = self.controlled is not None and first_answers is None
        self._b = NUM_ACTIONS if self._random_opponent else 1
        self._sensor_row = 1 + (self._b > 1)  # a step's uniforms: the slip, the opponent's (if any), the readings
        # The belief planes are the engine's own: its space is the encoding's with them.
        space_encoder = head.encoder if self.obs_type != "belief_vector" else build_encoder(
            dataclasses.replace(self.config, obs_type="belief_vector"), head.kernel.board,
            lambda: np.zeros(first.shape))
        self.observation_space = space_encoder.space(sides[0])
        self._spaces = dict.fromkeys(self._sides, self.observation_space)  # each observing side's
        estimate = self._table_bytes(count, first.rows, first.cols, self._k, self._b, sides)
        if estimate > self.table_bytes:  # refused before any other map is built
            raise tables_refused(f"the batched tables of {count:,} map(s) of {first.rows}x{first.cols} with "
                                 f"obs_type={self.obs_type!r}", estimate, self.table_bytes)
        self.layouts = layouts = all_maps(first, self.generator, count)
        parts = [head, *(build_map_parts(self.config, layout, with_filter=False) for layout in layouts[1:])]
        games = [part.kernel for part in parts]
        self._opening(games)
        self._bind_sensors(parts, belief_filter, int(np.prod(self.observation_space.shape or ())))
        self._fold_turns(games, [first_answers, *(answers(game) for game in games[1:])])
        self._observation_tables(parts, sides)
        self._boards(games)

    def _boards(self, games: list[Game]) -> None:
        """The action masks and goals of every map's cells (a team's kernels' too), stacked."""
        self._masks = np.concatenate([np.array(game.board.action_mask) for game in games]).astype(np.int8)
        self._goals = np.concatenate([np.asarray(game.goals, dtype=bool) for game in games])
        # The cells that are a goal of some map: where reset(starts=...) may not put the agent.
        self._goal_anywhere: np.ndarray = np.logical_or.reduce(self._goals.reshape(len(games), -1), axis=0)

    def _slip_bounds(self, game: Game) -> None:
        """The slip outcomes per move and their running probabilities, from the first map's kernel
        (a team's engine's too)."""
        bounds, sizes = slip_bounds(game)
        self._k = int(sizes.max())
        self._bounds = bounds
        self._same_bounds = bool((bounds == bounds[0]).all())
        if self.controlled not in (None, AGENT) and not self._same_bounds:  # a learning ghost, or team
            raise UnsupportedSetting(f"a learning {'ghost' if self.controlled == GHOST else 'team'}'s opponent agent "
                                     "slips by one uniform per move: the slip model must have the same outcome "
                                     "probabilities for every action")

    def _answers(self, opponent: Any, count: int) -> Callable[[Game], np.ndarray | None]:
        """What gives the opponent's table on a map's kernel (``None``: a random opponent, or none
        with two learners); ``opponent`` as the constructor takes it, for ``count`` maps."""
        opponent_side = None if self.controlled is None else (Side.GHOST if self.controlled == AGENT else Side.AGENT)
        if opponent_side is not None and opponent is None:
            opponent = DEFAULT_OPPONENTS[self.controlled]  # type: ignore[index]  # one learner here
        if isinstance(opponent, np.ndarray) and count > 1:
            raise ValueError("an opponent table belongs to one map, and the games play several; pass a name or a "
                             "StatePolicy class, built for every map")
        return lambda game: None if opponent_side is None else opponent_table(opponent, game, opponent_side)

    def _opening(self, games: list[Game]) -> None:
        """A learning ghost's (or team's) opening: its first step also pays its reward for the
        agent's opening move, played by the reset (which returns no reward), as the single-agent
        view does; and no map may let that move end the game."""
        ghost_learns = self.controlled not in (None, AGENT)
        self._opening_reward = episode.opening_reward(games[0]) if ghost_learns else 0.0
        for game in games if ghost_learns else ():
            if game.opening_can_end():
                raise ValueError(f"controlled={self.controlled!r} needs maps where the agent's opening move cannot "
                                 f"end the game; on {game.layout.name or 'this layout'} it can")

    def _bind_sensors(self, parts: list[MapParts], belief_filter: str | None, size: int) -> None:
        """The sensors and their tables, the per-game buffers (observations of ``size`` floats)
        checked against the budget, and the filter (a team's engine's too)."""
        bound_sensors = [part.sensors for part in parts]
        self.sensors = bound_sensors[0]
        self.sensor_tables: SensorTables = sensor_tables(bound_sensors)
        self._draw_readings = self.controlled in (None, AGENT)  # the agent's readings, where it learns
        per_game = self._game_bytes(size, len(self.sensors), belief_filter is not None)
        layouts = self.layouts
        check_buffers(self.num_games, per_game, f"{len(self._sides)} learning side(s) with obs_type={self.obs_type!r} "
                                                 f"and {self.config.ghosts} ghost(s) on {layouts[0].rows}x"
                                                 f"{layouts[0].cols} maps"
                                                 + (" and the exact filter" if belief_filter is not None else ""))
        self.filter: BatchedHistogramFilter | None = None
        if belief_filter is not None:
            self.filter = BatchedHistogramFilter(layouts, self.slip, self.sensors, self.num_games)

    def _fold_turns(self, games: list[Game], opponents: list[np.ndarray | None]) -> None:
        """The turn tables of every map, folded and stacked, with each map's first state and the
        agent's cell of every state."""
        k, b, cells = self._k, self._b, self.num_cells
        # each map's tables are written into the stacked ones as they are made: the peak is the
        # tables plus one map's temporaries, not twice the tables (as a concatenation would take)
        self._tables: dict[str, np.ndarray] = {}
        starts = np.array([state.agent * cells + state.ghosts[0] for state in map(Game.initial_state, games)])
        for m, (game, opponent) in enumerate(zip(games, opponents, strict=True)):
            half = half_turns(game, k)
            offset = m * self._states
            tables: dict[str, np.ndarray] = {}
            if self.controlled is not None:
                first, tables = self._fold(half, self.controlled, opponent, b, offset)
            if self.controlled == AGENT:  # the global cell where the agent's reading is taken, after its move
                tables["reading"] = (np.broadcast_to(first // cells, (len(first), NUM_ACTIONS, b, k))
                                     + offset // cells).ravel()
            elif self.controlled == GHOST:  # the opening move that reset plays, [agent action, slip outcome]
                opening = np.arange(NUM_ACTIONS) if opponent is None else opponent[starts[[m]]]
                tables["opening"] = (half["agent_next"][starts[m], opening] + offset).ravel()
            else:
                for mover in ("agent", "ghost"):
                    tables[f"{mover}_next"] = half[f"{mover}_next"].ravel() + offset
                    tables[f"{mover}_outcome"] = half[f"{mover}_outcome"].ravel()
                    tables[f"{mover}_rewards"] = half[f"{mover}_rewards"].reshape(2, -1)
            for key, table in tables.items():
                if m == 0:
                    self._tables[key] = np.empty((*table.shape[:-1], table.shape[-1] * len(games)), table.dtype)
                width = table.shape[-1]
                self._tables[key][..., m * width : (m + 1) * width] = table
        self._tables["start"] = np.arange(len(games)) * self._states + starts
        # global state (map * cells**2 + agent * cells + ghost) -> global agent cell (map * cells + agent)
        self._tables["agent_cell"] = np.arange(len(games) * self._states) // cells

    def _observation_tables(self, parts: list[MapParts], sides: list[Side]) -> None:
        """Per observing side, the joint-state observation table (with the belief planes for
        ``"belief_vector"``), or for ``"grid"`` the per-map planes."""
        cells = self.num_cells
        belief_size = cells if self.obs_type == "belief_vector" else 0
        self._observations: dict[str, np.ndarray] = {}
        self._flagged: dict[str, bool] = {}
        self._grids: dict[str, GridPlanes] = {}
        for side in sides:
            if self.obs_type == "grid":  # from positions and per-map planes: no joint-state table
                self._grids[AGENTS[side]] = GridPlanes([part.encoder for part in parts],
                                                       [part.kernel.board for part in parts],
                                                       side, self.config.view_radius,
                                                       self.config.grid_layout == "hwc")
                continue
            planes = np.empty(0, dtype=np.float32)
            for m, part in enumerate(parts):  # written in place, as the turn tables are
                table = observation_table(part.encoder, side, cells)
                if m == 0:
                    planes = np.empty((len(table), len(parts) * self._states, *table.shape[2:]), table.dtype)
                planes[:, m * self._states : (m + 1) * self._states] = table
            self._flagged[AGENTS[side]] = planes.shape[0] == 2
            table = planes.reshape(-1, *planes.shape[2:])
            if belief_size:
                ones = np.zeros((len(table), belief_size), dtype=np.float32)
                if side == Side.GHOST:  # the ghost's exact belief about itself is its own cell, one-hot
                    ones[np.arange(len(table)), np.arange(len(table)) % cells] = 1.0
                table = np.concatenate((table, ones), axis=1)
            self._observations[AGENTS[side]] = np.ascontiguousarray(table)

    def _table_bytes(self, maps: int, rows: int, cols: int, k: int, b: int, sides: list[Side]) -> int:
        """An upper estimate of the bytes the tables take: the folded turn tables'
        :data:`TABLE_ENTRY_BYTES` an entry, and per observing side the observations: the static
        planes of :class:`GridPlanes` for the grid, else the joint-state table (both to-move
        planes, as :func:`observation_table` may keep them)."""
        cells = rows * cols
        states = maps * cells * cells
        entries = states * NUM_ACTIONS * b * k if self.controlled is not None else states * NUM_ACTIONS * (k + 1)
        parts = maps * MAP_PART_BYTES
        if self.obs_type == "grid":
            observations = grid_bytes(maps, rows, cols, self.config.view_radius)
            parts += maps * encoder_bytes(rows, cols, self.config.view_radius)
        else:
            observations = 2 * states * int(np.prod(self.observation_space.shape or ())) * 4
        return entries * TABLE_ENTRY_BYTES + observations * len(sides) + parts

    def _game_bytes(self, observation_size: int, sensors: int, filtered: bool) -> int:
        """An upper estimate of the bytes one game takes in the engine's per-game buffers: its
        state and a step's index arrays, flags, rewards and temporaries; the uniforms of a step
        and of a reset and the readings (per sensor); per observing side the observation buffer,
        the final observations of a same-step reset, the vector env's copy and a gather's
        temporary; the filter's. Checked against tracemalloc's peak over resets and steps."""
        fixed = 160
        if self.obs_type == "grid":
            fixed += len(self._sides) * gather_bytes(self.config.view_radius, self.config.grid_layout == "hwc")
        draws = 8 * (2 * (2 + sensors) + 2 * sensors)
        observations = 4 * 4 * observation_size * len(self._sides)
        return fixed + draws + observations + (filter_game_bytes(self.num_cells) if filtered else 0)

    def _fold(self, half: dict[str, np.ndarray], mover: str, opponent: np.ndarray | None,
              b: int, offset: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """The learning ``mover``'s turn: its move, then the other side's table (or random)
        answer, the agent's with slip, as ``[state, action, opponent action, slip outcome]``
        tables; and the states after the learner's move, ``[state, action, 1, slips]``."""
        side, answerer = (0, GHOST) if mover == AGENT else (1, AGENT)
        first, ended = (half[f"{mover}_{name}"].reshape(-1, NUM_ACTIONS, 1, 1 if side else self._k)
                        for name in ("next", "outcome"))
        answer = np.arange(NUM_ACTIONS)[None, None, :, None] if opponent is None else opponent[first]
        at = (first, answer, np.arange(self._k)[None, None, None, :]) if side else (first, answer)
        second, answered = half[f"{answerer}_next"][at], half[f"{answerer}_outcome"][at]
        over = ended != ONGOING
        reward = (half[f"{mover}_rewards"][side].reshape(first.shape)
                  + np.where(over, 0.0, half[f"{answerer}_rewards"][side][at]))
        shape = (len(first), NUM_ACTIONS, b, self._k)
        return first, {
            "next": (np.broadcast_to(np.where(over, first, second), shape) + offset).ravel(),
            "terminated": np.broadcast_to(over | (answered != ONGOING), shape).ravel(),
            "reward": np.broadcast_to(reward, shape).ravel().astype(np.float64),
        }

    def export_tables(self) -> EngineTables:
        """The tables every step reads (:class:`EngineTables`), read-only views of the engine's
        own: another engine plays them to follow these rules exactly.

        Raises:
            UnsupportedSetting: ``obs_type="belief_vector"``, whose belief comes from the
                engine's filter, not from a table.
        """
        if self.filter is not None:
            raise UnsupportedSetting("the belief of obs_type='belief_vector' is the engine's filter, not a table: "
                                     "export the tables of obs_type='vector' or 'grid'")
        names = ("next", "reward", "terminated", "agent_next", "agent_outcome", "agent_rewards", "ghost_next",
                 "ghost_outcome", "ghost_rewards")
        turns = {key: read_only(self._tables[key].view()) for key in names if key in self._tables}
        opening = self._tables.get("opening")
        return EngineTables(
            controlled=self.controlled, num_maps=len(self.layouts), num_cells=self.num_cells, k=self._k, b=self._b,
            bounds=read_only(self._bounds.view()), turns=turns, start=read_only(self._tables["start"].view()),
            opening=None if opening is None else read_only(opening.view()), opening_reward=float(self._opening_reward),
            observations={side: read_only(table.view()) for side, table in self._observations.items()},
            grids={side: grid.export() for side, grid in self._grids.items()}, masks=read_only(self._masks.view()),
            goals=read_only(self._goals.view()), goal_anywhere=read_only(self._goal_anywhere.view()),
            max_cycles=self.max_cycles, max_episode_steps=self.max_episode_steps)
