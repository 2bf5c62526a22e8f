"""evaluate_policies: two fixed state policies evaluated exactly, checked against the solvers and
against simulated games."""

from __future__ import annotations

import numpy as np
import pytest

import gridghost
from gridghost.core.layout import CLASSIC
from gridghost.core.slip import PerpendicularSlip
from gridghost.planning import OptimalAgent, evaluate_policies, solve_agent, solve_ghost

START = CLASSIC.agent_start, CLASSIC.ghost_start


def test_a_best_response_evaluates_to_its_solvers_value() -> None:
    best = solve_agent(CLASSIC, "longitudinal", ghost="random")
    pair = evaluate_policies(OptimalAgent(CLASSIC, ghost="random"), "random")
    np.testing.assert_allclose(pair.values, best.values, atol=1e-8)
    assert pair.success_probability(*START) == pytest.approx(best.success_probability(*START), abs=1e-12)
    ghost = solve_ghost(CLASSIC, "longitudinal", agent="random")
    pair = evaluate_policies("random", (ghost.policy[..., None] == np.arange(4)).astype(float))
    np.testing.assert_allclose(pair.values, -ghost.values, atol=1e-8)  # zero-sum: the ghost's value negated


@pytest.mark.slow  # a second or more: .ci/run runs the slow group
def test_random_against_chase_matches_simulated_games() -> None:
    """Success and capture within 30 turns, and the discounted return, of a random agent against
    the chasing ghost (perpendicular slip), over 3,000 seeded games: within 4 standard errors."""
    slip = PerpendicularSlip(0.3)
    pair = evaluate_policies("random", "chase", CLASSIC, slip, gamma=0.9)
    horizon = 30
    env = gridghost.raw_env(slip=slip, max_cycles=horizon)
    chase = gridghost.ChasePolicy()
    rng = np.random.default_rng(11)
    goals, catches, returns = [], [], []
    for seed in range(3000):
        env.reset(seed=seed)
        total, discount = 0.0, 1.0
        while not (env.terminations["agent"] or env.truncations["agent"]):
            env.step(int(rng.integers(4)))
            reward = env.rewards["agent"]
            if not env.terminations["agent"]:
                env.step(chase(env.observe("ghost")))
                reward += env.rewards["agent"]
            total += discount * reward
            discount *= 0.9
        goals.append(env.game_state.outcome == gridghost.Outcome.GOAL)
        catches.append(env.game_state.outcome == gridghost.Outcome.CAUGHT)
        returns.append(total)
    for sample, want in ((goals, pair.success_probability(*START, horizon=horizon)),
                         (catches, pair.capture_probability(*START, horizon=horizon)),
                         (returns, None)):
        if want is None:  # the return is cut at 30 turns: 0.9**30 bounds what the rest can add
            want, slack = pair.value(*START), 0.9**horizon * 100 / (1 - 0.9)
        else:
            slack = 0.0
        error = np.std(sample) / np.sqrt(len(sample))
        assert abs(np.mean(sample) - want) < 4 * error + slack
    assert 0.1 < np.mean(goals) < 0.9 and 0.1 < np.mean(catches) < 0.9  # a real mix, so the test can fail


def test_evaluation_checks_its_policies() -> None:
    with pytest.raises(ValueError, match="agent_policy 'chase' is the chasing ghost's rule"):
        evaluate_policies("chase", "chase")
    with pytest.raises(TypeError, match="ghost_policy must be 'chase', 'random', a StatePolicy"):
        evaluate_policies("random", 3)
    with pytest.raises(ValueError, match="gamma=1 without a horizon: the game may never end"):
        evaluate_policies(lambda agent, ghost: 3, lambda agent, ghost: 3, gamma=1)
    finite = evaluate_policies(lambda agent, ghost: 3, lambda agent, ghost: 3, gamma=1, horizon=10)
    assert finite.value(*START) < 0


