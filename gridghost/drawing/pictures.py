"""Still pictures drawn off screen with pygame (no window opens): :func:`cell_images`, each cell
as a camera over it sees it, for sensors that look at cells; and :func:`value_picture`, one number
per cell (a value function, a belief, visit counts) with a policy's arrows and a colour bar. The
same numbers over the game's own picture are
:meth:`Renderer.set_overlay <gridghost.drawing.renderer.Renderer.set_overlay>`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from gridghost.core.checks import check_cell, check_choice, check_instance
from gridghost.core.layout import Cell, Layout
from gridghost.core.names import MAX_GHOSTS, ghost_names
from gridghost.drawing.colourmap import (
    NAN_COLOUR,
    check_cmap,
    check_policy,
    check_values,
    colour_range,
    map_colours,
)
from gridghost.drawing.geometry import MAX_TOKENS, PictureGeometry
from gridghost.drawing.paint import (
    BACKGROUND,
    GHOST_COLOURS,
    INK,
    LIGHT_INK,
    TextPainter,
    draw_agent,
    draw_arrow,
    draw_ghost,
    draw_goal_frames,
    draw_lines_and_walls,
    import_pygame,
)
from gridghost.drawing.renderer import Renderer, surface_to_array

if TYPE_CHECKING:
    import pygame

#: What :func:`value_picture` can draw on a cell as a marker: the agent, the one ghost, and a team's
#: ghosts by their env names (``"ghost_0"`` is drawn as ``"ghost"``; each in its colour of
#: :data:`~gridghost.drawing.paint.GHOST_COLOURS`).
MARKS: tuple[str, ...] = ("agent", "ghost", *(f"ghost_{i}" for i in range(MAX_GHOSTS)))
_TITLE_FONT_SIZE = 26


def cell_images(layout: Layout, size: int = 64) -> np.ndarray:
    """The picture of every cell as a camera over it would see it: its colour, items, label, goal
    frame and the walls along its edges, without the agent or the ghost.

    Drawn off screen by :meth:`Renderer.draw_background`; no window opens.

    Args:
        layout: the map.
        size: the side of each picture in pixels (at least :data:`~gridghost.drawing.geometry.MIN_CELL_SIZE`).

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
    (see :func:`~gridghost.drawing.colourmap.colour_map`) and, with ``number_format``, the number
    written at its bottom; a policy's action as an arrow; the goal frames, the walls, and a colour
    bar labelled with the lowest, middle and highest number below the grid. Cells whose number is
    NaN are grey (:data:`~gridghost.drawing.colourmap.NAN_COLOUR`) and unlabelled. Drawn off screen;
    no window opens.

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
        cell_size: the side of a cell in pixels; ``None`` picks :func:`~gridghost.drawing.geometry.fit_cell_size`.
        cmap, vmin, vmax: the colour map and the numbers at its ends, as
            :func:`~gridghost.drawing.colourmap.colour_map`.
        title: a line of text above the grid (shrunk or cut to fit).
        marks: cells to mark with a drawing: ``{(row, col): name}`` with names from :data:`MARKS`
            (``{(3, 4): "ghost"}`` where the ghost stands still), or ``{(row, col): (name, ...)}``
            for several drawings side by side in one cell (a team's ghosts sharing it); see
            :func:`team_marks` for a team's marks.
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
            action outside ``-1..3``, a mark outside the grid or of an unknown name (or none or more
            than ``MAX_TOKENS`` names for one cell), a format that
            does not format a number, or as :func:`~gridghost.drawing.colourmap.colour_map` and
            :class:`PictureGeometry`.
    """
    check_instance(layout, "layout", Layout)
    if title is not None and not isinstance(title, str):
        raise TypeError(f"title must be a str or None, got {title!r}")
    geometry = PictureGeometry(layout, cell_size, title=title is not None)
    shape = (layout.rows, layout.cols)
    array = check_values(values, "values", shape)
    actions = None if policy is None else check_policy(policy, "policy", shape)
    anchors = check_cmap(cmap)
    low, high = colour_range(array, vmin, vmax)
    marked = _check_marks(marks, geometry)
    _check_number_format(number_format)
    colours = map_colours(array, low, high, anchors)

    pg = import_pygame()
    text = TextPainter()
    surface = pg.Surface(geometry.size)
    surface.fill(BACKGROUND)
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
        if actions is not None and actions[cell] >= 0:  # centred in the cell; above the number when there is one
            middle, length = (0.5, 0.6) if number_format is None else (0.4, 0.5)
            draw_arrow(pg, surface, (x + size / 2, y + middle * size), length * size, int(actions[cell]))
    for cell, names in marked.items():
        for name, (centre, radius) in zip(names, geometry.token_places(cell, len(names)), strict=True):
            eyes = size >= 24 and radius >= 4
            if name == "agent":
                draw_agent(pg, surface, centre, radius, eyes)
            else:
                draw_ghost(pg, surface, centre, radius, eyes, GHOST_COLOURS[0 if name == "ghost" else int(name[6:])])
    draw_goal_frames(pg, surface, layout, geometry)
    draw_lines_and_walls(pg, surface, layout, geometry)
    _draw_colour_bar(pg, surface, geometry, text, low, high, anchors)
    if title is not None:
        x, y, width, height = geometry.title_rect
        image = text.image(title, width, height, _TITLE_FONT_SIZE)
        if image is not None:
            surface.blit(image, (x + (width - image.get_width()) // 2, y + (height - image.get_height()) // 2))
    return surface_to_array(surface)


def _draw_colour_bar(
    pg: ModuleType, surface: pygame.Surface, geometry: PictureGeometry, text: TextPainter, low: float,
    high: float, anchors: np.ndarray,
) -> None:
    """The colour map from ``low`` (left) to ``high`` (right), framed, with the lowest, middle and
    highest number under it; grey and unlabelled when there is no number."""
    x, y, width, height = geometry.bar_rect
    pg.draw.rect(surface, INK, (x - 1, y - 1, width + 2, height + 2), 1)  # a frame just outside the bar
    if math.isnan(low) or math.isnan(high):
        surface.fill(NAN_COLOUR, geometry.bar_rect)
        return
    strip = map_colours(np.linspace(low, high, width), low, high, anchors)
    surface.blit(pg.surfarray.make_surface(np.repeat(strip[:, None, :], height, axis=1)), (x, y))
    x, y, width, height = geometry.labels_rect
    room = width // 3
    for number, align in ((low, 0.0), ((low + high) / 2, 0.5), (high, 1.0)):
        image = text.image(f"{number:.4g}", room, height, height)
        if image is not None:
            surface.blit(image, (x + round(align * (width - image.get_width())), y))


def _ink_on(colour: tuple[int, ...]) -> tuple[int, int, int]:
    """Dark ink on light colours, light ink on dark ones (by luma)."""
    red, green, blue = colour[:3]
    return INK if 0.299 * red + 0.587 * green + 0.114 * blue > 150 else LIGHT_INK


def team_marks(ghosts: Sequence[Cell | None], agent: Cell | None = None) -> dict[Cell, tuple[str, ...]]:
    """The ``marks`` of :func:`value_picture` for a team standing still: each ghost's drawing on
    its cell (named as the env names the ghosts: ``"ghost"`` for one, ``"ghost_0"``, ... for a
    team), and the agent's when ``agent`` is given. A ``None`` in ``ghosts`` leaves that ghost
    out: the one whose moves the picture's arrows show.

    For a team's policy, fix every position but one and draw the moves of the one left free.
    With ``best[a, g0, g1]``, the ghost team's joint action index (ghost 0 the lowest base-4
    digit) over the agent's cell and the two ghosts' (flat cell indices), the moves of ghost 1
    wherever it stands, with the agent at ``a`` and ghost 0 at ``g0``::

        policy = (best[a, g0, :] // 4).reshape(layout.shape)
        marks = team_marks([cell_of(g0), None], agent=cell_of(a))
        picture = value_picture(layout, values, policy, marks=marks)

    >>> team_marks([(3, 4), None, (3, 4)], agent=(0, 2))
    {(0, 2): ('agent',), (3, 4): ('ghost_0', 'ghost_2')}
    >>> team_marks([(3, 4)])
    {(3, 4): ('ghost',)}

    Args:
        ghosts: each ghost's ``(row, col)`` in the ghosts' order, or ``None`` to leave it out;
            ``1..MAX_GHOSTS`` entries.
        agent: the agent's ``(row, col)``, or ``None`` (the agent's moves are the arrows).

    Returns:
        ``{(row, col): (name, ...)}``, the agent first in its cell, then the ghosts in order.

    Raises:
        TypeError: ``ghosts`` is not a sequence, or a cell is not a pair of ints (naming which);
            :func:`value_picture` checks that the cells lie inside its grid.
        ValueError: ``ghosts`` holds none or more than ``MAX_GHOSTS`` entries.
    """
    if isinstance(ghosts, (str, bytes)) or not isinstance(ghosts, Sequence):
        raise TypeError(f"ghosts must be a sequence of (row, col) cells or None, got {ghosts!r}")
    if not 1 <= len(ghosts) <= MAX_GHOSTS:
        raise ValueError(f"ghosts must hold 1..{MAX_GHOSTS} entries (gridghost.core.MAX_GHOSTS), got {len(ghosts)}")
    marks: dict[Cell, tuple[str, ...]] = {}
    arguments = ("agent", *(f"ghosts[{i}]" for i in range(len(ghosts))))
    for name, cell, argument in zip(("agent", *ghost_names(len(ghosts))), (agent, *ghosts), arguments, strict=True):
        if cell is not None:
            key = check_cell(cell, argument)
            marks[key] = (*marks.get(key, ()), name)
    return marks


def _check_marks(marks: Any, geometry: PictureGeometry) -> dict[Cell, tuple[str, ...]]:
    if marks is None:
        return {}
    if not isinstance(marks, Mapping):
        raise TypeError(f"marks must be a mapping {{(row, col): name}} or None, got {marks!r}")
    checked: dict[Cell, tuple[str, ...]] = {}
    for cell, names in marks.items():
        key = geometry._check_cell(cell, "marks")
        if isinstance(names, str):
            names = (names,)
        elif not isinstance(names, Sequence) or not 1 <= len(names) <= MAX_TOKENS:
            raise ValueError(f"marks[{key}] must be a name from {list(MARKS)} or a sequence of 1..{MAX_TOKENS} "
                             f"of them, got {names!r}")
        checked[key] = tuple(check_choice(name, "mark", MARKS) for name in names)
    return checked


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
