"""Belief filters: where the agent probably is, from its moves and its sensors' readings.

A filter is built from the layout, the slip model and the sensors it reads, and follows one
episode: :meth:`~BeliefFilter.reset` (the belief becomes uniform over every cell of the layout),
then :meth:`~BeliefFilter.update` with the readings taken at the start, then
:meth:`~BeliefFilter.predict` and :meth:`~BeliefFilter.update` after every agent move.
:meth:`~BeliefFilter.belief` is a ``rows x cols`` probability map and
:meth:`~BeliefFilter.estimate` the reference's ``estimated_pos``.

The motion model is the slip model's own outcome table (:meth:`~gridghost.slip.SlipModel.outcomes`)
carried through the layout's walls by the rules' movement table
(:attr:`~gridghost.rules.Board.next_cell`); the measurement model is each sensor's
:meth:`~gridghost.sensors.Sensor.likelihood`. Nothing of either is written again here.

- :class:`HistogramFilter`: the exact Bayes filter over all cells.
- :class:`ParticleFilter`: a vectorised particle filter with systematic resampling, seeded.

>>> from gridghost.layout import CLASSIC
>>> from gridghost.sensors import ColorSensor
>>> from gridghost.slip import LongitudinalSlip
>>> exact = HistogramFilter(CLASSIC, LongitudinalSlip(0.2), [ColorSensor(CLASSIC, 0.8)])
>>> exact.update({"color_measurement": 0})     # read white
>>> exact.estimate()["cell_pos"]
[0, 2]
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gridghost.layout import Layout
from gridghost.rules import NUM_ACTIONS, board_for, check_action
from gridghost.sensors import Sensor, make_sensors
from gridghost.slip import SlipModel, check_probability

#: Filter names accepted by :func:`make_filter` (and the envs' ``belief_filter``).
FILTER_TYPES: tuple[str, ...] = ("particle", "histogram")
DEFAULT_NUM_PARTICLES = 200
#: The particle filter resamples when the effective sample size drops below this share of the
#: particles.
DEFAULT_RESAMPLE_THRESHOLD = 0.5

Seed = int | np.random.SeedSequence | None
_BLOCK_UNIFORMS = 1 << 16
_FIRST_BLOCK_STEPS = 4
#: Particle weights are renormalised when their sum falls below this.
_UNDERFLOW_GUARD = 1e-150


def transitions(layout: Layout, slip: SlipModel) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """The agent's motion model, per action: the slip model's outcomes carried through the walls.

    Returns:
        For each action ``a``, ``(probabilities, destinations)``: ``probabilities[k]`` is the
        probability of the slip model's outcome ``k`` and ``destinations[k, cell]`` the cell that
        outcome leads to from ``cell`` (row-major cell indices).
    """
    next_cell = board_for(layout).next_cell
    table = []
    for action in range(NUM_ACTIONS):
        outcomes = slip.outcomes(action)
        destinations = np.arange(len(next_cell))[None, :].repeat(len(outcomes), axis=0)
        for k, (_, moves) in enumerate(outcomes):
            for move in moves:
                destinations[k] = [next_cell[cell][move] for cell in destinations[k]]
        destinations.setflags(write=False)
        table.append((np.array([p for p, _ in outcomes]), destinations))
    return tuple(table)


def _check_seed(seed: object) -> Seed:
    if seed is None or isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise TypeError(f"seed must be None, an int >= 0 or a numpy SeedSequence, got {seed!r}")
    return int(seed)


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
        if not isinstance(layout, Layout):
            raise TypeError(f"layout must be a gridghost.Layout, got {layout!r}")
        if not isinstance(slip, SlipModel):
            raise TypeError(f"slip must be a gridghost SlipModel (the env's .slip), got {slip!r}")
        self.layout = layout
        self.slip = slip
        self.sensors: tuple[Sensor, ...] = make_sensors(layout, sensors)
        self.num_cells = layout.rows * layout.cols
        rows, cols = np.divmod(np.arange(self.num_cells), layout.cols)
        self._rows, self._cols = rows.astype(float), cols.astype(float)
        self._motion = transitions(layout, slip)
        self._names = tuple(sensor.name for sensor in self.sensors)
        # (measurement, ...) -> the product of the sensors' likelihoods, flat and read-only
        self._likelihoods: dict[tuple[Any, ...], np.ndarray] = {}

    def reset(self, seed: Seed = None) -> None:
        """Start an episode: the belief becomes uniform over every cell of the layout."""
        raise NotImplementedError(f"{type(self).__name__} must define reset(seed)")

    def predict(self, action: int) -> None:
        """Carry the belief through the agent's intended ``action`` and the slip model."""
        raise NotImplementedError(f"{type(self).__name__} must define predict(action)")

    def update(self, measurements: Mapping[str, Any]) -> None:
        """Weigh the belief by the readings in ``measurements`` (a step's ``info`` works)."""
        raise NotImplementedError(f"{type(self).__name__} must define update(measurements)")

    def _cell_weights(self) -> np.ndarray:
        """The belief as a flat array over cells."""
        raise NotImplementedError(f"{type(self).__name__} must define _cell_weights()")

    def belief(self) -> np.ndarray:
        """The probability of each cell, a fresh ``rows x cols`` float array summing to 1."""
        return self._cell_weights().reshape(self.layout.shape)

    def estimate(self) -> dict[str, list[Any]]:
        """The reference's ``estimated_pos``: ``{"float_pos": [row, col], "cell_pos": [row, col]}``.

        ``float_pos`` is the belief's mean position (floats); ``cell_pos`` the most probable cell
        (ints; the first in row-major order on a tie).
        """
        weights = self._cell_weights()
        best = int(np.argmax(weights))
        return {
            "float_pos": [float(weights @ self._rows), float(weights @ self._cols)],
            "cell_pos": list(divmod(best, self.layout.cols)),
        }

    def _likelihood(self, measurements: Mapping[str, Any]) -> np.ndarray | None:
        """The product of the sensors' likelihoods for ``measurements``, flat; ``None`` without
        sensors.

        Raises:
            TypeError: ``measurements`` is not a mapping.
            ValueError: a sensor's key is missing, or its reading is not one it can give.
        """
        if not self._names:
            return None
        if not isinstance(measurements, Mapping):
            raise TypeError(f"measurements must be a mapping of sensor readings, got {measurements!r}")
        try:
            key = tuple([measurements[name] for name in self._names])
        except KeyError:
            missing = [name for name in self._names if name not in measurements]
            raise ValueError(f"measurements lack the reading of {missing} (this filter reads {list(self._names)})") \
                from None
        try:
            return self._likelihoods[key]
        except KeyError:
            pass
        except TypeError:  # an unhashable reading: compute it every time
            return self._product(key)
        product = self._likelihoods[key] = self._product(key)
        return product

    def _product(self, readings: tuple[Any, ...]) -> np.ndarray:
        product = np.ones(self.num_cells)
        for sensor, reading in zip(self.sensors, readings, strict=True):
            product *= np.asarray(sensor.likelihood(reading), dtype=float).ravel()
        product.setflags(write=False)
        return product

    def __repr__(self) -> str:
        return f"{type(self).__name__}(layout={self.layout.name!r}, slip={self.slip!r}, sensors={list(self._names)})"


