"""RLlib (new API stack) trains on gridghost with no glue: the training page's example as written,
printing per-side metrics; the teams page's two examples as written (both sides learning, and the
team alone against a fixed agent, each on one ghost module the team shares) and the same runs
in-process (the mapping, both modules learning, RLlib's per-agent and per-module returns and the
per-side metrics of a team); masked multi-agent PPO that never takes a masked move, the plain env
id and the env class with ``env_config`` on a remote env runner, the plain id on gridghost's
batched engine (``gym_env_vectorize_mode="vector_entry_point"``), and
RLlib's default CNN on channels-last grids.

Marked ``integration``: they need ``gridghost[rllib]`` (and torch); ``.ci/run`` installs the
extras and runs them with ``-m integration``. One local Ray (2 CPUs) serves the module.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import math
import os
import re
from pathlib import Path

import numpy as np
import pytest

import gridghost
from gridghost.maps.levels import MapGenerator

from helpers import blocks_run_by, run_block

pytestmark = pytest.mark.integration
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
RAY_SETTINGS = dict(num_cpus=2, include_dashboard=False, log_to_driver=False)
#: One line of the training page's example: RLlib's mean return of both sides, then gridghost's per-side metrics.
METRICS_LINE = re.compile(r"iteration (\d): episode_return_mean (\S+), agent return (\S+)  success (\S+)  "
                          r"capture (\S+)  length (\S+)$", flags=re.M)


#: The teams page's two examples: both sides learning, then the team alone against a fixed agent.
TEAM_LINE = re.compile(r"iteration (\d): agent return (\S+)  success (\S+)  capture (\S+)  length (\S+); "
                       r"ghost_0 (\S+), ghost_1 (\S+)$", flags=re.M)
GHOSTS_LINE = re.compile(r"iteration (\d): ghost return (\S+)  success (\S+)  capture (\S+)  length (\S+)$",
                         flags=re.M)


def _blocks(page_name: str) -> list[tuple[Path, int, str]]:
    """The blocks of one docs page that this module runs, in page order."""
    return [block for block in blocks_run_by("tests/test_integration_rllib.py") if block[0].name == page_name]


def test_the_training_pages_example_runs_as_written_and_prints_per_side_metrics(tmp_path):
    # First in the module: its own Ray, in its own process, before the module's cluster starts.
    (page, line, code), = _blocks("training.md")
    out = run_block(page, line, code, tmp_path)
    rows = [tuple(map(float, found.groups())) for found in METRICS_LINE.finditer(out)]
    assert [row[0] for row in rows] == [1, 2], out
    for _, both_sides, agent_return, success, capture, length in rows:
        assert both_sides == 0.0  # zero-sum: the two sides' returns cancel in every game
        assert agent_return != 0.0 and 0 <= success <= 1 and 0 <= capture <= 1 and success + capture <= 1
        assert 1 <= length <= 50  # max_cycles
        assert success + capture > 0  # some games end before the step limit


def test_the_teams_pages_examples_train_one_shared_ghost_module_as_written(tmp_path):
    # Before the module's cluster starts, as the training page's example: each its own Ray.
    (page, line, code), (_, alone_line, alone_code) = _blocks("teams.md")
    out = run_block(page, line, code, tmp_path)
    rows = [tuple(map(float, found.groups())) for found in TEAM_LINE.finditer(out)]
    assert [row[0] for row in rows] == [1, 2], out
    for _, agent_return, success, capture, length, ghost_0, ghost_1 in rows:
        # zero-sum, the team's credit: each ghost's return is minus the agent's (printed to 3 places)
        assert ghost_0 == ghost_1 == pytest.approx(-agent_return, abs=2e-3)
        assert 0 <= success <= 1 and 0 <= capture <= 1 and success + capture <= 1 and 1 <= length <= 30
    out = run_block(page, alone_line, alone_code, tmp_path)
    rows = [tuple(map(float, found.groups())) for found in GHOSTS_LINE.finditer(out)]
    assert [row[0] for row in rows] == [1, 2], out
    for _, ghost_return, success, capture, length in rows:
        assert math.isfinite(ghost_return) and ghost_return != 0.0
        assert 0 <= success <= 1 and 0 <= capture <= 1 and success + capture <= 1 and 1 <= length <= 30


@pytest.fixture(scope="module")
def ray_cluster():
    import ray
    import torch

    # The driver samples (num_env_runners=0) and learns. Two intra-op threads on this 2-core machine,
    # shared with a Ray worker, made a 6x6 convolution ~100x slower (each thread waits for the
    # other's core); Ray's own workers run with one thread (OMP_NUM_THREADS=1).
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    import gridghost.integrations.rllib  # noqa: F401  (registers the env ids, as a user's import of the adapter does)

    if not ray.is_initialized():
        ray.init(**RAY_SETTINGS)
    yield ray
    ray.shutdown()
    torch.set_num_threads(threads)


def _example(name: str):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _ppo(batch: int):
    from ray.rllib.algorithms.ppo import PPOConfig

    return (PPOConfig()
            .training(train_batch_size_per_learner=batch, minibatch_size=128, num_epochs=2, lr=3e-4)
            .debugging(seed=0))


def _train_once(config) -> tuple[dict, list[int]]:
    """One training iteration; the result and the process ids of the remote env runners."""
    algo = config.build_algo()
    try:
        pids = algo.env_runner_group.foreach_env_runner(lambda runner: os.getpid(), local_env_runner=False)
        result = algo.train()
    finally:
        algo.stop()
    return result, pids


def _check_single_agent_result(result: dict, batch: int, num_envs: int = 1) -> None:
    runners = result["env_runners"]
    assert batch <= runners["num_env_steps_sampled"] < batch + num_envs  # a vector env steps all its games at once
    assert runners["num_episodes"] >= 1 and math.isfinite(runners["episode_return_mean"])
    assert math.isfinite(result["learners"]["default_policy"]["total_loss"])


def test_masked_adapter_speaks_rllibs_keys():
    from gridghost.integrations.rllib import GridGhostMultiAgentEnv, masked_multi_module_spec

    env = GridGhostMultiAgentEnv({"obs_type": "vector", "action_mask_in_obs": True})
    for side in ("agent", "ghost"):
        space = env.get_observation_space(side)
        assert set(space) == {"observations", "action_mask"}
        assert space["observations"] == env.game.observation_space(side)["observation"]
    observations, _ = env.reset(seed=0)
    mover, steps = "agent", 0
    while True:
        observation = observations[mover]
        assert env.get_observation_space(mover).contains(observation)
        assert observation["action_mask"].any()  # the side that observes moves: never all zeros
        legal = np.flatnonzero(observation["action_mask"])
        observations, _, terminations, truncations, _ = env.step({mover: int(legal[steps % len(legal)])})
        steps += 1
        if terminations["__all__"] or truncations["__all__"]:
            break
        (mover,) = observations
    unmasked = GridGhostMultiAgentEnv({"obs_type": "vector"})
    assert unmasked.get_observation_space("agent") == env.game.observation_space("agent")["observation"]
    specs = masked_multi_module_spec({"fcnet_hiddens": [32]}).rl_module_specs
    assert set(specs) == {"agent", "ghost"}
    assert all(spec.module_class.__name__ == "ActionMaskingTorchRLModule" for spec in specs.values())


@pytest.mark.parametrize("extra", [{}, {"controlled": "ghosts", "opponent": "random"}], ids=["both_sides", "alone"])
def test_a_masked_team_speaks_rllibs_keys_and_every_mover_has_a_move(extra):
    from gridghost.integrations.rllib import GridGhostMultiAgentEnv

    env = GridGhostMultiAgentEnv({"ghosts": 2, "layout": "team_eight", "action_mask_in_obs": True, **extra})
    assert env.get_observation_space("ghost_0") is env.get_observation_space("ghost_1")  # one module's space
    rng = np.random.default_rng(0)
    for seed in range(5):
        observations, _ = env.reset(seed=seed)
        while True:
            for name, observation in observations.items():
                assert set(observation) == {"observations", "action_mask"}
                assert env.get_observation_space(name).contains(observation)
                assert observation["action_mask"].any()
            actions = {name: int(rng.choice(np.flatnonzero(observation["action_mask"])))
                       for name, observation in observations.items()}
            observations, _, terminations, truncations, _ = env.step(actions)
            if terminations["__all__"] or truncations["__all__"]:
                break
        assert set(observations) == set(env.possible_agents)


def test_the_single_agent_id_gives_rllibs_mask_keys():
    """What RLlib builds for ``"gridghost/GridGhost-v1"`` with masks: RLlib's keys, the same game."""
    import gymnasium

    from gridghost.integrations.rllib import RLlibMaskKeys, make_gym_env

    env = make_gym_env({"obs_type": "vector", "action_mask_in_obs": True})
    plain = gymnasium.make(gridghost.ENV_ID, obs_type="vector", action_mask_in_obs=True)
    (ours, _), (theirs, _) = env.reset(seed=4), plain.reset(seed=4)
    for _ in range(20):
        assert set(ours) == {"observations", "action_mask"} and env.observation_space.contains(ours)
        np.testing.assert_array_equal(ours["observations"], theirs["observation"])
        np.testing.assert_array_equal(ours["action_mask"], theirs["action_mask"])
        action = int(np.flatnonzero(ours["action_mask"])[0])
        (ours, _, done, cut, _), (theirs, *_) = env.step(action), plain.step(action)
        if done or cut:
            break
    assert isinstance(make_gym_env({"obs_type": "vector"}).reset(seed=0)[0], np.ndarray)  # no mask: as it is
    with pytest.raises(ValueError, match="renames the masked observation"):
        RLlibMaskKeys(gymnasium.make(gridghost.ENV_ID, obs_type="vector"))


