"""The solver for a team of ghosts (gridghost.planning with a game of k ghosts): its values against a
brute-force value iteration over every joint move, the one-ghost solver at k = 1, the states stored
by multisets of ghost cells, best responses and exploitability, the memory budget, bad input, and
the team solver's deprecated names."""

from __future__ import annotations

import functools
import itertools
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import gridghost
from gridghost.core.game import Game
from gridghost.core.layout import CLASSIC, Layout
from gridghost.core.rules import GameState, Outcome, Side
from gridghost.core.slip import LongitudinalSlip, NoSlip
from gridghost.planning import (
    GameSolution,
    agent_exploitability,
    evaluate_policies,
    exploitability,
    ghost_exploitability,
    solve_agent,
    solve_game,
    solve_ghost,
)
from gridghost.planning.model import MAX_BYTES, TurnModel, model_bytes

from helpers import run_script

SLIP = LongitudinalSlip(0.2)
ROOT = Path(__file__).resolve().parent.parent


def where(team: Game, state: tuple[int, ...]) -> tuple[tuple[int, int], list[tuple[int, int]]]:
    """A state ``(agent cell, ghost cells...)`` as the solutions read it: positions."""
    cols = team.layout.cols
    return divmod(state[0], cols), [divmod(cell, cols) for cell in state[1:]]


def tiny(rows: int, cols: int, ghosts: list[tuple[int, int]], walls: bool = True) -> Layout:
    """A small map with a goal in the top-right corner and the agent in the bottom-left."""
    vertical = np.zeros((rows, cols - 1), dtype=bool)
    if walls and rows > 1 and cols > 2:
        vertical[0, 0] = True
    return Layout(np.zeros((rows, cols), int), goals=[(0, cols - 1)], agent_start=(rows - 1, 0),
                  ghost_start=ghosts, walls_vertical=vertical, name=f"tiny {rows}x{cols}")


def guarded_pair() -> Layout:
    """The shipped guarded map with a second ghost in the top-left corner (the Teams page's example)."""
    layout = gridghost.maps.load("guarded")
    data = layout.to_dict()
    data["ghost_start"] = [list(layout.ghost_start), [0, 0]]
    return Layout.from_dict(data)


# -- brute force --------------------------------------------------------------------------------------
def brute_force(team: Game, gamma: float, sweeps: int, event: Outcome | None = None,
                agent_policy: Any = None, team_policy: Any = None) -> dict[tuple[int, ...], float]:
    """Value iteration in plain Python over every state and every one of the 4^k joint moves,
    through Game.successors: the agent maximises and the team minimises, unless a policy
    (a function of the state index) is given; with ``event``, the probability of that outcome."""
    cells, k = team.num_cells, team.ghosts
    joints = [team.joint_actions(joint) for joint in range(4**k)]  # by joint index, ghost 0 the lowest digit
    live = [(a, *g) for a in range(cells) for g in itertools.product(range(cells), repeat=k)
            if a not in g and not team.goals[a]]

    def reward(outcome: Outcome, agent_reward: float) -> float:
        return float(outcome == event) if event is not None else agent_reward

    agent_moves = {s: [team.successors(GameState(s[0], s[1:]), action) for action in range(4)] for s in live}
    team_moves: dict[tuple[int, ...], list[Any]] = {}
    for outcomes in agent_moves.values():
        for _, after, _, _ in itertools.chain.from_iterable(outcomes):
            key = (after.agent, *after.ghosts)
            if after.outcome == Outcome.ONGOING and key not in team_moves:
                team_moves[key] = [team.successors(after, joint)[0] for joint in joints]
    values = dict.fromkeys(live, 0.0)
    for _ in range(sweeps):
        def between(key: tuple[int, ...], values: dict = values) -> float:
            options = [reward(s.outcome, r) + (gamma * values[(s.agent, *s.ghosts)] if s.outcome == Outcome.ONGOING
                                               else 0.0) for _, s, r, _ in team_moves[key]]
            return options[team_policy(key)] if team_policy else min(options)

        new = {}
        for s in live:
            q = [sum(p * (reward(after.outcome, r) + (between((after.agent, *after.ghosts))
                                                      if after.outcome == Outcome.ONGOING else 0.0))
                     for p, after, r, _ in outcomes) for outcomes in agent_moves[s]]
            new[s] = q[agent_policy(s)] if agent_policy else max(q)
        values = new
    return values


