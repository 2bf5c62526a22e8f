"""Tabular self-play: one table of action values learnt by both sides from their own games reaches
the minimax equilibrium (judged by the solver, which the learner never consults), reproducibly,
and every refused input."""

from __future__ import annotations

import numpy as np
import pytest

from gridghost.core.layout import CLASSIC, Layout
from gridghost.core.rules import Side
from gridghost.maps.levels import MapGenerator
from gridghost.planning import (
    StatePolicy,
    agent_exploitability,
    exploitability,
    ghost_exploitability,
    solve_agent,
    solve_game,
)
from gridghost.training.selfplay import OpponentPool, exploitability_curve
from gridghost.training.tabular import TabularSelfPlay

#: 1% of the normalised rewards' range (goal +1, caught -0.5).
BAR = 0.015


@pytest.fixture(scope="module")
def learnt() -> TabularSelfPlay:
    return TabularSelfPlay(CLASSIC, rewards="normalised", seed=0).learn(250_000)


def test_untrained_greedy_policies_are_far_from_the_equilibrium() -> None:
    fresh = TabularSelfPlay(CLASSIC, rewards="normalised", seed=0)
    assert exploitability(fresh.policy("agent"), fresh.policy("ghost"), layout=CLASSIC, rewards="normalised") > 0.1


@pytest.mark.parametrize("seed", [0, 1])
def test_self_play_reaches_the_minimax_equilibrium(seed: int) -> None:
    learner = TabularSelfPlay(CLASSIC, rewards="normalised", seed=seed).learn(250_000)
    pool = OpponentPool()
    pair = pool.add(learner.policy("agent"), "agent"), pool.add(learner.policy("ghost"), "ghost")
    curve = exploitability_curve([pair], layout=CLASSIC, rewards="normalised")
    assert curve.exploitability[0] < BAR
    assert curve.agent_gap[0] >= -1e-9 and curve.ghost_gap[0] >= -1e-9


def test_the_learnt_values_are_the_games_minimax_values_where_play_goes(learnt: TabularSelfPlay) -> None:
    solved = solve_game(layout=CLASSIC, rewards="normalised")
    (ar, ac), (gr, gc) = CLASSIC.agent_start, CLASSIC.ghost_start
    np.testing.assert_allclose(learnt.q_values("agent")[ar, ac, gr, gc], solved.agent_q((ar, ac), (gr, gc)), atol=0.03)
    assert learnt.q_values("agent")[ar, ac, gr, gc].max() == pytest.approx(solved.value((ar, ac), (gr, gc)), abs=0.02)


@pytest.mark.slow  # a second or more: .ci/run runs the slow group
def test_both_tables_learn_the_solvers_action_values_with_its_discount_per_full_turn() -> None:
    """Random play for both sides (the updates are off-policy) with gamma 0.5, so that a discount
    in the wrong half-turn would show: every often-tried entry is the solver's."""
    learner = TabularSelfPlay(CLASSIC, rewards="normalised", epsilon=1.0, gamma=0.5, seed=2).learn(1_000_000)
    solved = solve_game(layout=CLASSIC, rewards="normalised", gamma=0.5)
    rows, cols = CLASSIC.shape
    for side, exact in (("agent", solved.agent_q), ("ghost", solved.ghost_q)):
        q, visits, errors = learner.q_values(side), learner.visits(side), []
        for agent in range(rows * cols):
            for ghost in range(rows * cols):
                cells = divmod(agent, cols), divmod(ghost, cols)
                tried = visits[cells[0] + cells[1]] >= 500
                if agent == ghost or CLASSIC.goals.count(cells[0]) or not tried.any():
                    continue
                errors.append(np.abs(q[cells[0] + cells[1]] - exact(*cells))[tried].max())
        assert len(errors) > 200
        assert np.median(errors) < 0.02 and max(errors) < 0.08, (side, np.median(errors), max(errors))


