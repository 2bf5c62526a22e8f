"""Learning measured against the exact optimum: tabular Q-learning of the agent against the chasing
ghost, and tabular self-play of both sides, each judged by gridghost's exact solver.

(a) Q-learning of the agent through the Gymnasium env (``GridGhostGymEnv``, ``obs_type="vector"``)
    against the chasing ghost, on the classic map and on level 0 of difficulty 2
    (``MapGenerator(6, 6, difficulty=2).level(0)``). The table is indexed by the true state,
    ``(agent cell, ghost cell)``, read from the env's ``game.game_state``. The greedy policy of the
    learned table is evaluated exactly (``solve.evaluate_policies``): its probability of reaching a
    goal within 100 turns, next to the optimal agent's (``solve_agent``). Pass: within 5% of the
    optimum (learned >= 0.95 x optimal).

(b) Self-play of both sides on the same two maps: ``gridghost.training.TabularSelfPlay``, one
    table of action values learnt by both sides from their own games on the batched engine
    (Q-learning with max/min backups for alternating zero-sum games, Littman's minimax-Q: the
    game is turn-based and of perfect information in the tabular state, so it has a
    deterministic minimax equilibrium, and the backups converge to it when every state keeps
    being tried: no linear program per state as in simultaneous-move games, no inner
    best-response solve per generation, and no cycling, which alternating pure best responses can
    fall into). Exploitability asks what a best response does in states that the two learners'
    own play rarely reaches, so every episode begins at an exploring start (a state drawn
    uniformly). After each of ``GENERATIONS`` equal shares of the turns both greedy tables are
    frozen into a ``gridghost.training.selfplay.OpponentPool``, and
    ``selfplay.exploitability_curve`` gives the exact exploitability (``solve.exploitability``)
    of every generation's pair. Pass: the final pair's exploitability is below 1% of the reward
    range. The range is that of a turn's reward (the solver's and the Gymnasium env's unit): a
    goal (+100) down to being caught after a step (-1 - 50 = -51), so 151 with the default
    rewards, and the bar is 1.51.

(a) uses ``gamma = 0.99`` (the solver's), a learning rate of 0.2 and epsilon-greedy exploration
falling linearly from 1 to 0.05 over the first 60% of the episodes; episodes are cut at 100
cycles. (b) uses ``TabularSelfPlay``'s defaults (512 games, epsilon 0.5, step sizes
``1 / visits ** 0.6``, gamma 0.99). Every random draw comes from ``--seed``.

Timing is informational (the headline is learned against exact): steps are environment steps
(the learner's steps in (a), full turns summed over the games in (b)), time is process CPU time, and the baseline,
measured in the same run, is the exact solve of the same question (``solve_agent`` for (a),
``solve_game`` for (b), caches cleared): the ratio says how many times the solver's time learning
took.

    python benchmarks/learning.py                 # both maps, the full budgets (about 1.5 minutes here)
    python benchmarks/learning.py --maps classic --scale 0.2
"""

from __future__ import annotations

import argparse
import functools
import time
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from tqdm import tqdm

import gridghost
from gridghost.core.layout import Layout
from gridghost.core.rules import NUM_ACTIONS, Rewards
from gridghost.envs.single_agent import GridGhostGymEnv
from gridghost.planning import clear_caches, evaluate_policies, solve_agent, solve_game
from gridghost.training import OpponentPool, TabularSelfPlay, exploitability_curve

from harness import add_progress_option, load_pyplot, save_figure

GAMMA = 0.99
MAX_CYCLES = 100
MAPS = {"classic": lambda: gridghost.CLASSIC,
        "difficulty-2": lambda: gridghost.MapGenerator(6, 6, difficulty=2).level(0)}
#: Training budgets per map at --scale 1: (a) Q-learning's episodes, (b) self-play's turns.
EPISODES = {"classic": (3_000, 500_000), "difficulty-2": (20_000, 16_000_000)}
SUCCESS_RATIO = 0.95
EXPLOITABILITY_SHARE = 0.01
GENERATIONS = 10


class Run(NamedTuple):
    """What a learning run produced: the greedy tables and its cost."""

    tables: tuple[np.ndarray, ...]
    steps: int
    seconds: float


def reward_range(rewards: Rewards | None = None) -> float:
    """The range of a turn's reward for the agent: a goal down to being caught after a step (or
    walking into the ghost, whichever is worse); 100 - (-51) = 151 with the default rewards."""
    rewards = rewards or Rewards()
    return rewards.goal - min(rewards.caught, rewards.step + rewards.caught)


