"""Teams in the map formats: a layout's ghost starts (one per ghost), their checks, and how the map
text and the dict form carry them."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from gridghost.core.layout import CLASSIC, Layout

DRAWING = """
+---+---+---+---+
| *   .   .   G1|
+   +   +   +   +
| .   A   .   . |
+   +---+   +   +
| G2  .   .   G |
+---+---+---+---+
name: trio
"""


def _layout(ghost_start: object, **changes: object) -> Layout:
    fields = dict(colours=np.zeros((3, 4), int), goals=[(0, 0)], agent_start=(1, 1), ghost_start=ghost_start)
    fields.update(changes)
    return Layout(**fields)  # type: ignore[arg-type]


def test_numbered_ghost_symbols_give_the_starts_in_the_ghosts_order() -> None:
    layout = Layout.from_text(DRAWING)
    assert layout.ghost_starts == ((2, 3), (0, 3), (2, 0))
    assert layout.ghost_start == (2, 3)
    assert Layout.from_text(layout.to_text()) == layout
    assert "G1" in layout.to_text() and "G2" in layout.to_text()


def test_a_team_map_round_trips_through_dict_and_pickle() -> None:
    layout = _layout([(2, 3), (0, 3)])
    assert Layout.from_dict(layout.to_dict()) == layout
    assert layout.to_dict()["ghost_start"] == [[2, 3], [0, 3]]
    assert pickle.loads(pickle.dumps(layout)) == layout
    assert layout != _layout([(0, 3), (2, 3)])  # the order is the ghosts'


def test_one_ghost_maps_keep_their_forms() -> None:
    assert CLASSIC.ghost_starts == (CLASSIC.ghost_start,)
    assert CLASSIC.to_dict()["ghost_start"] == [3, 4]
    assert _layout([(2, 3)]) == _layout((2, 3))
    assert "G1" not in CLASSIC.to_text()


def test_legend_words_name_the_team_members() -> None:
    text = DRAWING.replace("G1", "S ") + "S: ghost1, goal\n"
    layout = Layout.from_text(text)
    assert layout.ghost_starts[1] == (0, 3) and (0, 3) in layout.goals
    assert "ghost1, goal" in layout.to_text()


@pytest.mark.parametrize(("ghost_start", "message"), [
    ([(2, 3), (2, 3)], r"distinct cells, one per ghost; \[\(2, 3\)\] repeat"),
    ([(2, 3), (1, 1)], "agent_start and ghost_start must differ"),
    ([(0, 1), (0, 2), (0, 3), (2, 3), (2, 2)], "at most gridghost.core.MAX_GHOSTS = 4 ghosts"),
    ([(2, 3), (5, 0)], r"ghost_start\[1\] \(5, 0\) lies outside"),
])
def test_bad_team_starts_are_refused(ghost_start: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _layout(ghost_start)


def test_an_unreachable_team_start_is_refused() -> None:
    walls = np.zeros((3, 3), bool)
    walls[:, 2] = True  # column 3 cut off
    with pytest.raises(ValueError, match=r"ghost_start \(0, 3\) cannot be reached"):
        _layout([(1, 2), (0, 3)], walls_vertical=walls)
    with pytest.raises(TypeError, match=r"ghost_start\[1\] must be a \(row, col\) pair"):
        _layout([(1, 2), (0, 3, 1)])


@pytest.mark.parametrize(("change", "message"), [
    (("G1", ". "), "7, column 3 .*a ghost2 start without a ghost1 start"),
    (("G2", "G1"), "a second ghost1 start"),
    (("G ", ". "), "the map has no ghost start"),
])
def test_bad_team_map_text_names_the_line_and_column(change: tuple[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=f"map text line .*{message}"):
        Layout.from_text(DRAWING.replace(*change))


def test_a_cell_starts_one_ghost_at_most() -> None:
    text = DRAWING.replace("G1", "S ") + "S: ghost1, ghost2\n"
    with pytest.raises(ValueError, match=r"line 10, column 12.*one ghost at most"):
        Layout.from_text(text)
