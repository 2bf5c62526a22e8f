"""Belief filters: where the agent probably is, from its moves and its sensors' readings.

A filter is built from the layout, the slip model and the sensors it reads, and follows one
episode: :meth:`~BeliefFilter.reset` (the belief becomes uniform over every cell of the layout),
then :meth:`~BeliefFilter.update` with the readings taken at the start, then
:meth:`~BeliefFilter.predict` and :meth:`~BeliefFilter.update` after every agent move.
:meth:`~BeliefFilter.belief` is a ``rows x cols`` probability map and
:meth:`~BeliefFilter.estimate` the reference's ``estimated_pos``.

The motion model is the game kernel's (:attr:`gridghost.core.game.Game.outcomes`: each slip outcome's
probability and the cell it leads to from every cell); the measurement model is each sensor's
:meth:`~gridghost.sensing.sensors.Sensor.likelihood`. Nothing of either is written again here.

- :class:`HistogramFilter`: the exact Bayes filter over all cells.
- :class:`ParticleFilter`: a particle filter kept as counts per cell, with systematic splitting
  and resampling, seeded.

>>> from gridghost.core.layout import CLASSIC
>>> from gridghost.sensing.sensors import ColorSensor
>>> from gridghost.core.slip import LongitudinalSlip
>>> exact = HistogramFilter(CLASSIC, LongitudinalSlip(0.2), [ColorSensor(CLASSIC, 0.8)])
>>> exact.update({"color_measurement": 0})     # read white
>>> exact.estimate()["cell_pos"]
[0, 2]
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gridghost.core.checks import check_action, check_instance, check_limit, check_probability, check_seed
from gridghost.core.game import Game
from gridghost.core.layout import Layout
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
#: The particle filter moves its particles with one dense matrix per action up to this many cells.
_DENSE_SPLIT_CELLS = 64
#: At most this many distinct readings' likelihoods are cached per filter, and at most
#: :data:`_CACHE_BYTES` of them (a likelihood holds one float per cell).
_MAX_CACHED = 4096
_CACHE_BYTES = 16 * 2**20
#: The most particles a filter keeps (the filter holds counts per cell, but :attr:`ParticleFilter.particles`
#: lists every particle).
MAX_PARTICLES = 10_000_000
#: Particle weights are renormalised when their sum falls below this.
_UNDERFLOW_GUARD = 1e-150


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
        # (row, col, 1) of every cell: one product gives the belief's mean position and its total
        # (row, col) of every cell, by row-major index
        self._positions = tuple(divmod(cell, layout.cols) for cell in range(self.num_cells))
        self._moments = np.column_stack((*np.divmod(np.arange(self.num_cells), layout.cols), np.ones(self.num_cells)))
        self._motion = transitions(layout, slip)
        # Small maps carry a belief through a move with one dense matrix product; larger ones
        # with a bincount per slip outcome.
        self._matrices: tuple[np.ndarray, ...] | None = None
        if self.num_cells <= _DENSE_CELLS:
            self._matrices = tuple(motion_matrices(self._motion))
        self._names = tuple(sensor.name for sensor in self.sensors)
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
            TypeError: ``measurements`` is not a mapping.
            ValueError: a sensor's key is missing, or its reading is not one it can give.
        """
        if not self._names:
            return None
        if type(measurements) is not dict and not isinstance(measurements, Mapping):  # dict: spare the ABC check
            raise TypeError(f"measurements must be a mapping of sensor readings, got {measurements!r}")
        try:
            key = tuple([measurements[name] for name in self._names])
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
        check_seed(seed, allow_sequence=True)
        self._belief = np.full(self.num_cells, 1.0 / self.num_cells)

    def predict(self, action: int) -> None:
        """``belief'(j) = sum_i belief(i) p(j | i, action)``.

        Raises:
            TypeError, ValueError: ``action`` is not an int in 0..3.
        """
        action = check_action(action, "agent")
        self._belief = self._carry(self._belief, action)

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
            raise ValueError(
                f"the readings {self._readings(measurements)!r} have probability 0 under the current belief"
            )
        self._belief = weighted / total

    def _summary(self) -> tuple[np.ndarray, float, float, float]:
        return self._summarise(self._belief)


