"""Boards at scale: distance tables against an independent search on walled and maze-like
layouts up to the size limit, the limit's error, the memory-bounded board cache, and a 64 x 64
game with every encoding."""

from __future__ import annotations

import copy
import functools
import pickle

import numpy as np
import pytest

import gridghost
from gridghost.core import rules
from gridghost.core.layout import MAX_CELLS, Layout
from gridghost.core.recent import RecentCache
from gridghost.core.rules import Board, GameState, Side, board_for, cached_board_bytes
from gridghost.core.slip import LongitudinalSlip
from gridghost.sensing.filters import HistogramFilter
from gridghost.sensing.observations import make_observations

from helpers import Gauge, bfs_from


def walled_layout(horizontal: np.ndarray, vertical: np.ndarray, name: str = "custom") -> Layout:
    """A blank layout with these walls: the agent at (0, 0), the ghost and the goal at the
    farthest cell it can reach (layouts must connect them)."""
    rows, cols = vertical.shape[0], horizontal.shape[1]
    reach = bfs_from(rows, cols, wall_set(horizontal), wall_set(vertical), (0, 0))
    far = max(reach, key=reach.get)
    return Layout(colours=np.zeros((rows, cols), int), goals=[far], agent_start=(0, 0), ghost_start=far,
                  walls_horizontal=horizontal, walls_vertical=vertical, name=name)


def wall_set(walls: np.ndarray) -> set:
    return {tuple(cell) for cell in np.argwhere(walls).tolist()}


def random_walls(rows: int, cols: int, density: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    horizontal, vertical = rng.random((rows - 1, cols)) < density, rng.random((rows, cols - 1)) < density
    horizontal[:1, :1] = vertical[:1, :1] = False  # the agent's corner stays open
    return horizontal, vertical


@functools.cache  # a 64 x 64 board is built once for the whole module
def serpentine(rows: int, cols: int) -> Layout:
    """Every row a corridor, joined to the next at alternating ends: one path through all cells."""
    horizontal = np.ones((rows - 1, cols), dtype=bool)
    for r in range(rows - 1):
        horizontal[r, cols - 1 if r % 2 == 0 else 0] = False
    return walled_layout(horizontal, np.zeros((rows, cols - 1), dtype=bool))


@functools.cache
def carved_maze(rows: int, cols: int, seed: int) -> Layout:
    """A perfect maze (one path between any two cells), carved by a randomised depth-first walk."""
    rng = np.random.default_rng(seed)
    horizontal, vertical = np.ones((rows - 1, cols), bool), np.ones((rows, cols - 1), bool)
    seen, stack = {(0, 0)}, [(0, 0)]
    while stack:
        r, c = stack[-1]
        options = [(r + dr, c + dc) for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))
                   if 0 <= r + dr < rows and 0 <= c + dc < cols and (r + dr, c + dc) not in seen]
        if not options:
            stack.pop()
            continue
        nr, nc = options[rng.integers(len(options))]
        if nr != r:
            horizontal[min(r, nr), c] = False
        else:
            vertical[r, min(c, nc)] = False
        seen.add((nr, nc))
        stack.append((nr, nc))
    return walled_layout(horizontal, vertical)


def assert_rows_match_search(layout: Layout, sources: list[tuple[int, int]]) -> None:
    board = board_for(layout)
    horizontal, vertical = wall_set(layout.walls_horizontal), wall_set(layout.walls_vertical)
    for source in sources:
        expected = bfs_from(layout.rows, layout.cols, horizontal, vertical, source)
        row = board.distance[board.index(source)]
        for target in layout.cells():
            assert row[board.index(target)] == expected.get(target, -1), (source, target)


@pytest.mark.parametrize(
    ("rows", "cols", "density", "seed"),
    [(1, 9, 0.2, 0), (9, 1, 0.2, 1), (2, 2, 0.5, 2), (5, 8, 0.3, 3), (9, 9, 0.45, 4), (12, 17, 0.35, 5),
     (16, 16, 0.0, 6)],
)
def test_distances_match_breadth_first_search_on_random_walled_layouts(rows, cols, density, seed) -> None:
    layout = walled_layout(*random_walls(rows, cols, density, seed))
    assert_rows_match_search(layout, layout.cells())
    board = board_for(layout)
    table = board.distance_table
    assert table.dtype == np.int16 and not table.flags.writeable
    assert (table == table.T).all()
    assert board.diameter == table.max()
    assert type(board.distance[0][board.num_cells - 1]) is int


def test_distances_in_a_carved_maze_match_breadth_first_search() -> None:
    layout = carved_maze(18, 23, seed=7)
    assert_rows_match_search(layout, layout.cells())


@pytest.mark.slow  # a second or more: .ci/run runs the slow group
def test_a_64_by_64_serpentine_maze_has_every_distance_right() -> None:
    layout = serpentine(64, 64)
    board = board_for(layout)
    # The distance between two cells is the gap between their places along the single path.
    rows, cols = np.divmod(np.arange(64 * 64), 64)
    place = rows * 64 + np.where(rows % 2 == 0, cols, 63 - cols)
    assert (board.distance_table == np.abs(place[:, None] - place[None, :])).all()
    assert board.diameter == 64 * 64 - 1
    assert_rows_match_search(layout, [(0, 0), (31, 17), (63, 63)])


def test_a_64_by_64_walled_layout_matches_breadth_first_search_from_sampled_cells() -> None:
    layout = walled_layout(*random_walls(64, 64, 0.3, seed=8))
    rng = np.random.default_rng(9)
    sources = [tuple(cell) for cell in rng.integers(0, 64, size=(12, 2)).tolist()]
    assert_rows_match_search(layout, sources)
    table = board_for(layout).distance_table
    assert (table == table.T).all() and (table < 0).any()  # pockets the walls close off


