"""TorchRL trains both sides through its own PettingZoo wrapper, as its docs wrap tictactoe, no glue.

`examples/torchrl_ppo.py` is TorchRL's multi-agent recipe (collector, one masked PPO policy per
group). These tests hand it `PettingZooWrapper(gridghost.env(...), use_mask=True)` (the AEC env,
as TorchRL's docs wrap tictactoe_v3) and `PettingZooWrapper(gridghost.parallel_env(...),
use_mask=True)`, train a few thousand half-turns and check what the trainer saw: the number of
steps, whose turn it was, the masks, zero-sum rewards, finite losses, and the per-side metrics
read from the batches. TorchRL converts the infos without warning (no read-only arrays).

Marked ``integration``: needs torch and torchrl (0.11 or newer; written against 0.14), imported
inside the tests so that the light test run, which has neither, still collects this file.
"""

from __future__ import annotations

import importlib.util
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import gridghost

from helpers import blocks_run_by, run_block

pytestmark = pytest.mark.integration
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "torchrl_ppo.py"

FRAMES = 2048
BATCH = 512


@pytest.fixture(scope="module")
def train():
    import torch

    spec = importlib.util.spec_from_file_location("torchrl_ppo", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    # Tiny networks on a 2-core machine: intra-op threads only add contention.
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield module.train
    torch.set_num_threads(threads)


def _check_common(result, env):
    import torch

    assert env.group_map == {"agent": ["agent"], "ghost": ["ghost"]}
    assert result["frames"] == FRAMES
    assert [b.numel() for b in result["batches"]] == [BATCH] * (FRAMES // BATCH)
    data = torch.cat(result["batches"])
    for group, values in result["losses"].items():
        assert values, group
        assert all(math.isfinite(v) for v in values), group
    # The env's numeric infos arrive as tensors, one fixed key set for both sides.
    assert set(data["agent", "info"].keys()) == set(data["ghost", "info"].keys())
    to_move = data["agent", "info", "to_move"].squeeze(-1)
    assert torch.equal(to_move, data["ghost", "info", "to_move"].squeeze(-1))
    for group in ("agent", "ghost"):
        mask = data[group, "action_mask"].squeeze(1)
        action = data[group, "action"].squeeze(1)
        assert mask.any(-1).all(), f"{group}: an all-zero action mask"
        assert torch.isfinite(data[group, "action_log_prob"]).all(), group
        side_moves = to_move == (0 if group == "agent" else 1)
        # The side to move chose a move its mask allowed.
        assert mask[side_moves].gather(-1, action[side_moves, None]).all(), group
    # Zero-sum, half-turn by half-turn (TorchRL reads both sides' rewards at every step) and so
    # over every episode.
    r_agent = data["next", "agent", "reward"].flatten()
    r_ghost = data["next", "ghost", "reward"].flatten()
    assert torch.equal(r_agent + r_ghost, torch.zeros_like(r_agent))
    done = data["next", "done"].flatten()
    assert done.sum() >= 5, "too few finished games to check"
    episode, returns = 0.0, []
    for reward, end in zip(r_agent.tolist(), done.tolist(), strict=True):
        episode += reward
        if end:
            returns.append(episode)
            episode = 0.0
    # A game ends on a catch (-50 for that half-turn), a goal (+100) or the 100-cycle limit.
    assert all(-51 * 100 <= g <= 100 for g in returns)
    _check_metrics(result["batches"], r_agent, done, to_move, returns)
    # Agent's half-turns pay it -1, +100 (goal) or -50 (stepped onto the ghost); the ghost's pay
    # the agent 0 or -50 (caught).
    agent_moved = to_move == 0
    assert set(r_agent[agent_moved].tolist()) <= {-1.0, 100.0, -50.0}
    assert set(r_agent[~agent_moved].tolist()) <= {0.0, -50.0}
    assert {-1.0, 0.0} <= set(r_agent.tolist())
    return data, to_move


def _check_metrics(batches, r_agent, done, to_move, returns):
    """The per-side metrics read batch by batch match each game as the rewards tell it."""
    from gridghost.integrations.torchrl import TensorDictMetrics

    reader = TensorDictMetrics()
    assert sum(reader.update(batch) for batch in batches) == len(returns)
    ends = done.nonzero().flatten().tolist()
    last_reward = r_agent[ends].tolist()  # a goal pays the agent +100 in the game's last half-turn, a catch -50
    starts = [0, *(end + 1 for end in ends[:-1])]
    moves = [int((to_move[a:b + 1] == 0).sum()) for a, b in zip(starts, ends, strict=True)]
    summary = reader.summary()
    assert summary["episodes"] == len(returns)
    assert summary["agent_return"] == pytest.approx(sum(returns) / len(returns))
    assert summary["success_rate"] == pytest.approx(last_reward.count(100.0) / len(returns))
    assert summary["capture_rate"] == pytest.approx(last_reward.count(-50.0) / len(returns))
    assert summary["episode_length"] == pytest.approx(sum(moves) / len(moves))
    assert 0 < summary["success_rate"] + summary["capture_rate"] <= 1


#: Wraps the AEC and the parallel env and steps each, in a fresh process: torch warns once per process.
_NO_WARNING = """
import warnings
import gridghost
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for make in (gridghost.env, gridghost.parallel_env):
        env = PettingZooWrapper(make(obs_type="vector"), use_mask=True)
        env.set_seed(0)
        env.rollout(60, break_when_any_done=False)
print([str(w.message)[:60] for w in caught if "not writable" in str(w.message)])
"""


def test_torchrl_takes_the_infos_without_a_read_only_warning():
    out = subprocess.run([sys.executable, "-c", _NO_WARNING], capture_output=True, text=True, timeout=300, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_ppo_on_the_aec_env(train):
    """TorchRL's documented way for a turn-based PettingZoo game: the AEC env with use_mask=True."""
    import torch
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    env = PettingZooWrapper(gridghost.env(obs_type="vector"), use_mask=True)
    result = train(env, total_frames=FRAMES, frames_per_batch=BATCH, seed=0)
    data, to_move = _check_common(result, env)
    agent_mask = data["agent", "mask"].flatten()
    ghost_mask = data["ghost", "mask"].flatten()
    # TorchRL's "mask": exactly one side moves at each step, the one the env names.
    assert torch.equal(agent_mask, ~ghost_mask)
    assert torch.equal(agent_mask, to_move == 0)
    # Turns alternate within a game, and every game opens with the agent's move.
    starts = torch.cat([torch.tensor([True]), data["next", "done"].flatten()[:-1]])
    assert agent_mask[starts].all()
    inner = ~starts[1:]
    assert torch.equal(agent_mask[1:][inner], ~agent_mask[:-1][inner])
    # Each side trained on its own half-turns only: about half the batch each.
    for group in ("agent", "ghost"):
        moved = data[group, "mask"].sum().item()
        assert 0.4 * FRAMES <= moved <= 0.6 * FRAMES, group


def test_ppo_on_the_parallel_env(train):
    """The parallel view: both sides act every step; the waiting side's only legal action is 0."""
    import torch
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    env = PettingZooWrapper(gridghost.parallel_env(obs_type="vector"), use_mask=True)
    result = train(env, total_frames=FRAMES, frames_per_batch=BATCH, seed=1)
    data, to_move = _check_common(result, env)
    # The parallel view says whose turn it is in the observation's last slot, too.
    for index, group in enumerate(("agent", "ghost")):
        waiting = to_move != index
        mask = data[group, "action_mask"].squeeze(1)
        assert torch.equal(mask[waiting], torch.tensor([True, False, False, False]).expand_as(mask[waiting]))
        assert (data[group, "action"].squeeze(1)[waiting] == 0).all(), group
        assert torch.equal(data[group, "observation"][:, 0, -1], (to_move == index).float())


#: The PPO updates the example's loop makes for a group that acts at every step: 4 epochs of
#: minibatches of 128 over each batch of BATCH steps.
EVERY_STEP_UPDATES = 4 * math.ceil(BATCH / 128) * (FRAMES // BATCH)


TEAM = dict(ghosts=2, layout="team_eight", obs_type="vector")


def test_ppo_on_a_teams_parallel_env(train):
    """A group of k ghosts: its mask is [steps, k]. On a parallel env every agent acts at every
    step (TorchRL's mask is all True; the waiting side sends its one legal move, the no-op), so
    the loop trains both groups on every step; the waiting steps teach only the critic."""
    import torch
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    env = PettingZooWrapper(gridghost.parallel_env(**TEAM), use_mask=True)
    assert env.group_map == {"agent": ["agent"], "ghost": ["ghost_0", "ghost_1"]}
    result = train(env, total_frames=FRAMES, frames_per_batch=BATCH, seed=2)
    data = torch.cat(result["batches"])
    assert data["ghost", "mask"].shape == (FRAMES, 2)
    for group in ("agent", "ghost"):
        assert data[group, "mask"].all(), group
        assert len(result["losses"][group]) == EVERY_STEP_UPDATES, group
        assert all(math.isfinite(v) for v in result["losses"][group]), group
    team_moves = data["ghost", "info", "to_move"][:, 0] == 1
    assert 0.4 * FRAMES <= team_moves.sum() <= 0.6 * FRAMES
    mask, action = data["ghost", "action_mask"], data["ghost", "action"]
    assert mask.gather(-1, action[..., None]).all()  # every action legal: a move, or the waiting no-op
    assert (action[~team_moves] == 0).all() and mask[team_moves].sum(-1).max() >= 2


def test_ppo_on_the_ghosts_alone_against_a_fixed_agent(train):
    """``parallel_env(controlled="ghosts")``: one group, every ghost moving at every step."""
    import torch
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    from gridghost.integrations.torchrl import TensorDictMetrics

    env = PettingZooWrapper(gridghost.parallel_env(controlled="ghosts", opponent="random", rewards="reference",
                                                   **TEAM), use_mask=True)
    assert env.group_map == {"ghost": ["ghost_0", "ghost_1"]}
    result = train(env, total_frames=FRAMES, frames_per_batch=BATCH, seed=3)
    data = torch.cat(result["batches"])
    assert data["ghost", "observation"].shape == (FRAMES, 2, 30) and data["ghost", "mask"].all()
    assert len(result["losses"]["ghost"]) == EVERY_STEP_UPDATES
    assert all(math.isfinite(v) for v in result["losses"]["ghost"])
    # Per-side metrics of the ghosts alone: the ghosts' return (the same for both, team credit).
    rewards = data["next", "ghost", "reward"].squeeze(-1)
    assert torch.equal(rewards[:, 0], rewards[:, 1])
    done = data["next", "done"].flatten()
    reader = TensorDictMetrics()
    assert sum(reader.update(batch) for batch in result["batches"]) == int(done.sum()) >= 10
    ends = done.nonzero().flatten().tolist()
    starts = [0, *(end + 1 for end in ends[:-1])]
    returns = [rewards[a:b + 1, 0].sum().item() for a, b in zip(starts, ends, strict=True)]
    summary = reader.summary()
    assert summary["ghost_return"] == pytest.approx(sum(returns) / len(returns)) and "agent_return" not in summary
    assert summary["episode_length"] == pytest.approx(sum(b - a + 1 for a, b in zip(starts, ends, strict=True))
                                                      / len(ends))
    assert 0 < summary["success_rate"] + summary["capture_rate"] <= 1


def test_the_training_pages_team_example_runs_as_written(tmp_path):
    (page, line, code), = blocks_run_by("tests/test_integration_torchrl.py")
    assert page.name == "training.md"
    (tmp_path / "examples").mkdir()  # the block runs from the repository's root
    shutil.copy(EXAMPLE, tmp_path / "examples")
    out = run_block(page, line, code, tmp_path)
    assert out.splitlines()[-1] == "{'ghost': ['ghost_0', 'ghost_1']} 1024 team steps"
