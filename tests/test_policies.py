"""Scripted policies: the chasing ghost's rule table, the seeded random policy, make_policy."""

from __future__ import annotations

from collections import Counter

import pytest
from gymnasium import spaces

import gridghost
from gridghost.core.policies import ChasePolicy, RandomPolicy, ReferencePolicy, make_policy

LEFT, DOWN, RIGHT, UP = 0, 1, 2, 3


def ghost_obs(dr: int, dc: int, open_: str = "urdl") -> dict:
    """A ghost observation with the agent at (dr, dc) and the listed neighbours accessible."""
    names = {"u": "up", "r": "right", "d": "down", "l": "left"}
    return {
        "agent_relative_pos": [dr, dc],
        "neighbors": {name: {"accessible": int(key in open_), "colour": 0} for key, name in names.items()},
    }


@pytest.mark.parametrize(
    ("dr", "dc", "open_", "expected", "why"),
    [
        (3, 1, "urdl", DOWN, "vertical first when |dr| > |dc|"),
        (-2, 2, "urdl", UP, "vertical first on a tie"),
        (1, -3, "urdl", LEFT, "horizontal first when |dr| < |dc|"),
        (3, 1, "url", RIGHT, "vertical blocked: horizontal toward the agent"),
        (1, -3, "urd", DOWN, "horizontal blocked: vertical toward the agent"),
        (3, 0, "ul", UP, "nothing toward the agent: first open of up, right, down, left"),
        (0, 2, "dl", DOWN, "fallback skips closed up and right"),
        (-1, -1, "", LEFT, "nothing open at all: left"),
    ],
)
def test_chase_rule_table(dr, dc, open_, expected, why) -> None:
    assert ChasePolicy()(ghost_obs(dr, dc, open_)) == expected, why


def test_chase_reads_the_live_env_observation() -> None:
    env = gridghost.env()
    env.reset(seed=0)
    env.step(1)
    assert ChasePolicy()(env.observe("ghost")) == UP  # the agent is above; up is open at (3, 4)


def test_chase_rejects_an_agent_observation() -> None:
    env = gridghost.env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="ghost's dict observation"):
        ChasePolicy()(env.observe("agent"))


def test_random_policy_is_seeded_uniform_and_in_range() -> None:
    a, b = RandomPolicy(seed=3), RandomPolicy(seed=3)
    draws = [a(None) for _ in range(8000)]
    assert draws == [b(None) for _ in range(8000)]
    counts = Counter(draws)
    assert set(counts) == {0, 1, 2, 3}
    assert all(abs(n / 8000 - 0.25) < 0.03 for n in counts.values())
    a.seed(3)
    assert [a(None) for _ in range(50)] == draws[:50]
    assert [RandomPolicy(seed=4)(None) for _ in range(50)] != draws[:50]


class ReferenceStyleGhost:
    """The reference's agent protocol: built with the action space, asked with get_action."""

    def __init__(self, action_space, **kwargs) -> None:
        self.action_space = action_space

    def get_action(self, observation) -> int:
        return self.action_space.n - 1


def test_make_policy_accepts_names_classes_instances_and_callables() -> None:
    assert isinstance(make_policy("chase"), ChasePolicy)
    random_policy = make_policy("random", seed=1)
    assert isinstance(random_policy, RandomPolicy)
    twin = RandomPolicy(seed=1)
    assert [random_policy(None) for _ in range(20)] == [twin(None) for _ in range(20)]

    from_class = make_policy(ReferenceStyleGhost, spaces.Discrete(4))
    assert isinstance(from_class, ReferencePolicy) and from_class({}) == 3
    assert make_policy(ReferenceStyleGhost)({}) == 3  # Discrete(4) by default
    assert make_policy(ReferenceStyleGhost(spaces.Discrete(2)))({}) == 1

    def always_left(observation):
        return 0

    assert make_policy(always_left) is always_left


@pytest.mark.parametrize(
    ("spec", "error", "message"),
    [
        ("greedy", ValueError, r"unknown policy name 'greedy'; accepted: \['chase', 'random'\]"),
        (42, TypeError, "^policy must be a policy name"),
        (dict, TypeError, "must define get_action"),
    ],
)
def test_make_policy_rejects_what_it_cannot_use(spec, error, message) -> None:
    with pytest.raises(error, match=message):
        make_policy(spec)
