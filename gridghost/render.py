"""The pygame picture of the game (the ``"human"`` and ``"rgb_array"`` render modes): geometry,
sprites and the :class:`Renderer`, plus :func:`cell_images` for sensors that look at cells.

The renderer draws from plain values (a :class:`~gridghost.layout.Layout`, the agent's and the
ghost's cells, a :class:`~gridghost.text.Status`), never from an env, so every view (the AEC env,
the Gymnasium env, ``AgentInterface``) shares it and rendering cannot touch the game's random
generator. pygame is imported only when something is drawn (:func:`import_pygame`).

The text picture and the status lines live in :mod:`gridghost.text`; saving frames as PNG files
or animations in :mod:`gridghost.recording`. Their old names here (``gridghost.render.save_frames``,
``save_animation``, ``save_image``, ``text_picture``, ``describe_reading``, ``LEGEND``,
``READING_TEXT_LIMIT``) still work for one release, with a ``DeprecationWarning``; ``Status`` and
``colour_id`` stay importable from here because the renderer uses them.

The picture is the grid (hatched red and green cells, items as small vector drawings, cell
labels, goal frames, walls as thick lines, the agent and the ghost) above a status panel (whose
turn it is, the cycle count, both sides' last moves, slips, the last colour reading). Its size
follows from the layout (:class:`Geometry`), so it fits a laptop screen:

>>> from gridghost.layout import CLASSIC
>>> geometry = Geometry(CLASSIC)
>>> geometry.cell_size, geometry.shape
(100, (524, 524, 3))
>>> geometry.cell_centre((0, 2))
(262, 62)
"""

from __future__ import annotations

import importlib
import math
import numbers
import os
import sys
import warnings
import weakref
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from gridghost.checks import check_instance, check_rate
from gridghost.layout import Cell, Layout
from gridghost.text import Status, colour_id, escape_undrawable

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


