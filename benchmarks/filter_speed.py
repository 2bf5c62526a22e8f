"""Microseconds per step of gridghost's belief filters, and steps per second of ``AgentInterface``
with its particle filter on against MiniGrid, same run.

Filters: ``ParticleFilter`` with 200, 10,000 and 1,000,000 particles, and ``HistogramFilter`` (exact,
the baseline of the table), follow one pre-generated random trajectory of the agent alone on the
classic map (longitudinal slip 0.2, colour and item sensors; see ``filter_accuracy.py``), so
generating the readings is not timed. A filter step is what ``AgentInterface`` asks of its filter
on every move: ``predict``, ``update`` and ``estimate``. Each contender runs ``--steps`` steps per
round after an untimed ``reset(seed=round)`` and ``update`` on the start reading.

Environment: ``AgentInterface(render=False, use_particle_filter=True, pf_num_particles=200,
pf_sensor_mode="both")`` under random actions, reset when an episode ends, against
``MiniGrid-Empty-5x5-v0`` run as in ``single_agent_throughput.py``; the interface with the exact
filter and without a filter is shown for reference.

All contenders of a table run interleaved, round after round, in process CPU time; the printed
ratio is the median over rounds of each contender's rate over the same round's baseline rate,
and the microseconds are the median over rounds.

    python benchmarks/filter_speed.py                       # 7 rounds, 2,000 filter steps, 5,000 env steps
    python benchmarks/filter_speed.py --rounds 3 --steps 400 --env-steps 1000

Target: ``AgentInterface`` with the 200-particle filter >= 2x MiniGrid (the reference
implementation runs at about 0.11x).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from gridghost.core.layout import CLASSIC
from gridghost.core.slip import SlipModel, make_slip
from gridghost.sensing.filters import HistogramFilter, ParticleFilter
from gridghost.sensing.sensors import ColorSensor, ItemSensor, Sensor

from filter_accuracy import Trajectory, simulate
from harness import add_progress_option, interleaved_rates, print_ratio_table
from single_agent_throughput import BASELINE as MINIGRID
from single_agent_throughput import gym_rate, interface_rate, minigrid

PARTICLE_COUNTS = (200, 10_000, 1_000_000)
RESAMPLE_THRESHOLD = 0.5
INTERFACE_TARGET = 2.0
EXACT = "HistogramFilter (exact)"
INTERFACE = "AgentInterface, ParticleFilter(200)"


def trajectory(steps: int, seed: int) -> tuple[SlipModel, list[Sensor], Trajectory]:
    """The slip model, sensors and one random trajectory every filter contender follows."""
    slip = make_slip(None, 0.2, "longitudinal")
    sensors: list[Sensor] = [ColorSensor(CLASSIC, 0.8), ItemSensor(CLASSIC, 0.9)]
    motion, readings = np.random.SeedSequence(seed).spawn(2)
    path = simulate(CLASSIC, slip, sensors, steps, np.random.default_rng(motion), np.random.default_rng(readings))
    return slip, sensors, path


def filter_rate(belief_filter: Any, path: Trajectory, steps: int, seed: int) -> float:
    """Filter steps (predict, update, estimate) per second, in process CPU time, along the first
    ``steps`` moves of ``path``, after an untimed reset and update on the start reading."""
    belief_filter.reset(seed)
    belief_filter.update(path.readings[0])
    moves = list(zip(path.actions[:steps], path.readings[1 : steps + 1], strict=True))
    predict, update, estimate = belief_filter.predict, belief_filter.update, belief_filter.estimate
    start = time.process_time()
    for action, readings in moves:
        predict(action)
        update(readings)
        estimate()
    return len(moves) / (time.process_time() - start)


def particle_name(n: int) -> str:
    """The table name of ``ParticleFilter`` with ``n`` particles."""
    return f"ParticleFilter, {n:,} particles"


def filter_contenders(steps: int, seed: int) -> dict[str, Callable[[int], float]]:
    """Name -> rate for a round's seed: the exact filter (the baseline), then the particle filters."""
    slip, sensors, path = trajectory(steps, seed)
    exact = HistogramFilter(CLASSIC, slip, sensors)
    contenders: dict[str, Callable[[int], float]] = {EXACT: lambda seed: filter_rate(exact, path, steps, seed)}
    for n in PARTICLE_COUNTS:
        particle = ParticleFilter(CLASSIC, slip, sensors, n, resample_threshold=RESAMPLE_THRESHOLD)
        contenders[particle_name(n)] = lambda seed, f=particle: filter_rate(f, path, steps, seed)
    return contenders


def interface_contenders(steps: int) -> dict[str, tuple[Callable[[int], float], float | None]]:
    """Name -> (rate for a round's seed, target ratio to MiniGrid)."""
    with_filter = {"use_particle_filter": True, "pf_num_particles": 200, "pf_sensor_mode": "both"}
    return {
        MINIGRID: (lambda seed: gym_rate(minigrid, steps, seed), None),
        INTERFACE: (lambda seed: interface_rate(steps, seed, **with_filter), INTERFACE_TARGET),
        "AgentInterface, HistogramFilter": (
            lambda seed: interface_rate(steps, seed, **with_filter, filter_type="histogram"),
            None,
        ),
        "AgentInterface, no filter": (lambda seed: interface_rate(steps, seed), None),
    }


def print_microseconds(rates: Mapping[str, list[float]], names: Sequence[str]) -> None:
    """The median over rounds of each contender's microseconds per step."""
    width = max(len(name) for name in names) + 1
    print(f"{'contender':<{width}} {'µs/step':>13}")
    for name in names:
        print(f"{name:<{width}} {statistics.median(1e6 / rate for rate in rates[name]):>13,.1f}")


def main(argv: list[str] | None = None) -> int:
    """Run both interleaved benchmarks and print their tables; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_progress_option(parser)
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds (the median is printed)")
    parser.add_argument("--steps", type=int, default=2_000, help="filter steps per contender per round")
    parser.add_argument("--env-steps", type=int, default=5_000, help="env steps per contender per round")
    parser.add_argument("--seed", type=int, default=0, help="seeds the trajectory the filters follow")
    args = parser.parse_args(argv)
    if min(args.rounds, args.steps, args.env_steps) < 1 or args.seed < 0:
        parser.error("--rounds, --steps and --env-steps must be >= 1 and --seed >= 0")

    rates = interleaved_rates(filter_contenders(args.steps, args.seed), args.rounds, args.progress)
    print(
        f"Filter steps (predict, update, estimate) on {CLASSIC.name}: longitudinal slip 0.2, colour and item "
        f"sensors; {args.rounds} interleaved rounds x {args.steps:,} steps"
    )
    print_ratio_table(rates, dict.fromkeys(rates), EXACT, "steps/s")
    print()
    print_microseconds(rates, list(rates))

    table = interface_contenders(args.env_steps)
    rates = interleaved_rates({name: rate for name, (rate, _) in table.items()}, args.rounds, args.progress)
    print()
    print(f"AgentInterface with its particle filter: random actions, {args.rounds} interleaved rounds x "
          f"{args.env_steps:,} steps")
    print_ratio_table(rates, {name: target for name, (_, target) in table.items()}, MINIGRID, "steps/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
