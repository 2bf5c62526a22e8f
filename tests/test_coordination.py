"""Coordination: the three exact numbers of a map (one minimax ghost, independent chasers, the team
optimum), the staged check that stops at the first number that fails, the map generator whose
every level asks a team to coordinate, and the disk cache of its levels."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
from pathlib import Path

import numpy as np
import pytest

import gridghost
from gridghost import maps
from gridghost.core.game import Game
from gridghost.core.layout import CLASSIC, Layout
from gridghost.core.rules import Side
from gridghost.core.slip import LongitudinalSlip, NoSlip, PerpendicularSlip
from gridghost.maps import MapGenerator, cache_dir, clear_level_cache, user_cache_dir
from gridghost.maps import levels as levels_module
from gridghost.planning import (
    Coordination,
    check_coordination,
    coordination_numbers,
    is_coordination_map,
    iteration,
    solve_agent,
    solve_game,
)
from gridghost.planning import coordination as coordination_module
from gridghost.planning import solve as solve_module
from gridghost.planning.coordination import _chasers
from gridghost.planning.iteration import reachable_response

#: A cheap coordination generator: 4x4 levels solve in well under a second.
SMALL = dict(rows=4, cols=4, ghosts=2, coordination=True, num_levels=10)
#: sha256 of the to_dict() JSON of the levels 2 and 4 of SMALL (from start_level=2), and their
#: success probabilities, computed on main before the check was staged (commit 45485b9): every
#: candidate's three numbers solved, then the thresholds applied.
PINNED_SMALL = "72f98f3eea1f2c77187cf619eed2e84782f48b8c58708834cf1453005fbe1be6"
PINNED_SMALL_SUCCESS = [0.0, 0.08400000000000002]
#: SMALL from level 2 on: its first levels are among the cheapest to find.
FROM_TWO = {**SMALL, "start_level": 2}

def _digest(layouts) -> str:
    digest = hashlib.sha256()
    for layout in layouts:
        digest.update(json.dumps(layout.to_dict(), sort_keys=True).encode())
    return digest.hexdigest()


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty disk cache in ``tmp_path``, and no level solved in this process."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("GRIDGHOST_CACHE", str(folder))
    clear_level_cache()
    yield folder
    clear_level_cache()


def _no_solving(*args, **kwargs):
    raise AssertionError("a level was solved")


def _first_candidate(*args, **kwargs) -> Coordination:
    """A stand-in for the check that accepts every candidate: the level is its first candidate."""
    return Coordination(1.0, 1.0, 0.0)


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


# -- the staged check --------------------------------------------------------------------------------
def test_the_staged_check_stops_at_the_first_number_that_fails(monkeypatch) -> None:
    held_by_one = Layout.generate(4, 4, 1, ghosts=2, num_goals=2)  # one ghost already holds the agent
    free = Layout.generate(4, 4, 6, ghosts=2, num_goals=2)  # even the team optimum lets the agent through
    assert coordination_numbers(held_by_one).one_ghost < 0.5
    assert coordination_numbers(free).one_ghost >= 0.5 and coordination_numbers(free).team > 0.1
    # the chasers' best response takes hundreds of sweeps, the games a few: it is solved last
    monkeypatch.setattr(coordination_module, "solve_agent", _no_solving)
    monkeypatch.setattr(coordination_module, "reachable_response", _no_solving)
    assert check_coordination(held_by_one) is None and check_coordination(free) is None
    with pytest.raises(AssertionError, match="a level was solved"):
        coordination_numbers(free)


def test_the_staged_levels_are_the_levels_of_before(cache: Path, monkeypatch) -> None:
    """Cold (solved, written to disk) and warm (read back, nothing solved) give the levels pinned
    before the check was staged and before there was a cache, success probabilities included."""
    generator = MapGenerator(**FROM_TWO)
    cold = [generator.level(index) for index in (2, 4)]
    assert _digest(cold) == PINNED_SMALL
    assert [generator.level_success(index) for index in (2, 4)] == PINNED_SMALL_SUCCESS
    assert check_coordination(cold[1]) == coordination_numbers(cold[1])  # a level passes with its numbers
    files = sorted(path.name for path in cache.glob("levels/*/*.json"))
    assert files == ["2.json", "4.json"]
    clear_level_cache()
    monkeypatch.setattr(gridghost.planning, "check_coordination", _no_solving)
    again = MapGenerator(**FROM_TWO)
    assert [again.level(index) for index in (2, 4)] == cold
    assert [again.level_success(index) for index in (2, 4)] == PINNED_SMALL_SUCCESS
    clear_level_cache()
    monkeypatch.setenv("GRIDGHOST_CACHE", "off")  # no disk cache: the levels are solved again
    with pytest.raises(AssertionError, match="a level was solved"):
        MapGenerator(**FROM_TWO)


# -- the disk cache --------------------------------------------------------------------------------
def test_the_cache_folder_is_the_variables_else_the_users_cache(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("GRIDGHOST_CACHE", str(tmp_path / "mine"))
    assert cache_dir() == tmp_path / "mine"
    monkeypatch.setenv("GRIDGHOST_CACHE", "off")
    assert cache_dir() is None
    monkeypatch.setenv("GRIDGHOST_CACHE", "")
    with pytest.raises(ValueError, match="GRIDGHOST_CACHE is set but empty"):
        cache_dir()
    monkeypatch.delenv("GRIDGHOST_CACHE")
    assert cache_dir() == user_cache_dir()
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert user_cache_dir() == tmp_path / "xdg" / "gridghost"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")  # not absolute: ignored, as the XDG specification says
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert user_cache_dir() == tmp_path / "home" / ".cache" / "gridghost"
    monkeypatch.setattr("sys.platform", "darwin")
    assert user_cache_dir() == tmp_path / "home" / "Library" / "Caches" / "gridghost"
    monkeypatch.setattr("sys.platform", "win32")
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "local"))
    assert user_cache_dir() == tmp_path / "local" / "gridghost" / "Cache"


def test_each_setting_that_changes_the_levels_has_its_own_files(cache: Path, monkeypatch) -> None:
    monkeypatch.setattr(gridghost.planning, "check_coordination", _first_candidate)

    def folders() -> set[str]:
        return {path.name for path in (cache / "levels").iterdir()}

    MapGenerator(**SMALL)
    seen = folders()
    assert len(seen) == 1
    MapGenerator(4, 4, ghosts=2, coordination=True, num_levels=3, start_level=0)  # the same levels: no new files
    assert folders() == seen
    changes = [dict(rows=5), dict(cols=5), dict(ghosts=3), dict(loops=0.2), dict(num_goals=3), dict(walls="none"),
               dict(slip=LongitudinalSlip(0.1)), dict(slip=PerpendicularSlip(0.2))]
    for change in changes:
        MapGenerator(**{**SMALL, **change})
        assert len(folders()) == len(seen) + 1, change
        seen = folders()
    installed = importlib.metadata.version
    for module, name, value in ((levels_module, "LEVELS_VERSION", levels_module.LEVELS_VERSION + 1),
                                (importlib.metadata, "version", lambda name: "99.0.0" if name == "gridghost"
                                 else installed(name))):
        monkeypatch.setattr(module, name, value)
        clear_level_cache()
        MapGenerator(**SMALL)
        assert len(folders()) == len(seen) + 1, name
        seen = folders()
    # a level's file holds its key: the settings, the versions and its index
    entries = [json.loads(path.read_text()) for path in cache.glob("levels/*/0.json")]
    assert all(entry["index"] == 0 for entry in entries) and len(entries) == len(seen)
    assert {"rows", "cols", "options", "slip", "levels", "format", "gridghost", "numpy"} <= set(entries[0]["key"])
    assert sorted(entry["key"]["gridghost"] for entry in entries).count("99.0.0") == 1


@pytest.mark.parametrize(("content", "reason"), [
    (b"{not json", "it is not JSON"),
    (b"\xff\xfe", "it is not JSON"),
    (b"[1, 2]", "it is not a level file"),
    (b'{"key": {}, "index": 0, "layout": {}, "success": 0.0}', "another generator's level"),
])
def test_a_corrupt_or_foreign_cache_file_is_refused_and_replaced(cache: Path, monkeypatch, content: bytes,
                                                                 reason: str) -> None:
    monkeypatch.setattr(gridghost.planning, "check_coordination", _first_candidate)
    level = MapGenerator(**SMALL).level(1)
    path = next(cache.glob("levels/*/1.json"))
    good = path.read_bytes()
    path.write_bytes(content)
    clear_level_cache()
    with pytest.warns(RuntimeWarning, match=f"ignores the level cache file .*1.json.*{reason}"):
        assert MapGenerator(**SMALL).level(1) == level
    assert path.read_bytes() == good  # solved again and written back


def test_a_cache_file_of_another_level_or_with_a_bad_map_is_refused(cache: Path, monkeypatch) -> None:
    monkeypatch.setattr(gridghost.planning, "check_coordination", _first_candidate)
    generator = MapGenerator(**SMALL)
    generator.level(1)
    one, zero = next(cache.glob("levels/*/1.json")), next(cache.glob("levels/*/0.json"))
    one.write_bytes(zero.read_bytes())  # level 0's file in level 1's place
    entry = json.loads(zero.read_text())
    entry["layout"]["goals"] = [[9, 9]]
    zero.write_text(json.dumps(entry))
    clear_level_cache()
    with pytest.warns(RuntimeWarning, match="0.json'?: its map is invalid"):
        again = MapGenerator(**SMALL)  # builds level 0
    with pytest.warns(RuntimeWarning, match="1.json'?: it holds another generator's level"):
        assert again.level(1) == generator.level(1)


def test_an_unwritable_cache_costs_a_warning_not_the_level(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(gridghost.planning, "check_coordination", _first_candidate)
    blocked = tmp_path / "a file"
    blocked.write_text("")
    monkeypatch.setenv("GRIDGHOST_CACHE", str(blocked))  # a file where the folder should be
    clear_level_cache()
    with pytest.warns(RuntimeWarning, match="could not write the level cache file"):
        generator = MapGenerator(**SMALL)
    assert generator.level(0).name == "level-0-4x4-coordination"
    clear_level_cache()


# -- the whole level set at once --------------------------------------------------------------------
def test_a_level_set_is_the_same_whatever_the_number_of_workers() -> None:
    generator = MapGenerator(difficulty=0, num_levels=4, start_level=20)
    clear_level_cache()
    together = generator.levels(workers=2)
    clear_level_cache()
    alone = generator.levels(workers=1)
    assert together == alone == [generator.level(index) for index in range(20, 24)]
    assert [layout.name for layout in together] == [f"level-{index}-5x5-d0" for index in range(20, 24)]


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    (dict(workers=0), ValueError, "workers must be an int >= 1 or None"),
    (dict(workers=1.5), TypeError, "workers must be an int >= 1 or None"),
    (dict(progress_bar=1), TypeError, "progress_bar must be a bool"),
])
def test_bad_level_set_arguments_are_named(kwargs: dict, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        MapGenerator(4, 4, num_levels=2).levels(**kwargs)


def test_an_unbounded_generator_has_no_level_set() -> None:
    with pytest.raises(ValueError, match="levels\\(\\) lists a bounded level set; this generator has num_levels=None"):
        MapGenerator(4, 4).levels()


#: 4x4 two-ghost candidates: cheap, and between them every number on both sides of its threshold.
CANDIDATES = [Layout.generate(4, 4, seed, ghosts=2, num_goals=2) for seed in range(6)]


def _full_numbers(layout: Layout) -> tuple[float, float, float]:
    """The three numbers from the solutions' own success probabilities, over every state."""
    game, team = Game(layout, LongitudinalSlip(0.2)), Game(layout, LongitudinalSlip(0.2), ghosts=2)
    start = layout.agent_start, list(layout.ghost_starts[:2])
    return (solve_game(game=game).success_probability(layout.agent_start, layout.ghost_start),
            solve_agent(game=team, ghost="chase").success_probability(*start),
            solve_game(game=team).success_probability(*start))


