"""The colour sensor: reference draw order, reading frequencies and likelihoods."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from gridghost.layout import CLASSIC, Layout
from gridghost.rules import GameState, board_for
from gridghost.sensors import ColorSensor, Sensor, make_sensors

BOARD = board_for(CLASSIC)


def reference_measurement(colour: int, q: float, rng: np.random.Generator) -> int:
    """DESIGN.md's RNG contract, written out literally."""
    u = rng.random()
    if u < q:
        return colour
    if u < q + (1 - q) / 2:
        return (colour + 1) % 3
    return (colour + 2) % 3


@pytest.mark.parametrize("quality", [0.0, 0.6, 0.8, 0.95, 1.0])
def test_measurement_follows_the_rng_contract(quality: float) -> None:
    sensor = ColorSensor(CLASSIC, quality)
    ours, theirs = np.random.default_rng(5), np.random.default_rng(5)
    for cell in range(BOARD.num_cells):
        colour = int(CLASSIC.colours.ravel()[cell])
        for _ in range(50):
            assert sensor.measure(GameState(cell, 0), ours) == reference_measurement(colour, quality, theirs)
    assert ours.random() == theirs.random()


def test_reading_frequencies_match_the_quality() -> None:
    sensor = ColorSensor(CLASSIC, 0.7)
    rng = np.random.default_rng(0)
    n = 30_000
    red_cell = BOARD.index((0, 1))
    counts = Counter(sensor.measure(GameState(red_cell, 0), rng) for _ in range(n))
    for colour, p in ((1, 0.7), (2, 0.15), (0, 0.15)):
        assert abs(counts[colour] / n - p) < 4 * math.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("quality", [0.0, 0.5, 0.8, 1.0])
def test_likelihoods_sum_to_one_over_readings_for_every_cell(quality: float) -> None:
    sensor = ColorSensor(CLASSIC, quality)
    total = sum(sensor.likelihood(m) for m in range(3))
    assert total.shape == (4, 5)
    assert np.allclose(total, 1.0)


def test_likelihood_values() -> None:
    like = ColorSensor(CLASSIC, 0.8).likelihood(2)
    assert like[0, 0] == 0.8 and like[1, 1] == 0.8  # green cells
    assert math.isclose(like[0, 1], 0.1) and math.isclose(like[0, 2], 0.1)


@pytest.mark.parametrize("measurement", [3, -1, "red", None, True])
def test_likelihood_of_an_impossible_reading_raises(measurement) -> None:
    with pytest.raises(ValueError, match="colour id"):
        ColorSensor(CLASSIC).likelihood(measurement)


@pytest.mark.parametrize(("quality", "error"), [(1.2, ValueError), (-0.5, ValueError), (float("nan"), ValueError),
                                                ("high", TypeError)])
def test_bad_quality_raises(quality, error) -> None:
    with pytest.raises(error, match="color_sensor_quality"):
        ColorSensor(CLASSIC, quality)


def test_make_sensors() -> None:
    (default,) = make_sensors(CLASSIC)
    assert isinstance(default, ColorSensor) and default.quality == 0.8
    (custom,) = make_sensors(CLASSIC, color_sensor_quality=0.6)
    assert custom.quality == 0.6
    mine = ColorSensor(CLASSIC, 0.9)
    assert make_sensors(CLASSIC, [mine]) == (mine,)
    assert make_sensors(CLASSIC, []) == ()


def test_make_sensors_rejects_bad_combinations() -> None:
    other = Layout(colours=[[0, 1]], goals=[(0, 1)], agent_start=(0, 0), ghost_start=(0, 1))
    with pytest.raises(ValueError, match="color_sensor_quality only applies"):
        make_sensors(CLASSIC, [ColorSensor(CLASSIC)], color_sensor_quality=0.5)
    with pytest.raises(ValueError, match="same info key"):
        make_sensors(CLASSIC, [ColorSensor(CLASSIC), ColorSensor(CLASSIC)])
    with pytest.raises(ValueError, match="not the env's"):
        make_sensors(CLASSIC, [ColorSensor(other)])
    with pytest.raises(TypeError, match="sequence of Sensor"):
        make_sensors(CLASSIC, ColorSensor(CLASSIC))
    with pytest.raises(TypeError, match="must hold Sensor objects"):
        make_sensors(CLASSIC, ["colour"])


def test_the_sensor_interface_names_what_is_missing() -> None:
    class Half(Sensor):
        name = "half"

    with pytest.raises(NotImplementedError, match="measure"):
        Half().measure(GameState(0, 1), np.random.default_rng())
    with pytest.raises(NotImplementedError, match="likelihood"):
        Half().likelihood(0)
