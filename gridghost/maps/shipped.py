"""The maps that ship with gridghost: text files in this folder (the format of
:mod:`gridghost.core.maptext`), listed by :func:`names` and read by :func:`load`.
"""

from __future__ import annotations

import functools
from importlib import resources

from gridghost.core.layout import Layout

#: The package whose folder holds the map files.
_FOLDER = "gridghost.maps"
_SUFFIX = ".txt"


@functools.cache
def _names() -> tuple[str, ...]:
    """The shipped maps' names, sorted, read once."""
    files = resources.files(_FOLDER)
    return tuple(sorted(entry.name[: -len(_SUFFIX)] for entry in files.iterdir() if entry.name.endswith(_SUFFIX)))


def names() -> list[str]:
    """The names of the shipped maps, sorted (``"classic"``, ``"corridor"``, ...).

    Returns:
        A new list each call.
    """
    return list(_names())


def load(name: str) -> Layout:
    """The shipped map called ``name`` (read once, then cached; layouts are immutable).

    Args:
        name: one of :func:`names`.

    Returns:
        The :class:`~gridghost.core.layout.Layout`.

    Raises:
        TypeError: ``name`` is not a ``str``.
        ValueError: no shipped map has that name (the message lists the names).
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str naming a shipped map, got {name!r}")
    if name not in _names():
        raise ValueError(f"no shipped map is called {name!r}; the shipped maps are {', '.join(_names())}")
    return _load(name)


@functools.cache  # keyed by the name, checked to be a str first: the cache hashes its arguments
def _load(name: str) -> Layout:
    """The shipped map ``name`` (one of :func:`names`), read from its file."""
    text = resources.files(_FOLDER).joinpath(name + _SUFFIX).read_text(encoding="utf-8")
    return Layout.from_text(text)
