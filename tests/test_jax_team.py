"""The JAX views with a team of ghosts (``ghosts >= 2``, the computed path) against the AEC env
and the team kernel.

Both sides' games must be the AEC env's (``gridghost.env(ghosts=k)``) half-turn by half-turn under
shared uniforms: the AEC env's slip draws the uniform the JAX step draws from its key, so with slip
every observation of every observer, every reward, termination and truncation must match. Where
the draws are JAX's own, their distribution must be the kernel's exact one
(:meth:`TeamGame.transitions <gridghost.core.team.TeamGame.transitions>`), by a chi-square test.
The one-side views must play the kernel's turn (the learner's half, then the opponent's), and bad
input must be refused naming the argument. Expected values come from the AEC env, the kernel and
the maps, never from ``gridghost.jax``.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from gridghost.core.layout import Layout
from gridghost.core.rules import Outcome, Side

try:
    import jax
    import jax.numpy as jnp

    from gridghost.jax import GridGhostJax, GridGhostJaxSingle, TeamEnvState
except ImportError:
    jax = None

pytestmark = pytest.mark.jax

#: A 6x6 map with three ghost starts (k = 2 plays the first two).
MAP = Layout.generate(6, 6, seed=0, ghosts=3)
ALPHA = 1e-3


@pytest.fixture(autouse=True, scope="module")
def _jax_is_installed():
    assert jax is not None, 'the jax extra is not installed: pip install "gridghost[jax]"'


class _Shared:
    """A generator for the AEC env's slip whose ``random()`` is the uniform the JAX step draws."""

    uniform = 0.0

    def random(self) -> float:
        return self.uniform

    def integers(self, *args, **kwargs):  # a longitudinal slip never picks within a group
        raise AssertionError("the shared-uniform test uses a slip that draws one uniform")


def _team_state(team, agents, ghosts, to_move=0):
    """A batch of JAX team games on the kernel's cells (one map: global cells are the map's)."""
    n = len(agents)
    return TeamEnvState(jnp.asarray(agents, dtype=jnp.int32), jnp.asarray(ghosts, dtype=jnp.int32),
                        jnp.zeros(n, dtype=jnp.int32), jnp.full(n, to_move, dtype=jnp.int32), jnp.zeros(n, dtype=bool))


@pytest.mark.parametrize("k", [2, 3])
def test_team_games_are_the_aec_envs_half_turn_by_half_turn_under_shared_uniforms(k) -> None:
    import gridghost

    settings = dict(ghosts=k, layout=MAP, obs_type="vector", slip="longitudinal", max_cycles=15)
    env = GridGhostJax(**settings)
    reset, step_env = jax.jit(env.reset), jax.jit(env.step_env)
    names = [f"ghost_{i}" for i in range(k)]
    rng = np.random.default_rng(k)
    shared = _Shared()
    endings = Counter()

    def compare(when, observations, aec) -> None:
        np.testing.assert_array_equal(np.asarray(observations["agent"]), aec.observe("agent"), err_msg=when)
        for i, name in enumerate(names):
            np.testing.assert_array_equal(np.asarray(observations["ghosts"][i]), aec.observe(name),
                                          err_msg=f"{when}: {name}")

    for episode in range(10):
        aec = gridghost.env(**settings)
        aec.reset(seed=episode)
        aec.unwrapped._np_random = shared
        observations, state = reset(jax.random.key(episode))
        compare(f"episode {episode}, reset", observations, aec)
        for half in range(60):
            key = jax.random.key(1000 * episode + half)
            shared.uniform = float(jax.random.uniform(key, (1,))[0])
            actions = {"agent": np.int32(rng.integers(4)), "ghosts": rng.integers(4, size=k).astype(np.int32)}
            mover = aec.agent_selection
            if mover == "agent":
                aec.step(int(actions["agent"]))
            else:
                for name, action in zip(names, actions["ghosts"].tolist(), strict=True):
                    aec.step(action)
            observations, state, rewards, dones, infos = step_env(key, state, actions)
            when = f"k={k}, episode {episode}, half-turn {half} (the {mover}'s)"
            assert float(rewards["agent"]) == aec.rewards["agent"], when
            assert np.asarray(rewards["ghosts"]).tolist() == [aec.rewards[name] for name in names], when
            assert bool(infos["terminated"]) == aec.terminations["agent"], when
            assert bool(infos["truncated"]) == aec.truncations["agent"], when
            compare(when, observations, aec)
            if aec.terminations["agent"] or aec.truncations["agent"]:
                endings["truncated" if aec.truncations["agent"] else mover] += 1
                break
    assert endings["agent"] and endings["ghost_0"], endings  # games ended in both halves