def test_a_batch_updates_an_entry_as_its_samples_would_one_after_another() -> None:
    """The batched step (several games sampling one entry at once) against the plain sequential rule."""
    learner = TabularSelfPlay(CLASSIC, num_games=4, seed=0)
    rng = np.random.default_rng(1)
    values, visits = rng.normal(size=(400, 4)), rng.integers(0, 3, size=(400, 4))
    learner._q["agent"][:], learner._visits["agent"][:] = values, visits
    states, moves, targets = rng.integers(0, 6, size=500), rng.integers(0, 2, size=500), rng.normal(size=500)
    for state, move, target in zip(states, moves, targets, strict=True):
        visits[state, move] += 1
        values[state, move] += visits[state, move] ** -0.6 * (target - values[state, move])
    learner._update("agent", states, moves, targets)
    np.testing.assert_allclose(learner._q["agent"], values, atol=1e-12)
    np.testing.assert_array_equal(learner._visits["agent"], visits)


def test_the_table_counts_every_sample(learnt: TabularSelfPlay) -> None:
    agent, ghost = learnt.visits("agent"), learnt.visits("ghost")
    assert learnt.turns == 250_368 and agent.sum() == learnt.turns  # one agent move per game and turn
    assert 0.8 * learnt.turns < ghost.sum() < learnt.turns  # none in the turns that end in the agent's half
    assert agent.shape == learnt.q_values("ghost").shape == (4, 5, 4, 5, 4)


def test_exploring_starts_reach_states_self_play_alone_does_not() -> None:
    def tried(explore_starts: float) -> int:
        learner = TabularSelfPlay(CLASSIC, rewards="normalised", epsilon=0.1, explore_starts=explore_starts, seed=0)
        return int((learner.learn(50_000).visits("agent") > 0).sum())

    assert tried(1.0) > 1.2 * tried(0.0)


def test_policies_are_greedy_state_policies_of_the_averaged_table(learnt: TabularSelfPlay) -> None:
    agent, ghost = learnt.policy("agent"), learnt.policy("ghost")
    assert isinstance(agent, StatePolicy) and agent.side == Side.AGENT and ghost.side == Side.GHOST
    q = learnt.q_values("ghost", averaged=True).reshape(20, 20, 4)
    np.testing.assert_array_equal(ghost.table, q.argmin(axis=2))
    averaged = learnt.q_values("agent", averaged=True).reshape(20, 20, 4)
    np.testing.assert_array_equal(agent.table, averaged.argmax(axis=2))
    live = learnt.q_values("agent").reshape(20, 20, 4).argmax(axis=2)
    assert not np.array_equal(agent.table, live)  # the average is not the live table's greedy pair


def test_without_averaging_the_policies_are_greedy_in_the_live_table() -> None:
    learner = TabularSelfPlay(CLASSIC, num_games=16, averaging=None, seed=0).learn(2_000)
    np.testing.assert_array_equal(learner.policy("ghost").table, learner.q_values("ghost").reshape(20, 20, 4).argmin(2))
    np.testing.assert_array_equal(learner.policy("agent").table, learner.q_values("agent").reshape(20, 20, 4).argmax(2))


@pytest.mark.parametrize("averaging", [0.0, 2.0, 5.5])
def test_the_average_is_polynomial_decay_averaging_of_the_live_tables_batch_by_batch(averaging: float) -> None:
    """After batch t the average moves (eta + 1) / (t + eta) of the way to the live table; eta = 0
    is the plain mean of every batch's table."""
    learner = TabularSelfPlay(CLASSIC, num_games=8, averaging=averaging, seed=0)
    expected = {side: learner.q_values(side) for side in ("agent", "ghost")}
    lives = []
    for t in range(1, 7):
        learner.learn(8)  # one batch
        for side in expected:
            live = learner.q_values(side)
            expected[side] += (averaging + 1) / (t + averaging) * (live - expected[side])
            if side == "agent":
                lives.append(live)
        for side in expected:
            np.testing.assert_allclose(learner.q_values(side, averaged=True), expected[side], atol=1e-12)
    if averaging == 0.0:
        np.testing.assert_allclose(learner.q_values("agent", averaged=True), np.mean(lives, axis=0), atol=1e-12)
    assert not np.array_equal(learner.q_values("agent", averaged=True), learner.q_values("agent"))


def test_a_seed_fixes_everything_and_seeds_differ() -> None:
    layout = MapGenerator(6, 6, difficulty=2).level(0)
    runs = [TabularSelfPlay(layout, num_games=64, seed=seed).learn(20_000).q_values("agent") for seed in (5, 5, 6)]
    np.testing.assert_array_equal(runs[0], runs[1])
    assert not np.array_equal(runs[0], runs[2])


