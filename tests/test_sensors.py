"""Sensors: the colour sensor's reference draw order, the item classifier and user classifiers;
reading frequencies, what each reports, and likelihoods."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

import gridghost
from gridghost.core.layout import CLASSIC, Layout
from gridghost.core.rules import GameState, board_for
from gridghost.drawing import cell_images
from gridghost.sensing.filters import HistogramFilter
from gridghost.sensing.sensors import ITEM_CLASSES, ClassifierSensor, ColorSensor, ItemSensor, Sensor, make_sensors

from helpers import plain

BOARD = board_for(CLASSIC)


def reference_measurement(colour: int, q: float, rng: np.random.Generator) -> int:
    """The RNG contract of docs/game.md, written out literally."""
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


@pytest.mark.parametrize("measurement", [3, -1, "red", None, True, 1.0, np.float64(2.0)])
def test_likelihood_of_an_impossible_reading_raises(measurement) -> None:
    with pytest.raises(ValueError, match=r"colour id, an int 0\.\.2"):
        ColorSensor(CLASSIC).likelihood(measurement)


@pytest.mark.parametrize(("quality", "error"), [(1.2, ValueError), (-0.5, ValueError), (float("nan"), ValueError),
                                                ("high", TypeError)])
def test_bad_quality_raises(quality, error) -> None:
    with pytest.raises(error, match="quality must"):
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
    with pytest.raises(NotImplementedError, match="possible_measurements"):
        Half().possible_measurements()


# -- the item classifier -----------------------------------------------------------------------
DOG, FLOWER, BACKGROUND = BOARD.index((0, 0)), BOARD.index((1, 3)), BOARD.index((1, 1))
CONFUSION = [[0.7, 0.2, 0.1], [0.05, 0.9, 0.05], [0.3, 0.3, 0.4]]


def frequencies(sensor: Sensor, cell: int, n: int = 20_000) -> dict[str, float]:
    rng = np.random.default_rng(11)
    counts = Counter(sensor.measure(GameState(cell, 0), rng)[0] for _ in range(n))
    return {label: counts[label] / n for label in ITEM_CLASSES}


@pytest.mark.parametrize(("cell", "true_class"), [(DOG, 0), (FLOWER, 1), (BACKGROUND, 2)])
def test_item_predictions_follow_the_confusion_row_of_the_true_class(cell: int, true_class: int) -> None:
    sensor = ItemSensor(CLASSIC, confusion=CONFUSION)
    n = 20_000
    for label, observed in frequencies(sensor, cell, n).items():
        p = CONFUSION[true_class][ITEM_CLASSES.index(label)]
        assert abs(observed - p) < 4 * math.sqrt(p * (1 - p) / n) + 1e-12, label


def test_item_classes_of_the_classic_cells() -> None:
    # dog at (0, 0) and (0, 4) (with notes); flowers at (1, 3) and (3, 3); notes alone are background
    expected = np.full((4, 5), 2)
    expected[0, 0] = expected[0, 4] = 0
    expected[1, 3] = expected[3, 3] = 1
    assert (ItemSensor(CLASSIC).true_classes == expected).all()


def test_item_reading_reports_the_calibrated_probabilities_under_the_reference_keys() -> None:
    sensor = ItemSensor(CLASSIC, confusion=CONFUSION)
    rng = np.random.default_rng(3)
    column_sums = np.array(CONFUSION).sum(axis=0)
    for _ in range(200):
        info = sensor.read(GameState(DOG, 0), rng)
        assert set(info) == {"cnn_prediction", "cnn_probs"}
        label, probability = info["cnn_prediction"]
        k = ITEM_CLASSES.index(label)
        # p(true class | predicted) under a uniform prior: the confusion column, normalised
        assert np.allclose(info["cnn_probs"], np.array(CONFUSION)[:, k] / column_sums[k])
        assert probability == info["cnn_probs"][k]
    default = ItemSensor(CLASSIC).read(GameState(DOG, 0), np.random.default_rng(0))
    if default["cnn_prediction"][0] == "dog":
        assert default["cnn_prediction"] == ("dog", 0.9)
        assert np.allclose(default["cnn_probs"], [0.9, 0.05, 0.05])


def test_item_reading_draws_one_uniform_from_the_generator_it_is_given() -> None:
    sensor = ItemSensor(CLASSIC)
    ours, twin = np.random.default_rng(8), np.random.default_rng(8)
    sensor.read(GameState(DOG, 0), ours)
    sensor.measure(GameState(FLOWER, 0), ours)
    twin.random(2)
    assert ours.random() == twin.random()


@pytest.mark.parametrize(
    "make",
    [lambda: ItemSensor(CLASSIC), lambda: ClassifierSensor(CLASSIC, softmax_on_mean_colour, images=cell_images)],
)
def test_reported_probability_vectors_cannot_be_corrupted(make) -> None:
    sensor = make()
    rng = np.random.default_rng(0)
    first, second = sensor.read(GameState(DOG, 0), rng), sensor.read(GameState(DOG, 0), rng)
    with pytest.raises(ValueError, match="read-only"):
        first["cnn_probs"][:] = -1
    assert (second["cnn_probs"] >= 0).all()


@pytest.mark.parametrize("quality", [0.0, 0.5, 1.0])
def test_item_likelihoods_sum_to_one_and_accept_the_pair_or_the_label(quality: float) -> None:
    sensor = ItemSensor(CLASSIC, accuracy=quality)
    total = sum(sensor.likelihood(label) for label in sensor.possible_measurements())
    assert np.allclose(total, 1.0)
    assert (sensor.likelihood(("dog", 0.9)) == sensor.likelihood("dog")).all()
    assert sensor.likelihood("dog")[0, 0] == quality


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (dict(confusion=[[0.9, 0.1, 0.1], [0, 1, 0], [0, 0, 1]]), ValueError, r"confusion row 0 \(dog\) must sum to 1"),
        (dict(confusion=[[1, 0], [0, 1]]), ValueError, "confusion must be 3x3"),
        (dict(confusion=[[1.5, -0.5, 0], [0, 1, 0], [0, 0, 1]]), ValueError, "probabilities >= 0"),
        (dict(confusion=[[np.nan, 0, 1], [0, 1, 0], [0, 0, 1]]), ValueError, "finite"),
        (dict(confusion="identity"), ValueError, "confusion must be"),
        (dict(accuracy=1.1), ValueError, "accuracy must lie in"),
        (dict(accuracy="high"), TypeError, "accuracy must be a real number"),
        (dict(accuracy=0.9, confusion=np.eye(3)), ValueError, "accuracy or confusion, not both"),
        (dict(name="cnn", probs_key="cnn"), ValueError, "must differ"),
        (dict(name=""), TypeError, "name must be a non-empty str"),
    ],
)
def test_bad_item_sensor_arguments_raise(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        ItemSensor(CLASSIC, **kwargs)


@pytest.mark.parametrize("label", ["cat", 3, -1, True, 1.0, None, ("cat", 0.5)])
def test_an_unknown_item_reading_raises(label) -> None:
    with pytest.raises(ValueError, match="measurement must be one of"):
        ItemSensor(CLASSIC).likelihood(label)


def test_a_numeric_infos_item_reading_is_the_labels_index() -> None:
    """A step's numeric info feeds a filter as it is: the item sensor's reading there is the
    label's index, and its likelihood is the label's."""
    sensor = ItemSensor(CLASSIC)
    for index, label in enumerate(sensor.classes):
        assert sensor.code((label, 0.5)) == sensor.code(label) == index
        assert sensor.likelihood(index) is sensor.likelihood(label)
    env = gridghost.raw_env(sensors=[ColorSensor(CLASSIC), sensor], belief_filter="histogram")
    env.reset(seed=0)
    mirror = HistogramFilter(CLASSIC, env.slip, env.sensors)
    mirror.update(env.infos["agent"])
    assert np.array_equal(mirror.belief(), env.belief_filter.belief())


# -- a user's classifier -----------------------------------------------------------------------
WEIGHTS = np.array([[0.04, -0.02, 0.01], [-0.03, 0.05, 0.0], [0.0, 0.0, 0.02]])


def softmax_on_mean_colour(image: np.ndarray) -> np.ndarray:
    """A tiny NumPy "CNN": a linear layer on the picture's mean RGB, then a softmax."""
    assert image.shape == (64, 64, 3) and image.dtype == np.uint8
    logits = image.reshape(-1, 3).mean(axis=0) @ WEIGHTS
    exp = np.exp(logits - logits.max())
    return exp / exp.sum()


