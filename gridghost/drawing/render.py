"""The pygame picture of the game (the ``"human"`` and ``"rgb_array"`` render modes): geometry,
sprites and the :class:`Renderer`, plus :func:`cell_images` for sensors that look at cells, and
pictures of one number per cell (a value function, a belief, visit counts) with a policy's
arrows: :func:`value_picture` on its own with a colour bar, or :meth:`Renderer.set_overlay`
over the game's picture.

The renderer draws from plain values (a :class:`~gridghost.core.layout.Layout`, the agent's and the
ghost's cells, a :class:`~gridghost.drawing.text.Status`), never from an env, so every view (the AEC env,
the Gymnasium env, ``AgentInterface``) shares it and rendering cannot touch the game's random
generator. pygame is imported only when something is drawn (:func:`import_pygame`).

The text picture and the status lines live in :mod:`gridghost.drawing.text`; saving frames as PNG files
or animations in :mod:`gridghost.drawing.recording`. Their old names here (``gridghost.drawing.render.save_frames``,
``save_animation``, ``save_image``, ``text_picture``, ``describe_reading``, ``LEGEND``,
``READING_TEXT_LIMIT``) still work for one release, with a ``DeprecationWarning``; ``Status`` and
``colour_id`` stay importable from here because the renderer uses them.

The picture is the grid (hatched red and green cells, items as small vector drawings, cell
labels, goal frames, walls as thick lines, the agent and the ghost) above a status panel (whose
turn it is, the cycle count, both sides' last moves, slips, the last colour reading). Its size
follows from the layout (:class:`Geometry`), so it fits a laptop screen:

>>> from gridghost.core.layout import CLASSIC
>>> geometry = Geometry(CLASSIC)
>>> geometry.cell_size, geometry.shape
(100, (524, 524, 3))
>>> geometry.cell_centre((0, 2))
(262, 62)
"""

from __future__ import annotations

import math
import numbers
import os
import sys
import weakref
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from gridghost.core.checks import check_choice, check_instance, check_probability, check_rate
from gridghost.core.layout import Cell, Layout, check_cell
from gridghost.core.rules import ACTION_DELTAS, NUM_ACTIONS
from gridghost.drawing.text import Status, colour_id, escape_undrawable

if TYPE_CHECKING:
    import pygame

#: Every render mode an env accepts.
RENDER_MODES: tuple[str, ...] = ("human", "rgb_array", "ansi")

# -- the palette (RGB) ---------------------------------------------------------------------------
#: ``CELL_COLOURS[colour id]`` is ``(base, hatch)``: white cells are plain, red and green hatched.
CELL_COLOURS: tuple[tuple[tuple[int, int, int], tuple[int, int, int]], ...] = (
    ((252, 252, 250), (252, 252, 250)),
    ((250, 218, 218), (214, 72, 72)),
    ((218, 240, 218), (64, 156, 84)),
)
AGENT_COLOUR = (33, 102, 232)
GHOST_COLOUR = (146, 58, 188)
WALL_COLOUR = (34, 34, 46)
GOAL_COLOUR = (232, 172, 24)
ESTIMATE_COLOUR = (16, 16, 16)
BELIEF_COLOUR = (255, 140, 0)
_BACKGROUND = (244, 244, 246)
_GRID_LINE = (196, 196, 204)
_INK = (36, 36, 44)
_EYE_WHITE = (250, 250, 250)
_PUPIL = (20, 20, 40)
_DOG, _DOG_DARK = (160, 110, 60), (90, 60, 30)
_PETAL, _FLOWER_HEART, _STEM = (236, 104, 170), (250, 210, 40), (60, 140, 60)

# -- sizes ---------------------------------------------------------------------------------------
#: The largest picture the automatic cell size aims for: a laptop screen less window decorations.
SCREEN_BUDGET: tuple[int, int] = (1200, 700)
MAX_CELL_SIZE = 100
#: The smallest cell size; layouts too large to fit :data:`SCREEN_BUDGET` at it get bigger pictures.
MIN_CELL_SIZE = 4
#: The most pixels a picture may hold (a ``uint8`` RGB frame of about 100 MB); an explicit
#: ``cell_size`` that would draw more is refused.
MAX_PICTURE_PIXELS = 2**25
_MARGIN = 12
_PANEL_FONT_SIZE = 22
_PANEL_LINE_HEIGHT = 22
_PANEL_LINES = 4
_PANEL_MIN_WIDTH = 400
_PANEL_HEIGHT = _PANEL_LINES * _PANEL_LINE_HEIGHT + _MARGIN
#: Highest opacity (0..255) of the belief overlay, reached by the most likely cell.
_BELIEF_MAX_ALPHA = 170
#: How many fitted text pictures a renderer keeps (the status panel's lines repeat).
_TEXT_CACHE_SIZE = 256
#: The smallest font size texts shrink to before they are cut; the default font is unreadable below.
_MIN_FONT_SIZE = 8

# -- pictures of per-cell numbers (value_picture and the renderer's overlay) ----------------------
#: Colour maps by name: RGB colours spread evenly from the lowest value (first) to the highest
#: (last), interpolated linearly between. ``"viridis"`` (eleven samples of matplotlib's map) is
#: perceptually uniform and readable in grey and by colour-blind readers; ``"diverging"`` runs from
#: blue through light grey to red, for numbers either side of a centre (pass ``vmin = -vmax``).
COLOUR_MAPS: dict[str, tuple[tuple[int, int, int], ...]] = {
    "viridis": (
        (68, 1, 84), (72, 36, 117), (65, 68, 135), (53, 95, 141), (42, 120, 142), (33, 145, 140),
        (34, 168, 132), (68, 191, 112), (122, 209, 81), (189, 223, 38), (253, 231, 37),
    ),
    "diverging": ((59, 76, 192), (144, 178, 254), (221, 220, 220), (245, 156, 125), (180, 4, 38)),
}
#: Cells whose value is NaN (no value: the game is over there, say) are drawn in this grey.
NAN_COLOUR = (190, 190, 190)
#: The fill of policy arrows (outlined in dark ink, so they read on every colour of a map).
ARROW_COLOUR = (255, 255, 255)
#: What :func:`value_picture` can draw on a cell as a marker.
MARKS: tuple[str, ...] = ("agent", "ghost")
#: The opacity of the renderer's overlay when :meth:`Renderer.set_overlay` is not told.
OVERLAY_OPACITY = 0.6
_PICTURE_MIN_WIDTH = 240
_TITLE_HEIGHT = 32
_TITLE_FONT_SIZE = 26
_BAR_GAP = 10
_BAR_HEIGHT = 14
_BAR_LABEL_HEIGHT = 20
_LIGHT_INK = (250, 250, 250)


