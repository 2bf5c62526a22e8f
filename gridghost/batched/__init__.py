"""The batched engine: many games as NumPy arrays, and a Gymnasium vector env over it.
"""

from __future__ import annotations

from gridghost.batched.engine import (
    AUTORESET_MODES,
    BATCH_OBS_TYPES,
    BUFFER_BYTES,
    DEFAULT_OPPONENTS,
    MAX_GAMES,
    TABLE_BYTES,
    BatchedGame,
    BatchedHistogramFilter,
    BatchedStep,
    GridGhostVectorEnv,
    TooManyGames,
    UnsupportedSetting,
    make_vector_env,
)

__all__ = [
    "AUTORESET_MODES",
    "BATCH_OBS_TYPES",
    "BUFFER_BYTES",
    "DEFAULT_OPPONENTS",
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
