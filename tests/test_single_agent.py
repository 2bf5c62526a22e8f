"""The single-agent views: the reference AgentInterface step for step, and the Gymnasium env."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.wrappers import TimeLimit

import gridghost
from gridghost import AgentInterface, GridGhostGymEnv, Layout
from gridghost.core.layout import CLASSIC
from gridghost.core.rules import GameState, Side, board_for
from gridghost.envs.single_agent import Duel
from gridghost.sensing.filters import HistogramFilter
from gridghost.sensing.observations import VECTOR_SLOTS, DictObservations, VectorObservations

from helpers import load_traces, plain

TRACES = load_traces("interface_traces.jsonl")


def trace_id(record: dict) -> str:
    config = record["config"]
    return f"p{config['slip_probability']}-{config['slip_type']}-q{config['color_sensor_quality']}-seed{record['seed']}"


def make(**kwargs) -> gymnasium.Env:
    return gymnasium.make(gridghost.ENV_ID, **kwargs)


def interface(**kwargs) -> AgentInterface:
    return AgentInterface(render=False, use_particle_filter=False, **kwargs)


# -- AgentInterface reproduces the reference ---------------------------------------------------
#: No filter (as the traces were recorded), and filters that must not change the game.
FILTER_SETTINGS = {
    "no-filter": dict(use_particle_filter=False),
    "particle-both": dict(use_particle_filter=True, pf_sensor_mode="both"),
    "histogram-cnn": dict(use_particle_filter=True, pf_sensor_mode="cnn", filter_type="histogram"),
}


@pytest.mark.parametrize("setting", list(FILTER_SETTINGS))
@pytest.mark.parametrize("record", TRACES, ids=[trace_id(r) for r in TRACES])
def test_interface_trace_replays_exactly(record: dict, setting: str) -> None:
    facade = AgentInterface(render=False, **FILTER_SETTINGS[setting], **record["config"])
    filtered = facade.belief_filter is not None
    assert plain(facade.reset(seed=record["seed"])) == record["reset"]["obs"]
    assert facade.last_info["color_measurement"] == record["reset"]["color_measurement"]
    assert ("estimated_pos" in facade.last_info) is filtered
    for index, step in enumerate(record["steps"]):
        obs, reward, done, info = facade.step(step["action"])
        where = f"step {index}"
        assert plain(obs) == step["obs"], where
        assert reward == step["reward"] and type(reward) is float, where
        assert done is step["done"], where
        assert {key: plain(info.get(key)) for key in step["info"]} == step["info"], where
        assert ("estimated_pos" in info) is filtered, where
    assert facade.get_episode_stats() == record["stats"]
    assert facade.is_terminated() is record["steps"][-1]["done"]


def test_interface_traces_cover_both_catches_and_the_goal() -> None:
    rewards = {step["reward"] for record in TRACES for step in record["steps"]}
    assert {-51.0, -50.0, 100.0, -1.0} <= rewards


def test_interface_refuses_to_step_a_finished_episode_and_before_reset() -> None:
    facade = interface()
    with pytest.raises(RuntimeError, match="reset"):
        facade.step(0)
    facade.reset(seed=0)
    for action in (3, 2, 2, 3):  # the first trace: caught after four steps
        facade.step(action)
    assert facade.is_terminated()
    with pytest.raises(RuntimeError, match="call reset\\(\\)"):
        facade.step(0)
    facade.reset()
    assert facade.episode_steps == 0 and facade.total_reward == 0.0 and not facade.is_terminated()


def test_interface_with_a_reference_style_ghost_class() -> None:
    seen = []

    class Sampler:
        def __init__(self, action_space) -> None:
            self.action_space = action_space

        def get_action(self, observation):
            seen.append(sorted(observation))
            return int(self.action_space.sample())

    def episode(seed: int) -> list:
        facade = interface(ghost_agent_class=Sampler)
        facade.reset(seed=seed)
        trail = []
        for _ in range(30):
            if facade.is_terminated():
                break
            facade.step(2)
            trail.append(facade.env.ghost_pos)
        return trail

    assert episode(5) == episode(5)
    assert episode(5) != episode(6)
    assert seen[0] == ["agent_distance", "agent_relative_pos", "current_cell", "neighbors"]


def test_interface_set_ghost_agent_and_accessors() -> None:
    facade = interface(slip_probability=0.0)
    facade.reset(seed=1)
    facade.set_ghost_agent("random")
    assert facade.get_action_space() == gymnasium.spaces.Discrete(4)
    obs, *_ = facade.step(1)
    assert facade.get_observation_space().contains(obs)
    assert facade.get_reward_structure() == {
        "step_penalty": -1.0,
        "caught_by_ghost": -50.0,
        "reached_goal": 100.0,
        "slip_probability": 0.0,
        "terminal_states": ["caught_by_ghost", "reached_goal"],
    }
    assert facade.env.agent_pos == (1, 2)
    facade.close()
    facade.close()


def test_interface_without_the_ghost_reaches_the_stopp_goal() -> None:
    facade = interface(use_ghost=False, slip_probability=0.0)
    facade.reset(seed=0)
    # (0,2) -> (0,3) -> (0,4) -> (1,4) -> (2,4) -> (3,4), the ghost's start and a goal.
    for action in (2, 2, 1, 1, 1):
        facade.step(action)
    assert facade.env.ghost_pos == (3, 4) and facade.env.agent_pos == (3, 4)
    assert facade.get_episode_stats() == {
        "total_reward": 96.0, "steps": 5, "terminated": True, "truncated": False,
        "reached_goal": True, "caught_by_ghost": False,
    }


def test_interface_max_steps_truncates() -> None:
    facade = interface(use_ghost=False, max_steps=3)
    facade.reset(seed=0)
    dones = [facade.step(3)[2] for _ in range(3)]  # up from (0,2) is the border
    assert dones == [False, False, True]
    assert facade.truncated and not facade.terminated


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (dict(use_particle_filter=True, filter_type="kalman"), ValueError, "unknown filter_type 'kalman'"),
        (dict(use_particle_filter=False, filter_type="histogram"), ValueError, "False there is none"),
        (dict(filter_type="histogram", pf_num_particles=50), ValueError, "not to filter_type='histogram'"),
        (dict(pf_num_particles=0), ValueError, "pf_num_particles must be an int >= 1, got"),
        (dict(use_particle_filter=False, pf_num_particles=None), TypeError, "pf_num_particles must be an int >= 1"),
        (dict(use_particle_filter=False, pf_num_particles=2.5), TypeError, "pf_num_particles"),
        (dict(use_particle_filter=False, pf_sensor_mode="sonar"), ValueError, "pf_sensor_mode 'sonar'"),
        (dict(use_particle_filter=False, step_delay=-1), ValueError, "step_delay"),
        (dict(use_particle_filter=False, render=False, render_mode="human"), ValueError, "render=True"),
        (dict(use_particle_filter=False, render_mode="movie"), ValueError, "render_mode"),
        (dict(use_particle_filter=False, max_steps=0), ValueError, "max_steps must be an int >= 1 or None"),
        (dict(use_particle_filter=False, max_steps=2.0), TypeError, "max_steps must be an int"),
        (dict(use_particle_filter=False, show_particles="yes"), TypeError, "show_particles must be a bool"),
        (dict(use_particle_filter="no"), TypeError, "use_particle_filter must be a bool"),
        (dict(use_particle_filter=False, step_delay=float("nan")), ValueError, "step_delay"),
        (dict(use_particle_filter=False, step_delay=True), TypeError, "step_delay"),
        (dict(use_particle_filter=False, step_delay="100"), TypeError, "step_delay"),
        (dict(use_particle_filter=False, step_delay=float("inf")), ValueError, "step_delay must be a finite number"),
        (dict(use_particle_filter=False, render="yes"), TypeError, "render must be a bool"),
        (dict(use_particle_filter=False, slip_type="sideways"), ValueError, "sideways"),
        (dict(use_particle_filter=False, ghost_agent_class="sleepy"), ValueError,
         r"unknown opponent 'sleepy'; accepted: \['chase', 'minimax', 'optimal', 'random'\]"),
        (dict(use_particle_filter=False, use_ghost=False, ghost_agent_class="chase"), ValueError, "use_ghost=False"),
    ],
)
def test_interface_bad_arguments(kwargs: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        AgentInterface(**kwargs)


@pytest.mark.parametrize(("action", "error"), [(4, ValueError), (-1, ValueError), (1.0, TypeError), (None, TypeError)])
def test_interface_rejects_bad_actions_without_changing_anything(action, error: type) -> None:
    facade = interface()
    facade.reset(seed=3)
    state = facade.env.np_random.bit_generator.state
    with pytest.raises(error, match="action"):
        facade.step(action)
    assert facade.episode_steps == 0 and facade.env.np_random.bit_generator.state == state


# -- the Gymnasium env ---------------------------------------------------------------------
# Every side, encoding and render mode; "human" keeps to render_fps (seconds per check), so it
# runs with one encoding per side.
CHECKER_CASES = [
    (side, obs_type, mode)
    for side in ("agent", "ghost")
    for obs_type in ("dict", "vector")
    for mode in GridGhostGymEnv.metadata["render_modes"]
    if mode != "human" or obs_type == ("dict" if side == "agent" else "vector")
] + [("agent", "belief", "rgb_array"), ("agent", "belief", None)]


@pytest.mark.parametrize(("controlled", "obs_type", "render_mode"), CHECKER_CASES)
def test_gymnasium_env_checker_passes_without_warnings(controlled: str, obs_type: str, render_mode: str) -> None:
    extra = dict(belief_filter="particle") if obs_type == "belief" and render_mode else {}
    env = make(controlled=controlled, obs_type=obs_type, render_mode=render_mode, **extra)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped, skip_render_check=False)
    env.close()
    assert [str(w.message) for w in caught] == []


def test_the_interface_draws_in_a_window_and_closes_cleanly() -> None:
    facade = AgentInterface(render=True, step_delay=0, use_particle_filter=False)
    facade.reset(seed=0)
    facade.step(1)
    assert facade.env.render_mode == "human"
    facade.close()
    facade.close()


def test_make_wraps_a_time_limit_of_100_steps() -> None:
    env = make(use_ghost=False)
    assert isinstance(env, TimeLimit) and env.spec.max_episode_steps == 100
    env.reset(seed=0)
    flags = [env.step(3)[2:4] for _ in range(100)]  # up from the start cell bumps the border
    assert flags[:-1] == [(False, False)] * 99 and flags[-1] == (False, True)


def test_async_vector_env_runs_four_copies_like_the_sync_one() -> None:
    fns = [lambda: make(obs_type="vector") for _ in range(4)]
    actions = np.random.default_rng(0).integers(0, 4, size=(40, 4))
    results = []
    for vector_cls in (gymnasium.vector.AsyncVectorEnv, gymnasium.vector.SyncVectorEnv):
        envs = vector_cls(fns)
        try:
            obs, _ = envs.reset(seed=[10, 11, 12, 13])
            record = [obs]
            for row in actions:
                obs, reward, terminated, truncated, _ = envs.step(row)
                record.append((obs, reward, terminated, truncated))
        finally:
            envs.close()
        results.append(record)
    async_run, sync_run = results
    assert obs.shape == (4, len(VECTOR_SLOTS)) and obs.dtype == np.float32
    assert all(plain(a) == plain(s) for a, s in zip(async_run, sync_run, strict=True))
    # Four seeds, four different games: somewhere the copies' observations part.
    assert any(len({row.tobytes() for row in step[0]}) > 1 for step in async_run[1:])


def episode(env: gymnasium.Env, seed: int, action_seed: int = 0) -> list:
    rng = np.random.default_rng(action_seed)
    obs, info = env.reset(seed=seed)
    trail = [plain((obs, info))]
    while True:
        obs, reward, terminated, truncated, info = env.step(int(rng.integers(4)))
        trail.append(plain((obs, reward, terminated, truncated, info)))
        if terminated or truncated:
            return trail


def test_unseeded_resets_continue_the_streams() -> None:
    def run(second_seed: int | None) -> list:
        env = make(opponent="random", slip_probability=0.5)
        first = episode(env, 4)
        rng = np.random.default_rng(1)
        env.reset(seed=second_seed)
        return first + [plain(env.step(int(rng.integers(4)))) for _ in range(5)]

    assert run(None) == run(None)
    assert run(None) != run(4)  # continuing is not starting over


def test_an_unseeded_first_reset_is_replayed_by_its_drawn_seed() -> None:
    first = make(opponent="random", slip_probability=0.5)
    first.reset()
    drawn = first.unwrapped.np_random_seed
    rng = np.random.default_rng(0)
    actions = rng.integers(0, 4, size=8).tolist()
    replay = make(opponent="random", slip_probability=0.5)
    replay.reset(seed=drawn)
    for action in actions:
        a, b = first.step(action), replay.step(action)
        assert plain(a) == plain(b)
        if a[2] or a[3]:
            break


def test_the_opponents_randomness_never_shifts_the_game_draws() -> None:
    # Against any ghost the agent's slips and colour readings come from the same draws, as long
    # as both episodes last.
    def slips(opponent: str) -> list:
        env = make(opponent=opponent, use_ghost=True, slip_probability=0.5)
        env.reset(seed=8)
        trail = []
        for _ in range(3):
            _, _, terminated, _, info = env.step(1)
            trail.append((info["actual_moves"].tolist(), info["color_measurement"]))
            if terminated:
                break
        return trail

    assert len(slips("chase")) == 3
    assert slips("chase") == slips("random")


def test_ghost_learner_rewards_are_the_negated_turn_rewards() -> None:
    env = make(controlled="ghost", opponent="random", rewards="reference")
    outcomes = set()
    for seed in range(40):
        env.reset(seed=seed)
        opening = 1.0  # the agent's opening move (-1 for it) is paid with the ghost's first step
        while True:
            _, reward, terminated, truncated, info = env.step(env.action_space.sample())
            if info.get("caught_by_ghost"):
                outcome, expected = "caught", 50.0
            elif info.get("reached_goal"):
                outcome, expected = "goal", -100.0
            else:
                outcome, expected = "step", 1.0  # the ghost waits (0), the agent steps (-1)
            assert reward == expected + opening
            opening = 0.0
            assert info["is_success"] is (outcome == "caught")
            outcomes.add(outcome)
            if terminated or truncated:
                break
    assert outcomes == {"caught", "goal", "step"}


def test_agent_learner_success_and_action_masks() -> None:
    env = make(slip_probability=0.0)
    env.reset(seed=0)
    # Through (0,3), (0,4), (1,4) ... the chasing ghost meets the agent on the way down.
    successes = []
    for action in (2, 2, 1, 1, 1):
        _, _, terminated, _, info = env.step(action)
        mask = env.unwrapped.action_masks()
        assert mask.dtype == bool and mask.tolist() == info["action_mask"].astype(bool).tolist()
        successes.append(info["is_success"])
        if terminated:
            break
    assert info.get("caught_by_ghost") and successes[-1] is False


def test_action_masks_match_the_observed_neighbours() -> None:
    env = make(opponent="random", obs_type="dict")
    env.reset(seed=2)
    order = ("left", "down", "right", "up")
    for _ in range(30):
        obs, _, terminated, truncated, info = env.step(env.action_space.sample())
        expected = [bool(obs["neighbors"][name]["accessible"]) for name in order]
        assert env.unwrapped.action_masks().tolist() == expected
        assert info["action_mask"].dtype == np.int8
        if terminated or truncated:
            env.reset()


@pytest.mark.parametrize("controlled", ["agent", "ghost"])
def test_vector_observations_stay_inside_their_space_for_10000_random_steps(controlled: str) -> None:
    env = make(controlled=controlled, obs_type="vector", opponent="random")
    space = env.observation_space
    obs, _ = env.reset(seed=0)
    for _ in range(10_000):
        assert space.contains(obs) and np.all(np.isfinite(obs)), obs
        obs, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            obs, _ = env.reset()


def test_both_sides_share_one_vector_space_and_fresh_objects() -> None:
    agent_env, ghost_env = make(obs_type="vector").unwrapped, make(controlled="ghost", obs_type="vector").unwrapped
    assert agent_env.observation_space == ghost_env.observation_space
    assert agent_env.game.observation_space("agent") is agent_env.game.observation_space("ghost")
    first, _ = agent_env.reset(seed=0)
    second, *_ = agent_env.step(0)
    assert first is not second and not np.shares_memory(first, second)


def flatten_dict_observation(obs: dict, rows: int, cols: int, diameter: int) -> list[float]:
    """An independent re-statement of the documented slot table."""
    one_hot = lambda colour: [float(colour == c) for c in range(3)]  # noqa: E731
    cell = obs["current_cell"]
    names = ("up", "right", "down", "left")
    relative = next(v for k, v in obs.items() if k.endswith("relative_pos"))
    distance = next(v for k, v in obs.items() if k.endswith("distance"))
    return [
        *one_hot(cell["colour"]),
        *map(float, cell["has_item"]),
        float(cell["is_goal"]),
        *(float(obs["neighbors"][n]["accessible"]) for n in names),
        *(x for n in names for x in one_hot(obs["neighbors"][n]["colour"])),
        relative[0] / (rows - 1),
        relative[1] / (cols - 1),
        distance / diameter,
    ]


@pytest.mark.parametrize(
    "layout",
    [CLASSIC, Layout(colours=np.arange(30).reshape(5, 6) % 3, goals=[(4, 5)], agent_start=(0, 0), ghost_start=(4, 0))],
    ids=["classic", "open-5x6"],
)
def test_vector_slots_restate_the_dict_observation(layout: Layout) -> None:
    board = board_for(layout)
    dicts, vectors = DictObservations(board), VectorObservations(board)
    diameter = 13 if layout is CLASSIC else (layout.rows - 1) + (layout.cols - 1)
    for a in range(board.num_cells):
        for g in range(board.num_cells):
            state = GameState(a, g)
            for side in Side:
                expected = flatten_dict_observation(dicts.observe(side, state), layout.rows, layout.cols, diameter)
                np.testing.assert_allclose(vectors.observe(side, state), expected, rtol=1e-6)
            # Egocentric: the ghost at g seeing the agent at a is the agent at g seeing a ghost at a.
            np.testing.assert_array_equal(
                vectors.observe(Side.GHOST, state), vectors.observe(Side.AGENT, GameState(g, a))
            )
    assert len(VECTOR_SLOTS) == vectors.space(Side.AGENT).shape[0] == 26


def test_render_modes_pass_through() -> None:
    env = make(render_mode="ansi")
    env.reset(seed=0)
    game = env.unwrapped.game
    assert env.render() == game.render() and "A agent" in env.render()
    assert env.metadata["render_modes"] == game.metadata["render_modes"]


def test_the_np_random_of_the_env_is_the_games_generator() -> None:
    env = make().unwrapped
    env.reset(seed=5)
    assert env.np_random is env.game.np_random and env.np_random_seed == 5


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (dict(controlled="referee"), ValueError,
         "unknown controlled 'referee'; accepted: \\['agent', 'ghost', 'ghosts'\\]"),
        (dict(opponent="sleepy"), ValueError,
         r"unknown opponent 'sleepy'; accepted: \['chase', 'minimax', 'optimal', 'random'\]"),
        (dict(opponent=42), TypeError, "^opponent must be a policy name"),
        (dict(obs_type="pixels"), ValueError, "unknown obs_type 'pixels'"),
        (dict(opponent_obs_type="pixels"), ValueError, "unknown opponent_obs_type 'pixels'"),
        (dict(render_mode="movie"), ValueError, "render_mode"),
        (dict(controlled="ghost", use_ghost=False), ValueError, "use_ghost=True"),
        (dict(max_cycles=0), ValueError, "max_cycles"),
    ],
)
def test_gymnasium_env_bad_arguments(kwargs: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        GridGhostGymEnv(**kwargs)


def test_a_learning_ghost_needs_an_opening_move_that_cannot_end_the_game() -> None:
    # The agent starts next to a goal: its first move could end the game before the ghost's turn.
    layout = Layout(colours=np.zeros((3, 3), dtype=int), goals=[(0, 1)], agent_start=(0, 0), ghost_start=(2, 2))
    with pytest.raises(ValueError, match="opening move"):
        GridGhostGymEnv(controlled="ghost", layout=layout)
    GridGhostGymEnv(controlled="agent", layout=layout).reset(seed=0)  # fine for a learning agent


@pytest.mark.parametrize(("action", "error"), [(4, ValueError), (-1, ValueError), (2.0, TypeError), ("up", TypeError)])
def test_gymnasium_env_rejects_bad_actions(action, error: type) -> None:
    env = GridGhostGymEnv()
    env.reset(seed=0)
    with pytest.raises(error, match="action for 'agent'"):
        env.step(action)
    assert env.game.cycles == 0 and env.game.agent_selection == "agent"


def test_stepping_before_reset_or_after_the_end_raises() -> None:
    env = GridGhostGymEnv(use_ghost=False, slip_probability=0.0)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env.reset(seed=0)
    for action in (2, 2, 1, 1, 1):
        *_, terminated, _, info = env.step(action)
    assert terminated and info["is_success"] is True
    with pytest.raises(RuntimeError, match="call reset\\(\\)"):
        env.step(0)


def test_duel_rejects_an_opponent_returning_bad_actions_and_then_refuses_to_go_on() -> None:
    duel = Duel(gridghost.raw_env(), "agent", lambda observation: 7)
    duel.reset(seed=0)
    with pytest.raises(ValueError, match=r"^opponent must answer with a move, an int in 0\.\.3; it answered 7$"):
        duel.play(0)
    # The ghost never moved: the next action must not be taken as the ghost's.
    with pytest.raises(RuntimeError, match=r"opponent.s last move failed.*call reset\(\)"):
        duel.play(1)
    duel.reset(seed=0)
    assert duel.game.agent_selection == "agent"


def test_the_chasing_ghost_cannot_play_the_agent() -> None:
    refusal = r"'chase' \(the chasing ghost\) plays the ghost; the opponent here is the agent"
    with pytest.raises(ValueError, match=refusal):
        GridGhostGymEnv(controlled="ghost", opponent="chase")
    with pytest.raises(ValueError, match=r"opponent ChasePolicy\(\) \(the chasing ghost\) plays the ghost; the "
                                         r"opponent here is the agent"):  # the policy object, by what it is
        GridGhostGymEnv(controlled="ghost", opponent=gridghost.ChasePolicy())


def test_the_chasing_ghost_plays_the_same_whatever_observation_the_opponent_reads() -> None:
    runs = []
    for obs_type in ("dict", "vector"):
        env = GridGhostGymEnv(opponent="chase", opponent_obs_type=obs_type, obs_type="vector")
        env.reset(seed=9)
        runs.append([env.step(a)[0].tolist() for a in (1, 2, 2, 0)])
    assert runs[0] == runs[1]


def test_a_random_opponent_can_read_vector_observations() -> None:
    seen = []
    env = GridGhostGymEnv(opponent=lambda obs: seen.append(obs) or 0, opponent_obs_type="vector")
    env.reset(seed=0)
    env.step(1)
    assert seen[0].shape == (26,) and seen[0].dtype == np.float32


def test_without_the_ghost_opponent_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="use_ghost=False"):
        GridGhostGymEnv(use_ghost=False, opponent_obs_type="vector")
    facade = interface(use_ghost=False)
    with pytest.raises(ValueError, match="use_ghost=True"):
        facade.set_ghost_agent("random")


def test_options_must_be_a_dict() -> None:
    env = GridGhostGymEnv()
    with pytest.raises(TypeError, match="options must be a dict or None"):
        env.reset(seed=0, options=[1])


def test_the_chasing_ghost_plays_from_the_state_table_and_a_subclass_from_its_observations() -> None:
    class Counting(gridghost.ChasePolicy):
        def __init__(self) -> None:
            self.calls = 0

        def __call__(self, observation) -> int:
            self.calls += 1
            return super().__call__(observation)

    traces = []
    for opponent in ("chase", gridghost.ChasePolicy(), Counting()):
        duel = Duel(gridghost.raw_env(max_cycles=None, slip_probability=0.3), "agent", opponent)
        duel.reset(seed=2)
        trace = []
        for action in (0, 2, 1, 1, 3, 2, 1, 0) * 3:
            if duel.over():
                break
            duel.play(action)
            trace.append(duel.game.ghost_pos)
        traces.append(trace)
    assert traces[0] == traces[1] == traces[2] and len(traces[0]) > 3
    assert duel._table is None and opponent.calls >= 3  # the subclass was asked, not the table


def test_an_opponent_set_mid_run_is_seeded_from_the_reset_seed() -> None:
    def run(ghost: str | None) -> list:
        facade = interface()
        facade.reset(seed=4)
        if ghost is not None:
            facade.set_ghost_agent(ghost)
        trail = []
        for _ in range(3):
            for action in (0, 2, 1, 3):
                if facade.is_terminated():
                    facade.reset()
                facade.step(action)
                trail.append(facade.env.ghost_pos)
        return trail

    first = run("random")
    assert first == run("random")
    assert first != run(None)  # the random ghost really took over from the chasing one


def test_set_ghost_agent_none_restores_the_chasing_ghost() -> None:
    facade = interface()
    facade.reset(seed=0)
    facade.set_ghost_agent("random")
    facade.set_ghost_agent(None)
    assert isinstance(facade._duel.policy, gridghost.ChasePolicy)


@pytest.mark.parametrize("mode", ["rgb_array", "ansi"])
def test_render_true_off_screen_keeps_the_latest_picture(mode: str) -> None:
    facade = AgentInterface(render=True, render_mode=mode, use_particle_filter=False)
    facade.reset(seed=0)
    first = facade.last_frame
    facade.step(2)
    assert type(facade.last_frame) is type(first)
    if mode == "rgb_array":
        assert first.dtype == np.uint8 and first.ndim == 3 and not np.array_equal(first, facade.last_frame)
    else:
        assert "A agent" in first and first != facade.last_frame
    quiet = interface(render_mode=mode)
    quiet.reset(seed=0)
    assert quiet.last_frame is None  # render=False draws nothing by itself


# -- belief filters in the single-agent views ------------------------------------------------------
def test_a_learning_ghost_has_no_belief_to_observe() -> None:
    with pytest.raises(ValueError, match="obs_type='belief' adds the agent's belief map; the ghost has none"):
        make(controlled="ghost", obs_type="belief")


def test_gym_belief_observations_match_the_filter_and_stay_in_their_space() -> None:
    env = make(obs_type="belief", belief_filter="particle", slip_type="perpendicular")
    filter_ = env.unwrapped.game.belief_filter
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(60):
        assert env.observation_space.contains(obs)
        assert np.allclose(obs["belief"], filter_.belief(), atol=1e-7)
        estimate = filter_.estimate()
        assert info["estimated_pos"].tolist() == estimate["float_pos"]
        assert info["estimated_cell"].tolist() == estimate["cell_pos"]
        obs, _, terminated, truncated, info = env.step(int(rng.integers(4)))
        if terminated or truncated:
            obs, info = env.reset()


def test_interface_estimates_are_the_exact_posterior_of_its_own_readings() -> None:
    """With the histogram filter, the interface's estimate after each step equals a second exact
    filter fed the step's intended action and its readings, here, in the test."""
    facade = AgentInterface(render=False, filter_type="histogram", slip_probability=0.3)
    mirror = HistogramFilter(CLASSIC, facade.env.slip, facade.env.sensors)
    facade.reset(seed=12)
    mirror.update(facade.last_info)
    assert facade.last_info["estimated_pos"] == mirror.estimate()
    rng = np.random.default_rng(1)
    for _ in range(200):
        if facade.is_terminated():
            facade.reset()
            mirror.reset()
            mirror.update(facade.last_info)
        action = int(rng.integers(4))
        _, _, _, info = facade.step(action)
        mirror.predict(action)
        mirror.update(info)
        assert info["estimated_pos"] == mirror.estimate()
        assert np.allclose(facade.belief_filter.belief(), mirror.belief())


