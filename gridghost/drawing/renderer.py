"""The pygame picture of the game (the ``"human"`` and ``"rgb_array"`` render modes): the
:class:`Renderer`, which draws into a window or into ``rgb_array`` frames, with an optional overlay
of one number per cell and a policy's arrows (:meth:`Renderer.set_overlay`).

The renderer draws from plain values (a :class:`~gridghost.core.layout.Layout`, the agent's and the
ghost's cells -- or a team's, one per ghost -- and a :class:`~gridghost.drawing.text.Status`), never
from an env, so every view (the AEC env, the Gymnasium env, ``AgentInterface``) shares it and
rendering cannot touch the game's random generator. pygame is imported only when something is drawn
(:func:`~gridghost.drawing.paint.import_pygame`).

The picture is the grid (hatched red and green cells, items as small vector drawings, cell
labels, goal frames, walls as thick lines, the agent and the ghost, or a team's ghosts each in its
colour of :data:`~gridghost.drawing.paint.GHOST_COLOURS`) above a status panel (whose
turn it is, the cycle count, both sides' last moves, slips, the last colour reading). Where
everything lies is :class:`~gridghost.drawing.geometry.Geometry`; how it is painted,
:mod:`gridghost.drawing.paint`; the text picture and the status lines, :mod:`gridghost.drawing.text`.
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Iterable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from gridghost.core.checks import check_probability, check_rate
from gridghost.core.layout import Cell, Layout
from gridghost.drawing.colourmap import check_cmap, check_policy, check_values, colour_range, map_colours
from gridghost.drawing.geometry import MARGIN, PANEL_LINE_HEIGHT, Geometry
from gridghost.drawing.paint import (
    BACKGROUND,
    BELIEF_COLOUR,
    ESTIMATE_COLOUR,
    GHOST_COLOURS,
    INK,
    ITEM_PAINTERS,
    TextPainter,
    draw_agent,
    draw_arrow,
    draw_ghost,
    draw_goal_frames,
    draw_lines_and_walls,
    fill_cell_colour,
    import_pygame,
)
from gridghost.drawing.text import Status, colour_id, ghost_cells

if TYPE_CHECKING:
    import pygame

#: Every render mode an env accepts.
RENDER_MODES: tuple[str, ...] = ("human", "rgb_array", "ansi")
#: The opacity of the renderer's overlay when :meth:`Renderer.set_overlay` is not told.
OVERLAY_OPACITY = 0.6
#: The status panel's font size.
_PANEL_FONT_SIZE = 22
#: Highest opacity (0..255) of the belief overlay, reached by the most likely cell.
_BELIEF_MAX_ALPHA = 170

#: The renderer that last drew into pygame's one window; only it closes the window.
_window_owner: weakref.ref[Renderer] | None = None


class _Overlay(NamedTuple):
    """What :meth:`Renderer.set_overlay` was told, ready to draw."""

    colours: np.ndarray | None  # uint8[rows, cols, 3], or None: arrows only
    shown: np.ndarray  # bool[rows, cols]: the cells with a number
    policy: np.ndarray | None  # int64[rows, cols], -1 where no arrow
    alpha: int


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
        self._text = TextPainter()
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

        Each cell with a number is tinted with its colour (see
        :func:`~gridghost.drawing.colourmap.colour_map`) at ``opacity`` over the cell's own picture;
        cells whose number is NaN are left as they are. The policy's actions are drawn as arrows
        over that; the goal frames and the walls stay on top, and the agent, the ghost and a belief
        are drawn over everything. For a picture with a colour bar and the numbers written out, use
        :func:`~gridghost.drawing.pictures.value_picture`.

        Args:
            values: ``rows x cols`` real numbers (NaN or masked: no tint), or ``None``.
            policy: ``rows x cols`` integer actions (0 left, 1 down, 2 right, 3 up; -1 or masked:
                no arrow), or ``None``.
            cmap, vmin, vmax: the colour map and the numbers at its ends, as
                :func:`~gridghost.drawing.colourmap.colour_map`.
            opacity: how strongly the colours cover the cells, from 0 (not at all) to 1.

        Raises:
            TypeError, ValueError: as :func:`~gridghost.drawing.pictures.value_picture` for ``values``,
                ``policy``, ``cmap``, ``vmin`` and ``vmax``; ``opacity`` not a number in [0, 1]. The
                overlay is then unchanged.
        """
        shape = (self.geometry.rows, self.geometry.cols)
        array = None if values is None else check_values(values, "values", shape)
        actions = None if policy is None else check_policy(policy, "policy", shape)
        anchors = check_cmap(cmap)
        alpha = round(255 * check_probability(opacity, "opacity"))
        low, high = colour_range(np.empty(0) if array is None else array, vmin, vmax)  # checked without values too
        colours = None if array is None else map_colours(array, low, high, anchors)
        shown = np.zeros(shape, dtype=bool) if array is None else np.isfinite(array)
        self._overlay = None if array is None and actions is None else _Overlay(colours, shown, actions, alpha)
        self._background = None  # the overlay is part of the cached background

    # -- public drawing API ------------------------------------------------------------------------
    def frame(
        self,
        agent: Cell,
        ghost: Cell | Sequence[Cell],
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
        ghost: Cell | Sequence[Cell],
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
        ghost: Cell | Sequence[Cell],
        status: Status,
        belief: np.ndarray | None = None,
        estimate: Cell | None = None,
    ) -> None:
        """Draw the whole picture onto ``surface`` (of :attr:`Geometry.size`): the cached
        background (with the overlay of :meth:`set_overlay`, if any), then :meth:`draw_moving`.

        Args:
            surface: the pygame surface to draw on.
            agent: the agent's ``(row, col)``.
            ghost: the ghost's ``(row, col)``; for a team, the ghosts' cells in their order (ghost
                0's first), each ghost drawn in its colour of
                :data:`~gridghost.drawing.paint.GHOST_COLOURS`; ghosts (and the agent) sharing a
                cell stand side by side in it. A one-cell sequence draws what the cell alone draws.
            status: what the status panel says.
            belief: optional ``rows x cols`` array of non-negative weights (a filter's belief),
                drawn as a heat overlay scaled to its largest entry.
            estimate: optional ``(row, col)`` of an estimated agent cell, drawn as a frame.

        Raises:
            TypeError, ValueError: a cell outside the grid (``ghost``: or a team of none or more
                than ``MAX_GHOSTS`` cells), ``status`` not a :class:`Status`, a
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
        surface.fill(BACKGROUND)
        for cell in layout.cells():
            fill_cell_colour(pg, surface, pg.Rect(g.cell_rect(cell)), layout.colours[cell])
        draw_goal_frames(pg, surface, layout, g)
        for cell, names in layout.items.items():
            rect = pg.Rect(g.cell_rect(cell))
            surface.set_clip(rect)  # painters round up tiny boxes; nothing may spill into a neighbour
            self._draw_items(pg, surface, rect, names)
            surface.set_clip(None)
        for cell, text in layout.texts.items():  # centred at the cell's bottom, shrunk or cut to fit it
            x, y, size, _ = g.cell_rect(cell)
            bottom = y + size - max(2, size // 14)
            image = self._text.image(text, size - 4, bottom - y, size // 4)
            if image is not None:
                surface.blit(image, (x + (size - image.get_width()) // 2, bottom - image.get_height()))
        draw_lines_and_walls(pg, surface, layout, g)
        surface.fill(BACKGROUND, g.panel_rect)

    def draw_moving(
        self,
        surface: pygame.Surface,
        agent: Cell,
        ghost: Cell | Sequence[Cell],
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
        agent = g._check_cell(agent, "agent")
        ghosts = ghost_cells(ghost, g.rows, g.cols)
        if not isinstance(status, Status):
            raise TypeError(f"status must be a gridghost.drawing.text.Status, got {status!r}")
        pg = import_pygame()
        if belief is not None:
            self._draw_belief(pg, surface, belief)
        if estimate is not None:
            estimate = g._check_cell(estimate, "estimate")
            inset = max(2, g.cell_size // 10)
            rect = pg.Rect(g.cell_rect(estimate)).inflate(-2 * inset, -2 * inset)
            pg.draw.rect(surface, ESTIMATE_COLOUR, rect, max(1, g.cell_size // 30))
        (agent_xy, radius), ghost_places = g.tokens(agent, ghosts)
        # Eyes need room: cells of 24 pixels or more, and drawings not shrunk below 4 pixels.
        draw_agent(pg, surface, agent_xy, radius, g.cell_size >= 24 and radius >= 4)
        for colour, (ghost_xy, radius) in zip(GHOST_COLOURS, ghost_places, strict=False):
            draw_ghost(pg, surface, ghost_xy, radius, g.cell_size >= 24 and radius >= 4, colour)
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
        self._text = TextPainter()

    # -- helpers -----------------------------------------------------------------------------------
    def _check_surface(self, surface: pygame.Surface) -> None:
        if surface.get_size() != self.geometry.size:
            raise ValueError(f"surface must have size {self.geometry.size}, got {surface.get_size()}")

    def _draw_items(self, pg: ModuleType, surface: pygame.Surface, rect: pygame.Rect, names: Sequence[str]) -> None:
        """A row of item drawings along the top of the cell ``rect``: shrunk when more than three
        share it, and when even small ones do not all fit, the first few and ``+n`` for the rest
        (in cells too small for that text, as many items as fit)."""
        size, count = rect.width, len(names)
        pad = max(1, size // 25)
        slot = max(4, round(0.3 * size))
        if count > (size - pad) // (slot + pad):  # more than a row of full-size drawings
            slot = max(4, round(0.15 * size), (size - pad) // count - pad)
        capacity = max(1, (size - pad) // (slot + pad))
        shown = names if count <= capacity else names[: capacity - 1]
        image = None
        if len(shown) < count:
            left = rect.x + pad + len(shown) * (slot + pad)
            image = self._text.image(f"+{count - len(shown)}", rect.right - pad - left, max(slot, size // 3), slot)
            if image is None:  # no room for the text: one more item instead
                shown = names[:capacity]
        for i, name in enumerate(shown):
            ITEM_PAINTERS[name](pg, surface, pg.Rect(rect.x + pad + i * (slot + pad), rect.y + pad, slot, slot))
        if image is not None:
            surface.blit(image, (rect.x + pad + len(shown) * (slot + pad), rect.y + pad))

    def _draw_overlay(self, surface: pygame.Surface, overlay: _Overlay) -> None:
        """The tint and the arrows of :meth:`set_overlay`, then the goal frames and walls again."""
        pg = import_pygame()
        g = self.geometry
        if overlay.colours is not None and overlay.alpha:
            self._tint(pg, surface, ((cell, (*(int(v) for v in overlay.colours[cell]), overlay.alpha))
                                     for cell in zip(*np.nonzero(overlay.shown), strict=True)))
        if overlay.policy is not None:
            for row, col in zip(*np.nonzero(overlay.policy >= 0), strict=True):
                draw_arrow(pg, surface, g.cell_centre((row, col)), 0.6 * g.cell_size, int(overlay.policy[row, col]))
        draw_goal_frames(pg, surface, self.layout, g)
        draw_lines_and_walls(pg, surface, self.layout, g)

    def _draw_belief(self, pg: ModuleType, surface: pygame.Surface, weights: Any) -> None:
        """Check a belief (see :meth:`draw`) and draw it, scaled to its largest weight."""
        g = self.geometry
        belief = np.asarray(weights, dtype=float)
        if belief.shape != (g.rows, g.cols):
            raise ValueError(f"belief must have shape {(g.rows, g.cols)} (rows x cols), got {belief.shape}")
        if not np.isfinite(belief).all() or (belief < 0).any():
            raise ValueError("belief must hold finite, non-negative weights")
        peak = belief.max()
        if peak > 0:
            alphas = ((cell, round(_BELIEF_MAX_ALPHA * weight / peak)) for cell, weight in np.ndenumerate(belief))
            self._tint(pg, surface, ((cell, (*BELIEF_COLOUR, alpha)) for cell, alpha in alphas if alpha))

    def _tint(self, pg: ModuleType, surface: pygame.Surface, fills: Iterable[tuple[Cell, tuple[int, ...]]]) -> None:
        """Blend each ``(cell, (red, green, blue, alpha))`` of ``fills`` over its cell."""
        tile = pg.Surface((self.geometry.cell_size,) * 2, pg.SRCALPHA)
        for cell, colour in fills:
            tile.fill(colour)
            surface.blit(tile, self.geometry.cell_rect(cell)[:2])

    def _draw_panel(self, pg: ModuleType, surface: pygame.Surface, status: Status) -> None:
        x, y, width, _ = self.geometry.panel_rect
        left, top = x + MARGIN, y + MARGIN // 2
        colour = colour_id(status.color_measurement)
        side = PANEL_LINE_HEIGHT - 6
        for i, line in enumerate(status.lines()):
            room = width - 2 * MARGIN - (side + 8 if colour is not None and i == 3 else 0)
            image = self._text.image(line, room, PANEL_LINE_HEIGHT, _PANEL_FONT_SIZE, _PANEL_FONT_SIZE)
            line_width = 0 if image is None else image.get_width()
            if image is not None:
                surface.blit(image, (left, top + i * PANEL_LINE_HEIGHT))
        if colour is not None:  # a swatch of the reading after its name
            swatch = pg.Rect(left + line_width + 8, top + 3 * PANEL_LINE_HEIGHT, side, side)
            fill_cell_colour(pg, surface, swatch, colour)
            pg.draw.rect(surface, INK, swatch, 1)


def surface_to_array(surface: pygame.Surface) -> np.ndarray:
    """The pixels of a pygame surface as a fresh ``height x width x 3`` ``uint8`` array."""
    view = import_pygame().surfarray.pixels3d(surface).transpose(1, 0, 2)
    out = np.empty(view.shape, dtype=np.uint8)
    for channel in range(3):  # channel by channel: several times faster than one strided 3-d copy
        out[:, :, channel] = view[:, :, channel]
    del view  # unlocks the surface
    return out
