"""Self-play tooling: frozen snapshots, sampling rules, the self-play env, bookkeeping, Elo
ratings and the exact exploitability curve."""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest

import gridghost
from gridghost.core.names import FILTER_STREAM, MAP_STREAM, OPPONENT_STREAM
from gridghost.core.policies import ChasePolicy
from gridghost.envs.single_agent import GridGhostGymEnv
from gridghost.planning import MinimaxGhost, OptimalAgent, exploitability, solve_game
from gridghost.training.selfplay import (
    OPENING_ATTEMPTS,
    OPENING_STREAM,
    SAMPLING_RULES,
    SELFPLAY_STREAM,
    OpponentPool,
    Results,
    SelfPlayEnv,
    elo_ratings,
    expected_score,
    exploitability_curve,
)

CLASSIC = gridghost.CLASSIC
SHAPE = (4, 5, 4, 5, 4)


class Scripted:
    """A policy of observations with state that training would change: it always plays ``action``."""

    def __init__(self, action: int) -> None:
        self.action = action

    def __call__(self, observation: object) -> int:
        return self.action


def one_hot(actions: np.ndarray) -> np.ndarray:
    return np.eye(4)[np.maximum(actions, 0)].reshape(SHAPE)


def uniform_table() -> np.ndarray:
    return np.full(SHAPE, 0.25)


# -- the pool --------------------------------------------------------------------------------------
def test_snapshots_get_names_generations_and_sides_in_order() -> None:
    pool = OpponentPool()
    first, second = pool.add("chase", "ghost"), pool.add("random", "ghost")
    agent = pool.add("random", "agent", name="walker", generation=7)
    assert (first.name, first.generation, second.name, second.generation) == ("ghost-0", 0, "ghost-1", 1)
    assert (agent.name, agent.side, agent.generation) == ("walker", "agent", 7)
    assert pool.snapshots("ghost") == (first, second) and pool.snapshots() == (first, second, agent)
    assert len(pool) == 3 and "walker" in pool and pool["walker"] is agent
    assert pool.add("random", "agent").name == "agent-8"  # one more than the side's highest


def test_a_snapshot_is_frozen_unless_the_caller_opts_out() -> None:
    live = Scripted(1)
    pool = OpponentPool()
    frozen = pool.add(live, "ghost")
    kept = pool.add(live, "ghost", copy=False)
    live.action = 3  # training the live policy
    assert frozen.policy(None) == 1 and kept.policy(None) == 3 and kept.policy is live
    table = uniform_table()
    snapshot = pool.add(table, "agent")
    table[...] = 0.0
    assert (snapshot.policy == 0.25).all() and not snapshot.policy.flags.writeable and snapshot.tabulated


def test_an_object_that_cannot_be_copied_is_refused_with_the_way_out() -> None:
    class Locked(Scripted):
        def __init__(self) -> None:
            super().__init__(0)
            self.lock = threading.Lock()

    pool = OpponentPool()
    with pytest.raises(TypeError, match=r"cannot be deep-copied.*copy=False"):
        pool.add(Locked(), "ghost")
    assert len(pool) == 0
    assert pool.add(Locked(), "ghost", copy=False).policy(None) == 0


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"policy": "chase", "side": "pacman"}, ValueError, "side"),
    ({"policy": "chase", "side": "agent"}, ValueError, "plays the ghost"),
    ({"policy": "teleport", "side": "ghost"}, ValueError, "unknown policy 'teleport'"),
    ({"policy": ChasePolicy(), "side": "agent"}, ValueError, "chasing ghost"),
    ({"policy": 42, "side": "ghost"}, TypeError, "policy must be"),
    ({"policy": np.zeros((4, 5, 4)), "side": "ghost"}, ValueError, r"shape \(rows, cols, rows, cols, 4\)"),
    ({"policy": [[["a"]]], "side": "ghost"}, TypeError, r"policy must be a table of probabilities \(real numbers\)"),
    ({"policy": np.full(SHAPE, 0.5), "side": "ghost"}, ValueError, "sum to 1"),
    ({"policy": -uniform_table(), "side": "ghost"}, ValueError, ">= 0"),
    ({"policy": "chase", "side": "ghost", "generation": -1}, ValueError, "generation"),
    ({"policy": "chase", "side": "ghost", "generation": 1.5}, TypeError, "generation"),
    ({"policy": "chase", "side": "ghost", "name": ""}, TypeError, "name"),
    ({"policy": "chase", "side": "ghost", "copy": "yes"}, TypeError, "copy"),
])
def test_bad_snapshots_are_refused_naming_the_argument(kwargs: dict, error: type, message: str) -> None:
    pool = OpponentPool()
    with pytest.raises(error, match=message):
        pool.add(**kwargs)
    assert len(pool) == 0


