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
    MAP_COMPONENTS_BYTES,
    MapParts,
    build_map_parts,
    maps_kept,
    recent_map,
)
from gridghost.config.settings import (
    OUTCOME_INFO_KEYS,
    RESERVED_INFO_KEYS,
    GameConfig,
    game_config,
    sensor_from_dict,
    sensor_to_dict,
)

__all__ = [
    "DEFAULT_OPPONENTS",
    "MAP_COMPONENTS_BYTES",
    "OPPONENT_SIDES",
    "OUTCOME_INFO_KEYS",
    "RESERVED_INFO_KEYS",
    "GameConfig",
    "MapParts",
    "build_map_parts",
    "check_opponent_name",
    "game_config",
    "is_planner",
    "maps_kept",
    "planned_opponent",
    "recent_map",
    "sensor_from_dict",
    "sensor_to_dict",
]