def test_the_learner_reads_the_reward_scale() -> None:
    reference = TabularSelfPlay(CLASSIC, seed=3).learn(20_000).q_values("agent")
    normalised = TabularSelfPlay(CLASSIC, rewards="normalised", seed=3).learn(20_000).q_values("agent")
    assert np.abs(reference).max() > 50 * np.abs(normalised).max() > 0


@pytest.mark.parametrize(("settings", "error", "message"), [
    ({"layout": MapGenerator(6, 6, difficulty=2)}, TypeError, "layout"),
    ({"num_games": 0}, ValueError, "num_games"),
    ({"num_games": 2.5}, TypeError, "num_games"),
    ({"epsilon": 1.5}, ValueError, "epsilon"),
    ({"explore_starts": -0.1}, ValueError, "explore_starts"),
    ({"explore_starts": "all"}, TypeError, "explore_starts"),
    ({"step_exponent": 0.5}, ValueError, r"step_exponent must lie in \(0.5, 1\]"),
    ({"step_exponent": 1.5}, ValueError, "step_exponent"),
    ({"gamma": 1.0}, ValueError, r"gamma must lie in \(0, 1\)"),
    ({"averaging": -0.5}, ValueError, "averaging must be a finite number >= 0 or None, got -0.5"),
    ({"averaging": float("nan")}, ValueError, "averaging must be a finite number >= 0 or None"),
    ({"averaging": "polyak"}, TypeError, "averaging must be a finite number >= 0 or None, got 'polyak'"),
    ({"averaging": True}, TypeError, "averaging must be a finite number >= 0 or None"),
    ({"seed": -1}, ValueError, "seed"),
    ({"rewards": "generous"}, ValueError, "rewards"),
])
def test_bad_settings_are_refused_by_name(settings, error, message) -> None:
    arguments = {"layout": CLASSIC, **settings}
    layout = arguments.pop("layout")
    with pytest.raises(error, match=message):
        TabularSelfPlay(layout, **arguments)


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda learner: learner.learn(0), ValueError, "turns"),
    (lambda learner: learner.learn(1.5), TypeError, "turns"),
    (lambda learner: learner.policy("pacman"), ValueError, "side"),
    (lambda learner: learner.q_values("both"), ValueError, "side"),
    (lambda learner: learner.visits(None), ValueError, "side"),
    (lambda learner: learner.q_values("agent", averaged=1), TypeError, "averaged must be a bool"),
])
def test_bad_calls_are_refused_by_name(call, error, message) -> None:
    learner = TabularSelfPlay(CLASSIC, num_games=4, seed=0)
    with pytest.raises(error, match=message):
        call(learner)
    assert learner.turns == 0


def test_a_learner_without_an_average_refuses_to_give_one() -> None:
    learner = TabularSelfPlay(CLASSIC, num_games=4, averaging=None, seed=0)
    with pytest.raises(ValueError, match="needs an averaged table; this learner was built with averaging=None"):
        learner.q_values("agent", averaged=True)


@pytest.mark.slow  # a second or more: .ci/run runs the slow group
def test_the_selfplay_levels_benchmark_judges_the_tabular_learner_exactly(tmp_path) -> None:
    import contextlib
    import io
    import json

    from helpers import load_script

    module = load_script("benchmarks/selfplay_levels.py")
    out = tmp_path / "selfplay.json"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        module.main(["--difficulties", "2", "--levels", "0", "--generations", "2", "--turns", "300000",
                     "--out", str(out)])
    (level,) = json.loads(out.read_text())["levels"]
    layout = MapGenerator(6, 6, difficulty=2).level(0)
    assert level["minimax_value"] == pytest.approx(solve_game(layout=layout, rewards="normalised").value(
        layout.agent_start, layout.ghost_start), abs=1e-9)
    first, second = level["generations"]
    assert (first["learner"], first["turns"], second["turns"]) == ("both", 300_032, 600_064)
    # The stored figures are the solver's judgement of the same seed's learner, recomputed here.
    learner = TabularSelfPlay(layout, seed=0, **module.TABULAR).learn(300_000).learn(300_000)
    agent_gap = agent_exploitability(learner.policy("agent"), layout=layout, rewards="normalised")
    ghost_gap = ghost_exploitability(learner.policy("ghost"), layout=layout, rewards="normalised")
    assert (second["agent_gap"], second["ghost_gap"]) == pytest.approx((agent_gap, ghost_gap), abs=1e-9)
    assert second["exploitability"] == pytest.approx(second["agent_gap"] + second["ghost_gap"])
    assert level["final"] == second["exploitability"] and level["best"] == min(first["exploitability"],
                                                                               second["exploitability"])
    assert "difficulty 2:" in printed.getvalue()
    assert "of 1 levels end under 1% of the reward range" in printed.getvalue()


