"""A griffe extension for the API reference: the package's docstrings carry doctests (pytest
runs them) in their running text, where Markdown would read ``>>> d["key"]["sub"]`` as a
reference link. This fences each run of doctest lines (a ``>>>`` line up to the next blank line)
as a ``pycon`` code block, leaving the source untouched."""

from __future__ import annotations

import re
from typing import Any

import griffe

PROMPT = re.compile(r"^(\s*)>>> ")


def fence_doctests(text: str) -> str:
    """``text`` with every doctest run fenced as a ``pycon`` block at the run's indentation."""
    lines, out, i = text.splitlines(), [], 0
    while i < len(lines):
        prompt = PROMPT.match(lines[i])
        if not prompt:
            out.append(lines[i])
            i += 1
            continue
        indent, end = prompt.group(1), i
        while end < len(lines) and lines[end].strip():
            end += 1
        if out and out[-1].strip():
            out.append("")
        out += [f"{indent}```pycon", *lines[i:end], f"{indent}```"]
        i = end
    return "\n".join(out)


class DoctestBlocks(griffe.Extension):
    """Fences the doctests of every docstring griffe loads."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None and ">>> " in obj.docstring.value:
            obj.docstring.value = fence_doctests(obj.docstring.value)
