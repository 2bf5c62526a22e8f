"""Pictures of the game: the text picture (``"ansi"``) and the pygame picture (``"human"``,
``"rgb_array"``), plus helpers that save frames as PNG files or an animation.

The renderer draws from plain values (a :class:`~gridghost.layout.Layout`, the agent's and the
ghost's cells, a :class:`Status`), never from an env, so every view (the AEC env, the Gymnasium
env, ``AgentInterface``) shares it and rendering cannot touch the game's random generator.
pygame is imported only when something is drawn or saved.

The text picture: each cell is three characters, its colour (``r`` red, ``g`` green, blank for
white), who stands on it (``A`` agent, ``G`` ghost, ``X`` both: caught) and ``*`` on goal cells.
Walls are drawn as ``|`` and ``---`` on the cell edges.

>>> from gridghost.layout import CLASSIC
>>> print(text_picture(CLASSIC, (0, 2), (3, 4)))
+---+---+---+---+---+
|g  |r    A         |
+   +   +   +---+   +
|    g      |    g  |
+   +   +---+---+   +
|r   g  |   |r      |
+   +   +   +---+   +
|r     *|g        G*|
+---+---+---+---+---+
A agent  G ghost  X caught  * goal  r/g red/green cell

The pygame picture is the grid (hatched red and green cells, items as small vector drawings,
cell labels, goal frames, walls as thick lines, the agent and the ghost) above a status panel
(whose turn it is, the cycle count, both sides' last moves, slips, the last colour reading).
Its size follows from the layout (:class:`Geometry`), so it fits a laptop screen:

>>> geometry = Geometry(CLASSIC)
>>> geometry.cell_size, geometry.shape
(100, (524, 524, 3))
>>> geometry.cell_centre((0, 2))
(262, 62)
"""

from __future__ import annotations

import importlib.util
import math
import numbers
import os
import sys
import unicodedata
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from gridghost.layout import COLOURS, Cell, Layout

if TYPE_CHECKING:
    import pygame

#: Every render mode an env accepts.
RENDER_MODES: tuple[str, ...] = ("human", "rgb_array", "ansi")
_COLOUR_CODES = (" ", "r", "g")
LEGEND = "A agent  G ghost  X caught  * goal  r/g red/green cell"

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
#: The smallest font size texts shrink to before they are cut; the default font is unreadable below.
_MIN_FONT_SIZE = 8


def check_render_mode(render_mode: object) -> str | None:
    """Return ``render_mode`` if it is ``None`` or one of :data:`RENDER_MODES`.

    Raises:
        ValueError: any other mode.
    """
    if render_mode is None or render_mode in RENDER_MODES:
        return render_mode  # type: ignore[return-value]
    raise ValueError(f"unknown render_mode {render_mode!r}; accepted: None, {', '.join(map(repr, RENDER_MODES))}")


def text_picture(layout: Layout, agent: Cell, ghost: Cell, status: str = "") -> str:
    """Draw the grid as text with walls, colours, goals, the agent and the ghost.

    Args:
        layout: the map.
        agent: the agent's ``(row, col)``.
        ghost: the ghost's ``(row, col)``.
        status: a line printed above the grid (omitted when empty).

    Returns:
        The picture, lines joined by newlines, ending with the legend.
    """
    goals = set(layout.goals)
    lines = [status] if status else []
    for r in range(layout.rows):
        lines.append(_edge_line(layout, r))
        row = ["|"]
        for c in range(layout.cols):
            occupant = {(True, True): "X", (True, False): "A", (False, True): "G"}.get(
                ((r, c) == agent, (r, c) == ghost), " "
            )
            row.append(_COLOUR_CODES[layout.colours[r, c]] + occupant + ("*" if (r, c) in goals else " "))
            row.append("|" if c == layout.cols - 1 or layout.walls_vertical[r, c] else " ")
        lines.append("".join(row))
    lines.append(_edge_line(layout, layout.rows))
    lines.append(LEGEND)
    return "\n".join(lines)


def _edge_line(layout: Layout, r: int) -> str:
    """The line above row ``r`` (``r == rows`` gives the bottom border)."""
    border = r == 0 or r == layout.rows
    return "+" + "+".join(
        "---" if border or layout.walls_horizontal[r - 1, c] else "   " for c in range(layout.cols)
    ) + "+"


# -- what the status panel says ------------------------------------------------------------------