# -- a team of ghosts ----------------------------------------------------------------------------------
#: Two goals at the ends of a corridor, the agent between them and a ghost below each: one ghost
#: cannot guard both goals, two that split them catch the agent in 9 games of 10.
PASS = Layout.from_text("""
+---+---+---+---+---+
| *   .   A   .   * |
+   +---+   +---+   +
| G   .   .   .   G1|
+---+---+---+---+---+
""")


@pytest.fixture(scope="module")
def team() -> TabularSelfPlay:
    return TabularSelfPlay(PASS, ghosts=2, rewards="normalised", seed=0).learn(400_000)


def test_team_self_play_reaches_the_team_games_equilibrium(team: TabularSelfPlay) -> None:
    """The pair is the solver's: nothing to gain for either side against an exact best response,
    and the learnt value of the start is the team game's (the agent caught in 9 games of 10)."""
    fresh = TabularSelfPlay(PASS, ghosts=2, rewards="normalised", num_games=8, seed=0)
    untrained = exploitability_curve([(fresh.policy("agent"), fresh.policy("ghosts"))], layout=PASS,
                                     rewards="normalised", ghosts=2)
    assert untrained.exploitability[0] > 1.0
    curve = exploitability_curve([(team.policy("agent"), team.policy("ghosts"))], layout=PASS, rewards="normalised",
                                 ghosts=2)
    solved = solve_game(layout=PASS, rewards="normalised", ghosts=2)
    assert curve.minimax_value == pytest.approx(solved.value(*solved.start)) == pytest.approx(-0.3562, abs=1e-4)
    assert abs(curve.exploitability[0]) < 1e-9 and abs(curve.agent_gap[0]) < 1e-9 and abs(curve.ghost_gap[0]) < 1e-9
    (ar, ac), ((gr, gc), (hr, hc)) = solved.start
    learnt = team.q_values("agent", averaged=True)[ar, ac, gr, gc, hr, hc]
    assert learnt.max() == pytest.approx(solved.value(*solved.start), abs=0.02)


def test_a_teams_policies_are_the_solvers_tables(team: TabularSelfPlay) -> None:
    """The agent's moves and the team's joint moves over every state, -1 exactly where the game is
    over, as the solver's own policies hold them; each is greedy in the averaged table."""
    solved = solve_game(layout=PASS, rewards="normalised", ghosts=2)
    for side, exact, best in (("agent", solved.agent_policy, np.argmax), ("ghosts", solved.ghost_policy, np.argmin)):
        table = team.policy(side)
        assert table.shape == exact.shape == (2, 5) * 3 and table.dtype == np.int64
        np.testing.assert_array_equal(table == -1, np.asarray(exact) == -1)
        q = team.q_values(side, averaged=True)
        assert q.shape == (2, 5) * 3 + ((4,) if side == "agent" else (16,))
        np.testing.assert_array_equal(table[table >= 0], best(q, axis=-1)[table >= 0])
    # the solver plays them: the team's table against the agent's exact best response, and back
    assert solve_agent(layout=PASS, ghost=team.policy("ghosts"), rewards="normalised", ghosts=2).value(
        *solved.start) == pytest.approx(solved.value(*solved.start), abs=1e-9)


def test_a_team_is_learnt_once_per_multiset_of_ghost_cells(team: TabularSelfPlay) -> None:
    """Swapping the two ghosts (and their moves) reads the same entry wherever they stand apart."""
    for side in ("agent", "ghosts"):
        q = team.q_values(side).reshape(10, 10, 10, -1)
        if side == "ghosts":  # joint move m0 + 4 * m1: swapping the ghosts swaps the digits
            swapped = q.reshape(10, 10, 10, 4, 4).transpose(0, 2, 1, 4, 3).reshape(10, 10, 10, 16)
        else:
            swapped = q.transpose(0, 2, 1, 3)
        apart = ~np.eye(10, dtype=bool)[None, :, :, None]
        np.testing.assert_array_equal(np.where(apart, q, 0.0), np.where(apart, swapped, 0.0))
        assert np.count_nonzero(q) > 1000  # learnt, not an empty table compared with itself


