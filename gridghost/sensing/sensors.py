"""Sensor models: what the agent measures about its own cell, and how likely each reading is.

A sensor has a :attr:`~Sensor.name`, which is also the ``info`` key its measurement is written
under, :meth:`~Sensor.measure` (draw a reading with a generator) and
:meth:`~Sensor.likelihood` (``p(reading | agent in cell)`` for every cell, a ``rows x cols``
array), so belief filters never need to know which sensor they are reading.
:meth:`~Sensor.possible_measurements` lists every reading a sensor can give, and
:meth:`~Sensor.read` the ``info`` entries of one reading (the measurement, plus whatever else the
sensor reports, such as a classifier's probability vector).

Shipped sensors:

- :class:`ColorSensor`: the reference's noisy colour reading of the agent's cell.
- :class:`ItemSensor`: an image classifier over :data:`ITEM_CLASSES` simulated by a confusion
  matrix (``info["cnn_prediction"]`` and ``info["cnn_probs"]``, the reference's keys).
- :class:`ClassifierSensor`: wraps a user's classifier (say a trained CNN), a callable that takes
  the 64x64 RGB picture of a cell, drawn by gridghost's renderer, and returns class
  probabilities; gridghost needs no deep-learning framework for it.

Which generator a sensor draws from: the reference's colour sensor draws from the game's own
generator, in the reference's order (that is what makes the reference traces replay); every other
sensor gets a generator of its own, derived from the reset seed, so adding or removing one never
changes the game's trajectory. :attr:`Sensor.uses_game_rng` says which kind a sensor is.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Collection, Sequence
from typing import Any

import numpy as np

from gridghost.core.checks import Unset, check_distribution, check_instance, check_probability
from gridghost.core.layout import COLOURS, ITEMS, Layout
from gridghost.core.rules import GameState, board_for, read_only

#: The classes of :class:`ItemSensor` (and the default classes of :class:`ClassifierSensor`).
ITEM_CLASSES: tuple[str, ...] = ("dog", "flower", "background")
#: The default accuracy of :class:`ItemSensor`: the confusion matrix's diagonal.
DEFAULT_ITEM_ACCURACY = 0.9
#: The side in pixels of the cell pictures :class:`ClassifierSensor` hands its classifier.
CLASSIFIER_IMAGE_SIZE = 64


def _unbound(sensor: Any) -> Any:
    raise AttributeError(f"{sensor!r} has no layout yet: pass it to an env, or call for_layout(layout)")


#: A shipped sensor's table before the sensor is bound to a layout: reading it says so.
_UNBOUND: Any = Unset(_unbound)


class Sensor:
    """The interface every sensor implements.

    A shipped sensor may be built without a layout (``ColorSensor(0.9)``): an env binds it to its
    own map with :meth:`for_layout`. A custom sensor sets :attr:`layout` itself, or defines
    ``_bind(layout)`` to build its tables for a layout.

    Attributes:
        name: the ``info`` key the measurement is reported under.
        layout: the layout the sensor measures (``None`` until bound).
        uses_game_rng: whether the env hands :meth:`measure` its game generator (only the
            reference colour sensor does) or a generator of the sensor's own.
    """

    name: str = "sensor"
    layout: Layout | None = None
    uses_game_rng: bool = False
    #: Bound copies kept per layout, so that binding one sensor twice to a map gives one object.
    _MAX_BOUND = 8

    def for_layout(self, layout: Layout) -> Sensor:
        """This sensor measuring ``layout``: itself when it already does, else a copy bound to it
        (the same copy for the same layout, for the last few layouts).

        Raises:
            TypeError: ``layout`` is not a Layout, or the sensor cannot bind one (a custom
                sensor without ``_bind``).
        """
        check_instance(layout, "layout", Layout)
        if self.layout == layout:
            return self
        bound: dict[Layout, Sensor] = self.__dict__.setdefault("_bound", {})
        if layout not in bound:
            if type(self)._bind is Sensor._bind:
                raise TypeError(f"sensor {self!r} cannot be bound to a layout; give it one itself")
            copy = object.__new__(type(self))
            copy.__dict__.update({key: value for key, value in self.__dict__.items() if key != "_bound"})
            copy._bind(layout)
            if len(bound) >= self._MAX_BOUND:
                bound.pop(next(iter(bound)))
            bound[layout] = copy
        return bound[layout]

    def _bind(self, layout: Layout) -> None:
        """Set :attr:`layout` and build the tables that depend on it (shipped sensors)."""
        raise NotImplementedError

    def measure(self, state: GameState, rng: np.random.Generator) -> Any:
        """Draw a reading of the agent's cell in ``state`` using ``rng``."""
        raise NotImplementedError(f"{type(self).__name__} must define measure(state, rng)")

    def likelihood(self, measurement: Any) -> np.ndarray:
        """``p(measurement | agent in cell)`` for every cell, as a ``rows x cols`` array."""
        raise NotImplementedError(f"{type(self).__name__} must define likelihood(measurement)")

    def possible_measurements(self) -> tuple[Any, ...]:
        """Every reading the sensor can give: for every cell, :meth:`likelihood` summed over them
        is 1."""
        raise NotImplementedError(f"{type(self).__name__} must define possible_measurements()")

    @property
    def info_keys(self) -> tuple[str, ...]:
        """The ``info`` keys :meth:`read` writes; the first is :attr:`name`."""
        return (self.name,)

    def code(self, measurement: Any) -> int:
        """A reading as a number, for the views' numeric infos: its position in
        :meth:`possible_measurements`.

        Raises:
            ValueError: ``measurement`` is not one of :meth:`possible_measurements`.
        """
        codes = self.__dict__.get("_codes")
        if codes is None:
            codes = self.__dict__["_codes"] = {value: i for i, value in enumerate(self.possible_measurements())}
        try:
            return codes[measurement]
        except (KeyError, TypeError):
            raise ValueError(f"sensor {self!r} read {measurement!r}, which is not one of its possible_measurements()"
                             ) from None

    def read(self, state: GameState, rng: np.random.Generator) -> dict[str, Any]:
        """One reading as ``info`` entries: ``{name: measure(state, rng)}``, plus whatever else
        a sensor reports alongside its measurement."""
        return {self.name: self.measure(state, rng)}

    def _describe(self, **settings: Any) -> str:
        """A shipped sensor's repr: ``Type(layout='map name', setting=value, ...)``."""
        layout = "None" if self.layout is None else repr(self.layout.name)
        return f"{type(self).__name__}(layout={layout}{''.join(f', {k}={v!r}' for k, v in settings.items())})"


