"""Defects found by users trying teams (``ghosts=k``), and the rest of each one's class:
policies' answers of the wrong shape, NumPy integers as team sizes, saved settings read back
without the checks across settings, NumPy scalars kept in a spec, vectorised teams, solver tables
passed as opponents, and the observations a team trained on another view reads.
"""

from __future__ import annotations

import json
import re
from typing import Any

import gymnasium
import numpy as np
import pytest

import gridghost
from gridghost import Layout
from gridghost.batched import GridGhostVectorEnv, UnsupportedSetting, make_vector_env
from gridghost.config.declaration import declared
from gridghost.config.settings import INPUTS, GameSpec, resolve
from gridghost.core.names import NUM_ACTIONS
from gridghost.core.rules import Rewards, Side
from gridghost.planning import TurnModel, tabulate_policy

from helpers import hashed_action, hashed_actions


def tabulate_team_policy(policy: Any, **kwargs: Any) -> np.ndarray:
    """The ghosts' side tabulated over stacked observations, as a team is."""
    return tabulate_policy(policy, "ghost", batch=True, **kwargs)


def live_team_states(game: Any) -> np.ndarray:
    """Every state where the game goes on, as rows (agent cell, ghost cells...), in the tables' order."""
    model = TurnModel(game)
    return np.column_stack([model.agents, model.ghost_cells])


OPEN = Layout(np.zeros((4, 4), int), goals=[(0, 0)], agent_start=(2, 1), ghost_start=[(3, 3), (0, 3), (3, 0)])


#: A small team map (729 joint states), for the checks of a policy's answers.
SMALL = Layout(np.zeros((3, 3), int), goals=[(0, 0)], agent_start=(1, 1), ghost_start=[(2, 2), (0, 2)])


def _team_spec(k: int = 2, **settings: Any) -> Any:
    return resolve(layout=SMALL, ghosts=k, obs_type="vector", **settings)


# -- a policy's answer of the wrong shape is refused, never reshaped -----------------------------------
def _live(k: int = 2) -> int:
    return len(live_team_states(_team_spec(k).game()))


@pytest.mark.parametrize(("name", "answer"), [
    ("transposed", lambda n, k: np.zeros((k, n), np.int64)),
    ("flat", lambda n, k: np.zeros(n * k, np.int64)),
    ("extra axis", lambda n, k: np.zeros((n, k, 1), np.int64)),
])
def test_a_centralised_answer_of_another_shape_is_refused(name: str, answer: Any) -> None:
    n, k = _live(), 2
    got = re.escape(str(answer(n, k).shape))
    with pytest.raises(TypeError, match=rf"policy must return .*shape \({n}, {k}\).*got an array of shape {got}"):
        tabulate_team_policy(lambda stacked: answer(len(stacked), k), spec=_team_spec(), centralised=True)


@pytest.mark.parametrize("shape", [lambda n: (1, n), lambda n: (n, 2), lambda n: (n, 1, 1)])
@pytest.mark.parametrize("per_ghost", [False, True])
def test_a_ghosts_answer_of_another_shape_is_refused(shape: Any, per_ghost: bool) -> None:
    n = _live()
    ask = lambda obs: np.zeros(shape(len(obs)), np.int64)  # noqa: E731
    with pytest.raises(TypeError, match=rf"the actions of ghost 0.*shape \({n},\).*got an array of shape"):
        tabulate_team_policy([ask, ask] if per_ghost else ask, spec=_team_spec())


def test_a_ghosts_column_of_actions_is_its_documented_form() -> None:
    # the column [n, 1] some predict() return, as the one-ghost tabulation takes it
    column = tabulate_team_policy(lambda obs: np.full((len(obs), 1), 2), spec=_team_spec())
    flat = tabulate_team_policy(lambda obs: np.full(len(obs), 2), spec=_team_spec())
    np.testing.assert_array_equal(column, flat)
    assert (flat == 2).sum() == 2 * _live()


