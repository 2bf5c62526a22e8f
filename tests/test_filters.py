"""Belief filters: the exact filter against a brute-force Bayes computation, the particle filter's
convergence and seeding, the sensors' likelihoods, bad input, pickling and particle recovery.

The brute force here is written from docs/game.md alone: its own move rule (walls read from the
layout's edge arrays), its own slip outcomes and its own sensor likelihoods. It shares nothing with
``gridghost.sensing.filters.transitions``, ``Board.next_cell`` or ``SlipModel.outcomes``, so a mistake in
any of them shows up as a disagreement.
"""

from __future__ import annotations

import copy
import itertools
import math
import pickle
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import gridghost
from gridghost.core.game import Game
from gridghost.core.layout import CLASSIC, Layout
from gridghost.core.slip import LongitudinalSlip, NoSlip, PerpendicularSlip, SlipModel
from gridghost.drawing import cell_images
from gridghost.sensing.filters import MAX_PARTICLES, BeliefFilter, HistogramFilter, ParticleFilter, make_filter
from gridghost.sensing.sensors import ClassifierSensor, ColorSensor, ItemSensor, Sensor

from helpers import Gauge

Cell = tuple[int, int]
COLOUR_KEY = "color_measurement"
ITEM_KEY = "cnn_prediction"
LABELS = ("dog", "flower", "background")

# -- the model, from docs/game.md ----------------------------------------------------------------

#: action -> (d_row, d_col): 0 left, 1 down, 2 right, 3 up.
DELTAS = {0: (0, -1), 1: (1, 0), 2: (0, 1), 3: (-1, 0)}
PERP = {0: [1, 3], 1: [0, 2], 2: [1, 3], 3: [0, 2]}

#: A 3x4 map with inner walls on both kinds of edges, no green cell, a dog sharing its cell with a
#: flower, and the cell (2, 0) walled in on every side.
WALLED = Layout(
    name="walled",
    colours=[[0, 1, 0, 1], [1, 0, 0, 1], [0, 1, 1, 0]],
    walls_horizontal=[[0, 1, 0, 1], [1, 0, 0, 0]],
    walls_vertical=[[1, 0, 0], [0, 1, 1], [1, 0, 0]],
    items={(0, 3): ("flower", "dog"), (1, 1): ("two_flowers",), (2, 0): ("flower",), (2, 2): ("one_note",),
           (0, 0): ("two_notes",)},
    goals=[(2, 3)],
    agent_start=(0, 2),
    ghost_start=(0, 0),
)
LAYOUTS = {"classic": CLASSIC, "walled": WALLED}

#: confusion[true, predicted], rows in the order dog, flower, background.
CUSTOM_CONFUSION = [[0.7, 0.2, 0.1], [0.15, 0.6, 0.25], [0.05, 0.15, 0.8]]


def cells_of(layout: Layout) -> list[Cell]:
    return [(r, c) for r in range(layout.rows) for c in range(layout.cols)]


def move(layout: Layout, cell: Cell, action: int) -> Cell:
    """One single move: the neighbour unless the border or a wall on the shared edge blocks it."""
    r, c = cell
    dr, dc = DELTAS[action]
    nr, nc = r + dr, c + dc
    if not (0 <= nr < layout.rows and 0 <= nc < layout.cols):
        return cell
    if dr and layout.walls_horizontal[min(r, nr), c]:
        return cell
    if dc and layout.walls_vertical[r, min(c, nc)]:
        return cell
    return nr, nc


def slip_outcomes(kind: str, p: float, action: int) -> list[tuple[float, tuple[int, ...]]]:
    """``[(probability, moves), ...]`` for an intended action (zero-probability entries kept)."""
    if kind == "none":
        return [(1.0, (action,))]
    if kind == "longitudinal":
        return [(p / 2, ()), (p / 2, (action, action)), (1 - p, (action,))]
    first, second = PERP[action]
    return [(p / 2, (first,)), (p / 2, (second,)), (1 - p, (action,))]


def item_class(layout: Layout, cell: Cell) -> int:
    names = layout.items.get(cell, ())
    if any("dog" in name for name in names):
        return 0
    if any("flower" in name for name in names):
        return 1
    return 2


def label_of(reading: Any) -> str:
    return reading[0] if isinstance(reading, tuple) else reading


@dataclass(frozen=True)
class Model:
    """One sensor as the brute force sees it: the gridghost object, its info key, its readings
    and ``p(reading | cell)``."""

    sensor: Sensor
    key: str
    readings: tuple[Any, ...]
    prob: Callable[[Cell, Any], float]


def colour_model(layout: Layout, q: float) -> Model:
    def prob(cell: Cell, reading: int) -> float:
        return q if layout.colours[cell] == reading else (1 - q) / 2

    return Model(ColorSensor(layout, q), COLOUR_KEY, (0, 1, 2), prob)


def item_model(layout: Layout, confusion: Sequence[Sequence[float]] | None = None,
               accuracy: float | None = None) -> Model:
    if confusion is None:
        acc = 0.9 if accuracy is None else accuracy
        matrix = [[acc if i == j else (1 - acc) / 2 for j in range(3)] for i in range(3)]
        sensor = ItemSensor(layout, accuracy=accuracy)
    else:
        matrix = [list(row) for row in confusion]
        sensor = ItemSensor(layout, confusion=confusion)

    def prob(cell: Cell, reading: Any) -> float:
        return matrix[item_class(layout, cell)][LABELS.index(label_of(reading))]

    return Model(sensor, ITEM_KEY, LABELS, prob)


