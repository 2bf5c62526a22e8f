"""The maps that ship with gridghost, stored as text files (the format of :mod:`gridghost.core.maptext`),
and the :class:`MapGenerator` that draws a fresh map at every reset (see :mod:`gridghost.maps.levels`).

>>> names()[:2]
['classic', 'corridor']
>>> load("classic") == CLASSIC
True
"""

from __future__ import annotations

from gridghost.core.layout import CLASSIC
from gridghost.maps.levels import DIFFICULTIES, SPLITS, MapGenerator, clear_level_cache, level_split
from gridghost.maps.sources import load, names
from gridghost.maps.store import cache_dir, user_cache_dir

__all__ = ["CLASSIC", "DIFFICULTIES", "SPLITS", "MapGenerator", "cache_dir", "clear_level_cache", "level_split",
           "load", "names", "user_cache_dir"]