def test_the_classifier_sees_each_cells_picture_and_its_outputs_are_the_likelihoods() -> None:
    sensor = ClassifierSensor(CLASSIC, softmax_on_mean_colour, images=cell_images)
    pictures = cell_images(CLASSIC, 64)
    for r, c in CLASSIC.cells():
        expected = softmax_on_mean_colour(pictures[r, c])
        got = np.array([sensor.likelihood(label)[r, c] for label in ITEM_CLASSES])
        assert np.allclose(got, expected, atol=1e-12), (r, c)
    # red, green and white cells look different to the camera
    assert len({softmax_on_mean_colour(pictures[cell]).round(6).tobytes() for cell in [(0, 0), (0, 1), (0, 2)]}) == 3
    assert np.allclose(sum(sensor.likelihood(label) for label in sensor.possible_measurements()), 1.0)


def test_classifier_readings_are_drawn_from_its_output_and_report_it() -> None:
    sensor = ClassifierSensor(CLASSIC, softmax_on_mean_colour, images=cell_images)
    cell = BOARD.index((2, 0))
    expected = softmax_on_mean_colour(cell_images(CLASSIC, 64)[2, 0])
    n = 20_000
    for label, observed in frequencies(sensor, cell, n).items():
        p = expected[ITEM_CLASSES.index(label)]
        assert abs(observed - p) < 4 * math.sqrt(p * (1 - p) / n) + 1e-12, label
    info = sensor.read(GameState(cell, 0), np.random.default_rng(1))
    assert np.allclose(info["cnn_probs"], expected)
    label, probability = info["cnn_prediction"]
    assert probability == info["cnn_probs"][ITEM_CLASSES.index(label)]


