"""The settings of a game (:class:`GameConfig`) and the one place that turns them into a map's parts.
"""

from __future__ import annotations

from gridghost.config.settings import (
    EXPERTS,
    GameConfig,
    sensor_from_dict,
    sensor_to_dict,
)

__all__ = [
    "EXPERTS",
    "GameConfig",
    "sensor_from_dict",
    "sensor_to_dict",
]