def test_a_state_policy_of_the_other_side_and_a_repeated_name_are_refused() -> None:
    pool = OpponentPool()
    with pytest.raises(ValueError, match="plays the ghost, not the agent"):
        pool.add(MinimaxGhost(), "agent")
    with pytest.raises(ValueError, match=r"policy 'chase' \(the chasing ghost\) plays the ghost; the policy here is "
                                         r"the agent"):
        pool.add("chase", "agent")
    pool.add("chase", "ghost", name="x")
    with pytest.raises(ValueError, match="'x' is already in the pool"):
        pool.add("random", "ghost", name="x")
    with pytest.raises(KeyError, match="no snapshot named 'y'"):
        pool["y"]


@pytest.mark.parametrize("prior", [0, -1.0, math.nan])
def test_the_prior_must_be_positive(prior: float) -> None:
    with pytest.raises(ValueError, match="prior"):
        OpponentPool(prior=prior)


# -- bookkeeping -----------------------------------------------------------------------------------
def test_records_count_a_scripted_sequence_of_games_and_the_win_rate_has_a_prior() -> None:
    pool = OpponentPool(prior=2.0)
    pool.add("chase", "ghost", name="a")
    pool.add("random", "ghost", name="b")
    assert pool.win_rate("a") == 0.5 and pool.results("a") == Results(0, 0, 0, 0)
    for result in ["win", "win", "loss", "draw", "win"]:
        pool.record("a", result)
    pool.record("b", "loss")
    assert pool.results("a") == Results(5, 3, 1, 1) and pool.results("b") == Results(1, 0, 1, 0)
    assert pool.win_rate("a") == pytest.approx((3 + 0.5 + 1) / (5 + 2))
    assert pool.win_rate("b") == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="unknown result 'tie'"):
        pool.record("a", "tie")
    with pytest.raises(KeyError, match="'c'"):
        pool.record("c", "win")
    assert pool.results("a").games == 5


# -- sampling --------------------------------------------------------------------------------------
def test_each_rule_gives_the_documented_probabilities() -> None:
    pool = OpponentPool()
    pool.add("chase", "ghost", name="old", generation=5)
    pool.add("random", "ghost", name="new", generation=9)
    pool.add("minimax", "ghost", name="late", generation=2)
    pool.add("random", "agent")
    assert pool.probabilities("ghost", "latest").tolist() == [0.0, 1.0, 0.0]
    assert pool.probabilities("ghost", "uniform") == pytest.approx([1 / 3] * 3)
    for _ in range(3):
        pool.record("old", "win")  # win rate (3 + 0.5) / 4
    pool.record("new", "loss")  # win rate 0.5 / 2
    weights = np.array([1 - 3.5 / 4, 1 - 0.25, 1 - 0.5]) ** 2
    assert pool.probabilities("ghost", "prioritised") == pytest.approx(weights / weights.sum())
    assert pool.probabilities("ghost", "prioritised", exponent=0) == pytest.approx([1 / 3] * 3)
    assert pool.probabilities("agent", "latest").tolist() == [1.0]
    # recent: the window's highest generations alike (new 9, old 5; then late 2), all when fewer
    assert pool.probabilities("ghost", "recent", window=2).tolist() == [0.5, 0.5, 0.0]
    assert pool.probabilities("ghost", "recent", window=1).tolist() == pool.probabilities("ghost", "latest").tolist()
    assert pool.probabilities("ghost", "recent", window=5) == pytest.approx([1 / 3] * 3)
    assert pool.probabilities("ghost", "recent") == pytest.approx([1 / 3] * 3)  # window 3 by default
    pool.add("chase", "ghost", name="tied", generation=9)  # among equal generations, the last added ranks higher
    assert pool.probabilities("ghost", "recent", window=1).tolist() == [0.0, 0.0, 0.0, 1.0]
    assert pool.probabilities("ghost", "recent", window=3).tolist() == [1 / 3, 1 / 3, 0.0, 1 / 3]


@pytest.mark.slow  # a second or more: .ci/run runs the slow group
@pytest.mark.parametrize("rule", SAMPLING_RULES)
def test_draws_follow_the_rule_and_repeat_with_the_seed(rule: str) -> None:
    pool = OpponentPool()
    for policy in ("chase", "random", "minimax", "chase"):
        pool.add(policy, "ghost")
    for name, wins in (("ghost-0", 4), ("ghost-1", 1), ("ghost-2", 0)):
        for _ in range(wins):
            pool.record(name, "win")
    pool.record("ghost-3", "loss")
    draws = [pool.sample("ghost", np.random.default_rng(11), rule).name for _ in range(1)]
    rng = np.random.default_rng(5)
    names = [pool.sample("ghost", rng, rule).name for _ in range(20_000)]
    again = np.random.default_rng(5)
    assert names[:200] == [pool.sample("ghost", again, rule).name for _ in range(200)]
    assert draws == [pool.sample("ghost", np.random.default_rng(11), rule).name]
    frequencies = np.array([names.count(f"ghost-{i}") for i in range(4)]) / len(names)
    # binomial standard deviation at most 0.0036 over 20,000 draws: 0.012 is more than three of them
    assert np.abs(frequencies - pool.probabilities("ghost", rule)).max() < 0.012