@dataclass(frozen=True)
class Status:
    """What the status panel (and the text picture's first line) reports, as plain values.

    Attributes:
        cycle: cycles completed (one agent move plus one ghost move each).
        max_cycles: the cycle limit; ``None`` when there is none.
        to_move: ``"agent"`` or ``"ghost"`` while the game goes on; ``None`` once it has ended.
        ending: how the game ended (e.g. ``"caught by ghost"``); ``None`` while it goes on.
        intended_action: the agent's last intended move (``"down"``), ``None`` before its first.
        actual_action: what the agent's last move did after slip (``"down, down"``, ``"stay"``).
        slipped: whether the agent's last move slipped.
        ghost_action: the ghost's last move, ``None`` before its first.
        color_measurement: the last reading reported under the ``color_measurement`` info key,
            ``None`` when there is none. The colour sensor reports a colour id (an index of
            :data:`~gridghost.layout.COLOURS`), shown by name; a custom sensor may report
            anything, shown as a short text (see :func:`describe_reading`).

    Raises:
        TypeError: counts are not ints, or a move or ``to_move``/``ending`` is not a str or ``None``.
        ValueError: ``to_move`` and ``ending`` are both set or both ``None``, or counts are
            negative.
    """

    cycle: int
    max_cycles: int | None
    to_move: str | None = "agent"
    ending: str | None = None
    intended_action: str | None = None
    actual_action: str | None = None
    slipped: bool = False
    ghost_action: str | None = None
    color_measurement: Any = None

    def __post_init__(self) -> None:
        if not _is_int(self.cycle) or not (self.max_cycles is None or _is_int(self.max_cycles)):
            raise TypeError(
                f"cycle must be an int and max_cycles an int or None, got {self.cycle!r} and {self.max_cycles!r}"
            )
        for name in ("to_move", "ending", "intended_action", "actual_action", "ghost_action"):
            if not isinstance(getattr(self, name), (str, type(None))):
                raise TypeError(f"{name} must be a str or None, got {getattr(self, name)!r}")
        if self.cycle < 0 or (self.max_cycles is not None and self.max_cycles < 0):
            raise ValueError(f"cycle and max_cycles must be >= 0, got {self.cycle} and {self.max_cycles}")
        if (self.to_move is None) == (self.ending is None):
            raise ValueError(
                f"exactly one of to_move and ending must be set, got to_move={self.to_move!r}, ending={self.ending!r}"
            )

    def headline(self) -> str:
        """``"cycle 3/100: ghost to move"`` (``"cycle 3: ..."`` without a limit), or how the game ended."""
        limit = "" if self.max_cycles is None else f"/{self.max_cycles}"
        return f"cycle {self.cycle}{limit}: {self.ending or f'{self.to_move} to move'}"

    def lines(self) -> tuple[str, str, str, str]:
        """The four lines of the status panel.

        >>> Status(1, 100, "ghost", intended_action="down", actual_action="down, down", slipped=True,
        ...        color_measurement=1).lines()
        ('cycle 1/100: ghost to move', 'agent: tried down, slipped: down, down', 'ghost: -', 'colour reading: red')
        """
        if self.intended_action is None:
            agent = "agent: -"
        elif self.slipped:
            agent = f"agent: tried {self.intended_action}, slipped: {self.actual_action}"
        else:
            agent = f"agent: {self.actual_action}"
        reading = describe_reading(self.color_measurement)
        return self.headline(), agent, f"ghost: {self.ghost_action or '-'}", f"colour reading: {reading}"


#: The longest text :func:`describe_reading` gives, ellipsis included.
READING_TEXT_LIMIT = 24


def colour_id(reading: Any) -> int | None:
    """``reading`` as an index of :data:`~gridghost.layout.COLOURS` when it is one (a Python or
    NumPy integer, not a bool), else ``None``.

    >>> colour_id(2), colour_id(np.int64(1)), colour_id(True), colour_id(0.0), colour_id(7)
    (2, 1, None, None, None)
    """
    return int(reading) if _is_int(reading) and 0 <= reading < len(COLOURS) else None


