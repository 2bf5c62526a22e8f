"""The particle filter of :mod:`gridghost.sensing.filters`: particles kept as counts per cell, with
systematic splitting and resampling, seeded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gridghost.core.checks import check_action, check_limit, check_probability, check_seed
from gridghost.core.layout import Layout
from gridghost.core.names import NUM_ACTIONS
from gridghost.core.rules import read_only
from gridghost.core.slip import SlipModel
from gridghost.sensing.belief import (
    DEFAULT_NUM_PARTICLES,
    DEFAULT_RESAMPLE_THRESHOLD,
    MAX_PARTICLES,
    BeliefFilter,
    Seed,
)
from gridghost.sensing.sensors import Sensor

#: The particle filter moves its particles with one dense matrix per action up to this many cells.
_DENSE_SPLIT_CELLS = 64
#: Particle weights are renormalised when their sum falls below this.
_UNDERFLOW_GUARD = 1e-150


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
        # Per action, (bounds, spread, tiles): the outcomes' running probabilities (the upper
        # bounds of their shares of [0, 1), the last one 1) beside a column of -1, so that one
        # product with the rows (counts, uniforms) gives bound x count - uniform (None when only
        # one outcome is possible); how the running counts reach the cells (see _move); and the
        # cell of each running count, in order, which repeats a per-cell array once per outcome
        # (a product of equal shapes costs a fraction of a broadcast one).
        self._plan = tuple(
            (np.column_stack((np.cumsum(p), -np.ones(len(p)))) if len(p) > 1 else None,
             self._spread_table(destinations), np.tile(np.arange(self.num_cells), len(p)))
            for p, destinations in self._motion
        )
        self._ones = read_only(np.ones(self.num_cells))  # every particle's weight after a resampling
        self._points = np.empty((2, self.num_cells))
        self._float_n = float(n)
        self._rows()
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
        if n % cells:  # a choice of no cells draws nothing: spare the call
            counts[self._rng.choice(cells, size=n % cells, replace=False)] += 1.0
        self._resampled(counts)
        self._prior: tuple[np.ndarray, int] | None = None  # None: uniform
        self._evidence: np.ndarray | None = None

    def _rows(self) -> None:
        """Keep the rows of the scratch buffer :meth:`predict` multiplies: the counts, the uniforms."""
        self._counts_row, self._uniforms = self._points

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        del state["_counts_row"], state["_uniforms"]  # views of _points, which a copy must share
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._rows()

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
        if type(action) is not int or not 0 <= action < NUM_ACTIONS:  # the check's own fast path, inline
            action = check_action(action, "agent")
        counts = self._counts
        self._prior, self._evidence, self._carried = (self._mass, action), None, None
        bounds, spread, tiles = self._plan[action]
        if bounds is None:
            below = counts[None]
        else:
            # below[k, cell]: how many of the cell's points (u + i) / n fall below the k-th
            # running probability, ceil(running probability x n - u)
            self._counts_row[:] = counts  # rows of a scratch buffer: bounds.dot makes a fresh array
            self._rng.random(out=self._uniforms)
            below = bounds.dot(self._points)
            np.ceil(below, out=below)
        weight, dense = self._weight, spread.ndim == 2
        flat = below.ravel()
        # _move's dense product, inline: the hot path
        self._counts = counts = flat.dot(spread) if dense else self._move(below, spread)
        if weight is self._ones:  # all of weight 1, as after a resampling
            self._mass = counts
            return
        # each particle carries its weight
        self._mass = mass = (flat * weight[tiles]).dot(spread) if dense else self._move(below * weight, spread)
        self._weight = mass / np.maximum(counts, self._ones)

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
        return read_only(spread)

    def _move(self, below: np.ndarray, spread: np.ndarray) -> np.ndarray:
        """Per cell, the sum of ``below[k + 1, cell] - below[k, cell]`` (``below[0]`` read as 0)
        over every ``(k, cell)`` whose outcome ``k`` leads there, for an action's ``spread``
        (:meth:`_spread_table`)."""
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
        ones, weight = self._ones, self._weight
        # every weight 1 (after a resampling): the new weights are the likelihood itself (shared
        # and read-only: copied before any change in place below)
        weight = likelihood if weight is ones else weight * likelihood
        mass = self._mass * likelihood
        total = float(mass.dot(ones))  # a Python float: the comparisons below cost less
        if not total > 0:
            self._redraw_from(likelihood, measurements)
            return
        evidence = self._evidence
        self._evidence = likelihood if evidence is None else evidence * likelihood
        self._weight, self._mass, self._carried = weight, mass, None
        if total * total < self._min_ess * float(mass.dot(weight)):  # effective sample size below the bar
            self._resampled(self._systematic(mass))
        elif total < _UNDERFLOW_GUARD:
            self._weight = weight / total
            mass /= total

    def _systematic(self, weights: np.ndarray) -> np.ndarray:
        """Particles per cell drawn by systematic resampling from ``weights`` (a positive total):
        one uniform, ``num_particles`` evenly spaced pointers."""
        n = self._float_n
        below = np.zeros(len(weights) + 1)  # below[i]: pointers below the cells before i
        np.add.accumulate(weights, out=below[1:])  # weights.cumsum, at half the cost on small arrays
        below *= n / float(below[-1])
        # Rounding must not carry a running sum past n; the sums never decrease (the weights are
        # >= 0), so only when the one before last has.
        if below[-2] > n:
            np.minimum(below, n, out=below)
        below[-1] = n
        np.subtract(below, self._rng.random(), out=below)
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
        summary = self._carried
        if summary is not None:
            return summary
        prior, evidence, matrices = self._prior, self._evidence, self._matrices
        mixture: np.ndarray
        if prior is None:
            mixture = np.ones(self.num_cells)
        elif matrices is not None:  # _carry's dense product, inline: the hot path
            mixture = prior[0].dot(matrices[prior[1]])
        else:
            mixture = self._carry(*prior)
        if evidence is not None:
            mixture *= evidence
        row, col, total = mixture.dot(self._moments).tolist()  # _summarise, inline
        if not total > 0:
            # cannot happen with readings the particles survived; the particles' own histogram then
            self._carried = summary = self._summarise(self._mass)
            return summary
        self._carried = summary = (mixture, row, col, total)
        return summary

    def __repr__(self) -> str:
        return f"{super().__repr__()[:-1]}, num_particles={self.num_particles})"