def test_sampling_refuses_bad_arguments() -> None:
    pool = OpponentPool()
    pool.add("chase", "ghost")
    with pytest.raises(ValueError, match="unknown rule 'best'"):
        pool.probabilities("ghost", "best")
    with pytest.raises(ValueError, match="exponent"):
        pool.probabilities("ghost", "prioritised", exponent=-1)
    with pytest.raises(ValueError, match="window must be an int >= 1, got 0"):
        pool.probabilities("ghost", "recent", window=0)
    with pytest.raises(TypeError, match="window"):
        pool.sample("ghost", np.random.default_rng(0), "recent", window=1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="window"):
        SelfPlayEnv(pool, obs_type="vector", rule="recent", window=True)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no snapshot of the agent"):
        pool.sample("agent", np.random.default_rng(0))
    with pytest.raises(TypeError, match=r"rng must be a numpy.random.Generator"):
        pool.sample("ghost", 3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="side"):
        pool.snapshots("pacman")


# -- the env ---------------------------------------------------------------------------------------
def test_the_stream_is_distinct_from_the_others() -> None:
    assert len({SELFPLAY_STREAM, OPENING_STREAM, OPPONENT_STREAM, FILTER_STREAM, MAP_STREAM}) == 5


def play(env: GridGhostGymEnv, seed: int | None, actions: np.random.Generator, team: int = 0) -> list:
    """One episode with actions drawn from ``actions`` (a team's ``team`` moves at once, when
    given): its observations, rewards, ends and info."""
    trace = []
    observation, info = env.reset(seed=seed)
    trace.append((observation.tolist(), info.get("opponent")))
    done = False
    while not done:
        action = actions.integers(4, size=team) if team else int(actions.integers(4))
        observation, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
        trace.append((observation.tolist(), reward, terminated, truncated, info["is_success"]))
    return trace


def test_the_opponent_is_drawn_per_reset_from_the_seeded_stream_and_named_in_info() -> None:
    pool = OpponentPool()
    for policy in ("chase", "random", "minimax"):
        pool.add(policy, "ghost")
    env = SelfPlayEnv(pool, obs_type="vector")
    named = []
    for seed in range(12):
        _, info = env.reset(seed=seed)
        stream = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(SELFPLAY_STREAM,)))
        expected = pool.sample("ghost", stream)
        assert pool.snapshots("ghost")[info["opponent"]] is expected is env.opponent
        named.append(env.opponent.name)
    assert len(set(named)) == 3
    one, two = SelfPlayEnv(pool, obs_type="vector"), SelfPlayEnv(pool, obs_type="vector")
    first = [play(one, 4 if i == 0 else None, np.random.default_rng(i)) for i in range(6)]
    second = [play(two, 4 if i == 0 else None, np.random.default_rng(i)) for i in range(6)]
    assert first == second


def test_the_draw_does_not_shift_the_games_or_the_opponents_draws() -> None:
    pool = OpponentPool()
    pool.add("random", "ghost")
    selfplay = SelfPlayEnv(pool, obs_type="vector", slip_probability=0.3, max_cycles=30)
    plain = GridGhostGymEnv(opponent="random", obs_type="vector", slip_probability=0.3, max_cycles=30)
    for seed in (0, 1, None, None):
        ours, theirs = play(selfplay, seed, np.random.default_rng(9)), play(plain, seed, np.random.default_rng(9))
        assert ours[0][1] == 0 and selfplay.opponent.name == "ghost-0"
        assert [ours[0][0], *ours[1:]] == [theirs[0][0], *theirs[1:]]


def test_finished_episodes_are_counted_as_the_learner_saw_them() -> None:
    pool = OpponentPool()
    pool.add("chase", "ghost")
    pool.add("random", "ghost")
    env = SelfPlayEnv(pool, rule="prioritised", obs_type="vector", max_cycles=6)
    counted = {name: [0, 0, 0] for name in ("ghost-0", "ghost-1")}
    actions, optimal = np.random.default_rng(3), OptimalAgent()
    for episode in range(60):
        _, info = env.reset(seed=episode)
        name, index, done = env.opponent.name, info["opponent"], False
        while not done:  # the optimal agent's moves, but for a random one now and then
            action = optimal(env.game.agent_pos, env.game.ghost_pos) if actions.random() < 0.5 else actions.integers(4)
            _, _, terminated, truncated, info = env.step(int(action))
            assert info["opponent"] == index and env.opponent.name == name
            done = terminated or truncated
        counted[name][0 if info["is_success"] else 1 if terminated else 2] += 1
    for name, (wins, losses, draws) in counted.items():
        assert pool.results(name) == Results(wins + losses + draws, wins, losses, draws)
    assert all(sum(column) > 0 for column in zip(*counted.values(), strict=True))  # wins, losses and draws
    env.reset(seed=99)  # an episode left unfinished is not counted
    assert sum(pool.results(name).games for name in counted) == 60


