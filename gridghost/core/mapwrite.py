"""The symbols of the map text format (:mod:`gridghost.core.maptext`), shared by its reader, and
its writer: what a symbol stands for (one cell's colour, start, goal, items and text), the
built-in symbols and the characters a symbol may use; :func:`format_layout` writes a layout
canonically, and :func:`~gridghost.core.maptext.parse_layout` reads it back.
"""

from __future__ import annotations

import itertools
import json
import string
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from gridghost.core.names import COLOURS, ITEMS, WHITE, Cell


@dataclass(frozen=True)
class _Spec:
    """What a symbol stands for: everything about one cell."""

    colour: int = WHITE
    agent: bool = False
    ghost: int = -1  # the index of the ghost that starts here, -1 for none
    goal: bool = False
    items: tuple[str, ...] = ()
    text: str = ""


#: The built-in symbols; the colour codes are those of the ``"ansi"`` picture.
BUILTIN_SYMBOLS: dict[str, _Spec] = {
    ".": _Spec(),
    "r": _Spec(colour=COLOURS.index("red")),
    "g": _Spec(colour=COLOURS.index("green")),
    "A": _Spec(agent=True),
    "G": _Spec(ghost=0),
    "G1": _Spec(ghost=1),
    "G2": _Spec(ghost=2),
    "G3": _Spec(ghost=3),
    "*": _Spec(goal=True),
}
_SYMBOL_CHARS = string.ascii_letters + string.digits + "!$%&()*./;<=>?@[]^_{}~"
_MAX_SYMBOL = 3
_SYMBOL_SET = frozenset(_SYMBOL_CHARS)
#: The legend's words for the ghosts' starts, by ghost index (``ghost``: the first ghost, the one
#: ghost of a one-ghost game).
GHOST_WORDS = ("ghost", "ghost1", "ghost2", "ghost3")


_QUOTE_ESCAPES = {'"': '\\"', "\\": "\\\\"}


def describe(spec: _Spec) -> str:
    """A symbol's legend words, e.g. ``green, goal, dog, "Ziel"`` (``white`` when nothing else)."""
    words = [COLOURS[spec.colour]] if spec.colour != WHITE else []
    words += ["agent"] * spec.agent + [GHOST_WORDS[spec.ghost]] * (spec.ghost >= 0) + ["goal"] * spec.goal
    words += list(spec.items)
    if spec.text:
        words.append(quote(spec.text))
    return ", ".join(words) or COLOURS[WHITE]


def quote(value: str) -> str:
    """``value`` in double quotes, with quotes, backslashes and unprintable characters escaped as in JSON."""
    return '"' + "".join(
        _QUOTE_ESCAPES.get(char) or (char if char.isprintable() else json.dumps(char)[1:-1]) for char in value
    ) + '"'


class DrawnMap(Protocol):
    """What :func:`format_layout` reads of a map: a :class:`~gridghost.core.layout.Layout`'s
    attributes (the layout module imports this one, not the other way round)."""

    name: str
    rows: int
    cols: int
    colours: np.ndarray
    walls_horizontal: np.ndarray
    walls_vertical: np.ndarray
    items: Mapping[Cell, tuple[str, ...]]
    texts: Mapping[Cell, str]
    agent_start: Cell
    ghost_starts: tuple[Cell, ...]
    goals: tuple[Cell, ...]


def format_layout(layout: DrawnMap) -> str:
    """Write ``layout`` in the map text format of :mod:`gridghost.core.maptext`, canonically:
    built-in symbols where they fit, legend symbols chosen from each cell's text and items (else
    the first free ones), legend lines in the order the symbols first appear in the drawing.

    Args:
        layout: the map.

    Returns:
        The text, ending with a newline; :func:`parse_layout` reads it back to an equal layout.
    """
    specs = {
        (r, c): _Spec(
            colour=int(layout.colours[r, c]),
            agent=(r, c) == layout.agent_start,
            ghost=layout.ghost_starts.index((r, c)) if (r, c) in layout.ghost_starts else -1,
            goal=(r, c) in layout.goals,
            items=layout.items.get((r, c), ()),
            text=layout.texts.get((r, c), ""),
        )
        for r, c in itertools.product(range(layout.rows), range(layout.cols))
    }
    symbols = {spec: symbol for symbol, spec in BUILTIN_SYMBOLS.items()}
    legend: list[tuple[str, _Spec]] = []
    used = set(BUILTIN_SYMBOLS)
    pool = _symbol_pool()
    for spec in specs.values():
        if spec in symbols:
            continue
        symbol = next((hint for hint in _hints(spec) if hint in _SYMBOL_SET and hint not in used), None)
        while symbol is None or symbol in used:
            symbol = next(pool)
        used.add(symbol)
        symbols[spec] = symbol
        legend.append((symbol, spec))

    lines = []
    for r in range(layout.rows + 1):
        lines.append("+" + "+".join(
            "---" if r in (0, layout.rows) or layout.walls_horizontal[r - 1, c] else "   "
            for c in range(layout.cols)
        ) + "+")
        if r < layout.rows:
            lines.append("|" + "".join(
                symbols[specs[(r, c)]].center(3)
                + ("|" if c == layout.cols - 1 or layout.walls_vertical[r, c] else " ")
                for c in range(layout.cols)
            ))
    lines.append("")
    name = layout.name  # bare when it reads back unchanged, else quoted
    bare = name and name == name.strip() and name.isprintable() and "#" not in name and not name.startswith('"')
    lines.append(f"name: {name if bare else quote(name)}")
    lines.extend(f"{symbol}: {describe(spec)}" for symbol, spec in legend)
    return "\n".join(lines) + "\n"


def _hints(spec: _Spec) -> Iterator[str]:
    """Symbols that would remind a reader of the cell: its text's initial, its items' kinds."""
    if spec.text:
        yield spec.text[0].lower()
        yield spec.text[0].upper()
    for item in spec.items:
        yield ITEMS[item][0]
        yield ITEMS[item][0].upper()


def _symbol_pool() -> Iterator[str]:
    """Every symbol in a fixed order: single letters and digits first, then pairs, then triples."""
    preferred = string.ascii_letters + string.digits  # _SYMBOL_CHARS begins with these
    yield from _SYMBOL_CHARS
    for size in range(2, _MAX_SYMBOL + 1):
        for combination in itertools.product(preferred, repeat=size):
            yield "".join(combination)
