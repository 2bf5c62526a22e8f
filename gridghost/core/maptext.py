r"""Maps as text: a maze drawing with one symbol per cell, then a legend.

:meth:`Layout.from_text <gridghost.core.layout.Layout.from_text>` reads this format and
:meth:`Layout.to_text <gridghost.core.layout.Layout.to_text>` writes it; the two are lossless
(``Layout.from_text(layout.to_text()) == layout`` for every layout, name included) and
``to_text`` is canonical (the same layout always gives the same text).

The drawing
-----------
The drawing is the lattice of the ``"ansi"`` text picture: ``+`` at every corner, ``---`` for a
wall between two rows (three blanks where there is none), ``|`` for a wall between two columns (a
blank where there is none), and three characters per cell in between. The border is drawn in full.
Every line of the drawing is ``4 * columns + 1`` characters long; the drawing is one block of lines
(no blank lines inside; comment lines are allowed) and may be indented, every line alike.

Each cell holds one *symbol*, anywhere in its three characters (``to_text`` centres it), or
nothing. Built-in symbols:

======  =====================================
symbol  cell
======  =====================================
blank   white floor (``.`` too)
``.``   white floor
``r``   red floor
``g``   green floor
``A``   the agent's start (white floor)
``G``   the ghost's start (white floor); in a team's map, the first ghost's
``G1``  the second ghost's start (``G2``, ``G3``: the third's and fourth's)
``*``   a goal (white floor)
======  =====================================

Every other cell -- a coloured goal, a start with a text, a cell with items -- uses a symbol the
legend defines. A symbol is one to three characters out of the letters, the digits and
``!$%&()*./;<=>?@[]^_{}~`` (never ``+ - | # : " ,`` or a blank); the built-in ones cannot be
redefined.

The legend
----------
After the drawing (directly or after blank lines) come legend lines, in any order:

- ``name: classic`` -- the map's name (default ``custom``). Write it in double quotes when it is
  empty, has a ``#``, starts or ends with a blank, or holds characters that do not print.
- ``S: red, goal, dog, two_notes, "Ziel"`` -- defines the symbol ``S``: at most one colour
  (``white``, ``red``, ``green``; white when none is given), any of ``agent`` (the agent starts
  here), ``ghost`` (the ghost starts here; ``ghost1`` .. ``ghost3``: the second to fourth ghost of
  a team) and ``goal``, the items the cell holds in order
  (``dog``, ``flower``, ``two_flowers``, ``one_note``, ``two_notes``; the same item may appear
  twice) and at most one text in double quotes (JSON escapes: ``\"``, ``\\``, ``\u00e9``).
  Words are separated by commas or blanks and may be written in any case. A cell cannot be both
  the agent's start and the ghost's, nor the agent's start and a goal.

``#`` starts a comment: a whole line anywhere, or the rest of a legend line (outside quotes). Blank
lines are ignored outside the drawing.

A map has exactly one agent start, exactly one start per ghost (``G`` alone for one ghost; ``G``,
``G1``, ... numbered without gaps for a team, which serves teams of up to that many ghosts) and at
least one goal; every goal and every ghost must be reachable from the agent's start. Every mistake
raises ``ValueError`` naming the line and the column where it is, both counted from 1.

Example
-------
>>> from gridghost.core.layout import Layout
>>> tiny = Layout.from_text('''
... +---+---+---+---+
... | A   .   r   . |
... +   +---+   +   +
... | g   z | .   G |
... +---+---+---+---+
... name: tiny      # a 2 x 4 map
... z: green, goal, dog, "Ziel"
... ''')
>>> tiny.shape, tiny.goals, tiny.items_at(1, 1), tiny.text_at(1, 1), tiny.colour_name(1, 1)
((2, 4), ((1, 1),), ('dog',), 'Ziel', 'green')
>>> Layout.from_text(tiny.to_text()) == tiny
True
>>> print(tiny.to_text())
+---+---+---+---+
| A   .   r   . |
+   +---+   +   +
| g   z | .   G |
+---+---+---+---+
<BLANKLINE>
name: tiny
z: green, goal, dog, "Ziel"
<BLANKLINE>
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

from gridghost.core.checks import check_text

# The symbols and the writer live in mapwrite; BUILTIN_SYMBOLS and format_layout import from here too.
from gridghost.core.mapwrite import (
    _MAX_SYMBOL,
    _SYMBOL_CHARS,
    BUILTIN_SYMBOLS,
    GHOST_WORDS,
    _Spec,
    describe,
    format_layout,  # noqa: F401  # re-exported
)
from gridghost.core.names import COLOURS, ITEMS, MAX_CELLS, WHITE, Cell

#: What :func:`parse_layout` and :func:`~gridghost.core.generate.generate_layout` build: the
#: :class:`~gridghost.core.layout.Layout` class (which imports both modules, not the other way
#: round) or any callable taking its keyword arguments.
LayoutT = TypeVar("LayoutT")

_FLOOR = "."
_LEGEND_LINE = re.compile(r"(\s*)(name|[" + re.escape(_SYMBOL_CHARS) + r"]{1,3})\s*:")
_WORD = re.compile(r'[^\s,#"]+')
_WALL_CHARS = "+-|"
_FLAGS = ("agent", *GHOST_WORDS, "goal")


def _error(line: int, column: int, message: str) -> ValueError:
    """A ``ValueError`` that names a 1-based line and column of the map text."""
    return ValueError(f"map text line {line}, column {column} (1-based): {message}")


# -- reading -------------------------------------------------------------------------------------

@dataclass
class _Legend:
    """The legend's symbols, the map's name, and the line each of them is given on (``"name"``
    for the name's, which no symbol is: a symbol has at most three characters)."""

    symbols: dict[str, _Spec] = field(default_factory=dict)
    name: str | None = None
    lines: dict[str, int] = field(default_factory=dict)


def parse_layout(text: str, make: Callable[..., LayoutT]) -> LayoutT:
    """Read a map written in this module's format (:meth:`Layout.from_text
    <gridghost.core.layout.Layout.from_text>` is this with ``make=Layout``).

    Args:
        text: the map: the drawing, then the legend (see the module documentation).
        make: what builds the layout from its keyword arguments (``colours``, ``goals``,
            ``agent_start``, ``ghost_start``, ``walls_horizontal``, ``walls_vertical``, ``items``,
            ``texts``, ``name``); its ``ValueError`` is reported at the drawing's first line.

    Returns:
        The :class:`~gridghost.core.layout.Layout`.

    Raises:
        TypeError: ``text`` is not a ``str``.
        ValueError: the text is no valid map; the message names the line and column (1-based).
    """
    if not isinstance(text, str):
        raise TypeError(f"a map text must be a str, got {type(text).__name__}: {text!r}")
    # Only "\n" ends a line: names and texts may hold other line separators (U+2028 and the like).
    lines = [line.rstrip() for line in text.split("\n")]
    index = 0
    while index < len(lines) and (not lines[index] or lines[index].lstrip().startswith("#")):
        index += 1
    drawing: list[tuple[int, str]] = []
    while index < len(lines) and lines[index] and not _LEGEND_LINE.match(lines[index]):
        if not lines[index].lstrip().startswith("#"):
            drawing.append((index + 1, lines[index]))
        index += 1
    if not drawing:
        raise _error(
            min(index + 1, len(lines)), 1,
            "expected the drawing's top wall ('+---+---+...', one '---' per column); a map starts with its drawing "
            "and the legend (name and symbol lines) follows it",
        )
    # The size alone may rule the drawing out: at most two lines per row plus one, for as many rows
    # as MAX_CELLS allows at the first line's width (whose form is checked when the drawing is read).
    number, top = drawing[0]
    cols = max(1, (len(top.strip()) - 1) // 4)
    if cols > MAX_CELLS:
        raise _error(number, 1, f"the drawing is too wide: its first line is {len(top.strip()):,} characters long, "
                                f"{cols:,} columns, and a layout holds at most gridghost.core.MAX_CELLS = "
                                f"{MAX_CELLS} cells")
    most = 2 * (MAX_CELLS // cols) + 1
    if len(drawing) > most:
        raise _error(drawing[most][0], 1, f"the drawing is too long: a map of {cols} column(s) has at most "
                                          f"{MAX_CELLS // cols} rows ({most} drawing lines), since a layout holds "
                                          f"at most gridghost.core.MAX_CELLS = {MAX_CELLS} cells")
    legend = _parse_legend(lines, index)
    return _build(drawing, legend, make)


def _parse_legend(lines: list[str], start: int) -> _Legend:
    """Read the legend lines from ``lines[start:]`` (0-based index)."""
    legend = _Legend()
    for index in range(start, len(lines)):
        line, number = lines[index], index + 1
        if not line or line.lstrip().startswith("#"):
            continue
        match = _LEGEND_LINE.match(line)
        if match is None:
            column = len(line) - len(line.lstrip()) + 1
            hint = (
                " (a drawing line after a blank line? the drawing is one block of lines)"
                if line.lstrip()[:1] in ("+", "|") else ""
            )
            raise _error(
                number, column,
                f"a legend line is 'name: the map name' or 'symbol: words' with a symbol of 1 to {_MAX_SYMBOL} of the "
                f"characters {_SYMBOL_CHARS}; found {line.strip()!r}{hint}",
            )
        key, rest_at = match.group(2), match.end()
        key_column = len(match.group(1)) + 1
        if key in legend.lines:
            what = "the name is given" if key == "name" else f"the symbol {key!r} is defined"
            raise _error(number, key_column, f"{what} twice (first on line {legend.lines[key]})")
        if key in BUILTIN_SYMBOLS:
            raise _error(number, key_column, f"{key!r} is a built-in symbol ({describe(BUILTIN_SYMBOLS[key])}) "
                                             "and cannot be redefined; pick another symbol")
        legend.lines[key] = number
        if key == "name":
            legend.name = _parse_name(line, rest_at, number)
        else:
            legend.symbols[key] = _parse_spec(line, rest_at, number)
    return legend


def _parse_name(line: str, at: int, number: int) -> str:
    """The value of a ``name:`` line whose value starts at index ``at``."""
    rest = line[at:]
    stripped = rest.lstrip()
    if stripped.startswith('"'):
        start = at + len(rest) - len(stripped)
        name, end = _parse_quoted(line, start, number)
        tail = line[end:].lstrip()
        if tail and not tail.startswith("#"):
            raise _error(number, len(line) - len(tail) + 1, f"unexpected {tail!r} after the quoted name")
        return name
    name = rest.split("#", 1)[0].strip()
    if not name:
        raise _error(number, at + 1, 'the name is missing (write name: "" for an empty name)')
    return name


def _parse_quoted(line: str, start: int, number: int) -> tuple[str, int]:
    """The string in double quotes starting at index ``start`` (JSON escapes), and the index after it."""
    index = start + 1
    while index < len(line) and line[index] != '"':
        index += 2 if line[index] == "\\" else 1
    if index >= len(line):
        raise _error(number, start + 1, 'the quoted text has no closing double quote (write \\" for a quote inside)')
    try:
        value = json.loads(line[start:index + 1])
    except json.JSONDecodeError as error:
        raise _error(number, start + 1, f"the quoted text is not valid: {error.msg} (escapes are JSON's: "
                                        '\\", \\\\, \\u00e9)') from None
    return value, index + 1


def _parse_spec(line: str, at: int, number: int) -> _Spec:
    """The words of a symbol line from index ``at``: a colour, flags, items and a quoted text."""
    colour: int | None = None
    flags: dict[str, int] = {}
    items: list[str] = []
    text: str | None = None
    index = at
    while index < len(line):
        char = line[index]
        if char.isspace() or char == ",":
            index += 1
            continue
        if char == "#":
            break
        column = index + 1
        if char == '"':
            if text is not None:
                raise _error(number, column, "a symbol has at most one text")
            text, index = _parse_quoted(line, index, number)
            try:
                check_text(text, "the text")
            except ValueError as error:
                raise _error(number, column, str(error)) from None
            continue
        match = _WORD.match(line, index)
        assert match is not None  # the character at ``index`` is none of those
        word, index = match.group().lower(), match.end()
        if word in COLOURS:
            if colour is not None:
                raise _error(number, column, f"a symbol has one colour, got {COLOURS[colour]!r} and {word!r}")
            colour = COLOURS.index(word)
        elif word in _FLAGS:
            if word in flags:
                raise _error(number, column, f"{word!r} is given twice")
            if word in GHOST_WORDS and any(other in flags for other in GHOST_WORDS):
                raise _error(number, column, "a cell is the start of one ghost at most")
            flags[word] = column
        elif word in ITEMS:
            items.append(word)
        else:
            raise _error(
                number, column,
                f"unknown word {match.group()!r}; a symbol line lists a colour ({', '.join(COLOURS)}), any of "
                f"{', '.join(_FLAGS)}, items ({', '.join(ITEMS)}) and a text in double quotes",
            )
    ghost = next((index for index, word in enumerate(GHOST_WORDS) if word in flags), -1)
    if "agent" in flags and ghost >= 0:
        raise _error(number, max(flags["agent"], flags[GHOST_WORDS[ghost]]),
                     "the agent and the ghost cannot start on one cell")
    if "agent" in flags and "goal" in flags:
        raise _error(number, max(flags["agent"], flags["goal"]), "the agent cannot start on a goal")
    return _Spec(
        colour=WHITE if colour is None else colour,
        agent="agent" in flags,
        ghost=ghost,
        goal="goal" in flags,
        items=tuple(items),
        text=text or "",
    )


def _build(drawing: list[tuple[int, str]], legend: _Legend, make: Callable[..., LayoutT]) -> LayoutT:
    """Check the drawing's lattice, read its walls and symbols, and build the layout."""
    top_number, top = drawing[0]
    indent = len(top) - len(top.lstrip())
    width = len(top) - indent
    if width < 5 or (width - 1) % 4:
        raise _error(
            top_number, indent + 1,
            f"the drawing's first line must be its top wall, '+' then '---+' for each column (4 characters per "
            f"column plus 1), but it is {width} characters long",
        )
    cols = (width - 1) // 4
    if top.lstrip().startswith("|"):
        raise _error(top_number, indent + 1, "broken outer wall: the drawing starts with a row of cells; draw the top "
                                             "wall ('+---+---+...') above it")
    if len(drawing) < 3 or len(drawing) % 2 == 0:
        number = drawing[-1][0] + 1
        raise _error(number, indent + 1,
                     f"broken outer wall: the bottom wall ('+---+...') is missing after line {drawing[-1][0]}; "
                     "the drawing alternates wall lines and rows of cells and ends with a wall line")
    rows = len(drawing) // 2
    walls_horizontal = np.zeros((rows - 1, cols), dtype=bool)
    walls_vertical = np.zeros((rows, cols - 1), dtype=bool)
    specs: dict[Cell, _Spec] = {}
    where: dict[Cell, tuple[int, int]] = {}
    for k, (number, line) in enumerate(drawing):
        if len(line) != indent + width:
            raise _error(
                number, min(len(line), indent + width) + 1,
                f"ragged drawing: this line is {len(line) - indent} characters long after the indent, the first "
                f"line of the drawing (line {top_number}) is {width}; every line has 4 characters per column plus 1",
            )
        if line[:indent].strip():
            raise _error(number, len(line) - len(line.lstrip()) + 1,
                         f"this line is indented less than the drawing's first line ({indent} blanks)")
        body = line[indent:]
        if k % 2 == 0:
            border = k in (0, len(drawing) - 1)
            wall_row = walls_horizontal[k // 2 - 1] if not border else None
            _read_wall_line(body, number, indent, cols, border, wall_row)
        else:
            r = k // 2
            for c, (spec, column) in enumerate(_read_cell_line(body, number, indent, cols, legend, walls_vertical[r])):
                specs[(r, c)], where[(r, c)] = spec, (number, column)
    return _layout(specs, where, walls_horizontal, walls_vertical, legend.name, (top_number, indent + 1), make)


def _read_wall_line(body: str, number: int, indent: int, cols: int, border: bool, walls: np.ndarray | None) -> None:
    """Check a wall line (``+---+   +``) and fill ``walls`` (the walls below one row) from it."""
    for c in range(cols + 1):
        if body[4 * c] != "+":
            raise _error(number, indent + 4 * c + 1,
                         f"broken lattice: a '+' is missing (every corner between cells is '+'), found {body[4 * c]!r}")
    for c in range(cols):
        segment = body[4 * c + 1:4 * c + 4]
        column = indent + 4 * c + 2
        if segment == "---":
            if walls is not None:
                walls[c] = True
        elif segment == "   " and border:
            raise _error(number, column, "broken outer wall: the border is drawn in full, '---' above and below "
                                         "every cell")
        elif segment != "   ":
            bad = next(i for i, char in enumerate(segment) if char != ("-" if "-" in segment else " "))
            raise _error(number, column + bad,
                         f"broken lattice: a wall between two rows is '---' and no wall is three blanks, found "
                         f"{segment!r}")


def _read_cell_line(body: str, number: int, indent: int, cols: int, legend: _Legend,
                    walls: np.ndarray) -> Iterator[tuple[_Spec, int]]:
    """Check a row of cells (``| A   r | * |``), fill ``walls`` (between its columns) and yield each
    cell's spec with the 1-based column of its symbol."""
    for position in (0, 4 * cols):
        if body[position] != "|":
            kind = "broken outer wall: the border" if body[position] == " " else "broken lattice: the border"
            raise _error(number, indent + position + 1,
                         f"{kind} beside a row of cells is '|', found {body[position]!r}")
    for c in range(1, cols):
        char = body[4 * c]
        if char not in "| ":
            raise _error(number, indent + 4 * c + 1,
                         f"broken lattice: between two cells stands a wall '|' or a blank, found {char!r}")
        walls[c - 1] = char == "|"
    for c in range(cols):
        start = 4 * c + 1
        segment = body[start:start + 3]
        for offset, char in enumerate(segment):
            if char in _WALL_CHARS:
                raise _error(number, indent + start + offset + 1,
                             f"broken lattice: {char!r} is a wall character and cannot stand inside a cell "
                             "(walls go on the cell edges: '---' between rows, '|' between columns)")
        symbol = segment.strip(" ")  # only blanks: a tab is no blank, and is refused as a symbol
        column = indent + start + (segment.index(symbol) if symbol else 1) + 1
        if " " in symbol:
            raise _error(number, column, f"a cell holds one symbol (without blanks), found {segment!r}")
        spec = legend.symbols.get(symbol) or BUILTIN_SYMBOLS.get(symbol or _FLOOR)
        if spec is None:
            known = " ".join([*BUILTIN_SYMBOLS, *legend.symbols])
            raise _error(number, column,
                         f"unknown symbol {symbol!r}; the known symbols are {known} (define more in the legend, "
                         "e.g. 'x: red, goal')")
        yield spec, column


def _layout(specs: dict[Cell, _Spec], where: dict[Cell, tuple[int, int]], walls_horizontal: np.ndarray,
            walls_vertical: np.ndarray, name: str | None, top: tuple[int, int],
            make: Callable[..., LayoutT]) -> LayoutT:
    """Check the starts and goals (naming the cells' lines and columns) and build the layout."""
    rows, cols = walls_vertical.shape[0], walls_horizontal.shape[1]

    def at(cell: Cell) -> str:
        return f"line {where[cell][0]}, column {where[cell][1]}"

    starts = {}
    # (role, its built-in symbol, the ghost's index or -1 for the agent)
    roles = [("agent", "A", -1), *((word, symbol, index) for index, (word, symbol)
                                   in enumerate(zip(GHOST_WORDS, ("G", "G1", "G2", "G3"), strict=True)))]
    for role, symbol, ghost in roles:
        cells = [cell for cell, spec in specs.items() if (spec.agent if ghost < 0 else spec.ghost == ghost)]
        if not cells and role in ("agent", "ghost"):
            raise _error(*top, f"the map has no {role} start: mark one cell {symbol!r} (or with a legend symbol "
                               f"that says {role})")
        if len(cells) > 1:
            raise _error(*where[cells[1]], f"a second {role} start; the first is at {at(cells[0])}")
        if cells:
            starts[role] = cells[0]
    numbered = [word in starts for word in GHOST_WORDS]
    if numbered != sorted(numbered, reverse=True):  # a later ghost's start without an earlier one's
        gap = numbered.index(False)
        later = GHOST_WORDS[numbered.index(True, gap)]
        raise _error(*where[starts[later]], f"a {later} start without a {GHOST_WORDS[gap]} start: number a "
                                            "team's ghosts without gaps (G, G1, G2, G3)")
    ghost_starts = [starts[word] for word in GHOST_WORDS if word in starts]
    goals = [cell for cell, spec in specs.items() if spec.goal]
    if not goals:
        raise _error(*top, "the map has no goal: mark at least one cell '*' (or with a legend symbol that says goal)")
    reachable = distances((starts["agent"],), walls_horizontal, walls_vertical)
    for cell, role in [*((g, "goal") for g in goals), *((start, "ghost start") for start in ghost_starts)]:
        if cell not in reachable:
            raise _error(*where[cell], f"the {role} {cell} cannot be reached from the agent start {starts['agent']} "
                                       f"at {at(starts['agent'])}: walls close it off")
    try:
        return make(
            colours=[[specs[(r, c)].colour for c in range(cols)] for r in range(rows)],
            goals=goals,
            agent_start=starts["agent"],
            ghost_start=ghost_starts[0] if len(ghost_starts) == 1 else ghost_starts,
            walls_horizontal=walls_horizontal,
            walls_vertical=walls_vertical,
            items={cell: spec.items for cell, spec in specs.items() if spec.items},
            texts={cell: spec.text for cell, spec in specs.items() if spec.text},
            name="custom" if name is None else name,
        )
    except ValueError as error:
        raise _error(*top, str(error)) from None


def distances(starts: Iterable[Cell], walls_horizontal: np.ndarray, walls_vertical: np.ndarray) -> dict[Cell, int]:
    """The fewest steps through open edges (``walls_*`` as :class:`~gridghost.core.layout.Layout`
    holds them) from the nearest of ``starts`` to every cell reachable from them (breadth-first)."""
    rows, cols = walls_vertical.shape[0], walls_horizontal.shape[1]
    distance = dict.fromkeys(starts, 0)
    queue = deque(distance)
    while queue:
        cell = queue.popleft()
        r, c = cell
        steps = (
            ((r + 1, c), r + 1 < rows and not walls_horizontal[r, c]),
            ((r - 1, c), r > 0 and not walls_horizontal[r - 1, c]),
            ((r, c + 1), c + 1 < cols and not walls_vertical[r, c]),
            ((r, c - 1), c > 0 and not walls_vertical[r, c - 1]),
        )
        for nxt, open_ in steps:
            if open_ and nxt not in distance:
                distance[nxt] = distance[cell] + 1
                queue.append(nxt)
    return distance
