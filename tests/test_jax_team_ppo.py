"""Team PPO in JAX (gridghost.jax.team_ppo): each mode builds the networks it is documented to
build and trains them in one compiled program, the same key trains the same networks, new
tables of the same shapes do not recompile, the greedy moves are each ghost's argmax of the
networks' logits (computed here with NumPy), the team's credit in self-play runs from a move to
the next as one ghost's does, every mode learns to catch the random agent more often, and bad
arguments are refused by name. The JAX page's team example (jax.md) and the benchmark run as
scripts in the slow group.

Marked ``jax``: needs the jax extra; .ci/run installs it (with the sb3 extra for the benchmark)
and runs ``pytest -m 'jax or results'``. The light test run, without JAX, still collects this file.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import cache
from pathlib import Path

import numpy as np
import pytest

try:
    import jax
    import jax.numpy as jnp

    from gridghost.jax import GridGhostJax, GridGhostJaxSingle, ppo, team_ppo
except ImportError:  # the light run deselects these tests; collecting must not fail
    jax = None

from helpers import blocks_run_by, run_script

pytestmark = pytest.mark.jax
ROOT = Path(__file__).resolve().parent.parent
MODES = ("ippo", "ippo_separate", "mappo", "central")
K = 2
#: Tiny settings: 4 games, 8 steps, one epoch of two minibatches, one hidden layer of 8.
TINY = dict(num_envs=4, num_steps=8, epochs=1, minibatch_size=16, hidden=(8,))
UPDATES = 2
#: How often each mode's compiled trainer was traced (a Python side effect runs only when tracing).
TRACES: Counter[str] = Counter()


@pytest.fixture(autouse=True, scope="module")
def _needs_jax() -> None:
    assert jax is not None, 'needs the jax extra: pip install "gridghost[jax]"'


@cache
def level_set():
    """The learning team's view on two generated 5x5 maps with two ghost starts."""
    from gridghost.maps import MapGenerator

    return GridGhostJaxSingle("ghosts", ghosts=K, layout=MapGenerator(5, 5, ghosts=K, num_levels=2),
                              obs_type="vector", max_episode_steps=10)


@cache
def compiled(mode: str):
    """``(init, train)`` of ``mode`` on :func:`level_set`, ``train(state, params)`` jitted for
    :data:`UPDATES` updates and counting its traces in :data:`TRACES`."""
    init, train = team_ppo.make_team_train(level_set(), ppo.PPOConfig(**TINY), mode)

    def counted(state, params):
        TRACES[mode] += 1
        return train(state, UPDATES, params)

    return init, jax.jit(counted)


def _leaves(tree) -> list[np.ndarray]:
    return [np.asarray(leaf) for leaf in jax.tree_util.tree_leaves(tree)]


def _mlp_shapes(inputs: int, outputs: int, hidden: int = 8, stack: tuple[int, ...] = ()) -> list[tuple[int, ...]]:
    """The layers' shapes of an MLP with one hidden layer, ``[w, b, w, b]``, each after ``stack``."""
    return [(*stack, inputs, hidden), (*stack, hidden), (*stack, hidden, outputs), (*stack, outputs)]


def expected_shapes(mode: str, d: int, k: int = K) -> dict[str, list[tuple[int, ...]]]:
    """The documented networks of ``mode`` for ``k`` ghosts of ``d`` features each."""
    return {
        "ippo": {"pi": _mlp_shapes(d + k, 4), "vf": _mlp_shapes(d + k, 1)},
        "ippo_separate": {"pi": _mlp_shapes(d, 4, stack=(k,)), "vf": _mlp_shapes(d, 1, stack=(k,))},
        "mappo": {"pi": _mlp_shapes(d + k, 4), "vf": _mlp_shapes(k * d + k, 1)},
        "central": {"pi": _mlp_shapes(k * d, 4 * k), "vf": _mlp_shapes(k * d, 1)},
    }[mode]


def _shapes(networks) -> dict[str, list[tuple[int, ...]]]:
    return {name: [tuple(array.shape) for layer in layers for array in (layer["w"], layer["b"])]
            for name, layers in networks.items()}