@pytest.mark.parametrize(("rows", "cols", "ghosts", "sweeps"), [
    (2, 3, [(0, 0), (1, 2)], 12),
    (1, 5, [(0, 2), (0, 3)], 12),
    (1, 4, [(0, 1), (0, 2), (0, 3)], 6),
    pytest.param(2, 3, [(0, 0), (1, 2), (1, 1)], 6, marks=pytest.mark.slow),
])
def test_the_team_game_has_the_values_of_a_brute_force_value_iteration(rows: int, cols: int, ghosts: list,
                                                                        sweeps: int) -> None:
    team = Game(tiny(rows, cols, ghosts), SLIP, ghosts=len(ghosts))
    solution = solve_game(game=team, gamma=0.9, horizon=sweeps)
    expected = brute_force(team, 0.9, sweeps)
    got = {s: solution.value(*where(team, s)) for s in expected}
    assert max(abs(got[s] - expected[s]) for s in expected) < 1e-9
    assert len({round(v, 6) for v in expected.values()}) > 5  # the values differ from state to state
    # the team's policy reaches the min over every joint move, the agent's the max
    for s in list(expected)[:: max(1, len(expected) // 40)]:
        q = solution.agent_q(*where(team, s))
        assert q[solution.agent_action(*where(team, s))] == q.max()
        team_q = solution.ghost_q(*where(team, s))
        assert team_q[team.joint_index(solution.ghost_action(*where(team, s)))] <= team_q.min() + 1e-9


@pytest.mark.slow  # a second or more: .ci/run runs the slow group
def test_fixed_policies_and_outcome_probabilities_match_the_brute_force() -> None:
    team = Game(tiny(2, 3, [(0, 0), (1, 2)]), SLIP, ghosts=2)
    solution = solve_game(game=team, gamma=0.95)
    agent = lambda s: solution.agent_action(*where(team, s))  # noqa: E731
    joint = lambda s: team.joint_index(solution.ghost_action(*where(team, s)))  # noqa: E731
    start, initial = solution.start, team.initial_state()
    for event, method in ((Outcome.GOAL, solution.success_probability), (Outcome.CAUGHT, solution.capture_probability)):
        expected = brute_force(team, 1.0, 15, event, agent, joint)
        assert method(*start, horizon=15) == pytest.approx(expected[(initial.agent, *initial.ghosts)], abs=1e-12)
    chasers = solve_agent(game=team, ghost="chase", gamma=0.95, horizon=10)
    chase = lambda s: team.joint_index(team.chase_actions(GameState(s[0], s[1:])))  # noqa: E731
    expected = brute_force(team, 0.95, 10, team_policy=chase)
    assert max(abs(chasers.value(*where(team, s)) - v) for s, v in expected.items()) < 1e-9


def test_one_ghost_as_a_team_of_one_is_the_one_ghost_solver() -> None:
    game, same = Game(CLASSIC, SLIP), Game(CLASSIC, SLIP, ghosts=1)
    one, team = solve_game(game=game), solve_game(game=same)
    assert np.array_equal(one.values, team.values)
    assert (one.agent_policy == team.agent_policy).all() and (one.ghost_policy == team.team_policy).all()
    assert not (team.values.flags.writeable or team.team_policy.flags.writeable)
    start = CLASSIC.agent_start, CLASSIC.ghost_start
    assert team.success_probability(start[0], [start[1]]) == one.success_probability(*start)
    assert team.team_action(start[0], [start[1]]) == (one.ghost_action(*start),)
    chasing = solve_agent(game=same, ghost="chase")
    assert np.array_equal(chasing.values, solve_agent(game=game).values)
    assert ghost_exploitability("chase", game=same) == ghost_exploitability("chase", game=game)
    assert agent_exploitability("random", game=same) == agent_exploitability("random", game=game)


def test_every_ghost_more_can_only_help_the_team_up_to_four() -> None:
    layout = Layout(np.zeros((2, 4), int), goals=[(0, 3)], agent_start=(1, 0),
                    ghost_start=[(0, 0), (1, 3), (1, 2), (0, 2)], name="four ghosts")
    values = []
    for k in range(1, 5):
        solution = solve_game(layout, SLIP, ghosts=k)
        values.append(solution.value(*solution.start))
        assert len(solution.team_action(*solution.start)) == k
        assert solution.team_policy.shape == (2, 4) * (k + 1) and solution.team_policy.max() < 4**k
    assert values == sorted(values, reverse=True) and values[0] > values[-1]


# -- states stored by multisets of ghost cells -------------------------------------------------------------
@pytest.mark.parametrize(("rows", "cols", "ghosts"), [(2, 3, [(0, 0), (1, 2)]), (3, 3, [(0, 0), (1, 2), (2, 2)])])
def test_states_stored_by_multisets_have_the_values_of_every_ordered_state(rows: int, cols: int,
                                                                           ghosts: list) -> None:
    team = Game(tiny(rows, cols, ghosts), SLIP, ghosts=len(ghosts))
    k, cells = team.ghosts, team.num_cells
    ordered, stored = TurnModel(team), TurnModel(team, symmetric=True)
    # the agent off the goal and off every ghost: (cells - 1) ** k ordered placements of the
    # ghosts, C(cells - 1 + k - 1, k) multisets of them
    assert ordered.num_live == (cells - 1) * (cells - 1) ** k
    assert stored.num_live == (cells - 1) * math.comb(cells - 1 + k - 1, k)
    assert ordered.num_live / stored.num_live > math.factorial(k) * 0.5
    plain = GameSolution(ordered, 0.9, 1e-12, None)  # the same solver, every order kept
    solved = solve_game(game=team, gamma=0.9, tol=1e-12)
    assert solved.model.symmetric and not plain.model.symmetric
    assert np.abs(plain.values - solved.values).max() <= 1e-12
    assert np.abs(plain.ghost_q_values - solved.ghost_q_values).max() <= 1e-12
    assert np.abs(plain.agent_q_values - solved.agent_q_values).max() <= 1e-12
    # every ordered state reads the stored one: its ghosts' moves, permuted with them, are as good
    for state in itertools.islice(itertools.product(range(cells), repeat=k + 1), 0, None, 7):
        s = where(team, state)
        if plain.model.live_index(*s) == plain.model.num_live:
            continue
        q = plain.ghost_q(*s)
        assert q[team.joint_index(solved.ghost_action(*s))] == pytest.approx(q.min(), abs=1e-12)
        assert solved.capture_probability(*s) == pytest.approx(plain.capture_probability(*s), abs=1e-12)
    fixed = np.asarray(solved.ghost_policy)  # an array: not known to treat the ghosts alike, so every order is kept
    assert not evaluate_policies("random", fixed, game=team).model.symmetric
    assert evaluate_policies("random", "chase", game=team).model.symmetric


@pytest.mark.parametrize("side", [Side.AGENT, Side.GHOST])
@pytest.mark.parametrize("ghosts", [[(0, 0), (1, 2)], pytest.param([(0, 0), (1, 2), (1, 1)], marks=pytest.mark.slow)])
def test_the_dense_team_turn_is_the_kernels_half_turns_in_every_state(side: Side, ghosts: list) -> None:
    # the deciding team's sweep, held over agent cells and multisets, against Game.successors state
    # by state: the agent's move with slip, then the team's best joint move, then gamma * values
    from gridghost.core.rules import Rewards
    from gridghost.core.slip import PerpendicularSlip
    from gridghost.planning.iteration import TeamStages

    rewards, ghost_rewards = Rewards(step=-0.5, goal=7.0, caught=-3.0, wait=0.25), Rewards(-1.0, 2.0, 11.0, 0.5)
    team = Game(tiny(2, 3, ghosts), PerpendicularSlip(0.3), rewards, ghost_rewards, ghosts=len(ghosts))
    model = TurnModel(team, symmetric=True)
    values = np.append(np.random.default_rng(0).normal(size=model.num_live), 0.0)
    got = np.empty((4, model.num_live))
    TeamStages(model, side).turn(values, 0.9, "min", out=got)
    paid = 0 if side == Side.AGENT else 1

    @functools.cache
    def after(state: GameState) -> float:  # the value of the team's best move from ``state``
        options = []
        for joint in range(4**team.ghosts):
            _, moved, *reward = team.successors(state, team.joint_actions(joint))[0]
            going = moved.outcome == Outcome.ONGOING
            live = int(model.lookup(np.int64(moved.agent), np.array(moved.ghosts))) if going else model.num_live
            options.append(reward[paid] + 0.9 * values[live])
        return min(options)

    outcomes = set()
    for live, (agent, cells) in enumerate(zip(model.agents.tolist(), model.ghost_cells.tolist(), strict=True)):
        for action in range(4):
            want = 0.0
            for p, landed, *reward in team.successors(GameState(agent, tuple(cells)), action):
                outcomes.add(landed.outcome)
                want += p * (reward[paid] + (after(landed) if landed.outcome == Outcome.ONGOING else 0.0))
            assert got[action, live] == pytest.approx(want, abs=1e-12), (agent, cells, action)
    assert outcomes == set(Outcome)  # every way a move ends is checked


@pytest.mark.parametrize("credit", ["team", "catcher"])
@pytest.mark.parametrize("ghosts", [[(0, 0), (1, 2)], [(0, 0), (1, 2), (1, 1)]])
def test_a_deciding_team_moved_one_ghost_at_a_time_has_the_values_of_its_joint_moves(credit: str,
                                                                                    ghosts: list) -> None:
    from gridghost.planning import clear_caches
    from gridghost.planning.policy import policy_array
    from gridghost.planning.solve import GhostSolution

    team = Game(tiny(2, 3, ghosts), SLIP, ghosts=len(ghosts), credit=credit)
    ordered = TurnModel(team)  # every order kept: the sweeps read the 4^k joint moves' tables
    for horizon in (None, 4):
        clear_caches()  # a fresh model: reading the ghosts' action values builds its joint tables
        minimax = solve_game(game=team, gamma=0.9, tol=1e-12, horizon=horizon)  # the team's min, one ghost at a time
        assert minimax.model.symmetric and minimax.model._joint_tables is None  # no joint table built
        plain = GameSolution(ordered, 0.9, 1e-12, horizon)
        assert minimax.sweeps == plain.sweeps
        assert np.abs(minimax.values - plain.values).max() <= 1e-12
        assert np.abs(minimax.agent_q_values - plain.agent_q_values).max() <= 1e-12
        assert np.abs(minimax.ghost_q_values - plain.ghost_q_values).max() <= 1e-12  # joint tables built now
        best = solve_ghost(game=team, agent="random", gamma=0.9, tol=1e-12, horizon=horizon)  # the team's max
        assert best.model.symmetric
        joint = GhostSolution(ordered, policy_array("random", ordered, Side.AGENT, "agent"), 0.9, 1e-12, horizon)
        assert np.abs(best.values - joint.values).max() <= 1e-12
        assert np.abs(best.q_values - joint.q_values).max() <= 1e-12
        assert len({round(float(v), 6) for v in best.values.ravel()}) > 5  # the values differ from state to state


def test_the_joint_moves_tables_a_deciding_team_does_without_are_refused_over_the_budget() -> None:
    layout = Layout.generate(5, 5, seed=3, ghosts=2)
    team = Game(layout, SLIP, ghosts=2)
    stages = model_bytes(25, len(layout.goals), 2, symmetric=True, joint=False)
    assert stages < model_bytes(25, len(layout.goals), 2, symmetric=True)
    from gridghost.planning import clear_caches

    clear_caches()
    solution = solve_game(game=team, max_bytes=stages)
    assert solution.sweeps > 0
    with pytest.raises(ValueError, match=r"max_bytes=[\d,]+ .*pass a larger max_bytes"):
        solution.ghost_q_values  # noqa: B018 - the joint moves' tables, built when first read
    # 3 ghosts on 6 x 6, which the dense team solver took in seconds, and 4 ghosts fit the default budget
    for ghosts in (3, 4):
        layout = Layout.generate(6, 6, seed=0, ghosts=ghosts)
        assert model_bytes(36, len(layout.goals), ghosts, symmetric=True, joint=False) <= MAX_BYTES


# -- best responses and exploitability -----------------------------------------------------------------
def test_the_minimax_pair_is_unexploitable_and_independent_chasers_are_exploited() -> None:
    team = Game(tiny(3, 4, [(0, 1), (2, 3)], walls=False), SLIP, ghosts=2)
    game = solve_game(game=team)
    assert ghost_exploitability(game.team_policy, game=team) == pytest.approx(0.0, abs=1e-6)
    assert agent_exploitability(game.agent_policy, game=team) == pytest.approx(0.0, abs=1e-6)
    assert exploitability(game.agent_policy, game.team_policy, game=team) == pytest.approx(0.0, abs=1e-6)
    chasing = ghost_exploitability("chase", game=team)
    assert chasing > 1.0  # the chasers bunch up and let the agent through sometimes
    wandering = agent_exploitability("random", game=team)
    assert wandering > 1.0
    assert exploitability("random", "chase", game=team) == pytest.approx(chasing + wandering, abs=1e-6)
    chasers = solve_agent(game=team, ghost="chase")
    start = game.start
    assert chasers.success_probability(*start) > game.success_probability(*start)
    # the best response is at least as good as any agent policy against the chasers, everywhere
    random_agent = evaluate_policies("random", "chase", game=team)
    assert (chasers.values >= random_agent.values - 1e-9).all()
    assert evaluate_policies(chasers.policy, "chase", game=team).value(*start) == pytest.approx(
        chasers.value(*start), abs=1e-7)


def test_the_teams_best_response_to_the_minimax_agent_holds_it_to_the_games_value() -> None:
    team = Game(tiny(3, 4, [(0, 0), (2, 3)]), SLIP, ghosts=2)
    game = solve_game(game=team)
    reply = solve_ghost(game=team, agent=game.agent_policy)
    assert reply.value(*game.start) == pytest.approx(-game.value(*game.start), abs=1e-7)  # zero-sum rewards
    against_random = solve_ghost(game=team, agent="random")
    assert against_random.value(*game.start) > reply.value(*game.start)
    assert against_random.policy.shape == (3, 4) * 3 and against_random.policy.max() < 16


def test_every_form_of_a_team_policy_plays_the_same() -> None:
    team = Game(tiny(2, 3, [(0, 0), (1, 2)]), SLIP, ghosts=2)
    shape = (6, 6, 6)
    chase = evaluate_policies("random", "chase", game=team)
    joint = np.zeros(shape, dtype=np.int64)
    per_ghost = np.zeros((*shape, 2), dtype=np.int64)
    for s in itertools.product(range(6), repeat=3):
        per_ghost[s] = team.chase_actions(GameState(s[0], s[1:]))
        joint[s] = team.joint_index(per_ghost[s])
    probabilities = np.eye(16)[joint]

    def chase_callable(agent_pos: Any, ghost_positions: Any) -> tuple[int, ...]:
        cells = [row * 3 + col for row, col in (agent_pos, *ghost_positions)]
        return team.chase_actions(GameState(cells[0], tuple(cells[1:])))

    for form in (joint, per_ghost, probabilities, chase_callable, joint.reshape((2, 3) * 3)):
        assert np.abs(evaluate_policies("random", form, game=team).values - chase.values).max() < 1e-9
    uniform = evaluate_policies("random", np.full((*shape, 16), 1 / 16), game=team)
    assert np.abs(uniform.values - evaluate_policies("random", "random", game=team).values).max() < 1e-9


# -- the budget ------------------------------------------------------------------------------------------
def test_a_team_too_large_for_the_budget_is_refused_before_anything_is_allocated() -> None:
    team = Game(tiny(3, 4, [(0, 0), (2, 3)]), SLIP, ghosts=2)
    needed = model_bytes(12, 1, 2, symmetric=True, joint=False)  # the game's team decides: no joint tables
    # 11 agent cells off the goal, C(11 + 1, 2) = 66 multisets of two ghost cells off the agent's
    with pytest.raises(ValueError, match=r"make 726 live states \(ghosts as multisets\), about [\d,]+ bytes .*"
                                         r"max_bytes=1,000"):
        solve_game(game=team, max_bytes=1000)
    assert solve_game(game=team, max_bytes=needed).sweeps > 0
    with pytest.raises(ValueError, match=r"make 1,331 live states, about"):  # a fixed array keeps every order
        evaluate_policies("random", np.zeros((12, 12, 12), int), game=team, max_bytes=needed)
    huge = Game(Layout.generate(16, 16, seed=0), SLIP, ghosts=1)
    big = Layout.from_dict({**huge.layout.to_dict(), "ghost_start": [[0, 0], [0, 1], [0, 2], [0, 3]]})
    with pytest.raises(ValueError, match=r"4 ghost\(s\) on map .* live states .*max_bytes=4,294,967,296"):
        solve_game(big, SLIP, ghosts=4)  # 1.1e12 joint states: allocating would fail outright
    assert MAX_BYTES == 2**32
    with pytest.raises(ValueError, match="max_bytes"):
        solve_agent(game=team, max_bytes=10**3)


def test_the_budget_estimate_covers_what_a_solve_allocates() -> None:
    import tracemalloc

    from gridghost.planning import clear_caches

    layout = Layout.generate(5, 5, seed=3, ghosts=2)
    team = Game(layout, SLIP, ghosts=2)
    clear_caches()
    tracemalloc.start()
    try:
        solution = solve_game(game=team)
        solution.success_probability(*solution.start)  # the outcome tables come on top of the solution
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    estimate = model_bytes(25, len(layout.goals), 2, symmetric=True)
    assert 0.5 * estimate < peak <= estimate


@pytest.mark.slow  # a second or more: .ci/run runs the slow group
def test_a_best_response_to_a_fixed_agent_counts_the_agents_policy_in_its_budget() -> None:
    import tracemalloc

    from gridghost.planning import clear_caches

    layout = Layout.generate(6, 6, seed=1, ghosts=2)
    team = Game(layout, SLIP, ghosts=2)
    alone = model_bytes(36, len(layout.goals), 2, symmetric=True, joint=False)
    with_policy = model_bytes(36, len(layout.goals), 2, symmetric=True, joint=False, policy=True)
    assert with_policy > alone
    clear_caches()
    assert solve_game(game=team, max_bytes=alone).sweeps > 0
    with pytest.raises(ValueError, match=r"max_bytes="):
        solve_ghost(game=team, agent="random", max_bytes=alone)  # the agent's policy comes on top
    clear_caches()
    tracemalloc.start()
    try:
        assert solve_ghost(game=team, agent="random", max_bytes=with_policy).sweeps > 0
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= with_policy


def test_a_shared_models_agent_tables_are_set_only_when_built() -> None:
    # another thread reading a cached model must never see the tables half filled
    model = TurnModel(Game(Layout.generate(5, 5, seed=3, ghosts=2), SLIP, ghosts=2), symmetric=True)
    seen = []
    build = model._transitions

    def watched(*args: Any, **kwargs: Any) -> Any:
        seen.append({"agent_next", "agent_outcome", "agent_expected"} & set(vars(model)))
        return build(*args, **kwargs)

    model._transitions = watched  # type: ignore[method-assign]
    assert model.agent_next.shape[2] == model.num_live
    assert len(seen) >= 4 and not any(seen)  # asked of the kernel per action, nothing set meanwhile


@pytest.mark.parametrize("value", [0, -5, 1.5, "1GiB", True])
def test_a_bad_budget_is_named(value: Any) -> None:
    team = Game(tiny(2, 3, [(0, 0), (1, 2)]), SLIP, ghosts=2)
    with pytest.raises((TypeError, ValueError), match="max_bytes"):
        solve_game(game=team, max_bytes=value)
    with pytest.raises((TypeError, ValueError), match="max_bytes"):
        solve_game(CLASSIC, max_bytes=value)


# -- bad input -------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small() -> tuple[Game, Any]:
    team = Game(tiny(2, 3, [(0, 0), (1, 2)]), SLIP, ghosts=2)
    return team, solve_game(game=team)


@pytest.mark.parametrize(("agent_pos", "ghosts", "error", "message"), [
    ((1, 0), [(0, 0)], TypeError, "ghost_pos must be a sequence of 2"),
    ((1, 0), [(0, 0), (0, 1), (1, 1)], TypeError, "ghost_pos must be a sequence of 2"),
    ((1, 0), (0, 0), TypeError, "ghost_pos must be a sequence of 2"),
    ((5, 0), [(0, 0), (0, 1)], ValueError, "agent_pos"),
    ((1, 0), [(0, 0), (0, 9)], ValueError, r"ghost_pos\[1\]"),
])
def test_bad_positions_are_named(small: Any, agent_pos: Any, ghosts: Any, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        small[1].value(agent_pos, ghosts)


def test_a_finished_state_has_no_actions(small: Any) -> None:
    with pytest.raises(ValueError, match=r"the game is over with the agent at .1, 0. and the ghosts at .1, 0., .0, 0."):
        small[1].agent_action((1, 0), [(1, 0), (0, 0)])
    assert small[1].value((1, 0), [(1, 0), (0, 0)]) == 0.0
    with pytest.raises(ValueError, match="horizon"):
        small[1].success_probability(*small[1].start, horizon=0)


@pytest.mark.parametrize(("team_policy", "error", "message"), [
    ("minimax", ValueError, r"unknown ghost_policy 'minimax'; accepted: \['chase', 'random'\]"),
    (np.zeros((6, 6)), ValueError, r"ghost_policy must be an array of shape \(2, 3, 2, 3, 2, 3"),
    (np.full((6, 6, 6), 16), ValueError, "ghost_policy must hold actions 0..15 where the game goes on"),
    (np.full((6, 6, 6), -1), ValueError, r"ghost_policy must hold actions 0..15 where the game goes on; at agent"),
    (np.full((6, 6, 6, 16), 0.5), ValueError, "probabilities must sum to 1 in every state"),
    (np.full((6, 6, 6), True), TypeError, "ghost_policy must hold probabilities .real numbers. or int actions"),
    (lambda agent, ghosts: (0,), ValueError, "must hold 2 actions"),
    (lambda agent: (0, 0), TypeError, r"must be a state policy \(agent_pos, ghost_pos\) -> action"),
    (3.5, TypeError, "ghost_policy must be 'chase', 'random'"),
])
def test_bad_team_policies_are_named(small: Any, team_policy: Any, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        evaluate_policies("random", team_policy, game=small[0])


@pytest.mark.parametrize(("agent_policy", "error", "message"), [
    ("chase", ValueError, "agent_policy 'chase' is the chasing ghost's rule"),
    (np.full((6, 6, 6), 4), ValueError, "agent_policy must hold actions 0..3"),
    (np.full((6, 6, 6, 4), 0.3), ValueError, "probabilities must sum to 1"),
    (np.full((6, 6, 6, 4), -0.25), ValueError, "probabilities >= 0"),
    (lambda agent, ghosts: 7, ValueError, "agent_policy at agent"),
    (object(), TypeError, "agent_policy must be 'random'"),
])
def test_bad_agent_policies_are_named(small: Any, agent_policy: Any, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        agent_exploitability(agent_policy, game=small[0])


def test_the_game_is_passed_once_and_must_be_a_game(small: Any) -> None:
    with pytest.raises(ValueError, match="not both"):
        solve_game(CLASSIC, game=small[0])
    with pytest.raises(ValueError, match="not both"):
        solve_game(ghosts=2, game=small[0])
    with pytest.raises(TypeError, match=r"game must be a gridghost.Game"):
        solve_game(game="classic")
    with pytest.raises(TypeError, match=r"spec must be a gridghost.GameSpec"):
        solve_game(spec=42)
    with pytest.raises(ValueError, match="ghosts=2 needs a map with 2 ghost starts"):
        solve_game(CLASSIC, ghosts=2)
    with pytest.raises(ValueError, match=r"ghosts must be an int in 1..4"):
        solve_game(guarded_pair(), ghosts=5)
    with pytest.raises(ValueError, match="gamma must be a number in"):
        solve_game(game=small[0], gamma=0.0)


def test_undiscounted_values_without_a_horizon_are_refused_where_the_game_may_not_end(small: Any) -> None:
    with pytest.raises(ValueError, match="gamma=1 without a horizon: the game may never end"):
        solve_game(game=small[0], gamma=1.0)
    assert solve_game(game=small[0], gamma=1.0, horizon=5).sweeps == 5


def test_the_solvers_take_a_team_as_a_game_or_a_spec() -> None:
    team = Game(guarded_pair(), SLIP, ghosts=2)
    spec = gridghost.GameSpec(layout=guarded_pair(), ghosts=2)
    by_game, by_spec = solve_game(game=team), solve_game(spec=spec)
    assert by_game.ghosts == by_spec.ghosts == 2 and np.array_equal(by_game.values, by_spec.values)
    assert by_spec.success_probability(*by_game.start) < 0.1
    assert solve_agent(spec=spec).value(*by_game.start) > by_game.value(*by_game.start)  # the chasers give way


def test_the_team_solver_reads_a_spec_and_no_slip_game() -> None:
    layout = tiny(2, 3, [(0, 0), (1, 2)])
    spec = gridghost.GameSpec(layout=layout, ghosts=2, slip=NoSlip())
    solution = solve_game(spec=spec)
    assert solution.ghosts == solution.model.game.ghosts == 2 and solution.model.game.slip == NoSlip()
    assert solution.model.joints == 16 and Side.AGENT == 0


# -- the coordination maps ---------------------------------------------------------------------------------
TEAM_MAPS = [name for name in gridghost.maps.names() if len(gridghost.maps.load(name).ghost_starts) >= 2]


def test_three_coordination_maps_ship() -> None:
    assert TEAM_MAPS == ["team_crossroads", "team_eight", "team_ring"]


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.slow) if name == "team_crossroads" else name
                                  for name in TEAM_MAPS])
def test_a_coordination_map_takes_two_ghosts_that_work_together(name: str) -> None:
    layout = gridghost.maps.load(name)
    game = Game(layout, SLIP)  # the defaults: longitudinal slip 0.2, the reference's rewards, gamma 0.99
    one = solve_game(game=game).success_probability(layout.agent_start, layout.ghost_start, horizon=100)
    team = Game(game.layout, game.slip, ghosts=2)
    start = layout.agent_start, layout.ghost_starts[:2]
    chasers = solve_agent(game=team, ghost="chase").success_probability(*start, horizon=100)
    optimum = solve_game(game=team).success_probability(*start, horizon=100)
    assert one >= 0.5 and chasers >= 0.5 and optimum <= 0.1, (one, chasers, optimum)
    # the solver docs print the three numbers exactly
    row = f"| `{name}` | {layout.rows}x{layout.cols} | {one:.6f} | {chasers:.6f} | {optimum:.6f} |"
    assert row in (ROOT / "docs" / "solver.md").read_text(encoding="utf-8")


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_team_maps_benchmark_prints_the_three_numbers_of_every_team_map() -> None:
    out = run_script("benchmarks/team_maps.py")
    rows = re.findall(r"^(team_\w+)\s+\d+x\d+\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+yes\s", out, flags=re.M)
    assert [row[0] for row in rows] == TEAM_MAPS
    for _, one, chasers, optimum in rows:
        assert float(one) >= 0.5 and float(chasers) >= 0.5 and float(optimum) <= 0.1


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_team_solve_benchmark_prints_the_times_and_states_of_a_case() -> None:
    cases = ["--cases", "2 ghosts, 8x8", "4 ghosts, 6x6"]
    out = run_script("benchmarks/team_solve.py", *cases, "--max-bytes", "400000000")
    # the agent off the goal (63 cells) times C(64, 2) multisets of two ghost cells off its cell; 4 ghosts:
    # 35 times C(38, 4)
    assert re.search(r"^2 ghosts, 8x8\s+262,144\s+127,008\s+(\d+) MiB\s+\d+\.\d\d s\s+\d+\s+-\s+\d+ MiB\s+\d+\.\d\d$",
                     out, flags=re.M), out
    assert re.search(r"^4 ghosts, 6x6\s+60,466,176\s+2,583,525 .* refused .*over the budget", out, flags=re.M), out


# -- the team solver's deprecated names ----------------------------------------------------------------------
def test_the_team_solvers_old_names_warn_and_solve_as_the_unified_functions() -> None:
    import gridghost.planning as planning

    team = Game(tiny(2, 3, [(0, 0), (1, 2)]), SLIP, ghosts=2)
    game = solve_game(game=team)
    zeros = lambda obs: np.zeros(len(obs), int)  # noqa: E731
    expected = {
        "solve_team_game": lambda old: np.array_equal(old(game=team).values, game.values),
        "solve_team_agent": lambda old: np.array_equal(old(game=team, team="random").values,
                                                       solve_agent(game=team, ghost="random").values),
        "solve_team_ghosts": lambda old: np.array_equal(old(game=team).values, solve_ghost(game=team).values),
        "evaluate_team_policies": lambda old: np.array_equal(old("random", "chase", game=team).values,
                                                             evaluate_policies("random", "chase", game=team).values),
        "team_exploitability": lambda old: old("random", team_policy="chase", game=team) == exploitability(
            "random", "chase", game=team),
        "team_agent_exploitability": lambda old: old("random", game=team) == agent_exploitability("random", game=team),
        "team_ghosts_exploitability": lambda old: old("chase", game=team) == ghost_exploitability("chase", game=team),
        "TeamGameSolution": lambda old: old is GameSolution,
        "TeamAgentSolution": lambda old: old is planning.AgentSolution,
        "TeamGhostsSolution": lambda old: old is planning.GhostSolution,
        "TeamPolicyEvaluation": lambda old: old is planning.PolicyEvaluation,
        "TeamModel": lambda old: old is TurnModel,
        "tabulate_team_policy": lambda old: old(zeros, game=team).shape == (2, 3) * 3 + (2,),
    }
    for name, same in expected.items():
        with pytest.warns(DeprecationWarning, match=rf"gridghost\.planning\.{name} is deprecated: use gridghost\."):
            old = getattr(planning, name)
        assert same(old), name
    with pytest.warns(DeprecationWarning):
        old_game, old_agent, old_tabulate = (planning.solve_team_game, planning.solve_team_agent,
                                             planning.tabulate_team_policy)
    # the old positional arguments, and a team of two on the map's first starts by default
    layout = tiny(2, 3, [(0, 0), (1, 2)])
    assert old_game(layout, SLIP, None, None, 0.9).gamma == 0.9 and old_game(layout, SLIP).ghosts == 2
    assert np.array_equal(old_agent(layout, SLIP, "random").values,
                          solve_agent(layout, SLIP, "random", ghosts=2).values)
    with pytest.raises(TypeError, match="at most 7 positional arguments"):
        old_game(layout, SLIP, None, 2, 0.9, 1e-10, None, "extra")
    with pytest.raises(TypeError, match="game must be a team game"):
        old_tabulate(zeros, game=Game(CLASSIC, SLIP))
    with pytest.raises(ValueError, match="one of the two"):
        old_tabulate(zeros)
    with pytest.raises(AttributeError, match="no attribute 'solve_teams'"):
        planning.solve_teams  # noqa: B018


def test_team_policies_break_ties_to_the_lowest_joint_action_in_each_states_own_ghost_order() -> None:
    # states are stored once per sorted ghost tuple; a policy read in any ghost order still takes,
    # among equally good joint moves, the lowest joint index of that order
    layout = gridghost.maps.load("team_ring")
    game = solve_game(layout=layout, slip="longitudinal", ghosts=2, gamma=0.95)
    ghosts = solve_ghost(layout=layout, slip="longitudinal", agent="random", ghosts=2, gamma=0.95)
    tied = 0
    for solution, q_values, policy, sign in ((game, game.ghost_q_values, game.team_policy, 1.0),
                                             (ghosts, ghosts.q_values, ghosts.policy, -1.0)):
        assert solution.model.symmetric
        live = policy >= 0
        q, chosen = sign * q_values[live], policy[live]  # the best is the least of sign * q
        best = q.min(axis=1, keepdims=True)
        near = q <= best + 1e-9 * np.maximum(1.0, np.abs(best))
        tied += int((near.sum(axis=1) > 1).sum())
        assert np.array_equal(chosen, np.argmax(near, axis=1))
    assert tied > 100  # many states have several best joint moves: the rule decides there
    agent, team = (0, 4), [(1, 4), (0, 3)]
    joint = int(game.team_policy[(*agent, *team[0], *team[1])])
    assert tuple(game.team_action(agent, team)) == (joint % 4, joint // 4)  # ghost 0 the lowest digit