class ColorSensor(Sensor):
    """Reads the colour of the agent's cell: right with probability ``quality``, else one of the
    two other colours with ``(1 - quality) / 2`` each.

    Draws exactly one ``rng.random()`` per reading, as the reference does.

    Args:
        layout: the map whose cell colours are read; ``None`` (or leaving it out:
            ``ColorSensor(0.9)``) for the env's map.
        quality: the probability of reading the true colour, in [0, 1]; ``None`` means 0.8.

    Raises:
        TypeError, ValueError: ``layout`` is not a Layout, or ``quality`` is not a number in
            [0, 1].
    """

    name = "color_measurement"
    uses_game_rng = True
    _colours = _likelihoods = _UNBOUND  # set by _bind

    def __init__(self, layout: Layout | float | None = None, quality: float | None = None) -> None:
        if quality is None and isinstance(layout, (int, float, np.number)) and not isinstance(layout, bool):
            layout, quality = None, layout  # ColorSensor(0.9)
        map_ = check_instance(layout, "layout", Layout, allow_none=True)
        self.quality = check_probability(0.8 if quality is None else quality, "quality")
        # Thresholds on one uniform draw, computed as the reference computes them.
        self._next_colour_below = self.quality + (1.0 - self.quality) / 2
        if map_ is not None:
            self._bind(map_)

    def _bind(self, layout: Layout) -> None:
        self.layout = layout
        self._colours = tuple(layout.colours.ravel().tolist())
        self._likelihoods = tuple(
            read_only(np.where(layout.colours == colour, self.quality, (1.0 - self.quality) / 2))
            for colour in range(len(COLOURS))
        )

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
        """``quality`` on cells of the measured colour, ``(1 - quality) / 2`` elsewhere (a shared,
        read-only array).

        Raises:
            ValueError: ``measurement`` is not a colour id.
        """
        if (
            isinstance(measurement, bool)
            or not isinstance(measurement, (int, np.integer))
            or measurement not in range(len(COLOURS))
        ):
            raise ValueError(f"measurement must be a colour id, an int 0..{len(COLOURS) - 1}, got {measurement!r}")
        return self._likelihoods[measurement]

    def possible_measurements(self) -> tuple[int, ...]:
        """The colour ids ``0, 1, 2``."""
        return tuple(range(len(COLOURS)))

    def __repr__(self) -> str:
        return self._describe(quality=self.quality)


