"""The observations and sensor readings of the games of :class:`~gridghost.batched.engine.BatchedGame`,
gathered from the tables :mod:`gridghost.batched.build` made into the engine's buffers.

:class:`Observer` is that part of the engine: :class:`~gridghost.batched.engine.BatchedGame`
inherits it, and its steps and resets call these methods.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gridghost.batched.filter import BatchedHistogramFilter
from gridghost.batched.grids import GridPlanes
from gridghost.batched.tables import SensorTables
from gridghost.core.names import AGENT


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
