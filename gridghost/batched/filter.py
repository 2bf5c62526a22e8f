"""The exact belief filter for N games at once, as arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from gridghost.batched import limits
from gridghost.batched.limits import check_buffers, checked_actions, checked_games
from gridghost.batched.tables import SensorTables, sensor_tables
from gridghost.core.checks import check_instance, check_limit
from gridghost.core.game import Game
from gridghost.core.layout import Layout
from gridghost.core.rules import NUM_ACTIONS
from gridghost.core.slip import SlipModel
from gridghost.sensing.filters import motion_matrices
from gridghost.sensing.sensors import Sensor, make_sensors


def filter_game_bytes(cells: int) -> int:
    """An upper estimate of the bytes one game takes in a :class:`BatchedHistogramFilter`: its map
    index and belief, and a step's temporaries (the belief carried through each of the four
    actions, the reweighted belief and the likelihoods)."""
    return 16 + 8 * cells * (2 + NUM_ACTIONS + 3)


# -- the batched exact filter ------------------------------------------------------------------------
class BatchedHistogramFilter:
    """The exact Bayes filter (:class:`~gridghost.sensing.filters.HistogramFilter`) of N games at once:
    the beliefs are one ``(N, cells)`` array, carried through the motion model by one array
    product per step and weighed by the readings' likelihoods. Games may play different maps of
    one size.

    Args:
        layouts: the map, or the maps the games play (all of one size).
        slip: the agent's slip model.
        sensors: the sensors whose readings :meth:`update` takes (unbound ones are bound to each map).
        num_games: N, an int >= 1.

    Attributes:
        maps: ``int64[N]``, the index into ``layouts`` of each game's map (0 at first); set per
            game with :meth:`reset`.

    Raises:
        TypeError, ValueError: bad layouts (or of different sizes), slip, sensors or ``num_games``
            (more games than :data:`BUFFER_BYTES` holds the beliefs of included).
    """

    def __init__(self, layouts: Layout | Sequence[Layout], slip: SlipModel, sensors: Sequence[Sensor],
                 num_games: int) -> None:
        self.layouts = (layouts,) if isinstance(layouts, Layout) else tuple(layouts)
        if not self.layouts:
            raise ValueError("layouts must hold at least one Layout")
        for layout in self.layouts:
            check_instance(layout, "layouts", Layout)
            if layout.shape != self.layouts[0].shape:
                raise ValueError(f"every map must have one size, got {layout.shape} and {self.layouts[0].shape}")
        check_instance(slip, "slip", SlipModel)
        self.num_games = check_limit(num_games, "num_games", allow_none=False, maximum=limits.MAX_GAMES)
        self.num_cells = self.layouts[0].rows * self.layouts[0].cols
        check_buffers(self.num_games, filter_game_bytes(self.num_cells),
                       f"the exact filter's beliefs on {self.layouts[0].rows}x{self.layouts[0].cols} maps")
        bound = [make_sensors(layout, [sensor.for_layout(layout) for sensor in sensors]) if sensors else ()
                 for layout in self.layouts]
        games = [Game(layout, slip) for layout in self.layouts]
        self._tables = sensor_tables(bound) if sensors else SensorTables((), (), ())
        cells = self.num_cells
        if len(self.layouts) == 1:
            # [cells, action * cells]: one product carries every row through every action
            matrices = motion_matrices(games[0].outcomes)
            self._matrix = np.ascontiguousarray(matrices.transpose(1, 0, 2).reshape(cells, -1))
        else:
            k = max(len(p) for p, _ in games[0].outcomes)
            self._probabilities = np.zeros((NUM_ACTIONS, k))
            self._destinations = np.zeros((len(games), NUM_ACTIONS, k, cells), dtype=np.int64)
            for action, (probabilities, _) in enumerate(games[0].outcomes):
                self._probabilities[action, : len(probabilities)] = probabilities
            for m, game in enumerate(games):
                for action, (probabilities, destinations) in enumerate(game.outcomes):
                    self._destinations[m, action, : len(probabilities)] = destinations
        self.maps = np.zeros(self.num_games, dtype=np.int64)
        self._rows = np.arange(self.num_games)
        self._belief = np.full((self.num_games, cells), 1.0 / cells)

    @property
    def num_readings(self) -> tuple[int, ...]:
        """How many readings each sensor can give (its ``possible_measurements()``)."""
        return self._tables.counts

    def reset(self, games: Any = None, maps: Any = None) -> None:
        """Make the beliefs of ``games`` uniform, on the maps ``maps`` (indices into ``layouts``,
        one per game in the order of ``games``; ``None`` keeps each game's map).

        Args:
            games: ``None`` for all, a bool mask of shape ``(N,)``, or distinct game indices.
            maps: ``None``, or one map index per game reset.

        Raises:
            TypeError, ValueError: ``games`` is no mask nor distinct indices in 0..N-1, or map
                indices out of range or of another length than ``games``.
        """
        rows = self._rows if games is None else checked_games(games, self.num_games)
        if maps is not None:
            indices = np.asarray(maps, dtype=np.int64)
            if indices.shape != rows.shape or (indices.size and not 0 <= indices.min() <= indices.max()
                                                < len(self.layouts)):
                raise ValueError(f"maps must hold one index 0..{len(self.layouts) - 1} per game reset")
            self.maps[rows] = indices
        self._belief[rows] = 1.0 / self.num_cells

    def predict(self, actions: Any) -> None:
        """Carry every belief through its game's intended action and the slip model.

        Raises:
            TypeError, ValueError: ``actions`` is not an int array of shape ``(N,)`` in 0..3.
        """
        self.advance(checked_actions(actions, self.num_games, "actions"))

    def advance(self, actions: np.ndarray) -> None:
        """:meth:`predict` without its checks: ``actions`` is already an ``int64[N]`` array of moves
        (the engine's hot path)."""
        cells = self.num_cells
        if len(self.layouts) == 1:
            carried = (self._belief @ self._matrix).reshape(self.num_games, NUM_ACTIONS, cells)
            self._belief = carried[self._rows, actions]
            return
        moved = np.zeros(self.num_games * cells)
        destinations = self._destinations[self.maps, actions]  # [game, outcome, cell]
        base = self._rows[:, None] * cells
        for k in range(destinations.shape[1]):
            weights = self._belief * self._probabilities[actions, k][:, None]
            moved += np.bincount((base + destinations[:, k]).ravel(), weights.ravel(), len(moved))
        self._belief = moved.reshape(self.num_games, cells)

    def update(self, readings: Any) -> None:
        """Weigh every belief by its game's readings: ``readings[s, n]`` is the index, in sensor
        ``s``'s ``possible_measurements()``, of game ``n``'s reading.

        Raises:
            ValueError: readings of the wrong shape or out of range, or readings that are
                impossible under some game's belief (then nothing changes).
        """
        array = np.asarray(readings)
        expected = (len(self._tables.counts), self.num_games)
        if array.shape != expected or (array.size and not np.issubdtype(array.dtype, np.integer)):
            raise ValueError(f"readings must be an int array of shape (sensors, num_games) = {expected}")
        for s, count in enumerate(self._tables.counts):
            if array[s].size and not 0 <= array[s].min() <= array[s].max() < count:
                raise ValueError(f"readings of sensor {s} must be indices 0..{count - 1}")
        self.weigh(array, check=True)

    def weigh(self, readings: np.ndarray, check: bool = False, games: np.ndarray | None = None) -> None:
        """:meth:`update` of the games ``games`` (all by default), with its checks only when ``check``
        (the engine's readings are in range by construction)."""
        rows = slice(None) if games is None else games
        weighted = self._belief[rows]
        for s, count in enumerate(self._tables.counts):
            weighted = weighted * self._tables.likelihoods[s].take(self.maps[rows] * count + readings[s], axis=0)
        totals = weighted.sum(axis=1, keepdims=True)
        if check and not (totals > 0).all():
            raise ValueError(f"the readings of games {np.flatnonzero(totals[:, 0] <= 0)[:10].tolist()} have "
                             "probability 0 under their beliefs")
        self._belief[rows] = weighted / totals

    @property
    def beliefs(self) -> np.ndarray:
        """Every game's belief, ``float64[N, cells]``: the filter's own array (read it, do not keep
        it; the next call overwrites it)."""
        return self._belief

    def belief(self) -> np.ndarray:
        """The beliefs, a fresh ``float64[N, rows, cols]`` array (each game's sums to 1)."""
        return self._belief.reshape(self.num_games, *self.layouts[0].shape).copy()
