"""Dict observations: inside their spaces everywhere, the reference semantics, fresh objects."""

from __future__ import annotations

import numpy as np
import pytest

from gridghost.layout import CLASSIC, Layout
from gridghost.observations import DictObservations, make_observations
from gridghost.rules import GameState, Side, board_for

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
    with pytest.raises(ValueError, match="unknown obs_type 'pixels'; accepted: \\['dict', 'vector', 'belief'\\]"):
        make_observations("pixels", BOARD)
