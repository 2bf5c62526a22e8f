"""Tianshou 2.x trains both sides of gridghost through its own PettingZoo path, with no glue.

The recipe is Tianshou's tic-tac-toe one (``test/pettingzoo/tic_tac_toe.py`` of Tianshou 2.0.1), as
``examples/tianshou_selfplay.py`` writes it: ``tianshou.env.PettingZooEnv`` over the AEC env with
``action_mask_in_obs=True``, one DQN per side in a ``MultiAgentOffPolicyAlgorithm``, ``Collector``
with a ``VectorReplayBuffer`` and the off-policy trainer
(``algorithm.run_training(OffPolicyTrainerParams(...))``). ``_train`` takes the env factory as its
only game-specific input, and the same function trains PettingZoo's ``tictactoe_v3``, which
shows it is the library's standard path and not one fitted to gridghost.

What the buffer lets us check: every stored action was legal under the mask stored with it, the
numeric infos say who moved and who moves next consistently with Tianshou's ``agent_id``, and
the two sides' rewards of every finished episode sum to 0 (zero-sum rewards, delivered in full).

Marked ``integration``: needs ``tianshou==2.0.1`` and torch, which the README's test command does
not install.
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

import gridghost
from gridghost.maps import MapGenerator

pytestmark = pytest.mark.integration
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

NUM_TRAIN_ENVS = 4
EPOCHS = 2
EPOCH_STEPS = 1000
COLLECT_STEPS = 20
UPDATES_PER_STEP = 0.1


def _example():
    spec = importlib.util.spec_from_file_location("tianshou_selfplay", EXAMPLES / "tianshou_selfplay.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _train(make_env, seed: int = 0):
    """The example's recipe, with a recording logger. Returns what the test checks."""
    import torch
    from tianshou.trainer import OffPolicyTrainerParams
    from tianshou.utils.logger.logger_base import LazyLogger

    class RecordingLogger(LazyLogger):
        """Keeps every update step's (moving-average) losses; LazyLogger writes nothing."""

        def __init__(self):
            super().__init__()
            self.update_interval = 1
            self.updates: list[dict] = []

        def write(self, step_type, step, data):
            if step_type.startswith("update"):
                self.updates.append(dict(data))

    example = _example()
    # The machine's other jobs make torch's thread pool slower than one thread on these tiny nets.
    torch.set_num_threads(1)
    np.random.seed(seed)
    torch.manual_seed(seed)

    env = make_env()
    algorithm = example.make_algorithm(env)
    initial = {name: [p.detach().clone() for p in algorithm.get_algorithm(name).policy.parameters()]
               for name in env.agents}
    # No warm-up collect before the trainer (tic-tac-toe's recipe has one): the trainer resets the
    # training envs when it starts, which leaves the warm-up's open episodes unterminated in the
    # buffer, and the buffer checks below read episodes off the done flags.
    training_collector, test_collector = example.make_collectors(algorithm, make_env, seed,
                                                                 num_training_envs=NUM_TRAIN_ENVS)
    logger = RecordingLogger()
    result = algorithm.run_training(OffPolicyTrainerParams(
        training_collector=training_collector,
        test_collector=test_collector,
        max_epochs=EPOCHS,
        epoch_num_steps=EPOCH_STEPS,
        collection_step_num_env_steps=COLLECT_STEPS,
        test_step_num_episodes=4,
        batch_size=64,
        update_step_num_gradient_steps_per_sample=UPDATES_PER_STEP,
        logger=logger,
        test_in_training=False,
        multi_agent_return_reduction=lambda returns: returns[:, 0],
        show_progress=False,
    ))
    evaluation = test_collector.collect(n_episode=10, reset_before_collect=True)
    changed = {name: any(not torch.equal(before, after)
                         for before, after in zip(initial[name], algorithm.get_algorithm(name).policy.parameters(),
                                                  strict=True))
               for name in env.agents}
    return env, result, training_collector.buffer, logger.updates, evaluation, changed


def _episode_sums(buffer) -> list[float]:
    """Each finished episode's sum of both sides' rewards, read off the sub-buffers in order."""
    sums = []
    for sub in buffer.buffers:
        rewards, done = sub.rew[: len(sub)], sub.done[: len(sub)]
        assert len(sub) < sub.maxsize  # never wrapped, so each sub-buffer is in time order
        start = 0
        for end in np.flatnonzero(done):
            sums.append(float(rewards[start:end + 1].sum()))
            start = end + 1
    return sums


