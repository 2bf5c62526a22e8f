"""How gridghost's pictures are painted with pygame: the palette, the shapes (walls, goal frames,
hatching, the agent, the ghost, the items, policy arrows) and texts fitted to boxes.

:class:`~gridghost.drawing.renderer.Renderer` and the still pictures of
:mod:`gridghost.drawing.pictures` both paint with these, so the two look alike. pygame is imported
only when something is painted (:func:`import_pygame`); every painter takes the module as ``pg``.
"""

from __future__ import annotations

import math
import os
import sys
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np

from gridghost.core.layout import Layout
from gridghost.core.rules import ACTION_DELTAS
from gridghost.drawing.geometry import Grid
from gridghost.drawing.text import escape_undrawable

if TYPE_CHECKING:
    import pygame

# -- the palette (RGB) ---------------------------------------------------------------------------
#: ``CELL_COLOURS[colour id]`` is ``(base, hatch)``: white cells are plain, red and green hatched.
CELL_COLOURS: tuple[tuple[tuple[int, int, int], tuple[int, int, int]], ...] = (
    ((252, 252, 250), (252, 252, 250)),
    ((250, 218, 218), (214, 72, 72)),
    ((218, 240, 218), (64, 156, 84)),
)
AGENT_COLOUR = (33, 102, 232)
GHOST_COLOUR = (146, 58, 188)
#: Each ghost's colour in a team's pictures, ghost 0's first (:data:`GHOST_COLOUR`, the one ghost's
#: colour). Ghosts 1..3 take vermillion and sky blue of the Okabe-Ito palette and wine of Paul Tol's
#: muted palette, both made for readers with a colour-vision deficiency; the four also differ in
#: lightness (luma about 99, 119, 158 and 70), so they stay apart in grey, and none is the red or
#: green of the cells, the goal frames' amber, the walls' ink or the agent's blue.
GHOST_COLOURS: tuple[tuple[int, int, int], ...] = (GHOST_COLOUR, (213, 94, 0), (86, 180, 233), (136, 34, 85))
WALL_COLOUR = (34, 34, 46)
GOAL_COLOUR = (232, 172, 24)
ESTIMATE_COLOUR = (16, 16, 16)
BELIEF_COLOUR = (255, 140, 0)
#: The fill of policy arrows (outlined in dark ink, so they read on every colour of a map).
ARROW_COLOUR = (255, 255, 255)
BACKGROUND = (244, 244, 246)
_GRID_LINE = (196, 196, 204)
INK = (36, 36, 44)
LIGHT_INK = (250, 250, 250)
_EYE_WHITE = (250, 250, 250)
_PUPIL = (20, 20, 40)
_DOG, _DOG_DARK = (160, 110, 60), (90, 60, 30)
_PETAL, _FLOWER_HEART, _STEM = (236, 104, 170), (250, 210, 40), (60, 140, 60)

# -- pygame and texts ----------------------------------------------------------------------------
#: How many fitted text pictures a renderer keeps (the status panel's lines repeat).
_TEXT_CACHE_SIZE = 256
#: The smallest font size texts shrink to before they are cut; the default font is unreadable below.
_MIN_FONT_SIZE = 8


def import_pygame() -> ModuleType:
    """Import pygame on first use, without its greeting on stdout, and return it."""
    module = sys.modules.get("pygame")
    if module is not None:
        return module
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    return pygame


