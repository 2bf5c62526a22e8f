"""What the batched engine accepts: the memory budgets of its tables and per-game buffers, the
errors that refuse a setting, and the checks of its counts and actions.

The budgets are settings read when an engine is built, never copied at import: set
``gridghost.batched.TABLE_BYTES`` (or pass ``table_bytes=`` to the engine),
``gridghost.batched.BUFFER_BYTES`` or ``gridghost.batched.MAX_GAMES`` to change them
(``gridghost.batched`` forwards the three names here).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gridghost.core.checks import check_limit
from gridghost.core.names import NUM_ACTIONS

#: The most memory the tables of one engine may take by default; larger maps (or too many levels)
#: are refused. Read when an engine is built; ``table_bytes=`` overrides it for one engine.
TABLE_BYTES = 512 * 2**20
#: The bytes of one entry of the folded turn tables, as estimated against TABLE_BYTES: the
#: tables hold 17 to 25 bytes an entry (next state, reward, ended, reading cell) and the cell
#: lookup up to 2 more; one map's temporaries come on top while they are built.
TABLE_ENTRY_BYTES = 32
#: The bytes one map's parts (game kernel, board, sensors, encoder) take while the tables are
#: built, beside the grid planes the encoder keeps (counted apart), as estimated against TABLE_BYTES.
MAP_PART_BYTES = 64 * 2**10
#: The most games one engine steps.
MAX_GAMES = 2**26
#: The most memory the per-game buffers of one engine may take: each game's state, draws and
#: observations, the filter's beliefs, and the temporaries of a step. More games than fit are
#: refused at construction, before anything of their size is allocated. Read at that moment.
BUFFER_BYTES = 2 * 2**30


class UnsupportedSetting(ValueError):
    """A game setting the batched engine does not serve (the single envs do); the Gymnasium
    vector entry point falls back to ``SyncVectorEnv`` on it."""


class TooManyGames(ValueError):
    """More games than the per-game buffers' budget, :data:`BUFFER_BYTES`, holds with the
    settings given; the message names the maximum."""

    def __init__(self, num_games: int, per_game: int, settings: str, argument: str = "num_games") -> None:
        self.num_games, self.per_game, self.settings = num_games, per_game, settings
        most = BUFFER_BYTES // per_game
        super().__init__(f"{argument}={num_games:,} needs about {num_games * per_game / 2**20:,.0f} MiB of per-game "
                         f"buffers with {settings}, more than gridghost.batched.BUFFER_BYTES = "
                         f"{BUFFER_BYTES / 2**20:,.0f} MiB; the maximum for these settings is {argument}={most:,}")

    def renamed(self, argument: str) -> TooManyGames:
        """The same error, said of the caller's ``argument`` (``num_envs`` for the vector env)."""
        return TooManyGames(self.num_games, self.per_game, self.settings, argument)


def table_budget(table_bytes: Any) -> int:
    """The bytes the tables of one engine may take: ``table_bytes`` (an int >= 1), or ``None``
    for :data:`TABLE_BYTES` as it is set now.

    Raises:
        TypeError, ValueError: ``table_bytes`` is neither ``None`` nor an int >= 1.
    """
    budget = check_limit(table_bytes, "table_bytes", none_means="gridghost.batched.TABLE_BYTES")
    return TABLE_BYTES if budget is None else budget


def tables_refused(what: str, needed: int, budget: int, bound: str = "about") -> ValueError:
    """The error refusing ``what`` (tables of ``bound`` ``needed`` bytes) over ``budget``; it says
    how to raise the budget."""
    return ValueError(f"{what} would take {bound} {_size(needed)}, more than the tables' budget of {_size(budget)}; "
                      "raise it with table_bytes= (BatchedGame, make_vec, SB3VecEnv) or gridghost.batched.TABLE_BYTES "
                      "(default 512 MiB), or use fewer levels or smaller maps")


