"""The shipped maps: names and loading, classic equals CLASSIC, every map round-trips, and the maps
said to be contested are contested under minimax play."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gridghost import maps
from gridghost.core.layout import CLASSIC, Layout
from gridghost.planning import solve_game

ROOT = Path(__file__).resolve().parent.parent
#: Maps designed so that optimal play by both sides leaves the agent's success between 0.3 and 0.7.
CONTESTED = ["corridor", "guarded", "maze9", "pillars"]


def test_names_are_sorted_and_hold_the_promised_maps() -> None:
    names = maps.names()
    assert names == sorted(names)
    assert {"classic", "open_arena", "corridor", "maze9", *CONTESTED} <= set(names)
    names.append("scribble")
    assert "scribble" not in maps.names()  # a fresh list every call


def test_classic_is_the_reference_map() -> None:
    assert maps.load("classic") == CLASSIC


@pytest.mark.parametrize("name", maps.names())
def test_every_map_loads_and_round_trips(name: str) -> None:
    layout = maps.load(name)
    assert layout.name == name
    assert Layout.from_text(layout.to_text()) == layout
    assert Layout.from_dict(layout.to_dict()) == layout
    assert maps.load(name) is layout  # cached


def test_map_shapes() -> None:
    arena = maps.load("open_arena")
    assert not arena.walls_horizontal.any() and not arena.walls_vertical.any()
    assert maps.load("corridor").shape == (3, 11)
    assert maps.load("maze9").shape == (9, 9)


def test_unknown_name_lists_the_maps() -> None:
    with pytest.raises(ValueError, match=r"no shipped map is called 'atlantis'.*classic, corridor"):
        maps.load("atlantis")
    with pytest.raises(TypeError, match="name must be a str"):
        maps.load(3)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", CONTESTED)
def test_contested_maps_are_contested(name: str) -> None:
    layout = maps.load(name)
    game = solve_game(layout, gamma=0.99)
    success = game.success_probability(layout.agent_start, layout.ghost_start, horizon=100)
    assert 0.3 <= success <= 0.7, success


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_outcome_script_prints_each_map() -> None:
    out = subprocess.run(
        [sys.executable, "benchmarks/map_outcomes.py", "--maps", "classic", "pillars"],
        cwd=ROOT, capture_output=True, text=True, check=True, timeout=120,
    ).stdout
    lines = {line.split()[0]: line.split() for line in out.splitlines()[1:]}
    assert lines["classic"][1:4] == ["4x5", "1.000", "0.000"]
    assert 0.3 <= float(lines["pillars"][2]) <= 0.7
