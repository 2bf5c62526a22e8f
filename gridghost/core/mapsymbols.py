"""The symbols of the map text format (:mod:`gridghost.core.maptext`): what a symbol stands for
(one cell's colour, start, goal, items and text), the built-in symbols and the characters a symbol
may use; shared by the reader and the writer.
"""

from __future__ import annotations

import json
import re
import string
from dataclasses import dataclass

from gridghost.core.names import COLOURS, WHITE


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
_FLOOR = "."
_SYMBOL_CHARS = string.ascii_letters + string.digits + "!$%&()*./;<=>?@[]^_{}~"
_MAX_SYMBOL = 3
_LEGEND_LINE = re.compile(r"(\s*)(name|[" + re.escape(_SYMBOL_CHARS) + r"]{1,3})\s*:")
_SYMBOL_SET = frozenset(_SYMBOL_CHARS)
_WORD = re.compile(r'[^\s,#"]+')
_WALL_CHARS = "+-|"
#: The legend's words for the ghosts' starts, by ghost index (``ghost``: the first ghost, the one
#: ghost of a one-ghost game).
GHOST_WORDS = ("ghost", "ghost1", "ghost2", "ghost3")
_FLAGS = ("agent", *GHOST_WORDS, "goal")


def spec_flags(spec: _Spec) -> list[str]:
    """A symbol's flag words in the legend's order: ``agent``, its ghost's word, ``goal``."""
    return [flag for flag, on in (("agent", spec.agent), (GHOST_WORDS[spec.ghost] if spec.ghost >= 0 else "", True),
                                  ("goal", spec.goal)) if flag and on]
_QUOTE_ESCAPES = {'"': '\\"', "\\": "\\\\"}


def describe(spec: _Spec) -> str:
    """A symbol's legend words, e.g. ``green, goal, dog, "Ziel"`` (``white`` when nothing else)."""
    words = [COLOURS[spec.colour]] if spec.colour != WHITE else []
    words += spec_flags(spec)
    words += list(spec.items)
    if spec.text:
        words.append(quote(spec.text))
    return ", ".join(words) or COLOURS[WHITE]


def quote(value: str) -> str:
    """``value`` in double quotes, with quotes, backslashes and unprintable characters escaped as in JSON."""
    return '"' + "".join(
        _QUOTE_ESCAPES.get(char) or (char if char.isprintable() else json.dumps(char)[1:-1]) for char in value
    ) + '"'


def _error(line: int, column: int, message: str) -> ValueError:
    """A ``ValueError`` that names a 1-based line and column of the map text."""
    return ValueError(f"map text line {line}, column {column} (1-based): {message}")


