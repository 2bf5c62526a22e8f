"""The argument checks every module shares: one place for what a valid action, count, flag,
seed, probability, choice among names, rate or distribution is, and for the sentence that says
what was wrong.

Every check returns the value in its canonical type (a Python ``int``, ``float`` or ``bool``) or
raises a ``TypeError`` (the wrong kind of value) or ``ValueError`` (the right kind, out of range)
whose message names the argument and what it accepts. Nothing is rounded, clamped or ignored.
:func:`check_action` has a fast path for the common case, a Python int in range, since envs call
it on every step.
"""

from __future__ import annotations

import math
import numbers
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any, Literal, overload

import numpy as np

from gridghost.core.names import ACTION_NAMES, MAX_GHOSTS, NUM_ACTIONS, Cell


def check_action(action: object, agent: str) -> int:
    """Return ``action`` as an ``int`` if it is a valid move (an integer 0..3).

    Python ints, :class:`~gridghost.core.rules.Action` members, NumPy integers and 0-d integer arrays
    are accepted; nothing is rounded or clamped.

    Raises:
        TypeError: ``action`` is ``None``, a bool, a float (NaN included), a string or any other
            non-integer.
        ValueError: ``action`` is an integer outside 0..3.
    """
    if type(action) is int and 0 <= action < NUM_ACTIONS:  # the fast path: envs check every step
        return action
    if isinstance(action, numbers.Integral) and not isinstance(action, bool):
        value = int(action)  # int, IntEnum (Action) and NumPy integers
    elif isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
        value = int(action)
    else:
        if action is None:
            raise TypeError(
                f"action for live agent {agent!r} must be an int in 0..{NUM_ACTIONS - 1}; "
                "None is only accepted from terminated or truncated agents"
            )
        raise TypeError(
            f"action for {agent!r} must be an int in 0..{NUM_ACTIONS - 1} "
            f"({', '.join(f'{i}={n}' for i, n in enumerate(ACTION_NAMES))}), "
            f"got {action!r} of type {type(action).__name__}"
        )
    if not 0 <= value < NUM_ACTIONS:
        raise ValueError(f"action for {agent!r} must lie in 0..{NUM_ACTIONS - 1}, got {value}")
    return value


def is_int(value: object) -> bool:
    """Whether ``value`` is an integer: a Python ``int``, an ``IntEnum`` member or a NumPy integer,
    not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


@overload
def check_limit(value: object, argument: str, allow_none: Literal[False], maximum: int | None = None,
                none_means: str = "no limit") -> int: ...
@overload
def check_limit(value: object, argument: str, allow_none: bool = True, maximum: int | None = None,
                none_means: str = "no limit") -> int | None: ...
def check_limit(value: object, argument: str, allow_none: bool = True, maximum: int | None = None,
                none_means: str = "no limit") -> int | None:
    """Return ``value`` if it is a count such as a step limit: an int >= 1 (and at most
    ``maximum``, when given), or ``None`` (what ``none_means`` says) when ``allow_none``.

    Raises:
        TypeError: not an int (bools and floats included), nor an allowed ``None``.
        ValueError: an int below 1 or above ``maximum``.
    """
    accepted = "an int >= 1" if maximum is None else f"an int in 1..{maximum:,}"
    if allow_none:
        accepted += f" or None ({none_means})"
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{argument} must be {accepted}, got {value!r}")
    count = int(value)
    if count < 1 or (maximum is not None and count > maximum):
        raise ValueError(f"{argument} must be {accepted}, got {value}")
    return count


def check_ghosts(value: Any, argument: str = "ghosts") -> int:
    """Return ``value`` if it is a team size: an int in ``1..MAX_GHOSTS``.

    Raises:
        TypeError: not an int (bools and floats are refused).
        ValueError: outside ``1..MAX_GHOSTS``.
    """
    return check_limit(value, argument, allow_none=False, maximum=MAX_GHOSTS)


def check_flag(value: object, argument: str) -> bool:
    """Return ``value`` as a ``bool`` if it is one (Python or NumPy).

    Raises:
        TypeError: anything else; ``0``, ``1`` and strings included.
    """
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{argument} must be a bool, got {value!r}")
    return bool(value)


def check_seed(
    seed: object, argument: str = "seed", allow_sequence: bool = False
) -> int | np.random.SeedSequence | None:
    """Return ``seed`` if it can seed a generator: ``None`` (fresh entropy, or continue), an int
    >= 0 (Python or NumPy, as ``rng.integers`` returns), or with ``allow_sequence`` a NumPy
    ``SeedSequence``. Integers come back as Python ``int``.

    >>> check_seed(np.int64(3))
    3

    Raises:
        TypeError: anything else; bools, floats and strings included.
        ValueError: a negative integer.
    """
    accepted = "None, an int >= 0 or a numpy SeedSequence" if allow_sequence else "None or an int >= 0"
    if seed is None or (allow_sequence and isinstance(seed, np.random.SeedSequence)):
        return seed
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"{argument} must be {accepted}, got {seed!r} of type {type(seed).__name__}")
    if seed < 0:
        raise ValueError(f"{argument} must be {accepted}, got {seed!r}")
    return int(seed)


def check_probability(value: object, argument: str) -> float:
    """Return ``value`` as a float if it is a real number in [0, 1].

    Raises:
        TypeError: ``value`` is not a real number (``bool`` and strings are rejected).
        ValueError: ``value`` is NaN or outside [0, 1].
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{argument} must be a real number in [0, 1], got {value!r}")
    if not 0.0 <= float(value) <= 1.0:  # NaN fails this comparison too
        raise ValueError(f"{argument} must lie in [0, 1], got {value!r}")
    return float(value)