@pytest.mark.parametrize(
    ("mode", "keys"),
    [("color", {"color_measurement"}), ("cnn", {"cnn_prediction"}), ("both", {"color_measurement", "cnn_prediction"})],
)
def test_the_sensor_mode_chooses_what_the_filter_reads(mode: str, keys: set) -> None:
    facade = AgentInterface(render=False, pf_sensor_mode=mode, pf_num_particles=64)
    assert {sensor.name for sensor in facade.belief_filter.sensors} == keys
    facade.reset(seed=0)
    _, _, _, info = facade.step(1)
    assert ("cnn_prediction" in info and "cnn_probs" in info) is (mode != "color")
    assert info["color_measurement"] in (0, 1, 2)  # the reference always reports the colour
    assert facade.belief_filter.num_particles == 64


def test_interface_particle_estimates_repeat_with_the_seed() -> None:
    def estimates(seed: int) -> list:
        facade = AgentInterface(render=False, ghost_agent_class="random")
        facade.reset(seed=seed)
        out = [facade.last_info["estimated_pos"]]
        for action in [1, 1, 2, 3, 0, 1, 2, 2, 1, 0] * 3:
            if facade.is_terminated():
                break
            out.append(facade.step(action)[3]["estimated_pos"])
        return out

    assert estimates(3) == estimates(3)
    assert estimates(3) != estimates(4)