def test_a_centralised_team_is_scored_from_the_table_it_answered() -> None:
    # every state's answer differs per ghost: a transposed reading would scramble them
    spec = _team_spec()
    rows = live_team_states(spec.game())

    def team(stacked: np.ndarray) -> np.ndarray:
        return np.stack([np.arange(len(stacked)) % 4, (np.arange(len(stacked)) // 4) % 4], axis=1)

    table = tabulate_team_policy(team, spec=spec, centralised=True)
    flat = table.reshape((9,) * 3 + (2,))
    got = flat[tuple(rows.T)]
    np.testing.assert_array_equal(got[:, 0], np.arange(len(rows)) % 4)
    np.testing.assert_array_equal(got[:, 1], (np.arange(len(rows)) // 4) % 4)


@pytest.mark.parametrize(("answer", "batch"), [
    (lambda obs: np.full((4, len(obs)), 0.25), True),   # transposed
    (lambda obs: np.full(4 * len(obs), 0.25), True),    # flat
    (lambda obs: np.full((2, 2), 0.25), False),         # four numbers, not a distribution's shape
])
def test_one_ghosts_probabilities_of_another_shape_are_refused(answer: Any, batch: bool) -> None:
    with pytest.raises(ValueError, match=r"policy must return .*probabilities.*shape"):
        tabulate_policy(answer, "ghost", batch=batch, stochastic=True)


@pytest.mark.parametrize("answer", [
    lambda obs: np.zeros((2, len(obs)), np.int64),   # two rows
    lambda obs: np.zeros((len(obs), 2), np.int64),   # two columns
    lambda obs: np.zeros(2 * len(obs), np.int64),    # flat, twice too long
])
def test_one_ghosts_batch_of_actions_of_another_shape_is_refused(answer: Any) -> None:
    with pytest.raises(TypeError, match=r"one action per observation.*got an array of shape"):
        tabulate_policy(answer, batch=True)


def test_a_row_a_column_and_a_batch_of_one_are_read_in_the_observations_order() -> None:
    one_by_one = tabulate_policy(hashed_action)
    chosen = one_by_one.reshape(-1, NUM_ACTIONS)   # one-hot where the game goes on
    assert len(np.unique(chosen[chosen.sum(axis=1) > 0].argmax(axis=1))) == NUM_ACTIONS
    row = tabulate_policy(lambda obs: np.array([[hashed_action(one) for one in obs]]), batch=True)
    column = tabulate_policy(lambda obs: np.array([[hashed_action(one)] for one in obs]), batch=True)
    np.testing.assert_array_equal(row, one_by_one)
    np.testing.assert_array_equal(column, one_by_one)

    def probabilities(observation: np.ndarray) -> np.ndarray:
        return np.eye(NUM_ACTIONS)[hashed_action(observation)]

    flat = tabulate_policy(probabilities, stochastic=True)
    batch_of_one = tabulate_policy(lambda obs: probabilities(obs)[None], stochastic=True)
    np.testing.assert_array_equal(batch_of_one, flat)


# -- NumPy integers as a team's size, at every entry point ---------------------------------------------
_ENTRY_POINTS = {
    "env": lambda **kw: gridghost.env(**kw),
    "parallel_env": lambda **kw: gridghost.parallel_env(**kw),
    "gymnasium.make": lambda **kw: gymnasium.make("gridghost/GridGhost-v1", **kw).unwrapped.game,
}


@pytest.mark.parametrize("entry", sorted(_ENTRY_POINTS))
@pytest.mark.parametrize("given", ["keyword", "spec dict", "config dict"])
def test_a_numpy_team_size_builds_the_same_team_as_a_python_one(entry: str, given: str) -> None:
    def settings(k: Any) -> dict[str, Any]:
        if given == "keyword":
            return {"layout": OPEN, "ghosts": k}
        return {given.split()[0]: {"layout": OPEN.to_dict(), "ghosts": k}}

    for k in np.arange(2, 4):  # the sweep users write
        env, python = _ENTRY_POINTS[entry](**settings(k)), _ENTRY_POINTS[entry](**settings(int(k)))
        assert type(env) is type(python)
        assert env.possible_agents == python.possible_agents == ["agent", *(f"ghost_{i}" for i in range(k))]
        assert type(env.config.ghosts) is int


# -- saved settings are read back through every check keywords pass --------------------------------------
_CONTRADICTIONS = [
    ({"use_ghost": False, "ghost_rewards": {"step": 1.0, "goal": -100.0, "caught": 50.0, "wait": 0.0}},
     "ghost_rewards has no one to reward"),
    ({"use_ghost": False, "expert": "minimax"}, "expert solves the game against the ghost"),
    ({"show_belief": False}, "show_belief=False hides the belief filter's map"),
    ({"obs_type": "vector", "view_radius": 2}, "view_radius"),
]


@pytest.mark.parametrize(("entries", "message"), _CONTRADICTIONS)
def test_from_dict_refuses_what_resolve_refuses(entries: dict[str, Any], message: str) -> None:
    data = {**resolve().to_dict(), **entries}
    with pytest.raises(ValueError, match=message) as from_keywords:
        resolve(**{**entries, **({"ghost_rewards": Rewards(**entries["ghost_rewards"])}
                                 if "ghost_rewards" in entries else {})})
    with pytest.raises(ValueError, match=message) as from_data:
        GameSpec.from_dict(data)
    assert str(from_data.value) == str(from_keywords.value)


@pytest.mark.parametrize(("spec", "error", "message"), [
    ({"type": "particle"}, TypeError, r"missing keys \['sensors'\]"),
    ({"type": "histogram", "sensors": [0], "num_particles": 5}, TypeError, r"unknown keys \['num_particles'\]"),
    ({"kind": "histogram", "sensors": [0]}, TypeError, "'type' must be one of"),
    ({"type": "histogram", "sensors": "0"}, TypeError, "'sensors' must be a list of sensor indices"),
    ({"type": "histogram", "sensors": [-1]}, ValueError, "'sensors' must be sensor indices >= 0"),
    ({"type": "particle", "sensors": [0], "num_particles": 0}, ValueError, "'num_particles' must be an int"),
    ({"type": "particle", "sensors": [0], "resample_threshold": 2.0}, ValueError, "'resample_threshold' must lie"),
])
def test_a_malformed_filter_dict_is_refused_naming_the_key(spec: dict[str, Any], error: type[Exception],
                                                           message: str) -> None:
    with pytest.raises(error, match=message):
        GameSpec.from_dict({"belief_filter": spec})
    with pytest.raises(error, match=message):
        resolve(belief_filter=spec)


def test_a_filter_dict_read_back_writes_the_same_dict() -> None:
    saved = {"type": "particle", "sensors": [np.int64(0)], "num_particles": np.int32(50),
             "resample_threshold": np.float32(0.5)}
    written = GameSpec.from_dict({"belief_filter": saved}).to_dict()["belief_filter"]
    assert json.loads(json.dumps(written)) == {"type": "particle", "sensors": [0], "num_particles": 50,
                                               "resample_threshold": 0.5}


# -- NumPy scalars: the checks' Python values are kept -----------------------------------------------------
#: Every numeric setting and input keyword, as NumPy scalars, with the Python numbers they equal.
_NUMERIC = {"max_cycles": np.int64(50), "ghosts": np.int64(2), "view_radius": np.int32(2),
            "slip_probability": np.float32(0.25), "color_sensor_quality": np.float32(0.75)}


def test_every_numeric_setting_is_declared_here() -> None:
    numeric = {name for name, (_, declared_) in declared(GameSpec).items() if declared_.unit}
    numeric |= {name for name, entry in INPUTS.items() if entry.annotation.split()[0] in ("int", "float")}
    assert numeric - {"difficulty"} == set(_NUMERIC)  # difficulty: below, it draws its own maps


@pytest.mark.parametrize("build", ["resolve", "GameSpec", "from_dict"])
def test_numpy_scalars_give_the_spec_python_numbers_give(build: str) -> None:
    python = {name: value.item() for name, value in _NUMERIC.items()}
    common = {"layout": OPEN, "obs_type": "grid"}
    expected = resolve(**common, **python).to_dict()
    if build == "resolve":
        spec = resolve(**common, **_NUMERIC)
    elif build == "GameSpec":
        direct = ("max_cycles", "ghosts", "view_radius")
        spec = GameSpec(**{**resolve(**common, **python).keywords(), **{name: _NUMERIC[name] for name in direct}})
    else:
        spec = GameSpec.from_dict({**expected, "max_cycles": _NUMERIC["max_cycles"], "ghosts": _NUMERIC["ghosts"],
                                   "view_radius": _NUMERIC["view_radius"]})
    assert json.loads(json.dumps(spec.to_dict())) == expected
    assert all(type(getattr(spec, name)) is int for name in ("max_cycles", "ghosts", "view_radius"))


def test_a_numpy_difficulty_is_kept_as_its_int() -> None:
    spec = resolve(difficulty=np.int64(0))
    assert json.loads(json.dumps(spec.to_dict())) == resolve(difficulty=0).to_dict()


# -- a solver's table passed as an opponent is refused by name, in every Gymnasium view but the team's -------
# (a learning team's agent may be a state table: tests/test_teams_envs.py plays one and refuses those that do not fit)
_TEAM_MAP = Layout(np.zeros((3, 4), int), goals=[(0, 0)], agent_start=(1, 1), ghost_start=[(2, 3), (0, 3)])


@pytest.mark.parametrize(("controlled", "ghosts"), [("agent", 2), ("agent", 1), ("ghost", 1)])
def test_a_state_policy_table_as_opponent_is_refused_by_name(controlled: str, ghosts: int) -> None:
    table = np.zeros((3, 4) * (ghosts + 1), dtype=np.int64)
    with pytest.raises(TypeError, match=rf"opponent is an array of shape {re.escape(str(table.shape))}; a state-policy"
                                        " table is not an opponent of this view"):
        gymnasium.make("gridghost/GridGhost-v1", controlled=controlled, opponent=table, layout=_TEAM_MAP,
                       ghosts=ghosts)


# -- a vectorised team: the batched engine, or SyncVectorEnv of the team view for what it does not serve --
@pytest.mark.parametrize("make", ["make_vector_env", "make_vec"])
@pytest.mark.parametrize("controlled", ["agent", "ghosts"])
def test_a_vectorised_team_plays_the_team_view_in_a_sync_vector_env(make: str, controlled: str) -> None:
    # the batched engine serves a team's grid, not its step count channel: the team view, said in the warning
    settings = {"layout": "team_eight", "ghosts": 2, "controlled": controlled, "obs_type": "grid",
                "append_step_count": True, "max_cycles": 20}
    with pytest.warns(UserWarning, match=r"the batched engine does not serve append_step_count=True.*falling back to "
                                         r"gymnasium\.vector\.SyncVectorEnv"):
        if make == "make_vec":
            envs = gymnasium.make_vec("gridghost/GridGhost-v1", 2, **settings)
        else:
            envs = make_vector_env(2, **settings)
    assert isinstance(envs, gymnasium.vector.SyncVectorEnv)
    single = gymnasium.make("gridghost/GridGhost-v1", **settings)
    assert envs.single_action_space == single.action_space
    observations, _ = envs.reset(seed=5)
    for index in range(2):
        np.testing.assert_array_equal(observations[index], single.reset(seed=5 + index)[0])
    envs.step(envs.action_space.sample())
    envs.close()


def test_the_batched_vector_env_refuses_what_it_cannot_serve_of_a_team() -> None:
    with pytest.raises(UnsupportedSetting, match=r"does not serve append_step_count=True"):
        GridGhostVectorEnv(2, controlled="ghosts", layout="team_eight", ghosts=2, obs_type="grid",
                           append_step_count=True, max_cycles=20)
    with pytest.raises(UnsupportedSetting, match=r"opponent from \['chase', 'random', 'minimax'\] with "
                                                 r"controlled='agent', got opponent='optimal'"):
        GridGhostVectorEnv(2, controlled="agent", layout="team_eight", ghosts=2, opponent="optimal")
    with pytest.raises(UnsupportedSetting, match=r"controlled='ghosts' is the team's learner \(ghosts >= 2\)"):
        GridGhostVectorEnv(2, controlled="ghosts", layout="team_eight")


# -- scoring a team trained on any team view ------------------------------------------------------------
@pytest.mark.parametrize("obs_type", ["vector", "grid"])
def test_each_ghost_is_asked_with_the_observation_the_parallel_env_gives_it(obs_type: str) -> None:
    spec = resolve(layout=OPEN, ghosts=2, obs_type=obs_type)
    table = tabulate_team_policy(hashed_actions, spec=spec, view="parallel")
    env = gridghost.parallel_env(spec=spec)
    observations, _ = env.reset(seed=0)
    rng, checked = np.random.default_rng(0), 0
    for _ in range(300):
        if not env.agents:
            observations, _ = env.reset()
        state = env.aec_env.game_state
        index = tuple(c for cell in (state.agent, *state.ghosts) for c in divmod(cell, 4))
        if state.turn == Side.AGENT:
            actions = dict.fromkeys(env.agents, 0) | {"agent": int(rng.integers(4))}
        else:
            actions = {"agent": 0}
            for ghost, name in enumerate(env.agents[1:]):
                assert table[index][ghost] == hashed_action(observations[name])
                actions[name] = int(table[index][ghost])
                checked += 1
        observations, *_ = env.step(actions)
    assert checked > 50


def test_the_views_differ_only_where_their_observations_do() -> None:
    seen: dict[str, set[int]] = {}

    def recording(view: str) -> Any:
        def policy(observations: np.ndarray) -> np.ndarray:
            seen.setdefault(view, set()).add(observations.shape[-1])
            return hashed_actions(observations)
        return policy

    tables = {view: tabulate_team_policy(recording(view), spec=_team_spec(), view=view)
              for view in ("gym", "aec", "parallel")}
    np.testing.assert_array_equal(tables["gym"], tables["aec"])
    assert seen["parallel"] == {next(iter(seen["gym"])) + 1}  # the parallel view's "to move" slot
    with pytest.raises(ValueError, match=r"unknown view 'pettingzoo'; accepted: \['gym', 'aec', 'parallel'\]"):
        tabulate_team_policy(hashed_actions, spec=_team_spec(), view="pettingzoo")
