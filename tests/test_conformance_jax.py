"""The conformance suite's JAX checks (gridghost.testing.jax_views) pass on both JAX views, and
each fails on a view broken in its contract.

Marked ``jax``: needs the jax extra (``pip install -e ".[jax]"``; ``.ci/run``'s JAX job).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from gridghost.core.layout import Layout
from gridghost.testing import jax_views

try:
    import jax
    import jax.numpy as jnp

    from gridghost.jax import GridGhostJax, GridGhostJaxSingle
except ImportError:  # the light run deselects these tests; collecting must not fail
    jax = None

pytestmark = pytest.mark.jax


@pytest.fixture(autouse=True, scope="module")
def _needs_jax() -> None:
    assert jax is not None, 'needs the jax extra: pip install "gridghost[jax]"'


VIEWS: dict[str, Callable[[], Any]] = {
    "both-sides": lambda: GridGhostJax(max_cycles=6),
    "both-sides-exploring-starts": lambda: GridGhostJax(explore_starts=0.5),
    "agent-vs-chase": lambda: GridGhostJaxSingle("agent", max_episode_steps=6),
    "ghost-vs-random-grid": lambda: GridGhostJaxSingle("ghost", obs_type="grid"),
}
#: A 6x6 map with three ghost starts, for the teams' views.
TEAM_MAP = Layout.generate(6, 6, seed=0, ghosts=3)
TEAM_VIEWS: dict[str, Callable[[], Any]] = {
    "both-sides-k2": lambda: GridGhostJax(ghosts=2, layout=TEAM_MAP, max_cycles=6),
    "both-sides-k3-exploring-starts": lambda: GridGhostJax(ghosts=3, layout=TEAM_MAP, explore_starts=0.5),
    "agent-vs-chasing-team-k2": lambda: GridGhostJaxSingle("agent", ghosts=2, layout=TEAM_MAP, max_episode_steps=6),
    "agent-vs-random-team-k3": lambda: GridGhostJaxSingle("agent", ghosts=3, layout=TEAM_MAP, opponent="random"),
    "team-vs-random-agent-k2": lambda: GridGhostJaxSingle("ghosts", ghosts=2, layout=TEAM_MAP),
    "team-vs-random-agent-k3": lambda: GridGhostJaxSingle("ghosts", ghosts=3, layout=TEAM_MAP, max_episode_steps=6),
    "both-sides-k2-grid": lambda: GridGhostJax(ghosts=2, layout=TEAM_MAP, max_cycles=6, obs_type="grid"),
    "both-sides-k3-grid-r2-hwc": lambda: GridGhostJax(ghosts=3, layout=TEAM_MAP, obs_type="grid", view_radius=2,
                                                      grid_layout="hwc"),
    "agent-vs-chasing-team-k3-grid-r1": lambda: GridGhostJaxSingle("agent", ghosts=3, layout=TEAM_MAP, obs_type="grid",
                                                                   view_radius=1, max_episode_steps=6),
    "team-vs-random-agent-k2-grid-hwc": lambda: GridGhostJaxSingle("ghosts", ghosts=2, layout=TEAM_MAP,
                                                                   obs_type="grid", grid_layout="hwc"),
}
#: The team views the jax group runs by default (each side, k = 2 and 3); the others run with -m slow
#: (a k = 3 kernel check walks 64 joint answers per game and step).
TEAM_DEFAULT = ("both-sides-k2", "both-sides-k3-exploring-starts", "agent-vs-chasing-team-k2",
                "team-vs-random-agent-k3", "team-vs-random-agent-k2-grid-hwc")


@pytest.mark.parametrize("name", VIEWS)
def test_the_jax_views_conform(name: str) -> None:
    jax_views.jax_conformance(VIEWS[name])


@pytest.mark.parametrize("name", [name if name in TEAM_DEFAULT else pytest.param(name, marks=pytest.mark.slow)
                                  for name in TEAM_VIEWS])
def test_the_jax_team_views_conform(name: str) -> None:
    jax_views.jax_conformance(TEAM_VIEWS[name])


class Wrapped:
    """A JAX view that forwards everything; the subclasses break one contract."""

    def __init__(self, view: Any) -> None:
        self.view = view

    def __getattr__(self, name: str) -> Any:
        if name == "view":
            raise AttributeError(name)
        return getattr(self.view, name)


class FreshSpaces(Wrapped):
    def observation_space(self, agent: str | None = None) -> Any:
        import gymnasium

        return gymnasium.spaces.Discrete(3)


class ZeroMasks(Wrapped):
    def get_avail_actions(self, state: Any, params: Any = None) -> Any:
        return {side: jnp.zeros(4, dtype=bool) for side in ("agent", "ghost")}


class OwnKeys(Wrapped):
    def batch_reset(self, key: Any, num_games: int, params: Any = None) -> Any:
        # a key of its own: with exploring starts, each reset starts elsewhere
        return self.view.batch_reset(jax.random.key(int(np.random.default_rng().integers(2**31))), num_games)


class Generous(Wrapped):
    def batch_step(self, key: Any, states: Any, actions: Any, params: Any = None) -> Any:
        observations, states, rewards, dones, infos = self.view.batch_step(key, states, actions)
        return observations, states, {**rewards, "agent": rewards["agent"] + 1.0}, dones, infos


class Locked(Wrapped):
    def __init__(self, view: Any) -> None:
        super().__init__(view)
        self.lock = threading.Lock()


class Clamping(Wrapped):
    def batch_step(self, key: Any, states: Any, actions: Any, params: Any = None) -> Any:
        clamp = lambda a: jnp.clip(jnp.asarray(a).astype(jnp.int32), 0, 3)  # noqa: E731
        actions = {side: clamp(a) for side, a in actions.items()} if isinstance(actions, dict) else clamp(actions)
        return self.view.batch_step(key, states, actions)


class Mirrored(Wrapped):
    def batch_step(self, key: Any, states: Any, actions: Any, params: Any = None) -> Any:
        return self.view.batch_step(key, states, {side: (2 - a) % 4 for side, a in actions.items()})


class Swapped(Wrapped):
    def batch_step(self, key: Any, states: Any, actions: Any, params: Any = None) -> Any:
        observations, *rest = self.view.batch_step(key, states, actions)
        return ({"agent": observations["ghost"], "ghost": observations["agent"]}, *rest)


def _both(wrapper: type) -> Callable[[], Any]:
    # exploring starts: the reset's key decides where games start
    return lambda: wrapper(GridGhostJax(max_cycles=6, explore_starts=0.5))


#: Each JAX check, the view that breaks its contract, and the contract its message names.
BROKEN: dict[str, tuple[Callable[..., None], type, str]] = {
    "spaces": (jax_views.check_jax_spaces_and_masks, FreshSpaces, "spaces"),
    "masks": (jax_views.check_jax_spaces_and_masks, ZeroMasks, "masks"),
    "determinism": (jax_views.check_jax_determinism, OwnKeys, "determinism"),
    "zero-sum": (jax_views.check_jax_zero_sum, Generous, "zero-sum"),
    "pickling": (jax_views.check_jax_pickle, Locked, "pickling"),
    "refusals": (jax_views.check_jax_refusals, Clamping, "refusals"),
    "kernel": (jax_views.check_jax_autoreset_and_kernel, Mirrored, "kernel"),
    "observations": (jax_views.check_jax_observations, Swapped, "observations"),
}


def test_every_jax_check_has_a_broken_view() -> None:
    assert {check for check, _, _ in BROKEN.values()} == set(jax_views.JAX_CHECKS)


@pytest.mark.parametrize("case", BROKEN)
def test_each_jax_check_fails_on_a_view_broken_in_its_contract(case: str) -> None:
    check, wrapper, contract = BROKEN[case]
    with pytest.raises(AssertionError, match=rf"^{contract}: "):
        check(_both(wrapper))