def item_class(layout: Layout, cell: tuple[int, int]) -> int:
    """The index in :data:`ITEM_CLASSES` of what a cell shows: ``dog`` if it holds a dog,
    else ``flower`` if it holds a flower or two, else ``background`` (notes included)."""
    flags = {ITEMS[name] for name in layout.items_at(*cell)}
    return next((k for k, label in enumerate(ITEM_CLASSES[:-1]) if label in flags), len(ITEM_CLASSES) - 1)


class ClassSensor(Sensor):
    """A classifier of the agent's cell: each cell has a distribution over class labels, and a
    reading is one label drawn from it (one ``rng.random()``).

    The measurement, reported under :attr:`name`, is ``(label, probability)``; the class
    probability vector is reported under :attr:`probs_key`. :class:`ItemSensor` and
    :class:`ClassifierSensor` differ only in where the distributions and the reported vector
    come from. :meth:`likelihood` accepts the measurement or a bare label.

    A subclass defines ``_cell_table(layout)``: ``rows * cols x len(classes)``, row ``i`` the
    distribution of readings at cell ``i`` (row-major); and ``_probs(cell, label)`` when the
    vector it reports is not that distribution.

    Args:
        layout: the map, or ``None`` for the env's.
        classes: the class labels, in the order of the probability vectors.
        name: the ``info`` key of the measurement.
        probs_key: the ``info`` key of the probability vector.

    Raises:
        TypeError, ValueError: ``layout`` is not a Layout, ``name``/``probs_key`` are not
            distinct non-empty strings, or ``classes`` are not distinct strings.
    """

    _table = _thresholds = _likelihoods = _UNBOUND  # set by _bind
    #: Per cell and label: ``((label, probability), vector)`` (see :meth:`_report_table`).
    _reports: tuple[tuple[tuple[tuple[str, float], np.ndarray], ...], ...] | None = _UNBOUND

    def __init__(self, layout: Layout | None, classes: Sequence[str], name: str, probs_key: str) -> None:
        check_instance(layout, "layout", Layout, allow_none=True)
        for value, argument in ((name, "name"), (probs_key, "probs_key")):
            if not isinstance(value, str) or not value:
                raise TypeError(f"{argument} must be a non-empty str, got {value!r}")
        if name == probs_key:
            raise ValueError(f"name and probs_key must differ, both are {name!r}")
        labels = () if isinstance(classes, str) or not isinstance(classes, Sequence) else tuple(classes)
        if not all(isinstance(c, str) for c in labels) or len(set(labels)) < 2 or len(set(labels)) != len(labels):
            raise ValueError(f"classes must be a sequence of two or more distinct strings, got {classes!r}")
        self.classes: tuple[str, ...] = labels
        self.name = name
        self.probs_key = probs_key
        self._index = {label: k for k, label in enumerate(self.classes)}
        if layout is not None:
            self._bind(layout)

    def _cell_table(self, layout: Layout) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} must define _cell_table(layout)")

    def _bind(self, layout: Layout) -> None:
        table = self._cell_table(layout)
        self.layout = layout
        self._table = read_only(np.array(table, dtype=float))
        cumulative = np.cumsum(self._table, axis=1)
        self._thresholds = tuple(tuple(row[:-1]) for row in cumulative.tolist())
        shape = layout.shape
        self._likelihoods = tuple(read_only(self._table[:, k].reshape(shape).copy()) for k in range(len(self.classes)))
        self._reports = None  # see _report_table

    def _report_table(self) -> tuple[tuple[tuple[tuple[str, float], np.ndarray], ...], ...]:
        """Per cell and label read there: ``((label, probability), probability vector)``, as
        :meth:`read` reports it; built on the first reading (the vectors are read-only and the
        pairs immutable, so every reading shares them)."""
        table = [[self._probs(c, k) for k in range(len(self.classes))] for c in range(len(self._thresholds))]
        self._reports = tuple(
            tuple(((label, float(row[k][k])), row[k]) for k, label in enumerate(self.classes)) for row in table
        )
        return self._reports

    @property
    def info_keys(self) -> tuple[str, ...]:
        """``(name, probs_key)``."""
        return (self.name, self.probs_key)

    def _probs(self, cell: int, label: int) -> np.ndarray:
        """The probability vector reported with ``label`` read at ``cell`` (read-only): by default
        the cell's distribution of readings."""
        return self._table[cell]  # a view of a read-only array: read-only too

    def measure(self, state: GameState, rng: np.random.Generator) -> tuple[str, float]:
        """Draw a label at the agent's cell: ``(label, its probability in the reported vector)``."""
        return self.read(state, rng)[self.name]  # type: ignore[no-any-return]

    def read(self, state: GameState, rng: np.random.Generator) -> dict[str, Any]:
        """``{name: (label, probability), probs_key: float[len(classes)]}`` from one draw; the
        vector is a shared read-only array."""
        cell = state.agent
        # the first label whose running probability exceeds the draw (the thresholds never
        # decrease), the last one if none does
        measurement, probs = (self._reports or self._report_table())[cell][
            bisect_right(self._thresholds[cell], rng.random())
        ]
        return {self.name: measurement, self.probs_key: probs}

    def likelihood(self, measurement: Any) -> np.ndarray:
        """``p(label | agent in cell)`` for every cell (a shared, read-only array).

        Args:
            measurement: ``(label, probability)`` as reported, the label alone, or the label's
                index in :attr:`classes` (what numeric infos hold, :meth:`code`).

        Raises:
            ValueError: not one of :attr:`classes` (alone or as the first of a pair), nor an
                index of one.
        """
        label = measurement[0] if isinstance(measurement, (tuple, list)) and len(measurement) == 2 else measurement
        if isinstance(label, (int, np.integer)) and not isinstance(label, bool) and 0 <= label < len(self.classes):
            return self._likelihoods[int(label)]
        try:
            return self._likelihoods[self._index[label]]
        except (KeyError, TypeError):
            raise ValueError(
                f"measurement must be one of {list(self.classes)}, a (label, probability) pair or a label's index "
                f"0..{len(self.classes) - 1}, got {measurement!r}"
            ) from None

    def possible_measurements(self) -> tuple[str, ...]:
        """The class labels."""
        return self.classes

    def code(self, measurement: Any) -> int:
        """The label's position in :attr:`classes` (a reading is ``(label, probability)`` or the
        label alone).

        Raises:
            ValueError: not one of the labels.
        """
        return super().code(measurement[0] if isinstance(measurement, tuple) else measurement)


