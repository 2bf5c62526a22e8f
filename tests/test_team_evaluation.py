"""Exact evaluation of a team of ghosts (gridghost.evaluate with ghosts=k): every column checked
against the solver's own numbers, computed here through the solver's API, and learned policies
of observations against the state policies they were made from."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from gridghost.config.settings import resolve
from gridghost.core.game import Game
from gridghost.core.layout import CLASSIC, Layout
from gridghost.core.rules import GameState
from gridghost.maps import MapGenerator
from gridghost.planning import evaluate_policies, solve_agent, solve_game, solve_ghost, tabulate_policy
from gridghost.sensing.observations import GRID_CHANNELS
from gridghost.training.evaluation import Evaluator, evaluate

SELF, OPPONENT = GRID_CHANNELS.index("self"), GRID_CHANNELS.index("opponent")
LAYOUT = Layout.generate(3, 3, seed=0, ghosts=2)
SETTINGS: dict[str, Any] = dict(ghosts=2, obs_type="grid", rewards="normalised", slip="longitudinal")
EXACT = dict(gamma=1.0, horizon=100)  # what the evaluation reports: undiscounted, 100 turns


@pytest.fixture(scope="module")
def game() -> Game:
    """The levels' game, built from the settings, not by the evaluation."""
    return resolve(**SETTINGS).game(LAYOUT)


@pytest.fixture(scope="module")
def start(game: Game) -> tuple[Any, Any]:
    return LAYOUT.agent_start, tuple(LAYOUT.ghost_starts[:2])


@pytest.fixture(scope="module")
def team_evaluator() -> Evaluator:
    """The team's evaluation against the random agent, set up once for the tests that score teams."""
    return Evaluator(LAYOUT, side="ghost", opponent="random", **SETTINGS)


def cell(observations: np.ndarray, channel: int) -> np.ndarray:
    """The flat cell of the single 1 of ``channel`` in each stacked grid observation."""
    plane = observations[:, channel].reshape(len(observations), -1)
    assert (plane.sum(axis=1) == 1).all()
    return plane.argmax(axis=1)


def test_a_chasing_team_against_the_random_agent_has_the_solvers_numbers(game: Game, start: Any,
                                                                         team_evaluator: Evaluator) -> None:
    result = team_evaluator("chase")
    played = evaluate_policies("random", "chase", game=game, **EXACT)
    assert result.ghosts == 2 and result.side == "ghost"
    assert result.returns[0] == pytest.approx(-played.value(*start), abs=1e-12)  # the team's: the agent's negated
    assert result.success[0] == pytest.approx(played.success_probability(*start), abs=1e-12)
    assert result.caught[0] == pytest.approx(played.capture_probability(*start), abs=1e-12)
    best = solve_ghost(agent="random", game=game, **EXACT)
    assert result.optimum[0] == pytest.approx(best.value(*start), abs=1e-12)
    assert result.minimax[0] == pytest.approx(-solve_game(game=game, **EXACT).value(*start), abs=1e-12)
    assert result.random[0] == pytest.approx(-evaluate_policies("random", "random", game=game, **EXACT).value(*start))
    assert 0.0 < result.caught[0] < 1.0 and result.optimum[0] > result.returns[0] > result.random[0]
    assert "team of 2 ghosts" in str(result)
    # the catcher's credit splits a capture among the ghosts; the team's return stays the agent's negated
    catcher = evaluate("chase", LAYOUT, side="ghost", opponent="random", **SETTINGS, ghost_credit="catcher")
    assert catcher.returns[0] == result.returns[0] and catcher.optimum[0] == result.optimum[0]


def test_a_minimax_team_and_agent_play_the_team_games_minimax_policies(game: Game, start: Any) -> None:
    solution = solve_game(game=game)  # the team views' "minimax" players: the unending game's policies
    played = evaluate_policies(solution.agent_policy, solution.team_policy, game=game, **EXACT)
    team = evaluate("minimax", LAYOUT, side="ghost", opponent="minimax", **SETTINGS)
    agent = evaluate("minimax", LAYOUT, side="agent", opponent="minimax", **SETTINGS)
    assert team.returns[0] == pytest.approx(-played.value(*start), abs=1e-12)
    assert agent.returns[0] == pytest.approx(played.value(*start), abs=1e-12)
    value = solve_game(game=game, **EXACT).value(*start)
    assert agent.minimax[0] == pytest.approx(value, abs=1e-12) and team.minimax[0] == pytest.approx(-value, abs=1e-12)
    # against the minimax agent, no team does better than the minimax team by more than the horizon's cut
    assert team.optimum[0] == pytest.approx(solve_ghost(agent=solution.agent_policy, game=game, **EXACT).value(*start))


def test_a_learned_agent_against_the_chasing_team_is_its_state_policy(game: Game, start: Any) -> None:
    def by_cell(agent: int) -> int:  # an arbitrary move per cell of the agent
        return (agent * 7 + 3) % 4

    def policy(observations: np.ndarray) -> np.ndarray:
        return np.array([by_cell(int(agent)) for agent in cell(observations, SELF)])

    result = evaluate(policy, LAYOUT, batch=True, **SETTINGS)
    cols = LAYOUT.cols
    played = evaluate_policies(lambda agent_pos, ghost_pos: by_cell(agent_pos[0] * cols + agent_pos[1]), "chase",
                               game=game, **EXACT)
    assert result.returns[0] == pytest.approx(played.value(*start), abs=1e-12)
    assert result.caught[0] == pytest.approx(played.capture_probability(*start), abs=1e-12)
    assert result.optimum[0] == pytest.approx(solve_agent(ghost="chase", game=game, **EXACT).value(*start))


