"""stable-baselines3 on the batched engine through :class:`gridghost.integrations.sb3.SB3VecEnv`.

What is checked: the adapter is the ``VecEnv`` SB3 expects (its spaces pass SB3's own checks,
its observations lie in them and hold no NaN under ``VecCheckNan``, a seed fixes its runs, bad
calls are refused); the episode infos equal the sums of the rewards it returned and agree with
``VecMonitor``'s and with the final rewards; PPO and sb3-contrib's MaskablePPO learn on it for
a few thousand steps, filling ``ep_info_buffer`` with episodes of the right lengths.

Marked ``integration``: needs stable-baselines3 (and sb3-contrib) with torch.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import gridghost
from gridghost.batched import GridGhostVectorEnv
from gridghost.maps import MapGenerator, level_split

pytestmark = pytest.mark.integration

# The light suite collects this file and deselects it (-m 'not integration') without the sb3 extra;
# where the tests run, a missing extra fails them (the fixture below) rather than skipping.
try:
    import sb3_contrib
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_checker import _check_obs, _check_unsupported_spaces
    from stable_baselines3.common.utils import check_for_correct_spaces
    from stable_baselines3.common.vec_env import VecCheckNan, VecEnv, VecMonitor

    from gridghost.integrations.sb3 import MovePlanes, SB3VecEnv
except ImportError as error:
    MISSING: ImportError | None = error
else:
    MISSING = None


@pytest.fixture(autouse=True)
def _the_sb3_extra_is_installed() -> None:
    if MISSING is not None:
        pytest.fail(f"the integration tests need the sb3 extra (stable-baselines3, sb3-contrib): {MISSING}")

LEVELS = MapGenerator(6, 6, num_levels=16)


def _env(**kwargs) -> SB3VecEnv:
    return SB3VecEnv(num_envs=8, layout=LEVELS, max_episode_steps=20, **kwargs)


@pytest.mark.parametrize("settings", [dict(obs_type="vector"), dict(obs_type="grid", view_radius=2),
                                      dict(obs_type="grid", controlled="ghost")])
def test_the_adapter_is_the_vec_env_sb3_expects(settings: dict) -> None:
    env = _env(**settings)
    assert isinstance(env, VecEnv) and env.num_envs == 8 and env.render_mode is None
    assert not _check_unsupported_spaces(env, env.observation_space, env.action_space)  # no warning raised
    check_for_correct_spaces(env, env.observation_space, env.action_space)
    checked = VecCheckNan(env, raise_exception=True)
    env.seed(7)
    first = checked.reset()
    assert first.shape == (8, *env.observation_space.shape)
    rng = np.random.default_rng(0)
    dones_seen = 0
    for _ in range(60):
        checked.step_async(rng.integers(0, 4, size=8))
        observations, rewards, dones, infos = checked.step_wait()
        assert rewards.dtype == np.float32 and dones.dtype == bool and len(infos) == 8
        for row in observations:
            _check_obs(row, env.observation_space, "step")
        for done, info in zip(dones, infos, strict=True):
            assert set(info) == ({"terminal_observation", "TimeLimit.truncated", "episode", "is_success"}
                                 if done else set())
            if done:
                assert env.observation_space.contains(info["terminal_observation"])
        dones_seen += int(dones.sum())
    assert dones_seen > 8
    masks = np.stack(env.env_method("action_masks"))
    assert masks.shape == (8, 4) and masks.dtype == bool and masks.any(axis=1).all()
    assert env.has_attr("action_masks") and env.env_is_wrapped(VecMonitor) == [False] * 8
    assert env.get_attr("num_envs", indices=[1, 2]) == [8, 8]
    env.close()


def test_a_seed_fixes_the_runs_and_seeds_matter() -> None:
    def run(seed: int) -> list:
        env = _env()
        env.seed(seed)
        trace = [env.reset()]
        for action in np.random.default_rng(1).integers(0, 4, size=(30, 8)):
            trace.extend(env.step(action)[:3])
        return trace

    same, other = run(3), run(3)
    assert all(np.array_equal(a, b) for a, b in zip(same, other, strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(same, run(4), strict=True))


@pytest.mark.parametrize("controlled", ["agent", "ghost"])
def test_episode_infos_are_the_sums_of_the_rewards_returned(controlled: str) -> None:
    # the reference's rewards, whose goal and capture rewards the success check below reads
    env = _env(controlled=controlled, rewards="reference")
    monitored = VecMonitor(_env(controlled=controlled, rewards="reference"))
    env.seed(5)
    monitored.seed(5)
    env.reset()
    monitored.reset()
    returns, lengths = np.zeros(8), np.zeros(8, dtype=int)
    rng = np.random.default_rng(2)
    ended = wins = 0
    for _ in range(200):
        actions = rng.integers(0, 4, size=8)
        _, rewards, dones, infos = env.step(actions)
        _, _, _, watched = monitored.step(actions)
        returns += rewards
        lengths += 1
        for game in np.flatnonzero(dones):
            episode = infos[game]["episode"]
            assert math.isclose(episode["r"], returns[game]) and episode["l"] == lengths[game]
            # VecMonitor, which sums the same rewards itself, writes over the adapter's own episode
            assert watched[game]["episode"]["r"] == episode["r"] and watched[game]["episode"]["l"] == episode["l"]
            won = rewards[game] >= (99 if controlled == "agent" else 50)  # +100 at a goal; +50/+51 a capture
            assert infos[game]["is_success"] == bool(won and not infos[game]["TimeLimit.truncated"])
            ended += 1
            wins += infos[game]["is_success"]
        returns[dones], lengths[dones] = 0.0, 0
    assert ended > 40 and 0 < wins < ended


@pytest.mark.parametrize(("arguments", "error", "match"), [
    (dict(autoreset_mode="next_step"), ValueError, "autoreset_mode"),
    (dict(env=GridGhostVectorEnv(2, obs_type="vector")), ValueError, "SAME_STEP"),
    (dict(env=GridGhostVectorEnv(2, obs_type="vector", autoreset_mode=AutoresetMode.SAME_STEP), num_envs=2),
     TypeError, "not both"),
    (dict(env="gridghost"), TypeError, "GridGhostVectorEnv"),
])
def test_bad_arguments_are_refused(arguments: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        SB3VecEnv(**arguments)


def test_bad_calls_are_refused() -> None:
    env = _env()
    env.reset()
    with pytest.raises(ValueError, match="does not render"):
        env.render()
    with pytest.raises(ValueError, match="indices"):
        env.set_attr("copy", True, indices=[0])
    with pytest.raises(ValueError, match="reset options"):
        env.set_options({"reset_mask": np.ones(8, dtype=bool)})
    with pytest.raises(ValueError, match="seed must be None or an int >= 0"):
        env.seed(-1)
    with pytest.raises(TypeError, match="seed must be None or an int >= 0"):
        env.seed(1.5)
    with pytest.raises(RuntimeError, match="step_async"):
        env.step_wait()
    with pytest.raises(ValueError, match=r"0\.\.3"):
        env.step(np.full(8, 7))
    with pytest.raises(AttributeError):
        env.get_attr("no_such_thing")


@pytest.mark.parametrize("shape", [(1, 8), (2, 4), (8, 2)])
def test_an_action_batch_of_another_shape_is_refused_not_reshaped(shape: tuple[int, ...]) -> None:
    # (1, 8) and (2, 4) hold one action per game but in another layout; (8, 2) two per game
    env, twin = _env(), _env()
    env.seed(5), twin.seed(5)
    env.reset(), twin.reset()
    with pytest.raises(ValueError, match=rf"actions must have shape \(8,\) or \(8, 1\).*got shape "
                                         rf"{re.escape(str(shape))}"):
        env.step(np.zeros(shape, np.int64))
    actions = np.arange(8) % 4  # nothing was stepped: the next step is the twin's first
    np.testing.assert_array_equal(env.step(actions)[0], twin.step(actions)[0])


def test_an_action_column_steps_as_its_row() -> None:
    rows, columns = _env(), _env()
    rows.seed(3), columns.seed(3)
    rows.reset(), columns.reset()
    actions = np.random.default_rng(3).integers(4, size=(20, 8))
    for row in actions:
        observations, rewards, dones, _ = rows.step(row)
        column_observations, column_rewards, column_dones, _ = columns.step(row.reshape(8, 1))
        np.testing.assert_array_equal(column_observations, observations)
        np.testing.assert_array_equal(column_rewards, rewards)
        np.testing.assert_array_equal(column_dones, dones)


def test_a_learning_team_steps_with_its_multidiscrete_moves_and_ppo_trains_it() -> None:
    # the adapter advertised MultiDiscrete([4, 4]) yet refused the [N, 2] moves SB3 sends
    env = SB3VecEnv(num_envs=8, controlled="ghosts", ghosts=2, layout="team_eight", opponent="minimax")
    twin = GridGhostVectorEnv(num_envs=8, controlled="ghosts", ghosts=2, layout="team_eight", opponent="minimax",
                              autoreset_mode=AutoresetMode.SAME_STEP, **gridghost.config.TRAINER_DEFAULTS)
    assert env.action_space == twin.single_action_space
    env.seed(4)
    observations = env.reset()
    np.testing.assert_array_equal(observations, twin.reset(seed=[4 + i for i in range(8)])[0])
    moves = np.random.default_rng(4).integers(4, size=(8, 2))
    mine, theirs = env.step(moves), twin.step(moves)
    np.testing.assert_array_equal(mine[0], theirs[0])
    np.testing.assert_array_equal(mine[1], theirs[1].astype(np.float32))  # SB3 takes float32 rewards
    with pytest.raises(ValueError, match=r"shape \(8, 2\)"):
        env.step(np.zeros((8, 3), np.int64))
    model = PPO("MlpPolicy", env, n_steps=64, batch_size=256, n_epochs=2, seed=0, device="cpu")
    model.learn(1024)
    assert model.num_timesteps >= 1024 and model.ep_info_buffer


def test_ppo_learns_on_the_batch_and_logs_its_episodes() -> None:
    env = SB3VecEnv(num_envs=16, obs_type="vector", layout=LEVELS, max_episode_steps=30)
    model = PPO("MlpPolicy", env, n_steps=64, batch_size=256, n_epochs=2, seed=0, device="cpu")
    model.learn(4096)
    assert model.num_timesteps >= 4096
    lengths = [episode["l"] for episode in model.ep_info_buffer]
    assert len(lengths) >= 50 and all(1 <= length <= 30 for length in lengths)
    assert len(model.ep_success_buffer) == len(model.ep_info_buffer)  # is_success with every episode
    values = model.logger.name_to_value
    assert math.isfinite(values["train/loss"]) and math.isfinite(values["train/value_loss"])


def test_maskable_ppo_reads_the_masks() -> None:
    env = SB3VecEnv(num_envs=8, obs_type="grid", view_radius=2, layout=LEVELS, max_episode_steps=30)
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=128, n_epochs=1, seed=0, device="cpu")
    model.learn(1024)
    observations = env.reset()
    masks = env.action_masks()
    actions, _ = model.predict(observations, action_masks=masks)
    assert masks[np.arange(8), actions].all()  # only moves that change the cell
    assert len(model.ep_info_buffer) > 0


def test_move_planes_keeps_the_planes_that_decide_a_move() -> None:
    from gymnasium import spaces

    from gridghost.sensing.observations import MOVE_PLANES, grid_channels

    for radius in (None, 2):
        channels = grid_channels(radius)
        env = _env(obs_type="grid", view_radius=radius)
        extractor = MovePlanes(env.observation_space)
        kept = [name for name in MOVE_PLANES if name in channels]
        assert extractor.planes == tuple(kept) and ("out_of_map" in kept) == (radius is not None)
        observations = env.reset()
        features = extractor(torch.as_tensor(observations)).numpy()
        expected = observations[:, [channels.index(name) for name in kept]].reshape(len(observations), -1)
        np.testing.assert_array_equal(features, expected)
    box = spaces.Box(0, 1, shape=(5, 6, 6))
    with pytest.raises(ValueError, match="pass channels=grid_channels"):
        MovePlanes(box)
    with pytest.raises(ValueError, match="planes must be distinct names of the grid's channels"):
        MovePlanes(_env(obs_type="grid").observation_space, planes=["lava"])
    model = PPO("MlpPolicy", _env(obs_type="grid", view_radius=5), n_steps=32, batch_size=64, n_epochs=1, seed=0,
                device="cpu", policy_kwargs={"features_extractor_class": MovePlanes})
    assert model.policy.features_extractor.features_dim == len(MOVE_PLANES) * 11 * 11


@pytest.mark.parametrize(("radius", "grid_layout"), [(None, "hwc"), (2, "hwc"), (7, "hwc"), (7, "chw")])
def test_move_planes_reads_the_channel_axis_of_either_grid_layout(radius: int | None, grid_layout: str) -> None:
    """With view_radius=7 and grid_layout='hwc' the shape (15, 15, 16) was read channels
    first, the window's rows taken for the wall, goal and opponent planes, and nothing was refused."""
    from gridghost.sensing.observations import MOVE_PLANES, grid_channels

    env = _env(obs_type="grid", view_radius=radius, grid_layout=grid_layout)
    shape = env.observation_space.shape
    if radius == 7:  # (15, 15, 16) or (16, 15, 15): either reading fits, so the layout must be said
        with pytest.raises(ValueError, match=r"reads as a channels-first grid and as a channels-last one: pass the "
                                             r"env's grid_layout"):
            MovePlanes(env.observation_space)
        extractor = MovePlanes(env.observation_space, grid_layout=grid_layout)
    else:  # only one reading fits: it is found, and the other refused
        extractor = MovePlanes(env.observation_space)
        assert extractor.grid_layout == grid_layout
        other = "chw" if grid_layout == "hwc" else "hwc"
        with pytest.raises(ValueError, match=f"with grid_layout='{other}' the channels are axis"):
            MovePlanes(env.observation_space, grid_layout=other)
    channels = grid_channels(radius)
    kept = [name for name in MOVE_PLANES if name in channels]
    observations = env.reset()
    features = extractor(torch.as_tensor(observations)).numpy()
    first = observations if grid_layout == "chw" else np.moveaxis(observations, -1, 1)
    planes = first[:, [channels.index(name) for name in kept]]  # [n, planes, H, W]
    expected = planes if grid_layout == "chw" else np.moveaxis(planes, 1, -1)
    np.testing.assert_array_equal(features, expected.reshape(len(observations), -1))
    assert extractor.features_dim == len(kept) * int(np.prod(shape)) // len(channels)


