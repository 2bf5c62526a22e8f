"""The conformance suite (gridghost.testing) passes on every view, and each of its checks fails on
a view broken in the one contract it checks (so every check can fail)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import VectorWrapper
from pettingzoo.utils.wrappers import BaseParallelWrapper, BaseWrapper

import gridghost
from gridghost import testing
from gridghost.batched import BatchedGame
from gridghost.testing import batched_views, gymnasium_views, pettingzoo_views

ENV_ID = "gridghost/GridGhost-v1"

AEC_VIEWS: dict[str, Callable[[], Any]] = {
    "env": lambda: gridghost.env(max_cycles=8),
    "raw_env-vector-mask-in-obs": lambda: gridghost.raw_env(obs_type="vector", action_mask_in_obs=True),
    "env-grid-perpendicular": lambda: gridghost.env(obs_type="grid", slip_type="perpendicular", max_cycles=8),
    "env-reference-infos": lambda: gridghost.env(reference_infos=True, rewards="normalised"),
}
PARALLEL_VIEWS: dict[str, Callable[[], Any]] = {
    "parallel_env": lambda: gridghost.parallel_env(max_cycles=16),
    "parallel_env-vector": lambda: gridghost.parallel_env(obs_type="vector", action_mask_in_obs=True),
}
GYMNASIUM_VIEWS: dict[str, Callable[[], Any]] = {
    "v1-agent": lambda: gymnasium.make(ENV_ID),
    "v1-ghost": lambda: gymnasium.make(ENV_ID, controlled="ghost", obs_type="grid"),
    "v1-agent-random-ghost": lambda: gymnasium.make(ENV_ID, opponent="random", max_episode_steps=10),
    "v0-agent-dict": lambda: gymnasium.make("gridghost/GridGhost-v0"),
}


def _vector(**settings: Any) -> Callable[[], Any]:
    return lambda: gymnasium.make_vec(ENV_ID, num_envs=3, vectorization_mode="vector_entry_point", **settings)


VECTOR_VIEWS: dict[str, Callable[[], Any]] = {
    "agent-next-step": _vector(),
    "ghost-next-step": _vector(controlled="ghost", max_episode_steps=6),
    "agent-same-step-grid": _vector(autoreset_mode="same_step", obs_type="grid", max_episode_steps=6),
    "ghost-same-step": _vector(controlled="ghost", autoreset_mode="same_step"),
}
BATCHED_VIEWS: dict[str, Callable[[], Any]] = {
    "two-sides": lambda: BatchedGame(3, controlled=None, max_cycles=6),
    "two-sides-belief": lambda: BatchedGame(3, controlled=None, obs_type="belief_vector"),
    "agent-next-step": lambda: BatchedGame(3, max_episode_steps=6),
    "ghost-same-step-grid": lambda: BatchedGame(3, controlled="ghost", autoreset_mode="same_step", obs_type="grid"),
}


@pytest.mark.parametrize("make", AEC_VIEWS.values(), ids=AEC_VIEWS.keys())
def test_the_aec_views_conform(make: Callable[[], Any]) -> None:
    testing.aec_conformance(make)


@pytest.mark.parametrize("make", PARALLEL_VIEWS.values(), ids=PARALLEL_VIEWS.keys())
def test_the_parallel_views_conform(make: Callable[[], Any]) -> None:
    testing.parallel_conformance(make)


@pytest.mark.parametrize("make", GYMNASIUM_VIEWS.values(), ids=GYMNASIUM_VIEWS.keys())
@pytest.mark.filterwarnings("ignore:.*GridGhost-v0 is out of date:DeprecationWarning")
def test_the_gymnasium_views_conform_for_either_side(make: Callable[[], Any]) -> None:
    testing.gymnasium_conformance(make)


@pytest.mark.parametrize("make", VECTOR_VIEWS.values(), ids=VECTOR_VIEWS.keys())
def test_the_vector_views_conform_in_either_autoreset_mode(make: Callable[[], Any]) -> None:
    testing.vector_conformance(make)


@pytest.mark.parametrize("make", BATCHED_VIEWS.values(), ids=BATCHED_VIEWS.keys())
def test_the_batched_engine_conforms(make: Callable[[], Any]) -> None:
    testing.batched_conformance(make)


def test_the_suite_lists_every_check_once() -> None:
    checks = [*testing.AEC_CHECKS, *testing.PARALLEL_CHECKS, *testing.GYMNASIUM_CHECKS, *testing.VECTOR_CHECKS,
              *testing.BATCHED_CHECKS]
    assert len(set(checks)) == len(checks) == 33
    assert set(BROKEN_CHECKS) == set(checks)  # every check has a broken view below that it catches


# -- broken views: each breaks one contract ---------------------------------------------------------
class FreshSpacesAEC(BaseWrapper):
    def observation_space(self, agent: str) -> Any:
        return gymnasium.spaces.Discrete(3)  # a new object, and no observation lies in it


class ZeroMaskAEC(BaseWrapper):
    def last(self, observe: bool = True) -> Any:
        observation, reward, termination, truncation, info = self.env.last(observe)
        return observation, reward, termination, truncation, {**info, "action_mask": np.zeros(4, np.int8)}


class SeedlessAEC(BaseWrapper):
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.env.reset(seed=None if seed is None else seed + int(np.random.default_rng().integers(1, 10**6)))


class GenerousAEC(BaseWrapper):
    def last(self, observe: bool = True) -> Any:
        observation, reward, *rest = self.env.last(observe)
        return (observation, reward + (self.agent_selection == "agent"), *rest)


class LockedAEC(BaseWrapper):
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.lock = threading.Lock()
        self.env.reset(seed=seed, options=options)


class ClampingAEC(BaseWrapper):
    def step(self, action: Any) -> None:
        self.env.step(action if action is None or (type(action) is int and 0 <= action < 4) else 0)


class DrawingAEC(BaseWrapper):
    def step(self, action: Any) -> None:
        self.env.unwrapped.np_random.random()  # a draw before the check: a refused action moves the stream
        self.env.step(action)


class ShiftedAEC(BaseWrapper):
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.env.reset(seed=seed, options=options)
        self.env.unwrapped.np_random.random()  # one draw outside the RNG contract: deterministic, not the kernel's


class BorrowedObservationAEC(BaseWrapper):
    def observe(self, agent: str) -> Any:
        return self.env.observe("agent")  # every agent is handed the agent's observation


class BorrowedObservationParallel(BaseParallelWrapper):
    def step(self, actions: dict) -> Any:
        observations, *rest = self.env.step(actions)
        return (dict.fromkeys(observations, observations["agent"]), *rest)


class MirroredParallel(BaseParallelWrapper):
    def step(self, actions: dict) -> Any:
        return self.env.step({name: None if a is None or type(a) is not int else (2 - a) % 4
                              for name, a in actions.items()})


class ZeroMaskParallel(BaseParallelWrapper):
    def step(self, actions: dict) -> Any:
        *rest, infos = self.env.step(actions)
        return (*rest, {name: {**info, "action_mask": np.zeros(4, np.int8)} for name, info in infos.items()})


class SeedlessParallel(BaseParallelWrapper):
    def reset(self, seed: int | None = None, options: dict | None = None) -> Any:
        return self.env.reset(seed=None if seed is None else int(np.random.default_rng().integers(10**6)))


class GenerousParallel(BaseParallelWrapper):
    def step(self, actions: dict) -> Any:
        observations, rewards, *rest = self.env.step(actions)
        return (observations, {**rewards, "agent": rewards["agent"] + 1.0}, *rest)


class LockedParallel(BaseParallelWrapper):
    def reset(self, seed: int | None = None, options: dict | None = None) -> Any:
        self.lock = threading.Lock()
        return self.env.reset(seed=seed, options=options)


class ClampingParallel(BaseParallelWrapper):
    def step(self, actions: dict) -> Any:
        return self.env.step({name: a if a is None or (type(a) is int and 0 <= a < 4) else 0
                              for name, a in actions.items()})


class FreshSpacesParallel(BaseParallelWrapper):
    def observation_space(self, agent: str) -> Any:
        return gymnasium.spaces.Discrete(3)


class OffsetGym(gymnasium.ObservationWrapper):
    def observation(self, observation: Any) -> Any:
        return observation + 10.0


class ZeroMaskGym(gymnasium.Wrapper):
    def step(self, action: Any) -> Any:
        *rest, info = self.env.step(action)
        return (*rest, {**info, "action_mask": np.zeros(4, np.int8)})


class SeedlessGym(gymnasium.Wrapper):
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> Any:
        return self.env.reset(seed=None if seed is None else int(np.random.default_rng().integers(10**6)))


class LockedGym(gymnasium.Wrapper):
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> Any:
        self.lock = threading.Lock()
        return self.env.reset(seed=seed, options=options)


class ClampingGym(gymnasium.Wrapper):
    def step(self, action: Any) -> Any:
        return self.env.step(action if type(action) is int and 0 <= action < 4 else 0)


class MirroredGym(gymnasium.ActionWrapper):
    def action(self, action: Any) -> Any:
        return (2 - action) % 4 if type(action) is int else action


class OffsetVector(VectorWrapper):
    def step(self, actions: Any) -> Any:
        observations, *rest = self.env.step(actions)
        return (observations + 10.0, *rest)


class ZeroMaskVector(VectorWrapper):
    def action_masks(self) -> np.ndarray:
        return np.zeros((self.num_envs, 4), dtype=bool)


class SeedlessVector(VectorWrapper):
    def reset(self, *, seed: Any = None, options: dict | None = None) -> Any:
        return self.env.reset(seed=None if seed is None else int(np.random.default_rng().integers(10**6)))


class LockedVector(VectorWrapper):
    def reset(self, *, seed: Any = None, options: dict | None = None) -> Any:
        self.lock = threading.Lock()
        return self.env.reset(seed=seed, options=options)


class ClampingVector(VectorWrapper):
    def step(self, actions: Any) -> Any:
        return self.env.step(np.clip(np.asarray(actions).reshape(-1)[: self.num_envs].astype(np.int64), 0, 3))


class GenerousVector(VectorWrapper):
    def step(self, actions: Any) -> Any:
        observations, rewards, *rest = self.env.step(actions)
        return (observations, rewards + 1.0, *rest)


class FinalsDroppedVector(VectorWrapper):
    def step(self, actions: Any) -> Any:
        *rest, infos = self.env.step(actions)
        return (*rest, {key: value for key, value in infos.items() if "final" not in key})


class Batched:
    """A wrapper of a BatchedGame that forwards everything; the subclasses break one contract."""

    def __init__(self, game: BatchedGame) -> None:
        self.game = game

    def __getattr__(self, name: str) -> Any:
        if name == "game":
            raise AttributeError(name)
        return getattr(self.game, name)


class OffsetBatched(Batched):
    observation_space = gymnasium.spaces.Discrete(3)


class ZeroMaskBatched(Batched):
    def action_masks(self, side: str | None = None) -> np.ndarray:
        return np.zeros((self.num_games, 4), dtype=np.int8)


class SeedlessBatched(Batched):
    def reset(self, seed: Any = None, **kwargs: Any) -> Any:
        return self.game.reset(seed=None if seed is None else int(np.random.default_rng().integers(10**6)), **kwargs)


class GenerousBatched(Batched):
    def step_agent(self, actions: Any) -> Any:
        result = self.game.step_agent(actions)
        result.rewards["agent"] += 1.0
        return result


class LockedBatched(Batched):
    def reset(self, *args: Any, **kwargs: Any) -> Any:
        self.lock = threading.Lock()
        return self.game.reset(*args, **kwargs)


class ClampingBatched(Batched):
    def step_agent(self, actions: Any) -> Any:
        return self.game.step_agent(np.clip(np.asarray(actions).reshape(-1)[: self.num_games].astype(np.int64), 0, 3))


class MirroredBatched(Batched):
    def step_agent(self, actions: Any) -> Any:
        return self.game.step_agent((2 - np.asarray(actions)) % 4)


class ReversedBatched(Batched):
    def step_agent(self, actions: Any) -> Any:
        result = self.game.step_agent(actions)
        for observations in result.observations.values():
            observations[:] = observations[::-1].copy()  # each game shown another game's observation
        return result


def _aec(wrapper: type) -> Callable[[], Any]:
    return lambda: wrapper(gridghost.raw_env(max_cycles=8))


def _parallel(wrapper: type) -> Callable[[], Any]:
    return lambda: wrapper(gridghost.parallel_env(max_cycles=16))


def _gym(wrapper: type) -> Callable[[], Any]:
    return lambda: wrapper(gymnasium.make(ENV_ID, max_episode_steps=20))


def _vec(wrapper: type, **settings: Any) -> Callable[[], Any]:
    return lambda: wrapper(_vector(max_episode_steps=6, **settings)())


def _batched(wrapper: type, **settings: Any) -> Callable[[], Any]:
    return lambda: wrapper(BatchedGame(3, controlled=None, max_cycles=6, **settings))


P, G, V, B = pettingzoo_views, gymnasium_views, gymnasium_views, batched_views
#: Each check, the view that breaks its contract, and the contract its message names.
BROKEN_CHECKS: dict[Callable[..., None], tuple[Callable[[], Any], str]] = {
    P.check_aec_spaces_and_masks: (_aec(ZeroMaskAEC), "masks"),
    P.check_aec_determinism: (_aec(SeedlessAEC), "determinism"),
    P.check_aec_zero_sum: (_aec(GenerousAEC), "zero-sum"),
    P.check_aec_pickle: (_aec(LockedAEC), "pickling"),
    P.check_aec_refusals: (_aec(DrawingAEC), "refusals"),
    P.check_aec_kernel: (_aec(ShiftedAEC), "kernel"),
    P.check_aec_observations: (_aec(BorrowedObservationAEC), "observations"),
    P.check_parallel_spaces_and_masks: (_parallel(ZeroMaskParallel), "masks"),
    P.check_parallel_determinism: (_parallel(SeedlessParallel), "determinism"),
    P.check_parallel_zero_sum: (_parallel(GenerousParallel), "zero-sum"),
    P.check_parallel_pickle: (_parallel(LockedParallel), "pickling"),
    P.check_parallel_refusals: (_parallel(ClampingParallel), "refusals"),
    P.check_parallel_kernel: (_parallel(MirroredParallel), "kernel"),
    P.check_parallel_observations: (_parallel(BorrowedObservationParallel), "observations"),
    G.check_gymnasium_spaces_and_masks: (_gym(OffsetGym), "spaces"),
    G.check_gymnasium_determinism: (_gym(SeedlessGym), "determinism"),
    G.check_gymnasium_pickle: (_gym(LockedGym), "pickling"),
    G.check_gymnasium_refusals: (_gym(ClampingGym), "refusals"),
    G.check_gymnasium_kernel: (_gym(MirroredGym), "kernel"),
    G.check_gymnasium_observations: (_gym(OffsetGym), "observations"),
    V.check_vector_spaces_and_masks: (_vec(ZeroMaskVector), "masks"),
    V.check_vector_determinism: (_vec(SeedlessVector), "determinism"),
    V.check_vector_pickle: (_vec(LockedVector), "pickling"),
    V.check_vector_refusals: (_vec(ClampingVector), "refusals"),
    V.check_vector_autoreset_and_kernel: (_vec(GenerousVector), "kernel"),
    V.check_vector_observations: (_vec(OffsetVector), "observations"),
    B.check_batched_spaces_and_masks: (_batched(OffsetBatched), "spaces"),
    B.check_batched_determinism: (_batched(SeedlessBatched), "determinism"),
    B.check_batched_zero_sum: (_batched(GenerousBatched), "zero-sum"),
    B.check_batched_pickle: (_batched(LockedBatched), "pickling"),
    B.check_batched_refusals: (_batched(ClampingBatched), "refusals"),
    B.check_batched_autoreset_and_kernel: (_batched(MirroredBatched), "kernel"),
    B.check_batched_observations: (_batched(ReversedBatched), "observations"),
}

#: More broken views for contracts a check holds beside its main one.
MORE_BROKEN: dict[str, tuple[Callable[..., None], Callable[[], Any], str]] = {
    "aec-fresh-spaces": (P.check_aec_spaces_and_masks, _aec(FreshSpacesAEC), "spaces"),
    "aec-clamping": (P.check_aec_refusals, _aec(ClampingAEC), "refusals"),
    "parallel-fresh-spaces": (P.check_parallel_spaces_and_masks, _parallel(FreshSpacesParallel), "spaces"),
    "gym-zero-mask": (G.check_gymnasium_spaces_and_masks, _gym(ZeroMaskGym), "masks"),
    "vector-offset": (V.check_vector_spaces_and_masks, _vec(OffsetVector), "spaces"),
    "vector-finals-dropped": (V.check_vector_autoreset_and_kernel,
                              _vec(FinalsDroppedVector, autoreset_mode="same_step"), "auto-reset"),
    "batched-zero-mask": (B.check_batched_spaces_and_masks, _batched(ZeroMaskBatched), "masks"),
}


@pytest.mark.parametrize("check", BROKEN_CHECKS, ids=[check.__name__ for check in BROKEN_CHECKS])
def test_each_check_fails_on_a_view_broken_in_its_contract(check: Callable[..., None]) -> None:
    make, contract = BROKEN_CHECKS[check]
    with pytest.raises(AssertionError, match=rf"^{contract}: "):
        check(make)


@pytest.mark.parametrize("case", MORE_BROKEN)
def test_the_checks_catch_their_other_contracts_too(case: str) -> None:
    check, make, contract = MORE_BROKEN[case]
    with pytest.raises(AssertionError, match=rf"^{contract}: "):
        check(make)


def test_a_view_with_no_game_settings_is_named() -> None:
    class Bare(BaseWrapper):
        @property
        def unwrapped(self) -> Any:
            return self

        config = None

    with pytest.raises(AssertionError, match=r"^kernel: .* exposes no game settings"):
        pettingzoo_views.check_aec_kernel(lambda: Bare(gridghost.raw_env()))


def test_the_comparison_is_bit_for_bit() -> None:
    from gridghost.testing.common import same

    assert same(np.zeros(2, np.float32), np.zeros(2, np.float64)) is not None  # dtype counts
    assert same({"a": [1.0, np.nan]}, {"a": [1.0, np.nan]}) is None  # NaN is NaN
    assert same({"a": 1, "b": 2}, {"b": 2, "a": 1}) is not None  # key order counts (infos keep theirs)
    assert same([0.1 + 0.2], [0.3]) == "value[0]: 0.30000000000000004 != 0.3"  # floats exactly