def test_a_learned_team_of_observations_is_the_chasing_team_it_reads(game: Game, start: Any,
                                                                     team_evaluator: Evaluator) -> None:
    one, cells = Game(LAYOUT, game.slip), game.num_cells  # each ghost's chasing rule on its own: the team's "chase"
    rule = np.array([[one.chase_action(GameState(a, g)) for g in range(cells)] for a in range(cells)])

    def chaser(observations: np.ndarray) -> np.ndarray:  # a ghost's grid: itself and the agent
        return rule[cell(observations, OPPONENT), cell(observations, SELF)]

    chase = evaluate_policies("random", "chase", game=game, **EXACT).value(*start)
    def team(observations: np.ndarray) -> np.ndarray:  # centralised: [n, k, ...] -> [n, k]
        return np.stack([chaser(observations[:, ghost]) for ghost in range(2)], axis=1)

    for policy, view, centralised in ((chaser, "gym", False), ([chaser, chaser], "parallel", False),
                                      (team, "aec", True)):
        result = team_evaluator(policy, batch=True, view=view, centralised=centralised)
        assert result.returns[0] == pytest.approx(-chase, abs=1e-12)
    # the table the evaluation plays is the policy's own tabulation
    table = tabulate_policy(chaser, "ghost", obs_type="grid", batch=True, game=game)
    assert team_evaluator(table).returns[0] == pytest.approx(-chase, abs=1e-12)


def test_a_learned_agent_against_a_learned_team(game: Game, start: Any) -> None:
    solution = solve_game(game=game)
    result = evaluate(solution.agent_policy, LAYOUT, opponent=solution.team_policy, **SETTINGS)
    assert result.returns[0] == pytest.approx(
        evaluate_policies(solution.agent_policy, solution.team_policy, game=game, **EXACT).value(*start), abs=1e-12)


@pytest.mark.slow
def test_levels_of_a_team_generator_are_scored_one_by_one() -> None:
    levels = MapGenerator(4, 4, ghosts=2, num_levels=2)
    result = evaluate("random", levels, side="ghost", **SETTINGS)
    assert result.levels.tolist() == [0, 1]
    for row, number in enumerate(result.levels):
        level = levels.level(int(number))
        game = resolve(**SETTINGS).game(level)
        start = level.agent_start, tuple(level.ghost_starts[:2])
        assert result.returns[row] == pytest.approx(
            -evaluate_policies("random", "random", game=game, **EXACT).value(*start), abs=1e-12)
        assert result.score[row] == pytest.approx(0.0, abs=1e-9)  # random play scores 0 by definition


def test_bad_team_arguments_are_refused_naming_them(team_evaluator: Evaluator) -> None:
    with pytest.raises(ValueError, match="unknown side 'team'"):
        evaluate("random", LAYOUT, side="team", **SETTINGS)
    with pytest.raises(ValueError, match="ghosts=2 needs a map with 2 ghost starts"):
        evaluate("random", CLASSIC, **SETTINGS)
    evaluator = team_evaluator
    with pytest.raises(TypeError, match=r"policy must be a callable .* or 2 of them \(one per ghost\)"):
        evaluator([np.zeros, np.zeros, np.zeros], batch=True)
    with pytest.raises(ValueError, match=r"unknown view 'vector'"):
        evaluator(np.zeros, batch=True, view="vector")
    with pytest.raises(ValueError, match="opponent 'optimal' plays the agent"):
        Evaluator(LAYOUT, opponent="optimal", **SETTINGS)
    with pytest.raises(ValueError, match="centralised and view apply to a team of ghosts"):
        evaluate("random", LAYOUT, centralised=True, ghosts=1)
    with pytest.raises(ValueError, match="centralised and view apply to a team of ghosts' policy"):
        evaluate(np.zeros, LAYOUT, batch=True, view="parallel", **SETTINGS)  # the agent's
    with pytest.raises(ValueError, match="unknown obs_type 'text'"):
        evaluate(len, LAYOUT, **{**SETTINGS, "obs_type": "text"})  # a team game's agent reads vector or grid


@pytest.mark.slow
@pytest.mark.parametrize(("ghosts", "seed"), [(3, 0), (4, 0)])
def test_larger_teams_have_the_solvers_numbers(ghosts: int, seed: int) -> None:
    layout = Layout.generate(3, 3, seed=seed, ghosts=ghosts)
    settings = {**SETTINGS, "ghosts": ghosts}
    game = resolve(**settings).game(layout)
    start = layout.agent_start, tuple(layout.ghost_starts[:ghosts])
    result = evaluate("chase", layout, side="ghost", **settings)
    assert result.returns[0] == pytest.approx(
        -evaluate_policies("random", "chase", game=game, **EXACT).value(*start), abs=1e-12)
    assert result.minimax[0] == pytest.approx(-solve_game(game=game, **EXACT).value(*start), abs=1e-12)
