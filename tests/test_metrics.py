"""Per-side metrics (gridghost.integrations.metrics and the TorchRL reader), without a trainer: the
numbers of known games, the step-by-step tracker against the env's own bookkeeping, and the
refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest

import gridghost
from gridghost.integrations.metrics import METRICS, EpisodeMetrics, EpisodeTracker, format_metrics, outcome
from gridghost.integrations.torchrl import KEYS, TensorDictMetrics


def test_summary_of_known_games() -> None:
    metrics = EpisodeMetrics()
    metrics.add(95.0, True, False, 6)         # reached a goal after 6 moves
    metrics.add(-53.0, False, True, 4)        # caught
    metrics.add(-100.0, False, False, 100)    # cut short by max_cycles
    summary = metrics.summary()
    assert list(summary) == [*METRICS, "episodes"]
    assert summary == {"agent_return": pytest.approx(-58.0 / 3), "success_rate": pytest.approx(1 / 3),
                       "capture_rate": pytest.approx(1 / 3), "episode_length": pytest.approx(110 / 3), "episodes": 3}
    metrics.clear()
    assert metrics.episodes == 0
    metrics.add_info(-1.0, {"reached_goal": np.bool_(False), "caught_by_ghost": np.bool_(True)}, np.int64(1))
    assert metrics.summary()["capture_rate"] == 1.0 and metrics.summary()["success_rate"] == 0.0


@pytest.mark.parametrize("args, error, message", [
    ((1.0, 1, False, 3), TypeError, "reached_goal must be a bool"),
    ((1.0, False, None, 3), TypeError, "caught_by_ghost must be a bool"),
    ((1.0, False, False, 2.5), TypeError, "length must be an int"),
    ((1.0, False, False, True), TypeError, "length must be an int"),
    ((math.nan, False, False, 3), ValueError, "agent_return must be finite"),
    ((1.0, True, True, 3), ValueError, "either by a goal or by a capture"),
    ((1.0, False, False, 0), ValueError, "length must be an int >= 1"),
])
def test_add_refuses_what_no_game_gives(args, error, message) -> None:
    metrics = EpisodeMetrics()
    with pytest.raises(error, match=message):
        metrics.add(*args)
    assert metrics.episodes == 0  # nothing half-added


def test_summary_of_nothing_is_an_error_not_a_number() -> None:
    with pytest.raises(ValueError, match="no finished game"):
        EpisodeMetrics().summary()


def test_outcome_reads_numeric_infos_and_refuses_the_references() -> None:
    env = gridghost.env(slip_probability=0.0)
    env.reset(seed=0)
    assert outcome(env.infos["agent"]) == (False, False)
    reference = gridghost.env(reference_infos=True)
    reference.reset(seed=0)
    with pytest.raises(ValueError, match=r"info lacks \['reached_goal', 'caught_by_ghost'\].*numeric infos"):
        outcome(reference.infos["agent"])
    with pytest.raises(ValueError, match="both ways"):
        outcome({"reached_goal": True, "caught_by_ghost": True})
    with pytest.raises(TypeError, match="info must be a game's last info"):
        outcome([True, False])


def test_format_metrics_prints_every_metric_and_names_what_is_missing() -> None:
    line = format_metrics({"agent_return": -3.5, "success_rate": 0.25, "capture_rate": 0.5, "episode_length": 7.25})
    assert line == "agent return -3.500  success 0.250  capture 0.500  length 7.2"
    with pytest.raises(KeyError, match=r"\['capture_rate', 'episode_length'\]"):
        format_metrics({"agent_return": 0.0, "success_rate": 0.0})


def test_tracker_carries_a_game_over_batches_and_follows_several_envs() -> None:
    tracker = EpisodeTracker()
    # env 0: a game of 3 steps ending in a goal, then a game running on; env 1: one game over both batches.
    reward = [[-1.0, 0.0, 100.0, -1.0], [-1.0, 0.0, -1.0, 0.0]]
    moved = [[1, 0, 1, 1], [1, 0, 1, 0]]
    done = [[0, 0, 1, 0], [0, 0, 0, 0]]
    goal = [[0, 0, 1, 0], [0, 0, 0, 0]]
    caught = np.zeros((2, 4))
    assert tracker.update(reward, moved, done, goal, caught) == 1
    assert tracker.metrics.summary() == {"agent_return": 99.0, "success_rate": 1.0, "capture_rate": 0.0,
                                         "episode_length": 2.0, "episodes": 1}
    tracker.metrics.clear()
    assert tracker.update([[0.0, -50.0], [-1.0, -50.0]], [[0, 1], [1, 0]], [[0, 1], [0, 1]],
                          [[0, 0], [0, 0]], [[0, 1], [0, 1]]) == 2
    # env 0: -1 carried over, then 0 and -50 (it walked into the ghost); env 1: -2 carried, -1, -50.
    assert tracker.metrics.summary() == {"agent_return": (-51.0 - 53.0) / 2, "success_rate": 0.0,
                                         "capture_rate": 1.0, "episode_length": (2 + 3) / 2, "episodes": 2}


def test_tracker_refuses_mismatched_batches() -> None:
    tracker = EpisodeTracker()
    with pytest.raises(ValueError, match=r"done has shape \(3,\)"):
        tracker.update(np.zeros(4), np.zeros(4), np.zeros(3), np.zeros(4), np.zeros(4))
    with pytest.raises(ValueError, match="not finite"):
        tracker.update([np.inf], [1], [0], [0], [0])
    tracker.update(np.zeros((2, 3)), *np.zeros((4, 2, 3)))
    with pytest.raises(ValueError, match="this batch has 3 games, the last one 2"):
        tracker.update(np.zeros((3, 3)), *np.zeros((4, 3, 3)))


Game = tuple[float, bool, bool, int]


def _play_aec(seed: int, half_turns: int, **settings) -> tuple[dict[str, np.ndarray], list[Game]]:
    """Random play through the AEC env, step by step as TorchRL records it, and each game's truth."""
    env = gridghost.raw_env(**settings)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    rows, games, agent_return, moves = [], [], 0.0, 0
    for _ in range(half_turns):
        mover = env.agent_selection
        env.step(int(rng.integers(4)))
        info = env.infos["agent"]
        over = any(env.terminations.values()) or any(env.truncations.values())
        agent_return += env.rewards["agent"]
        moves += mover == "agent"
        rows.append((env.rewards["agent"], info["mover"] == 0, over, info["reached_goal"], info["caught_by_ghost"]))
        if over:
            games.append((agent_return, bool(info["reached_goal"]), bool(info["caught_by_ghost"]), moves))
            agent_return, moves = 0.0, 0
            env.reset()
    columns = [np.array(column) for column in zip(*rows, strict=True)]
    return dict(zip(("agent_reward", "agent_moved", "done", "reached_goal", "caught_by_ghost"), columns,
                    strict=True)), games


