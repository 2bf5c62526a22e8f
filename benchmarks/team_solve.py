"""Exact team-solver times on generated maps (2 ghosts on 8x8 and 10x10, 3 ghosts on 6x6), with the
speed of one sweep against a naive NumPy sweep that enumerates the team's 4^k joint moves, same run.

Each solve is ``solve_team_game`` from scratch: the zero-sum game of one agent against the team,
``gamma=0.99``, ``tol=1e-10``, longitudinal slip 0.2, on ``Layout.generate(n, n, seed=0,
ghosts=k)``. The baseline is the same model swept the naive way: for each of the ``4 ** k`` joint
moves, the values gathered after it (one take per ghost axis), then their minimum; what a
straightforward NumPy solver does, and what the prototype that took 2.8 s, 11 s and 19 s for 400
sweeps did. The ratio is how many times faster the solver's sweep (k mins over one ghost axis
each) is; both are timed interleaved, in process CPU time, median over rounds.

    python benchmarks/team_solve.py               # 3 rounds
    python benchmarks/team_solve.py --rounds 1 --cases "2 ghosts, 8x8"

Targets on a 2-core machine: 2 ghosts on 8x8 <= 2 s; 2 ghosts on 10x10 <= 10 s; 3 ghosts on 6x6 <= 10 s.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from tqdm import tqdm

from gridghost.core.game import Game
from gridghost.core.layout import Layout
from gridghost.core.rules import Side
from gridghost.core.slip import LongitudinalSlip
from gridghost.planning.team import solve_team_game
from gridghost.planning.team_iteration import TeamRule, Workspace, joint_shift, one_turn
from gridghost.planning.team_model import TeamModel

from harness import add_progress_option

SLIP = LongitudinalSlip(0.2)
#: name: (map size, ghosts, target seconds)
CASES: dict[str, tuple[int, int, float]] = {
    "2 ghosts, 8x8": (8, 2, 2.0),
    "2 ghosts, 10x10": (10, 2, 10.0),
    "3 ghosts, 6x6": (6, 3, 10.0),
}


def team(size: int, ghosts: int) -> Game:
    """The generated map of a case, with ``ghosts`` ghosts."""
    return Game(Layout.generate(size, size, seed=0, ghosts=ghosts), SLIP, ghosts=ghosts)


def naive_sweep(model: TeamModel, values: np.ndarray, rewards: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """One sweep of the zero-sum team game, the team's min over all 4^k joint moves enumerated."""
    after_agent, after_team = rewards
    landing = values * 0.99 + after_team
    between = joint_shift(model, landing, 0)
    for joint in range(1, 4**model.ghosts):
        np.minimum(between, joint_shift(model, landing, joint), out=between)
    between = np.where(model.live, between, 0.0) + after_agent
    q = []
    for outcomes in model.agent_outcomes:
        q.append(sum(p * (between if to is None else between.take(to, axis=0)) for p, to in outcomes))
    return np.where(model.live, np.maximum.reduce(q), 0.0)


def sweep_times(game: Game, rounds: int) -> tuple[float, float]:
    """Median CPU seconds of one solver sweep and one naive sweep, interleaved."""
    model = TeamModel(game)
    rewards = model.reward_arrays(Side.AGENT)
    values = np.where(model.live, -100.0, 0.0)
    work = Workspace(model.shape)
    ours, naive = [], []
    for _ in range(rounds):
        start = time.process_time()
        one_turn(model, values, "max", TeamRule("min"), rewards, 0.99, work)
        ours.append(time.process_time() - start)
        start = time.process_time()
        naive_sweep(model, values, rewards)
        naive.append(time.process_time() - start)
    return statistics.median(ours), statistics.median(naive)


def main(argv: list[str] | None = None) -> None:
    """Time every case; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_progress_option(parser)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cases", nargs="+", choices=list(CASES), default=list(CASES), help="the cases to solve")
    args = parser.parse_args(argv)

    print(f"Exact team solves (solve_team_game), gamma=0.99, tol=1e-10, longitudinal slip 0.2, generated maps "
          f"(seed 0); median of {args.rounds} rounds, CPU time")
    print(f"{'case':<16} {'states':>10} {'solve':>9} {'target':>7} {'sweeps':>6} {'sweep':>10} {'naive sweep':>12} "
          f"{'ratio':>6} {'naive solve':>12}")
    bar = tqdm(total=len(args.cases) * args.rounds, desc="solves", unit="solve", disable=not args.progress)
    for name in args.cases:
        size, ghosts, target = CASES[name]
        game = team(size, ghosts)
        times, sweeps = [], 0
        for _ in range(args.rounds):
            start = time.process_time()
            sweeps = solve_team_game(game=game).sweeps
            times.append(time.process_time() - start)
            bar.update()
        ours, naive = sweep_times(game, args.rounds)
        solve = statistics.median(times)
        states = game.num_cells ** (ghosts + 1)
        print(f"{name:<16} {states:>10,} {solve:>7.2f} s {target:>5.0f} s {sweeps:>6} {ours * 1e3:>7.1f} ms "
              f"{naive * 1e3:>9.1f} ms {naive / ours:>5.1f}x {naive * sweeps:>10.2f} s"
              + ("" if solve <= target else "  (over the target)"))
    bar.close()
    print("(solve: the whole solve, policies and all; ratio: naive sweep / solver sweep; naive solve: the naive sweep "
          "times the sweeps the solve took)")


if __name__ == "__main__":
    main()