def test_one_sided_exploitabilities_sum_to_the_pairs_and_vanish_at_the_minimax_players() -> None:
    from gridghost.planning import (
        MinimaxAgent,
        MinimaxGhost,
        agent_exploitability,
        exploitability,
        ghost_exploitability,
        solve_game,
    )

    game_value = solve_game().value(*START)
    best_against_chase = solve_agent(ghost="chase").value(*START)
    assert ghost_exploitability("chase") == pytest.approx(best_against_chase - game_value, abs=1e-9)
    assert ghost_exploitability(MinimaxGhost) == pytest.approx(0.0, abs=1e-9)
    assert agent_exploitability(MinimaxAgent()) == pytest.approx(0.0, abs=1e-9)
    worst_for_random = -solve_ghost(agent="random").value(*START)  # zero-sum: the ghost's value negated
    assert agent_exploitability("random") == pytest.approx(game_value - worst_for_random, abs=1e-9)
    for agent, ghost in (("random", "chase"), (OptimalAgent(), "random"), (MinimaxAgent(), "chase")):
        assert exploitability(agent, ghost) == pytest.approx(
            agent_exploitability(agent) + ghost_exploitability(ghost), abs=1e-9)
    assert agent_exploitability("random") > 100 and 0 < ghost_exploitability("chase") < 1


def test_the_solvers_take_a_game() -> None:
    from gridghost.planning import exploitability, solve_game

    env = gridghost.env(slip="perpendicular", slip_probability=0.3, rewards=gridghost.Rewards(step=-2.0))
    game = env.config.game()
    by_game = solve_game(game=game)
    by_settings = solve_game(CLASSIC, PerpendicularSlip(0.3), gridghost.Rewards(step=-2.0))
    np.testing.assert_array_equal(by_game.values, by_settings.values)
    assert by_game.values.tolist() != solve_game().values.tolist()
    settings = (CLASSIC, PerpendicularSlip(0.3))
    rewards = gridghost.Rewards(step=-2.0)
    np.testing.assert_array_equal(solve_agent(game=game).values, solve_agent(*settings, "chase", rewards).values)
    assert exploitability("random", "chase", game=game) == pytest.approx(
        exploitability("random", "chase", *settings, rewards))
    with pytest.raises(ValueError, match=r"pass the game as game= or as settings, not both; got game and \['slip"):
        solve_game(slip="none", game=game)
    with pytest.raises(ValueError, match=r"got game and \['layout'\]"):
        exploitability("random", "chase", CLASSIC, game=game)
    with pytest.raises(ValueError, match="game has no ghost"):
        solve_game(game=gridghost.env(use_ghost=False).config.game())
    with pytest.raises(TypeError, match=r"game must be a gridghost\.Game"):
        solve_game(game=env.config)


def test_the_solvers_game_says_whose_rewards_are_whose() -> None:
    from gridghost.core.game import Game
    from gridghost.planning import ghost_exploitability, solve_ghost

    ghost_rewards = gridghost.Rewards(step=-1.0)  # a ghost paid per turn, not zero-sum
    game = Game(CLASSIC, PerpendicularSlip(0.3), gridghost.Rewards(step=-2.0), ghost_rewards)
    np.testing.assert_array_equal(solve_ghost(game=game).values,
                                  solve_ghost(CLASSIC, PerpendicularSlip(0.3), "random", gridghost.Rewards(step=-2.0),
                                              ghost_rewards).values)
    assert ghost_exploitability("chase", game=game) == pytest.approx(
        ghost_exploitability("chase", CLASSIC, PerpendicularSlip(0.3), gridghost.Rewards(step=-2.0)))


@pytest.mark.parametrize("solver", ["solve_agent", "solve_ghost", "solve_game", "evaluate_policies", "exploitability",
                                    "agent_exploitability", "ghost_exploitability"])
def test_config_is_deprecated_for_a_game_and_still_solves_the_same_game(solver) -> None:
    import gridghost.planning

    function = getattr(gridghost.planning, solver)
    policies = {"evaluate_policies": ("random", "chase"), "exploitability": ("random", "chase"),
                "agent_exploitability": ("random",), "ghost_exploitability": ("chase",)}.get(solver, ())
    config = gridghost.env(slip="perpendicular", slip_probability=0.3, rewards=gridghost.Rewards(step=-2.0)).config
    with pytest.warns(DeprecationWarning, match=r"config= is deprecated: pass game=config\.game\(\)") as caught:
        old = function(*policies, config=config)
    assert caught[0].filename == __file__  # the warning names the caller's line, not the solver's
    new = function(*policies, game=config.game())
    if isinstance(new, float):
        assert old == new
    else:
        np.testing.assert_array_equal(old.values, new.values)
    with pytest.raises(TypeError, match=r"pass game=GameConfig\.from_dict\(d\)\.game\(\)"):
        function(*policies, config=config.to_dict())