class Geometry:
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
        check_instance(layout, "layout", Layout)
        if cell_size is None:
            cell_size = fit_cell_size(layout.rows, layout.cols)
        elif isinstance(cell_size, bool) or not isinstance(cell_size, numbers.Integral):
            raise TypeError(f"cell_size must be an int >= {MIN_CELL_SIZE} or None, got {cell_size!r}")
        elif cell_size < MIN_CELL_SIZE:
            raise ValueError(f"cell_size must be >= {MIN_CELL_SIZE} pixels, got {cell_size}")
        self.rows, self.cols = layout.rows, layout.cols
        self.cell_size = size = int(cell_size)
        self.wall_width = max(2, min(8, size // 12))
        grid_width, grid_height = self.cols * size, self.rows * size
        self.width = max(grid_width + 2 * _MARGIN, _PANEL_MIN_WIDTH)
        self.height = grid_height + 2 * _MARGIN + _PANEL_HEIGHT
        if self.width * self.height > MAX_PICTURE_PIXELS:
            raise ValueError(
                f"cell_size {size} draws {layout.rows} x {layout.cols} cells as a {self.width} x {self.height} "
                f"picture, more than MAX_PICTURE_PIXELS = {MAX_PICTURE_PIXELS:,}; pass a smaller cell_size (or None)"
            )
        self.grid_rect = ((self.width - grid_width) // 2, _MARGIN, grid_width, grid_height)
        self.panel_rect = (0, grid_height + 2 * _MARGIN, self.width, _PANEL_HEIGHT)

    @property
    def size(self) -> tuple[int, int]:
        """``(width, height)`` in pixels, as pygame takes it."""
        return self.width, self.height

    @property
    def shape(self) -> tuple[int, int, int]:
        """The shape of an ``rgb_array`` frame: ``(height, width, 3)``."""
        return self.height, self.width, 3

    def _check_cell(self, cell: Any, argument: str) -> Cell:
        try:
            row, col = (int(v) for v in cell)
        except (TypeError, ValueError):
            raise TypeError(f"{argument} must be a (row, col) pair, got {cell!r}") from None
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise ValueError(f"{argument} {cell!r} lies outside the {self.rows}x{self.cols} grid")
        return row, col

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


class Renderer:
    """Draws one layout's picture with pygame: into a window (``show``) or into an array (``frame``).

    The static part (cells, items, labels, goal frames, walls) is drawn once into a cached
    background; each frame blits it and draws only what moves. Nothing random is used: the same
    arguments give the same pixels. Surfaces and fonts are created on first use and are never
    pickled; a copied or unpickled renderer creates its own. ``frame`` never opens a window.

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
        self._fonts: dict[int, pygame.font.Font] = {}
        # fitted text pictures by (text, width, height, largest, smallest), the oldest dropped first
        self._texts: dict[tuple[str, int, int, int, int], pygame.Surface | None] = {}
        self._background: pygame.Surface | None = None
        self._canvas: pygame.Surface | None = None
        self._clock: pygame.time.Clock | None = None

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickle the arguments only: pygame objects cannot be pickled and are rebuilt on use.
        return (Renderer, (self.layout, self._cell_size_argument, self.fps, self.caption))

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
        background, then :meth:`draw_moving`.

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
        surface.blit(self._background, (0, 0))
        self.draw_moving(surface, agent, ghost, status, belief, estimate)

    def draw_background(self, surface: pygame.Surface) -> None:
        """Draw everything that never moves onto ``surface``: cells, items, labels, goal frames,
        grid lines, walls and the empty status panel. :meth:`draw` caches this once.

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
        goal_width = max(2, g.cell_size // 20)
        for goal in layout.goals:
            pg.draw.rect(surface, GOAL_COLOUR, pg.Rect(g.cell_rect(goal)).inflate(-goal_width, -goal_width), goal_width)
        for cell, names in layout.items.items():
            rect = pg.Rect(g.cell_rect(cell))
            surface.set_clip(rect)  # painters round up tiny boxes; nothing may spill into a neighbour
            self._draw_items(pg, surface, rect, names)
            surface.set_clip(None)
        for cell, text in layout.texts.items():
            self._draw_label(surface, cell, text)
        x0, y0, width, height = g.grid_rect
        size = g.cell_size
        for r in range(1, g.rows):
            pg.draw.line(surface, _GRID_LINE, (x0, y0 + r * size), (x0 + width - 1, y0 + r * size))
        for c in range(1, g.cols):
            pg.draw.line(surface, _GRID_LINE, (x0 + c * size, y0), (x0 + c * size, y0 + height - 1))
        w = g.wall_width
        for r, c in zip(*np.nonzero(layout.walls_horizontal), strict=True):
            surface.fill(WALL_COLOUR, (x0 + c * size - w // 2, y0 + (r + 1) * size - w // 2, size + w, w))
        for r, c in zip(*np.nonzero(layout.walls_vertical), strict=True):
            surface.fill(WALL_COLOUR, (x0 + (c + 1) * size - w // 2, y0 + r * size - w // 2, w, size + w))
        pg.draw.rect(surface, WALL_COLOUR, (x0 - w // 2, y0 - w // 2, width + w, height + w), w)
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
            raise TypeError(f"status must be a gridghost.text.Status, got {status!r}")
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
        self._fonts, self._texts = {}, {}

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

    def _font(self, size: int) -> pygame.font.Font:
        pg = import_pygame()
        if not pg.font.get_init():
            pg.font.init()
            self._fonts, self._texts = {}, {}  # fonts and pictures made before a pygame.quit() are dead
        if size not in self._fonts:
            self._fonts[size] = pg.font.Font(None, size)
        return self._fonts[size]

    def _text_image(
        self, text: str, width: int, height: int, largest: int, smallest: int = _MIN_FONT_SIZE
    ) -> pygame.Surface | None:
        """``text`` drawn in the largest font size from ``largest`` down to ``smallest`` at which it
        fits ``width x height`` pixels; if none does, cut with an ellipsis at the smallest size
        whose lines fit ``height``. ``None`` when not even the ellipsis fits, or nothing is visible.
        Undrawable characters are drawn as escapes (see :func:`~gridghost.text.escape_undrawable`).
        The status panel's lines repeat from frame to frame: the last pictures are kept."""
        self._font(smallest)  # restarts the fonts, and forgets the pictures, after a pygame.quit()
        key = (text, width, height, largest, smallest)
        if key in self._texts:
            return self._texts[key]
        image = self._fit_text(text, width, height, largest, smallest)
        if len(self._texts) >= _TEXT_CACHE_SIZE:
            del self._texts[next(iter(self._texts))]
        self._texts[key] = image
        return image

    def _fit_text(self, text: str, width: int, height: int, largest: int, smallest: int) -> pygame.Surface | None:
        text = escape_undrawable(text)
        if len(text) > width:  # glyphs are at least a pixel wide: the rest cannot fit, so skip measuring it
            text = text[:width] + "…"
        cut_font = None
        for size in range(max(largest, smallest), smallest - 1, -1):
            font = self._font(size)
            text_width, text_height = font.size(text)
            if text_height > height:
                continue
            if text_width <= width:  # pygame refuses to draw text of zero width
                return font.render(text, True, _INK) if text_width else None
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
        return cut_font.render(cut, True, _INK) if cut_font.size(cut)[0] <= width else None

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
            image = self._text_image(f"+{count - len(shown)}", rect.right - pad - left, max(slot, size // 3), slot)
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
        image = self._text_image(text, size - 4, bottom - y, size // 4)
        if image is not None:
            surface.blit(image, (x + (size - image.get_width()) // 2, bottom - image.get_height()))

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
            image = self._text_image(line, room, _PANEL_LINE_HEIGHT, _PANEL_FONT_SIZE, _PANEL_FONT_SIZE)
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


# -- shapes --------------------------------------------------------------------------------------

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


#: One drawing per item name of :data:`~gridghost.layout.ITEMS`; each fills the square it is given.
_ITEM_PAINTERS = {
    "dog": _draw_dog,
    "flower": _draw_flower,
    "two_flowers": _draw_two_flowers,
    "one_note": _draw_one_note,
    "two_notes": _draw_two_notes,
}


# -- old names of what moved to gridghost.text and gridghost.recording (for one release) ----------

#: Names this module held before the split, and the modules that hold them now.
_MOVED = {
    "text_picture": "gridghost.text",
    "describe_reading": "gridghost.text",
    "LEGEND": "gridghost.text",
    "READING_TEXT_LIMIT": "gridghost.text",
    "save_image": "gridghost.recording",
    "save_frames": "gridghost.recording",
    "save_animation": "gridghost.recording",
}


def __getattr__(name: str) -> Any:
    """Resolve a name that moved out of this module, with a ``DeprecationWarning``."""
    home = _MOVED.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(
        f"gridghost.render.{name} moved to {home}.{name}; the old name goes in the next release",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(importlib.import_module(home), name)
