"""The difficulty presets measured: each level's band over many levels, the success of the
optimal agent against the chasing ghost beside it, and what drawing a level costs per reset.

For every preset of :data:`gridghost.maps.levels.DIFFICULTIES`, levels ``0 .. N-1`` are drawn (each is
the first candidate map whose minimax success probability falls in the preset's band) and, for
each, three exact figures from the solver (horizon 100 full turns, gamma 0.99, longitudinal slip
0.2, from the map's starts):

- the agent's success probability under minimax play by both sides (the band's measure);
- the capture probability under minimax play;
- the success probability of the optimal agent against the chasing ghost.

Cost per reset: a level drawn for the first time ("cold": its candidates generated, filtered
by their race margin and solved until one falls in the band) and again ("warm": from the
level cache), next to the CPU time of one ``reset()`` of the classic env measured in the same
run, as a ratio.

    python benchmarks/difficulty_levels.py                 # 1,000 levels per preset
    python benchmarks/difficulty_levels.py --levels 50
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from tqdm import tqdm

import gridghost
from gridghost.core.slip import LongitudinalSlip
from gridghost.maps.levels import DIFFICULTIES, MapGenerator, clear_level_cache
from gridghost.planning import clear_caches, solve_agent, solve_game

from harness import add_progress_option


def reset_seconds(repeats: int = 2000) -> float:
    """CPU seconds of one unseeded ``reset()`` of the classic AEC env."""
    env = gridghost.raw_env(obs_type="vector")
    env.reset(seed=0)
    start = time.process_time()
    for _ in range(repeats):
        env.reset()
    return (time.process_time() - start) / repeats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--levels", type=int, default=1000, help="levels per preset (default 1000)")
    add_progress_option(parser)
    args = parser.parse_args()
    slip = LongitudinalSlip(0.2)
    baseline = reset_seconds()
    print(f"{args.levels} levels per preset; classic reset() = {baseline * 1e6:.0f} us CPU (the baseline)\n")
    print(f"{'level':>5} {'size':>5} {'band':>11} | {'minimax success: min   mean    max':>34} | "
          f"{'capture':>7} | {'optimal vs chase':>16} | {'cold / reset':>14} {'warm / reset':>12}")
    for difficulty, preset in DIFFICULTIES.items():
        clear_level_cache()
        clear_caches()
        generator = MapGenerator(difficulty=difficulty)
        start = time.process_time()
        maps = [generator.level(index) for index in range(args.levels)]
        cold = (time.process_time() - start) / args.levels
        start = time.process_time()
        for index in range(args.levels):
            generator.level(index)
        warm = (time.process_time() - start) / args.levels
        success, capture, versus_chase = [], [], []
        for layout in tqdm(maps, desc=f"difficulty {difficulty}", unit="level", disable=not args.progress):
            starts = (layout.agent_start, layout.ghost_start)
            game = solve_game(layout, slip, gamma=0.99, tol=1e-8)
            success.append(game.success_probability(*starts, horizon=100))
            capture.append(game.capture_probability(*starts, horizon=100))
            best = solve_agent(layout, slip, ghost="chase", gamma=0.99, tol=1e-8)
            versus_chase.append(best.success_probability(*starts, horizon=100))
            clear_caches()
        band = f"[{preset.low:.2f},{preset.high:.2f}]"
        print(f"{difficulty:>5} {preset.rows}x{preset.cols:<3} {band:>11} | {min(success):>18.3f} "
              f"{statistics.fmean(success):>6.3f} {max(success):>6.3f} | {statistics.fmean(capture):>7.3f} | "
              f"{statistics.fmean(versus_chase):>16.3f} | {cold / baseline:>13.0f}x {warm / baseline:>11.1f}x"
              f"   (cold {cold * 1e3:.0f} ms, warm {warm * 1e6:.0f} us)")
        assert np.all(np.array(success) >= preset.low - 1e-6) and np.all(np.array(success) <= preset.high + 1e-6)


if __name__ == "__main__":
    main()
