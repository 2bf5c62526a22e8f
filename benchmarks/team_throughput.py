"""Full cycles per second of the AEC env with a team of ghosts, against one ghost and against
PettingZoo's SISL ``pursuit_v5`` at the same team size, same run.

Every contender plays random actions through the standard loop (``agent_iter``, ``last``,
``step``, :func:`aec_throughput.half_steps_per_second`) in interleaved rounds, timed in process
CPU time. A full cycle is every agent's move once: with k ghosts, k + 1 half-steps (the agent's
move, then each ghost's, the team's moves taking effect after the last); in ``pursuit_v5``, one
move of each pursuer (its evaders move by themselves once per cycle). gridghost plays
``gridghost.env()`` (the env with its call-order checks, as ``pursuit_v5.env()`` has them) on one
6x6 map with three ghost starts; ``pursuit_v5`` plays 2 pursuers and 1 evader on an 8x8 grid.
Each round's cycle rates are divided by the same round's one-ghost rate (same encoding) and by its
``pursuit_v5`` rate; the medians are printed.

    python benchmarks/team_throughput.py            # 11 rounds of 10,000 half-steps each
    python benchmarks/team_throughput.py --rounds 3 --half-steps 2000

Targets: two ghosts >= 0.6x the one-ghost rate per full cycle (vector encoding), and two ghosts
>= 15x ``pursuit_v5``'s cycles with the default encoding. ``pursuit_v5`` needs scipy (the dev
and bench extras install it).
"""

from __future__ import annotations

import argparse
import functools
import statistics
import warnings
from collections.abc import Callable

from aec_throughput import half_steps_per_second

import gridghost
from gridghost import Layout

from harness import add_progress_option, interleaved_rates, median_ratio, verdict

with warnings.catch_warnings():
    # PettingZoo's bundled envs warn about their deprecated module-level API on import.
    warnings.simplefilter("ignore", DeprecationWarning)
    from pettingzoo.sisl import pursuit_v5

#: A 6x6 room with a pillar, the agent in the middle, three ghost starts in the corners.
TEAM_MAP = Layout.from_text("""
+---+---+---+---+---+---+
| *   .   .   .   .   G1|
+   +   +   +   +   +   +
| .   .   .   .   .   . |
+   +   +---+   +   +   +
| .   . | .   A   .   . |
+   +   +   +   +   +   +
| .   .   .   .   .   . |
+   +   +   +   +   +   +
| .   .   .   .   .   . |
+   +   +   +   +   +   +
| G2  .   .   .   .   G |
+---+---+---+---+---+---+
name: team_bench
""")

PURSUIT = "pursuit_v5.env(8x8, 2 pursuers, 1 evader)"


def _name(k: int, obs: str) -> str:
    return f"env(ghosts={k}, obs_type={obs!r})"


#: name -> (env maker, its encoding, target per cycle against one ghost of that encoding, target
#: per cycle against pursuit_v5)
CONTENDERS: dict[str, tuple[Callable[[], object], str | None, float | None, float | None]] = {
    _name(k, obs): (functools.partial(gridghost.env, layout=TEAM_MAP, ghosts=k, obs_type=obs), obs,
                    0.6 if (k, obs) == (2, "vector") else None, 15.0 if (k, obs) == (2, "dict") else None)
    for obs in ("vector", "dict")
    for k in (1, 2, 3)
}
CONTENDERS[PURSUIT] = (functools.partial(pursuit_v5.env, x_size=8, y_size=8, n_pursuers=2, n_evaders=1),
                       None, None, None)
#: ``pursuit_v5`` is about 20 times slower: it plays this share of the half-steps per round.
PURSUIT_SHARE = 0.2


def cycles_per_second(env: object, half_steps: int, seed: int) -> float:
    """:func:`~aec_throughput.half_steps_per_second` divided by the agents that move in one cycle."""
    return half_steps_per_second(env, half_steps, seed) / len(env.possible_agents)  # type: ignore[attr-defined]


def main(argv: list[str] | None = None) -> None:
    """Run the interleaved rounds and print cycle rates and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_progress_option(parser)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--half-steps", type=int, default=10_000, help="gridghost's half-steps per contender per round")
    args = parser.parse_args(argv)

    envs = {name: make() for name, (make, *_) in CONTENDERS.items()}
    steps = {name: max(2, int(args.half_steps * PURSUIT_SHARE)) if name == PURSUIT else args.half_steps
             for name in envs}
    rates = interleaved_rates(
        {name: lambda seed, env=env, n=steps[name]: cycles_per_second(env, n, seed) for name, env in envs.items()},
        args.rounds, args.progress)
    print(f"Team AEC throughput: random actions, {args.rounds} interleaved rounds x {args.half_steps:,} half-steps "
          f"({steps[PURSUIT]:,} for pursuit_v5); full cycles per second of CPU time")
    width = max(map(len, CONTENDERS)) + 1
    print(f"{'contender':<{width}} {'cycles/s':>10} {'vs 1 ghost':>10} {'vs pursuit':>10}  target")
    for name, (_, obs, per_ghost, per_pursuit) in CONTENDERS.items():
        rate = f"{statistics.median(rates[name]):>10,.0f}"
        if obs is None:
            print(f"{name:<{width}} {rate} {'':>10} {'1.00x':>10}  baseline")
            continue
        one = _name(1, obs)
        against_one, against_pursuit = median_ratio(rates, name, one), median_ratio(rates, name, PURSUIT)
        notes = [f"{what} {verdict(ratio, target)}" for what, ratio, target in
                 (("vs 1 ghost", against_one, per_ghost), ("vs pursuit", against_pursuit, per_pursuit)) if target]
        print(f"{name:<{width}} {rate} {against_one:>9.2f}x {against_pursuit:>9.2f}x  "
              + ("; ".join(notes) if name != one else "baseline of its encoding"))

if __name__ == "__main__":
    main()
