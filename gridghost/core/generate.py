"""Random maps: :func:`generate_layout`, also reachable as :meth:`Layout.generate
<gridghost.core.layout.Layout.generate>`.

A generated map is drawn in this order from one ``np.random.default_rng(seed)``: the walls, then
the agent's start, the ghosts' starts and the goals, then the colours, then the items. A map for
a team of ``ghosts`` ghosts draws its starts in the same call that draws one ghost's start, so
``ghosts=1`` (the default) draws exactly the numbers it always drew. The same
seed and options give an equal :class:`~gridghost.core.layout.Layout` on every run and machine.

Guarantees, for every map returned:

- every cell can reach every other one (no enclosed cells), so the starts and goals are mutually
  reachable;
- the agent's start is at least ``min_distance`` steps (shortest paths through the walls) from
  every ghost's start and from every goal; the ghosts' starts are distinct cells, none on a goal,
  but a ghost may start near a goal or another ghost (how near is part of what makes a map hard,
  so it is left to chance);
- hence, with ``min_distance >= 3``, the agent's opening move cannot end the game under any slip
  model that moves at most two cells per turn (every shipped one), which a ghost learner needs:
  its first observation comes after that move, and Gymnasium's ``reset`` cannot report a finished
  episode.

>>> from gridghost.core.layout import Layout
>>> layout = Layout.generate(6, 6, seed=7)
>>> layout.name, layout.shape
('generated-6x6-7', (6, 6))
>>> generate_layout(6, 6, seed=7, make=Layout) == layout
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gridghost.core.checks import (
    check_choice,
    check_distribution,
    check_ghosts,
    check_limit,
    check_probability,
    check_seed,
)
from gridghost.core.maptext import LayoutT, distances
from gridghost.core.names import ITEMS, MAX_CELLS, Cell

#: The kinds of walls :func:`generate_layout` draws.
WALL_KINDS: tuple[str, ...] = ("maze", "scattered", "none")
#: The options that apply to one kind of walls only: option -> that kind.
WALL_KIND_OPTIONS: dict[str, str] = {"loops": "maze", "wall_density": "scattered"}
#: The default fraction of a perfect maze's walls removed to make loops.
DEFAULT_LOOPS = 0.3
#: The default probability of a wall on each inner edge of a ``"scattered"`` map.
DEFAULT_WALL_DENSITY = 0.3
#: The default probabilities of white, red and green cells.
DEFAULT_COLOUR_PROBABILITIES = (0.5, 0.25, 0.25)
#: How many maps are drawn before the constraints are declared unsatisfiable.
MAX_ATTEMPTS = 100

_ITEM_NAMES = tuple(ITEMS)


def _wall_options(walls: str, loops: float | None, wall_density: float | None) -> tuple[str, float, float]:
    """``walls``, ``loops`` and ``wall_density`` of :func:`generate_layout`, checked (each option
    only with its kind of walls) and with their defaults."""
    walls = check_choice(walls, "walls", WALL_KINDS)
    for option, value in (("loops", loops), ("wall_density", wall_density)):
        kind = WALL_KIND_OPTIONS[option]
        if value is not None and walls != kind:
            raise ValueError(f"{option} applies to walls={kind!r} only, got {option}={value!r} with walls={walls!r}")
    loops = check_probability(DEFAULT_LOOPS if loops is None else loops, "loops")
    wall_density = check_probability(DEFAULT_WALL_DENSITY if wall_density is None else wall_density, "wall_density")
    return walls, loops, wall_density


def _colours_and_items(rows: int, cols: int, colour_p: Any, item_density: float,
                       rng: np.random.Generator) -> tuple[np.ndarray, dict[tuple[int, int], tuple[str]]]:
    """The cells' colours (all white when ``colour_p`` is ``None``) and items, drawn from ``rng``."""
    if colour_p is None:
        colours = np.zeros((rows, cols), dtype=np.int8)
    else:
        colours = rng.choice(3, size=(rows, cols), p=colour_p).astype(np.int8)
    holders = np.flatnonzero(rng.random(rows * cols) < item_density)
    kinds = rng.integers(len(_ITEM_NAMES), size=len(holders))
    items = {divmod(int(cell), cols): (_ITEM_NAMES[kind],) for cell, kind in zip(holders.tolist(), kinds.tolist(),
                                                                                  strict=True)}
    return colours, items


