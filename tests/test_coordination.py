"""Coordination: the three exact numbers of a map (one minimax ghost, independent chasers, the team
optimum), and the map generator whose every level asks a team to coordinate."""

from __future__ import annotations

import pytest

from gridghost import maps
from gridghost.core.layout import CLASSIC
from gridghost.core.slip import NoSlip, PerpendicularSlip
from gridghost.maps import MapGenerator
from gridghost.planning import (
    Coordination,
    coordination_numbers,
    is_coordination_map,
    solve_agent,
    solve_game,
)

#: A cheap coordination generator: 4x4 levels solve in well under a second.
SMALL = dict(rows=4, cols=4, ghosts=2, coordination=True, num_levels=10)


@pytest.mark.parametrize(("numbers", "expected"), [
    (Coordination(0.5, 0.5, 0.1), True),
    (Coordination(0.99, 0.97, 0.0), True),
    (Coordination(0.49, 0.9, 0.0), False),
    (Coordination(0.9, 0.49, 0.0), False),
    (Coordination(0.9, 0.9, 0.11), False),
])
def test_a_coordination_map_is_free_to_one_ghost_and_chasers_and_held_by_the_team(numbers: Coordination,
                                                                                  expected: bool) -> None:
    assert is_coordination_map(numbers) is expected


def test_every_level_of_a_coordination_generator_asks_a_team_to_coordinate() -> None:
    generator = MapGenerator(**SMALL)
    for index in (0, 2):
        layout = generator.level(index)
        assert len(layout.ghost_starts) == 2 and len(layout.goals) == 2
        numbers = coordination_numbers(layout)
        assert is_coordination_map(numbers), (index, numbers)
        assert generator.level_success(index) == numbers.team
        # the team optimum holds the agent; the chasers let it through: the coordination is the difference
        start = layout.agent_start, layout.ghost_starts
        assert solve_game(layout, ghosts=2).success_probability(*start) == pytest.approx(numbers.team)
        assert solve_agent(layout, ghost="chase", ghosts=2).success_probability(*start) == pytest.approx(
            numbers.chasers)
    assert generator.level(2) == MapGenerator(**SMALL).level(2)  # levels are functions of their index
    assert generator.level(0).name == "level-0-4x4-coordination"


def test_a_coordination_generator_round_trips_and_measures_under_the_envs_slip() -> None:
    generator = MapGenerator(**SMALL)
    data = generator.to_dict()
    assert data["generator"]["coordination"] is True
    assert MapGenerator.from_dict(data) == generator
    assert "coordination" not in MapGenerator(4, 4, ghosts=2).to_dict()["generator"]
    assert generator != MapGenerator(4, 4, ghosts=2, num_levels=10, walls="maze", loops=0.3, num_goals=2)
    slipping = generator.for_slip(PerpendicularSlip(0.1))
    assert slipping.coordination and slipping.slip == PerpendicularSlip(0.1) and slipping != generator


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    (dict(rows=4, cols=4, coordination=True), ValueError, "coordination=True draws maps for a team: give ghosts=2"),
    (dict(rows=4, cols=4, ghosts=2, coordination=1), TypeError, "coordination must be a bool"),
    (dict(difficulty=2, ghosts=2, coordination=True), ValueError, "cannot go with a difficulty"),
])
def test_bad_coordination_generators_are_refused(kwargs: dict, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        MapGenerator(**kwargs)


def test_coordination_needs_a_team_and_its_starts() -> None:
    with pytest.raises(ValueError, match="ghosts must be 2 or more"):
        coordination_numbers(maps.load("team_ring"), ghosts=1)
    with pytest.raises(ValueError, match="ghosts=2 needs a map with 2 ghost starts"):
        coordination_numbers(CLASSIC)


def test_without_slip_the_numbers_are_certainties() -> None:
    numbers = coordination_numbers(maps.load("team_eight"), slip=NoSlip())
    assert all(value in (0.0, 1.0) for value in numbers)