class HistogramFilter(BeliefFilter):
    """The exact Bayes filter: a probability for every cell, carried through the motion model and
    weighed by every reading. Its belief is the true posterior of the agent's cell given the
    moves and readings since :meth:`reset`. Draws nothing random.

    Args: as :class:`BeliefFilter`.
    """

    def __init__(self, layout: Layout, slip: SlipModel, sensors: Sequence[Sensor]) -> None:
        super().__init__(layout, slip, sensors)
        self.reset()

    def reset(self, seed: Seed = None) -> None:
        """Make the belief uniform. ``seed`` is accepted for the common interface and unused.

        Raises:
            TypeError: ``seed`` is not None, an int >= 0 or a SeedSequence.
        """
        _check_seed(seed)
        self._belief = np.full(self.num_cells, 1.0 / self.num_cells)

    def predict(self, action: int) -> None:
        """``belief'(j) = sum_i belief(i) p(j | i, action)``.

        Raises:
            TypeError, ValueError: ``action`` is not an int in 0..3.
        """
        probabilities, destinations = self._motion[check_action(action, "agent")]
        belief = self._belief
        moved = np.zeros(self.num_cells)
        for p, to in zip(probabilities, destinations, strict=True):
            moved += p * np.bincount(to, weights=belief, minlength=self.num_cells)
        self._belief = moved

    def update(self, measurements: Mapping[str, Any]) -> None:
        """``belief'(i) ∝ belief(i) * prod_s p(reading_s | i)``.

        Raises:
            TypeError, ValueError: as :meth:`BeliefFilter._likelihood`; ValueError also when the
                readings are impossible under the current belief (then nothing changes).
        """
        likelihood = self._likelihood(measurements)
        if likelihood is None:
            return
        weighted = self._belief * likelihood
        total = weighted.sum()
        if not total > 0:
            raise ValueError(f"the readings {dict(measurements)!r} have probability 0 under the current belief")
        self._belief = weighted / total

    def _cell_weights(self) -> np.ndarray:
        return self._belief.copy()


