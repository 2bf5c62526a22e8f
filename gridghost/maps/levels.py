"""Level sets: a fresh generated map at every reset, seeded, split into training and test levels,
and difficulty presets measured by the exact solver.

A :class:`MapGenerator` passed as an env's ``layout=`` draws one *level* per ``reset``. Level
``i`` is always the same map (a function of ``i`` and the generator's settings), so that, as in
Procgen, ``num_levels`` and ``start_level`` choose a set of levels: levels
``start_level .. start_level + num_levels - 1``, or every level from ``start_level`` on when
``num_levels`` is ``None``. Two generators whose level ranges do not overlap never share a map,
which makes held-out test levels::

    train = MapGenerator(difficulty=2, num_levels=500)                  # levels 0..499
    test = MapGenerator(difficulty=2, start_level=500, num_levels=100)  # levels 500..599

For the difficulty presets the split is defined once, in :data:`SPLITS` (:func:`level_split`).

The level of an episode is drawn from the env's map stream, spawned from the reset seed (see
:data:`gridghost.core.names.MAP_STREAM`), so it never shifts the game's own draws and the same reset seed
gives the same map.

Level ``i`` of a difficulty (:class:`Difficulty`) is the first of its candidate maps whose
:func:`success_probability` falls in the difficulty's band. Solved levels are kept in a bounded
cache, so a level costs its solves once per process; see ``benchmarks/difficulty_levels.py`` for
the cost per reset. Coordination levels (``coordination=True``), which cost far more, are also
kept on disk (:mod:`gridghost.maps.store`), and :meth:`MapGenerator.levels` solves a whole level
set in several processes.

>>> generator = MapGenerator(6, 6, num_levels=10)
>>> generator.level(3) == generator.level(3), generator.level(3) == generator.level(4)
(True, False)
>>> generator.level(3).shape
(6, 6)
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import json
import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from gridghost import _moved
from gridghost.core.checks import check_choice, check_flag, check_ghosts, check_instance, check_limit
from gridghost.core.game import Game
from gridghost.core.generate import WALL_KIND_OPTIONS
from gridghost.core.layout import Layout
from gridghost.core.progress import make_bar
from gridghost.core.recent import RecentCache
from gridghost.core.slip import DEFAULT_SLIP_PROBABILITY, LongitudinalSlip, SlipModel, slip_from_dict, slip_to_dict
from gridghost.maps.store import LevelStore


@dataclasses.dataclass(frozen=True)
class Difficulty:
    """One difficulty preset: a map size, a band of success probabilities and the generator's
    settings that make maps in it likely.

    Attributes:
        rows, cols: the size of every map of this difficulty.
        low, high: the band ``low <= success probability <= high`` of the agent under optimal
            play by both sides.
        options: keyword arguments of :meth:`~gridghost.core.layout.Layout.generate`.
        margins: ``(lowest, highest)`` race margin (:func:`race_margin`) of the candidates worth
            solving, or ``None`` to solve every candidate. A cheap filter, calibrated against the
            solver: nearly every map in the band has a margin in this range, and most maps
            outside it are not in the band. The band itself is always checked by the solver.
    """

    rows: int
    cols: int
    low: float
    high: float
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    margins: tuple[int, int] | None = None


#: The difficulty presets, 0 (easy for the agent) to 3 (a real contest); ``env(difficulty=d)``
#: plays ``MapGenerator(difficulty=d, num_levels=DIFFICULTY_LEVELS)``. The options and margins
#: were calibrated with ``benchmarks/difficulty_study.py``; the Maps page's table gives the bands'
#: measured spread (``benchmarks/difficulty_levels.py``).
DIFFICULTIES: dict[int, Difficulty] = {
    0: Difficulty(5, 5, 0.95, 1.0, {"walls": "maze", "loops": 0.0}),
    1: Difficulty(6, 6, 0.8, 0.95, {"walls": "maze", "loops": 0.3, "num_goals": 2}, margins=(-2, 3)),
    2: Difficulty(6, 6, 0.6, 0.8, {"walls": "none"}, margins=(0, 1)),
    3: Difficulty(6, 6, 0.3, 0.6, {"walls": "maze", "loops": 0.15}, margins=(0, 1)),
}
#: The levels ``difficulty=d`` plays: levels 0..499 of the preset, each solved once per process
#: (an unbounded set would solve a new map at almost every reset); the ``"train"`` split of
#: :data:`SPLITS`.
DIFFICULTY_LEVELS = 500
#: The one train/test split of every difficulty, ``split -> (start_level, num_levels)``: the
#: envs train on levels 0..499 (``env(difficulty=d)``), and held-out scores are measured on levels
#: 500..599, which no training level equals (level ``i`` is a function of ``i``). Every held-out
#: number gridghost publishes (the README's baselines, ``benchmarks/baselines.py``) is on these.
SPLITS: dict[str, tuple[int, int]] = {"train": (0, DIFFICULTY_LEVELS), "test": (DIFFICULTY_LEVELS, 100)}
#: The most candidate maps a difficulty draws for one level before giving up with an error.
MAX_ATTEMPTS = 1000
#: The horizon (full turns), discount and tolerance of the success probabilities that place a
#: map in a band.
BAND_HORIZON, BAND_GAMMA, BAND_TOL = 100, 0.99, 1e-6
#: The slip model whose reach (two cells: a longitudinal double move) every shipped model stays
#: within; an opening move checked under it cannot end the game under any of them.
_REACH_SLIP = LongitudinalSlip(0.2)
#: The options of a coordination generator (``MapGenerator(..., ghosts=k, coordination=True)``)
#: under the caller's: mazes with loops and two goals, where about one 6x6 candidate in eight is
#: a coordination map (two goals a lone ghost cannot both guard; open maps have almost none).
COORDINATION_OPTIONS: Mapping[str, Any] = {"walls": "maze", "loops": 0.3, "num_goals": 2}
#: The most levels kept solved per process (all generators together).
LEVEL_CACHE_SIZE = 4096
#: The version of what a solved level is (the candidates' draws, the tests that accept one): part
#: of the disk cache's key (:mod:`gridghost.maps.store`), raised whenever a setting's levels change.
LEVELS_VERSION = 1


def check_difficulty(value: Any) -> int:
    """Return ``value`` if it is a difficulty preset (an int in :data:`DIFFICULTIES`).

    Raises:
        TypeError: not an int (bools are refused).
        ValueError: an int that is no preset.
    """
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
        raise TypeError(f"difficulty must be an int in {sorted(DIFFICULTIES)}, got {value!r}")
    if int(value) not in DIFFICULTIES:
        raise ValueError(f"unknown difficulty {value!r}; accepted: {sorted(DIFFICULTIES)}")
    return int(value)


def level_split(difficulty: int, split: str, num_levels: int | None = None) -> MapGenerator:
    """The levels of one split of a difficulty preset (:data:`SPLITS`), as a generator an env
    plays (``layout=level_split(2, "train")`` is what ``difficulty=2`` plays) or an evaluation
    reads (:func:`gridghost.evaluate`).

    >>> level_split(2, "test").start_level, level_split(2, "test").num_levels
    (500, 100)

    Args:
        difficulty: a preset of :data:`DIFFICULTIES`.
        split: ``"train"`` or ``"test"``.
        num_levels: the split's first ``num_levels`` levels only (``None``: all of them).

    Returns:
        The :class:`MapGenerator` of those levels.

    Raises:
        TypeError, ValueError: an unknown difficulty or split, or ``num_levels`` not in
            1..the split's size.
    """
    check_difficulty(difficulty)
    check_choice(split, "split", sorted(SPLITS))
    start, size = SPLITS[split]
    count = check_limit(num_levels, "num_levels")
    if count is not None and count > size:
        raise ValueError(f"num_levels={count} is more than the {size} levels of the {split!r} split")
    return MapGenerator(difficulty=difficulty, start_level=start, num_levels=size if count is None else count)


def race_margin(layout: Layout) -> int:
    """How many more steps the ghost needs than the agent to reach a goal (each to its nearest
    goal, through the walls): the cheap proxy of a map's difficulty. Below 0 the ghost gets
    there first and the agent rarely wins; from 2 on the agent nearly always does.

    >>> from gridghost.core.layout import CLASSIC
    >>> race_margin(CLASSIC)   # the ghost starts on a goal; the agent is 4 steps from the nearest
    -4
    """
    distance = layout.distances_from(layout.goals)
    return distance[layout.ghost_start] - distance[layout.agent_start]


def success_probability(layout: Layout, slip: SlipModel | None = None) -> float:
    """The agent's probability of reaching a goal within :data:`BAND_HORIZON` full turns from the
    map's starts when both sides play the zero-sum game's minimax policies; what places a map in a
    difficulty band.

    Args:
        layout: the map.
        slip: the agent's slip model; ``None`` means longitudinal, probability 0.2.

    Raises:
        TypeError, ValueError: as :func:`gridghost.planning.solve.solve_game`.
    """
    from gridghost.planning import solve_game  # the solver imports the env's modules; keep this module light

    slip = LongitudinalSlip(DEFAULT_SLIP_PROBABILITY) if slip is None else slip
    game = solve_game(layout, slip, gamma=BAND_GAMMA, tol=BAND_TOL)
    return game.success_probability(layout.agent_start, layout.ghost_start, horizon=BAND_HORIZON)


class MapGenerator:
    """A set of generated maps of one size, one per level: what an env plays when it gets a fresh
    map at every reset.

    Args:
        rows, cols: the size of every map (``None`` with a ``difficulty``: the preset's size).
        difficulty: ``None``, or a preset of :data:`DIFFICULTIES` (0..3): every level's map then
            has a success probability in the preset's band.
        num_levels: how many levels there are (``None``: unbounded).
        start_level: the first level.
        slip: the slip model under which a difficulty's band (or coordination) is measured;
            ``None`` means the slip of the env the generator serves (an env binds it with
            :meth:`for_slip`), and longitudinal slip of probability 0.2 when used alone.
        coordination: with ``ghosts=k >= 2``, every level is a coordination map: one minimax
            ghost, and ``k`` ghosts chasing on their own, each leave the agent a success
            probability of at least 0.5 within 100 cycles, and the exact team optimum holds it
            to at most 0.1 (:func:`gridghost.planning.check_coordination`, solved for every
            candidate until one passes: a level costs a second or more, once per machine, as
            solved levels go to the disk cache of :mod:`gridghost.maps.store`). Its options
            default to :data:`COORDINATION_OPTIONS`.
        **options: keyword arguments of :meth:`~gridghost.core.layout.Layout.generate` (``walls``,
            ``loops``, ``min_distance``, ``ghosts``, ...), over the preset's; a preset's option
            that the caller's make invalid is dropped (its ``loops``, when ``walls`` is not
            ``"maze"``). ``ghosts=k`` gives every level ``k`` ghost starts, for an env whose
            ``ghosts`` setting is ``k`` (or less): ``MapGenerator(8, 8, ghosts=2)``.

    Attributes:
        ghosts: how many ghost starts every level has (1 unless ``ghosts`` is given).

    Raises:
        TypeError, ValueError: sizes that are not ints >= 1 (or that differ from the preset's),
            an unknown difficulty, ``num_levels`` < 1, ``start_level`` < 0, a ``slip`` that is
            not a slip model, ``ghosts`` not an int in ``1..MAX_GHOSTS``, ``ghosts`` above 1
            with a difficulty (its band is measured against one ghost), ``coordination`` not a
            bool or without a team, or options :meth:`Layout.generate` refuses (found by
            building the first level).
    """

    def __init__(
        self,
        rows: int | None = None,
        cols: int | None = None,
        difficulty: int | None = None,
        num_levels: int | None = None,
        start_level: int = 0,
        *,
        slip: SlipModel | None = None,
        coordination: bool = False,
        **options: Any,
    ) -> None:
        self.ghosts = check_ghosts(options.get("ghosts", 1), "ghosts")
        self.coordination = check_flag(coordination, "coordination")
        if coordination:
            if self.ghosts < 2:
                raise ValueError("coordination=True draws maps for a team: give ghosts=2 or more")
            options = _over_preset(COORDINATION_OPTIONS, options)
        if self.ghosts == 1:
            options.pop("ghosts", None)  # the default: the same generator, and the same levels, as without it
        elif difficulty is not None:
            raise ValueError(f"ghosts={self.ghosts} cannot go with a difficulty: the difficulty bands are measured "
                             "against one ghost; give rows and cols instead")
        if difficulty is not None:
            difficulty = check_difficulty(difficulty)  # a Python int: the generator keeps it (and to_dict writes it)
            preset = DIFFICULTIES[difficulty]
            for name, value, expected in (("rows", rows, preset.rows), ("cols", cols, preset.cols)):
                if value is not None and value != expected:
                    raise ValueError(f"{name}={value!r}, but difficulty {difficulty} plays {preset.rows}x{preset.cols} "
                                     f"maps; leave {name} out")
            rows, cols, options = preset.rows, preset.cols, _over_preset(preset.options, options)
        elif rows is None or cols is None:
            raise TypeError("MapGenerator needs rows and cols (or a difficulty, which sets them)")
        self.rows = check_limit(rows, "rows", allow_none=False)
        self.cols = check_limit(cols, "cols", allow_none=False)
        self.difficulty = difficulty
        self.num_levels = check_limit(num_levels, "num_levels")
        if not isinstance(start_level, (int, np.integer)) or isinstance(start_level, bool) or start_level < 0:
            raise ValueError(f"start_level must be an int >= 0, got {start_level!r}")
        self.start_level = int(start_level)
        self.slip = check_instance(slip, "slip", SlipModel, allow_none=True)
        self._band_slip = LongitudinalSlip(DEFAULT_SLIP_PROBABILITY) if slip is None else slip
        taken = sorted({"seed", "name", "rows", "cols"} & set(options))
        if taken:
            raise TypeError(f"MapGenerator sets {taken} itself for every level; the options are Layout.generate's "
                            "other keywords (walls, loops, wall_density, num_goals, min_distance, ...)")
        # NumPy scalars kept as the Python numbers they equal (Layout.generate checks them): to_dict()
        # writes JSON, and the checks below read a NumPy min_distance as its int
        self.options: dict[str, Any] = {name: value.item() if isinstance(value, np.generic) else value
                                        for name, value in options.items()}
        # Layout.generate keeps starts and goals min_distance apart: from 3 on (its default), no
        # opening move reaches them; closer maps are checked and redrawn (bad values are
        # Layout.generate's to refuse, with the first level below).
        distance = self.options.get("min_distance", 3)
        self._check_opening = not (isinstance(distance, int) and distance >= 3)
        # What a level's map depends on (not the range of levels): the level cache's key
        self._levels_key = (self.rows, self.cols, self.difficulty, self.coordination, self._band_slip,
                            json.dumps(self.options, sort_keys=True, default=repr))
        self._store = self._disk_store()
        self.level(self.start_level)  # refuses bad options now, not at the first reset

    # -- identity --------------------------------------------------------------------------------
    def _key(self) -> tuple[Any, ...]:
        return (self._levels_key, self.num_levels, self.start_level, self.slip)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MapGenerator) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        size = f"{self.rows}x{self.cols}"
        extra = "".join(f", {k}={v!r}" for k, v in sorted(self.options.items()))
        coordination = ", coordination=True" if self.coordination else ""
        return (f"MapGenerator({size}, difficulty={self.difficulty}, num_levels={self.num_levels}, "
                f"start_level={self.start_level}{coordination}{extra})")

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, cols)`` of every map."""
        return self.rows, self.cols

    def for_slip(self, slip: SlipModel) -> MapGenerator:
        """This generator measuring its difficulty under ``slip`` (itself when it has no
        difficulty, or already measures under that slip model).

        Raises:
            ValueError: the generator was given another slip model explicitly.
        """
        if (self.difficulty is None and not self.coordination) or self.slip == slip:
            return self
        if self.slip is not None:
            raise ValueError(f"the map generator measures difficulty under {self.slip!r}, the env's slip is {slip!r}; "
                             "give the generator the env's slip model (or none)")
        return MapGenerator(self.rows, self.cols, self.difficulty, self.num_levels, self.start_level, slip=slip,
                            coordination=self.coordination, **_without_preset(self.difficulty, self.options))

    # -- levels ----------------------------------------------------------------------------------
    def draw(self, rng: np.random.Generator) -> int:
        """The level of the next episode, drawn from ``rng`` (the env's map stream)."""
        return self.start_level + int(rng.integers(2**62 if self.num_levels is None else self.num_levels))

    def level(self, index: int) -> Layout:
        """The map of level ``index`` (the same map on every call, in every process).

        Raises:
            ValueError: ``index`` is not an int >= 0, or a difficulty found no map in its band
                within :data:`MAX_ATTEMPTS` candidates.
        """
        return self._entry(index)[0]

    def level_success(self, index: int) -> float | None:
        """The measured success probability of level ``index``: under a difficulty, the agent's
        against one minimax ghost; with ``coordination``, against the team optimum; ``None``
        otherwise (nothing is solved).

        Raises:
            ValueError: as :meth:`level`.
        """
        return self._entry(index)[1]

    def levels(self, workers: int | None = None, progress_bar: bool = False) -> list[Layout]:
        """The maps of every level of the set, in order: ``level(start_level)``, ...; the levels
        not yet solved in this process nor on disk are solved by ``workers`` processes at once.

        Level ``i`` depends on ``i`` and the settings only, so the levels are the same whatever
        the number of workers, and a coordination level set is solved once per machine: each level
        goes to the disk cache (:mod:`gridghost.maps.store`) as soon as it is solved. The worker
        processes start the way :class:`concurrent.futures.ProcessPoolExecutor` starts them, so a
        script that calls this with ``workers`` above 1 guards its entry point with ``if __name__
        == "__main__":`` where processes are spawned (Windows, macOS).

        >>> [level.name for level in MapGenerator(5, 5, num_levels=2, start_level=7).levels()]
        ['level-7-5x5', 'level-8-5x5']

        Args:
            workers: how many processes solve levels (1: this one only); ``None`` means one per
                CPU (``os.cpu_count()``). A generator without a difficulty or ``coordination``
                solves nothing and draws its levels here.
            progress_bar: count the levels solved on a progress bar on stderr.

        Returns:
            A new list of the ``num_levels`` maps.

        Raises:
            ValueError: the set is unbounded (``num_levels=None``), or a level has no map (as
                :meth:`level`).
            TypeError, ValueError: ``workers`` not an int >= 1 nor ``None``, ``progress_bar`` not
                a bool.
        """
        count = check_limit(workers, "workers", none_means="one per CPU")
        check_flag(progress_bar, "progress_bar")
        if self.num_levels is None:
            raise ValueError("levels() lists a bounded level set; this generator has num_levels=None (every level "
                             "from start_level on): give num_levels, or read single levels with level(index)")
        indices = range(self.start_level, self.start_level + self.num_levels)
        missing = [index for index in indices if (self._levels_key, index) not in _CACHE.kept
                   and self._stored(index) is None]
        count = min(len(missing), (os.cpu_count() or 1) if count is None else count)
        if self.difficulty is None and not self.coordination:
            count = 1  # nothing to solve: a level is drawn in a millisecond, sooner than a process starts
        with make_bar(progress_bar, len(missing), "levels", unit="level") as bar:
            if count <= 1:
                for index in missing:
                    self._entry(index)
                    bar.update()
            else:
                with concurrent.futures.ProcessPoolExecutor(count) as pool:
                    jobs = {pool.submit(self._build, index): index for index in missing}
                    try:
                        for job in concurrent.futures.as_completed(jobs):
                            self._save(jobs[job], job.result())
                            self._remember(jobs[job], job.result())
                            bar.update()
                    except BaseException:  # a level without a map, or an interrupt: the levels not started stay so
                        for job in jobs:
                            job.cancel()
                        raise
        return [self.level(index) for index in indices]

    def _entry(self, index: int) -> tuple[Layout, float | None]:
        """Level ``index``'s map and success probability, from the level cache."""
        if not isinstance(index, (int, np.integer)) or isinstance(index, bool) or index < 0:
            raise ValueError(f"level index must be an int >= 0, got {index!r}")
        # Keyed by what a level depends on: equal keys build equal maps, whichever generator asks.
        return _CACHE.get((self._levels_key, int(index)), lambda: self._stored_or_built(int(index)))

    def _disk_store(self) -> LevelStore | None:
        """The disk cache's files of this generator's levels: coordination levels only (a
        difficulty's level solves in tens of milliseconds), under a slip model with a dict form."""
        if not self.coordination:
            return None
        try:
            slip = slip_to_dict(self._band_slip)
        except ValueError:  # a custom slip model: nothing on disk could say which one it was
            return None
        return LevelStore({"levels": LEVELS_VERSION, "rows": self.rows, "cols": self.cols,
                           "difficulty": self.difficulty, "coordination": self.coordination, "slip": slip,
                           "options": self.options})

    def _stored(self, index: int) -> tuple[Layout, float | None] | None:
        """Level ``index`` from the disk cache, kept in the level cache; ``None`` if not there."""
        entry = None if self._store is None else self._store.read(index)
        if entry is not None:
            self._remember(index, entry)
        return entry

    def _stored_or_built(self, index: int) -> tuple[Layout, float | None]:
        """Level ``index`` from the disk cache, or built and then written there."""
        entry = None if self._store is None else self._store.read(index)
        if entry is None:
            entry = self._build(index)
            self._save(index, entry)
        return entry

    def _save(self, index: int, entry: tuple[Layout, float | None]) -> None:
        """Write level ``index`` to the disk cache (if this generator's levels go there)."""
        if self._store is not None:
            self._store.write(index, *entry)

    def _remember(self, index: int, entry: tuple[Layout, float | None]) -> None:
        """Keep level ``index``, found elsewhere than in :meth:`_entry`, in the level cache."""
        _CACHE.get((self._levels_key, index), lambda: entry)

    def _build(self, index: int) -> tuple[Layout, float | None]:
        """Level ``index``: its first candidate map in the band, and the map's success probability."""
        name = f"level-{index}-{self.rows}x{self.cols}" + ("" if self.difficulty is None else f"-d{self.difficulty}")
        name += "-coordination" if self.coordination else ""
        preset = None if self.difficulty is None else DIFFICULTIES[self.difficulty]
        for attempt in range(MAX_ATTEMPTS):
            seed = np.random.SeedSequence(index, spawn_key=(attempt,))
            layout = Layout.generate(self.rows, self.cols, seed=seed, name=name, **self.options)
            if self._check_opening and Game(layout, _REACH_SLIP, ghosts=self.ghosts).opening_can_end():
                continue  # a learning ghost could not play it
            if self.coordination:
                from gridghost.planning import check_coordination  # keep this module light

                numbers = check_coordination(layout, self.ghosts, self._band_slip, horizon=BAND_HORIZON,
                                             gamma=BAND_GAMMA)
                if numbers is not None:
                    return layout, numbers.team
                continue
            if preset is None:
                return layout, None
            if preset.margins is not None and not preset.margins[0] <= race_margin(layout) <= preset.margins[1]:
                continue
            success = success_probability(layout, self._band_slip)
            if preset.low <= success <= preset.high:
                return layout, success
        wanted = "" if preset is None else f" of success probability in [{preset.low}, {preset.high}]"
        wanted = " that asks a team to coordinate" if self.coordination else wanted
        under = "" if preset is None and not self.coordination else f" under {self._band_slip!r}"
        raise ValueError(f"the map generator found no map{wanted}{under} whose opening move cannot end the game "
                         f"within {MAX_ATTEMPTS} candidates for level {index}; its options (or, for a difficulty, the "
                         "slip model: without slip a map is won or lost for sure) make such maps unreachable")

    # -- data --------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The generator as JSON-able data: ``{"generator": {...}}``; :meth:`from_dict` reads it back.

        Raises:
            ValueError: a custom slip model (it has no dict form).
        """
        body = {
            "rows": self.rows, "cols": self.cols, "difficulty": self.difficulty, "num_levels": self.num_levels,
            "start_level": self.start_level, "slip": None if self.slip is None else slip_to_dict(self.slip),
            "options": _without_preset(self.difficulty, self.options),
        }
        if self.coordination:  # written only when set: every other generator's dict is as before
            body["coordination"] = True
        return {"generator": body}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MapGenerator:
        """Build a generator from :meth:`to_dict`'s form.

        Raises:
            TypeError, ValueError: not that form, or settings the constructor refuses.
        """
        fields = {"rows", "cols", "difficulty", "num_levels", "start_level", "slip", "options", "coordination"}
        body = data.get("generator") if isinstance(data, Mapping) and set(data) == {"generator"} else None
        if not isinstance(body, Mapping) or not set(body) <= fields:
            raise TypeError(f"a map generator dict is {{'generator': {{...}}}} with keys {sorted(fields)}, "
                            f"got {data!r}")
        settings = dict(body)
        options = settings.pop("options", None)
        options = {} if options is None else options
        if not isinstance(options, Mapping):
            raise TypeError(f"a map generator's 'options' must be a dict (or None for none), got {options!r}")
        if settings.get("slip") is not None:
            settings["slip"] = slip_from_dict(settings["slip"])
        if settings.get("difficulty") is None:
            settings.setdefault("rows", None)
        return cls(**settings, **options)


def _over_preset(preset: Mapping[str, Any], options: Mapping[str, Any]) -> dict[str, Any]:
    """The caller's ``options`` over a preset's, without the preset's options that the caller's
    make invalid: a preset's ``loops`` (mazes only) goes when the caller picks other walls."""
    walls = options.get("walls", preset.get("walls", "maze"))
    dropped = {option for option, kind in WALL_KIND_OPTIONS.items() if option not in options and walls != kind}
    return {**{key: value for key, value in preset.items() if key not in dropped}, **options}


def _without_preset(difficulty: int | None, options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` without the entries the difficulty's preset sets to the same values."""
    preset = {} if difficulty is None else DIFFICULTIES[difficulty].options
    return {key: value for key, value in options.items() if key not in preset or preset[key] != value}


#: Solved levels by (settings, index), at most :data:`LEVEL_CACHE_SIZE` of them.
_CACHE: RecentCache[tuple[Layout, float | None]] = RecentCache(lambda: LEVEL_CACHE_SIZE)


def clear_level_cache() -> None:
    """Forget every solved level (for measuring the cost of drawing levels)."""
    _CACHE.clear()


def __getattr__(name: str) -> Any:
    """The map sources (``resolve_layout``, ``map_source``, ``read_map_file``,
    ``MAX_MAP_FILE_BYTES``), read from here as before they moved to :mod:`gridghost.maps.sources`
    (see :mod:`gridghost._moved`)."""
    return _moved.moved_name(__name__, name)
