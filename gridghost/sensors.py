"""Sensor models: what the agent measures about its own cell, and how likely each reading is.

A sensor has a :attr:`~Sensor.name`, which is also the ``info`` key its measurement is written
under, :meth:`~Sensor.measure` (draw a reading with a generator) and
:meth:`~Sensor.likelihood` (``p(reading | agent in cell)`` for every cell, a ``rows x cols``
array), so belief filters never need to know which sensor they are reading.

Which generator a sensor draws from: the reference's colour sensor draws from the game's own
generator, in the reference's order (that is what makes the reference traces replay); every other
sensor gets a generator of its own, derived from the reset seed, so adding or removing one never
changes the game's trajectory. :attr:`Sensor.uses_game_rng` says which kind a sensor is.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

import numpy as np

from gridghost.layout import COLOURS, Layout
from gridghost.rules import GameState
from gridghost.slip import check_probability


class Sensor:
    """The interface every sensor implements.

    Attributes:
        name: the ``info`` key the measurement is reported under.
        layout: the layout the sensor measures.
        uses_game_rng: whether the env hands :meth:`measure` its game generator (only the
            reference colour sensor does) or a generator of the sensor's own.
    """

    name: str = "sensor"
    layout: Layout
    uses_game_rng: bool = False

    def measure(self, state: GameState, rng: np.random.Generator) -> Any:
        """Draw a reading of the agent's cell in ``state`` using ``rng``."""
        raise NotImplementedError(f"{type(self).__name__} must define measure(state, rng)")

    def likelihood(self, measurement: Any) -> np.ndarray:
        """``p(measurement | agent in cell)`` for every cell, as a ``rows x cols`` array."""
        raise NotImplementedError(f"{type(self).__name__} must define likelihood(measurement)")


class ColorSensor(Sensor):
    """Reads the colour of the agent's cell: right with probability ``quality``, else one of the
    two other colours with ``(1 - quality) / 2`` each.

    Draws exactly one ``rng.random()`` per reading, as the reference does.

    Args:
        layout: the map whose cell colours are read.
        quality: the probability of reading the true colour, in [0, 1].

    Raises:
        TypeError, ValueError: ``quality`` is not a number in [0, 1].
    """

    name = "color_measurement"
    uses_game_rng = True

    def __init__(self, layout: Layout, quality: float = 0.8) -> None:
        if not isinstance(layout, Layout):
            raise TypeError(f"layout must be a Layout, got {layout!r}")
        self.layout = layout
        self.quality = check_probability(quality, "color_sensor_quality")
        self._colours: tuple[int, ...] = tuple(layout.colours.ravel().tolist())
        # Thresholds on one uniform draw, computed as the reference computes them.
        self._next_colour_below = self.quality + (1.0 - self.quality) / 2

    def measure(self, state: GameState, rng: np.random.Generator) -> int:
        """The colour id read at the agent's cell."""
        colour = self._colours[state.agent]
        u = rng.random()
        if u < self.quality:
            return colour
        if u < self._next_colour_below:
            return (colour + 1) % len(COLOURS)
        return (colour + 2) % len(COLOURS)

    def likelihood(self, measurement: int) -> np.ndarray:
        """``quality`` on cells of the measured colour, ``(1 - quality) / 2`` elsewhere.

        Raises:
            ValueError: ``measurement`` is not a colour id.
        """
        if isinstance(measurement, bool) or measurement not in range(len(COLOURS)):
            raise ValueError(f"measurement must be a colour id 0..{len(COLOURS) - 1}, got {measurement!r}")
        return np.where(self.layout.colours == measurement, self.quality, (1.0 - self.quality) / 2)

    def __repr__(self) -> str:
        return f"ColorSensor(layout={self.layout.name!r}, quality={self.quality})"


def make_sensors(
    layout: Layout,
    sensors: Sequence[Sensor] | None = None,
    color_sensor_quality: float | None = None,
    reserved_names: Collection[str] = (),
) -> tuple[Sensor, ...]:
    """Resolve the envs' sensor keywords.

    Args:
        layout: the env's layout; every sensor must measure this layout.
        sensors: sensor instances, or ``None`` for the colour sensor alone.
        color_sensor_quality: the quality of the default colour sensor (``None`` means 0.8);
            only valid when ``sensors`` is ``None``.
        reserved_names: ``info`` keys the env writes itself, which no sensor may use as its name.

    Returns:
        The sensors, in the order they measure after each agent move.

    Raises:
        TypeError: an entry is not a :class:`Sensor`, or has no name or no layout.
        ValueError: both keywords are given, two sensors share a name, a name is reserved, or a
            sensor measures a different layout.
    """
    if sensors is None:
        return (ColorSensor(layout, 0.8 if color_sensor_quality is None else color_sensor_quality),)
    if color_sensor_quality is not None:
        raise ValueError("color_sensor_quality only applies to the default sensor; sensors were given")
    if isinstance(sensors, Sensor) or not isinstance(sensors, Sequence):
        raise TypeError(f"sensors must be a sequence of Sensor objects, got {sensors!r}")
    names = set()
    for sensor in sensors:
        if not isinstance(sensor, Sensor):
            raise TypeError(f"sensors must hold Sensor objects, got {sensor!r}")
        if not isinstance(sensor.name, str) or not sensor.name:
            raise TypeError(f"sensor {sensor!r} needs a non-empty str name, got {sensor.name!r}")
        if sensor.name in reserved_names:
            raise ValueError(
                f"sensor name {sensor.name!r} is an info key the env writes itself; reserved: {sorted(reserved_names)}"
            )
        if sensor.name in names:
            raise ValueError(f"two sensors report under the same name {sensor.name!r}")
        if not isinstance(getattr(sensor, "layout", None), Layout):
            raise TypeError(f"sensor {sensor!r} must have a layout attribute holding a gridghost.Layout")
        if sensor.layout != layout:
            raise ValueError(f"sensor {sensor!r} measures {sensor.layout!r}, not the env's {layout!r}")
        names.add(sensor.name)
    return tuple(sensors)