def generate_layout(
    rows: int,
    cols: int,
    seed: int | np.random.SeedSequence | None = None,
    *,
    make: Callable[..., LayoutT],
    walls: str = "maze",
    loops: float | None = None,
    wall_density: float | None = None,
    num_goals: int = 1,
    min_distance: int = 3,
    colour_probabilities: Sequence[float] | None = DEFAULT_COLOUR_PROBABILITIES,
    item_density: float = 0.15,
    name: str | None = None,
    ghosts: int = 1,
) -> LayoutT:
    """Draw a random playable map (:meth:`Layout.generate <gridghost.core.layout.Layout.generate>`
    is this with ``make=Layout``).

    Args:
        rows, cols: the grid's size, ints >= 1 with ``2 <= rows * cols <=`` :data:`MAX_CELLS`.
        seed: ``None`` (fresh entropy), an int >= 0 or a ``np.random.SeedSequence``; the only
            source of randomness.
        walls: ``"maze"``: a perfect maze (a random spanning tree of the cells, by randomized
            Kruskal) with a fraction ``loops`` of its walls then removed, since in a perfect maze
            the ghost corners the agent in any dead end; ``"scattered"``: each inner edge a wall
            with probability ``wall_density``, then just enough of them removed, in random order,
            to connect every cell; ``"none"``: an open room.
        loops: for ``"maze"`` only: the probability that each wall of the perfect maze is removed
            (0 keeps the perfect maze, 1 leaves an open room); ``None`` means
            :data:`DEFAULT_LOOPS`.
        wall_density: for ``"scattered"`` only: the probability of a wall on each inner edge;
            ``None`` means :data:`DEFAULT_WALL_DENSITY`.
        num_goals: how many goal cells, an int >= 1.
        min_distance: the fewest steps, through the walls, from the agent's start to every
            ghost's start and to every goal; an int >= 1. At least 3 keeps the opening move from ending
            the game (see the module's docstring).
        colour_probabilities: the probabilities of white, red and green cells (three numbers
            summing to 1), or ``None`` for an all-white map.
        item_density: the probability that a cell holds an item (one of
            :data:`~gridghost.core.ITEMS`, uniformly).
        name: the layout's name; ``None`` means ``"generated-{rows}x{cols}-{seed}"`` for an int
            seed and ``"generated-{rows}x{cols}"`` otherwise, with ``"-{ghosts}ghosts"`` after it
            for a team.
        ghosts: how many ghost starts to place, an int in ``1..MAX_GHOSTS``: a map for a team of
            that many ghosts (``layout.ghost_starts``, ghost 0's first), for the ``ghosts`` game
            setting. With 1 (the default) the map is the one-ghost map of the same seed.
        make: what builds the layout from its keyword arguments (the
            :class:`~gridghost.core.layout.Layout` class, which imports this module).

    Returns:
        The :class:`~gridghost.core.layout.Layout`.

    Raises:
        TypeError: an argument of the wrong type (naming it; ``ghosts`` a bool or not an int).
        ValueError: an argument out of range (``ghosts`` outside ``1..MAX_GHOSTS``), ``loops``
            given without ``walls="maze"`` or ``wall_density`` without ``walls="scattered"``, or
            no map of :data:`MAX_ATTEMPTS` draws meets ``num_goals``, ``ghosts`` and
            ``min_distance`` on a ``rows x cols`` grid.
    """
    rows = check_limit(rows, "rows", allow_none=False)
    cols = check_limit(cols, "cols", allow_none=False)
    if not 2 <= rows * cols <= MAX_CELLS:
        raise ValueError(
            f"rows x cols must give 2..{MAX_CELLS} cells (gridghost.core.MAX_CELLS), got {rows} x {cols}"
        )
    seed = check_seed(seed, "seed", allow_sequence=True)
    walls, loops, wall_density = _wall_options(walls, loops, wall_density)
    num_goals = check_limit(num_goals, "num_goals", allow_none=False)
    min_distance = check_limit(min_distance, "min_distance", allow_none=False)
    colour_p = None if colour_probabilities is None else check_distribution(
        colour_probabilities, "colour_probabilities", 3
    )
    item_density = check_probability(item_density, "item_density")
    ghosts = check_ghosts(ghosts, "ghosts")
    if name is None:
        name = f"generated-{rows}x{cols}" + (f"-{seed}" if isinstance(seed, int) else "")
        name += f"-{ghosts}ghosts" if ghosts > 1 else ""
    elif not isinstance(name, str):
        raise TypeError(f"name must be a str or None, got {name!r}")

    team = "" if ghosts == 1 else f", ghosts={ghosts}"
    infeasible = (
        f"no {rows}x{cols} map with num_goals={num_goals} goals{team} and min_distance={min_distance} "
        f"(walls={walls!r})"
    )
    # A cell min_distance steps away lies at the end of a path of min_distance + 1 cells, only one
    # of which may hold a ghost or a goal; the other ghosts and goals need cells of their own.
    if rows * cols < min_distance + num_goals + ghosts:
        needed = "the ghost" if ghosts == 1 else f"the {ghosts} ghosts"
        count = "1" if ghosts == 1 else "ghosts"
        raise ValueError(
            f"{infeasible}: the agent, {needed} and the goals need at least min_distance + num_goals + {count} = "
            f"{min_distance + num_goals + ghosts} cells, the grid has {rows * cols}"
        )

    rng = np.random.default_rng(seed)
    edges = _Edges(rows, cols)
    for _ in range(MAX_ATTEMPTS):
        wall = edges.draw_walls(walls, loops, wall_density, rng)
        starts = _draw_starts(edges, wall, num_goals, ghosts, min_distance, rng)
        if starts is not None:
            break
    else:
        fewer = "fewer goals" if ghosts == 1 else "fewer goals or ghosts"
        raise ValueError(f"{infeasible}: none of {MAX_ATTEMPTS} draws met the constraints; "
                         f"try a larger grid, {fewer} or a smaller min_distance")
    agent, ghost_cells, goals = starts

    colours, items = _colours_and_items(rows, cols, colour_p, item_density, rng)
    horizontal, vertical = edges.split(wall)
    return make(
        colours=colours,
        goals=goals,
        agent_start=agent,
        ghost_start=ghost_cells[0] if ghosts == 1 else ghost_cells,
        walls_horizontal=horizontal,
        walls_vertical=vertical,
        items=items,
        name=name,
    )


