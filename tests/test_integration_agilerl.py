"""AgileRL's own multi-agent trainer on gridghost's PettingZoo parallel env, with no glue.

The recipe is AgileRL's PettingZoo path: ``AsyncPettingZooVecEnv`` over ``gridghost.parallel_env``,
an algorithm built from the vectorised env's spaces and agent ids, and
``train_multi_agent_off_policy`` with a replay buffer. Action masks reach the algorithm the way
AgileRL reads them, from ``info[agent]["action_mask"]`` (gridghost's default; AgileRL refuses masks
inside the observation, so ``action_mask_in_obs`` stays off).

Two ways in, both AgileRL's own: the parallel env handed to the trainer as it is (the trainer wraps
it in its ``PzDummyVecEnv``), and ``AsyncPettingZooVecEnv`` over two sub-envs in worker processes.
The only thing between "make the env" and "hand it to the trainer" is a test probe around each env
(``_Probe``): it counts steps and raises, in whichever process runs it, as soon as an action the
trainer sent breaks the mask that side was shown. It changes nothing the trainer sees.

Marked ``integration``: needs ``agilerl`` (and torch), which pins ``pettingzoo<1.27`` and so cannot
share a venv with ``gridghost[dev]`` (``pettingzoo>=1.27``); run it in its own venv with
``pytest -m integration tests/test_integration_agilerl.py``. AgileRL 2.58 also imports ``peft``
(``agilerl.algorithms`` -> ``agilerl.distributed.expert_parallel``) without declaring it outside its
LLM extras: install ``peft==0.21.0`` next to it. IPPO is left out: its ``extract_action_masks``
(``if None in group_masks``) raises "truth value of an array ... is ambiguous" for any NumPy action
mask, gridghost's or anyone's.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from pettingzoo.utils.wrappers import BaseParallelWrapper

import gridghost
from gridghost.maps.levels import MapGenerator

pytestmark = pytest.mark.integration


class _Probe(BaseParallelWrapper):
    """Counts steps; raises when a side's action breaks the action mask it was last shown."""

    def __init__(self, env):
        super().__init__(env)
        self.steps = 0
        self._masks = None

    def reset(self, seed=None, options=None):
        obs, infos = self.env.reset(seed=seed, options=options)
        self._masks = {side: infos[side]["action_mask"].copy() for side in infos}
        return obs, infos

    def step(self, actions):
        for side, action in actions.items():
            if not self._masks[side][int(action)]:
                raise AssertionError(f"{side} sent action {int(action)} against mask {self._masks[side]}")
        self.steps += 1
        obs, rewards, terminations, truncations, infos = self.env.step(actions)
        self._masks = {side: infos[side]["action_mask"].copy() for side in infos}
        return obs, rewards, terminations, truncations, infos


def _flat_parameters(module):
    import torch

    return torch.cat([p.detach().flatten().clone() for p in module.parameters()])


def test_probe_catches_a_masked_action():
    env = _Probe(gridghost.parallel_env(obs_type="vector"))
    env.reset(seed=0)
    with pytest.raises(AssertionError, match="ghost sent action 2"):
        env.step({"agent": 0, "ghost": 2})  # the ghost waits: only its no-op 0 is allowed


CLASSIC = dict(obs_type="vector", max_cycles=30)
GENERATED = dict(obs_type="vector", layout=MapGenerator(6, 6, difficulty=2, num_levels=6), max_cycles=30)


@pytest.mark.parametrize(
    ("algorithm", "settings", "num_envs", "max_steps", "evo_steps"),
    [("MADDPG", CLASSIC, None, 2000, 500),
     ("MATD3", GENERATED, 2, 2000, 500)],
    ids=["maddpg-parallel_env-classic", "matd3-AsyncPettingZooVecEnv-generated"],
)
def test_agilerl_trains_both_sides(algorithm, settings, num_envs, max_steps, evo_steps):
    # AgileRL and torch are imported here, so that the light test run (without them) collects this file.
    import agilerl.algorithms
    import torch
    from agilerl.components.replay_buffer import ReplayBuffer
    from agilerl.training.train_multi_agent_off_policy import train_multi_agent_off_policy
    from agilerl.vector.pz_async_vec_env import AsyncPettingZooVecEnv

    algorithm = getattr(agilerl.algorithms, algorithm)
    torch.manual_seed(0)
    np.random.seed(0)

    # --- make the env ---
    if num_envs is None:  # the trainer vectorises a plain ParallelEnv itself (PzDummyVecEnv, one env)
        env = probe = _Probe(gridghost.parallel_env(**settings))
        env.reset(seed=0)
        spaces = [env.observation_space(side) for side in env.possible_agents]
        actions = [env.action_space(side) for side in env.possible_agents]
        sides = env.possible_agents
    else:
        env = AsyncPettingZooVecEnv([lambda: _Probe(gridghost.parallel_env(**settings)) for _ in range(num_envs)])
        probe = None
        env.reset(seed=0)
        spaces = [env.single_observation_space(side) for side in env.agents]
        actions = [env.single_action_space(side) for side in env.agents]
        sides = env.agents
    agent = algorithm(spaces, actions, agent_ids=sides, vect_noise_dim=num_envs or 1, batch_size=32, learn_step=16)
    memory = ReplayBuffer(max_size=10_000)
    # --- hand it to the trainer ---
    actors_before = {side: _flat_parameters(agent.actors[side]) for side in sides}
    pop, fitnesses = train_multi_agent_off_policy(
        env, "gridghost", algorithm.__name__, [agent], memory, sum_scores=False,
        max_steps=max_steps, evo_steps=evo_steps, learning_delay=100, eval_loop=1, verbose=False,
    )

    trained = pop[0]
    assert sides == ["agent", "ghost"]
    # The trainer ran whole evolution blocks of evo_steps until max_steps.
    blocks = math.ceil(max_steps / evo_steps)
    assert trained.steps == blocks * evo_steps
    # Every training step stored one transition per env (and no mask was broken, or the probe
    # would have raised through the trainer).
    assert len(memory) == trained.steps
    if probe is not None:  # the probe also saw each evaluation episode, at least one step each
        assert probe.steps > trained.steps

    stored = memory._storage
    rewards = {side: stored["reward"][side].numpy().ravel() for side in sides}
    assert np.isfinite(rewards["agent"]).all()
    # Zero-sum as the trainer stored it: the two sides' rewards of every transition sum to 0,
    # and the game did pay something.
    np.testing.assert_array_equal(rewards["agent"] + rewards["ghost"], 0)
    assert np.abs(rewards["agent"]).sum() > 0
    # Both sides are terminated together (caught or goal), and some episodes ended that way.
    dones = {side: stored["done"][side].numpy().ravel() for side in sides}
    np.testing.assert_array_equal(dones["agent"], dones["ghost"])

    # One evaluation per evolution block, one return per side; each pair sums to 0 and is finite.
    assert len(fitnesses) == 1
    rows = np.asarray(trained.fitness, dtype=float)
    assert rows.shape == (blocks, 2)
    assert np.isfinite(rows).all()
    np.testing.assert_allclose(rows.sum(axis=1), 0, atol=1e-9)

    # Learning happened and left finite weights for both sides.
    for side in sides:
        after = _flat_parameters(trained.actors[side])
        assert torch.isfinite(after).all()
        assert not torch.equal(after, actors_before[side])
        for name in ("critics", "critics_1", "critics_2"):
            if hasattr(trained, name):
                assert torch.isfinite(_flat_parameters(getattr(trained, name)[side])).all()