class ParticleFilter(BeliefFilter):
    """A particle filter that keeps its particles as counts per cell, so that a step costs
    O(cells x slip outcomes) whatever the number of particles.

    Particles in one cell are exchangeable, so the filter holds how many particles each cell has
    and the total weight they carry; a particle's weight is its cell's share of that total.
    :meth:`reset` spreads the particles evenly over the cells (the remainder at distinct random
    cells). :meth:`predict` splits each cell's particles between the slip model's outcomes by
    systematic sampling: with ``n`` particles in a cell and one uniform ``u`` for it, the points
    ``(u + i) / n`` fall into the outcomes' shares of [0, 1), so each particle's outcome has
    exactly the slip model's distribution while the cell's particles split between the outcomes
    in proportions within one particle of the probabilities. :meth:`update` weighs the particles
    by the readings' likelihood and resamples them systematically (one uniform) when the
    effective sample size ``1 / sum(w**2)`` drops below ``resample_threshold * num_particles``.
    If every particle is ruled out by a reading, the particles are drawn afresh (systematically)
    from that reading's likelihood over all cells. All draws come from the filter's own
    generator, seeded by ``seed``.

    :meth:`belief` (and so :meth:`estimate`) is the particles' belief carried exactly through
    the last move, rather than the histogram of the moved particles (see :meth:`_summary`);
    it is computed once per step. With 200 particles on the classic map its most probable cell
    is right nearly as often as the exact filter's (``benchmarks/filter_accuracy.py``).

    Args:
        layout, slip, sensors: as :class:`BeliefFilter`.
        num_particles: how many particles, an int in 1..:data:`MAX_PARTICLES`.
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
    _bounds: tuple[np.ndarray, ...]
    _spread: tuple[np.ndarray, ...]
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
        n = self.num_particles = check_limit(num_particles, "num_particles", allow_none=False, maximum=MAX_PARTICLES)
        self.resample_threshold = check_probability(resample_threshold, "resample_threshold")
        self._min_ess = self.resample_threshold * n
        # Per action: the outcomes' running probabilities (the upper bounds of their shares of
        # [0, 1), the last one 1) beside a column of -1, so that one product with the rows
        # (counts, uniforms) gives bound x count - uniform; and how the running counts reach
        # the cells (see _move).
        self._bounds = tuple(np.column_stack((np.cumsum(p), -np.ones(len(p)))) for p, _ in self._motion)
        self._spread = tuple(self._spread_table(destinations) for _, destinations in self._motion)
        self._ones = np.ones(self.num_cells)
        self._ones.setflags(write=False)  # every particle's weight after a resampling
        self._points = np.empty((2, self.num_cells))
        self._rng = np.random.default_rng(check_seed(seed, allow_sequence=True))
        self.reset()

    @property
    def particles(self) -> np.ndarray:
        """The particles' cells as ``(row, col)`` pairs, a fresh ``num_particles x 2`` int array:
        each cell repeated as many times as it holds particles, in row-major cell order."""
        cells = np.repeat(np.arange(self.num_cells), self._counts.astype(np.int64))
        return np.stack(np.divmod(cells, self.layout.cols), axis=1)

    @property
    def weights(self) -> np.ndarray:
        """The normalised weights of :attr:`particles`, in the same order, a fresh array."""
        weights = np.repeat(self._weight, self._counts.astype(np.int64))
        return weights / weights.sum()

    def reset(self, seed: Seed = None) -> None:
        """Spread the particles evenly over the cells (the remainder at distinct random cells),
        with equal weights.

        Args:
            seed: reseeds the filter's generator; ``None`` continues its stream.

        Raises:
            TypeError: ``seed`` is not None, an int >= 0 or a SeedSequence.
        """
        seed = check_seed(seed, allow_sequence=True)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        n, cells = self.num_particles, self.num_cells
        counts = np.full(cells, float(n // cells))
        counts[self._rng.choice(cells, size=n % cells, replace=False)] += 1.0
        self._resampled(counts)
        self._prior: tuple[np.ndarray, int] | None = None  # None: uniform
        self._evidence: np.ndarray | None = None

    def _resampled(self, counts: np.ndarray) -> None:
        """Take ``counts`` particles per cell, each of weight 1."""
        # _counts, _weight (each particle's weight, by cell) and _mass (their product) are
        # unnormalised: update() keeps the sums it needs and normalises only against underflow.
        self._counts = self._mass = counts
        self._weight = self._ones
        self._carried: tuple[np.ndarray, float, float, float] | None = None

    def predict(self, action: int) -> None:
        """Split every cell's particles between the slip model's outcomes for ``action`` and move
        them there (one uniform per cell, none when only one outcome is possible; see the class
        docstring).

        Raises:
            TypeError, ValueError: ``action`` is not an int in 0..3 (nothing changes).
        """
        action = check_action(action, "agent")
        counts = self._counts
        self._prior, self._evidence, self._carried = (self._mass, action), None, None
        bounds = self._bounds[action]
        below = counts[None]
        if len(bounds) > 1:
            # below[k, cell]: how many of the cell's points (u + i) / n fall below the k-th
            # running probability, ceil(running probability x n - u)
            points = self._points  # a scratch buffer: bounds.dot makes a fresh array
            points[0] = counts
            self._rng.random(out=points[1])
            below = bounds.dot(points)
            np.ceil(below, out=below)
        self._counts = counts = self._move(below, action)
        if self._weight is self._ones:  # all of weight 1, as after a resampling
            self._mass = counts
        else:
            self._mass = mass = self._move(below * self._weight, action)  # each particle carries its weight
            self._weight = mass / np.maximum(counts, 1.0)

    def _spread_table(self, destinations: np.ndarray) -> np.ndarray:
        """What :meth:`_move` reads for one action whose outcomes lead to ``destinations``
        (``[outcome, cell]``): on small maps a matrix that sends the running count of outcomes
        ``0..k`` at a cell to ``+1`` at outcome ``k``'s destination and ``-1`` at outcome
        ``k + 1``'s, so that one product adds up each outcome's share; on larger ones the
        destinations, flat."""
        outcomes, cells = destinations.shape
        if cells > _DENSE_SPLIT_CELLS:
            return destinations.ravel()
        spread = np.zeros((outcomes * cells, cells))
        rows = np.arange(outcomes * cells)
        spread[rows, destinations.ravel()] = 1.0
        spread[rows[:-cells], destinations[1:].ravel()] -= 1.0
        spread.setflags(write=False)
        return spread

    def _move(self, below: np.ndarray, action: int) -> np.ndarray:
        """Per cell, the sum of ``below[k + 1, cell] - below[k, cell]`` (``below[0]`` read as 0)
        over every ``(k, cell)`` whose outcome ``k`` of ``action`` leads there."""
        spread = self._spread[action]
        if spread.ndim == 2:
            return below.ravel().dot(spread)
        return np.bincount(spread, np.diff(below, axis=0, prepend=0.0).ravel(), self.num_cells)

    def update(self, measurements: Mapping[str, Any]) -> None:
        """Weigh the particles by the readings and resample them when too few carry the weight.

        Raises:
            TypeError, ValueError: as :meth:`BeliefFilter._likelihood`; ValueError also when a
                reading has probability 0 in every cell (then nothing changes).
        """
        likelihood = self._likelihood(measurements)
        if likelihood is None:
            return
        weight = self._weight * likelihood
        mass = self._mass * likelihood
        total = mass.dot(self._ones)
        if not total > 0:
            self._redraw_from(likelihood, measurements)
            return
        self._evidence = likelihood if self._evidence is None else self._evidence * likelihood
        self._weight, self._mass, self._carried = weight, mass, None
        if total * total < self._min_ess * mass.dot(weight):  # effective sample size below the bar
            self._resampled(self._systematic(mass))
        elif total < _UNDERFLOW_GUARD:
            weight /= total
            mass /= total

    def _systematic(self, weights: np.ndarray) -> np.ndarray:
        """Particles per cell drawn by systematic resampling from ``weights`` (a positive total):
        one uniform, ``num_particles`` evenly spaced pointers."""
        n = self.num_particles
        below = np.zeros(len(weights) + 1)  # below[i]: pointers below the cells before i
        weights.cumsum(out=below[1:])
        below *= n / below[-1]
        np.minimum(below, n, out=below)  # rounding must not carry a running sum past n
        below[-1] = n
        below -= self._rng.random()
        np.ceil(below, out=below)
        return below[1:] - below[:-1]

    def _redraw_from(self, likelihood: np.ndarray, measurements: Mapping[str, Any]) -> None:
        if not likelihood.any():
            raise ValueError(f"the readings {self._readings(measurements)!r} have probability 0 in every cell")
        self._resampled(self._systematic(likelihood))
        # as if the belief had been uniform before this reading
        self._prior, self._evidence = None, likelihood

    def _summary(self) -> tuple[np.ndarray, float, float, float]:
        """The belief, Rao-Blackwellised over the last move: the particles' weight from before
        the last predict, carried through the exact motion model, times the likelihood of every
        reading since. It spares the estimate the noise of the last move's split; without a
        predict since the reset it is exact (a uniform prior times the readings). Computed once
        per change of the particles and shared by :meth:`belief` and :meth:`estimate`."""
        if self._carried is not None:
            return self._carried
        mixture: np.ndarray
        if self._prior is None:
            mixture = np.ones(self.num_cells)
        else:
            mass, action = self._prior
            mixture = self._carry(mass, action)
        if self._evidence is not None:
            mixture *= self._evidence
        summary = self._summarise(mixture)
        if not summary[3] > 0:
            # cannot happen with readings the particles survived; the particles' own histogram then
            summary = self._summarise(self._mass)
        self._carried = summary
        return summary

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state["_carried"] = None  # a cache: rebuilt on use
        return state

    def __repr__(self) -> str:
        return f"{super().__repr__()[:-1]}, num_particles={self.num_particles})"


def make_filter(
    kind: str | Mapping[str, Any] | BeliefFilter,
    layout: Layout,
    slip: SlipModel,
    sensors: Sequence[Sensor],
    num_particles: int = DEFAULT_NUM_PARTICLES,
) -> BeliefFilter:
    """Resolve the envs' ``belief_filter`` keyword.

    Args:
        kind: ``"particle"``, ``"histogram"`` (exact), a spec dict as :func:`filter_spec` writes
            it, or a filter built by the caller, which must follow the env's layout and slip model
            and read only sensors the env measures.
        layout, slip, sensors: the env's; a filter passed in must read sensor objects from
            ``sensors`` itself, not look-alikes.
        num_particles: for ``"particle"``.

    Returns:
        The filter.

    Raises:
        TypeError: ``kind`` is neither a name, a spec nor a :class:`BeliefFilter`, or a spec of
            the wrong form.
        ValueError: an unknown name, spec sensor indices out of range, or a filter built for
            another layout or slip model or reading a sensor the env does not have.
    """
    if isinstance(kind, Mapping):
        return _filter_from_spec(kind, layout, slip, sensors)
    if isinstance(kind, BeliefFilter):
        if kind.layout != layout:
            raise ValueError(f"belief_filter follows {kind.layout!r}, not the env's {layout!r}")
        if kind.slip != slip:
            raise ValueError(
                f"belief_filter predicts with {kind.slip!r}, another motion model than the env's {slip!r} "
                "(their outcome tables differ); build the filter with the env's slip model"
            )
        # The very objects: a sensor of the same name but another noise model would make the
        # filter's likelihoods wrong, or fail mid-step on a reading it thinks impossible.
        foreign = [sensor for sensor in kind.sensors if not any(sensor is own for own in sensors)]
        if foreign:
            raise ValueError(
                f"belief_filter reads {foreign}, which are not the env's sensors {list(sensors)}; "
                "build the filter with the env's own sensor objects (env.sensors)"
            )
        return kind
    check_filter_kind(kind)
    if kind == "particle":
        return ParticleFilter(layout, slip, sensors, num_particles)
    return HistogramFilter(layout, slip, sensors)


def check_filter_kind(kind: Any) -> None:
    """Check the form of a ``belief_filter`` setting before any map is built: a filter name, a
    spec dict (its contents are checked against the sensors when the filter is built) or a filter.

    Raises:
        TypeError: ``kind`` is none of these.
        ValueError: an unknown name.
    """
    if isinstance(kind, (Mapping, BeliefFilter)):
        return
    if not isinstance(kind, str):
        raise TypeError(f"belief_filter must be one of {list(FILTER_TYPES)} or a BeliefFilter, got {kind!r}")
    if kind not in FILTER_TYPES:
        raise ValueError(f"unknown belief_filter {kind!r}; accepted: {list(FILTER_TYPES)} or a BeliefFilter")


def filter_spec(
    belief_filter: BeliefFilter | str | None, sensors: Sequence[Sensor]
) -> str | dict[str, Any] | BeliefFilter | None:
    """The spec :attr:`GameConfig.belief_filter` holds for an env's filter: the name or ``None``
    as given, a dict for a shipped filter object, and the object itself for any other filter
    (a custom one, which :meth:`GameConfig.to_dict` then refuses to write).

    Args:
        belief_filter: ``None``, a filter name, or a filter the env was given.
        sensors: the env's sensors (a filter reads some of them).
    """
    if belief_filter is None or isinstance(belief_filter, str):
        return belief_filter
    read = [next(i for i, own in enumerate(sensors) if own is sensor) for sensor in belief_filter.sensors]
    if type(belief_filter) is HistogramFilter:
        return {"type": "histogram", "sensors": read}
    if type(belief_filter) is ParticleFilter:
        return {"type": "particle", "num_particles": belief_filter.num_particles,
                "resample_threshold": belief_filter.resample_threshold, "sensors": read}
    return belief_filter


def _filter_from_spec(
    spec: Mapping[str, Any], layout: Layout, slip: SlipModel, sensors: Sequence[Sensor]
) -> BeliefFilter:
    """Build the filter a dict spec describes, reading the given sensors by index.

    Raises:
        TypeError, ValueError: a spec of the wrong form, an unknown type, or sensor indices out of
            range.
    """
    forms = {"histogram": {"type", "sensors"}, "particle": {"type", "sensors", "num_particles", "resample_threshold"}}
    kind = spec.get("type")
    if kind not in forms or not {"type", "sensors"} <= set(spec) <= forms[kind]:
        raise TypeError(f"a belief_filter spec must be one of {forms} (num_particles and resample_threshold "
                        f"optional), got {dict(spec)!r}")
    indices = spec["sensors"]
    if not isinstance(indices, Sequence) or not all(
        isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(sensors) for i in indices
    ):
        raise ValueError(f"belief_filter spec 'sensors' must be indices 0..{len(sensors) - 1}, got {indices!r}")
    read = [sensors[i] for i in indices]
    if kind == "histogram":
        return HistogramFilter(layout, slip, read)
    return ParticleFilter(layout, slip, read, spec.get("num_particles", DEFAULT_NUM_PARTICLES),
                          resample_threshold=spec.get("resample_threshold", DEFAULT_RESAMPLE_THRESHOLD))
