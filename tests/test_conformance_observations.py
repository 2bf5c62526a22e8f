"""The conformance suite checks what observations say: every unmodified view passes it at its
defaults for teams of one, two and three ghosts (and the parallel suite serves a view of the
ghosts alone), and it fails, naming the contract, on views that hand out another player's
observation, stack a team's in the wrong order, reuse one buffer, report the next episode's
first observation as the final one, show another belief map, or hide a truncation (then with
the env's own error chained); a check that needs a long episode finds a seed for it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import VectorWrapper
from pettingzoo import ParallelEnv
from pettingzoo.utils.wrappers import BaseParallelWrapper, BaseWrapper

import gridghost
from gridghost import testing
from gridghost.batched import BatchedGame
from gridghost.core.layout import Layout
from gridghost.sensing.encoding import NO_OP_ACTION
from gridghost.testing import gymnasium_views, pettingzoo_views
from gridghost.testing.common import lasting_seed

ENV_ID = "gridghost/GridGhost-v1"
#: A small generated map with three ghost starts, where a team of three catches the agent fast.
MAP = Layout.generate(6, 6, seed=0, ghosts=3)


def _views(k: int) -> dict[str, tuple[Callable[..., None], Callable[[], Any]]]:
    """Every view that serves a team of ``k``, at its defaults on :data:`MAP`, with its suite."""
    views: dict[str, tuple[Callable[..., None], Callable[[], Any]]] = {
        "aec": (testing.aec_conformance, lambda: gridghost.env(layout=MAP, ghosts=k)),
        "parallel": (testing.parallel_conformance, lambda: gridghost.parallel_env(layout=MAP, ghosts=k)),
        "gymnasium-agent": (testing.gymnasium_conformance, lambda: gymnasium.make(ENV_ID, layout=MAP, ghosts=k)),
        "gymnasium-ghosts": (testing.gymnasium_conformance,
                             lambda: gymnasium.make(ENV_ID, layout=MAP, ghosts=k, controlled="ghosts")),
    }
    if k == 1:  # the views that serve one ghost only
        views["gymnasium-ghost"] = (testing.gymnasium_conformance,
                                    lambda: gymnasium.make(ENV_ID, layout=MAP, controlled="ghost"))
        views["vector"] = (testing.vector_conformance, lambda: gymnasium.make_vec(
            ENV_ID, num_envs=2, vectorization_mode="vector_entry_point", layout=MAP))
        views["batched"] = (testing.batched_conformance, lambda: BatchedGame(2, controlled=None, layout=MAP))
    return views


CASES = [(k, name) for k in (1, 2, 3) for name in _views(k)]


@pytest.mark.parametrize(("k", "view"), CASES, ids=[f"k{k}-{name}" for k, name in CASES])
def test_every_unmodified_view_passes_the_whole_suite_at_its_defaults(k: int, view: str) -> None:
    suite, make = _views(k)[view]
    suite(make)


class GhostsOnlyParallel(ParallelEnv):
    """A parallel view whose agents are the ghosts alone, the agent played inside (a random
    policy seeded by the reset seed): each step is the team's move and the agent's answer, each
    ghost's reward the two half-turns' (and the opening move's, with the first step): the kind
    of view the parallel checks must serve."""

    metadata: ClassVar[dict[str, Any]] = {"name": "ghosts_only"}

    def __init__(self, env: Any) -> None:
        self.env = env
        self.possible_agents = [name for name in env.possible_agents if name != "agent"]
        self.agents: list[str] = []
        self.rng: np.random.Generator | None = None
        self.opening: dict[str, float] = {}

    @property
    def unwrapped(self) -> Any:
        return self.env.unwrapped

    def observation_space(self, agent: str) -> Any:
        return self.env.observation_space(agent)

    def action_space(self, agent: str) -> Any:
        return self.env.action_space(agent)

    def state(self) -> np.ndarray:
        return self.env.state()

    def _agent_moves(self) -> tuple[Any, ...]:
        assert self.rng is not None
        return self.env.step({"agent": int(self.rng.integers(4)), **dict.fromkeys(self.possible_agents, NO_OP_ACTION)})

    def _ghosts(self, result: tuple[Any, ...]) -> tuple[Any, ...]:
        self.agents = [name for name in self.env.agents if name != "agent"]
        return tuple({name: table[name] for name in self.possible_agents} for table in result)

    def reset(self, seed: int | None = None, options: dict | None = None) -> Any:
        self.env.reset(seed=seed, options=options)
        if seed is not None or self.rng is None:
            self.rng = np.random.default_rng(seed)
        observations, self.opening, *_, infos = self._ghosts(self._agent_moves())
        return observations, infos

    def step(self, actions: dict) -> Any:
        result = self.env.step({**actions, "agent": NO_OP_ACTION})
        # the ghosts' rewards of the agent's opening move come with their first step
        rewards = {name: result[1][name] + self.opening.pop(name, 0.0) for name in self.possible_agents}
        if self.env.agents and not any(result[2].values()) and not any(result[3].values()):
            result = self._agent_moves()
            rewards = {name: rewards[name] + result[1][name] for name in self.possible_agents}
        observations, _, terminations, truncations, infos = self._ghosts(result)
        return observations, rewards, terminations, truncations, infos


@pytest.mark.parametrize("k", [1, 2, 3])
def test_the_parallel_suite_serves_a_view_of_the_ghosts_alone(k: int) -> None:
    make = lambda: GhostsOnlyParallel(gridghost.parallel_env(layout=MAP, ghosts=k, max_cycles=10))  # noqa: E731
    testing.parallel_conformance(make)
    with pytest.raises(AssertionError, match=r"^observations: seed 0, step \d+: 'ghost(_0)?''s observation"):
        pettingzoo_views.check_parallel_observations(lambda: ShiftedGhostsParallel(make()))


class DroppedOpeningParallel(GhostsOnlyParallel):
    """Loses the ghosts' rewards of the agent's opening move."""

    def reset(self, seed: int | None = None, options: dict | None = None) -> Any:
        result = super().reset(seed=seed, options=options)
        self.opening = {}
        return result


def test_a_view_of_the_ghosts_alone_that_drops_the_opening_moves_rewards_fails_the_kernel_check() -> None:
    make = lambda: DroppedOpeningParallel(gridghost.parallel_env(layout=MAP, ghosts=2, max_cycles=10))  # noqa: E731
    with pytest.raises(AssertionError, match=r"^kernel: seed 0, step 0: "):
        pettingzoo_views.check_parallel_kernel(make)


# -- planted bugs -----------------------------------------------------------------------------------
class BorrowedObservationAEC(BaseWrapper):
    """Hands ghost_1 the observation of ghost_0."""

    def observe(self, agent: str) -> Any:
        return self.env.observe("ghost_0" if agent == "ghost_1" else agent)


class BorrowedObservationParallel(BaseParallelWrapper):
    """Hands ghost_1 the observation of ghost_0."""

    def step(self, actions: dict) -> Any:
        observations, *rest = self.env.step(actions)
        return ({**observations, "ghost_1": observations["ghost_0"]}, *rest)


class ShiftedGhostsParallel(BaseParallelWrapper):
    """Hands each ghost the observation of the next one (one ghost: its observation a step ago)."""

    def step(self, actions: dict) -> Any:
        observations, *rest = self.env.step(actions)
        names = list(observations)
        if len(names) == 1:
            stale, self.previous = getattr(self, "previous", observations), observations
            return (stale, *rest)
        return ({name: observations[names[(i + 1) % len(names)]] for i, name in enumerate(names)}, *rest)


class ReversedTeamGym(gymnasium.ObservationWrapper):
    """Stacks the team's observations in reverse ghost order."""

    def observation(self, observation: Any) -> Any:
        return observation[::-1].copy()


class SharedBufferAEC(BaseWrapper):
    """Writes every observation into one buffer and hands that out."""

    def observe(self, agent: str) -> Any:
        observation = self.env.observe(agent)
        if not hasattr(self, "buffer"):
            self.buffer = observation.copy()
        self.buffer[...] = observation
        return self.buffer


class SharedBufferGym(gymnasium.ObservationWrapper):
    """Writes every observation into one buffer and hands that out."""

    def observation(self, observation: Any) -> Any:
        if not hasattr(self, "buffer"):
            self.buffer = observation.copy()
        self.buffer[...] = observation
        return self.buffer


class FinalIsFirstVector(VectorWrapper):
    """Reports the next episode's first observation as the final one (same-step mode)."""

    def step(self, actions: Any) -> Any:
        observations, *rest, infos = self.env.step(actions)
        if "final_obs" in infos:
            finals = infos["final_obs"].copy()
            for row in np.flatnonzero(infos["_final_obs"]):
                finals[row] = observations[row].copy()
            infos = {**infos, "final_obs": finals}
        return (observations, *rest, infos)


class ReversedBeliefAEC(BaseWrapper):
    """Shows the agent its belief map reversed (still a probability map)."""

    def observe(self, agent: str) -> Any:
        observation = self.env.observe(agent).copy()
        if agent == "agent":
            observation[26:] = observation[26:][::-1]  # after the 26 slots of "vector"
        return observation


class HiddenTruncationAEC(BaseWrapper):
    """Reports ``truncation=False`` at the step limit."""

    def last(self, observe: bool = True) -> Any:
        observation, reward, termination, _, info = self.env.last(observe)
        return observation, reward, termination, False, info


class EndsAtOnceGym(gymnasium.Wrapper):
    """Reports every episode terminated after its first step."""

    def step(self, action: Any) -> Any:
        observation, reward, _, truncated, info = self.env.step(action)
        return observation, reward, True, truncated, info


@pytest.mark.parametrize("k", [2, 3])
def test_an_aec_view_that_hands_ghost_1_the_observation_of_ghost_0_fails_observations(k: int) -> None:
    make = lambda: BorrowedObservationAEC(gridghost.raw_env(layout=MAP, ghosts=k, obs_type="vector"))  # noqa: E731
    with pytest.raises(AssertionError, match=r"^observations: .*'ghost_1'"):
        testing.aec_conformance(make)


@pytest.mark.parametrize("k", [2, 3])
def test_a_parallel_view_that_hands_ghost_1_the_observation_of_ghost_0_fails_observations(k: int) -> None:
    make = lambda: BorrowedObservationParallel(  # noqa: E731
        gridghost.parallel_env(layout=MAP, ghosts=k, obs_type="vector"))
    with pytest.raises(AssertionError, match=r"^observations: .*'ghost_1'"):
        testing.parallel_conformance(make)


@pytest.mark.parametrize("k", [2, 3])
def test_a_team_view_that_reverses_its_ghosts_order_fails_observations(k: int) -> None:
    make = lambda: ReversedTeamGym(gymnasium.make(ENV_ID, layout=MAP, ghosts=k, controlled="ghosts"))  # noqa: E731
    with pytest.raises(AssertionError, match=r"^observations: "):
        testing.gymnasium_conformance(make)


@pytest.mark.parametrize(("suite", "make"), [
    (testing.aec_conformance, lambda: SharedBufferAEC(gridghost.raw_env(obs_type="vector", max_cycles=8))),
    (testing.gymnasium_conformance, lambda: SharedBufferGym(gymnasium.make(ENV_ID, max_episode_steps=20))),
], ids=["aec", "gymnasium"])
def test_a_view_that_hands_out_one_shared_buffer_fails_observations(suite: Callable[..., None],
                                                                    make: Callable[[], Any]) -> None:
    with pytest.raises(AssertionError, match=r"(?s)^observations: .*changed after the view handed it out"):
        suite(make)


@pytest.mark.parametrize("k", [1, 2])
def test_a_vector_view_whose_final_observation_is_the_next_episodes_first_fails_observations(k: int) -> None:
    make = lambda: FinalIsFirstVector(gymnasium.make_vec(  # noqa: E731
        ENV_ID, num_envs=2, vectorization_mode="vector_entry_point", autoreset_mode="same_step",
        max_episode_steps=6, **({"layout": MAP, "ghosts": k} if k > 1 else {})))
    with pytest.raises(AssertionError, match=r"^observations: .*final observation is its observation of none"):
        testing.vector_conformance(make)


@pytest.mark.parametrize("kind", ["histogram", "particle"])
def test_the_belief_map_is_compared_exactly_with_the_replayed_filters(kind: str) -> None:
    make = lambda: gridghost.raw_env(obs_type="belief_vector", belief_filter=kind, max_cycles=8)  # noqa: E731
    pettingzoo_views.check_aec_observations(make)
    with pytest.raises(AssertionError, match=r"^observations: .*'agent'.* at \[\(26,\)"):
        pettingzoo_views.check_aec_observations(lambda: ReversedBeliefAEC(make()))


def test_a_view_that_hides_a_truncation_fails_with_the_contract_not_the_envs_error() -> None:
    make = lambda: HiddenTruncationAEC(gridghost.raw_env(max_cycles=3))  # noqa: E731
    with pytest.raises(AssertionError, match=r"^spaces: the view raised ValueError") as caught:
        testing.aec_conformance(make)
    assert isinstance(caught.value.__cause__, ValueError)
    assert "the only valid action is None" in str(caught.value.__cause__)
    with pytest.raises(AssertionError, match=r"^kernel: .*truncation False.* after 3 cycles \(max_cycles 3\)"):
        pettingzoo_views.check_aec_kernel(make)


#: Every move of the agent ends the game: three goals and the ghost around it, no slip.
OVER_AT_ONCE = Layout(np.zeros((3, 3), int), goals=[(0, 1), (1, 0), (2, 1)], agent_start=(1, 1), ghost_start=[(1, 2)])


def test_a_check_that_needs_a_long_episode_finds_a_seed_or_says_none_lasts() -> None:
    assert lasting_seed("pickling", lambda seed: seed >= 3, 0, 2) == 3
    with pytest.raises(AssertionError, match=r"^pickling: the episodes of seeds 0\.\.19 all end within 2 steps"):
        gymnasium_views.check_gymnasium_pickle(lambda: EndsAtOnceGym(gymnasium.make(ENV_ID)))
    # before, the refusal checks stepped the finished game and blamed the env for accepting None
    for check, make in ((pettingzoo_views.check_aec_refusals, gridghost.raw_env),
                        (pettingzoo_views.check_parallel_refusals, gridghost.parallel_env)):
        with pytest.raises(AssertionError, match=r"^refusals: the episodes of seeds 0\.\.19 all end within 2"):
            check(lambda make=make: make(layout=OVER_AT_ONCE, slip="none"))