SENSOR_MODES: dict[str, Callable[[Layout], list[Model]]] = {
    "colour": lambda layout: [colour_model(layout, 0.75)],
    "item": lambda layout: [item_model(layout)],
    "both": lambda layout: [colour_model(layout, 0.9), item_model(layout, CUSTOM_CONFUSION)],
    "certain": lambda layout: [colour_model(layout, 1.0), item_model(layout, accuracy=1.0)],
    "none": lambda layout: [],
}


def gridghost_slip(kind: str, p: float) -> SlipModel:
    return {"none": NoSlip, "longitudinal": LongitudinalSlip, "perpendicular": PerpendicularSlip}[kind](
        *(() if kind == "none" else (p,))
    )


def simulate(layout: Layout, kind: str, p: float, models: list[Model], actions: Sequence[int],
             seed: int) -> list[dict[str, Any]]:
    """Readings of a run drawn from the model above: ``len(actions) + 1`` measurement dicts, the
    first at the start. Item readings alternate between the ``(label, 0.9)`` pair and the bare
    label."""
    rng = np.random.default_rng(seed)
    cells = cells_of(layout)
    cell = cells[int(rng.integers(len(cells)))]
    readings = []
    for step in range(len(actions) + 1):
        if step:
            outcomes = slip_outcomes(kind, p, actions[step - 1])
            _, moves = outcomes[int(rng.choice(len(outcomes), p=[q for q, _ in outcomes]))]
            for m in moves:
                cell = move(layout, cell, m)
        measured = {}
        for model in models:
            probs = [model.prob(cell, r) for r in model.readings]
            reading = model.readings[int(rng.choice(len(probs), p=probs))]
            if model.key == ITEM_KEY and step % 2 == 0:
                reading = (reading, 0.9)
            measured[model.key] = reading
        readings.append(measured)
    return readings


def brute_force_posterior(layout: Layout, kind: str, p: float, models: list[Model], actions: Sequence[int],
                          readings: Sequence[dict[str, Any]], move_agent: bool = True) -> np.ndarray:
    """The posterior of the final cell, summed over every start cell and every sequence of slip
    outcomes. ``move_agent=False`` gives what a filter that never predicts would believe."""
    cells = cells_of(layout)
    per_step = [slip_outcomes(kind, p, a) if move_agent else [(1.0, ())] for a in actions]

    # likelihood[t][cell]: the product of the sensors' p(reading at step t | cell)
    likelihood = [{cell: math.prod(m.prob(cell, measured[m.key]) for m in models) for cell in cells}
                  for measured in readings]
    posterior = np.zeros(layout.shape)
    for start in cells:
        for path in itertools.product(*per_step):
            weight = likelihood[0][start] / len(cells)
            cell = start
            for t, (prob, moves) in enumerate(path, start=1):
                for m in moves:
                    cell = move(layout, cell, m)
                weight *= prob * likelihood[t][cell]
            posterior[cell] += weight
    return posterior / posterior.sum()


def run_filter(belief_filter: BeliefFilter, actions: Sequence[int], readings: Sequence[dict[str, Any]]) -> None:
    belief_filter.reset()
    belief_filter.update(readings[0])
    for action, measured in zip(actions, readings[1:], strict=True):
        belief_filter.predict(action)
        belief_filter.update(measured)


# -- 1. the exact filter is the Bayes posterior --------------------------------------------------

SLIPS = [("none", 0.0), ("longitudinal", 0.0), ("longitudinal", 0.2), ("longitudinal", 0.5), ("longitudinal", 1.0),
         ("perpendicular", 0.0), ("perpendicular", 0.3), ("perpendicular", 1.0)]
EXACT_CASES = [
    pytest.param(case_seed, layout_name, kind, p, mode, id=f"{layout_name}-{kind}-{p}-{mode}")
    for case_seed, (layout_name, (kind, p), mode) in enumerate(itertools.product(LAYOUTS, SLIPS, SENSOR_MODES))
]


@pytest.mark.parametrize(("case_seed", "layout_name", "kind", "p", "mode"), EXACT_CASES)
def test_histogram_filter_equals_brute_force_bayes(case_seed: int, layout_name: str, kind: str, p: float,
                                                   mode: str) -> None:
    # Readings are drawn from the model itself (seeded per case), so they are never impossible;
    # 3 to 5 actions per case.
    layout = LAYOUTS[layout_name]
    models = SENSOR_MODES[mode](layout)
    rng = np.random.default_rng(case_seed)
    actions = [int(a) for a in rng.integers(4, size=3 + case_seed % 3)]
    readings = simulate(layout, kind, p, models, actions, seed=case_seed)
    expected = brute_force_posterior(layout, kind, p, models, actions, readings)

    exact = HistogramFilter(layout, gridghost_slip(kind, p), [m.sensor for m in models])
    run_filter(exact, actions, readings)
    np.testing.assert_allclose(exact.belief(), expected, rtol=0, atol=1e-9)