def test_tracker_on_real_games_matches_each_games_truth() -> None:
    steps, games = _play_aec(3, 1500, max_cycles=30)
    assert len(games) >= 20 and {g[1] for g in games} == {True, False} and {g[2] for g in games} == {True, False}
    tracker = EpisodeTracker()
    for chunk in np.array_split(np.arange(1500), 7):  # batches that cut games anywhere
        tracker.update(*(steps[name][chunk] for name in steps))
    expected = EpisodeMetrics()
    for game in games:
        expected.add(*game)
    assert tracker.metrics.summary() == pytest.approx(expected.summary())
    summary = expected.summary()
    assert 0 < summary["success_rate"] + summary["capture_rate"] <= 1 and summary["agent_return"] != 0
    assert 1 <= summary["episode_length"] <= 30


class _Batch:
    """The part of a TensorDict that TensorDictMetrics reads: ``get`` and ``batch_size``."""

    def __init__(self, entries: dict, batch_size: tuple[int, ...]) -> None:
        self.entries, self.batch_size = entries, batch_size

    def get(self, key):
        return self.entries.get(key)


def test_tensordict_reader_takes_torchrls_keys_and_trailing_axes() -> None:
    steps, games = _play_aec(5, 600)
    n = len(steps["done"])
    entries = {KEYS["agent_reward"]: steps["agent_reward"].reshape(n, 1, 1),
               KEYS["mover"]: np.where(steps["agent_moved"], 0, 1).reshape(n, 1, 1),
               KEYS["done"]: steps["done"].reshape(n, 1),
               KEYS["reached_goal"]: steps["reached_goal"].reshape(n, 1, 1),
               KEYS["caught_by_ghost"]: steps["caught_by_ghost"].reshape(n, 1, 1)}
    reader = TensorDictMetrics()
    assert reader.update(_Batch(entries, (n,))) == len(games) >= 3
    expected = EpisodeMetrics()
    for game in games:
        expected.add(*game)
    assert reader.summary() == pytest.approx(expected.summary())
    with pytest.raises(KeyError, match=r"no entry \('next', 'agent', 'info', 'mover'\)"):
        reader.update(_Batch({k: v for k, v in entries.items() if k != KEYS["mover"]}, (n,)))
    with pytest.raises(ValueError, match="not one value per step"):
        reader.update(_Batch({**entries, KEYS["done"]: np.zeros((n, 2))}, (n,)))


def test_tracker_step_reads_each_games_agent_info_from_the_parallel_env() -> None:
    envs = [gridghost.parallel_env(obs_type="vector", max_cycles=10) for _ in range(3)]
    infos = [env.reset(seed=seed)[1]["agent"] for seed, env in enumerate(envs)]
    tracker, rng = EpisodeTracker(), np.random.default_rng(4)
    truth, returns, moves = EpisodeMetrics(), [0.0] * 3, [0] * 3
    for _ in range(300):
        rewards, dones, infos = [], [], []
        for game, env in enumerate(envs):
            moves[game] += env.aec_env.agent_selection == "agent"
            _, reward, terminated, truncated, info = env.step({name: int(rng.integers(4)) for name in env.agents})
            done = terminated["agent"] or truncated["agent"]
            returns[game] += reward["agent"]
            rewards.append(reward["agent"])
            dones.append(done)
            infos.append(info["agent"])
            if done:
                truth.add_info(returns[game], info["agent"], moves[game])
                returns[game], moves[game] = 0.0, 0
                env.reset()
        tracker.step(rewards, dones, infos)
    assert truth.episodes >= 15 and tracker.metrics.summary() == pytest.approx(truth.summary())
    with pytest.raises(ValueError, match="one entry per game"):
        tracker.step([0.0, 0.0], [False, False], infos)
    with pytest.raises(KeyError, match="an agent info has no 'mover'"):
        tracker.step([0.0], [False], [{"reached_goal": False, "caught_by_ghost": False}])
