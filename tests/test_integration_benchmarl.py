"""BenchMARL's MAPPO trains both sides of the parallel env, registered as any new BenchMARL task is,
and reports per-side metrics; it trains the ghosts alone against a fixed agent
(``GridGhostTask.GRIDGHOST_TEAM``) with the global state for its critic; the training page's
BenchMARL example runs as written.

BenchMARL runs tasks, not env objects: a new environment is a ``TaskClass`` (whose ``get_env_fun``
builds the TorchRL env) and a ``Task`` enum naming it, BenchMARL's "extending: task" recipe.
PettingZoo's tictactoe_v3 needs the same (BenchMARL ships no classic PettingZoo task), and more: a
transform to flatten and cast its int8 board planes for BenchMARL's MLP. gridghost's task, in
``gridghost.integrations.benchmarl``, is BenchMARL's PettingZoo task class with TorchRL's own
``PettingZooWrapper(gridghost.parallel_env(obs_type="vector"), use_mask=True)`` as its env.

Marked ``integration``: needs benchmarl 1.5 (which pins torchrl < 0.12), imported inside the test
so that the light test run, without it, still collects this file.
"""

from __future__ import annotations

import importlib.util
import math
import re
import sys
from pathlib import Path

import pytest

from helpers import blocks_run_by, run_block

pytestmark = pytest.mark.integration
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "benchmarl_mappo.py"

FRAMES = 2000
BATCH = 500


