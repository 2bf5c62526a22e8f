"""How often the particle filter's most probable cell is the agent's true cell, against the exact
(histogram) filter on the same trajectories.

The ghost is left out: only the agent moves, playing uniformly random actions carried out through
the slip model (``slip.sample``) and the layout's walls (``Board.next_cell``), for a fixed number
of steps whatever cells it crosses (goals do not end an episode: the filters are the subject).
Both sensors read the true cell at the start and after every move, and the filters of a row read
the keys of their sensor mode from those readings, so every row of a slip type follows the same
trajectories and the same readings. Each filter starts with ``reset()`` and ``update()`` on the
reading at the start cell; then, after every move, ``predict(action)`` and ``update(readings)``,
and the step counts as a hit when the true cell is the most probable one (``1/k`` of a hit when
it is one of ``k`` cells tied for the highest belief). Accuracy is hits over all moves (the
start reading is not scored); the ratio is the particle filter's hits over the exact
filter's. Its standard error is taken over episodes (the steps of an episode are correlated, and
both filters follow the same episode), and "agree" is the share of steps where both filters
name the same cell.

Everything is seeded from ``--seed``: the trajectories from one generator, the sensor readings
from another, and the particle filter by ``reset(seed=...)`` with a seed per episode (the same in
every row), so the output is reproducible.

    python benchmarks/filter_accuracy.py                  # 1,000 episodes x 30 steps, 200 particles
    python benchmarks/filter_accuracy.py --episodes 100 --steps 10 --seed 3

Target: ``ParticleFilter`` (200 particles) accuracy >= 0.99x the exact filter's in every row
(the reference implementation's particle filter reached about 0.93x).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
from tqdm import tqdm

from gridghost.core.layout import CLASSIC, Layout
from gridghost.core.rules import NUM_ACTIONS, GameState, board_for
from gridghost.core.slip import SlipModel, make_slip
from gridghost.sensing.filters import BeliefFilter, HistogramFilter, ParticleFilter
from gridghost.sensing.sensors import ColorSensor, ItemSensor, Sensor

from harness import add_progress_option, verdict

SLIP_TYPES = ("longitudinal", "perpendicular")
SLIP_PROBABILITY = 0.2
COLOR_QUALITY = 0.8
ITEM_ACCURACY = 0.9
SENSOR_MODES = ("color", "cnn", "both")
TARGET = 0.99
#: Beliefs within this relative distance of the highest count as tied for it.
TIE_TOLERANCE = 1e-9


class Trajectory(NamedTuple):
    """One simulated episode of the agent alone.

    Attributes:
        actions: the intended action of each move.
        cells: the true cell (row-major index) at the start and after each move.
        readings: the sensors' ``info`` entries read at each of ``cells``.
    """

    actions: list[int]
    cells: list[int]
    readings: list[dict[str, Any]]


def read_all(sensors: Sequence[Sensor], state: GameState, rng: np.random.Generator) -> dict[str, Any]:
    """Every sensor's ``info`` entries for one reading of ``state``, in the order given."""
    return {key: value for sensor in sensors for key, value in sensor.read(state, rng).items()}


def simulate(
    layout: Layout,
    slip: SlipModel,
    sensors: Sequence[Sensor],
    steps: int,
    motion_rng: np.random.Generator,
    sensor_rng: np.random.Generator,
) -> Trajectory:
    """Random moves of the agent from its start cell, without the ghost, read by ``sensors``.

    The actions and slips draw from ``motion_rng``, the readings from ``sensor_rng``.
    """
    board = board_for(layout)
    start = board.initial_state()
    cell = start.agent
    actions = motion_rng.integers(NUM_ACTIONS, size=steps).tolist()
    cells = [cell]
    readings = [read_all(sensors, start, sensor_rng)]
    for action in actions:
        for move in slip.sample(action, motion_rng):
            cell = board.next_cell[cell][move]
        cells.append(cell)
        readings.append(read_all(sensors, GameState(cell, start.ghost), sensor_rng))
    return Trajectory(actions, cells, readings)


def track(belief_filter: BeliefFilter, trajectory: Trajectory, seed: int) -> tuple[list[int], list[float]]:
    """Follow ``trajectory`` from ``reset(seed=seed)``.

    Returns:
        The filter's most probable cell after each move (``estimate()["cell_pos"]``, row-major
        index), and the MAP credit of each move: ``1 / k`` when the true cell is one of the ``k``
        cells tied for the highest belief, else 0. Splitting ties keeps the score fair: the
        exact filter often has exact ties (symmetric cells), and ``cell_pos`` breaks them by
        row-major order, which would otherwise favour whichever cells come first.
    """
    cols = belief_filter.layout.cols
    belief_filter.reset(seed=seed)
    belief_filter.update(trajectory.readings[0])
    estimates, credits = [], []
    for action, readings, truth in zip(
        trajectory.actions, trajectory.readings[1:], trajectory.cells[1:], strict=True
    ):
        belief_filter.predict(action)
        belief_filter.update(readings)
        row, col = belief_filter.estimate()["cell_pos"]
        estimates.append(row * cols + col)
        belief = belief_filter.belief().ravel()
        tied = belief >= belief.max() * (1 - TIE_TOLERANCE)
        credits.append(float(tied[truth]) / np.count_nonzero(tied))
    return estimates, credits


