"""Pictures of one number per cell (gridghost.drawing.render.value_picture, colour_map) and the renderer's
overlay of them (Renderer.set_overlay). Pixel checks find positions through the public
PictureGeometry and Geometry and compare against the public palette and colour maps."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pygame
import pytest

from gridghost.core.layout import CLASSIC, Layout
from gridghost.core.rules import ACTION_DELTAS, Action
from gridghost.drawing import (
    AGENT_COLOUR,
    ARROW_COLOUR,
    COLOUR_MAPS,
    GHOST_COLOUR,
    GOAL_COLOUR,
    MIN_CELL_SIZE,
    NAN_COLOUR,
    WALL_COLOUR,
    Geometry,
    PictureGeometry,
    Renderer,
    Status,
    colour_map,
    save_image,
    value_picture,
)

from helpers import HORIZONTAL_WALLS, VERTICAL_WALLS

START = Status(cycle=0, max_cycles=100)
VIRIDIS = COLOUR_MAPS["viridis"]
#: Numbers on the classic map, all different: 0 top left up to 19 bottom right.
RAMP = np.arange(20, dtype=float).reshape(4, 5)


def open_layout(rows: int, cols: int) -> Layout:
    """A wall-free white layout with the agent top left, the ghost top right, a goal bottom right."""
    return Layout(colours=[[0] * cols for _ in range(rows)], goals=[(rows - 1, cols - 1)], agent_start=(0, 0),
                  ghost_start=(0, cols - 1))


def pixel(picture: np.ndarray, xy: tuple[int, int]) -> tuple[int, ...]:
    x, y = xy
    return tuple(int(v) for v in picture[y, x])


def cell_pixels(picture: np.ndarray, geometry, cell: tuple[int, int], inset: int = 0) -> np.ndarray:
    x, y, w, h = geometry.cell_rect(cell)
    return picture[y + inset:y + h - inset, x + inset:x + w - inset]


def colours_in(pixels: np.ndarray) -> set[tuple[int, ...]]:
    return {tuple(int(v) for v in colour) for colour in np.unique(pixels.reshape(-1, 3), axis=0)}


def differing_cells(a: np.ndarray, b: np.ndarray, geometry) -> set[tuple[int, int]]:
    return {(r, c) for r in range(geometry.rows) for c in range(geometry.cols)
            if not np.array_equal(cell_pixels(a, geometry, (r, c)), cell_pixels(b, geometry, (r, c)))}


def arrow_pixels(picture: np.ndarray, geometry, cell: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The arrow's pixels in ``cell`` as offsets ``(dx, dy)`` from the cell's centre."""
    x, y, w, h = geometry.cell_rect(cell)
    ys, xs = np.nonzero((picture[y:y + h, x:x + w] == ARROW_COLOUR).all(axis=2))
    cx, cy = geometry.cell_centre(cell)
    return xs + x - cx, ys + y - cy


def assert_points(dx: np.ndarray, dy: np.ndarray, action: int, size: int) -> None:
    """The arrow's wide part (its head) and its tip lie on the side of the cell's centre that
    ``action`` moves to, and the arrow is centred across that direction."""
    d_row, d_col = ACTION_DELTAS[action]
    along, across = dx * d_col + dy * d_row, -dx * d_row + dy * d_col
    head = np.abs(across) > 0.12 * size
    assert head.any() and (along[head] > 0).all()
    assert along.max() > 0.2 * size and abs(across.mean()) < 0.03 * size


# -- colours ---------------------------------------------------------------------------------------

def test_the_highest_number_gets_the_maps_last_colour_and_the_lowest_its_first() -> None:
    for name, colours in COLOUR_MAPS.items():
        picture = value_picture(CLASSIC, RAMP, cmap=name, number_format=None)
        geometry = PictureGeometry(CLASSIC)
        assert pixel(picture, geometry.cell_centre((3, 4))) == colours[-1], name
        assert pixel(picture, geometry.cell_centre((0, 0))) == colours[0], name
        # the colours in between are ordered like the numbers: no two cells alike
        centres = {pixel(picture, geometry.cell_centre(cell)) for cell in CLASSIC.cells()}
        assert len(centres) == 20


