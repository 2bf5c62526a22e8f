"""The game kernel: exact successors against an oracle written from docs/game.md, the vectorised slip
sampler against the scalar one, and the chase table against the observation-reading policy."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from gridghost.core.game import Game
from gridghost.core.layout import CLASSIC, Layout
from gridghost.core.policies import ChasePolicy
from gridghost.core.rules import GameState, Outcome, Rewards, Side
from gridghost.core.slip import LongitudinalSlip, NoSlip, PerpendicularSlip, SlipModel
from gridghost.sensing.observations import DictObservations

DELTAS = {0: (0, -1), 1: (1, 0), 2: (0, 1), 3: (-1, 0)}
PERPENDICULAR = {0: (1, 3), 1: (0, 2), 2: (1, 3), 3: (0, 2)}


def random_layout(rows: int, cols: int, seed: int) -> Layout:
    """A walled layout whose goals and ghost are reachable from the agent's start."""
    rng = np.random.default_rng(seed)
    while True:
        try:
            return Layout(
                colours=rng.integers(0, 3, size=(rows, cols)),
                walls_horizontal=rng.random((rows - 1, cols)) < 0.25,
                walls_vertical=rng.random((rows, cols - 1)) < 0.25,
                goals=[(rows - 1, cols - 1)], agent_start=(0, 0), ghost_start=(rows - 1, 0),
            )
        except ValueError:
            continue


LAYOUTS = [CLASSIC, random_layout(5, 6, 1), random_layout(3, 7, 2)]
SLIPS = [NoSlip(), LongitudinalSlip(0.2), LongitudinalSlip(1.0), PerpendicularSlip(0.3), PerpendicularSlip(1.0)]


def oracle_step(layout: Layout, cell: tuple[int, int], action: int) -> tuple[int, int]:
    """One move read straight from the layout's walls and border."""
    dr, dc = DELTAS[action]
    target = (cell[0] + dr, cell[1] + dc)
    return cell if layout.blocked(cell, target) else target


def oracle_slip(slip: SlipModel, action: int) -> list[tuple[float, tuple[int, ...]]]:
    """The slip tables of docs/game.md, written out again."""
    p = slip.probability
    if isinstance(slip, NoSlip):
        return [(1.0, (action,))]
    if isinstance(slip, LongitudinalSlip):
        return [(p / 2, ()), (p / 2, (action, action)), (1 - p, (action,))]
    first, second = PERPENDICULAR[action]
    return [(p / 2, (first,)), (p / 2, (second,)), (1 - p, (action,))]


def oracle_successors(layout, slip, agent, ghost, action) -> dict[tuple, float]:
    """``{(agent cell, ghost cell, outcome, agent reward): probability}`` of the agent's move."""
    result: dict[tuple, float] = {}
    for p, moves in oracle_slip(slip, action):
        if p == 0:
            continue
        cell = agent
        for move in moves:
            cell = oracle_step(layout, cell, move)
        if cell == ghost:
            key = (cell, ghost, Outcome.CAUGHT, -50.0)
        elif cell in layout.goals:
            key = (cell, ghost, Outcome.GOAL, 100.0)
        else:
            key = (cell, ghost, Outcome.ONGOING, -1.0)
        result[key] = result.get(key, 0.0) + p
    return result


@pytest.mark.parametrize("slip", SLIPS, ids=repr)
@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda layout: f"{layout.rows}x{layout.cols}")
def test_agent_successors_match_the_oracle_for_every_state(layout: Layout, slip: SlipModel) -> None:
    game = Game(layout, slip)
    cells = layout.cells()
    for agent in cells:
        if agent in layout.goals:
            continue
        for ghost in cells:
            if ghost == agent:
                continue
            state = GameState(game.board.index(agent), game.board.index(ghost))
            for action in range(4):
                successors = game.successors(state, action)
                got = {}
                for p, after, agent_reward, ghost_reward in successors:
                    assert after.turn == Side.GHOST and ghost_reward == 0.0 - agent_reward
                    key = (game.board.position(after.agent), game.board.position(after.ghost), after.outcome,
                           agent_reward)
                    assert key not in got, "equal next states must be merged"
                    got[key] = p
                want = oracle_successors(layout, slip, agent, ghost, action)
                assert got.keys() == want.keys()
                assert all(abs(got[k] - want[k]) < 1e-12 for k in want)
                assert abs(sum(got.values()) - 1.0) < 1e-12 and all(p > 0 for p in got.values())


