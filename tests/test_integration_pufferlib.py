"""PufferLib's emulation layer and vectorization over gridghost, with no line of glue; the training
page's PufferLib example runs as written and prints per-side metrics.

``pufferlib.emulation.PettingZooPufferEnv(env_creator=gridghost.parallel_env, ...)`` and
``GymnasiumPufferEnv(env_creator=gymnasium.make, ...)`` are handed to ``pufferlib.vector.make``
exactly as PufferLib's docs hand any PettingZoo parallel or Gymnasium env.

PufferLib's own trainer (``pufferlib.pufferl``) cannot run on a CPU build of torch from PyPI:
the ``pufferlib`` sdists download raylib/box2d from GitHub while building (and pin gymnasium<=0.29.1,
pettingzoo<=1.24.1), and the ``pufferlib-core`` wheels' ``pufferlib._C`` links the CUDA libraries
of torch. So the training test drives the vector env with PufferLib's ``models.Default`` policy and
``pytorch.sample_logits`` under a short PPO update written here (the shape of PufferLib's
clean_pufferl loop), and checks what the emulation and vectorization deliver.
"""

import functools
import re

import gymnasium
import numpy as np
import pytest

import gridghost
from gridghost.sensing.observations import GRID_CHANNELS

from helpers import blocks_run_by, run_block

pytestmark = pytest.mark.integration

GAMES = 4
HORIZON = 64
ITERATIONS = 8  # 8 x 64 vector steps x 8 agent slots = 4,096 agent steps
# `"grid"`, not `"vector"`: one shared policy needs the is_ghost plane to know which side it plays.
IS_GHOST, TO_MOVE = (GRID_CHANNELS.index(name) for name in ("is_ghost", "to_move"))


# PufferLib and torch are imported in the tests (as in test_integrations.py), so that the light
# test run collects this file without them.


def parallel_creator(**kw):
    import pufferlib.emulation

    return functools.partial(pufferlib.emulation.PettingZooPufferEnv, env_creator=gridghost.parallel_env, env_kwargs=kw)


def gymnasium_creator(**kw):
    import pufferlib.emulation

    # Gymnasium's "module:id" form: a worker that was spawned, not forked, has not imported
    # gridghost (TorchRL, imported by another test, makes "spawn" the start method).
    return functools.partial(
        pufferlib.emulation.GymnasiumPufferEnv,
        env_creator=gymnasium.make,
        env_args=["gridghost:gridghost/GridGhost-v1"],
        env_kwargs=kw,
    )


