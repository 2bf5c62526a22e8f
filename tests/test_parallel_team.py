"""The ghosts-only parallel env (``parallel_env(controlled="ghosts", opponent=...)``): PettingZoo's
tests, its games against the plain parallel env's and the team Gymnasium view's, its rewards,
masks, state, step limit and pickling, the arguments it refuses, and TorchRL's batches of it
read into per-side metrics."""

from __future__ import annotations

import pickle
from typing import Any

import gymnasium
import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test

import gridghost
from gridghost.core.layout import Layout
from gridghost.envs.ghost_team import GhostTeamParallelEnv
from gridghost.envs.parallel import GridGhostParallelEnv
from gridghost.integrations.metrics import EpisodeMetrics
from gridghost.integrations.torchrl import TensorDictMetrics
from gridghost.sensing.observations import WAITING_MASK
from gridghost.testing.pettingzoo_views import PARALLEL_CHECKS

#: An open 5 x 5 map with three ghost starts, away from the agent.
OPEN = Layout(np.zeros((5, 5), int), goals=[(0, 0)], agent_start=(2, 2), ghost_start=[(4, 4), (0, 4), (4, 0)])
#: Ghost 0 next to the agent: the agent's opening move can walk into it.
NEXT_TO_GHOST = Layout(np.zeros((5, 5), int), goals=[(0, 0)], agent_start=(2, 2), ghost_start=[(1, 2), (4, 4)])
NAMES = {1: ["ghost"], 2: ["ghost_0", "ghost_1"], 3: ["ghost_0", "ghost_1", "ghost_2"]}
LEFT, DOWN, RIGHT, UP = range(4)


def _team(k: int = 2, **settings: Any) -> GhostTeamParallelEnv:
    env = gridghost.parallel_env(**{"layout": OPEN, "ghosts": k, "controlled": "ghosts", **settings})
    assert isinstance(env, GhostTeamParallelEnv)
    return env


def _always(action: int) -> Any:
    return lambda observation: action


@pytest.mark.parametrize("k", [1, 2, 3])
def test_pettingzoos_parallel_api_and_seed_tests_pass(k: int) -> None:
    parallel_api_test(_team(k, max_cycles=10), num_cycles=60)
    parallel_seed_test(lambda: _team(k, max_cycles=10, obs_type="vector"))


@pytest.mark.parametrize("k", [1, 2, 3])
def test_the_conformance_suites_parallel_checks_pass(k: int) -> None:
    make = lambda: _team(k, opponent="random", obs_type="vector", max_cycles=8)  # noqa: E731
    for check in PARALLEL_CHECKS:
        check(make)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_the_agents_are_the_ghosts_with_the_plain_envs_names_and_spaces(k: int) -> None:
    env, plain = _team(k, obs_type="vector"), gridghost.parallel_env(layout=OPEN, ghosts=k, obs_type="vector")
    assert env.possible_agents == NAMES[k] == plain.possible_agents[1:]
    for name in NAMES[k]:
        assert env.observation_space(name) == plain.observation_space(name)
        assert env.action_space(name) == gymnasium.spaces.Discrete(4)
    observations, infos = env.reset(seed=1)
    assert env.agents == NAMES[k] and sorted(observations) == sorted(infos) == NAMES[k]
    assert env.state().shape == (5, 5, 3 + k) and env.state_space.contains(env.state())