class ItemSensor(ClassSensor):
    """What an image classifier over ``dog``, ``flower`` and ``background`` reports about the
    agent's cell, simulated by a confusion matrix.

    The true class of a cell is ``dog`` if it holds a dog, else ``flower`` if it holds a flower
    or two, else ``background`` (see :func:`item_class`). A reading draws the predicted label from
    the confusion matrix's row of the true class (one ``rng.random()`` from the sensor's own
    generator). Alongside it the sensor reports the probability vector a calibrated classifier
    would output for that prediction: ``p(true class | predicted)`` under a uniform prior, the
    confusion matrix's column normalised. With the default accuracy 0.9 a ``dog`` prediction
    comes with ``[0.9, 0.05, 0.05]``.

    ``info["cnn_prediction"] = (label, probability)`` and ``info["cnn_probs"]`` are the
    reference's keys.

    Args:
        layout, name, probs_key: as :class:`ClassSensor`.
        accuracy: the probability of predicting the true class, the rest split evenly between the
            other two; ``None`` means 0.9. Not together with ``confusion``.
        confusion: a 3x3 matrix, ``confusion[true, predicted]``, rows summing to 1, in the order
            of :data:`ITEM_CLASSES`.

    Raises:
        TypeError, ValueError: ``accuracy`` outside [0, 1], a ``confusion`` matrix that is not
            3x3 with finite non-negative rows summing to 1, or both given.
    """

    def __init__(
        self,
        layout: Layout | None = None,
        accuracy: float | None = None,
        confusion: Any = None,
        name: str = "cnn_prediction",
        probs_key: str = "cnn_probs",
    ) -> None:
        k = len(ITEM_CLASSES)
        if confusion is None:
            acc = check_probability(DEFAULT_ITEM_ACCURACY if accuracy is None else accuracy, "accuracy")
            matrix = np.full((k, k), (1.0 - acc) / (k - 1))
            np.fill_diagonal(matrix, acc)
        elif accuracy is not None:
            raise ValueError("pass accuracy or confusion, not both")
        else:
            try:
                matrix = np.array(confusion, dtype=float)
            except (TypeError, ValueError):
                raise ValueError(f"confusion must be a {k}x{k} matrix of probabilities, got {confusion!r}") from None
            if matrix.shape != (k, k):
                raise ValueError(
                    f"confusion must be {k}x{k} (rows: true class, columns: predicted), got shape {matrix.shape}"
                )
            matrix = np.stack([check_distribution(row, f"confusion row {i} ({ITEM_CLASSES[i]})", k)
                               for i, row in enumerate(matrix)])
        self.confusion = read_only(matrix)
        columns = matrix.sum(axis=0)
        self._posteriors = tuple(
            read_only(matrix[:, j] / columns[j] if columns[j] > 0 else np.full(k, 1.0 / k)) for j in range(k)
        )
        super().__init__(layout, ITEM_CLASSES, name, probs_key)

    def _cell_table(self, layout: Layout) -> np.ndarray:
        self.true_classes = read_only(np.array([[item_class(layout, (r, c)) for c in range(layout.cols)]
                                                 for r in range(layout.rows)]))
        return self.confusion[self.true_classes.ravel()]

    def _probs(self, cell: int, label: int) -> np.ndarray:
        return self._posteriors[label]

    def __repr__(self) -> str:
        return self._describe(confusion=self.confusion.tolist())