def test_move_planes_refuses_a_bad_grid_layout_and_channels_of_another_length() -> None:
    from gymnasium import spaces

    from gridghost.sensing.observations import grid_channels

    space = _env(obs_type="grid", view_radius=2).observation_space
    with pytest.raises(ValueError, match=r"unknown grid_layout 'nhwc'; accepted: None or one of \['chw', 'hwc'\]"):
        MovePlanes(space, grid_layout="nhwc")
    # channels given: their count must be the channel axis's length (it was never compared)
    with pytest.raises(ValueError, match=r"MovePlanes reads a grid of \[17\] channels"):
        MovePlanes(space, channels=grid_channels(2, append_step_count=True))
    with pytest.raises(ValueError, match="of 3 axes"):
        MovePlanes(spaces.Box(0, 1, shape=(16, 25)))
    with pytest.raises(ValueError, match="planes must be distinct names"):  # was kept twice, silently
        MovePlanes(space, planes=["goal", "goal"])


def test_the_baselines_script_trains_scores_and_writes_its_results(tmp_path) -> None:
    import json
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    out = tmp_path / "baselines.json"
    command = [sys.executable, str(root / "benchmarks" / "baselines.py"), "--difficulties", "0", "--opponents",
               "chase", "--seeds", "0", "--steps", "8192", "--train-levels", "3", "--test-levels", "3",
               "--curve-points", "2", "--out", str(out), "--figure", "none"]
    printed = subprocess.run(command, capture_output=True, text=True, check=True, cwd=tmp_path).stdout
    results = json.loads(out.read_text())
    (run,) = results["runs"]
    assert (run["difficulty"], run["opponent"], run["seed"], run["steps"]) == (0, "chase", 0, 8192)
    assert run["train"]["levels"] == 3 and run["test"]["levels"] == 3 and len(run["curve"]) == 2
    evaluation = gridghost.evaluate("random", level_split(0, "test", num_levels=3), rewards="normalised")
    assert run["test"]["optimum_success"] == round(float(np.mean(evaluation.optimum_success)), 4)
    assert -1.5 < run["test"]["score"] <= 1.0 and "| 0 | chase | 1 | 8,192 |" in printed