def test_a_learning_ghost_draws_agents_and_wins_by_catching() -> None:
    pool = OpponentPool()
    pool.add("random", "agent")
    env = SelfPlayEnv(pool, controlled="ghost", obs_type="vector")
    _, info = env.reset(seed=0)
    assert info["opponent"] == 0 and env.opponent.name == "agent-0"
    play(env, 1, np.random.default_rng(0))
    assert pool.results("agent-0").games == 1


def test_tabulated_opponents_play_from_their_tables() -> None:
    game = solve_game(CLASSIC)
    pool = OpponentPool()
    pool.add(one_hot(game.ghost_policy), "ghost")
    tabulated = SelfPlayEnv(pool, obs_type="vector")
    planner = GridGhostGymEnv(opponent=MinimaxGhost(), obs_type="vector", max_cycles=100)
    for seed in range(3):
        ours = play(tabulated, seed, np.random.default_rng(seed))
        assert ours[1:] == play(planner, seed, np.random.default_rng(seed))[1:]
    # a stochastic table: the ghost moves only left or right, and the same seed replays it
    sideways = np.zeros(SHAPE)
    sideways[..., 0] = sideways[..., 2] = 0.5
    pool = OpponentPool()
    pool.add(sideways, "ghost")
    env = SelfPlayEnv(pool, obs_type="vector", slip_probability=0.0, max_cycles=30)
    moves = set()
    for seed in range(5):
        env.reset(seed=seed)
        done = False
        while not done:
            before = env.game.ghost_pos
            _, _, terminated, truncated, _ = env.step(2 if seed % 2 else 0)
            moves.add((env.game.ghost_pos[0] - before[0], env.game.ghost_pos[1] - before[1]))
            done = terminated or truncated
    assert {move[0] for move in moves} == {0} and {-1, 1} <= {move[1] for move in moves}
    assert play(env, 8, np.random.default_rng(1)) == play(env, 8, np.random.default_rng(1))


# -- exploring starts ------------------------------------------------------------------------------
def test_without_exploring_starts_every_episode_begins_at_the_maps_starts() -> None:
    pool = OpponentPool()
    pool.add("random", "ghost")
    plain, explicit = SelfPlayEnv(pool, obs_type="vector"), SelfPlayEnv(pool, obs_type="vector", explore_starts=0.0)
    for seed in (0, 1, None):
        assert play(plain, seed, np.random.default_rng(5)) == play(explicit, seed, np.random.default_rng(5))
    for seed in range(5):
        explicit.reset(seed=seed)
        assert (explicit.game.agent_pos, explicit.game.ghost_pos) == (CLASSIC.agent_start, CLASSIC.ghost_start)
        assert explicit.opening == 0


@pytest.mark.parametrize("controlled", ["agent", "ghost"])
def test_exploring_starts_begin_after_a_seeded_random_opening_that_is_not_counted(controlled: str) -> None:
    pool = OpponentPool()
    pool.add("chase" if controlled == "agent" else "random", "ghost" if controlled == "agent" else "agent")
    opponent = pool.snapshots()[0].name
    env = SelfPlayEnv(pool, controlled=controlled, obs_type="vector", explore_starts=1.0, explore_turns=6)
    starts, lengths = set(), set()
    for seed in range(20):
        observation, info = env.reset(seed=seed)
        assert 1 <= env.opening <= 6 and info["opponent"] == 0 and info["is_success"] is False
        assert observation.tolist() == env.game.observe(controlled).tolist()  # where the opening left the game
        assert env.game.cycles >= env.opening - (controlled == "ghost")  # its moves count towards max_cycles
        starts.add((env.game.agent_pos, env.game.ghost_pos))
        lengths.add(env.opening)
        assert pool.results(opponent).games == seed  # the opening's games are never counted
        play(env, None, np.random.default_rng(seed))  # ...the learner's are, once each
        assert pool.results(opponent).games == seed + 1
    assert len(starts) > 5 and len(lengths) > 3
    again = SelfPlayEnv(pool, controlled=controlled, obs_type="vector", explore_starts=1.0, explore_turns=6)
    assert play(env, 3, np.random.default_rng(1)) == play(again, 3, np.random.default_rng(1))


def test_the_env_draws_from_its_window_of_recent_snapshots() -> None:
    pool = OpponentPool()
    for policy in ("chase", "random", "minimax", "chase"):
        pool.add(policy, "ghost")
    env = SelfPlayEnv(pool, obs_type="vector", rule="recent", window=2)
    drawn = set()
    for seed in range(40):
        env.reset(seed=seed)
        drawn.add(env.opponent.name)
    assert drawn == {"ghost-2", "ghost-3"} and env.window == 2


