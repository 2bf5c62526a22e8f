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

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gridghost.core.checks import check_action, check_limit, check_probability, check_seed
from gridghost.core.layout import Layout
from gridghost.core.slip import SlipModel

# The base class and the particle filter live in belief and particles; their names import from here too.
from gridghost.sensing.belief import (  # noqa: F401
    DEFAULT_NUM_PARTICLES,
    DEFAULT_RESAMPLE_THRESHOLD,
    FILTER_TYPES,
    MAX_PARTICLES,
    BeliefFilter,
    Seed,
    motion_matrices,
    transitions,
)
from gridghost.sensing.particles import ParticleFilter
from gridghost.sensing.sensors import Sensor


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
    kind = check_filter_kind(kind)
    read, threshold = sensors, DEFAULT_RESAMPLE_THRESHOLD
    if isinstance(kind, dict):  # a spec: it reads the sensors by index
        indices = kind["sensors"]
        if not all(i < len(sensors) for i in indices):
            raise ValueError(f"belief_filter spec 'sensors' must be indices 0..{len(sensors) - 1}, got {indices!r}")
        read = [sensors[i] for i in indices]
        num_particles = kind.get("num_particles", DEFAULT_NUM_PARTICLES)
        threshold = kind.get("resample_threshold", threshold)
        kind = kind["type"]
    if kind == "particle":
        return ParticleFilter(layout, slip, read, num_particles, resample_threshold=threshold)
    return HistogramFilter(layout, slip, read)


def check_filter_kind(kind: Any) -> Any:
    """Check the form of a ``belief_filter`` setting before any map is built: a filter name, a
    spec dict (:func:`check_filter_spec`; its sensor indices are checked against the sensors when
    the filter is built) or a filter.

    Returns:
        ``kind``; a spec dict as :func:`check_filter_spec` returns it.

    Raises:
        TypeError: ``kind`` is none of these.
        ValueError: an unknown name, or a spec dict's bad value.
    """
    if isinstance(kind, Mapping):
        return check_filter_spec(kind)
    if isinstance(kind, BeliefFilter):
        return kind
    if not isinstance(kind, str):
        raise TypeError(f"belief_filter must be one of {list(FILTER_TYPES)} or a BeliefFilter, got {kind!r}")
    if kind not in FILTER_TYPES:
        raise ValueError(f"unknown belief_filter {kind!r}; accepted: {list(FILTER_TYPES)} or a BeliefFilter")
    return kind


#: The keys of each filter's spec dict (:func:`filter_spec`'s form), the required ones first.
_SPEC_KEYS = {"histogram": ("type", "sensors"), "particle": ("type", "sensors", "num_particles", "resample_threshold")}


def check_filter_spec(spec: Mapping[str, Any]) -> dict[str, Any]:
    """Check a ``belief_filter`` spec dict (the form :func:`filter_spec` writes) on its own:
    ``{"type": "histogram", "sensors": [indices]}`` or ``{"type": "particle", "sensors":
    [indices], "num_particles": n, "resample_threshold": t}`` (the last two optional).

    Returns:
        A new dict of the same settings, numbers as Python numbers (NumPy ones accepted).

    Raises:
        TypeError: an unknown or missing key, or a value of the wrong type; the message names the key.
        ValueError: a value out of range (a negative index, no particles, a threshold outside [0, 1]).
    """
    kind = spec.get("type")
    if kind not in _SPEC_KEYS:
        raise TypeError(f"a belief_filter spec's 'type' must be one of {list(_SPEC_KEYS)}, got {dict(spec)!r}")
    keys = _SPEC_KEYS[kind]
    unknown, missing = sorted(set(spec) - set(keys), key=str), [key for key in keys[:2] if key not in spec]
    if unknown or missing:
        raise TypeError(f"a {kind} belief_filter spec has the keys {list(keys)} ({', '.join(keys[2:]) or 'none'} "
                        f"optional); got unknown keys {unknown} and missing keys {missing} in {dict(spec)!r}")
    indices = spec["sensors"]
    if isinstance(indices, (str, Mapping)) or not isinstance(indices, Sequence) or not all(
            isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in indices):
        raise TypeError(f"belief_filter spec 'sensors' must be a list of sensor indices (ints), got {indices!r}")
    if any(i < 0 for i in indices):
        raise ValueError(f"belief_filter spec 'sensors' must be sensor indices >= 0, got {indices!r}")
    checked: dict[str, Any] = {"type": kind, "sensors": [int(i) for i in indices]}
    if "num_particles" in spec:
        checked["num_particles"] = check_limit(spec["num_particles"], "belief_filter spec 'num_particles'",
                                               allow_none=False, maximum=MAX_PARTICLES)
    if "resample_threshold" in spec:
        checked["resample_threshold"] = check_probability(spec["resample_threshold"],
                                                          "belief_filter spec 'resample_threshold'")
    return checked


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
    kind = {HistogramFilter: "histogram", ParticleFilter: "particle"}.get(type(belief_filter))
    if kind is None or not isinstance(belief_filter, BeliefFilter):  # None, a name, or a custom filter
        return belief_filter
    read = [next(i for i, own in enumerate(sensors) if own is sensor) for sensor in belief_filter.sensors]
    # the settings of _SPEC_KEYS, read from the filter's attributes of the same names
    return {"type": kind, "sensors": read, **{key: getattr(belief_filter, key) for key in _SPEC_KEYS[kind][2:]}}

