"""Learning measured against the exact optimum: tabular Q-learning of the agent against the chasing
ghost, and tabular self-play of both sides, each judged by gridghost's exact solver.

(a) Q-learning of the agent through the Gymnasium env (``GridGhostGymEnv``, ``obs_type="vector"``)
    against the chasing ghost, on the classic map and on level 0 of difficulty 2
    (``MapGenerator(6, 6, difficulty=2).level(0)``). The table is indexed by the true state,
    ``(agent cell, ghost cell)``, read from the env's ``game.game_state``. The greedy policy of the
    learned table is evaluated exactly (``solve.evaluate_policies``): its probability of reaching a
    goal within 100 turns, next to the optimal agent's (``solve_agent``). Pass: within 5% of the
    optimum (learned >= 0.95 x optimal).

(b) Self-play of both sides on the same two maps, on the game kernel (``gridghost.core.game.Game``, the
    rules every env calls): simultaneous Q-learning with minimax backups (Littman's minimax-Q).
    The game is zero-sum, turn-based and of perfect information in the tabular state, so it has a
    deterministic minimax equilibrium, and max/min backups (the agent's Q backs up the ghost's
    minimum, the ghost's Q the agent's discounted maximum) converge to it when every state is
    visited often: no linear program per state as in simultaneous-move games, no inner
    best-response solve per generation, and no cycling, which alternating pure best responses can
    fall into. Exploitability asks what a best response does in states that the two learners'
    own play rarely reaches, so episodes begin at exploring starts (a live state drawn uniformly):
    that is why (b) runs on the kernel, which can start anywhere, and not on an env, which always
    starts at the map's starts (through the AEC env from the start only, 40,000 episodes left the
    difficulty-2 pair at an exploitability of about 20). Every ``episodes / 10`` episodes both
    greedy tables are frozen into a ``gridghost.training.selfplay.OpponentPool``, and
    ``selfplay.exploitability_curve`` gives the exact exploitability (``solve.exploitability``)
    of every generation's pair. Pass: the final pair's exploitability is below 10% of the reward
    range. The range is that of a turn's reward (the solver's and the Gymnasium env's unit): a
    goal (+100) down to being caught after a step (-1 - 50 = -51), so 151 with the default
    rewards, and the bar is 15.1.

Both use ``gamma = 0.99`` (the solver's) and a learning rate of 0.2 (a), or one falling linearly
from 0.3 to 0.02 (b: with a constant rate the greedy pair kept flipping between near-tied
actions, and its exploitability between about 1 and 30, from one generation to the next), and epsilon-greedy
exploration falling linearly from 1 to 0.05 (a) or 0.1 (b) over the first 60% (a) or 50% (b) of
the episodes; episodes are cut at 100 cycles. Every random draw comes from ``--seed``.

Timing is informational (the headline is learned against exact): steps are environment steps
(the learner's steps in (a), half-turns in (b)), time is process CPU time, and the baseline,
measured in the same run, is the exact solve of the same question (``solve_agent`` for (a),
``solve_game`` for (b), caches cleared): the ratio says how many times the solver's time learning
took.

    python benchmarks/learning.py                 # both maps, the full budgets (about 20 s here)
    python benchmarks/learning.py --maps classic --scale 0.2
"""

from __future__ import annotations

import argparse
import functools
import time
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

import gridghost
from gridghost.core.game import Game
from gridghost.core.layout import Layout
from gridghost.core.rules import NUM_ACTIONS, GameState, Outcome, Rewards, Side
from gridghost.core.slip import DEFAULT_SLIP_PROBABILITY, LongitudinalSlip
from gridghost.envs.single_agent import GridGhostGymEnv
from gridghost.planning import clear_caches, evaluate_policies, solve_agent, solve_game
from gridghost.training.selfplay import OpponentPool, exploitability_curve

GAMMA = 0.99
MAX_CYCLES = 100
MAPS = {"classic": lambda: gridghost.CLASSIC,
        "difficulty-2": lambda: gridghost.MapGenerator(6, 6, difficulty=2).level(0)}
#: Training episodes per map at --scale 1: (a) Q-learning, (b) self-play.
EPISODES = {"classic": (3_000, 5_000), "difficulty-2": (20_000, 40_000)}
SUCCESS_RATIO = 0.95
EXPLOITABILITY_SHARE = 0.10
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