def greedy_table(q: np.ndarray, layout: Layout, minimise: bool = False) -> np.ndarray:
    """The greedy policy of action values ``q`` (``[cells * cells, 4]``) as one-hot probabilities
    ``(rows, cols, rows, cols, 4)``, the form the solver reads."""
    rows, cols = layout.shape
    actions = q.argmin(axis=1) if minimise else q.argmax(axis=1)
    return np.eye(NUM_ACTIONS)[actions].reshape(rows, cols, rows, cols, NUM_ACTIONS)


def _epsilon(episode: int, episodes: int, floor: float, share: float) -> float:
    return max(floor, 1.0 - episode / max(1.0, share * episodes))


def q_learning(layout: Layout, episodes: int, seed: int, alpha: float = 0.2, progress: bool = False) -> Run:
    """Epsilon-greedy Q-learning of the agent against the chasing ghost on ``layout``, with the
    Gymnasium env; the table is indexed by the true ``(agent cell, ghost cell)``. A terminal step
    does not bootstrap; one cut by ``max_cycles`` does. With ``progress``, a bar on stderr counts
    the episodes."""
    env = GridGhostGymEnv(controlled="agent", opponent="chase", obs_type="vector", layout=layout,
                          max_cycles=MAX_CYCLES)
    game, cells = env.game, env.game.kernel.num_cells
    q = np.zeros((cells * cells, NUM_ACTIONS))
    rng = np.random.default_rng(seed)
    steps, start = 0, time.process_time()
    env.reset(seed=seed)
    for episode in tqdm(range(episodes), desc="Q-learning", unit="episode", disable=not progress):
        if episode:
            env.reset()
        epsilon = _epsilon(episode, episodes, 0.05, 0.6)
        state = game.game_state
        s = state.agent * cells + state.ghost
        done = False
        while not done:
            action = int(rng.integers(NUM_ACTIONS)) if rng.random() < epsilon else int(q[s].argmax())
            _, reward, terminated, truncated, _ = env.step(action)
            state = game.game_state
            following = state.agent * cells + state.ghost
            target = reward if terminated else reward + GAMMA * q[following].max()
            q[s, action] += alpha * (target - q[s, action])
            s, steps, done = following, steps + 1, terminated or truncated
    seconds = time.process_time() - start
    env.close()
    return Run((greedy_table(q, layout),), steps, seconds)


