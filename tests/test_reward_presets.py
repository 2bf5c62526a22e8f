"""The named rewards: ``rewards="normalised"`` in every view and solver function is the reference
game divided by 100 (the same optimal policies, every value divided by 100), and bad names or
factors are refused by name."""

from __future__ import annotations

import numpy as np
import pytest

import gridghost
from gridghost import REWARD_PRESETS, GameConfig, Rewards
from gridghost.batched import BatchedGame
from gridghost.core import make_rewards
from gridghost.planning import evaluate_policies, solve_agent, solve_game


def test_presets_are_the_reference_and_the_reference_over_100() -> None:
    assert REWARD_PRESETS["reference"] == Rewards() == Rewards(step=-1.0, goal=100.0, caught=-50.0, wait=0.0)
    assert REWARD_PRESETS["normalised"] == Rewards(step=-0.01, goal=1.0, caught=-0.5, wait=0.0)
    assert Rewards().scaled(0.01) == REWARD_PRESETS["normalised"]
    assert make_rewards(None) == Rewards() and make_rewards("normalised") is REWARD_PRESETS["normalised"]


@pytest.mark.parametrize(("value", "error", "words"), [
    ("normalized", ValueError, "unknown rewards preset 'normalized'; accepted: ['normalised', 'reference']"),
    (3, TypeError, "rewards must be a gridghost.Rewards"),
    ({"goal": 1}, TypeError, "rewards must be a gridghost.Rewards"),
])
def test_a_bad_preset_is_refused_by_every_view(value: object, error: type, words: str) -> None:
    for make in (gridghost.env, gridghost.parallel_env, gridghost.GridGhostGymEnv):
        with pytest.raises(error) as caught:
            make(rewards=value)
        assert words in str(caught.value)
    with pytest.raises(error) as caught:
        gridghost.Game(gridghost.CLASSIC, gridghost.LongitudinalSlip(0.2), value)  # type: ignore[arg-type]
    assert words in str(caught.value)
    with pytest.raises(error, match="rewards"):
        solve_game(rewards=value)  # type: ignore[arg-type]


@pytest.mark.parametrize("factor", [0, -1.0, float("nan"), float("inf")])
def test_scaled_refuses_factors_that_are_not_positive(factor: float) -> None:
    with pytest.raises(ValueError, match="factor must be a finite number > 0"):
        Rewards().scaled(factor)


@pytest.mark.parametrize("factor", ["2", True, None])
def test_scaled_refuses_what_is_not_a_number(factor: object) -> None:
    with pytest.raises(TypeError, match="factor must be a finite number > 0"):
        Rewards().scaled(factor)  # type: ignore[arg-type]


def test_the_views_pay_the_normalised_rewards() -> None:
    env = gridghost.GridGhostGymEnv(rewards="normalised", obs_type="vector", slip="none", max_cycles=40)
    env.reset(seed=0)
    ends = set()
    for seed in range(30):  # random walks: goals, captures and truncations
        env.reset(seed=seed)
        actions = np.random.default_rng(seed).integers(0, 4, 40)
        rewards, terminated, truncated = [], False, False
        while not (terminated or truncated):
            _, reward, terminated, truncated, _ = env.step(int(actions[len(rewards)]))
            rewards.append(reward)
        assert rewards[:-1] == [-0.01] * (len(rewards) - 1)
        # a goal pays +1 (no step cost), walking into the ghost -0.5, being caught after a step -0.51
        assert rewards[-1] in ((1.0, -0.5, -0.51) if terminated else (-0.01,))
        ends.add(rewards[-1])
    assert {1.0, -0.51} <= ends
    aec = gridghost.env(rewards="normalised")
    assert aec.unwrapped.config.rewards == REWARD_PRESETS["normalised"]
    assert GameConfig.from_dict(aec.unwrapped.config.to_dict()).rewards == REWARD_PRESETS["normalised"]
    batch = BatchedGame(8, seed=0, rewards="normalised", slip="none")  # type: ignore[arg-type]
    batch.reset()
    step = batch.step_agent(np.zeros(8, dtype=np.int64))
    assert set(np.round(step.rewards["agent"], 6).tolist()) <= {-0.01, -0.5, -0.51, 1.0}


def test_the_solver_values_are_the_reference_values_over_100_with_the_same_policies() -> None:
    reference, normalised = solve_game(), solve_game(rewards="normalised")
    np.testing.assert_allclose(normalised.values, reference.values / 100, atol=1e-9)
    np.testing.assert_allclose(normalised.agent_q_values, reference.agent_q_values / 100, atol=1e-9)
    live = np.isfinite(reference.agent_q_values).all(axis=-1)
    # equal argmax where the best action is clear (ties may break alike or not at 1e-12)
    gap = np.sort(reference.agent_q_values, axis=-1)
    clear = live & (gap[..., -1] - gap[..., -2] > 1e-6)
    assert (reference.agent_q_values.argmax(-1)[clear] == normalised.agent_q_values.argmax(-1)[clear]).all()
    chase = solve_agent(rewards="normalised")
    start = gridghost.CLASSIC.agent_start, gridghost.CLASSIC.ghost_start
    assert chase.value(*start) == pytest.approx(solve_agent().value(*start) / 100, abs=1e-9)
    evaluation = evaluate_policies("random", "chase", rewards="normalised")
    assert evaluation.value(*start) == pytest.approx(evaluate_policies("random", "chase").value(*start) / 100,
                                                     abs=1e-9)
