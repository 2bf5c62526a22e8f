"""Both sides learn with BenchMARL: MAPPO, one policy per side, over the parallel env.

    pip install "benchmarl==1.5.*"      # after the torch build you want; it brings torchrl < 0.12
    python examples/benchmarl_mappo.py  # 2,000 half-turns on the classic map

BenchMARL runs tasks, not env objects; :mod:`gridghost.integrations.benchmarl` has gridghost's
(`GridGhostTask`, BenchMARL's own PettingZoo task class over `gridghost.parallel_env()`, as its
"extending: task" recipe builds any new env; tictactoe needs the same). Its `SideMetrics`
callback prints the agent's return, success and capture rates and game length after every
iteration: BenchMARL's own progress bar shows the mean return of both sides, which is 0 in a
zero-sum game whatever the policies do.
"""

from __future__ import annotations

from benchmarl.algorithms import MappoConfig
from benchmarl.experiment import Experiment, ExperimentConfig
from benchmarl.experiment.callback import Callback
from benchmarl.models.mlp import MlpConfig

from gridghost.integrations.benchmarl import GridGhostTask, SideMetrics


class Recorder(Callback):
    """Keeps every collected batch and each group's losses of every training step (the tests read them)."""

    def __init__(self):
        super().__init__()
        self.batches, self.losses = [], []

    def on_batch_collected(self, batch):
        self.batches.append(batch.clone())

    def on_train_end(self, training_td, group):
        self.losses.append((group, training_td.clone()))


def experiment(frames: int = 2000, batch: int = 500, seed: int = 0, save_folder: str | None = None,
               callbacks=(), task: GridGhostTask = GridGhostTask.GRIDGHOST, **env_kwargs) -> Experiment:
    """A small MAPPO experiment on gridghost (obs_type="vector" unless given), without loggers:
    both sides learning (`GRIDGHOST`), or the ghosts alone against a fixed agent
    (`GRIDGHOST_TEAM`, with `ghosts=`, `layout=` and `opponent=` among the env's keywords)."""
    config = ExperimentConfig.get_from_yaml()
    config.max_n_frames = frames
    config.on_policy_collected_frames_per_batch = batch
    config.on_policy_n_envs_per_worker = 1
    config.on_policy_n_minibatch_iters = 2
    config.on_policy_minibatch_size = batch // 2
    config.lr = 3e-4
    config.evaluation = False
    config.render = False
    config.loggers = []
    config.create_json = False
    config.checkpoint_interval = 0
    config.save_folder = save_folder
    return Experiment(
        task=task.get_task({"obs_type": "vector", **env_kwargs}),
        algorithm_config=MappoConfig.get_from_yaml(),
        model_config=MlpConfig.get_from_yaml(),
        critic_model_config=MlpConfig.get_from_yaml(),
        seed=seed,
        config=config,
        callbacks=list(callbacks),
    )


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        run = experiment(save_folder=folder, callbacks=[SideMetrics()])
        run.run()
        print(f"{run.total_frames} half-turns in {run.n_iters_performed} iterations")