class Row(NamedTuple):
    """Per-episode counts of one slip type and sensor mode."""

    particle_hits: np.ndarray
    exact_hits: np.ndarray
    agreements: np.ndarray


def ratio_and_error(numerators: np.ndarray, denominators: np.ndarray) -> tuple[float, float]:
    """``sum(numerators) / sum(denominators)`` and its standard error, treating the episodes as
    independent samples of (numerator, denominator) pairs (the ratio estimator's delta method)."""
    n = len(numerators)
    total = denominators.sum()
    if total == 0:
        return math.nan, math.nan
    ratio = numerators.sum() / total
    if n < 2:
        return float(ratio), math.nan
    residuals = numerators - ratio * denominators
    return float(ratio), float(math.sqrt(n / (n - 1) * (residuals @ residuals)) / total)


def evaluate(
    slip_type: str, episodes: int, steps: int, particles: int, seeds: Mapping[str, np.random.SeedSequence],
    progress: bool = False,
) -> Iterator[tuple[str, Row]]:
    """Run both filters of every sensor mode over the same episodes; yields ``(mode, row)``. With
    ``progress``, a bar on stderr counts the episodes."""
    layout = CLASSIC
    slip = make_slip(None, SLIP_PROBABILITY, slip_type)
    color, item = ColorSensor(layout, COLOR_QUALITY), ItemSensor(layout, ITEM_ACCURACY)
    modes: dict[str, list[Sensor]] = {"color": [color], "cnn": [item], "both": [color, item]}
    filters = {
        mode: (ParticleFilter(layout, slip, sensors, particles), HistogramFilter(layout, slip, sensors))
        for mode, sensors in modes.items()
    }
    counts = {mode: np.zeros((3, episodes)) for mode in SENSOR_MODES}
    motion_rng = np.random.default_rng(seeds["motion"])
    sensor_rng = np.random.default_rng(seeds["sensors"])
    filter_seeds = seeds["filter"].generate_state(episodes).tolist()
    for episode, filter_seed in enumerate(tqdm(filter_seeds, desc=slip_type, unit="episode", disable=not progress)):
        trajectory = simulate(layout, slip, [color, item], steps, motion_rng, sensor_rng)
        for mode, (particle, exact) in filters.items():
            particle_cells, particle_credits = track(particle, trajectory, filter_seed)
            exact_cells, exact_credits = track(exact, trajectory, filter_seed)
            counts[mode][:, episode] = (
                sum(particle_credits),
                sum(exact_credits),
                np.count_nonzero(np.array(particle_cells) == np.array(exact_cells)),
            )
    for mode in SENSOR_MODES:
        yield mode, Row(*counts[mode])


def main(argv: list[str] | None = None) -> int:
    """Evaluate every slip type and sensor mode and print the table; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=1_000, help="random trajectories per slip type")
    parser.add_argument("--steps", type=int, default=30, help="moves per trajectory")
    parser.add_argument("--particles", type=int, default=200, help="the particle filter's particles")
    parser.add_argument("--seed", type=int, default=0, help="seeds trajectories, readings and particle filters")
    add_progress_option(parser)
    args = parser.parse_args(argv)
    if min(args.episodes, args.steps, args.particles) < 1:
        parser.error("--episodes, --steps and --particles must be >= 1")
    if args.seed < 0:
        parser.error("--seed must be >= 0")

    motion, sensors, filters = np.random.SeedSequence(args.seed).spawn(3)
    seeds = {"motion": motion, "sensors": sensors, "filter": filters}
    compared = args.episodes * args.steps
    pf = f"PF({args.particles})"
    print(
        f"Filter accuracy on {CLASSIC.name} ({CLASSIC.rows}x{CLASSIC.cols}), seed {args.seed}: "
        f"{args.episodes:,} episodes x {args.steps} steps = {compared:,} steps compared per row"
    )
    print(
        f"slip {SLIP_PROBABILITY}, colour quality {COLOR_QUALITY}, item accuracy {ITEM_ACCURACY}; "
        "accuracy = share of steps whose MAP cell is the true cell (1/k when k cells tie)"
    )
    print(f"{'slip':<14}{'sensors':<8}{pf:>9}{'exact':>7}{'ratio':>8}{'± se':>7}{'agree':>7}  target")
    for slip_type in SLIP_TYPES:
        for mode, row in evaluate(slip_type, args.episodes, args.steps, args.particles, seeds, args.progress):
            ratio, error = ratio_and_error(row.particle_hits, row.exact_hits)
            print(
                f"{slip_type:<14}{mode:<8}{row.particle_hits.sum() / compared:>9.3f}"
                f"{row.exact_hits.sum() / compared:>7.3f}{ratio:>7.3f}x{error:>7.3f}"
                f"{row.agreements.sum() / compared:>7.3f}  {verdict(ratio, TARGET)}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
