"""The game as text: the text picture (the ``"ansi"`` render mode) and the status that every
picture reports.

Plain Python and NumPy, no pygame. The pygame renderer (:mod:`gridghost.drawing.renderer`) draws the same
:class:`Status` lines in its panel, so the two pictures always say the same thing.

The text picture: each cell is three characters, its colour (``r`` red, ``g`` green, blank for
white), who stands on it (``A`` agent, ``G`` ghost, ``X`` both: caught) and ``*`` on goal cells.
Walls are drawn as ``|`` and ``---`` on the cell edges.

>>> from gridghost.core.layout import CLASSIC
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

A team's picture (``ghost`` a sequence of cells, ghost 0's first) marks ghost 0 ``G`` and ghosts
1..3 ``G1``, ``G2``, ``G3``, the symbols of their starts in the map text format
(:mod:`gridghost.core.maptext`): the number takes the goal's column, so a goal under a numbered
ghost shows no ``*`` while the ghost stands on it. Several ghosts on one cell are ``G+``, the agent
with any ghost ``X``; a line under the grid says who shares each such cell. The rows that
change, and the lines under the grid:

>>> lines = text_picture(CLASSIC, (0, 2), [(3, 4), (0, 0), (0, 0)]).splitlines()
>>> print("\\n".join([lines[1], lines[7], *lines[-2:]]))
|gG+|r    A         |
|r     *|g        G*|
shared cells: (0, 0) G1 G2
A agent  G ghost_0  G1 ghost_1  G2 ghost_2  G+ ghosts together  X caught  * goal  r/g red/green cell
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gridghost.core.checks import check_cell, is_int
from gridghost.core.layout import COLOURS, Cell, Layout
from gridghost.core.names import MAX_GHOSTS, ghost_names

_COLOUR_CODES = (" ", "r", "g")
LEGEND = "A agent  G ghost  X caught  * goal  r/g red/green cell"
#: The symbols of a team's ghosts in the text picture, ghost 0's first: those of their starts in
#: the map text format.
GHOST_SYMBOLS: tuple[str, ...] = ("G", "G1", "G2", "G3")


def team_legend(ghosts: int) -> str:
    """The text picture's legend for ``ghosts`` ghosts (:data:`LEGEND` for one).

    >>> team_legend(2)
    'A agent  G ghost_0  G1 ghost_1  G+ ghosts together  X caught  * goal  r/g red/green cell'
    """
    if ghosts == 1:
        return LEGEND
    marks = "  ".join(f"{symbol} {name}" for symbol, name in zip(GHOST_SYMBOLS, ghost_names(ghosts), strict=False))
    return f"A agent  {marks}  G+ ghosts together  X caught  * goal  r/g red/green cell"


def ghost_cells(ghost: Any, rows: int, cols: int, argument: str = "ghost") -> tuple[Cell, ...]:
    """The ghosts' cells of a picture: ``ghost`` is one ghost's ``(row, col)``, or a team's cells
    in the ghosts' order (ghost 0's first; ghosts may share a cell).

    >>> ghost_cells((3, 4), 4, 5), ghost_cells([(3, 4), (0, 0)], 4, 5)
    (((3, 4),), ((3, 4), (0, 0)))

    Raises:
        TypeError: not a cell nor a sequence of cells (``ghost[i]``: which one).
        ValueError: a cell outside the grid, or a team of none or more than ``MAX_GHOSTS`` ghosts.
    """
    if _is_team(ghost):
        if len(ghost) > MAX_GHOSTS:
            raise ValueError(f"{argument} must be one cell or 1..{MAX_GHOSTS} cells (gridghost.core.MAX_GHOSTS), "
                             f"got {len(ghost)} cells")
        return tuple(check_cell(cell, f"{argument}[{i}]", rows, cols) for i, cell in enumerate(ghost))
    return (check_cell(ghost, argument, rows, cols),)


def _is_team(ghost: Any) -> bool:
    """Whether ``ghost`` is a sequence of cells rather than one cell: its first entry is a sequence."""
    if isinstance(ghost, (str, bytes)):
        return False
    try:
        first = ghost[0]
    except (TypeError, IndexError, KeyError):
        return False
    return isinstance(first, (Sequence, np.ndarray)) and not isinstance(first, (str, bytes))


def text_picture(layout: Layout, agent: Cell, ghost: Cell | Sequence[Cell], status: str = "") -> str:
    """Draw the grid as text with walls, colours, goals, the agent and the ghost (or the ghosts).

    Args:
        layout: the map.
        agent: the agent's ``(row, col)``.
        ghost: the ghost's ``(row, col)``; for a team, the ghosts' cells in their order (ghost 0's
            first), drawn as ``G``, ``G1``, ``G2``, ``G3`` (see the module's docstring). A
            one-cell sequence draws what the cell alone draws.
        status: a line printed above the grid (omitted when empty).

    Returns:
        The picture, lines joined by newlines, ending with the legend (a team's picture: the
        line of shared cells, if any, then the team's legend).

    Raises:
        TypeError, ValueError: ``agent`` or ``ghost`` not a cell of the grid (``ghost``: nor a
            sequence of 1..MAX_GHOSTS such cells).
    """
    agent = check_cell(agent, "agent", layout.rows, layout.cols)
    ghosts = ghost_cells(ghost, layout.rows, layout.cols)
    goals = set(layout.goals)
    on: dict[Cell, list[int]] = {}
    for index, cell in enumerate(ghosts):
        on.setdefault(cell, []).append(index)
    lines = [status] if status else []
    for r in range(layout.rows):
        lines.append(_edge_line(layout, r))
        row = ["|"]
        for c in range(layout.cols):
            mark = ("*" if (r, c) in goals else " ")
            here = on.get((r, c), [])
            if (r, c) == agent:
                occupant = "X" if here else "A"
            elif not here:
                occupant = " "
            elif len(here) > 1:
                occupant, mark = "G", "+"
            else:
                occupant = GHOST_SYMBOLS[here[0]][0]
                mark = GHOST_SYMBOLS[here[0]][1:] or mark
            row.append(_COLOUR_CODES[layout.colours[r, c]] + occupant + mark)
            row.append("|" if c == layout.cols - 1 or layout.walls_vertical[r, c] else " ")
        lines.append("".join(row))
    lines.append(_edge_line(layout, layout.rows))
    if len(ghosts) > 1:
        shared = [(cell, (["A"] if cell == agent else []) + [GHOST_SYMBOLS[i] for i in indices])
                  for cell, indices in sorted(on.items()) if len(indices) + (cell == agent) > 1]
        if shared:
            lines.append("shared cells: " + "; ".join(f"{cell} {' '.join(who)}" for cell, who in shared))
    lines.append(team_legend(len(ghosts)))
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
        ghost_action: the ghost's last move, ``None`` before its first; for a team, a tuple of
            each ghost's last move in the ghosts' order (``None`` entries before a ghost's first),
            shown as ``"ghosts: left, up"``.
        color_measurement: the last reading reported under the ``color_measurement`` info key,
            ``None`` when there is none. The colour sensor reports a colour id (an index of
            :data:`~gridghost.core.COLOURS`), shown by name; a custom sensor may report
            anything, shown as a short text (see :func:`describe_reading`).

    Raises:
        TypeError: counts are not ints, or a move or ``to_move``/``ending`` is not a str or ``None``
            (``ghost_action``: nor a tuple of such).
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
    ghost_action: str | tuple[str | None, ...] | None = None
    color_measurement: Any = None

    def __post_init__(self) -> None:
        if not is_int(self.cycle) or not (self.max_cycles is None or is_int(self.max_cycles)):
            raise TypeError(
                f"cycle must be an int and max_cycles an int or None, got {self.cycle!r} and {self.max_cycles!r}"
            )
        for name in ("to_move", "ending", "intended_action", "actual_action", "ghost_action"):
            value = getattr(self, name)
            if name == "ghost_action" and isinstance(value, tuple):
                if not value or not all(isinstance(move, (str, type(None))) for move in value):
                    raise TypeError(f"ghost_action must be a str, None or a non-empty tuple of str or None (a "
                                    f"team's moves), got {value!r}")
            elif not isinstance(value, (str, type(None))):
                raise TypeError(f"{name} must be a str or None, got {value!r}")
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

        >>> status = Status(1, 100, "ghost", intended_action="down", actual_action="down, down",
        ...                 slipped=True, color_measurement=1)
        >>> for line in status.lines():
        ...     print(line)
        cycle 1/100: ghost to move
        agent: tried down, slipped: down, down
        ghost: -
        colour reading: red
        """
        if self.intended_action is None:
            agent = "agent: -"
        elif self.slipped:
            agent = f"agent: tried {self.intended_action}, slipped: {self.actual_action}"
        else:
            agent = f"agent: {self.actual_action}"
        if isinstance(self.ghost_action, tuple):
            ghost = "ghosts: " + ", ".join(move or "-" for move in self.ghost_action)
        else:
            ghost = f"ghost: {self.ghost_action or '-'}"
        return self.headline(), agent, ghost, f"colour reading: {describe_reading(self.color_measurement)}"


#: The longest text :func:`describe_reading` gives, ellipsis included.
READING_TEXT_LIMIT = 24


def colour_id(reading: Any) -> int | None:
    """``reading`` as an index of :data:`~gridghost.core.COLOURS` when it is one (a Python or
    NumPy integer, not a bool), else ``None``.

    >>> colour_id(2), colour_id(np.int64(1)), colour_id(True), colour_id(0.0), colour_id(7)
    (2, 1, None, None, None)
    """
    return int(reading) if is_int(reading) and 0 <= reading < len(COLOURS) else None


def describe_reading(reading: Any) -> str:
    r"""How the status panel shows a ``color_measurement`` reading: ``"-"`` for ``None``, the
    colour's name for a colour id, else ``str(reading)`` with undrawable characters escaped, cut
    to :data:`READING_TEXT_LIMIT` characters with an ellipsis.

    >>> describe_reading(None), describe_reading(1), describe_reading(0.5)
    ('-', 'red', '0.5')
    >>> describe_reading("a\x00b")
    'a\\x00b'
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
    text = escape_undrawable(text[:READING_TEXT_LIMIT])  # escapes only lengthen it
    return text[: READING_TEXT_LIMIT - 1] + "…" if cut or len(text) > READING_TEXT_LIMIT else text


def escape_undrawable(text: str) -> str:
    r"""``text`` with every control, format (zero-width), surrogate, private-use or unassigned
    character written as its Python escape: pygame refuses some of them, draws others as nothing.
    Layouts refuse such characters in cell texts; sensor readings may hold anything.

    >>> escape_undrawable("a\tb\u200b\ud800 c\u00a0d")
    'a\\tb\\u200b\\ud800 c\xa0d'
    """
    if text.isprintable():
        return text
    return "".join(repr(ch)[1:-1] if unicodedata.category(ch)[0] == "C" else ch for ch in text)
