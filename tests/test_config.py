"""GameConfig: every env exposes its settings as one value whose JSON form rebuilds the same game."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

import gridghost
from gridghost import CLASSIC, GridGhostGymEnv, Layout, Rewards
from gridghost.config.parts import build_map_parts
from gridghost.config.settings import GameConfig, resolve
from gridghost.core.slip import LongitudinalSlip, SlipModel
from gridghost.drawing import cell_images
from gridghost.maps import load
from gridghost.maps.levels import MapGenerator
from gridghost.sensing.filters import ParticleFilter
from gridghost.sensing.sensors import ClassifierSensor, ColorSensor, ItemSensor

from helpers import plain, record_rest

WALLED = Layout(colours=[[0, 1, 2], [2, 1, 0], [1, 1, 0]], goals=[(2, 2)], agent_start=(0, 0), ghost_start=(2, 0),
                walls_vertical=[[False, True], [False, False], [True, False]], items={(1, 1): ["dog"]},
                texts={(0, 2): "Nord"}, name="walled")


def particle_reading_items(sensors: list) -> ParticleFilter:
    return ParticleFilter(CLASSIC, LongitudinalSlip(0.3), sensors[1:], num_particles=64, resample_threshold=0.3)


SENSORS = [ColorSensor(CLASSIC, 0.7), ItemSensor(CLASSIC, accuracy=0.8)]
SETTINGS: dict[str, dict[str, Any]] = {
    "none": dict(slip="none", max_cycles=20),
    "longitudinal": dict(slip_probability=0.4, color_sensor_quality=0.6),
    "perpendicular": dict(slip="perpendicular", slip_probability=0.3, obs_type="vector", rewards=Rewards(step=-2)),
    "particle filter": dict(belief_filter="particle", obs_type="belief"),
    "histogram filter": dict(slip_type="perpendicular", belief_filter="histogram", ghost_rewards=Rewards(goal=3)),
    "filter object on a subset": dict(slip_probability=0.3, sensors=SENSORS,
                                      belief_filter=particle_reading_items(SENSORS), show_belief=False),
    "no ghost, other map": dict(layout=WALLED, use_ghost=False, max_cycles=None, slip_probability=0.5),
    "map generator with a filter": dict(layout=MapGenerator(5, 7, num_levels=4, start_level=9, walls="scattered"),
                                        belief_filter="particle", obs_type="vector", sensors=SENSORS),
    "difficulty": dict(difficulty=1, slip="perpendicular", slip_probability=0.1),
}


def episodes(env: Any, seeds: range) -> list[Any]:
    record = []
    for seed in seeds:
        env.reset(seed=seed)
        record.append(plain(record_rest(env, policy_seed=seed)))
    return record


@pytest.mark.parametrize("name", [  # a second or more: .ci/run runs the slow group
    pytest.param(name, marks=pytest.mark.slow) if name == "difficulty" else name for name in sorted(SETTINGS)])
def test_the_json_form_of_a_config_rebuilds_the_same_game(name: str) -> None:
    original = gridghost.env(**SETTINGS[name])
    saved = json.dumps(original.config.to_dict())
    from_json = gridghost.env(config=json.loads(saved))
    from_object = gridghost.env(config=original.config)
    assert from_json.config.to_dict() == original.config.to_dict() == json.loads(saved)
    want = episodes(original, range(3))
    assert episodes(from_json, range(3)) == want
    assert episodes(from_object, range(3)) == want
    assert GameConfig.from_dict(json.loads(saved)).to_dict() == json.loads(saved)


def test_the_config_holds_the_resolved_settings() -> None:
    env = gridghost.env(slip_type="perpendicular", slip_probability=0.1, color_sensor_quality=0.9, max_cycles=7)
    config = env.config
    assert config.slip == gridghost.PerpendicularSlip(0.1) and config.max_cycles == 7
    assert config.sensors[0].quality == 0.9 and config.layout == CLASSIC and config.belief_filter is None
    assert config.to_dict()["slip"] == {"type": "perpendicular", "probability": 0.1}


def test_the_gymnasium_env_takes_and_exposes_a_config() -> None:
    made = GridGhostGymEnv(obs_type="vector", slip_probability=0.5, max_cycles=9)
    again = GridGhostGymEnv(config=made.config.to_dict())
    assert again.config.to_dict() == made.config.to_dict() and again.observation_space == made.observation_space
    runs = []
    for env in (made, again):
        env.reset(seed=4)
        runs.append([env.step(a)[0].tolist() for a in (1, 2, 2)])
    assert runs[0] == runs[1]
    with pytest.raises(ValueError, match=r"not both; got config and \['obs_type'\]"):
        GridGhostGymEnv(config=made.config, obs_type="vector")


@pytest.mark.parametrize("belief_filter", [None, "particle", "histogram"])
@pytest.mark.parametrize("slip", ["none", "longitudinal", "perpendicular"])
def test_every_slip_type_with_and_without_a_filter_round_trips(slip: str, belief_filter: str | None) -> None:
    original = gridghost.env(slip=slip, belief_filter=belief_filter, max_cycles=15)
    rebuilt = gridghost.env(config=json.loads(json.dumps(original.config.to_dict())))
    assert episodes(rebuilt, range(4)) == episodes(original, range(4))


@pytest.mark.parametrize("setting", [dict(max_cycles=100), dict(obs_type="dict"), dict(show_belief=True),
                                     dict(layout=CLASSIC), dict(sensors=None)])
def test_a_setting_beside_a_config_is_refused_even_at_its_default(setting: dict) -> None:
    config = gridghost.env(max_cycles=20, obs_type="vector", belief_filter="histogram", show_belief=False).config
    name = next(iter(setting))
    with pytest.raises(ValueError, match=rf"not both; got config and \['{name}'\]"):
        gridghost.env(config=config, **setting)
    with pytest.raises(ValueError, match=rf"not both; got config and \['{name}'\]"):
        GridGhostGymEnv(config=config, **setting)
    assert gridghost.raw_env(config=config, render_mode="ansi").render_mode == "ansi"


def test_a_custom_filter_works_and_only_its_dict_form_is_refused() -> None:
    class Tuned(ParticleFilter):
        pass

    sensors = [ColorSensor()]
    env = gridghost.env(sensors=sensors, belief_filter=Tuned(CLASSIC, LongitudinalSlip(0.2), sensors))
    env.reset(seed=1)
    assert isinstance(env.config.belief_filter, Tuned) and "estimated_pos" in env.infos["agent"]
    with pytest.raises(ValueError, match="is a custom filter with no dict form"):
        env.config.to_dict()


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (dict(config=GameConfig(), max_cycles=5), ValueError, r"not both; got config and \['max_cycles'\]"),
        (dict(config=GameConfig(), slip_probability=0.1), ValueError, r"\['slip_probability'\]"),
        (dict(config="classic"), TypeError, "config must be a gridghost.GameConfig or its to_dict"),
        (dict(config={"layouts": {}}), ValueError, r"unknown config keys \['layouts'\]"),
        (dict(config={"slip": {"type": "sideways", "probability": 0.1}}), ValueError, "config 'slip' has unknown type"),
        (dict(config={"slip": "none"}), TypeError, "config 'slip' must be a dict"),
        (dict(config={"slip": {"type": "longitudinal", "probability": None}}), TypeError,
         "config 'slip' probability must be a real number"),
        (dict(config={"slip": {"type": "none", "probability": 0.1}}), ValueError,
         "slip_probability must be 0 with slip type 'none'"),
        (dict(config={"sensors": [{"type": "sonar"}]}), TypeError, "a config sensor must be"),
        (dict(config={"sensors": "color"}), TypeError, "config 'sensors' must be a list"),
        (dict(config={"rewards": {"step": 1}}), TypeError, "config 'rewards' must be a dict with keys"),
        (dict(config={"belief_filter": {"type": "kalman", "sensors": [0]}}), TypeError, "a belief_filter spec"),
        (dict(config={"belief_filter": {"type": "histogram", "sensors": [3]}}), ValueError, r"indices 0\.\.0"),
        (dict(config={"max_cycles": 0}), ValueError, "max_cycles must be"),
    ],
)
def test_bad_configs_are_named(kwargs: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        gridghost.env(**kwargs)


class Sideways(SlipModel):
    name = "sideways"

    def _groups(self, action):
        return ((self.probability, ((0,),)), (1.0 - self.probability, ((action,),)))


def test_components_without_a_dict_form_say_so() -> None:
    with pytest.raises(ValueError, match="is a custom model with no dict form"):
        gridghost.env(slip=Sideways(0.2)).config.to_dict()
    classifier = ClassifierSensor(CLASSIC, lambda image: np.array([0.1, 0.1, 0.8]), images=cell_images)
    with pytest.raises(ValueError, match="has no dict form"):
        gridghost.env(sensors=[ColorSensor(), classifier]).config.to_dict()
    # Still usable as an object: the config rebuilds the same game in the same process.
    env = gridghost.env(slip=Sideways(0.2))
    assert gridghost.env(config=env.config).slip == env.slip


@pytest.mark.parametrize(
    ("fields", "error", "message"),
    [
        (dict(layout="classic"), TypeError, "layout must be a gridghost.Layout or a MapGenerator"),
        (dict(slip="none"), TypeError, "GameSpec.slip must be a gridghost.SlipModel"),
        (dict(sensors=[ColorSensor()]), TypeError, "GameSpec.sensors must be a tuple of Sensor objects"),
        (dict(rewards=None), TypeError, "GameSpec.rewards must be a gridghost.Rewards"),
        (dict(max_cycles=-3), ValueError, "GameSpec.max_cycles must be an int >= 1"),
        (dict(use_ghost=1), TypeError, "GameSpec.use_ghost must be a bool"),
        (dict(obs_type="nope"), ValueError, "unknown GameSpec.obs_type 'nope'"),
        (dict(belief_filter=3), TypeError, "GameSpec.belief_filter must be None, a filter name"),
    ],
)
def test_a_config_checks_its_fields_when_built(fields: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        GameConfig(**fields)


def test_map_parts_refuse_the_one_ghost_expert_for_a_team() -> None:
    # The expert's tables solve the one-ghost game: a team's map parts must not carry them.
    config = resolve(ghosts=2, expert="minimax", layout=load("team_eight"))
    with pytest.raises(ValueError, match=r"expert='minimax' advises the one-ghost game; a team \(ghosts > 1\)"):
        build_map_parts(config, config.layout)
    one = resolve(expert="minimax", layout=load("team_eight"))
    assert set(build_map_parts(one, one.layout).expert) == {"agent", "ghost"}


def test_the_solvers_players_by_name_move_as_the_one_ghost_planners_do() -> None:
    """team_planner reads the solver's tables for one ghost as for a team: in every live state of a
    one-ghost game its players choose the one-ghost planners' moves (MinimaxAgent, MinimaxGhost,
    OptimalAgent, as planned_opponent builds them)."""
    from gridghost.config.opponents import planned_opponent, team_planner
    from gridghost.core.rules import GameState, Outcome, Side

    game = resolve(slip="perpendicular", rewards="normalised").game()
    cells, goals = game.num_cells, game.board.is_goal
    live = [(agent, ghost) for agent in range(cells) for ghost in range(cells) if agent != ghost and not goals[agent]]
    for name, side in (("minimax", Side.AGENT), ("minimax", Side.GHOST), ("optimal", Side.AGENT)):
        play, planner = team_planner(name, game, side), planned_opponent(name, game, side)
        assert planner is not None
        moves = [play(GameState(agent, (ghost,), side, Outcome.ONGOING)) for agent, ghost in live]
        expected = [int(planner.table[agent, ghost]) for agent, ghost in live]
        assert moves == (expected if side == Side.AGENT else [(move,) for move in expected]), (name, side)