@pytest.mark.parametrize("solver", ["solve_agent", "solve_ghost", "solve_game", "evaluate_policies", "exploitability",
                                    "agent_exploitability", "ghost_exploitability"])
def test_every_solver_function_takes_a_spec_as_every_view_does(solver) -> None:
    import warnings

    import gridghost.planning

    function = getattr(gridghost.planning, solver)
    policies = {"evaluate_policies": ("random", "chase"), "exploitability": ("random", "chase"),
                "agent_exploitability": ("random",), "ghost_exploitability": ("chase",)}.get(solver, ())
    spec = gridghost.env(slip="perpendicular", slip_probability=0.3, rewards=gridghost.Rewards(step=-2.0)).config
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # spec= is not the deprecated config=
        by_spec = function(*policies, spec=spec)
    by_game = function(*policies, game=spec.game())
    if isinstance(by_game, float):
        assert by_spec == by_game
    else:
        np.testing.assert_array_equal(by_spec.values, by_game.values)
    default = function(*policies)  # another game: the spec was read
    assert (by_spec != default) if isinstance(default, float) else not np.array_equal(by_spec.values, default.values)
    with pytest.raises(ValueError, match=r"pass the game once: as spec=, game= or config="):
        function(*policies, spec=spec, game=spec.game())
    with pytest.raises(TypeError, match=r"spec must be a gridghost\.GameSpec \(with a game\(\) method\), got 42"):
        function(*policies, spec=42)
    with pytest.raises(ValueError, match=r"pass the game as spec= or as settings, not both; got spec and \['slip'\]"):
        function(*policies, slip="none", spec=spec)


def test_tabulate_reads_a_specs_game_and_encoding() -> None:
    from gridghost.planning import tabulate_policy

    spec = gridghost.env(obs_type="vector", slip="none").config
    seen = []
    table = tabulate_policy(lambda obs: seen.append(obs) or 0, spec=spec)
    assert isinstance(seen[0], np.ndarray) and seen[0].shape == (26,)  # the spec's encoding
    np.testing.assert_array_equal(table, tabulate_policy(lambda obs: 0, game=spec.game(), obs_type="vector"))


def test_the_deprecated_config_keeps_its_checks() -> None:
    from gridghost.planning import solve_game

    config = gridghost.env().config
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match=r"got config and \['slip'\]"):
        solve_game(slip="none", config=config)
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="config has no ghost"):
        solve_game(config=gridghost.env(use_ghost=False).config)
    with pytest.raises(TypeError, match=r"config must be a gridghost\.GameConfig \(with a game\(\) method\)"):
        solve_game(config=42)
    with pytest.raises(ValueError, match="not both game and config"):
        solve_game(game=config.game(), config=config)


def test_planner_classes_are_built_for_the_game_the_solver_is_asked_about() -> None:
    from gridghost.planning import MinimaxAgent, MinimaxGhost, exploitability

    layout = gridghost.Layout(colours=np.zeros((2, 3), int), goals=[(1, 2)], agent_start=(0, 0), ghost_start=(0, 2))
    assert exploitability(MinimaxAgent, MinimaxGhost, layout) == pytest.approx(0.0, abs=1e-9)
    assert exploitability(MinimaxAgent(layout), MinimaxGhost(layout), layout) == pytest.approx(0.0, abs=1e-9)
    with pytest.raises(ValueError, match=r"ghost_policy MinimaxAgent\(layout='custom'\) plays the agent; it is asked"):
        exploitability(MinimaxAgent, MinimaxAgent, layout)