@pytest.mark.parametrize(
    ("classifier", "error", "match"),
    [
        (lambda image: np.ones(4) / 4, ValueError, r"must be 3 probabilities \(shape \(3,\)\), got shape \(4,\)"),
        (lambda image: np.ones((1, 3)) / 3, ValueError, r"got shape \(1, 3\)"),
        (lambda image: np.array([0.5, 0.5, 0.5]), ValueError, "must sum to 1"),
        (lambda image: np.array([1.5, -0.5, 0.0]), ValueError, ">= 0"),
        (lambda image: "dog", TypeError, "3 probabilities"),
        ("not callable", TypeError, "classifier must be a callable"),
    ],
)
def test_a_classifier_giving_the_wrong_answer_is_refused(classifier, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        ClassifierSensor(CLASSIC, classifier, images=cell_images)


def test_classifier_classes_are_its_own() -> None:
    sensor = ClassifierSensor(CLASSIC, lambda image: np.array([0.25, 0.75]), classes=("light", "dark"),
                              images=cell_images)
    assert sensor.possible_measurements() == ("light", "dark")
    assert (sensor.likelihood("dark") == 0.75).all()
    called = []
    for classes in (("a", "a"), "ab", iter(("a", "b"))):
        with pytest.raises(ValueError, match="sequence of two or more distinct strings"):
            ClassifierSensor(CLASSIC, lambda image: called.append(1) or np.array([0.5, 0.5]), classes=classes,
                             images=cell_images)
    assert not called  # the classes are checked before the classifier is asked


def test_two_classifiers_must_report_under_different_keys() -> None:
    with pytest.raises(ValueError, match="same info key 'cnn_prediction'"):
        make_sensors(CLASSIC, [ItemSensor(CLASSIC), ItemSensor(CLASSIC, probs_key="other")])
    both = make_sensors(CLASSIC, [ItemSensor(CLASSIC), ItemSensor(CLASSIC, name="item2", probs_key="probs2")])
    assert len(both) == 2
    with pytest.raises(ValueError, match="reports under 'mover', an info key the env writes itself"):
        make_sensors(CLASSIC, [ItemSensor(CLASSIC, probs_key="mover")], reserved_names={"mover"})


# -- sensors built without a layout are bound by the env ---------------------------------------------
SMALL = Layout(colours=[[1, 0], [2, 0]], goals=[(1, 1)], agent_start=(0, 0), ghost_start=(1, 0),
               items={(0, 1): ("dog",)}, name="small")


def test_a_colour_sensor_without_a_layout_is_bound_by_the_env() -> None:
    import gridghost

    unbound = ColorSensor(0.9)
    assert unbound.layout is None and unbound.quality == 0.9
    env = gridghost.env(sensors=[unbound], slip_probability=0.5)
    twin = gridghost.env(sensors=[ColorSensor(CLASSIC, 0.9)], slip_probability=0.5)
    assert env.sensors[0].layout == CLASSIC and env.sensors[0] is not unbound
    for seed in (0, 1):
        env.reset(seed=seed)
        twin.reset(seed=seed)
        for action in (1, 2, 1, 0, 3):
            if env.terminations["agent"] or env.truncations["agent"]:
                break
            env.step(action if env.agent_selection == "agent" else 0)
            twin.step(action if twin.agent_selection == "agent" else 0)
            assert plain(env.infos) == plain(twin.infos)
            assert env.agent_pos == twin.agent_pos


def test_binding_gives_one_copy_per_layout_so_a_filter_can_share_the_envs_sensors() -> None:
    import gridghost
    from gridghost.core.slip import LongitudinalSlip
    from gridghost.sensing.filters import HistogramFilter

    colour, items = ColorSensor(), ItemSensor(accuracy=0.8)
    belief = HistogramFilter(CLASSIC, LongitudinalSlip(0.2), [colour, items])
    env = gridghost.env(sensors=[colour, items], belief_filter=belief)
    assert env.sensors == belief.sensors and all(a is b for a, b in zip(env.sensors, belief.sensors, strict=True))
    env.reset(seed=3)
    assert "estimated_pos" in env.infos["agent"] and "cnn_probs" in env.infos["agent"]


def test_for_layout_rebinds_with_the_new_maps_tables() -> None:
    colour = ColorSensor(CLASSIC, 0.7)
    assert colour.for_layout(CLASSIC) is colour
    small = colour.for_layout(SMALL)
    assert small.layout == SMALL and small.quality == 0.7 and colour.layout == CLASSIC
    assert np.allclose(small.likelihood(1), [[0.7, 0.15], [0.15, 0.15]])
    items = ItemSensor(accuracy=1.0).for_layout(SMALL)
    assert items.likelihood("dog").tolist() == [[0.0, 1.0], [0.0, 0.0]]
    assert ItemSensor(accuracy=1.0).for_layout(SMALL).true_classes.tolist() == [[2, 0], [2, 2]]


def test_a_classifier_sensor_without_a_layout_classifies_the_envs_cells_when_bound() -> None:
    calls = []

    def classify(image: np.ndarray) -> list[float]:
        calls.append(image.shape)
        return [0.2, 0.3, 0.5]

    sensor = ClassifierSensor(classifier=classify, images=cell_images)
    assert calls == []
    bound = make_sensors(SMALL, [sensor])[0]
    assert len(calls) == 4 and bound.likelihood("background").tolist() == [[0.5, 0.5], [0.5, 0.5]]


def test_an_unbound_sensor_says_so() -> None:
    with pytest.raises(AttributeError, match=r"has no layout yet: pass it to an env, or call for_layout"):
        ColorSensor(0.9).measure(GameState(0, 1), np.random.default_rng(0))
    with pytest.raises(AttributeError, match="has no layout yet"):
        ItemSensor().likelihood("dog")
    with pytest.raises(AttributeError, match="has no layout yet"):  # as every unbound sensor says it
        ColorSensor(0.9).likelihood(0)


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [(lambda: ColorSensor("classic"), TypeError, "layout must be a gridghost.Layout or None"),
     (lambda: ColorSensor(True), TypeError, "layout must be a gridghost.Layout or None"),
     (lambda: ColorSensor(1.5), ValueError, "quality must lie in"),
     (lambda: ItemSensor(0.9), TypeError, "layout must be a gridghost.Layout or None"),
     (lambda: ColorSensor().for_layout("classic"), TypeError, "layout must be a gridghost.Layout")],
)
def test_bad_sensor_layouts_are_named(make, error, message) -> None:
    with pytest.raises(error, match=message):
        make()


