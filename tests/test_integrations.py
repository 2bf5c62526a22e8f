"""The trainer integrations with the real trainers: RLlib's episode bookkeeping over the adapter
(returns, and the per-side metrics callback over games cut into chunks), and the two self-play
examples for a few iterations each.

Marked ``integration``: they need ``gridghost[sb3,rllib]`` (and torch), which the README's test
command does not install; ``.ci/run`` installs the extras and runs them with ``-m integration``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import math
from pathlib import Path

import numpy as np
import pytest

import gridghost
from gridghost.maps.levels import MapGenerator

pytestmark = pytest.mark.integration
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _example(name: str):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rllib_returns(env, episodes: int) -> list[float]:
    """Each episode's sum of the two sides' returns as RLlib's MultiAgentEpisode counts them."""
    from ray.rllib.env.multi_agent_episode import MultiAgentEpisode

    rng = np.random.default_rng(0)
    sums = []
    for seed in range(episodes):
        observations, infos = env.reset(seed=seed)
        episode = MultiAgentEpisode(observations=[observations], infos=[infos],
                                    observation_space=env.observation_spaces, action_space=env.action_spaces)
        while not episode.is_done:
            actions = {side: int(rng.integers(4)) for side in observations}
            observations, rewards, terminations, truncations, infos = env.step(actions)
            episode.add_env_step(observations=observations, actions=actions, rewards=rewards, infos=infos,
                                 terminateds=terminations, truncateds=truncations)
        sums.append(sum(single.get_return() for single in episode.agent_episodes.values()))
    return sums


# the reference's whole-number rewards, whose sums are exactly zero (the trainer default is normalised)
@pytest.mark.parametrize("settings", [dict(obs_type="vector", rewards="reference"),
                                      dict(obs_type="grid", layout=MapGenerator(6, 6, difficulty=2, num_levels=6),
                                           rewards="reference")],
                         ids=["classic", "difficulty2"])
def test_rllib_episodes_returns_sum_to_zero(settings):
    from gridghost.integrations.rllib import GridGhostMultiAgentEnv

    sums = _rllib_returns(GridGhostMultiAgentEnv(settings), 1000)
    assert sums == [0.0] * 1000


def test_rllib_env_takes_its_settings_as_env_config():
    from ray.rllib.env.multi_agent_env import MultiAgentEnv

    from gridghost.integrations.rllib import GridGhostMultiAgentEnv

    env = GridGhostMultiAgentEnv({"obs_type": "vector", "layout": "maze9"}, max_cycles=7)
    assert isinstance(env, MultiAgentEnv)
    assert env.game.layout == gridghost.maps.load("maze9") and env.game.max_cycles == 7
    assert env.get_observation_space("ghost") == env.game.observation_space("ghost")
    with pytest.raises(TypeError, match="config must be a dict"):
        GridGhostMultiAgentEnv(["vector"])


class _Logger:
    """The part of RLlib's MetricsLogger the metrics callback uses: every value it logs, by name."""

    def __init__(self):
        self.values, self.windows = {}, set()

    def log_value(self, key, value, *, reduce, window):
        assert reduce == "mean"
        self.values.setdefault(key, []).append(value)
        self.windows.add(window)


def test_rllib_metrics_callback_counts_whole_games_across_chunks():
    from ray.rllib.env.multi_agent_episode import MultiAgentEpisode
    from ray.rllib.env.single_agent_episode import SingleAgentEpisode

    from gridghost.integrations.metrics import METRICS, EpisodeMetrics
    from gridghost.integrations.rllib import GridGhostMetrics, GridGhostMultiAgentEnv

    env = GridGhostMultiAgentEnv({"obs_type": "vector", "max_cycles": 30})
    callback, logger, truth = GridGhostMetrics(), _Logger(), EpisodeMetrics()
    rng = np.random.default_rng(1)
    chunked = 0
    for seed in range(80):
        observations, infos = env.reset(seed=seed)
        episode = MultiAgentEpisode(observations=[observations], infos=[infos],
                                    observation_space=env.observation_spaces, action_space=env.action_spaces)
        chunks, agent_return, moves = [], 0.0, 0
        while not episode.is_done:
            actions = {side: int(rng.integers(4)) for side in observations}
            moves += "agent" in actions
            observations, rewards, terminations, truncations, infos = env.step(actions)
            agent_return += rewards.get("agent", 0.0)
            episode.add_env_step(observations=observations, actions=actions, rewards=rewards, infos=infos,
                                 terminateds=terminations, truncateds=truncations)
            if not episode.is_done and rng.random() < 0.05:  # a sampling round ends here: RLlib cuts the episode
                chunks.append(episode)
                episode = episode.cut(len_lookback_buffer=1)  # as RLlib's runner does (episode_lookback_horizon)
        chunked += bool(chunks)
        callback.on_episode_end(episode=episode, prev_episode_chunks=chunks, metrics_logger=logger, env_index=0)
        truth.add_info(agent_return, infos["agent"], moves)
    assert chunked >= 20
    summary = truth.summary()
    assert 0 < summary["success_rate"] < 1 and 0 < summary["capture_rate"] < 1
    assert all(len(logger.values[name]) == 80 for name in METRICS) and logger.windows == {None}
    assert {name: float(np.mean(logger.values[name])) for name in METRICS} == pytest.approx(
        {name: summary[name] for name in METRICS})
    with pytest.raises(TypeError, match="multi-agent episodes of GridGhostMultiAgentEnv"):
        callback.on_episode_end(episode=SingleAgentEpisode(), metrics_logger=logger, env_index=0)
    with pytest.raises(ValueError, match="holds no 'agent' steps"):
        callback.on_episode_end(episode=MultiAgentEpisode(), metrics_logger=logger, env_index=0)


def _check_generations(rows, count):
    """Each generation's measures are exact: gaps add up to the exploitability, probabilities are probabilities."""
    assert len(rows) == count
    for row in rows:
        assert row["exploitability"] >= -1e-6 and math.isclose(row["agent_gap"] + row["ghost_gap"],
                                                                row["exploitability"], abs_tol=1e-6)
        assert 0.0 <= row["success"] <= 1.0


def test_rllib_example_trains_both_sides_and_measures_them():
    import torch

    example = _example("rllib_selfplay")
    out = io.StringIO()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the driver samples and learns; 2 threads on 2 shared cores wait on each other
    try:
        with contextlib.redirect_stdout(out):
            rows = example.main(["--iterations", "2", "--batch", "256"])
    finally:
        torch.set_num_threads(threads)
    _check_generations(rows, 2)
    for row in rows:
        assert row["agent_return"] + row["ghost_return"] == pytest.approx(0.0, abs=1e-9)
    assert "minimax value" in out.getvalue()


def test_sb3_example_alternates_the_learners_through_the_pool():
    example = _example("selfplay_sb3")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rows = example.main(["--generations", "2", "--steps", "256"])
    _check_generations(rows, 2)
    assert all(0.0 <= row["win_rate"] <= 1.0 for row in rows)
    lines = out.getvalue().splitlines()
    assert [line.split()[1] for line in lines[2:4]] == ["agent", "ghost"]  # the sides take turns