def test_tabulate_takes_probabilities_and_names_the_state_it_failed_in() -> None:
    from gridghost.planning import tabulate_policy

    uniform = tabulate_policy(lambda obs: np.full(4, 0.25), "ghost", stochastic=True)
    batched = tabulate_policy(lambda obs: np.full((len(obs), 4), 0.25), "ghost", batch=True, stochastic=True)
    np.testing.assert_array_equal(uniform, batched)
    pair = evaluate_policies("random", uniform)
    np.testing.assert_allclose(pair.values, evaluate_policies("random", "random").values, atol=1e-12)
    assert set(np.unique(uniform)) == {0.0, 0.25}  # 0 where the game is over
    with pytest.raises(ValueError, match=r"probabilities for the ghost at agent \(0, 0\), ghost \(0, 1\) are not a"):
        tabulate_policy(lambda obs: np.array([1.0, 1.0, 0.0, 0.0]), "ghost", stochastic=True)
    with pytest.raises(TypeError, match=r"policy returned None for the agent at agent \(0, 0\), ghost \(0, 1\);"):
        tabulate_policy(lambda obs: None)
    with pytest.raises(ValueError, match=r"policy returned 7 for the agent at agent \(0, 0\), ghost \(0, 1\)"):
        tabulate_policy(lambda obs: 7)
    with pytest.raises(ValueError, match=r"policy returned action 4 for the agent at agent \(0, 0\), ghost \(0, 1\)"):
        tabulate_policy(lambda obs: np.full(len(obs), 4), batch=True)
    column = tabulate_policy(lambda obs: np.zeros((len(obs), 1), int), batch=True)  # what predict() gives
    np.testing.assert_array_equal(column, tabulate_policy(lambda obs: 0))
    small = gridghost.Layout(colours=np.zeros((2, 3), int), goals=[(1, 2)], agent_start=(0, 0), ghost_start=(0, 2))
    game = gridghost.env(layout=small, slip="none").config.game()
    by_game = tabulate_policy(lambda obs: 1, game=game)
    np.testing.assert_array_equal(by_game, tabulate_policy(lambda obs: 1, layout=small))
    with pytest.raises(ValueError, match=r"pass the game as game= or as settings, not both; got game and \['layout'\]"):
        tabulate_policy(lambda obs: 0, layout=small, game=game)


def test_tabulate_reads_a_deprecated_configs_game_and_encoding() -> None:
    from gridghost.planning import tabulate_policy

    env = gridghost.env(obs_type="vector", slip="none")
    seen = []
    with pytest.warns(DeprecationWarning, match=r"config= is deprecated: pass game=config\.game\(\)"):
        tabulate_policy(lambda obs: seen.append(obs) or 0, config=env.config)
    assert isinstance(seen[0], np.ndarray) and seen[0].shape == (26,)  # the config's encoding
    with pytest.raises(TypeError, match=r"pass game=GameConfig\.from_dict\(d\)\.game\(\)"):
        tabulate_policy(lambda obs: 0, config=env.config.to_dict())


def test_solutions_say_what_they_are_and_planners_play_the_unending_game() -> None:
    from gridghost.planning import MinimaxGhost, solve_game

    assert repr(solve_game(horizon=5)).startswith(
        "GameSolution(layout='classic', slip=LongitudinalSlip(probability=0.2), gamma=0.99, horizon=5, sweeps=5")
    with pytest.raises(ValueError, match="gamma=1 without a horizon"):
        MinimaxGhost(CLASSIC, "longitudinal", gamma=1.0)
    with pytest.raises(TypeError, match="horizon"):  # a stationary policy is no minimax player of a cut game
        MinimaxGhost(CLASSIC, "longitudinal", horizon=20)
    assert MinimaxGhost().layout == CLASSIC and OptimalAgent().layout == CLASSIC  # None means the classic map


