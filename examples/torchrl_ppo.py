"""Both sides learn with TorchRL: PPO, one policy per side, over TorchRL's own PettingZoo wrapper.

    pip install "gridghost[torchrl]"      # after installing the torch build you want
    python examples/torchrl_ppo.py        # 4,096 half-turns on the classic map, a few seconds

The env goes to TorchRL as PettingZoo's tictactoe does in TorchRL's docs, with no glue:

    env = PettingZooWrapper(gridghost.env(obs_type="vector"), use_mask=True)

TorchRL makes one group per side, `"agent"` and `"ghost"`, each with its `observation`,
`action_mask` (from `info["action_mask"]`), `mask` (whether that side acted this step), `reward`,
`done` and the numeric `info` entries. The training loop below is that of TorchRL's multi-agent
tutorials: a `Collector` runs both policies, then each side's `ClipPPOLoss` with GAE
learns from the steps in which that side acted (its `mask`), with a `MaskedCategorical` over
its action mask. Nothing in it is particular to gridghost: `train(tictactoe_v3.env())` runs it too.

`PettingZooWrapper(gridghost.parallel_env(obs_type="vector"), use_mask=True)` runs the same loop,
but there every agent acts at every step: `mask` is always True, and the side that waits sends its
one legal move, the no-op (its action mask is `[1, 0, 0, 0]`). Its policy gets no gradient from
those steps (the only legal move has probability 1); its critic learns their values.

A group may hold several agents: with `ghosts=k` the group `"ghost"` holds `ghost_0` ... `ghost_{k-1}`,
each entry gains an axis of `k` (its `mask` is `[steps, k]`), and the group learns from the
steps in which any of its agents acted, one policy shared by its agents. The ghosts alone,
learning against a fixed agent, are one such group:

    PettingZooWrapper(gridghost.parallel_env(ghosts=2, controlled="ghosts", opponent="random",
                                             layout="team_eight", obs_type="vector"), use_mask=True)

Run as a script, it prints gridghost's per-side metrics after every batch
(`gridghost.integrations.torchrl.TensorDictMetrics`: the agent's return, success and capture
rates, game length): the mean reward of both sides is 0 in a zero-sum game whatever they learn.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from tensordict.nn import TensorDictModule, TensorDictSequential
from torch import nn
from torchrl.collectors import Collector
from torchrl.data import Composite
from torchrl.envs import EnvBase
from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
from torchrl.objectives import ClipPPOLoss, ValueEstimators


class _Net(nn.Module):
    """An MLP over a side's observation, flattened and cast to float (tictactoe's is int8 planes)."""

    def __init__(self, obs_shape: torch.Size, n_out: int, cells: int = 64) -> None:
        super().__init__()
        self.obs_dims = len(obs_shape)
        self.mlp = nn.Sequential(
            nn.Linear(math.prod(obs_shape), cells), nn.Tanh(), nn.Linear(cells, cells), nn.Tanh(),
            nn.Linear(cells, n_out),
        )

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.mlp(obs.flatten(start_dim=obs.ndim - self.obs_dims).float())


def train(
    env: EnvBase,
    total_frames: int = 4096,
    frames_per_batch: int = 512,
    epochs: int = 4,
    minibatch_size: int = 128,
    lr: float = 3e-4,
    gamma: float = 0.99,
    lmbda: float = 0.95,
    seed: int = 0,
    on_batch: Callable[[int, object], None] | None = None,
) -> dict:
    """PPO for every group of a TorchRL multi-agent env; returns the batches and the losses.
    ``on_batch(number, batch)``, if given, sees each collected batch (numbered from 1) before
    the updates."""
    torch.manual_seed(seed)
    env.set_seed(seed)
    policies, losses, optimizers = {}, {}, {}
    for group in env.group_map:
        # A PettingZoo observation that is a dict with an "action_mask" (tictactoe's, or gridghost's
        # with action_mask_in_obs=True) becomes (group, "observation", "observation").
        obs_key = (group, "observation")
        if isinstance(env.observation_spec[obs_key], Composite):
            obs_key = (group, "observation", "observation")
        obs_shape = env.observation_spec[obs_key].shape[1:]
        action_spec = env.full_action_spec[group, "action"]
        actor = TensorDictModule(
            _Net(obs_shape, action_spec.space.n), in_keys=[obs_key], out_keys=[(group, "logits")]
        )
        policies[group] = ProbabilisticActor(
            actor,
            spec=action_spec,
            in_keys={"logits": (group, "logits"), "mask": (group, "action_mask")},
            out_keys=[(group, "action")],
            distribution_class=MaskedCategorical,
            return_log_prob=True,
            log_prob_key=(group, "action_log_prob"),
        )
        critic = ValueOperator(_Net(obs_shape, 1), in_keys=[obs_key], out_keys=[(group, "state_value")])
        loss = ClipPPOLoss(
            actor_network=policies[group], critic_network=critic, entropy_coeff=0.01, normalize_advantage=True
        )
        loss.set_keys(
            reward=(group, "reward"),
            action=(group, "action"),
            sample_log_prob=(group, "action_log_prob"),
            value=(group, "state_value"),
            done=(group, "done"),
            terminated=(group, "terminated"),
        )
        loss.make_value_estimator(ValueEstimators.GAE, gamma=gamma, lmbda=lmbda)
        losses[group] = loss
        optimizers[group] = torch.optim.Adam(loss.parameters(), lr=lr)

    collector = Collector(
        env,
        TensorDictSequential(*policies.values()),
        frames_per_batch=frames_per_batch,
        total_frames=total_frames,
    )
    batches, loss_values = [], {group: [] for group in env.group_map}
    for number, batch in enumerate(collector, 1):
        batches.append(batch.clone())
        if on_batch is not None:
            on_batch(number, batch)
        for group, loss in losses.items():
            with torch.no_grad():
                loss.value_estimator(
                    batch, params=loss.critic_network_params, target_params=loss.target_critic_network_params
                )
            # the steps in which this group acted: any of its agents (a team of k acts together)
            acted = batch[group, "mask"].reshape(*batch.shape, -1).any(-1)
            own = batch[acted]
            for _ in range(epochs):
                for idx in torch.randperm(own.numel()).split(minibatch_size):
                    out = loss(own[idx])
                    total = out["loss_objective"] + out["loss_critic"] + out["loss_entropy"]
                    optimizers[group].zero_grad()
                    total.backward()
                    nn.utils.clip_grad_norm_(loss.parameters(), 1.0)
                    optimizers[group].step()
                    loss_values[group].append(total.item())
        collector.update_policy_weights_()
    collector.shutdown()
    return {"batches": batches, "losses": loss_values, "frames": sum(b.numel() for b in batches)}


if __name__ == "__main__":
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    import gridghost
    from gridghost.integrations.metrics import format_metrics
    from gridghost.integrations.torchrl import TensorDictMetrics

    metrics = TensorDictMetrics()

    def report(number: int, batch: object) -> None:
        """Print the per-side metrics of the games that ended in this batch."""
        metrics.metrics.clear()
        if metrics.update(batch):
            print(f"batch {number}: {format_metrics(metrics.summary())}")

    result = train(PettingZooWrapper(gridghost.env(obs_type="vector"), use_mask=True), on_batch=report)
    print(f"{result['frames']} half-turns; last losses", {g: round(v[-1], 3) for g, v in result["losses"].items()})
