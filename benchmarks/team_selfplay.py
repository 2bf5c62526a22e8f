"""Tabular self-play of a team of ghosts, judged exactly: :class:`gridghost.training.TabularSelfPlay`
with ``ghosts=2`` on two shipped coordination maps, ``team_eight`` and ``team_crossroads``, where
one ghost cannot stop the agent and two that split the goals can.

Both sides learn one table of action values from their own games: the agent its 4 moves, the
team its 16 joint moves as one minimiser (4,096 games in lockstep on the batched team engine,
epsilon-greedy 0.5, every episode from a uniformly drawn state, step sizes ``1 / visits ** 0.6``,
the policies greedy in the table averaged over the batches with ``averaging=2``). A generation is
``--turns`` full turns, summed over the games; after each one the greedy pair is judged by the
team solver: each side's gap (what an exact best response gains against it) and their sum, the
exploitability, in ``rewards="normalised"`` units (goal +1, caught -0.5, step -0.01). The bar is 1%
of the reward range goal - caught = 1.5: 0.015.

Per map the script prints the team game's value, then one row per generation: the turns so far,
the learning's process CPU seconds so far (the exact judgement not included) and the wall seconds
so far (judgement included), each side's gap, the exploitability and its share of the range; then
the first generation under the bar and whether every later one stayed under it. ``--out`` writes
every row as JSON with the run's provenance.

    python benchmarks/team_selfplay.py                          # both maps, 12 generations of 10M turns
    python benchmarks/team_selfplay.py --maps team_eight --generations 3 --turns 2000000
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gridghost.maps import load
from gridghost.planning import solve_game
from gridghost.training import TabularSelfPlay, exploitability_curve

from harness import provenance

#: Goal minus caught in normalised units; the bar is 1% of it.
REWARD_RANGE = 1.5
BAR = 0.01 * REWARD_RANGE
#: The shipped maps on which two ghosts must coordinate.
MAPS = ("team_eight", "team_crossroads")
#: The learner's settings: TabularSelfPlay's defaults, with 4,096 games (a team's table is large,
#: so the batch's fixed costs weigh less with more games: half the CPU time of 512 per turn) and
#: the normalised rewards.
TEAM = {"ghosts": 2, "num_games": 4096, "epsilon": 0.5, "explore_starts": 1.0, "step_exponent": 0.6,
        "averaging": 2.0, "gamma": 0.99, "rewards": "normalised"}
#: What a run depends on: uncommitted changes to these paths make its results file say so.
SOURCES = ("gridghost", "benchmarks/team_selfplay.py", "pyproject.toml")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--maps", nargs="+", choices=MAPS, default=list(MAPS))
    parser.add_argument("--generations", type=int, default=12, help="generations per map, >= 1")
    parser.add_argument("--turns", type=int, default=10_000_000,
                        help="full turns per generation, summed over the games, >= 1")
    parser.add_argument("--seed", type=int, default=0, help="seeds everything (>= 0)")
    parser.add_argument("--out", type=Path, default=None, help="also write the rows to this JSON file")
    args = parser.parse_args(argv)
    for name, low in (("generations", 1), ("turns", 1), ("seed", 0)):
        if getattr(args, name) < low:
            parser.error(f"--{name} must be >= {low}, got {getattr(args, name)}")
    return args


def run_map(name: str, generations: int, turns: int, seed: int) -> dict[str, Any]:
    """Learn on map ``name`` for ``generations`` rounds of ``turns`` turns, judging each, printing
    its rows as they come.

    Returns:
        The map's ``name``, its ``minimax_value`` and one dict per generation (``generation``,
        ``turns``, ``cpu_seconds``, ``wall_seconds``, ``agent_gap``, ``ghost_gap``,
        ``exploitability``).
    """
    layout = load(name)
    solved = solve_game(layout=layout, rewards="normalised", ghosts=2)
    value = solved.value(*solved.start)
    print(f"\n{name} ({layout.rows} x {layout.cols}): the team game's value {value:.4f}, bar {BAR:g}")
    print(f"{'gen':>3} {'turns':>12} {'cpu':>7} {'wall':>7} {'agent gap':>10} {'ghost gap':>10} "
          f"{'exploit.':>9} {'% range':>8}")
    began, cpu = time.perf_counter(), 0.0
    learner = TabularSelfPlay(layout, seed=seed, **TEAM)  # type: ignore[arg-type]
    rows = []
    for generation in range(1, generations + 1):
        clock = time.process_time()
        learner.learn(turns)
        cpu += time.process_time() - clock
        curve = exploitability_curve([(learner.policy("agent"), learner.policy("ghosts"))], layout=layout,
                                     rewards="normalised", ghosts=2)
        row = {"generation": generation, "turns": learner.turns, "cpu_seconds": cpu,
               "wall_seconds": time.perf_counter() - began, "agent_gap": float(curve.agent_gap[0]),
               "ghost_gap": float(curve.ghost_gap[0]), "exploitability": float(curve.exploitability[0])}
        rows.append(row)
        print(f"{generation:3d} {row['turns']:12,d} {cpu:6.1f}s {row['wall_seconds']:6.1f}s {row['agent_gap']:10.4f} "
              f"{row['ghost_gap']:10.4f} {row['exploitability']:9.4f} "
              f"{100 * row['exploitability'] / REWARD_RANGE:7.2f}%", flush=True)
    under = [row["generation"] for row in rows if row["exploitability"] < BAR]
    if under:
        first = under[0]
        stays = all(row["exploitability"] < BAR for row in rows[first - 1:])
        print(f"under 1% of the range from generation {first} ({rows[first - 1]['turns']:,} turns, "
              f"{rows[first - 1]['cpu_seconds']:.0f} s of CPU); "
              f"{'every later generation stays under it' if stays else 'NOT every later generation stays under it'}")
    else:
        print("never under 1% of the range")
    return {"name": name, "minimax_value": value, "generations": rows}


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run every map, print the curves and write ``--out`` if given.

    Returns:
        The settings (with the run's provenance) and each map's result (:func:`run_map`).
    """
    args = parse_args(argv)
    results: dict[str, Any] = {
        "settings": {"generations": args.generations, "turns": args.turns, "seed": args.seed, "team": TEAM,
                     "reward_range": REWARD_RANGE, "bar": BAR, **provenance(__file__, argv, SOURCES)},
        "maps": []}
    for name in args.maps:
        results["maps"].append(run_map(name, args.generations, args.turns, args.seed))
        if args.out is not None:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps(results, indent=1))
    return results


if __name__ == "__main__":
    main()
