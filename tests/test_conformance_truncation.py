"""The parallel kernel check holds a view's truncations to ``max_cycles``: a view that truncates
before the kernel's game has played ``max_cycles`` cycles, or after, fails ``kernel``, both the
two-player parallel env (a step is a half-turn) and the ghosts-only one (a step is a cycle)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from pettingzoo.utils.wrappers import BaseParallelWrapper

import gridghost
from gridghost.testing.common import random_actions
from gridghost.testing.pettingzoo_views import check_parallel_kernel

MAX_CYCLES = 4


def _both_sides() -> Any:
    return gridghost.parallel_env(ghosts=2, layout="team_eight", max_cycles=MAX_CYCLES)


def _ghosts_only() -> Any:
    return gridghost.parallel_env(ghosts=2, layout="team_eight", controlled="ghosts", opponent="random",
                                  max_cycles=MAX_CYCLES)


VIEWS: dict[str, Callable[[], Any]] = {"both-sides": _both_sides, "ghosts-only": _ghosts_only}


class EarlyTruncation(BaseParallelWrapper):
    """Truncates every episode after ``steps`` steps, whatever ``max_cycles`` says; the masks it
    hands out then are the no-op's, as a finished episode's are."""

    def __init__(self, env: Any, steps: int) -> None:
        super().__init__(env)
        self.steps, self.taken = steps, 0

    def reset(self, seed: int | None = None, options: dict | None = None) -> Any:
        self.taken = 0
        result = self.env.reset(seed=seed, options=options)
        self.agents = self.env.agents
        return result

    def step(self, actions: dict) -> Any:
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        self.taken += 1
        if self.taken >= self.steps and self.env.agents:
            truncations = dict.fromkeys(truncations, True)
            infos = {name: {**info, "action_mask": np.array([1, 0, 0, 0], np.int8)} for name, info in infos.items()}
            self.env.agents = []
        self.agents = self.env.agents
        return observations, rewards, terminations, truncations, infos


class LateTruncation(BaseParallelWrapper):
    """Reports the truncation at ``max_cycles`` one step late: the step that reaches it says the
    episode goes on, the next one (which plays nothing) truncates."""

    def reset(self, seed: int | None = None, options: dict | None = None) -> Any:
        self.pending: tuple[Any, Any] | None = None
        result = self.env.reset(seed=seed, options=options)
        self.agents = self.env.agents
        return result

    def step(self, actions: dict) -> Any:
        if self.pending is not None:
            observations, infos = self.pending
            self.agents = []
            names = list(observations)
            return observations, dict.fromkeys(names, 0.0), dict.fromkeys(names, False), \
                dict.fromkeys(names, True), infos
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        self.agents = self.env.agents
        if any(truncations.values()):
            self.pending = (observations, infos)
            truncations = dict.fromkeys(truncations, False)
            self.agents = list(observations)
        return observations, rewards, terminations, truncations, infos


@pytest.mark.parametrize("name", VIEWS)
def test_the_parallel_kernel_check_passes_views_that_truncate_at_max_cycles(name: str) -> None:
    check_parallel_kernel(VIEWS[name])
    env, actions = VIEWS[name](), random_actions(0)
    env.reset(seed=0)
    truncated = False
    while env.agents:  # the check's own first episode: it does reach max_cycles, so truncation was checked
        truncated = any(env.step({agent: actions() for agent in env.agents})[3].values())
    assert truncated


@pytest.mark.parametrize("name", VIEWS)
def test_the_parallel_kernel_check_fails_a_view_that_truncates_early(name: str) -> None:
    with pytest.raises(AssertionError, match=r"^kernel: seed 0, step 1: termination False, truncation True; "
                                             r"the kernel's game is on after \d+ cycles \(max_cycles 4\)"):
        check_parallel_kernel(lambda: EarlyTruncation(VIEWS[name](), steps=2))


@pytest.mark.parametrize("name", VIEWS)
def test_the_parallel_kernel_check_fails_a_view_that_truncates_late(name: str) -> None:
    with pytest.raises(AssertionError, match=r"^kernel: seed 0, step \d+: termination False, truncation False; "
                                             r"the kernel's game is on after 4 cycles \(max_cycles 4\)"):
        check_parallel_kernel(lambda: LateTruncation(VIEWS[name]()))
