"""A newcomer's first SB3 run with nothing but the id: ``make_vec_env("gridghost/GridGhost-v1")``
builds, and PPO's default ``MlpPolicy`` trains on it (with the old ``"dict"`` default SB3 refused
the nested observation); ``SB3VecEnv`` gives the normalised rewards unless told otherwise.

Marked ``integration``: needs ``gridghost[sb3]`` (and torch); ``.ci/run`` installs it."""

from __future__ import annotations

import numpy as np
import pytest

import gridghost
from gridghost.core import REWARD_PRESETS

pytestmark = pytest.mark.integration


def test_ppo_trains_on_the_ids_defaults() -> None:
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_util import make_vec_env

    envs = make_vec_env(gridghost.ENV_ID, n_envs=2, seed=0)
    model = PPO("MlpPolicy", envs, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(256)
    assert model.num_timesteps >= 256
    assert model.observation_space.shape == (26,)
    assert envs.get_attr("config")[0].rewards == REWARD_PRESETS["normalised"]


def test_sb3_vec_env_defaults_to_the_normalised_rewards() -> None:
    from gridghost.integrations.sb3 import SB3VecEnv

    env = SB3VecEnv(num_envs=2)
    assert env.env.game.config.rewards == REWARD_PRESETS["normalised"]
    assert env.observation_space.shape == (26,)
    env.seed(0)
    env.reset()
    env.step_async(np.zeros(2, dtype=np.int64))
    _, rewards, _, _ = env.step_wait()
    assert np.all(np.abs(rewards) <= 1.02)
    explicit = SB3VecEnv(num_envs=2, rewards="reference")
    assert explicit.env.game.config.rewards == REWARD_PRESETS["reference"]