@pytest.mark.parametrize("credit", ["team", "catcher"])
def test_a_step_is_the_plain_envs_team_move_and_agent_answer_with_every_reward_since_the_last(credit: str) -> None:
    # The agent always goes up (a policy inside one env, the caller's action in the other); with
    # slip the game's own draws must match too.
    settings = dict(layout=OPEN, ghosts=2, obs_type="vector", ghost_credit=credit, slip_probability=0.3)
    env = gridghost.parallel_env(controlled="ghosts", opponent=_always(UP), **settings)
    plain = gridghost.parallel_env(**settings)
    observations, infos = env.reset(seed=5)
    plain.reset(seed=5)
    carried = plain.step({"agent": UP})[1]  # the opening move, which the first step pays
    returns, agent_return = dict.fromkeys(env.agents, 0.0), carried["agent"]
    rng = np.random.default_rng(0)
    for _ in range(30):
        for name in env.agents:
            assert np.array_equal(observations[name], plain.aec_env.observe(name))
            assert np.array_equal(infos[name]["action_mask"], plain._infos()[name]["action_mask"])
        actions = {name: int(rng.integers(4)) for name in env.agents}
        observations, rewards, terminations, truncations, infos = env.step(actions)
        _, expected, *_ = plain.step({"agent": None, **actions})
        agent_return += expected["agent"]
        expected = {name: carried[name] + expected[name] for name in rewards}
        if plain.agents:
            _, answer, *_ = plain.step({"agent": UP})
            agent_return += answer["agent"]
            expected = {name: expected[name] + answer[name] for name in rewards}
        assert rewards == pytest.approx(expected)
        returns = {name: returns[name] + rewards[name] for name in returns}
        assert env.aec_env.game_state == plain.aec_env.game_state
        carried = dict.fromkeys(rewards, 0.0)
        if not env.agents:
            assert not plain.agents and (all(terminations.values()) or all(truncations.values()))
            break
    else:
        pytest.fail("no episode ended in 30 steps")
    if credit == "team":  # every ghost is paid the team's reward: minus the agent's
        assert returns["ghost_0"] == returns["ghost_1"] == pytest.approx(-agent_return)


def test_the_same_games_as_the_team_gymnasium_view() -> None:
    settings = dict(layout=OPEN, ghosts=2, slip_probability=0.2, obs_type="vector", rewards="reference")
    env = _team(**settings, opponent="random")
    view = gymnasium.make("gridghost/GridGhost-v1", controlled="ghosts", opponent="random", **settings).unwrapped
    env.reset(seed=3)
    view.reset(seed=3)
    rng = np.random.default_rng(3)
    while env.agents:
        actions = rng.integers(4, size=2)
        _, rewards, *_ = env.step(dict(zip(env.agents, actions.tolist(), strict=True)))
        _, reward, *_ = view.step(actions)
        assert env.aec_env.game_state == view.game.game_state
        assert np.mean(list(rewards.values())) == pytest.approx(reward)


def test_an_episode_lasts_at_most_max_cycles_steps_then_every_ghost_is_truncated() -> None:
    env = _team(2, max_cycles=3, opponent=_always(LEFT), slip="none")
    env.reset(seed=0)
    for _ in range(3):
        assert env.agents == NAMES[2]
        _, _, terminations, truncations, infos = env.step({"ghost_0": LEFT, "ghost_1": RIGHT})
    assert env.agents == []
    assert truncations == {"ghost_0": True, "ghost_1": True} and not any(terminations.values())
    assert all(np.array_equal(info["action_mask"], WAITING_MASK) for info in infos.values())
    with pytest.raises(RuntimeError, match="reset"):
        env.step({"ghost_0": LEFT, "ghost_1": LEFT})


def test_a_pickled_env_plays_on_as_the_original() -> None:
    env = _team(2, opponent="random", obs_type="vector", slip_probability=0.2)
    env.reset(seed=4)
    env.step({"ghost_0": UP, "ghost_1": LEFT})
    copy = pickle.loads(pickle.dumps(env))
    for _ in range(3):
        if not env.agents:
            break
        actions = {"ghost_0": DOWN, "ghost_1": RIGHT}
        first, second = env.step(actions), copy.step(actions)
        assert first[1] == second[1] and env.aec_env.game_state == copy.aec_env.game_state
    assert np.array_equal(env.state(), copy.state())


def test_the_registry_and_the_default_keep_the_plain_parallel_env() -> None:
    assert type(gridghost.parallel_env(layout=OPEN, ghosts=2)) is GridGhostParallelEnv
    assert type(gridghost.parallel_env(layout=OPEN, ghosts=2, controlled=None)) is GridGhostParallelEnv
    made = pettingzoo.make("parallel", "gridghost/GridGhost-v1", layout=OPEN, ghosts=2, controlled="ghosts")
    assert made.unwrapped.possible_agents == NAMES[2]