def test_show_particles_draws_the_belief_in_the_interfaces_pictures() -> None:
    frames = []
    for show in (True, False):
        facade = AgentInterface(render=True, render_mode="rgb_array", show_particles=show)
        facade.reset(seed=0)
        facade.step(1)
        frames.append(facade.last_frame)
    assert (frames[0] != frames[1]).any()


def test_filter_settings_without_a_filter_warn_that_they_do_nothing() -> None:
    """The reference accepts them with use_particle_filter=False; gridghost says they do nothing."""
    with pytest.warns(UserWarning, match="pf_num_particles, pf_sensor_mode, show_particles set the belief filter"):
        facade = AgentInterface(render=False, use_particle_filter=False, pf_num_particles=50,
                                pf_sensor_mode="color", show_particles=False)
    assert facade.belief_filter is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        AgentInterface(render=False, use_particle_filter=False, pf_sensor_mode="both", pf_num_particles=200)


def test_only_an_opponent_agent_of_a_game_with_a_belief_filter_reads_a_belief() -> None:
    with pytest.raises(ValueError, match=r"opponent_obs_type='belief' .* needs controlled='ghost' and a game with a "
                                         r"belief_filter"):
        make(controlled="ghost", opponent_obs_type="belief")
    with pytest.raises(ValueError, match="opponent_obs_type='belief'"):
        make(controlled="agent", opponent_obs_type="belief", belief_filter="histogram")
    seen = []

    def opponent(obs: dict) -> int:
        seen.append((obs["belief"], env.unwrapped.game.belief_filter.belief().copy()))
        return 0

    env = make(controlled="ghost", opponent=opponent, opponent_obs_type="belief", belief_filter="histogram")
    env.reset(seed=1)
    env.step(0)
    assert len(seen) == 2
    for shown, belief in seen:  # the filter's belief when the agent is asked
        assert shown.shape == (4, 5) and np.allclose(shown, belief, atol=1e-7)
    assert not np.allclose(seen[0][1], seen[1][1])  # and it followed the agent's move