class TextPainter:
    """Draws texts fitted to boxes, keeping its fonts and its last pictures: the status panel's
    lines repeat from frame to frame. Holds pygame objects; a renderer drops it on ``close``."""

    def __init__(self) -> None:
        self._fonts: dict[int, pygame.font.Font] = {}
        # fitted text pictures by (text, width, height, largest, smallest, colour), the oldest dropped first
        self._texts: dict[tuple[str, int, int, int, int, tuple[int, int, int]], pygame.Surface | None] = {}

    def font(self, size: int) -> pygame.font.Font:
        """pygame's default font at ``size``, created on first use."""
        pg = import_pygame()
        if not pg.font.get_init():
            pg.font.init()
            self._fonts, self._texts = {}, {}  # fonts and pictures made before a pygame.quit() are dead
        if size not in self._fonts:
            self._fonts[size] = pg.font.Font(None, size)
        return self._fonts[size]

    def image(
        self, text: str, width: int, height: int, largest: int, smallest: int = _MIN_FONT_SIZE,
        colour: tuple[int, int, int] = INK,
    ) -> pygame.Surface | None:
        """``text`` drawn in the largest font size from ``largest`` down to ``smallest`` at which it
        fits ``width x height`` pixels; if none does, cut with an ellipsis at the smallest size
        whose lines fit ``height``. ``None`` when not even the ellipsis fits, or nothing is visible.
        Undrawable characters are drawn as escapes (see :func:`~gridghost.drawing.text.escape_undrawable`)."""
        self.font(smallest)  # restarts the fonts, and forgets the pictures, after a pygame.quit()
        key = (text, width, height, largest, smallest, colour)
        if key in self._texts:
            return self._texts[key]
        image = self._fit(text, width, height, largest, smallest, colour)
        if len(self._texts) >= _TEXT_CACHE_SIZE:
            del self._texts[next(iter(self._texts))]
        self._texts[key] = image
        return image

    def _fit(
        self, text: str, width: int, height: int, largest: int, smallest: int, colour: tuple[int, int, int]
    ) -> pygame.Surface | None:
        text = escape_undrawable(text)
        if len(text) > width:  # glyphs are at least a pixel wide: the rest cannot fit, so skip measuring it
            text = text[:width] + "…"
        cut_font = None
        for size in range(max(largest, smallest), smallest - 1, -1):
            font = self.font(size)
            text_width, text_height = font.size(text)
            if text_height > height:
                continue
            if text_width <= width:  # pygame refuses to draw text of zero width
                return font.render(text, True, colour) if text_width else None
            cut_font = font
        if cut_font is None:
            return None
        # The longest prefix that fits with the ellipsis: widths grow with the prefix's length.
        fits = 0
        low, high = 0, len(text)
        while low <= high:
            middle = (low + high) // 2
            if cut_font.size(text[:middle].rstrip() + "…")[0] <= width:
                fits, low = middle, middle + 1
            else:
                high = middle - 1
        cut = text[:fits].rstrip() + "…"
        return cut_font.render(cut, True, colour) if cut_font.size(cut)[0] <= width else None


# -- shapes --------------------------------------------------------------------------------------