def _example():
    # Registered in sys.modules: BenchMARL pickles the task, so its class must be importable by name.
    spec = importlib.util.spec_from_file_location("benchmarl_mappo", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules["benchmarl_mappo"] = module
    spec.loader.exec_module(module)
    return module


def _blocks(text):
    """The training page's BenchMARL blocks that hold ``text``."""
    return [block for block in blocks_run_by("tests/test_integration_benchmarl.py") if text in block[2]]


def test_the_training_pages_team_example_runs_as_written_and_prints_per_side_metrics(tmp_path):
    (page, line, code), = _blocks("GRIDGHOST_TEAM.get_task")
    assert page.name == "training.md"
    out = run_block(page, line, code, tmp_path)
    assert "{'ghost': ['ghost_0', 'ghost_1']}" in out.splitlines()
    found = re.findall(r"^team iteration (\d): ghost return (\S+)  success (\S+)  capture (\S+)  length (\S+)  "
                       r"\((\d+) games\)$", out, flags=re.M)
    rows = [tuple(map(float, row)) for row in found]
    assert [row[0] for row in rows] == [1, 2], out  # 1,000 frames in batches of 500
    for _, ghost_return, success, capture, length, games in rows:
        assert math.isfinite(ghost_return) and ghost_return != 0.0
        assert 0 <= success <= 1 and 0 <= capture <= 1 and success + capture <= 1
        assert length >= 1 and games >= 1


def test_the_training_pages_example_runs_as_written_and_prints_per_side_metrics(tmp_path):
    (page, line, code), = _blocks("GRIDGHOST.get_task")
    assert page.name == "training.md"
    out = run_block(page, line, code, tmp_path)
    found = re.findall(r"^iteration (\d): agent return (\S+)  success (\S+)  capture (\S+)  length (\S+)  "
                       r"\((\d+) games\)$", out, flags=re.M)
    rows = [tuple(map(float, row)) for row in found]
    assert [row[0] for row in rows] == [1, 2, 3, 4], out  # 2,000 frames in batches of 500; games end in each
    for _, agent_return, success, capture, length, games in rows:
        assert agent_return != 0.0 and 0 <= success <= 1 and 0 <= capture <= 1 and success + capture <= 1
        assert length >= 1 and games >= 1


def test_mappo_on_the_parallel_env(tmp_path):
    import torch

    from gridghost.integrations.benchmarl import SideMetrics
    from gridghost.integrations.metrics import EpisodeMetrics
    from gridghost.integrations.torchrl import TensorDictMetrics

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny networks on a 2-core machine
    try:
        example = _example()
        record, side_metrics = example.Recorder(), SideMetrics()
        # the reference's whole-number rewards, which the exact checks below read
        experiment = example.experiment(FRAMES, BATCH, seed=0, save_folder=str(tmp_path),
                                        callbacks=[record, side_metrics], rewards="reference")
        experiment.run()
    finally:
        torch.set_num_threads(threads)

    # The callback's numbers are each batch's finished games, read from what BenchMARL collected.
    reader, expected = TensorDictMetrics(EpisodeMetrics()), []
    for number, batch in enumerate(record.batches, 1):
        reader.metrics.clear()
        if reader.update(batch):
            expected.append({"iteration": number, "frames": number * BATCH, **reader.summary()})
    assert len(expected) >= 3 and len(side_metrics.history) == len(expected)
    for got, want in zip(side_metrics.history, expected, strict=True):
        assert got == pytest.approx(want)
    assert sum(row["episodes"] for row in expected) >= 5

    assert experiment.group_map == {"agent": ["agent"], "ghost": ["ghost"]}
    assert experiment.state_spec is not None  # the critic reads the game's global state
    assert experiment.total_frames == FRAMES
    assert [b.numel() for b in record.batches] == [BATCH] * (FRAMES // BATCH)
    assert {group for group, _ in record.losses} == {"agent", "ghost"}
    for group, losses in record.losses:
        for key in ("loss_objective", "loss_critic"):
            assert all(math.isfinite(v) for v in losses[key].tolist()), (group, key)

    data = torch.cat([b.reshape(-1) for b in record.batches])
    to_move = data["agent", "info", "to_move"].flatten()
    assert torch.equal(to_move, data["ghost", "info", "to_move"].flatten())
    for index, group in enumerate(("agent", "ghost")):
        mask = data[group, "action_mask"].squeeze(1)
        action = data[group, "action"].squeeze(1)
        # No all-zero mask (the masked sampler drew NaN from one), finite log-probabilities.
        assert mask.any(-1).all(), group
        assert torch.isfinite(data[group, "logits"][mask.unsqueeze(1)]).all(), group
        assert torch.isfinite(data[group, "log_prob"]).all(), group
        # Every action was legal; the waiting side's only legal action is the no-op 0.
        assert mask.gather(-1, action[:, None]).all(), group
        waiting = to_move != index
        assert (action[waiting] == 0).all(), group
        assert not mask[waiting][:, 1:].any(), group
        # Both sides train on the steps in which they move, with more than one legal move there.
        assert mask[~waiting].sum(-1).max() >= 2, group

    # Zero-sum at every half-turn, and BenchMARL's episode returns of the two sides sum to 0.
    r_agent = data["next", "agent", "reward"].flatten()
    r_ghost = data["next", "ghost", "reward"].flatten()
    assert torch.equal(r_agent + r_ghost, torch.zeros_like(r_agent))
    done = data["next", "done"].flatten()
    assert done.sum() >= 5, "too few finished games to check"
    ret_agent = data["next", "agent", "episode_reward"].flatten()[done]
    ret_ghost = data["next", "ghost", "episode_reward"].flatten()[done]
    assert torch.equal(ret_agent + ret_ghost, torch.zeros_like(ret_agent))
    # Every finished game is in the metrics once, with the return BenchMARL's own RewardSum counted.
    history = side_metrics.history
    assert sum(row["episodes"] for row in history) == int(done.sum())
    assert sum(row["agent_return"] * row["episodes"] for row in history) == pytest.approx(ret_agent.sum().item())
    assert (ret_agent <= 100).all()
    assert {-1.0, 0.0} <= set(r_agent.tolist())


def _minimax_table():
    """The team game's minimax agent on team_eight, as the solver's table of the joint state."""
    from gridghost.config import resolve
    from gridghost.planning import solve_game

    return solve_game(spec=resolve(layout="team_eight", ghosts=2, rewards="reference")).agent_policy


@pytest.mark.parametrize("opponent", ["random", _minimax_table], ids=["random", "solver_table"])
def test_mappo_trains_the_ghosts_alone_against_a_fixed_agent_with_the_global_state(tmp_path, opponent):
    import torch

    from gridghost.integrations.benchmarl import GridGhostTask, SideMetrics

    # a name, or the solver's state table of the agent, which the env plays from the true state
    opponent = opponent if isinstance(opponent, str) else opponent()

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        example = _example()
        record, side_metrics = example.Recorder(), SideMetrics()
        experiment = example.experiment(FRAMES, BATCH, seed=0, save_folder=str(tmp_path),
                                        callbacks=[record, side_metrics], task=GridGhostTask.GRIDGHOST_TEAM,
                                        ghosts=2, layout="team_eight", opponent=opponent, rewards="reference")
        experiment.run()
    finally:
        torch.set_num_threads(threads)

    # One group, the two ghosts; the agent is inside the env.
    assert experiment.group_map == {"ghost": ["ghost_0", "ghost_1"]}
    assert experiment.total_frames == FRAMES
    assert {group for group, _ in record.losses} == {"ghost"}
    for _, losses in record.losses:
        for key in ("loss_objective", "loss_critic"):
            assert all(math.isfinite(v) for v in losses[key].tolist()), key
    # MAPPO's critic reads the global state: the map's 5 x 7 planes (agent, walls, goals, 2 ghosts), flat.
    assert experiment.state_spec is not None and experiment.state_spec["state"].shape == (5 * 7 * 5,)
    data = torch.cat([b.reshape(-1) for b in record.batches])
    assert data["state"].shape == (FRAMES, 5 * 7 * 5) and data["state"].dtype == torch.float32
    assert data["ghost", "observation"].shape[:2] == (FRAMES, 2)
    mask, action = data["ghost", "action_mask"], data["ghost", "action"]
    assert mask.shape == (FRAMES, 2, 4) and action.shape == (FRAMES, 2)
    assert mask.gather(-1, action[..., None]).all()  # every move legal, every ghost moving every step
    assert mask.sum(-1).max() >= 2
    # Team credit: both ghosts are paid the team's reward, which the metrics' ghost_return averages.
    rewards = data["next", "ghost", "reward"].squeeze(-1)
    assert torch.equal(rewards[:, 0], rewards[:, 1])
    done = data["next", "done"].flatten()
    assert done.sum() >= 10
    history = side_metrics.history
    assert [row["iteration"] for row in history] == [1, 2, 3, 4]
    assert sum(row["episodes"] for row in history) == int(done.sum())
    returns = data["next", "ghost", "episode_reward"].squeeze(-1)[done][:, 0]
    assert sum(row["ghost_return"] * row["episodes"] for row in history) == pytest.approx(returns.sum().item())
    for row in history:
        assert "agent_return" not in row
        assert all(math.isfinite(row[key]) for key in ("ghost_return", "success_rate", "capture_rate"))
        assert row["success_rate"] + row["capture_rate"] <= 1 and 1 <= row["episode_length"] <= 100
