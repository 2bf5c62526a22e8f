"""The observations and sensor readings of the games of :class:`~gridghost.batched.engine.BatchedGame`
(:class:`Observer`), gathered from the tables :mod:`gridghost.batched.build` made into the engine's
buffers, and a team's from the games' positions (:class:`PositionObserver`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from gridghost.batched.filter import BatchedHistogramFilter
from gridghost.batched.grids import GridPlanes, grid_bytes
from gridghost.batched.limits import UnsupportedSetting, tables_refused
from gridghost.batched.tables import SensorTables
from gridghost.core.names import AGENT
from gridghost.core.rules import Side
from gridghost.sensing.encoding import VECTOR_SLOTS, _others

#: The learning team's side name (its actions are ``int[N, k]``).
TEAM = "ghosts"
#: The slots of one other in a ``"vector"`` observation (offset row, offset column, distance).
PAIR_SLOTS = 3


class Observer:
    """The readings and observations of :class:`~gridghost.batched.engine.BatchedGame` (a part of
    it: the engine inherits this class and keeps the tables and buffers it reads, annotated below)."""

    num_cells: int
    readings: np.ndarray
    sensor_tables: SensorTables
    filter: BatchedHistogramFilter | None
    _states: int
    _state: np.ndarray
    _bools: np.ndarray
    _sides: tuple[str, ...]
    _obs: dict[str, np.ndarray]
    _grids: dict[str, GridPlanes]
    _observations: dict[str, np.ndarray]
    _flagged: dict[str, bool]

    def _read(self, cells: np.ndarray, uniforms: np.ndarray, first_row: int, rows: Any = None) -> None:
        """Draw every sensor's reading with the agent on ``cells`` (global cells) into
        :attr:`readings` (of the games ``rows``; all by default)."""
        whole = rows is None
        for s, thresholds in enumerate(self.sensor_tables.thresholds):
            uniform = uniforms[first_row + s]
            reading = self.readings[s] if whole else np.zeros(len(cells), dtype=np.int64)
            hit = self._bools if whole else np.empty(len(cells), dtype=bool)
            reading.fill(0)
            for bound in thresholds:
                np.greater_equal(uniform, bound.take(cells, mode="clip"), out=hit)
                reading += hit
            if not whole:
                self.readings[s, rows] = reading

    def _observe(self, agent_waits: np.ndarray | None, ghost_waits: np.ndarray | None) -> None:
        """Gather every observing side's observations of the current states; ``*_waits``: where
        that side is not to move (its opponent's turn, or the game is over), ``None`` for nowhere."""
        for side in self._sides:
            self._gather(side, self._state, agent_waits if side == AGENT else ghost_waits, None, out=self._obs[side])

    def _gather(self, side: str, states: np.ndarray, not_to_move: np.ndarray | None, games: np.ndarray | None,
                out: np.ndarray | None = None) -> np.ndarray:
        """The observations of ``states`` from ``side``: the grid from the positions, or the
        table rows plus the belief."""
        grid = self._grids.get(side)
        if grid is not None:
            maps, local = np.divmod(states, self._states)
            if out is None:
                out = np.empty((len(states), *grid.shape), dtype=np.float32)
            return grid.gather(maps, local, not_to_move, out)
        table = self._observations[side]
        keys = states
        if self._flagged[side] and not_to_move is not None:
            keys = states + not_to_move * (len(table) // 2)
        observations = table.take(keys, axis=0, out=out, mode="clip")  # clip: no checked copy (in range)
        if self.filter is not None and side == AGENT:
            beliefs = self.filter.beliefs if games is None else self.filter.beliefs[games]
            observations[:, -self.num_cells:] = beliefs
        return observations


class PositionObserver(Observer):
    """The ``"vector"`` and ``"grid"`` observations of a team's games gathered from their
    positions (a part of :class:`~gridghost.batched.positions.PositionGame`, which inherits it):
    per observing side, tables read off the single env's team encoder (for the grid, the one-ghost
    engine's :class:`GridPlanes` of the team's encoders), and the gather from positions."""

    ghosts: int
    config: Any
    table_bytes: int
    controlled: str | None
    observation_space: Any
    _spaces: dict[str, Any]

    def _team_observations(self, parts: list[Any], encoders: list[Any]) -> None:
        """Per observing side, its own slots by global cell and an other's by (global cell) *
        cells + the other's local cell, read off each map's team encoder (``encoders``, one per
        map of ``parts``; a belief encoding's with a belief map of zeros, which the filter's
        beliefs replace for the agent, and the ghosts' own cell for a ghost)."""
        cells, k = self.num_cells, self.ghosts
        encoder = encoders[0]
        names = encoder.keys
        ghost = encoder.space(names[1])  # the team's: its ghosts' spaces stacked in ghost order
        self._spaces = {AGENT: encoder.space(AGENT),
                        TEAM: spaces.Box(np.stack([ghost.low] * k), np.stack([ghost.high] * k), dtype=ghost.dtype)}
        self.observation_space = self._spaces[TEAM if self.controlled == TEAM else AGENT]
        self._grids = {}
        if self.config.obs_type == "grid":
            shape = parts[0].kernel.layout.rows, parts[0].kernel.layout.cols
            needed = 2 * (grid_bytes(len(parts), *shape, self.config.view_radius, k) + 3 * 8 * cells * cells)
            if needed > self.table_bytes:
                raise tables_refused(f"the batched team grid planes of {len(parts):,} map(s)", needed, self.table_bytes)
            self._grids = {side: GridPlanes(encoders, [part.kernel.board for part in parts], of,
                                            self.config.view_radius, self.config.grid_layout == "hwc")
                           for side, of in ((AGENT, Side.AGENT), (TEAM, Side.GHOST))}
            return
        size = int(np.prod(self._spaces[AGENT].shape))
        self._own_slots = own = size - PAIR_SLOTS * k - (cells if self.filter is not None else 0)
        if own != len(VECTOR_SLOTS) - PAIR_SLOTS:
            raise UnsupportedSetting("the batched engine serves a team's plain 'vector' and 'belief_vector' "
                                     "observations (no step count)")
        # per side, by (global cell) * cells + the first other's local cell: the whole row with every
        # other there (its first other's slots right; the later others' are written at each gather);
        # and the three slots of an other alone
        self._wide: dict[str, np.ndarray] = {}
        self._pair: dict[str, np.ndarray] = {}
        for side, name in ((AGENT, names[0]), (TEAM, names[1])):
            wide = np.empty((len(parts) * cells * cells, size), dtype=np.float32)
            for m, part in enumerate(parts):
                observe = encoders[m].observer(name)
                start = part.kernel.initial_state()  # a state of the kernel's own type, placed below
                for me in range(cells):
                    for other in range(cells):
                        state = (start._replace(agent=me, ghosts=(other,) * k) if side == AGENT
                                 else start._replace(agent=other, ghosts=(me,) * k))
                        wide[(m * cells + me) * cells + other] = observe(state)
            self._wide[side] = wide
            self._pair[side] = np.ascontiguousarray(wide[:, own : own + PAIR_SLOTS])
        # ghost i's others as columns of (agent, ghost 0, ..., ghost k-1): the agent, then its teammates
        self._others = np.array(_others(k)[1:], dtype=np.int64)

    def _team_gather(self, side: str, agents: np.ndarray, ghosts: np.ndarray, base: np.ndarray,
                     out: np.ndarray | None = None, games: np.ndarray | None = None,
                     not_to_move: np.ndarray | None = None) -> np.ndarray:
        """``side``'s observations of the games at ``agents``, ``ghosts`` on maps ``base``
        (global cells; ``base`` each game's ``map * cells``): of every game, or of ``games``;
        ``not_to_move`` as :meth:`GridPlanes.gather`'s (a ``"vector"`` has no turn flag)."""
        n, k, cells = len(agents), self.ghosts, self.num_cells
        if out is None:
            out = np.empty((n, *(self._spaces[side].shape or ())), dtype=np.float32)
        if side in self._grids:  # the agent marks every ghost; ghost i (a row of n * k) the agent, and in the
            # ghosts plane every ghost (keyed with the teammate in the agent's place)
            grid, maps, agents, ghosts = self._grids[side], base // cells, agents - base, ghosts - base[:, None]
            pairs = agents[:, None] * cells + ghosts  # [n, k]: the agent with each ghost
            if side == AGENT:
                return grid.gather(maps, pairs[:, 0], not_to_move, out, opponents=pairs, ghosts=pairs)
            mates = (ghosts[:, None, :] * cells + ghosts[:, :, None]).reshape(n * k, k)  # [n, observer i, ghost j]
            waits = None if not_to_move is None else np.repeat(not_to_move, k)
            grid.gather(np.repeat(maps, k), pairs.reshape(-1), waits, out.reshape(n * k, *grid.shape), ghosts=mates)
            return out
        lead = self._own_slots + PAIR_SLOTS  # the own slots and the first other's, from the wide row
        end = lead + PAIR_SLOTS * (k - 1)  # then the later others', then the belief map
        if side == AGENT:  # the agent's others: the ghosts in order
            mine = agents * cells - base  # the row of the agent's global cell, less the map's offset of the others
            self._wide[AGENT].take(mine + ghosts[:, 0], axis=0, out=out, mode="clip")
            if k > 1:
                rest = ghosts[:, 1:] + mine[:, None]
                out[:, lead:end] = self._pair[AGENT].take(rest, axis=0, mode="clip").reshape(n, -1)
            if self.filter is not None:
                out[:, end:] = self.filter.beliefs if games is None else self.filter.beliefs[games]
            return out
        # ghost i's others: the agent, then its teammates in order
        mine = np.multiply(ghosts, cells, order="C")  # each ghost's global cell's row; the others come local
        local = np.concatenate(((agents - base)[:, None], ghosts - base[:, None]), axis=1)  # [n, k + 1]
        self._wide[TEAM].take((mine + local[:, :1]).reshape(-1), axis=0, out=out.reshape(n * k, -1), mode="clip")
        if k > 1:
            rest = local[:, self._others[:, 1:]] + mine[:, :, None]  # [n, k, k - 1]
            out[:, :, lead:end] = self._pair[TEAM].take(rest, axis=0, mode="clip").reshape(n, k, -1)
        return out
