"""The views of the game for learners: the PettingZoo AEC and parallel envs, the Gymnasium
single-agent env and the reference-compatible ``AgentInterface``.
"""

from __future__ import annotations

from gridghost.envs.aec import (
    MAP_COMPONENTS_BYTES,
    NO_ACTION,
    NUMERIC_INFO_KEYS,
    OUTCOME_INFO_KEYS,
    RESERVED_INFO_KEYS,
    CheckedGridGhostEnv,
    GridGhostEnv,
    env,
    make_game,
    maps_kept,
    raw_env,
    recent_map,
)
from gridghost.envs.compat import (
    PF_SENSOR_MODES,
    AgentInterface,
)
from gridghost.envs.parallel import (
    DEFAULT_MAX_CYCLES,
    GridGhostParallelEnv,
    parallel_env,
)
from gridghost.envs.single_agent import (
    CONTROLLED_SIDES,
    DEFAULT_OPPONENTS,
    Duel,
    GridGhostGymEnv,
    detached,
)

__all__ = [
    "CONTROLLED_SIDES",
    "DEFAULT_MAX_CYCLES",
    "DEFAULT_OPPONENTS",
    "MAP_COMPONENTS_BYTES",
    "NO_ACTION",
    "NUMERIC_INFO_KEYS",
    "OUTCOME_INFO_KEYS",
    "PF_SENSOR_MODES",
    "RESERVED_INFO_KEYS",
    "AgentInterface",
    "CheckedGridGhostEnv",
    "Duel",
    "GridGhostEnv",
    "GridGhostGymEnv",
    "GridGhostParallelEnv",
    "detached",
    "env",
    "make_game",
    "maps_kept",
    "parallel_env",
    "raw_env",
    "recent_map",
]
