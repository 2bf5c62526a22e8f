"""Level sets: MapGenerator draws a fresh map per reset from the reset seed, level i is always the
same map, level ranges split training and test sets, difficulty presets are bands measured by the
solver, and every env takes a generator, a name, a text, a dict or a path as layout=."""

from __future__ import annotations

import json
import pickle
import re
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import gridghost
from gridghost import CLASSIC, Layout
from gridghost.core.rules import ACTION_DELTAS, Outcome
from gridghost.core.slip import LongitudinalSlip, PerpendicularSlip
from gridghost.maps import load, names
from gridghost.maps.levels import DIFFICULTIES, MapGenerator, map_source, race_margin, resolve_layout
from gridghost.planning import clear_caches, solve_game

from helpers import bfs_from, plain, record_rest


def walls_of(layout: Layout) -> tuple[set, set]:
    horizontal = {tuple(map(int, cell)) for cell in np.argwhere(layout.walls_horizontal)}
    vertical = {tuple(map(int, cell)) for cell in np.argwhere(layout.walls_vertical)}
    return horizontal, vertical


# -- the generator's levels ----------------------------------------------------------------------
def test_a_level_is_always_the_same_map_and_levels_differ() -> None:
    generator = MapGenerator(7, 5, num_levels=50, walls="scattered")
    again = MapGenerator(7, 5, num_levels=3, start_level=20, walls="scattered")
    maps = [generator.level(index) for index in range(50)]
    assert all(layout.shape == (7, 5) for layout in maps)
    assert len(set(maps)) == 50
    # a level depends on its index and the map settings, not on the range of levels
    assert again.level(21) == maps[21]
    assert pickle.loads(pickle.dumps(generator)).level(7) == maps[7]


def test_num_levels_and_start_level_give_disjoint_training_and_test_sets() -> None:
    train = MapGenerator(6, 6, num_levels=20)
    test = MapGenerator(6, 6, num_levels=10, start_level=20)
    rng = np.random.default_rng(0)
    drawn_train = {train.draw(rng) for _ in range(400)}
    drawn_test = {test.draw(rng) for _ in range(400)}
    assert drawn_train == set(range(20)) and drawn_test == set(range(20, 30))
    assert not {train.level(i) for i in drawn_train} & {test.level(i) for i in drawn_test}
    unbounded = MapGenerator(6, 6, start_level=1000)
    assert min(unbounded.draw(rng) for _ in range(100)) >= 1000


def test_an_env_draws_its_map_from_the_reset_seed_and_keeps_its_spaces() -> None:
    generator = MapGenerator(6, 6, num_levels=1000)
    env = gridghost.env(layout=generator, obs_type="vector")
    space = env.observation_space("agent")
    seen = {}
    for seed in range(12):
        env.reset(seed=seed)
        assert env.layout == generator.level(env.level)
        assert env.observation_space("agent") is space and env.observation_space("ghost") is space
        assert env.agent_pos == env.layout.agent_start and env.ghost_pos == env.layout.ghost_start
        seen[seed] = env.level
    assert len(set(seen.values())) > 6
    for seed in (3, 0, 3):
        env.reset(seed=seed)
        assert env.level == seen[seed]
    # unseeded resets continue the map stream: a sequence replays from the same seed
    env.reset(seed=5)
    first = [env.level] + [env.reset() or env.level for _ in range(5)]
    env.reset(seed=5)
    assert [env.level] + [env.reset() or env.level for _ in range(5)] == first


def test_the_map_stream_never_moves_the_games_draws() -> None:
    # The same map as a fixed layout and drawn by a generator: the same game for the same seed.
    generator = MapGenerator(6, 6, num_levels=1000)
    drawn = gridghost.env(layout=generator)
    drawn.reset(seed=11)
    fixed = gridghost.env(layout=drawn.layout)
    fixed.reset(seed=11)
    drawn.reset(seed=11)
    assert plain(record_rest(drawn, policy_seed=4)) == plain(record_rest(fixed, policy_seed=4))


