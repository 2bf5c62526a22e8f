"""Pictures of the game: the text picture (``"ansi"``, and ``"human"`` until the pygame renderer
exists).

Each cell is three characters: its colour (``r`` red, ``g`` green, blank for white), who stands
on it (``A`` agent, ``G`` ghost, ``X`` both: caught) and ``*`` on goal cells. Walls are drawn as
``|`` and ``---`` on the cell edges.

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
"""

from __future__ import annotations

from gridghost.layout import Cell, Layout

#: Render modes implemented now. ``"rgb_array"`` arrives with the pygame renderer.
RENDER_MODES: tuple[str, ...] = ("human", "ansi")
_COLOUR_CODES = (" ", "r", "g")
LEGEND = "A agent  G ghost  X caught  * goal  r/g red/green cell"


def check_render_mode(render_mode: object) -> str | None:
    """Return ``render_mode`` if it is ``None`` or one of :data:`RENDER_MODES`.

    Raises:
        NotImplementedError: ``"rgb_array"``, which needs the pygame renderer (not built yet).
        ValueError: any other mode.
    """
    if render_mode is None or render_mode in RENDER_MODES:
        return render_mode  # type: ignore[return-value]
    if render_mode == "rgb_array":
        raise NotImplementedError(
            "render_mode='rgb_array' needs the pygame renderer, which gridghost does not have yet; "
            f"use one of {list(RENDER_MODES)}"
        )
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
