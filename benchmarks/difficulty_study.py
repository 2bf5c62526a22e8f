"""How hard are generated maps? The agent's success probability under optimal play by both sides,
over many seeds per size and wall setting, to calibrate difficulty presets.

For every map ``Layout.generate(size, size, seed, **setting)`` the zero-sum game is solved
(``solve_game(layout, LongitudinalSlip(0.2), gamma=0.99, tol=1e-6)``) and the probability that
the agent reaches a goal within 100 turns from the starts, both sides playing the minimax
policies, is recorded. Per size and setting the script prints the deciles of that probability,
the fraction of maps in each band (what a preset drawing maps by rejection accepts) and the mean
CPU time per map of drawing, solving and evaluating it (what one rejection draw costs). With
``--check-tol N`` the first ``N`` maps of every row are solved again with ``tol=1e-10`` and the
largest difference in success probability is printed.

    python benchmarks/difficulty_study.py                          # 200 seeds, 5x5..8x8, every setting
    python benchmarks/difficulty_study.py --seeds 20 --sizes 6 --settings maze-0.3 none
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
from tqdm import tqdm

from gridghost.core.layout import Layout
from gridghost.core.slip import LongitudinalSlip
from gridghost.planning import clear_caches, solve_game

from harness import add_progress_option

#: The wall settings studied, by name: the options given to Layout.generate.
SETTINGS: dict[str, dict[str, Any]] = {
    "maze-0.0": {"walls": "maze", "loops": 0.0},
    "maze-0.15": {"walls": "maze", "loops": 0.15},
    "maze-0.3": {"walls": "maze", "loops": 0.3},
    "maze-0.5": {"walls": "maze", "loops": 0.5},
    "scattered-0.3": {"walls": "scattered", "wall_density": 0.3},
    "none": {"walls": "none"},
    "maze-0.3-2goals": {"walls": "maze", "loops": 0.3, "num_goals": 2},
    "scattered-0.3-2goals": {"walls": "scattered", "wall_density": 0.3, "num_goals": 2},
    "none-2goals": {"walls": "none", "num_goals": 2},
}
#: Success-probability bands, highest first: (low, high), high exclusive but for the first.
BANDS: tuple[tuple[float, float], ...] = ((0.95, 1.0), (0.8, 0.95), (0.6, 0.8), (0.3, 0.6), (0.0, 0.3))
SLIP = LongitudinalSlip(0.2)


def success(layout: Layout, tol: float) -> float:
    """The agent's success probability within 100 turns from the starts under minimax play,
    solved from scratch (caches cleared, as for a freshly drawn map)."""
    clear_caches()
    game = solve_game(layout, slip=SLIP, gamma=0.99, tol=tol)
    return game.success_probability(layout.agent_start, layout.ghost_start, horizon=100)


def band_fractions(values: np.ndarray) -> list[float]:
    """The fraction of ``values`` in each of :data:`BANDS`."""
    fractions = []
    for index, (low, high) in enumerate(BANDS):
        inside = (values >= low) & ((values <= high) if index == 0 else (values < high))
        fractions.append(float(inside.mean()))
    return fractions


def study(size: int, options: dict[str, Any], seeds: int, check_tol: int,
          progress: bool = False) -> tuple[np.ndarray, float, float]:
    """Success probabilities of ``seeds`` maps, the mean CPU seconds per map (draw, solve and
    evaluate), and the largest tol=1e-6 vs 1e-10 difference over the first ``check_tol`` maps;
    with ``progress``, a bar on stderr counts the maps."""
    values = np.empty(seeds)
    start = time.process_time()
    for seed in tqdm(range(seeds), desc=f"{size}x{size}", unit="map", disable=not progress):
        values[seed] = success(Layout.generate(size, size, seed, **options), tol=1e-6)
    per_map = (time.process_time() - start) / seeds
    worst = 0.0
    for seed in range(min(check_tol, seeds)):
        layout = Layout.generate(size, size, seed, **options)
        worst = max(worst, abs(success(layout, tol=1e-10) - values[seed]))
    return values, per_map, worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=200, help="maps per size and setting (default 200)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[5, 6, 7, 8], help="square sizes (default 5 6 7 8)")
    parser.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=list(SETTINGS), metavar="SETTING",
                        help=f"wall settings (default all): {', '.join(SETTINGS)}")
    parser.add_argument("--check-tol", type=int, default=20, metavar="N",
                        help="maps per row solved again with tol=1e-10 (default 20)")
    add_progress_option(parser)
    args = parser.parse_args()

    print(f"success probability under minimax play, LongitudinalSlip(0.2), gamma 0.99, horizon 100; "
          f"{args.seeds} seeds per row")
    bands = " ".join(f"{f'{low:.2f}-{high:.2f}':>9}" for low, high in BANDS)
    print(f"{'size':>4} {'setting':<21} {'deciles 10% .. 90%':<44}  {'mean':>4}  {bands}  ms/map  tol diff")
    for size in args.sizes:
        for name in args.settings:
            values, per_map, worst = study(size, SETTINGS[name], args.seeds, args.check_tol, args.progress)
            deciles = " ".join(f"{q:.2f}" for q in np.quantile(values, np.linspace(0.1, 0.9, 9)))
            fractions = " ".join(f"{f:>9.2f}" for f in band_fractions(values))
            timing = f"{per_map * 1e3:6.1f}  {worst:.1e}"
            print(f"{size:>4} {name:<21} {deciles}  {values.mean():.2f}  {fractions}  {timing}", flush=True)


if __name__ == "__main__":
    main()
