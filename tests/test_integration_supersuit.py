"""SuperSuit's vector-env converters and Stable-Baselines3 PPO: one shared policy plays both sides.

The recipe is PettingZoo's own Stable-Baselines3 tutorial, unchanged:
``parallel_env`` -> ``supersuit.pettingzoo_env_to_vec_env_v1`` -> ``supersuit.concat_vec_envs_v1(...,
base_class="stable_baselines3")`` -> ``PPO("MlpPolicy", env)``. No line of it is there for gridghost.

Seeding follows that tutorial too: the parallel env is reset with a seed before it is converted, and
PPO is built without ``seed=``, because SuperSuit's ``SB3VecEnvWrapper`` and ``ConcatVecEnv`` have no
``seed()`` method (``PPO(..., seed=0)`` raises ``AttributeError: 'ConcatVecEnv' object has no attribute
'seed'`` for any PettingZoo env); torch, NumPy and ``random`` are seeded by SB3's ``set_random_seed``.
"""

import numpy as np
import pytest

import gridghost
from gridghost.sensing.observations import GRID_CHANNELS

from helpers import blocks_run_by, run_block

pytestmark = pytest.mark.integration

COPIES = 4  # games; each gives the vector env two slots, "agent" then "ghost"
N_STEPS = 128
TOTAL = 4 * N_STEPS * 2 * COPIES  # four PPO iterations, 4,096 steps of the vector env
SELF, TO_MOVE, IS_GHOST = (GRID_CHANNELS.index(name) for name in ("self", "to_move", "is_ghost"))


class Recorder:
    """Reads what SB3 collected, step by step: the observation it acted on, the rewards and dones.

    Its callback is ``as_callback()``; the trainers are imported in the tests (as in
    test_integrations.py), so that the light test run collects this file without them.
    """

    def __init__(self):
        self.calls = 0
        self.returns = np.zeros(2 * COPIES)
        self.episodes = []  # (agent return, ghost return) of every finished game
        self.waiting_moved = 0
        self.turn_errors = 0

    def as_callback(self):
        from stable_baselines3.common.callbacks import BaseCallback

        recorder = self

        class Callback(BaseCallback):
            def _on_step(self):
                return recorder.on_step(self.model._last_obs, self.locals)

        return Callback()

    def on_step(self, obs, sb3_locals):
        new_obs, rewards, dones = sb3_locals["new_obs"], sb3_locals["rewards"], sb3_locals["dones"]
        self.calls += 1
        for k in range(COPIES):
            a, g = 2 * k, 2 * k + 1
            # The shared policy tells the sides apart and sees whose turn it is.
            if not (obs[a, IS_GHOST] == 0).all() or not (obs[g, IS_GHOST] == 1).all():
                self.turn_errors += 1
            if obs[a, TO_MOVE].max() + obs[g, TO_MOVE].max() != 1:
                self.turn_errors += 1
            self.returns[[a, g]] += rewards[[a, g]]
            assert dones[a] == dones[g]
            if dones[a]:
                self.episodes.append((self.returns[a], self.returns[g]))
                self.returns[[a, g]] = 0
                continue
            # Whatever the waiting side sent was ignored: it is where it was.
            waiting = g if obs[a, TO_MOVE].max() == 1 else a
            if not np.array_equal(obs[waiting, SELF], new_obs[waiting, SELF]):
                self.waiting_moved += 1
        return True


def train(seed=0):
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.utils import set_random_seed

    # Not `import supersuit as ss` at module level: the project's --doctest-modules inspects module
    # globals, and supersuit's module __getattr__ raises ImportError (not AttributeError) for
    # `__wrapped__`, which breaks collection.
    from supersuit import concat_vec_envs_v1, pettingzoo_env_to_vec_env_v1

    torch.set_num_threads(1)  # 2-core machine: more threads only contend
    set_random_seed(seed)
    env = gridghost.parallel_env(obs_type="grid")
    env.reset(seed=seed)
    env = pettingzoo_env_to_vec_env_v1(env)
    env = concat_vec_envs_v1(env, COPIES, num_cpus=0, base_class="stable_baselines3")
    model = PPO("MlpPolicy", env, n_steps=N_STEPS, batch_size=128, n_epochs=4, verbose=0)
    recorder = Recorder()
    model.learn(TOTAL, callback=recorder.as_callback())
    return model, recorder


