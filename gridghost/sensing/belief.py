"""What every belief filter of :mod:`gridghost.sensing.filters` shares: the motion model read from
the game kernel (:func:`transitions`, :func:`motion_matrices`), the filters' limits and defaults,
and the :class:`BeliefFilter` base class (the episode's calls, the readings' likelihoods, the estimate).
"""

from __future__ import annotations

import operator
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gridghost.core.checks import check_instance
from gridghost.core.game import Game
from gridghost.core.layout import Layout
from gridghost.core.rules import read_only
from gridghost.core.slip import SlipModel
from gridghost.sensing.sensors import Sensor, make_sensors

#: Filter names accepted by :func:`make_filter` (and the envs' ``belief_filter``).
FILTER_TYPES: tuple[str, ...] = ("particle", "histogram")
DEFAULT_NUM_PARTICLES = 200
#: The particle filter resamples when the effective sample size drops below this share of the
#: particles.
DEFAULT_RESAMPLE_THRESHOLD = 0.5

Seed = int | np.random.SeedSequence | None
#: The exact filter keeps dense transition matrices up to this many cells.
_DENSE_CELLS = 256
#: At most this many distinct readings' likelihoods are cached per filter, and at most
#: :data:`_CACHE_BYTES` of them (a likelihood holds one float per cell).
_MAX_CACHED = 4096
_CACHE_BYTES = 16 * 2**20
#: The most particles a filter keeps (the filter holds counts per cell, but :attr:`ParticleFilter.particles`
#: lists every particle).
MAX_PARTICLES = 10_000_000


def transitions(layout: Layout, slip: SlipModel) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """The agent's motion model, per action, as the game kernel states it (:attr:`Game.outcomes`).

    Returns:
        For each action ``a``, ``(probabilities, destinations)``: ``probabilities[k]`` is the
        probability of the slip model's outcome ``k`` and ``destinations[k, cell]`` the cell that
        outcome leads to from ``cell`` (row-major cell indices); both read-only.
    """
    return Game(layout, slip).outcomes