def test_ghost_successors_are_certain_and_rewarded_by_the_ghosts_rewards() -> None:
    game = Game(CLASSIC, LongitudinalSlip(0.2), ghost_rewards=Rewards(step=0, goal=-7, caught=9, wait=-2))
    board = game.board
    # The ghost at (3, 3) next to the agent at (3, 4)? (3,4) is a goal; use (2, 4) above (3, 4).
    state = GameState(board.index((2, 4)), board.index((3, 4)), Side.GHOST)
    [(p, after, agent_reward, ghost_reward)] = game.successors(state, 3)  # up: onto the agent
    assert (p, after.outcome, agent_reward, ghost_reward) == (1.0, Outcome.CAUGHT, -50.0, 9.0)
    [(p, after, agent_reward, ghost_reward)] = game.successors(state, 0)  # left
    assert (p, board.position(after.ghost), after.turn, agent_reward, ghost_reward) == (1.0, (3, 3), Side.AGENT,
                                                                                         0.0, -2.0)


def test_without_the_ghost_the_turn_stays_with_the_agent_and_nobody_is_caught() -> None:
    game = Game(CLASSIC, NoSlip(), use_ghost=False)
    board = game.board
    state = GameState(board.index((2, 4)), board.index((3, 4)))
    [(p, after, reward, _)] = game.successors(state, 1)  # down onto the ghost's cell, a goal
    assert (p, after.turn, after.outcome, reward) == (1.0, Side.AGENT, Outcome.GOAL, 100.0)


@pytest.mark.parametrize("slip", [NoSlip(), LongitudinalSlip(0.2), LongitudinalSlip(0.7)], ids=repr)
def test_one_uniform_means_the_same_move_in_the_scalar_and_batched_samplers(slip: SlipModel) -> None:
    game = Game(CLASSIC, slip)
    rng = np.random.default_rng(0)
    for _ in range(2000):
        cell, action = int(rng.integers(20)), int(rng.integers(4))
        twin = copy.deepcopy(rng)
        moves = slip.sample(action, twin)
        scalar = cell
        for move in moves:
            scalar = game.board.next_cell[scalar][move]
        u = rng.random() if slip.probability > 0 else 0.5
        assert int(game.agent_moves(cell, action, u)) == scalar


def test_the_batched_perpendicular_sampler_agrees_on_the_group_and_the_distribution() -> None:
    slip = PerpendicularSlip(0.4)
    game = Game(random_layout(6, 6, 3), slip)
    rng = np.random.default_rng(1)
    n = 200_000
    cells = rng.integers(game.num_cells, size=n)
    actions = rng.integers(4, size=n)
    uniforms = rng.random(n)
    after = game.agent_moves(cells, actions, uniforms)
    intended = game.moves[cells, actions]
    # Below p the move is one of the perpendicular ones, above it the intended one.
    assert (after[uniforms >= 0.4] == intended[uniforms >= 0.4]).all()
    # Inside the slip's share the uniform's place picks the member: the first perpendicular move
    # below p/2, the second above; each member keeps its probability p/2.
    for action in range(4):
        _, destinations = game.outcomes[action]
        chosen = actions == action
        first = chosen & (uniforms < 0.2)
        second = chosen & (uniforms >= 0.2) & (uniforms < 0.4)
        assert (after[first] == destinations[0, cells[first]]).all()
        assert (after[second] == destinations[1, cells[second]]).all()