def test_a_fraction_of_the_episodes_explore_and_the_opponent_draw_is_unshifted() -> None:
    pool = OpponentPool()
    for policy in ("chase", "random", "minimax"):
        pool.add(policy, "ghost")
    exploring = SelfPlayEnv(pool, obs_type="vector", explore_starts=0.5)
    plain = SelfPlayEnv(pool, obs_type="vector")
    openings = []
    for seed in range(40):
        assert exploring.reset(seed=seed)[1]["opponent"] == plain.reset(seed=seed)[1]["opponent"]
        openings.append(exploring.opening)
    assert 10 <= sum(opening > 0 for opening in openings) <= 30


def test_an_opening_the_game_never_survives_falls_back_to_the_maps_starts() -> None:
    pool = OpponentPool()
    pool.add("chase", "ghost")
    # a cycle limit of 1 ends every opening (each is one move, answered by the ghost)
    env = SelfPlayEnv(pool, obs_type="vector", explore_starts=1.0, explore_turns=1, max_cycles=1)
    env.reset(seed=0)
    assert env.opening == 0 and env.game.cycles == 0  # every attempt ended: the map's starts
    assert OPENING_ATTEMPTS >= 1 and pool.results("ghost-0").games == 0
    _, _, terminated, truncated, _ = env.step(0)  # ... and the learner plays a game of its own from there
    assert terminated or truncated
    assert pool.results("ghost-0").games == 1


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"explore_starts": 1.5}, ValueError, "explore_starts"),
    ({"explore_starts": -0.1}, ValueError, "explore_starts"),
    ({"explore_starts": "0.5"}, TypeError, "explore_starts"),
    ({"explore_starts": float("nan")}, ValueError, "explore_starts"),
    ({"explore_turns": 0}, ValueError, "explore_turns"),
    ({"explore_turns": 2.0}, TypeError, "explore_turns"),
    ({"explore_turns": True}, TypeError, "explore_turns"),
])
def test_bad_exploring_starts_are_refused_naming_the_argument(kwargs: dict, error: type, message: str) -> None:
    pool = OpponentPool()
    pool.add("chase", "ghost")
    with pytest.raises(error, match=message):
        SelfPlayEnv(pool, obs_type="vector", **kwargs)


def test_the_env_refuses_what_it_cannot_play() -> None:
    pool = OpponentPool()
    with pytest.raises(ValueError, match="no snapshot of the ghost"):
        SelfPlayEnv(pool)
    with pytest.raises(TypeError, match="pool must be"):
        SelfPlayEnv("chase")  # type: ignore[arg-type]
    pool.add("chase", "ghost")
    with pytest.raises(TypeError, match="no opponent="):
        SelfPlayEnv(pool, opponent="random")
    with pytest.raises(ValueError, match="unknown rule"):
        SelfPlayEnv(pool, rule="newest")
    with pytest.raises(ValueError, match="unknown controlled"):
        SelfPlayEnv(pool, controlled="both")
    pool.add(uniform_table(), "ghost", name="table")
    with pytest.raises(ValueError, match=r"'table' is tabulated for one map.*names, classes"):
        SelfPlayEnv(pool, difficulty=2)
    with pytest.raises(ValueError, match=r"'table' is tabulated for a \(4, 5\) map"):
        SelfPlayEnv(pool, layout=gridghost.MapGenerator(6, 6, num_levels=2).level(0))


def test_a_map_generator_plays_names_and_refuses_a_table_added_later() -> None:
    pool = OpponentPool()
    pool.add("chase", "ghost")
    pool.add("minimax", "ghost")
    env = SelfPlayEnv(pool, difficulty=2, obs_type="vector", rule="latest")
    _, info = env.reset(seed=0)
    assert info["opponent"] == 1 and env.opponent.name == "ghost-1" and env.layout.shape == (6, 6)
    pool.add(np.full((6, 6, 6, 6, 4), 0.25), "ghost", name="table")
    with pytest.raises(ValueError, match="'table' is tabulated for one map"):
        env.reset(seed=1)


# -- ratings ---------------------------------------------------------------------------------------
def test_a_75_percent_score_is_about_191_elo() -> None:
    ratings = elo_ratings([[0, 30], [10, 0]])
    assert ratings[0] - ratings[1] == pytest.approx(400 * math.log10(3), abs=1e-6)  # 190.85
    assert ratings.sum() == pytest.approx(0.0, abs=1e-9)
    assert expected_score(ratings[0], ratings[1]) == pytest.approx(0.75)


def test_symmetric_results_give_equal_ratings() -> None:
    assert elo_ratings([[0, 2, 1], [2, 0, 1], [1, 1, 0]]) == pytest.approx([0, 0, 0], abs=1e-6)


