"""PPO in JAX (gridghost.jax.ppo): its settings are checked, its advantages are GAE's, the
ghost's credit runs from its move to its next, one side learns, both sides reach the game's
equilibrium on difficulty 2's level 0 as the exact solver judges it (the example's self-play, the
JAX page's bar), and a table of greedy moves is what the networks play.

The benchmark scripts run once with tiny arguments (their figures are not checked; the PPO one
needs the sb3 extra too). Marked ``jax``: needs the jax extra; .ci/run installs it (with the sb3
extra) and runs ``pytest -m jax``. The light test run, without JAX, still collects this file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

try:
    import jax
    import jax.numpy as jnp

    from gridghost.jax import GridGhostJax, GridGhostJaxSingle, ppo
except ImportError:  # the light run deselects these tests; collecting must not fail
    jax = None

from helpers import blocks_run_by, run_script

pytestmark = pytest.mark.jax
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True, scope="module")
def _needs_jax() -> None:
    assert jax is not None, 'needs the jax extra: pip install "gridghost[jax]"'


@pytest.mark.parametrize(("settings", "match"), [
    ({"num_envs": 0}, "num_envs must be an int >= 1"),
    ({"num_envs": np.int64(0)}, "num_envs must be an int >= 1"),
    ({"minibatch_size": 3}, "minibatch_size .* must divide"),
    ({"gamma": 1.5}, "gamma must lie in"),
    ({"gae_lambda": -0.1}, "gae_lambda must lie in"),
    ({"learning_rate": 0.0}, "learning_rate must be a finite number > 0"),
    ({"clip": -1.0}, "clip must be a finite number > 0"),
    ({"ent_coef": -0.01}, "ent_coef must be a finite number >= 0"),
    ({"hidden": ()}, "hidden must be a non-empty tuple"),
    ({"hidden": (64, 0)}, "hidden must be a non-empty tuple"),
])
def test_bad_settings_are_refused(settings, match) -> None:
    with pytest.raises(ValueError, match=match):
        ppo.PPOConfig(**settings)


@pytest.mark.parametrize(("settings", "match"), [
    ({"num_steps": 2.5}, "num_steps must be an int >= 1"),
    ({"epochs": True}, "epochs must be an int >= 1"),
    ({"epochs": np.bool_(True)}, "epochs must be an int >= 1"),
    ({"minibatch_size": np.float64(512)}, "minibatch_size must be an int >= 1"),
])
def test_counts_of_another_kind_are_refused(settings, match) -> None:
    with pytest.raises(TypeError, match=match):
        ppo.PPOConfig(**settings)


def test_numpy_integers_are_settings_kept_as_python_ints() -> None:
    for n in np.arange(1, 3):  # the sweep users write
        config = ppo.PPOConfig(num_envs=4 * n, num_steps=np.int32(8), epochs=n, minibatch_size=np.uint16(16),
                               hidden=(np.int64(16), 8), planes=(np.int64(0), 2))
        counts = (config.num_envs, config.num_steps, config.epochs, config.minibatch_size)
        assert counts == (4 * int(n), 8, int(n), 16) and config.hidden == (16, 8) and config.planes == (0, 2)
        assert all(type(value) is int for value in (*counts, *config.hidden, *config.planes))
        assert config == ppo.PPOConfig(num_envs=4 * int(n), num_steps=8, epochs=int(n), minibatch_size=16,
                                       hidden=(16, 8), planes=(0, 2))
    with pytest.raises(ValueError, match="hidden must be a non-empty tuple of ints >= 1"):
        ppo.PPOConfig(hidden=(np.bool_(True),))


def test_advantages_are_gae_over_episode_ends() -> None:
    rng = np.random.default_rng(0)
    steps, envs, gamma, lam = 9, 3, 0.9, 0.8
    rewards, values = rng.normal(size=(steps, envs)), rng.normal(size=(steps, envs))
    dones = (rng.random((steps, envs)) < 0.3).astype(np.float32)
    last = rng.normal(size=envs)
    config = ppo.PPOConfig(gamma=gamma, gae_lambda=lam)
    advantages, returns = ppo._advantages(jnp.asarray(rewards), jnp.asarray(values), jnp.asarray(dones),
                                          jnp.asarray(last), config)
    expected = np.zeros((steps, envs))
    for e in range(envs):  # the textbook loop, backwards
        running = 0.0
        for t in reversed(range(steps)):
            next_value = last[e] if t == steps - 1 else values[t + 1, e]
            live = 1.0 - dones[t, e]
            delta = rewards[t, e] + gamma * next_value * live - values[t, e]
            running = delta + gamma * lam * live * running
            expected[t, e] = running
    np.testing.assert_allclose(np.asarray(advantages), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(returns), expected + values, rtol=1e-5, atol=1e-5)


def test_sampled_actions_follow_the_softmax_and_never_take_an_impossible_action() -> None:
    probabilities = np.array([0.1, 0.0, 0.6, 0.3])
    rows = 40_000
    with np.errstate(divide="ignore"):
        logits = jnp.tile(jnp.asarray(np.log(probabilities) + 2.0, dtype=jnp.float32), (rows, 1))
    actions, log_probs = ppo._categorical(jax.random.key(5), logits)
    actions, log_probs = np.asarray(actions), np.asarray(log_probs)
    counts = np.bincount(actions, minlength=4)
    assert counts[1] == 0  # probability 0 (a logit of -inf)
    possible = probabilities > 0
    expected = rows * probabilities[possible]
    statistic = float(((counts[possible] - expected) ** 2 / expected).sum())
    assert statistic < 13.8, (counts, statistic)  # chi-square, 2 dof: p > 0.001
    np.testing.assert_allclose(log_probs, np.log(probabilities[actions]), rtol=1e-5)
    # another key, other draws; the same key, the same
    again, _ = ppo._categorical(jax.random.key(5), logits)
    other, _ = ppo._categorical(jax.random.key(6), logits)
    assert np.array_equal(np.asarray(again), actions) and (np.asarray(other) != actions).mean() > 0.3


def test_the_ghosts_credit_runs_to_its_next_move() -> None:
    # three turns of one game: it goes on at turn 0; at turn 1 the ghost catches the agent (over);
    # turn 2 is a new game, in which the agent ends the game in its half
    second = jnp.array([[0.1], [1.0], [0.0]])  # the ghost's reward in its own half-turn
    first = jnp.array([[0.2], [0.3], [-1.0]])  # the ghost's reward in the agent's half-turn
    over = jnp.array([[False], [True], [True]])
    ended_first = jnp.array([[False], [False], [True]])
    rewards, dones = ppo.ghost_credit(second, first, over, ended_first)
    # move 0 earns its own half (0.1) and the agent's next half (0.3); move 1 caught: 1.0, and
    # the next half-turn is another game's
    np.testing.assert_allclose(np.asarray(rewards)[:, 0], [0.1 + 0.3, 1.0], rtol=1e-6)
    assert np.asarray(dones)[:, 0].tolist() == [0.0, 1.0]
    # had the agent ended the game in the half-turn after move 0, move 0's episode ends there
    _, dones = ppo.ghost_credit(second, first, jnp.array([[False], [False], [False]]),
                                jnp.array([[False], [True], [False]]))
    assert np.asarray(dones)[:, 0].tolist() == [1.0, 0.0]


@pytest.mark.slow  # trains for tens of seconds: .ci/run's JAX job runs it (-m 'jax or results')
def test_one_side_learns_to_beat_the_chasing_ghost_on_the_classic_map() -> None:
    from gridghost import evaluate

    env = GridGhostJaxSingle(obs_type="vector", rewards="normalised", max_episode_steps=100)
    config = ppo.PPOConfig(num_envs=64, num_steps=64, epochs=4, minibatch_size=1024, learning_rate=1e-3)
    init, train = ppo.make_train(env, config)
    train = jax.jit(train, static_argnums=1)
    before = init(jax.random.key(0))
    after, metrics = train(before, 40)
    assert metrics["loss"].shape == (40,) and np.isfinite(np.asarray(metrics["loss"])).all()
    scores = []
    for state in (before, after):
        networks = state.learner.networks
        scores.append(evaluate(lambda obs, n=networks: np.asarray(ppo.greedy_actions(n, jnp.asarray(obs), config)),
                               batch=True, rewards="normalised").score.mean())
    # exact scores (0 random play, 1 the best response to the chasing ghost)
    assert scores[1] > 0.8 and scores[1] > scores[0] + 0.3, scores
    # the same seed trains the same networks
    again, _ = train(init(jax.random.key(0)), 40)
    for a, b in zip(jax.tree_util.tree_leaves(after.learner.networks),
                    jax.tree_util.tree_leaves(again.learner.networks), strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_policy_table_holds_the_networks_greedy_moves() -> None:
    env = GridGhostJax(obs_type="vector")
    config = ppo.PPOConfig(hidden=(16,))
    networks = ppo.init_networks(jax.random.key(3), env.observation_space("agent").shape[0], config)
    networks["pi"][-1]["w"] = networks["pi"][-1]["w"] * 100.0  # make the moves differ from state to state
    table = ppo.policy_table(env, networks, "ghost", config)
    cells = env.layout.num_cells
    assert table.table.shape == (cells, cells)
    rng = np.random.default_rng(0)
    for _ in range(30):
        agent, ghost = (int(c) for c in rng.choice(cells, 2, replace=False))
        state = jnp.int32(agent * cells + ghost)
        observation = env._observe("ghost", state, jnp.zeros((), dtype=bool), env.default_params)
        assert table.table[agent, ghost] == int(ppo.greedy_actions(networks, observation[None], config)[0])
    assert len(set(table.table.ravel().tolist())) > 1
    with pytest.raises(ValueError, match="side must be"):
        ppo.policy_table(env, networks, "both", config)
    with pytest.raises(ValueError, match="level must be a map index"):
        ppo.policy_table(env, networks, "agent", config, level=1)
    numpy_level = ppo.policy_table(env, networks, "ghost", config, level=np.int64(0))
    np.testing.assert_array_equal(numpy_level.table, table.table)


@pytest.mark.slow  # trains for tens of seconds: .ci/run's JAX job runs it (-m 'jax or results')
def test_the_jax_pages_example_runs_and_does_what_it_says() -> None:
    # the page's example is marked not-run for the light test run, which has no JAX: it runs here
    (page, line, code), = blocks_run_by("tests/test_jax_ppo.py")  # the one block marked for this test
    assert page.name == "jax.md"
    namespace: dict = {"__name__": "__docs__"}
    exec(compile("\n" * (line - 1) + code, "docs/jax.md", "exec"), namespace)
    assert namespace["totals"].shape == (100,)                   # the scan's 100 steps
    assert int(namespace["state"].to_move) == 1                  # after the agent's half-turn
    assert namespace["states"].state.shape == (4096,)


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_the_throughput_benchmark_prints_every_size_against_the_numpy_engine() -> None:
    out = run_script("benchmarks/jax_throughput.py", "--rounds", "1", "--turns", "4096")
    for games in ("1", "64", "1,024", "4,096", "65,536"):
        assert re.search(rf"^NumPy BatchedGame\({games}\) +[\d,]+ +1\.00x +\d+\.\d\dx", out, flags=re.M), games
        assert re.search(rf"^NumPy no sensor\({games}\) +[\d,]+ +\d+\.\d\dx +1\.00x", out, flags=re.M), games
        assert re.search(rf"^JAX batch_step\({games}\) +[\d,]+ +\d+\.\d\dx +\d+\.\d\dx +\d+\.\d", out,
                         flags=re.M), games
    assert re.search(r"^JAX batch_step\(4,096\) .* >= 1x  (met|MISSED)$", out, flags=re.M)


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_the_learning_benchmark_stores_the_self_play_run(tmp_path: Path) -> None:
    out_file = tmp_path / "jax_learning.json"
    out = run_script("benchmarks/jax_learning.py", "--parts", "selfplay", "--seeds", "0", "--out", str(out_file))
    stored = json.loads(out_file.read_text())
    # the example's self-play on difficulty 2, level 0 (the JAX page's bar): it stops at the first
    # generation under 1% of the reward range (goal minus caught, 1.5)
    generations = stored["selfplay"]["0"]["generations"]
    assert generations[-1]["exploitability"] < 0.015
    assert all(generation["exploitability"] >= 0.015 for generation in generations[:-1])
    assert stored["selfplay"]["0"]["seconds_to_bar"] == generations[-1]["seconds"]
    assert "self-play seed 0: under 1% at generation" in out and "wall time to under 1%" in out


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_the_ppo_benchmark_times_jax_against_sb3_with_the_same_network() -> None:
    out = run_script("benchmarks/jax_ppo.py", "--rounds", "1", "--steps", "4096", "--configs", "vector-64")
    row = re.search(r"^vector-64 +([\d,]+) +([\d,]+) +([\d,]+) +([\d.]+)x +[\d.]+  >= 20x  (met|MISSED)$", out,
                    flags=re.M)
    assert row, out
    sb3, sb3_one, jax_rate, ratio = (float(value.replace(",", "")) for value in row.groups()[:4])
    assert abs(ratio - jax_rate / max(sb3, sb3_one)) < 0.06 * ratio


def test_bad_arguments_of_the_trainers_are_refused() -> None:
    grid = GridGhostJaxSingle(obs_type="grid", view_radius=1)
    vector = GridGhostJaxSingle(obs_type="vector")
    with pytest.raises(ValueError, match="planes selects channels of a channels-first grid"):
        ppo.make_train(vector, ppo.PPOConfig(planes=(0, 1)))
    with pytest.raises(ValueError, match=r"planes must be distinct channel indices in 0\.\.15"):
        ppo.make_train(grid, ppo.PPOConfig(planes=(0, 16)))
    with pytest.raises(ValueError, match="planes must be distinct channel indices"):
        ppo.make_train(grid, ppo.PPOConfig(planes=(2, 2)))
    with pytest.raises(TypeError, match=r"make_train trains on a gridghost\.jax\.GridGhostJaxSingle"):
        ppo.make_train(GridGhostJax(), ppo.PPOConfig())
    with pytest.raises(TypeError, match=r"make_selfplay trains on a gridghost\.jax\.GridGhostJax"):
        ppo.make_selfplay(vector, ppo.PPOConfig())
    init, train = ppo.make_train(vector, ppo.PPOConfig(num_envs=4, num_steps=8, minibatch_size=32))
    for updates in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="updates must be an int >= 1"):
            train(init(jax.random.key(0)), updates)
    networks = ppo.init_networks(jax.random.key(0), 26, ppo.PPOConfig())
    with pytest.raises(ValueError, match=r"side must be one of \['agent'\]"):
        ppo.policy_table(vector, networks, "ghost", ppo.PPOConfig())
    with pytest.raises(ValueError, match="level must be a map index"):
        ppo.policy_table(vector, networks, "agent", ppo.PPOConfig(), level=True)