def minimax_q(layout: Layout, turns: int, seed: int, pool: OpponentPool | None = None,
              generations: int = GENERATIONS, progress: bool = False) -> Run:
    """Self-play of both sides with :class:`gridghost.training.TabularSelfPlay` for ``turns`` full
    turns (summed over its games). ``generations`` times, after equal shares of the turns, both
    greedy tables are frozen into ``pool`` (as ``agent-k`` and ``ghost-k``) when one is given.
    With ``progress``, each generation's learning draws a bar on stderr."""
    learner = TabularSelfPlay(layout, seed=seed)
    seconds = 0.0
    for generation in range(generations):
        begin = time.process_time()
        learner.learn(max(1, turns // generations), progress_bar=progress)
        seconds += time.process_time() - begin
        if pool is not None:
            pool.add(learner.policy("agent"), "agent", generation=generation)
            pool.add(learner.policy("ghost"), "ghost", generation=generation)
    return Run((learner.policy("agent").table, learner.policy("ghost").table), learner.turns, seconds)


def _solve_seconds(solve: object) -> float:
    clear_caches()
    start = time.process_time()
    solve()  # type: ignore[operator]
    return time.process_time() - start


def agent_benchmark(name: str, layout: Layout, episodes: int, seed: int, progress: bool = False) -> bool:
    """Run (a) on one map and print its line; return whether it passed."""
    run = q_learning(layout, episodes, seed, progress=progress)
    baseline = _solve_seconds(lambda: solve_agent(layout, ghost="chase", gamma=GAMMA))
    start = layout.agent_start, layout.ghost_start
    optimal = solve_agent(layout, ghost="chase", gamma=GAMMA).success_probability(*start, horizon=MAX_CYCLES)
    learned = evaluate_policies(run.tables[0], "chase", layout, gamma=GAMMA).success_probability(
        *start, horizon=MAX_CYCLES)
    passed = learned >= SUCCESS_RATIO * optimal
    print(f"{name:<13} {episodes:>10,} {run.steps:>10,} {run.seconds:>7.1f}s {run.seconds / baseline:>8.0f}x"
          f" {learned:>9.3f} {optimal:>9.3f} {learned / optimal:>9.3f}  {'met' if passed else 'MISSED'}")
    return passed


def selfplay_benchmark(name: str, layout: Layout, turns: int, seed: int,
                       curves: dict[str, np.ndarray] | None = None, progress: bool = False) -> bool:
    """Run (b) on one map and print its lines (and put its exploitability by generation into
    ``curves[name]``); return whether it passed."""
    pool = OpponentPool()
    run = minimax_q(layout, turns, seed, pool=pool, progress=progress)
    baseline = _solve_seconds(lambda: solve_game(layout, gamma=GAMMA))
    pairs = list(zip(pool.snapshots("agent"), pool.snapshots("ghost"), strict=True))
    curve = exploitability_curve(pairs, layout, gamma=GAMMA, progress_bar=progress)
    bar = EXPLOITABILITY_SHARE * reward_range()
    final = float(curve.exploitability[-1])
    passed = final < bar
    print(f"{name:<13} {turns:>10,} {run.steps:>10,} {run.seconds:>7.1f}s {run.seconds / baseline:>8.0f}x"
          f" {curve.minimax_value:>9.2f} {final:>9.3f} {bar:>9.2f}  {'met' if passed else 'MISSED'}")
    print(f"{'':<13} by generation: " + " ".join(f"{value:.3f}" for value in curve.exploitability))
    if curves is not None:
        curves[name] = curve.exploitability
    return passed


def plot_curves(curves: dict[str, np.ndarray], path: str) -> None:
    """Draw (b)'s exploitability by generation, with the 1% bar, into the picture ``path``
    (needs matplotlib, which gridghost does not depend on)."""
    pyplot = load_pyplot()
    if pyplot is None:
        raise SystemExit("--plot draws with matplotlib: pip install matplotlib")

    figure, axes = pyplot.subplots(figsize=(6.4, 3.6), dpi=100)
    for name, values in curves.items():
        axes.plot(np.arange(1, len(values) + 1), values, marker="o", label=f"{name} map")
    axes.axhline(EXPLOITABILITY_SHARE * reward_range(), color="grey", linestyle="--",
                 label=f"{EXPLOITABILITY_SHARE:.0%} of the reward range")
    axes.set_yscale("symlog", linthresh=0.01)
    axes.set_ylim(bottom=0)
    axes.set_xlabel("generation (snapshot of both sides)")
    axes.set_ylabel("exact exploitability")
    axes.set_title("Tabular self-play (TabularSelfPlay): exploitability by generation")
    axes.legend()
    save_figure(figure, path)


def main(argv: Sequence[str] | None = None) -> bool:
    """Run the benchmarks the command line asks for; return whether every one passed."""
    parser = argparse.ArgumentParser(description="Tabular learning measured against gridghost's exact solver.")
    parser.add_argument("--maps", nargs="+", choices=list(MAPS), default=list(MAPS), help="maps (default: both)")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="multiplies every budget, episodes (a) and turns (b) "
                             "(default 1; smaller is quicker and rougher)")
    parser.add_argument("--seed", type=int, default=0, help="seeds the envs and the learners (default 0)")
    parser.add_argument("--plot", metavar="PATH", help="also draw (b)'s curves into this picture (needs matplotlib)")
    add_progress_option(parser)
    args = parser.parse_args(argv)
    if not args.scale > 0:
        parser.error(f"--scale must be > 0, got {args.scale}")
    layouts = {name: MAPS[name]() for name in args.maps}
    budgets = {name: [max(1, round(args.scale * n)) for n in EPISODES[name]] for name in args.maps}
    curves: dict[str, np.ndarray] = {}
    sections = (
        (f"(a) Q-learning of the agent against the chasing ghost; success = P(goal within {MAX_CYCLES} turns), "
         f"pass: learned >= {SUCCESS_RATIO:g} x optimal", ("learned", "optimal", "ratio"),
         functools.partial(agent_benchmark, progress=args.progress)),
        (f"\n(b) self-play (minimax-Q, both sides); exploitability in the agent's return, pass: < "
         f"{EXPLOITABILITY_SHARE:.0%} of the reward range {reward_range():g}; "
         "budget: episodes (a), turns (b)", ("minimax", "final", "bar"),
         functools.partial(selfplay_benchmark, curves=curves, progress=args.progress)),
    )
    passed = True
    for which, (title, columns, benchmark) in enumerate(sections):
        print(title)
        print(f"{'map':<13} {'budget':>10} {'steps':>10} {'cpu':>8} {'/solve':>9} "
              + " ".join(f"{column:>9}" for column in columns))
        for name, layout in layouts.items():
            passed &= benchmark(name, layout, budgets[name][which], args.seed)
    if args.plot:
        plot_curves(curves, args.plot)
    return passed


if __name__ == "__main__":
    main()