def test_a_custom_sensor_without_a_layout_cannot_be_bound() -> None:
    class Bare(Sensor):
        name = "bare"

    with pytest.raises(TypeError, match="cannot be bound to a layout"):
        Bare().for_layout(CLASSIC)


def test_a_classifier_sensor_needs_the_pictures_its_classifier_sees() -> None:
    # the sensors do not draw: the pictures come from the caller (gridghost.drawing.cell_images)
    with pytest.raises(TypeError, match=r"images must be a callable images\(layout, size\)"):
        ClassifierSensor(CLASSIC, softmax_on_mean_colour)
    with pytest.raises(TypeError, match=r"images must be a callable"):
        ClassifierSensor(CLASSIC, softmax_on_mean_colour, images=np.zeros((4, 5, 64, 64, 3), np.uint8))
    with pytest.raises(TypeError, match=r"images\(layout, 64\) must return a uint8 array of shape \(4, 5, 64, 64, 3\), "
                                        r"got float64 \(4, 5, 64, 64, 3\)"):
        ClassifierSensor(CLASSIC, softmax_on_mean_colour, images=lambda layout, size: np.zeros((4, 5, size, size, 3)))
    seen = []
    plain = np.full((4, 5, 64, 64, 3), 200, np.uint8)
    sensor = ClassifierSensor(CLASSIC, softmax_on_mean_colour,
                              images=lambda layout, size: seen.append((layout, size)) or plain)
    assert seen == [(CLASSIC, 64)]
    # every cell looks the same, so every cell gets the same probabilities
    np.testing.assert_array_equal(sensor.likelihood(sensor.classes[0]), sensor.likelihood(sensor.classes[0])[0, 0])
