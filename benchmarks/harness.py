"""Timing helpers shared by the benchmark scripts (imported as ``harness``: a script's folder is
on ``sys.path`` when it runs).

Machines here are shared and noisy, so every benchmark runs its contenders interleaved, round
after round, times them in process CPU time (time spent descheduled does not count), and reports
the median over rounds of each contender's rate divided by the same round's baseline rate.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping


def interleaved_rates(contenders: Mapping[str, Callable[[int], float]], rounds: int) -> dict[str, list[float]]:
    """Call every contender once per round with the round number (its seed) and collect the rates
    it returns; the order rotates from round to round so no contender always runs first."""
    names = list(contenders)
    rates: dict[str, list[float]] = {name: [] for name in names}
    for round_ in range(rounds):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            rates[name].append(contenders[name](round_))
    return rates


def median_ratio(rates: Mapping[str, list[float]], name: str, baseline: str) -> float:
    """The median over rounds of ``name``'s rate divided by ``baseline``'s rate in the same round."""
    return statistics.median(r / b for r, b in zip(rates[name], rates[baseline], strict=True))


def verdict(ratio: float, target: float | None) -> str:
    """``"met"``/``"MISSED"`` against a target ratio, or ``""`` without one."""
    if target is None:
        return ""
    return f">= {target:g}x  {'met' if ratio >= target else 'MISSED'}"