def ppo_selfplay(seed=0):
    import pufferlib.models
    import pufferlib.pytorch
    import pufferlib.vector
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(1)
    vecenv = pufferlib.vector.make(
        parallel_creator(obs_type="grid"), num_envs=GAMES, backend=pufferlib.vector.Serial, seed=seed
    )
    policy = pufferlib.models.Default(vecenv.driver_env, hidden_size=64)
    optimizer = torch.optim.Adam(policy.parameters(), lr=3e-4)
    n = vecenv.num_agents
    obs, _ = vecenv.reset(seed=seed)
    returns, episodes, losses, turn_errors, over = np.zeros(n), [], [], 0, np.zeros(n)
    for _ in range(ITERATIONS):
        buf = {k: [] for k in ("obs", "act", "logp", "val", "rew", "done")}
        for _ in range(HORIZON):
            # One shared policy; the observation says which side it plays and whose turn it is.
            # (After a game ends, PufferLib shows its last observation for one step, the actions of
            # that step are dropped, and the next observation is the new game's. In the last
            # observation of a game won or lost, nobody is to move; of a game cut short, the mover.)
            turn_errors += int((obs[0::2, IS_GHOST] != 0).any() or (obs[1::2, IS_GHOST] != 1).any())
            to_move = obs[0::2, TO_MOVE].max((1, 2)) + obs[1::2, TO_MOVE].max((1, 2))
            turn_errors += int((to_move != 1 - over[0::2]).any())
            with torch.no_grad():
                logits, value = policy(torch.as_tensor(obs))
                action, logp, _ = pufferlib.pytorch.sample_logits(logits)
            buf["obs"].append(torch.as_tensor(obs).clone())
            obs, rew, term, trunc, _ = vecenv.step(action.numpy().astype(np.int32))
            done = np.logical_or(term, trunc)
            ended, over = done.astype(float), term.astype(float)
            returns += rew
            for g in range(GAMES):
                a, h = 2 * g, 2 * g + 1
                assert done[a] == done[h]
                if done[a]:
                    episodes.append((returns[a], returns[h]))
                    returns[[a, h]] = 0
            for k, v in (("act", action), ("logp", logp), ("val", value.flatten()), ("rew", rew), ("done", ended)):
                buf[k].append(torch.as_tensor(v, dtype=torch.float32).clone())
        with torch.no_grad():
            next_value = policy(torch.as_tensor(obs))[1].flatten()
        b = {k: torch.stack(v) for k, v in buf.items()}
        adv, last = torch.zeros_like(b["rew"]), torch.zeros(n)
        for t in reversed(range(HORIZON)):
            nv = next_value if t == HORIZON - 1 else b["val"][t + 1]
            delta = b["rew"][t] / 100 + 0.99 * nv * (1 - b["done"][t]) - b["val"][t]
            last = delta + 0.99 * 0.95 * (1 - b["done"][t]) * last
            adv[t] = last
        ret = (adv + b["val"]).flatten()
        flat_obs, flat_act, old_logp = b["obs"].flatten(0, 1), b["act"].flatten(), b["logp"].flatten()
        flat_adv = adv.flatten()
        flat_adv = (flat_adv - flat_adv.mean()) / (flat_adv.std() + 1e-8)
        for _ in range(4):
            logits, value = policy(flat_obs)
            _, logp, entropy = pufferlib.pytorch.sample_logits(logits, action=flat_act.long())
            ratio = (logp - old_logp).exp()
            pg = -torch.min(ratio * flat_adv, ratio.clamp(0.8, 1.2) * flat_adv).mean()
            loss = pg + 0.5 * ((value.flatten() - ret) ** 2).mean() - 0.01 * entropy.mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    vecenv.close()
    return np.array(episodes), np.array(losses), turn_errors, n


def test_pufferlib_emulation_trains_one_policy_for_both_sides():
    episodes, losses, turn_errors, n = ppo_selfplay()
    assert n == 2 * GAMES  # the emulation gives each game one slot per side, agent first
    assert np.isfinite(losses).all() and len(losses) == 4 * ITERATIONS
    assert turn_errors == 0
    assert len(episodes) >= 20
    # Zero-sum through PufferLib's reward buffers: each game's two returns cancel exactly.
    np.testing.assert_array_equal(episodes[:, 0] + episodes[:, 1], 0)
    assert (episodes[:, 0] <= 100).all() and (episodes[:, 0] >= -150).all()
    again, again_losses, _, _ = ppo_selfplay()
    np.testing.assert_array_equal(again, episodes)
    np.testing.assert_array_equal(again_losses, losses)


@pytest.mark.parametrize(
    "make_creator, kw",
    [
        (parallel_creator, dict(obs_type="grid")),
        (parallel_creator, dict(obs_type="vector", action_mask_in_obs=True)),
        (gymnasium_creator, dict(controlled="ghost", obs_type="vector")),
    ],
    ids=["parallel-grid", "parallel-masked-dict", "gymnasium-ghost"],
)
def test_serial_and_multiprocessing_deliver_the_same_games(make_creator, kw):
    import pufferlib.vector

    creator = make_creator(**kw)
    runs = []
    for backend, extra in ((pufferlib.vector.Serial, {}), (pufferlib.vector.Multiprocessing, {"num_workers": 2})):
        vecenv = pufferlib.vector.make(creator, num_envs=2, backend=backend, seed=3, **extra)
        actions = np.random.default_rng(0).integers(0, 4, size=(300, vecenv.num_agents), dtype=np.int32)
        obs, _ = vecenv.reset(seed=3)
        trace = [obs.copy()]
        dones = 0
        for act in actions:
            obs, rew, term, trunc, _ = vecenv.step(act)
            trace += [obs.copy(), rew.copy(), term.copy(), trunc.copy()]
            dones += int(np.logical_or(term, trunc).sum())
        vecenv.close()
        assert dones > 0
        runs.append(trace)
    for a, b in zip(*runs, strict=True):
        np.testing.assert_array_equal(a, b)


