"""One value for every game setting, and its JSON-able form.

:class:`GameConfig` holds the resolved components of a game: the layout, the slip model, the
sensors, the rewards, the step limit, whether the ghost plays, the observation encoding (with
its options) and the belief filter. Every env exposes the one it was built from as ``.config``;
``config.to_dict()`` is plain JSON-able data and ``GameConfig.from_dict`` reads it back, so that
an experiment's settings can be saved next to its results and replayed:

>>> import json
>>> import gridghost
>>> env = gridghost.env(slip="perpendicular", slip_probability=0.1, belief_filter="histogram")
>>> saved = json.dumps(env.config.to_dict())
>>> again = gridghost.env(config=GameConfig.from_dict(json.loads(saved)))
>>> again.slip == env.slip and again.config.to_dict() == env.config.to_dict()
True

Shipped components have a dict form; a custom slip model, sensor or a classifier sensor does not,
and ``to_dict`` says so rather than writing something that would build another game.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import numpy as np

from gridghost.core.checks import check_choice, check_flag, check_instance, check_limit
from gridghost.core.game import Game
from gridghost.core.layout import CLASSIC, Layout
from gridghost.core.rules import Outcome, Rewards, make_rewards
from gridghost.core.slip import (
    DEFAULT_SLIP_PROBABILITY,
    LongitudinalSlip,
    SlipModel,
    make_slip,
    slip_from_dict,
    slip_to_dict,
)
from gridghost.maps.levels import MapGenerator, map_source
from gridghost.planning import EXPERTS
from gridghost.sensing.filters import BeliefFilter, check_filter_kind
from gridghost.sensing.observations import GRID_LAYOUTS, MAX_VIEW_RADIUS, OBS_TYPES, check_observation_options
from gridghost.sensing.sensors import ColorSensor, ItemSensor, Sensor, make_sensors

#: The settings in which the Gymnasium views, built for trainers (the Gymnasium env, the
#: self-play env, the vector env and SB3's adapter; ``gymnasium.make`` and ``make_vec``), differ
#: from the game's own defaults, which the PettingZoo envs, ``AgentInterface``, the batched engine
#: and the solver keep (the reference's, which the golden traces replay): a flat float32 vector,
#: which every trainer's default network reads (SB3 refuses the nested ``"dict"`` observation), and
#: the reference's rewards / 100, at which PPO learns (at +100/-50 its value loss swamps the
#: policy). Given explicitly, a setting wins; a whole ``config=`` is taken as it is.
TRAINER_DEFAULTS: Mapping[str, str] = MappingProxyType({"obs_type": "vector", "rewards": "normalised"})


#: The game's own defaults for the settings of :data:`TRAINER_DEFAULTS`: what the Gymnasium id
#: ``gridghost/GridGhost-v0`` (before 0.3.0) still gives.
REFERENCE_DEFAULTS: Mapping[str, str] = MappingProxyType({"obs_type": "dict", "rewards": "reference"})


def trainer_settings(game: Mapping[str, Any], defaults: Mapping[str, Any] = TRAINER_DEFAULTS) -> dict[str, Any]:
    """A Gymnasium view's game settings: ``game`` with ``defaults`` for those it leaves out, or
    ``game`` as it is when it holds a whole ``config=``.

    Args:
        game: the view's keyword settings.
        defaults: :data:`TRAINER_DEFAULTS`, or :data:`REFERENCE_DEFAULTS` for the ``v0`` id.

    Returns:
        A new dict of the settings.
    """
    return dict(game) if "config" in game else {**defaults, **game}

#: The info key of each way a game ends.
OUTCOME_INFO_KEYS: dict[Outcome, str] = {Outcome.GOAL: "reached_goal", Outcome.CAUGHT: "caught_by_ghost"}
#: Every info key any view writes itself (the AEC env, the single-agent views, the belief filter's
#: estimate, the solver's expert); no component may report under them. The one list: views
#: that add a key add it here.
RESERVED_INFO_KEYS = frozenset(
    {"slipped", "intended_action", "actual_action", "ghost_distance", "agent_distance", "current_turn", "mover",
     "action_mask", "estimated_pos", "is_success", "expert_action", "active_agent", "opponent",
     # the numeric infos' own keys (see NUMERIC_INFO_KEYS)
     "to_move", "distance", "actual_moves", "estimated_cell",
     *OUTCOME_INFO_KEYS.values(),
     # written by Gymnasium's wrappers and vector envs around any view (which also write a
     # "_"-prefixed mask for every key, so no component's key may start with "_")
     "episode", "final_obs", "final_info", "final_observation"}
)


@dataclasses.dataclass(frozen=True, eq=False)
class GameConfig:
    """Every setting of a game, resolved: what an env is built from.

    Build one from keywords through an env (``env.config``), or directly; pass it back as
    ``gridghost.env(config=...)`` (also ``GridGhostGymEnv(config=...)``). Compare two configs by
    their :meth:`to_dict`.

    Attributes:
        layout: the map, or the :class:`~gridghost.maps.levels.MapGenerator` that draws one at every
            reset.
        slip: the agent's slip model.
        sensors: the sensors read after each agent move, in order; ``None`` means the colour
            sensor of quality 0.8.
        rewards: the agent's rewards.
        ghost_rewards: the ghost's rewards; ``None`` means zero-sum.
        max_cycles: the step limit in cycles; ``None`` for none.
        use_ghost: whether the ghost plays.
        obs_type: the observation encoding.
        belief_filter: the belief filter, as a spec: ``None``, ``"particle"``, ``"histogram"`` or
            a dict (``{"type": "particle", "num_particles": 200, "resample_threshold": 0.5,
            "sensors": [0, 1]}``, the sensors as indices into :attr:`sensors`); a custom filter
            object stays an object (no dict form, and it drives one env only).
        show_belief: whether pictures draw the belief.
        expert: the solver whose move for the side to move the infos carry
            (``info["expert_action"]``): ``None``, ``"minimax"`` or ``"optimal"``.
        view_radius: ``obs_type="grid"`` only: ``None`` (the whole map) or the radius of an
            egocentric window.
        action_mask_in_obs: whether observations carry the action mask
            (``{"observation": ..., "action_mask": ...}``).
        append_step_count: whether observations carry the cycles played over ``max_cycles``.
        grid_layout: ``obs_type="grid"`` only: ``"chw"`` (channels first) or ``"hwc"``
            (channels last).
        reference_infos: whether infos are the reference's (text values, keys that come and
            go) instead of the numeric ones.
    """

    layout: Layout | MapGenerator = CLASSIC
    slip: SlipModel = dataclasses.field(default_factory=lambda: LongitudinalSlip(DEFAULT_SLIP_PROBABILITY))
    sensors: tuple[Sensor, ...] | None = None
    rewards: Rewards = dataclasses.field(default_factory=Rewards)
    ghost_rewards: Rewards | None = None
    max_cycles: int | None = 100
    use_ghost: bool = True
    obs_type: str = "dict"
    belief_filter: str | dict[str, Any] | BeliefFilter | None = None
    show_belief: bool = True
    expert: str | None = None
    view_radius: int | None = None
    action_mask_in_obs: bool = False
    append_step_count: bool = False
    grid_layout: str = "chw"
    reference_infos: bool = False

    def __post_init__(self) -> None:
        # The types only: what the values mean (a sensor measuring another map, a filter for
        # another slip model) is checked by the env built from the config, in one place.
        if not isinstance(self.layout, (Layout, MapGenerator)):
            raise TypeError(f"GameConfig.layout must be a gridghost.Layout or a MapGenerator, got {self.layout!r}")
        check_instance(self.slip, "GameConfig.slip", SlipModel)
        if self.sensors is not None and (
            not isinstance(self.sensors, tuple) or not all(isinstance(sensor, Sensor) for sensor in self.sensors)
        ):
            raise TypeError(f"GameConfig.sensors must be a tuple of Sensor objects or None, got {self.sensors!r}")
        check_instance(self.rewards, "GameConfig.rewards", Rewards)
        check_instance(self.ghost_rewards, "GameConfig.ghost_rewards", Rewards, allow_none=True)
        check_limit(self.max_cycles, "GameConfig.max_cycles")
        check_flag(self.use_ghost, "GameConfig.use_ghost")
        check_flag(self.show_belief, "GameConfig.show_belief")
        check_choice(self.obs_type, "GameConfig.obs_type", OBS_TYPES)
        check_choice(self.expert, "GameConfig.expert", EXPERTS, allow_none=True)
        check_limit(self.view_radius, "GameConfig.view_radius", maximum=MAX_VIEW_RADIUS, none_means="the whole map")
        check_flag(self.action_mask_in_obs, "GameConfig.action_mask_in_obs")
        check_flag(self.append_step_count, "GameConfig.append_step_count")
        check_choice(self.grid_layout, "GameConfig.grid_layout", GRID_LAYOUTS)
        check_flag(self.reference_infos, "GameConfig.reference_infos")
        if not isinstance(self.belief_filter, (str, dict, BeliefFilter, type(None))):
            raise TypeError(
                "GameConfig.belief_filter must be None, a filter name, a spec dict or a filter, "
                f"got {self.belief_filter!r}"
            )

    def keywords(self) -> dict[str, Any]:
        """The settings as keyword arguments of :class:`~gridghost.envs.aec.GridGhostEnv`."""
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}

    def game(self, layout: Layout | None = None) -> Game:
        """The game kernel these settings play on ``layout`` (the solver's input:
        ``solve_game(game=config.game())``).

        Args:
            layout: the map; ``None`` means the config's own map, or, when a
                :class:`~gridghost.maps.levels.MapGenerator` draws the maps, its first level (the
                map an env built from this config plays first).

        Returns:
            The :class:`~gridghost.core.game.Game` of the map, the slip, both sides' rewards and
            whether the ghost plays.

        Raises:
            TypeError: ``layout`` is not a :class:`~gridghost.core.layout.Layout`.
        """
        if layout is None:
            source = self.layout
            layout = source.level(source.start_level) if isinstance(source, MapGenerator) else source
        check_instance(layout, "layout", Layout)
        return Game(layout, self.slip, self.rewards, self.ghost_rewards, self.use_ghost)

    def to_dict(self) -> dict[str, Any]:
        """The settings as plain JSON-able data; :meth:`from_dict` reads it back.

        Raises:
            ValueError: a component has no dict form (a custom slip model or sensor, a
                classifier sensor).
        """
        return {
            "layout": self.layout.to_dict(),
            "slip": slip_to_dict(self.slip),
            "sensors": None if self.sensors is None else [sensor_to_dict(sensor) for sensor in self.sensors],
            "rewards": dataclasses.asdict(self.rewards),
            "ghost_rewards": None if self.ghost_rewards is None else dataclasses.asdict(self.ghost_rewards),
            "max_cycles": self.max_cycles,
            "use_ghost": self.use_ghost,
            "obs_type": self.obs_type,
            "belief_filter": _filter_to_dict(self.belief_filter),
            "show_belief": self.show_belief,
            "expert": self.expert,
            "view_radius": self.view_radius,
            "action_mask_in_obs": self.action_mask_in_obs,
            "append_step_count": self.append_step_count,
            "grid_layout": self.grid_layout,
            "reference_infos": self.reference_infos,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameConfig:
        """Read :meth:`to_dict`'s form back (missing keys take the defaults).

        Raises:
            TypeError, ValueError: ``data`` is not a mapping, has unknown keys, or holds a
                setting that is not valid (named in the message).
        """
        if not isinstance(data, Mapping):
            raise TypeError(f"a config dict must be a mapping, got {data!r}")
        known = [field.name for field in dataclasses.fields(cls)]  # to_dict's keys: the fields
        unknown = set(data) - set(known)
        if unknown:
            raise ValueError(f"unknown config keys {sorted(unknown, key=str)}; known: {known}")
        fields: dict[str, Any] = {key: data[key] for key in known if key in data}
        layout: Layout | MapGenerator = CLASSIC
        if "layout" in fields:
            data_ = fields["layout"]
            is_generator = isinstance(data_, Mapping) and "generator" in data_
            layout = fields["layout"] = MapGenerator.from_dict(data_) if is_generator else Layout.from_dict(data_)
        # Sensors are bound to a map; a generator's envs bind them again to every map they draw.
        first_map = layout.level(layout.start_level) if isinstance(layout, MapGenerator) else layout
        if "slip" in fields:
            fields["slip"] = slip_from_dict(fields["slip"])
        if fields.get("sensors") is not None:
            if isinstance(fields["sensors"], (str, Mapping)) or not isinstance(fields["sensors"], Sequence):
                raise TypeError(f"config 'sensors' must be a list of sensor dicts or None, got {fields['sensors']!r}")
            fields["sensors"] = tuple(sensor_from_dict(entry, first_map) for entry in fields["sensors"])
        for key in ("rewards", "ghost_rewards"):
            if fields.get(key) is not None:
                fields[key] = _rewards_from_dict(fields[key], key)
        if isinstance(fields.get("belief_filter"), Mapping):
            fields["belief_filter"] = dict(fields["belief_filter"])
        return cls(**fields)


def _filter_to_dict(spec: str | dict[str, Any] | BeliefFilter | None) -> str | dict[str, Any] | None:
    if isinstance(spec, BeliefFilter):
        raise ValueError(
            f"belief_filter {spec!r} is a custom filter with no dict form (the particle and histogram filters "
            "have one); build the env from the object instead"
        )
    return dict(spec, sensors=list(spec["sensors"])) if isinstance(spec, dict) else spec


def sensor_to_dict(sensor: Sensor) -> dict[str, Any]:
    """The dict form of a shipped sensor (its settings; the layout is the config's).

    Raises:
        ValueError: a sensor with no dict form (custom, or a classifier sensor).
    """
    if type(sensor) is ColorSensor:
        return {"type": "color", "quality": sensor.quality}
    if type(sensor) is ItemSensor:
        return {"type": "item", "confusion": sensor.confusion.tolist(), "name": sensor.name,
                "probs_key": sensor.probs_key}
    raise ValueError(
        f"sensor {sensor!r} has no dict form (the colour and item sensors have one); build the env from the "
        "objects instead"
    )


def sensor_from_dict(data: Any, layout: Layout) -> Sensor:
    """The sensor of :func:`sensor_to_dict`'s form, bound to ``layout``.

    Raises:
        TypeError, ValueError: not such a dict, or bad settings.
    """
    kinds = {"color": ("quality",), "item": ("confusion", "name", "probs_key")}
    if not isinstance(data, Mapping) or data.get("type") not in kinds or set(data) != {"type", *kinds[data["type"]]}:
        raise TypeError(
            f"a config sensor must be {{'type': 'color', 'quality': q}} or {{'type': 'item', 'confusion': ..., "
            f"'name': ..., 'probs_key': ...}}, got {data!r}"
        )
    if data["type"] == "color":
        return ColorSensor(layout, data["quality"])
    return ItemSensor(layout, confusion=np.array(data["confusion"]), name=data["name"], probs_key=data["probs_key"])


def _rewards_from_dict(data: Any, key: str) -> Rewards:
    names = {field.name for field in dataclasses.fields(Rewards)}
    if not isinstance(data, Mapping) or set(data) != names:
        raise TypeError(f"config {key!r} must be a dict with keys {sorted(names)}, got {data!r}")
    return Rewards(**data)


def game_config(
    layout: Any = None,
    slip: str | SlipModel | None = None,
    slip_probability: float | None = None,
    slip_type: str | None = None,
    sensors: Sequence[Sensor] | None = None,
    color_sensor_quality: float | None = None,
    max_cycles: int | None = 100,
    obs_type: str = "dict",
    rewards: Rewards | str | None = None,
    ghost_rewards: Rewards | None = None,
    use_ghost: bool = True,
    belief_filter: str | dict[str, Any] | BeliefFilter | None = None,
    show_belief: bool = True,
    expert: str | None = None,
    difficulty: int | None = None,
    view_radius: int | None = None,
    action_mask_in_obs: bool = False,
    append_step_count: bool = False,
    grid_layout: str = "chw",
    reference_infos: bool = False,
) -> GameConfig:
    """The one place a game's settings are read: the keyword arguments of every view (see
    :class:`~gridghost.envs.aec.GridGhostEnv`, which documents them), checked under the names the
    caller used and resolved into a :class:`GameConfig`.

    Resolving means: the slip model from ``slip`` / ``slip_probability`` / ``slip_type``; the map
    from ``layout`` / ``difficulty`` (a generator follows the slip model); the sensors bound to
    the first map (the colour sensor of ``color_sensor_quality`` by default); the rewards from
    ``rewards`` (a preset's name, or the reference's when it is ``None``); the exact filter for
    the belief encodings when ``belief_filter`` is ``None``. The belief filter stays as given (a name, a copy of a spec
    dict, or a filter object): it is built per map by
    :func:`~gridghost.config.parts.build_map_parts`.

    Returns:
        The resolved settings.

    Raises:
        TypeError, ValueError: a setting of the wrong type or out of range, or settings that
            contradict each other; the message names the argument as the caller wrote it.
    """
    slip_model = make_slip(slip, slip_probability, slip_type)
    source = map_source(layout, difficulty)
    maps = source.for_slip(slip_model) if isinstance(source, MapGenerator) else None
    if maps is not None and isinstance(belief_filter, BeliefFilter):
        raise ValueError("belief_filter: a filter object follows one map, and a map generator draws a new map at "
                         "every reset; pass 'histogram', 'particle' or a spec dict instead")
    max_cycles = check_limit(max_cycles, "max_cycles")
    use_ghost = check_flag(use_ghost, "use_ghost")
    if ghost_rewards is not None and not use_ghost:
        raise ValueError("ghost_rewards has no one to reward when the ghost is out of the game (use_ghost=False); "
                         "leave it None")
    if belief_filter is None and obs_type in ("belief", "belief_vector"):
        belief_filter = "histogram"
    show_belief = check_flag(show_belief, "show_belief")
    if not show_belief and belief_filter is None:
        raise ValueError("show_belief=False hides the belief filter's map, and there is no belief_filter")
    check_choice(expert, "expert", EXPERTS, allow_none=True)
    if expert is not None and not use_ghost:
        raise ValueError("expert solves the game against the ghost; there is none (use_ghost=False)")
    reference_infos = check_flag(reference_infos, "reference_infos")
    first = maps.level(maps.start_level) if maps is not None else source
    assert isinstance(first, Layout)  # map_source gives a layout or a generator
    # A copy: a caller changing its list later must not change the maps still to come.
    given = tuple(sensors) if isinstance(sensors, list) else sensors
    if maps is not None and given is not None:  # sensors measure every map the generator draws
        given = tuple(sensor.for_layout(first) for sensor in given)
    bound = make_sensors(first, given, color_sensor_quality, RESERVED_INFO_KEYS)
    agent_rewards = make_rewards(rewards)
    check_instance(ghost_rewards, "ghost_rewards", Rewards, allow_none=True)
    if belief_filter is not None:
        check_filter_kind(belief_filter)
    check_observation_options(obs_type, view_radius, action_mask_in_obs, append_step_count, max_cycles, grid_layout)
    return GameConfig(
        layout=maps if maps is not None else first, slip=slip_model, sensors=bound,
        rewards=agent_rewards, ghost_rewards=ghost_rewards, max_cycles=max_cycles,
        use_ghost=use_ghost, obs_type=obs_type,
        belief_filter=copy.deepcopy(belief_filter) if isinstance(belief_filter, dict) else belief_filter,
        show_belief=show_belief, expert=expert, view_radius=view_radius, action_mask_in_obs=action_mask_in_obs,
        append_step_count=append_step_count, grid_layout=grid_layout, reference_infos=reference_infos,
    )
