"""The disk cache of solved levels: a coordination level costs seconds of exact solving, so each
one is kept on disk once solved, and read back in any later process whose generator has the same
settings.

Where: ``$GRIDGHOST_CACHE`` when it is set (``GRIDGHOST_CACHE=off`` turns the disk cache off;
a folder really called ``off`` is ``./off``), else the platform's user cache folder
(:func:`user_cache_dir`: ``$XDG_CACHE_HOME/gridghost`` or ``~/.cache/gridghost`` on Linux,
``~/Library/Caches/gridghost`` on macOS, ``%LOCALAPPDATA%\\gridghost\\Cache`` on Windows). The
variable is read at every use, so it can be changed while a program runs.

What: one JSON file per level, ``levels/<key digest>/<index>.json`` under that folder, holding
the level's key (:meth:`LevelStore.__init__`: every setting that changes a level, with
gridghost's and NumPy's versions and :data:`FORMAT`), its index, its map and its success
probability. A file is written to a temporary name and moved into place (``os.replace``), so a
reader never sees half a file and processes may fill one folder together. A file is used only
when its key and index are the ones asked for and its map is valid; any other file (corrupt,
foreign, from another version) is ignored with a warning and overwritten by the level solved
again. The cache only saves time: a level read from it equals the level solved.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import warnings
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from gridghost.core.layout import Layout

#: The environment variable naming the cache folder (or ``off``).
CACHE_VARIABLE = "GRIDGHOST_CACHE"
#: The value of :data:`CACHE_VARIABLE` that turns the disk cache off.
CACHE_OFF = "off"
#: The version of the files' form and of what a level is; a change here retires every file.
FORMAT = 1
#: The largest level file read: a level's map takes a few KiB.
MAX_FILE_BYTES = 2**20
_FIELDS = {"key", "index", "layout", "success"}


def user_cache_dir() -> Path:
    """The platform's user cache folder for gridghost (whether or not it exists yet).

    Returns:
        ``%LOCALAPPDATA%\\gridghost\\Cache`` on Windows, ``~/Library/Caches/gridghost`` on macOS,
        else ``$XDG_CACHE_HOME/gridghost`` (an absolute ``XDG_CACHE_HOME`` only, as the XDG
        specification says) or ``~/.cache/gridghost``.
    """
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA")
        return Path(local if local else Path.home() / "AppData" / "Local") / "gridghost" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "gridghost"
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    return (Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache") / "gridghost"


def cache_dir() -> Path | None:
    """The folder of the disk cache now: ``$GRIDGHOST_CACHE``, else :func:`user_cache_dir`, or
    ``None`` when ``GRIDGHOST_CACHE=off``.

    Raises:
        ValueError: ``GRIDGHOST_CACHE`` is set to the empty string (which names no folder).
    """
    value = os.environ.get(CACHE_VARIABLE)
    if value is None:
        return user_cache_dir()
    if value == CACHE_OFF:
        return None
    if not value:
        raise ValueError(f"{CACHE_VARIABLE} is set but empty; set it to a folder, or to {CACHE_OFF!r} to turn the "
                         "disk cache of levels off")
    return Path(value).expanduser()


class LevelStore:
    """The files of one generator's levels in the disk cache.

    Args:
        key: everything a level's map depends on besides its index, as JSON-able data; the
            store adds :data:`FORMAT` and the installed versions of gridghost (``None`` when it
            is run from a source tree that was never installed) and of NumPy (whose random
            streams draw the maps).

    Attributes:
        key: the full key every file of this store holds.
        digest: its sha256, the name of the store's folder.
    """

    def __init__(self, key: Mapping[str, Any]) -> None:
        try:
            version: str | None = metadata.version("gridghost")
        except metadata.PackageNotFoundError:  # run from a source tree that was never installed
            version = None
        self.key = json.loads(json.dumps({**key, "format": FORMAT, "gridghost": version,
                                          "numpy": np.__version__}, sort_keys=True))
        self.digest = hashlib.sha256(json.dumps(self.key, sort_keys=True).encode()).hexdigest()

    def path(self, index: int) -> Path | None:
        """The file of level ``index``, or ``None`` when the disk cache is off."""
        folder = cache_dir()
        return None if folder is None else folder / "levels" / self.digest / f"{index}.json"

    def read(self, index: int) -> tuple[Layout, float | None] | None:
        """Level ``index``'s map and success probability from its file; ``None`` when the cache
        is off or has no file for it, or (with a warning) when the file is not a valid level of
        this store."""
        path = self.path(index)
        if path is None:
            return None
        try:
            with path.open("rb") as file:
                data = file.read(MAX_FILE_BYTES + 1)
            return self._entry(data, index)
        except (FileNotFoundError, NotADirectoryError):  # no file yet (or no folder: writing it will say why)
            return None
        except OSError as error:
            problem = f"it cannot be read ({error.strerror or error})"
        except _Refused as refused:
            problem = str(refused)
        warnings.warn(f"gridghost ignores the level cache file {str(path)!r}: {problem}; the level is solved again",
                      RuntimeWarning, stacklevel=3)
        return None

    def _entry(self, data: bytes, index: int) -> tuple[Layout, float | None]:
        """Level ``index`` from a file's bytes.

        Raises:
            _Refused: the bytes are not a valid level ``index`` of this store (saying why).
        """
        if len(data) > MAX_FILE_BYTES:
            raise _Refused(f"it is larger than {MAX_FILE_BYTES:,} bytes")
        try:
            entry = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as error:
            raise _Refused(f"it is not JSON ({error})") from None
        if not isinstance(entry, dict) or set(entry) != _FIELDS:
            raise _Refused(f"it is not a level file (a JSON object with the keys {sorted(_FIELDS)})")
        if entry["key"] != self.key or entry["index"] != index or isinstance(entry["index"], bool):
            raise _Refused("it holds another generator's level (its key or index differs)")
        success = entry["success"]
        if success is not None and (isinstance(success, bool) or not isinstance(success, (int, float))):
            raise _Refused(f"its success probability is {success!r}")
        try:
            layout = Layout.from_dict(entry["layout"])
        except (TypeError, ValueError, KeyError, RecursionError) as error:
            raise _Refused(f"its map is invalid ({error})") from None
        return layout, None if success is None else float(success)

    def write(self, index: int, layout: Layout, success: float | None) -> None:
        """Keep level ``index`` in its file (nothing when the cache is off). A folder that cannot
        be written to costs a warning, not the level."""
        path = self.path(index)
        if path is None:
            return
        entry = {"key": self.key, "index": index, "layout": layout.to_dict(),
                 "success": None if success is None else float(success)}
        temporary = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, prefix=f".{index}.",
                                             suffix=".tmp", delete=False) as file:
                temporary = file.name
                json.dump(entry, file, sort_keys=True)
            os.replace(temporary, path)
        except OSError as error:
            if temporary is not None and os.path.exists(temporary):
                os.unlink(temporary)
            warnings.warn(f"gridghost could not write the level cache file {str(path)!r} "
                          f"({error.strerror or error}); the level is solved again in the next process. Set "
                          f"{CACHE_VARIABLE} to a writable folder, or to {CACHE_OFF!r}", RuntimeWarning, stacklevel=3)


class _Refused(Exception):
    """A cache file that is not a valid level of its store; the message says why."""
