"""The writer of the map text format (:mod:`gridghost.core.maptext`): :func:`format_layout`
writes a layout canonically, and :func:`~gridghost.core.maptext.parse_layout` reads it back.
"""

from __future__ import annotations

import itertools
import string
from collections.abc import Iterator
from typing import Protocol

import numpy as np

from gridghost.core.mapsymbols import (
    _MAX_SYMBOL,
    _SYMBOL_CHARS,
    _SYMBOL_SET,
    BUILTIN_SYMBOLS,
    _Spec,
    describe,
    quote,
)
from gridghost.core.names import ITEMS, Cell


class DrawnMap(Protocol):
    """What :func:`format_layout` reads of a map: a :class:`~gridghost.core.layout.Layout`'s
    attributes and methods (the layout module imports this one, not the other way round)."""

    name: str
    rows: int
    cols: int
    colours: np.ndarray
    walls_horizontal: np.ndarray
    walls_vertical: np.ndarray
    agent_start: Cell
    ghost_starts: tuple[Cell, ...]
    goals: tuple[Cell, ...]

    def cells(self) -> list[Cell]:
        """Every cell, row by row."""

    def items_at(self, row: int, col: int) -> tuple[str, ...]:
        """The items on a cell."""

    def text_at(self, row: int, col: int) -> str:
        """The text on a cell."""


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
            items=layout.items_at(r, c),
            text=layout.text_at(r, c),
        )
        for r, c in layout.cells()
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
    lines.append(f"name: {_format_name(layout.name)}")
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
    preferred = string.ascii_lowercase + string.ascii_uppercase + string.digits
    others = "".join(char for char in _SYMBOL_CHARS if char not in preferred)
    yield from preferred + others
    for size in range(2, _MAX_SYMBOL + 1):
        for combination in itertools.product(preferred, repeat=size):
            yield "".join(combination)


def _format_name(name: str) -> str:
    """The name as written after ``name:``: bare when it reads back unchanged, else quoted."""
    bare = name and name == name.strip() and name.isprintable() and "#" not in name and not name.startswith('"')
    return name if bare else quote(name)