def check_floats(values: Any, argument: str, accepted: str) -> np.ndarray:
    """Return ``values`` as a new float array (its shape and entries are the caller's to check),
    or refuse it saying ``argument`` must be ``accepted`` (``"3 probabilities"``).

    Raises:
        TypeError: NumPy cannot read it as real numbers (strings, a ragged sequence).
    """
    try:
        return np.array(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{argument} must be {accepted}, got {values!r}") from None


def check_distribution(values: Any, argument: str, size: int, tolerance: float = 1e-9) -> np.ndarray:
    """Return ``values`` as a float array of ``size`` probabilities summing to 1.

    Raises:
        TypeError: as :func:`check_floats`.
        ValueError: the wrong shape, a negative or non-finite entry, or a sum further than
            ``tolerance`` from 1.
    """
    array = check_floats(values, argument, f"{size} probabilities")
    if array.shape != (size,):
        raise ValueError(f"{argument} must be {size} probabilities (shape ({size},)), got shape {array.shape}")
    if not np.isfinite(array).all() or (array < 0).any():
        raise ValueError(f"{argument} must hold finite probabilities >= 0, got {array.tolist()}")
    if not math.isclose(array.sum(), 1.0, rel_tol=0, abs_tol=tolerance):
        raise ValueError(f"{argument} must sum to 1, got {array.tolist()} (sum {array.sum()!r})")
    return array / array.sum()

def check_choice(value: object, argument: str, accepted: Sequence[str], allow_none: bool = False) -> Any:
    """Return ``value`` if it is one of the ``accepted`` names (or ``None``, with ``allow_none``).

    >>> check_choice("vector", "obs_type", ("dict", "vector"))
    'vector'

    Raises:
        ValueError: anything else, naming ``argument`` and listing what is accepted.
    """
    if value is None and allow_none:
        return None
    if not isinstance(value, str) or value not in accepted:
        names = f"None or one of {list(accepted)}" if allow_none else str(list(accepted))
        raise ValueError(f"unknown {argument} {value!r}; accepted: {names}")
    return value


def check_number(value: object, argument: str, minimum: float = 0.0, strict: bool = False) -> float:
    """Return ``value`` as a float if it is a finite real number >= ``minimum`` (> with
    ``strict``): a delay, a frame rate.

    Raises:
        TypeError: not a real number (bools and strings included).
        ValueError: NaN, an infinity, or below the minimum.
    """
    accepted = f"a finite number {'>' if strict else '>='} {minimum:g}"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{argument} must be {accepted}, got {value!r}")
    number = float(value)
    if not math.isfinite(number) or number < minimum or (strict and number == minimum):
        raise ValueError(f"{argument} must be {accepted}, got {value!r}")
    return number


def check_rate(value: object, argument: str) -> float:
    """Return ``value`` as a float if it is a finite number > 0 (a frame rate, say).

    Raises:
        TypeError, ValueError: as :func:`check_number`.
    """
    return check_number(value, argument, 0.0, strict=True)


def check_instance(value: object, argument: str, kind: type, allow_none: bool = False) -> Any:
    """Return ``value`` if it is a ``kind`` (one of gridghost's classes: a layout, a slip model,
    rewards), or ``None`` with ``allow_none``.

    >>> from gridghost.core.layout import CLASSIC, Layout
    >>> check_instance(CLASSIC, "layout", Layout) is CLASSIC
    True

    Raises:
        TypeError: anything else.
    """
    if (value is None and allow_none) or isinstance(value, kind):
        return value
    raise TypeError(f"{argument} must be a gridghost.{kind.__name__}{' or None' if allow_none else ''}, got {value!r}")


def check_cell(value: Any, argument: str, rows: int | None = None, cols: int | None = None) -> Cell:
    """Return ``value`` as a ``(row, col)`` tuple of ints if it is a cell of a ``rows x cols``
    grid (Python or NumPy ints; bools and floats are refused, nothing is rounded); without
    ``rows`` and ``cols``, any pair of ints (a caller that checks the grid later).

    Raises:
        TypeError: not a pair of ints.
        ValueError: outside the grid.
    """
    try:
        row, col = value
    except (TypeError, ValueError):
        raise TypeError(f"{argument} must be a (row, col) pair of ints, got {value!r}") from None
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in (row, col)):
        raise TypeError(f"{argument} must be a (row, col) pair of ints, got {value!r}")
    if rows is not None and cols is not None and not (0 <= row < rows and 0 <= col < cols):
        raise ValueError(
            f"{argument} {(int(row), int(col))} lies outside the {rows}x{cols} grid "
            f"(rows 0..{rows - 1}, cols 0..{cols - 1})"
        )
    return int(row), int(col)