def test_a_teams_visits_count_every_sample_once_per_multiset() -> None:
    learner = TabularSelfPlay(PASS, ghosts=2, num_games=64, seed=1).learn(6_400)
    agent = learner.visits("agent")
    # each state of two ghosts apart appears in two orders; one on a shared cell in one
    shared = np.eye(10, dtype=bool)[None, :, :, None]
    once = np.where(shared, agent.reshape(10, 10, 10, 4), 0).sum() + np.where(
        shared, 0, agent.reshape(10, 10, 10, 4)).sum() // 2
    assert once == learner.turns == 6_400


def test_a_teams_average_is_polynomial_decay_averaging_batch_by_batch() -> None:
    """The average is kept lazily, entry by entry; read at any batch it is the eager average."""
    learner = TabularSelfPlay(PASS, ghosts=2, num_games=16, averaging=1.5, seed=0)
    expected = {side: learner.q_values(side) for side in ("agent", "ghosts")}
    for t in range(1, 9):
        learner.learn(16)
        for side in expected:
            expected[side] += 2.5 / (t + 1.5) * (learner.q_values(side) - expected[side])
        if t % 3 == 0 or t == 8:  # read now and then: reading brings every entry up to date
            for side in expected:
                np.testing.assert_allclose(learner.q_values(side, averaged=True), expected[side], atol=1e-12)
    assert np.abs(expected["ghosts"]).max() > 0


def test_a_team_seed_fixes_everything() -> None:
    runs = [TabularSelfPlay(PASS, ghosts=2, num_games=32, seed=seed).learn(3_000).q_values("ghosts")
            for seed in (4, 4, 5)]
    np.testing.assert_array_equal(runs[0], runs[1])
    assert not np.array_equal(runs[0], runs[2])


def test_three_ghosts_learn_on_one_table_of_64_joint_moves() -> None:
    three = Layout.from_text(PASS.to_text().replace("| G   .   .   .   G1|", "| G   .   G2  .   G1|"))
    learner = TabularSelfPlay(three, ghosts=3, num_games=64, seed=0).learn(2_000)
    assert learner.sides == ("agent", "ghosts")
    assert learner.q_values("ghosts").shape == (2, 5) * 4 + (64,)
    assert learner.policy("agent").shape == (2, 5) * 4
    assert learner.visits("ghosts").sum() > 0


def test_the_tables_memory_is_counted_before_anything_is_built() -> None:
    # 10 ** 3 states, 4 + 16 moves, 8 bytes each of a live value, a visit count, an average and its stamp
    assert TabularSelfPlay.table_bytes(PASS, 2) == 32 * 1000 * 20 == 640_000
    assert TabularSelfPlay.table_bytes(PASS, 2, averaged=False) == 320_000
    assert TabularSelfPlay.table_bytes(CLASSIC) == 32 * 400 * 8
    TabularSelfPlay(PASS, ghosts=2, num_games=4, max_bytes=640_000)
    with pytest.raises(ValueError, match=r"the tables of 2 ghost\(s\) on the 2 x 5 map .* \(1,000 states, 16 joint "
                                         r"moves\) would take 640,000 bytes, more than max_bytes=639,999"):
        TabularSelfPlay(PASS, ghosts=2, num_games=4, max_bytes=639_999)


@pytest.mark.parametrize(("settings", "error", "message"), [
    ({"ghosts": 0}, ValueError, "ghosts"),
    ({"ghosts": 5}, ValueError, "ghosts"),
    ({"ghosts": 2.0}, TypeError, "ghosts"),
    ({"ghosts": True}, TypeError, "ghosts"),
    ({"ghosts": 3}, ValueError, "ghosts=3 needs a map with 3 ghost starts; layout .* has 2"),
    ({"max_bytes": 0}, ValueError, "max_bytes"),
    ({"max_bytes": 1.5e9}, TypeError, "max_bytes"),
])
def test_bad_team_settings_are_refused_by_name(settings, error, message) -> None:
    with pytest.raises(error, match=message):
        TabularSelfPlay(PASS, **settings)


