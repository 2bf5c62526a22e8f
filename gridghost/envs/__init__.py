"""The views of the game for learners: the PettingZoo AEC and parallel envs, the Gymnasium
single-agent env and the reference-compatible ``AgentInterface``.
"""

from __future__ import annotations

from gridghost.envs.aec import (
    CheckedGridGhostEnv,
    GridGhostEnv,
    env,
    make_game,
    raw_env,
)
from gridghost.envs.compat import (
    PF_SENSOR_MODES,
    AgentInterface,
)
from gridghost.envs.ghost_team import (
    GhostTeamParallelEnv,
    parallel_env,
)
from gridghost.envs.infos import (
    NO_ACTION,
    NUMERIC_INFO_KEYS,
    InfoPublisher,
)
from gridghost.envs.parallel import (
    DEFAULT_MAX_CYCLES,
    GridGhostParallelEnv,
)
from gridghost.envs.single_agent import (
    CONTROLLED_SIDES,
    Duel,
    GridGhostGymEnv,
    detached,
)
from gridghost.envs.tables import AgentTable

__all__ = [
    "CONTROLLED_SIDES",
    "DEFAULT_MAX_CYCLES",
    "NO_ACTION",
    "NUMERIC_INFO_KEYS",
    "PF_SENSOR_MODES",
    "AgentInterface",
    "AgentTable",
    "CheckedGridGhostEnv",
    "Duel",
    "GhostTeamParallelEnv",
    "GridGhostEnv",
    "GridGhostGymEnv",
    "GridGhostParallelEnv",
    "InfoPublisher",
    "detached",
    "env",
    "make_game",
    "parallel_env",
    "raw_env",
]