@pytest.mark.parametrize("obs_type", ["dict", "vector", "grid", "belief_vector", "text"])
def test_generated_maps_pass_pettingzoo_and_gymnasium_checks(obs_type: str) -> None:
    generator = MapGenerator(5, 6, num_levels=100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if obs_type not in ("dict", "text"):  # api_test reads a dtype from every observation
            api_test(gridghost.env(layout=generator, obs_type=obs_type), num_cycles=60)
        seed_test(lambda: gridghost.env(layout=generator, obs_type=obs_type), num_cycles=60)
        for side in ("agent", "ghost"):
            if side == "ghost" and obs_type == "belief_vector":
                continue
            check_env(gridghost.GridGhostGymEnv(controlled=side, layout=generator, obs_type=obs_type),
                      skip_render_check=True)


def test_every_observation_of_generated_maps_lies_in_the_fixed_space() -> None:
    env = gridghost.env(layout=MapGenerator(3, 11, num_levels=50, walls="none"), obs_type="grid")
    rng = np.random.default_rng(1)
    for seed in range(20):
        env.reset(seed=seed)
        for name in env.agent_iter():
            obs, _, termination, truncation, _info = env.last()
            assert env.observation_space(name).contains(obs)
            env.step(None if termination or truncation else int(rng.integers(4)))


def test_controlled_ghost_plays_every_generated_map() -> None:
    env = gymnasium.make("gridghost/GridGhost-v1", controlled="ghost", layout=MapGenerator(5, 5), obs_type="vector")
    levels = set()
    for seed in range(150):
        obs, _info = env.reset(seed=seed)
        levels.add(env.unwrapped.game.level)
        assert env.observation_space.contains(obs)
        assert env.unwrapped.game.game_state.outcome == Outcome.ONGOING
    assert len(levels) > 100


def test_planner_opponents_follow_the_map() -> None:
    generator = MapGenerator(5, 5, num_levels=30)
    env = gridghost.GridGhostGymEnv(opponent="minimax", layout=generator, obs_type="vector")
    checked = 0
    for seed in range(12):
        env.reset(seed=seed)
        game = solve_game(env.game.layout, env.game.slip)
        ghost_before = env.game.ghost_pos
        env.step(int(seed % 4))
        if env.game.cycles != 1:  # the game ended on the agent's move: the ghost did not answer
            continue
        agent = env.game.agent_pos  # the ghost's move does not move the agent
        action = game.ghost_action(agent, ghost_before)
        d_row, d_col = ACTION_DELTAS[action]
        target = (ghost_before[0] + d_row, ghost_before[1] + d_col)
        expected = ghost_before if env.game.layout.blocked(ghost_before, target) else target
        assert env.game.ghost_pos == expected
        checked += 1
    assert checked >= 8


def test_agent_interface_takes_a_generator_and_a_difficulty() -> None:
    interface = gridghost.AgentInterface(render=False, layout=MapGenerator(6, 6, num_levels=5), filter_type="histogram")
    interface.reset(seed=2)
    first = interface.env.layout
    assert interface.belief_filter.layout == first
    assert interface.belief_filter.belief().shape == (6, 6)
    seen = set()
    for _ in range(10):
        interface.reset()
        seen.add(interface.env.layout)
        assert interface.belief_filter.layout == interface.env.layout
    assert len(seen) > 1
    with pytest.raises(ValueError, match="difficulty= or layout=, not both"):
        gridghost.AgentInterface(render=False, layout="classic", difficulty=1)
    assert gridghost.AgentInterface(render=False, difficulty=0).env.layout.shape == (5, 5)


def test_the_config_of_a_generator_env_rebuilds_it_episode_for_episode() -> None:
    original = gridghost.env(layout=MapGenerator(6, 7, num_levels=40, walls="maze", loops=0.5),
                             belief_filter="histogram", obs_type="grid")
    saved = json.loads(json.dumps(original.config.to_dict()))
    rebuilt = gridghost.env(config=saved)
    assert rebuilt.maps == original.maps
    for seed in range(4):
        original.reset(seed=seed)
        rebuilt.reset(seed=seed)
        assert rebuilt.layout == original.layout
        assert plain(record_rest(rebuilt, seed)) == plain(record_rest(original, seed))


# -- difficulty ------------------------------------------------------------------------------------
@pytest.mark.parametrize("difficulty", [  # a second or more: .ci/run runs the slow group
    pytest.param(level, marks=pytest.mark.slow) if level == 1 else level for level in sorted(DIFFICULTIES)])
def test_difficulty_levels_lie_in_their_band_as_the_solver_measures_it(difficulty: int) -> None:
    preset = DIFFICULTIES[difficulty]
    generator = MapGenerator(difficulty=difficulty)
    for index in range(8):
        layout = generator.level(index)
        assert layout.shape == (preset.rows, preset.cols)
        clear_caches()  # measured afresh, at a tighter tolerance than the generator's
        game = solve_game(layout, LongitudinalSlip(0.2), gamma=0.99, tol=1e-10)
        success = game.success_probability(layout.agent_start, layout.ghost_start, horizon=100)
        assert preset.low - 1e-4 <= success <= preset.high + 1e-4


def test_the_difficulty_bands_order_the_levels() -> None:
    # level 0 is easy for the agent, level 3 a contest: the mean success falls with the level
    means = []
    for difficulty in sorted(DIFFICULTIES):
        generator = MapGenerator(difficulty=difficulty)
        means.append(np.mean([generator.level_success(index) for index in range(6)]))
    assert means == sorted(means, reverse=True)
    assert means[0] >= 0.95 and 0.3 <= means[3] <= 0.6


def test_difficulty_on_every_env_and_measured_under_the_envs_slip() -> None:
    env = gridghost.env(difficulty=3, slip="perpendicular", slip_probability=0.3)
    assert env.maps.slip == PerpendicularSlip(0.3) and env.layout.shape == (6, 6)
    gym_env = gymnasium.make("gridghost/GridGhost-v1", difficulty=2, obs_type="grid")
    obs, _ = gym_env.reset(seed=0)
    assert obs.shape[1:] == (6, 6)
    with pytest.raises(ValueError, match="measures difficulty under"):
        gridghost.env(layout=MapGenerator(difficulty=1, slip=LongitudinalSlip(0.1)))


def test_race_margin_counts_steps_through_the_walls() -> None:
    for seed in range(30):
        layout = Layout.generate(6, 6, seed=seed, num_goals=2)
        horizontal, vertical = walls_of(layout)
        from_agent = bfs_from(6, 6, horizontal, vertical, layout.agent_start)
        from_ghost = bfs_from(6, 6, horizontal, vertical, layout.ghost_start)
        expected = min(from_ghost[g] for g in layout.goals) - min(from_agent[g] for g in layout.goals)
        assert race_margin(layout) == expected


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (dict(difficulty=4), ValueError, r"unknown difficulty 4; accepted: \[0, 1, 2, 3\]"),
        (dict(difficulty="2"), TypeError, "difficulty must be an int"),
        (dict(difficulty=True), TypeError, "difficulty must be an int"),
        (dict(rows=6), TypeError, "needs rows and cols"),
        (dict(rows=5, cols=5, difficulty=3), ValueError, "rows=5, but difficulty 3 plays 6x6 maps"),
        (dict(rows=6, cols=6, num_levels=0), ValueError, "num_levels"),
        (dict(rows=6, cols=6, start_level=-1), ValueError, "start_level must be an int >= 0"),
        (dict(rows=6, cols=6, slip="none"), TypeError, r"slip must be a gridghost\.SlipModel or None"),
        (dict(rows=6, cols=6, walls="spiral"), ValueError, "walls"),
        (dict(rows=1, cols=2), ValueError, "min_distance"),
    ],
)
def test_bad_generator_arguments_are_named(kwargs: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        MapGenerator(**kwargs)


def test_bad_level_indices_are_refused() -> None:
    generator = MapGenerator(5, 5)
    for index in (-1, 1.5, True, "3"):
        with pytest.raises(ValueError, match="level index must be an int >= 0"):
            generator.level(index)


def test_generator_dicts_are_checked() -> None:
    for data in ({"generator": {"rows": 5, "cols": 5, "colour": 1}}, {"generator": 5},
                 {"generator": {"rows": 5, "cols": 5}, "other": 1}):
        with pytest.raises(TypeError, match="a map generator dict"):
            MapGenerator.from_dict(data)
    with pytest.raises(TypeError, match="'options' must be a dict"):
        MapGenerator.from_dict({"generator": {"rows": 5, "cols": 5, "options": [1]}})


# -- layout= everywhere -------------------------------------------------------------------------
def test_layout_accepts_a_name_a_layout_a_text_a_dict_and_a_path(tmp_path) -> None:
    maze = load("maze9")
    text_file = tmp_path / "maze.txt"
    text_file.write_text(maze.to_text(), encoding="utf-8")
    json_file = tmp_path / "maze.json"
    json_file.write_text(json.dumps(maze.to_dict()), encoding="utf-8")
    for value in ("maze9", maze, maze.to_text(), maze.to_dict(), str(text_file), text_file, json_file):
        assert resolve_layout(value) == maze
        assert gridghost.env(layout=value).layout == maze
        assert gymnasium.make("gridghost/GridGhost-v1", layout=value).unwrapped.game.layout == maze
        assert gridghost.AgentInterface(render=False, layout=value).env.layout == maze
    generator = MapGenerator(5, 5, num_levels=3)
    assert resolve_layout(generator.to_dict()) == generator
    assert map_source() == CLASSIC


def test_every_shipped_map_plays_in_the_aec_and_gymnasium_envs() -> None:
    for name in names():
        env = gridghost.env(layout=name, obs_type="grid")
        env.reset(seed=0)
        assert env.layout == load(name)
        assert env.observation_space("agent").shape == (15, *env.layout.shape)
        assert len(record_rest(env)) >= 2 and env.agents == []  # played to its end and dead steps
        gym_env = gymnasium.make("gridghost/GridGhost-v1", layout=name, obs_type="vector")
        obs, _ = gym_env.reset(seed=0)
        assert gym_env.observation_space.contains(obs)


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        ("no_such_map", ValueError, "neither a shipped map .*classic.* nor a file"),
        (42, TypeError, "layout must be a Layout, a MapGenerator, a shipped map's name"),
        ({"colours": [[0, 0]]}, ValueError, "missing"),
        ("+---+\n| A |\n+---+\n", ValueError, "line"),
    ],
)
def test_bad_layouts_are_named(value, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        gridghost.env(layout=value)


def test_difficulty_and_layout_together_are_refused() -> None:
    with pytest.raises(ValueError, match="difficulty= or layout=, not both"):
        gridghost.env(layout=MapGenerator(5, 5), difficulty=1)


def test_a_filter_object_is_refused_with_a_generator() -> None:
    from gridghost.sensing.filters import HistogramFilter

    with pytest.raises(ValueError, match="belief_filter: a filter object follows one map"):
        gridghost.env(layout=MapGenerator(5, 5), belief_filter=HistogramFilter(CLASSIC, LongitudinalSlip(0.2), []))


# -- the maps gallery's tables (docs/maps.md) ------------------------------------------------------
README = (__import__("pathlib").Path(__file__).resolve().parents[1] / "docs" / "maps.md").read_text()


def test_the_readmes_shipped_map_table_is_what_the_solver_says() -> None:
    rows = re.findall(r"^\| `(\w+)` \| (\d+)x(\d+) \| [^|]+ \| ([\d.]+) \| ([\d.]+) \|$", README, flags=re.M)
    assert sorted(name for name, *_ in rows) == names()
    for name, rows_, cols, success, capture in rows:
        layout = load(name)
        assert layout.shape == (int(rows_), int(cols))
        game = solve_game(layout, LongitudinalSlip(0.2), gamma=0.99)
        starts = (layout.agent_start, layout.ghost_start)
        assert abs(game.success_probability(*starts) - float(success)) <= 0.0005, name
        assert abs(game.capture_probability(*starts) - float(capture)) <= 0.0005, name


def test_the_readmes_difficulty_table_has_the_presets_bands_and_sizes() -> None:
    rows = re.findall(r"^\| (\d) \| (\d+)x(\d+) \| \[([\d.]+), ([\d.]+)\] \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|",
                      README, flags=re.M)
    assert [int(row[0]) for row in rows] == sorted(DIFFICULTIES)
    for level, rows_, cols, low, high, least, mean, most in rows:
        preset = DIFFICULTIES[int(level)]
        assert (preset.rows, preset.cols, preset.low, preset.high) == (int(rows_), int(cols), float(low), float(high))
        assert preset.low <= float(least) <= float(mean) <= float(most) <= preset.high
        # the measured levels agree with levels measured here (the first few of them)
        generator = MapGenerator(difficulty=int(level))
        first = [generator.level_success(index) for index in range(5)]
        assert float(least) <= min(first) + 0.0005 and max(first) <= float(most) + 0.0005


def test_a_generator_redraws_maps_whose_opening_move_could_end_the_game() -> None:
    close = [Layout.generate(4, 4, seed=seed, min_distance=1) for seed in range(200)]
    assert any(gridghost.Game(layout, LongitudinalSlip(0.2)).opening_can_end() for layout in close)
    generator = MapGenerator(4, 4, min_distance=1)
    env = gymnasium.make("gridghost/GridGhost-v1", controlled="ghost", layout=generator, obs_type="vector")
    for seed in range(100):
        env.reset(seed=seed)
        assert not env.unwrapped.game.kernel.opening_can_end()
        assert env.unwrapped.game.game_state.outcome == Outcome.ONGOING


@pytest.mark.slow  # a second or more: .ci/run runs the slow group
def test_difficulty_plays_the_presets_training_levels_and_the_gym_env_says_which() -> None:
    env = gymnasium.make("gridghost/GridGhost-v1", difficulty=1, obs_type="vector")
    assert env.unwrapped.game.maps == MapGenerator(difficulty=1, num_levels=500, slip=LongitudinalSlip(0.2))
    levels = set()
    for seed in range(30):
        env.reset(seed=seed)
        assert 0 <= env.unwrapped.level < 500 and env.unwrapped.level == env.unwrapped.game.level
        assert env.unwrapped.layout == MapGenerator(difficulty=1).level(env.unwrapped.level)
        levels.add(env.unwrapped.level)
    assert len(levels) > 20
    assert gymnasium.make("gridghost/GridGhost-v1").unwrapped.level is None


def test_the_opponent_follows_maps_it_has_seen_before() -> None:
    # revisiting a level reuses the opponent's map components and still plays that map's planner
    env = gridghost.GridGhostGymEnv(opponent="minimax", layout=MapGenerator(5, 5, num_levels=3), obs_type="vector")
    for seed in list(range(8)) * 2:
        env.reset(seed=seed)
        assert env.duel.policy.layout == env.layout
        assert len(env.duel._maps) <= 3


def test_a_generator_env_keeps_its_own_copies_of_the_settings_it_builds_maps_from() -> None:
    spec = {"type": "particle", "num_particles": 100, "sensors": [0]}
    sensors = [gridghost.ColorSensor(quality=0.8)]
    env = gridghost.raw_env(layout=MapGenerator(6, 6, num_levels=50), belief_filter=spec, sensors=sensors)
    spec["num_particles"] = 7
    sensors.append(gridghost.sensing.sensors.ItemSensor())
    for seed in range(20):
        env.reset(seed=seed)
        assert env.belief_filter.num_particles == 100 and len(env.sensors) == 1


def test_map_bound_opponents_and_generator_options_are_refused_with_a_reason() -> None:
    from gridghost.planning import MinimaxGhost

    generator = MapGenerator(6, 6, num_levels=5)
    bound = MinimaxGhost.for_game(gridghost.Game(generator.level(0), LongitudinalSlip(0.2)))
    with pytest.raises(ValueError, match="was built for one map"):
        gridghost.GridGhostGymEnv(layout=generator, opponent=bound)
    for option in ("seed", "name"):
        with pytest.raises(TypeError, match=r"sets .* itself for every level"):
            MapGenerator(5, 5, **{option: 3})
    with pytest.raises((TypeError, ValueError), match="min_distance"):
        MapGenerator(5, 5, min_distance="2")


def test_an_overlay_belongs_to_its_map() -> None:
    generator = MapGenerator(5, 5, num_levels=50)
    env = gridghost.raw_env(layout=generator, render_mode="rgb_array")
    fresh = gridghost.raw_env(layout=generator, render_mode="rgb_array")
    env.reset(seed=0)
    first = env.layout
    env.set_overlay(np.ones((5, 5)))
    env.reset(seed=0)
    overlaid = env.render()  # the same map: the overlay stays
    fresh.reset(seed=0)
    assert not (overlaid == fresh.render()).all()
    seed = 1
    while env.reset(seed=seed) or env.layout == first:  # the first seed that draws another map
        seed += 1
    fresh.reset(seed=seed)
    assert env.layout != first and (env.render() == fresh.render()).all()
