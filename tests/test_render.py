"""The pygame renderer (gridghost.drawing.renderer): frame shape, where things are drawn, determinism,
windows and bad input. Pixel checks find positions through the renderer's public Geometry, never
through hard-coded coordinates, and compare against the public palette."""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys

import numpy as np
import pygame
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import gridghost
from gridghost.core.layout import CLASSIC, ITEMS, Layout
from gridghost.core.policies import ChasePolicy, RandomPolicy
from gridghost.drawing import (
    AGENT_COLOUR,
    CELL_COLOURS,
    GHOST_COLOUR,
    GOAL_COLOUR,
    MIN_CELL_SIZE,
    SCREEN_BUDGET,
    WALL_COLOUR,
    Geometry,
    Renderer,
    Status,
    cell_images,
)

from helpers import COLOUR_READINGS, FixedReadingSensor, plain

START = Status(cycle=0, max_cycles=100)


def open_layout(rows: int, cols: int, **kwargs) -> Layout:
    """A wall-free layout with a striped colour pattern, the agent top left, the ghost bottom left
    (top right in a single row) and a goal bottom right."""
    fields = dict(
        colours=[[(r + c) % 3 for c in range(cols)] for r in range(rows)],
        goals=[(rows - 1, cols - 1)],
        agent_start=(0, 0),
        ghost_start=(rows - 1, 0) if rows > 1 else (0, cols - 1),
    )
    return Layout(**{**fields, **kwargs})


def pixel(frame: np.ndarray, xy: tuple[int, int]) -> tuple[int, ...]:
    x, y = xy
    return tuple(int(v) for v in frame[y, x])


def cell_pixels(frame: np.ndarray, geometry: Geometry, cell: tuple[int, int], inset: int = 0) -> np.ndarray:
    x, y, w, h = geometry.cell_rect(cell)
    return frame[y + inset:y + h - inset, x + inset:x + w - inset]


def colours_in(pixels: np.ndarray) -> set[tuple[int, ...]]:
    return {tuple(int(v) for v in colour) for colour in np.unique(pixels.reshape(-1, 3), axis=0)}


def differing_cells(a: np.ndarray, b: np.ndarray, geometry: Geometry) -> set[tuple[int, int]]:
    return {
        (r, c) for r in range(geometry.rows) for c in range(geometry.cols)
        if not np.array_equal(cell_pixels(a, geometry, (r, c)), cell_pixels(b, geometry, (r, c)))
    }


def played_frames(env, seed: int, policy_seed: int = 0, ghost=None):
    """Yield (frame, agent cell, ghost cell) after reset and after every half-turn of a game of a
    random agent against ``ghost`` (by default the chasing ghost)."""
    policies = {"agent": RandomPolicy(seed=policy_seed), "ghost": ghost or ChasePolicy()}
    env.reset(seed=seed)
    yield env.render(), env.agent_pos, env.ghost_pos
    for name in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        env.step(policies[name](observation))
        yield env.render(), env.agent_pos, env.ghost_pos


# -- frames ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", [CLASSIC, open_layout(1, 2), open_layout(3, 7), open_layout(16, 16)],
                         ids=["classic", "1x2", "3x7", "16x16"])
def test_rgb_array_frames_have_the_documented_shape_and_dtype(layout) -> None:
    env = gridghost.env(render_mode="rgb_array", layout=layout)
    env.reset(seed=0)
    frame = env.render()
    assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8
    assert frame.shape == Geometry(layout).shape
    assert frame.flags.writeable and frame.flags.c_contiguous


def test_every_render_returns_a_fresh_array() -> None:
    env = gridghost.env(render_mode="rgb_array")
    env.reset(seed=0)
    first = env.render()
    first[:] = 0
    assert env.render().any()