@pytest.mark.parametrize(("arguments", "error", "match"), [
    (dict(controlled="team"), ValueError, "controlled"),
    (dict(controlled="agent"), ValueError, "controlled='agent'.*Gymnasium"),
    (dict(controlled="ghost"), ValueError, "controlled='ghost'"),
    (dict(opponent="random"), ValueError, "opponent.*controlled='ghosts'"),
    (dict(opponent_obs_type="vector"), ValueError, "opponent_obs_type.*controlled='ghosts'"),
    (dict(controlled="ghosts", opponent="chase"), ValueError, "opponent"),
    (dict(controlled="ghosts", opponent=3), TypeError, "^opponent must be a policy name"),
    (dict(controlled="ghosts", obs_type="belief"), ValueError, "belief"),
    (dict(controlled="ghosts", use_ghost=False), ValueError, "use_ghost"),
    (dict(controlled="ghosts", opponent_obs_type="pixels"), ValueError, "opponent_obs_type"),
    (dict(controlled="ghosts", layout=NEXT_TO_GHOST), ValueError, "opening move"),
])
def test_bad_arguments_are_refused_by_name(arguments: dict[str, Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        gridghost.parallel_env(**{"layout": OPEN, "ghosts": 2, **arguments})


def test_bad_actions_are_refused_by_name_and_change_nothing() -> None:
    env = _team(2, opponent="random")
    with pytest.raises(RuntimeError, match="reset"):
        env.step({"ghost_0": 0, "ghost_1": 0})
    env.reset(seed=0)
    before = env.aec_env.game_state
    for actions, error, match in (([0, 1], TypeError, "actions must be a dict"),
                                  ({"ghost_0": 0}, ValueError, "ghost_1"),
                                  ({"ghost_0": 0, "ghost_1": None}, ValueError, "ghost_1"),
                                  ({"ghost_0": 0, "ghost_1": 1, "agent": 2}, ValueError, "unknown agents.*agent"),
                                  ({"ghost_0": 4, "ghost_1": 1}, ValueError, "ghost_0"),
                                  ({"ghost_0": 0, "ghost_1": 1.5}, TypeError, "ghost_1")):
        with pytest.raises(error, match=match):
            env.step(actions)
        assert env.aec_env.game_state == before and env.agents == NAMES[2]


class _Batch:
    """The part of a TorchRL TensorDict that TensorDictMetrics reads: ``get`` and ``batch_size``."""

    def __init__(self, entries: dict, batch_size: tuple[int, ...]) -> None:
        self.entries, self.batch_size = entries, batch_size

    def get(self, key: tuple[str, ...]) -> Any:
        return self.entries.get(key)


def test_tensordict_metrics_read_a_batch_of_the_ghosts_alone_as_the_ghosts_return() -> None:
    # What TorchRL's PettingZooWrapper collects from this env: one group "ghost", an axis of k.
    env, rng = _team(2, opponent="random", obs_type="vector", rewards="reference"), np.random.default_rng(2)
    env.reset(seed=2)
    rewards, dones, reached, caught, truth = [], [], [], [], EpisodeMetrics()
    team_return, length = 0.0, 0
    while len(dones) < 400:
        _, reward, terminations, truncations, infos = env.step({name: int(rng.integers(4)) for name in env.agents})
        done = terminations["ghost_0"] or truncations["ghost_0"]
        rewards.append([[reward["ghost_0"]], [reward["ghost_1"]]])
        dones.append([done])
        reached.append([infos[name]["reached_goal"] for name in NAMES[2]])
        caught.append([infos[name]["caught_by_ghost"] for name in NAMES[2]])
        team_return, length = team_return + reward["ghost_0"], length + 1
        if done:  # team credit: every ghost's return is the team's
            truth.add_info(team_return, infos["ghost_0"], length)
            team_return, length = 0.0, 0
            env.reset()
    entries = {("next", "ghost", "reward"): np.array(rewards), ("next", "done"): np.array(dones),
               ("next", "ghost", "info", "reached_goal"): np.array(reached),
               ("next", "ghost", "info", "caught_by_ghost"): np.array(caught)}
    reader = TensorDictMetrics()
    assert reader.update(_Batch(entries, (400,))) == truth.episodes >= 10
    expected = truth.summary()
    expected["ghost_return"] = expected.pop("agent_return")  # the agent's rewards are not in the batch
    assert reader.summary() == pytest.approx(expected) and "agent_return" not in reader.summary()
