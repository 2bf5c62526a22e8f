"""Rules: moves through walls, distances, outcomes and rewards, on the classic and tiny maps."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from gridghost.core.game import Game
from gridghost.core.layout import CLASSIC, Layout
from gridghost.core.rules import (
    Action,
    GameState,
    Outcome,
    Rewards,
    Side,
    board_for,
    describe_moves,
)
from gridghost.core.slip import SlipModel

from helpers import HORIZONTAL_WALLS, VERTICAL_WALLS, bfs_distances

BOARD = board_for(CLASSIC)
LEFT, DOWN, RIGHT, UP = Action.LEFT, Action.DOWN, Action.RIGHT, Action.UP


def corridor(length: int = 4, goal: int | None = None) -> Layout:
    """A 1 x length corridor: agent at the left end, ghost at the right end."""
    goal = length - 1 if goal is None else goal
    return Layout(colours=[[0] * length], goals=[(0, goal)], agent_start=(0, 0), ghost_start=(0, length - 1))


def test_every_classic_wall_blocks_both_ways() -> None:
    for r, c in HORIZONTAL_WALLS:
        upper, lower = BOARD.index((r, c)), BOARD.index((r + 1, c))
        assert BOARD.next_cell[upper][DOWN] == upper
        assert BOARD.next_cell[lower][UP] == lower
    for r, c in VERTICAL_WALLS:
        left, right = BOARD.index((r, c)), BOARD.index((r, c + 1))
        assert BOARD.next_cell[left][RIGHT] == left
        assert BOARD.next_cell[right][LEFT] == right


def test_open_edges_move_and_the_border_blocks() -> None:
    deltas = {LEFT: (0, -1), DOWN: (1, 0), RIGHT: (0, 1), UP: (-1, 0)}
    for r, c in CLASSIC.cells():
        for action, (dr, dc) in deltas.items():
            target = (r + dr, c + dc)
            outside = not (0 <= target[0] < 4 and 0 <= target[1] < 5)
            walled = (
                (dr == 1 and (r, c) in HORIZONTAL_WALLS)
                or (dr == -1 and (r - 1, c) in HORIZONTAL_WALLS)
                or (dc == 1 and (r, c) in VERTICAL_WALLS)
                or (dc == -1 and (r, c - 1) in VERTICAL_WALLS)
            )
            expected = (r, c) if outside or walled else target
            assert BOARD.position(BOARD.next_cell[BOARD.index((r, c))][action]) == expected
            assert BOARD.action_mask[BOARD.index((r, c))][action] == int(expected != (r, c))


def test_distances_are_symmetric_and_match_breadth_first_search() -> None:
    expected = bfs_distances(4, 5, HORIZONTAL_WALLS, VERTICAL_WALLS)
    table = BOARD.distance
    assert all(table[a][b] == table[b][a] for a in range(20) for b in range(20))
    for a in CLASSIC.cells():
        for b in CLASSIC.cells():
            assert BOARD.distance[BOARD.index(a)][BOARD.index(b)] == expected[a][b]
    assert BOARD.distance[BOARD.index((0, 2))][BOARD.index((3, 4))] == 5


def test_distances_in_a_layout_with_an_unreachable_pocket() -> None:
    # (0, 3) is walled off from the rest; distances to it are -1.
    layout = Layout(colours=np.zeros((2, 4), int), goals=[(1, 3)], agent_start=(0, 0), ghost_start=(1, 0),
                    walls_horizontal=[[False, False, False, True]], walls_vertical=[[False, False, True], [False] * 3])
    board = board_for(layout)
    pocket = board.index((0, 3))
    assert board.distance[board.index((0, 0))][pocket] == -1
    assert board.distance[pocket][pocket] == 0
    assert board.distance[board.index((0, 0))][board.index((1, 3))] == 4


def test_boards_are_cached_per_layout() -> None:
    assert board_for(CLASSIC) is board_for(CLASSIC)
    assert board_for(corridor()) is board_for(corridor())


class Fixed(SlipModel):
    """Every action becomes the same move sequence, ``moves`` (a test slip model)."""

    def __init__(self, moves: tuple[int, ...]) -> None:
        self.moves = moves
        super().__init__(0.0)

    def _groups(self, action):
        return ((1.0, (self.moves,)),)


def move_agent(layout: Layout, state: GameState, moves: tuple[int, ...]) -> GameState:
    """The state after the agent carries out exactly ``moves``, through the game kernel."""
    return Game(layout, Fixed(moves)).agent_step(state, 0, np.random.default_rng(0))[0]


def move_ghost(layout: Layout, state: GameState, action: int) -> GameState:
    return Game(layout, Fixed(())).ghost_step(state, action)


def test_agent_reaching_a_goal_and_walking_into_the_ghost() -> None:
    layout = corridor(4, goal=2)
    start = board_for(layout).initial_state()
    assert start == GameState(0, 3, Side.AGENT, Outcome.ONGOING)
    after = move_agent(layout, start, (RIGHT,))
    assert after == GameState(1, 3, Side.GHOST, Outcome.ONGOING)
    assert move_agent(layout, start, (RIGHT, RIGHT)).outcome == Outcome.GOAL
    near_ghost = GameState(2, 3, Side.AGENT)
    assert move_agent(layout, near_ghost, (RIGHT,)).outcome == Outcome.CAUGHT  # caught beats goal


def test_only_the_final_cell_of_a_double_move_counts() -> None:
    layout = Layout(colours=[[0] * 4], goals=[(0, 3)], agent_start=(0, 0), ghost_start=(0, 1))
    state = move_agent(layout, board_for(layout).initial_state(), (RIGHT, RIGHT))
    assert board_for(layout).position(state.agent) == (0, 2) and state.outcome == Outcome.ONGOING


def test_ghost_moves_once_and_catches() -> None:
    layout = corridor(4, goal=1)
    state = GameState(1, 3, Side.GHOST)
    assert move_ghost(layout, state, LEFT) == GameState(1, 2, Side.AGENT, Outcome.ONGOING)
    assert move_ghost(layout, GameState(1, 2, Side.GHOST), LEFT).outcome == Outcome.CAUGHT
    assert move_ghost(layout, state, RIGHT).ghost == 3  # the border


def test_without_the_ghost_nobody_is_caught_and_the_agent_moves_again() -> None:
    layout = corridor(4, goal=3)
    game = Game(layout, Fixed((RIGHT, RIGHT, RIGHT)), use_ghost=False)
    after, moves = game.agent_step(game.initial_state(), 2, np.random.default_rng(0))
    assert moves == (RIGHT, RIGHT, RIGHT) and after == GameState(3, 3, Side.AGENT, Outcome.GOAL)


@pytest.mark.parametrize(
    ("mover", "state"),
    [
        (move_agent, GameState(0, 3, Side.GHOST)),
        (move_ghost, GameState(0, 3, Side.AGENT)),
        (move_ghost, GameState(0, 3, Side.GHOST, Outcome.CAUGHT)),
        (move_agent, GameState(0, 3, Side.AGENT, Outcome.GOAL)),
    ],
)
def test_moving_out_of_turn_or_after_the_end_raises(mover, state) -> None:
    with pytest.raises(ValueError, match="cannot move"):
        mover(corridor(), state, (LEFT,) if mover is move_agent else LEFT)


def test_rewards_per_half_turn_and_zero_sum() -> None:
    rewards = Rewards()
    assert rewards.of(Side.AGENT, Outcome.ONGOING) == -1.0
    assert rewards.of(Side.AGENT, Outcome.GOAL) == 100.0
    assert rewards.of(Side.AGENT, Outcome.CAUGHT) == -50.0
    assert rewards.of(Side.GHOST, Outcome.CAUGHT) == -50.0
    assert rewards.of(Side.GHOST, Outcome.ONGOING) == 0.0
    ghost = rewards.negated()
    for mover in Side:
        for outcome in Outcome:
            assert rewards.of(mover, outcome) + ghost.of(mover, outcome) == 0.0


@pytest.mark.parametrize(("field", "value", "error"), [("step", "1", TypeError), ("goal", float("nan"), ValueError),
                                                       ("caught", True, TypeError), ("wait", float("inf"), ValueError)])
def test_bad_rewards_raise(field, value, error) -> None:
    with pytest.raises(error, match=f"Rewards.{field}"):
        Rewards(**{field: value})


@pytest.mark.parametrize(
    ("intended", "moves", "expected"),
    [
        (1, (1,), (False, "down")),
        (1, (), (True, "stay")),
        (0, (0, 0), (True, "left, left")),
        (3, (2,), (True, "right")),
    ],
)
def test_describe_moves_gives_the_reference_texts(intended, moves, expected) -> None:
    assert describe_moves(intended, moves) == expected


def test_a_state_holds_a_tuple_of_ghosts_and_reads_one_ghost_as_ghost() -> None:
    one = GameState(3, 7)  # the one-ghost spelling: an int is a one-cell tuple
    assert one == GameState(3, (7,)) == (3, (7,), Side.AGENT, Outcome.ONGOING)
    assert one.ghosts == (7,) and one.ghost == 7
    assert type(GameState(3, np.int64(7)).ghosts[0]) is int
    assert GameState(3, [7, 8], Side.GHOST).ghosts == (7, 8)
    team = GameState(3, (7, 8))
    with pytest.raises(ValueError, match=r"this one has 2 ghosts: read state\.ghosts"):
        team.ghost  # noqa: B018
    for bad in ("7", True, 7.0, None):
        with pytest.raises(TypeError, match=r"ghosts must be a tuple of int cell indices \(or one int"):
            GameState(3, bad)  # type: ignore[arg-type]
    assert pickle.loads(pickle.dumps(team)) == team and type(pickle.loads(pickle.dumps(team))) is GameState
    moved = team._replace(agent=4)
    assert type(moved) is GameState and moved == (4, (7, 8), Side.AGENT, Outcome.ONGOING)


def test_a_state_refuses_ghost_cells_that_are_not_ints() -> None:
    for bad in ((7.5,), (True,), ("3",), (1, None)):
        with pytest.raises(TypeError, match="ghosts must be a tuple of int cell indices"):
            GameState(4, bad)
    assert GameState(4, (np.int64(7), 2)).ghosts == (7, 2)
    assert all(type(cell) is int for cell in GameState(4, (np.int64(7), 2)).ghosts)