@pytest.mark.parametrize(
    ("cells", "actions", "uniforms", "message"),
    [(20, 0, 0.5, "cells"), (-1, 0, 0.5, "cells"), (0, 4, 0.5, "actions"), (0, 0, 1.0, "uniforms"),
     (0, 0, float("nan"), "uniforms"), (0, 0, -0.1, "uniforms")],
)
def test_the_batched_sampler_refuses_out_of_range_input(cells, actions, uniforms, message) -> None:
    with pytest.raises(ValueError, match=message):
        Game(CLASSIC, LongitudinalSlip(0.2)).agent_moves(cells, actions, uniforms)


@pytest.mark.parametrize("layout", [*LAYOUTS, random_layout(7, 4, 5), random_layout(8, 8, 6)],
                         ids=lambda layout: f"{layout.rows}x{layout.cols}")
def test_the_chase_table_is_the_chasing_policy_on_every_pair(layout: Layout) -> None:
    game = Game(layout, NoSlip())
    view = DictObservations(game.board)
    chase = ChasePolicy()
    table = game.chase_table
    assert table.shape == (game.num_cells, game.num_cells) and not table.flags.writeable
    for agent in range(game.num_cells):
        for ghost in range(game.num_cells):
            state = GameState(agent, ghost, Side.GHOST)
            assert table[agent, ghost] == chase(view.observe(Side.GHOST, state)), (agent, ghost)
            assert game.chase_action(state) == table[agent, ghost] == game.chase_bytes[agent * game.num_cells + ghost]


def test_outcome_tables_are_read_only_and_sum_to_one() -> None:
    game = Game(CLASSIC, PerpendicularSlip(0.2))
    for probabilities, destinations in game.outcomes:
        assert abs(probabilities.sum() - 1) < 1e-12 and destinations.shape == (len(probabilities), 20)
        assert not probabilities.flags.writeable and not destinations.flags.writeable
    assert not game.moves.flags.writeable and not game.action_masks.flags.writeable


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [(dict(layout="classic"), "layout must be a gridghost.Layout"), (dict(slip="none"), "slip must be"),
     (dict(rewards=5), "rewards must be"), (dict(ghost_rewards={}), "ghost_rewards must be")],
)
def test_bad_game_arguments_are_named(kwargs, message) -> None:
    arguments = {"layout": CLASSIC, "slip": NoSlip(), **kwargs}
    with pytest.raises(TypeError, match=message):
        Game(**arguments)


@pytest.mark.parametrize(("action", "error"), [(-1, ValueError), (4, ValueError), (True, TypeError), (1.0, TypeError)])
def test_the_kernels_half_turns_refuse_bad_actions(action, error) -> None:
    game = Game(CLASSIC, LongitudinalSlip(0.2))
    start = game.initial_state()
    ghost_turn = start._replace(turn=Side.GHOST)
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    with pytest.raises(error, match="action for 'agent'"):
        game.successors(start, action)
    with pytest.raises(error, match="action for 'agent'"):
        game.agent_step(start, action, rng)
    with pytest.raises(error, match="action for 'ghost'"):
        game.ghost_step(ghost_turn, action)
    with pytest.raises(error, match="action for 'ghost'"):
        game.successors(ghost_turn, action)
    assert rng.bit_generator.state == before


def test_an_agent_step_out_of_turn_draws_nothing() -> None:
    game = Game(CLASSIC, LongitudinalSlip(0.2))
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    with pytest.raises(ValueError, match="the agent cannot move"):
        game.agent_step(game.initial_state()._replace(turn=Side.GHOST), 1, rng)
    assert rng.bit_generator.state == before


@pytest.mark.parametrize(("cells", "actions", "uniforms", "argument"),
                         [([1.7], [1], [0.5], "cells"), ([1], [1.9], [0.5], "actions"), ([1], [True], [0.5], "actions"),
                          ([1], [1], ["x"], "uniforms")])
def test_the_batched_sampler_refuses_values_of_the_wrong_kind(cells, actions, uniforms, argument) -> None:
    with pytest.raises(TypeError, match=f"{argument} must be an array of"):
        Game(CLASSIC, LongitudinalSlip(0.2)).agent_moves(cells, actions, uniforms)