def test_fixed_walk_through_walls_on_the_walled_map() -> None:
    # Hand-picked actions (left, down, down, right, up) and readings, with both sensors.
    models = SENSOR_MODES["both"](WALLED)
    actions = [0, 1, 1, 2, 3]
    readings = [{COLOUR_KEY: 0, ITEM_KEY: ("background", 0.9)}, {COLOUR_KEY: 1, ITEM_KEY: "flower"},
                {COLOUR_KEY: 0, ITEM_KEY: ("dog", 0.9)}, {COLOUR_KEY: 1, ITEM_KEY: "flower"},
                {COLOUR_KEY: 0, ITEM_KEY: ("background", 0.9)}, {COLOUR_KEY: 1, ITEM_KEY: "background"}]
    expected = brute_force_posterior(WALLED, "perpendicular", 0.4, models, actions, readings)
    exact = HistogramFilter(WALLED, PerpendicularSlip(0.4), [m.sensor for m in models])
    run_filter(exact, actions, readings)
    np.testing.assert_allclose(exact.belief(), expected, rtol=0, atol=1e-9)


def large_layout() -> Layout:
    """A 16x17 map (272 cells, more than small-map shortcuts may cover) with seeded random walls,
    colours and items."""
    rng = np.random.default_rng(21)
    rows, cols = 16, 17
    names = ["dog", "flower", "two_flowers", "one_note"] * 3
    cells = rng.integers((rows, cols), size=(len(names), 2)).tolist()
    return Layout(
        name="large",
        colours=rng.integers(3, size=(rows, cols)),
        walls_horizontal=rng.random((rows - 1, cols)) < 0.15,
        walls_vertical=rng.random((rows, cols - 1)) < 0.15,
        items={tuple(cell): (name,) for cell, name in zip(cells, names, strict=True)},
        goals=[(rows - 1, cols - 1)],
        agent_start=(0, 0),
        ghost_start=(0, 1),
    )


@pytest.mark.parametrize(("kind", "p"), [("longitudinal", 0.3), ("perpendicular", 0.3), ("none", 0.0)])
def test_histogram_filter_equals_brute_force_on_a_large_map(kind: str, p: float) -> None:
    layout = large_layout()
    models = SENSOR_MODES["both"](layout)
    actions = [2, 1, 0, 3]
    readings = simulate(layout, kind, p, models, actions, seed=8)
    expected = brute_force_posterior(layout, kind, p, models, actions, readings)
    exact = HistogramFilter(layout, gridghost_slip(kind, p), [m.sensor for m in models])
    run_filter(exact, actions, readings)
    np.testing.assert_allclose(exact.belief(), expected, rtol=0, atol=1e-9)


@pytest.mark.parametrize("reading", [("dog", 0.9), "dog"], ids=["pair", "bare-label"])
def test_a_dog_reading_puts_a_third_on_each_dog_cell(reading: Any) -> None:
    # Default accuracy 0.9: the two dog cells weigh 0.9, the 18 others 0.05; 0.9 / 2.7 = 1/3.
    exact = HistogramFilter(CLASSIC, LongitudinalSlip(0.2), [ItemSensor(CLASSIC)])
    exact.update({ITEM_KEY: reading})
    belief = exact.belief()
    assert belief[0, 0] == pytest.approx(1 / 3, abs=1e-12)
    assert belief[0, 4] == pytest.approx(1 / 3, abs=1e-12)
    assert belief[2, 2] == pytest.approx(0.05 / 2.7, abs=1e-12)


# -- 2. the particle filter converges to the exact belief ----------------------------------------

def tv_distance(a: np.ndarray, b: np.ndarray) -> float:
    return 0.5 * float(np.abs(a - b).sum())


def test_particle_filter_converges_to_the_exact_belief() -> None:
    models = SENSOR_MODES["both"](CLASSIC)
    actions = [1, 2, 2, 1, 0]
    readings = simulate(CLASSIC, "longitudinal", 0.2, models, actions, seed=11)
    exact = brute_force_posterior(CLASSIC, "longitudinal", 0.2, models, actions, readings)
    # A filter that skipped predict would converge to the "never moved" posterior instead; the
    # bound below is only meaningful if that posterior is far outside it.
    frozen = brute_force_posterior(CLASSIC, "longitudinal", 0.2, models, actions, readings, move_agent=False)
    bound = 0.02
    assert tv_distance(exact, frozen) > 10 * bound

    sensors = [m.sensor for m in models]
    mean_tv = []
    for n in (100, 1_000, 10_000, 100_000):
        distances = []
        for seed in range(6):
            pf = ParticleFilter(CLASSIC, LongitudinalSlip(0.2), sensors, num_particles=n, seed=seed)
            run_filter(pf, actions, readings)
            distances.append(tv_distance(pf.belief(), exact))
        mean_tv.append(float(np.mean(distances)))
    # Monte-Carlo error shrinks like 1/sqrt(n): each tenfold step cuts it by about 3 (measured:
    # ~0.2, 0.07, 0.02, 0.006), so 0.7 per step and 0.02 at 100,000 particles leave a wide margin.
    assert all(later < 0.7 * earlier for earlier, later in itertools.pairwise(mean_tv)), mean_tv
    assert mean_tv[-1] < bound, mean_tv


# -- 3. seeding, shapes and estimates -------------------------------------------------------------

SEED_ACTIONS = [2, 1, 1, 0, 3, 2]


def seed_readings() -> list[dict[str, Any]]:
    return simulate(CLASSIC, "longitudinal", 0.2, SENSOR_MODES["both"](CLASSIC), SEED_ACTIONS, seed=3)


def make_pf(seed: int | None = None, n: int = 50) -> ParticleFilter:
    sensors = [m.sensor for m in SENSOR_MODES["both"](CLASSIC)]
    return ParticleFilter(CLASSIC, LongitudinalSlip(0.2), sensors, num_particles=n, seed=seed)