def test_the_selfplay_levels_script_runs_and_measures_exactly(tmp_path) -> None:
    import json
    import subprocess
    import sys
    from pathlib import Path

    from gridghost.planning import solve_game

    root = Path(__file__).resolve().parent.parent
    out = tmp_path / "selfplay.json"
    command = [sys.executable, str(root / "benchmarks" / "selfplay_levels.py"), "--difficulties", "2", "--levels",
               "0", "--learner", "ppo", "--generations", "2", "--steps", "256", "--out", str(out)]
    printed = subprocess.run(command, capture_output=True, text=True, check=True, cwd=tmp_path).stdout
    (level,) = json.loads(out.read_text())["levels"]
    layout = MapGenerator(difficulty=2).level(0)
    value = solve_game(layout=layout, rewards="normalised").value(layout.agent_start, layout.ghost_start)
    assert level["minimax_value"] == pytest.approx(value, abs=1e-9)
    generations = level["generations"]
    assert [g["learner"] for g in generations] == ["agent", "ghost"]
    for generation in generations:  # the exploitability is the sum of the two sides' gaps, each >= 0
        assert generation["agent_gap"] >= -1e-9 and generation["ghost_gap"] >= -1e-9
        assert generation["exploitability"] == pytest.approx(generation["agent_gap"] + generation["ghost_gap"])
    assert level["final"] == generations[-1]["exploitability"]
    assert level["best"] == min(g["exploitability"] for g in generations)
    assert "difficulty 2:" in printed and "of 1 levels end under 1% of the reward range" in printed
