"""Where everything lies in gridghost's pictures, in pixels: plain arithmetic, no pygame.

The automatic cell size (:func:`fit_cell_size`, which fits a laptop screen), the game's picture
(:class:`Geometry`: the grid above a status panel, as :class:`~gridghost.drawing.renderer.Renderer`
draws it) and a picture of one number per cell (:class:`PictureGeometry`: a title, the grid and a
colour bar, as :func:`~gridghost.drawing.pictures.value_picture` draws it). Tests and callers find
positions here rather than hard-coding them:

>>> from gridghost.core.layout import CLASSIC
>>> geometry = Geometry(CLASSIC)
>>> geometry.cell_size, geometry.shape
(100, (524, 524, 3))
>>> geometry.cell_centre((0, 2))
(262, 62)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gridghost.core.checks import check_instance, is_int
from gridghost.core.layout import Cell, Layout, check_cell

# -- sizes ---------------------------------------------------------------------------------------
#: The largest picture the automatic cell size aims for: a laptop screen less window decorations.
SCREEN_BUDGET: tuple[int, int] = (1200, 700)
MAX_CELL_SIZE = 100
#: The smallest cell size; layouts too large to fit :data:`SCREEN_BUDGET` at it get bigger pictures.
MIN_CELL_SIZE = 4
#: The most pixels a picture may hold (a ``uint8`` RGB frame of about 100 MB); an explicit
#: ``cell_size`` that would draw more is refused.
MAX_PICTURE_PIXELS = 2**25
MARGIN = 12
PANEL_LINE_HEIGHT = 22
_PANEL_LINES = 4
_PANEL_MIN_WIDTH = 400
_PANEL_HEIGHT = _PANEL_LINES * PANEL_LINE_HEIGHT + MARGIN
# the value picture's title and colour bar
_PICTURE_MIN_WIDTH = 240
_TITLE_HEIGHT = 32
_BAR_GAP = 10
_BAR_HEIGHT = 14
_BAR_LABEL_HEIGHT = 20
#: The most drawings one cell holds: the agent and a team of four ghosts.
MAX_TOKENS = 5
# Where n drawings stand in a cell, as fractions of the cell size from its centre, and their size
# (the agent's radius, the ghost's half-width): one in the middle, two side by side, three or four
# in the quarters, five in two rows.
_TOKEN_OFFSETS: tuple[tuple[tuple[float, float], ...], ...] = (
    ((0.0, 0.0),),
    ((-0.22, 0.0), (0.22, 0.0)),
    ((-0.24, -0.24), (0.24, -0.24), (-0.24, 0.24)),
    ((-0.24, -0.24), (0.24, -0.24), (-0.24, 0.24), (0.24, 0.24)),
    ((-0.3, -0.22), (0.0, -0.22), (0.3, -0.22), (-0.15, 0.22), (0.15, 0.22)),
)
_TOKEN_SIZES = (0.26, 0.2, 0.17, 0.17, 0.13)


def fit_cell_size(rows: int, cols: int) -> int:
    """The automatic cell size in pixels: the largest (up to :data:`MAX_CELL_SIZE`) at which the
    whole picture, status panel included, fits :data:`SCREEN_BUDGET`; at least
    :data:`MIN_CELL_SIZE`.

    >>> fit_cell_size(4, 5), fit_cell_size(16, 16), fit_cell_size(40, 60)
    (100, 36, 14)
    """
    width, height = SCREEN_BUDGET
    fit = min(MAX_CELL_SIZE, (width - 2 * MARGIN) // cols, (height - 2 * MARGIN - _PANEL_HEIGHT) // rows)
    return max(MIN_CELL_SIZE, fit)


class Grid:
    """What both pictures share: the grid's size in pixels, the picture's width (the grid's with
    margins, at least ``min_width``), its height (the grid's with ``above`` and ``below`` it) and
    where each cell lies. Subclasses place what lies above and below the grid."""

    def __init__(self, layout: Layout, cell_size: int | None, min_width: int, above: int, below: int) -> None:
        check_instance(layout, "layout", Layout)
        if cell_size is None:
            cell_size = fit_cell_size(layout.rows, layout.cols)
        elif not is_int(cell_size):
            raise TypeError(f"cell_size must be an int >= {MIN_CELL_SIZE} or None, got {cell_size!r}")
        elif cell_size < MIN_CELL_SIZE:
            raise ValueError(f"cell_size must be >= {MIN_CELL_SIZE} pixels, got {cell_size}")
        self.rows, self.cols = layout.rows, layout.cols
        self.cell_size = int(cell_size)
        self.wall_width = max(2, min(8, self.cell_size // 12))
        self.width = max(self.cols * self.cell_size + 2 * MARGIN, min_width)
        grid_width, grid_height = self.cols * self.cell_size, self.rows * self.cell_size
        self.height = above + grid_height + below
        if self.width * self.height > MAX_PICTURE_PIXELS:
            raise ValueError(
                f"cell_size {self.cell_size} draws {self.rows} x {self.cols} cells as a {self.width} x "
                f"{self.height} picture, more than MAX_PICTURE_PIXELS = {MAX_PICTURE_PIXELS:,}; pass a smaller "
                "cell_size (or None)"
            )
        self.grid_rect = ((self.width - grid_width) // 2, above, grid_width, grid_height)

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

    def token_places(self, cell: Cell, count: int) -> list[tuple[tuple[int, int], int]]:
        """Where ``count`` drawings (the agent, ghosts, marks) sharing ``cell`` stand: ``[((x, y),
        radius), ...]`` in the order they are drawn. One stands at the centre; two side by side
        (as the agent and the ghost when it is caught); three to five in smaller drawings spread
        over the cell.

        Raises:
            TypeError, ValueError: ``cell`` is not a ``(row, col)`` pair inside the grid, or
                ``count`` is not in ``1..MAX_TOKENS``.
        """
        x, y = self.cell_centre(cell)
        if not is_int(count) or not 1 <= count <= MAX_TOKENS:
            raise ValueError(f"count must be an int in 1..{MAX_TOKENS} (drawings in one cell), got {count!r}")
        radius = max(1, round(_TOKEN_SIZES[count - 1] * self.cell_size))
        return [((x + round(dx * self.cell_size), y + round(dy * self.cell_size)), radius)
                for dx, dy in _TOKEN_OFFSETS[count - 1]]


class Geometry(Grid):
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
        super().__init__(layout, cell_size, _PANEL_MIN_WIDTH, MARGIN, MARGIN + _PANEL_HEIGHT)
        self.panel_rect = (0, self.grid_rect[3] + 2 * MARGIN, self.width, _PANEL_HEIGHT)

    def token_centres(self, agent: Cell, ghost: Cell) -> tuple[tuple[int, int], tuple[int, int]]:
        """``(x, y)`` of the centres of the agent's and the ghost's drawings (:meth:`tokens` of one
        ghost): each at its cell's centre, or side by side when they share a cell (the agent is
        caught), the agent on the left.

        Raises:
            TypeError, ValueError: a cell is not a ``(row, col)`` pair inside the grid.
        """
        (agent_xy, _), [(ghost_xy, _)] = self.tokens(agent, [ghost])
        return agent_xy, ghost_xy

    def token_radius(self, shared: bool) -> int:
        """The radius of the agent's disc and the half-width of the ghost, alone or sharing a cell."""
        return self.token_places((0, 0), 2 if shared else 1)[0][1]

    def tokens(
        self, agent: Cell, ghosts: Sequence[Cell]
    ) -> tuple[tuple[tuple[int, int], int], list[tuple[tuple[int, int], int]]]:
        """Where the agent and a team's ghosts are drawn: ``(((x, y), radius), [((x, y), radius),
        ...])``, the agent's place and each ghost's in the ghosts' order. Those sharing a cell
        stand side by side (see :meth:`Grid.token_places`), the agent first, then the ghosts in
        their order. With one ghost this is :meth:`token_centres` and :meth:`token_radius`.

        Raises:
            TypeError, ValueError: a cell is not a ``(row, col)`` pair inside the grid.
        """
        cells = [self._check_cell(agent, "agent")]
        cells += [self._check_cell(cell, f"ghosts[{i}]") for i, cell in enumerate(ghosts)]
        sharing: dict[Cell, list[int]] = {}
        for index, cell in enumerate(cells):
            sharing.setdefault(cell, []).append(index)
        places: list[tuple[tuple[int, int], int]] = [((0, 0), 0)] * len(cells)
        for cell, indices in sharing.items():
            for index, place in zip(indices, self.token_places(cell, len(indices)), strict=True):
                places[index] = place
        return places[0], places[1:]


class PictureGeometry(Grid):
    """Where everything lies in a :func:`~gridghost.drawing.pictures.value_picture`: an optional title, the grid, and a
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
        title_height = _TITLE_HEIGHT if title else 0
        bar_and_labels = _BAR_GAP + _BAR_HEIGHT + 2 + _BAR_LABEL_HEIGHT
        super().__init__(layout, cell_size, _PICTURE_MIN_WIDTH, MARGIN + title_height, bar_and_labels + MARGIN)
        self.title_rect = (MARGIN, MARGIN, self.width - 2 * MARGIN, title_height)
        bar_top = MARGIN + title_height + self.grid_rect[3] + _BAR_GAP
        self.bar_rect = (MARGIN, bar_top, self.width - 2 * MARGIN, _BAR_HEIGHT)
        self.labels_rect = (MARGIN, bar_top + _BAR_HEIGHT + 2, self.width - 2 * MARGIN, _BAR_LABEL_HEIGHT)