def episode(pf: ParticleFilter, reset: bool = True, reset_seed: int | None = None) -> list[tuple[Any, list[float]]]:
    """Every estimate and belief of one episode; ``reset=False`` plays the episode the
    constructor started."""
    readings = seed_readings()
    if reset:
        pf.reset(seed=reset_seed)
    pf.update(readings[0])
    trace = [(pf.estimate(), pf.belief().tolist())]
    for action, measured in zip(SEED_ACTIONS, readings[1:], strict=True):
        pf.predict(action)
        pf.update(measured)
        trace.append((pf.estimate(), pf.belief().tolist()))
    return trace


def test_same_constructor_seed_same_estimates() -> None:
    assert episode(make_pf(seed=7), reset=False) == episode(make_pf(seed=7), reset=False)


def test_same_reset_seed_same_estimates() -> None:
    assert episode(make_pf(seed=1), reset_seed=7) == episode(make_pf(seed=2), reset_seed=7)


def test_reset_seed_equals_constructor_seed() -> None:
    assert episode(make_pf(seed=123), reset_seed=7) == episode(make_pf(seed=7), reset=False)


def test_different_seed_different_estimates() -> None:
    assert episode(make_pf(seed=7), reset=False) != episode(make_pf(seed=8), reset=False)
    assert episode(make_pf(seed=0), reset_seed=7) != episode(make_pf(seed=0), reset_seed=8)


def test_reset_without_seed_continues_the_stream() -> None:
    first, again = make_pf(seed=7), make_pf(seed=7)
    first_episode = episode(first, reset=False)
    second_episode = episode(first)
    assert second_episode != first_episode
    assert episode(again, reset=False) == first_episode
    assert episode(again) == second_episode


FILTER_FACTORIES: dict[str, Callable[[Layout, list[Sensor]], BeliefFilter]] = {
    "histogram": lambda layout, sensors: HistogramFilter(layout, LongitudinalSlip(0.2), sensors),
    "particle": lambda layout, sensors: ParticleFilter(layout, LongitudinalSlip(0.2), sensors, 300, seed=0),
}


def check_belief_and_estimate(belief_filter: BeliefFilter, layout: Layout) -> None:
    belief = belief_filter.belief()
    assert belief.shape == (layout.rows, layout.cols)
    assert belief.sum() == pytest.approx(1.0, abs=1e-12)
    assert (belief >= 0).all()
    estimate = belief_filter.estimate()
    assert set(estimate) == {"float_pos", "cell_pos"}
    float_pos, cell_pos = estimate["float_pos"], estimate["cell_pos"]
    assert isinstance(float_pos, list) and len(float_pos) == 2 and all(type(v) is float for v in float_pos)
    assert isinstance(cell_pos, list) and len(cell_pos) == 2 and all(type(v) is int for v in cell_pos)
    assert belief[tuple(cell_pos)] == belief.max()
    rows, cols = np.indices(layout.shape)
    assert float_pos == pytest.approx([float((belief * rows).sum()), float((belief * cols).sum())], abs=1e-12)


@pytest.mark.parametrize("kind", FILTER_FACTORIES)
@pytest.mark.parametrize("layout_name", LAYOUTS)
def test_belief_and_estimate_have_the_reference_shape(kind: str, layout_name: str) -> None:
    layout = LAYOUTS[layout_name]
    models = SENSOR_MODES["both"](layout)
    actions = [3, 2, 1, 1, 0]
    readings = simulate(layout, "longitudinal", 0.2, models, actions, seed=5)
    belief_filter = FILTER_FACTORIES[kind](layout, [m.sensor for m in models])
    check_belief_and_estimate(belief_filter, layout)
    belief_filter.update(readings[0])
    check_belief_and_estimate(belief_filter, layout)
    for action, measured in zip(actions, readings[1:], strict=True):
        belief_filter.predict(action)
        check_belief_and_estimate(belief_filter, layout)
        belief_filter.update(measured)
        check_belief_and_estimate(belief_filter, layout)


def test_histogram_estimate_on_a_known_belief() -> None:
    # One green reading with a perfect colour sensor: uniform over the five green cells of CLASSIC
    # (0,0) (1,1) (1,4) (2,1) (3,2); mean row 7/5, mean col 8/5; first maximum in row-major order.
    exact = HistogramFilter(CLASSIC, NoSlip(), [ColorSensor(CLASSIC, 1.0)])
    exact.update({COLOUR_KEY: 2})
    assert exact.estimate() == {"float_pos": pytest.approx([7 / 5, 8 / 5]), "cell_pos": [0, 0]}


# -- 4. every sensor's likelihoods are distributions over its readings --------------------------

def assert_likelihoods_sum_to_one(sensor: Sensor, layout: Layout) -> None:
    readings = sensor.possible_measurements()
    total = np.zeros(layout.shape)
    for reading in readings:
        likelihood = np.asarray(sensor.likelihood(reading), dtype=float)
        assert likelihood.shape == layout.shape
        assert (likelihood >= 0).all()
        total += likelihood
    np.testing.assert_allclose(total, 1.0, rtol=0, atol=1e-12)


W = np.array([[4.0, -6.0, 3.0], [-5.0, 7.0, -2.0], [1.0, 1.0, 1.0]])
B = np.array([0.5, -0.3, 0.1])


def mean_rgb_softmax(image: np.ndarray) -> np.ndarray:
    """A fixed linear layer and a softmax over a picture's mean colour."""
    x = image.reshape(-1, 3).mean(axis=0) / 255.0
    logits = W @ (10 * (x - 0.8)) + B
    exps = np.exp(logits - logits.max())
    return exps / exps.sum()


