"""The learning benchmark's code, in a tiny configuration: tabular learners on the classic map
reach what benchmarks/learning.py promises, judged by the exact solver."""

from __future__ import annotations

import pytest

from gridghost.core.layout import CLASSIC
from gridghost.planning import evaluate_policies, solve_agent
from gridghost.training.selfplay import OpponentPool, exploitability_curve

from helpers import load_script


@pytest.fixture(scope="module")
def learning():  # the benchmark script, loaded as a module
    return load_script("benchmarks/learning.py")


def test_the_reward_range_is_a_goal_down_to_a_catch_after_a_step(learning) -> None:
    assert learning.reward_range() == 151.0


def test_q_learning_reaches_the_optimal_agents_success_on_the_classic_map(learning) -> None:
    run = learning.q_learning(CLASSIC, 1500, seed=1)
    start = CLASSIC.agent_start, CLASSIC.ghost_start
    learned = evaluate_policies(run.tables[0], "chase", CLASSIC).success_probability(*start)
    assert learned >= 0.95 * solve_agent(CLASSIC, ghost="chase").success_probability(*start)
    assert run.steps > 1500


def test_minimax_q_self_play_ends_at_the_equilibrium_on_the_classic_map(learning) -> None:
    pool = OpponentPool()
    run = learning.minimax_q(CLASSIC, 200_000, seed=1, pool=pool)
    pairs = list(zip(pool.snapshots("agent"), pool.snapshots("ghost"), strict=True))
    assert len(pairs) == learning.GENERATIONS and run.steps >= 200_000
    curve = exploitability_curve(pairs, CLASSIC)
    assert curve.exploitability[-1] < 0.01 * learning.reward_range()
    assert curve.exploitability.min() >= -1e-6