def test_supersuit_sb3_ppo_one_policy_for_both_sides():
    model, rec = train()
    assert model.env.num_envs == 2 * COPIES
    assert model.num_timesteps == TOTAL
    assert rec.calls * 2 * COPIES == TOTAL
    for key in ("train/loss", "train/value_loss", "train/policy_gradient_loss", "train/entropy_loss"):
        assert np.isfinite(model.logger.name_to_value[key]), key
    assert rec.turn_errors == 0
    assert rec.waiting_moved == 0
    # Zero-sum: the two sides' returns of every game cancel exactly.
    assert len(rec.episodes) >= 20
    episodes = np.array(rec.episodes)
    np.testing.assert_array_equal(episodes[:, 0] + episodes[:, 1], 0)
    # Every game ended at the goal (+100) or caught (-50), less a point a step, or by truncation.
    assert (episodes[:, 0] <= 100).all() and (episodes[:, 0] >= -50 - 100).all()

    # Same seeds, same run.
    model2, rec2 = train()
    np.testing.assert_array_equal(np.array(rec2.episodes), episodes)
    assert model2.logger.name_to_value["train/loss"] == model.logger.name_to_value["train/loss"]


TEAM_COPIES = 4  # games; each gives the vector env two slots, ghost_0 then ghost_1
TEAM_TOTAL = 4 * N_STEPS * 2 * TEAM_COPIES  # four PPO iterations


def test_supersuit_sb3_ppo_trains_a_team_of_ghosts_against_a_fixed_agent_and_is_scored_exactly():
    """The ghosts alone (``controlled="ghosts"``), shared parameters, the same recipe unchanged."""
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.utils import set_random_seed
    from supersuit import concat_vec_envs_v1, pettingzoo_env_to_vec_env_v1

    from gridghost.config import resolve
    from gridghost.planning import evaluate_policies, tabulate_policy

    torch.set_num_threads(1)
    set_random_seed(0)
    settings = dict(ghosts=2, layout="team_eight", obs_type="vector", rewards="reference")
    env = gridghost.parallel_env(controlled="ghosts", opponent="random", **settings)
    env.reset(seed=0)
    env = pettingzoo_env_to_vec_env_v1(env)
    env = concat_vec_envs_v1(env, TEAM_COPIES, num_cpus=0, base_class="stable_baselines3")
    model = PPO("MlpPolicy", env, n_steps=N_STEPS, batch_size=128, n_epochs=4, verbose=0)
    returns, episodes, masks = np.zeros(2 * TEAM_COPIES), [], []

    class Returns(BaseCallback):
        def _on_step(self):
            rewards, dones = self.locals["rewards"], self.locals["dones"]
            masks.extend(info["action_mask"] for info in self.locals["infos"])
            returns[:] += rewards
            for k in range(TEAM_COPIES):
                assert dones[2 * k] == dones[2 * k + 1]  # the team's game ends for both ghosts
                if dones[2 * k]:
                    episodes.append(returns[[2 * k, 2 * k + 1]].copy())
                    returns[[2 * k, 2 * k + 1]] = 0
            return True

    model.learn(TEAM_TOTAL, callback=Returns())
    # One vector-env slot per ghost, each with the ghost's own 30-slot observation.
    assert model.env.num_envs == 2 * TEAM_COPIES and model.observation_space.shape == (30,)
    assert model.num_timesteps == TEAM_TOTAL
    assert np.isfinite(model.logger.name_to_value["train/loss"])
    assert all(mask.shape == (4,) and mask.any() for mask in masks)
    # Team credit: both ghosts' returns are the team's; a game pays at most the capture, +50,
    # with a point a step to the ghosts while the agent walks.
    episodes = np.array(episodes)
    assert len(episodes) >= 20
    np.testing.assert_array_equal(episodes[:, 0], episodes[:, 1])
    assert (episodes[:, 0] <= 50 + 100).all() and (episodes[:, 0] >= -100).all()

    # The learned team, tabulated with the parallel env's observations and scored exactly by the
    # team solver against the random agent it trained against.
    spec = resolve(**settings)
    table = tabulate_policy(lambda obs: model.predict(obs, deterministic=True)[0], "ghost", batch=True, spec=spec,
                            view="parallel")
    assert table.shape == (5, 7) * 3 + (2,) and ((table >= 0) & (table < 4)).all()
    # The table holds the moves the trained ghosts make in the env itself.
    fresh = gridghost.parallel_env(controlled="ghosts", opponent="random", **settings)
    observations, _ = fresh.reset(seed=1)
    board, state = fresh.aec_env.board, fresh.aec_env.game_state
    where = tuple(coordinate for cell in (state.agent, *state.ghosts) for coordinate in board.position(cell))
    for index, name in enumerate(fresh.agents):
        assert table[where][index] == model.predict(observations[name], deterministic=True)[0]
    played = evaluate_policies("random", table, spec=spec)
    capture, success = played.capture_probability(*played.start), played.success_probability(*played.start)
    assert 0 <= capture <= 1 and 0 <= success <= 1 and capture + success <= 1 + 1e-9


def test_the_training_pages_team_example_runs_as_written(tmp_path):
    (page, line, code), = blocks_run_by("tests/test_integration_supersuit.py")
    assert page.name == "training.md"
    out = run_block(page, line, code, tmp_path)
    assert out.splitlines()[-1] == "2048 ghost steps, 8 ghosts in all"  # 4 games, 2 ghosts each
