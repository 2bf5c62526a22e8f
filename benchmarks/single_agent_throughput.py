"""Full agent steps per second of gridghost's single-agent views against MiniGrid, same run.

A "step" is one call that returns the learner's next observation: for gridghost the agent's move
and the chasing ghost's answer; for MiniGrid one move in ``MiniGrid-Empty-5x5-v0``. Every
contender plays uniformly random actions from its action space, seeded once per round and reset
without a seed whenever an episode ends, as a training loop does. Gymnasium envs are built with
``gymnasium.make`` (so with its default wrappers), as users build them.

    pip install -e ".[bench]"                              # MiniGrid, the baseline
    python benchmarks/single_agent_throughput.py           # 7 rounds of 5,000 steps each
    python benchmarks/single_agent_throughput.py --rounds 3 --steps 1000

Target: ``AgentInterface`` >= 5x MiniGrid (the reference implementation runs at about 1x).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np

import gridghost

from harness import add_progress_option, interleaved_rates, print_ratio_table

BASELINE = "MiniGrid-Empty-5x5-v0"


def gym_rate(make: Callable[[], gymnasium.Env], steps: int, seed: int) -> float:
    """Steps per second (process CPU time) of a Gymnasium env under random actions."""
    env = make()
    actions = np.random.default_rng(seed).integers(0, env.action_space.n, size=steps).tolist()
    start = time.process_time()
    env.reset(seed=seed)
    for action in actions:
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            env.reset()
    return steps / (time.process_time() - start)


def interface_rate(steps: int, seed: int, **kwargs: Any) -> float:
    """Steps per second (process CPU time) of ``AgentInterface(render=False, **kwargs)`` under
    random actions, reset when an episode ends; without the filter unless ``kwargs`` ask."""
    facade = gridghost.AgentInterface(render=False, **{"use_particle_filter": False, **kwargs})
    actions = np.random.default_rng(seed).integers(0, 4, size=steps).tolist()
    start = time.process_time()
    facade.reset(seed=seed)
    for action in actions:
        if facade.step(action)[2]:
            facade.reset()
    return steps / (time.process_time() - start)


def minigrid() -> gymnasium.Env:
    """MiniGrid's smallest env, the baseline."""
    import minigrid  # noqa: F401 - registers the MiniGrid envs

    return gymnasium.make(BASELINE)


def contenders(steps: int) -> dict[str, tuple[Callable[[int], float], float | None]]:
    """Name -> (rate for a round's seed, target ratio)."""

    def gym(**kwargs: Any) -> Callable[[int], float]:
        return lambda seed: gym_rate(lambda: gymnasium.make(gridghost.ENV_ID, **kwargs), steps, seed)

    return {
        BASELINE: (lambda seed: gym_rate(minigrid, steps, seed), None),
        "AgentInterface": (lambda seed: interface_rate(steps, seed), 5.0),
        "GridGhost-v1 (dict obs)": (gym(), None),
        "GridGhost-v1 (vector obs)": (gym(obs_type="vector"), None),
        "GridGhost-v1 (ghost learner, vector)": (gym(controlled="ghost", obs_type="vector"), None),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the interleaved rounds and print rates and ratios; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_progress_option(parser)
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds (the median is printed)")
    parser.add_argument("--steps", type=int, default=5_000, help="steps per contender per round")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.steps < 1:
        parser.error("--rounds and --steps must be >= 1")
    table = contenders(args.steps)
    rates = interleaved_rates({name: rate for name, (rate, _) in table.items()}, args.rounds, args.progress)
    print(f"Single-agent throughput: random actions, {args.rounds} interleaved rounds x {args.steps:,} steps")
    print_ratio_table(rates, {name: target for name, (_, target) in table.items()}, BASELINE, "steps/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
