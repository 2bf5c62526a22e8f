"""examples/team_ppo.py: two ghosts learn with independent PPO and shared parameters (SuperSuit,
Stable-Baselines3 over ``gridghost.parallel_env(controlled="ghosts")``) against the minimax
agent, scored exactly by the team solver; it takes ``--no-progress`` as every example does."""

from __future__ import annotations

import contextlib
import io
import re

import numpy as np
import pytest

from gridghost.config import resolve
from gridghost.planning import solve_agent, solve_game

from helpers import blocks_run_by, load_script, run_block

pytestmark = pytest.mark.integration

LINE = re.compile(r"^team steps\s+([\d,]+): capture (\d\.\d{3}), agent success (\d\.\d{3}); exploitability "
                  r"(-?\d+\.\d{4}) \(best response success (\d\.\d{3})\); \d+ s$")


def _run(*argv: str) -> list[str]:
    example = load_script("examples/team_ppo.py")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        example.main(list(argv))
    return out.getvalue().splitlines()


def test_two_ghosts_train_and_are_scored_exactly_and_reproducibly() -> None:
    lines = _run("--team-steps", "2048", "--eval-every", "1024", "--envs", "2", "--seed", "3")
    spec = resolve(layout="team_eight", ghosts=2, rewards="normalised")
    optimum, chasers = solve_game(spec=spec), solve_agent(ghost="chase", spec=spec)
    start = optimum.start
    success, capture = optimum.success_probability(*start), optimum.capture_probability(*start)
    chased = chasers.success_probability(*start)
    assert lines[0] == (f"team_eight: the team optimum holds the minimax agent to success {success:.3f} (capture "
                        f"{capture:.3f}); two chasers leave its best response {chased:.3f}; "
                        f"team game value {optimum.value(*start):.4f}")
    scores = [LINE.match(line) for line in lines[1:]]
    assert all(scores) and len(scores) >= 3, lines
    steps = [int(match[1].replace(",", "")) for match in scores]
    assert steps[0] >= 1024 and steps[-1] >= 2048 and steps == sorted(steps)
    for match in scores:
        capture, success, exploitability, best = (float(match[i]) for i in (2, 3, 4, 5))
        assert capture + success <= 1.0 + 1e-9
        assert 0.0 <= exploitability <= 1.5  # 0 for the team optimum; a team that ignores the agent gives 1.41
        assert best >= optimum.success_probability(*start) - 1e-9  # no team holds a best response below the optimum
    # The same seed, the same scores, with or without the progress bar (on stderr).
    again = _run("--team-steps", "2048", "--eval-every", "1024", "--envs", "2", "--seed", "3", "--no-progress")
    assert [re.sub(r"; \d+ s$", "", line) for line in again] == [re.sub(r"; \d+ s$", "", line) for line in lines]


def _first_rollout(seed: int, copies: int = 4, **against: object) -> tuple[np.ndarray, np.ndarray]:
    """The observations and actions of PPO's first rollout on a TeamVecEnv, with ``seed`` given
    to PPO alone (as the example does)."""
    import torch
    from stable_baselines3 import PPO

    from gridghost.integrations.sb3 import TeamVecEnv

    torch.set_num_threads(1)
    env = TeamVecEnv(copies, layout="team_eight", ghosts=2, obs_type="vector", rewards="normalised",
                     **(against or {"opponent": "random"}))
    model = PPO("MlpPolicy", env, n_steps=64, batch_size=128, n_epochs=1, seed=seed)
    model.learn(64 * env.num_envs)
    buffer = model.rollout_buffer  # flattened by training, slot by slot: [slot * 64 + step]
    return buffer.observations.reshape(env.num_envs, 64, -1).copy(), buffer.actions.reshape(env.num_envs, 64).copy()


def test_the_seed_reaches_the_networks_and_every_env_copy() -> None:
    observations, actions = _first_rollout(0)
    assert observations.shape == (8, 64, 30)  # 2 ghosts of 4 copies, 64 steps
    again = _first_rollout(0)
    np.testing.assert_array_equal(again[0], observations)
    np.testing.assert_array_equal(again[1], actions)
    other = _first_rollout(1)
    assert not np.array_equal(other[0], observations) and not np.array_equal(other[1], actions)
    # every copy plays games of its own (ghost 0 of each copy): no two copies share a stream
    copies = [observations[2 * copy].tobytes() for copy in range(4)]
    assert len(set(copies)) == 4


