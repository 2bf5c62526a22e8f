"""Where an env's map comes from: ``layout=`` as a :class:`~gridghost.core.layout.Layout`, a
:class:`~gridghost.maps.levels.MapGenerator`, a shipped map's name, map text, a dict or a map file,
and ``difficulty=`` (:func:`map_source`, :func:`resolve_layout`, :func:`read_map_file`). The
shipped maps are text files in this folder (the format of :mod:`gridghost.core.maptext`), listed
by :func:`names` and read by :func:`load`.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from gridghost.core.layout import CLASSIC, Layout
from gridghost.maps.levels import MapGenerator, level_split

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


def resolve_layout(value: Any) -> Layout | MapGenerator:
    """What every env's ``layout=`` accepts, as a :class:`Layout` or a :class:`MapGenerator`: a
    Layout or a generator as it is; a shipped map's name (``"classic"``, see
    :func:`gridghost.maps.names`); a map drawn as text (:meth:`Layout.from_text`, recognised by
    its line breaks); a dict (:meth:`Layout.to_dict`'s or :meth:`MapGenerator.to_dict`'s form);
    or the path of a map file (:func:`read_map_file`).

    Raises:
        TypeError: none of these kinds.
        ValueError: an unknown name or a missing file (the message lists the shipped names), or a
            map the text, dict or file describes badly (for a file, the message names it).
    """
    if isinstance(value, (Layout, MapGenerator)):
        return value
    if isinstance(value, Mapping):
        return MapGenerator.from_dict(value) if "generator" in value else Layout.from_dict(value)
    if isinstance(value, str) and "\n" in value:
        return Layout.from_text(value)
    if isinstance(value, (str, os.PathLike)):
        if isinstance(value, str) and value in names():
            return load(value)
        path = Path(value)
        try:
            found = path.is_file()
        except (OSError, ValueError):  # a name too long for the system, say: no such file
            found = False
        if found:
            return read_map_file(path)
        raise ValueError(f"layout {str(value)!r} is neither a shipped map ({', '.join(names())}) nor a file")
    raise TypeError(
        "layout must be a Layout, a MapGenerator, a shipped map's name, a map drawn as text, a dict or a path, "
        f"got {value!r}"
    )


#: The largest map file :func:`read_map_file` reads: a 64 x 64 map's text or dict takes well under
#: a MiB, so this leaves room for long cell texts while refusing to read a huge file into memory.
MAX_MAP_FILE_BYTES = 16 * 2**20


def read_map_file(path: str | os.PathLike[str]) -> Layout | MapGenerator:
    """Read a map file: a ``.json`` file holds one JSON object, :meth:`Layout.to_dict`'s or
    :meth:`MapGenerator.to_dict`'s form; any other file holds a map drawn as text
    (:meth:`Layout.from_text`). Both are UTF-8. A file is data: what it holds is never read as a
    map's name or as the path of another file.

    Args:
        path: the file.

    Returns:
        The :class:`Layout` or :class:`MapGenerator` the file describes.

    Raises:
        ValueError: the file cannot be read, is larger than :data:`MAX_MAP_FILE_BYTES`, is not
            UTF-8, is not valid JSON (or nests too deeply, or repeats a key), holds JSON other
            than an object, or describes no valid map; the message names the file and ``layout``.
    """
    path = Path(path)
    where = f"layout file {str(path)!r}"
    try:
        with path.open("rb") as file:
            data = file.read(MAX_MAP_FILE_BYTES + 1)
    except OSError as error:
        raise ValueError(f"{where} cannot be read: {error.strerror or error}") from error
    if len(data) > MAX_MAP_FILE_BYTES:
        raise ValueError(f"{where} is larger than gridghost.maps.sources.MAX_MAP_FILE_BYTES = {MAX_MAP_FILE_BYTES:,} "
                         "bytes; a map file holds one map")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{where} is not UTF-8 text ({error.reason} at byte {error.start})") from None
    content: Any = text
    if path.suffix.lower() == ".json":
        try:
            content = json.loads(text, object_pairs_hook=_unique_keys)
        except RecursionError:
            raise ValueError(f"{where} nests its JSON too deeply; a map's dict nests at most a few levels") from None
        except ValueError as error:  # json.JSONDecodeError, a repeated key, an integer of too many digits
            raise ValueError(f"{where} is not valid JSON: {error}") from None
        if not isinstance(content, dict):
            raise ValueError(f"{where} must hold a JSON object (a layout's or a map generator's dict), got "
                             f"{_JSON_KINDS.get(type(content), 'another value')}"
                             "; a map file is data, never a map's name or another path")
    try:
        return Layout.from_text(content) if isinstance(content, str) else resolve_layout(content)
    except (TypeError, ValueError, RecursionError) as error:
        raise ValueError(f"{where} holds no valid map: {error}") from error


_JSON_KINDS = {str: "a string", list: "an array", int: "a number", float: "a number", bool: "true or false",
               type(None): "null"}


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object as a dict, refusing a repeated key (``json`` would keep the last silently)."""
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"the key {key!r} appears twice in one object")
        result[key] = value
    return result


def map_source(layout: Any = None, difficulty: int | None = None) -> Layout | MapGenerator:
    """What an env plays, from its ``layout=`` and ``difficulty=`` keywords: ``layout`` as
    :func:`resolve_layout` reads it, the classic map when it is ``None``, or the preset's training
    levels, ``level_split(difficulty, "train")``.

    Raises:
        ValueError: both ``layout`` and ``difficulty`` (a generator takes ``difficulty=`` itself),
            or an unknown difficulty.
        TypeError, ValueError: as :func:`resolve_layout`.
    """
    if difficulty is not None:
        if layout is not None:
            raise ValueError("pass difficulty= or layout=, not both (a MapGenerator takes difficulty= itself: "
                             "layout=level_split(2, 'train') from gridghost.maps)")
        return level_split(difficulty, "train")
    if layout is None:
        return CLASSIC
    return resolve_layout(layout)
