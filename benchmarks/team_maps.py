"""The coordination maps' three exact numbers: how often the agent, playing its best, reaches a goal
within 100 cycles against one minimax ghost, against two independent chasing ghosts, and
against two ghosts playing the exact team optimum.

For every shipped map with two ghost starts or more (``gridghost.maps.names()``), with the
default settings (longitudinal slip 0.2, the reference's rewards, ``gamma=0.99``), from the map's
starts:

- one ghost: the one-ghost zero-sum game on the map's first ghost start (``solve_game``), both
  sides minimax;
- two chasers: the agent's best response to two ghosts that each play the reference's chasing
  rule on their own (``solve_agent(ghost="chase")``);
- team optimum: the zero-sum team game of two ghosts (``solve_game``), both sides minimax.

A coordination map leaves the agent at least 0.5 in the first two and at most 0.1 in the third
(:func:`gridghost.planning.coordination_numbers`, :func:`gridghost.planning.is_coordination_map`).

    python benchmarks/team_maps.py
    python benchmarks/team_maps.py --maps team_ring my_map.txt
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from gridghost import maps
from gridghost.core.layout import Layout
from gridghost.planning import coordination_numbers, is_coordination_map


def team_maps() -> list[str]:
    """The shipped maps with two ghost starts or more."""
    return [name for name in maps.names() if len(maps.load(name).ghost_starts) >= 2]


def main(argv: list[str] | None = None) -> None:
    """Print the three numbers of every coordination map."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--maps", nargs="+", default=None,
                        help="shipped map names or map text files (default: every shipped map with two ghost starts)")
    args = parser.parse_args(argv)
    names = args.maps or team_maps()
    print("Agent's success probability within 100 cycles, playing its best; slip 0.2 longitudinal, gamma=0.99")
    print(f"{'map':<18} {'size':>5} {'one minimax ghost':>18} {'two chasers':>12} {'team optimum':>13} "
          f"{'coordinates?':>13} {'time':>7}")
    for name in names:
        layout = maps.load(name) if name in maps.names() else Layout.from_text(Path(name).read_text(encoding="utf-8"))
        start = time.perf_counter()
        numbers = coordination_numbers(layout)
        one, chasers, optimum = numbers
        verdict = "yes" if is_coordination_map(numbers) else "no"
        print(f"{layout.name:<18} {layout.rows}x{layout.cols:<3} {one:>18.6f} {chasers:>12.6f} {optimum:>13.6f} "
              f"{verdict:>13} {time.perf_counter() - start:>5.1f} s")


if __name__ == "__main__":
    main()