def _p_value(statistic: float, dof: int) -> float:
    """The chi-square upper tail (Wilson-Hilferty)."""
    z = ((statistic / dof) ** (1 / 3) - (1 - 2 / (9 * dof))) / math.sqrt(2 / (9 * dof))
    return 0.5 * math.erfc(z / math.sqrt(2))


def _chi_square(strata) -> tuple[float, int, float, list]:
    """Pearson's statistic over strata of ``(observed Counter, exact dict)``, outcomes expected
    fewer than 5 times pooled; a drawn outcome of probability 0 is listed."""
    statistic, dof, impossible = 0.0, 0, []
    for observed, exact in strata:
        impossible += [outcome for outcome in observed if exact.get(outcome, 0.0) == 0.0]
        total = sum(observed.values())
        outcomes = [outcome for outcome, p in exact.items() if p > 0]
        expected = np.array([exact[outcome] * total for outcome in outcomes])
        counts = np.array([observed.get(outcome, 0) for outcome in outcomes], dtype=float)
        sparse = expected < 5
        if sparse.any():
            expected, counts = np.r_[expected[~sparse], expected[sparse].sum()], np.r_[counts[~sparse],
                                                                                       counts[sparse].sum()]
        statistic += float(((counts - expected) ** 2 / expected).sum())
        dof += len(expected) - 1
    return statistic, dof, (0.0 if impossible else _p_value(statistic, dof)), impossible


def _strata(team, count: int, seed: int):
    """``count`` live states (agent, ghosts) with an action each, drawn uniformly."""
    rng = np.random.default_rng(seed)
    strata = []
    while len(strata) < count:
        agent, *ghosts = rng.integers(team.num_cells, size=1 + team.ghosts).tolist()
        if team.goals[agent] or agent in ghosts:
            continue
        strata.append((agent, tuple(ghosts), int(rng.integers(4))))
    return strata


@pytest.mark.parametrize("slip", [0.2, 0.35])
def test_the_agents_team_half_turn_draws_the_kernels_exact_outcomes(slip) -> None:
    # with the view's slip (0.2) the draws fit; the same draws against another slip's
    # probabilities (0.35) must not: the test tells the two apart
    from gridghost.config.settings import resolve
    from gridghost.core.slip import LongitudinalSlip

    env = GridGhostJax(ghosts=2, layout=MAP, obs_type="vector", slip=LongitudinalSlip(0.2))
    team = resolve(ghosts=2, layout=MAP, slip=LongitudinalSlip(slip)).game()
    strata = _strata(team, 24, seed=3)
    per = 1500
    agents = np.repeat([a for a, _, _ in strata], per)
    ghosts = np.repeat([g for _, g, _ in strata], per, axis=0)
    actions = np.repeat([a for _, _, a in strata], per).astype(np.int32)
    _, after, rewards, _, infos = jax.jit(env.batch_step_agent)(
        jax.random.key(5), _team_state(team, agents, ghosts), jnp.asarray(actions))
    observed = [Counter() for _ in strata]
    for s, (cell, reward, ended) in enumerate(zip(np.asarray(after.agent), np.asarray(rewards["agent"]),
                                                  np.asarray(infos["terminated"]), strict=True)):
        observed[s // per][(int(cell), round(float(reward), 4), bool(ended))] += 1
    exact = []
    for agent, ghost_cells, action in strata:
        moved = team.transitions(Side.AGENT, action, np.array([agent]), np.array([ghost_cells]))
        distribution: Counter = Counter()
        for p, cell, outcome, reward in zip(moved.probabilities, moved.agents[0], moved.outcomes[0],
                                            moved.agent_rewards[0], strict=True):
            distribution[(int(cell), round(float(reward), 4), outcome != Outcome.ONGOING)] += p
        exact.append(dict(distribution))
    assert sum(any(key[-1] for key in d) for d in exact) >= 2  # moves that can end the game
    statistic, dof, p, impossible = _chi_square(list(zip(observed, exact, strict=True)))
    if slip == 0.2:
        assert not impossible and dof > 15 and p > ALPHA, (statistic, dof, p, impossible[:5])
    else:
        assert p < ALPHA, (statistic, dof, p)