@pytest.mark.parametrize("layout", CANDIDATES, ids=lambda layout: layout.name)
def test_the_numbers_over_the_reachable_states_are_those_over_every_state(layout: Layout) -> None:
    numbers = coordination_numbers(layout)
    assert numbers == pytest.approx(_full_numbers(layout), abs=1e-12)
    # each side's greedy actions, solved from the start alone, are the full solve's where reached
    team = Game(layout, LongitudinalSlip(0.2), ghosts=2)
    full = solve_agent(game=team, ghost="chase")
    model = full.model
    joints = np.argmax(full._ghost, axis=0)
    states, actions, value = reachable_response(model, model.start(), joints, Side.AGENT, 0.99, 1e-10)
    assert 0 < len(states) < model.num_live
    assert np.array_equal(actions, full._agent_actions[states])
    assert value == pytest.approx(full.value(*full.start), abs=1e-9)


def test_a_number_near_its_threshold_is_solved_over_every_state(monkeypatch) -> None:
    layout = CANDIDATES[1]
    calls = []
    full = solve_module._Solution.success_probability
    monkeypatch.setattr(solve_module._Solution, "success_probability",
                        lambda self, *args, **kwargs: calls.append(self) or full(self, *args, **kwargs))
    coordination_numbers(layout)
    assert calls == []  # no number of this map lies within 1e-6 of its threshold
    monkeypatch.setattr(coordination_module, "_NEAR", 2.0)  # every number is "near" its threshold
    assert coordination_numbers(layout) == pytest.approx(_full_numbers(layout), abs=1e-12)
    assert len(calls) == 3 + 3  # the check's three, then _full_numbers' three


def test_a_response_whose_greedy_actions_are_not_shown_final_is_solved_over_every_state(monkeypatch) -> None:
    layout = CANDIDATES[1]  # its values still change after the sweep within the tolerance
    team = Game(layout, LongitudinalSlip(0.2), ghosts=2)
    full = solve_agent(game=team, ghost="chase")
    model, joints = full.model, np.argmax(full._ghost, axis=0)
    assert reachable_response(model, model.start(), joints, Side.AGENT, 0.99, 1e-10) is not None
    monkeypatch.setattr(iteration, "_SETTLE_SWEEPS", 0)  # no sweep past the tolerance to show them final
    assert reachable_response(model, model.start(), joints, Side.AGENT, 0.99, 1e-10) is None
    assert _chasers(team, (layout.agent_start, list(layout.ghost_starts[:2])), 0.99, 100) is None
    assert coordination_numbers(layout) == pytest.approx(_full_numbers(layout), abs=1e-12)