def test_the_gymnasium_env_takes_rllibs_env_config_as_its_first_argument() -> None:
    """RLlib builds an env class as ``cls(env_config)``: a mapping of every argument by name."""
    from_mapping = GridGhostGymEnv({"controlled": "ghost", "obs_type": "vector", "opponent": "random"})
    by_name = GridGhostGymEnv(controlled="ghost", obs_type="vector", opponent="random")
    assert from_mapping.controlled == "ghost" and from_mapping.observation_space == by_name.observation_space
    a, b = from_mapping.reset(seed=3), by_name.reset(seed=3)
    assert plain(a) == plain(b)
    assert plain(from_mapping.step(1)) == plain(by_name.step(1))
    assert GridGhostGymEnv({}).controlled == "agent"
    with pytest.raises(TypeError, match=r"as one mapping .* or by name, not both"):
        GridGhostGymEnv({"obs_type": "vector"}, obs_type="grid")
    with pytest.raises(ValueError, match="unknown obs_type 'pixels'"):
        GridGhostGymEnv({"obs_type": "pixels"})


def test_the_gymnasium_env_has_the_same_info_keys_at_reset_and_every_step() -> None:
    for controlled in ("agent", "ghost"):
        env = GridGhostGymEnv(controlled=controlled, obs_type="vector", belief_filter="histogram")
        _, info = env.reset(seed=0)
        keys = list(info)
        assert info["is_success"] is False
        for _ in range(30):
            _, _, terminated, truncated, info = env.step(int(env.action_space.sample()))
            assert list(info) == keys
            if terminated or truncated:
                _, info = env.reset()
                assert list(info) == keys
