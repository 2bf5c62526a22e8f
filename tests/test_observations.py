"""Dict observations: inside their spaces everywhere, the reference semantics, fresh objects."""

from __future__ import annotations

import numpy as np
import pytest

from gridghost.core.layout import CLASSIC, Layout
from gridghost.core.rules import GameState, Side, board_for
from gridghost.sensing.observations import DictObservations, make_observations

BOARD = board_for(CLASSIC)
OBS = DictObservations(BOARD)


def all_states(board):
    reachable = {board.index(c) for c in board.layout.reachable_from(board.layout.agent_start)}
    return [GameState(a, g) for a in reachable for g in reachable]


@pytest.mark.parametrize("side", list(Side))
def test_every_observation_of_every_position_lies_in_its_space(side: Side) -> None:
    space = OBS.space(side)
    for state in all_states(BOARD):
        assert space.contains(OBS.observe(side, state)), state


def test_observations_on_a_larger_custom_layout_lie_in_their_spaces() -> None:
    layout = Layout(colours=np.arange(42).reshape(6, 7) % 3, goals=[(5, 6)], agent_start=(0, 0),
                    ghost_start=(5, 0), texts={(0, 0): "Los geht's!", (5, 6): "Ziel"})
    board = board_for(layout)
    obs = DictObservations(board)
    for side in Side:
        for state in all_states(board):
            assert obs.space(side).contains(obs.observe(side, state))


def test_neighbours_outside_the_grid_and_behind_walls() -> None:
    # (0, 0): up and left are outside; right is behind a wall to the red (0, 1); down is open.
    obs = OBS.observe(Side.AGENT, GameState(BOARD.index((0, 0)), BOARD.index((3, 4))))
    assert obs["neighbors"] == {
        "up": {"accessible": 0, "colour": 0},
        "right": {"accessible": 0, "colour": 1},
        "down": {"accessible": 1, "colour": 0},
        "left": {"accessible": 0, "colour": 0},
    }
    assert obs["current_cell"]["colour"] == 2 and obs["current_cell"]["has_item"].tolist() == [1, 0, 0]


def test_relative_positions_are_opponent_minus_observer_and_distances_go_around_walls() -> None:
    state = GameState(BOARD.index((0, 2)), BOARD.index((1, 3)))
    agent, ghost = OBS.observe(Side.AGENT, state), OBS.observe(Side.GHOST, state)
    assert agent["ghost_relative_pos"].tolist() == [1, 1] and agent["ghost_relative_pos"].dtype == np.int32
    assert ghost["agent_relative_pos"].tolist() == [-1, -1]
    # Two steps apart as the crow flies, but both short paths are walled: (0,2) (0,3) (0,4) (1,4) (1,3).
    assert agent["ghost_distance"] == ghost["agent_distance"] == 4
    assert "text" in agent["current_cell"] and "text" not in ghost["current_cell"]


def test_observations_are_fresh_objects() -> None:
    state = BOARD.initial_state()
    first = OBS.observe(Side.AGENT, state)
    first["ghost_relative_pos"][:] = 0
    first["neighbors"]["up"]["accessible"] = 1
    first["current_cell"]["colour"] = 2
    first["current_cell"]["has_item"][:] = 1
    second = OBS.observe(Side.AGENT, state)
    assert second["ghost_relative_pos"].tolist() == [3, 2]
    assert second["neighbors"]["up"]["accessible"] == 0
    assert second["current_cell"]["colour"] == 0
    assert second["current_cell"]["has_item"].tolist() == [0, 0, 0]


def test_spaces_are_the_same_objects_and_unknown_types_raise() -> None:
    assert OBS.space(Side.AGENT) is OBS.space(Side.AGENT)
    with pytest.raises(ValueError, match="unknown obs_type 'pixels'; accepted: \\['dict', 'vector', 'belief', 'grid', "
                                         "'belief_vector', 'text'\\]"):
        make_observations("pixels", BOARD)


def dense_pair_slots(board) -> np.ndarray:
    """The vector encoding's last three slots for every (observer, opponent) pair, computed the
    way the encoder once did with whole cells x cells tables: the reference values."""
    layout = board.layout
    positions = np.array([board.position(i) for i in range(board.num_cells)], dtype=np.int32)
    relative = positions[None, :, :] - positions[:, None, :]
    scale = np.array([max(layout.rows - 1, 1), max(layout.cols - 1, 1)], dtype=np.float32)
    distance = np.array([list(row) for row in board.distance], dtype=np.float32)
    diameter = max(float(distance.max()), 1.0)
    return np.concatenate((relative / scale, (distance / diameter)[..., None]), axis=-1).astype(np.float32)


@pytest.mark.parametrize(
    "layout",
    [CLASSIC,
     Layout(colours=np.zeros((7, 9), int), goals=[(6, 8)], agent_start=(0, 0), ghost_start=(6, 0),
            walls_horizontal=np.arange(54).reshape(6, 9) % 4 == 1, walls_vertical=np.arange(56).reshape(7, 8) % 5 == 2),
     Layout(colours=np.zeros((1, 6), int), goals=[(0, 5)], agent_start=(0, 0), ghost_start=(0, 3))],
)
def test_vector_and_dict_pair_values_are_those_of_the_dense_tables(layout) -> None:
    board = board_for(layout)
    expected = dense_pair_slots(board)
    vectors, dicts = make_observations("vector", board), DictObservations(board)
    for me in range(board.num_cells):
        for other in range(board.num_cells):
            vector = vectors.observe(Side.AGENT, GameState(me, other))
            assert vector.dtype == np.float32 and vector[-3:].tobytes() == expected[me, other].tobytes()
            assert (vectors.observe(Side.GHOST, GameState(other, me)) == vector).all()
            relative = dicts.observe(Side.AGENT, GameState(me, other))["ghost_relative_pos"]
            assert relative.dtype == np.int32
            assert relative.tolist() == [a - b for a, b in zip(board.position(other), board.position(me), strict=True)]
