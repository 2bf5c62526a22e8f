"""Both sides learn at once with Tianshou 2.x: one DQN per side, through Tianshou's PettingZoo path.

This is Tianshou's own tic-tac-toe recipe (``test/pettingzoo/tic_tac_toe.py``) with gridghost in
place of ``tictactoe_v3`` and a DQN instead of the random opponent: ``tianshou.env.PettingZooEnv``
over the AEC env with ``action_mask_in_obs=True``, a ``MultiAgentOffPolicyAlgorithm``, a
``Collector`` with a ``VectorReplayBuffer`` and the off-policy trainer. No line of it is there
for gridghost. Each DQN reads the side's mask from ``obs["action_mask"]`` and never picks an
illegal move. After training it plays ``--eval-episodes`` episodes and prints both sides' mean
returns (which sum to 0: the rewards are zero-sum and every side's reward reaches it).

    pip install gridghost "tianshou==2.0.1"       # install your torch build first
    python examples/tianshou_selfplay.py                          # the classic map, "vector"
    python examples/tianshou_selfplay.py --obs-type grid --difficulty 2

The n-step horizon is even (2): Tianshou's n-step return walks the buffer, whose steps alternate
between the sides, so an even horizon bootstraps from the learner's own next observation and
includes the reward of the opponent's half-turn (being caught, say).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import gridghost
from gridghost.maps import level_split


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--obs-type", default="vector", choices=("vector", "grid", "belief_vector"))
    parser.add_argument("--difficulty", type=int, choices=(0, 1, 2, 3), default=None,
                        help="play the preset's generated levels instead of the classic map")
    parser.add_argument("--epochs", type=int, default=10, help="training epochs (>= 1)")
    parser.add_argument("--epoch-steps", type=int, default=5000, help="env steps per epoch (>= 20)")
    parser.add_argument("--eval-episodes", type=int, default=100, help="episodes played after training (>= 1)")
    parser.add_argument("--seed", type=int, default=0, help="seeds numpy, torch and the envs (>= 0)")
    args = parser.parse_args(argv)
    for name, low in (("epochs", 1), ("epoch_steps", 20), ("eval_episodes", 1), ("seed", 0)):
        if getattr(args, name) < low:
            parser.error(f"--{name.replace('_', '-')} must be >= {low}, got {getattr(args, name)}")
    return args


def make_algorithm(env: Any, hidden_sizes: Sequence[int] = (64, 64)) -> Any:
    """A ``MultiAgentOffPolicyAlgorithm`` with one DQN per side of a Tianshou ``PettingZooEnv``."""
    from tianshou.algorithm import DQN, MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.utils.net.common import Net

    observation_space = env.observation_space["observation"]

    def dqn() -> DQN:
        net = Net(state_shape=observation_space.shape, action_shape=env.action_space.n,
                  hidden_sizes=list(hidden_sizes))
        policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space,
                                         eps_training=0.2, eps_inference=0.05)
        return DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3), gamma=0.9,
                   n_step_return_horizon=2, target_update_freq=100)

    return MultiAgentOffPolicyAlgorithm(algorithms=[dqn() for _ in env.agents], env=env)


def make_collectors(algorithm: Any, make_env: Callable[[], Any], seed: int, num_training_envs: int = 4,
                    num_test_envs: int = 2, buffer_size: int = 20_000) -> tuple[Any, Any]:
    """The training collector (with a replay buffer) and the test collector, their envs seeded."""
    from tianshou.data import Collector, CollectStats, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv

    training_envs = DummyVectorEnv([make_env for _ in range(num_training_envs)])
    test_envs = DummyVectorEnv([make_env for _ in range(num_test_envs)])
    training_envs.seed(seed)
    test_envs.seed(seed + 100)
    training = Collector[CollectStats](algorithm, training_envs, VectorReplayBuffer(buffer_size, num_training_envs),
                                       exploration_noise=True)
    test = Collector[CollectStats](algorithm, test_envs, exploration_noise=True)
    return training, test


def main(argv: Sequence[str] | None = None) -> dict[str, float]:
    """Train, then evaluate; returns the two sides' mean evaluation returns."""
    args = parse_args(argv)
    import torch
    from tianshou.env import PettingZooEnv
    from tianshou.trainer import OffPolicyTrainerParams

    settings: dict[str, Any] = dict(obs_type=args.obs_type, action_mask_in_obs=True)
    if args.difficulty is not None:
        settings["layout"] = level_split(args.difficulty, "train")

    def make_env() -> PettingZooEnv:
        return PettingZooEnv(gridghost.env(**settings))

    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    env = make_env()
    algorithm = make_algorithm(env)
    training_collector, test_collector = make_collectors(algorithm, make_env, args.seed)
    algorithm.run_training(OffPolicyTrainerParams(
        training_collector=training_collector,
        test_collector=test_collector,
        max_epochs=args.epochs,
        epoch_num_steps=args.epoch_steps,
        collection_step_num_env_steps=20,
        test_step_num_episodes=10,
        batch_size=64,
        update_step_num_gradient_steps_per_sample=0.1,
        test_in_training=False,
        multi_agent_return_reduction=lambda returns: returns[:, 0],  # the agent's return picks the best epoch
    ))
    stats = test_collector.collect(n_episode=args.eval_episodes, reset_before_collect=True)
    returns = np.asarray(stats.returns, dtype=float).mean(axis=0)
    result = dict(zip(env.agents, returns.tolist(), strict=True))
    print(f"{args.eval_episodes} episodes: mean returns agent {result['agent']:.2f}, ghost {result['ghost']:.2f}, "
          f"mean length {np.mean(stats.lens):.1f} steps")
    return result


if __name__ == "__main__":
    main()
