"""The one bounded cache of built things (boards, levels, solved tables), least recently used first out."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

_Value = TypeVar("_Value")


class RecentCache(Generic[_Value]):
    """The most recently used values by key, each built on its key's first use. Thread-safe;
    ``build()`` runs outside the lock, so other look-ups need not wait for it. After an insertion
    the least recently used values go while their sizes add up to more than ``limit()``, read
    then (so a module setting takes effect at once); the newest stays whatever its size.

    Args:
        limit: the budget, read at each insertion.
        size: a value's share of the budget (the default counts values), taken once, when the
            value is built, outside the lock.

    Attributes:
        kept: the kept values by key, the most recently used last.
        total: the sum of their sizes, kept as they come and go.
    """

    def __init__(self, limit: Callable[[], float], size: Callable[[_Value], int] = lambda value: 1) -> None:
        self.limit, self.size = limit, size
        self.kept: OrderedDict[Hashable, _Value] = OrderedDict()
        self.total = 0
        self._sizes: dict[Hashable, int] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable, build: Callable[[], _Value]) -> _Value:
        """The value of ``key``, built with ``build()`` when it is not kept."""
        with self._lock:
            if key in self.kept:
                self.kept.move_to_end(key)
                return self.kept[key]
        value = build()
        size = self.size(value)
        with self._lock:
            if key not in self.kept:  # else another thread built it meanwhile: that one stays
                self.kept[key], self._sizes[key] = value, size
                self.total += size
            self.kept.move_to_end(key)
            while len(self.kept) > 1 and self.total > self.limit():
                self.total -= self._sizes.pop(self.kept.popitem(last=False)[0])
            return self.kept[key]

    def clear(self) -> None:
        """Forget every value."""
        with self._lock:
            self.kept.clear()
            self._sizes.clear()
            self.total = 0
