"""Exact solutions of a :class:`~gridghost.core.game.Game`: the turn model
(:mod:`~gridghost.planning.model`), state policies (:mod:`~gridghost.planning.policy`), value
iteration, policy evaluation and exploitability (:mod:`~gridghost.planning.solve`), optimal and
minimax players (:mod:`~gridghost.planning.players`), tabulation of learned policies
(:mod:`~gridghost.planning.tabulate`), for one ghost or a team of ``k``; the team solver's old names
(``solve_team_game``, ...) are deprecated aliases (:mod:`~gridghost.planning.deprecated`).

``CACHE_BYTES`` and ``MAX_STATES`` are settings, read when they apply: setting
``gridghost.planning.CACHE_BYTES`` sets :data:`gridghost.planning.model.CACHE_BYTES`, where the
caches read it (a copy here would be ignored).
"""

from __future__ import annotations

from typing import Any

from gridghost._moved import moved_name
from gridghost.core import tunables
from gridghost.planning import model
from gridghost.planning.coordination import Coordination, check_coordination, coordination_numbers, is_coordination_map

# CACHE_BYTES and MAX_STATES are imported for readers of the package (the API reference); tunables.forward
# below makes the names read and set model's.
from gridghost.planning.exploit import agent_exploitability, exploitability, ghost_exploitability
from gridghost.planning.model import CACHE_BYTES, MAX_BYTES, MAX_STATES, TurnModel, clear_caches, turn_model
from gridghost.planning.players import (
    EXPERTS,
    NAMED_POLICIES,
    MinimaxAgent,
    MinimaxGhost,
    OptimalAgent,
    QMDPAgent,
    expert_tables,
)
from gridghost.planning.policy import StatePolicy, check_state_policy, policy_array
from gridghost.planning.solve import (
    MAX_ITERATIONS,
    AgentSolution,
    GameSolution,
    GhostSolution,
    PolicyEvaluation,
    Rule,
    evaluate_policies,
    solve_agent,
    solve_game,
    solve_ghost,
)
from gridghost.planning.tabulate import (
    TABULATED_OBS_TYPES,
    TEAM_TABULATED_OBS_TYPES,
    TEAM_TABULATED_VIEWS,
    tabulate_policy,
)

__all__ = [
    "CACHE_BYTES",
    "EXPERTS",
    "MAX_BYTES",
    "MAX_ITERATIONS",
    "MAX_STATES",
    "NAMED_POLICIES",
    "TABULATED_OBS_TYPES",
    "TEAM_TABULATED_OBS_TYPES",
    "TEAM_TABULATED_VIEWS",
    "AgentSolution",
    "Coordination",
    "GameSolution",
    "GhostSolution",
    "MinimaxAgent",
    "MinimaxGhost",
    "OptimalAgent",
    "PolicyEvaluation",
    "QMDPAgent",
    "Rule",
    "StatePolicy",
    "TurnModel",
    "agent_exploitability",
    "check_coordination",
    "check_state_policy",
    "clear_caches",
    "coordination_numbers",
    "evaluate_policies",
    "expert_tables",
    "exploitability",
    "ghost_exploitability",
    "is_coordination_map",
    "policy_array",
    "solve_agent",
    "solve_game",
    "solve_ghost",
    "tabulate_policy",
    "turn_model",
]


tunables.forward(__name__, model, ("CACHE_BYTES", "MAX_STATES", "MAX_BYTES"))


def __getattr__(name: str) -> Any:
    """A deprecated name (see :mod:`gridghost.planning.deprecated`), read with a warning."""
    return moved_name(__name__, name)
