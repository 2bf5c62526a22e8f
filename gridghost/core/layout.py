"""Maps: the grid's size, edge walls, cell colours, items, texts, goals and start cells.

A :class:`Layout` is an immutable description of one map. It knows nothing about turns, rewards
or randomness; :mod:`gridghost.core.rules` derives the movement and distance tables from it.

Coordinates are ``(row, col)`` with row 0 at the top. Walls lie on the edges between cells:
``walls_horizontal[r, c]`` blocks ``(r, c) <-> (r + 1, c)`` (shape ``(rows - 1, cols)``) and
``walls_vertical[r, c]`` blocks ``(r, c) <-> (r, c + 1)`` (shape ``(rows, cols - 1)``). The border
blocks every move out of the grid.

>>> CLASSIC.rows, CLASSIC.cols
(4, 5)
>>> CLASSIC.colour_name(0, 0), CLASSIC.items_at(0, 4)
('green', ('dog', 'two_notes'))
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from types import MappingProxyType
from typing import Any

import numpy as np

from gridghost.core import generate, maptext, mapwrite
from gridghost.core.checks import check_cell, check_text
from gridghost.core.names import (
    COLOURS,
    ITEM_FLAGS,
    ITEMS,
    MAX_CELLS,
    MAX_GHOSTS,
    Cell,
)


def _array(value: Any, argument: str) -> np.ndarray:
    """``np.asarray(value)``, with an error naming ``argument`` when it is ragged or not numeric."""
    try:
        array = np.asarray(value)
    except (TypeError, ValueError):
        raise ValueError(f"{argument} must be a rectangular array (every row the same length), got {value!r}") from None
    if array.dtype == object:
        raise TypeError(f"{argument} must be a rectangular array of numbers, got {value!r}")
    return array


def _cell_entries(entries: Any, key: str) -> dict[Cell, Any]:
    """A layout dict's ``items`` or ``texts``: a list of ``[row, col, value]`` triples (``None``:
    none) as a mapping from cell to value, each cell at most once."""
    if entries is None:
        return {}
    if not isinstance(entries, (list, tuple)):
        raise TypeError(f"layout dict {key!r} must be a list of [row, col, value] triples (or None for none), "
                        f"got {entries!r}")
    table: dict[Any, Any] = {}
    first: dict[Any, int] = {}  # cell -> the index of its entry
    for index, entry in enumerate(entries):
        if isinstance(entry, (str, bytes)) or not isinstance(entry, Sequence) or len(entry) != 3:
            raise TypeError(f"layout dict {key!r} must be a list of [row, col, value] triples, entry {index} is "
                            f"{entry!r}")
        row, col, value = entry
        cell = (row, col)
        try:
            seen = first.get(cell)
        except TypeError:
            raise TypeError(f"layout dict {key!r} entry {index} must start with a row and a column (ints), got "
                            f"{entry!r}") from None
        if seen is not None:
            raise ValueError(f"layout dict {key!r} names the cell {cell} twice (entries {seen} and {index}); give each "
                             f"cell one entry{', listing all its items' if key == 'items' else ''}")
        first[cell] = index
        table[cell] = value
    return table


def _outer_shape(colours: Any) -> tuple[int, int]:
    """``(rows, cols)`` of a colours argument as its outer lengths say, without converting it
    (an array's shape; a list's length and its first row's); ``(0, 0)`` when they do not say."""
    if isinstance(colours, np.ndarray):
        return (int(colours.shape[0]), int(colours.shape[1])) if colours.ndim == 2 else (0, 0)
    text = (str, bytes)
    if isinstance(colours, Sequence) and not isinstance(colours, text) and len(colours):
        first = colours[0]
        if isinstance(first, Sequence) and not isinstance(first, text):
            return len(colours), len(first)
    return 0, 0


def _check_cells(rows: int, cols: int, name: str) -> None:
    """Refuse a ``rows x cols`` layout of more than :data:`MAX_CELLS` cells."""
    if rows * cols > MAX_CELLS:
        raise ValueError(
            f"layout {name!r} is {rows} x {cols} = {rows * cols} cells; the game's tables hold cells x cells "
            f"entries, so gridghost serves at most gridghost.core.MAX_CELLS = {MAX_CELLS} cells (64 x 64)"
        )


def _bool_grid(value: Any, argument: str, shape: tuple[int, int]) -> np.ndarray:
    """Validate a wall array of the given shape; ``None`` means no walls."""
    if value is None:
        array = np.zeros(shape, dtype=bool)
    else:
        array = _array(value, argument)
        if array.shape != shape:
            raise ValueError(f"{argument} must have shape {shape}, got {array.shape}")
        if array.dtype != bool and not np.issubdtype(array.dtype, np.integer):
            raise TypeError(f"{argument} must hold booleans (or 0/1 ints), got dtype {array.dtype}")
        if array.dtype != bool and not np.isin(array, (0, 1)).all():
            raise ValueError(f"{argument} must hold booleans (or 0/1), got values {np.unique(array)}")
        array = array.astype(bool)
    array.setflags(write=False)
    return array


def _colour_grid(colours: Any, name: str) -> np.ndarray:
    """``colours`` of :class:`Layout` as a read-only ``int8`` grid of at least two cells."""
    _check_cells(*_outer_shape(colours), name)  # before converting: a huge array is refused unread
    colour_array = _array(colours, "colours")
    if colour_array.ndim != 2 or colour_array.size == 0:
        raise ValueError(
            f"colours must be a non-empty rows x cols array, got shape {colour_array.shape}"
        )
    if not np.issubdtype(colour_array.dtype, np.integer):
        raise TypeError(f"colours must hold integer colour ids, got dtype {colour_array.dtype}")
    if not np.isin(colour_array, range(len(COLOURS))).all():
        raise ValueError(
            f"colours must hold ids 0..{len(COLOURS) - 1} ({', '.join(COLOURS)}), "
            f"got values {sorted(set(colour_array.ravel().tolist()))}"
        )
    rows, cols = (int(n) for n in colour_array.shape)
    _check_cells(rows, cols, name)
    if rows * cols < 2:
        raise ValueError("a layout needs at least two cells (one for the agent, one for the ghost)")
    colour_array = colour_array.astype(np.int8)
    colour_array.setflags(write=False)
    return colour_array


def _cell_table(values: Any, argument: str, rows: int, cols: int, check: Callable[[Any, str], Any]) -> dict[Cell, Any]:
    """``items`` or ``texts`` of :class:`Layout` (``None``: empty), each cell's value checked by
    ``check``; cells with an empty value left out."""
    if values is None:
        return {}
    if not isinstance(values, Mapping):
        raise TypeError(f"{argument} must be a mapping from (row, col) cells, got {values!r}")
    table: dict[Cell, Any] = {}
    for cell, value in values.items():
        cell = check_cell(cell, f"{argument} key", rows, cols)
        value = check(value, f"{argument}[{cell}]")
        if value:
            table[cell] = value
    return table


def _item_names(names: Any, argument: str) -> tuple[str, ...]:
    """One cell's item names, checked."""
    if isinstance(names, (str, bytes, Set, Mapping)) or not isinstance(names, Iterable):
        # Sets and dicts too: their order, the order items are drawn in, would vary.
        raise TypeError(f"{argument} must be a sequence of item names (a list or tuple), got {names!r}")
    names = tuple(names)
    if not all(isinstance(n, str) for n in names):
        raise TypeError(f"{argument} must be a sequence of item names, got {names!r}")
    unknown = [n for n in names if n not in ITEMS]
    if unknown:
        raise ValueError(f"{argument} holds unknown items {unknown}; known items: {list(ITEMS)}")
    return names


def _ghost_starts(ghost_start: Any, rows: int, cols: int) -> tuple[Cell, ...]:
    """``ghost_start`` as a tuple of checked cells: one cell, or a sequence of distinct cells (one
    per ghost of a team, in the ghosts' order)."""
    try:
        first = next(iter(ghost_start))
    except (TypeError, StopIteration):
        first = None
    if isinstance(first, (int, np.integer)) or first is None:
        return (check_cell(ghost_start, "ghost_start", rows, cols),)
    starts = tuple(check_cell(cell, f"ghost_start[{i}]", rows, cols) for i, cell in enumerate(ghost_start))
    if len(starts) > MAX_GHOSTS:
        raise ValueError(f"ghost_start names {len(starts)} cells, but a team has at most "
                         f"gridghost.core.MAX_GHOSTS = {MAX_GHOSTS} ghosts")
    clashes = sorted({cell for cell in starts if starts.count(cell) > 1})
    if clashes:
        raise ValueError(f"ghost_start must name distinct cells, one per ghost; {clashes} repeat")
    return starts


@dataclasses.dataclass(init=False, repr=False, eq=False, slots=True)
class Layout:
    """An immutable map: size, edge walls, colours, items, texts, goals and start cells.

    Layouts compare equal (and hash equal) when every field is equal, ``name`` included, so derived
    tables can be cached per layout. Arrays are read-only and ``items``/``texts`` are read-only
    mappings.

    Args:
        colours: ``rows x cols`` array-like of colour ids (``0`` white, ``1`` red, ``2`` green);
            its shape sets the grid size.
        goals: cells that end the episode with the goal reward when the agent reaches them.
        agent_start: the agent's cell after ``reset``.
        ghost_start: the ghost's cell after ``reset``; for teams, a sequence of distinct cells,
            one per ghost in the ghosts' order (a map with ``n`` starts serves teams of up to
            ``n`` ghosts, which take the first starts).
        walls_horizontal: booleans of shape ``(rows - 1, cols)``; ``[r, c]`` blocks
            ``(r, c) <-> (r + 1, c)``. ``None`` means no inner horizontal walls.
        walls_vertical: booleans of shape ``(rows, cols - 1)``; ``[r, c]`` blocks
            ``(r, c) <-> (r, c + 1)``. ``None`` means no inner vertical walls.
        items: mapping from cell to the item names it holds, each one of :data:`ITEMS`.
        texts: mapping from cell to a label shown in the agent's observation (``""`` elsewhere);
            each a text :func:`check_text` accepts, so that every view can draw it.
        name: a short name for messages and reprs.

    Raises:
        TypeError: a cell is not a pair of ints, ``goals`` is not an iterable of cells,
            ``items``/``texts`` are not mappings, an item list is not a sequence of strings, a
            text or ``name`` is not a ``str``, or an array holds something other than numbers.
        ValueError: more than :data:`MAX_CELLS` cells, ragged or wrongly shaped arrays, colour ids
            outside ``0..2``, unknown item
            names, texts that cannot be drawn, cells outside the grid, the agent starting on the
            ghost or on a goal, no goal, ghost starts that repeat or number more than
            :data:`~gridghost.core.names.MAX_GHOSTS`, or a goal or a ghost unreachable from the
            agent's start.

    Attributes:
        ghost_start: the first ghost's start (the one ghost's, in a one-ghost game).
        ghost_starts: every ghost's start, in the ghosts' order.
    """

    rows: int
    cols: int
    colours: np.ndarray
    walls_horizontal: np.ndarray
    walls_vertical: np.ndarray
    items: Mapping[Cell, tuple[str, ...]]
    texts: Mapping[Cell, str]
    goals: tuple[Cell, ...]
    agent_start: Cell
    ghost_start: Cell
    ghost_starts: tuple[Cell, ...]
    name: str
    _key: tuple[Any, ...]

    def __init__(
        self,
        colours: Any,
        goals: Iterable[Cell],
        agent_start: Cell,
        ghost_start: Cell | Sequence[Cell],
        walls_horizontal: Any = None,
        walls_vertical: Any = None,
        items: Mapping[Cell, Sequence[str]] | None = None,
        texts: Mapping[Cell, str] | None = None,
        name: str = "custom",
    ) -> None:
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, got {name!r}")
        colour_array = _colour_grid(colours, name)
        rows, cols = (int(n) for n in colour_array.shape)

        set_ = object.__setattr__
        set_(self, "rows", rows)
        set_(self, "cols", cols)
        set_(self, "colours", colour_array)
        set_(self, "walls_horizontal", _bool_grid(walls_horizontal, "walls_horizontal", (rows - 1, cols)))
        set_(self, "walls_vertical", _bool_grid(walls_vertical, "walls_vertical", (rows, cols - 1)))
        set_(self, "name", name)

        item_table = _cell_table(items, "items", rows, cols, _item_names)
        set_(self, "items", MappingProxyType(item_table))
        text_table = _cell_table(texts, "texts", rows, cols, check_text)
        set_(self, "texts", MappingProxyType(text_table))
        if isinstance(goals, (str, bytes)) or not isinstance(goals, Iterable):
            raise TypeError(f"goals must be an iterable of (row, col) cells, got {goals!r}")
        goal_cells = tuple(sorted({check_cell(g, "goals entry", rows, cols) for g in goals}))  # without repeats
        if not goal_cells:
            raise ValueError("goals must name at least one cell")
        agent = check_cell(agent_start, "agent_start", rows, cols)
        ghosts = _ghost_starts(ghost_start, rows, cols)
        if agent in ghosts:
            raise ValueError(f"agent_start and ghost_start must differ, both are {agent}")
        if agent in goal_cells:
            raise ValueError(f"agent_start {agent} must not be a goal cell")
        set_(self, "goals", goal_cells)
        set_(self, "agent_start", agent)
        set_(self, "ghost_start", ghosts[0])
        set_(self, "ghost_starts", ghosts)
        # What equality and hashing compare: every field, arrays as bytes and mappings sorted.
        values = [getattr(self, field.name) for field in dataclasses.fields(self) if field.name != "_key"]
        set_(self, "_key", tuple(value.tobytes() if isinstance(value, np.ndarray)
                                 else tuple(sorted(value.items())) if isinstance(value, Mapping) else value
                                 for value in values))

        reachable = self.reachable_from(agent)
        unreachable = [g for g in goal_cells if g not in reachable]
        if unreachable:
            raise ValueError(f"goal cells {unreachable} cannot be reached from agent_start {agent}")
        for ghost in ghosts:
            if ghost not in reachable:
                raise ValueError(f"ghost_start {ghost} cannot be reached from agent_start {agent}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Layout is immutable; build a new one instead")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Layout) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        return f"Layout(name={self.name!r}, rows={self.rows}, cols={self.cols})"

    def __reduce__(self) -> tuple[Any, ...]:
        return Layout.from_dict, (self.to_dict(),)

    def to_dict(self) -> dict[str, Any]:
        """The layout as plain JSON-able data (lists, ints, bools, strings); lossless:
        ``Layout.from_dict(layout.to_dict()) == layout``.

        >>> Layout.from_dict(CLASSIC.to_dict()) == CLASSIC
        True
        """
        return {
            "name": self.name,
            "colours": self.colours.tolist(),
            "walls_horizontal": self.walls_horizontal.tolist(),
            "walls_vertical": self.walls_vertical.tolist(),
            "items": [[r, c, list(names)] for (r, c), names in sorted(self.items.items())],
            "texts": [[r, c, text] for (r, c), text in sorted(self.texts.items())],
            "goals": [list(goal) for goal in self.goals],
            "agent_start": list(self.agent_start),
            "ghost_start": (list(self.ghost_start) if len(self.ghost_starts) == 1
                            else [list(cell) for cell in self.ghost_starts]),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Layout:
        """Build a layout from :meth:`to_dict`'s form.

        Raises:
            TypeError: ``data`` is not a mapping, ``items``/``texts`` is neither a list nor
                ``None``, or one of their entries is not a ``[row, col, value]`` triple.
            ValueError: a key is missing or unknown, ``items``/``texts`` names a cell twice, or
                the fields make no valid layout (as the constructor says).
        """
        if not isinstance(data, Mapping):
            raise TypeError(f"a layout dict must be a mapping, got {data!r}")
        required = {"colours", "goals", "agent_start", "ghost_start"}
        known = required | {"name", "walls_horizontal", "walls_vertical", "items", "texts"}
        missing, unknown = required - set(data), set(data) - known
        if missing or unknown:
            raise ValueError(
                f"a layout dict needs the keys {sorted(required)} and may have {sorted(known - required)}; "
                f"missing {sorted(missing)}, unknown {sorted(unknown, key=str)}"
            )
        fields = dict(data)
        for key in ("items", "texts"):
            fields[key] = _cell_entries(fields.get(key), key)
        return cls(**fields)

    @classmethod
    def from_text(cls, text: str) -> Layout:
        """Read a map drawn as text (the format :mod:`gridghost.core.maptext` describes): the maze
        drawing with one symbol per cell, then a legend. Lossless with :meth:`to_text`.

        >>> Layout.from_text(CLASSIC.to_text()) == CLASSIC
        True

        Raises:
            TypeError: ``text`` is not a ``str``.
            ValueError: the text is no valid map; the message names the line and column (1-based).
        """
        return maptext.parse_layout(text, cls)

    def to_text(self) -> str:
        """The map as text in the format :mod:`gridghost.core.maptext` describes, canonical (the same
        layout always gives the same text) and lossless: ``Layout.from_text(layout.to_text()) == layout``.
        """
        return mapwrite.format_layout(self)

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, cols)``."""
        return self.rows, self.cols

    def cells(self) -> list[Cell]:
        """Every cell of the grid in row-major order (the order of cell indices)."""
        return [(r, c) for r in range(self.rows) for c in range(self.cols)]

    def blocked(self, cell: Cell, neighbour: Cell) -> bool:
        """Whether a wall or the border lies between ``cell`` and the adjacent ``neighbour``.

        ``neighbour`` may lie outside the grid (the border blocks it); ``cell`` may not.

        Raises:
            ValueError: ``cell`` is outside the grid, or the two cells are not orthogonally adjacent.
        """
        (r, c), (nr, nc) = cell, neighbour
        if not (0 <= r < self.rows and 0 <= c < self.cols):
            raise ValueError(f"cell {cell} lies outside the {self.rows}x{self.cols} grid")
        if abs(r - nr) + abs(c - nc) != 1:
            raise ValueError(f"cells {cell} and {neighbour} are not adjacent")
        if not (0 <= nr < self.rows and 0 <= nc < self.cols):
            return True
        if nr != r:
            return bool(self.walls_horizontal[min(r, nr), c])
        return bool(self.walls_vertical[r, min(c, nc)])

    def reachable_from(self, start: Cell) -> set[Cell]:
        """The cells a mover starting at ``start`` can reach through open edges."""
        return set(self.distances_from((start,)))

    def distances_from(self, starts: Iterable[Cell]) -> dict[Cell, int]:
        """The fewest steps through open edges from the nearest of ``starts`` to every cell
        reachable from them (breadth-first).

        Raises:
            TypeError, ValueError: a start is not a cell of the grid.
        """
        starts = [check_cell(cell, "starts entry", self.rows, self.cols) for cell in starts]
        return maptext.distances(starts, self.walls_horizontal, self.walls_vertical)

    def colour_name(self, row: int, col: int) -> str:
        """The colour of a cell as a word (``"white"``, ``"red"`` or ``"green"``)."""
        return COLOURS[self.colours[row, col]]

    def items_at(self, row: int, col: int) -> tuple[str, ...]:
        """The item names a cell holds (empty when it holds none)."""
        return self.items.get((row, col), ())

    def has_item(self, row: int, col: int) -> tuple[int, int, int]:
        """The ``has_item`` flags of a cell, in the order of :data:`ITEM_FLAGS`."""
        kinds = {ITEMS[name] for name in self.items_at(row, col)}
        return tuple(int(flag in kinds) for flag in ITEM_FLAGS)  # type: ignore[return-value]

    def text_at(self, row: int, col: int) -> str:
        """The label of a cell (``""`` when it has none)."""
        return self.texts.get((row, col), "")

    @classmethod
    def generate(
        cls, rows: int, cols: int, seed: int | np.random.SeedSequence | None = None, **options: Any
    ) -> Layout:
        """Draw a random playable map: :func:`gridghost.core.generate.generate_layout`, which documents
        the ``options`` (``walls``, ``loops``, ``wall_density``, ``num_goals``, ``min_distance``,
        ``colour_probabilities``, ``item_density``, ``name``, ``ghosts``: the number of ghost
        starts, for a team) and the guarantees.

        >>> Layout.generate(6, 6, seed=7) == Layout.generate(6, 6, seed=7)
        True

        Raises:
            TypeError, ValueError: as :func:`~gridghost.core.generate.generate_layout`.
        """
        return generate.generate_layout(rows, cols, seed, make=cls, **options)


#: The reference map: 4 rows x 5 columns, agent at (0, 2), ghost at (3, 4).
CLASSIC = Layout.from_text("""
+---+---+---+---+---+
| d | r   s   .   D |
+   +   +   +---+   +
| .   g   . | f   g |
+   +   +---+---+   +
| r   g | n | r   . |
+   +   +   +---+   +
| r   z | N   F   S |
+---+---+---+---+---+

name: classic
d: green, dog
s: agent, "Start"
D: dog, two_notes
f: flower
n: one_note
z: goal, "Ziel"
N: green, two_notes
F: two_flowers
S: ghost, goal, "Stopp"
""")
