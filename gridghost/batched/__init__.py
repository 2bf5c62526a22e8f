"""The batched engine: many games as NumPy arrays, and a Gymnasium vector env over it.

``engine`` steps the games, from the per-map ``tables`` built out of the game kernel; ``filter``
is the exact belief filter for N games; ``vector`` is the Gymnasium vector env; ``limits`` holds
the memory budgets and what refuses a setting.
"""

from __future__ import annotations

from gridghost.batched.engine import AUTORESET_MODES, BATCH_OBS_TYPES, BatchedGame, BatchedStep
from gridghost.batched.filter import BatchedHistogramFilter
from gridghost.batched.limits import BUFFER_BYTES, MAX_GAMES, TABLE_BYTES, TooManyGames, UnsupportedSetting
from gridghost.batched.vector import GridGhostVectorEnv, make_vector_env

__all__ = [
    "AUTORESET_MODES",
    "BATCH_OBS_TYPES",
    "BUFFER_BYTES",
    "MAX_GAMES",
    "TABLE_BYTES",
    "BatchedGame",
    "BatchedHistogramFilter",
    "BatchedStep",
    "GridGhostVectorEnv",
    "TooManyGames",
    "UnsupportedSetting",
    "make_vector_env",
]
