"""Exact-solver times and peak memory on 4x5, 8x8, 12x12 and 16x16 maps (32x32, 48x48 and 64x64
on request), for the three solvers, with the speed of one value-iteration sweep against a
plain-Python sweep of the same model, same run.

Each solve starts from scratch in a fresh process: the turn model is built from the kernel's
transitions, then value iteration runs to ``tol=1e-10`` with ``gamma=0.99`` and longitudinal
slip 0.2. The solvers: the agent's MDP against the chasing ghost (``solve_agent``), the ghost's
MDP against a random agent (``solve_ghost``) and the zero-sum game (``solve_game``). The
baseline is a sweep of the zero-sum game written as plain Python loops over the same model's
states, actions and outcomes (what a dict-based solver does); the ratio is how many times
faster gridghost's NumPy sweep is on the same map, timed interleaved in process CPU time. The
maps after the classic one have a fifth of their inner edges walled (fixed seeds). A second table
gives each solve's peak memory (how far the process's resident memory rose above where it was
before the solve, in a fresh process) beside the solver's estimate
(:func:`gridghost.planning.model.model_bytes`, what the budget ``max_bytes`` is checked
against). The Python sweep is timed on maps up to 16x16 only.

    python benchmarks/solve_speed.py               # 3 rounds, 4x5 to 16x16
    python benchmarks/solve_speed.py --rounds 1 --maps "4x5 classic" 8x8
    python benchmarks/solve_speed.py --rounds 1 --maps 32x32 48x48 64x64 --solvers "game (minimax)"

A solver whose estimate exceeds the default budget (``gridghost.planning.MAX_BYTES``) is not run:
its cell says "refused".

Targets: every solve of a 16x16 map in seconds, not minutes; 48x48 within 15 s and 64x64 within
60 s and 4 GiB; the estimate never below the peak and within 1.25 times it. With numba installed
(the ``fast`` extra) the game on maps of 2,048 cells or more is compiled (a line under the table
says which ran); the first compiled solve also compiles the loops, later processes read them from
numba's cache.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

import numpy as np
from tqdm import tqdm

from gridghost.core.game import Game
from gridghost.core.layout import CLASSIC, Layout
from gridghost.core.slip import LongitudinalSlip
from gridghost.planning import MAX_BYTES, TurnModel, compiled, solve_agent, solve_game, solve_ghost
from gridghost.planning.model import live_count, model_bytes

from harness import add_progress_option

SLIP = LongitudinalSlip(0.2)
SOLVERS: dict[str, Callable[[Layout], object]] = {
    "agent vs chase": lambda layout: solve_agent(layout, SLIP, ghost="chase"),
    "ghost vs random": lambda layout: solve_ghost(layout, SLIP, agent="random"),
    "game (minimax)": lambda layout: solve_game(layout, SLIP),
}
GAME = "game (minimax)"

#: The solvers where one side plays a fixed policy (its probabilities are part of the estimate).
FIXED_SIDE = ("agent vs chase", "ghost vs random")


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


#: The maps a plain run solves; LARGE ones are solved when named with --maps.
MAPS = {"4x5 classic": CLASSIC, "8x8": walled(8), "12x12": walled(12), "16x16": walled(16)}
LARGE = {"32x32": 32, "48x48": 48, "64x64": 64}
#: The largest map whose sweep is also timed in plain Python (larger ones take minutes).
PYTHON_SWEEP_STATES = 70_000


def layout_of(name: str) -> Layout:
    """The map called ``name``."""
    return MAPS[name] if name in MAPS else walled(LARGE[name])


def _status_kib(field: str) -> int:
    """A ``VmRSS``/``VmHWM`` line of ``/proc/self/status``, in KiB."""
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(field + ":"))


def measured(solve: Callable[[], object]) -> tuple[object, float, int]:
    """``solve()``'s result, its CPU seconds, and how many bytes the process's resident memory
    rose to above where it was (Linux: the high-water mark is reset first through
    ``/proc/self/clear_refs``; ``ru_maxrss`` would keep the parent's, which survives ``exec``)."""
    try:
        before = _status_kib("VmRSS")
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")  # resets VmHWM to the current resident size
        high_water = lambda: _status_kib("VmHWM")  # noqa: E731
    except OSError:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        high_water = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # noqa: E731
    start = time.process_time()
    result = solve()
    seconds = time.process_time() - start
    return result, seconds, (high_water() - before) * 1024


def solve_once(map_name: str, solver: str) -> dict[str, float]:
    """Solve in this process, from scratch: the CPU seconds, the sweeps, and the peak memory
    (:func:`measured`)."""
    layout = layout_of(map_name)
    solution, seconds, peak = measured(lambda: SOLVERS[solver](layout))
    return {"seconds": seconds, "sweeps": solution.sweeps, "peak": peak}  # type: ignore[attr-defined]


def solve_fresh(map_name: str, solver: str) -> dict[str, float]:
    """:func:`solve_once` in a fresh Python process (nothing cached, its own high-water mark)."""
    done = subprocess.run([sys.executable, __file__, "--child", map_name, solver], check=True,
                          capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


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
    parser.add_argument("--maps", nargs="+", choices=[*MAPS, *LARGE], default=list(MAPS), help="the maps to solve")
    parser.add_argument("--solvers", nargs="+", choices=list(SOLVERS), default=list(SOLVERS),
                        help="the solvers to time (the others' cells show '-')")
    parser.add_argument("--child", nargs=2, metavar=("MAP", "SOLVER"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(solve_once(*args.child)))
        return

    print(f"Exact solvers, gamma=0.99, tol=1e-10, longitudinal slip 0.2; median of {args.rounds} rounds, CPU time")
    print(f"{'map':<12} {'states':>7} " + " ".join(f"{name:>16}" for name in SOLVERS)
          + f" {'sweep':>9} {'Python sweep':>13} {'ratio':>7}")
    bar = tqdm(total=len(args.maps) * args.rounds * len(args.solvers), desc="solves", unit="solve",
               disable=not args.progress)
    memory: list[str] = []
    for map_name in args.maps:
        layout = layout_of(map_name)
        cells_, goals = layout.rows * layout.cols, len(layout.goals)
        # the game is swept compiled where numba is installed and the map is large (the fast extra)
        fast = compiled.applies(Game(layout, SLIP), 0.99, None)
        estimates = {name: model_bytes(cells_, goals, 1, policy=name in FIXED_SIDE, compiled=fast and name == GAME)
                     for name in SOLVERS}
        # a solve over the default budget is refused: such cells say so
        timed = [name for name in args.solvers if estimates[name] <= MAX_BYTES]
        times: dict[str, list[float]] = {name: [] for name in timed}
        peaks: dict[str, list[float]] = {name: [] for name in timed}
        sweeps: dict[str, int] = {}
        for _ in range(args.rounds):
            for name in timed:
                result = solve_fresh(map_name, name)
                times[name].append(result["seconds"])
                peaks[name].append(result["peak"])
                sweeps[name] = int(result["sweeps"])
                bar.update()
        states = live_count(cells_, goals, 1)
        cells = " ".join(f"{statistics.median(times[name]):>8.3f} s {sweeps[name]:>4}" if name in timed
                         else f"{'refused' if name in args.solvers else '-':>16}" for name in SOLVERS)
        if states <= PYTHON_SWEEP_STATES:
            numpy_sweep, python_sweep_time = sweep_rates(layout, args.rounds)
            sweep = (f"{numpy_sweep * 1e3:>6.2f} ms {python_sweep_time * 1e3:>10.1f} ms "
                     f"{python_sweep_time / numpy_sweep:>6.0f}x")
        else:
            sweep = f"{'-':>9} {'-':>13} {'-':>7}"
        print(f"{map_name:<12} {states:>7,} {cells} {sweep}", flush=True)
        for name in timed:
            peak, estimate = max(peaks[name]), estimates[name]
            memory.append(f"{map_name:<12} {name:<16} {peak / 2**20:>10,.1f} {estimate / 2**20:>10,.1f} "
                          f"{estimate / max(peak, 1):>8.2f}")
    bar.close()
    print("(each solver: median solve time, then the sweeps it took; ratio: Python sweep / NumPy sweep)")
    print(f"(the game on maps of {compiled.FROM_CELLS:,} cells or more: "
          f"{'compiled by numba' if compiled.available() else 'NumPy; the fast extra (numba) compiles it'})")
    print()
    print(f"{'map':<12} {'solver':<16} {'peak MiB':>10} {'estimate':>10} {'est/peak':>8}")
    print("\n".join(memory))
    print("(peak: the most the process's resident memory rose during a solve, over the rounds; estimate: model_bytes)")


if __name__ == "__main__":
    main()
