"""Drawing a team of ghosts: the pygame renderer, the text picture, the status, recordings and the
value pictures take the team's cells (ghost 0's first) and draw each ghost in its own colour or
symbol; ghosts sharing a cell stay visible; a one-ghost team draws exactly what one cell draws."""

from __future__ import annotations

import itertools

import numpy as np
import pygame
import pytest

from gridghost.core.layout import CLASSIC, Layout
from gridghost.drawing import (
    AGENT_COLOUR,
    BELIEF_COLOUR,
    CELL_COLOURS,
    GHOST_COLOUR,
    GHOST_COLOURS,
    GOAL_COLOUR,
    LEGEND,
    MARKS,
    WALL_COLOUR,
    Geometry,
    PictureGeometry,
    Renderer,
    Status,
    save_image,
    team_legend,
    team_marks,
    text_picture,
    value_picture,
)

START = Status(cycle=0, max_cycles=100)
RAMP = np.arange(20, dtype=float).reshape(4, 5)
# Cases of (agent, ghost cells), the cells all different unless said.
APART = ((0, 2), [(3, 4), (0, 0), (2, 3), (1, 4)])


def pixel(frame: np.ndarray, xy: tuple[int, int]) -> tuple[int, ...]:
    x, y = xy
    return tuple(int(v) for v in frame[y, x])


def cell_pixels(frame: np.ndarray, geometry, cell: tuple[int, int]) -> np.ndarray:
    x, y, w, h = geometry.cell_rect(cell)
    return frame[y:y + h, x:x + w]


def differing_cells(a: np.ndarray, b: np.ndarray, geometry) -> set[tuple[int, int]]:
    return {cell for cell in CLASSIC.cells()
            if not np.array_equal(cell_pixels(a, geometry, cell), cell_pixels(b, geometry, cell))}


def luma(colour: tuple[int, int, int]) -> float:
    return 0.299 * colour[0] + 0.587 * colour[1] + 0.114 * colour[2]


# -- colours ---------------------------------------------------------------------------------------

def test_each_ghost_has_its_own_colour_apart_from_the_rest_of_the_picture() -> None:
    assert len(GHOST_COLOURS) == 4 and GHOST_COLOURS[0] == GHOST_COLOUR
    others = {AGENT_COLOUR, GOAL_COLOUR, WALL_COLOUR, BELIEF_COLOUR, *(c for pair in CELL_COLOURS for c in pair)}
    for a, b in itertools.combinations(GHOST_COLOURS, 2):
        assert np.linalg.norm(np.subtract(a, b)) > 90, (a, b)
        assert abs(luma(a) - luma(b)) > 15, (a, b)  # apart in grey too
    for colour in GHOST_COLOURS:
        assert all(np.linalg.norm(np.subtract(colour, other)) > 40 for other in others), colour


# -- the pygame renderer ---------------------------------------------------------------------------

@pytest.mark.parametrize("cell_size", [None, 20, 37])
@pytest.mark.parametrize(("agent", "ghost"), [((0, 2), (3, 4)), ((1, 1), (1, 1)), ((3, 0), (0, 4))])
def test_a_team_of_one_draws_what_one_ghost_draws(cell_size, agent, ghost) -> None:
    renderer = Renderer(CLASSIC, cell_size=cell_size)
    status = Status(2, 9, "ghost", intended_action="down", actual_action="down", ghost_action="up")
    one = renderer.frame(agent, ghost, status)
    for team in ([ghost], (ghost,), np.array([ghost])):
        assert np.array_equal(renderer.frame(agent, team, status), one)
    assert text_picture(CLASSIC, agent, [ghost], "x") == text_picture(CLASSIC, agent, ghost, "x")
    geometry = renderer.geometry
    assert geometry.tokens(agent, [ghost]) == ((geometry.token_centres(agent, ghost)[0], geometry.token_radius(
        agent == ghost)), [(geometry.token_centres(agent, ghost)[1], geometry.token_radius(agent == ghost))])


@pytest.mark.parametrize("k", [2, 3, 4])
def test_each_ghost_of_a_team_is_drawn_in_its_colour_on_its_cell(k) -> None:
    agent, ghosts = APART[0], APART[1][:k]
    renderer = Renderer(CLASSIC)
    frame = renderer.frame(agent, ghosts, START)
    _, places = renderer.geometry.tokens(agent, ghosts)
    for colour, (centre, _) in zip(GHOST_COLOURS, places, strict=False):
        assert pixel(frame, centre) == colour
    # only the teammates' cells differ from the picture of ghost 0 alone
    alone = renderer.frame(agent, ghosts[0], START)
    assert differing_cells(frame, alone, renderer.geometry) == set(ghosts[1:])
    # a bigger team differs from the smaller exactly where the new ghost stands
    if k > 2:
        assert differing_cells(frame, renderer.frame(agent, ghosts[:-1], START), renderer.geometry) == {ghosts[-1]}


