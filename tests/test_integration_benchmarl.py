"""BenchMARL's MAPPO trains both sides of the parallel env, registered as any new BenchMARL task is.

BenchMARL ships tasks, not a way to pass an env object: a new environment is a ``TaskClass``
(whose ``get_env_fun`` builds the TorchRL env) and a ``Task`` enum naming it, the path of
BenchMARL's "extending: task" example. PettingZoo's tictactoe_v3 needs the same (BenchMARL ships
no classic PettingZoo task), and more: a transform to flatten and cast its int8 board planes for
BenchMARL's MLP. gridghost's task below is that class and nothing else; its env is TorchRL's own
``PettingZooWrapper(gridghost.parallel_env(obs_type="vector"), use_mask=True)``, as BenchMARL's
PettingZoo tasks build theirs (parallel envs).

Marked ``integration``: needs benchmarl 1.5 (which pins torchrl < 0.12).
"""

from __future__ import annotations

import math

import pytest
import torch
from benchmarl.algorithms import MappoConfig
from benchmarl.environments import PettingZooClass, Task
from benchmarl.experiment import Experiment, ExperimentConfig
from benchmarl.experiment.callback import Callback
from benchmarl.models.mlp import MlpConfig
from torchrl.envs.libs.pettingzoo import PettingZooWrapper

import gridghost

pytestmark = pytest.mark.integration

FRAMES = 2000
BATCH = 500


class GridGhostClass(PettingZooClass):
    """BenchMARL's PettingZoo task class, over gridghost's parallel env instead of a named task."""

    def get_env_fun(self, num_envs, continuous_actions, seed, device):
        return lambda: PettingZooWrapper(gridghost.parallel_env(**self.config), use_mask=True, seed=seed, device=device)

    def supports_continuous_actions(self):
        return False

    def supports_discrete_actions(self):
        return True

    def has_state(self):
        return False

    def has_render(self, env):
        return False

    def max_steps(self, env):
        return self.config.get("max_cycles", 200)

    @staticmethod
    def env_name():
        return "gridghost"


class GridGhostTask(Task):
    GRIDGHOST = None

    @staticmethod
    def associated_class():
        return GridGhostClass


class Record(Callback):
    """Keeps every collected batch and every group's training losses."""

    def __init__(self):
        super().__init__()
        self.batches, self.losses = [], []

    def on_batch_collected(self, batch):
        self.batches.append(batch.clone())

    def on_train_end(self, training_td, group):
        self.losses.append((group, training_td.clone()))


def test_mappo_on_the_parallel_env(tmp_path):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny networks on a 2-core machine
    try:
        config = ExperimentConfig.get_from_yaml()
        config.max_n_frames = FRAMES
        config.on_policy_collected_frames_per_batch = BATCH
        config.on_policy_n_envs_per_worker = 1
        config.on_policy_n_minibatch_iters = 2
        config.on_policy_minibatch_size = 250
        config.lr = 3e-4
        config.evaluation = False
        config.render = False
        config.loggers = []
        config.create_json = False
        config.checkpoint_interval = 0
        config.save_folder = str(tmp_path)
        record = Record()
        experiment = Experiment(
            task=GridGhostTask.GRIDGHOST.get_task({"obs_type": "vector"}),
            algorithm_config=MappoConfig.get_from_yaml(),
            model_config=MlpConfig.get_from_yaml(),
            critic_model_config=MlpConfig.get_from_yaml(),
            seed=0,
            config=config,
            callbacks=[record],
        )
        experiment.run()
    finally:
        torch.set_num_threads(threads)

    assert experiment.group_map == {"agent": ["agent"], "ghost": ["ghost"]}
    assert experiment.total_frames == FRAMES
    assert [b.numel() for b in record.batches] == [BATCH] * (FRAMES // BATCH)
    assert {group for group, _ in record.losses} == {"agent", "ghost"}
    for group, losses in record.losses:
        for key in ("loss_objective", "loss_critic"):
            assert all(math.isfinite(v) for v in losses[key].tolist()), (group, key)

    data = torch.cat([b.reshape(-1) for b in record.batches])
    to_move = data["agent", "info", "to_move"].flatten()
    assert torch.equal(to_move, data["ghost", "info", "to_move"].flatten())
    for index, group in enumerate(("agent", "ghost")):
        mask = data[group, "action_mask"].squeeze(1)
        action = data[group, "action"].squeeze(1)
        # No all-zero mask (the masked sampler drew NaN from one), finite log-probabilities.
        assert mask.any(-1).all(), group
        assert torch.isfinite(data[group, "logits"][mask.unsqueeze(1)]).all(), group
        assert torch.isfinite(data[group, "log_prob"]).all(), group
        # Every action was legal; the waiting side's only legal action is the no-op 0.
        assert mask.gather(-1, action[:, None]).all(), group
        waiting = to_move != index
        assert (action[waiting] == 0).all(), group
        assert not mask[waiting][:, 1:].any(), group
        # Both sides train on the steps in which they move, with more than one legal move there.
        assert mask[~waiting].sum(-1).max() >= 2, group

    # Zero-sum at every half-turn, and BenchMARL's episode returns of the two sides sum to 0.
    r_agent = data["next", "agent", "reward"].flatten()
    r_ghost = data["next", "ghost", "reward"].flatten()
    assert torch.equal(r_agent + r_ghost, torch.zeros_like(r_agent))
    done = data["next", "done"].flatten()
    assert done.sum() >= 5, "too few finished games to check"
    ret_agent = data["next", "agent", "episode_reward"].flatten()[done]
    ret_ghost = data["next", "ghost", "episode_reward"].flatten()[done]
    assert torch.equal(ret_agent + ret_ghost, torch.zeros_like(ret_agent))
    assert (ret_agent <= 100).all()
    assert {-1.0, 0.0} <= set(r_agent.tolist())
