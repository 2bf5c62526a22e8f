"""End-to-end PPO training steps per second: PPO in JAX (env, networks and updates in one
compiled program, :mod:`gridghost.jax.ppo`) against Stable-Baselines3's PPO on the NumPy engine
(:class:`gridghost.integrations.sb3.SB3VecEnv`), same network, same settings, same run.

Both train the agent against the chasing ghost on the first 100 training levels of difficulty 2
(``rewards="normalised"``, episodes cut at 100 steps), with 32 games, rollouts of 128 steps, 10
epochs, entropy 0.01 and SB3's ``MlpPolicy`` network (separate policy and value MLPs of 64 and 64
units, tanh) in every configuration:

- ``recipe``: the README's baseline recipe: the egocentric grid of radius 5 through
  ``MovePlanes`` (847 inputs), minibatches of 512;
- ``vector 512``: the ``"vector"`` observation (26 inputs), minibatches of 512;
- ``vector 64``: the same with SB3's default minibatch of 64.

A rate is learner steps per second of wall time over ``--steps`` steps of training (rollouts and
updates), after a warm-up: JAX's compile and SB3's first rollout are not counted (the compile
time is printed apart). SB3 runs with torch's default threads and with one thread, and the
faster is the baseline. Rounds are interleaved and the ratios are medians over rounds of each
round's JAX rate over its SB3 rate. Needs ``pip install "gridghost[jax,sb3]"``.

    python benchmarks/jax_ppo.py                      # 3 rounds, 32,768 steps a contender
    python benchmarks/jax_ppo.py --rounds 1 --steps 16384 --configs vector-64

Target: JAX at least 20x SB3's steps/s with the same network. Every row gets a
verdict. On the 2-core CPU measured only ``vector-64`` (SB3's default minibatch of 64 and 10
epochs) meets it: larger minibatches or inputs make the update's arithmetic, the same in both
libraries, the larger share of the time.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import jax
import torch
from stable_baselines3 import PPO

from gridghost.integrations.sb3 import MovePlanes, SB3VecEnv
from gridghost.jax import GridGhostJaxSingle
from gridghost.jax.ppo import PPOConfig, make_train
from gridghost.maps import level_split
from gridghost.sensing.observations import MOVE_PLANES, grid_channels

from harness import add_progress_option, interleaved_rates, verdict

TARGET = 20.0
RADIUS = 5
GAME = {"opponent": "chase", "rewards": "normalised", "max_episode_steps": 100}
#: name -> (encoding settings, minibatch size, SB3 policy_kwargs)
CONFIGS: dict[str, tuple[dict[str, Any], int, dict[str, Any]]] = {
    "recipe": ({"obs_type": "grid", "view_radius": RADIUS}, 512, {"features_extractor_class": MovePlanes}),
    "vector-512": ({"obs_type": "vector"}, 512, {}),
    "vector-64": ({"obs_type": "vector"}, 64, {}),
}


def jax_config(name: str) -> PPOConfig:
    """The JAX PPO settings of configuration ``name`` (SB3's with the recipe's changes)."""
    encoding, minibatch, _ = CONFIGS[name]
    planes = (tuple(grid_channels(RADIUS).index(plane) for plane in MOVE_PLANES)
              if encoding["obs_type"] == "grid" else None)
    return PPOConfig(num_envs=32, num_steps=128, minibatch_size=minibatch, ent_coef=0.01, planes=planes)


class JaxContender:
    """A JAX trainer compiled once for ``steps`` steps; ``rate(seed)`` times one run of it.

    Args:
        trainer: ``(init, train)`` of :func:`~gridghost.jax.ppo.make_train` or its team twin.
        batch_size: the steps of one update.
        steps: the steps to time, rounded down to whole updates (at least one).
    """

    def __init__(self, trainer: tuple[Callable[..., Any], Callable[..., Any]], batch_size: int, steps: int) -> None:
        init, train = trainer
        self.updates = max(1, steps // batch_size)
        self.steps = self.updates * batch_size
        self._init, self._train = init, jax.jit(train, static_argnums=1)
        start = time.perf_counter()
        jax.block_until_ready(self._train(init(jax.random.key(0)), self.updates))
        self.compile_seconds = time.perf_counter() - start

    def rate(self, seed: int) -> float:
        """Steps per wall second of one training run."""
        state = jax.block_until_ready(self._init(jax.random.key(seed + 1)))
        start = time.perf_counter()
        jax.block_until_ready(self._train(state, self.updates))
        return self.steps / (time.perf_counter() - start)


def named_contender(name: str, steps: int) -> JaxContender:
    """The JAX trainer of configuration ``name`` on the training levels of difficulty 2."""
    encoding, _, _ = CONFIGS[name]
    config = jax_config(name)
    env = GridGhostJaxSingle(layout=level_split(2, "train", 100), **encoding, **GAME)
    return JaxContender(make_train(env, config), config.batch_size, steps)


class SB3Contender:
    """SB3 PPO with the same settings; ``rate(seed)`` trains ``steps`` steps after a warm-up."""

    def __init__(self, name: str, steps: int, threads: int | None) -> None:
        encoding, minibatch, policy_kwargs = CONFIGS[name]
        self.env = SB3VecEnv(num_envs=32, layout=level_split(2, "train", 100), **encoding, **GAME)
        self.minibatch, self.policy_kwargs, self.steps, self.threads = minibatch, policy_kwargs, steps, threads

    def rate(self, seed: int) -> float:
        """Learner steps per wall second of ``steps`` steps of ``model.learn``."""
        previous = torch.get_num_threads()
        if self.threads is not None:
            torch.set_num_threads(self.threads)
        try:
            model = PPO("MlpPolicy", self.env, n_steps=128, batch_size=self.minibatch, ent_coef=0.01, seed=seed,
                        device="cpu", policy_kwargs=self.policy_kwargs)
            model.learn(4096)  # warm-up: one rollout and update
            start = time.perf_counter()
            model.learn(self.steps, reset_num_timesteps=False)
            return self.steps / (time.perf_counter() - start)
        finally:
            torch.set_num_threads(previous)


def main(argv: list[str] | None = None) -> int:
    """Run the interleaved rounds and print the table; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (medians are printed)")
    parser.add_argument("--steps", type=int, default=32_768, help="training steps per contender per round")
    parser.add_argument("--configs", nargs="+", choices=sorted(CONFIGS), default=list(CONFIGS))
    add_progress_option(parser)
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.steps < 4096:
        parser.error("--rounds must be >= 1 and --steps >= 4096 (one rollout)")
    print(f"PPO training steps/s, JAX (jax {jax.__version__}, {jax.devices()[0].platform}) against SB3 (torch "
          f"{torch.__version__}, default threads {torch.get_num_threads()}); {args.steps:,} steps a contender, "
          f"{args.rounds} interleaved rounds")
    print(f"{'configuration':<12} {'SB3 steps/s':>12} {'SB3 1 thread':>13} {'JAX steps/s':>12} {'JAX vs SB3':>10} "
          f"{'compile s':>9}  target")
    for name in args.configs:
        jax_contender = named_contender(name, args.steps)
        contenders: dict[str, Callable[[int], float]] = {
            "sb3": SB3Contender(name, args.steps, None).rate,
            "sb3-1": SB3Contender(name, args.steps, 1).rate,
            "jax": jax_contender.rate,
        }
        rates = interleaved_rates(contenders, args.rounds, args.progress, name)
        ratios = [j / max(s, s1) for j, s, s1 in zip(rates["jax"], rates["sb3"], rates["sb3-1"], strict=True)]
        ratio = statistics.median(ratios)
        print(f"{name:<12} {statistics.median(rates['sb3']):>12,.0f} {statistics.median(rates['sb3-1']):>13,.0f} "
              f"{statistics.median(rates['jax']):>12,.0f} {ratio:>9.1f}x {jax_contender.compile_seconds:>9.1f}  "
              f"{verdict(ratio, TARGET)}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