def test_scores_made_from_ratings_give_them_back() -> None:
    truth = np.array([-150.0, 0.0, 250.0])
    expected = np.array([[expected_score(a, b) if a != b else 0.0 for b in truth] for a in truth])
    fitted = elo_ratings(100 * expected)
    assert fitted == pytest.approx(truth - truth.mean(), abs=1e-4)


def test_ratings_without_a_fit_need_a_prior() -> None:
    with pytest.raises(ValueError, match=r"player 1 never took a point.*prior > 0"):
        elo_ratings([[0, 3], [0, 0]])
    ratings = elo_ratings([[0, 3], [0, 0]], prior=2)  # 4 of 5 points with one virtual draw each way
    assert ratings[0] - ratings[1] == pytest.approx(400 * math.log10(4), abs=1e-6)


@pytest.mark.parametrize(("scores", "error", "message"), [
    ([[0, 1, 2]], ValueError, "square"),
    ([[0, -1], [1, 0]], ValueError, ">= 0"),
    ([[1, 1], [1, 0]], ValueError, "diagonal"),
    ([["a", 1], [1, 0]], TypeError, "real numbers"),
])
def test_bad_score_tables_are_refused(scores: list, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        elo_ratings(scores)


# -- the exploitability curve ----------------------------------------------------------------------
def test_the_curve_is_the_solvers_exploitability_and_zero_at_the_minimax_pair() -> None:
    game = solve_game(CLASSIC)
    pool = OpponentPool()
    minimax_agent = pool.add(one_hot(game.agent_policy), "agent")
    minimax_ghost = pool.add(one_hot(game.ghost_policy), "ghost")
    random_agent = pool.add(uniform_table(), "agent")
    chase = pool.add("chase", "ghost")
    chase_object = pool.add(ChasePolicy(), "ghost")  # a policy of observations: tabulated
    named = pool.add("minimax", "ghost")
    pairs = [(minimax_agent, minimax_ghost), (random_agent, chase), (random_agent, chase_object),
             (minimax_agent, chase), (random_agent, named)]
    curve = exploitability_curve(pairs, obs_type="dict")
    expected = [exploitability(one_hot(game.agent_policy), one_hot(game.ghost_policy)),
                exploitability(uniform_table(), "chase"), exploitability(uniform_table(), "chase"),
                exploitability(one_hot(game.agent_policy), "chase"), exploitability(uniform_table(), MinimaxGhost)]
    assert curve.exploitability == pytest.approx(expected, abs=1e-9)
    assert abs(curve.exploitability[0]) < 1e-6 and curve.exploitability[1] > 10
    assert curve.agent_gap + curve.ghost_gap == pytest.approx(curve.exploitability, abs=1e-6)
    assert curve.minimax_value == pytest.approx(game.value(CLASSIC.agent_start, CLASSIC.ghost_start))


def test_the_curve_takes_the_game_as_the_solver_does() -> None:
    pool = OpponentPool()
    pairs = [(pool.add(uniform_table(), "agent"), pool.add(ChasePolicy(), "ghost"))]
    kernel = gridghost.env(slip="perpendicular", slip_probability=0.3).config.game()
    by_game = exploitability_curve(pairs, obs_type="dict", game=kernel)
    assert by_game.exploitability[0] == pytest.approx(exploitability(uniform_table(), "chase", game=kernel), abs=1e-9)
    # another slip model is another game: the curve follows the game it was given
    assert by_game.exploitability[0] != pytest.approx(exploitability_curve(pairs, obs_type="dict").exploitability[0])


def test_the_curve_refuses_what_it_cannot_judge_naming_the_pair() -> None:
    pool = OpponentPool()
    agent, ghost = pool.add("random", "agent"), pool.add("chase", "ghost")

    class Reference:
        def __init__(self, action_space: object) -> None:
            self.action_space = action_space

        def get_action(self, observation: object) -> int:
            return 0

    built = pool.add(Reference, "ghost")
    wrong_map = pool.add(np.full((6, 6, 6, 6, 4), 0.25), "ghost")
    with pytest.raises(ValueError, match=r"pairs\[0\] must be \(agent snapshot, ghost snapshot\)"):
        exploitability_curve([(ghost, agent)])
    with pytest.raises(TypeError, match=r"pairs\[1\] must be a tuple"):
        exploitability_curve([(agent, ghost), (agent,)])
    with pytest.raises(ValueError, match=r"pairs\[0\]\[1\] 'ghost-1' is the class Reference.*cannot be tabulated"):
        exploitability_curve([(agent, built)])
    with pytest.raises(ValueError, match=r"pairs\[0\] \('agent-0', 'ghost-2'\).*shape"):
        exploitability_curve([(agent, wrong_map)])
    with pytest.raises(ValueError, match="layout must be one fixed map"):
        exploitability_curve([(agent, ghost)], layout=gridghost.MapGenerator(6, 6, num_levels=2))
    wrong_answer = pool.add(lambda observation: 7, "ghost", name="sevens")
    with pytest.raises(ValueError, match="'sevens' cannot be tabulated"):
        exploitability_curve([(agent, wrong_answer)])


def test_the_self_play_env_takes_a_whole_spec_as_it_is() -> None:
    """It added its max_cycles default beside a config=, which the env then refused."""
    pool = OpponentPool()
    pool.add("chase", "ghost")
    spec = gridghost.env(obs_type="vector", max_cycles=None).config
    for given in (dict(spec=spec), dict(config=spec)):
        assert SelfPlayEnv(pool, **given).config.to_dict() == spec.to_dict()
    assert SelfPlayEnv(pool, obs_type="vector").config.max_cycles == 100


# -- a team of ghosts learning against a pool of agents ----------------------------------------------
TEAM = {"layout": "team_eight", "ghosts": 2, "max_cycles": 20}


def _agent_tables() -> tuple[np.ndarray, np.ndarray]:
    """The team game's minimax agent and the agent's best response to two chasers, as the solver
    gives them: ``int64[5, 7, 5, 7, 5, 7]``, -1 where the game is over."""
    from gridghost.config import resolve
    from gridghost.planning import solve_agent

    spec = resolve(layout="team_eight", ghosts=2, rewards="normalised")
    return solve_game(spec=spec).agent_policy, solve_agent(ghost="chase", spec=spec).policy


def test_the_pool_keeps_the_solvers_agent_tables_of_a_team_as_one_hot_probabilities() -> None:
    minimax, _ = _agent_tables()
    snapshot = OpponentPool().add(minimax, "agent")
    table = snapshot.policy
    assert table.shape == (5, 7) * 3 + (4,) and not table.flags.writeable
    live = minimax >= 0
    np.testing.assert_array_equal(table[live].argmax(axis=-1), minimax[live])
    np.testing.assert_array_equal(table.sum(axis=-1), live.astype(float))  # all 0 where the game is over
    pool = OpponentPool()
    with pytest.raises(ValueError, match=r"policy must hold actions 0..3 \(-1 where the game is over\)"):
        pool.add(np.full((5, 7) * 3, 4), "agent")
    with pytest.raises(ValueError, match=r"policy must hold actions per state, shape \(rows, cols\) \* \(ghosts"):
        pool.add(np.zeros((5, 7, 5, 6), dtype=np.int64), "agent")
    assert len(pool) == 0


def test_a_team_learns_against_agents_drawn_per_episode_and_each_plays_its_table() -> None:
    minimax, best = _agent_tables()
    pool = OpponentPool()
    pool.add(minimax, "agent", name="minimax")
    pool.add(best, "agent", name="best-response")
    pool.add("random", "agent", name="random")
    env = SelfPlayEnv(pool, controlled="ghosts", **TEAM)
    assert env.action_space.shape == (2,) and env.observation_space.shape == (2, 29)
    aec, moves, named, checked = env.game, np.random.default_rng(0), [], 0
    for seed in range(12):
        _, info = env.reset(seed=seed)
        stream = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(SELFPLAY_STREAM,)))
        assert pool.snapshots("agent")[info["opponent"]] is pool.sample("agent", stream) is env.opponent
        named.append(env.opponent.name)
        table = {"minimax": minimax, "best-response": best}.get(env.opponent.name)
        decisions = [((aec.layout.agent_start, *aec.layout.ghost_starts[:2]), info["intended_action"])]
        done = False
        while not done:
            agent = aec.game_state.agent
            _, _, terminated, truncated, info = env.step(moves.integers(4, size=2))
            if info["mover"] == 0:  # the agent answered the team's move
                cells = (agent, *aec.game_state.ghosts)
                decisions.append((tuple(aec.board.position(cell) for cell in cells), info["intended_action"]))
            done = terminated or truncated
        for cells, intended in decisions if table is not None else ():
            assert intended == table[tuple(coordinate for cell in cells for coordinate in cell)]
            checked += 1
    assert set(named) == {"minimax", "best-response", "random"} and checked > 20
    assert sum(pool.results(snapshot.name).games for snapshot in pool.snapshots("agent")) == 12
    # the same seed, the same opponents and games; reset() without a seed continues the stream
    one, two = (SelfPlayEnv(pool, controlled="ghosts", **TEAM) for _ in range(2))
    first = [(play(one, 4 if i == 0 else None, np.random.default_rng(i), 2), one.opponent.name) for i in range(6)]
    second = [(play(two, 4 if i == 0 else None, np.random.default_rng(i), 2), two.opponent.name) for i in range(6)]
    assert first == second and len({name for _, name in first}) > 1
    other = [(play(two, 5 if i == 0 else None, np.random.default_rng(i), 2), two.opponent.name) for i in range(6)]
    assert other != first


