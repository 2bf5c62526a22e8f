"""Map generation time per size and wall kind, against building the same maps' Layouts, same run.

``Layout.generate(size, size, seed, walls=kind)`` draws walls, starts, goals, colours and items,
then builds the Layout (which checks it, a breadth-first search included). The baseline is that
last step alone: ``Layout(...)`` from the generated maps' fields, so the ratio says how many
Layout constructions one generated map costs. Contenders run interleaved, round after round, timed
in process CPU time; each generates (or builds) ``--maps`` maps per round.

    python benchmarks/map_generation.py                     # 5 rounds of 50 maps
    python benchmarks/map_generation.py --rounds 1 --maps 5 --sizes 6 16

Target: a 16x16 map in a few milliseconds.

``--level-set TRAIN HELD_OUT`` adds the row of a coordination level set: ``MapGenerator(6, 6,
ghosts=2, coordination=True)``'s levels ``0..TRAIN-1`` (``num_levels=TRAIN``) and the held-out
``TRAIN..TRAIN+HELD_OUT-1`` (``start_level=TRAIN``), solved by ``--workers`` processes into an
empty disk cache, in wall-clock time (workers run in parallel), then read back from it; and the
CPU seconds per level of every process (what a loaded machine does not inflate). Its baseline, in
the same run, in CPU seconds: the cost per level of the check made before the levels were staged
and cached, every candidate's three numbers solved (``full_numbers``) until one passes,
over the first ``--baseline-levels`` levels, every number over all states (as before the
numbers were solved from the start alone).

    python benchmarks/map_generation.py --sizes --level-set 500 100 --workers 2

Target: the 500 + 100 levels within 2 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import tempfile
import time
from collections.abc import Callable

import numpy as np

from gridghost.core.game import Game
from gridghost.core.generate import WALL_KINDS
from gridghost.core.layout import Layout
from gridghost.core.slip import DEFAULT_SLIP_PROBABILITY, LongitudinalSlip
from gridghost.maps import MapGenerator
from gridghost.maps.levels import BAND_GAMMA, BAND_HORIZON, MAX_ATTEMPTS, clear_level_cache
from gridghost.maps.store import CACHE_VARIABLE
from gridghost.planning import Coordination, clear_caches, is_coordination_map, solve_agent, solve_game

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


def full_numbers(layout: Layout) -> Coordination:
    """The three numbers as they were measured before the check was staged and solved from the
    start alone: every solve over all states, each success probability the solution's own."""
    game = Game(layout, LongitudinalSlip(DEFAULT_SLIP_PROBABILITY))
    team = Game(layout, game.slip, ghosts=2)
    start = layout.agent_start, list(layout.ghost_starts[:2])
    return Coordination(
        solve_game(game=game, gamma=BAND_GAMMA).success_probability(layout.agent_start, layout.ghost_start,
                                                                    horizon=BAND_HORIZON),
        solve_agent(game=team, ghost="chase", gamma=BAND_GAMMA).success_probability(*start, horizon=BAND_HORIZON),
        solve_game(game=team, gamma=BAND_GAMMA).success_probability(*start, horizon=BAND_HORIZON))


def full_check_level(size: int, index: int, options: dict) -> Layout:
    """Level ``index`` of ``MapGenerator(size, size, ghosts=2, coordination=True)`` as it was found
    before the check was staged: each candidate's three numbers solved in full over every state
    (:func:`full_numbers`), then the thresholds applied (the generator's default options, whose
    starts are too far apart for the opening move to end a game, and its default slip)."""
    for attempt in range(MAX_ATTEMPTS):
        layout = Layout.generate(size, size, seed=np.random.SeedSequence(index, spawn_key=(attempt,)),
                                 name=f"level-{index}-{size}x{size}-coordination", **options)
        if is_coordination_map(full_numbers(layout)):
            return layout
    raise RuntimeError(f"no coordination map for level {index}")


def level_set_row(size: int, train: int, held_out: int, workers: int | None, baseline_levels: int,
                  progress: bool) -> None:
    """Print the coordination level set's row: its cold and warm wall times, and its cost per level
    against the full check's, same run."""
    options = dict(ghosts=2, coordination=True)
    with tempfile.TemporaryDirectory() as folder:
        os.environ[CACHE_VARIABLE] = folder  # an empty disk cache, removed afterwards
        clear_level_cache()
        clear_caches()
        start, cpu = time.perf_counter(), cpu_seconds()
        train_levels = MapGenerator(size, size, num_levels=train, **options).levels(workers, progress)
        test_levels = MapGenerator(size, size, num_levels=held_out, start_level=train, **options).levels(workers,
                                                                                                         progress)
        cold, cpu = time.perf_counter() - start, cpu_seconds() - cpu
        clear_level_cache()
        start = time.perf_counter()
        again = (MapGenerator(size, size, num_levels=train, **options).levels(workers)
                 + MapGenerator(size, size, num_levels=held_out, start_level=train, **options).levels(workers))
        warm = time.perf_counter() - start
        assert again == train_levels + test_levels, "the disk cache gave other levels"
        assert len(set(again)) == train + held_out, "two levels share a map"
        os.environ[CACHE_VARIABLE] = "off"
        clear_caches()
        generated = MapGenerator(size, size, num_levels=1, **options).options
        start = cpu_seconds()
        for index in range(baseline_levels):
            assert full_check_level(size, index, generated) == train_levels[index], "the staged check chose another map"
        before = (cpu_seconds() - start) / baseline_levels
    per_level = cpu / (train + held_out)
    print(f"\ncoordination level set {size}x{size}, 2 ghosts: {train} + {held_out} levels, "
          f"{workers or os.cpu_count()} workers; wall-clock seconds, and CPU seconds per level (all processes)")
    print(f"{'cold':>8} {'warm':>8} {'cpu s/level':>12} {'before cpu s/level':>19} {'ratio':>7}")
    print(f"{cold:>8.1f} {warm:>8.2f} {per_level:>12.3f} {before:>19.3f} {before / per_level:>6.1f}x", flush=True)


def cpu_seconds() -> float:
    """The CPU seconds of this process and of its finished worker processes (user and system)."""
    mine, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return mine.ru_utime + mine.ru_stime + workers.ru_utime + workers.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_progress_option(parser)
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    parser.add_argument("--maps", type=int, default=50, help="maps per contender and round (default 50)")
    parser.add_argument("--sizes", type=int, nargs="*", default=[6, 8, 12, 16, 32], help="square sizes")
    parser.add_argument("--level-set", type=int, nargs=2, metavar=("TRAIN", "HELD_OUT"),
                        help="add the coordination level set's row (e.g. 500 100)")
    parser.add_argument("--level-size", type=int, default=6, help="the level set's square size (default 6)")
    parser.add_argument("--workers", type=int, default=None, help="level set processes (default: one per CPU)")
    parser.add_argument("--baseline-levels", type=int, default=5,
                        help="levels timed with the full check, the level set's baseline (default 5)")
    args = parser.parse_args()

    if args.sizes:
        table(args)
    if args.level_set:
        level_set_row(args.level_size, *args.level_set, args.workers, args.baseline_levels, args.progress)


def table(args: argparse.Namespace) -> None:
    """Print the table of maps drawn per size and wall kind."""
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