class _Edges:
    """The inner edges of a ``rows x cols`` grid: the horizontal-wall edges in row-major order,
    then the vertical-wall ones, each as the two flat cell indices it joins."""

    def __init__(self, rows: int, cols: int) -> None:
        self.rows, self.cols, self.cells = rows, cols, rows * cols
        index = np.arange(self.cells).reshape(rows, cols)
        self.num_horizontal = (rows - 1) * cols
        self.a = np.concatenate([index[:-1, :].ravel(), index[:, :-1].ravel()]).tolist()
        self.b = np.concatenate([index[1:, :].ravel(), index[:, 1:].ravel()]).tolist()

    def draw_walls(self, kind: str, loops: float, density: float, rng: np.random.Generator) -> np.ndarray:
        """A wall flag per edge, with every cell connected to every other."""
        count = len(self.a)
        if kind == "none":
            return np.zeros(count, dtype=bool)
        if kind == "maze":
            wall = ~self._connect(np.zeros(count, dtype=bool), rng)
            return wall & (rng.random(count) >= loops)
        wall = rng.random(count) < density
        return ~self._connect(~wall, rng)

    def _connect(self, open_: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """``open_`` with closed edges opened, in random order, wherever one joins two parts of
        the grid not yet connected (randomized Kruskal; on a closed grid, a random spanning tree)."""
        parent = list(range(self.cells))

        def root(cell: int) -> int:
            while parent[cell] != cell:
                parent[cell] = cell = parent[parent[cell]]
            return cell

        def join(edge: int) -> bool:
            """Join the parts of the edge's two cells; whether they were apart."""
            ra, rb = root(self.a[edge]), root(self.b[edge])
            parent[ra] = rb
            return ra != rb

        parts = self.cells - sum(join(edge) for edge in np.flatnonzero(open_).tolist())
        opened = open_.copy()
        closed = np.flatnonzero(~open_)
        for edge in closed[rng.permutation(len(closed))].tolist():
            if parts == 1:
                break
            if join(edge):
                opened[edge] = True
                parts -= 1
        return opened

    def split(self, wall: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The per-edge flags as ``(walls_horizontal, walls_vertical)`` arrays."""
        horizontal = wall[: self.num_horizontal].reshape(self.rows - 1, self.cols)
        vertical = wall[self.num_horizontal :].reshape(self.rows, self.cols - 1)
        return horizontal, vertical


def _draw_starts(
    edges: _Edges, wall: np.ndarray, num_goals: int, ghosts: int, min_distance: int, rng: np.random.Generator
) -> tuple[Cell, list[Cell], list[Cell]] | None:
    """The agent's start, the ghosts' starts and the goals, or ``None`` when the agent's randomly
    drawn start has too few cells at least ``min_distance`` away.

    The ghosts' starts and the goals are one draw without replacement from the far cells, the
    ghosts' first: with one ghost it is the draw a one-ghost map always made."""
    agent = int(rng.integers(edges.cells))
    cols = edges.cols
    distance = distances([divmod(agent, cols)], *edges.split(wall))
    far = np.array(sorted(r * cols + c for (r, c), steps in distance.items() if steps >= min_distance))
    if len(far) < num_goals + ghosts:
        return None
    chosen = rng.choice(far, size=ghosts + num_goals, replace=False).tolist()
    return (divmod(agent, cols), [divmod(cell, cols) for cell in chosen[:ghosts]],
            [divmod(cell, cols) for cell in chosen[ghosts:]])