def test_a_teams_random_opening_is_played_in_team_moves() -> None:
    pool = OpponentPool()
    pool.add(_agent_tables()[0], "agent")
    env = SelfPlayEnv(pool, controlled="ghosts", explore_starts=1.0, explore_turns=3, **TEAM)
    openings = []
    for seed in range(6):
        observation, _ = env.reset(seed=seed)
        openings.append(env.opening)
        assert observation.shape == (2, 29) and env.game.cycles == env.opening  # each a move of both ghosts
    assert 0 < max(openings) <= 3


def test_a_team_pool_refuses_the_tables_its_game_cannot_play() -> None:
    minimax, _ = _agent_tables()
    one_ghost = solve_game(gridghost.maps.load("team_eight"))
    cases = [
        (one_ghost.agent_policy, "agent", "ghosts",
         r"'table' is tabulated for a \(5, 7\) map and 1 ghost\(s\); the game is a \(5, 7\) map with 2"),
        (OptimalAgent.for_game(gridghost.GameSpec(layout=gridghost.maps.load("team_eight")).game()), "agent",
         "ghosts", "'table' is a StatePolicy of the one-ghost game; with 2 ghosts add the agent's table"),
        (minimax, "agent", "ghost", r"'table' is tabulated for a \(5, 7\) map and 2 ghost\(s\); the game is a "
                                    r"\(5, 7\) map with 1"),
        (np.zeros((5, 7) * 3 + (4,)), "ghost", "agent", "'table' is a table of the ghosts; a learning agent's team"),
    ]
    for policy, side, controlled, message in cases:
        pool = OpponentPool()
        pool.add(policy, side, name="table")
        settings = {**TEAM, "ghosts": 1} if controlled == "ghost" else TEAM
        with pytest.raises(ValueError, match=message):
            SelfPlayEnv(pool, controlled=controlled, **settings)


