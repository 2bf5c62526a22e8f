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
    (dict(controlled="ghosts", ghosts=1, expert="optimal"), ValueError, "expert='optimal' advises the agent"),
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


@pytest.mark.parametrize("max_cycles", [3, 100])
def test_the_turn_flag_says_the_ghost_moves_next_until_the_final_observation(max_cycles: int) -> None:
    env = _team(2, max_cycles=max_cycles, opponent="random", slip_probability=0.2)
    observations, _ = env.reset(seed=1)
    flags, rng = [observations["ghost_1"]["to_move"]], np.random.default_rng(0)
    while env.agents:
        observations, _, terminations, truncations, _ = env.step(dict(zip(NAMES[2], rng.integers(4, size=2).tolist(),
                                                                          strict=True)))
        flags.append(observations["ghost_1"]["to_move"])
    assert flags[:-1] == [1] * (len(flags) - 1) and flags[-1] == 0
    assert any(truncations.values()) if max_cycles == 3 else any(terminations.values())


def test_the_defaults_differ_from_the_team_gymnasium_views_as_documented() -> None:
    env = gridghost.parallel_env(ghosts=2, layout="team_eight", controlled="ghosts")
    view = gymnasium.make("gridghost/GridGhost-v1", ghosts=2, layout="team_eight", controlled="ghosts")
    assert (env.config.obs_type, env.config.rewards.goal, env.max_cycles) == ("dict", 100.0, 100)
    assert (view.unwrapped.game.config.obs_type, view.unwrapped.game.config.rewards.goal) == ("vector", 1.0)
    assert view.spec is not None and view.spec.max_episode_steps == 100


def test_the_old_path_of_parallel_env_still_imports_it() -> None:
    from gridghost.envs.parallel import parallel_env

    assert parallel_env is gridghost.parallel_env
    assert type(parallel_env(layout=OPEN, ghosts=2, controlled="ghosts")) is GhostTeamParallelEnv
    module = gridghost.envs.parallel
    with pytest.raises(AttributeError, match=r"'gridghost\.envs\.parallel' has no attribute 'nothing'"):
        module.nothing  # noqa: B018 - only names that moved are found elsewhere


@pytest.mark.parametrize("k", [1, 2])
def test_the_ghosts_alone_have_every_public_attribute_of_the_plain_env_meaning_the_same(k: int) -> None:
    settings = dict(layout=OPEN, ghosts=k, obs_type="vector", max_cycles=7, slip_probability=0.2)
    plain, env = gridghost.parallel_env(**settings), _team(**settings)
    plain.reset(seed=0)
    env.reset(seed=0)
    assert [name for name in dir(plain) if not name.startswith("_") and not hasattr(env, name)] == []
    for name in ("layout", "level", "max_cycles", "render_mode", "state_space"):
        assert getattr(env, name) == getattr(plain, name), name
    assert repr(env.config) == repr(plain.config)  # each game has sensors of its own, equal in every setting
    assert env.unwrapped is env and plain.unwrapped is plain
    for name in env.possible_agents:
        assert env.observation_space(name) is env.observation_spaces[name]
        assert env.observation_space(name) == plain.observation_space(name)
        assert env.action_space(name) == plain.action_space(name)
    assert env.state().shape == plain.state().shape
    with pytest.raises(ValueError, match="unknown agent 'agent'"):
        env.observation_space("agent")


@pytest.mark.parametrize("arguments", [dict(controlled="agent"), dict(controlled="ghost"), dict(controlled="team"),
                                       dict(opponent="random"), dict(opponent_obs_type="vector")])
def test_parallel_env_and_rllibs_form_refuse_controlled_and_opponents_alike(arguments: dict[str, Any]) -> None:
    from gridghost.integrations.turns import TurnBasedDictEnv

    with pytest.raises(ValueError, match="controlled") as refused:
        gridghost.parallel_env(layout=OPEN, ghosts=2, **arguments)
    with pytest.raises(ValueError) as also_refused:
        TurnBasedDictEnv(layout=OPEN, ghosts=2, **arguments)
    assert str(refused.value) == str(also_refused.value)


def _sampler(bad: Any) -> type:
    """A reference-style opponent agent drawing its moves from the action space it is given,
    that answers ``bad`` (after drawing) on its second call, unless ``bad`` is ``"never"``."""

    class Sampler:
        def __init__(self, action_space: Any) -> None:
            self.action_space, self.calls = action_space, 0

        def get_action(self, observation: Any) -> Any:
            self.calls += 1
            move = int(self.action_space.sample())
            return bad if bad != "never" and self.calls == 2 else move

    return Sampler


