"""The Gymnasium views give a run that learns when a newcomer names nothing: they default to the
flat vector and the normalised rewards (:data:`gridghost.config.TRAINER_DEFAULTS`), a caller's
keyword wins and a whole ``config=`` is taken as it is, while the PettingZoo envs,
``AgentInterface``, the batched engine and the exact evaluation keep the game's own (reference)
defaults."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest

import gridghost
from gridghost.batched import BatchedGame, GridGhostVectorEnv
from gridghost.config import TRAINER_DEFAULTS
from gridghost.core import REWARD_PRESETS, Layout
from gridghost.envs import GridGhostGymEnv
from gridghost.training import OpponentPool, SelfPlayEnv

NORMALISED = REWARD_PRESETS["normalised"]
REFERENCE = REWARD_PRESETS["reference"]
VECTOR = gridghost.env(obs_type="vector").observation_space("agent")  # the flat vector of 26 numbers


def test_the_trainer_defaults_are_the_vector_and_the_normalised_rewards_and_read_only() -> None:
    assert dict(TRAINER_DEFAULTS) == {"obs_type": "vector", "rewards": "normalised"}
    with pytest.raises(TypeError):
        TRAINER_DEFAULTS["rewards"] = "reference"  # type: ignore[index]


@pytest.mark.parametrize("controlled", ["agent", "ghost"])
def test_gymnasium_make_gives_the_vector_and_the_normalised_rewards(controlled: str) -> None:
    env = gymnasium.make(gridghost.ENV_ID, controlled=controlled)
    assert env.observation_space.shape == (26,) and env.observation_space.dtype == np.float32
    assert env.unwrapped.config.obs_type == "vector"
    assert env.unwrapped.config.rewards == NORMALISED
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    # every reward of an episode is on the normalised scale: -0.01 a step, at most 1 in size
    rewards = []
    for _ in range(100):
        obs, reward, terminated, truncated, _ = env.step(env.action_space.sample())
        rewards.append(reward)
        if terminated or truncated:
            break
    assert all(abs(reward) <= 1.02 for reward in rewards) and any(reward != 0 for reward in rewards)


def test_a_keyword_wins_over_the_ids_default() -> None:
    env = gymnasium.make(gridghost.ENV_ID, obs_type="dict", rewards="reference")
    assert isinstance(env.observation_space, gymnasium.spaces.Dict)
    assert env.unwrapped.config.rewards == REFERENCE
    grid = gymnasium.make(gridghost.ENV_ID, obs_type="grid", view_radius=2)
    assert grid.observation_space.shape == (16, 5, 5) and grid.unwrapped.config.rewards == NORMALISED


def test_make_vec_has_the_single_envs_defaults() -> None:
    envs = gymnasium.make_vec(gridghost.ENV_ID, num_envs=3)
    single = gymnasium.make(gridghost.ENV_ID)
    assert envs.single_observation_space == single.observation_space
    assert envs.unwrapped.game.config.rewards == NORMALISED
    envs.reset(seed=0)
    _, rewards, *_ = envs.step(np.zeros(3, dtype=np.int64))
    assert np.all(np.abs(rewards) <= 1.02) and np.any(rewards != 0)


def test_every_gymnasium_view_has_the_trainer_defaults() -> None:
    view = GridGhostGymEnv()
    assert view.observation_space == VECTOR and view.config.rewards == NORMALISED
    pool = OpponentPool()
    pool.add("chase", "ghost", name="chaser")
    selfplay = SelfPlayEnv(pool)
    assert selfplay.observation_space == VECTOR and selfplay.config.rewards == NORMALISED
    # RLlib builds the class from one mapping, its env_config
    assert GridGhostGymEnv({"controlled": "ghost"}).config.rewards == NORMALISED
    vector = GridGhostVectorEnv(2)
    assert vector.single_observation_space == VECTOR and vector.game.config.rewards == NORMALISED


def test_a_whole_config_is_taken_as_it_is() -> None:
    config = gridghost.env(obs_type="text", rewards="reference").config
    for env in (gymnasium.make(gridghost.ENV_ID, config=config), GridGhostGymEnv(config=config.to_dict()),
                GridGhostGymEnv({"config": config})):
        assert env.unwrapped.config.obs_type == "text" and env.unwrapped.config.rewards == REFERENCE


def test_the_pettingzoo_envs_the_engine_and_the_reference_interface_keep_the_games_defaults() -> None:
    aec = gridghost.env()
    assert aec.config.obs_type == "dict" and aec.config.rewards == REFERENCE
    assert gridghost.parallel_env().aec_env.config.rewards == REFERENCE
    assert BatchedGame(2).config.rewards == REFERENCE
    interface = gridghost.AgentInterface(render=False, use_particle_filter=False)
    assert interface.env.config.rewards == REFERENCE


@pytest.mark.slow  # a second or more: .ci/run runs the slow group
def test_the_exact_score_does_not_depend_on_the_reward_scale() -> None:
    # evaluate defaults to the trainers' normalised rewards; the reference's change only the
    # returns' unit (x 100): the normalised rewards are the reference's / 100, with the same best
    # responses.
    levels = [Layout.generate(6, 6, seed=seed) for seed in range(3)]

    def policy(obs: np.ndarray) -> int:
        return int(np.argmax(obs[:4]))

    reference = gridghost.evaluate(policy, levels, obs_type="vector", rewards="reference")
    normalised = gridghost.evaluate(policy, levels, obs_type="vector")
    np.testing.assert_allclose(normalised.score, reference.score, atol=1e-9)
    np.testing.assert_allclose(normalised.success, reference.success, atol=1e-12)
    np.testing.assert_allclose(100 * normalised.returns, reference.returns, rtol=1e-9, atol=1e-9)
    assert not np.allclose(reference.returns, normalised.returns)


def test_the_turn_based_trainer_adapter_has_the_trainer_defaults() -> None:
    # the base of RLlib's multi-agent env (and of any turn-based trainer's): a trainer view too
    from gridghost.integrations.turns import TurnBasedDictEnv

    env = TurnBasedDictEnv()
    assert env.game.config.obs_type == "vector" and env.game.config.rewards == NORMALISED
    assert TurnBasedDictEnv(obs_type="grid", rewards="reference").game.config.rewards == REFERENCE


def test_the_id_before_the_change_keeps_its_behaviour_and_says_it_is_out_of_date() -> None:
    # An id keeps its behaviour within a version: v0 still gives the reference's dict and rewards
    assert gridghost.ENV_ID == "gridghost/GridGhost-v1"
    with pytest.warns(DeprecationWarning, match="GridGhost-v0 is out of date"):
        old = gymnasium.make("gridghost/GridGhost-v0")
    assert isinstance(old.observation_space, gymnasium.spaces.Dict) and old.unwrapped.config.rewards == REFERENCE
    with pytest.warns(DeprecationWarning):
        given = gymnasium.make("gridghost/GridGhost-v0", obs_type="vector", rewards="normalised")
        whole = gymnasium.make("gridghost/GridGhost-v0", config=gridghost.env(obs_type="text").config)
        mapping = gymnasium.make("gridghost/GridGhost-v0", controlled={"controlled": "ghost"})
    assert given.observation_space == VECTOR and given.unwrapped.config.rewards == NORMALISED
    assert whole.unwrapped.config.obs_type == "text"
    assert mapping.unwrapped.config.obs_type == "dict" and mapping.unwrapped.controlled == "ghost"
    # its vector env: the dict observation falls back to Gymnasium's SyncVectorEnv, as before 0.3.0
    # (Gymnasium 1.4's make_vec also says the id is out of date, 1.1's does not: that is not checked)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.warns(UserWarning, match="falling back to .*SyncVectorEnv"):
            envs = gymnasium.make_vec("gridghost/GridGhost-v0", num_envs=2)
        vector = gymnasium.make_vec("gridghost/GridGhost-v0", num_envs=2, obs_type="vector")
    assert isinstance(envs, gymnasium.vector.SyncVectorEnv)
    assert isinstance(envs.single_observation_space, gymnasium.spaces.Dict)
    assert vector.unwrapped.game.config.rewards == REFERENCE
    # the PettingZoo envs are the same game under both ids
    import pettingzoo

    old_game, game = pettingzoo.make("aec", "gridghost/GridGhost-v0"), pettingzoo.make("aec", gridghost.ENV_ID)
    assert old_game.config.to_dict() == game.config.to_dict() == gridghost.env().config.to_dict()