@pytest.mark.parametrize("layout", [CLASSIC, open_layout(3, 7), open_layout(16, 16)], ids=["classic", "3x7", "16x16"])
def test_agent_and_ghost_are_drawn_where_the_env_says_they_are(layout) -> None:
    env = gridghost.env(render_mode="rgb_array", layout=layout, max_cycles=15)
    geometry = Geometry(layout)
    seen_agent, seen_ghost = set(), set()
    for seed in range(4):
        for frame, agent, ghost in played_frames(env, seed, policy_seed=seed, ghost=RandomPolicy(seed=seed + 10)):
            agent_xy, ghost_xy = geometry.token_centres(agent, ghost)
            assert pixel(frame, agent_xy) == AGENT_COLOUR
            assert pixel(frame, ghost_xy) == GHOST_COLOUR
            # and nowhere else: no other cell's centre shows either colour
            for cell in layout.cells():
                if cell not in (agent, ghost):
                    assert pixel(frame, geometry.cell_centre(cell)) not in (AGENT_COLOUR, GHOST_COLOUR)
            seen_agent.add(agent)
            seen_ghost.add(ghost)
    assert len(seen_agent) >= 4 and len(seen_ghost) >= 3  # several positions were checked


def test_a_caught_agent_is_drawn_beside_the_ghost() -> None:
    env = gridghost.env(render_mode="rgb_array")
    geometry = Geometry(CLASSIC)
    frame, agent, ghost = next(shot for shot in played_frames(env, seed=9, policy_seed=9) if shot[1] == shot[2])
    assert env.game_state.outcome == gridghost.Outcome.CAUGHT
    agent_xy, ghost_xy = geometry.token_centres(agent, ghost)
    assert agent_xy[0] < ghost_xy[0]
    assert pixel(frame, agent_xy) == AGENT_COLOUR and pixel(frame, ghost_xy) == GHOST_COLOUR


