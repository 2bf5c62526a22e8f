"""Self-play with Stable-Baselines3: PPO for both sides, an opponent pool, and the exact optimum.

Two PPO learners, one per side, take turns on a contested generated map (a difficulty-2 or -3
level, minimax success 0.3-0.8). In each generation one side trains against opponents drawn
from the other side's snapshots (:class:`gridghost.training.selfplay.SelfPlayEnv`; by default the
other side's three latest snapshots alike, ``rule="recent"``). Then it is frozen into the pool as
its exact table of moves (:func:`gridghost.planning.tabulate_policy`, greedy: the game has pure
minimax policies). After every generation the script prints:

- the latest pair's exact exploitability and each side's gap, next to the minimax value
  (:func:`gridghost.training.selfplay.exploitability_curve`; 0 means an equilibrium), in the units
  of ``--rewards`` (the solver's default gamma, 0.99, which is also PPO's here);
- the agent's exact probability of reaching a goal within 100 turns against the latest ghost,
  next to the minimax success probability;
- the learner's win rate in that generation's training games, from the pool's records.

The recipe: rewards ``"normalised"`` (goal +1, caught -0.5, step -0.01). With the
reference's +100/-50 PPO's value loss swamps its policy loss and the learned ghost never moved
off the chasing ghost's gap on difficulty 3 level 4 (68.96 of a range of 150 for four
generations); normalised, the same run reached 0.0008 (0.05% of the range) at generation 4. Each
learner collects its games from 8 copies of the env (one batched forward pass per step, about
twice the steps per second of one env). Each learner trains against the other side's three
latest snapshots alike (``--rule recent``). On difficulty 2 level 7 the prioritised rule let the
agent keep beating the chasing ghost and the first learned ghost with its old route, so it never
punished the ghost's open route (exploitability 0.59 to 0.56 over generations 2-5, 0.067 at 6);
"latest" forced it to (0.036 at 6), but on level 2 it cycled: each ghost guarded the latest
agent's route and left the previous one open, and the next agent took it (the ghost's gap 0.284,
0.289, 0.284, 0.289 over generations 2-8). Against a window of three the ghost had to guard both:
0.0042 at generation 6. A fraction ``--explore-starts`` (0.3) of the learners' episodes begin
with a random opening (``SelfPlayEnv(explore_starts=p)``), so that each side also trains in the
states a best response steers into (with "latest", the learned ghost's gap on level 7 was 0.0021
at generation 4, against 0.020 without).

This recipe reaches the equilibrium on some levels only (3 of 10 of difficulty 2 and 1 of 10 of
difficulty 3 under 1% of the reward range, ``benchmarks/results/selfplay_ppo.json``); the Self-play
page of the docs says why. ``gridghost.training.TabularSelfPlay``, both sides learning one table
of action values, ends under 1% of the reward range on 39 of the 40 held-out levels measured.

    pip install "gridghost[sb3]"              # Stable-Baselines3 and torch (choose your torch build)
    python examples/selfplay_sb3.py                            # 8 generations of 16,384 steps: 54 s
                                                               # of wall time on a 2-core CPU
    python examples/selfplay_sb3.py --difficulty 3 --level 4 --generations 4 --steps 4096

Every random draw comes from ``--seed``: the envs' seeds, the pool's draws and PPO's own seed, so a
seed prints the same numbers on one machine and torch build.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from typing import Any

from tqdm import tqdm

from gridghost.core.layout import Layout
from gridghost.maps.levels import MapGenerator
from gridghost.planning import evaluate_policies, solve_game, tabulate_policy
from gridghost.training.selfplay import SAMPLING_RULES, OpponentPool, SelfPlayEnv, exploitability_curve

SIDES = ("agent", "ghost")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--difficulty", type=int, choices=(2, 3), default=2, help="the contested preset (2 or 3)")
    parser.add_argument("--level", type=int, default=0, help="which level of the preset to play (>= 0)")
    parser.add_argument("--generations", type=int, default=8, help="generations (the sides alternate), >= 1")
    parser.add_argument("--steps", type=int, default=16_384, help="PPO steps per generation, >= 64")
    parser.add_argument("--rule", choices=SAMPLING_RULES, default="recent",
                        help="how opponents are drawn from the pool")
    parser.add_argument("--window", type=int, default=3, help="the recent rule's number of snapshots, >= 1")
    parser.add_argument("--rewards", choices=("normalised", "reference"), default="normalised",
                        help="the reward scale the learners see and the exploitability is printed in")
    parser.add_argument("--envs", type=int, default=8, help="env copies each learner collects from, >= 1")
    parser.add_argument("--ent-coef", type=float, default=0.01, help="PPO's entropy coefficient, >= 0")
    parser.add_argument("--explore-starts", type=float, default=0.3,
                        help="fraction of episodes that begin with a random opening, in [0, 1]")
    parser.add_argument("--seed", type=int, default=0, help="seeds everything (>= 0)")
    parser.add_argument("--no-progress", dest="progress", action="store_false",
                        help="draw no progress bar (it goes to stderr, the table to stdout)")
    args = parser.parse_args(argv)
    for name, low in (("level", 0), ("generations", 1), ("steps", 64), ("envs", 1), ("window", 1), ("seed", 0)):
        if getattr(args, name) < low:
            parser.error(f"--{name} must be >= {low}, got {getattr(args, name)}")
    if not args.ent_coef >= 0:
        parser.error(f"--ent-coef must be >= 0, got {args.ent_coef}")
    if not 0 <= args.explore_starts <= 1:
        parser.error(f"--explore-starts must lie in [0, 1], got {args.explore_starts}")
    return args


def selfplay(layout: Layout, generations: int = 8, steps: int = 16_384, seed: int = 0, rule: str = "recent",
             rewards: str = "normalised", envs: int = 8, ent_coef: float = 0.01, explore_starts: float = 0.3,
             report: Callable[[dict[str, Any]], None] | None = None, window: int = 3,
             progress: bool = False) -> list[dict[str, Any]]:
    """Run the recipe on one map and measure every generation's latest pair exactly.

    Args:
        layout: the map (one fixed level).
        generations, steps, seed, rule, rewards, envs, ent_coef, explore_starts, window: as the command line.
        report: called with each generation's row as soon as it is measured.
        progress: count the PPO steps of every generation on a progress bar on stderr.

    Returns:
        One dict per generation: ``generation``, ``learner``, ``exploitability``, ``agent_gap``,
        ``ghost_gap`` (in ``rewards``' units), ``success`` (the latest pair's), ``win_rate`` (the
        learner's in training) and ``seconds`` (the generation's wall time).
    """
    import torch
    from stable_baselines3 import PPO  # the optional extra: imported once the arguments are fine
    from stable_baselines3.common.vec_env import DummyVecEnv

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # one process, one thread: the cores are shared
    try:
        start = (layout.agent_start, layout.ghost_start)
        pool = OpponentPool()
        latest = {"agent": pool.add("random", "agent"), "ghost": pool.add("chase", "ghost")}
        learners = {}
        for index, side in enumerate(SIDES):
            def make(copy: int, side: str = side, index: int = index) -> Callable[[], SelfPlayEnv]:
                def build() -> SelfPlayEnv:
                    env = SelfPlayEnv(pool, controlled=side, rule=rule, window=window, layout=layout, obs_type="vector",
                                      rewards=rewards, explore_starts=explore_starts)
                    env.reset(seed=seed * 1000 + index * 100 + copy)
                    return env
                return build

            learners[side] = PPO("MlpPolicy", DummyVecEnv([make(copy) for copy in range(envs)]),
                                 n_steps=max(1, min(1024, steps) // envs), batch_size=64, gamma=0.99, ent_coef=ent_coef,
                                 seed=seed * 2 + index, verbose=0, device="cpu")
        rows = []
        bar = tqdm(total=generations * steps, desc="self-play", unit="step", disable=not progress)
        for generation in range(1, generations + 1):
            side = SIDES[(generation - 1) % 2]
            model = learners[side]
            began = time.perf_counter()
            opponents = [snapshot.name for snapshot in pool.snapshots("ghost" if side == "agent" else "agent")]
            before = {name: pool.results(name) for name in opponents}
            model.learn(steps, reset_num_timesteps=False)
            games = sum(pool.results(name).games - before[name].games for name in opponents)
            wins = sum(pool.results(name).wins - before[name].wins for name in opponents)
            table = tabulate_policy(lambda obs, model=model: model.predict(obs, deterministic=True)[0], side, layout,
                                    obs_type="vector", batch=True)
            latest[side] = pool.add(table, side, generation=generation)
            curve = exploitability_curve([(latest["agent"], latest["ghost"])], layout=layout, rewards=rewards)
            success = evaluate_policies(latest["agent"].policy, latest["ghost"].policy, layout=layout, rewards=rewards)
            row = dict(generation=generation, learner=side, exploitability=float(curve.exploitability[0]),
                       agent_gap=float(curve.agent_gap[0]), ghost_gap=float(curve.ghost_gap[0]),
                       success=float(success.success_probability(*start)),
                       win_rate=wins / games if games else float("nan"), seconds=time.perf_counter() - began)
            rows.append(row)
            bar.update(steps)
            if report is not None:
                report(row)
        bar.close()
        return rows
    finally:
        torch.set_num_threads(threads)


def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Run the self-play and print one line per generation.

    Returns:
        One dict per generation, as :func:`selfplay` returns them.
    """
    args = parse_args(argv)
    layout = MapGenerator(6, 6, difficulty=args.difficulty).level(args.level)
    game = solve_game(layout=layout, rewards=args.rewards)
    start = (layout.agent_start, layout.ghost_start)
    optimum = game.success_probability(*start)
    print(f"map: difficulty {args.difficulty}, level {args.level} ({layout.rows}x{layout.cols}); minimax value "
          f"{game.value(*start):.4f} ({args.rewards}), minimax success {optimum:.3f}")
    print("gen  learner  exploitability  agent gap  ghost gap  success (minimax)  train win rate   time")

    def report(row: dict[str, Any]) -> None:
        print(f"{row['generation']:3d}  {row['learner']:7s}  {row['exploitability']:14.4f}  {row['agent_gap']:9.4f}  "
              f"{row['ghost_gap']:9.4f}  {row['success']:7.3f} ({optimum:.3f})  {row['win_rate']:14.3f}  "
              f"{row['seconds']:5.1f}s", flush=True)

    return selfplay(layout, args.generations, args.steps, args.seed, args.rule, args.rewards, args.envs,
                    args.ent_coef, args.explore_starts, report, args.window, args.progress)


if __name__ == "__main__":
    main()
