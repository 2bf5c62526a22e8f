"""Training tooling: the evaluation protocol (:func:`evaluate`, exact scores of any policy on
any levels) and self-play (opponent pools, ratings, a Gymnasium env and a ghosts-only parallel env
that play against the pool, :class:`TabularSelfPlay`, both sides learning one table of action
values to the equilibrium, and :class:`ExploiterLoop`, a learning team trained against the exact
best responses to it).
"""

from __future__ import annotations

from gridghost.training.evaluation import Evaluation, Evaluator, evaluate
from gridghost.training.exploiter import (
    ExploiterLoop,
    ExploiterRound,
    ExploiterSnapshot,
    TeamLearner,
    TeamScorer,
    TeamScores,
)
from gridghost.training.selfplay import (
    RESULTS,
    SAMPLING_RULES,
    SELFPLAY_STREAM,
    ExploitabilityCurve,
    OpponentPool,
    Results,
    SelfPlayEnv,
    SelfPlayParallelEnv,
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
    "ExploiterLoop",
    "ExploiterRound",
    "ExploiterSnapshot",
    "OpponentPool",
    "Results",
    "SelfPlayEnv",
    "SelfPlayParallelEnv",
    "Snapshot",
    "TabularSelfPlay",
    "TeamLearner",
    "TeamScorer",
    "TeamScores",
    "elo_ratings",
    "evaluate",
    "expected_score",
    "exploitability_curve",
]