def motion_matrices(motion: Sequence[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """The motion model as one dense matrix per action: ``matrices[a, i, j] = p(j | i, a)``, so
    that a belief (a row, or a batch of rows) times ``matrices[a]`` is carried through ``a``.

    Args:
        motion: :func:`transitions`' form, per action ``(probabilities, destinations)``.

    Returns:
        ``float64[actions, cells, cells]``.
    """
    cells = motion[0][1].shape[1]
    matrices = np.zeros((len(motion), cells, cells))
    for action, (probabilities, destinations) in enumerate(motion):
        for p, to in zip(probabilities, destinations, strict=True):
            np.add.at(matrices[action], (np.arange(cells), to), p)
    return matrices


def checked_likelihood(sensor: Sensor, reading: Any) -> np.ndarray:
    """``sensor.likelihood(reading)``, flat in the layout's cell order.

    Args:
        sensor: a sensor bound to its layout.
        reading: one of its readings.

    Returns:
        ``float64[rows * cols]``.

    Raises:
        TypeError: the likelihood is not an array of the layout's shape ``(rows, cols)``: another
            shape of the same size (a transposed or flat map) is refused, never reshaped, since
            reading it in the layout's order would give every cell another cell's likelihood.
    """
    likelihood = np.asarray(sensor.likelihood(reading), dtype=float)
    shape = sensor.layout.shape if sensor.layout is not None else None
    if likelihood.shape != shape:
        raise TypeError(f"sensor {sensor!r}: likelihood({reading!r}) must return an array of the layout's shape "
                        f"{shape} (rows, cols), got an array of shape {likelihood.shape}")
    return likelihood.ravel()


class BeliefFilter:
    """What every belief filter does; :class:`HistogramFilter` and :class:`ParticleFilter` are
    the two shipped.

    Args:
        layout: the map.
        slip: the agent's slip model (the env's ``slip``).
        sensors: the sensors whose readings :meth:`update` takes; each reads its measurement from
            the mapping under the sensor's ``name``. May be empty (dead reckoning).

    Raises:
        TypeError, ValueError: ``layout`` is not a Layout, ``slip`` not a SlipModel, or
            ``sensors`` not Sensor objects measuring ``layout`` under distinct keys.
    """

    def __init__(self, layout: Layout, slip: SlipModel, sensors: Sequence[Sensor]) -> None:
        check_instance(layout, "layout", Layout)
        check_instance(slip, "slip", SlipModel)
        if sensors is None:
            # make_sensors would read None as "the default colour sensor": a new object that no
            # env measures with.
            raise TypeError(
                "sensors must be a sequence of the sensors the filter reads (an env's env.sensors), got None"
            )
        self.layout = layout
        self.slip = slip
        self.sensors: tuple[Sensor, ...] = make_sensors(layout, sensors)
        self.num_cells = layout.rows * layout.cols
        # (row, col) of every cell, by row-major index
        self._positions = tuple(divmod(cell, layout.cols) for cell in range(self.num_cells))
        # (row, col, 1) of every cell: one product gives the belief's mean position and its total
        self._moments = np.column_stack((*np.divmod(np.arange(self.num_cells), layout.cols), np.ones(self.num_cells)))
        self._motion = transitions(layout, slip)
        # Small maps carry a belief through a move with one dense matrix product; larger ones
        # with a bincount per slip outcome.
        self._matrices = tuple(motion_matrices(self._motion)) if self.num_cells <= _DENSE_CELLS else None
        self._names = tuple(sensor.name for sensor in self.sensors)
        # reads the readings, in sensor order, from a mapping at C speed (a tuple from two names on)
        self._read = operator.itemgetter(*self._names) if self._names else None
        self._one_sensor = len(self._names) == 1
        # ((reading, ...), (its type, ...)) -> the product of the sensors' likelihoods, flat and
        # read-only
        self._likelihoods: dict[tuple[tuple[Any, ...], tuple[type, ...]], np.ndarray] = {}
        self._max_cached = max(1, min(_MAX_CACHED, _CACHE_BYTES // (8 * self.num_cells)))

    def _carry(self, weights: np.ndarray, action: int) -> np.ndarray:
        """Cell weights carried exactly through the motion model of ``action``:
        ``out(j) = sum_i weights(i) p(j | i, action)``."""
        if self._matrices is not None:
            return weights.dot(self._matrices[action])  # .dot: a fraction of the cost of @ on small arrays
        probabilities, destinations = self._motion[action]
        moved = np.zeros(self.num_cells)
        for p, to in zip(probabilities, destinations, strict=True):
            moved += p * np.bincount(to, weights=weights, minlength=self.num_cells)
        return moved

    def reset(self, seed: Seed = None) -> None:
        """Start an episode: the belief becomes uniform over every cell of the layout."""
        raise NotImplementedError(f"{type(self).__name__} must define reset(seed)")

    def predict(self, action: int) -> None:
        """Carry the belief through the agent's intended ``action`` and the slip model."""
        raise NotImplementedError(f"{type(self).__name__} must define predict(action)")

    def update(self, measurements: Mapping[str, Any]) -> None:
        """Weigh the belief by the readings in ``measurements`` (a step's ``info`` works)."""
        raise NotImplementedError(f"{type(self).__name__} must define update(measurements)")

    def _summary(self) -> tuple[np.ndarray, float, float, float]:
        """The belief as a flat array over cells, up to a positive factor (the filter's own array:
        callers must not change it), with its sums (see :meth:`_summarise`)."""
        raise NotImplementedError(f"{type(self).__name__} must define _summary()")

    def _summarise(self, weights: np.ndarray) -> tuple[np.ndarray, float, float, float]:
        """``(weights, sum of weight x row, sum of weight x col, total weight)``."""
        row, col, total = weights.dot(self._moments).tolist()
        return weights, row, col, total

    def belief(self) -> np.ndarray:
        """The probability of each cell, a fresh ``rows x cols`` float array summing to 1."""
        weights, _, _, total = self._summary()
        return (weights / total).reshape(self.layout.shape)

    def estimate(self) -> dict[str, list[Any]]:
        """The reference's ``estimated_pos``: ``{"float_pos": [row, col], "cell_pos": [row, col]}``.

        ``float_pos`` is the belief's mean position (floats); ``cell_pos`` the most probable cell
        (ints; the first in row-major order on a tie).
        """
        weights, row, col, total = self._summary()
        return {
            "float_pos": [row / total, col / total],
            "cell_pos": list(self._positions[weights.argmax()]),
        }

    def _likelihood(self, measurements: Mapping[str, Any]) -> np.ndarray | None:
        """The product of the sensors' likelihoods for ``measurements``, flat; ``None`` without
        sensors.

        Raises:
            TypeError: ``measurements`` is not a mapping, or a sensor's likelihood is not a map of
                the layout's shape (:func:`checked_likelihood`).
            ValueError: a sensor's key is missing, or its reading is not one it can give.
        """
        read = self._read
        if read is None:
            return None
        if type(measurements) is not dict and not isinstance(measurements, Mapping):  # dict: spare the ABC check
            raise TypeError(f"measurements must be a mapping of sensor readings, got {measurements!r}")
        try:
            key = (read(measurements),) if self._one_sensor else read(measurements)
        except KeyError:
            missing = [name for name in self._names if name not in measurements]
            raise ValueError(f"measurements lack the reading of {missing} (this filter reads {list(self._names)})") \
                from None
        # The types are part of the key: True == 1, but a sensor may accept one and refuse the other.
        cache_key = (key, tuple(map(type, key)))
        try:
            return self._likelihoods[cache_key]
        except KeyError:
            pass
        except TypeError:  # an unhashable reading: compute it every time
            return self._product(key)
        product = self._product(key)
        if len(self._likelihoods) < self._max_cached:  # a sensor with continuous readings fills no memory
            self._likelihoods[cache_key] = product
        return product

    def _readings(self, measurements: Mapping[str, Any]) -> dict[str, Any]:
        """The readings this filter reads, for error messages."""
        return {name: measurements.get(name) for name in self._names}

    def claim(self, owner: object) -> None:
        """Mark the filter as kept in step by ``owner`` (an env): one filter follows one game.

        Raises:
            ValueError: another owner that is still alive keeps it in step already.
        """
        current = self.__dict__.get("_owner")
        holder = None if current is None else current()
        if holder is not None and holder is not owner:
            raise ValueError(
                f"belief_filter {self!r} is already kept in step by another env, which would move it too; "
                "build one filter per env (or pass 'histogram' or 'particle')"
            )
        self._owner = weakref.ref(owner)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_likelihoods"] = {}  # a cache: rebuilt on use
        state.pop("_owner", None)  # a copy belongs to whoever copies it (a copied env)
        return state

    def _product(self, readings: tuple[Any, ...]) -> np.ndarray:
        product = np.ones(self.num_cells)
        for sensor, reading in zip(self.sensors, readings, strict=True):
            product *= checked_likelihood(sensor, reading)
        return read_only(product)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(layout={self.layout.name!r}, slip={self.slip!r}, sensors={list(self._names)})"