def _ghosts_view(opponent: Any, k: int, controlled: str) -> Any:
    """A Gymnasium view of the ghosts behind a parallel env's interface: reset, step by ghost name."""
    view = gymnasium.make("gridghost/GridGhost-v1", layout=OPEN, ghosts=k, controlled=controlled,
                          opponent=opponent, slip_probability=0.2).unwrapped

    class View:
        aec_env = view.game

        def reset(self, seed: int) -> Any:
            return view.reset(seed=seed)

        def step(self, actions: dict[str, int]) -> Any:
            moves = list(actions.values())
            return view.step(np.array(moves) if controlled == "ghosts" else moves[0])

    return View()


@pytest.mark.parametrize(("view", "k", "bad", "error"), [
    *[(view, k, bad, error) for view in ("parallel", "ghosts") for k, bad, error in
      ((1, 7, ValueError), (2, 7, ValueError), (2, "up", TypeError), (3, 1.0, TypeError))],
])
def test_a_bad_answer_of_the_opponent_is_refused_by_name_and_changes_nothing(view: str, k: int, bad: Any,
                                                                             error: type) -> None:
    # the parallel env of the ghosts alone and the team Gymnasium view
    def make(opponent: Any) -> Any:
        if view == "parallel":
            return _team(k, opponent=opponent, slip_probability=0.2, obs_type="vector")
        return _ghosts_view(opponent, k, view)

    env, twin = make(_sampler(bad)), make(_sampler("never"))
    first, _ = env.reset(seed=5)
    twin.reset(seed=5)
    before, cycles = env.aec_env.game_state, env.aec_env.cycles
    moves = dict(zip(NAMES[k], [UP, LEFT, DOWN], strict=False))
    with pytest.raises(error, match=r"opponent must answer .* 0\.\.3; it answered"):
        env.step(moves)
    assert env.aec_env.game_state == before and env.aec_env.cycles == cycles
    assert env.aec_env.agent_selection == twin.aec_env.agent_selection == NAMES[k][0]
    if view == "parallel":
        assert env.agents == NAMES[k]
        assert all(np.array_equal(env.aec_env.observe(name), first[name]) for name in NAMES[k])
    # the next steps play as if the bad answer had never been given (its draw included)
    for actions in (moves, dict(zip(NAMES[k], [RIGHT, UP, LEFT], strict=False)), moves):
        played, replayed = env.step(actions), twin.step(actions)
        assert env.aec_env.game_state == twin.aec_env.game_state
        assert str(played[:3]) == str(replayed[:3])


@pytest.mark.parametrize(("controlled", "bad", "error"), [
    ("ghost", 7, ValueError), ("ghost", None, TypeError), ("agent", 4, ValueError), ("agent", "up", TypeError)])
def test_the_one_ghost_views_bad_answer_is_refused_by_name_and_asks_for_a_reset(controlled: str, bad: Any,
                                                                                error: type) -> None:
    # The one-ghost view keeps its step's speed: it asks the opponent after the learner's move, so a
    # bad answer leaves that move made, and every later step refuses until a reset.
    def make(opponent: Any) -> Any:
        return gymnasium.make("gridghost/GridGhost-v1", controlled=controlled, opponent=opponent,
                              layout=OPEN, slip_probability=0.2).unwrapped

    env, twin = make(_sampler(bad)), make(_sampler("never"))
    env.reset(seed=5)
    if controlled == "agent":  # the opponent's second answer is the bad one: the ghost's first is its first
        env.step(UP)
    with pytest.raises(error, match=r"^opponent must answer with a move, an int in 0\.\.3; it answered"):
        env.step(UP)
    with pytest.raises(RuntimeError, match=r"opponent's last move failed.*call reset"):
        env.step(UP)
    # a reset starts over as the twin's reset does
    assert str(env.reset(seed=9)) == str(twin.reset(seed=9))
    for action in (UP, LEFT, DOWN):
        played = env.step(action)
        assert str(played) == str(twin.step(action))
        if played[2] or played[3]:
            break


@pytest.mark.parametrize("view", ["parallel", "ghosts"])
def test_a_bad_opening_move_of_the_opponent_is_refused_by_name_and_no_step_follows(view: str) -> None:
    answers = iter([UP, 9, DOWN, UP])  # the first episode's opening move, the next's (bad), then good ones
    policy = lambda observation: next(answers)  # noqa: E731
    env = _team(2, opponent=policy) if view == "parallel" else _ghosts_view(policy, 2, "ghosts")
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"opponent must answer .* it answered 9"):
        env.reset(seed=1)
    with pytest.raises(RuntimeError, match=r"opening move failed.*call reset"):
        env.step({"ghost_0": LEFT, "ghost_1": LEFT})
    env.reset(seed=1)
    env.step({"ghost_0": LEFT, "ghost_1": LEFT})
    assert env.aec_env.cycles == 1 and env.aec_env.agent_selection == "ghost_0"


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
