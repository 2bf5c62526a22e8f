"""Exact evaluation of any policy (gridghost.evaluate, tabulate_policy over every encoding) and the
one train/test split, checked against independent paths: the batched engine's own grid rows, the
solver's policies, and Monte-Carlo play in the Gymnasium env."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import gridghost
from gridghost.batched import BatchedGame
from gridghost.core import Game, LongitudinalSlip
from gridghost.maps import SPLITS, MapGenerator, level_split
from gridghost.planning import solve_agent, tabulate_policy
from gridghost.sensing.observations import GRID_CHANNELS
from gridghost.training.evaluation import Evaluator, evaluate

SELF = GRID_CHANNELS.index("self")


def crc_policy(observation: np.ndarray) -> int:
    """A policy that is a fixed, arbitrary function of every bit of the observation."""
    return zlib.crc32(np.ascontiguousarray(observation, dtype=np.float32).tobytes()) % 4


@pytest.mark.parametrize(("view_radius", "grid_layout"), [(None, "chw"), (2, "chw"), (5, "hwc")])
def test_grid_tables_ask_the_policy_with_the_observation_the_batched_engine_shows(
        view_radius: int | None, grid_layout: str) -> None:
    levels = MapGenerator(6, 6, num_levels=3)
    engine = BatchedGame(64, seed=3, layout=levels, obs_type="grid", view_radius=view_radius, grid_layout=grid_layout)
    tables = {level: tabulate_policy(crc_policy, "agent", levels.level(level), obs_type="grid",
                                     view_radius=view_radius, grid_layout=grid_layout) for level in range(3)}
    observations = engine.reset(seed=3)["agent"]
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(20):
        agents, ghosts = engine.positions
        assert engine.levels is not None
        for row in range(engine.num_games):
            level, agent, ghost = int(engine.levels[row]), int(agents[row]), int(ghosts[row])
            probabilities = tables[level][(*divmod(agent, 6), *divmod(ghost, 6))]
            if not probabilities.any():
                continue  # an ended game's final observation (next-step reset): no decision there
            assert probabilities.argmax() == crc_policy(observations[row])
            checked += 1
        observations = engine.step_agent(rng.integers(0, 4, engine.num_games)).observations["agent"]
    assert checked > 500


def test_a_grid_policy_that_reads_its_cell_is_tabulated_as_the_state_policy_it_plays() -> None:
    layout = MapGenerator(difficulty=2).level(0)
    game = Game(layout, LongitudinalSlip(0.2), "normalised")
    solution = solve_agent(ghost="chase", game=game)

    def planner(observation: np.ndarray) -> int:
        me = np.argwhere(observation[SELF] == 1)[0]
        other = np.argwhere(observation[GRID_CHANNELS.index("opponent")] == 1)[0]
        return solution.action(tuple(me), tuple(other))

    def planner_batch(observations: np.ndarray) -> np.ndarray:
        return np.array([planner(observation) for observation in observations])

    one = tabulate_policy(planner, "agent", game=game, obs_type="grid")
    stacked = tabulate_policy(planner_batch, "agent", game=game, obs_type="grid", batch=True)
    np.testing.assert_array_equal(one, stacked)
    live = one.sum(axis=-1) > 0
    for agent_ghost in np.argwhere(live)[:200]:
        a, g = tuple(agent_ghost[:2]), tuple(agent_ghost[2:])
        assert one[(*a, *g)].argmax() == solution.action(a, g)


def test_belief_encodings_need_the_located_belief_and_then_see_the_agents_cell() -> None:
    layout = MapGenerator(6, 6, num_levels=1).level(0)
    with pytest.raises(ValueError, match="belief='located'"):
        tabulate_policy(lambda obs: 0, "agent", layout, obs_type="belief_vector")
    with pytest.raises(ValueError, match="belief only applies to the belief encodings"):
        tabulate_policy(lambda obs: 0, "agent", layout, obs_type="vector", belief="located")
    cells = layout.rows * layout.cols
    table = tabulate_policy(lambda obs: int(np.argmax(obs[-cells:])) % 4, "agent", layout,
                            obs_type="belief_vector", belief="located")
    for agent in range(cells):
        for ghost in range(cells):
            row = table[(*divmod(agent, layout.cols), *divmod(ghost, layout.cols))]
            if row.sum():
                assert row.argmax() == agent % 4
    dicts = tabulate_policy(lambda obs: int(np.argmax(obs["belief"])) % 4, "agent", layout, obs_type="belief",
                            belief="located")
    np.testing.assert_array_equal(dicts, table)


@pytest.mark.parametrize(("kwargs", "error", "words"), [
    ({"obs_type": "dict", "batch": True}, ValueError, "batch=True stacks array observations"),
    ({"obs_type": "grid", "batch": True, "action_mask_in_obs": True}, ValueError, "without action_mask_in_obs"),
    ({"obs_type": "pixels"}, ValueError, "obs_type"),
    ({"obs_type": "vector", "view_radius": 2}, ValueError, "view_radius only applies"),
    ({"obs_type": "grid", "grid_layout": "cwh"}, ValueError, "grid_layout"),
])
def test_tabulate_refuses_bad_encoding_options(kwargs: dict, error: type, words: str) -> None:
    with pytest.raises(error, match=words):
        tabulate_policy(lambda obs: 0, "agent", **kwargs)


@pytest.mark.slow  # a second or more: .ci/run runs the slow group
def test_evaluate_matches_monte_carlo_play_in_the_gym_env() -> None:
    layout = level_split(2, "test", num_levels=1).level(500)
    policy = crc_policy  # an arbitrary deterministic policy of the egocentric grid
    result = evaluate(policy, [layout], obs_type="grid", view_radius=3, rewards="normalised")
    env = gridghost.GridGhostGymEnv(layout=layout, obs_type="grid", view_radius=3, rewards="normalised",
                                    max_cycles=100)
    returns, wins = [], []
    for episode in range(3000):
        observation, _ = env.reset(seed=episode)
        total, done = 0.0, False
        while not done:
            observation, reward, terminated, truncated, info = env.step(policy(observation))
            total += reward
            done = terminated or truncated
        returns.append(total)
        wins.append(bool(info.get("is_success", False)))
    error = np.std(returns) / np.sqrt(len(returns))
    assert abs(np.mean(returns) - result.returns[0]) < 4 * error + 1e-9
    assert abs(np.mean(wins) - result.success[0]) < 4 * np.sqrt(0.25 / len(wins))


@pytest.mark.slow  # a second or more: .ci/run runs the slow group
def test_evaluate_scores_random_zero_and_a_best_response_near_one_on_the_splits() -> None:
    test = level_split(1, "test", num_levels=3)
    random = evaluate("random", test)
    np.testing.assert_allclose(random.score, 0.0, atol=1e-12)
    np.testing.assert_array_equal(random.levels, [500, 501, 502])
    # the optimal agent (a stationary best response to the chasing ghost at gamma 0.99) is within
    # a hair of the finite-horizon optimum
    optimal = evaluate("optimal", test)  # the trainers' normalised rewards, evaluate's default
    assert (optimal.score > 0.97).all() and (optimal.score <= 1 + 1e-9).all()
    assert (optimal.returns <= optimal.optimum + 1e-9).all()
    reference = evaluate("optimal", test, rewards="reference")
    np.testing.assert_allclose(reference.score, optimal.score, atol=1e-6)  # the score has no units
    np.testing.assert_allclose(reference.returns / 100, optimal.returns, atol=1e-6)
    summary = optimal.summary()
    assert summary["levels"] == 3 and summary["score"] == pytest.approx(float(np.mean(optimal.score)))
    assert "normalised score" in str(optimal)


def test_evaluate_a_ghost_against_the_random_agent() -> None:
    levels = level_split(3, "train", num_levels=2)
    chase = evaluate(gridghost.ChasePolicy(), levels, side="ghost", obs_type="dict")
    by_name = evaluate("chase", levels, side="ghost")
    np.testing.assert_allclose(chase.returns, by_name.returns, atol=1e-9)
    assert (chase.returns <= chase.optimum + 1e-9).all() and (chase.random <= chase.optimum + 1e-9).all()
    np.testing.assert_allclose(chase.score, (chase.returns - chase.random) / (chase.optimum - chase.random))
    np.testing.assert_allclose(chase.minimax, -evaluate("minimax", levels).minimax)  # the ghost's return
    assert (chase.success < 0.2).all() and (chase.caught > 0.8).all()  # the random agent mostly loses


@pytest.mark.parametrize(("kwargs", "error", "words"), [
    ({"levels": MapGenerator(6, 6)}, ValueError, "unbounded MapGenerator"),
    ({"levels": []}, ValueError, "levels is empty"),
    ({"levels": "classic"}, TypeError, "levels must be a Layout"),
    ({"levels": [gridghost.CLASSIC, 3]}, TypeError, r"levels\[1\]"),
    ({"side": "pacman"}, ValueError, "side"),
    ({"horizon": 0}, ValueError, "horizon"),
    ({"opponent": "chase", "side": "ghost"}, ValueError, "chase"),
    ({"rewards": "tiny"}, ValueError, "rewards preset"),
])
def test_evaluate_refuses_bad_arguments(kwargs: dict, error: type, words: str) -> None:
    with pytest.raises(error, match=words):
        evaluate("random", **kwargs)


def test_the_split_is_defined_once_and_the_envs_train_on_it() -> None:
    assert SPLITS == {"train": (0, 500), "test": (500, 100)}
    train, test = level_split(2, "train"), level_split(2, "test")
    assert (train.start_level, train.num_levels, test.start_level, test.num_levels) == (0, 500, 500, 100)
    plays = gridghost.env(difficulty=2).unwrapped.config.layout
    assert (plays.start_level, plays.num_levels) == (train.start_level, train.num_levels)
    assert level_split(2, "test", num_levels=5).num_levels == 5
    with pytest.raises(ValueError, match="unknown split 'valid'"):
        level_split(2, "valid")
    with pytest.raises(ValueError, match="num_levels=101 is more than the 100 levels"):
        level_split(2, "test", num_levels=101)
    with pytest.raises(ValueError, match="unknown difficulty"):
        level_split(7, "test")


@pytest.mark.slow  # a second or more: .ci/run runs the slow group
def test_an_evaluator_scores_many_policies_as_evaluate_scores_each() -> None:
    levels = level_split(2, "test", num_levels=2)
    evaluator = Evaluator(levels, opponent="minimax", obs_type="grid", view_radius=2, rewards="normalised")
    for policy in (crc_policy, lambda observation: 3, "optimal"):
        once = evaluate(policy, levels, opponent="minimax", obs_type="grid", view_radius=2, rewards="normalised")
        again = evaluator(policy)
        for name in ("returns", "success", "caught", "optimum", "minimax", "random", "score"):
            np.testing.assert_array_equal(getattr(again, name), getattr(once, name), err_msg=name)
    batched = evaluator(lambda observations: np.array([crc_policy(o) for o in observations]), batch=True)
    np.testing.assert_array_equal(batched.returns, evaluator(crc_policy).returns)
    with pytest.raises(ValueError, match="view_radius only applies"):
        Evaluator(levels, obs_type="vector", view_radius=2)
