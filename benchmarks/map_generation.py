"""Map generation time per size and wall kind, against building the same maps' Layouts, same run.

``Layout.generate(size, size, seed, walls=kind)`` draws walls, starts, goals, colours and items,
then builds the Layout (which checks it, a breadth-first search included). The baseline is that
last step alone: ``Layout(...)`` from the generated maps' fields, so the ratio says how many
Layout constructions one generated map costs. Contenders run interleaved, round after round, timed
in process CPU time; each generates (or builds) ``--maps`` maps per round.

    python benchmarks/map_generation.py                     # 5 rounds of 50 maps
    python benchmarks/map_generation.py --rounds 1 --maps 5 --sizes 6 16

Target: a 16x16 map in a few milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from gridghost.core.generate import WALL_KINDS
from gridghost.core.layout import Layout

from harness import add_progress_option, interleaved_rates, median_ratio


def maps_per_second(make: Callable[[int], object], count: int, first_seed: int) -> float:
    """Call ``make(seed)`` for ``count`` seeds; the rate in process CPU time."""
    start = time.process_time()
    for seed in range(first_seed, first_seed + count):
        make(seed)
    return count / max(time.process_time() - start, 1e-9)


def rebuild(layout: Layout) -> Layout:
    """The same map built by the constructor."""
    return Layout(colours=layout.colours, goals=layout.goals, agent_start=layout.agent_start,
                  ghost_start=layout.ghost_start, walls_horizontal=layout.walls_horizontal,
                  walls_vertical=layout.walls_vertical, items=dict(layout.items), name=layout.name)


def contenders(size: int, kind: str, count: int, rounds: int) -> dict[str, Callable[[int], float]]:
    """The two contenders for one size and wall kind; round ``r`` uses seeds ``r * count`` on."""
    maps = {seed: Layout.generate(size, size, seed, walls=kind) for seed in range(rounds * count)}

    def generated(round_: int) -> float:
        return maps_per_second(lambda s: Layout.generate(size, size, s, walls=kind), count, round_ * count)

    def built(round_: int) -> float:
        return maps_per_second(lambda s: rebuild(maps[s]), count, round_ * count)

    return {"generate": generated, "Layout()": built}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_progress_option(parser)
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    parser.add_argument("--maps", type=int, default=50, help="maps per contender and round (default 50)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[6, 8, 12, 16, 32], help="square sizes")
    args = parser.parse_args()

    print(f"{'size':>5} {'walls':<10} {'ms/map':>8} {'Layout() ms':>12} {'ratio':>7}")
    for size in args.sizes:
        for kind in WALL_KINDS:
            rates = interleaved_rates(contenders(size, kind, args.maps, args.rounds), args.rounds, args.progress,
                                      f"{size}x{size} {kind}")
            ratio = 1 / median_ratio(rates, "generate", "Layout()")
            generate_ms = 1e3 / statistics.median(rates["generate"])
            layout_ms = 1e3 / statistics.median(rates["Layout()"])
            print(f"{size:>2}x{size:<2} {kind:<10} {generate_ms:>8.2f} {layout_ms:>12.2f} {ratio:>6.1f}x", flush=True)


if __name__ == "__main__":
    main()
