"""Progress bars for long work: opt-in in library calls (``progress_bar=True``), on by default in
the scripts (``--no-progress`` turns them off).

One helper serves every bar. tqdm is imported only when a bar is drawn, so ``import gridghost``
does not pay for it. A bar writes to stderr (tqdm's default), so a script's stdout, which callers
may parse, stays as it is; with the bar off nothing at all is written.

>>> with make_bar(False, 3, "levels") as bar:   # off: a bar that draws nothing
...     bar.update(3)
"""

from __future__ import annotations

import contextlib
import math
from collections import deque
from collections.abc import Sequence
from types import TracebackType
from typing import Any


class Bar(contextlib.AbstractContextManager):
    """What a long call drives: the bar of a call run without one, whose every method does
    nothing, or in its place, when :func:`make_bar` draws a bar, a tqdm bar (which has them all).

    Args:
        total: the units the work takes, or ``None`` when unknown.
    """

    def __init__(self, total: float | None) -> None:
        self.total = total

    def update(self, n: float = 1) -> Any:
        """Count ``n`` more units done."""

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> Any:
        """Show ``s`` after the bar (a residual, a score)."""

    def refresh(self) -> Any:
        """Redraw the bar (after ``total`` changed)."""

    def close(self) -> Any:
        """Finish the bar."""

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> Any:
        """Leave the bar's ``with`` block (a tqdm bar closes itself there)."""


def make_bar(enabled: bool, total: float | None, description: str, unit: str = "it") -> Bar:
    """A progress bar with an ETA on stderr when ``enabled``, else one that draws nothing.

    Args:
        enabled: draw the bar (a caller checks its ``progress_bar`` argument with
            :func:`~gridghost.core.checks.check_flag` first).
        total: the units the work takes, or ``None`` when unknown (then no ETA until the caller
            sets ``bar.total``).
        description: the words before the bar (``"self-play"``, ``"levels"``).
        unit: what one unit is (``"turn"``, ``"level"``).

    Returns:
        A :class:`Bar`, or a tqdm bar in its place when ``enabled``; use it as a context manager
        so that it is closed on an error too.
    """
    if not enabled:
        return Bar(total)
    from tqdm import tqdm  # only here: importing tqdm costs about 50 ms

    bar: Bar = tqdm(total=total, desc=description, unit=unit, dynamic_ncols=True)
    return bar


class SweepBar(contextlib.AbstractContextManager):
    """A progress bar over the sweeps of an iteration that stops at a tolerance (value iteration),
    whose number of sweeps is not known in advance: after each sweep the total, and the ETA with
    it, is re-estimated from how fast the largest change shrank over the last ``window`` sweeps,
    and the change is shown after the bar. With a fixed number of sweeps it is a plain bar.

    Args:
        bar: the bar to drive (from :func:`make_bar`).
        tol: the change at which the iteration stops, or ``None`` for a fixed number of sweeps.
        limit: the most sweeps the iteration makes (the estimate never exceeds it).
        window: the sweeps the rate of shrinking is measured over, an int >= 2.
    """

    def __init__(self, bar: Bar, tol: float | None, limit: int, window: int = 16) -> None:
        self.bar, self.tol, self.limit = bar, tol, limit
        self._changes: deque[float] = deque(maxlen=window)
        self.sweeps = 0

    def count(self, change: float) -> None:
        """Count one sweep whose largest change was ``change``."""
        self.sweeps += 1
        if self.tol is not None:
            self._changes.append(change)
            left = sweeps_left(self._changes, self.tol)
            if left is not None:
                self.bar.total = min(self.sweeps + left, self.limit)
            self.bar.set_postfix_str(f"change {change:.2g} (tol {self.tol:g})", refresh=False)
        self.bar.update()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.bar.close()


def sweep_bar(enabled: bool, description: str, sweeps: int | None, tol: float, limit: int) -> SweepBar:
    """A :class:`SweepBar` on stderr when ``enabled`` (else one that draws nothing) for an
    iteration of ``sweeps`` sweeps, or, with ``sweeps=None``, one that runs until its largest
    change is at most ``tol`` (at most ``limit`` sweeps)."""
    return SweepBar(make_bar(enabled, sweeps, description, "sweep"), tol if sweeps is None else None, limit)


def sweeps_left(changes: Sequence[float], tol: float) -> int | None:
    """An estimate of the sweeps still needed to bring the last of ``changes`` (each sweep's
    largest change, oldest first) to ``tol``, if they keep shrinking at the mean rate they
    shrank at from the first to the last, as they do once value iteration contracts; ``None``
    while they do not shrink yet.

    >>> sweeps_left([1.0, 0.5, 0.25], 0.01)   # halved per sweep: 0.25 / 2**5 < 0.01
    5
    """
    last = changes[-1]
    if last <= tol:
        return 0
    first = changes[0]
    if len(changes) < 2 or not (0.0 < last < first) or not math.isfinite(first):
        return None
    rate = math.log(last / first) / (len(changes) - 1)  # log of the shrinking per sweep, < 0
    return math.ceil(math.log(tol / last) / rate)
