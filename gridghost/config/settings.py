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

import dataclasses
import functools
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import numpy as np

from gridghost.config.declaration import DEFAULT_ONLY, Input, declared, default_of, setting, settings_table
from gridghost.core.checks import check_choice, check_flag, check_ghosts, check_instance, check_limit
from gridghost.core.game import CREDITS, Game
from gridghost.core.layout import CLASSIC, Layout
from gridghost.core.names import MAX_GHOSTS
from gridghost.core.rules import Outcome, Rewards, make_rewards
from gridghost.core.slip import (
    DEFAULT_SLIP_PROBABILITY,
    LongitudinalSlip,
    SlipModel,
    make_slip,
    slip_from_dict,
    slip_to_dict,
)
from gridghost.maps.levels import MapGenerator
from gridghost.maps.sources import map_source
from gridghost.planning import EXPERTS
from gridghost.sensing.filters import BeliefFilter, check_filter_kind
from gridghost.sensing.observations import (
    GRID_LAYOUTS,
    MAX_VIEW_RADIUS,
    OBS_TYPES,
    check_observation_options,
    check_view_radius,
)
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


def _check_layout(value: Any, argument: str) -> Layout | MapGenerator:
    if not isinstance(value, (Layout, MapGenerator)):
        raise TypeError(f"{argument} must be a gridghost.Layout or a MapGenerator, got {value!r}")
    return value


def _check_sensors(value: Any, argument: str) -> tuple[Sensor, ...] | None:
    if value is not None and (not isinstance(value, tuple) or not all(isinstance(one, Sensor) for one in value)):
        raise TypeError(f"{argument} must be a tuple of Sensor objects or None, got {value!r}")
    return value


def _check_filter(value: Any, argument: str) -> str | dict[str, Any] | BeliefFilter | None:
    if not isinstance(value, (str, dict, BeliefFilter, type(None))):
        raise TypeError(f"{argument} must be None, a filter name, a spec dict or a filter, got {value!r}")
    return None if value is None else check_filter_kind(value)


def _sensors_from_dict(data: Any, decoded: Mapping[str, Any]) -> tuple[Sensor, ...] | None:
    if data is None:
        return None
    if isinstance(data, (str, Mapping)) or not isinstance(data, Sequence):
        raise TypeError(f"config 'sensors' must be a list of sensor dicts or None, got {data!r}")
    # Sensors are bound to a map; a generator's envs bind them again to every map they draw.
    layout = decoded.get("layout", CLASSIC)
    first_map = layout.level(layout.start_level) if isinstance(layout, MapGenerator) else layout
    return tuple(sensor_from_dict(entry, first_map) for entry in data)