@pytest.mark.parametrize("obs_type", ["vector", "grid"])
def test_masked_example_never_takes_a_masked_action(ray_cluster, obs_type):
    example = _example("rllib_masked")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rows = example.main(["--obs-type", obs_type, "--iterations", "2", "--batch", "1000"], init_ray=False)
    assert len(rows) == 2
    # One action per env step (only the side to move acts), and every one is checked: an action
    # still waiting for its side's next observation when sampling stops is checked next time.
    assert all(abs(row["checked"] - row["env_steps"]) <= 1 for row in rows)
    assert 0 <= sum(row["env_steps"] for row in rows) - sum(row["checked"] for row in rows) <= 1
    assert sum(row["env_steps"] for row in rows) >= 2000
    for row in rows:
        assert row["broken"] == 0
        # The masks did rule moves out: a policy blind to them would have taken some.
        assert row["restricted"] >= 0.2 * row["checked"]
        assert row["agent_return"] + row["ghost_return"] == pytest.approx(0.0, abs=1e-9)
        assert math.isfinite(row["agent_loss"]) and math.isfinite(row["ghost_loss"])
        # The metrics callback counts the games RLlib counts: its agent return is RLlib's own.
        assert row["metrics_agent_return"] == pytest.approx(row["agent_return"])
        assert 0 <= row["success_rate"] <= 1 and 0 <= row["capture_rate"] <= 1
        assert row["success_rate"] + row["capture_rate"] <= 1 and row["episode_length"] >= 1
    assert "masked taken" in out.getvalue()


