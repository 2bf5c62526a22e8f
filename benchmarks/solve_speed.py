"""Exact-solver times on 4x5, 8x8, 12x12 and 16x16 maps, for the three solvers, with the speed of
one value-iteration sweep against a plain-Python sweep of the same model, same run.

Each solve starts from scratch (caches cleared): the turn model is built from the kernel's
transitions, then value iteration runs to ``tol=1e-10`` with ``gamma=0.99`` and longitudinal
slip 0.2. The solvers: the agent's MDP against the chasing ghost (``solve_agent``), the ghost's
MDP against a random agent (``solve_ghost``) and the zero-sum game (``solve_game``). The
baseline is a sweep of the zero-sum game written as plain Python loops over the same model's
states, actions and outcomes (what a dict-based solver does); the ratio is how many times
faster gridghost's NumPy sweep is on the same map, timed interleaved in process CPU time. The
maps after the classic one have a fifth of their inner edges walled (fixed seeds).

    python benchmarks/solve_speed.py               # 3 rounds, every map
    python benchmarks/solve_speed.py --rounds 1 --maps "4x5 classic" 8x8

Target: every solve of a 16x16 map in seconds, not minutes.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
from tqdm import tqdm

from gridghost.core.game import Game
from gridghost.core.layout import CLASSIC, Layout
from gridghost.core.slip import LongitudinalSlip
from gridghost.planning import TurnModel, clear_caches, solve_agent, solve_game, solve_ghost

from harness import add_progress_option

SLIP = LongitudinalSlip(0.2)
SOLVERS: dict[str, Callable[[Layout], object]] = {
    "agent vs chase": lambda layout: solve_agent(layout, SLIP, ghost="chase"),
    "ghost vs random": lambda layout: solve_ghost(layout, SLIP, agent="random"),
    "game (minimax)": lambda layout: solve_game(layout, SLIP),
}


def walled(size: int, seed: int = 0) -> Layout:
    """A size x size map with a fifth of its inner edges walled: goals in the bottom corners, the
    agent at the top middle, the ghost at the bottom middle (redrawn until all are connected)."""
    rng = np.random.default_rng(seed)
    while True:
        try:
            return Layout(colours=rng.integers(0, 3, (size, size)), goals=[(size - 1, 0), (size - 1, size - 1)],
                          agent_start=(0, size // 2), ghost_start=(size - 1, size // 2),
                          walls_horizontal=rng.random((size - 1, size)) < 0.2,
                          walls_vertical=rng.random((size, size - 1)) < 0.2, name=f"walled {size}x{size}")
        except ValueError:  # something unreachable: draw again
            continue


MAPS = {"4x5 classic": CLASSIC, "8x8": walled(8), "12x12": walled(12), "16x16": walled(16)}


def python_sweep(lists: dict[str, list], values: list[float], gamma: float) -> list[float]:
    """One sweep of the zero-sum game in plain Python over a model's arrays as ``lists``."""
    sink = len(values) - 1
    between = [min(lists["ghost_reward"][a][i] + gamma * values[lists["ghost_next"][a][i]]
                   for a in range(4)) for i in range(sink)] + [0.0]
    new = []
    for i in range(sink):
        best = -float("inf")
        for a in range(4):
            q = lists["expected"][a][i]
            for k, p in enumerate(lists["prob"][a]):
                q += p * between[lists["next"][a][k][i]]
            best = max(best, q)
        new.append(best)
    return [*new, 0.0]


def sweep_rates(layout: Layout, rounds: int) -> tuple[float, float]:
    """Median CPU seconds of one NumPy sweep and one plain-Python sweep, interleaved."""
    from gridghost.core.rules import Side
    from gridghost.planning.solve import _iterate  # the sweep itself, without building a solution around it

    model = TurnModel(Game(layout, SLIP))
    lists = {"ghost_reward": model.ghost_reward[Side.AGENT].tolist(), "ghost_next": model.ghost_next.tolist(),
             "expected": model.agent_expected[Side.AGENT].tolist(), "prob": model.agent_prob.tolist(),
             "next": model.agent_next.tolist()}
    values = [0.0] * (model.num_live + 1)
    numpy_times, python_times = [], []
    for _ in range(rounds):
        start = time.process_time()
        _iterate(model, "max", "min", Side.AGENT, 0.99, 1e-10, 10)
        numpy_times.append((time.process_time() - start) / 10)
        start = time.process_time()
        python_sweep(lists, values, 0.99)
        python_times.append(time.process_time() - start)
    return statistics.median(numpy_times), statistics.median(python_times)


def main(argv: list[str] | None = None) -> None:
    """Time every solver on every map; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_progress_option(parser)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--maps", nargs="+", choices=list(MAPS), default=list(MAPS), help="the maps to solve")
    args = parser.parse_args(argv)

    print(f"Exact solvers, gamma=0.99, tol=1e-10, longitudinal slip 0.2; median of {args.rounds} rounds, CPU time")
    print(f"{'map':<12} {'states':>7} " + " ".join(f"{name:>16}" for name in SOLVERS)
          + f" {'sweep':>9} {'Python sweep':>13} {'ratio':>7}")
    bar = tqdm(total=len(args.maps) * args.rounds * len(SOLVERS), desc="solves", unit="solve",
               disable=not args.progress)
    for map_name in args.maps:
        layout = MAPS[map_name]
        times: dict[str, list[float]] = {name: [] for name in SOLVERS}
        sweeps: dict[str, int] = {}
        for _ in range(args.rounds):
            for name, solve in SOLVERS.items():
                clear_caches()
                start = time.process_time()
                solution = solve(layout)
                times[name].append(time.process_time() - start)
                sweeps[name] = solution.sweeps  # type: ignore[attr-defined]
                bar.update()
        numpy_sweep, python_sweep_time = sweep_rates(layout, args.rounds)
        states = TurnModel(Game(layout, SLIP)).num_live
        cells = " ".join(f"{statistics.median(times[name]):>8.3f} s {sweeps[name]:>4}" for name in SOLVERS)
        print(f"{map_name:<12} {states:>7,} {cells} {numpy_sweep * 1e3:>6.2f} ms {python_sweep_time * 1e3:>10.1f} ms "
              f"{python_sweep_time / numpy_sweep:>6.0f}x")
    bar.close()
    print("(each solver: median solve time, then the sweeps it took; ratio: Python sweep / NumPy sweep)")


if __name__ == "__main__":
    main()