# -- geometry ------------------------------------------------------------------------------------

def fit_cell_size(rows: int, cols: int) -> int:
    """The automatic cell size in pixels: the largest (up to :data:`MAX_CELL_SIZE`) at which the
    whole picture, status panel included, fits :data:`SCREEN_BUDGET`; at least
    :data:`MIN_CELL_SIZE`.

    >>> fit_cell_size(4, 5), fit_cell_size(16, 16), fit_cell_size(40, 60)
    (100, 36, 14)
    """
    width, height = SCREEN_BUDGET
    fit = min(MAX_CELL_SIZE, (width - 2 * _MARGIN) // cols, (height - 2 * _MARGIN - _PANEL_HEIGHT) // rows)
    return max(MIN_CELL_SIZE, fit)


class _Grid:
    """What both pictures share: the grid's size in pixels and where each cell lies in it.
    Subclasses set ``width``, ``height`` and ``grid_rect``, then call :meth:`_check_pixels`."""

    rows: int
    cols: int
    cell_size: int
    wall_width: int
    width: int
    height: int
    grid_rect: tuple[int, int, int, int]

    def __init__(self, layout: Layout, cell_size: int | None) -> None:
        check_instance(layout, "layout", Layout)
        if cell_size is None:
            cell_size = fit_cell_size(layout.rows, layout.cols)
        elif isinstance(cell_size, bool) or not isinstance(cell_size, numbers.Integral):
            raise TypeError(f"cell_size must be an int >= {MIN_CELL_SIZE} or None, got {cell_size!r}")
        elif cell_size < MIN_CELL_SIZE:
            raise ValueError(f"cell_size must be >= {MIN_CELL_SIZE} pixels, got {cell_size}")
        self.rows, self.cols = layout.rows, layout.cols
        self.cell_size = int(cell_size)
        self.wall_width = max(2, min(8, self.cell_size // 12))

    def _check_pixels(self) -> None:
        if self.width * self.height > MAX_PICTURE_PIXELS:
            raise ValueError(
                f"cell_size {self.cell_size} draws {self.rows} x {self.cols} cells as a {self.width} x "
                f"{self.height} picture, more than MAX_PICTURE_PIXELS = {MAX_PICTURE_PIXELS:,}; pass a smaller "
                "cell_size (or None)"
            )

    @property
    def size(self) -> tuple[int, int]:
        """``(width, height)`` in pixels, as pygame takes it."""
        return self.width, self.height

    @property
    def shape(self) -> tuple[int, int, int]:
        """The shape of the picture as an array: ``(height, width, 3)``."""
        return self.height, self.width, 3

    def _check_cell(self, cell: Any, argument: str) -> Cell:
        return check_cell(cell, argument, self.rows, self.cols)

    def cell_rect(self, cell: Cell) -> tuple[int, int, int, int]:
        """``(x, y, width, height)`` of a cell.

        Raises:
            TypeError, ValueError: ``cell`` is not a ``(row, col)`` pair inside the grid.
        """
        row, col = self._check_cell(cell, "cell")
        x0, y0 = self.grid_rect[:2]
        return x0 + col * self.cell_size, y0 + row * self.cell_size, self.cell_size, self.cell_size

    def cell_centre(self, cell: Cell) -> tuple[int, int]:
        """``(x, y)`` of a cell's centre pixel.

        Raises:
            TypeError, ValueError: ``cell`` is not a ``(row, col)`` pair inside the grid.
        """
        x, y, size, _ = self.cell_rect(cell)
        return x + size // 2, y + size // 2


class Geometry(_Grid):
    """Where everything lies in the pygame picture of a layout: plain arithmetic, no pygame.

    Pixel positions are ``(x, y)`` with ``(0, 0)`` at the top left, so the pixel at ``(x, y)``
    is ``frame[y, x]`` in an ``rgb_array`` frame. The grid sits at the top, centred; the status
    panel below it spans the whole width.

    Args:
        layout: the map.
        cell_size: the side of a cell in pixels; ``None`` picks :func:`fit_cell_size`.

    Attributes:
        rows, cols: the layout's size.
        cell_size: the side of a cell in pixels.
        wall_width: the thickness of walls and of the border.
        width, height: the picture's size in pixels.
        grid_rect: ``(x, y, width, height)`` of the grid.
        panel_rect: ``(x, y, width, height)`` of the status panel.

    Raises:
        TypeError: ``layout`` is not a Layout, or ``cell_size`` is not an int.
        ValueError: ``cell_size`` is below :data:`MIN_CELL_SIZE`.
    """

    def __init__(self, layout: Layout, cell_size: int | None = None) -> None:
        super().__init__(layout, cell_size)
        size = self.cell_size
        grid_width, grid_height = self.cols * size, self.rows * size
        self.width = max(grid_width + 2 * _MARGIN, _PANEL_MIN_WIDTH)
        self.height = grid_height + 2 * _MARGIN + _PANEL_HEIGHT
        self._check_pixels()
        self.grid_rect = ((self.width - grid_width) // 2, _MARGIN, grid_width, grid_height)
        self.panel_rect = (0, grid_height + 2 * _MARGIN, self.width, _PANEL_HEIGHT)

    def token_centres(self, agent: Cell, ghost: Cell) -> tuple[tuple[int, int], tuple[int, int]]:
        """``(x, y)`` of the centres of the agent's and the ghost's drawings.

        Each stands at its cell's centre; when they share a cell (the agent is caught) they stand
        side by side, the agent on the left.

        Raises:
            TypeError, ValueError: a cell is not a ``(row, col)`` pair inside the grid.
        """
        agent_xy, ghost_xy = self.cell_centre(agent), self.cell_centre(ghost)
        if agent_xy != ghost_xy:
            return agent_xy, ghost_xy
        shift = round(0.22 * self.cell_size)
        (x, y) = agent_xy
        return (x - shift, y), (x + shift, y)

    def token_radius(self, shared: bool) -> int:
        """The radius of the agent's disc and the half-width of the ghost, alone or sharing a cell."""
        return max(1, round((0.2 if shared else 0.26) * self.cell_size))


class PictureGeometry(_Grid):
    """Where everything lies in a :func:`value_picture`: an optional title, the grid, and a
    colour bar with its labels below. Plain arithmetic, no pygame; positions as in
    :class:`Geometry`.

    >>> from gridghost.core.layout import CLASSIC
    >>> geometry = PictureGeometry(CLASSIC, title=True)
    >>> geometry.shape, geometry.cell_centre((0, 0))
    ((502, 524, 3), (62, 94))

    Args:
        layout: the map.
        cell_size: the side of a cell in pixels; ``None`` picks :func:`fit_cell_size`.
        title: whether the picture has a title above the grid.

    Attributes:
        rows, cols, cell_size, wall_width, width, height, grid_rect: as in :class:`Geometry`.
        title_rect: ``(x, y, width, height)`` of the title (of height 0 without one).
        bar_rect: ``(x, y, width, height)`` of the colour bar: the colour map from the lowest
            value at its left end to the highest at its right.
        labels_rect: ``(x, y, width, height)`` of the row of numbers under the colour bar.

    Raises:
        TypeError, ValueError: as :class:`Geometry`.
    """

    def __init__(self, layout: Layout, cell_size: int | None = None, title: bool = False) -> None:
        super().__init__(layout, cell_size)
        size = self.cell_size
        grid_width, grid_height = self.cols * size, self.rows * size
        self.width = max(grid_width + 2 * _MARGIN, _PICTURE_MIN_WIDTH)
        title_height = _TITLE_HEIGHT if title else 0
        self.title_rect = (_MARGIN, _MARGIN, self.width - 2 * _MARGIN, title_height)
        self.grid_rect = ((self.width - grid_width) // 2, _MARGIN + title_height, grid_width, grid_height)
        bar_top = _MARGIN + title_height + grid_height + _BAR_GAP
        self.bar_rect = (_MARGIN, bar_top, self.width - 2 * _MARGIN, _BAR_HEIGHT)
        self.labels_rect = (_MARGIN, bar_top + _BAR_HEIGHT + 2, self.width - 2 * _MARGIN, _BAR_LABEL_HEIGHT)
        self.height = self.labels_rect[1] + _BAR_LABEL_HEIGHT + _MARGIN
        self._check_pixels()


# -- the pygame renderer -------------------------------------------------------------------------

def import_pygame() -> ModuleType:
    """Import pygame on first use, without its greeting on stdout, and return it."""
    module = sys.modules.get("pygame")
    if module is not None:
        return module
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    return pygame


#: The renderer that last drew into pygame's one window; only it closes the window.
_window_owner: weakref.ref[Renderer] | None = None


class _TextPainter:
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
        colour: tuple[int, int, int] = _INK,
    ) -> pygame.Surface | None:
        """``text`` drawn in the largest font size from ``largest`` down to ``smallest`` at which it
        fits ``width x height`` pixels; if none does, cut with an ellipsis at the smallest size
        whose lines fit ``height``. ``None`` when not even the ellipsis fits, or nothing is visible.
        Undrawable characters are drawn as escapes (see :func:`~gridghost.drawing.text.escape_undrawable`).
        The status panel's lines repeat from frame to frame: the last pictures are kept."""
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



class Renderer:
    """Draws one layout's picture with pygame: into a window (``show``) or into an array (``frame``).

    The static part (cells, items, labels, goal frames, walls) is drawn once into a cached
    background; each frame blits it and draws only what moves. An overlay of one number per cell
    and a policy's arrows (:meth:`set_overlay`) is drawn into that background until it is
    removed. Nothing random is used: the same arguments give the same pixels. Surfaces and fonts
    are created on first use and are never pickled (the overlay is); a copied or unpickled
    renderer creates its own. ``frame`` never opens a window.

    Args:
        layout: the map.
        cell_size: the side of a cell in pixels; ``None`` picks one that fits a laptop screen.
        fps: ``show`` waits so that it draws at most this many frames per second.
        caption: the window's title.

    Raises:
        TypeError, ValueError: a bad ``layout``, ``cell_size`` or ``fps``.
    """

    layout: Layout
    geometry: Geometry
    fps: float
    caption: str

    def __init__(
        self, layout: Layout, cell_size: int | None = None, fps: float = 4, caption: str = "gridghost"
    ) -> None:
        self.geometry = Geometry(layout, cell_size)
        check_rate(fps, "fps")
        self.layout = layout
        if not isinstance(caption, str):
            raise TypeError(f"caption must be a str, got {caption!r}")
        self.fps = fps
        self.caption = caption
        self._cell_size_argument: int | None = cell_size
        self._text = _TextPainter()
        self._overlay: _Overlay | None = None
        self._background: pygame.Surface | None = None
        self._canvas: pygame.Surface | None = None
        self._clock: pygame.time.Clock | None = None

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickle the arguments and the overlay only: pygame objects cannot be pickled and are
        # rebuilt on use.
        return (Renderer, (self.layout, self._cell_size_argument, self.fps, self.caption), {"_overlay": self._overlay})

    def set_overlay(
        self,
        values: Any = None,
        policy: Any = None,
        *,
        cmap: str | Any = "viridis",
        vmin: float | None = None,
        vmax: float | None = None,
        opacity: float = OVERLAY_OPACITY,
    ) -> None:
        """Draw one number per cell and/or a policy over the cells in every following frame, until
        the next call; ``set_overlay()`` (or ``set_overlay(None)``) removes it, and the frames are
        then exactly as before.

        Each cell with a number is tinted with its colour (see :func:`colour_map`) at ``opacity``
        over the cell's own picture; cells whose number is NaN are left as they are. The policy's
        actions are drawn as arrows over that; the goal frames and the walls stay on top, and the
        agent, the ghost and a belief are drawn over everything. For a picture with a colour bar
        and the numbers written out, use :func:`value_picture`.

        Args:
            values: ``rows x cols`` real numbers (NaN or masked: no tint), or ``None``.
            policy: ``rows x cols`` integer actions (0 left, 1 down, 2 right, 3 up; -1 or masked:
                no arrow), or ``None``.
            cmap, vmin, vmax: the colour map and the numbers at its ends, as :func:`colour_map`.
            opacity: how strongly the colours cover the cells, from 0 (not at all) to 1.

        Raises:
            TypeError, ValueError: as :func:`value_picture` for ``values``, ``policy``, ``cmap``,
                ``vmin`` and ``vmax``; ``opacity`` not a number in [0, 1]. The overlay is then
                unchanged.
        """
        shape = (self.geometry.rows, self.geometry.cols)
        array = None if values is None else _check_values(values, "values", shape)
        actions = None if policy is None else _check_policy(policy, "policy", shape)
        anchors = _check_cmap(cmap)
        alpha = round(255 * check_probability(opacity, "opacity"))
        if array is None:
            _colour_range(np.empty(0), vmin, vmax)  # checks them all the same
            colours, shown = None, np.zeros(shape, dtype=bool)
        else:
            low, high = _colour_range(array, vmin, vmax)
            colours, shown = _map_colours(array, low, high, anchors), np.isfinite(array)
        self._overlay = None if array is None and actions is None else _Overlay(colours, shown, actions, alpha)
        self._background = None  # the overlay is part of the cached background

    # -- public drawing API ------------------------------------------------------------------------
    def frame(
        self,
        agent: Cell,
        ghost: Cell,
        status: Status,
        belief: np.ndarray | None = None,
        estimate: Cell | None = None,
    ) -> np.ndarray:
        """Draw off screen and return the picture as a fresh ``height x width x 3`` ``uint8`` array.

        Args and Raises: as :meth:`draw`.
        """
        pg = import_pygame()
        if self._canvas is None:
            self._canvas = pg.Surface(self.geometry.size)
        self.draw(self._canvas, agent, ghost, status, belief, estimate)
        return surface_to_array(self._canvas)

    def show(
        self,
        agent: Cell,
        ghost: Cell,
        status: Status,
        belief: np.ndarray | None = None,
        estimate: Cell | None = None,
    ) -> None:
        """Draw into the window (opening it if needed) and wait to keep to ``fps``.

        Args and Raises: as :meth:`draw`.
        """
        global _window_owner
        pg = import_pygame()
        # pygame has one window per process, shared by every renderer: size it for this layout
        # (set_mode returns the same Surface object, so compare sizes, not identities).
        window = pg.display.get_surface()
        reopened = window is None or window.get_size() != self.geometry.size
        if reopened:
            pg.display.init()
            window = pg.display.set_mode(self.geometry.size)
        if reopened or _window_owner is None or _window_owner() is not self:
            pg.display.set_caption(self.caption)
            _window_owner = weakref.ref(self)
        if self._clock is None:
            self._clock = pg.time.Clock()
        self.draw(window, agent, ghost, status, belief, estimate)
        pg.event.pump()  # keeps the window responsive; leaves events in the queue for the caller
        pg.display.flip()
        self._clock.tick(self.fps)

    def draw(
        self,
        surface: pygame.Surface,
        agent: Cell,
        ghost: Cell,
        status: Status,
        belief: np.ndarray | None = None,
        estimate: Cell | None = None,
    ) -> None:
        """Draw the whole picture onto ``surface`` (of :attr:`Geometry.size`): the cached
        background (with the overlay of :meth:`set_overlay`, if any), then :meth:`draw_moving`.

        Args:
            surface: the pygame surface to draw on.
            agent: the agent's ``(row, col)``.
            ghost: the ghost's ``(row, col)``.
            status: what the status panel says.
            belief: optional ``rows x cols`` array of non-negative weights (a filter's belief),
                drawn as a heat overlay scaled to its largest entry.
            estimate: optional ``(row, col)`` of an estimated agent cell, drawn as a frame.

        Raises:
            TypeError, ValueError: a cell outside the grid, ``status`` not a :class:`Status`, a
                ``belief`` of the wrong shape or with negative or non-finite entries, or a
                ``surface`` of the wrong size.
        """
        if self._background is None:
            self._background = import_pygame().Surface(self.geometry.size)
            self.draw_background(self._background)
            if self._overlay is not None:
                self._draw_overlay(self._background, self._overlay)
        surface.blit(self._background, (0, 0))
        self.draw_moving(surface, agent, ghost, status, belief, estimate)

    def draw_background(self, surface: pygame.Surface) -> None:
        """Draw everything that never moves onto ``surface``: cells, items, labels, goal frames,
        grid lines, walls and the empty status panel. :meth:`draw` caches this once, with the
        overlay of :meth:`set_overlay` over it (not drawn here).

        Raises:
            ValueError: ``surface`` does not have :attr:`Geometry.size`.
        """
        self._check_surface(surface)
        pg = import_pygame()
        g, layout = self.geometry, self.layout
        surface.fill(_BACKGROUND)
        for cell in layout.cells():
            rect = pg.Rect(g.cell_rect(cell))
            base, hatch = CELL_COLOURS[layout.colours[cell]]
            surface.fill(base, rect)
            if hatch != base:
                _hatch(pg, surface, rect, hatch)
        _draw_goal_frames(pg, surface, layout, g)
        for cell, names in layout.items.items():
            rect = pg.Rect(g.cell_rect(cell))
            surface.set_clip(rect)  # painters round up tiny boxes; nothing may spill into a neighbour
            self._draw_items(pg, surface, rect, names)
            surface.set_clip(None)
        for cell, text in layout.texts.items():
            self._draw_label(surface, cell, text)
        _draw_lines_and_walls(pg, surface, layout, g)
        surface.fill(_BACKGROUND, g.panel_rect)

    def draw_moving(
        self,
        surface: pygame.Surface,
        agent: Cell,
        ghost: Cell,
        status: Status,
        belief: np.ndarray | None = None,
        estimate: Cell | None = None,
    ) -> None:
        """Draw what changes between frames onto ``surface`` (over a background): the belief
        overlay and the estimate when given, the agent, the ghost and the status panel.

        Args and Raises: as :meth:`draw`.
        """
        self._check_surface(surface)
        g = self.geometry
        agent, ghost = g._check_cell(agent, "agent"), g._check_cell(ghost, "ghost")
        if not isinstance(status, Status):
            raise TypeError(f"status must be a gridghost.drawing.text.Status, got {status!r}")
        pg = import_pygame()
        if belief is not None:
            self._draw_belief(pg, surface, self._check_belief(belief))
        if estimate is not None:
            estimate = g._check_cell(estimate, "estimate")
            inset = max(2, g.cell_size // 10)
            rect = pg.Rect(g.cell_rect(estimate)).inflate(-2 * inset, -2 * inset)
            pg.draw.rect(surface, ESTIMATE_COLOUR, rect, max(1, g.cell_size // 30))
        shared = agent == ghost
        radius = g.token_radius(shared)
        agent_xy, ghost_xy = g.token_centres(agent, ghost)
        eyes = g.cell_size >= 24
        _draw_agent(pg, surface, agent_xy, radius, eyes)
        _draw_ghost(pg, surface, ghost_xy, radius, eyes)
        self._draw_panel(pg, surface, status)

    def close(self) -> None:
        """Close the window if this renderer was the last to draw in it, and drop every pygame
        object.

        Safe to call more than once; drawing afterwards creates what it needs again (``show``
        opens a new window). When another renderer has drawn in the window since, the window
        stays open for it. It quits pygame's display, not pygame as a whole: other renderers in
        the same process may still be drawing with its fonts.
        """
        global _window_owner
        if _window_owner is not None and _window_owner() is self:
            _window_owner = None
            pg = sys.modules.get("pygame")
            if pg is not None and pg.display.get_init():
                pg.display.quit()
        self._clock = self._canvas = self._background = None
        self._text = _TextPainter()

    # -- helpers -----------------------------------------------------------------------------------
    def _check_surface(self, surface: pygame.Surface) -> None:
        if surface.get_size() != self.geometry.size:
            raise ValueError(f"surface must have size {self.geometry.size}, got {surface.get_size()}")

    def _check_belief(self, belief: Any) -> np.ndarray:
        array = np.asarray(belief, dtype=float)
        shape = (self.geometry.rows, self.geometry.cols)
        if array.shape != shape:
            raise ValueError(f"belief must have shape {shape} (rows x cols), got {array.shape}")
        if not np.isfinite(array).all() or (array < 0).any():
            raise ValueError("belief must hold finite, non-negative weights")
        return array

    def _draw_items(self, pg: ModuleType, surface: pygame.Surface, rect: pygame.Rect, names: Sequence[str]) -> None:
        """A row of item drawings along the top of the cell ``rect``: shrunk when more than three
        share it, and when even small ones do not all fit, the first few and ``+n`` for the rest
        (in cells too small for that text, as many items as fit)."""
        size, count = rect.width, len(names)
        pad = max(1, size // 25)
        slot = max(4, round(0.3 * size))

        def per_row(side: int) -> int:
            return (size - pad) // (side + pad)

        if count > per_row(slot):
            slot = max(4, round(0.15 * size), (size - pad) // count - pad)
        capacity = max(1, per_row(slot))
        shown = names if count <= capacity else names[: capacity - 1]
        image = None
        if len(shown) < count:
            left = rect.x + pad + len(shown) * (slot + pad)
            image = self._text.image(f"+{count - len(shown)}", rect.right - pad - left, max(slot, size // 3), slot)
            if image is None:  # no room for the text: one more item instead
                shown = names[:capacity]
        for i, name in enumerate(shown):
            _ITEM_PAINTERS[name](pg, surface, pg.Rect(rect.x + pad + i * (slot + pad), rect.y + pad, slot, slot))
        if image is not None:
            surface.blit(image, (rect.x + pad + len(shown) * (slot + pad), rect.y + pad))

    def _draw_label(self, surface: pygame.Surface, cell: Cell, text: str) -> None:
        """The cell's text, centred at its bottom, shrunk or cut to fit the cell."""
        x, y, size, _ = self.geometry.cell_rect(cell)
        bottom = y + size - max(2, size // 14)
        image = self._text.image(text, size - 4, bottom - y, size // 4)
        if image is not None:
            surface.blit(image, (x + (size - image.get_width()) // 2, bottom - image.get_height()))

    def _draw_overlay(self, surface: pygame.Surface, overlay: _Overlay) -> None:
        """The tint and the arrows of :meth:`set_overlay`, then the goal frames and walls again."""
        pg = import_pygame()
        g = self.geometry
        size = g.cell_size
        if overlay.colours is not None and overlay.alpha:
            tile = pg.Surface((size, size), pg.SRCALPHA)
            for row, col in zip(*np.nonzero(overlay.shown), strict=True):
                tile.fill((*(int(v) for v in overlay.colours[row, col]), overlay.alpha))
                surface.blit(tile, g.cell_rect((row, col))[:2])
        if overlay.policy is not None:
            for row, col in zip(*np.nonzero(overlay.policy >= 0), strict=True):
                _draw_arrow(pg, surface, g.cell_centre((row, col)), 0.6 * size, int(overlay.policy[row, col]))
        _draw_goal_frames(pg, surface, self.layout, g)
        _draw_lines_and_walls(pg, surface, self.layout, g)

    def _draw_belief(self, pg: ModuleType, surface: pygame.Surface, belief: np.ndarray) -> None:
        peak = belief.max()
        if peak <= 0:
            return
        g = self.geometry
        tile = pg.Surface((g.cell_size, g.cell_size), pg.SRCALPHA)
        for (row, col), weight in np.ndenumerate(belief):
            alpha = round(_BELIEF_MAX_ALPHA * weight / peak)
            if alpha:
                tile.fill((*BELIEF_COLOUR, alpha))
                surface.blit(tile, g.cell_rect((row, col))[:2])

    def _draw_panel(self, pg: ModuleType, surface: pygame.Surface, status: Status) -> None:
        x, y, width, _ = self.geometry.panel_rect
        left, top = x + _MARGIN, y + _MARGIN // 2
        colour = colour_id(status.color_measurement)
        side = _PANEL_LINE_HEIGHT - 6
        line_width = 0
        for i, line in enumerate(status.lines()):
            room = width - 2 * _MARGIN - (side + 8 if colour is not None and i == 3 else 0)
            image = self._text.image(line, room, _PANEL_LINE_HEIGHT, _PANEL_FONT_SIZE, _PANEL_FONT_SIZE)
            line_width = 0 if image is None else image.get_width()
            if image is not None:
                surface.blit(image, (left, top + i * _PANEL_LINE_HEIGHT))
        if colour is not None:  # a swatch of the reading after its name
            base, hatch = CELL_COLOURS[colour]
            swatch = pg.Rect(left + line_width + 8, top + 3 * _PANEL_LINE_HEIGHT, side, side)
            surface.fill(base, swatch)
            if hatch != base:
                _hatch(pg, surface, swatch, hatch)
            pg.draw.rect(surface, _INK, swatch, 1)


def surface_to_array(surface: pygame.Surface) -> np.ndarray:
    """The pixels of a pygame surface as a fresh ``height x width x 3`` ``uint8`` array."""
    view = import_pygame().surfarray.pixels3d(surface).transpose(1, 0, 2)
    out = np.empty(view.shape, dtype=np.uint8)
    for channel in range(3):  # channel by channel: several times faster than one strided 3-d copy
        out[:, :, channel] = view[:, :, channel]
    del view  # unlocks the surface
    return out


def cell_images(layout: Layout, size: int = 64) -> np.ndarray:
    """The picture of every cell as a camera over it would see it: its colour, items, label, goal
    frame and the walls along its edges, without the agent or the ghost.

    Drawn off screen by :meth:`Renderer.draw_background`; no window opens.

    Args:
        layout: the map.
        size: the side of each picture in pixels (at least :data:`MIN_CELL_SIZE`).

    Returns:
        A fresh ``uint8`` array of shape ``(rows, cols, size, size, 3)``.

    Raises:
        TypeError, ValueError: a bad ``layout`` or ``size``.
    """
    renderer = Renderer(layout, cell_size=size)
    surface = import_pygame().Surface(renderer.geometry.size)
    renderer.draw_background(surface)
    picture = surface_to_array(surface)
    renderer.close()
    out = np.empty((layout.rows, layout.cols, size, size, 3), dtype=np.uint8)
    for row, col in layout.cells():
        x, y, width, height = renderer.geometry.cell_rect((row, col))
        out[row, col] = picture[y : y + height, x : x + width]
    return out


# -- pictures of per-cell numbers ----------------------------------------------------------------

def colour_map(
    values: Any, cmap: str | Any = "viridis", vmin: float | None = None, vmax: float | None = None
) -> np.ndarray:
    """The colours of numbers under a colour map: ``vmin`` gets the map's first colour, ``vmax``
    its last, the numbers between are interpolated linearly, and NaN gets :data:`NAN_COLOUR`.

    >>> colour_map([0.0, 0.5, 1.0, float("nan")]).tolist()
    [[68, 1, 84], [33, 145, 140], [253, 231, 37], [190, 190, 190]]

    Args:
        values: real numbers, of any shape; NaN (or a masked entry of a masked array) means no value.
        cmap: a name from :data:`COLOUR_MAPS`, or at least two RGB colours (``0..255``), the lowest
            value's first.
        vmin, vmax: the numbers that get the map's ends (numbers beyond them get the end colours);
            ``None`` takes the smallest or largest finite value. When the two are equal every
            value gets the map's middle colour.

    Returns:
        A fresh ``uint8`` array of shape ``values.shape + (3,)``.

    Raises:
        TypeError: ``values``, ``vmin``, ``vmax`` or ``cmap`` are not numbers (or a name).
        ValueError: an infinite value, a non-finite ``vmin`` or ``vmax``, ``vmin`` above ``vmax``,
            an unknown colour map name or colours that are not ``k x 3`` numbers in ``0..255``.
    """
    array = _check_values(values, "values")
    anchors = _check_cmap(cmap)
    low, high = _colour_range(array, vmin, vmax)
    return _map_colours(array, low, high, anchors)


def value_picture(
    layout: Layout,
    values: Any,
    policy: Any = None,
    *,
    cell_size: int | None = None,
    cmap: str | Any = "viridis",
    vmin: float | None = None,
    vmax: float | None = None,
    title: str | None = None,
    marks: Mapping[Cell, str] | None = None,
    number_format: str | None = "{:.1f}",
) -> np.ndarray:
    """A picture of one number per cell over the layout: each cell filled with its number's colour
    (see :func:`colour_map`) and, with ``number_format``, the number written at its bottom; a
    policy's action as an arrow; the goal frames, the walls, and a colour bar labelled with the
    lowest, middle and highest number below the grid. Cells whose number is NaN are grey
    (:data:`NAN_COLOUR`) and unlabelled. Drawn off screen; no window opens.

    For a solution of :mod:`gridghost.planning.solve`, fix the ghost's cell and hide the states where the
    game is over (their value is 0)::

        values = np.where(sol.policy[:, :, 3, 4] >= 0, sol.values[:, :, 3, 4], np.nan)
        picture = value_picture(CLASSIC, values, sol.policy[:, :, 3, 4], marks={(3, 4): "ghost"})

    Save it with :func:`gridghost.drawing.recording.save_image`.

    Args:
        layout: the map.
        values: ``rows x cols`` real numbers (a value function, a belief, visit counts); NaN or a
            masked entry means no value.
        policy: optional ``rows x cols`` integer actions (0 left, 1 down, 2 right, 3 up); -1 or a
            masked entry draws no arrow.
        cell_size: the side of a cell in pixels; ``None`` picks :func:`fit_cell_size`.
        cmap, vmin, vmax: the colour map and the numbers at its ends, as :func:`colour_map`.
        title: a line of text above the grid (shrunk or cut to fit).
        marks: cells to mark with a drawing: ``{(row, col): name}`` with names from :data:`MARKS`
            (``{(3, 4): "ghost"}`` where the ghost stands still).
        number_format: how each cell's number is written, for ``str.format`` (``"{:.2f}"`` for a
            belief, ``"{:.0f}"`` for counts); ``None`` writes none. Numbers that do not fit their
            cell are left out.

    Returns:
        The picture as a fresh ``uint8`` array of shape :attr:`PictureGeometry.shape` (``(height,
        width, 3)``).

    Raises:
        TypeError: a bad type: ``layout``, ``cell_size``, ``title``, ``number_format``, ``marks``,
            ``values`` or ``cmap`` (not real numbers), ``policy`` (not integers), ``vmin``, ``vmax``.
        ValueError: ``values`` or ``policy`` not of shape ``rows x cols``, an infinite value, an
            action outside ``-1..3``, a mark outside the grid or of an unknown name, a format that
            does not format a number, or as :func:`colour_map` and :class:`PictureGeometry`.
    """
    check_instance(layout, "layout", Layout)
    if title is not None and not isinstance(title, str):
        raise TypeError(f"title must be a str or None, got {title!r}")
    geometry = PictureGeometry(layout, cell_size, title=title is not None)
    shape = (layout.rows, layout.cols)
    array = _check_values(values, "values", shape)
    actions = None if policy is None else _check_policy(policy, "policy", shape)
    anchors = _check_cmap(cmap)
    low, high = _colour_range(array, vmin, vmax)
    marked = _check_marks(marks, geometry)
    _check_number_format(number_format)
    colours = _map_colours(array, low, high, anchors)

    pg = import_pygame()
    text = _TextPainter()
    surface = pg.Surface(geometry.size)
    surface.fill(_BACKGROUND)
    size = geometry.cell_size
    band = round(0.26 * size)  # the numbers' strip at the bottom of a cell
    for cell in layout.cells():
        x, y, _, _ = rect = geometry.cell_rect(cell)
        colour = tuple(int(v) for v in colours[cell])
        surface.fill(colour, rect)
        number = float(array[cell])
        if number_format is not None and math.isfinite(number):
            image = text.image(number_format.format(number), size - 4, band, band, colour=_ink_on(colour))
            if image is not None:
                bottom = y + size - max(2, size // 14)
                surface.blit(image, (x + (size - image.get_width()) // 2, bottom - image.get_height()))
        if actions is not None and actions[cell] >= 0:
            if number_format is None:  # the arrow centred in the cell; above the number when there is one
                _draw_arrow(pg, surface, (x + size / 2, y + size / 2), 0.6 * size, int(actions[cell]))
            else:
                _draw_arrow(pg, surface, (x + size / 2, y + 0.4 * size), 0.5 * size, int(actions[cell]))
    radius = max(1, round(0.26 * size))
    for cell, name in marked.items():
        painter = _draw_agent if name == "agent" else _draw_ghost
        painter(pg, surface, geometry.cell_centre(cell), radius, size >= 24)
    _draw_goal_frames(pg, surface, layout, geometry)
    _draw_lines_and_walls(pg, surface, layout, geometry)
    _draw_colour_bar(pg, surface, geometry, text, low, high, anchors)
    if title is not None:
        x, y, width, height = geometry.title_rect
        image = text.image(title, width, height, _TITLE_FONT_SIZE)
        if image is not None:
            surface.blit(image, (x + (width - image.get_width()) // 2, y + (height - image.get_height()) // 2))
    return surface_to_array(surface)


def _draw_colour_bar(
    pg: ModuleType, surface: pygame.Surface, geometry: PictureGeometry, text: _TextPainter, low: float,
    high: float, anchors: np.ndarray,
) -> None:
    """The colour map from ``low`` (left) to ``high`` (right), framed, with the lowest, middle and
    highest number under it; grey and unlabelled when there is no number."""
    x, y, width, height = geometry.bar_rect
    if math.isnan(low) or math.isnan(high):
        surface.fill(NAN_COLOUR, geometry.bar_rect)
    else:
        strip = _map_colours(np.linspace(low, high, width), low, high, anchors)
        surface.blit(pg.surfarray.make_surface(np.repeat(strip[:, None, :], height, axis=1)), (x, y))
    pg.draw.rect(surface, _INK, (x - 1, y - 1, width + 2, height + 2), 1)
    if math.isnan(low) or math.isnan(high):
        return
    x, y, width, height = geometry.labels_rect
    room = width // 3
    for number, align in ((low, 0.0), ((low + high) / 2, 0.5), (high, 1.0)):
        image = text.image(f"{number:.4g}", room, height, height)
        if image is not None:
            surface.blit(image, (x + round(align * (width - image.get_width())), y))


def _ink_on(colour: tuple[int, ...]) -> tuple[int, int, int]:
    """Dark ink on light colours, light ink on dark ones (by luma)."""
    red, green, blue = colour[:3]
    return _INK if 0.299 * red + 0.587 * green + 0.114 * blue > 150 else _LIGHT_INK


def _draw_arrow(
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
    pg.draw.polygon(surface, _INK, points, max(1, round(length / 40)))


# -- checks of the pictures' arguments -----------------------------------------------------------

def _check_values(values: Any, argument: str, shape: tuple[int, int] | None = None) -> np.ndarray:
    """``values`` as a float array with NaN for masked entries."""
    masked = np.ma.isMaskedArray(values)
    array = np.ma.getdata(values) if masked else np.asarray(values)
    if array.dtype.kind not in "iuf":
        raise TypeError(f"{argument} must hold real numbers, got dtype {array.dtype}")
    if shape is not None and array.shape != shape:
        raise ValueError(f"{argument} must have shape {shape} (rows x cols), got {array.shape}")
    array = array.astype(float)  # a copy: the masked entries are overwritten next
    if masked:
        array[np.ma.getmaskarray(values)] = np.nan
    if np.isinf(array).any():
        raise ValueError(f"{argument} must hold finite numbers or NaN (no value), got an infinity")
    return array


def _check_policy(policy: Any, argument: str, shape: tuple[int, int]) -> np.ndarray:
    """``policy`` as an ``int64`` array with -1 for masked entries."""
    masked = np.ma.isMaskedArray(policy)
    array = np.ma.getdata(policy) if masked else np.asarray(policy)
    if array.dtype.kind not in "iu":
        raise TypeError(
            f"{argument} must hold integer actions (0 left, 1 down, 2 right, 3 up, -1 none), got dtype {array.dtype}"
        )
    if array.shape != shape:
        raise ValueError(f"{argument} must have shape {shape} (rows x cols), got {array.shape}")
    actions = array.astype(np.int64)
    if masked:
        actions[np.ma.getmaskarray(policy)] = -1
    bad = np.argwhere((actions < -1) | (actions >= NUM_ACTIONS))
    if len(bad):
        cell = tuple(int(v) for v in bad[0])
        raise ValueError(
            f"{argument} must hold actions in -1..{NUM_ACTIONS - 1} (-1: no arrow), got {int(actions[cell])} at {cell}"
        )
    return actions


def _check_bound(value: Any, argument: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{argument} must be a finite number or None, got {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"{argument} must be a finite number or None, got {value!r}")
    return float(value)


def _colour_range(values: np.ndarray, vmin: Any, vmax: Any) -> tuple[float, float]:
    """The numbers at the colour map's ends: ``vmin`` and ``vmax``, or the finite values' extremes
    (NaN when there is none)."""
    low, high = _check_bound(vmin, "vmin"), _check_bound(vmax, "vmax")
    finite = values[np.isfinite(values)]
    if low is None:
        low = float(finite.min()) if finite.size else math.nan
    if high is None:
        high = float(finite.max()) if finite.size else math.nan
    if low > high:
        said = "vmin" if vmin is not None else "the smallest value (vmin=None)"
        than = "vmax" if vmax is not None else "the largest value (vmax=None)"
        raise ValueError(f"vmin must not exceed vmax: {said} is {low:g}, {than} is {high:g}")
    return low, high


def _check_cmap(cmap: Any) -> np.ndarray:
    """The colour map's colours as a ``float64[k, 3]`` array."""
    if isinstance(cmap, str):
        return np.array(COLOUR_MAPS[check_choice(cmap, "cmap", tuple(COLOUR_MAPS))], dtype=float)
    array = np.asarray(cmap)
    if array.dtype.kind not in "iuf":
        raise TypeError(f"cmap must be a name from {list(COLOUR_MAPS)} or k x 3 RGB numbers, got {cmap!r}")
    if array.ndim != 2 or array.shape[0] < 2 or array.shape[1] != 3:
        raise ValueError(f"cmap must hold at least two RGB colours (shape (k, 3), k >= 2), got shape {array.shape}")
    colours = array.astype(float)
    if not (np.isfinite(colours).all() and (colours >= 0).all() and (colours <= 255).all()):
        raise ValueError("cmap's colours must be RGB numbers in 0..255")
    return colours


def _map_colours(values: np.ndarray, low: float, high: float, anchors: np.ndarray) -> np.ndarray:
    out = np.empty((*values.shape, 3), dtype=np.uint8)
    out[...] = NAN_COLOUR
    finite = np.isfinite(values)
    # One number, or vmin == vmax, has nothing to tell apart: the middle colour.
    t = np.clip((values[finite] - low) / (high - low), 0.0, 1.0) if high > low else np.full(int(finite.sum()), 0.5)
    position = t * (len(anchors) - 1)
    index = np.minimum(position.astype(np.int64), len(anchors) - 2)
    fraction = (position - index)[:, None]
    out[finite] = np.rint(anchors[index] * (1.0 - fraction) + anchors[index + 1] * fraction).astype(np.uint8)
    return out


def _check_marks(marks: Any, geometry: PictureGeometry) -> dict[Cell, str]:
    if marks is None:
        return {}
    if not isinstance(marks, Mapping):
        raise TypeError(f"marks must be a mapping {{(row, col): name}} or None, got {marks!r}")
    return {geometry._check_cell(cell, "marks"): check_choice(name, "mark", MARKS) for cell, name in marks.items()}


def _check_number_format(number_format: Any) -> None:
    if number_format is None:
        return
    if not isinstance(number_format, str):
        raise TypeError(f"number_format must be a str such as '{{:.1f}}', or None, got {number_format!r}")
    try:
        number_format.format(1.5)
    except (ValueError, IndexError, KeyError) as error:
        raise ValueError(
            f"number_format must format one number, such as '{{:.1f}}', got {number_format!r} ({error})"
        ) from None


class _Overlay(NamedTuple):
    """What :meth:`Renderer.set_overlay` was told, ready to draw."""

    colours: np.ndarray | None  # uint8[rows, cols, 3], or None: arrows only
    shown: np.ndarray  # bool[rows, cols]: the cells with a number
    policy: np.ndarray | None  # int64[rows, cols], -1 where no arrow
    alpha: int


# -- shapes --------------------------------------------------------------------------------------

def _draw_goal_frames(pg: ModuleType, surface: pygame.Surface, layout: Layout, grid: _Grid) -> None:
    """A frame inside every goal cell."""
    width = max(2, grid.cell_size // 20)
    for goal in layout.goals:
        pg.draw.rect(surface, GOAL_COLOUR, pg.Rect(grid.cell_rect(goal)).inflate(-width, -width), width)


def _draw_lines_and_walls(pg: ModuleType, surface: pygame.Surface, layout: Layout, grid: _Grid) -> None:
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


def _hatch(pg: ModuleType, surface: pygame.Surface, rect: pygame.Rect, colour: tuple[int, int, int]) -> None:
    """Diagonal stripes across ``rect``."""
    spacing = max(4, rect.width // 7)
    width = max(1, rect.width // 40)
    surface.set_clip(rect)
    for offset in range(0, rect.width + rect.height, spacing):
        start, end = (rect.left + offset - rect.height, rect.bottom), (rect.left + offset, rect.top)
        pg.draw.line(surface, colour, start, end, width)
    surface.set_clip(None)


def _draw_agent(pg: ModuleType, surface: pygame.Surface, centre: tuple[int, int], radius: int, eyes: bool) -> None:
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


def _draw_ghost(pg: ModuleType, surface: pygame.Surface, centre: tuple[int, int], radius: int, eyes: bool) -> None:
    """A dome with a zig-zag hem; two eyes above its centre when there is room."""
    x, y = centre
    top, hem = y - 0.15 * radius, y + 0.95 * radius
    points = [(x + radius * cos, top - radius * sin) for cos, sin in _DOME]
    teeth = 6
    for i in range(teeth + 1):  # along the hem from the left side back to the right
        points.append((x - radius + 2 * radius * i / teeth, hem - (0.25 * radius if i % 2 else 0)))
    pg.draw.polygon(surface, GHOST_COLOUR, points)
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
    pg.draw.ellipse(surface, _INK, head)
    stem_top = (head.right - 1, y - s * 3 // 5)
    pg.draw.line(surface, _INK, (head.right - 1, y), stem_top, max(1, s // 14))
    return stem_top


def _draw_one_note(pg: ModuleType, surface: pygame.Surface, box: pygame.Rect) -> None:
    """An eighth note: head, stem and flag."""
    s = box.width
    x, y = _note_head(pg, surface, box.centerx - s // 8, box.bottom - s // 4, s)
    pg.draw.line(surface, _INK, (x, y), (x + s // 4, y + s // 4), max(1, s // 10))


def _draw_two_notes(pg: ModuleType, surface: pygame.Surface, box: pygame.Rect) -> None:
    """Two beamed eighth notes."""
    s = box.width
    left = _note_head(pg, surface, box.left + s // 4, box.bottom - s // 4, s)
    right = _note_head(pg, surface, box.right - s // 3, box.bottom - s // 3, s)
    pg.draw.line(surface, _INK, left, right, max(1, s // 8))


#: One drawing per item name of :data:`~gridghost.core.ITEMS`; each fills the square it is given.
_ITEM_PAINTERS = {
    "dog": _draw_dog,
    "flower": _draw_flower,
    "two_flowers": _draw_two_flowers,
    "one_note": _draw_one_note,
    "two_notes": _draw_two_notes,
}


# -- old names of what moved to gridghost.drawing.text and gridghost.drawing.recording (for one release) ----------

#: Names this module held before the split, and the modules that hold them now.