def draw_goal_frames(pg: ModuleType, surface: pygame.Surface, layout: Layout, grid: Grid) -> None:
    """A frame inside every goal cell."""
    width = max(2, grid.cell_size // 20)
    for goal in layout.goals:
        pg.draw.rect(surface, GOAL_COLOUR, pg.Rect(grid.cell_rect(goal)).inflate(-width, -width), width)


def draw_lines_and_walls(pg: ModuleType, surface: pygame.Surface, layout: Layout, grid: Grid) -> None:
    """Thin lines between the cells, then the walls and the border over them."""
    x0, y0, width, height = grid.grid_rect
    size = grid.cell_size
    for r in range(1, grid.rows):
        pg.draw.line(surface, _GRID_LINE, (x0, y0 + r * size), (x0 + width - 1, y0 + r * size))
    for c in range(1, grid.cols):
        pg.draw.line(surface, _GRID_LINE, (x0 + c * size, y0), (x0 + c * size, y0 + height - 1))
    w = grid.wall_width
    for r, c in zip(*np.nonzero(layout.walls_horizontal), strict=True):
        surface.fill(WALL_COLOUR, (x0 + c * size - w // 2, y0 + (r + 1) * size - w // 2, size + w, w))
    for r, c in zip(*np.nonzero(layout.walls_vertical), strict=True):
        surface.fill(WALL_COLOUR, (x0 + (c + 1) * size - w // 2, y0 + r * size - w // 2, w, size + w))
    pg.draw.rect(surface, WALL_COLOUR, (x0 - w // 2, y0 - w // 2, width + w, height + w), w)


def fill_cell_colour(pg: ModuleType, surface: pygame.Surface, rect: pygame.Rect, colour: int) -> None:
    """Fill ``rect`` with the cell colour ``colour`` (an index of :data:`CELL_COLOURS`): its base,
    with diagonal stripes of its hatch where it has one."""
    base, hatch = CELL_COLOURS[colour]
    surface.fill(base, rect)
    if hatch == base:
        return
    spacing = max(4, rect.width // 7)
    width = max(1, rect.width // 40)
    surface.set_clip(rect)
    for offset in range(0, rect.width + rect.height, spacing):
        start, end = (rect.left + offset - rect.height, rect.bottom), (rect.left + offset, rect.top)
        pg.draw.line(surface, hatch, start, end, width)
    surface.set_clip(None)


def draw_agent(pg: ModuleType, surface: pygame.Surface, centre: tuple[int, int], radius: int, eyes: bool) -> None:
    """A disc; two eyes above its centre when there is room."""
    x, y = centre
    pg.draw.circle(surface, AGENT_COLOUR, centre, radius)
    if eyes:
        for side in (-1, 1):
            eye = (x + side * round(0.38 * radius), y - round(0.32 * radius))
            pg.draw.circle(surface, _EYE_WHITE, eye, max(1, round(0.2 * radius)))
            pg.draw.circle(surface, _PUPIL, eye, max(1, round(0.1 * radius)))


#: ``(cos, sin)`` along the upper half circle, right to left: the ghost's dome.
_DOME = tuple((math.cos(math.pi * k / 12), math.sin(math.pi * k / 12)) for k in range(13))


def draw_ghost(
    pg: ModuleType, surface: pygame.Surface, centre: tuple[int, int], radius: int, eyes: bool,
    colour: tuple[int, int, int] = GHOST_COLOUR,
) -> None:
    """A dome with a zig-zag hem in ``colour`` (a team's ghost: its entry of :data:`GHOST_COLOURS`);
    two eyes above its centre when there is room."""
    x, y = centre
    top, hem = y - 0.15 * radius, y + 0.95 * radius
    points = [(x + radius * cos, top - radius * sin) for cos, sin in _DOME]
    teeth = 6
    for i in range(teeth + 1):  # along the hem from the left side back to the right
        points.append((x - radius + 2 * radius * i / teeth, hem - (0.25 * radius if i % 2 else 0)))
    pg.draw.polygon(surface, colour, points)
    if eyes:
        for side in (-1, 1):
            eye = (x + side * round(0.4 * radius), y - round(0.3 * radius))
            pg.draw.circle(surface, _EYE_WHITE, eye, max(1, round(0.22 * radius)))
            pg.draw.circle(surface, _PUPIL, (eye[0] - round(0.06 * radius), eye[1]), max(1, round(0.11 * radius)))


def _draw_dog(pg: ModuleType, surface: pygame.Surface, box: pygame.Rect) -> None:
    """A dog's face: head, floppy ears, eyes and nose."""
    s = box.width
    head = box.inflate(-s // 4, -s // 4)
    for side in (-1, 1):
        ear = pg.Rect(0, 0, max(2, s // 4), max(3, s // 2))
        ear.center = (box.centerx + side * s * 3 // 8, box.centery - s // 16)
        pg.draw.ellipse(surface, _DOG_DARK, ear)
    pg.draw.ellipse(surface, _DOG, head)
    for side in (-1, 1):
        pg.draw.circle(surface, _PUPIL, (box.centerx + side * s // 7, box.centery - s // 10), max(1, s // 16))
    pg.draw.circle(surface, _PUPIL, (box.centerx, box.centery + s // 8), max(1, s // 10))


def _draw_flower(pg: ModuleType, surface: pygame.Surface, box: pygame.Rect) -> None:
    """Five petals round a yellow heart."""
    s = box.width
    cx, cy, petal = box.centerx, box.centery, max(1, s // 5)
    for k in range(5):
        angle = 2 * math.pi * k / 5 - math.pi / 2
        centre = (cx + round(0.28 * s * math.cos(angle)), cy + round(0.28 * s * math.sin(angle)))
        pg.draw.circle(surface, _PETAL, centre, petal)
    pg.draw.circle(surface, _FLOWER_HEART, (cx, cy), max(1, s // 6))


def _draw_two_flowers(pg: ModuleType, surface: pygame.Surface, box: pygame.Rect) -> None:
    """Two small flowers side by side on stems."""
    s = box.width
    for dx in (-s // 4, s // 4):
        small = pg.Rect(0, 0, s // 2 + 1, s // 2 + 1)
        small.center = (box.centerx + dx, box.centery - s // 8)
        pg.draw.line(surface, _STEM, small.center, (small.centerx, box.bottom - 1), max(1, s // 16))
        _draw_flower(pg, surface, small)


def _note_head(pg: ModuleType, surface: pygame.Surface, x: int, y: int, s: int) -> tuple[int, int]:
    """A tilted-looking note head at ``(x, y)`` with its stem; returns the stem's top."""
    head = pg.Rect(0, 0, max(3, s // 3), max(2, s // 4))
    head.center = (x, y)
    pg.draw.ellipse(surface, INK, head)
    stem_top = (head.right - 1, y - s * 3 // 5)
    pg.draw.line(surface, INK, (head.right - 1, y), stem_top, max(1, s // 14))
    return stem_top


def _draw_one_note(pg: ModuleType, surface: pygame.Surface, box: pygame.Rect) -> None:
    """An eighth note: head, stem and flag."""
    s = box.width
    x, y = _note_head(pg, surface, box.centerx - s // 8, box.bottom - s // 4, s)
    pg.draw.line(surface, INK, (x, y), (x + s // 4, y + s // 4), max(1, s // 10))


def _draw_two_notes(pg: ModuleType, surface: pygame.Surface, box: pygame.Rect) -> None:
    """Two beamed eighth notes."""
    s = box.width
    left = _note_head(pg, surface, box.left + s // 4, box.bottom - s // 4, s)
    right = _note_head(pg, surface, box.right - s // 3, box.bottom - s // 3, s)
    pg.draw.line(surface, INK, left, right, max(1, s // 8))


#: One drawing per item name of :data:`~gridghost.core.ITEMS`; each fills the square it is given.
ITEM_PAINTERS = {
    "dog": _draw_dog,
    "flower": _draw_flower,
    "two_flowers": _draw_two_flowers,
    "one_note": _draw_one_note,
    "two_notes": _draw_two_notes,
}


def draw_arrow(
    pg: ModuleType, surface: pygame.Surface, centre: tuple[float, float], length: float, action: int
) -> None:
    """An arrow ``length`` pixels long centred at ``centre``, pointing the way ``action`` moves:
    filled with :data:`ARROW_COLOUR`, outlined in dark ink."""
    d_row, d_col = ACTION_DELTAS[action]
    dx, dy = d_col, d_row  # along the arrow, in pixels (x right, y down)
    half, shaft, head_width, head = length / 2, max(1.0, 0.09 * length), max(2.0, 0.3 * length), 0.42 * length
    cx, cy = centre

    def at(along: float, across: float) -> tuple[float, float]:
        return cx + dx * along - dy * across, cy + dy * along + dx * across

    neck = half - head
    points = [at(-half, -shaft), at(neck, -shaft), at(neck, -head_width), at(half, 0.0), at(neck, head_width),
              at(neck, shaft), at(-half, shaft)]
    pg.draw.polygon(surface, ARROW_COLOUR, points)
    pg.draw.polygon(surface, INK, points, max(1, round(length / 40)))