#: Unicode categories a cell text may not contain: control, format (zero-width marks among them),
#: surrogate, private-use and unassigned characters, which fonts cannot draw or draw as nothing.
_UNDRAWABLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})
#: Categories of which a text needs at least one character to be seen: letters, numbers,
#: punctuation and symbols.
_VISIBLE_CATEGORIES = frozenset("LNPS")


def check_text(text: Any, argument: str) -> str:
    """Return ``text`` if it is a cell label every view can show: a ``str`` of printable
    characters with at least one visible one (``""`` means no label).

    >>> check_text("Ziel", "texts[(3, 1)]")
    'Ziel'

    Raises:
        TypeError: ``text`` is not a ``str``.
        ValueError: it holds a control, format (zero-width), surrogate, private-use or unassigned
            character, or only spaces and marks.
    """
    if not isinstance(text, str):
        raise TypeError(f"{argument} must be a str, got {text!r}")
    if not text:
        return text
    for position, char in enumerate(text):
        category = unicodedata.category(char)
        if category in _UNDRAWABLE_CATEGORIES:
            raise ValueError(
                f"{argument} holds the undrawable character U+{ord(char):04X} (Unicode category {category}) at "
                f"position {position}: {text!r}; texts may hold letters, numbers, punctuation, symbols and spaces"
            )
    if not any(unicodedata.category(char)[0] in _VISIBLE_CATEGORIES for char in text):
        raise ValueError(f"{argument} must hold at least one visible character (or be empty), got {text!r}")
    return text


class Unset:
    """A class attribute standing for an instance attribute not set yet: reading it before the
    instance has its own calls ``missing(instance)``, which returns a value or raises an
    ``AttributeError`` that says why there is none.

    It has no ``__set__``, so the instance's own value, once set, is read first. It replaces a
    ``__getattr__``, which would make every attribute read of the class slower: CPython 3.11
    specializes no attribute read on a class that defines ``__getattr__``.
    """

    def __init__(self, missing: Callable[[Any], Any]) -> None:
        self._missing = missing

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        return self if instance is None else self._missing(instance)