@pytest.mark.parametrize(("rows", "cols"), [(65, 64), (150, 150)])
def test_layouts_above_the_limit_are_refused_naming_it(rows, cols) -> None:
    message = rf"'huge' is {rows} x {cols} = {rows * cols} cells.*MAX_CELLS = {MAX_CELLS}"
    with pytest.raises(ValueError, match=message):
        Layout(colours=np.zeros((rows, cols), int), goals=[(rows - 1, cols - 1)], agent_start=(0, 0),
               ghost_start=(0, 1), name="huge")


def test_the_largest_board_fits_the_cache_budget() -> None:
    assert MAX_CELLS**2 * 2 < rules.BOARD_CACHE_BYTES
    board = board_for(serpentine(64, 64))
    assert board.nbytes >= board.distance_table.nbytes == MAX_CELLS**2 * 2


def test_the_board_cache_is_bounded_by_bytes_and_evicted_boards_keep_working(monkeypatch) -> None:
    layouts = [walled_layout(*random_walls(20, 20, 0.2, seed), name=f"cached {seed}") for seed in range(8)]
    budget = 3 * Board(layouts[0]).nbytes
    monkeypatch.setattr(rules, "BOARD_CACHE_BYTES", budget)
    monkeypatch.setattr(rules, "_boards", RecentCache(lambda: rules.BOARD_CACHE_BYTES, lambda board: board.nbytes))
    first = board_for(layouts[0])
    expected = first.distance_table.copy()
    for layout in layouts[1:]:
        board_for(layout)
        board_for(layouts[1])  # used again: the least recently used go first
        assert cached_board_bytes() == sum(board.nbytes for board in rules._boards.kept.values()) <= budget
    assert board_for(layouts[1]) is board_for(layouts[1])
    assert board_for(layouts[0]) is not first  # evicted, then rebuilt
    assert (first.distance_table == expected).all()
    assert first.distance[0][first.num_cells - 1] == expected[0, -1]


@pytest.mark.parametrize("size", [(6, 7), (20, 20)])  # distances kept as tuples, and as memoryviews
def test_boards_and_encoders_pickle_and_copy(size) -> None:
    board = board_for(serpentine(*size))
    far = board.num_cells - 1
    assert type(board.distance[3][far]) is int
    for clone in (pickle.loads(pickle.dumps(board)), copy.deepcopy(board), copy.copy(board)):
        assert clone.layout == board.layout
        assert (clone.distance_table == board.distance_table).all()
        assert clone.distance[3][far] == board.distance[3][far] > 0
    vectors = make_observations("vector", board)
    state = GameState(3, far)
    for clone in (pickle.loads(pickle.dumps(vectors)), copy.deepcopy(vectors)):
        assert (clone.observe(Side.AGENT, state) == vectors.observe(Side.AGENT, state)).all()


@pytest.mark.parametrize("obs_type", ["dict", "vector", "belief"])
def test_a_64_by_64_game_resets_steps_and_observes(obs_type) -> None:
    layout = carved_maze(64, 64, seed=10)
    env = gridghost.env(layout=layout, obs_type=obs_type, max_cycles=30)
    env.reset(seed=0)
    board = board_for(layout)
    steps = 0
    for name in env.agent_iter():
        observation, _, termination, truncation, info = env.last()
        assert env.observation_space(name).contains(observation)
        distance = board.distance[board.index(env.unwrapped.agent_pos)][board.index(env.unwrapped.ghost_pos)]
        assert info["distance"] == distance
        if obs_type == "vector":
            assert observation[-1] == np.float32(distance) / np.float32(board.diameter)
        env.step(None if termination or truncation else int(np.flatnonzero(info["action_mask"])[0]))
        steps += 1
    assert steps >= 2


def test_the_histogram_filter_keeps_its_likelihood_cache_small_on_a_large_layout() -> None:
    layout = serpentine(64, 64)
    belief_filter = HistogramFilter(layout, LongitudinalSlip(0.2), [Gauge(layout)])
    for reading in np.linspace(0.0, 1.0, 600):
        belief_filter.update({"gauge": float(reading)})
    cached = belief_filter._likelihoods.values()
    assert 0 < sum(likelihood.nbytes for likelihood in cached) <= 16 * 2**20


def test_the_recent_cache_keeps_the_most_recently_used_within_a_budget_read_at_each_insertion() -> None:
    budget, built = [2], []
    cache: RecentCache[int] = RecentCache(lambda: budget[0])

    def build(key: int):
        return lambda: built.append(key) or key * 10

    assert cache.get(1, build(1)) == 10 and cache.get(2, build(2)) == 20
    assert cache.get(1, build(1)) == 10  # kept, not built again; now the most recently used
    assert cache.get(3, build(3)) == 30  # 2, the least recently used, goes
    assert list(cache.kept) == [1, 3] and built == [1, 2, 3] and cache.total == 2
    budget[0] = 0
    assert cache.get(4, build(4)) == 40 and list(cache.kept) == [4] and cache.total == 1  # the newest stays
    cache.clear()
    assert not cache.kept and cache.total == 0


def test_the_recent_cache_takes_a_values_size_once_when_it_is_built() -> None:
    # a value may grow after it is kept (a solution's tables made on demand count in its size
    # beforehand): the cache gives back what it counted, so its total never drifts
    cache: RecentCache[list[int]] = RecentCache(lambda: 10, len)
    first = cache.get("a", lambda: [1, 2, 3])
    first.extend(range(20))
    assert cache.total == 3
    cache.get("b", lambda: [1] * 8)  # over the budget: "a" goes, with the 3 it counted
    assert list(cache.kept) == ["b"] and cache.total == 8