@pytest.mark.parametrize("mode", MODES)
def test_each_mode_trains_its_documented_networks_and_the_same_key_trains_the_same(mode: str) -> None:
    env = level_set()
    d = env.observation_space().shape[1]
    init, train = compiled(mode)
    first = init(jax.random.key(0))
    assert _shapes(first.learner.networks) == expected_shapes(mode, d)
    state, metrics = train(first, None)
    assert sorted(metrics) == ["episodes", "loss", "return", "reward"]
    assert all(np.asarray(value).shape == (UPDATES,) for value in metrics.values())
    assert np.isfinite(np.asarray(metrics["loss"])).all()
    assert _shapes(state.learner.networks) == expected_shapes(mode, d)
    before, after = _leaves(first.learner.networks), _leaves(state.learner.networks)
    assert any(not np.array_equal(a, b) for a, b in zip(before, after, strict=True))  # it trained
    again, again_metrics = train(init(jax.random.key(0)), None)
    for a, b in zip(after, _leaves(again.learner.networks), strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(np.asarray(metrics["loss"]), np.asarray(again_metrics["loss"]))
    other, _ = train(init(jax.random.key(1)), None)
    assert any(not np.array_equal(a, b) for a, b in zip(after, _leaves(other.learner.networks), strict=True))


def test_new_params_of_the_same_shapes_do_not_retrace_and_are_played() -> None:
    env = level_set()
    cells = env.layout.num_cells
    init, train = compiled("ippo")
    on = {m: env.default_params._replace(levels=jnp.full(2, m, dtype=jnp.int32)) for m in (0, 1)}
    before = TRACES["ippo"]
    first, _ = train(init(jax.random.key(2), on[0]), on[0])
    traced = TRACES["ippo"]
    second, _ = train(init(jax.random.key(2), on[1]), on[1])
    assert TRACES["ippo"] == traced and traced - before <= 1 and traced >= 1
    # each run's games are on the map its params name
    assert (np.asarray(first.games.agent) // cells == 0).all()
    assert (np.asarray(second.games.agent) // cells == 1).all()


def test_shared_ippo_has_one_network_for_the_team_and_separate_ippo_one_per_ghost() -> None:
    config = ppo.PPOConfig(hidden=(64, 64))

    def count(mode: str, k: int, d: int) -> int:
        shapes = jax.eval_shape(team_ppo.team_policy(mode, k, d, config).init, jax.random.key(0))
        return sum(int(np.prod(leaf.shape)) for leaf in jax.tree_util.tree_leaves(shapes))

    def mlp(inputs: int, outputs: int) -> int:  # 64-64 hidden layers, weights and biases
        return inputs * 64 + 64 + 64 * 64 + 64 + 64 * outputs + outputs

    for k in (2, 3, 4):
        d = 26 + 3 * (k - 1)  # the team's "vector" observation
        shared, separate = count("ippo", k, d), count("ippo_separate", k, d)
        assert shared == mlp(d + k, 4) + mlp(d + k, 1)
        assert separate == k * (mlp(d, 4) + mlp(d, 1))
        # the shared pair grows by its index inputs only; the separate one by a pair a ghost
        assert separate - shared == (k - 1) * (mlp(d, 4) + mlp(d, 1)) - 2 * 64 * k
        assert count("mappo", k, d) == mlp(d + k, 4) + mlp(k * d + k, 1)
        assert count("central", k, d) == mlp(k * d, 4 * k) + mlp(k * d, 1)


def _forward(layers, x: np.ndarray) -> np.ndarray:
    """An MLP in NumPy: tanh between layers."""
    for layer in layers[:-1]:
        x = np.tanh(x @ np.asarray(layer["w"], dtype=np.float64) + np.asarray(layer["b"], dtype=np.float64))
    return x @ np.asarray(layers[-1]["w"], dtype=np.float64) + np.asarray(layers[-1]["b"], dtype=np.float64)


def _logits(mode: str, networks, observations: np.ndarray) -> np.ndarray:
    """Every ghost's logits ``[n, k, 4]`` as the module's list describes each mode."""
    n, k, _ = observations.shape
    index = np.broadcast_to(np.eye(k), (n, k, k))
    if mode in ("ippo", "mappo"):
        return _forward(networks["pi"], np.concatenate((observations, index), axis=-1))
    if mode == "ippo_separate":
        ghost = [jax.tree_util.tree_map(lambda leaf, i=i: leaf[i], networks["pi"]) for i in range(k)]
        return np.stack([_forward(ghost[i], observations[:, i]) for i in range(k)], axis=1)
    return _forward(networks["pi"], observations.reshape(n, -1)).reshape(n, k, 4)


@pytest.mark.parametrize("mode", MODES)
def test_greedy_team_actions_are_each_ghosts_most_probable_move(mode: str) -> None:
    both = GridGhostJax(ghosts=K, layout="team_eight", obs_type="vector", explore_starts=1.0)
    observations, _ = both.batch_reset(jax.random.key(0), 64)  # uniformly drawn states
    seen = np.asarray(observations["ghosts"], dtype=np.float64)
    config = ppo.PPOConfig(hidden=(16,))
    networks = team_ppo.team_policy(mode, K, seen.shape[2], config).init(jax.random.key(3))
    networks = jax.tree_util.tree_map(lambda leaf: leaf * 30.0, networks)  # moves that differ from state to state
    actions = team_ppo.team_actions(networks, observations["ghosts"], config, mode)
    assert actions.shape == (64, K) and actions.dtype == jnp.int32
    logits = _logits(mode, networks, seen)
    ordered = np.sort(logits, axis=-1)
    clear = ordered[..., -1] - ordered[..., -2] > 1e-3  # leave float32's near-ties aside
    assert clear.mean() > 0.9
    np.testing.assert_array_equal(np.asarray(actions)[clear], logits.argmax(axis=-1)[clear])
    assert len(np.unique(np.asarray(actions), axis=0)) > 1


def test_the_teams_credit_runs_to_its_next_move_for_every_ghost() -> None:
    # as one ghost's (test_jax_ppo.py), with two ghosts credited apart (ghost_credit="catcher")
    second = jnp.array([[[0.1, 0.0]], [[1.0, -0.2]], [[0.0, 0.0]]])  # [T + 1, envs, k]
    first = jnp.array([[[0.2, 0.2]], [[0.3, 0.4]], [[-1.0, -1.0]]])
    over = jnp.array([[False], [True], [True]])
    ended_first = jnp.array([[False], [False], [True]])
    rewards, dones = ppo.ghost_credit(second, first, over, ended_first)
    np.testing.assert_allclose(np.asarray(rewards)[:, 0], [[0.1 + 0.3, 0.0 + 0.4], [1.0, -0.2]], rtol=1e-6)
    assert np.asarray(dones)[:, 0].tolist() == [0.0, 1.0]
    # a centralised team is paid the mean of its ghosts' rewards; the others each ghost's own
    team = np.asarray(second[1])
    central = team_ppo.team_policy("central", K, 29, ppo.PPOConfig())
    np.testing.assert_allclose(np.asarray(central.credit(second[1])), team.mean(axis=-1, keepdims=True))
    np.testing.assert_array_equal(np.asarray(team_ppo.team_policy("mappo", K, 29, ppo.PPOConfig()).credit(
        second[1])), team)


@pytest.mark.parametrize("mode", ["ippo", pytest.param("central", marks=pytest.mark.slow)])
def test_team_selfplay_trains_the_agent_and_the_team_and_repeats_with_the_same_key(mode: str) -> None:
    both = GridGhostJax(ghosts=K, layout="team_eight", obs_type="vector", max_cycles=10)
    d = both.observation_space("ghosts").shape[1]
    init, train = team_ppo.make_team_selfplay(both, ppo.PPOConfig(**TINY), mode)
    train = jax.jit(train, static_argnums=1)
    state, metrics = train(init(jax.random.key(0)), UPDATES)
    assert sorted(metrics) == ["agent_loss", "agent_reward", "episodes", "ghosts_loss"]
    assert all(np.isfinite(np.asarray(value)).all() and np.asarray(value).shape == (UPDATES,)
               for value in metrics.values())
    assert sorted(state.learners) == ["agent", "ghosts"]
    assert _shapes(state.learners["ghosts"].networks) == expected_shapes(mode, d)
    # the agent's networks are one side's: its observation in, 4 moves out
    assert _shapes(state.learners["agent"].networks) == {"pi": _mlp_shapes(d, 4), "vf": _mlp_shapes(d, 1)}
    again, _ = train(init(jax.random.key(0)), UPDATES)
    for a, b in zip(_leaves(state.learners), _leaves(again.learners), strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.slow  # trains each mode for tens of seconds: .ci/run's JAX job runs it (-m 'jax or results')
@pytest.mark.parametrize("mode", MODES)
def test_each_mode_learns_to_catch_the_random_agent_sooner(mode: str) -> None:
    env = GridGhostJaxSingle("ghosts", ghosts=K, layout="team_eight", obs_type="vector", rewards="normalised",
                             max_episode_steps=50)
    config = ppo.PPOConfig(num_envs=16, num_steps=32, epochs=4, minibatch_size=128, hidden=(32, 32),
                           learning_rate=1e-3)
    init, train = team_ppo.make_team_train(env, config, mode)
    _, metrics = jax.jit(train, static_argnums=1)(init(jax.random.key(0)), 80)
    returns = np.asarray(metrics["return"])
    # normalised rewards: a capture pays the team 1, a step costs it nothing, the agent's goal -1
    assert returns[-10:].mean() > returns[:10].mean() + 0.1, returns


def test_bad_arguments_are_refused_by_name() -> None:
    config = ppo.PPOConfig(**TINY)
    team = GridGhostJaxSingle("ghosts", ghosts=K, layout="team_eight", obs_type="vector")
    grid = GridGhostJaxSingle("ghosts", ghosts=K, layout="team_eight", obs_type="grid", view_radius=1)
    both = GridGhostJax(ghosts=K, layout="team_eight", obs_type="vector")
    with pytest.raises(ValueError, match=r"unknown mode 'qmix'; accepted: \['ippo', 'ippo_separate', 'mappo', "
                                         r"'central'\]"):
        team_ppo.make_team_train(team, config, "qmix")
    with pytest.raises(ValueError, match="unknown mode"):
        team_ppo.make_team_selfplay(both, config, "IPPO")
    with pytest.raises(TypeError, match=r"make_team_train trains on a gridghost\.jax\.GridGhostJaxSingle"):
        team_ppo.make_team_train(both, config)
    with pytest.raises(TypeError, match=r"make_team_selfplay trains on a gridghost\.jax\.GridGhostJax, got"):
        team_ppo.make_team_selfplay(team, config)
    with pytest.raises(TypeError, match=r"takes a gridghost\.jax\.ppo\.PPOConfig"):
        team_ppo.make_team_train(team, {"num_envs": 4})
    for learner in (GridGhostJaxSingle("agent", ghosts=K, layout="team_eight", obs_type="vector"),
                    GridGhostJaxSingle("ghost", obs_type="vector")):
        with pytest.raises(ValueError, match="make_team_train trains a learning team"):
            team_ppo.make_team_train(learner, config)
    with pytest.raises(ValueError, match=r"ghosts >= 2; one ghost trains with gridghost\.jax\.ppo\.make_selfplay"):
        team_ppo.make_team_selfplay(GridGhostJax(obs_type="vector"), config)
    with pytest.raises(ValueError, match=r"a team \(ghosts=2\) trains with gridghost\.jax\.team_ppo"):
        ppo.make_selfplay(both, config)
    with pytest.raises(ValueError, match=r"make_team_train"):
        ppo.make_train(team, config)
    with pytest.raises(ValueError, match="planes selects channels of a channels-first grid"):
        team_ppo.make_team_train(team, ppo.PPOConfig(**TINY, planes=(0, 1)))
    with pytest.raises(ValueError, match=r"planes must be distinct channel indices in 0\.\.16"):
        team_ppo.make_team_train(grid, ppo.PPOConfig(**TINY, planes=(0, 17)))
    init, train = team_ppo.make_team_train(team, config)
    for updates in (0, 1.5, True):
        with pytest.raises(ValueError, match="updates must be an int >= 1"):
            train(init(jax.random.key(0)), updates)
    networks = team_ppo.team_policy("ippo", K, 29, config).init(jax.random.key(0))
    observations, _ = team.batch_reset(jax.random.key(0), 3)
    with pytest.raises(ValueError, match=r"observations must be a batch of the team's, \[n, k, \.\.\.\]"):
        team_ppo.team_actions(networks, observations[0], config, "ippo")
    with pytest.raises(ValueError, match="networks do not fit mode='central' with 2 ghosts of 29 features"):
        team_ppo.team_actions(networks, observations, config, "central")
    with pytest.raises(ValueError, match="unknown mode"):
        team_ppo.team_actions(networks, observations, config, "shared")
    with pytest.raises(TypeError, match=r"config must be a gridghost\.jax\.ppo\.PPOConfig, got dict"):
        team_ppo.team_actions(networks, observations, dict(TINY), "ippo")
    for ghosts, inputs in ((0, 29), (2.0, 29), (2, 0), (True, 29)):
        with pytest.raises(ValueError, match=r"(ghosts|inputs) must be an int >= 1"):
            team_ppo.team_policy("ippo", ghosts, inputs, config)


def test_planes_select_each_ghosts_grid_channels() -> None:
    grid = GridGhostJaxSingle("ghosts", ghosts=K, layout="team_eight", obs_type="grid", view_radius=1)
    channels, height, width = grid.observation_space().shape[1:]
    config = ppo.PPOConfig(**TINY, planes=(0, 2, 5))
    init, _ = team_ppo.make_team_train(grid, config, "ippo_separate")
    networks = init(jax.random.key(0)).learner.networks
    assert networks["pi"][0]["w"].shape == (K, 3 * height * width, 8) and channels > 5
    observations, _ = grid.batch_reset(jax.random.key(1), 5)
    inputs = ppo.features(observations, config, batch_axes=2)
    expected = np.asarray(observations)[:, :, [0, 2, 5]].reshape(5, K, -1)
    np.testing.assert_array_equal(np.asarray(inputs), expected)


@pytest.mark.slow  # trains for seconds: .ci/run's JAX job runs it (-m 'jax or results')
def test_the_jax_pages_team_example_runs_and_does_what_it_says() -> None:
    (page, line, code), = blocks_run_by("tests/test_jax_team_ppo.py")  # the one block marked for this test
    assert page.name == "jax.md"
    namespace: dict = {"__name__": "__docs__"}
    exec(compile("\n" * (line - 1) + code, "docs/jax.md", "exec"), namespace)
    assert namespace["metrics"]["return"].shape == (namespace["UPDATES"],)
    assert namespace["moves"].shape == (8, 2) and namespace["moves"].dtype == jnp.int32


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_the_team_ppo_benchmark_times_jax_ippo_against_sb3_on_the_gymnasium_team_view() -> None:
    out = run_script("benchmarks/jax_team_ppo.py", "--rounds", "1", "--steps", "4096", "--threads", "1")
    sb3 = re.search(r"^SB3 by torch threads, median steps/s: 1 ([\d,]+)$", out, flags=re.M)
    row = re.search(r"^ippo +([\d,]+) +([\d,]+) +([\d.]+)x +[\d.]+  >= 10x  (met|MISSED)$", out, flags=re.M)
    assert sb3 and row, out
    sb3_rate, best, jax_rate, ratio = (float(value.replace(",", "")) for value in (sb3[1], *row.groups()[:3]))
    assert best == sb3_rate  # one setting timed: it is the baseline
    assert abs(ratio - jax_rate / sb3_rate) < 0.06 * ratio
