"""The one builder of a map's parts: what a game on one map is played with.

Every view (the AEC env, and through it the parallel, Gymnasium and reference views) and the
batched engine build the parts of each map they play here, from a resolved
:class:`~gridghost.config.settings.GameConfig`: the game kernel, the sensors bound to the map,
the belief filter, the observation encoder and the expert's tables. A setting is read from the
config in this one place, so the views cannot drift apart in how they build a map.

>>> from gridghost.config.settings import resolve
>>> config = resolve(obs_type="grid", grid_layout="hwc")
>>> parts = build_map_parts(config, config.layout)
>>> from gridghost.core.rules import Side
>>> parts.kernel.layout is config.layout, parts.encoder.space(Side.AGENT).shape
(True, (4, 5, 15))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple, TypeVar

import numpy as np

from gridghost.config.settings import RESERVED_INFO_KEYS, GameConfig
from gridghost.core.game import Game
from gridghost.core.layout import Layout
from gridghost.core.names import AGENTS
from gridghost.core.rules import Board
from gridghost.planning import expert_tables
from gridghost.sensing.filters import BeliefFilter, make_filter
from gridghost.sensing.observations import Observations, make_observations
from gridghost.sensing.sensors import Sensor, make_sensors


class MapParts(NamedTuple):
    """The parts of a game on one map, as :func:`build_map_parts` makes them.

    Attributes:
        kernel: the game kernel (the map, the slip model, both sides' rewards; a team's for ``ghosts > 1``).
        sensors: the sensors, bound to the map, in the order they measure.
        belief_filter: the belief filter following the game, or ``None``.
        encoder: the observation encoder of the config's ``obs_type`` and options.
        expert: the expert's action tables per side it advises (by agent name), or ``{}``.
    """

    kernel: Game
    sensors: tuple[Sensor, ...]
    belief_filter: BeliefFilter | None
    encoder: Observations
    expert: dict[str, bytes]


def build_encoder(
    config: GameConfig,
    board: Board,
    belief: Callable[[], np.ndarray] | None = None,
    clock: Callable[[], int] | None = None,
    both_observe: bool = False,
) -> Observations:
    """The observation encoder of ``config``'s ``obs_type`` and options on ``board``.

    Args:
        config: the resolved settings.
        board: the map's board (``kernel.board``).
        belief: what returns the belief map, for the belief encodings.
        clock: what returns the cycles played, for ``append_step_count``.
        both_observe: the encoder serves a view where both sides observe at every half-turn.

    Returns:
        The encoder (:func:`~gridghost.sensing.observations.make_observations`).

    Raises:
        ValueError: a belief encoding without ``belief``.
    """
    return make_observations(config.obs_type, board, belief, clock, both_observe=both_observe, ghosts=config.ghosts,
                             **config.encoder_options())


def build_map_parts(
    config: GameConfig,
    layout: Layout,
    *,
    clock: Callable[[], int] | None = None,
    both_observe: bool = False,
    with_filter: bool = True,
) -> MapParts:
    """Build the parts of ``config``'s game on ``layout`` (one of the config's maps).

    Args:
        config: the resolved settings (:func:`~gridghost.config.settings.resolve`).
        layout: the map: the config's own, or one its generator drew. The config's sensors are
            bound to it.
        clock, both_observe: as :func:`build_encoder` takes them.
        with_filter: build the config's belief filter (the batched engine keeps its own).

    Returns:
        The parts.

    Raises:
        TypeError, ValueError: a sensor or filter that does not fit ``layout``.
    """
    sensors = config.sensors
    if sensors is not None:
        sensors = tuple(sensor.for_layout(layout) for sensor in sensors)
    bound = make_sensors(layout, sensors, None, RESERVED_INFO_KEYS)
    kernel = config.game(layout)
    belief_filter = None
    if with_filter and config.belief_filter is not None:
        belief_filter = make_filter(config.belief_filter, layout, config.slip, bound)
    encoder = build_encoder(config, kernel.board, None if belief_filter is None else belief_filter.belief, clock,
                            both_observe)
    # The expert's action per state for each side it advises, by cell pair (bytes: Python ints).
    expert = {}
    if config.expert is not None:
        if kernel.ghosts > 1:  # the team envs refuse it first, naming the setting
            raise ValueError(f"expert={config.expert!r} advises the one-ghost game; a team (ghosts > 1) has none")
        expert = {AGENTS[side]: table for side, table in expert_tables(kernel, config.expert).items()}
    return MapParts(kernel, bound, belief_filter, encoder, expert)


#: The memory an env spends on keeping the components (kernel, sensors, filter, encoder, expert)
#: of the maps a generator drew, so that a set of levels is built once: measured at about 4 KiB
#: per cell of a map, so 64 MiB keeps 113 maps of 12 x 12 and 455 of 6 x 6 (at least 8).
MAP_COMPONENTS_BYTES = 64 * 2**20
_BYTES_PER_CELL = 4096


def maps_kept(layout: Layout) -> int:
    """How many maps of ``layout``'s size a view keeps the components of (at least 8), within
    :data:`MAP_COMPONENTS_BYTES`."""
    return max(8, MAP_COMPONENTS_BYTES // (_BYTES_PER_CELL * layout.rows * layout.cols))


_Built = TypeVar("_Built")


def recent_map(store: dict[Layout, _Built], layout: Layout, build: Callable[[], _Built]) -> _Built:
    """What a view keeps for ``layout``: ``store[layout]``, made by ``build()`` on the map's first
    visit. The store keeps the most recently used maps last and at most :func:`maps_kept` of
    them, the least recently used going first."""
    item = store.pop(layout, None)
    if item is None:
        item = build()
        if len(store) >= maps_kept(layout):
            del store[next(iter(store))]
    store[layout] = item
    return item