class ClassifierSensor(ClassSensor):
    """Plugs a user's image classifier (a trained CNN, say) in as a sensor.

    ``classifier(image)`` takes the ``64 x 64 x 3`` ``uint8`` RGB picture of a cell, as
    ``images`` draws it (pass :func:`gridghost.drawing.cell_images` for gridghost's own pictures,
    drawn without a window), and returns the class probabilities in the order of ``classes``. It
    is called once per cell, when the sensor is built: a cell's picture never changes, so neither
    does the classifier's answer (give a deterministic classifier). A reading at the agent's cell
    draws a label from that cell's probabilities (one ``rng.random()`` from the sensor's own
    generator), so a confident classifier gives steady readings and an unsure one noisy readings,
    and the likelihood of a label at a cell is exactly the probability the classifier gave it
    there. The classifier's vector for the cell is reported under ``probs_key``.

    Args:
        layout: the map, or ``None`` for the env's (the classifier is then called when the
            sensor is bound to it).
        classifier: ``classifier(image: np.ndarray) -> probabilities``.
        classes: the labels of the classifier's outputs; :data:`ITEM_CLASSES` by default.
        name, probs_key: the ``info`` keys.
        images: ``images(layout, size) -> uint8[rows, cols, size, size, 3]``, the pictures of a
            map's cells the classifier sees, called with ``size =`` :data:`CLASSIFIER_IMAGE_SIZE`
            when the sensor is bound to a map. The sensors do not draw (drawing sits beside them,
            not below): :func:`gridghost.drawing.cell_images` is gridghost's own pictures.

    Raises:
        TypeError: ``classifier`` or ``images`` is not callable, or ``images`` returns something
            other than ``uint8[rows, cols, size, size, 3]``.
        ValueError: the classifier returns something other than ``len(classes)`` finite,
            non-negative probabilities summing to 1 (within 1e-5, float32 softmax rounding;
            the vector is then renormalised) for some cell.
    """

    def __init__(
        self,
        layout: Layout | None = None,
        classifier: Callable[[np.ndarray], Any] | None = None,
        classes: Sequence[str] = ITEM_CLASSES,
        name: str = "cnn_prediction",
        probs_key: str = "cnn_probs",
        *,
        images: Callable[[Layout, int], np.ndarray] | None = None,
    ) -> None:
        if not callable(classifier):
            raise TypeError(f"classifier must be a callable image -> class probabilities, got {classifier!r}")
        if not callable(images):
            raise TypeError(f"images must be a callable images(layout, size) -> uint8[rows, cols, size, size, 3], the "
                            f"pictures of the cells the classifier sees (gridghost.drawing.cell_images draws "
                            f"gridghost's own), got {images!r}")
        self.classifier = classifier
        self.images = images
        super().__init__(layout, classes, name, probs_key)

    def _cell_table(self, layout: Layout) -> np.ndarray:
        images = self.images(layout, CLASSIFIER_IMAGE_SIZE)
        shape = (layout.rows, layout.cols, CLASSIFIER_IMAGE_SIZE, CLASSIFIER_IMAGE_SIZE, 3)
        if not isinstance(images, np.ndarray) or images.dtype != np.uint8 or images.shape != shape:
            raise TypeError(f"images(layout, {CLASSIFIER_IMAGE_SIZE}) must return a uint8 array of shape {shape}, got "
                            f"{getattr(images, 'dtype', type(images).__name__)} {getattr(images, 'shape', '')}")
        size = len(self.classes)
        return np.array([
            check_distribution(self.classifier(images[r, c].copy()), f"classifier output for cell {(r, c)}", size, 1e-5)
            for r in range(layout.rows)
            for c in range(layout.cols)
        ])

    def __repr__(self) -> str:
        return self._describe(classifier=self.classifier, classes=self.classes)


