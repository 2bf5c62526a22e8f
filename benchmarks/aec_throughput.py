"""Half-steps per second of gridghost's AEC env against PettingZoo's tictactoe_v3, same run.

Every contender plays random actions through the standard loop (``agent_iter``, ``last``,
``step``), seeded once per round and reset without a seed whenever an episode ends, as a training
loop does. gridghost's actions are uniform over its four moves (bumping into a wall is a legal
move); tictactoe's are uniform over the legal squares its observation's action mask lists (an
illegal move would end its game). The contenders run interleaved,
round after round, timed in process CPU time (time spent descheduled on a shared machine does not
count); each round's rates are divided by the same round's tictactoe rate and the median ratio is
printed, so a machine that slows down moves both sides of the ratio together.

    python benchmarks/aec_throughput.py            # 11 rounds of 10,000 half-steps each
    python benchmarks/aec_throughput.py --rounds 3 --half-steps 2000

Targets: ``raw_env()`` >= 5x ``tictactoe_v3.env()``, ``env()`` >= 3x. The other encodings
(``obs_type=...``) are listed for comparison with ``"vector"``, without targets.
"""

from __future__ import annotations

import argparse
import functools
import time
import warnings
from collections.abc import Callable

import numpy as np
from pettingzoo.utils import wrappers

import gridghost
from gridghost import Layout, MapGenerator

from harness import add_progress_option, interleaved_rates, print_ratio_table

with warnings.catch_warnings():
    # PettingZoo's bundled envs warn about their deprecated module-level API on import.
    warnings.simplefilter("ignore", DeprecationWarning)
    from pettingzoo.classic import tictactoe_v3


def with_generic_wrappers() -> object:
    """gridghost's bare env under PettingZoo's generic checking wrappers, for comparison."""
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(gridghost.raw_env()))


#: A generated 12x12 map (a maze with loops), played as a fixed map.
GENERATED_12 = Layout.generate(12, 12, seed=0)

def generator_env() -> object:
    """The AEC env on a 100-level 12x12 generator, every level visited once (built and kept), so
    the rounds time resets that switch between kept maps, not the first build of each map."""
    env = gridghost.raw_env(layout=MapGenerator(12, 12, num_levels=100), obs_type="vector")
    env.reset(seed=0)
    for _ in range(2000):
        env.reset()
    return env


CONTENDERS: dict[str, tuple[Callable[[], object], float | None]] = {
    "tictactoe_v3.env()": (tictactoe_v3.env, None),
    "gridghost.env()": (gridghost.env, 3.0),
    "gridghost.raw_env()": (gridghost.raw_env, 5.0),
    "raw_env() in PettingZoo's generic wrappers": (with_generic_wrappers, None),
    "raw_env(obs_type='vector')": (functools.partial(gridghost.raw_env, obs_type="vector"), None),
    "raw_env(obs_type='grid')": (functools.partial(gridghost.raw_env, obs_type="grid"), None),
    "raw_env(obs_type='grid', view_radius=2)": (
        functools.partial(gridghost.raw_env, obs_type="grid", view_radius=2), None),
    "raw_env(obs_type='text')": (functools.partial(gridghost.raw_env, obs_type="text"), None),
    "raw_env(obs_type='belief_vector')": (functools.partial(gridghost.raw_env, obs_type="belief_vector"), None),
    "raw_env(layout=12x12 generated, obs_type='vector')": (
        functools.partial(gridghost.raw_env, layout=GENERATED_12, obs_type="vector"), None),
    "raw_env(layout=12x12 generated, obs_type='grid')": (
        functools.partial(gridghost.raw_env, layout=GENERATED_12, obs_type="grid"), None),
    "raw_env(layout=MapGenerator(12, 12, num_levels=100), 'vector'), warm": (generator_env, None),
}
BASELINE = "tictactoe_v3.env()"


def half_steps_per_second(env: object, half_steps: int, seed: int) -> float:
    """Play ``half_steps`` half-steps of random actions; return the rate in process CPU time."""
    rng = np.random.default_rng(seed)
    uniforms = rng.random(half_steps + 1).tolist()
    # A Python int: Gymnasium's Discrete.n is a NumPy integer, and a float times a NumPy integer costs
    # about 1.3 us, more than a tenth of a gridghost half-step, which the harness would charge to every env.
    num_actions = int(env.action_space(env.possible_agents[0]).n)
    done = 0
    start = time.process_time()
    env.reset(seed=seed)
    while done < half_steps:
        if done:
            env.reset()
        for _ in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                action = None
            elif isinstance(observation, dict) and "action_mask" in observation:
                legal = np.flatnonzero(observation["action_mask"])
                action = int(legal[int(uniforms[done] * len(legal))])
            else:
                action = int(uniforms[done] * num_actions)
            env.step(action)
            done += 1
            if done >= half_steps:
                break
    return done / (time.process_time() - start)


def run_contenders(description: str, title: str, contenders: dict[str, tuple[Callable[[], object], float | None]],
                   baseline: str, argv: list[str] | None = None) -> None:
    """Read ``--rounds`` and ``--half-steps`` from ``argv``, time every contender (an env maker and
    its target ratio) in interleaved rounds, and print rates and ratios against ``baseline``."""
    parser = argparse.ArgumentParser(description=description)
    add_progress_option(parser)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--half-steps", type=int, default=10_000, help="half-steps per contender per round")
    args = parser.parse_args(argv)

    envs = {name: make() for name, (make, _) in contenders.items()}
    rates = interleaved_rates(
        {name: lambda seed, env=env: half_steps_per_second(env, args.half_steps, seed) for name, env in envs.items()},
        args.rounds,
        args.progress,
    )
    print(f"{title}: random actions, {args.rounds} interleaved rounds x {args.half_steps:,} half-steps")
    print_ratio_table(rates, {name: target for name, (_, target) in contenders.items()}, baseline, "half-steps/s")


def main(argv: list[str] | None = None) -> None:
    """Run the interleaved rounds and print rates and ratios."""
    run_contenders(__doc__.splitlines()[0], "AEC throughput", CONTENDERS, BASELINE, argv)


if __name__ == "__main__":
    main()