class RecordingClassifier:
    def __init__(self) -> None:
        self.images: list[np.ndarray] = []

    def __call__(self, image: np.ndarray) -> np.ndarray:
        self.images.append(image)
        return mean_rgb_softmax(image)


SENSOR_FACTORIES: dict[str, Callable[[Layout], Sensor]] = {
    "colour-0": lambda layout: ColorSensor(layout, 0.0),
    "colour-0.8": lambda layout: ColorSensor(layout, 0.8),
    "colour-1": lambda layout: ColorSensor(layout, 1.0),
    "item-default": lambda layout: ItemSensor(layout),
    "item-accuracy-0.4": lambda layout: ItemSensor(layout, accuracy=0.4),
    "item-confusion": lambda layout: ItemSensor(layout, confusion=CUSTOM_CONFUSION),
    "classifier": lambda layout: ClassifierSensor(layout, mean_rgb_softmax, images=cell_images),
}


@pytest.mark.parametrize("layout_name", LAYOUTS)
@pytest.mark.parametrize("sensor_name", SENSOR_FACTORIES)
def test_likelihoods_sum_to_one_over_possible_measurements(sensor_name: str, layout_name: str) -> None:
    layout = LAYOUTS[layout_name]
    assert_likelihoods_sum_to_one(SENSOR_FACTORIES[sensor_name](layout), layout)