def test_the_same_cells_in_another_order_swap_the_colours() -> None:
    renderer = Renderer(CLASSIC)
    one = renderer.frame((0, 2), [(3, 4), (0, 0)], START)
    other = renderer.frame((0, 2), [(0, 0), (3, 4)], START)
    geometry = renderer.geometry
    assert pixel(one, geometry.cell_centre((0, 0))) == pixel(other, geometry.cell_centre((3, 4))) == GHOST_COLOURS[1]
    assert pixel(one, geometry.cell_centre((3, 4))) == pixel(other, geometry.cell_centre((0, 0))) == GHOST_COLOUR


@pytest.mark.parametrize(
    ("agent", "ghosts"),
    [
        ((0, 2), [(1, 1), (1, 1)]),                  # two ghosts together
        ((1, 1), [(1, 1), (3, 4), (1, 1)]),          # the agent caught by two of three
        ((1, 1), [(1, 1), (1, 1), (1, 1)]),          # four drawings in one cell
        ((1, 1), [(1, 1), (1, 1), (1, 1), (1, 1)]),  # five: the agent and the whole team
    ],
)
@pytest.mark.parametrize("cell_size", [None, 30])
def test_ghosts_sharing_a_cell_are_all_drawn_side_by_side(agent, ghosts, cell_size) -> None:
    renderer = Renderer(CLASSIC, cell_size=cell_size)
    frame = renderer.frame(agent, ghosts, START)
    agent_place, places = renderer.geometry.tokens(agent, ghosts)
    assert pixel(frame, agent_place[0]) == AGENT_COLOUR
    for colour, (centre, _) in zip(GHOST_COLOURS, places, strict=False):
        assert pixel(frame, centre) == colour
    centres = [agent_place[0], *(centre for centre, _ in places)]
    assert len(set(centres)) == len(centres)
    x, y, size, _ = renderer.geometry.cell_rect((1, 1))
    for cell, ((cx, cy), radius) in zip([agent, *ghosts], [agent_place, *places], strict=True):
        if cell == (1, 1):  # every drawing sharing the cell stays inside it
            assert x < cx - radius and cx + radius < x + size and y < cy - radius and cy + radius < y + size


def test_token_places_refuse_a_count_they_cannot_draw() -> None:
    geometry = Geometry(CLASSIC)
    for count in (0, 6, 2.0, True):
        with pytest.raises(ValueError, match=r"count must be an int in 1\.\.5"):
            geometry.token_places((0, 0), count)


def test_a_team_frame_shows_in_a_window_and_saves_as_png(tmp_path) -> None:
    renderer = Renderer(CLASSIC, fps=1000)
    renderer.show((0, 2), [(3, 4), (0, 0), (0, 0)], START)
    shown = pygame.surfarray.array3d(pygame.display.get_surface()).transpose(1, 0, 2)
    frame = renderer.frame((0, 2), [(3, 4), (0, 0), (0, 0)], START)
    assert np.array_equal(shown, frame)
    renderer.close()
    path = save_image(frame, tmp_path / "team.png")
    assert np.array_equal(pygame.surfarray.array3d(pygame.image.load(str(path))).transpose(1, 0, 2), frame)


@pytest.mark.parametrize(
    ("ghost", "error", "message"),
    [
        ([(3, 4)] * 5, ValueError, "ghost must be one cell or 1..4 cells"),
        ([(3, 4), (4, 0)], ValueError, r"ghost\[1\] \(4, 0\) lies outside"),
        ([(3, 4), "b2"], TypeError, r"ghost\[1\] must be a \(row, col\) pair"),
        ([], TypeError, r"ghost must be a \(row, col\) pair"),
    ],
)
def test_bad_team_cells_are_refused_naming_the_ghost(ghost, error, message) -> None:
    with pytest.raises(error, match=message):
        Renderer(CLASSIC).frame((0, 2), ghost, START)
    with pytest.raises(error, match=message):
        text_picture(CLASSIC, (0, 2), ghost)


# -- the text picture and the status ---------------------------------------------------------------

def text_cell(picture: str, cell: tuple[int, int], status: bool = False) -> str:
    r, c = cell
    return picture.splitlines()[int(status) + 1 + 2 * r][1 + 4 * c:4 + 4 * c]


def test_a_teams_text_picture_marks_ghosts_with_their_start_symbols() -> None:
    agent, ghosts = APART
    picture = text_picture(CLASSIC, agent, ghosts)
    # (3, 4) is a white goal: ghost 0 keeps the goal's *; the others stand on green, red and green
    assert [text_cell(picture, cell) for cell in ghosts] == [" G*", "gG1", "rG2", "gG3"]
    assert text_cell(picture, agent) == " A "
    assert picture.splitlines()[-1] == team_legend(4) != LEGEND
    assert "G3 ghost_3" in team_legend(4) and "G3" not in team_legend(3) and team_legend(1) == LEGEND
    assert "shared cells" not in picture


def test_a_teams_text_picture_shows_who_shares_a_cell() -> None:
    picture = text_picture(CLASSIC, (1, 1), [(2, 0), (1, 1), (2, 0)], "s")
    assert text_cell(picture, (2, 0), status=True) == "rG+"
    assert text_cell(picture, (1, 1), status=True) == "gX "
    assert picture.splitlines()[-2] == "shared cells: (1, 1) A G1; (2, 0) G G2"
    # one ghost: a caught agent is X, as always, with no extra line
    assert text_picture(CLASSIC, (1, 1), (1, 1)).splitlines()[-2].startswith("+---")