def test_plain_env_id_on_a_remote_env_runner_after_a_new_cluster(ray_cluster):
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

    # A new cluster starts without the import-time registrations (flushed into the first one):
    # the adapter registers its ids again after every ray.init.
    ray_cluster.shutdown()
    ray_cluster.init(**RAY_SETTINGS)
    config = (_ppo(500)
              .environment("gridghost/GridGhost-v1", env_config={"obs_type": "vector", "controlled": "ghost"})
              .env_runners(num_env_runners=1)
              .rl_module(model_config=DefaultModelConfig(fcnet_hiddens=[32, 32])))
    result, pids = _train_once(config)
    assert len(pids) == 1 and pids[0] != os.getpid()  # a real remote worker built the env
    _check_single_agent_result(result, 500)


def test_env_class_with_env_config_on_a_remote_env_runner(ray_cluster):
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

    config = (_ppo(500)
              .environment(gridghost.GridGhostGymEnv,
                           env_config={"obs_type": "vector", "layout": MapGenerator(6, 6, difficulty=1),
                                       "max_cycles": 50})
              .env_runners(num_env_runners=1)
              .rl_module(model_config=DefaultModelConfig(fcnet_hiddens=[32, 32])))
    result, pids = _train_once(config)
    assert len(pids) == 1 and pids[0] != os.getpid()
    _check_single_agent_result(result, 500)