def _size(count: int) -> str:
    """``count`` bytes in MiB, or in bytes below one MiB."""
    return f"{count / 2**20:,.0f} MiB" if count >= 2**20 else f"{count:,} bytes"


def check_buffers(num_games: int, per_game: int, settings: str) -> None:
    """Refuse ``num_games`` games of ``per_game`` bytes each when they exceed :data:`BUFFER_BYTES`."""
    if num_games * per_game > BUFFER_BYTES:
        raise TooManyGames(num_games, per_game, settings)


def check_count(value: Any, argument: str) -> int:
    """``value`` as an int if it is a number of games, 1..:data:`MAX_GAMES`
    (:func:`~gridghost.core.checks.check_limit`, which raises ``TypeError`` or ``ValueError``)."""
    return check_limit(value, argument, allow_none=False, maximum=MAX_GAMES)


def checked_actions(actions: Any, n: int, argument: str, column: bool = False) -> np.ndarray:
    """``actions`` as an ``int64[n]`` array of moves, or a clear error naming ``argument``; with
    ``column``, ``int[n, 1]`` too (what some trainers hand a vector env). Another shape of the
    same size (a transposed batch) is refused, never reshaped."""
    array = actions if type(actions) is np.ndarray else np.asarray(actions)
    if column and array.shape == (n, 1):
        array = array.reshape(n)
    if array.shape != (n,):
        shapes = f"({n},) or ({n}, 1)" if column else f"({n},)"
        raise ValueError(f"{argument} must have shape {shapes}, one action per game, got shape {array.shape}")
    if array.dtype.kind not in "iu":
        raise TypeError(f"{argument} must be an int array of actions 0..{NUM_ACTIONS - 1}, got dtype {array.dtype}")
    if array.dtype != np.int64:
        array = array.astype(np.int64)
    if np.bitwise_and(array, -NUM_ACTIONS).any():  # a bit above 0..3 set, or a negative number
        raise ValueError(f"{argument} must lie in 0..{NUM_ACTIONS - 1}, got values {array.min()}..{array.max()}")
    return array


def checked_games(games: Any, n: int) -> np.ndarray:
    """``games``, a bool mask of shape ``(n,)`` or distinct game indices, as ``int64`` indices in
    the order given (a mask's in increasing order).

    Raises:
        TypeError: neither a bool mask nor a 1-D array of ints.
        ValueError: a mask of another shape, an index outside 0..n-1, or an index given twice.
    """
    array = np.asarray(games)
    if array.dtype == bool:
        if array.shape != (n,):
            raise ValueError(f"games as a mask must have shape ({n},), got {array.shape}")
        return np.flatnonzero(array)
    if array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
        raise TypeError(f"games must be a bool mask of shape ({n},) or an array of game indices, got {games!r}")
    if array.size and not 0 <= array.min() <= array.max() < n:
        raise ValueError(f"game indices must lie in 0..{n - 1}")
    rows = array.astype(np.int64)
    counts = np.bincount(rows, minlength=n)
    if rows.size and counts.max() > 1:
        row = int(rows[counts[rows] > 1][0])
        raise ValueError(f"games must name each game once: game {row} is given {counts[row]} times")
    return rows


def checked_team_actions(actions: Any, n: int, ghosts: int, argument: str = "actions") -> np.ndarray:
    """``actions`` as an ``int64[n, ghosts]`` array of moves, one per ghost per game, or a clear
    error naming ``argument`` (a batch of another shape is refused, never reshaped).

    Raises:
        ValueError: another shape (``int[n]`` included), or a value outside 0..3.
        TypeError: not an int array.
    """
    array = actions if type(actions) is np.ndarray else np.asarray(actions)
    if array.shape != (n, ghosts):
        raise ValueError(f"{argument} must have shape ({n}, {ghosts}), one action per ghost per game, got shape "
                         f"{array.shape}")
    return checked_actions(array.reshape(-1), n * ghosts, argument).reshape(n, ghosts)
