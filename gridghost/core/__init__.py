"""The game itself: maps, rules, slip, the game kernel and the scripted players.

Nothing here imports anything above it: no sensing, planning, views, drawing or training.

``BOARD_CACHE_BYTES`` is a setting: ``gridghost.core.BOARD_CACHE_BYTES = ...`` sets
:data:`gridghost.core.rules.BOARD_CACHE_BYTES`, which the boards' cache reads at each insertion.
"""

from __future__ import annotations

from typing import Any

from gridghost._moved import moved_name
from gridghost.core import rules, tunables
from gridghost.core.checks import (
    check_action,
    check_cell,
    check_choice,
    check_distribution,
    check_flag,
    check_instance,
    check_limit,
    check_number,
    check_probability,
    check_rate,
    check_seed,
    check_text,
)
from gridghost.core.game import (
    CREDITS,
    Game,
    Successor,
    Transitions,
    chase_action,
    chase_table,
)
from gridghost.core.generate import (
    DEFAULT_COLOUR_PROBABILITIES,
    DEFAULT_LOOPS,
    DEFAULT_WALL_DENSITY,
    MAX_ATTEMPTS,
    WALL_KIND_OPTIONS,
    WALL_KINDS,
    generate_layout,
)
from gridghost.core.layout import (
    CLASSIC,
    Layout,
)
from gridghost.core.maptext import (
    BUILTIN_SYMBOLS,
    parse_layout,
)
from gridghost.core.mapwrite import format_layout
from gridghost.core.names import (
    ACTION_NAMES,
    AGENT,
    AGENTS,
    COLOURS,
    FILTER_STREAM,
    GHOST,
    ITEM_FLAGS,
    ITEMS,
    MAP_STREAM,
    MAX_CELLS,
    MAX_GHOSTS,
    NUM_ACTIONS,
    OPPONENT_STREAM,
    Cell,
)
from gridghost.core.policies import (
    CHASE_FALLBACK,
    POLICY_NAMES,
    ChasePolicy,
    Policy,
    RandomPolicy,
    ReferencePolicy,
    chase_rule,
    make_policy,
)
from gridghost.core.rules import (
    ACTION_DELTAS,
    BOARD_CACHE_BYTES,
    NEIGHBOUR_ORDER,
    REWARD_PRESETS,
    Action,
    Board,
    GameState,
    Outcome,
    Rewards,
    Side,
    board_for,
    cached_board_bytes,
    describe_moves,
    make_rewards,
)
from gridghost.core.slip import (
    DEFAULT_SLIP_PROBABILITY,
    PERPENDICULAR,
    SLIP_TYPES,
    Groups,
    LongitudinalSlip,
    Moves,
    NoSlip,
    Outcomes,
    PerpendicularSlip,
    SlipModel,
    make_slip,
    slip_from_dict,
    slip_to_dict,
)

__all__ = [
    "ACTION_DELTAS",
    "ACTION_NAMES",
    "AGENT",
    "AGENTS",
    "BOARD_CACHE_BYTES",
    "BUILTIN_SYMBOLS",
    "CHASE_FALLBACK",
    "CLASSIC",
    "COLOURS",
    "CREDITS",
    "DEFAULT_COLOUR_PROBABILITIES",
    "DEFAULT_LOOPS",
    "DEFAULT_SLIP_PROBABILITY",
    "DEFAULT_WALL_DENSITY",
    "FILTER_STREAM",
    "GHOST",
    "ITEMS",
    "ITEM_FLAGS",
    "MAP_STREAM",
    "MAX_ATTEMPTS",
    "MAX_CELLS",
    "MAX_GHOSTS",
    "NEIGHBOUR_ORDER",
    "NUM_ACTIONS",
    "OPPONENT_STREAM",
    "PERPENDICULAR",
    "POLICY_NAMES",
    "REWARD_PRESETS",
    "SLIP_TYPES",
    "WALL_KINDS",
    "WALL_KIND_OPTIONS",
    "Action",
    "Board",
    "Cell",
    "ChasePolicy",
    "Game",
    "GameState",
    "Groups",
    "Layout",
    "LongitudinalSlip",
    "Moves",
    "NoSlip",
    "Outcome",
    "Outcomes",
    "PerpendicularSlip",
    "Policy",
    "RandomPolicy",
    "ReferencePolicy",
    "Rewards",
    "Side",
    "SlipModel",
    "Successor",
    "Transitions",
    "board_for",
    "cached_board_bytes",
    "chase_action",
    "chase_rule",
    "chase_table",
    "check_action",
    "check_cell",
    "check_choice",
    "check_distribution",
    "check_flag",
    "check_instance",
    "check_limit",
    "check_number",
    "check_probability",
    "check_rate",
    "check_seed",
    "check_text",
    "describe_moves",
    "format_layout",
    "generate_layout",
    "make_policy",
    "make_rewards",
    "make_slip",
    "parse_layout",
    "slip_from_dict",
    "slip_to_dict",
]

tunables.forward(__name__, rules, ("BOARD_CACHE_BYTES",))


def __getattr__(name: str) -> Any:
    """A deprecated name of this package (``TeamGame``, ``TeamState``, ``TeamTransitions``),
    read with a :class:`DeprecationWarning` naming its replacement."""
    return moved_name(__name__, name)
