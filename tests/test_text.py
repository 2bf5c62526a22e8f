"""The text picture and the status every picture reports (gridghost.drawing.text): what the lines say,
for any reading a sensor may report, and what a Status refuses."""

from __future__ import annotations

import pytest

import gridghost
from gridghost.core.layout import CLASSIC, Layout
from gridghost.drawing import LEGEND, Status, text_picture

from helpers import COLOUR_READINGS, FixedReadingSensor

# -- the text picture --------------------------------------------------------------------------------

def test_the_text_picture_marks_a_caught_agent_and_puts_the_status_first() -> None:
    lines = text_picture(CLASSIC, (3, 4), (3, 4), "cycle 9/100: caught by ghost").splitlines()
    assert lines[0] == "cycle 9/100: caught by ghost" and lines[-1] == LEGEND
    assert lines[2 + 2 * 3][1 + 4 * 4 : 4 + 4 * 4] == " X*"  # white, both on it, a goal
    assert "A" not in "".join(lines[1:-1]) and "G" not in "".join(lines[1:-1])


def test_the_text_picture_draws_walls_on_their_edges_and_no_status_line_when_none_is_given() -> None:
    layout = Layout(colours=[[1, 2], [0, 0]], goals=[(1, 1)], agent_start=(0, 0), ghost_start=(1, 0),
                    walls_horizontal=[[False, True]], walls_vertical=[[True], [False]])
    assert text_picture(layout, (0, 0), (1, 0)).splitlines() == [
        "+---+---+",
        "|rA |g  |",
        "+   +---+",
        "| G    *|",
        "+---+---+",
        LEGEND,
    ]


# -- the status --------------------------------------------------------------------------------------

def test_status_lines_say_what_happened() -> None:
    status = Status(4, 50, "ghost", intended_action="left", actual_action="stay", slipped=True,
                    ghost_action="up", color_measurement=2)
    assert status.lines() == ("cycle 4/50: ghost to move", "agent: tried left, slipped: stay", "ghost: up",
                              "colour reading: green")
    assert Status(9, 50, None, ending="reached goal").headline() == "cycle 9/50: reached goal"
    assert Status(9, None, "agent").headline() == "cycle 9: agent to move"


@pytest.mark.parametrize(("reading", "shown"), COLOUR_READINGS.values(), ids=COLOUR_READINGS.keys())
def test_the_status_shows_any_colour_reading(reading, shown) -> None:
    status = Status(0, 10, "ghost", intended_action="down", actual_action="down", color_measurement=reading)
    assert status.lines()[3] == f"colour reading: {shown}"

    env = gridghost.env(render_mode="ansi", sensors=[FixedReadingSensor(CLASSIC, reading)], max_cycles=10,
                        reference_infos=True)  # numeric infos cannot hold every reading drawn here
    env.reset(seed=0)
    env.step(gridghost.Action.DOWN)
    assert env.render().startswith("cycle 0/10: ghost to move\n")


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: Status(0, 10, None), ValueError, "exactly one of to_move and ending"),
        (lambda: Status(0, 10, "agent", ending="caught by ghost"), ValueError, "exactly one of to_move and ending"),
        (lambda: Status(-1, 10), ValueError, "cycle and max_cycles must be >= 0"),
        (lambda: Status(1.5, 10), TypeError, "cycle must be an int and max_cycles an int or None"),
        (lambda: Status(True, 10), TypeError, "cycle must be an int"),
        (lambda: Status(0, "10"), TypeError, "max_cycles an int or None, got 0 and '10'"),
        (lambda: Status(0, 10, 1), TypeError, "to_move must be a str or None, got 1"),
        (lambda: Status(0, 10, intended_action=3), TypeError, "intended_action must be a str or None"),
    ],
)
def test_status_rejects_bad_input(call, error, message) -> None:
    with pytest.raises(error, match=message):
        call()
