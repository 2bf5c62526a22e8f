"""The game as text: the text picture (the ``"ansi"`` render mode) and the status that every
picture reports.

Plain Python and NumPy, no pygame. The pygame renderer (:mod:`gridghost.drawing.render`) draws the same
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
"""

from __future__ import annotations

import numbers
import unicodedata
from dataclasses import dataclass
from typing import Any

import numpy as np

from gridghost.core.layout import COLOURS, Cell, Layout

_COLOUR_CODES = (" ", "r", "g")
LEGEND = "A agent  G ghost  X caught  * goal  r/g red/green cell"


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
            :data:`~gridghost.core.COLOURS`), shown by name; a custom sensor may report
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
    """``reading`` as an index of :data:`~gridghost.core.COLOURS` when it is one (a Python or
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