def test_a_teams_status_lists_every_ghosts_last_move() -> None:
    status = Status(3, 10, "ghosts", ghost_action=("left", None, "up"))
    assert status.lines()[2] == "ghosts: left, -, up"
    assert Status(3, 10, "ghost", ghost_action="left").lines()[2] == "ghost: left"
    for bad in ((), ("left", 3), ["left"]):
        with pytest.raises(TypeError, match="ghost_action must be a str"):
            Status(3, 10, "ghosts", ghost_action=bad)
    # the panel says what the status says
    renderer = Renderer(CLASSIC)
    assert not np.array_equal(renderer.frame((0, 2), [(3, 4), (0, 0)], status),
                              renderer.frame((0, 2), [(3, 4), (0, 0)], Status(3, 10, "ghosts")))


# -- value pictures with a team's marks ------------------------------------------------------------

def test_team_marks_name_the_ghosts_as_the_env_does() -> None:
    assert team_marks([(3, 4)], agent=(0, 2)) == {(0, 2): ("agent",), (3, 4): ("ghost",)}
    assert team_marks([(3, 4), None, (0, 0)]) == {(3, 4): ("ghost_0",), (0, 0): ("ghost_2",)}
    assert team_marks([(1, 1), (1, 1)], agent=(1, 1)) == {(1, 1): ("agent", "ghost_0", "ghost_1")}
    assert set(MARKS) >= {"agent", "ghost", "ghost_0", "ghost_1", "ghost_2", "ghost_3"}
    for bad, error in (([], ValueError), ([(0, 0)] * 5, ValueError), ("ab", TypeError), ([(0, 0.5)], TypeError)):
        with pytest.raises(error, match="ghosts"):
            team_marks(bad)


def test_a_value_picture_marks_a_team_each_ghost_in_its_colour() -> None:
    geometry = PictureGeometry(CLASSIC)
    policy = np.full((4, 5), 2)
    marks = team_marks([(3, 4), None, (0, 0)], agent=(0, 2))
    picture = value_picture(CLASSIC, RAMP, policy, marks=marks)
    assert pixel(picture, geometry.cell_centre((3, 4))) == GHOST_COLOURS[0]
    assert pixel(picture, geometry.cell_centre((0, 0))) == GHOST_COLOURS[2]
    assert pixel(picture, geometry.cell_centre((0, 2))) == AGENT_COLOUR
    assert differing_cells(picture, value_picture(CLASSIC, RAMP, policy), geometry) == set(marks)
    # "ghost_0" is drawn as the one ghost is
    assert np.array_equal(value_picture(CLASSIC, RAMP, marks={(1, 1): "ghost_0"}),
                          value_picture(CLASSIC, RAMP, marks={(1, 1): "ghost"}))


def test_a_value_picture_draws_marks_sharing_a_cell_side_by_side() -> None:
    geometry = PictureGeometry(CLASSIC)
    picture = value_picture(CLASSIC, RAMP, marks={(1, 1): ("agent", "ghost_0", "ghost_3")})
    places = geometry.token_places((1, 1), 3)
    assert [pixel(picture, centre) for centre, _ in places] == [AGENT_COLOUR, GHOST_COLOURS[0], GHOST_COLOURS[3]]
    one = value_picture(CLASSIC, RAMP, marks={(1, 1): ("ghost",)})
    assert np.array_equal(one, value_picture(CLASSIC, RAMP, marks={(1, 1): "ghost"}))


@pytest.mark.parametrize(
    ("marks", "message"),
    [
        ({(1, 1): ()}, r"marks\[\(1, 1\)\] must be a name"),
        ({(1, 1): ("ghost",) * 6}, r"marks\[\(1, 1\)\] must be a name"),
        ({(1, 1): ("ghost", "ghost_4")}, "unknown mark 'ghost_4'"),
        ({(1, 1): 3}, r"marks\[\(1, 1\)\] must be a name"),
    ],
)
def test_bad_team_marks_are_refused(marks, message) -> None:
    with pytest.raises(ValueError, match=message):
        value_picture(CLASSIC, RAMP, marks=marks)


def test_a_generated_team_map_is_drawn_with_its_team_at_the_starts() -> None:
    layout = Layout.generate(6, 6, 3, ghosts=3)
    renderer = Renderer(layout, cell_size=30)
    frame = renderer.frame(layout.agent_start, layout.ghost_starts, START)
    _, places = renderer.geometry.tokens(layout.agent_start, layout.ghost_starts)
    assert [pixel(frame, centre) for centre, _ in places] == list(GHOST_COLOURS[:3])
    picture = text_picture(layout, layout.agent_start, layout.ghost_starts)
    assert text_cell(picture, layout.ghost_start)[1] == "G"
    assert [text_cell(picture, cell)[1:] for cell in layout.ghost_starts[1:]] == ["G1", "G2"]
