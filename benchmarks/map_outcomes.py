"""How each shipped map plays under optimal play by both sides: the agent's success probability
and the capture probability within 100 turns, from the minimax solution of the zero-sum game
(``solve_game``, gamma 0.99, the default longitudinal slip 0.2).

    python benchmarks/map_outcomes.py                   # every shipped map
    python benchmarks/map_outcomes.py --maps classic corridor
    python benchmarks/map_outcomes.py --files my_map.txt

A map is *contested* when the success probability lies between 0.3 and 0.7.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from gridghost import maps
from gridghost.core.layout import Layout
from gridghost.planning import solve_game

HORIZON = 100
GAMMA = 0.99


def outcomes(layout: Layout) -> tuple[float, float]:
    """The agent's success and the capture probability within :data:`HORIZON` turns under minimax play."""
    game = solve_game(layout, gamma=GAMMA)
    start = (layout.agent_start, layout.ghost_start)
    return game.success_probability(*start, horizon=HORIZON), game.capture_probability(*start, horizon=HORIZON)


def main() -> None:
    """Print one line per map: size, success and capture probability, solve time."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--maps", nargs="*", default=None, help="shipped map names (default: all)")
    parser.add_argument("--files", nargs="*", default=[], help="map text files to measure as well")
    args = parser.parse_args()
    layouts = [maps.load(name) for name in (maps.names() if args.maps is None else args.maps)]
    layouts += [Layout.from_text(Path(path).read_text(encoding="utf-8")) for path in args.files]
    print(f"{'map':<14} {'size':>6} {'success':>8} {'capture':>8} {'seconds':>8}")
    for layout in layouts:
        start = time.perf_counter()
        success, capture = outcomes(layout)
        size = f"{layout.rows}x{layout.cols}"
        print(f"{layout.name:<14} {size:>6} {success:8.3f} {capture:8.3f} {time.perf_counter() - start:8.2f}")


if __name__ == "__main__":
    main()