def test_a_planner_class_is_built_with_the_solvers_gamma() -> None:
    from gridghost.planning import MinimaxGhost, ghost_exploitability

    # a 3 x 4 map where the minimax ghost of gamma 0.99 is not the minimax ghost of gamma 0.5
    layout = gridghost.Layout(colours=np.zeros((3, 4), int), goals=[(2, 3)], agent_start=(0, 0), ghost_start=(2, 2),
                              walls_horizontal=np.array([[0, 1, 1, 0], [0, 0, 0, 0]], bool),
                              walls_vertical=np.array([[0, 0, 1], [0, 1, 0], [1, 0, 0]], bool))
    assert ghost_exploitability(MinimaxGhost(layout, gamma=0.99), layout, gamma=0.5) > 1.0
    assert ghost_exploitability(MinimaxGhost, layout, gamma=0.5) == pytest.approx(0.0, abs=1e-9)


def test_the_solver_refuses_more_states_than_it_takes_and_its_caches_are_bounded(monkeypatch) -> None:
    import gridghost.planning.model as model
    from gridghost.planning import clear_caches, solve_game

    monkeypatch.setattr(model, "MAX_STATES", 300)  # the classic map has 342
    clear_caches()
    with pytest.raises(ValueError, match=r"layout 'classic' has 342 states .* at most gridghost\.planning\.MAX_STATES"):
        solve_game()
    monkeypatch.undo()
    small = gridghost.Layout(colours=np.zeros((2, 3), int), goals=[(1, 2)], agent_start=(0, 0), ghost_start=(0, 2))
    first = solve_game(small)
    assert solve_game(small) is first  # kept for the next solve
    monkeypatch.setattr(model, "CACHE_BYTES", 1)  # room for the most recent model and solution only
    solve_game(CLASSIC)
    assert solve_game(small) is not first and solve_game(small) is solve_game(small)
    clear_caches()


def test_long_horizons_settle_instead_of_iterating_to_the_end() -> None:
    from gridghost.planning.solve import _outcome_within

    pair = evaluate_policies("random", "chase")
    long, longer = pair.success_probability(*START, horizon=2_000), pair.success_probability(*START, horizon=100_000)
    assert longer == long and 0.3 < long < 0.4
    # the recursion stops once no game still going can end: its probabilities then equal the full run's
    agent, ghost = pair._policies()
    probability, _ = _outcome_within(pair.model, agent, ghost, gridghost.Outcome.GOAL, 5_000)
    assert probability[pair.model.live_index(*START)] == long


def test_state_policy_tables_and_qmdp_inputs_are_checked() -> None:
    from gridghost.core.rules import Side
    from gridghost.planning import QMDPAgent, StatePolicy

    cells = CLASSIC.rows * CLASSIC.cols
    with pytest.raises(ValueError, match=r"actions must be an int array of shape \(cells, cells\) = \(20, 20\)"):
        StatePolicy(CLASSIC, Side.GHOST, np.zeros((20, 19), int))
    with pytest.raises(TypeError, match="actions must hold int actions"):
        StatePolicy(CLASSIC, Side.GHOST, np.zeros((cells, cells)))
    with pytest.raises(ValueError, match=r"actions must hold actions 0\.\.3"):
        StatePolicy(CLASSIC, Side.GHOST, np.full((cells, cells), 260))
    with pytest.raises(ValueError, match=r"side must be a gridghost\.core\.rules\.Side"):
        StatePolicy(CLASSIC, 5, np.zeros((cells, cells), int))
    qmdp = QMDPAgent()
    belief = np.full(CLASSIC.shape, 1 / cells)
    assert qmdp.q(belief, (3, 2)).shape == (4,)
    for bad in (np.full(CLASSIC.shape, np.nan), -belief):
        with pytest.raises(ValueError, match="belief must hold finite probabilities >= 0"):
            qmdp.q(bad, (3, 2))
    with pytest.raises(TypeError, match="ghost_relative_pos must be a"):
        qmdp.q(belief, (2.9, 1.9))


def test_picture_marks_must_be_cells_of_ints() -> None:
    from gridghost.drawing import value_picture

    values = np.zeros(CLASSIC.shape)
    with pytest.raises(TypeError, match="pair of ints"):
        value_picture(CLASSIC, values, marks={(3.9, 4.2): "ghost"})
    with pytest.raises(TypeError, match="pair of ints"):
        value_picture(CLASSIC, values, marks={(True, 1): "ghost"})