def q_learning(layout: Layout, episodes: int, seed: int, alpha: float = 0.2) -> Run:
    """Epsilon-greedy Q-learning of the agent against the chasing ghost on ``layout``, with the
    Gymnasium env; the table is indexed by the true ``(agent cell, ghost cell)``. A terminal step
    does not bootstrap; one cut by ``max_cycles`` does."""
    env = GridGhostGymEnv(controlled="agent", opponent="chase", obs_type="vector", layout=layout,
                          max_cycles=MAX_CYCLES)
    game, cells = env.game, env.game.kernel.num_cells
    q = np.zeros((cells * cells, NUM_ACTIONS))
    rng = np.random.default_rng(seed)
    steps, start = 0, time.process_time()
    env.reset(seed=seed)
    for episode in range(episodes):
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


def minimax_q(layout: Layout, episodes: int, seed: int, alpha: float = 0.3, alpha_end: float = 0.02,
              pool: OpponentPool | None = None, generations: int = GENERATIONS) -> Run:
    """Simultaneous Q-learning of both sides with minimax backups on the game kernel, both playing
    epsilon-greedy from exploring starts (a state where the game goes on, drawn uniformly, agent
    to move). Values are the agent's return: the agent's Q after its move backs up the ghost's
    minimum in the state reached; the ghost's after its move backs up ``gamma`` times the agent's
    maximum. ``generations`` times, evenly spaced, both greedy tables are frozen into ``pool`` (as
    ``agent-k`` and ``ghost-k``) when one is given."""
    game = Game(layout, LongitudinalSlip(DEFAULT_SLIP_PROBABILITY))
    cells = game.num_cells
    starts = [(a, g) for a in range(cells) for g in range(cells) if a != g and not game.goals[a]]
    values = {Side.AGENT: np.zeros((cells * cells, NUM_ACTIONS)), Side.GHOST: np.zeros((cells * cells, NUM_ACTIONS))}
    rng = np.random.default_rng(seed)
    every = max(1, episodes // generations)
    steps, seconds = 0, 0.0
    for episode in range(episodes):
        begin = time.process_time()
        epsilon = _epsilon(episode, episodes, 0.1, 0.5)
        rate = alpha + (alpha_end - alpha) * episode / episodes
        state = GameState(*starts[int(rng.integers(len(starts)))], Side.AGENT, Outcome.ONGOING)
        last: tuple[Side, int, int, float] | None = None  # the half-turn waiting for its backup
        for _ in range(2 * MAX_CYCLES + 1):
            s = state.agent * cells + state.ghost
            ended = state.outcome != Outcome.ONGOING
            if last is not None:
                mover, ps, pa, reward = last
                if ended:
                    target = reward
                elif mover == Side.AGENT:
                    target = reward + values[Side.GHOST][s].min()
                else:
                    target = reward + GAMMA * values[Side.AGENT][s].max()
                values[mover][ps, pa] += rate * (target - values[mover][ps, pa])
            if ended:
                break
            mover, q = state.turn, values[state.turn][s]
            if rng.random() < epsilon:
                action = int(rng.integers(NUM_ACTIONS))
            else:
                action = int(q.argmax() if mover == Side.AGENT else q.argmin())
            state = game.agent_step(state, action, rng)[0] if mover == Side.AGENT else game.ghost_step(state, action)
            last, steps = (mover, s, action, game.rewards(mover, state.outcome)[0]), steps + 1
        seconds += time.process_time() - begin
        if pool is not None and (episode + 1) % every == 0 and (episode + 1) // every <= generations:
            generation = (episode + 1) // every - 1
            pool.add(greedy_table(values[Side.AGENT], layout), "agent", generation=generation)
            pool.add(greedy_table(values[Side.GHOST], layout, minimise=True), "ghost", generation=generation)
    return Run((greedy_table(values[Side.AGENT], layout), greedy_table(values[Side.GHOST], layout, minimise=True)),
               steps, seconds)


def _solve_seconds(solve: object) -> float:
    clear_caches()
    start = time.process_time()
    solve()  # type: ignore[operator]
    return time.process_time() - start


def agent_benchmark(name: str, layout: Layout, episodes: int, seed: int) -> bool:
    """Run (a) on one map and print its line; return whether it passed."""
    run = q_learning(layout, episodes, seed)
    baseline = _solve_seconds(lambda: solve_agent(layout, ghost="chase", gamma=GAMMA))
    start = layout.agent_start, layout.ghost_start
    optimal = solve_agent(layout, ghost="chase", gamma=GAMMA).success_probability(*start, horizon=MAX_CYCLES)
    learned = evaluate_policies(run.tables[0], "chase", layout, gamma=GAMMA).success_probability(
        *start, horizon=MAX_CYCLES)
    passed = learned >= SUCCESS_RATIO * optimal
    print(f"{name:<13} {episodes:>8,} {run.steps:>10,} {run.seconds:>7.1f}s {run.seconds / baseline:>8.0f}x"
          f" {learned:>9.3f} {optimal:>9.3f} {learned / optimal:>9.3f}  {'met' if passed else 'MISSED'}")
    return passed


def selfplay_benchmark(name: str, layout: Layout, episodes: int, seed: int,
                       curves: dict[str, np.ndarray] | None = None) -> bool:
    """Run (b) on one map and print its lines (and put its exploitability by generation into
    ``curves[name]``); return whether it passed."""
    pool = OpponentPool()
    run = minimax_q(layout, episodes, seed, pool=pool)
    baseline = _solve_seconds(lambda: solve_game(layout, gamma=GAMMA))
    pairs = list(zip(pool.snapshots("agent"), pool.snapshots("ghost"), strict=True))
    curve = exploitability_curve(pairs, layout, gamma=GAMMA)
    bar = EXPLOITABILITY_SHARE * reward_range()
    final = float(curve.exploitability[-1])
    passed = final < bar
    print(f"{name:<13} {episodes:>8,} {run.steps:>10,} {run.seconds:>7.1f}s {run.seconds / baseline:>8.0f}x"
          f" {curve.minimax_value:>9.2f} {final:>9.2f} {bar:>9.1f}  {'met' if passed else 'MISSED'}")
    print(f"{'':<13} by generation: " + " ".join(f"{value:.1f}" for value in curve.exploitability))
    if curves is not None:
        curves[name] = curve.exploitability
    return passed


def plot_curves(curves: dict[str, np.ndarray], path: str) -> None:
    """Draw (b)'s exploitability by generation, with the 10% bar, into the picture ``path``
    (needs matplotlib, which gridghost does not depend on)."""
    try:
        import matplotlib
    except ImportError:
        raise SystemExit("--plot draws with matplotlib: pip install matplotlib") from None
    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, axes = pyplot.subplots(figsize=(6.4, 3.6), dpi=100)
    for name, values in curves.items():
        axes.plot(np.arange(1, len(values) + 1), values, marker="o", label=f"{name} map")
    axes.axhline(EXPLOITABILITY_SHARE * reward_range(), color="grey", linestyle="--",
                 label=f"{EXPLOITABILITY_SHARE:.0%} of the reward range")
    axes.set_yscale("symlog", linthresh=1.0)
    axes.set_ylim(bottom=0)
    axes.set_xlabel("generation (snapshot of both sides)")
    axes.set_ylabel("exact exploitability")
    axes.set_title("Tabular self-play (minimax-Q): exploitability by generation")
    axes.legend()
    figure.tight_layout()
    figure.savefig(path)
    print(f"wrote {path}")


def main(argv: Sequence[str] | None = None) -> bool:
    """Run the benchmarks the command line asks for; return whether every one passed."""
    parser = argparse.ArgumentParser(description="Tabular learning measured against gridghost's exact solver.")
    parser.add_argument("--maps", nargs="+", choices=list(MAPS), default=list(MAPS), help="maps (default: both)")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="multiplies every episode budget (default 1; smaller is quicker and rougher)")
    parser.add_argument("--seed", type=int, default=0, help="seeds the envs and the learners (default 0)")
    parser.add_argument("--plot", metavar="PATH", help="also draw (b)'s curves into this picture (needs matplotlib)")
    args = parser.parse_args(argv)
    if not args.scale > 0:
        parser.error(f"--scale must be > 0, got {args.scale}")
    layouts = {name: MAPS[name]() for name in args.maps}
    budgets = {name: [max(1, round(args.scale * n)) for n in EPISODES[name]] for name in args.maps}
    curves: dict[str, np.ndarray] = {}
    sections = (
        (f"(a) Q-learning of the agent against the chasing ghost; success = P(goal within {MAX_CYCLES} turns), "
         f"pass: learned >= {SUCCESS_RATIO:g} x optimal", ("learned", "optimal", "ratio"), agent_benchmark),
        (f"\n(b) self-play (minimax-Q, both sides); exploitability in the agent's return, pass: < "
         f"{EXPLOITABILITY_SHARE:.0%} of the reward range {reward_range():g}", ("minimax", "final", "bar"),
         functools.partial(selfplay_benchmark, curves=curves)),
    )
    passed = True
    for which, (title, columns, benchmark) in enumerate(sections):
        print(title)
        print(f"{'map':<13} {'episodes':>8} {'steps':>10} {'cpu':>8} {'/solve':>9} "
              + " ".join(f"{column:>9}" for column in columns))
        for name, layout in layouts.items():
            passed &= benchmark(name, layout, budgets[name][which], args.seed)
    if args.plot:
        plot_curves(curves, args.plot)
    return passed


if __name__ == "__main__":
    main()