def test_a_one_ghost_map_is_refused_for_a_team() -> None:
    with pytest.raises(ValueError, match="ghosts=2 needs a map with 2 ghost starts; layout 'classic' has 1"):
        TabularSelfPlay(CLASSIC, ghosts=2)


@pytest.mark.parametrize(("ghosts", "side"), [(2, "ghost"), (1, "ghosts")])
def test_each_team_size_names_its_own_sides(ghosts: int, side: str) -> None:
    learner = TabularSelfPlay(PASS, ghosts=ghosts, num_games=4, seed=0)
    for call in (learner.policy, learner.q_values, learner.visits):
        with pytest.raises(ValueError, match=rf"unknown side '{side}'; accepted: \['agent', '{learner.sides[1]}'\]"):
            call(side)


def test_the_curve_judges_tables_beside_snapshots_and_refuses_anything_else() -> None:
    learner = TabularSelfPlay(CLASSIC, num_games=16, rewards="normalised", seed=0).learn(2_000)
    pool = OpponentPool()
    agent, ghost = pool.add(learner.policy("agent"), "agent"), pool.add(learner.policy("ghost"), "ghost")
    snapshots = exploitability_curve([(agent, ghost)], layout=CLASSIC, rewards="normalised")
    mixed = exploitability_curve([(agent, learner.policy("ghost")), (learner.policy("agent"), ghost)],
                                 layout=CLASSIC, rewards="normalised")
    assert snapshots.exploitability[0] > 0.1
    np.testing.assert_array_equal(mixed.exploitability, np.repeat(snapshots.exploitability, 2))
    with pytest.raises(TypeError, match=r"pairs\[0\] must be a tuple \(agent, ghost\) of Snapshots or tabulated "
                                        r"policies \(StatePolicy or arrays\), got \('random', "):
        exploitability_curve([("random", ghost)], layout=CLASSIC)
    with pytest.raises(ValueError, match=r"pairs\[0\] must be \(agent snapshot, ghost snapshot\), got the sides "
                                         r"\(ghost, ghost\) of 'ghost-0' and 'a table'"):
        exploitability_curve([(ghost, learner.policy("ghost"))], layout=CLASSIC)


@pytest.mark.slow  # minutes of learning: .ci/run runs the slow group
@pytest.mark.parametrize(("name", "generations"), [("team_eight", 4), ("team_crossroads", 9)])
def test_team_self_play_reaches_and_keeps_the_equilibrium_of_the_coordination_maps(name: str, generations: int) -> None:
    """The benchmark's run (seed 0, generations of 10,000,000 turns): the last three generations'
    pairs are all within 1% of the reward range of the team game's equilibrium."""
    import contextlib
    import io

    from helpers import load_script

    module = load_script("benchmarks/team_selfplay.py")
    with contextlib.redirect_stdout(io.StringIO()):
        run = module.run_map(name, generations, 10_000_000, 0)
    solved = solve_game(layout=module.load(name), rewards="normalised", ghosts=2)
    assert run["minimax_value"] == pytest.approx(solved.value(*solved.start), abs=1e-12)
    final = [row["exploitability"] for row in run["generations"][-3:]]
    assert max(final) < BAR, final
    assert min(min(row["agent_gap"], row["ghost_gap"]) for row in run["generations"]) > -1e-9


def test_the_self_play_page_quotes_the_stored_team_run() -> None:
    """Every row of the Self-play page's table of the team run is the stored run's (seed 0)."""
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    stored = json.loads((root / "benchmarks" / "results" / "team_selfplay.json").read_text())
    assert stored["settings"]["dirty"] is False and len(stored["settings"]["commit"]) == 40
    page = (root / "docs" / "selfplay.md").read_text()
    eight, crossroads = stored["maps"]
    assert (eight["name"], crossroads["name"]) == ("team_eight", "team_crossroads")
    for a, b in zip(eight["generations"], crossroads["generations"], strict=True):
        shares = [abs(100 * row["exploitability"] / stored["settings"]["reward_range"]) for row in (a, b)]
        row = (f"| {a['generation']} | {a['turns'] / 1e6:.1f}M | {a['cpu_seconds']:.0f} s | {shares[0]:.2f}% | "
               f"{b['cpu_seconds']:.0f} s | {shares[1]:.2f}% |")
        assert row in page, row
    assert max(row["exploitability"] for row in crossroads["generations"][6:]) < BAR