def test_walls_are_drawn_on_exactly_the_walled_edges() -> None:
    env = gridghost.env(render_mode="rgb_array")
    env.reset(seed=0)
    frame, geometry = env.render(), Geometry(CLASSIC)
    for r in range(CLASSIC.rows - 1):
        for c in range(CLASSIC.cols):
            x, y, size, _ = geometry.cell_rect((r, c))
            on_edge = pixel(frame, (x + size // 4, y + size))  # the edge below (r, c), off its centre
            assert (on_edge == WALL_COLOUR) == bool(CLASSIC.walls_horizontal[r, c]), (r, c)
    for r in range(CLASSIC.rows):
        for c in range(CLASSIC.cols - 1):
            x, y, size, _ = geometry.cell_rect((r, c))
            on_edge = pixel(frame, (x + size, y + size // 4))  # the edge right of (r, c)
            assert (on_edge == WALL_COLOUR) == bool(CLASSIC.walls_vertical[r, c]), (r, c)
    # the border
    x, y, width, height = geometry.grid_rect
    assert pixel(frame, (x + width // 3, y)) == WALL_COLOUR
    assert pixel(frame, (x, y + height // 3)) == WALL_COLOUR


def test_cells_show_their_colour_and_red_and_green_are_hatched() -> None:
    env = gridghost.env(render_mode="rgb_array")
    env.reset(seed=0)
    frame, geometry = env.render(), Geometry(CLASSIC)
    other_colours = {colour for pair in CELL_COLOURS for colour in pair}
    for cell in CLASSIC.cells():
        found = colours_in(cell_pixels(frame, geometry, cell, inset=geometry.wall_width))
        base, hatch = CELL_COLOURS[CLASSIC.colours[cell]]
        assert {base, hatch} <= found, cell
        assert not (other_colours - {base, hatch}) & found, cell


def test_goal_cells_and_only_they_are_framed() -> None:
    env = gridghost.env(render_mode="rgb_array")
    env.reset(seed=0)
    frame, geometry = env.render(), Geometry(CLASSIC)
    framed = {cell for cell in CLASSIC.cells() if GOAL_COLOUR in colours_in(cell_pixels(frame, geometry, cell))}
    assert framed == set(CLASSIC.goals)


def test_every_item_and_label_is_drawn_inside_its_own_cell() -> None:
    names = list(ITEMS)
    cells = {name: (0, i) for i, name in enumerate(names)}
    bare = open_layout(3, len(names))
    decorated = open_layout(3, len(names), items={cell: [name] for name, cell in cells.items()},
                            texts={(1, 1): "Here", (2, 3): "There"})
    frames = []
    for layout in (bare, decorated):
        env = gridghost.env(render_mode="rgb_array", layout=layout)
        env.reset(seed=0)
        frames.append(env.render())
    assert differing_cells(*frames, Geometry(bare)) == {*cells.values(), (1, 1), (2, 3)}


def test_the_status_panel_reports_the_status() -> None:
    renderer = Renderer(CLASSIC)
    geometry = renderer.geometry
    plain_status = Status(2, 100, "ghost", intended_action="down", actual_action="down", color_measurement=0)
    variants = [
        Status(2, 100, "ghost", intended_action="down", actual_action="down, down", slipped=True, color_measurement=0),
        Status(2, 100, "ghost", intended_action="down", actual_action="down", color_measurement=2),
        Status(2, 100, None, ending="caught by ghost", intended_action="down", actual_action="down",
               color_measurement=0),
        Status(3, 100, "ghost", intended_action="down", actual_action="down", color_measurement=0),
    ]
    before = renderer.frame((0, 2), (3, 4), plain_status)
    _, y, _, height = geometry.panel_rect
    for status in variants:
        after = renderer.frame((0, 2), (3, 4), status)
        changed = np.argwhere((before != after).any(axis=2))
        assert len(changed), status
        assert changed[:, 0].min() >= y and changed[:, 0].max() < y + height  # only the panel changed


def test_the_env_draws_its_state_and_status() -> None:
    env = gridghost.env(render_mode="rgb_array", slip_probability=0.0, max_cycles=1)
    renderer = Renderer(CLASSIC)
    env.reset(seed=0)
    reading = env.infos["agent"]["color_measurement"]
    expected = Status(0, 1, "agent", color_measurement=reading)
    assert np.array_equal(env.render(), renderer.frame((0, 2), (3, 4), expected))
    env.step(gridghost.Action.DOWN)
    reading = env.infos["agent"]["color_measurement"]
    expected = Status(0, 1, "ghost", intended_action="down", actual_action="down", color_measurement=reading)
    assert np.array_equal(env.render(), renderer.frame((1, 2), (3, 4), expected))
    env.step(gridghost.Action.UP)
    expected = Status(1, 1, None, ending="out of time", intended_action="down", actual_action="down",
                      ghost_action="up", color_measurement=reading)
    assert np.array_equal(env.render(), renderer.frame((1, 2), (2, 4), expected))


# -- determinism and the game's trajectory -----------------------------------------------------------

def test_the_same_state_gives_the_same_pixels() -> None:
    a = gridghost.env(render_mode="rgb_array", max_cycles=20)
    b = gridghost.env(render_mode="rgb_array", max_cycles=20)
    frames_a = [frame for frame, *_ in played_frames(a, seed=5)]
    frames_b = [frame for frame, *_ in played_frames(b, seed=5)]
    assert len(frames_a) > 3
    assert all(np.array_equal(x, y) for x, y in zip(frames_a, frames_b, strict=True))
    assert np.array_equal(a.render(), a.render())
    assert not np.array_equal(frames_a[0], frames_a[1])


def test_rendering_does_not_change_the_trajectory() -> None:
    def record(render_mode):
        env = gridghost.env(render_mode=render_mode, slip_probability=0.5, max_cycles=30)
        rng = np.random.default_rng(1)
        env.reset(seed=11)
        out = []
        for name in env.agent_iter():
            if render_mode:
                env.render()
            observation, reward, termination, truncation, info = env.last()
            out.append((name, plain(observation), reward, plain(info), env.agent_pos, env.ghost_pos))
            env.step(None if termination or truncation else int(rng.integers(4)))
        return out, env.np_random.bit_generator.state

    assert record("rgb_array") == record(None)


@pytest.mark.parametrize("clone", [copy.deepcopy, lambda e: pickle.loads(pickle.dumps(e))], ids=["deepcopy", "pickle"])
def test_an_env_that_has_rendered_copies_and_its_copy_draws_the_same(clone) -> None:
    env = gridghost.env(render_mode="rgb_array")
    env.reset(seed=2)
    env.step(1)
    frame = env.render()
    twin = clone(env)
    assert np.array_equal(twin.render(), frame)
    twin.step(0)
    env.step(0)
    assert np.array_equal(twin.render(), env.render())


def test_importing_gridghost_does_not_import_pygame() -> None:
    code = (
        "import sys, gridghost; env = gridghost.env(render_mode='ansi'); env.reset(seed=0); env.render(); "
        "assert 'pygame' not in sys.modules, 'pygame was imported'"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


# -- human mode ------------------------------------------------------------------------------------

def test_human_mode_draws_in_a_window_that_close_closes_and_render_reopens() -> None:
    env = gridghost.env(render_mode="human")
    env.reset(seed=0)  # draws
    window = pygame.display.get_surface()
    assert window is not None and window.get_size() == Geometry(CLASSIC).size
    geometry = Geometry(CLASSIC)
    env.step(gridghost.Action.DOWN)  # draws again
    window_frame = pygame.surfarray.array3d(window).transpose(1, 0, 2)
    assert pixel(window_frame, geometry.cell_centre(env.agent_pos)) == AGENT_COLOUR
    assert env.render() is None

    env.close()
    assert not pygame.display.get_init()
    env.close()  # idempotent
    assert env.render() is None  # reopens
    assert pygame.display.get_surface() is not None
    env.close()
    assert not pygame.display.get_init()


def test_closing_a_never_rendered_env_is_harmless() -> None:
    for mode in (None, "ansi", "rgb_array", "human"):
        env = gridghost.env(render_mode=mode)
        env.close()
        env.close()
        assert env.render_mode == mode


def test_rgb_array_after_close_draws_the_same_again() -> None:
    env = gridghost.env(render_mode="rgb_array")
    env.reset(seed=0)
    before = env.render()
    env.close()
    assert np.array_equal(env.render(), before)


def test_rgb_array_never_opens_a_window() -> None:
    pygame.display.quit()
    env = gridghost.env(render_mode="rgb_array")
    env.reset(seed=0)
    env.render()
    assert not pygame.display.get_init()


def test_rendering_before_reset_raises() -> None:
    for mode in ("rgb_array", "human", "ansi"):
        with pytest.raises(RuntimeError, match="call reset"):
            gridghost.env(render_mode=mode).render()


# -- geometry ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(1, 2), (4, 5), (16, 16), (9, 40), (40, 9), (40, 60), (60, 40), (64, 64)])
def test_pictures_fit_a_laptop_screen(shape) -> None:
    geometry = Geometry(open_layout(*shape))
    assert geometry.width <= SCREEN_BUDGET[0] and geometry.height <= SCREEN_BUDGET[1]
    x, y, width, height = geometry.grid_rect
    assert x >= geometry.wall_width and y >= geometry.wall_width
    assert x + width + geometry.wall_width <= geometry.width
    assert y + height + geometry.wall_width <= geometry.panel_rect[1]
    assert geometry.cell_rect((shape[0] - 1, shape[1] - 1)) == (x + width - geometry.cell_size,
                                                                   y + height - geometry.cell_size,
                                                                   geometry.cell_size, geometry.cell_size)


def test_a_layout_too_large_for_the_screen_gets_the_smallest_cells() -> None:
    assert Geometry(open_layout(2, 2048)).cell_size == MIN_CELL_SIZE


def test_an_explicit_cell_size_is_used() -> None:
    renderer = Renderer(CLASSIC, cell_size=40)
    frame = renderer.frame((0, 2), (3, 4), START)
    assert renderer.geometry.cell_size == 40 and frame.shape == renderer.geometry.shape
    assert pixel(frame, renderer.geometry.cell_centre((0, 2))) == AGENT_COLOUR


# -- belief overlay --------------------------------------------------------------------------------

def test_a_belief_overlay_tints_exactly_the_cells_with_weight() -> None:
    renderer = Renderer(CLASSIC)
    belief = np.zeros((4, 5))
    belief[1, 1], belief[2, 3] = 0.75, 0.25
    without = renderer.frame((0, 2), (3, 4), START)
    with_belief = renderer.frame((0, 2), (3, 4), START, belief=belief)
    assert differing_cells(without, with_belief, renderer.geometry) == {(1, 1), (2, 3)}
    # the likelier cell is tinted more strongly
    shift = np.abs(with_belief.astype(int) - without)
    geometry = renderer.geometry
    assert cell_pixels(shift, geometry, (1, 1)).mean() > cell_pixels(shift, geometry, (2, 3)).mean()


def test_an_estimate_marks_its_cell() -> None:
    renderer = Renderer(CLASSIC)
    without = renderer.frame((0, 2), (3, 4), START)
    marked = renderer.frame((0, 2), (3, 4), START, estimate=(2, 0))
    assert differing_cells(without, marked, renderer.geometry) == {(2, 0)}


# -- bad input to the renderer ---------------------------------------------------------------------

@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: Renderer("classic"), TypeError, "layout must be a gridghost.Layout"),
        (lambda: Renderer(CLASSIC, cell_size=2), ValueError, f"cell_size must be >= {MIN_CELL_SIZE}"),
        (lambda: Renderer(CLASSIC, cell_size=30.0), TypeError, "cell_size must be an int"),
        (lambda: Renderer(CLASSIC, fps=0), ValueError, "fps must be a finite number > 0"),
        (lambda: Renderer(CLASSIC).frame((4, 0), (3, 4), START), ValueError,
         r"agent \(4, 0\) lies outside the 4x5 grid"),
        (lambda: Renderer(CLASSIC).frame((0, 0), (0, -1), START), ValueError, "ghost"),
        (lambda: Renderer(CLASSIC).frame((0, 0), "b2", START), TypeError, "ghost must be a"),
        (lambda: Renderer(CLASSIC).frame((0, 0), (3, 4), "agent to move"), TypeError, "status must be a"),
        (lambda: Renderer(CLASSIC).frame((0, 0), (3, 4), START, belief=np.ones((5, 4))), ValueError,
         r"belief must have shape \(4, 5\)"),
        (lambda: Renderer(CLASSIC).frame((0, 0), (3, 4), START, belief=-np.ones((4, 5))), ValueError,
         "belief must hold finite, non-negative"),
        (lambda: Renderer(CLASSIC).frame((0, 0), (3, 4), START, estimate=(9, 9)), ValueError, "estimate"),
        (lambda: Renderer(CLASSIC).draw(pygame.Surface((10, 10)), (0, 0), (3, 4), START), ValueError,
         "surface must have size"),
    ],
)
def test_renderer_rejects_bad_input(call, error, message) -> None:
    with pytest.raises(error, match=message):
        call()



# -- robustness --------------------------------------------------------------------------------------

def changes_outside(a: np.ndarray, b: np.ndarray, geometry: Geometry, cells) -> int:
    """How many pixels differ between two frames outside the rectangles of ``cells``."""
    changed = (a != b).any(axis=2)
    for cell in cells:
        x, y, w, h = geometry.cell_rect(cell)
        changed[y:y + h, x:x + w] = False
    return int(changed.sum())


def window_size() -> tuple[int, int]:
    return pygame.display.get_surface().get_size()


def test_human_envs_of_different_sizes_each_size_the_one_window_for_their_layout() -> None:
    small = open_layout(2, 3)
    envs = {"classic": (gridghost.env(render_mode="human", max_cycles=50), Geometry(CLASSIC).size),
            "small": (gridghost.env(render_mode="human", layout=small, max_cycles=50), Geometry(small).size)}
    assert envs["classic"][1] != envs["small"][1]
    rng = np.random.default_rng(0)
    for env, size in envs.values():
        env.reset(seed=0)  # draws
        assert window_size() == size
    for turn in range(5):
        for env, size in envs.values():
            if not env.agents:
                env.reset(seed=turn)
            else:
                _, _, termination, truncation, _ = env.last()
                env.step(None if termination or truncation else int(rng.integers(4)))  # draws
            assert window_size() == size
            assert env.render() is None
            assert window_size() == size
    for env, _ in envs.values():
        env.close()
    assert not pygame.display.get_init()


def test_agent_interfaces_of_different_sizes_step_through_a_shared_window() -> None:
    small = open_layout(2, 3)
    interfaces = [(gridghost.AgentInterface(step_delay=0, use_particle_filter=False), Geometry(CLASSIC).size),
                  (gridghost.AgentInterface(step_delay=0, use_particle_filter=False, layout=small),
                   Geometry(small).size)]
    for seed in range(2):
        for interface, _ in interfaces:
            interface.reset(seed)
        for _ in range(2):
            for interface, size in interfaces:
                if not interface.is_terminated():
                    interface.step(1)
                    assert window_size() == size
    for interface, _ in interfaces:
        interface.close()


def test_closing_a_renderer_leaves_the_window_to_the_one_drawing_in_it() -> None:
    small = open_layout(2, 3)
    first, second = Renderer(CLASSIC), Renderer(small)
    first.show((0, 2), (3, 4), START)
    second.show((0, 0), (1, 0), START)
    first.close()  # the window shows the second renderer's picture: it stays open
    assert pygame.display.get_init() and window_size() == Geometry(small).size
    second.show((0, 1), (1, 0), START)
    first.show((0, 2), (3, 4), START)  # reopens its own size
    assert window_size() == Geometry(CLASSIC).size
    first.close()  # it drew last: the window closes ...
    assert not pygame.display.get_init()
    second.show((0, 0), (1, 0), START)  # ... and the other renderer opens a new one
    assert window_size() == Geometry(small).size
    second.close()
    assert not pygame.display.get_init()


@pytest.mark.parametrize("reading", [reading for reading, _ in COLOUR_READINGS.values()], ids=COLOUR_READINGS.keys())
def test_the_status_panel_draws_any_colour_reading_on_its_last_line(reading) -> None:
    status = Status(0, 10, "ghost", intended_action="down", actual_action="down", color_measurement=reading)
    renderer = Renderer(CLASSIC)
    geometry = renderer.geometry
    frame = renderer.frame((1, 2), (3, 4), status)
    # reference infos: the status panel draws readings that numeric infos could not hold
    env = gridghost.env(render_mode="rgb_array", sensors=[FixedReadingSensor(CLASSIC, reading)], max_cycles=10,
                        slip_probability=0.0, reference_infos=True)
    env.reset(seed=0)
    env.step(gridghost.Action.DOWN)
    assert np.array_equal(env.render(), frame)

    # The reading changes the panel's last line and nothing else, and stays inside the panel.
    unread = renderer.frame((1, 2), (3, 4), Status(0, 10, "ghost", intended_action="down", actual_action="down"))
    changed = np.argwhere((frame != unread).any(axis=2))
    _, panel_y, panel_width, panel_height = geometry.panel_rect
    if reading is None:
        assert not len(changed)
    else:
        assert len(changed)
        assert changed[:, 0].min() >= panel_y + panel_height // 2  # the last line, not the headline
        assert changed[:, 0].max() < panel_y + panel_height and changed[:, 1].max() < panel_width


def test_numpy_colour_ids_draw_like_python_ones() -> None:
    renderer = Renderer(CLASSIC)
    for colour in range(3):
        expected = renderer.frame((0, 2), (3, 4), Status(0, 10, color_measurement=colour))
        for kind in (np.int8, np.int64, np.uint16):
            assert np.array_equal(renderer.frame((0, 2), (3, 4), Status(0, 10, color_measurement=kind(colour))),
                                  expected)


CROWDED_ITEMS = {
    (0, 0): ("dog", "flower", "two_flowers", "one_note", "two_notes", "dog"),
    (1, 2): tuple(ITEMS) * 4,
    (2, 1): ("dog", "flower", "one_note", "two_notes"),
    (0, 3): ("two_flowers",) * 3,
}
LONG_TEXTS = {(1, 1): "Ziel " * 40, (2, 2): "W" * 300, (0, 2): "Übermäßig-lange-Beschriftung-ohne-Leerzeichen"}


@pytest.mark.parametrize("shape", [(3, 4), (40, 60), (3, 230)], ids=["big-cells", "14px-cells", "5px-cells"])
def test_crowded_items_and_long_texts_stay_inside_their_cells(shape) -> None:
    bare = open_layout(*shape)
    decorated = open_layout(*shape, items=CROWDED_ITEMS, texts=LONG_TEXTS)
    renderer, bare_renderer = Renderer(decorated), Renderer(bare)
    geometry = renderer.geometry
    agent, ghost = bare.agent_start, bare.ghost_start
    frame = renderer.frame(agent, ghost, START)
    bare_frame = bare_renderer.frame(agent, ghost, START)
    cells = {*CROWDED_ITEMS, *LONG_TEXTS}
    assert changes_outside(frame, bare_frame, geometry, cells) == 0
    drawn = differing_cells(frame, bare_frame, geometry)
    assert set(CROWDED_ITEMS) <= drawn  # every crowded cell still shows items
    if geometry.cell_size >= 14:
        assert drawn == cells


def test_items_that_do_not_fit_are_counted_instead() -> None:
    """Beyond what fits, a cell shows its first items and the count of the rest, so cells holding
    six, seven or eight items (which share their first four) all look different."""
    names = list(ITEMS) * 2
    pictures = []
    for count in range(4, 9):
        renderer = Renderer(open_layout(3, 4, items={(0, 1): names[:count]}))
        pictures.append(cell_pixels(renderer.frame((0, 0), (2, 0), START), renderer.geometry, (0, 1)))
    for i, picture in enumerate(pictures):
        assert not any(np.array_equal(picture, other) for other in pictures[i + 1:]), i + 4


TEXT_CELL = (0, 1)
TEXT_RENDERERS = {size: Renderer(open_layout(2, 3), cell_size=size) for size in (100, 14)}


#: Any text, and texts of the characters labels are made of (letters, marks, numbers, punctuation,
#: symbols, separators), which the layout mostly accepts.
ANY_TEXT = st.one_of(
    st.text(min_size=1, max_size=60),
    st.text(st.characters(categories=("L", "M", "N", "P", "S", "Z")), min_size=1, max_size=60),
)


@pytest.mark.slow  # a second or more: .ci/run runs the slow group
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(ANY_TEXT)
def test_every_text_a_layout_accepts_is_drawn_inside_its_cell(text) -> None:
    try:
        layout = open_layout(2, 3, texts={TEXT_CELL: text})
    except ValueError:
        assume(False)
    for size, bare in TEXT_RENDERERS.items():
        labelled = Renderer(layout, cell_size=size).frame((0, 0), (1, 0), START)
        unlabelled = bare.frame((0, 0), (1, 0), START)
        assert changes_outside(labelled, unlabelled, bare.geometry, [TEXT_CELL]) == 0
        if size == 100:  # big cells have room for at least an ellipsis: the label is seen
            assert differing_cells(labelled, unlabelled, bare.geometry) == {TEXT_CELL}


@pytest.mark.parametrize("text", ["a\x00b", "\u200b", "\ud800"])
def test_layout_refuses_the_texts_that_crashed_the_renderer(text) -> None:
    with pytest.raises(ValueError, match=r"texts\[\(0, 1\)\]"):
        open_layout(2, 3, texts={TEXT_CELL: text})


def test_pictures_are_bounded_and_the_caption_is_a_string() -> None:
    message = r"cell_size 4000 draws 4 x 5 cells as a .* picture, more than MAX_PICTURE_PIXELS"
    with pytest.raises(ValueError, match=message):
        Renderer(CLASSIC, cell_size=4000)
    with pytest.raises(ValueError, match="MAX_PICTURE_PIXELS"):
        cell_images(CLASSIC, 2000)
    with pytest.raises(TypeError, match="caption must be a str, got None"):
        Renderer(CLASSIC, caption=None)


def test_a_renderer_that_has_drawn_many_panels_draws_like_a_fresh_one() -> None:
    """The fitted panel lines are kept between frames (a bounded number of them): a renderer
    that has drawn 300 different panels, and then one it drew before, matches a fresh one."""
    busy = Renderer(CLASSIC)
    statuses = [Status(cycle, 400, "ghost", intended_action="down", actual_action="down", color_measurement=cycle % 3)
                for cycle in range(300)]
    for status in statuses:
        busy.frame((0, 2), (3, 4), status)
    for status in (statuses[-1], statuses[0], START):
        assert np.array_equal(busy.frame((0, 2), (3, 4), status), Renderer(CLASSIC).frame((0, 2), (3, 4), status))