def test_sb3_ppo_trains_a_team_against_a_pool_of_the_minimax_agent_and_a_best_response() -> None:
    import torch
    from stable_baselines3 import PPO

    from gridghost.integrations.sb3 import TeamVecEnv
    from gridghost.planning import ghost_exploitability, tabulate_policy
    from gridghost.training import OpponentPool

    torch.set_num_threads(1)
    spec = resolve(layout="team_eight", ghosts=2, obs_type="vector", rewards="normalised")
    pool = OpponentPool()
    pool.add(solve_game(spec=spec).agent_policy, "agent", name="minimax")
    pool.add(solve_agent(ghost="chase", spec=spec).policy, "agent", name="best-response")
    env = TeamVecEnv(4, pool=pool, layout="team_eight", ghosts=2, obs_type="vector", rewards="normalised",
                     max_cycles=30)
    model = PPO("MlpPolicy", env, n_steps=256, batch_size=512, n_epochs=2, seed=0)
    model.learn(4096)  # 2,048 team steps
    assert model.num_timesteps == 4096
    # every copy drew from the one pool, both agents, and counted each finished game there
    results = [pool.results(name) for name in ("minimax", "best-response")]
    assert all(result.games > 0 for result in results) and sum(result.games for result in results) >= 4096 // 2 // 30
    team = tabulate_policy(lambda obs: model.predict(obs, deterministic=True)[0], "ghost", batch=True, spec=spec,
                           view="parallel")
    assert team.shape == (5, 7) * 3 + (2,)
    assert 0.0 <= ghost_exploitability(team, spec=spec) <= 1.5  # 0 at the team optimum, 1.41 ignoring the agent


def test_the_example_trains_against_the_pool() -> None:
    lines = _run("--team-steps", "1024", "--eval-every", "1024", "--envs", "2", "--opponent", "pool", "--no-progress")
    assert len(lines) >= 2 and all(LINE.match(line) for line in lines[1:]), lines


def test_the_training_pages_pool_example_runs_as_written(tmp_path) -> None:
    (page, line, code), = blocks_run_by("tests/test_integration_team_ppo.py")
    assert page.name == "training.md"
    out = run_block(page, line, code, tmp_path)
    assert out.splitlines()[-1] == "{'minimax': True, 'best-response': True}"


def test_sb3_ppo_trains_the_team_as_one_centralised_policy_against_the_pool() -> None:
    """The team Gymnasium view of self-play (``SelfPlayEnv(controlled="ghosts")``): one policy
    sends the team's ``MultiDiscrete`` move; SB3's own vector env copies it, sharing the pool."""
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_util import make_vec_env

    from gridghost.planning import ghost_exploitability, tabulate_policy
    from gridghost.training import OpponentPool, SelfPlayEnv

    torch.set_num_threads(1)
    spec = resolve(layout="team_eight", ghosts=2, obs_type="vector", rewards="normalised")
    pool = OpponentPool()
    pool.add(solve_game(spec=spec).agent_policy, "agent", name="minimax")
    pool.add(solve_agent(ghost="chase", spec=spec).policy, "agent", name="best-response")
    env = make_vec_env(lambda: SelfPlayEnv(pool, controlled="ghosts", layout="team_eight", ghosts=2, max_cycles=30),
                       n_envs=4, seed=0)
    model = PPO("MlpPolicy", env, n_steps=256, batch_size=256, n_epochs=2, seed=0)
    model.learn(2048)
    assert model.num_timesteps == 2048 and model.action_space.nvec.tolist() == [4, 4]
    results = [pool.results(name) for name in ("minimax", "best-response")]
    assert all(result.games > 0 for result in results)
    team = tabulate_policy(lambda obs: model.predict(obs, deterministic=True)[0], "ghost", batch=True, spec=spec,
                           centralised=True)
    assert team.shape == (5, 7) * 3 + (2,)
    assert 0.0 <= ghost_exploitability(team, spec=spec) <= 1.5


def test_team_vec_env_refuses_bad_arguments_naming_them() -> None:
    from gridghost.integrations.sb3 import TeamVecEnv
    from gridghost.training import OpponentPool

    settings = {"layout": "team_eight", "ghosts": 2, "obs_type": "vector"}
    pool = OpponentPool()
    pool.add("random", "agent")
    with pytest.raises(ValueError, match=r"pass opponent .* or pool .*, not both"):
        TeamVecEnv(2, opponent="minimax", pool=pool, **settings)
    with pytest.raises(ValueError, match="num_envs"):
        TeamVecEnv(0, **settings)
    with pytest.raises(TypeError, match="num_envs"):
        TeamVecEnv(2.0, **settings)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed"):
        TeamVecEnv(2, seed=-1, **settings)
    with pytest.raises(TypeError, match="seed"):
        TeamVecEnv(2, seed="0", **settings)  # type: ignore[arg-type]
    env = TeamVecEnv(2, **settings)
    assert env.num_envs == 4 and len(env.envs) == 2
    with pytest.raises(TypeError, match="seed"):
        env.seed(1.5)  # type: ignore[arg-type]
    assert len(set(env.seed(7))) == 2 and env.seed(7) == env.seed(7) != env.seed(8)