def _check_training(env, result, buffer, updates, evaluation, changed):
    """The checks common to every env; returns the buffer's transitions."""
    sides = list(env.agents)
    total = EPOCHS * EPOCH_STEPS
    # The trainer did the work asked of it: the steps, the updates, each side's losses.
    assert result.train_step == EPOCHS * EPOCH_STEPS
    assert len(buffer) == total
    # An update step follows each collection step and takes UPDATES_PER_STEP * COLLECT_STEPS
    # gradient steps; the logger hears of one per update step.
    assert result.update_step == EPOCHS * EPOCH_STEPS // COLLECT_STEPS
    assert len(updates) == result.update_step
    for side in sides:
        losses = [update["smoothed_loss"][f"{side}/loss"] for update in updates
                  if f"{side}/loss" in update["smoothed_loss"]]
        assert len(losses) > 0.9 * len(updates), side  # each side has transitions in nearly every batch
        assert all(math.isfinite(loss) for loss in losses), side
    assert changed == dict.fromkeys(sides, True)

    # Both sides moved, each from its own observation, and only ever legally.
    data = buffer[buffer.sample_indices(0)]
    assert len(data) == total
    assert set(data.obs.agent_id) == set(sides)
    mask = np.asarray(data.obs.mask, dtype=bool)
    assert mask.shape == (total, env.action_space.n)
    assert mask.any(axis=1).all()
    assert mask[np.arange(total), data.act].all()
    assert not buffer.hasnull()

    # The sides alternate, the first side opening each episode: Tianshou's turn-based bookkeeping
    # (and the even n-step horizon above) rests on this.
    for sub in buffer.buffers:
        movers, done = np.asarray(sub.obs.agent_id[: len(sub)]), sub.done[: len(sub)]
        starts = np.concatenate([[0], np.flatnonzero(done[:-1]) + 1])
        assert (movers[starts] == sides[0]).all()
        within = ~done[:-1]
        assert (movers[1:][within] != movers[:-1][within]).all()

    # Every finished episode is zero-sum over both sides, in training and in evaluation.
    sums = _episode_sums(buffer)
    assert len(sums) >= 20
    assert sums == [0.0] * len(sums)
    assert evaluation.n_collected_episodes == 10
    assert np.asarray(evaluation.returns).shape == (10, 2)
    assert (np.asarray(evaluation.returns).sum(axis=1) == 0).all()
    assert np.isfinite(np.asarray(evaluation.returns)).all()
    return data


@pytest.mark.parametrize("settings", [dict(obs_type="vector"),
                                      dict(obs_type="grid", layout=MapGenerator(6, 6, difficulty=2, num_levels=20))],
                         ids=["vector-classic", "grid-difficulty2"])
def test_tianshou_dqn_trains_both_sides(settings):
    from tianshou.env import PettingZooEnv

    def make_env():
        return PettingZooEnv(gridghost.env(action_mask_in_obs=True, **settings))

    env, result, buffer, *rest = _train(make_env)
    data = _check_training(env, result, buffer, *rest)

    # gridghost's infos, stored by Tianshou as they come: numeric, and in step with Tianshou's
    # bookkeeping. The step stored with an observation of side s is s's move (info["mover"]), and
    # the next observation belongs to the side info["to_move"] names.
    index = {side: i for i, side in enumerate(env.agents)}
    movers = np.array([index[side] for side in data.obs.agent_id])
    assert (np.asarray(data.info.mover) == movers).all()
    next_movers = np.array([index[side] for side in data.obs_next.agent_id])
    assert (np.asarray(data.info.to_move) == next_movers).all()


def test_tianshou_recipe_is_the_tictactoe_one():
    from pettingzoo.classic import tictactoe_v3
    from tianshou.env import PettingZooEnv

    def make_env():
        return PettingZooEnv(tictactoe_v3.env())

    _check_training(*_train(make_env))


def test_tianshou_example_runs():
    import torch

    torch.set_num_threads(1)
    returns = _example().main(["--epochs", "1", "--epoch-steps", "200", "--eval-episodes", "5"])
    assert set(returns) == {"agent", "ghost"}
    assert math.isfinite(returns["agent"])
    assert returns["agent"] + returns["ghost"] == 0
