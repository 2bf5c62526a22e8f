"""Microseconds per predict+update of gridghost's belief filters against a plain Python particle
loop, and steps per second of ``AgentInterface`` with its particle filter on against MiniGrid,
same run.

Filters: ``ParticleFilter`` with 200, 1,000 and 10,000 particles and ``HistogramFilter`` (exact,
for reference) follow one pre-generated random trajectory of the agent alone on the classic map
(longitudinal slip 0.2, colour and item sensors; see ``filter_accuracy.py``), so generating the
readings is not timed. The baseline is :class:`PythonLoopFilter`, the same algorithm written as a
per-particle Python loop, fed the same actions and readings. With N particles both run
``--steps * 200 / N`` predict+update steps per round (so the loops cost about the same at every
size), after an untimed ``reset(seed=round)`` and ``update`` on the start reading.

Environment: ``AgentInterface(render=False, use_particle_filter=True, pf_num_particles=200,
pf_sensor_mode="both")`` under random actions, reset when an episode ends, against
``MiniGrid-Empty-5x5-v0`` run as in ``single_agent_throughput.py``; the interface without a filter
is shown for reference.

All contenders of a table run interleaved, round after round, in process CPU time; the printed
ratio is the median over rounds of each contender's rate over the same round's baseline rate.

    python benchmarks/filter_speed.py                       # 7 rounds, 2,000 filter steps, 5,000 env steps
    python benchmarks/filter_speed.py --rounds 3 --steps 400 --env-steps 1000

Targets: ``ParticleFilter`` >= 50x the Python loop at 200 particles; ``AgentInterface`` with the
200-particle filter >= 2x MiniGrid (the reference implementation runs at about 0.11x).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from gridghost.filters import HistogramFilter, ParticleFilter
from gridghost.layout import CLASSIC, Layout
from gridghost.rules import board_for
from gridghost.sensors import ColorSensor, ItemSensor, Sensor
from gridghost.slip import SlipModel, make_slip

from filter_accuracy import Trajectory, simulate
from harness import interleaved_rates, print_ratio_table
from single_agent_throughput import BASELINE as MINIGRID
from single_agent_throughput import gym_rate, interface_rate, minigrid

PARTICLE_COUNTS = (200, 1_000, 10_000)
#: ``--steps`` counts the steps of the 200-particle contenders; larger filters run fewer.
REFERENCE_PARTICLES = 200
RESAMPLE_THRESHOLD = 0.5
FILTER_TARGET = 50.0
INTERFACE_TARGET = 2.0
EXACT = "HistogramFilter (exact)"


class PythonLoopFilter:
    """The particle filter's algorithm as a plain per-particle Python loop: the baseline.

    :meth:`predict` moves each particle by the moves the slip model samples for it through the
    layout's movement table; :meth:`update` multiplies the sensors' likelihood maps once, weighs
    each particle by the value at its cell, normalises, and resamples systematically when the
    effective sample size ``1 / sum(w**2)`` drops below half the particles. The sensors used here
    never give a reading probability 0, so the weights never all vanish.
    """

    def __init__(
        self, layout: Layout, slip: SlipModel, sensors: Sequence[Sensor], num_particles: int
    ) -> None:
        self.slip = slip
        self.sensors = tuple(sensors)
        self.next_cell = board_for(layout).next_cell
        self.num_cells = layout.rows * layout.cols
        self.num_particles = num_particles
        self.reset(0)

    def reset(self, seed: int) -> None:
        """Spread the particles uniformly at random, with equal weights."""
        self.rng = np.random.default_rng(seed)
        self.particles: list[int] = self.rng.integers(self.num_cells, size=self.num_particles).tolist()
        self.weights = [1.0 / self.num_particles] * self.num_particles

    def predict(self, action: int) -> None:
        """Move every particle by its own draw from the slip model."""
        next_cell, sample, rng = self.next_cell, self.slip.sample, self.rng
        moved = []
        for cell in self.particles:
            for move in sample(action, rng):
                cell = next_cell[cell][move]
            moved.append(cell)
        self.particles = moved

    def update(self, measurements: Mapping[str, Any]) -> None:
        """Weigh the particles by the readings; resample when the effective sample size is low."""
        likelihood = np.prod([sensor.likelihood(measurements[sensor.name]) for sensor in self.sensors], axis=0)
        at = likelihood.ravel().tolist()
        weights = [weight * at[cell] for weight, cell in zip(self.weights, self.particles, strict=True)]
        total = sum(weights)
        weights = [weight / total for weight in weights]
        if sum(weight * weight for weight in weights) * RESAMPLE_THRESHOLD * self.num_particles > 1.0:
            self._resample(weights)
        else:
            self.weights = weights

    def _resample(self, weights: list[float]) -> None:
        """Systematic resampling: one uniform, evenly spaced pointers walked along the weights."""
        n = self.num_particles
        spacing = 1.0 / n
        pointer = self.rng.random() * spacing
        cumulative, i = weights[0], 0
        chosen = []
        for _ in range(n):
            while cumulative <= pointer and i < n - 1:
                i += 1
                cumulative += weights[i]
            chosen.append(self.particles[i])
            pointer += spacing
        self.particles = chosen
        self.weights = [spacing] * n


def trajectory(steps: int, seed: int) -> tuple[SlipModel, list[Sensor], Trajectory]:
    """The slip model, sensors and one random trajectory every filter contender follows."""
    slip = make_slip(None, 0.2, "longitudinal")
    sensors: list[Sensor] = [ColorSensor(CLASSIC, 0.8), ItemSensor(CLASSIC, 0.9)]
    motion, readings = np.random.SeedSequence(seed).spawn(2)
    path = simulate(CLASSIC, slip, sensors, steps, np.random.default_rng(motion), np.random.default_rng(readings))
    return slip, sensors, path


def filter_rate(belief_filter: Any, path: Trajectory, steps: int, seed: int) -> float:
    """Predict+update steps per second (process CPU time) along the first ``steps`` moves of
    ``path``, after an untimed reset and update on the start reading."""
    belief_filter.reset(seed)
    belief_filter.update(path.readings[0])
    moves = list(zip(path.actions[:steps], path.readings[1 : steps + 1], strict=True))
    predict, update = belief_filter.predict, belief_filter.update
    start = time.process_time()
    for action, readings in moves:
        predict(action)
        update(readings)
    return len(moves) / (time.process_time() - start)


def loop_name(n: int) -> str:
    """The table name of the Python loop with ``n`` particles."""
    return f"Python loop, {n:,} particles"


def particle_name(n: int) -> str:
    """The table name of ``ParticleFilter`` with ``n`` particles."""
    return f"ParticleFilter, {n:,} particles"


def filter_contenders(steps: int, seed: int) -> dict[str, Callable[[int], float]]:
    """Name -> rate for a round's seed, for the loops, the particle filters and the exact filter."""
    slip, sensors, path = trajectory(steps, seed)
    contenders: dict[str, Callable[[int], float]] = {}
    for n in PARTICLE_COUNTS:
        n_steps = max(1, steps * REFERENCE_PARTICLES // n)
        loop = PythonLoopFilter(CLASSIC, slip, sensors, n)
        vectorised = ParticleFilter(CLASSIC, slip, sensors, n, resample_threshold=RESAMPLE_THRESHOLD)
        contenders[loop_name(n)] = lambda seed, f=loop, k=n_steps: filter_rate(f, path, k, seed)
        contenders[particle_name(n)] = lambda seed, f=vectorised, k=n_steps: filter_rate(f, path, k, seed)
    exact = HistogramFilter(CLASSIC, slip, sensors)
    contenders[EXACT] = lambda seed: filter_rate(exact, path, steps, seed)
    return contenders


def interface_contenders(steps: int) -> dict[str, tuple[Callable[[int], float], float | None]]:
    """Name -> (rate for a round's seed, target ratio to MiniGrid)."""
    with_filter = {"use_particle_filter": True, "pf_num_particles": 200, "pf_sensor_mode": "both"}
    return {
        MINIGRID: (lambda seed: gym_rate(minigrid, steps, seed), None),
        "AgentInterface, ParticleFilter(200)": (
            lambda seed: interface_rate(steps, seed, **with_filter),
            INTERFACE_TARGET,
        ),
        "AgentInterface, no filter": (lambda seed: interface_rate(steps, seed), None),
    }


def print_microseconds(rates: Mapping[str, list[float]], names: Sequence[str]) -> None:
    """The median over rounds of each contender's microseconds per predict+update."""
    width = max(len(name) for name in names) + 1
    print(f"{'contender':<{width}} {'µs/update':>13}")
    for name in names:
        print(f"{name:<{width}} {statistics.median(1e6 / rate for rate in rates[name]):>13,.1f}")


def main(argv: list[str] | None = None) -> int:
    """Run both interleaved benchmarks and print their tables; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds (the median is printed)")
    parser.add_argument("--steps", type=int, default=2_000, help="predict+update steps per round at 200 particles")
    parser.add_argument("--env-steps", type=int, default=5_000, help="env steps per contender per round")
    parser.add_argument("--seed", type=int, default=0, help="seeds the trajectory the filters follow")
    args = parser.parse_args(argv)
    if min(args.rounds, args.steps, args.env_steps) < 1 or args.seed < 0:
        parser.error("--rounds, --steps and --env-steps must be >= 1 and --seed >= 0")

    rates = interleaved_rates(filter_contenders(args.steps, args.seed), args.rounds)
    print(
        f"Filter speed on {CLASSIC.name}: predict+update, longitudinal slip 0.2, colour and item sensors; "
        f"{args.rounds} interleaved rounds x {args.steps:,} steps at 200 particles (proportionally fewer above)"
    )
    for n in PARTICLE_COUNTS:
        targets = {loop_name(n): None, particle_name(n): FILTER_TARGET if n == REFERENCE_PARTICLES else None}
        if n == REFERENCE_PARTICLES:
            targets[EXACT] = None
        print()
        print_ratio_table(rates, targets, loop_name(n), "updates/s")
    print()
    print_microseconds(rates, list(rates))

    table = interface_contenders(args.env_steps)
    rates = interleaved_rates({name: rate for name, (rate, _) in table.items()}, args.rounds)
    print()
    print(f"AgentInterface with its particle filter: random actions, {args.rounds} interleaved rounds x "
          f"{args.env_steps:,} steps")
    print_ratio_table(rates, {name: target for name, (_, target) in table.items()}, MINIGRID, "steps/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
