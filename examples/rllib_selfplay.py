"""Both sides learn at once with RLlib: multi-agent PPO, one policy per side, measured exactly.

The game runs through :class:`gridghost.integrations.rllib.GridGhostMultiAgentEnv`. Only the
side to move observes, and each side's rewards reach it in full (RLlib's own ``PettingZooEnv``
loses the ghost's first reward). The map is a contested generated level (difficulty 2 or 3).
After every training iteration the script tabulates both policies on every state. It prints
the pair's exact exploitability and each side's gap next to the minimax value, and the agent's
exact success probability next to the minimax one. It also prints the mean returns RLlib
measured, which sum to 0.

    pip install "gridghost[rllib]"                 # Ray RLlib and torch (choose your torch build)
    python examples/rllib_selfplay.py                              # a local Ray, 20 iterations
    python examples/rllib_selfplay.py --num-env-runners 2          # rollouts in two processes
    python examples/rllib_selfplay.py --address auto               # join a running cluster

``--address`` joins an existing (multi-node) Ray cluster instead of starting one here: the path
to take when one machine is no longer enough. Start the cluster with ``ray start --head`` on one
machine and ``ray start --address=<head>:6379`` on the others, then raise
``--num-env-runners`` to spread the rollouts over them.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from gridghost.maps.levels import MapGenerator
from gridghost.planning import (
    agent_exploitability,
    evaluate_policies,
    exploitability,
    solve_game,
    tabulate_policy,
)

SIDES = ("agent", "ghost")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--difficulty", type=int, choices=(2, 3), default=2, help="the contested preset (2 or 3)")
    parser.add_argument("--level", type=int, default=0, help="which level of the preset to play (>= 0)")
    parser.add_argument("--iterations", type=int, default=20, help="training iterations (>= 1)")
    parser.add_argument("--batch", type=int, default=4000, help="env steps per iteration (>= 128)")
    parser.add_argument("--num-env-runners", type=int, default=0,
                        help="rollout processes (0: sample in the driver)")
    parser.add_argument("--address", default=None,
                        help="a Ray cluster to join ('auto' or host:port); by default a local one is started")
    parser.add_argument("--seed", type=int, default=0, help="seeds RLlib (>= 0)")
    args = parser.parse_args(argv)
    for name, low in (("level", 0), ("iterations", 1), ("batch", 128), ("num_env_runners", 0), ("seed", 0)):
        if getattr(args, name) < low:
            parser.error(f"--{name.replace('_', '-')} must be >= {low}, got {getattr(args, name)}")
    return args


def _greedy(module: Any) -> Any:
    """A batch policy of vector observations: the module's most likely action."""
    import torch

    def act(observations: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            logits = module.forward_inference({"obs": torch.as_tensor(observations, dtype=torch.float32)})
        return logits["action_dist_inputs"].argmax(dim=-1).numpy()

    return act


def main(argv: Sequence[str] | None = None) -> list[dict[str, float]]:
    """Train, printing one line per iteration.

    Returns:
        One dict per iteration: ``exploitability``, ``agent_gap``, ``ghost_gap``, ``success``
        and the mean returns ``agent_return`` and ``ghost_return`` RLlib measured.
    """
    args = parse_args(argv)
    import ray  # the optional extra: imported once the arguments are fine
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from gridghost.integrations.rllib import GridGhostMultiAgentEnv, module_of

    layout = MapGenerator(6, 6, difficulty=args.difficulty).level(args.level)
    start = (layout.agent_start, layout.ghost_start)
    game = solve_game(layout=layout)
    value, success_star = game.value(*start), game.success_probability(*start)
    print(f"map: difficulty {args.difficulty}, level {args.level}; minimax value {value:.2f}, "
          f"minimax success {success_star:.3f}")

    if args.address is not None:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=max(2, args.num_env_runners + 1), include_dashboard=False, log_to_driver=False)
    config = (
        PPOConfig()
        .environment(GridGhostMultiAgentEnv, env_config={"obs_type": "vector", "layout": layout.to_dict()})
        .multi_agent(policies=set(SIDES), policy_mapping_fn=module_of)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={side: RLModuleSpec() for side in SIDES}))
        .env_runners(num_env_runners=args.num_env_runners)
        .training(train_batch_size_per_learner=args.batch, minibatch_size=min(256, args.batch), num_epochs=6,
                  lr=3e-4, gamma=0.99, entropy_coeff=0.01)
        .debugging(seed=args.seed)
    )
    algo = config.build_algo()
    print("iter  exploitability  agent gap  ghost gap  success (minimax)  RLlib returns: agent  ghost   time")
    rows = []
    try:
        for iteration in range(1, args.iterations + 1):
            began = time.perf_counter()
            result = algo.train()
            tables = {side: tabulate_policy(_greedy(algo.get_module(side)), side, layout, obs_type="vector",
                                            batch=True) for side in SIDES}
            gap = exploitability(tables["agent"], tables["ghost"], layout=layout)
            agent_gap = agent_exploitability(tables["agent"], layout=layout)
            returns = result["env_runners"].get("agent_episode_returns_mean", {})
            row = dict(exploitability=gap, agent_gap=agent_gap, ghost_gap=gap - agent_gap,
                       success=evaluate_policies(tables["agent"], tables["ghost"], layout=layout)
                       .success_probability(*start),
                       agent_return=float(returns.get("agent", float("nan"))),
                       ghost_return=float(returns.get("ghost", float("nan"))))
            rows.append(row)
            print(f"{iteration:4d}  {gap:14.2f}  {agent_gap:9.2f}  {row['ghost_gap']:9.2f}  {row['success']:7.3f} "
                  f"({success_star:.3f})  {row['agent_return']:20.2f}  {row['ghost_return']:5.2f}  "
                  f"{time.perf_counter() - began:5.1f}s")
    finally:
        algo.stop()
        ray.shutdown()
    return rows


if __name__ == "__main__":
    main()