def make_sensors(
    layout: Layout,
    sensors: Sequence[Sensor] | None = None,
    color_sensor_quality: float | None = None,
    reserved_names: Collection[str] = (),
) -> tuple[Sensor, ...]:
    """Resolve the envs' sensor keywords.

    Args:
        layout: the env's layout; every sensor must measure this layout, or be built without
            one (it is then bound to this one, see :meth:`Sensor.for_layout`).
        sensors: sensor instances, or ``None`` for the colour sensor alone.
        color_sensor_quality: the quality of the default colour sensor (``None`` means 0.8);
            only valid when ``sensors`` is ``None``.
        reserved_names: ``info`` keys the env writes itself, which no sensor may use as its name.

    Returns:
        The sensors, bound to ``layout``, in the order they measure after each agent move.

    Raises:
        TypeError: an entry is not a :class:`Sensor`, or has no name or no layout.
        ValueError: both keywords are given, two sensors share a name, a name is reserved or
            starts with ``_``, a sensor measures a different layout, or its ``read()`` reports
            other keys than its ``info_keys`` (checked once here, with a dry-run reading).
    """
    if sensors is None:
        quality = 0.8 if color_sensor_quality is None else color_sensor_quality
        return (ColorSensor(layout, check_probability(quality, "color_sensor_quality")),)
    if color_sensor_quality is not None:
        raise ValueError("color_sensor_quality only applies to the default sensor; sensors were given")
    if isinstance(sensors, Sensor) or not isinstance(sensors, Sequence):
        raise TypeError(f"sensors must be a sequence of Sensor objects, got {sensors!r}")
    names: set[str] = set()
    bound: list[Sensor] = []
    for sensor in sensors:
        if not isinstance(sensor, Sensor):
            raise TypeError(f"sensors must hold Sensor objects, got {sensor!r}")
        if getattr(sensor, "layout", None) is None and type(sensor)._bind is not Sensor._bind:
            sensor = sensor.for_layout(layout)
        if not isinstance(sensor.name, str) or not sensor.name:
            raise TypeError(f"sensor {sensor!r} needs a non-empty str name, got {sensor.name!r}")
        keys = tuple(sensor.info_keys)
        if not keys or keys[0] != sensor.name or not all(isinstance(key, str) and key for key in keys):
            raise TypeError(f"sensor {sensor!r} info_keys must be non-empty strs, its name first; got {keys!r}")
        for key in keys:
            if key in reserved_names or key.startswith("_"):
                raise ValueError(
                    f"sensor {sensor!r} reports under {key!r}, an info key the env writes itself; "
                    f"reserved: {sorted(reserved_names)} and every key starting with '_'"
                )
            if key in names:
                raise ValueError(f"two sensors report under the same info key {key!r}")
        if not isinstance(getattr(sensor, "layout", None), Layout):
            raise TypeError(f"sensor {sensor!r} must have a layout attribute holding a gridghost.Layout")
        if sensor.layout != layout:
            raise ValueError(f"sensor {sensor!r} measures {sensor.layout!r}, not the env's {layout!r}")
        if type(sensor).read is not Sensor.read:
            # A dry run at the start cells, from a throwaway generator: a sensor whose read()
            # reports other keys than it declares is refused here, not in the middle of a step.
            reported = sensor.read(board_for(layout).initial_state(), np.random.default_rng(0))
            if not isinstance(reported, dict) or set(reported) != set(keys):
                raise ValueError(
                    f"sensor {sensor!r} read() must report exactly its info_keys {list(keys)}, "
                    f"got {sorted(reported) if isinstance(reported, dict) else reported!r}"
                )
        names.update(keys)
        bound.append(sensor)
    return tuple(bound)