def _is_int(value: Any) -> bool:
    """A Python or NumPy integer, not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def describe_reading(reading: Any) -> str:
    r"""How the status panel shows a ``color_measurement`` reading: ``"-"`` for ``None``, the
    colour's name for a colour id, else ``str(reading)`` with undrawable characters escaped, cut
    to :data:`READING_TEXT_LIMIT` characters with an ellipsis.

    >>> describe_reading(None), describe_reading(1), describe_reading(0.5), describe_reading("a\x00b")
    ('-', 'red', '0.5', 'a\\x00b')
    >>> describe_reading(list(range(20)))
    '[0, 1, 2, 3, 4, 5, 6, 7…'
    """
    if reading is None:
        return "-"
    colour = colour_id(reading)
    if colour is not None:
        return COLOURS[colour]
    text = str(reading)
    cut = len(text) > READING_TEXT_LIMIT
    text = _escape_undrawable(text[:READING_TEXT_LIMIT])  # escapes only lengthen it
    return text[: READING_TEXT_LIMIT - 1] + "…" if cut or len(text) > READING_TEXT_LIMIT else text


def _escape_undrawable(text: str) -> str:
    r"""``text`` with every control, format (zero-width), surrogate, private-use or unassigned
    character written as its Python escape: pygame refuses some of them, draws others as nothing.
    Layouts refuse such characters in cell texts; sensor readings may hold anything.

    >>> _escape_undrawable("a\tb\u200b\ud800 c\u00a0d")
    'a\\tb\\u200b\\ud800 c\xa0d'
    """
    if text.isprintable():
        return text
    return "".join(repr(ch)[1:-1] if unicodedata.category(ch)[0] == "C" else ch for ch in text)


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
        if not isinstance(layout, Layout):
            raise TypeError(f"layout must be a gridghost.Layout, got {layout!r}")
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

def _pygame() -> ModuleType:
    """Import pygame on first use, without its greeting on stdout."""
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
        if isinstance(fps, bool) or not isinstance(fps, numbers.Real) or not (math.isfinite(fps) and fps > 0):
            raise ValueError(f"fps must be a finite number > 0, got {fps!r}")
        self.layout = layout
        if not isinstance(caption, str):
            raise TypeError(f"caption must be a str, got {caption!r}")
        self.fps = fps
        self.caption = caption
        self._cell_size_argument: int | None = cell_size
        self._fonts: dict[int, pygame.font.Font] = {}
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
        pg = _pygame()
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
        pg = _pygame()
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
            self._background = _pygame().Surface(self.geometry.size)
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
        pg = _pygame()
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
            raise TypeError(f"status must be a gridghost.render.Status, got {status!r}")
        pg = _pygame()
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
        self._fonts = {}

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
        pg = _pygame()
        if not pg.font.get_init():
            pg.font.init()
            self._fonts = {}  # fonts made before a pygame.quit() are dead
        if size not in self._fonts:
            self._fonts[size] = pg.font.Font(None, size)
        return self._fonts[size]

    def _text_image(
        self, text: str, width: int, height: int, largest: int, smallest: int = _MIN_FONT_SIZE
    ) -> pygame.Surface | None:
        """``text`` drawn in the largest font size from ``largest`` down to ``smallest`` at which it
        fits ``width x height`` pixels; if none does, cut with an ellipsis at the smallest size
        whose lines fit ``height``. ``None`` when not even the ellipsis fits, or nothing is visible.
        Undrawable characters are drawn as escapes (see :func:`_escape_undrawable`)."""
        text = _escape_undrawable(text)
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
    view = _pygame().surfarray.pixels3d(surface).transpose(1, 0, 2)
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
    surface = _pygame().Surface(renderer.geometry.size)
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


# -- recordings ----------------------------------------------------------------------------------

def _check_frame(frame: Any, argument: str) -> np.ndarray:
    if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] != 3:
        described = (
            f"array of shape {frame.shape} and dtype {frame.dtype}" if isinstance(frame, np.ndarray) else repr(frame)
        )
        raise ValueError(f"{argument} must be a height x width x 3 uint8 array (an rgb_array frame), got {described}")
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise ValueError(f"{argument} must not be empty, got shape {frame.shape}")
    return frame


def _check_frames(frames: Iterable[np.ndarray]) -> list[np.ndarray]:
    if isinstance(frames, np.ndarray) and frames.ndim == 4:
        frames = list(frames)
    if isinstance(frames, (np.ndarray, str, bytes)) or not isinstance(frames, Iterable):
        raise TypeError(f"frames must be a sequence of rgb_array frames, got {type(frames).__name__}")
    checked = [_check_frame(frame, f"frames[{i}]") for i, frame in enumerate(frames)]
    if not checked:
        raise ValueError("frames must hold at least one frame, got none")
    return checked


def _check_suffix(path: Any, argument: str, accepted: Sequence[str]) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{argument} must be a str or os.PathLike, got {path!r}")
    path = Path(path)
    if path.suffix.lower() not in accepted:
        raise ValueError(f"{argument} must end in one of {list(accepted)}, got {str(path)!r}")
    return path


def save_image(frame: np.ndarray, path: str | os.PathLike[str]) -> Path:
    """Save one ``rgb_array`` frame as a PNG file (creating its folder).

    Args:
        frame: a ``height x width x 3`` ``uint8`` array.
        path: where to write; must end in ``.png``.

    Returns:
        The path written.

    Raises:
        TypeError, ValueError: ``frame`` is not such an array, or ``path`` does not end in ``.png``.
    """
    frame = _check_frame(frame, "frame")
    path = _check_suffix(path, "path", (".png",))
    pg = _pygame()
    height, width, _ = frame.shape
    surface = pg.image.frombuffer(np.ascontiguousarray(frame).tobytes(), (width, height), "RGB")
    path.parent.mkdir(parents=True, exist_ok=True)
    pg.image.save(surface, str(path))
    return path


def save_frames(frames: Iterable[np.ndarray], directory: str | os.PathLike[str], prefix: str = "frame") -> list[Path]:
    """Save frames as numbered PNG files, ``{prefix}_00000.png``, ``{prefix}_00001.png``, ...

    Args:
        frames: ``rgb_array`` frames (``height x width x 3`` ``uint8`` arrays).
        directory: the folder to write into (created if missing).
        prefix: the start of every file name.

    Returns:
        The paths written, in order.

    Raises:
        TypeError, ValueError: ``frames`` is empty or holds something else than such arrays,
            ``directory`` is not a path, or ``prefix`` is empty or holds a path separator.
    """
    checked = _check_frames(frames)
    if not isinstance(directory, (str, os.PathLike)):
        raise TypeError(f"directory must be a str or os.PathLike, got {directory!r}")
    if not isinstance(prefix, str) or not prefix or "/" in prefix or os.sep in prefix:
        raise ValueError(f"prefix must be a non-empty file name start without path separators, got {prefix!r}")
    digits = max(5, len(str(len(checked) - 1)))
    return [save_image(frame, Path(directory) / f"{prefix}_{i:0{digits}d}.png") for i, frame in enumerate(checked)]


def save_animation(frames: Iterable[np.ndarray], path: str | os.PathLike[str], fps: float = 4) -> Path:
    """Save frames as an animated GIF (looping) or an MP4 video, with ``imageio``.

    GIFs need ``imageio`` (``pip install "gridghost[record]"``); MP4 videos need
    ``imageio-ffmpeg`` as well.

    Args:
        frames: ``rgb_array`` frames, all of the same shape.
        path: where to write; must end in ``.gif`` or ``.mp4``. Its folder is created if missing.
        fps: frames per second.

    Returns:
        The path written.

    Raises:
        TypeError, ValueError: bad ``frames`` (empty, not frames, shapes differ), ``path`` or ``fps``.
        ImportError: ``imageio`` (or, for MP4, ``imageio-ffmpeg``) is not installed.
    """
    checked = _check_frames(frames)
    for i, frame in enumerate(checked):
        if frame.shape != checked[0].shape:
            raise ValueError(f"frames[{i}] has shape {frame.shape}, but frames[0] has {checked[0].shape}")
    path = _check_suffix(path, "path", (".gif", ".mp4"))
    if isinstance(fps, bool) or not isinstance(fps, numbers.Real) or not (math.isfinite(fps) and fps > 0):
        raise ValueError(f"fps must be a finite number > 0, got {fps!r}")
    try:
        import imageio.v3 as iio
    except ImportError:
        raise ImportError(
            'save_animation needs imageio: pip install "gridghost[record]" (or save_frames for PNG files)'
        ) from None
    stack = np.stack(checked)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() == ".gif":
        # Pillow takes each frame's duration in milliseconds; loop=0 repeats forever.
        iio.imwrite(path, stack, extension=".gif", plugin="pillow", duration=round(1000 / fps), loop=0)
    else:
        if importlib.util.find_spec("imageio_ffmpeg") is None:  # imageio's FFMPEG plugin needs it
            raise ImportError("writing MP4 needs imageio-ffmpeg: pip install imageio-ffmpeg (or save a .gif)")
        iio.imwrite(path, stack, extension=".mp4", plugin="FFMPEG", fps=fps)
    return path