class ParticleFilter(BeliefFilter):
    """A particle filter, vectorised over particles with NumPy (no Python loop over them).

    Each particle is a cell. :meth:`predict` draws one slip outcome per particle from the slip
    model's table (one uniform each); :meth:`update` weighs the particles by the readings'
    likelihood and resamples them systematically (one uniform) when the effective sample size
    ``1 / sum(w**2)`` drops below ``resample_threshold * num_particles``. If every particle is
    ruled out by a reading, the particles are drawn afresh from that reading's likelihood over
    all cells. All draws come from the filter's own generator, seeded by ``seed``.

    Args:
        layout, slip, sensors: as :class:`BeliefFilter`.
        num_particles: how many particles, an int >= 1.
        seed: seeds the filter's generator (``None``: fresh entropy); :meth:`reset` can reseed it.
        resample_threshold: the share of ``num_particles`` below which the effective sample size
            triggers resampling, in [0, 1] (0 never resamples, 1 resamples at every reading).

    Raises:
        TypeError, ValueError: as :class:`BeliefFilter`; ``num_particles`` not an int >= 1; a
            bad ``seed`` or ``resample_threshold``.
    """

    num_particles: int
    resample_threshold: float
    _min_ess: float
    _destinations: tuple[np.ndarray, ...]
    _threshold_lists: list[tuple[float, ...]]
    _threshold_of: tuple[int, ...]
    _max_block_steps: int
    _offsets: np.ndarray
    _ones: np.ndarray
    _rng: np.random.Generator

    def __init__(
        self,
        layout: Layout,
        slip: SlipModel,
        sensors: Sequence[Sensor],
        num_particles: int = DEFAULT_NUM_PARTICLES,
        seed: Seed = None,
        resample_threshold: float = DEFAULT_RESAMPLE_THRESHOLD,
    ) -> None:
        super().__init__(layout, slip, sensors)
        if isinstance(num_particles, bool) or not isinstance(num_particles, numbers.Integral):
            raise TypeError(f"num_particles must be an int >= 1, got {num_particles!r}")
        if num_particles < 1:
            raise ValueError(f"num_particles must be an int >= 1, got {num_particles}")
        n = self.num_particles = int(num_particles)
        self.resample_threshold = check_probability(resample_threshold, "resample_threshold")
        self._min_ess = self.resample_threshold * n
        # Per action: the destination of (outcome, cell) at flat index outcome * num_cells + cell,
        # and which distinct list of outcome thresholds (cumulative probabilities but the last)
        # it draws its outcomes with; the shipped slip models share one list across actions.
        self._destinations = tuple(destinations.ravel() for _, destinations in self._motion)
        thresholds = [tuple(np.cumsum(probabilities)[:-1].tolist()) for probabilities, _ in self._motion]
        self._threshold_lists = list(dict.fromkeys(thresholds))
        self._threshold_of = tuple(self._threshold_lists.index(t) for t in thresholds)
        # Uniforms are drawn in blocks of whole predict steps and turned into flat outcome
        # offsets (outcome * num_cells) per threshold list at once: one generator call and a few
        # array operations per block instead of per step. Blocks start small after a reset (an
        # episode may be short) and double up to about _BLOCK_UNIFORMS uniforms; the schedule
        # depends only on the calls made, so the same seed gives the same particles.
        self._max_block_steps = max(1, _BLOCK_UNIFORMS // n)
        self._offsets = np.arange(n, dtype=float)
        self._ones = np.ones(n)
        self._ones.setflags(write=False)  # shared as the weights after each resampling
        self._rng = np.random.default_rng(_check_seed(seed))
        self.reset()

    @property
    def particles(self) -> np.ndarray:
        """The particles' cells as ``(row, col)`` pairs, a fresh ``num_particles x 2`` int array."""
        return np.stack(np.divmod(self._particles, self.layout.cols), axis=1)

    @property
    def weights(self) -> np.ndarray:
        """The particles' normalised weights, a fresh array."""
        return self._weights / self._weights.sum()

    def reset(self, seed: Seed = None) -> None:
        """Spread the particles uniformly at random over the cells, with equal weights.

        Args:
            seed: reseeds the filter's generator; ``None`` continues its stream.

        Raises:
            TypeError: ``seed`` is not None, an int >= 0 or a SeedSequence.
        """
        seed = _check_seed(seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._particles = self._rng.integers(self.num_cells, size=self.num_particles)
        # Unnormalised: update() keeps the sums it needs and normalises only against underflow.
        self._weights = self._ones
        self._block: tuple[np.ndarray, ...] = ()
        self._block_steps = self._step_in_block = 0
        self._next_block_steps = min(_FIRST_BLOCK_STEPS, self._max_block_steps)

    def _draw_block(self) -> None:
        self._block_steps = steps = self._next_block_steps
        self._next_block_steps = min(2 * steps, self._max_block_steps)
        uniforms = self._rng.random(steps * self.num_particles)
        blocks = []
        for thresholds in self._threshold_lists:
            outcome = np.zeros(uniforms.shape, dtype=np.intp)
            for threshold in thresholds:
                outcome += uniforms >= threshold
            blocks.append(outcome * self.num_cells)
        self._block = tuple(blocks)
        self._step_in_block = 0

    def predict(self, action: int) -> None:
        """Move every particle by an outcome drawn from the slip model for ``action`` (one uniform
        per particle, even when only one outcome is possible).

        Raises:
            TypeError, ValueError: ``action`` is not an int in 0..3 (nothing changes).
        """
        if type(action) is not int or not 0 <= action < NUM_ACTIONS:
            action = check_action(action, "agent")
        if self._step_in_block == self._block_steps:
            self._draw_block()
        start = self._step_in_block * self.num_particles
        self._step_in_block += 1
        offsets = self._block[self._threshold_of[action]][start : start + self.num_particles]
        self._particles = self._destinations[action].take(offsets + self._particles)

    def update(self, measurements: Mapping[str, Any]) -> None:
        """Weigh the particles by the readings and resample them when too few carry the weight.

        Raises:
            TypeError, ValueError: as :meth:`BeliefFilter._likelihood`; ValueError also when a
                reading has probability 0 in every cell (then nothing changes).
        """
        likelihood = self._likelihood(measurements)
        if likelihood is None:
            return
        weights = self._weights * likelihood[self._particles]
        total = weights.sum()
        if not total > 0:
            self._redraw_from(likelihood, measurements)
            return
        self._weights = weights
        if total * total < self._min_ess * (weights @ weights):  # effective sample size below the bar
            self._resample()
        elif total < _UNDERFLOW_GUARD:
            weights /= total

    def _resample(self) -> None:
        """Systematic resampling: one uniform, ``num_particles`` evenly spaced pointers."""
        n = self.num_particles
        cumulative = np.cumsum(self._weights)
        cumulative *= n / cumulative[-1]
        cumulative[-1] = np.inf  # no pointer (all < n) can fall past the last particle by rounding
        chosen = np.searchsorted(cumulative, self._offsets + self._rng.random(), side="right")
        self._particles = self._particles.take(chosen)
        self._weights = self._ones

    def _redraw_from(self, likelihood: np.ndarray, measurements: Mapping[str, Any]) -> None:
        total = likelihood.sum()
        if not total > 0:
            raise ValueError(f"the readings {dict(measurements)!r} have probability 0 in every cell")
        cumulative = np.cumsum(likelihood)
        draws = np.searchsorted(cumulative, self._rng.random(self.num_particles) * cumulative[-1], side="right")
        self._particles = np.minimum(draws, self.num_cells - 1)
        self._weights = self._ones

    def _cell_weights(self) -> np.ndarray:
        weights = np.bincount(self._particles, weights=self._weights, minlength=self.num_cells)
        return weights / weights.sum()

    def __repr__(self) -> str:
        return f"{super().__repr__()[:-1]}, num_particles={self.num_particles})"


def make_filter(
    kind: str | BeliefFilter,
    layout: Layout,
    slip: SlipModel,
    sensors: Sequence[Sensor],
    num_particles: int = DEFAULT_NUM_PARTICLES,
) -> BeliefFilter:
    """Resolve the envs' ``belief_filter`` keyword.

    Args:
        kind: ``"particle"``, ``"histogram"`` (exact), or a filter built by the caller, which must
            follow the env's layout and slip model and read only sensors the env measures.
        layout, slip, sensors: the env's.
        num_particles: for ``"particle"``.

    Returns:
        The filter.

    Raises:
        TypeError: ``kind`` is neither a name nor a :class:`BeliefFilter`.
        ValueError: an unknown name, or a filter built for another layout or slip model or reading
            a sensor the env does not have.
    """
    if isinstance(kind, BeliefFilter):
        if kind.layout != layout:
            raise ValueError(f"belief_filter follows {kind.layout!r}, not the env's {layout!r}")
        if kind.slip != slip:
            raise ValueError(f"belief_filter predicts with {kind.slip!r}, but the env's slip model is {slip!r}")
        measured = {sensor.name for sensor in sensors}
        unread = [sensor.name for sensor in kind.sensors if sensor.name not in measured]
        if unread:
            raise ValueError(f"belief_filter reads {unread}, which no sensor of the env measures: {sorted(measured)}")
        return kind
    if not isinstance(kind, str):
        raise TypeError(f"belief_filter must be one of {list(FILTER_TYPES)} or a BeliefFilter, got {kind!r}")
    if kind == "particle":
        return ParticleFilter(layout, slip, sensors, num_particles)
    if kind == "histogram":
        return HistogramFilter(layout, slip, sensors)
    raise ValueError(f"unknown belief_filter {kind!r}; accepted: {list(FILTER_TYPES)} or a BeliefFilter")
