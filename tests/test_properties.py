"""Property tests on random layouts: the rules and the env hold on maps nobody drew by hand."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import gridghost
from gridghost.core.layout import Layout
from gridghost.core.rules import ACTION_DELTAS, GameState, Side, board_for
from gridghost.sensing.observations import DictObservations

from helpers import bfs_distances


@st.composite
def layouts(draw) -> Layout:
    rows = draw(st.integers(1, 6))
    cols = draw(st.integers(2 if rows > 1 else 3, 6))  # room for agent, ghost and a goal
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    agent, ghost, goal = draw(st.lists(st.sampled_from(cells), min_size=3, max_size=3, unique=True))
    flags = st.booleans()
    horizontal = np.array(draw(st.lists(flags, min_size=(rows - 1) * cols, max_size=(rows - 1) * cols)), bool)
    vertical = np.array(draw(st.lists(flags, min_size=rows * (cols - 1), max_size=rows * (cols - 1))), bool)
    colours = np.array(draw(st.lists(st.integers(0, 2), min_size=rows * cols, max_size=rows * cols)))
    try:
        return Layout(
            colours=colours.reshape(rows, cols), goals=[goal], agent_start=agent, ghost_start=ghost,
            walls_horizontal=horizontal.reshape(rows - 1, cols), walls_vertical=vertical.reshape(rows, cols - 1),
        )
    except ValueError as error:
        assert "cannot be reached" in str(error)
        assume(False)


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])


def walls_as_sets(layout: Layout) -> tuple[set, set]:
    return ({tuple(map(int, rc)) for rc in np.argwhere(layout.walls_horizontal)},
            {tuple(map(int, rc)) for rc in np.argwhere(layout.walls_vertical)})


@pytest.mark.slow  # a second or more: .ci/run runs the slow group
@SETTINGS
@given(layouts())
def test_distances_match_breadth_first_search_on_random_layouts(layout: Layout) -> None:
    board = board_for(layout)
    expected = bfs_distances(layout.rows, layout.cols, *walls_as_sets(layout))
    for a in layout.cells():
        for b in layout.cells():
            assert board.distance[board.index(a)][board.index(b)] == expected[a].get(b, -1)


@SETTINGS
@given(layouts())
def test_moves_only_cross_open_edges_on_random_layouts(layout: Layout) -> None:
    board = board_for(layout)
    for cell in layout.cells():
        for action, (dr, dc) in enumerate(ACTION_DELTAS):
            target = (cell[0] + dr, cell[1] + dc)
            landed = board.position(board.next_cell[board.index(cell)][action])
            assert landed == (cell if layout.blocked(cell, target) else target)


@pytest.mark.slow  # a second or more: .ci/run runs the slow group
@SETTINGS
@given(layouts())
def test_observations_lie_in_their_spaces_on_random_layouts(layout: Layout) -> None:
    board = board_for(layout)
    encoder = DictObservations(board)
    reachable = [board.index(c) for c in layout.reachable_from(layout.agent_start)]
    for a in reachable:
        for g in reachable:
            for side in Side:
                assert encoder.space(side).contains(encoder.observe(side, GameState(a, g)))


@pytest.mark.slow  # a second or more: .ci/run runs the slow group
@SETTINGS
@given(layouts(), st.integers(0, 2**32 - 1), st.sampled_from(["none", "longitudinal", "perpendicular"]))
def test_random_play_keeps_the_invariants_on_random_layouts(layout: Layout, seed: int, slip: str) -> None:
    env = gridghost.env(layout=layout, slip=slip, max_cycles=15)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    board = board_for(layout)
    reachable = layout.reachable_from(layout.agent_start)
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        assert env.observation_space(name).contains(obs)
        assert env.agent_pos in reachable and env.ghost_pos in reachable
        distance = board.distance[board.index(env.agent_pos)][board.index(env.ghost_pos)]
        assert obs["ghost_distance" if name == "agent" else "agent_distance"] == distance
        env.step(None if term or trunc else int(rng.integers(4)))
        assert sum(env.rewards.values()) == pytest.approx(0.0)
    assert env.cycles <= 15
