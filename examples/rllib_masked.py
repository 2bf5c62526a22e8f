"""Both sides learn with RLlib's action masking: multi-agent PPO whose policies never pick a move
that the mask rules out.

The env is :class:`gridghost.integrations.rllib.GridGhostMultiAgentEnv` with
``action_mask_in_obs=True``: each observation is ``{"observations": ..., "action_mask":
int8[4]}``, the keys of RLlib's ``ActionMaskingTorchRLModule``, which
:func:`gridghost.integrations.rllib.masked_multi_module_spec` gives both sides. The mask is 1 for
the moves that change the mover's cell (walking into a wall is legal but wasted). A callback
checks every action RLlib sampled against the mask it was chosen under; the script prints how many
broke it (0 with the masking module) next to the mean returns RLlib measured, which sum to 0, and
gridghost's per-side metrics (:class:`gridghost.integrations.rllib.GridGhostMetrics`: success and
capture rates, game length in the agent's moves).

    pip install "gridghost[rllib]"                 # Ray RLlib and torch (choose your torch build)
    python examples/rllib_masked.py                                # a local Ray, 10 iterations
    python examples/rllib_masked.py --obs-type grid                # channels-last grids, a CNN
    python examples/rllib_masked.py --num-env-runners 1            # rollouts in another process
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

SIDES = ("agent", "ghost")
#: The counters the callback adds to RLlib's env-runner metrics.
CHECKED, BROKEN, RESTRICTED = ("gridghost_actions_checked", "gridghost_masked_actions_taken",
                               "gridghost_actions_under_a_restricting_mask")
#: A CNN for 6x6 grids: RLlib's default filters are for 10x10 pictures and larger.
SMALL_GRID_FILTERS = [[16, [3, 3], 1], [32, [3, 3], 1]]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--obs-type", choices=("vector", "grid"), default="vector",
                        help="the encoding ('grid' is channels-last, for RLlib's CNN)")
    parser.add_argument("--difficulty", type=int, choices=(0, 1, 2, 3), default=2,
                        help="the generated 6x6 maps' preset")
    parser.add_argument("--iterations", type=int, default=10, help="training iterations (>= 1)")
    parser.add_argument("--batch", type=int, default=2000, help="env steps per iteration (>= 128)")
    parser.add_argument("--num-env-runners", type=int, default=0, help="rollout processes (0: sample in the driver)")
    parser.add_argument("--seed", type=int, default=0, help="seeds RLlib (>= 0)")
    args = parser.parse_args(argv)
    for name, low in (("iterations", 1), ("batch", 128), ("num_env_runners", 0), ("seed", 0)):
        if getattr(args, name) < low:
            parser.error(f"--{name.replace('_', '-')} must be >= {low}, got {getattr(args, name)}")
    return args


def _mask_checker() -> type:
    """An RLlib callback that counts the sampled actions, those taken under a mask that rules a move
    out, and those the mask ruled out."""
    from ray.rllib.callbacks.callbacks import RLlibCallback

    class MaskChecker(RLlibCallback):
        def on_sample_end(self, *, env_runner: Any = None, metrics_logger: Any = None, samples: Any = (),
                          **kwargs: Any) -> None:
            checked = broken = restricted = 0
            for episode in samples:  # each step of an episode is in exactly one sampled chunk
                for single in episode.agent_episodes.values():
                    for t in range(len(single)):
                        mask = single.get_observations(t)["action_mask"]
                        checked += 1
                        restricted += int(mask.min() == 0)
                        broken += int(mask[int(single.get_actions(t))] == 0)
            metrics_logger.log_value(CHECKED, checked, reduce="sum")
            metrics_logger.log_value(BROKEN, broken, reduce="sum")
            metrics_logger.log_value(RESTRICTED, restricted, reduce="sum")

    return MaskChecker


def build_config(args: argparse.Namespace) -> Any:
    """The PPO config: the masked adapter, one masked module per side."""
    from ray.rllib.algorithms.ppo import PPOConfig

    from gridghost.integrations.rllib import (
        GridGhostMetrics,
        GridGhostMultiAgentEnv,
        masked_multi_module_spec,
        module_of,
    )
    from gridghost.maps.levels import MapGenerator

    settings: dict[str, Any] = {"obs_type": args.obs_type, "action_mask_in_obs": True,
                                "layout": MapGenerator(6, 6, difficulty=args.difficulty)}
    model: dict[str, Any] = {"fcnet_hiddens": [64, 64]}
    if args.obs_type == "grid":
        settings["grid_layout"] = "hwc"
        model["conv_filters"] = SMALL_GRID_FILTERS
    return (
        PPOConfig()
        .environment(GridGhostMultiAgentEnv, env_config=settings)
        .multi_agent(policies=set(SIDES), policy_mapping_fn=module_of)
        .rl_module(rl_module_spec=masked_multi_module_spec(model))
        .env_runners(num_env_runners=args.num_env_runners)
        .callbacks([_mask_checker(), GridGhostMetrics])
        .training(train_batch_size_per_learner=args.batch, minibatch_size=min(256, args.batch), num_epochs=4,
                  lr=3e-4, gamma=0.99, entropy_coeff=0.01)
        .debugging(seed=args.seed)
    )


def main(argv: Sequence[str] | None = None, *, init_ray: bool = True) -> list[dict[str, float]]:
    """Train, printing one line per iteration.

    Args:
        argv: the command line.
        init_ray: start (and at the end stop) a local Ray; False to use the one already running.

    Returns:
        One dict per iteration: ``checked``, ``restricted`` and ``broken`` (the iteration's
        sampled actions, those chosen under a mask with a 0, and those the mask ruled out),
        ``env_steps`` (the env steps RLlib sampled in the iteration: one action each), the mean
        returns ``agent_return`` and ``ghost_return`` RLlib measured, gridghost's per-side metrics
        (``metrics_agent_return``, ``success_rate``, ``capture_rate``, ``episode_length``), and
        ``agent_loss``, ``ghost_loss`` (PPO's).
    """
    args = parse_args(argv)
    import ray  # the optional extra: imported once the arguments are fine

    if init_ray:
        ray.init(num_cpus=max(2, args.num_env_runners + 1), include_dashboard=False, log_to_driver=False)
    algo = build_config(args).build_algo()
    print("iter  actions checked  masked taken  RLlib returns: agent   ghost  success  capture  length"
          "  loss: agent   ghost   time")
    rows = []
    try:
        for iteration in range(1, args.iterations + 1):
            began = time.perf_counter()
            result = algo.train()
            runners, learners = result["env_runners"], result["learners"]
            returns = runners.get("agent_episode_returns_mean", {})
            row = dict(checked=float(runners[CHECKED]), broken=float(runners[BROKEN]),
                       restricted=float(runners[RESTRICTED]),
                       env_steps=float(runners["num_env_steps_sampled"]),
                       agent_return=float(returns.get("agent", float("nan"))),
                       ghost_return=float(returns.get("ghost", float("nan"))),
                       metrics_agent_return=float(runners.get("agent_return", float("nan"))),
                       success_rate=float(runners.get("success_rate", float("nan"))),
                       capture_rate=float(runners.get("capture_rate", float("nan"))),
                       episode_length=float(runners.get("episode_length", float("nan"))),
                       agent_loss=float(learners["agent"]["total_loss"]),
                       ghost_loss=float(learners["ghost"]["total_loss"]))
            rows.append(row)
            print(f"{iteration:4d}  {row['checked']:15.0f}  {row['broken']:12.0f}  {row['agent_return']:20.2f}  "
                  f"{row['ghost_return']:6.2f}  {row['success_rate']:7.3f}  {row['capture_rate']:7.3f}  "
                  f"{row['episode_length']:6.1f}  {row['agent_loss']:11.3f}  {row['ghost_loss']:6.3f}  "
                  f"{time.perf_counter() - began:5.1f}s")
    finally:
        algo.stop()
        if init_ray:
            ray.shutdown()
    return rows


if __name__ == "__main__":
    main()
