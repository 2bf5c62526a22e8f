"""The settings of a game (:class:`GameConfig`) and the one place that turns them into a map's parts.
"""

from __future__ import annotations

from gridghost.config.opponents import (
    DEFAULT_OPPONENTS,
    OPPONENT_SIDES,
    check_opponent_name,
    is_planner,
    planned_opponent,
)
from gridghost.config.parts import (
    MapParts,
    build_map_parts,
)
from gridghost.config.settings import (
    EXPERTS,
    OUTCOME_INFO_KEYS,
    RESERVED_INFO_KEYS,
    GameConfig,
    game_config,
    sensor_from_dict,
    sensor_to_dict,
)

__all__ = [
    "DEFAULT_OPPONENTS",
    "EXPERTS",
    "OPPONENT_SIDES",
    "OUTCOME_INFO_KEYS",
    "RESERVED_INFO_KEYS",
    "GameConfig",
    "MapParts",
    "build_map_parts",
    "check_opponent_name",
    "game_config",
    "is_planner",
    "planned_opponent",
    "sensor_from_dict",
    "sensor_to_dict",
]