def test_colour_map_interpolates_between_its_colours_and_clips_beyond_its_ends() -> None:
    ramp = [(0, 0, 0), (200, 100, 50)]
    colours = colour_map([-1.0, 0.0, 0.5, 1.0, 2.0], cmap=ramp, vmin=0.0, vmax=1.0)
    assert colours.dtype == np.uint8 and colours.shape == (5, 3)
    assert colours.tolist() == [[0, 0, 0], [0, 0, 0], [100, 50, 25], [200, 100, 50], [200, 100, 50]]
    # without vmin and vmax the finite values' extremes are the ends
    assert colour_map([3, 5, np.nan], cmap=ramp).tolist() == [[0, 0, 0], [200, 100, 50], list(NAN_COLOUR)]


def test_equal_numbers_all_get_the_middle_colour() -> None:
    assert colour_map(np.full((2, 2), 7.0)).tolist() == [[list(VIRIDIS[5])] * 2] * 2
    assert colour_map([1.0, 9.0], vmin=4.0, vmax=4.0).tolist() == [list(VIRIDIS[5])] * 2


def test_nan_and_masked_cells_are_neutral_grey_and_unlabelled() -> None:
    values = np.ma.masked_array(RAMP.copy(), mask=np.zeros((4, 5), dtype=bool))
    values[1, 1] = np.nan
    values[2, 0] = np.ma.masked
    picture = value_picture(CLASSIC, values)  # numbers written in the other cells
    geometry = PictureGeometry(CLASSIC)
    for cell in ((1, 1), (2, 0)):
        assert colours_in(cell_pixels(picture, geometry, cell, inset=geometry.wall_width)) == {NAN_COLOUR}
    assert len(colours_in(cell_pixels(picture, geometry, (1, 2), inset=geometry.wall_width))) > 2  # a number


def test_numbers_are_written_in_their_own_cells_only_where_there_is_one() -> None:
    values = RAMP.copy()
    values[0, 0] = np.nan
    written, bare = value_picture(CLASSIC, values), value_picture(CLASSIC, values, number_format=None)
    assert differing_cells(written, bare, PictureGeometry(CLASSIC)) == set(CLASSIC.cells()) - {(0, 0)}
    assert np.array_equal(written[-40:], bare[-40:])  # the colour bar is the same
    two_places = value_picture(CLASSIC, values, number_format="{:.2f}")
    assert not np.array_equal(two_places, written)


# -- arrows ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("action", list(Action), ids=[a.name.lower() for a in Action])
@pytest.mark.parametrize("numbers", [None, "{:.1f}"], ids=["bare", "numbers"])
def test_an_arrow_points_the_way_its_action_moves(action, numbers) -> None:
    layout = open_layout(3, 3)
    policy = np.full((3, 3), -1)
    policy[1, 1] = action
    picture = value_picture(layout, np.zeros((3, 3)), policy, number_format=numbers)
    geometry = PictureGeometry(layout)
    dx, dy = arrow_pixels(picture, geometry, (1, 1))
    if numbers is not None:  # the arrow stands above the number: measure from its own centre
        dy = dy + round(0.1 * geometry.cell_size)
    assert_points(dx, dy, action, geometry.cell_size)
    # no other cell has an arrow: -1 draws none
    assert all(len(arrow_pixels(picture, geometry, cell)[0]) == 0 for cell in layout.cells() if cell != (1, 1))


def test_masked_actions_draw_no_arrow() -> None:
    policy = np.ma.masked_array(np.full((4, 5), 2), mask=np.ones((4, 5), dtype=bool))
    policy.mask[0, 0] = False
    picture = value_picture(CLASSIC, RAMP, policy, number_format=None)
    geometry = PictureGeometry(CLASSIC)
    assert {cell for cell in CLASSIC.cells() if len(arrow_pixels(picture, geometry, cell)[0])} == {(0, 0)}


# -- the layout, marks, title, colour bar and size -----------------------------------------------------