def test_action_masks_survive_the_emulation():
    """`action_mask_in_obs=True` is a Dict; PufferLib packs it into bytes and its nativize gives it back."""
    import pufferlib.pytorch
    import pufferlib.vector
    import torch

    vecenv = pufferlib.vector.make(
        parallel_creator(obs_type="vector", action_mask_in_obs=True), num_envs=2, backend=pufferlib.vector.Serial
    )
    dtype = pufferlib.pytorch.nativize_dtype(vecenv.driver_env.emulated)
    obs, _ = vecenv.reset(seed=5)
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(200):
        native = pufferlib.pytorch.nativize_tensor(torch.as_tensor(obs), dtype)
        mask = native["action_mask"].numpy()
        mover = native["observation"][:, -1].numpy() == 1  # the parallel view's last slot: to move
        if mover.reshape(-1, 2).sum(1).min() == 1:  # (not the last observation of a finished game)
            assert (mask[~mover] == [1, 0, 0, 0]).all()  # the waiting side: only the no-op
            assert (mask[mover].sum(1) >= 1).all()
            checked += 1
        # A masked sampler: the mover picks a legal move, the waiting side its no-op.
        action = np.array([rng.choice(np.flatnonzero(m)) for m in mask], dtype=np.int32)
        obs, *_ = vecenv.step(action)
    vecenv.close()
    assert checked >= 150


def test_the_training_pages_example_runs_as_written_and_prints_per_side_metrics(tmp_path):
    (page, line, code), = blocks_run_by("tests/test_integration_pufferlib.py")
    assert page.name == "training.md"
    assert "backend=pufferlib.vector.Serial" in code and "vecenv.close()" in code
    out = run_block(page, line, code, tmp_path, timeout=300)  # a script that hangs at exit fails here
    found = re.fullmatch(r"agent return (\S+)  success (\S+)  capture (\S+)  length (\S+)  \((\d+) games\)\n", out)
    assert found, out
    agent_return, success, capture, length, games = map(float, found.groups())
    # 2,000 steps of 4 games, random moves: many games, most of them decided before the step limit.
    assert games >= 50 and agent_return != 0.0 and 0 <= success <= 1 and 0 <= capture <= 1
    assert 0.5 <= success + capture <= 1 and 1 <= length <= 100


def test_the_default_backend_wants_a_native_env_as_the_page_says():
    """Why the page names a backend: PufferLib's default refuses a Python env (any, not only gridghost)."""
    import pufferlib
    import pufferlib.vector

    with pytest.raises(pufferlib.APIUsageError, match="Native vectorization requires a native PufferEnv"):
        pufferlib.vector.make(parallel_creator(obs_type="grid"), num_envs=2)


def test_episode_tracker_reads_pufferlibs_infos_exactly():
    """The page's EpisodeTracker.step over PufferLib's per-game infos counts each game as it was played."""
    import pufferlib.vector

    from gridghost.integrations.metrics import EpisodeTracker

    vecenv = pufferlib.vector.make(parallel_creator(obs_type="grid"), num_envs=GAMES, backend=pufferlib.vector.Serial)
    tracker = EpisodeTracker()
    rng = np.random.default_rng(2)
    vecenv.reset(seed=2)
    returns, moves, games = np.zeros(GAMES), np.zeros(GAMES, dtype=int), []
    for _ in range(600):
        _, rewards, terminals, truncations, infos = vecenv.step(rng.integers(0, 4, vecenv.num_agents, dtype=np.int32))
        agent_infos = [info["agent"] for info in infos]
        tracker.step(rewards[0::2], (terminals | truncations)[0::2], agent_infos)
        returns += rewards[0::2]
        moves += [info["mover"] == 0 for info in agent_infos]
        for game in np.flatnonzero((terminals | truncations)[0::2]):
            info = agent_infos[game]
            games.append((returns[game], info["reached_goal"], info["caught_by_ghost"], moves[game]))
            returns[game], moves[game] = 0.0, 0
    vecenv.close()
    assert len(games) >= 20 and tracker.metrics.episodes == len(games)
    summary = tracker.metrics.summary()
    assert summary["agent_return"] == pytest.approx(np.mean([g[0] for g in games]))
    assert summary["success_rate"] == pytest.approx(np.mean([g[1] for g in games]))
    assert summary["capture_rate"] == pytest.approx(np.mean([g[2] for g in games]))
    assert summary["episode_length"] == pytest.approx(np.mean([g[3] for g in games]))
