"""Layout: the classic map matches docs/game.md, custom maps are validated, layouts are values."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from gridghost.core.layout import CLASSIC, COLOURS, Layout

from helpers import HORIZONTAL_WALLS, VERTICAL_WALLS

# The classic map as docs/game.md tabulates it: cell -> (colour, items, text).
DESIGN_TABLE = {
    (0, 0): ("green", ("dog",), ""),
    (0, 1): ("red", (), ""),
    (0, 2): ("white", (), "Start"),
    (0, 3): ("white", (), ""),
    (0, 4): ("white", ("dog", "two_notes"), ""),
    (1, 0): ("white", (), ""),
    (1, 1): ("green", (), ""),
    (1, 2): ("white", (), ""),
    (1, 3): ("white", ("flower",), ""),
    (1, 4): ("green", (), ""),
    (2, 0): ("red", (), ""),
    (2, 1): ("green", (), ""),
    (2, 2): ("white", ("one_note",), ""),
    (2, 3): ("red", (), ""),
    (2, 4): ("white", (), ""),
    (3, 0): ("red", (), ""),
    (3, 1): ("white", (), "Ziel"),
    (3, 2): ("green", ("two_notes",), ""),
    (3, 3): ("white", ("two_flowers",), ""),
    (3, 4): ("white", (), "Stopp"),
}


def small(**overrides) -> Layout:
    """A 2x3 open map; keyword arguments replace its fields."""
    fields = dict(colours=[[0, 1, 2], [2, 1, 0]], goals=[(1, 2)], agent_start=(0, 0), ghost_start=(1, 0))
    fields.update(overrides)
    return Layout(**fields)


def test_classic_matches_the_design_table() -> None:
    assert (CLASSIC.rows, CLASSIC.cols) == (4, 5)
    for (r, c), (colour, items, text) in DESIGN_TABLE.items():
        assert CLASSIC.colour_name(r, c) == colour
        assert COLOURS[CLASSIC.colours[r, c]] == colour
        assert CLASSIC.items_at(r, c) == items
        assert CLASSIC.text_at(r, c) == text
    assert CLASSIC.goals == ((3, 1), (3, 4))
    assert (CLASSIC.agent_start, CLASSIC.ghost_start) == ((0, 2), (3, 4))
    assert {tuple(map(int, rc)) for rc in np.argwhere(CLASSIC.walls_horizontal)} == HORIZONTAL_WALLS
    assert {tuple(map(int, rc)) for rc in np.argwhere(CLASSIC.walls_vertical)} == VERTICAL_WALLS


@pytest.mark.parametrize(
    ("cell", "flags"),
    [((0, 0), (1, 0, 0)), ((0, 4), (1, 0, 1)), ((1, 3), (0, 1, 0)), ((3, 3), (0, 1, 0)), ((2, 2), (0, 0, 1)),
     ((1, 1), (0, 0, 0))],
)
def test_has_item_flags_follow_the_item_names(cell, flags) -> None:
    assert CLASSIC.has_item(*cell) == flags


def test_blocked_reads_walls_and_border_both_ways() -> None:
    for r, c in HORIZONTAL_WALLS:
        assert CLASSIC.blocked((r, c), (r + 1, c)) and CLASSIC.blocked((r + 1, c), (r, c))
    for r, c in VERTICAL_WALLS:
        assert CLASSIC.blocked((r, c), (r, c + 1)) and CLASSIC.blocked((r, c + 1), (r, c))
    assert not CLASSIC.blocked((0, 2), (1, 2))
    assert CLASSIC.blocked((0, 2), (-1, 2)) and CLASSIC.blocked((3, 4), (3, 5))
    with pytest.raises(ValueError, match="not adjacent"):
        CLASSIC.blocked((0, 0), (1, 1))


def test_layouts_are_immutable_values() -> None:
    assert small() == small() and hash(small()) == hash(small())
    assert small() != small(ghost_start=(0, 1))
    assert pickle.loads(pickle.dumps(CLASSIC)) == CLASSIC
    assert copy.deepcopy(CLASSIC) == CLASSIC
    with pytest.raises(AttributeError, match="immutable"):
        CLASSIC.rows = 5  # type: ignore[misc]
    with pytest.raises(ValueError, match="read-only"):
        CLASSIC.colours[0, 0] = 1


def test_layout_of_any_size_and_walls() -> None:
    walls = np.zeros((6, 7), dtype=bool)
    walls[2, :6] = True  # a horizontal wall with a gap at the right
    layout = Layout(
        colours=np.zeros((7, 7), dtype=int), goals=[(6, 0)], agent_start=(0, 0), ghost_start=(6, 6),
        walls_horizontal=walls,
    )
    assert layout.shape == (7, 7)
    assert layout.blocked((2, 0), (3, 0)) and not layout.blocked((2, 6), (3, 6))
    assert len(layout.reachable_from((0, 0))) == 49


@pytest.mark.parametrize(
    ("overrides", "error", "message"),
    [
        (dict(colours=[[0, 1, 3], [0, 0, 0]]), ValueError, "colours must hold ids 0..2"),
        (dict(colours=[0, 1, 2]), ValueError, "rows x cols"),
        (dict(colours=[[0.0, 1.0, 2.0], [0.0, 0.0, 0.0]]), TypeError, "integer colour ids"),
        (dict(colours=[[0]], goals=[(0, 0)], agent_start=(0, 0), ghost_start=(0, 0)), ValueError, "two cells"),
        (dict(walls_horizontal=np.zeros((2, 3), bool)), ValueError, r"walls_horizontal must have shape \(1, 3\)"),
        (dict(walls_vertical=np.zeros((2, 3), bool)), ValueError, r"walls_vertical must have shape \(2, 2\)"),
        (dict(walls_vertical=[[0, 2], [0, 0]]), ValueError, "walls_vertical must hold booleans"),
        (dict(items={(0, 1): ("cat",)}), ValueError, "unknown items"),
        (dict(items={(0, 1): "dog"}), TypeError, "sequence of item names"),
        (dict(items={(5, 1): ("dog",)}), ValueError, "items key"),
        (dict(texts={(0, 1): 3}), TypeError, "must be a str"),
        # malformed arguments name themselves
        (dict(items={(0, 1): None}), TypeError, r"items\[\(0, 1\)\] must be a sequence of item names"),
        (dict(items={(0, 1): 5}), TypeError, r"items\[\(0, 1\)\] must be a sequence of item names"),
        (dict(items={(0, 1): ("dog", 5)}), TypeError, r"items\[\(0, 1\)\] must be a sequence of item names"),
        (dict(colours=[[0, 1, 2], [0, 1]]), ValueError, "colours must be a rectangular array"),
        (dict(colours=[[0, 1, 2], [0, 1, None]]), TypeError, "colours must be a rectangular array of numbers"),
        (dict(walls_horizontal=[[0, 1], [1]]), ValueError, "walls_horizontal must be a rectangular array"),
        (dict(name=None), TypeError, "name must be a str, got None"),
        (dict(name=3), TypeError, "name must be a str"),
        (dict(items={(0, 1): {"dog", "flower"}}), TypeError, r"items\[\(0, 1\)\] must be a sequence .*list or tuple"),
        (dict(items={(0, 1): {"dog": 1}}), TypeError, r"items\[\(0, 1\)\] must be a sequence"),
        (dict(walls_vertical=[[0.0, 1.0], [0.0, 0.0]]), TypeError, "walls_vertical must hold booleans"),
        # texts the renderer cannot draw
        (dict(texts={(0, 1): "a\x00b"}), ValueError, r"texts\[\(0, 1\)\] holds the undrawable character U\+0000"),
        (dict(texts={(0, 1): "\u200b"}), ValueError, r"texts\[\(0, 1\)\] holds the undrawable character U\+200B"),
        (dict(texts={(0, 1): "ok\ud800"}), ValueError, r"texts\[\(0, 1\)\] holds the undrawable character U\+D800"),
        (dict(texts={(0, 1): "two\nlines"}), ValueError, r"texts\[\(0, 1\)\] holds the undrawable character U\+000A"),
        (dict(texts={(0, 1): "\ue000"}), ValueError, r"texts\[\(0, 1\)\] holds the undrawable character U\+E000"),
        (dict(texts={(0, 1): " \u0301 "}), ValueError, r"texts\[\(0, 1\)\] must hold at least one visible character"),
        (dict(goals=[]), ValueError, "at least one cell"),
        (dict(goals=[(2, 0)]), ValueError, r"goals entry \(2, 0\) lies outside the 2x3 grid"),
        (dict(agent_start=(0, 3)), ValueError, "agent_start"),
        (dict(agent_start=(0, 1.0)), TypeError, "agent_start must be a \\(row, col\\) pair of ints"),
        (dict(ghost_start="a"), TypeError, "ghost_start"),
        (dict(ghost_start=(0, 0)), ValueError, "must differ"),
        (dict(agent_start=(1, 2)), ValueError, "must not be a goal"),
        # a wall column cuts the goal off from the start
        (dict(walls_vertical=[[True, False], [True, False]]), ValueError, "cannot be reached from agent_start"),
        # the start enclosed by walls and border
        (dict(walls_vertical=[[True, False], [False, False]], walls_horizontal=[[True, False, False]]),
         ValueError, "cannot be reached"),
    ],
)
def test_malformed_layouts_raise_clear_errors(overrides, error, message) -> None:
    with pytest.raises(error, match=message):
        small(**overrides)


def test_item_lists_may_be_any_iterable_of_names() -> None:
    assert small(items={(0, 1): iter(["dog", "flower"])}).items_at(0, 1) == ("dog", "flower")
    assert small(items={(0, 1): []}).items_at(0, 1) == ()


@pytest.mark.parametrize("text", ["Ziel", "Stopp!", "a b", "Ünïcödé", "☃ 42", "é"])
def test_printable_texts_are_kept(text) -> None:
    assert small(texts={(0, 1): text}).text_at(0, 1) == text


def test_unreachable_ghost_is_rejected() -> None:
    enclosed = dict(walls_vertical=[[False, True], [False, False]], walls_horizontal=[[False, False, True]])
    with pytest.raises(ValueError, match=r"ghost_start \(0, 2\) cannot be reached"):
        small(ghost_start=(0, 2), **enclosed)


def test_layout_tables_cannot_be_changed_behind_its_back() -> None:
    with pytest.raises(TypeError):
        CLASSIC.texts[(0, 0)] = "HACK"  # type: ignore[index]
    with pytest.raises(TypeError):
        CLASSIC.items[(0, 1)] = ("dog",)  # type: ignore[index]
    assert small(name="a") != small(name="b")


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (dict(goals=None), "goals must be an iterable"),
        (dict(goals="(1, 2)"), "goals must be an iterable"),
        (dict(items=[((0, 1), ("dog",))]), "items must be a mapping"),
        (dict(texts="Start"), "texts must be a mapping"),
    ],
)
def test_wrongly_typed_layout_arguments_raise(overrides, message) -> None:
    with pytest.raises(TypeError, match=message):
        small(**overrides)


@pytest.mark.parametrize("cell", [(-1, 3), (4, 0), (0, 5)])
def test_blocked_refuses_a_cell_outside_the_grid(cell) -> None:
    with pytest.raises(ValueError, match="outside the 4x5 grid"):
        CLASSIC.blocked(cell, (0, 3))
    with pytest.raises(ValueError, match=r"starts entry .* lies outside the 4x5 grid"):
        CLASSIC.distances_from([(0, 0), cell])


def test_distances_from_the_nearest_start_follow_the_walls() -> None:
    distance = CLASSIC.distances_from([(0, 2), (3, 4)])
    assert len(distance) == 20 and distance[(0, 2)] == distance[(3, 4)] == 0
    assert distance[(0, 3)] == 1 and distance[(1, 3)] == 3  # the wall below (0, 3): round by (1, 4)


def test_layouts_round_trip_through_json_dicts() -> None:
    import json

    walled = small(walls_vertical=[[True, False], [False, False]], items={(0, 2): ("dog", "two_notes")},
                   texts={(1, 1): "Mitte"}, name="walled")
    for layout in (CLASSIC, walled, small()):
        data = json.loads(json.dumps(layout.to_dict()))
        assert Layout.from_dict(data) == layout


@pytest.mark.parametrize(
    ("data", "error", "message"),
    [({"goals": [[1, 2]]}, ValueError, r"missing \['agent_start', 'colours', 'ghost_start'\]"),
     ({**CLASSIC.to_dict(), "doors": []}, ValueError, r"unknown \['doors'\]"),
     ({**CLASSIC.to_dict(), "items": [[0, 0]]}, TypeError, "'items' must be a list of \\[row, col, value\\] triples"),
     ([1, 2], TypeError, "a layout dict must be a mapping")],
)
def test_bad_layout_dicts_are_refused(data, error, message) -> None:
    with pytest.raises(error, match=message):
        Layout.from_dict(data)