def test_walls_and_goals_are_drawn_over_the_colours() -> None:
    picture = value_picture(CLASSIC, RAMP, number_format=None)
    geometry = PictureGeometry(CLASSIC)
    size = geometry.cell_size
    for r in range(3):
        for c in range(5):
            x, y, _, _ = geometry.cell_rect((r, c))
            on_edge = pixel(picture, (x + size // 2, y + size)) == WALL_COLOUR
            assert on_edge == ((r, c) in HORIZONTAL_WALLS), ("below", r, c)
    for r in range(4):
        for c in range(4):
            x, y, _, _ = geometry.cell_rect((r, c))
            on_edge = pixel(picture, (x + size, y + size // 2)) == WALL_COLOUR
            assert on_edge == ((r, c) in VERTICAL_WALLS), ("right of", r, c)
    framed = {cell for cell in CLASSIC.cells() if GOAL_COLOUR in colours_in(cell_pixels(picture, geometry, cell))}
    assert framed == set(CLASSIC.goals)


def test_marks_draw_the_agent_and_the_ghost_on_their_cells() -> None:
    marks = {(3, 4): "ghost", (0, 2): "agent"}
    picture = value_picture(CLASSIC, RAMP, marks=marks)
    geometry = PictureGeometry(CLASSIC)
    assert pixel(picture, geometry.cell_centre((3, 4))) == GHOST_COLOUR
    assert pixel(picture, geometry.cell_centre((0, 2))) == AGENT_COLOUR
    assert differing_cells(picture, value_picture(CLASSIC, RAMP), geometry) == set(marks)


def test_the_colour_bar_runs_from_the_first_colour_to_the_last_and_is_labelled() -> None:
    geometry = PictureGeometry(CLASSIC)
    picture = value_picture(CLASSIC, RAMP)
    x, y, width, height = geometry.bar_rect
    assert pixel(picture, (x, y + height // 2)) == VIRIDIS[0]
    assert pixel(picture, (x + width - 1, y + height // 2)) == VIRIDIS[-1]
    lx, ly, lw, lh = geometry.labels_rect
    labels = picture[ly:ly + lh, lx:lx + lw]
    assert len(colours_in(labels)) > 2
    # other ends, other labels
    assert not np.array_equal(value_picture(CLASSIC, RAMP, vmax=40.0)[ly:ly + lh, lx:lx + lw], labels)
    # nothing to show: a grey bar and no labels
    empty = value_picture(CLASSIC, np.full((4, 5), np.nan))
    assert pixel(empty, (x + width // 2, y + height // 2)) == NAN_COLOUR
    assert len(colours_in(empty[ly:ly + lh, lx:lx + lw])) == 1


def test_a_title_is_written_above_the_grid() -> None:
    titled = PictureGeometry(CLASSIC, title=True)
    picture = value_picture(CLASSIC, RAMP, title="Optimal agent")
    assert picture.shape == titled.shape
    x, y, width, height = titled.title_rect
    assert height > 0 and len(colours_in(picture[y:y + height, x:x + width])) > 2
    assert picture.shape[0] > value_picture(CLASSIC, RAMP).shape[0]


@pytest.mark.parametrize("cell_size", [MIN_CELL_SIZE, 40, 61])
def test_the_picture_size_follows_the_cell_size(cell_size) -> None:
    geometry = PictureGeometry(CLASSIC, cell_size)
    policy = np.zeros((4, 5), dtype=int)
    policy[0, 0] = -1
    picture = value_picture(CLASSIC, RAMP, policy, cell_size=cell_size)
    assert picture.shape == geometry.shape and picture.dtype == np.uint8
    assert geometry.grid_rect[2:] == (5 * cell_size, 4 * cell_size)
    assert pixel(picture, geometry.cell_centre((0, 0))) == VIRIDIS[0]


def test_a_picture_is_deterministic_and_opens_no_window() -> None:
    first = value_picture(CLASSIC, RAMP, RAMP.astype(int) % 4, title="t", marks={(1, 1): "ghost"})
    assert np.array_equal(first, value_picture(CLASSIC, RAMP, RAMP.astype(int) % 4, title="t", marks={(1, 1): "ghost"}))
    assert pygame.display.get_surface() is None


def test_a_picture_saved_as_png_reads_back_the_same(tmp_path) -> None:
    picture = value_picture(CLASSIC, RAMP, RAMP.astype(int) % 4, title="values")
    path = save_image(picture, tmp_path / "values.png")
    read = pygame.surfarray.array3d(pygame.image.load(str(path))).transpose(1, 0, 2)
    assert np.array_equal(read, picture)


# -- bad input -------------------------------------------------------------------------------------

def picture_of(**kwargs):
    return lambda: value_picture(**{"layout": CLASSIC, "values": RAMP, **kwargs})


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (picture_of(layout="classic"), TypeError, "layout must be a gridghost.Layout"),
        (picture_of(values=np.ones((5, 4))), ValueError, r"values must have shape \(4, 5\)"),
        (picture_of(values=np.full((4, 5), "a")), TypeError, "values must hold real numbers"),
        (picture_of(values=np.ones((4, 5), dtype=bool)), TypeError, "values must hold real numbers"),
        (picture_of(values=np.full((4, 5), np.inf)), ValueError, "values must hold finite numbers or NaN"),
        (picture_of(vmin=float("nan")), ValueError, "vmin must be a finite number"),
        (picture_of(vmax=float("inf")), ValueError, "vmax must be a finite number"),
        (picture_of(vmin="0"), TypeError, "vmin must be a finite number"),
        (picture_of(vmin=5.0, vmax=1.0), ValueError, "vmin must not exceed vmax: vmin is 5, vmax is 1"),
        (picture_of(vmin=50.0), ValueError, r"the largest value \(vmax=None\) is 19"),
        (picture_of(policy=np.zeros((4, 5))), TypeError, "policy must hold integer actions"),
        (picture_of(policy=np.zeros((4, 5), dtype=bool)), TypeError, "policy must hold integer actions"),
        (picture_of(policy=np.zeros((4, 4), dtype=int)), ValueError, r"policy must have shape \(4, 5\)"),
        (picture_of(policy=np.eye(4, 5, 1, dtype=int) * 4), ValueError,
         r"policy must hold actions in -1..3 \(-1: no arrow\), got 4 at \(0, 1\)"),
        (picture_of(policy=-2 * np.ones((4, 5), dtype=int)), ValueError, r"got -2 at \(0, 0\)"),
        (picture_of(cmap="jet"), ValueError, "unknown cmap 'jet'"),
        (picture_of(cmap=[(0, 0, 0)]), ValueError, "cmap must hold at least two RGB colours"),
        (picture_of(cmap=[(0, 0, 0), (0, 0, 300)]), ValueError, "cmap's colours must be RGB numbers in 0..255"),
        (picture_of(cmap=object()), TypeError, "cmap must be a name"),
        (picture_of(marks={(4, 0): "ghost"}), ValueError, r"marks \(4, 0\) lies outside"),
        (picture_of(marks={(0, 0): "dog"}), ValueError, "unknown mark 'dog'"),
        (picture_of(marks=[(0, 0)]), TypeError, "marks must be a mapping"),
        (picture_of(title=3), TypeError, "title must be a str"),
        (picture_of(number_format="{:d}"), ValueError, "number_format must format one number"),
        (picture_of(number_format="{0} {1}"), ValueError, "number_format must format one number"),
        (picture_of(number_format=2), TypeError, "number_format must be a str"),
        (picture_of(cell_size=2), ValueError, f"cell_size must be >= {MIN_CELL_SIZE}"),
        (lambda: colour_map(["a"]), TypeError, "values must hold real numbers"),
        (lambda: Renderer(CLASSIC).set_overlay(np.ones(3)), ValueError, r"values must have shape \(4, 5\)"),
        (lambda: Renderer(CLASSIC).set_overlay(RAMP, np.ones((4, 5))), TypeError, "policy must hold integer"),
        (lambda: Renderer(CLASSIC).set_overlay(RAMP, opacity=2), ValueError, r"opacity must lie in \[0, 1\]"),
        (lambda: Renderer(CLASSIC).set_overlay(None, vmin=2, vmax=1), ValueError, "vmin must not exceed vmax"),
    ],
)
def test_bad_input_is_refused_naming_the_argument(call, error, message) -> None:
    with pytest.raises(error, match=message):
        call()


def test_a_refused_overlay_leaves_the_old_one() -> None:
    renderer = Renderer(CLASSIC)
    renderer.set_overlay(RAMP)
    before = renderer.frame((0, 2), (3, 4), START)
    with pytest.raises(ValueError, match="policy"):
        renderer.set_overlay(RAMP * 2, np.full((4, 5), 9))
    assert np.array_equal(renderer.frame((0, 2), (3, 4), START), before)


# -- the renderer's overlay ------------------------------------------------------------------------

def test_an_overlay_tints_the_cells_with_numbers_and_clearing_it_restores_the_frame() -> None:
    renderer = Renderer(CLASSIC)
    plain = renderer.frame((0, 2), (3, 4), START)
    values = RAMP.copy()
    values[2, 2] = values[0, 4] = np.nan
    renderer.set_overlay(values)
    tinted = renderer.frame((0, 2), (3, 4), START)
    assert differing_cells(plain, tinted, renderer.geometry) == set(CLASSIC.cells()) - {(2, 2), (0, 4)}
    renderer.set_overlay(None)
    assert np.array_equal(renderer.frame((0, 2), (3, 4), START), plain)
    renderer.set_overlay(values, RAMP.astype(int) % 4)
    renderer.set_overlay()
    assert np.array_equal(renderer.frame((0, 2), (3, 4), START), plain)


def test_an_opaque_overlay_shows_the_maps_colours_under_the_agent_and_the_ghost() -> None:
    renderer = Renderer(CLASSIC)
    renderer.set_overlay(RAMP, opacity=1.0)
    frame, geometry = renderer.frame((0, 2), (3, 4), START), renderer.geometry
    x, y, size, _ = geometry.cell_rect((1, 1))  # a cell with no item, label or wall
    expected = colour_map(RAMP)
    assert pixel(frame, (x + size // 2, y + size // 2)) == tuple(expected[1, 1])
    assert pixel(frame, geometry.cell_centre((0, 0))) == tuple(VIRIDIS[0])
    agent_xy, ghost_xy = geometry.token_centres((0, 2), (3, 4))
    assert pixel(frame, agent_xy) == AGENT_COLOUR and pixel(frame, ghost_xy) == GHOST_COLOUR
    # the walls and the goal frames stay on top
    for r, c in HORIZONTAL_WALLS:
        x, y, _, _ = geometry.cell_rect((r, c))
        assert pixel(frame, (x + size // 2, y + size)) == WALL_COLOUR
    assert all(GOAL_COLOUR in colours_in(cell_pixels(frame, geometry, goal)) for goal in CLASSIC.goals)


def test_an_overlay_of_zero_opacity_draws_nothing_but_its_arrows() -> None:
    renderer = Renderer(CLASSIC)
    plain = renderer.frame((0, 2), (3, 4), START)
    renderer.set_overlay(RAMP, opacity=0.0)
    assert np.array_equal(renderer.frame((0, 2), (3, 4), START), plain)
    policy = np.full((4, 5), -1)
    policy[1, 1], policy[2, 0] = Action.UP, Action.RIGHT
    renderer.set_overlay(RAMP, policy, opacity=0.0)
    arrows = renderer.frame((0, 2), (3, 4), START)
    assert differing_cells(plain, arrows, renderer.geometry) == {(1, 1), (2, 0)}
    for cell in ((1, 1), (2, 0)):
        assert_points(*arrow_pixels(arrows, renderer.geometry, cell), int(policy[cell]), renderer.geometry.cell_size)


def test_an_overlay_of_arrows_alone_leaves_the_cells_colours() -> None:
    renderer = Renderer(CLASSIC)
    plain = renderer.frame((0, 2), (3, 4), START)
    policy = np.ma.masked_array(np.full((4, 5), Action.LEFT), mask=True)
    policy.mask[3, 3] = False
    renderer.set_overlay(policy=policy)
    frame = renderer.frame((0, 2), (3, 4), START)
    assert differing_cells(plain, frame, renderer.geometry) == {(3, 3)}
    assert_points(*arrow_pixels(frame, renderer.geometry, (3, 3)), Action.LEFT, renderer.geometry.cell_size)


def test_the_overlay_is_not_part_of_the_plain_background() -> None:
    renderer = Renderer(CLASSIC)
    empty, marked = pygame.Surface(renderer.geometry.size), pygame.Surface(renderer.geometry.size)
    renderer.draw_background(empty)
    renderer.set_overlay(RAMP, np.zeros((4, 5), dtype=int))
    renderer.draw_background(marked)
    assert np.array_equal(pygame.surfarray.array3d(empty), pygame.surfarray.array3d(marked))
    assert renderer.frame((0, 2), (3, 4), START).shape == Geometry(CLASSIC).shape


@pytest.mark.parametrize("clone", [copy.deepcopy, lambda r: pickle.loads(pickle.dumps(r))], ids=["deepcopy", "pickle"])
def test_a_copied_renderer_keeps_its_overlay(clone) -> None:
    renderer = Renderer(CLASSIC)
    renderer.set_overlay(RAMP, RAMP.astype(int) % 4, cmap="diverging", opacity=0.8)
    frame = renderer.frame((0, 2), (3, 4), START)
    twin = clone(renderer)
    assert np.array_equal(twin.frame((0, 2), (3, 4), START), frame)
    twin.set_overlay(None)
    assert np.array_equal(renderer.frame((0, 2), (3, 4), START), frame)  # the original keeps its own
