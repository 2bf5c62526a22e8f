"""The learning-library encodings ("grid", "belief_vector", "text") and the options on every
encoding (view_radius, action_mask_in_obs, append_step_count): inside their spaces, the same
space for both sides, checked against constructions from the layout alone, and accepted by
PettingZoo's and Gymnasium's checkers and vector envs."""

from __future__ import annotations

import copy
import json
import pickle
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env
from gymnasium.wrappers import FrameStackObservation
from pettingzoo.test import api_test

import gridghost
from gridghost.config.settings import GameConfig
from gridghost.core.layout import CLASSIC, COLOURS, ITEM_FLAGS, Layout
from gridghost.core.rules import GameState, Outcome, Side, board_for
from gridghost.sensing.observations import (
    GRID_CHANNELS,
    MAX_VIEW_RADIUS,
    OBS_TYPES,
    TEXT_CHARSET,
    grid_channels,
    make_observations,
)

RECTANGLE = Layout(
    colours=np.arange(33).reshape(3, 11) % 3,
    goals=[(2, 10)],
    agent_start=(0, 0),
    ghost_start=(2, 5),
    walls_horizontal=np.arange(22).reshape(2, 11) % 3 == 1,
    walls_vertical=np.arange(30).reshape(3, 10) % 4 == 2,
    items={(0, 3): ("dog",), (1, 7): ("two_flowers", "one_note"), (2, 1): ("two_notes",)},
)
SQUARE = Layout(colours=np.arange(36).reshape(6, 6) % 3, goals=[(5, 5), (0, 5)], agent_start=(0, 0),
                ghost_start=(5, 0), walls_vertical=np.arange(30).reshape(6, 5) % 7 == 3)
LAYOUTS = {"classic": CLASSIC, "3x11": RECTANGLE, "6x6": SQUARE}
NEW_TYPES = ("grid", "belief_vector", "text")
#: (obs_type, options) for every encoding with and without each option.
VARIANTS = [
    *((obs_type, {}) for obs_type in OBS_TYPES),
    ("grid", dict(view_radius=1)),
    ("grid", dict(view_radius=3, append_step_count=True, action_mask_in_obs=True)),
    *((obs_type, dict(append_step_count=True)) for obs_type in OBS_TYPES),
    *((obs_type, dict(action_mask_in_obs=True)) for obs_type in OBS_TYPES if obs_type != "text"),
]
VARIANT_IDS = [f"{obs_type}-{'-'.join(options) or 'plain'}" for obs_type, options in VARIANTS]
SHARED_SPACE = [(obs_type, options) for obs_type, options in VARIANTS if obs_type not in ("dict", "belief")]


def same(first, second) -> bool:
    """Whether two observations are equal: the same keys, equal arrays (dtype included), texts."""
    if isinstance(first, dict):
        return isinstance(second, dict) and first.keys() == second.keys() and all(
            same(first[key], second[key]) for key in first)
    if isinstance(first, np.ndarray):
        return isinstance(second, np.ndarray) and first.dtype == second.dtype and np.array_equal(first, second)
    if isinstance(first, (tuple, list)):
        return len(first) == len(second) and all(same(a, b) for a, b in zip(first, second, strict=True))
    return type(first) is type(second) and first == second


