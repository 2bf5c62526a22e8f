"""Full turns per second of the batched engine against ``AgentInterface``, same run, one core.

A full turn is the agent's move and the chasing ghost's answer, with the vector observation of
every game gathered, the colour reading drawn and finished games auto-reset: one
``BatchedGame.step_agent`` call advances every game by one turn. The baseline is
``AgentInterface`` (no filter) on the classic map, one game, a Python call per turn. Every
contender plays uniformly random actions; rates are process CPU time, interleaved rounds,
medians (see ``harness.py``). BLAS is held to one thread (the filter's product), so every row
is one core.

    python benchmarks/batched_throughput.py                 # 5 rounds
    python benchmarks/batched_throughput.py --rounds 3 --turns 40000
    python benchmarks/batched_throughput.py --teams-only    # the team rows alone

Target: >= 20,000,000 full turns/s at 4,096 or more games, that is >= 250x ``AgentInterface``.

Team rows: ``ghosts=k`` (k = 1..4) on one generated 8x8 map with four ghost starts, 4,096 games,
the agent learning against the chasing team (``k = 1`` plays the folded tables, ``k >= 2`` the
computed path); each team row's ratio is to the ``k = 1`` row of the same run. Target for
``k = 2``: >= 10,000,000 full turns/s and >= 0.3x the ``k = 1`` rate. The ``k = 2`` grid row
(``obs_type="grid"``, the whole map) gives its ratio to the ``k = 2`` vector row.
"""

from __future__ import annotations

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")  # before NumPy loads its BLAS: one core

import argparse  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

from gridghost.batched import BatchedGame  # noqa: E402
from gridghost.core.layout import Layout  # noqa: E402
from gridghost.maps import MapGenerator  # noqa: E402

from harness import add_progress_option, interleaved_rates, median_ratio  # noqa: E402
from single_agent_throughput import interface_rate  # noqa: E402

BASELINE = "AgentInterface"
SIZES = (1, 64, 1_024, 4_096, 65_536)
TARGET_RATE = 20_000_000
TARGET_RATIO = 250.0


#: The grid rows play 64 generated 6x6 levels (a grid over many levels is what generalises; the
#: engine computes it from per-level planes and the positions).
GRID_LEVELS = MapGenerator(6, 6, num_levels=64)
GRID_SIZES = (1_024, 4_096)
#: The team rows' map (four ghost starts), games and targets.
TEAM_MAP = Layout.generate(8, 8, seed=0, ghosts=4)
TEAM_GAMES = 4_096
TEAM_TARGET_RATE = 10_000_000
TEAM_TARGET_RATIO = 0.3


def _team_row(ghosts: int) -> str:
    return f"BatchedGame({TEAM_GAMES:,}), ghosts={ghosts}"


#: The team's grid row, beside the k = 2 vector row.
TEAM_GRID_ROW = f"{_team_row(2)}, grid"


def batched_rate(games: int, turns: int, seed: int, obs_type: str, **settings: Any) -> float:
    """Full turns per second (process CPU time) of ``BatchedGame(games, **settings)`` under random
    actions: ``turns`` turns (at most 3,000 calls), in calls of ``games`` turns each."""
    batch = BatchedGame(games, seed=seed, obs_type=obs_type, max_episode_steps=100, **settings)
    calls = max(3, min(-(-turns // games), 3_000))  # small batches: a bounded number of calls
    actions = np.random.default_rng(seed).integers(0, 4, size=(calls, games))
    batch.reset()
    batch.step_agent(actions[0])  # warm: the first call touches every table page
    start = time.process_time()
    for action in actions[1:]:
        batch.step_agent(action)
    return (calls - 1) * games / (time.process_time() - start)


def contenders(turns: int, interface_steps: int) -> dict[str, Callable[[int], float]]:
    """Name -> rate for a round's seed."""
    table: dict[str, Callable[[int], float]] = {BASELINE: lambda seed: interface_rate(interface_steps, seed)}
    for obs_type, label in (("vector", "vector obs"), ("belief_vector", "exact filter")):
        for games in SIZES:
            table[f"BatchedGame({games:,}), {label}"] = (
                lambda seed, games=games, obs_type=obs_type: batched_rate(games, turns, seed, obs_type))
    for ghosts in range(1, 5):
        table[_team_row(ghosts)] = (lambda seed, ghosts=ghosts: batched_rate(TEAM_GAMES, turns, seed, "vector",
                                                                            ghosts=ghosts, layout=TEAM_MAP))
    table[TEAM_GRID_ROW] = lambda seed: batched_rate(TEAM_GAMES, turns, seed, "grid", ghosts=2, layout=TEAM_MAP)
    for radius, label in ((None, "grid, 64 levels"), (5, "grid r=5, 64 levels")):
        for games in GRID_SIZES:
            table[f"BatchedGame({games:,}), {label}"] = (
                lambda seed, games=games, radius=radius: batched_rate(games, turns, seed, "grid", view_radius=radius,
                                                                     layout=GRID_LEVELS))
    return table


def main(argv: list[str] | None = None) -> int:
    """Run the interleaved rounds and print rates, ratios and the verdict; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_progress_option(parser)
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (the median is printed)")
    parser.add_argument("--turns", type=int, default=2_000_000, help="full turns per batched contender per round")
    parser.add_argument("--interface-steps", type=int, default=20_000, help="AgentInterface steps per round")
    parser.add_argument("--teams-only", action="store_true", help="only the team rows (ratios to ghosts=1)")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.turns < 1 or args.interface_steps < 1:
        parser.error("--rounds, --turns and --interface-steps must be >= 1")
    table = contenders(args.turns, args.interface_steps)
    baseline = BASELINE
    if args.teams_only:
        table = {name: rate for name, rate in table.items() if "ghosts=" in name}
        baseline = _team_row(1)
    rates = interleaved_rates(table, args.rounds, args.progress)
    print(f"Batched throughput: full turns (agent move + chasing ghost), random actions, classic map (grids: 64 "
          f"generated levels), one core; "
          f"{args.rounds} interleaved rounds")
    print(f"{'contender':<38} {'turns/s':>14} {'ratio':>9}  target")
    for name in rates:
        ratio = median_ratio(rates, name, baseline)
        rate = float(np.median(rates[name]))
        note = "baseline"
        if name != baseline:
            games = int(name.split("(")[1].split(")")[0].replace(",", ""))
            note = ""
            if games >= 4_096 and "vector obs" in name:
                met = rate >= TARGET_RATE and ratio >= TARGET_RATIO and baseline == BASELINE
                note = f">= {TARGET_RATE / 1e6:.0f}M/s and >= {TARGET_RATIO:.0f}x  {'met' if met else 'MISSED'}"
            if name == TEAM_GRID_ROW:
                note = f"{median_ratio(rates, name, _team_row(2)):.2f}x ghosts=2 vector"
            elif "ghosts=" in name and name != _team_row(1):
                team = median_ratio(rates, name, _team_row(1))
                note = f"{team:.2f}x ghosts=1"
                if name == _team_row(2):
                    met = rate >= TEAM_TARGET_RATE and team >= TEAM_TARGET_RATIO
                    note += (f"; >= {TEAM_TARGET_RATE / 1e6:.0f}M/s and >= {TEAM_TARGET_RATIO}x ghosts=1  "
                             f"{'met' if met else 'MISSED'}")
        print(f"{name:<38} {rate:>14,.0f} {ratio:>8.1f}x  {note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
