"""Reward credit: on every path a trainer takes, each side receives all of its rewards, and under
the default zero-sum rewards the two sides' returns of every episode sum to exactly 0.

Each test plays 1,000 seeded random episodes. The full rewards are recorded half-turn by half-turn
from the AEC game's ``rewards`` (what one half-turn pays each side). Each view's delivered
returns must equal the recorded ones, and the two sides' recorded returns must cancel. The
episode loops are in the slow group (``pytest -m slow``; CI runs it).
"""

from __future__ import annotations

import numpy as np
import pytest

import gridghost
from gridghost.envs.single_agent import Duel
from gridghost.integrations.turns import ALL, TurnBasedDictEnv
from gridghost.maps.levels import MapGenerator

EPISODES = 1000
# The classic map, and contested generated maps (a few levels of difficulty 2, so that the test
# does not spend its time solving levels).
#: With the reference's whole-number rewards, whose sums are exact (the turn-based adapter defaults to the
#: normalised ones, the AEC env to these).
SETTINGS = [dict(obs_type="vector", rewards="reference"),
            dict(obs_type="vector", rewards="reference", layout=MapGenerator(6, 6, difficulty=2, num_levels=6))]


def _replayed_returns(settings, seed, moves):
    """Each side's total of what the AEC game's half-turns paid it, replaying ``moves``."""
    game = gridghost.raw_env(**settings)
    game.reset(seed=seed)
    paid = {"agent": 0.0, "ghost": 0.0}
    for move in moves:
        game.step(move)
        for side, earned in game.rewards.items():
            paid[side] += earned
    assert game.terminations["agent"] or game.truncations["agent"]  # the whole episode was replayed
    return paid


def _zero_sum_counts(returns):
    sums = [episode["agent"] + episode["ghost"] for episode in returns]
    return sums.count(0.0), len(sums)


@pytest.mark.slow  # a second or more: .ci/run runs the slow group
@pytest.mark.parametrize("settings", SETTINGS, ids=["classic", "difficulty2"])
def test_aec_env_returns_sum_to_zero(settings):
    env = gridghost.env(**settings)
    rng = np.random.default_rng(0)
    returns = []
    for seed in range(EPISODES):
        env.reset(seed=seed)
        total = {"agent": 0.0, "ghost": 0.0}
        paid = {"agent": 0.0, "ghost": 0.0}
        for name in env.agent_iter():
            _, reward, termination, truncation, _ = env.last()
            total[name] += reward
            env.step(None if termination or truncation else int(rng.integers(4)))
            for side, earned in env.rewards.items():
                paid[side] += earned
        assert total == paid  # last() delivered every half-turn's reward
        returns.append(total)
    assert _zero_sum_counts(returns) == (EPISODES, EPISODES)
    assert {episode["agent"] for episode in returns} - {0.0}  # the episodes did pay something


@pytest.mark.slow  # a second or more: .ci/run runs the slow group
@pytest.mark.parametrize("settings", SETTINGS, ids=["classic", "difficulty2"])
def test_parallel_env_returns_sum_to_zero(settings):
    env = gridghost.parallel_env(**settings)
    rng = np.random.default_rng(1)
    returns = []
    for seed in range(EPISODES):
        env.reset(seed=seed)
        total = {"agent": 0.0, "ghost": 0.0}
        moves = []
        while env.agents:
            actions = {name: int(rng.integers(4)) for name in env.agents}
            moves.append(actions[env.aec_env.agent_selection])
            _, rewards, *_ = env.step(actions)
            for name, reward in rewards.items():
                total[name] += reward
        if seed < 200:
            assert total == _replayed_returns(settings, seed, moves)
        returns.append(total)
    assert _zero_sum_counts(returns) == (EPISODES, EPISODES)


@pytest.mark.slow  # a second or more: .ci/run runs the slow group
@pytest.mark.parametrize("settings", SETTINGS, ids=["classic", "difficulty2"])
def test_turn_based_dict_env_returns_sum_to_zero_and_first_observations_pay_nothing(settings):
    env = TurnBasedDictEnv(**settings)
    rng = np.random.default_rng(2)
    returns = []
    for seed in range(EPISODES):
        observations, _ = env.reset(seed=seed)
        total = {"agent": 0.0, "ghost": 0.0}
        moves = []
        seen = set(observations)
        while True:
            (mover,) = observations
            moves.append(int(rng.integers(4)))
            observations, rewards, terminations, truncations, _ = env.step({mover: moves[-1]})
            for name, reward in rewards.items():
                if name not in seen:  # what a first observation brings is kept for the next one
                    assert reward == 0.0
                    seen.add(name)
                total[name] += reward
            if terminations[ALL] or truncations[ALL]:
                break
            assert len(observations) == 1
        if seed < 200:
            assert total == _replayed_returns(settings, seed, moves)
        returns.append(total)
    assert _zero_sum_counts(returns) == (EPISODES, EPISODES)


@pytest.mark.slow  # a second or more: .ci/run runs the slow group
@pytest.mark.parametrize("controlled", ["agent", "ghost"])
def test_single_agent_turn_loop_pays_the_learner_everything(controlled):
    """The Duel is the turn loop behind the Gymnasium env and AgentInterface: the learner's
    delivered return is its whole return, including, for a learning ghost, the reward for the
    agent's opening move played during reset."""
    paid = {"agent": 0.0, "ghost": 0.0}
    game = gridghost.raw_env(obs_type="vector", max_cycles=100)

    def record() -> None:
        for side, earned in game.rewards.items():
            paid[side] += earned

    duel = Duel(game, controlled, opponent="random", after_half_turn=record)
    rng = np.random.default_rng(3)
    returns = []
    for seed in range(EPISODES):
        paid.update(agent=0.0, ghost=0.0)
        duel.reset(seed=seed)
        delivered = 0.0
        while not duel.over():
            reward, *_ = duel.play(int(rng.integers(4)))
            delivered += reward
        assert delivered == paid[controlled]
        returns.append(dict(paid))
    assert _zero_sum_counts(returns) == (EPISODES, EPISODES)


def test_a_learning_ghosts_first_reward_includes_the_opening_move():
    env = gridghost.GridGhostGymEnv(controlled="ghost", opponent="random", obs_type="vector", rewards="reference")
    firsts = []
    for seed in range(50):
        env.reset(seed=seed)
        _, reward, terminated, _, _ = env.step(0)
        if not terminated:
            firsts.append(reward)
    # +1 for the opening move, 0 for the ghost's move, +1 for the agent's reply
    assert firsts and set(firsts) == {2.0}


def test_dict_env_refuses_a_map_whose_opening_move_can_end_the_game():
    # corridor: the agent starts beside the ghost, so the ghost could lose a reward it never observed
    with pytest.raises(ValueError, match="opening move can end the game"):
        TurnBasedDictEnv(layout="corridor")


def test_dict_env_refuses_actions_other_than_the_movers():
    env = TurnBasedDictEnv(obs_type="vector")
    with pytest.raises(RuntimeError, match="reset"):
        env.step({"agent": 0})
    env.reset(seed=0)
    for actions, error in [({"ghost": 0}, ValueError), ({"agent": 0, "ghost": 1}, ValueError), ([0], TypeError),
                           ({"agent": 9}, ValueError)]:
        with pytest.raises(error):
            env.step(actions)
    assert env.game.agent_selection == "agent" and env.game.cycles == 0