def play(env, seed: int, half_steps: int):
    """Random actions from ``seed`` for ``half_steps`` half-steps, resetting when an episode
    ends; yields the env after every reset and half-step."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    yield env
    for _ in range(half_steps):
        if not env.agents:
            env.reset()
        else:
            name = env.agent_selection
            dead = env.terminations[name] or env.truncations[name]
            env.step(None if dead else int(rng.integers(4)))
        yield env


@pytest.mark.parametrize(("obs_type", "options"), VARIANTS, ids=VARIANT_IDS)
@pytest.mark.parametrize("layout", LAYOUTS.values(), ids=LAYOUTS.keys())
def test_every_observation_of_random_play_lies_in_its_space(layout: Layout, obs_type: str, options: dict) -> None:
    env = gridghost.raw_env(layout=layout, obs_type=obs_type, max_cycles=15, **options)
    seen = 0
    for state in play(env, seed=7, half_steps=120):
        if not state.agents:
            continue
        for name in state.possible_agents:
            observation = state.observe(name)
            assert state.observation_space(name).contains(observation), (name, observation)
            seen += 1
    assert seen > 200


@pytest.mark.parametrize(("obs_type", "options"), SHARED_SPACE)
def test_both_sides_share_one_space_object_and_it_holds_no_text_in_a_dict(obs_type: str, options: dict) -> None:
    env = gridghost.raw_env(obs_type=obs_type, max_cycles=20, **options)
    space = env.observation_space("agent")
    assert space is env.observation_space("ghost") is env.observation_space("agent")
    if isinstance(space, spaces.Dict):
        assert not any(isinstance(inner, spaces.Text) for inner in space.spaces.values())


# -- grid -------------------------------------------------------------------------------------
def expected_planes(layout: Layout, me: tuple[int, int], other: tuple[int, int], to_move: bool, ghost: bool):
    """The whole-map grid, written from the layout's fields alone."""
    rows, cols = layout.shape
    planes = {name: np.zeros((rows, cols)) for name in GRID_CHANNELS}
    for r in range(rows):
        for c in range(cols):
            planes["wall_up"][r, c] = r == 0 or layout.walls_horizontal[r - 1, c]
            planes["wall_down"][r, c] = r == rows - 1 or layout.walls_horizontal[r, c]
            planes["wall_left"][r, c] = c == 0 or layout.walls_vertical[r, c - 1]
            planes["wall_right"][r, c] = c == cols - 1 or layout.walls_vertical[r, c]
            planes[f"colour_{COLOURS[layout.colours[r, c]]}"][r, c] = 1
            kinds = {"dog" if "dog" in item else "flower" if "flower" in item else "notes"
                     for item in layout.items.get((r, c), ())}
            for flag in ITEM_FLAGS:
                planes[f"has_{flag}"][r, c] = flag in kinds
    for goal in layout.goals:
        planes["goal"][goal] = 1
    planes["self"][me] = 1
    planes["opponent"][other] = 1
    planes["to_move"][:] = to_move
    planes["is_ghost"][:] = ghost
    return np.stack([planes[name] for name in GRID_CHANNELS])


@pytest.mark.parametrize("layout", LAYOUTS.values(), ids=LAYOUTS.keys())
def test_grid_channels_match_a_construction_from_the_layout(layout: Layout) -> None:
    board = board_for(layout)
    grids = make_observations("grid", board)
    assert grid_channels() == GRID_CHANNELS and len(GRID_CHANNELS) == 15
    rng = np.random.default_rng(3)
    for _ in range(6):
        agent, ghost = (int(cell) for cell in rng.integers(board.num_cells, size=2))
        turn = Side(int(rng.integers(2)))
        state = GameState(agent, ghost, turn)
        for side in Side:
            me, other = (agent, ghost) if side == Side.AGENT else (ghost, agent)
            observation = grids.observe(side, state)
            assert observation.dtype == np.float32 and observation.shape == (15, *layout.shape)
            expected = expected_planes(layout, board.position(me), board.position(other), turn == side,
                                       side == Side.GHOST)
            assert (observation == expected).all(), (side, state)


def test_grid_says_nobody_is_to_move_once_the_game_has_ended() -> None:
    grids = make_observations("grid", board_for(CLASSIC))
    over = GameState(7, 7, Side.GHOST, Outcome.CAUGHT)
    to_move = GRID_CHANNELS.index("to_move")
    assert not grids.observe(Side.GHOST, over)[to_move].any() and not grids.observe(Side.AGENT, over)[to_move].any()