def test_the_rule_the_table_and_the_function_agree() -> None:
    from gridghost.core.game import chase_action

    game = Game(random_layout(5, 5, 9), NoSlip())
    for agent in range(game.num_cells):
        for ghost in range(game.num_cells):
            assert chase_action(game.board, agent, ghost) == game.chase_table[agent, ghost]


@pytest.mark.parametrize("slip", SLIPS, ids=repr)
@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda layout: f"{layout.rows}x{layout.cols}")
def test_transitions_of_every_state_at_once_are_the_oracles(layout: Layout, slip: SlipModel) -> None:
    """The vectorised half-turn, merged per state, equals the oracle written from docs/game.md for the
    agent, and the ghost's single move for the ghost."""
    game = Game(layout, slip)
    cells = layout.rows * layout.cols
    live = [(a, g) for a in range(cells) for g in range(cells) if a != g and not game.goals[a]]
    agents, ghosts = (np.array(column) for column in zip(*live, strict=True))
    for action in range(4):
        half = game.transitions(Side.AGENT, action, agents, ghosts)
        assert np.isclose(half.probabilities.sum(), 1.0)
        for i, (agent, ghost) in enumerate(live):
            merged: dict[tuple, float] = {}
            for k, p in enumerate(half.probabilities):
                outcome = Outcome(half.outcomes[i, k])
                key = (divmod(int(half.agents[i, k]), layout.cols), divmod(int(half.ghosts[i, k]), layout.cols),
                       outcome, half.agent_rewards[i, k])
                merged[key] = merged.get(key, 0.0) + p
                assert half.ghost_rewards[i, k] == -half.agent_rewards[i, k]  # zero-sum by default
            want = oracle_successors(layout, slip, divmod(agent, layout.cols), divmod(ghost, layout.cols), action)
            assert set(merged) == set(want)
            assert all(np.isclose(merged[key], want[key]) for key in want)
        moved = game.transitions(Side.GHOST, action, agents, ghosts)
        np.testing.assert_array_equal(moved.ghosts[:, 0], game.moves[ghosts, action])
        np.testing.assert_array_equal(moved.outcomes[:, 0] == Outcome.CAUGHT, moved.ghosts[:, 0] == agents)


def test_transitions_refuse_what_is_not_a_move_of_a_live_state() -> None:
    game = Game(CLASSIC, LongitudinalSlip(0.2))
    agents, ghosts = np.array([2, 3]), np.array([19, 18])
    for action, error in ((-1, ValueError), (4, ValueError), (True, TypeError), (1.5, TypeError)):
        with pytest.raises(error, match="action"):
            game.transitions(Side.AGENT, action, agents, ghosts)
    with pytest.raises(TypeError, match=r"side must be a gridghost\.core\.rules\.Side"):
        game.transitions(0, 1, agents, ghosts)
    with pytest.raises(TypeError, match="agents must be a 1-d array of int cell indices"):
        game.transitions(Side.AGENT, 1, [2.0, 3.0], ghosts)
    with pytest.raises(ValueError, match=r"ghosts must be cell indices 0\.\.19"):
        game.transitions(Side.AGENT, 1, agents, np.array([19, 20]))
    with pytest.raises(ValueError, match="agents and ghosts must have the same length"):
        game.transitions(Side.AGENT, 1, agents, ghosts[:1])
    with pytest.raises(ValueError, match="the game is over in state 1"):
        game.transitions(Side.GHOST, 1, agents, np.array([19, 3]))
    with pytest.raises(ValueError, match="the game is over"):  # (3, 1) is a goal
        game.transitions(Side.AGENT, 1, np.array([16]), np.array([0]))
    with pytest.raises(ValueError, match="out of the game"):
        Game(CLASSIC, NoSlip(), use_ghost=False).transitions(Side.GHOST, 1, agents, ghosts)
