"""Team PPO training steps per second: IPPO in JAX (env, networks and updates in one compiled
program, :mod:`gridghost.jax.team_ppo`) against Stable-Baselines3's PPO on the centralised
Gymnasium team view, same network sizes, same settings, same run.

Both train a team of two ghosts against the random agent on ``team_eight`` (``"vector"``
observations, ``rewards="normalised"``, episodes cut at 100 steps): JAX on
``GridGhostJaxSingle("ghosts", ghosts=2)`` in mode ``"ippo"`` (one policy and one value MLP of
64 and 64 units shared by the ghosts, each fed a ghost's observation and its index), SB3 with
``MlpPolicy`` (policy and value MLPs of 64 and 64 units on the team's stacked observations, a
``MultiDiscrete([4, 4])`` move) on a ``DummyVecEnv`` of
``gymnasium.make("gridghost/GridGhost-v1", controlled="ghosts", ghosts=2, opponent="random")``.
Both run 32 games, rollouts of 128 steps, 10 epochs, entropy 0.01 and minibatches of
``--minibatch`` team steps (SB3's default, 64: the same number of gradient steps a rollout; a
JAX IPPO minibatch holds both ghosts' moves of each of its team steps).

A rate is team steps per second of wall time over ``--steps`` steps of training (rollouts and
updates), after a warm-up: JAX's compile and SB3's first rollout are not counted (the compile
time is printed apart). SB3 runs with each of ``--threads`` (torch's default threads and one
thread), and in each round the faster is the baseline: on a CPU that other work shares, torch's
default threads can be many times slower than one. Rounds are interleaved and the ratio is the
median over rounds of each round's JAX rate over its SB3 rate. Needs
``pip install "gridghost[jax,sb3]"``.

    python benchmarks/jax_team_ppo.py                  # 3 rounds, 32,768 steps a contender
    python benchmarks/jax_team_ppo.py --rounds 1 --steps 4096 --threads 1

Target: JAX IPPO at least 10x SB3's team steps/s.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import gymnasium
import jax
import torch
from jax_ppo import JaxContender
from stable_baselines3 import PPO
from stable_baselines3.common.vec_env import DummyVecEnv

import gridghost  # noqa: F401  (registers the Gymnasium ids)
from gridghost.jax import GridGhostJaxSingle
from gridghost.jax.ppo import PPOConfig
from gridghost.jax.team_ppo import make_team_train

from harness import add_progress_option, interleaved_rates, verdict

TARGET = 10.0
GAMES, STEPS, GHOSTS = 32, 128, 2
GAME: dict[str, Any] = {"layout": "team_eight", "ghosts": GHOSTS, "opponent": "random", "obs_type": "vector",
                        "rewards": "normalised"}


def team_contender(steps: int, minibatch: int) -> JaxContender:
    """IPPO's trainer on the team view, compiled for ``steps`` team steps."""
    env = GridGhostJaxSingle("ghosts", max_episode_steps=100, **GAME)
    config = PPOConfig(num_envs=GAMES, num_steps=STEPS, minibatch_size=minibatch, ent_coef=0.01)
    return JaxContender(make_team_train(env, config, "ippo"), config.batch_size, steps)


class SB3Contender:
    """SB3 PPO with the same settings on the Gymnasium team view; ``rate(seed)`` trains
    ``steps`` team steps after a warm-up."""

    def __init__(self, steps: int, minibatch: int, threads: int | None) -> None:
        def make() -> gymnasium.Env:
            return gymnasium.make("gridghost/GridGhost-v1", controlled="ghosts", **GAME)

        self.env = DummyVecEnv([make] * GAMES)
        self.minibatch, self.steps, self.threads = minibatch, steps, threads

    def rate(self, seed: int) -> float:
        """Team steps per wall second of ``steps`` steps of ``model.learn``."""
        previous = torch.get_num_threads()
        if self.threads is not None:
            torch.set_num_threads(self.threads)
        try:
            model = PPO("MlpPolicy", self.env, n_steps=STEPS, batch_size=self.minibatch, ent_coef=0.01, seed=seed,
                        device="cpu")
            model.learn(GAMES * STEPS)  # warm-up: one rollout and update
            start = time.perf_counter()
            model.learn(self.steps, reset_num_timesteps=False)
            return self.steps / (time.perf_counter() - start)
        finally:
            torch.set_num_threads(previous)


def thread_setting(text: str) -> int | None:
    """``--threads``' values: ``default`` (torch's, ``None``) or a count >= 1."""
    if text == "default":
        return None
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"a thread setting is 'default' or an int >= 1, got {text!r}")
    return int(text)


def main(argv: list[str] | None = None) -> int:
    """Run the interleaved rounds and print the table; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (medians are printed)")
    parser.add_argument("--steps", type=int, default=32_768, help="team steps per contender per round")
    parser.add_argument("--minibatch", type=int, default=64, help="team steps per minibatch (both learners)")
    parser.add_argument("--threads", nargs="+", type=thread_setting, default=[None, 1],
                        help="SB3's torch threads to time, 'default' or a count (the faster is the baseline)")
    add_progress_option(parser)
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.steps < GAMES * STEPS:
        parser.error(f"--rounds must be >= 1 and --steps >= {GAMES * STEPS} (one rollout)")
    if args.minibatch < 1 or (GAMES * STEPS) % args.minibatch:
        parser.error(f"--minibatch must divide a rollout's {GAMES * STEPS} team steps")
    print(f"Team PPO training team steps/s on team_eight, {GHOSTS} ghosts against the random agent: JAX IPPO "
          f"(jax {jax.__version__}, {jax.devices()[0].platform}) against SB3 on the Gymnasium team view (torch "
          f"{torch.__version__}, default threads {torch.get_num_threads()}); {args.steps:,} steps a contender, "
          f"minibatches of {args.minibatch}, {args.rounds} interleaved rounds")
    jax_contender = team_contender(args.steps, args.minibatch)
    names = {threads: f"sb3-{'default' if threads is None else threads}" for threads in dict.fromkeys(args.threads)}
    contenders: dict[str, Callable[[int], float]] = {
        name: SB3Contender(args.steps, args.minibatch, threads).rate for threads, name in names.items()}
    contenders["jax"] = jax_contender.rate
    rates = interleaved_rates(contenders, args.rounds, args.progress, "ippo")
    sb3 = [max(column) for column in zip(*(rates[name] for name in names.values()), strict=True)]
    ratios = [j / s for j, s in zip(rates["jax"], sb3, strict=True)]
    ratio = statistics.median(ratios)
    print("SB3 by torch threads, median steps/s: " + ", ".join(
        f"{name.removeprefix('sb3-')} {statistics.median(rates[name]):,.0f}" for name in names.values()))
    print(f"{'learner':<8} {'SB3 steps/s':>12} {'JAX steps/s':>12} {'JAX vs SB3':>10} {'compile s':>9}  target")
    print(f"{'ippo':<8} {statistics.median(sb3):>12,.0f} {statistics.median(rates['jax']):>12,.0f} {ratio:>9.1f}x "
          f"{jax_contender.compile_seconds:>9.1f}  {verdict(ratio, TARGET)}", flush=True)
    print("per round, JAX / the faster SB3: " + ", ".join(f"{r:.1f}x" for r in ratios))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