@pytest.mark.parametrize("radius", [1, 2, 4])
@pytest.mark.parametrize("layout", [CLASSIC, RECTANGLE], ids=["classic", "3x11"])
def test_egocentric_windows_are_the_whole_grid_around_the_observer_padded_out_of_map(layout, radius) -> None:
    board = board_for(layout)
    rows, cols = layout.shape
    whole = make_observations("grid", board)
    window = make_observations("grid", board, view_radius=radius)
    channels = grid_channels(radius)
    out, opponent = channels.index("out_of_map"), channels.index("opponent")
    width = 2 * radius + 1
    assert window.space(Side.AGENT).shape == (16, width, width)
    corners = [(0, 0), (0, cols - 1), (rows - 1, 0), (rows - 1, cols - 1)]
    for me in corners:
        for other in [*corners, (rows // 2, cols // 2)]:
            if other == me:
                continue
            state = GameState(board.index(me), board.index(other))
            observation = window.observe(Side.AGENT, state)
            full = whole.observe(Side.AGENT, state)
            for i in range(width):
                for j in range(width):
                    r, c = me[0] + i - radius, me[1] + j - radius
                    inside = 0 <= r < rows and 0 <= c < cols
                    assert observation[out, i, j] == (not inside)
                    if inside:
                        assert (observation[:out, i, j] == full[:, r, c]).all()
                    else:
                        assert not observation[:out, i, j].any()
            visible = abs(other[0] - me[0]) <= radius and abs(other[1] - me[1]) <= radius
            assert observation[opponent].sum() == visible
            assert observation[channels.index("self"), radius, radius] == 1


# -- belief_vector --------------------------------------------------------------------------
def test_belief_vector_is_the_vector_then_the_agents_filter_map_or_the_ghosts_own_cell() -> None:
    env = gridghost.raw_env(obs_type="belief_vector", slip_type="perpendicular")
    plain = make_observations("vector", env.board)
    assert env.belief_filter is not None and env.config.belief_filter == "histogram"
    for state in play(env, seed=4, half_steps=30):
        if not state.agents:
            continue
        game = state.game_state
        agent, ghost = state.observe("agent"), state.observe("ghost")
        assert agent.shape == ghost.shape == (26 + 20,)
        assert (agent[:26] == plain.observe(Side.AGENT, game)).all()
        assert (ghost[:26] == plain.observe(Side.GHOST, game)).all()
        assert np.allclose(agent[26:], state.belief_filter.belief().ravel(), atol=1e-7)
        assert ghost[26:].tolist() == np.eye(20)[game.ghost].tolist()


# -- text -------------------------------------------------------------------------------------
def test_text_describes_the_cell_the_open_ways_and_the_opponent() -> None:
    env = gridghost.raw_env(obs_type="text", max_cycles=100, append_step_count=True)
    env.reset(seed=0)
    assert env.observe("agent") == (
        "You are the agent. Your cell is white, with no items, not a goal. Open: right, down, left. "
        "The ghost is 3 down and 2 right, 5 steps away. Your move. Cycle 0 of 100."
    )
    assert env.observe("ghost") == (
        "You are the ghost. Your cell is white, with no items, a goal. Open: up, left. "
        "The agent is 3 up and 2 left, 5 steps away. The agent moves next. Cycle 0 of 100."
    )
    texts = make_observations("text", board_for(CLASSIC))
    dog_and_notes = GameState(CLASSIC.cols - 1, CLASSIC.cols - 1, Side.GHOST, Outcome.CAUGHT)
    assert texts.observe(Side.AGENT, dog_and_notes) == (
        "You are the agent. Your cell is white, with dog and notes, not a goal. Open: down, left. "
        "The ghost is on your cell, 0 steps away. The game is over."
    )


@pytest.mark.parametrize("layout", LAYOUTS.values(), ids=LAYOUTS.keys())
def test_every_text_of_every_position_fits_its_space(layout: Layout) -> None:
    board = board_for(layout)
    texts = make_observations("text", board)
    space = texts.space(Side.AGENT)
    assert isinstance(space, spaces.Text) and space is texts.space(Side.GHOST)
    assert space.character_set == TEXT_CHARSET and space.min_length == 1
    for me in range(board.num_cells):
        for other in range(board.num_cells):
            for side in Side:
                assert space.contains(texts.observe(side, GameState(me, other))), (me, other)


# -- options ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("obs_type", "options"), [v for v in VARIANTS if v[1].get("action_mask_in_obs")],
                         ids=[i for v, i in zip(VARIANTS, VARIANT_IDS, strict=True) if v[1].get("action_mask_in_obs")])
def test_the_mask_in_the_observation_is_the_infos(obs_type: str, options: dict) -> None:
    env = gridghost.raw_env(obs_type=obs_type, max_cycles=10, **options)
    plain = gridghost.raw_env(obs_type=obs_type, max_cycles=10, **{**options, "action_mask_in_obs": False})
    for state, other in zip(play(env, 5, 40), play(plain, 5, 40), strict=True):
        if not state.agents:
            continue
        for name in state.agents:
            observation = state.observe(name)
            assert set(observation) == {"observation", "action_mask"}
            assert observation["action_mask"].dtype == np.int8
            # the plain env's info mask: with the mask in the observation, the info holds none
            assert observation["action_mask"].tolist() == other.infos[name]["action_mask"].tolist()
            assert "action_mask" not in state.infos[name]
            assert same(observation["observation"], other.observe(name))


@pytest.mark.parametrize(("obs_type", "options"), [v for v in VARIANTS if v[1].get("append_step_count")],
                         ids=[i for v, i in zip(VARIANTS, VARIANT_IDS, strict=True) if v[1].get("append_step_count")])
def test_the_step_count_is_the_cycles_played_over_max_cycles(obs_type: str, options: dict) -> None:
    env = gridghost.raw_env(obs_type=obs_type, max_cycles=4, slip_probability=0.0, **options)
    env.reset(seed=0)
    seen = []
    for _ in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        observation = observation.get("observation", observation) if isinstance(observation, dict) else observation
        if obs_type == "text":
            value = float(observation.split("Cycle ")[1].split(" of ")[0]) / 4
        elif obs_type == "grid":
            inside = observation[-2] == 0 if "view_radius" in options else np.ones(observation.shape[1:], bool)
            value = float(observation[-1][inside][0])
            assert (observation[-1][inside] == value).all() and not observation[-1][~inside].any()
        elif isinstance(observation, dict):
            value = float(observation["step_count"][0])
        else:
            value = float(observation[-1])
        assert value == pytest.approx(env.cycles / 4) and 0.0 <= value <= 1.0
        seen.append(value)
        env.step(None if termination or truncation else 3)  # up: the agent bumps the border, nobody meets
    assert seen[0] == 0.0 and seen[-1] == 1.0


def test_the_step_count_follows_its_own_env_after_pickling_and_copying() -> None:
    env = gridghost.raw_env(obs_type="vector", max_cycles=4, append_step_count=True)
    env.reset(seed=0)
    for twin in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        twin.step(3)
        twin.step(0)
        assert twin.observe("agent")[-1] == np.float32(0.25) and env.observe("agent")[-1] == 0.0


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (dict(obs_type="vector", view_radius=2), ValueError, "view_radius only applies to obs_type='grid'"),
        (dict(obs_type="grid", view_radius=0), ValueError,
         r"view_radius must be an int in 1\.\.31 or None \(the whole map\)"),
        (dict(obs_type="grid", view_radius=MAX_VIEW_RADIUS + 1), ValueError, "view_radius must be an int in 1..31"),
        (dict(obs_type="grid", view_radius=1.5), TypeError, "view_radius must be an int"),
        (dict(obs_type="grid", view_radius=True), TypeError, "view_radius must be an int"),
        (dict(action_mask_in_obs="yes"), TypeError, "action_mask_in_obs must be a bool"),
        (dict(append_step_count=1), TypeError, "append_step_count must be a bool"),
        (dict(append_step_count=True, max_cycles=None), ValueError, "append_step_count=True divides .* max_cycles"),
        (dict(obs_type="text", action_mask_in_obs=True), ValueError, "action_mask_in_obs=True would put the Text"),
        (dict(obs_type="picture"), ValueError, "unknown obs_type 'picture'"),
    ],
)
def test_bad_encoding_settings_are_refused_with_the_argument_named(kwargs: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        gridghost.env(**kwargs)


@pytest.mark.parametrize(
    ("fields", "error", "message"),
    [
        (dict(view_radius=-1), ValueError, "GameSpec.view_radius"),
        (dict(view_radius="2"), TypeError, "GameSpec.view_radius"),
        (dict(action_mask_in_obs=None), TypeError, "GameSpec.action_mask_in_obs must be a bool"),
        (dict(append_step_count="no"), TypeError, "GameSpec.append_step_count must be a bool"),
    ],
)
def test_bad_config_fields_are_refused(fields: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        GameConfig(**fields)


def test_the_gymnasium_view_needs_a_max_cycles_for_the_step_count() -> None:
    with pytest.raises(ValueError, match="pass max_cycles=N"):
        gymnasium.make("gridghost/GridGhost-v1", obs_type="vector", append_step_count=True)
    env = gymnasium.make("gridghost/GridGhost-v1", obs_type="vector", append_step_count=True, max_cycles=100)
    observation, _ = env.reset(seed=0)
    assert observation.shape == (27,) and observation[-1] == 0.0
    assert env.step(0)[0][-1] == np.float32(0.01)


@pytest.mark.parametrize(
    ("obs_type", "options"),
    [("grid", dict(view_radius=3, append_step_count=True, action_mask_in_obs=True)),
     ("belief_vector", dict(append_step_count=True)), ("text", dict(append_step_count=True)),
     ("belief", dict(action_mask_in_obs=True))],
)
def test_config_and_its_json_form_rebuild_the_same_encoding(obs_type: str, options: dict) -> None:
    env = gridghost.env(obs_type=obs_type, max_cycles=30, **options)
    again = gridghost.env(config=env.config)
    revived = gridghost.env(config=GameConfig.from_dict(json.loads(json.dumps(env.config.to_dict()))))
    for twin in (again, revived):
        assert twin.config.to_dict() == env.config.to_dict()
        assert twin.observation_space("agent") == env.observation_space("agent")
        for state, other in zip(play(env, 2, 20), play(twin, 2, 20), strict=True):
            if state.agents:
                assert same(state.observe("ghost"), other.observe("ghost"))


@pytest.mark.parametrize("obs_type", [*NEW_TYPES, "vector"])
def test_spaces_depend_only_on_the_maps_size_and_the_options(obs_type: str) -> None:
    other = Layout(colours=np.ones((4, 5), int), goals=[(0, 0)], agent_start=(3, 4), ghost_start=(2, 2),
                   walls_vertical=np.ones((4, 4), bool) & (np.arange(4)[:, None] < 3))
    options = dict(view_radius=2) if obs_type == "grid" else {}
    first = make_observations(obs_type, board_for(CLASSIC), belief=lambda: np.zeros((4, 5)), **options)
    second = make_observations(obs_type, board_for(other), belief=lambda: np.zeros((4, 5)), **options)
    assert first.space(Side.AGENT) == second.space(Side.GHOST)


# -- the checkers and the wrappers --------------------------------------------------------------
ACKNOWLEDGED_API_WARNINGS = (
    "Observation is not a NumPy array",
    "We recommend agents to be named in the format",
    "Observation space for each agent probably should be",
    "Agents have different observation space sizes",
)


# PettingZoo's api_test reads a dtype off every observation that is not a dict and off every
# entry of an {"observation": ...} dict, so it cannot take a top-level Text, nor the reference
# dict (Python ints for its Discrete entries) under "observation"; those variants' AEC play is
# checked by the tests above.
API_VARIANTS = [
    (obs_type, options) for obs_type, options in VARIANTS
    if obs_type != "text" and not (obs_type in ("dict", "belief") and options.get("action_mask_in_obs"))
]


@pytest.mark.parametrize(("obs_type", "options"), API_VARIANTS)
def test_pettingzoo_api_test_passes(obs_type: str, options: dict) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(gridghost.env(obs_type=obs_type, **options), num_cycles=100)
    surprises = {str(w.message) for w in caught if not str(w.message).startswith(ACKNOWLEDGED_API_WARNINGS)}
    assert not surprises


GYM_VARIANTS = [(side, obs_type, options) for obs_type, options in VARIANTS
                for side in ("agent", "ghost") if obs_type != "belief" or side == "agent"]


@pytest.mark.parametrize(("controlled", "obs_type", "options"), GYM_VARIANTS)
def test_gymnasium_env_checker_passes(controlled: str, obs_type: str, options: dict) -> None:
    env = gymnasium.make("gridghost/GridGhost-v1", controlled=controlled, obs_type=obs_type, max_cycles=100,
                         **options)
    assert env.observation_space is env.unwrapped.game.observation_space(controlled)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []


@pytest.mark.parametrize(("obs_type", "options"), SHARED_SPACE)
def test_frame_stacking_keeps_the_last_frames(obs_type: str, options: dict) -> None:
    env = FrameStackObservation(
        gymnasium.make("gridghost/GridGhost-v1", obs_type=obs_type, max_cycles=50, **options), stack_size=3
    )
    inner = env.unwrapped
    frames, _ = env.reset(seed=1)
    assert env.observation_space.contains(frames)
    history = [inner.game.observe("agent")]
    for action in (1, 2, 1):
        frames, *_ = env.step(action)
        history.append(inner.game.observe("agent"))
        assert env.observation_space.contains(frames)
    last = {key: value[-1] for key, value in frames.items()} if isinstance(frames, dict) else frames[-1]
    assert same(last, history[-1])


VECTOR_CASES = [(obs_type, options) for obs_type, options in SHARED_SPACE if not options or obs_type == "grid"]


@pytest.mark.parametrize(("obs_type", "options"), VECTOR_CASES)
def test_async_vector_envs_see_what_sync_ones_see(obs_type: str, options: dict) -> None:
    def make():
        return gymnasium.make("gridghost/GridGhost-v1", obs_type=obs_type, max_cycles=50, **options)

    sync = gymnasium.vector.SyncVectorEnv([make, make])
    # Gymnasium 1.x reads a Text out of shared memory once, when the vector env is built, and
    # never again: text needs shared_memory=False.
    asynchronous = gymnasium.vector.AsyncVectorEnv([make, make], shared_memory=obs_type != "text")
    try:
        seen = [venv.reset(seed=11)[0] for venv in (sync, asynchronous)]
        assert same(seen[0], seen[1])
        for actions in ([1, 2], [2, 1], [0, 3]):
            steps = [venv.step(np.array(actions)) for venv in (sync, asynchronous)]
            assert same(steps[0][0], steps[1][0]) and (steps[0][1] == steps[1][1]).all()
    finally:
        sync.close()
        asynchronous.close()


# -- grid_layout: channels last for the libraries whose CNNs read them so ---------------------------

@pytest.mark.parametrize("options", [dict(), dict(view_radius=2), dict(view_radius=3, append_step_count=True,
                                                                      max_cycles=20)],
                         ids=["whole", "egocentric", "egocentric-step-count"])
def test_channels_last_grids_are_the_channels_first_grids_with_the_axis_moved(options) -> None:
    layout = gridghost.MapGenerator(6, 6, difficulty=2).level(3)
    first = gridghost.parallel_env(layout=layout, obs_type="grid", slip_probability=0.5, **options)
    last = gridghost.parallel_env(layout=layout, obs_type="grid", slip_probability=0.5, grid_layout="hwc", **options)
    for side in ("agent", "ghost"):
        chw, hwc = first.observation_space(side), last.observation_space(side)
        assert hwc.shape == (*chw.shape[1:], chw.shape[0]) and hwc.dtype == np.float32
    rng = np.random.default_rng(0)
    compared = 0
    for seed in range(5):
        a, _ = first.reset(seed=seed)
        b, _ = last.reset(seed=seed)
        while True:
            for side in a:
                assert last.observation_space(side).contains(b[side])
                np.testing.assert_array_equal(np.moveaxis(a[side], 0, -1), b[side])
                compared += 1
            if not first.agents:
                break
            actions = {side: int(rng.integers(4)) for side in first.agents}
            a, *_ = first.step(actions)
            b, *_ = last.step(actions)
    assert compared > 40


def test_grid_layout_is_checked_and_kept_in_the_config() -> None:
    with pytest.raises(ValueError, match="unknown grid_layout 'cwh'; accepted: \\['chw', 'hwc'\\]"):
        gridghost.env(obs_type="grid", grid_layout="cwh")
    with pytest.raises(ValueError, match="grid_layout only applies to obs_type='grid'"):
        gridghost.env(obs_type="vector", grid_layout="hwc")
    env = gridghost.env(obs_type="grid", grid_layout="hwc", reference_infos=True)
    again = gridghost.env(config=GameConfig.from_dict(json.loads(json.dumps(env.config.to_dict()))))
    assert again.config.grid_layout == "hwc" and again.config.reference_infos is True
    assert again.observation_space("agent").shape == (4, 5, 15)