@pytest.mark.parametrize("layout_name", LAYOUTS)
def test_item_sensor_likelihood_is_the_confusion_row_of_the_true_class(layout_name: str) -> None:
    layout = LAYOUTS[layout_name]
    model = item_model(layout, CUSTOM_CONFUSION)
    for label in LABELS:
        expected = [[model.prob(cell, label) for cell in cells_of(layout)[r * layout.cols:(r + 1) * layout.cols]]
                    for r in range(layout.rows)]
        np.testing.assert_allclose(model.sensor.likelihood(label), expected, rtol=0, atol=1e-12)
        np.testing.assert_allclose(model.sensor.likelihood((label, 0.5)), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("layout_name", LAYOUTS)
def test_classifier_sensor_sees_cell_pictures_and_uses_its_answers(layout_name: str) -> None:
    layout = LAYOUTS[layout_name]
    classifier = RecordingClassifier()
    sensor = ClassifierSensor(layout, classifier, images=cell_images)
    assert len(classifier.images) == layout.rows * layout.cols
    for image in classifier.images:
        assert isinstance(image, np.ndarray) and image.shape == (64, 64, 3) and image.dtype == np.uint8

    pictures = cell_images(layout, 64)
    for a, b in itertools.combinations(cells_of(layout), 2):
        if layout.colours[a] != layout.colours[b]:
            assert not np.array_equal(pictures[a], pictures[b]), (a, b)
    received = {image.tobytes() for image in classifier.images}
    assert all(pictures[cell].tobytes() in received for cell in cells_of(layout))

    for k, label in enumerate(LABELS):
        expected = np.array([[mean_rgb_softmax(pictures[r, c])[k] for c in range(layout.cols)]
                             for r in range(layout.rows)])
        np.testing.assert_allclose(sensor.likelihood(label), expected, rtol=0, atol=1e-12)
    # the classifier must tell some cells apart, or the check above proves little
    assert np.ptp(sensor.likelihood("dog")) > 0.05


# -- 5. bad input ---------------------------------------------------------------------------------

def classic_colour_filter(kind: str) -> BeliefFilter:
    return FILTER_FACTORIES[kind](CLASSIC, [ColorSensor(CLASSIC, 0.8)])


@pytest.mark.parametrize(("num_particles", "error"), [(0, ValueError), (-3, ValueError), (2.0, TypeError),
                                                      (1.5, TypeError), (True, TypeError), ("10", TypeError),
                                                      (10**11, ValueError)])
def test_bad_particle_counts_are_rejected(num_particles: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match=r"num_particles must be an int in 1\.\.10,000,000"):
        ParticleFilter(CLASSIC, NoSlip(), [ColorSensor(CLASSIC)], num_particles=num_particles)


def test_make_filter_rejects_an_unknown_name() -> None:
    with pytest.raises(ValueError, match=r"unknown belief_filter 'kalman'.*'particle', 'histogram'"):
        make_filter("kalman", CLASSIC, NoSlip(), [ColorSensor(CLASSIC)])


def test_make_filter_rejects_a_spec_reading_a_sensor_the_env_lacks() -> None:
    spec = {"type": "particle", "sensors": [1], "num_particles": 50}
    with pytest.raises(ValueError, match=r"belief_filter spec 'sensors' must be indices 0\.\.0, got \[1\]"):
        make_filter(spec, CLASSIC, NoSlip(), [ColorSensor(CLASSIC)])


def test_make_filter_builds_a_spec_with_its_settings_and_sensors() -> None:
    sensors = [ColorSensor(CLASSIC), ItemSensor(CLASSIC)]
    spec = {"type": "particle", "sensors": [1], "num_particles": 50, "resample_threshold": 0.25}
    built = make_filter(spec, CLASSIC, NoSlip(), sensors)
    assert isinstance(built, ParticleFilter)
    assert (built.num_particles, built.resample_threshold) == (50, 0.25)
    assert len(built.sensors) == 1 and built.sensors[0] is sensors[1]


def test_env_rejects_an_unknown_filter_name() -> None:
    with pytest.raises(ValueError, match="unknown belief_filter 'kalman'"):
        gridghost.env(belief_filter="kalman")


def test_agent_interface_rejects_an_unknown_sensor_mode() -> None:
    with pytest.raises(ValueError, match=r"unknown pf_sensor_mode 'sonar'.*'color', 'cnn', 'both'"):
        gridghost.AgentInterface(render=False, pf_sensor_mode="sonar")


@pytest.mark.parametrize(("kwargs", "message"), [
    (dict(confusion=[[0.9, 0.05, 0.05], [0.1, 0.8, 0.2], [0.05, 0.05, 0.9]]), "must sum to 1"),
    (dict(confusion=[[0.9, 0.1], [0.1, 0.9]]), r"confusion must be 3x3"),
    (dict(confusion=[[0.9, 0.05, 0.05, 0.0]] * 3), r"confusion must be 3x3"),
    (dict(confusion=[[1.2, -0.1, -0.1], [0.1, 0.8, 0.1], [0.05, 0.05, 0.9]]), ">= 0"),
    (dict(accuracy=1.5), r"accuracy must lie in \[0, 1\]"),
    (dict(accuracy=-0.1), r"accuracy must lie in \[0, 1\]"),
    (dict(accuracy=0.9, confusion=CUSTOM_CONFUSION), "pass accuracy or confusion, not both"),
], ids=["rows-not-summing", "2x2", "3x4", "negative", "accuracy-above-1", "accuracy-below-0", "both"])
def test_item_sensor_rejects_bad_confusion(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ItemSensor(CLASSIC, **kwargs)


@pytest.mark.parametrize(("classifier", "message"), [
    (lambda image: np.full(4, 0.25), r"classifier output for cell \(0, 0\) must be 3 probabilities"),
    (lambda image: np.array([0.5, 0.5, 0.5]), "must sum to 1"),
    (lambda image: np.array([1.5, -0.5, 0.0]), ">= 0"),
], ids=["wrong-shape", "not-summing", "negative"])
def test_classifier_sensor_rejects_bad_outputs(classifier: Callable[[np.ndarray], Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ClassifierSensor(CLASSIC, classifier, images=cell_images)


def test_classifier_sensor_rejects_a_non_callable() -> None:
    with pytest.raises(TypeError, match="classifier must be a callable"):
        ClassifierSensor(CLASSIC, np.array([0.2, 0.3, 0.5]), images=cell_images)


@pytest.mark.parametrize("kind", FILTER_FACTORIES)
@pytest.mark.parametrize(("action", "error", "message"), [
    (4, ValueError, r"must lie in 0\.\.3, got 4"),
    (-1, ValueError, r"must lie in 0\.\.3, got -1"),
    (1.5, TypeError, r"must be an int in 0\.\.3"),
    ("up", TypeError, r"must be an int in 0\.\.3"),
    (None, TypeError, r"must be an int in 0\.\.3"),
])
def test_predict_rejects_bad_actions_and_changes_nothing(kind: str, action: Any, error: type[Exception],
                                                        message: str) -> None:
    belief_filter = classic_colour_filter(kind)
    belief_filter.update({COLOUR_KEY: 1})
    before = belief_filter.belief()
    with pytest.raises(error, match=message):
        belief_filter.predict(action)
    np.testing.assert_array_equal(belief_filter.belief(), before)


def both_sensor_filter(kind: str) -> BeliefFilter:
    return FILTER_FACTORIES[kind](CLASSIC, [ColorSensor(CLASSIC), ItemSensor(CLASSIC)])


@pytest.mark.parametrize("kind", FILTER_FACTORIES)
@pytest.mark.parametrize(("measurements", "error", "message"), [
    ({COLOUR_KEY: 1}, ValueError, r"lack the reading of \['cnn_prediction'\]"),
    ({ITEM_KEY: "dog"}, ValueError, r"lack the reading of \['color_measurement'\]"),
    ([1, "dog"], TypeError, "measurements must be a mapping"),
    (1, TypeError, "measurements must be a mapping"),
    ({COLOUR_KEY: 7, ITEM_KEY: "dog"}, ValueError, r"measurement must be a colour id, an int 0\.\.2, got 7"),
    ({COLOUR_KEY: 1, ITEM_KEY: "cat"}, ValueError, r"measurement must be one of \['dog', 'flower', 'background'\]"),
    ({COLOUR_KEY: 1, ITEM_KEY: ("cat", 0.9)}, ValueError, "measurement must be one of"),
], ids=["missing-item", "missing-colour", "list", "int", "colour-7", "label-cat", "pair-cat"])
def test_update_rejects_bad_measurements_and_changes_nothing(kind: str, measurements: Any, error: type[Exception],
                                                              message: str) -> None:
    belief_filter = both_sensor_filter(kind)
    belief_filter.update({COLOUR_KEY: 1, ITEM_KEY: "background"})
    before = belief_filter.belief()
    with pytest.raises(error, match=message):
        belief_filter.update(measurements)
    np.testing.assert_array_equal(belief_filter.belief(), before)


@pytest.mark.parametrize("kind", FILTER_FACTORIES)
def test_a_bool_colour_is_rejected_even_after_that_colour_was_read(kind: str) -> None:
    # ColorSensor.likelihood rejects bools; the filter must not accept True just because the
    # reading 1 (equal and hash-equal to True) was seen before.
    belief_filter = classic_colour_filter(kind)
    with pytest.raises(ValueError, match="colour id"):
        belief_filter.update({COLOUR_KEY: True})
    belief_filter.update({COLOUR_KEY: 1})
    with pytest.raises(ValueError, match="colour id"):
        belief_filter.update({COLOUR_KEY: True})


@pytest.mark.parametrize("kind", FILTER_FACTORIES)
def test_a_reading_impossible_everywhere_raises_and_changes_nothing(kind: str) -> None:
    # WALLED has no green cell and the sensor never errs, so green has probability 0 everywhere.
    belief_filter = FILTER_FACTORIES[kind](WALLED, [ColorSensor(WALLED, 1.0)])
    belief_filter.update({COLOUR_KEY: 0})
    before = belief_filter.belief()
    with pytest.raises(ValueError, match="probability 0"):
        belief_filter.update({COLOUR_KEY: 2})
    np.testing.assert_array_equal(belief_filter.belief(), before)


@pytest.mark.parametrize(("belief_filter", "message"), [
    (HistogramFilter(WALLED, LongitudinalSlip(0.2), [ColorSensor(WALLED)]), "belief_filter follows"),
    (ParticleFilter(WALLED, LongitudinalSlip(0.2), [ColorSensor(WALLED)], seed=0), "belief_filter follows"),
    (HistogramFilter(CLASSIC, LongitudinalSlip(0.3), [ColorSensor(CLASSIC)]), "belief_filter predicts with"),
    (HistogramFilter(CLASSIC, PerpendicularSlip(0.2), [ColorSensor(CLASSIC)]), "belief_filter predicts with"),
    (HistogramFilter(CLASSIC, LongitudinalSlip(0.2), [ItemSensor(CLASSIC)]), "which are not the env's sensors"),
], ids=["other-layout-histogram", "other-layout-particle", "other-probability", "other-slip-type",
        "unmeasured-sensor"])
def test_env_rejects_a_filter_built_for_another_game(belief_filter: BeliefFilter, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        gridghost.env(belief_filter=belief_filter)


# -- 6. pickling and particle recovery -------------------------------------------------------------

ROUND_TRIPS: dict[str, Callable[[Any], Any]] = {
    "pickle": lambda obj: pickle.loads(pickle.dumps(obj)),
    "deepcopy": copy.deepcopy,
}


@pytest.mark.parametrize("round_trip", ROUND_TRIPS)
@pytest.mark.parametrize("kind", FILTER_FACTORIES)
def test_filters_round_trip_and_carry_on_alike(kind: str, round_trip: str) -> None:
    models = SENSOR_MODES["both"](CLASSIC)
    actions = [1, 2, 2, 1]
    readings = simulate(CLASSIC, "longitudinal", 0.2, models, actions, seed=2)
    original = FILTER_FACTORIES[kind](CLASSIC, [m.sensor for m in models])
    run_filter(original, actions[:2], readings[:3])
    clone = ROUND_TRIPS[round_trip](original)
    assert clone is not original
    np.testing.assert_array_equal(clone.belief(), original.belief())
    assert clone.estimate() == original.estimate()
    for action, measured in zip(actions[2:], readings[3:], strict=True):
        for belief_filter in (original, clone):
            belief_filter.predict(action)
            belief_filter.update(measured)
        np.testing.assert_array_equal(clone.belief(), original.belief())
    clone.reset()
    assert not np.array_equal(clone.belief(), original.belief())  # independent copies


def test_particle_filter_redraws_from_the_likelihood_when_all_particles_are_ruled_out() -> None:
    # With a perfect colour sensor, reading green keeps only particles on green cells; reading red
    # straight after (no predict, so nobody moves) then has probability 0 at every particle. The
    # filter must redraw its particles from the red likelihood: uniformly over the red cells.
    sensor = ColorSensor(CLASSIC, 1.0)
    pf = ParticleFilter(CLASSIC, NoSlip(), [sensor], num_particles=20_000, seed=4)
    pf.update({COLOUR_KEY: 2})
    green = CLASSIC.colours == 2
    assert pf.belief()[~green].sum() == 0  # the premise: every surviving particle is on green
    pf.update({COLOUR_KEY: 1})

    red = CLASSIC.colours == 1
    belief = pf.belief()
    assert belief[~red].sum() == 0
    assert all(CLASSIC.colours[tuple(cell)] == 1 for cell in pf.particles)
    np.testing.assert_allclose(pf.weights, 1 / pf.num_particles)
    np.testing.assert_allclose(belief[red], 1 / red.sum(), atol=0.02)
    # and it carries on as a working filter
    pf.predict(2)
    pf.update({COLOUR_KEY: 0})
    check_belief_and_estimate(pf, CLASSIC)


def test_the_likelihood_cache_is_bounded_and_left_out_of_pickles(monkeypatch: pytest.MonkeyPatch) -> None:
    """A sensor with continuous readings must not make a filter grow without end."""
    import gridghost.sensing.belief as belief_module  # where the filters' base class reads it

    monkeypatch.setattr(belief_module, "_MAX_CACHED", 10)
    belief_filter = HistogramFilter(CLASSIC, LongitudinalSlip(0.2), [Gauge(CLASSIC)])
    for reading in np.linspace(0.0, 1.0, 50):
        belief_filter.update({"gauge": float(reading)})
    assert len(belief_filter._likelihoods) == 10
    assert pickle.loads(pickle.dumps(belief_filter))._likelihoods == {}


def test_a_negative_seed_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="seed must be None, an int >= 0"):
        ParticleFilter(CLASSIC, LongitudinalSlip(0.2), [], seed=-1)
    with pytest.raises(TypeError, match="seed must be None, an int >= 0"):
        ParticleFilter(CLASSIC, LongitudinalSlip(0.2), [], seed=1.5)


# -- 7. particles kept as counts per cell ---------------------------------------------------------

def test_predict_splits_each_cells_particles_within_one_of_the_slip_probabilities() -> None:
    # From 1,000 particles per cell, every (cell, outcome) share is within one particle of
    # 1,000 x its probability, so a cell's particle count is within one per (cell, outcome)
    # leading there of the exact carry. The pairs are counted from the kernel's table.
    slip = LongitudinalSlip(0.2)
    pf = ParticleFilter(CLASSIC, slip, [], num_particles=20_000, seed=3)
    exact = HistogramFilter(CLASSIC, slip, [])
    for action in (1, 2, 0):
        pf.reset()
        exact.reset()
        pf.predict(action)
        exact.predict(action)
        cells = CLASSIC.rows * CLASSIC.cols
        counts = np.bincount(pf.particles @ [CLASSIC.cols, 1], minlength=cells)
        pairs = np.bincount(Game(CLASSIC, slip).outcomes[action][1].ravel(), minlength=cells)
        assert (np.abs(counts - 20_000 * exact.belief().ravel()) < pairs).all(), action


@pytest.mark.parametrize("slip", [LongitudinalSlip(0.2), PerpendicularSlip(0.3), NoSlip()], ids=repr)
def test_reset_and_predict_draw_as_documented(slip: SlipModel) -> None:
    """The particles' draws, written out from the class docstring: reset spreads the particles
    evenly with the remainder at distinct cells chosen by the filter's generator; each predict
    draws one uniform per cell in row-major order (none with one outcome) and sends
    ceil(P_k n - u) - ceil(P_(k-1) n - u) of a cell's n particles to outcome k's cell, P_k the
    running probability of outcomes 0..k. A generator seeded alike gives the same particles."""
    cells = CLASSIC.rows * CLASSIC.cols
    pf = ParticleFilter(CLASSIC, slip, [], num_particles=3 * cells + 7, seed=11)
    twin = np.random.default_rng(11)
    counts = [3] * cells
    for cell in twin.choice(cells, size=7, replace=False).tolist():
        counts[cell] += 1
    for action in (1, 2, 2, 0, 3, 3, 1):
        assert np.bincount(pf.particles @ [CLASSIC.cols, 1], minlength=cells).tolist() == counts
        pf.predict(action)
        probabilities, destinations = Game(CLASSIC, slip).outcomes[action]
        uniforms = twin.random(cells).tolist() if len(probabilities) > 1 else [0.0] * cells
        moved = [0] * cells
        for cell, (n, u) in enumerate(zip(counts, uniforms, strict=True)):
            running, sent = 0.0, 0
            for k, p in enumerate(probabilities.tolist()):
                running = 1.0 if k == len(probabilities) - 1 else running + p
                below = math.ceil(running * n - u)
                moved[int(destinations[k, cell])] += below - sent
                sent = below
        counts = moved
    assert np.bincount(pf.particles @ [CLASSIC.cols, 1], minlength=cells).tolist() == counts


def test_the_dense_and_the_large_map_paths_move_particles_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small maps move particles with one matrix product, larger ones with bincounts."""
    import gridghost.sensing.particles as particles_module  # where the particle filter reads it

    traces = []
    for dense_up_to in (1_000, 0):
        monkeypatch.setattr(particles_module, "_DENSE_SPLIT_CELLS", dense_up_to)
        pf = make_pf(seed=5, n=300)
        traces.append((episode(pf, reset=False), pf.particles.tolist(), pf.weights))
    (dense, dense_particles, dense_weights), (sparse, sparse_particles, sparse_weights) = traces
    assert dense_particles == sparse_particles
    np.testing.assert_allclose(dense_weights, sparse_weights, rtol=1e-12)
    for (dense_estimate, dense_belief), (sparse_estimate, sparse_belief) in zip(dense, sparse, strict=True):
        assert dense_estimate["cell_pos"] == sparse_estimate["cell_pos"]
        np.testing.assert_allclose(dense_belief, sparse_belief, rtol=1e-12)


@pytest.mark.parametrize("num_particles", [1, 7, 200, MAX_PARTICLES])
def test_particles_stay_whole_and_weights_stay_a_distribution(num_particles: int) -> None:
    # Counts are held as floats; they must stay whole numbers summing to num_particles through
    # splits, reweighting and resampling, up to the largest filter.
    pf = make_pf(seed=2, n=num_particles)
    readings = seed_readings()
    pf.update(readings[0])
    for action, measured in zip(SEED_ACTIONS, readings[1:], strict=True):
        pf.predict(action)
        pf.update(measured)
        if num_particles <= 200:
            particles, weights = pf.particles, pf.weights
            assert particles.shape == (num_particles, 2) and weights.shape == (num_particles,)
            assert (np.diff(particles @ [CLASSIC.cols, 1]) >= 0).all()  # row-major cell order
            assert weights.sum() == pytest.approx(1.0) and (weights >= 0).all()
        check_belief_and_estimate(pf, CLASSIC)
    counts = pf._counts  # the particles themselves would take 160 MB at MAX_PARTICLES
    assert (counts == np.round(counts)).all() and counts.sum() == num_particles and (counts >= 0).all()