@dataclasses.dataclass(frozen=True, eq=False)
class GameSpec:
    """Every setting of a game, resolved: what every view is built from (``spec=``).

    Each field is the one declaration of its setting (:class:`~gridghost.config.declaration.Setting`
    in its metadata: type, default, unit, check, docs, which engines serve it); the keywords every
    view takes, their checks, :meth:`to_dict` / :meth:`from_dict` and the settings table of
    docs/configuration.md are derived from them. Build one with :func:`resolve` (the keywords,
    checked under the names the caller wrote) or directly; pass it as ``spec=`` (``config=``, its
    old spelling, still works) to any view. Compare two specs by their :meth:`to_dict`.
    ``GameConfig`` is this class under its old name.
    """

    layout: Layout | MapGenerator = setting(
        CLASSIC, doc="the map, or a MapGenerator drawing a fresh one at every reset", check=_check_layout,
        accepts="a Layout, a shipped map's name, map text, a dict, a path or a MapGenerator; None: classic",
        encode=lambda value: value.to_dict(), served={"evaluate": DEFAULT_ONLY},
        decode=lambda data, decoded: (MapGenerator if isinstance(data, Mapping) and "generator" in data
                                      else Layout).from_dict(data))
    slip: SlipModel = setting(
        factory=lambda: LongitudinalSlip(DEFAULT_SLIP_PROBABILITY), doc="the agent's slip model",
        check=lambda value, argument: check_instance(value, argument, SlipModel),
        accepts="a SlipModel or 'none' / 'longitudinal' / 'perpendicular'",
        encode=slip_to_dict, decode=lambda data, decoded: slip_from_dict(data))
    sensors: tuple[Sensor, ...] | None = setting(
        None, doc="the sensors read after each agent move, in order", check=_check_sensors,
        accepts="a list of Sensor objects; None: the colour sensor",
        served={"jax": DEFAULT_ONLY, "evaluate": DEFAULT_ONLY},
        encode=lambda value: None if value is None else [sensor_to_dict(one) for one in value],
        decode=_sensors_from_dict)
    rewards: Rewards = setting(
        factory=Rewards, doc="the agent's rewards per half-turn",
        check=lambda value, argument: check_instance(value, argument, Rewards),
        accepts="a Rewards or a preset's name ('reference', 'normalised')",
        encode=dataclasses.asdict, decode=lambda data, decoded: _rewards_from_dict(data, "rewards"))
    ghost_rewards: Rewards | None = setting(
        None, doc="the ghost's rewards; None: zero-sum",
        check=lambda value, argument: check_instance(value, argument, Rewards, allow_none=True),
        accepts="a Rewards or None", encode=lambda value: None if value is None else dataclasses.asdict(value),
        decode=lambda data, decoded: None if data is None else _rewards_from_dict(data, "ghost_rewards"))
    max_cycles: int | None = setting(
        100, unit="cycles", doc="cycles (agent move + ghost answer) before both sides are truncated",
        check=check_limit, accepts="an int >= 1 or None (no limit)", encoder=True, served={"evaluate": (None,)})
    use_ghost: bool = setting(True, doc="whether the ghost plays", check=check_flag, accepts="a bool",
                              served={"batched": (True,), "jax": (True,), "evaluate": (True,)})
    ghosts: int = setting(
        1, unit="ghosts", doc="the ghost team's size; the ghosts move together and start on the map's ghost starts",
        check=check_ghosts, accepts=f"an int in 1..{MAX_GHOSTS}")
    ghost_credit: str = setting(
        "team", doc="teams: who a capture pays, every ghost ('team') or the ghosts on the agent's cell ('catcher')",
        check=lambda value, argument: check_choice(value, argument, CREDITS), accepts=" / ".join(CREDITS))
    obs_type: str = setting(
        "dict", doc="the observation encoding", check=lambda value, argument: check_choice(value, argument, OBS_TYPES),
        accepts=" / ".join(OBS_TYPES), encoder=True,
        served={"batched": ("vector", "grid", "belief_vector"), "jax": ("vector", "grid")})
    belief_filter: str | dict[str, Any] | BeliefFilter | None = setting(
        None, doc="the agent's belief filter", check=_check_filter,
        accepts="None, 'particle', 'histogram', a spec dict or a BeliefFilter",
        encode=lambda value: _filter_to_dict(value),
        decode=lambda data, decoded: dict(data) if isinstance(data, Mapping) else data,
        served={"batched": (None, "histogram"), "jax": (None,), "evaluate": (None, "histogram")})
    show_belief: bool = setting(True, doc="whether pictures draw the belief", check=check_flag, accepts="a bool",
                                served={"batched": DEFAULT_ONLY, "evaluate": DEFAULT_ONLY})
    expert: str | None = setting(
        None, doc="the solver whose move the infos carry", accepts="None / " + " / ".join(EXPERTS),
        check=lambda value, argument: check_choice(value, argument, EXPERTS, allow_none=True),
        served={"batched": DEFAULT_ONLY, "jax": DEFAULT_ONLY, "evaluate": DEFAULT_ONLY})
    view_radius: int | None = setting(
        None, unit="cells", doc="obs_type='grid' only: the radius of an egocentric window", check=check_view_radius,
        accepts=f"None (the whole map) or an int in 1..{MAX_VIEW_RADIUS}", encoder=True)
    action_mask_in_obs: bool = setting(
        False, doc="whether observations carry the action mask", check=check_flag, accepts="a bool", encoder=True,
        served={"batched": DEFAULT_ONLY, "jax": DEFAULT_ONLY})
    append_step_count: bool = setting(
        False, doc="whether observations carry the cycles played over max_cycles", check=check_flag,
        accepts="a bool", encoder=True, served={"batched": DEFAULT_ONLY, "jax": DEFAULT_ONLY, "evaluate": DEFAULT_ONLY})
    grid_layout: str = setting(
        "chw", doc="obs_type='grid' only: channels first or last", accepts=" / ".join(GRID_LAYOUTS), encoder=True,
        check=lambda value, argument: check_choice(value, argument, GRID_LAYOUTS))
    reference_infos: bool = setting(
        False, doc="whether infos are the reference's (text values) instead of numeric", check=check_flag,
        accepts="a bool", served={"batched": DEFAULT_ONLY, "jax": DEFAULT_ONLY, "evaluate": DEFAULT_ONLY})

    def __post_init__(self) -> None:
        # Each value's own check, keeping the value as the check returns it (a Python int for a
        # NumPy one, so that to_dict() is JSON-able); what the values mean together (a sensor
        # measuring another map, a filter for another slip model) is checked by the views.
        for name, (_, declared_) in declared(type(self)).items():
            object.__setattr__(self, name, declared_.check(getattr(self, name), f"GameSpec.{name}"))

    def keywords(self) -> dict[str, Any]:
        """The settings by name (the keywords :func:`resolve` takes)."""
        return {name: getattr(self, name) for name in declared(type(self))}

    def encoder_options(self) -> dict[str, Any]:
        """The settings the observation encoder takes, by name
        (:func:`~gridghost.sensing.observations.make_observations`'s keywords)."""
        return {name: getattr(self, name) for name, (_, declared_) in declared(type(self)).items()
                if declared_.encoder and name != "obs_type"}

    def game(self, layout: Layout | None = None) -> Game:
        """The game kernel these settings play on ``layout``: the one place a
        :class:`~gridghost.core.game.Game` (of ``ghosts`` ghosts and ``ghost_credit``) is built
        from settings (the solver's input: ``solve_game(game=spec.game())``).

        Args:
            layout: the map; ``None`` means the spec's own map, or, when a
                :class:`~gridghost.maps.levels.MapGenerator` draws the maps, its first level (the
                map a view built from this spec plays first).

        Returns:
            The :class:`~gridghost.core.game.Game` of the map, the slip, both sides' rewards and
            whether the ghost plays, with ``ghosts`` ghosts and ``ghost_credit``.

        Raises:
            TypeError: ``layout`` is not a :class:`~gridghost.core.layout.Layout`.
            ValueError: ``ghosts > 1`` on a map with fewer ghost starts, or with ``use_ghost=False``.
        """
        if layout is None:
            source = self.layout
            layout = source.level(source.start_level) if isinstance(source, MapGenerator) else source
        check_instance(layout, "layout", Layout)
        return Game(layout, self.slip, self.rewards, self.ghost_rewards, self.use_ghost, self.ghosts,
                    self.ghost_credit)

    def to_dict(self) -> dict[str, Any]:
        """The settings as plain JSON-able data; :meth:`from_dict` reads it back.

        Raises:
            ValueError: a component has no dict form (a custom slip model or sensor, a
                classifier sensor).
        """
        return {name: declared_.encode(getattr(self, name)) for name, (_, declared_) in declared(type(self)).items()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameSpec:
        """Read :meth:`to_dict`'s form back (missing keys take the defaults): each entry decoded
        from its dict form, then the whole resolved by :func:`resolve`, so that saved or untrusted
        settings pass every check keywords pass (settings that contradict each other included).

        Raises:
            TypeError, ValueError: ``data`` is not a mapping, has unknown keys, holds a setting
                that is not valid or a malformed nested dict (the key named in the message), or
                settings that contradict each other.
        """
        if not isinstance(data, Mapping):
            raise TypeError(f"a config dict must be a mapping, got {data!r}")
        settings = declared(cls)
        unknown = set(data) - set(settings)
        if unknown:
            raise ValueError(f"unknown config keys {sorted(unknown, key=str)}; known: {list(settings)}")
        decoded: dict[str, Any] = {}
        for name, (_, declared_) in settings.items():
            if name in data:
                decoded[name] = declared_.decode(data[name], decoded)
        return resolve(**decoded)


#: The old name of :class:`GameSpec` (the same class).
GameConfig = GameSpec

#: The keywords that are not settings of their own but resolve into one.
INPUTS: Mapping[str, Input] = MappingProxyType({
    "slip_probability": Input("slip", "float | None", "the reference keyword: the slip probability (None: 0.2)"),
    "slip_type": Input("slip", "str | None", "the reference keyword: 'longitudinal' (None), 'perpendicular', 'none'"),
    "color_sensor_quality": Input("sensors", "float | None", "the reference keyword: the default colour sensor's "
                                  "quality (None: 0.8)"),
    "difficulty": Input("layout", "int | None", "a preset 0..3: its generated training levels; not with layout"),
})


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


def resolve(spec: GameSpec | Mapping[str, Any] | None = None, config: GameSpec | Mapping[str, Any] | None = None,
            **keywords: Any) -> GameSpec:
    """The one place a game's settings are read and checked: a whole ``spec`` (a :class:`GameSpec`
    or its :meth:`~GameSpec.to_dict` form; ``config`` is its old spelling), or the keywords
    declared by :class:`GameSpec`'s fields and :data:`INPUTS`, each checked under the name the
    caller wrote. Every view calls this and trusts the spec it returns.

    Resolving means: the slip model from ``slip`` / ``slip_probability`` / ``slip_type``; the map
    from ``layout`` / ``difficulty`` (a generator follows the slip model); the sensors bound to
    the first map (the colour sensor of ``color_sensor_quality`` by default); the rewards from
    ``rewards`` (a preset's name, or the reference's when it is ``None``); the exact filter for
    the belief encodings when ``belief_filter`` is ``None``. The belief filter stays as given (a
    name, a copy of a spec dict, or a filter object): it is built per map by
    :func:`~gridghost.config.parts.build_map_parts`.

    Returns:
        The resolved settings.

    Raises:
        TypeError: an unknown keyword (the message lists the settings), or a setting of the wrong
            type.
        ValueError: a setting out of range, settings that contradict each other, or ``spec``
            together with keywords; the message names the argument as the caller wrote it.
    """
    given = _whole_spec(spec, config, keywords)
    if given is not None:
        return given
    settings = declared(GameSpec)
    unknown = [name for name in keywords if name not in settings and name not in INPUTS]
    if unknown:
        raise TypeError(f"got an unexpected keyword argument {unknown[0]!r}; the game settings are "
                        f"{[*settings, *INPUTS]} (or spec=)")
    # The settings built from several keywords (below) have no keyword default but None.
    built = ("layout", "slip", "sensors", "rewards", "belief_filter")
    values = {name: keywords.get(name, None if name in built else default_of(field))
              for name, (field, _) in settings.items()}
    for name, (_, declared_) in settings.items():
        if name not in built:
            values[name] = declared_.check(values[name], name)
    inputs = {name: keywords.get(name) for name in INPUTS}
    return _resolved(values, inputs)


def _whole_spec(spec: Any, config: Any, keywords: Mapping[str, Any]) -> GameSpec | None:
    """``spec`` (or ``config``, its old spelling) read as a whole spec, or ``None`` when neither is given."""
    if spec is not None and config is not None:
        raise ValueError("pass spec= or its old spelling config=, not both")
    argument = "spec" if spec is not None else "config"
    whole = spec if spec is not None else config
    if whole is None:
        return None
    if keywords:
        raise ValueError(f"pass the game's settings as {argument}= or as keywords, not both; got {argument} and "
                         f"{sorted(keywords)}")
    if isinstance(whole, Mapping):
        return GameSpec.from_dict(whole)
    if not isinstance(whole, GameSpec):
        kind = "GameSpec" if argument == "spec" else "GameConfig"  # one class, the name the caller used
        raise TypeError(f"{argument} must be a gridghost.{kind} or its to_dict() form, got {whole!r}")
    return whole


def _resolved(values: dict[str, Any], inputs: dict[str, Any]) -> GameSpec:
    """The spec of checked ``values`` and the :data:`INPUTS`: the settings built from several keywords."""
    slip_model = make_slip(values["slip"], inputs["slip_probability"], inputs["slip_type"])
    source = map_source(values["layout"], inputs["difficulty"])
    maps = source.for_slip(slip_model) if isinstance(source, MapGenerator) else None
    belief_filter, use_ghost = values["belief_filter"], values["use_ghost"]
    if maps is not None and isinstance(belief_filter, BeliefFilter):
        raise ValueError("belief_filter: a filter object follows one map, and a map generator draws a new map at "
                         "every reset; pass 'histogram', 'particle' or a spec dict instead")
    if values["ghost_rewards"] is not None and not use_ghost:
        raise ValueError("ghost_rewards has no one to reward when the ghost is out of the game (use_ghost=False); "
                         "leave it None")
    if belief_filter is None and values["obs_type"] in ("belief", "belief_vector"):
        belief_filter = "histogram"
    if not values["show_belief"] and belief_filter is None:
        raise ValueError("show_belief=False hides the belief filter's map, and there is no belief_filter")
    if values["expert"] is not None and not use_ghost:
        raise ValueError("expert solves the game against the ghost; there is none (use_ghost=False)")
    first = maps.level(maps.start_level) if maps is not None else source
    assert isinstance(first, Layout)  # map_source gives a layout or a generator
    # A copy: a caller changing its list later must not change the maps still to come.
    sensors = values["sensors"]
    given = tuple(sensors) if isinstance(sensors, list) else sensors
    if maps is not None and given is not None:  # sensors measure every map the generator draws
        given = tuple(sensor.for_layout(first) for sensor in given)
    values["sensors"] = make_sensors(first, given, inputs["color_sensor_quality"], RESERVED_INFO_KEYS)
    values["rewards"] = make_rewards(values["rewards"])
    if belief_filter is not None:
        # the keyword's own message, before the spec's type check; a spec dict is checked into a new dict
        belief_filter = check_filter_kind(belief_filter)
    check_observation_options(values["obs_type"], **{name: values[name] for name in (
        "view_radius", "action_mask_in_obs", "append_step_count", "max_cycles", "grid_layout")})
    values["belief_filter"] = belief_filter
    values["layout"], values["slip"] = (maps if maps is not None else first), slip_model
    return GameSpec(**values)


#: The old name of :func:`resolve` (the same function).
game_config = resolve


def with_defaults(settings: Mapping[str, Any], defaults: Mapping[str, Any] = TRAINER_DEFAULTS) -> dict[str, Any]:
    """A view's settings with the view's own ``defaults`` for those the caller leaves out; a whole
    ``spec=`` (or ``config=``) is taken as it is.

    Args:
        settings: the view's keyword settings.
        defaults: the view's defaults that differ from :class:`GameSpec`'s; for a Gymnasium
            view :data:`TRAINER_DEFAULTS` (the default), or :data:`REFERENCE_DEFAULTS` for the
            ``v0`` id.

    Returns:
        A new dict of the settings.
    """
    return dict(settings) if "spec" in settings or "config" in settings else {**defaults, **settings}


#: A Gymnasium view's game settings: :func:`with_defaults`, whose defaults are the trainers'.
trainer_settings = with_defaults


#: The settings in which the batched and JAX engines' defaults differ from :class:`GameSpec`'s: the
#: flat vector (their fast path) and no step limit of the game's own (``max_episode_steps``, the
#: Gymnasium view's ``TimeLimit``, is theirs).
ENGINE_DEFAULTS: Mapping[str, Any] = MappingProxyType({"obs_type": "vector", "max_cycles": None})
#: Options of the single views (not game settings) that ``make_vec`` may pass on to an engine,
#: with the one value an engine serves.
SINGLE_VIEW_OPTIONS: Mapping[str, Any] = MappingProxyType({"render_mode": None, "opponent_obs_type": "dict"})
#: Per engine that serves fewer settings than the single views: its defaults where they differ
#: from :class:`GameSpec`'s (the exact evaluation's are the Gymnasium views'), and its refusal.
_ENGINES: Mapping[str, tuple[Mapping[str, Any], str]] = MappingProxyType({
    "batched": (ENGINE_DEFAULTS, "the batched engine does not serve {} (the single envs do)"),
    "jax": (ENGINE_DEFAULTS, "the JAX engine does not serve {} (the single envs do)"),
    "evaluate": ({**TRAINER_DEFAULTS, "max_cycles": None},
                 "the evaluation does not read {} (levels= gives the maps, horizon= the turns)"),
})


def engine_spec(engine: str, spec: GameSpec | Mapping[str, Any] | None, settings: dict[str, Any],
                refusal: type[Exception] = ValueError) -> GameSpec:
    """The settings of an engine that serves fewer than the single views (``"batched"``,
    ``"jax"``, ``"evaluate"``): resolved by :func:`resolve` with the engine's defaults, then
    refused where the declaration says the engine does not serve a value (:func:`unserved`).

    Args:
        engine: the engine's name in the declaration.
        spec: a whole spec, or ``None``.
        settings: the keywords (``config=`` and, but for the evaluation, :data:`SINGLE_VIEW_OPTIONS`
            among them); this function takes out the single views' options.
        refusal: the exception an unserved setting raises.

    Returns:
        The resolved settings.

    Raises:
        refusal: a setting or single-view option the engine does not serve, each named.
        TypeError, ValueError: as :func:`resolve`.
    """
    defaults, message = _ENGINES[engine]
    options = {name: settings.pop(name) for name in SINGLE_VIEW_OPTIONS if name in settings and engine != "evaluate"}
    refused = [f"{name}={value!r}" for name, value in options.items() if value != SINGLE_VIEW_OPTIONS[name]]
    resolved = resolve(spec, **(settings if spec is not None else with_defaults(settings, defaults)))
    refused += unserved(resolved, engine)
    if refused:
        raise refusal(message.format("; ".join(refused)))
    return resolved


def unserved(spec: GameSpec, engine: str) -> list[str]:
    """The settings of ``spec`` that ``engine`` does not serve, as the declaration says
    (the ``served`` of :class:`~gridghost.config.declaration.Setting`), each as ``name=value``.

    Args:
        spec: the resolved settings.
        engine: ``"batched"`` or ``"jax"``.

    Returns:
        The refused settings, in declaration order (empty when the engine serves them all).
    """
    refused = []
    for name, (field, declared_) in declared(GameSpec).items():
        served = declared_.served.get(engine)
        if served is None:
            continue
        value = getattr(spec, name)
        inputs = [key for key, entry in INPUTS.items() if entry.into == name]
        also = f", also set by {', '.join(inputs)}" if inputs else ""
        if served == DEFAULT_ONLY:
            defaults = (default_of(field), getattr(_default_spec(), name))
            if not any(_same_value(declared_, value, default) for default in defaults):
                refused.append(f"{name}={value!r} (it serves the default only{also})")
        elif value not in served:
            refused.append(f"{name}={value!r} (it serves {name} in {list(served)}{also})")
    return refused


@functools.cache
def _default_spec() -> GameSpec:
    """The spec of no keywords (its sensors are the default colour sensor, resolved)."""
    return resolve()


def _same_value(declared_: Any, value: Any, default: Any) -> bool:
    try:
        return bool(declared_.encode(value) == declared_.encode(default))
    except ValueError:  # a custom component, with no dict form, is never the default
        return False


def settings_lines() -> list[str]:
    """The settings table of docs/configuration.md, rendered from the declaration
    (``python docs/make_settings_table.py`` writes it there)."""
    return settings_table(GameSpec, INPUTS)
