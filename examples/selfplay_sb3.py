"""Self-play with Stable-Baselines3: PPO for both sides, an opponent pool, and the exact optimum.

Two PPO learners, one per side, take turns on a contested generated map (a difficulty-2 or -3
level, minimax success 0.3-0.8). In each generation one side trains against opponents drawn
from the other side's snapshots (:class:`gridghost.training.selfplay.SelfPlayEnv`, prioritised
fictitious self-play by default). Then it is frozen into the pool as its exact table of moves
(:func:`gridghost.planning.solve.tabulate_policy`). After every generation the script prints:

- the latest pair's exact exploitability and each side's gap, next to the minimax value
  (:func:`gridghost.training.selfplay.exploitability_curve`; 0 means an equilibrium);
- the agent's exact probability of reaching a goal within 100 turns against the latest ghost,
  next to the minimax success probability;
- the learner's win rate in that generation's training games, from the pool's records.

    pip install "gridghost[sb3]"              # Stable-Baselines3 and torch (choose your torch build)
    python examples/selfplay_sb3.py                            # 8 generations of 16,384 steps
    python examples/selfplay_sb3.py --difficulty 3 --level 4 --generations 4 --steps 4096

Every random draw comes from ``--seed``: the envs' seeds, the pool's draws and PPO's own seed, so a
seed prints the same numbers on one machine and torch build.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from gridghost.maps.levels import MapGenerator
from gridghost.planning import evaluate_policies, solve_game, tabulate_policy
from gridghost.training.selfplay import OpponentPool, SelfPlayEnv, exploitability_curve

SIDES = ("agent", "ghost")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--difficulty", type=int, choices=(2, 3), default=2, help="the contested preset (2 or 3)")
    parser.add_argument("--level", type=int, default=0, help="which level of the preset to play (>= 0)")
    parser.add_argument("--generations", type=int, default=8, help="generations (the sides alternate), >= 1")
    parser.add_argument("--steps", type=int, default=16_384, help="PPO steps per generation, >= 64")
    parser.add_argument("--rule", choices=("latest", "uniform", "prioritised"), default="prioritised",
                        help="how opponents are drawn from the pool")
    parser.add_argument("--seed", type=int, default=0, help="seeds everything (>= 0)")
    args = parser.parse_args(argv)
    for name, low in (("level", 0), ("generations", 1), ("steps", 64), ("seed", 0)):
        if getattr(args, name) < low:
            parser.error(f"--{name} must be >= {low}, got {getattr(args, name)}")
    return args


def main(argv: Sequence[str] | None = None) -> list[dict[str, float]]:
    """Run the self-play and print one line per generation.

    Returns:
        One dict per generation: ``exploitability``, ``agent_gap``, ``ghost_gap``,
        ``success`` (the latest pair's) and ``win_rate`` (the learner's in training).
    """
    args = parse_args(argv)
    from stable_baselines3 import PPO  # the optional extra: imported once the arguments are fine

    layout = MapGenerator(6, 6, difficulty=args.difficulty).level(args.level)
    game = solve_game(layout=layout)
    start = (layout.agent_start, layout.ghost_start)
    print(f"map: difficulty {args.difficulty}, level {args.level} ({layout.rows}x{layout.cols}); minimax value "
          f"{game.value(*start):.2f}, minimax success {game.success_probability(*start):.3f}")

    pool = OpponentPool()
    latest = {"agent": pool.add("random", "agent"), "ghost": pool.add("chase", "ghost")}
    learners = {}
    for index, side in enumerate(SIDES):
        env = SelfPlayEnv(pool, controlled=side, rule=args.rule, layout=layout, obs_type="vector")
        env.reset(seed=args.seed * 2 + index)
        learners[side] = PPO("MlpPolicy", env, n_steps=min(1024, args.steps), batch_size=64, gamma=0.99,
                             ent_coef=0.01, seed=args.seed * 2 + index, verbose=0, device="cpu")

    print("gen  learner  exploitability  agent gap  ghost gap  success (minimax)  train win rate   time")
    rows = []
    for generation in range(1, args.generations + 1):
        side = SIDES[(generation - 1) % 2]
        model = learners[side]
        began = time.perf_counter()
        opponents = [snapshot.name for snapshot in pool.snapshots("ghost" if side == "agent" else "agent")]
        before = {name: pool.results(name) for name in opponents}
        model.learn(args.steps, reset_num_timesteps=False)
        games = sum(pool.results(name).games - before[name].games for name in opponents)
        wins = sum(pool.results(name).wins - before[name].wins for name in opponents)
        table = tabulate_policy(lambda obs, model=model: model.predict(obs, deterministic=True)[0], side, layout,
                                obs_type="vector", batch=True)
        latest[side] = pool.add(table, side, generation=generation)
        curve = exploitability_curve([(latest["agent"], latest["ghost"])], layout=layout)
        success = evaluate_policies(latest["agent"].policy, latest["ghost"].policy, layout=layout)
        row = dict(exploitability=float(curve.exploitability[0]), agent_gap=float(curve.agent_gap[0]),
                   ghost_gap=float(curve.ghost_gap[0]), success=success.success_probability(*start),
                   win_rate=wins / games if games else float("nan"))
        rows.append(row)
        print(f"{generation:3d}  {side:7s}  {row['exploitability']:14.2f}  {row['agent_gap']:9.2f}  "
              f"{row['ghost_gap']:9.2f}  {row['success']:7.3f} ({game.success_probability(*start):.3f})  "
              f"{row['win_rate']:14.3f}  {time.perf_counter() - began:5.1f}s")
    return rows


if __name__ == "__main__":
    main()