def test_default_catalog_builds_a_cnn_for_channels_last_grids(ray_cluster):
    from ray.rllib.core.models.torch.encoder import TorchCNNEncoder
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

    config = (_ppo(500)
              .environment("gridghost/GridGhost-v1",
                           env_config={"obs_type": "grid", "grid_layout": "hwc",
                                       "layout": MapGenerator(6, 6, difficulty=1)})
              .rl_module(model_config=DefaultModelConfig(conv_filters=[[16, [3, 3], 1], [32, [3, 3], 1]])))
    algo = config.build_algo()
    try:
        module = algo.get_module()
        assert module.observation_space.shape == (6, 6, 15)
        encoders = [layer for layer in module.modules() if isinstance(layer, TorchCNNEncoder)]
        assert encoders  # RLlib's catalog chose its CNN for the rank-3 (H, W, C) observations
        result = algo.train()
    finally:
        algo.stop()
    _check_single_agent_result(result, 500)


def test_plain_env_id_runs_the_batched_engine_in_vector_entry_point_mode(ray_cluster):
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

    from gridghost.batched import GridGhostVectorEnv

    config = (_ppo(800)
              .environment("gridghost/GridGhost-v1", env_config={"obs_type": "vector"})
              .env_runners(num_env_runners=0, num_envs_per_env_runner=8, gym_env_vectorize_mode="vector_entry_point")
              .rl_module(model_config=DefaultModelConfig(fcnet_hiddens=[32, 32])))
    algo = config.build_algo()
    try:
        assert isinstance(algo.env_runner.env.unwrapped, GridGhostVectorEnv)
        result = algo.train()
    finally:
        algo.stop()
    _check_single_agent_result(result, 800, num_envs=8)


#: A team of two on the coordination map, as the teams page trains it.
TEAM = {"ghosts": 2, "layout": "team_eight", "obs_type": "vector", "max_cycles": 30}


def _weights(algo, module_id: str) -> dict[str, np.ndarray]:
    state = algo.get_module(module_id).state_dict()
    return {name: value.detach().cpu().numpy().copy() for name, value in state.items()}


def _changed(before: dict[str, np.ndarray], after: dict[str, np.ndarray]) -> bool:
    assert before.keys() == after.keys()
    return any(not np.array_equal(before[name], after[name]) for name in before)


