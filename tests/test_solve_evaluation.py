"""evaluate_policies: two fixed state policies evaluated exactly, checked against the solvers and
against simulated games."""

from __future__ import annotations

import numpy as np
import pytest

import gridghost
from gridghost.layout import CLASSIC
from gridghost.slip import PerpendicularSlip
from gridghost.solve import OptimalAgent, evaluate_policies, solve_agent, solve_ghost

START = CLASSIC.agent_start, CLASSIC.ghost_start


def test_a_best_response_evaluates_to_its_solvers_value() -> None:
    best = solve_agent(CLASSIC, "longitudinal", ghost="random")
    pair = evaluate_policies(OptimalAgent(CLASSIC, ghost="random"), "random")
    np.testing.assert_allclose(pair.values, best.values, atol=1e-8)
    assert pair.success_probability(*START) == pytest.approx(best.success_probability(*START), abs=1e-12)
    ghost = solve_ghost(CLASSIC, "longitudinal", agent="random")
    pair = evaluate_policies("random", (ghost.policy[..., None] == np.arange(4)).astype(float))
    np.testing.assert_allclose(pair.values, -ghost.values, atol=1e-8)  # zero-sum: the ghost's value negated


def test_random_against_chase_matches_simulated_games() -> None:
    """Success and capture within 30 turns, and the discounted return, of a random agent against
    the chasing ghost (perpendicular slip), over 3,000 seeded games: within 4 standard errors."""
    slip = PerpendicularSlip(0.3)
    pair = evaluate_policies("random", "chase", CLASSIC, slip, gamma=0.9)
    horizon = 30
    env = gridghost.raw_env(slip=slip, max_cycles=horizon)
    chase = gridghost.ChasePolicy()
    rng = np.random.default_rng(11)
    goals, catches, returns = [], [], []
    for seed in range(3000):
        env.reset(seed=seed)
        total, discount = 0.0, 1.0
        while not (env.terminations["agent"] or env.truncations["agent"]):
            env.step(int(rng.integers(4)))
            reward = env.rewards["agent"]
            if not env.terminations["agent"]:
                env.step(chase(env.observe("ghost")))
                reward += env.rewards["agent"]
            total += discount * reward
            discount *= 0.9
        goals.append(env.game_state.outcome == gridghost.Outcome.GOAL)
        catches.append(env.game_state.outcome == gridghost.Outcome.CAUGHT)
        returns.append(total)
    for sample, want in ((goals, pair.success_probability(*START, horizon=horizon)),
                         (catches, pair.capture_probability(*START, horizon=horizon)),
                         (returns, None)):
        if want is None:  # the return is cut at 30 turns: 0.9**30 bounds what the rest can add
            want, slack = pair.value(*START), 0.9**horizon * 100 / (1 - 0.9)
        else:
            slack = 0.0
        error = np.std(sample) / np.sqrt(len(sample))
        assert abs(np.mean(sample) - want) < 4 * error + slack
    assert 0.1 < np.mean(goals) < 0.9 and 0.1 < np.mean(catches) < 0.9  # a real mix, so the test can fail


def test_evaluation_checks_its_policies() -> None:
    with pytest.raises(ValueError, match="agent_policy 'chase' is the chasing ghost's rule"):
        evaluate_policies("chase", "chase")
    with pytest.raises(TypeError, match="ghost_policy must be 'chase', 'random', a callable"):
        evaluate_policies("random", 3)
    with pytest.raises(ValueError, match="gamma=1 without a horizon: the game may never end"):
        evaluate_policies(lambda agent, ghost: 3, lambda agent, ghost: 3, gamma=1)
    finite = evaluate_policies(lambda agent, ghost: 3, lambda agent, ghost: 3, gamma=1, horizon=10)
    assert finite.value(*START) < 0
