"""Maps as text: Layout.from_text / to_text are lossless and canonical, and every mistake in a map
text is reported with its line and column."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gridghost.core.layout import CLASSIC, ITEMS, Layout

# A valid map; the error tests below change one line of it. Lines are numbered from 1.
BASE = [
    "+---+---+---+",  # 1
    "| A   .   r |",  # 2
    "+   +---+   +",  # 3
    "| G   .   * |",  # 4
    "+---+---+---+",  # 5
    "",               # 6
    "name: base",     # 7
    "x: red, goal",   # 8
]


def text_with(**lines: str) -> str:
    """BASE with some lines replaced: ``line4="..."`` replaces line 4."""
    result = list(BASE)
    for key, value in lines.items():
        result[int(key[4:]) - 1] = value
    return "\n".join(result)


def error_at(text: str, line: int, column: int, words: str) -> None:
    """Reading ``text`` raises a ValueError naming ``line`` and ``column`` and matching ``words``."""
    with pytest.raises(ValueError, match=re.escape(f"line {line}, column {column} (1-based)")) as info:
        Layout.from_text(text)
    assert re.search(words, str(info.value)), str(info.value)


# -- reading ------------------------------------------------------------------------------------

def test_base_map_reads_as_drawn() -> None:
    layout = Layout.from_text(text_with())
    assert layout.shape == (2, 3)
    assert (layout.agent_start, layout.ghost_start, layout.goals) == ((0, 0), (1, 0), ((1, 2),))
    assert layout.walls_horizontal.tolist() == [[False, True, False]]
    assert layout.walls_vertical.tolist() == [[False, False], [False, False]]
    assert layout.colours.tolist() == [[0, 0, 1], [0, 0, 0]]
    assert layout.name == "base"


def test_legend_symbols_set_colour_flags_items_and_text() -> None:
    layout = Layout.from_text(
        "+---+---+---+\n"
        "| A | Zi  . |\n"
        "+   +   +   +\n"
        "| .   s   . |\n"
        "+---+---+---+\n"
        "Zi: GREEN goal, two_notes dog, \"Ziel \\\"1\\\" #\"   # a comment\n"
        "s: red, ghost, flower\n"
    )
    assert layout.goals == ((0, 1),)
    assert layout.colour_name(0, 1) == "green"
    assert layout.items_at(0, 1) == ("two_notes", "dog")
    assert layout.text_at(0, 1) == 'Ziel "1" #'
    assert layout.walls_vertical.tolist() == [[True, False], [False, False]]
    assert layout.name == "custom"
    assert layout.colour_name(1, 1) == "red" and layout.items_at(1, 1) == ("flower",)
    assert layout.ghost_start == (1, 1)


def test_indented_drawing_comments_blank_cells_and_off_centre_symbols() -> None:
    text = """
        # a map inside a Python string, indented like the code around it
        +---+---+---+
        |A       *  |
        # comments may sit inside the drawing
        +   +---+   +
        |  G  .     |
        +---+---+---+

        name: "  spaced # name"
    """
    layout = Layout.from_text(text)
    assert (layout.agent_start, layout.ghost_start, layout.goals) == ((0, 0), (1, 0), ((0, 2),))
    assert layout.name == "  spaced # name"
    assert layout.colours.sum() == 0


def test_legend_right_after_the_drawing_needs_no_blank_line() -> None:
    layout = Layout.from_text("\n".join([*BASE[:5], "name: joined"]))
    assert layout.name == "joined"


# -- writing ------------------------------------------------------------------------------------

def test_classic_round_trips_and_reads_well() -> None:
    text = CLASSIC.to_text()
    assert Layout.from_text(text) == CLASSIC
    lines = text.splitlines()
    assert lines[:3] == ["+---+---+---+---+---+", "| d | r   s   .   D |", "+   +   +   +---+   +"]
    assert "name: classic" in lines
    assert 's: agent, "Start"' in lines and 'S: ghost, goal, "Stopp"' in lines


def test_to_text_is_canonical() -> None:
    text = CLASSIC.to_text()
    assert CLASSIC.to_text() == text
    assert Layout.from_text(text).to_text() == text
    # A differently drawn copy of the same map (other symbols, blanks, comments) writes the same text.
    redrawn = text.replace("| r   z |", "| r   Q |").replace("z: goal", "Q: goal").replace(" .  ", "    ")
    assert Layout.from_text("# redrawn\n" + redrawn).to_text() == text


def test_many_distinct_cells_get_longer_symbols() -> None:
    rows, cols = 10, 12
    layout = Layout(
        colours=[[0] * cols for _ in range(rows)],
        goals=[(rows - 1, cols - 1)],
        agent_start=(0, 0),
        ghost_start=(0, 1),
        texts={(r, c): f"cell {r}/{c}" for r in range(rows) for c in range(cols)},
        name="many",
    )
    text = layout.to_text()
    assert Layout.from_text(text) == layout
    symbols = [line.split(":")[0] for line in text.splitlines() if re.match(r"\S{1,3}:", line)]
    assert len(symbols) == rows * cols and len(set(symbols)) == rows * cols
    assert max(map(len, symbols)) == 2


@pytest.mark.parametrize("name", ["", " x", "x ", "a # b", '"q"', "line\nbreak", "tab\there", "é\u2028ß", "\ud800"])
def test_awkward_names_round_trip(name: str) -> None:
    layout = Layout(colours=[[0, 0]], goals=[(0, 1)], agent_start=(0, 0), ghost_start=(0, 1), name=name)
    assert Layout.from_text(layout.to_text()).name == name


def test_awkward_texts_round_trip() -> None:
    texts = {(0, 0): 'a "quoted" \\ text, # not a comment', (0, 1): "nbsp\u00a0sep\u2028arator", (0, 2): "日本"}
    layout = Layout(colours=[[1, 2, 0]], goals=[(0, 2)], agent_start=(0, 0), ghost_start=(0, 1), texts=texts)
    assert Layout.from_text(layout.to_text()) == layout


# Random layouts: sizes from 1 x N to 3 x 11 and beyond, sparse random walls, colours, items,
# texts and starts; a draw that makes no valid layout (an unreachable goal) is discarded.
_SIZES = st.sampled_from([(1, 2), (1, 7), (2, 1), (3, 11), (11, 3), (2, 2), (4, 5), (5, 4), (6, 6)])
_TEXTS = st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cf", "Cs", "Co", "Cn")), max_size=6)


@st.composite
def layouts(draw: st.DrawFn) -> Layout:
    rows, cols = draw(_SIZES)
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    sparse = st.sampled_from([False, False, False, True])
    agent, ghost = draw(st.lists(st.sampled_from(cells), min_size=2, max_size=2, unique=True))
    goals = draw(st.lists(st.sampled_from([c for c in cells if c != agent]), min_size=1, max_size=3))
    fields = dict(
        colours=[[draw(st.integers(0, 2)) for _ in range(cols)] for _ in range(rows)],
        walls_horizontal=np.array([draw(sparse) for _ in range((rows - 1) * cols)], bool).reshape(rows - 1, cols),
        walls_vertical=np.array([draw(sparse) for _ in range(rows * (cols - 1))], bool).reshape(rows, cols - 1),
        items=draw(st.dictionaries(st.sampled_from(cells), st.lists(st.sampled_from(list(ITEMS)), max_size=3))),
        texts=draw(st.dictionaries(st.sampled_from(cells), _TEXTS)),
        goals=goals,
        agent_start=agent,
        ghost_start=ghost,
        name=draw(st.one_of(st.sampled_from(["custom", "arena 3"]), st.text(max_size=8))),
    )
    try:
        return Layout(**fields)
    except ValueError:
        assume(False)
        raise


@pytest.mark.slow  # a second or more: .ci/run runs the slow group
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(layouts())
def test_random_layouts_round_trip(layout: Layout) -> None:
    text = layout.to_text()
    assert Layout.from_text(text) == layout
    assert Layout.from_text(text).to_text() == text
    assert all(len(line) == 4 * layout.cols + 1 for line in text.splitlines()[: 2 * layout.rows + 1])


# -- errors -------------------------------------------------------------------------------------

def test_error_unknown_symbol() -> None:
    error_at(text_with(line2="| A   .   q |"), 2, 11, "unknown symbol 'q'")


def test_error_two_symbols_in_one_cell() -> None:
    error_at(text_with(line2="| A  . r  r |"), 2, 6, "one symbol")


def test_error_ragged_line() -> None:
    error_at(text_with(line4="| G   .   * |  x"), 4, 14, "ragged")


def test_error_short_line_is_ragged() -> None:
    error_at(text_with(line4="| G   .   *"), 4, 12, "ragged")


def test_error_broken_outer_wall_top() -> None:
    error_at(text_with(line1="+---+   +---+"), 1, 6, "broken outer wall")


def test_error_broken_outer_wall_side() -> None:
    error_at(text_with(line4="  G   .   * |"), 4, 1, "broken outer wall")


def test_error_missing_bottom_wall() -> None:
    error_at("\n".join(BASE[:4]), 5, 1, "broken outer wall.*bottom wall")


def test_error_missing_top_wall() -> None:
    error_at("\n".join(BASE[1:]), 1, 1, "broken outer wall.*top wall")


def test_error_missing_corner() -> None:
    error_at(text_with(line3="+   +-------+"), 3, 9, "a '\\+' is missing")


def test_error_wall_char_between_cells() -> None:
    error_at(text_with(line2="| A - .   r |"), 2, 5, "broken lattice")


def test_error_wall_char_inside_a_cell() -> None:
    error_at(text_with(line4="| G   -   * |"), 4, 7, "broken lattice.*'-' is a wall character")


def test_error_bad_wall_segment() -> None:
    error_at(text_with(line3="+   +-- +   +"), 3, 8, "broken lattice")


def test_error_first_line_of_wrong_width() -> None:
    error_at(text_with(line1="+---+---+--+"), 1, 1, "top wall")


def test_error_no_agent_start() -> None:
    error_at(text_with(line2="| .   .   r |"), 1, 1, "no agent start")


def test_error_two_agent_starts() -> None:
    error_at(text_with(line4="| G   A   * |"), 4, 7, "second agent start; the first is at line 2, column 3")


def test_error_no_ghost_start() -> None:
    error_at(text_with(line4="| .   .   * |"), 1, 1, "no ghost start")


def test_error_two_ghost_starts_through_the_legend() -> None:
    error_at(text_with(line2="| A   .   y |", line8="y: ghost"), 4, 3, "second ghost start; the first is at line 2")


def test_error_no_goal() -> None:
    error_at(text_with(line4="| G   .   . |"), 1, 1, "no goal")


def test_error_goal_unreachable_names_the_goal() -> None:
    error_at(text_with(line3="+   +---+---+", line4="| G   . | * |"), 4, 11, r"goal \(1, 2\) cannot be reached")


def test_error_ghost_unreachable_names_the_ghost() -> None:
    error_at(text_with(line3="+---+---+   +", line4="| G | .   * |"), 4, 3, r"ghost start \(1, 0\) cannot be reached")


def test_error_layout_constructor_errors_name_the_drawing() -> None:
    cols = 4097  # one cell more than MAX_CELLS
    row = "|" + " A   G   * " + " " + "    " * (cols - 3)
    text = "\n".join(["# too big", "+" + "---+" * cols, row[:-1] + "|", "+" + "---+" * cols])
    error_at(text, 2, 1, "MAX_CELLS")


@pytest.mark.parametrize(
    ("line8", "column", "words"),
    [
        ("x red", 1, "a legend line is"),
        ("x: purple", 4, "unknown word 'purple'"),
        ("x: red, green", 9, "one colour"),
        ("x: goal goal", 9, "'goal' is given twice"),
        ("x: agent, ghost", 11, "cannot start on one cell"),
        ("x: agent, goal", 11, "agent cannot start on a goal"),
        ('x: "open', 4, "no closing double quote"),
        ('x: "bad \\q escape"', 4, "not valid"),
        ('x: "one" "two"', 10, "at most one text"),
        ('x: "zero\u200bwidth"', 4, "undrawable character U\\+200B"),
        ("  r: green", 3, "built-in symbol"),
        ("abcd: red", 1, "a legend line is"),
        ("| A |", 1, "drawing line after a blank line"),
    ],
)
def test_error_malformed_legend_lines(line8: str, column: int, words: str) -> None:
    error_at(text_with(line8=line8), 8, column, words)


@pytest.mark.parametrize(
    ("line7", "column", "words"),
    [
        ("name:", 6, "name is missing"),
        ("name: # comment", 6, "name is missing"),
        ('name: "a" b', 11, "after the quoted"),
    ],
)
def test_error_malformed_name_lines(line7: str, column: int, words: str) -> None:
    error_at(text_with(line7=line7), 7, column, words)


def test_error_symbol_defined_twice() -> None:
    error_at(text_with() + "\n  x: green", 9, 3, "defined twice \\(first on line 8\\)")


def test_error_name_given_twice() -> None:
    error_at(text_with() + "\nname: again", 9, 1, "given twice \\(first on line 7\\)")


def test_error_legend_before_the_drawing() -> None:
    error_at("# header\nname: early\n" + "\n".join(BASE[:5]), 2, 1, "starts with its drawing")


def test_error_empty_text() -> None:
    error_at("# only a comment\n\n", 3, 1, "starts with its drawing")


def test_text_must_be_a_str() -> None:
    with pytest.raises(TypeError, match="map text must be a str"):
        Layout.from_text(b"+---+")  # type: ignore[arg-type]


def test_a_tab_inside_a_cell_is_an_unknown_symbol_not_a_blank() -> None:
    row = "|" + " A " + " " + " \t " + " " + " G " + " " + " * " + "|"
    border = "+---+---+---+---+"
    with pytest.raises(ValueError, match=r"line 2, column 7 .*unknown symbol '\\t'"):
        Layout.from_text(f"{border}\n{row}\n{border}\n")