def test_both_sides_learn_with_one_ghost_module_shared_by_the_team(ray_cluster):
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

    from gridghost.integrations.metrics import METRICS
    from gridghost.integrations.rllib import SIDES, GridGhostMetrics, GridGhostMultiAgentEnv, module_of

    config = (_ppo(1000)
              .environment(GridGhostMultiAgentEnv, env_config=TEAM)
              .multi_agent(policies=set(SIDES), policy_mapping_fn=module_of)
              .callbacks(GridGhostMetrics)
              .env_runners(num_env_runners=0)
              .rl_module(model_config=DefaultModelConfig(fcnet_hiddens=[32, 32])))
    algo = config.build_algo()
    try:
        assert set(algo.env_runner.module.keys()) == {"agent", "ghost"}  # no module per ghost
        before = {side: _weights(algo, side) for side in SIDES}
        results = [algo.train() for _ in range(2)]
        after = {side: _weights(algo, side) for side in SIDES}
    finally:
        algo.stop()
    assert all(_changed(before[side], after[side]) for side in SIDES)  # both modules learned
    for result in results:
        runners = result["env_runners"]
        assert runners["num_episodes"] >= 1
        # Every ghost played on the one shared module, and RLlib sums the team's returns there.
        agents, modules = runners["agent_episode_returns_mean"], runners["module_episode_returns_mean"]
        assert set(agents) == {"agent", "ghost_0", "ghost_1"} and set(modules) == {"agent", "ghost"}
        # Zero-sum, the team's credit: each ghost's return is minus the agent's.
        assert agents["ghost_0"] == pytest.approx(-agents["agent"]) == pytest.approx(agents["ghost_1"])
        assert modules["ghost"] == pytest.approx(-2 * modules["agent"])
        assert runners["episode_return_mean"] == pytest.approx(-agents["agent"])  # 1 - k = -1 times the agent's
        # The per-side metrics are there, finite, and the agent's return is RLlib's own.
        assert all(math.isfinite(runners[name]) for name in METRICS)
        assert runners["agent_return"] == pytest.approx(agents["agent"])
        assert 0 <= runners["success_rate"] <= 1 and 0 <= runners["capture_rate"] <= 1
        assert runners["success_rate"] + runners["capture_rate"] <= 1 and 1 <= runners["episode_length"] <= 30
        learners = result["learners"]
        assert {"agent", "ghost"} <= set(learners) and "ghost_0" not in learners
        assert all(math.isfinite(learners[side]["total_loss"]) for side in SIDES)


class _Logger:
    """What the metrics callback logs, by name (RLlib's MetricsLogger's ``log_value``)."""

    def __init__(self) -> None:
        self.values: dict[str, list[float]] = {}

    def log_value(self, key, value, reduce, window=None) -> None:
        assert reduce == "mean"
        self.values.setdefault(key, []).append(value)


@pytest.mark.parametrize("env_config", [TEAM, {**TEAM, "controlled": "ghosts", "opponent": "random"}],
                         ids=["both_sides", "ghosts_alone"])
def test_the_metrics_callback_reads_a_teams_whole_games(env_config):
    from ray.rllib.env.multi_agent_episode import MultiAgentEpisode

    from gridghost.integrations.metrics import GHOSTS_METRICS, METRICS
    from gridghost.integrations.rllib import GridGhostMetrics, GridGhostMultiAgentEnv

    env = GridGhostMultiAgentEnv(env_config)
    alone = "agent" not in env.possible_agents
    learner = "ghost_0" if alone else "agent"
    callback, logger = GridGhostMetrics(), _Logger()
    truth: dict[str, list[float]] = {}
    rng = np.random.default_rng(1)
    chunked = 0
    for seed in range(40):
        observations, infos = env.reset(seed=seed)
        episode = MultiAgentEpisode(observations=[observations], infos=[infos],
                                    observation_space=env.observation_spaces, action_space=env.action_spaces)
        chunks, totals, moves = [], dict.fromkeys(env.possible_agents, 0.0), 0
        while not episode.is_done:
            actions = {side: int(rng.integers(4)) for side in observations}
            moves += learner in actions
            observations, rewards, terminations, truncations, infos = env.step(actions)
            for name, reward in rewards.items():
                totals[name] += reward
            episode.add_env_step(observations=observations, actions=actions, rewards=rewards, infos=infos,
                                 terminateds=terminations, truncateds=truncations)
            if not episode.is_done and rng.random() < 0.1:  # a sampling round ends here: RLlib cuts the episode
                chunks.append(episode)
                episode = episode.cut(len_lookback_buffer=1)
        chunked += bool(chunks)
        callback.on_episode_end(episode=episode, prev_episode_chunks=chunks, metrics_logger=logger, env_index=0)
        ended = infos[learner]
        row = {"ghost_return": (totals["ghost_0"] + totals["ghost_1"]) / 2} if alone else {
            "agent_return": totals["agent"]}
        row.update(success_rate=float(ended["reached_goal"]), capture_rate=float(ended["caught_by_ghost"]),
                   episode_length=float(moves))
        for name, value in row.items():
            truth.setdefault(name, []).append(value)
    assert chunked >= 10
    names = GHOSTS_METRICS if alone else METRICS
    assert set(logger.values) == set(names) == set(truth)
    for name in names:  # game by game
        assert logger.values[name] == pytest.approx(truth[name]), name
    assert 0 < np.mean(truth["capture_rate"]) < 1 and 0 < np.mean(truth["success_rate"]) < 1


