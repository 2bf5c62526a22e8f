"""The JAX views with a team of ghosts (``ghosts >= 2``, the computed path) against the AEC env
and the team kernel.

Both sides' games must be the AEC env's (``gridghost.env(ghosts=k)``) half-turn by half-turn under
shared uniforms: the AEC env's slip draws the uniform the JAX step draws from its key, so with slip
every observation of every observer, every reward, termination and truncation must match. Where
the draws are JAX's own, their distribution must be the kernel's exact one
(:meth:`Game.transitions <gridghost.core.game.Game.transitions>`), by a chi-square test.
The one-side views must play the kernel's turn (the learner's half, then the opponent's), and bad
input must be refused naming the argument. Expected values come from the AEC env, the kernel and
the maps, never from ``gridghost.jax``.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from gridghost.batched import UnsupportedSetting
from gridghost.core.layout import Layout
from gridghost.core.rules import Outcome, Side

from helpers import goodness_of_fit

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


@pytest.mark.parametrize(("k", "credit", "encoding"), [
    (2, "catcher", dict(obs_type="vector")), (3, "team", dict(obs_type="vector")),
    (2, "team", dict(obs_type="grid", view_radius=2)), (3, "catcher", dict(obs_type="grid", grid_layout="hwc")),
], ids=["k2-vector", "k3-vector", "k2-grid-r2", "k3-grid-hwc"])
def test_team_games_are_the_aec_envs_half_turn_by_half_turn_under_shared_uniforms(k, credit, encoding) -> None:
    # a grid's to_move plane included: each side's, flagged as the AEC env flags it
    import gridghost

    settings = dict(ghosts=k, ghost_credit=credit, layout=MAP, slip="longitudinal", max_cycles=15, **encoding)
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
                for action in actions["ghosts"].tolist():  # ghost_0, ghost_1, ... in turn
                    aec.step(action)
            observations, state, rewards, _, infos = step_env(key, state, actions)
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
    statistic, dof, p, impossible = goodness_of_fit(list(zip(observed, exact, strict=True)))
    if slip == 0.2:
        assert not impossible and dof > 15 and p > ALPHA, (statistic, dof, p, impossible[:5])
    else:
        assert p < ALPHA, (statistic, dof, p)


def test_an_agent_against_a_chasing_team_is_the_gym_views_step_for_step() -> None:
    import gymnasium

    import gridghost  # noqa: F401  (registers the Gymnasium id)

    settings = dict(ghosts=2, layout=MAP, obs_type="vector", slip="none", rewards="normalised")
    env = GridGhostJaxSingle("agent", opponent="chase", **settings)
    reset, step_env = jax.jit(env.reset), jax.jit(env.step_env)
    rng = np.random.default_rng(1)
    ended = 0
    for episode in range(6):
        gym = gymnasium.make("gridghost/GridGhost-v1", controlled="agent", opponent="chase", **settings)
        expected, _ = gym.reset(seed=episode)
        observation, state = reset(jax.random.key(episode))
        np.testing.assert_array_equal(np.asarray(observation), expected)
        for turn in range(40):
            action = int(rng.integers(4))
            expected, reward, terminated, _, info = gym.step(action)
            observation, state, got, _, got_info = step_env(jax.random.key(turn), state, np.int32(action))
            when = f"episode {episode}, turn {turn}"
            np.testing.assert_array_equal(np.asarray(observation), expected, err_msg=when)
            assert float(got) == float(np.float32(reward)) and bool(got_info["terminated"]) == terminated, when
            assert np.asarray(got_info["action_mask"]).tolist() == np.asarray(info["action_mask"], bool).tolist(), when
            if terminated:
                ended += 1
                break
    assert ended >= 3


def test_a_learning_team_plays_the_kernels_turn_against_a_uniformly_random_agent() -> None:
    from gridghost.config.settings import resolve

    k = 3
    env = GridGhostJaxSingle("ghosts", ghosts=k, layout=MAP, obs_type="vector", slip="none")
    team = resolve(ghosts=k, layout=MAP, slip="none").game()
    start = team.initial_state()
    # a reset: the team on its starts, the agent after a uniformly random opening move
    _, first = jax.jit(env.batch_reset, static_argnums=1)(jax.random.key(0), 4000)
    assert (np.asarray(first.ghosts) == np.array(start.ghosts)).all()
    opening = Counter(np.asarray(first.agent).tolist())
    exact: Counter = Counter()
    for action in range(4):
        exact[team.successors(start, action)[0][1].agent] += 0.25
    statistic, dof, p, impossible = goodness_of_fit([(opening, dict(exact))])
    assert not impossible and p > ALPHA, (opening, exact)
    # turns: the team's move, then (where it caught nobody) the random agent's, the mean reward
    strata = _strata(team, 16, seed=9)
    per = 800
    agents = np.repeat([a for a, _, _ in strata], per)
    ghosts = np.repeat([g for _, g, _ in strata], per, axis=0)
    joint = np.random.default_rng(2).integers(4, size=(len(strata), k))
    actions = np.repeat(joint, per, axis=0).astype(np.int32)
    state = _team_state(team, agents, ghosts)._replace(steps=jnp.ones(len(agents), dtype=jnp.int32))
    _, after, rewards, _, infos = jax.jit(env.batch_step_env)(jax.random.key(1), state, jnp.asarray(actions))
    observed = [Counter() for _ in strata]
    for i, (cell, cells, reward, ended) in enumerate(zip(
            np.asarray(after.agent), np.asarray(after.ghosts), np.asarray(rewards), np.asarray(infos["terminated"]),
            strict=True)):
        observed[i // per][(int(cell), tuple(cells.tolist()), round(float(reward), 4), bool(ended))] += 1
    expected = []
    for (agent, ghost_cells, _), actions_ in zip(strata, joint.tolist(), strict=True):
        moved = team.ghosts_step(start._replace(agent=agent, ghosts=ghost_cells, turn=Side.GHOST), actions_)
        paid = np.array(team.ghost_rewards_of(Side.GHOST, moved))
        distribution: Counter = Counter()
        if moved.outcome != Outcome.ONGOING:
            distribution[(agent, moved.ghosts, round(float(paid.mean()), 4), True)] = 1.0
        else:
            for action in range(4):
                [(_, landed, _, _)] = team.successors(moved._replace(turn=Side.AGENT), action)
                total = paid + np.array(team.ghost_rewards_of(Side.AGENT, landed))
                distribution[(landed.agent, moved.ghosts, round(float(total.mean()), 4),
                              landed.outcome != Outcome.ONGOING)] += 0.25
        expected.append(dict(distribution))
    statistic, dof, p, impossible = goodness_of_fit(list(zip(observed, expected, strict=True)))
    assert not impossible and dof > 10 and p > ALPHA, (statistic, dof, p, impossible[:5])


def test_exploring_starts_are_uniform_over_the_allowed_team_states() -> None:
    from gridghost.config.settings import resolve

    team = resolve(ghosts=2, layout=MAP).game()
    env = GridGhostJax(ghosts=2, layout=MAP, obs_type="vector", explore_starts=1.0)
    _, states = jax.jit(env.batch_reset, static_argnums=1)(jax.random.key(3), 60000)
    agents, ghosts = np.asarray(states.agent), np.asarray(states.ghosts)
    assert not team.goals[agents].any() and not (ghosts == agents[:, None]).any()
    cells = team.num_cells
    free = int((~team.goals).sum())
    for g in range(2):  # each (agent, ghost) pair uniform over the allowed pairs
        pairs = Counter((agents * cells + ghosts[:, g]).tolist())
        exact = {a * cells + c: 1 / (free * (cells - 1)) for a in range(cells) if not team.goals[a]
                 for c in range(cells) if c != a}
        statistic, dof, p, impossible = goodness_of_fit([(pairs, exact)])
        assert not impossible and p > ALPHA, (g, statistic, dof, p)
    # the two ghosts are drawn independently: their joint cells given the agent's are not correlated
    assert abs(np.corrcoef(ghosts[:, 0], ghosts[:, 1])[0, 1]) < 0.02
    fresh = GridGhostJax(ghosts=2, layout=MAP, obs_type="vector", explore_starts=0.0)
    _, states = jax.jit(fresh.batch_reset, static_argnums=1)(jax.random.key(3), 64)
    start = team.initial_state()
    assert (np.asarray(states.agent) == start.agent).all() and (np.asarray(states.ghosts) == start.ghosts).all()


def test_level_sets_stack_team_maps_and_params_levels_choose_them() -> None:
    from gridghost.maps import MapGenerator

    env = GridGhostJax(ghosts=2, layout=MapGenerator(6, 6, num_levels=4, ghosts=2), obs_type="vector")
    cells = env.layout.num_cells
    _, states = jax.jit(env.batch_reset, static_argnums=1)(jax.random.key(0), 2000)
    maps = np.asarray(states.agent) // cells
    assert set(maps.tolist()) == {0, 1, 2, 3} and (np.asarray(states.ghosts) // cells == maps[:, None]).all()
    for m, layout in enumerate(env.layouts):  # each map's own starts
        agent = layout.agent_start[0] * layout.cols + layout.agent_start[1] + m * cells
        ghosts = [r * layout.cols + c + m * cells for r, c in layout.ghost_starts[:2]]
        assert (np.asarray(states.agent)[maps == m] == agent).all()
        assert (np.asarray(states.ghosts)[maps == m] == ghosts).all()
    params = env.default_params._replace(levels=jnp.array([2], dtype=jnp.int32))
    _, states = jax.jit(env.batch_reset, static_argnums=1)(jax.random.key(1), 50, params)
    assert (np.asarray(states.agent) // cells == 2).all()


def _stepped(env, **changes):
    _, state = env.reset(jax.random.key(0))
    actions = {"agent": np.int32(0), "ghosts": np.zeros(2, np.int32)}
    return env.step(jax.random.key(1), state._replace(**{k: v for k, v in changes.items() if k != "actions"}),
                    changes.get("actions", actions))


@pytest.mark.parametrize(("make", "error", "match"), [
    (lambda: GridGhostJax(ghosts=2, layout=MAP, obs_type="grid", append_step_count=True, max_cycles=9),
     UnsupportedSetting, "append_step_count=True"),
    (lambda: GridGhostJax(ghosts=2, obs_type="vector"), ValueError, "ghosts=2 needs a map with 2 ghost starts"),
    (lambda: GridGhostJax(ghosts=9, layout=MAP, obs_type="vector"), ValueError, "ghosts"),
    (lambda: GridGhostJaxSingle("ghost", ghosts=2, layout=MAP, obs_type="vector"), ValueError, "controlled='ghosts'"),
    (lambda: GridGhostJaxSingle("both", ghosts=2, layout=MAP, obs_type="vector"), ValueError, "controlled"),
    (lambda: GridGhostJaxSingle("agent", opponent="minimax", ghosts=2, layout=MAP, obs_type="vector"), ValueError,
     r"opponent must be one of \['chase', 'random'\]"),
    (lambda: GridGhostJaxSingle("ghosts", opponent="chase", ghosts=2, layout=MAP, obs_type="vector"), ValueError,
     r"opponent must be one of \['random', 'minimax', 'optimal'\], an agent table or an AgentPool"),
    (lambda: GridGhostJaxSingle("ghosts", explore_starts=1.5, ghosts=2, layout=MAP, obs_type="vector"), ValueError,
     r"explore_starts must be a probability in \[0, 1\], got 1.5"),
])
def test_team_settings_the_views_cannot_play_are_refused_by_name(make, error, match) -> None:
    with pytest.raises(error, match=match):
        make()


@pytest.mark.parametrize(("changes", "error", "match"), [
    (dict(actions={"agent": np.int32(0), "ghost": np.zeros(2, np.int32)}), ValueError, "keys"),
    (dict(actions={"agent": np.int32(0), "ghosts": np.zeros(3, np.int32)}), ValueError,
     r"actions\['ghosts'\] must have shape \(2,\)"),
    (dict(actions={"agent": np.int32(0), "ghosts": np.zeros(2, np.float32)}), TypeError, r"actions\['ghosts'\]"),
    (dict(actions={"agent": np.int32(0), "ghosts": np.array([0, 4], np.int32)}), ValueError, "lie in 0..3"),
    (dict(ghosts=np.array([0, 99], dtype=np.int32)), ValueError, r"state\.ghosts must hold cells"),
    (dict(ghosts=np.array([0, 1, 2], dtype=np.int32)), ValueError,
     r"state\.ghosts has shape \(3,\) and state\.agent \(\): it must have shape \(2,\)"),
    (dict(agent=np.int32(-1)), ValueError, r"state\.agent"),
])
def test_team_steps_refuse_bad_actions_and_states_by_name(changes, error, match) -> None:
    env = GridGhostJax(ghosts=2, layout=MAP, obs_type="vector")
    with pytest.raises(error, match=match):
        _stepped(env, **changes)


def test_a_one_ghost_state_is_refused_by_a_team_view() -> None:
    from gridghost.jax import EnvState

    env = GridGhostJax(ghosts=2, layout=MAP, obs_type="vector")
    one = EnvState(jnp.int32(0), jnp.int32(0), jnp.int32(0), jnp.zeros((), dtype=bool))
    with pytest.raises(TypeError, match="TeamEnvState"):
        env.step(jax.random.key(0), one, {"agent": np.int32(0), "ghosts": np.zeros(2, np.int32)})


def test_ppo_trains_the_agent_against_a_team_and_refuses_a_learning_team_by_name() -> None:
    from gridghost.jax import ppo

    config = ppo.PPOConfig(num_envs=4, num_steps=8, minibatch_size=32)
    agent = GridGhostJaxSingle("agent", ghosts=2, layout=MAP, obs_type="vector", max_episode_steps=20)
    init, train = ppo.make_train(agent, config)
    _, metrics = train(init(jax.random.key(0)), 2)
    assert np.isfinite(np.asarray(metrics["loss"])).all() and np.asarray(metrics["loss"]).shape == (2,)
    team = GridGhostJaxSingle("ghosts", ghosts=2, layout=MAP, obs_type="vector")
    with pytest.raises(ValueError, match=r"env\.controlled='ghosts'"):
        ppo.make_train(team, config)


def test_the_jax_team_plays_the_numpy_engines_team_tables() -> None:
    # one builder for both engines: the JAX params hold the NumPy engine's tables, value for value
    from gridghost.batched import BatchedGame
    from gridghost.batched.team import TeamTables

    for settings in (dict(slip_type="perpendicular", slip_probability=0.3), dict(ghost_credit="catcher")):
        numpy_tables = BatchedGame(2, ghosts=2, layout=MAP, **settings)._team
        jax_tables = GridGhostJax(ghosts=2, layout=MAP, obs_type="vector", **settings).default_params.turns
        assert isinstance(jax_tables, TeamTables)
        for name, ours, theirs in zip(TeamTables._fields, numpy_tables, jax_tables, strict=True):
            assert np.array_equal(ours, np.asarray(theirs)), name


@pytest.mark.parametrize("encoding", [dict(obs_type="vector"), dict(obs_type="grid", view_radius=2, grid_layout="hwc")],
                         ids=["vector", "grid-r2-hwc"])
def test_the_team_views_spaces_are_the_aec_envs_observers_spaces_with_the_team_stacked(encoding) -> None:
    import gridghost

    settings = dict(ghosts=2, layout=MAP, **encoding)
    aec = gridghost.env(**settings)
    agent_space, ghost_space = aec.observation_space("agent"), aec.observation_space("ghost_1")
    both = GridGhostJax(**settings)
    assert both.observation_space("agent") == agent_space
    for team in (both.observation_space("ghosts"), GridGhostJaxSingle("ghosts", **settings).observation_space()):
        assert team.shape == (2, *ghost_space.shape) and team.dtype == ghost_space.dtype
        for bound, ghost_bound in ((team.low, ghost_space.low), (team.high, ghost_space.high)):
            np.testing.assert_array_equal(bound, np.stack([ghost_bound] * 2))
    assert GridGhostJaxSingle("agent", **settings).observation_space() == agent_space
