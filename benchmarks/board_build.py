"""Board build time at 16x16, 32x32 and 64x64 against the old pure-Python build, same run.

A :class:`~gridghost.core.rules.Board` holds the movement table and the all-pairs shortest-path
table of a layout; building it is what an env pays for a new layout. The baseline is the build
gridghost had before (a Python breadth-first search from every cell into a tuple of tuples),
re-implemented here, on the 16x16 layout; at 64x64 it took about 11 s and 340 MB. Each layout has
random walls (a fixed seed); the serpentine maze is the worst case for the search (one path
through all 4096 cells, so 4095 levels). Contenders run interleaved, round after round, timed in
process CPU time; each contender builds its board repeatedly until ``--min-seconds`` have passed
and the rate is builds per second; the ratio is against the same round's baseline rate.

    python benchmarks/board_build.py                 # 5 rounds
    python benchmarks/board_build.py --rounds 1 --min-seconds 0.05

Target: a 64x64 board builds in well under a second.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import deque
from collections.abc import Callable

import numpy as np

from gridghost.core.layout import Layout
from gridghost.core.rules import ACTION_DELTAS, Board

from harness import add_progress_option, interleaved_rates, print_ratio_table

BASELINE = "old pure-Python build, 16x16"


def walled(size: int, seed: int = 0) -> Layout:
    """A size x size layout with a quarter of its inner edges walled (the start corner open)."""
    rng = np.random.default_rng(seed)
    horizontal, vertical = rng.random((size - 1, size)) < 0.25, rng.random((size, size - 1)) < 0.25
    horizontal[0, 0] = vertical[0, 0] = False
    return Layout(colours=np.zeros((size, size), int), goals=[(0, 1)], agent_start=(0, 0), ghost_start=(0, 1),
                  walls_horizontal=horizontal, walls_vertical=vertical)


def serpentine(size: int) -> Layout:
    """Rows joined at alternating ends: one corridor through every cell."""
    horizontal = np.ones((size - 1, size), dtype=bool)
    horizontal[np.arange(size - 1), np.where(np.arange(size - 1) % 2 == 0, size - 1, 0)] = False
    return Layout(colours=np.zeros((size, size), int), goals=[(size - 1, 0)], agent_start=(0, 0),
                  ghost_start=(0, 1), walls_horizontal=horizontal)


def old_build(layout: Layout) -> tuple[tuple[int, ...], ...]:
    """The pre-NumPy build: the movement table, then one Python breadth-first search per cell
    into a dense table, returned as a tuple of tuples."""
    cols, cells = layout.cols, layout.rows * layout.cols
    moves = []
    for index in range(cells):
        here = divmod(index, cols)
        targets = ((here[0] + dr, here[1] + dc) for dr, dc in ACTION_DELTAS)
        moves.append(tuple(index if layout.blocked(here, t) else t[0] * cols + t[1] for t in targets))
    distance = np.full((cells, cells), -1, dtype=np.int64)
    for source in range(cells):
        distance[source, source] = 0
        queue = deque([source])
        while queue:
            cell = queue.popleft()
            for nxt in moves[cell]:
                if distance[source, nxt] < 0:
                    distance[source, nxt] = distance[source, cell] + 1
                    queue.append(nxt)
    return tuple(map(tuple, distance.tolist()))


def builds_per_second(build: Callable[[Layout], object], layout: Layout, min_seconds: float) -> float:
    """Build repeatedly until ``min_seconds`` of process CPU time have passed; the rate."""
    builds, start = 0, time.process_time()
    while True:
        build(layout)
        builds += 1
        elapsed = time.process_time() - start
        if elapsed >= min_seconds:
            return builds / elapsed


CONTENDERS: dict[str, tuple[Callable[[Layout], object], Layout]] = {
    BASELINE: (old_build, walled(16)),
    "Board, 16x16": (Board, walled(16)),
    "Board, 32x32": (Board, walled(32)),
    "Board, 64x64": (Board, walled(64)),
    "Board, 64x64 serpentine maze": (Board, serpentine(64)),
}


def main(argv: list[str] | None = None) -> None:
    """Run the interleaved rounds; print rates, ratios and median build times."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_progress_option(parser)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--min-seconds", type=float, default=0.5, help="building time per contender per round")
    args = parser.parse_args(argv)

    rates = interleaved_rates(
        {name: lambda _, build=build, layout=layout: builds_per_second(build, layout, args.min_seconds)
         for name, (build, layout) in CONTENDERS.items()},
        args.rounds,
        args.progress,
    )
    print(f"Board build: {args.rounds} interleaved rounds, >= {args.min_seconds:g} s of builds per contender")
    print_ratio_table(rates, dict.fromkeys(CONTENDERS), BASELINE, "builds/s")
    print()
    width = max(len(name) for name in CONTENDERS) + 1
    print(f"{'contender':<{width}} {'build time':>13}")
    for name in CONTENDERS:
        print(f"{name:<{width}} {1000 / statistics.median(rates[name]):>10,.1f} ms")


if __name__ == "__main__":
    main()