def _crossroads_minimax_table():
    """The team game's minimax agent on team_crossroads, as the solver's table of the joint state."""
    from gridghost.config import resolve
    from gridghost.planning import solve_game

    return solve_game(spec=resolve(layout="team_crossroads", ghosts=2, rewards="normalised")).agent_policy


@pytest.mark.parametrize("against", [{"opponent": "minimax"},
                                     {"layout": "team_crossroads", "opponent": _crossroads_minimax_table}],
                         ids=["minimax_on_team_eight", "solver_table_on_team_crossroads"])
def test_the_team_learns_alone_against_a_fixed_agent_with_one_shared_module(ray_cluster, against):
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

    from gridghost.integrations.metrics import GHOSTS_METRICS
    from gridghost.integrations.rllib import GridGhostMetrics, GridGhostMultiAgentEnv, module_of

    # the opponent by name, or the solver's state table of the agent, which the env plays from the true state
    opponent = against["opponent"] if isinstance(against["opponent"], str) else against["opponent"]()
    env_config = {**TEAM, **against, "controlled": "ghosts", "opponent": opponent}
    config = (_ppo(1000)
              .environment(GridGhostMultiAgentEnv, env_config=env_config)
              .multi_agent(policies={"ghost"}, policy_mapping_fn=module_of)
              .callbacks(GridGhostMetrics)
              .env_runners(num_env_runners=0)
              .rl_module(model_config=DefaultModelConfig(fcnet_hiddens=[32, 32])))
    algo = config.build_algo()
    try:
        assert set(algo.env_runner.module.keys()) == {"ghost"}
        before = _weights(algo, "ghost")
        results = [algo.train() for _ in range(2)]
        after = _weights(algo, "ghost")
    finally:
        algo.stop()
    assert _changed(before, after)
    for result in results:
        runners = result["env_runners"]
        assert runners["num_episodes"] >= 1
        # Every step moves the whole team: each ghost acts once per env step.
        assert runners["num_agent_steps_sampled"] == {"ghost_0": runners["num_env_steps_sampled"],
                                                      "ghost_1": runners["num_env_steps_sampled"]}
        agents, modules = runners["agent_episode_returns_mean"], runners["module_episode_returns_mean"]
        assert set(agents) == {"ghost_0", "ghost_1"} and set(modules) == {"ghost"}
        assert agents["ghost_0"] == pytest.approx(agents["ghost_1"])  # the team's credit
        assert modules["ghost"] == pytest.approx(2 * agents["ghost_0"])
        assert all(math.isfinite(runners[name]) for name in GHOSTS_METRICS) and "agent_return" not in runners
        assert runners["ghost_return"] == pytest.approx(agents["ghost_0"])
        assert 0 <= runners["success_rate"] <= 1 and 0 <= runners["capture_rate"] <= 1
        assert runners["success_rate"] + runners["capture_rate"] <= 1 and 1 <= runners["episode_length"] <= 30
        assert {"ghost"} <= set(result["learners"]) and not {"agent", "ghost_0"} & set(result["learners"])
        assert math.isfinite(result["learners"]["ghost"]["total_loss"])
