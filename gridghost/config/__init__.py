"""The settings of a game and the one place they are read and turned into a map's parts.

``settings`` holds :class:`GameSpec` (``GameConfig``) (every setting, resolved, with a JSON form) and
:func:`resolve` (the views' keyword arguments, checked and resolved; ``game_config`` is its old name); ``parts`` holds
:func:`build_map_parts` (each map's kernel, sensors, filter, encoder and expert, for every view
and the batched engine); ``opponents`` holds the registry of opponent names.

``MAP_COMPONENTS_BYTES`` is a setting: ``gridghost.config.MAP_COMPONENTS_BYTES = ...`` sets
:data:`gridghost.config.parts.MAP_COMPONENTS_BYTES`, which bounds the maps' parts an env keeps.
"""

from __future__ import annotations

from gridghost.config import parts
from gridghost.config.opponents import (
    DEFAULT_OPPONENTS,
    GAME_OVER,
    OPPONENT_SIDES,
    AgentPool,
    agent_tables,
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
    EXPERTS,
    INPUTS,
    OUTCOME_INFO_KEYS,
    REFERENCE_DEFAULTS,
    RESERVED_INFO_KEYS,
    TRAINER_DEFAULTS,
    GameConfig,
    GameSpec,
    game_config,
    resolve,
    sensor_from_dict,
    sensor_to_dict,
    settings_lines,
    slip_from_dict,
    slip_to_dict,
    trainer_settings,
    unserved,
    with_defaults,
)
from gridghost.core import tunables

__all__ = [
    "DEFAULT_OPPONENTS",
    "EXPERTS",
    "GAME_OVER",
    "INPUTS",
    "MAP_COMPONENTS_BYTES",
    "OPPONENT_SIDES",
    "OUTCOME_INFO_KEYS",
    "REFERENCE_DEFAULTS",
    "RESERVED_INFO_KEYS",
    "TRAINER_DEFAULTS",
    "AgentPool",
    "GameConfig",
    "GameSpec",
    "MapParts",
    "agent_tables",
    "build_map_parts",
    "check_opponent_name",
    "game_config",
    "is_planner",
    "maps_kept",
    "planned_opponent",
    "recent_map",
    "resolve",
    "sensor_from_dict",
    "sensor_to_dict",
    "settings_lines",
    "slip_from_dict",
    "slip_to_dict",
    "trainer_settings",
    "unserved",
    "with_defaults",
]

tunables.forward(__name__, parts, ("MAP_COMPONENTS_BYTES",))
