"""Training tooling: the evaluation protocol (:func:`evaluate`, exact scores of any policy on
any levels) and self-play (opponent pools, ratings, a Gymnasium env that plays against the pool, and
:class:`TabularSelfPlay`, both sides learning one table of action values to the equilibrium).
"""

from __future__ import annotations

from gridghost.training.evaluation import Evaluation, Evaluator, evaluate
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
from gridghost.training.tabular import TABULAR_BYTES, TABULAR_STREAM, TabularSelfPlay

__all__ = [
    "RESULTS",
    "SAMPLING_RULES",
    "SELFPLAY_STREAM",
    "TABULAR_BYTES",
    "TABULAR_STREAM",
    "Evaluation",
    "Evaluator",
    "ExploitabilityCurve",
    "OpponentPool",
    "Results",
    "SelfPlayEnv",
    "Snapshot",
    "TabularSelfPlay",
    "elo_ratings",
    "evaluate",
    "expected_score",
    "exploitability_curve",
]
