"""The batched engine: many games as NumPy arrays, and a Gymnasium vector env over it.

``engine`` steps the games, from the per-map ``tables`` built out of the game kernel (``build``
folds and stacks them, ``observe`` gathers the observations and readings, ``stats`` answers the
episode statistics: the parts of the engine's class); ``filter`` is the exact belief filter for N
games; ``vector`` is the Gymnasium vector env; ``limits`` holds the memory budgets and what refuses
a setting.

``TABLE_BYTES``, ``BUFFER_BYTES`` and ``MAX_GAMES`` are settings, read when an engine is built:
``gridghost.batched.TABLE_BYTES = 2 * 2**30`` changes what the next engine may take (this module
forwards the three names to :mod:`gridghost.batched.limits`, where the engine reads them).
"""

from __future__ import annotations

import warnings
from typing import Any

# positions registers the teams' computed path with the engine
from gridghost.batched import limits, positions  # noqa: F401
from gridghost.batched.engine import (
    AUTORESET_MODES,
    BATCH_OBS_TYPES,
    BatchedGame,
    BatchedStep,
    EngineTables,
    EpisodeStats,
)
from gridghost.batched.filter import BatchedHistogramFilter

# Imported for readers of the package (the API reference); tunables.forward below makes the names read and set limits'.
from gridghost.batched.limits import BUFFER_BYTES, MAX_GAMES, TABLE_BYTES, TooManyGames, UnsupportedSetting
from gridghost.batched.vector import GridGhostVectorEnv, make_vector_env
from gridghost.config import opponents
from gridghost.core import tunables

__all__ = [
    "AUTORESET_MODES",
    "BATCH_OBS_TYPES",
    "BUFFER_BYTES",
    "MAX_GAMES",
    "TABLE_BYTES",
    "BatchedGame",
    "BatchedHistogramFilter",
    "BatchedStep",
    "EngineTables",
    "EpisodeStats",
    "GridGhostVectorEnv",
    "TooManyGames",
    "UnsupportedSetting",
    "make_vector_env",
]


def __getattr__(name: str) -> Any:
    """Names the batched module had before the package's folders, with a ``DeprecationWarning``."""
    if name == "DEFAULT_OPPONENTS":
        warnings.warn("gridghost.batched.DEFAULT_OPPONENTS moved to gridghost.config: import DEFAULT_OPPONENTS "
                      "from gridghost.config", DeprecationWarning, stacklevel=2)
        return opponents.DEFAULT_OPPONENTS
    raise AttributeError(f"module 'gridghost.batched' has no attribute {name!r}")


tunables.forward(__name__, limits, ("TABLE_BYTES", "BUFFER_BYTES", "MAX_GAMES"))
