"""A learned team's policy of observations as a state policy (gridghost.planning.tabulate_policy of a team)."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest

import gridghost
from gridghost import Layout
from gridghost.config.settings import resolve
from gridghost.planning import TurnModel, evaluate_policies, solve_agent, tabulate_policy

from helpers import hashed_action, hashed_actions

OPEN = Layout(np.zeros((4, 4), int), goals=[(0, 0)], agent_start=(2, 1), ghost_start=[(3, 3), (0, 3), (3, 0)])


def tabulate_team_policy(policy: Any = None, **kwargs: Any) -> np.ndarray:
    """The ghosts' side tabulated over stacked observations, as a team is."""
    return tabulate_policy(policy, "ghost", batch=True, **kwargs)


@pytest.mark.parametrize(("obs_type", "k"), [("vector", 2), ("grid", 2),
                                             pytest.param("vector", 3, marks=pytest.mark.slow)])  # a second or more
def test_each_ghost_is_asked_with_the_observation_the_aec_env_gives_it(obs_type: str, k: int) -> None:
    spec = resolve(layout=OPEN, ghosts=k, obs_type=obs_type)
    table = tabulate_team_policy(hashed_actions, spec=spec)
    assert table.shape == (4, 4) * (k + 1) + (k,)
    env = gridghost.env(spec=spec)
    env.reset(seed=0)
    checked = 0
    for name in env.agent_iter(300):
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            if not env.agents:
                env.reset()
            continue
        if name == "agent":
            env.step(int(np.random.default_rng(checked).integers(4)))
            continue
        state = env.unwrapped.game_state
        index = tuple(c for cell in (state.agent, *state.ghosts) for c in divmod(cell, 4))
        ghost = int(name.rsplit("_", 1)[1])
        assert table[index][ghost] == hashed_action(observation)
        env.step(int(table[index][ghost]))
        checked += 1
    assert checked > 50


def test_a_centralised_team_is_asked_with_the_team_views_stacked_observation() -> None:
    spec = resolve(layout=OPEN, ghosts=2, obs_type="vector")
    table = tabulate_team_policy(
        lambda stacked: np.array([[hashed_action(one[0]), hashed_action(one)] for one in stacked]),
        spec=spec, centralised=True)
    env = gymnasium.make("gridghost/GridGhost-v1", controlled="ghosts", spec=spec)
    observation, _ = env.reset(seed=1)
    for _ in range(30):
        state = env.unwrapped.game.game_state
        index = tuple(c for cell in (state.agent, *state.ghosts) for c in divmod(cell, 4))
        assert tuple(table[index]) == (hashed_action(observation[0]), hashed_action(observation))
        observation, _, terminated, truncated, _ = env.step(table[index])
        if terminated or truncated:
            observation, _ = env.reset()


def test_a_tabulated_team_scores_as_the_same_team_given_by_state() -> None:
    spec = resolve(layout=OPEN, ghosts=2, obs_type="vector")
    game = spec.game()
    table = tabulate_team_policy([hashed_actions, lambda obs: np.full(len(obs), 3)], spec=spec)
    by_state = evaluate_policies("random", table, game=game)
    model = TurnModel(game)
    rows = np.column_stack([model.agents, model.ghost_cells])
    moves = {tuple(int(c) for c in row): tuple(table.reshape(-1, 2)[np.ravel_multi_index(tuple(row), (16,) * 3)])
             for row in rows}

    def callable_team(agent_pos: tuple[int, int], ghost_positions: list[tuple[int, int]]) -> tuple[int, ...]:
        return moves[tuple(r * 4 + c for r, c in (agent_pos, *ghost_positions))]

    again = evaluate_policies("random", callable_team, game=game)
    assert by_state.value((2, 1), [(3, 3), (0, 3)]) == pytest.approx(again.value((2, 1), [(3, 3), (0, 3)]))
    assert solve_agent(game=game, ghost=table).value((2, 1), [(3, 3), (0, 3)]) >= by_state.value(
        (2, 1), [(3, 3), (0, 3)])


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    (dict(policy=3), TypeError, r"policy must be a callable policy\(observations\) -> actions, or 2 of them"),
    (dict(policy=[hashed_actions]), TypeError, "or 2 of them"),
    (dict(policy=lambda obs: np.full(len(obs), 4)), ValueError, r"policy returned action 4 for ghost 0 with the agent"),
    (dict(policy=lambda obs: np.zeros(3, int)), TypeError, r"ghost 0, one row per state: an array of shape \(\d+,\)"),
    (dict(policy=lambda obs: np.zeros(len(obs))), TypeError, "dtype float64"),
    (dict(policy=hashed_actions, obs_type="dict"), ValueError, "obs_type"),
    (dict(policy=hashed_actions, append_step_count=True), ValueError, "append_step_count"),
    (dict(policy=hashed_actions, centralised=True), TypeError,
     r"the team, one row per state: an array of shape \(\d+, 2\)"),
])
def test_bad_tabulations_are_refused(kwargs: dict, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        tabulate_team_policy(spec=resolve(layout=OPEN, ghosts=2, obs_type="vector"), **kwargs)


def test_a_belief_for_a_team_is_refused_not_ignored() -> None:
    # the team's ghosts are never asked with a belief encoding: a belief given is a mistake
    spec = resolve(layout=OPEN, ghosts=2, obs_type="vector")
    with pytest.raises(ValueError, match=r"belief applies to the belief encodings.*belief='located'"):
        tabulate_policy(hashed_actions, "ghost", spec=spec, batch=True, belief="located")
    assert tabulate_policy(hashed_actions, "ghost", spec=spec, batch=True).shape[-1] == 2


def test_a_team_is_tabulated_for_the_ghosts_over_stacked_observations() -> None:
    spec = resolve(layout=OPEN, ghosts=2, obs_type="vector")
    for kwargs in (dict(side="ghost", batch=False), dict(side="ghost", batch=True, stochastic=True)):
        with pytest.raises(ValueError, match="side='ghost' and batch=True"):
            tabulate_policy(hashed_actions, spec=spec, **kwargs)
    with pytest.raises(ValueError, match="centralised and view apply to a team of ghosts"):
        tabulate_policy(hashed_actions, "ghost", batch=True, spec=resolve(), centralised=True)
    with pytest.raises(ValueError, match="centralised and view apply to a team of ghosts"):
        tabulate_policy(hashed_actions, "ghost", batch=True, spec=resolve(), view="parallel")