def test_the_ghosts_only_parallel_env_draws_its_agent_from_the_pool_as_the_gymnasium_view_does() -> None:
    from pettingzoo.test import parallel_api_test

    from gridghost.training import SelfPlayParallelEnv

    minimax, best = _agent_tables()
    pool = OpponentPool()
    pool.add(minimax, "agent", name="minimax")
    pool.add(best, "agent", name="best-response")
    parallel = SelfPlayParallelEnv(pool, obs_type="vector", rewards="normalised", **TEAM)
    parallel_api_test(parallel, num_cycles=60)
    gym = SelfPlayEnv(pool, controlled="ghosts", **TEAM)
    counted = sum(pool.results(name).games for name in ("minimax", "best-response"))
    moves = np.random.default_rng(1)
    for seed in (3, None, None, 8, None):
        observations, infos = parallel.reset(seed=seed)
        observation, info = gym.reset(seed=seed)
        assert parallel.opponent is gym.opponent and infos["ghost_1"]["opponent"] == info["opponent"]
        done = False
        while not done:  # the same games, state by state
            np.testing.assert_array_equal(np.stack([observations[name][:-1] for name in parallel.agents]), observation)
            action = moves.integers(4, size=2)
            observations, _, terminations, truncations, infos = parallel.step(dict(zip(parallel.agents, action.tolist(),
                                                                                       strict=True)))
            observation, _, terminated, truncated, info = gym.step(action)
            assert (terminated, truncated) == (terminations["ghost_0"], truncations["ghost_0"])
            assert infos["ghost_0"]["opponent"] == info["opponent"]
            done = terminated or truncated
        counted += 2  # one game each
    assert sum(pool.results(name).games for name in ("minimax", "best-response")) == counted
    with pytest.raises(ValueError, match="no snapshot of the agent"):
        SelfPlayParallelEnv(OpponentPool(), **TEAM)
    with pytest.raises(TypeError, match="SelfPlayParallelEnv draws its opponent from the pool; pass no opponent="):
        SelfPlayParallelEnv(pool, opponent="random", **TEAM)


def test_a_learning_agent_draws_whole_teams_from_the_pool() -> None:
    # each snapshot plays the whole team; with two chasers drawn, every ghost chases on its own
    pool = OpponentPool()
    pool.add("chase", "ghost")
    pool.add("random", "ghost")
    env = SelfPlayEnv(pool, obs_type="vector", **TEAM)
    aec, moves, chased = env.game, np.random.default_rng(2), 0
    for seed in range(8):
        env.reset(seed=seed)
        done = False
        while not done:
            before = aec.game_state
            _, _, terminated, truncated, info = env.step(int(moves.integers(4)))
            done = terminated or truncated
            after = aec.game_state
            if env.opponent.name == "ghost-0" and info["mover"] == 1:  # the team answered the agent's move
                answered = before._replace(agent=after.agent)  # the state the team moved from
                expected = [aec.board.next_cell[cell][move]
                            for cell, move in zip(before.ghosts, aec.kernel.chase_actions(answered), strict=True)]
                assert list(after.ghosts) == expected
                chased += 1
    assert chased > 5
    assert sum(pool.results(name).games for name in ("ghost-0", "ghost-1")) == 8
