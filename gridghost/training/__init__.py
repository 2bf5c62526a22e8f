"""Self-play: opponent pools, ratings, and a Gymnasium env that plays against the pool.
"""

from __future__ import annotations

from gridghost.training.selfplay import (
    RESULTS,
    SAMPLING_RULES,
    SELFPLAY_STREAM,
    ExploitabilityCurve,
    OpponentPool,
    Results,
    SelfPlayEnv,
    Snapshot,
    elo_ratings,
    expected_score,
    exploitability_curve,
)

__all__ = [
    "RESULTS",
    "SAMPLING_RULES",
    "SELFPLAY_STREAM",
    "ExploitabilityCurve",
    "OpponentPool",
    "Results",
    "SelfPlayEnv",
    "Snapshot",
    "elo_ratings",
    "expected_score",
    "exploitability_curve",
]
