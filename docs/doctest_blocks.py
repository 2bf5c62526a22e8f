"""A griffe extension for the API reference, which reads the package's docstrings as they are
written (for pytest's doctests and for Sphinx-style readers) and leaves the source untouched:

- doctests sit in the running text, where Markdown would read ``>>> d["key"]["sub"]`` as a
  reference link: each run of doctest lines (a ``>>>`` line up to the next blank line) is fenced
  as a ``pycon`` code block;
- constants are documented by ``#:`` comments above them, which griffe does not read: they become
  the constants' docstrings;
- cross-references are Sphinx roles (``:class:`~gridghost.core.layout.Layout```): a name a
  subpackage exports becomes a link to its entry in the reference, anything else code text;
- a paragraph ending in ``::`` (reST's "a literal block follows") ends in ``:``.
"""

from __future__ import annotations

import importlib
import re
from functools import cache
from pathlib import Path
from typing import Any

import griffe

PROMPT = re.compile(r"^(\s*)>>> ")
ROLE = re.compile(r":(?:class|func|meth|attr|data|mod|exc|obj):`(~?)([\w.]+)`")
#: The subpackages whose reference pages document what they export, in the order their names
#: are looked up (a name is linked to the first that exports it).
FOLDERS = ("core", "sensing", "planning", "maps", "config", "drawing", "envs", "batched", "training")


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


@cache
def exported() -> dict[str, str]:
    """Each name a subpackage exports, and the reference path of its entry there."""
    homes: dict[str, str] = {}
    for folder in FOLDERS:
        package = importlib.import_module(f"gridghost.{folder}")
        for name in package.__all__:
            homes.setdefault(name, f"gridghost.{folder}.{name}")
    return homes


def link_roles(text: str) -> str:
    """``text`` with its Sphinx roles as Markdown: links to exported names, code text otherwise."""

    def replace(match: re.Match[str]) -> str:
        short, path = match.group(1) == "~", match.group(2)
        parts = path.split(".")
        shown = parts[-1] if short else path
        # the first name along the path that a subpackage exports: a class for its methods too
        for part in parts:
            target = exported().get(part)
            if target is not None:
                return f"[`{shown}`][{target}]"
        return f"`{shown}`"

    return ROLE.sub(replace, text)


@cache
def _source_lines(path: str) -> list[str]:
    return Path(path).read_text().splitlines()


def comment_docstring(attr: griffe.Attribute) -> str | None:
    """The ``#:`` comment lines just above an attribute's assignment, joined, or ``None``."""
    if attr.lineno is None or not isinstance(attr.filepath, Path):
        return None
    lines, i, found = _source_lines(str(attr.filepath)), attr.lineno - 2, []
    while i >= 0 and lines[i].lstrip().startswith("#:"):
        found.insert(0, lines[i].lstrip()[2:].strip())
        i -= 1
    return " ".join(found) or None


class DoctestBlocks(griffe.Extension):
    """Makes every docstring griffe loads read as Markdown (see the module docstring)."""

    def on_attribute_instance(self, *, attr: griffe.Attribute, **kwargs: Any) -> None:
        if attr.docstring is None:
            text = comment_docstring(attr)
            if text is not None:
                attr.docstring = griffe.Docstring(text, parent=attr)

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        docstring = obj.docstring
        if docstring is None:
            return
        text = docstring.value
        if ">>> " in text:
            text = fence_doctests(text)
        text = re.sub(r"(\S)::$", r"\1:", link_roles(text), flags=re.M)
        docstring.value = text

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        # the top-level package gets no on_object call of its own
        self.on_object(obj=pkg)
