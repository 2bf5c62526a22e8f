"""Exact team-solver times and states on generated maps, within a memory budget.

Each solve is ``solve_game`` from scratch (the solver's caches cleared): the zero-sum game of one
agent against ``k`` ghosts, ``gamma=0.99``, ``tol=1e-10``, longitudinal slip 0.2, on
``Layout.generate(n, n, seed=0, ghosts=k)``, with the team's states stored by multisets of ghost
cells. A case whose estimate exceeds the budget is refused before anything is allocated, and the
table says so. Times are process CPU time (the machine may be shared; the load is printed).
Each case is solved in a fresh process, and its peak memory (how far the process's resident
memory rose above where it was before the solve) is printed beside the estimate.

    python benchmarks/team_solve.py                                  # every case, 4 GiB
    python benchmarks/team_solve.py --cases "2 ghosts, 8x8" --max-bytes 2147483648
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from solve_speed import measured

from gridghost.core.game import Game
from gridghost.core.layout import Layout
from gridghost.core.slip import LongitudinalSlip
from gridghost.planning import MAX_BYTES, clear_caches, solve_game
from gridghost.planning.model import live_count, model_bytes

#: name: (map size n for an n x n map, ghosts, target seconds or None).
CASES = {
    "2 ghosts, 8x8": (8, 2, None),
    "3 ghosts, 6x6": (6, 3, None),
    "2 ghosts, 16x16": (16, 2, 60.0),
    "3 ghosts, 8x8": (8, 3, 60.0),
    "4 ghosts, 6x6": (6, 4, 60.0),
}


def solve_once(name: str, max_bytes: int) -> dict[str, float]:
    """Solve case ``name`` in this process, from scratch: the CPU seconds, the sweeps, and the peak
    memory (``solve_speed.measured``)."""
    size, ghosts, _ = CASES[name]
    game = Game(Layout.generate(size, size, seed=0, ghosts=ghosts), LongitudinalSlip(0.2), ghosts=ghosts)
    clear_caches()
    solution, seconds, peak = measured(lambda: solve_game(game=game, max_bytes=max_bytes))
    return {"seconds": seconds, "sweeps": solution.sweeps, "peak": peak}  # type: ignore[attr-defined]


def main(argv: list[str] | None = None) -> None:
    """Solve every case; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", choices=list(CASES), default=list(CASES), help="the cases to solve")
    parser.add_argument("--max-bytes", type=int, default=MAX_BYTES, help="the solver's memory budget")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(solve_once(args.child, args.max_bytes)))
        return
    print(f"Exact team solves (solve_game), gamma=0.99, tol=1e-10, longitudinal slip 0.2, generated maps (seed 0); "
          f"budget {args.max_bytes / 2**20:,.0f} MiB; CPU time; load average {os.getloadavg()[0]:.1f}")
    print(f"{'case':<16} {'joint states':>13} {'stored':>11} {'estimate':>10} {'solve':>9} {'sweeps':>6} {'target':>7}"
          f" {'peak':>10} {'est/peak':>8}")
    for name in args.cases:
        size, ghosts, target = CASES[name]
        layout = Layout.generate(size, size, seed=0, ghosts=ghosts)
        cells, goals = size * size, len(layout.goals)
        stored = live_count(cells, goals, ghosts, symmetric=True)
        estimate = model_bytes(cells, goals, ghosts, symmetric=True, joint=False)
        row = f"{name:<16} {cells ** (ghosts + 1):>13,} {stored:>11,} {estimate / 2**20:>6,.0f} MiB"
        goal = "-" if target is None else f"{target:.0f} s"
        if estimate > args.max_bytes:
            print(f"{row} {'refused':>9} {'-':>6} {goal:>7}  (over the budget)", flush=True)
            continue
        done = subprocess.run([sys.executable, __file__, "--child", name, "--max-bytes", str(args.max_bytes)],
                              check=True, capture_output=True, text=True)
        result = json.loads(done.stdout.strip().splitlines()[-1])
        seconds, peak = result["seconds"], result["peak"]
        over = "" if target is None or seconds <= target else "  (over the target)"
        print(f"{row} {seconds:>7.2f} s {result['sweeps']:>6} {goal:>7} {peak / 2**20:>6,.0f} MiB "
              f"{estimate / max(peak, 1):>8.2f}{over}", flush=True)


if __name__ == "__main__":
    main()
