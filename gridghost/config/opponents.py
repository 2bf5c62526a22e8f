"""The one registry of opponent names: what ``opponent="chase"`` (or ``"minimax"``...) means in
every view that plays one side against a fixed opponent (the Gymnasium view, the reference
``AgentInterface``, the batched engine, self-play pools).

Two kinds of named opponents exist: scripted players, which decide from their own observation
(:data:`~gridghost.core.policies.POLICY_NAMES`: the chasing ghost, the random player), and the
exact solver's players, which decide from the state and are built per game
(:data:`~gridghost.planning.NAMED_POLICIES`).

>>> sorted(OPPONENT_SIDES)
['chase', 'minimax', 'optimal', 'random']
>>> OPPONENT_SIDES["chase"]
('ghost',)
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from gridghost.core.checks import check_choice
from gridghost.core.game import Game
from gridghost.core.names import AGENT, AGENTS, GHOST
from gridghost.core.policies import POLICY_NAMES
from gridghost.core.recent import RecentCache
from gridghost.core.rules import Board, GameState, Side
from gridghost.planning import NAMED_POLICIES, StatePolicy, check_state_policy
from gridghost.planning.solve import solve_agent, solve_game
from gridghost.sensing.observations import make_observations

#: The opponent a one-sided view plays against when none is given, by the side that learns.
DEFAULT_OPPONENTS: dict[str, str] = {AGENT: "chase", GHOST: "random"}

#: Every opponent name, and the sides it can play (the chasing ghost only chases; the optimal
#: agent is optimal against the chasing ghost).
OPPONENT_SIDES: dict[str, tuple[str, ...]] = {
    **{name: (GHOST,) if name == "chase" else AGENTS for name in POLICY_NAMES},
    **{name: tuple(AGENTS[side] for side in kinds) for name, kinds in NAMED_POLICIES.items()},
}


def opponent_view(obs_type: str, board: Board, side: Side,
                  belief: Callable[[], np.ndarray] | None = None, *, ghosts: int = 1,
                  who: str | None = None) -> Callable[[GameState], Any]:
    """What an opponent playing ``side`` sees: its own encoding's observer on ``board`` (the
    encoding's default options; ``belief`` for the belief encodings); with ``ghosts >= 2``, the
    team encoding's observer of the agent named ``who``.

    Raises:
        ValueError: an unknown encoding, or a belief encoding without ``belief``.
    """
    return make_observations(obs_type, board, belief, ghosts=ghosts).observer(side if who is None else who)


def check_opponent_name(name: str, side: Side, argument: str = "opponent", given: Any = None) -> str:
    """Return ``name`` if it names an opponent that can play ``side``.

    Args:
        name: the opponent's name.
        side: the side it would play.
        argument: the caller's name for the opponent, for the message.
        given: what the caller passed when it was not the name itself (a policy object of that
            kind), for the message.

    Raises:
        ValueError: an unknown name, or one that plays the other side only.
    """
    check_choice(name, argument, sorted(OPPONENT_SIDES))
    if AGENTS[side] not in OPPONENT_SIDES[name]:
        who = " (the chasing ghost)" if name == "chase" else ""
        raise ValueError(f"{argument} {name if given is None else given!r}{who} plays the "
                         f"{' and the '.join(OPPONENT_SIDES[name])}; the {argument} here is the {AGENTS[side]}")
    return name


def refuse_table(opponent: Any, instead: str) -> None:
    """Refuse a NumPy array as a view's ``opponent``, by name: a state-policy table (the
    solver's ``agent_policy`` / ``team_policy`` arrays) is not an opponent of the Gymnasium
    views or the reference interface, which would otherwise compare it with the opponents' names
    element by element.

    Args:
        opponent: the opponent given.
        instead: what the view takes in its place, for the message.

    Raises:
        TypeError: ``opponent`` is an array.
    """
    if isinstance(opponent, np.ndarray):
        raise TypeError(f"opponent is an array of shape {opponent.shape}; a state-policy table is not an opponent "
                        f"of this view: {instead}")


def is_planner(opponent: Any) -> bool:
    """Whether ``opponent`` decides from the state, built per game: a solver player's name, a
    :class:`~gridghost.planning.StatePolicy` or a subclass of it."""
    return (isinstance(opponent, str) and opponent in NAMED_POLICIES) or isinstance(opponent, StatePolicy) or (
        isinstance(opponent, type) and issubclass(opponent, StatePolicy))


def planned_opponent(opponent: Any, game: Game, side: Side, argument: str = "opponent") -> StatePolicy | None:
    """The state policy ``opponent`` names or is, built for ``game`` and checked to fit it, or
    ``None`` when it is a scripted player's name or another kind of policy (which the view plays
    from observations).

    Raises:
        ValueError: an unknown name, a name for the other side, or a state policy of another map.
        TypeError: a state policy that does not fit the game.
    """
    if isinstance(opponent, str):
        check_opponent_name(opponent, side, argument)
        return NAMED_POLICIES[opponent][side].for_game(game) if opponent in NAMED_POLICIES else None
    if is_planner(opponent):
        return check_state_policy(opponent, game, side, argument)
    return None


#: The opponents of a team game's single-agent view by name, per learner (the agent against a
#: team, or the team against an agent): scripted ones, and the solver's (:func:`team_planner`).
TEAM_OPPONENTS: dict[str, tuple[str, ...]] = {AGENT: ("chase", "random", "minimax"),
                                              "ghosts": ("random", "minimax", "optimal")}
#: The opponent a team game's learner faces when none is given.
TEAM_DEFAULT_OPPONENTS: dict[str, str] = {AGENT: "chase", "ghosts": "random"}


def team_planner(name: str, kernel: Any, side: Side) -> Callable[[Any], Any]:
    """The solver's player ``name`` of ``side`` on ``kernel``, as a function of the state: an int
    for the agent, the team's ``k`` actions for the ghosts.

    It comes from the solver (:mod:`gridghost.planning.solve`), for one ghost as for a team:
    ``"minimax"`` is either side's policy in the zero-sum game
    (:func:`~gridghost.planning.solve_game`); ``"optimal"`` is the agent's best response to the
    chasing ghosts (:func:`~gridghost.planning.solve_agent`). The tables are solved once per
    game and kept for the next env on the same game.

    Raises:
        ValueError: a name the solver has no player of for ``side`` (``"optimal"`` for the
            ghosts), or a team too large for the solver's memory budget.
    """
    if side == Side.GHOST and name != "minimax":
        raise ValueError(f"opponent={name!r} is an agent's player; a team's planned opponent is 'minimax'")
    table = _solver_table(kernel, name, side)
    if side == Side.AGENT:
        return functools.partial(_table_action, table, kernel.num_cells)
    return functools.partial(_table_joint, table, kernel.num_cells, kernel.ghosts)


#: The solver's tables by game and player (a few: each is a byte per joint state).
_SOLVER_TABLES: RecentCache[bytes] = RecentCache(lambda: 8)


def _solver_table(kernel: Game, name: str, side: Side) -> bytes:
    """The solver's player ``name`` of ``side`` as bytes indexed by the flat joint state
    (agent cell, then each ghost's): the agent's action, or the team's joint move."""
    key = (kernel.layout, kernel.slip, kernel.agent_rewards, kernel.ghost_rewards, kernel.ghosts, name, side)
    # -1 where the game is over, which no lookup reaches; a joint move of up to 4 ghosts fits a byte
    return _SOLVER_TABLES.get(key, lambda: np.asarray(solver_policy(kernel, name, side)).astype(np.uint8).tobytes())


def solver_policy(kernel: Game, name: str, side: Side) -> np.ndarray:
    """The solver's player ``name`` (``"minimax"``, or the agent's ``"optimal"``) of ``side`` on
    ``kernel`` (one ghost or a team), as the solver gives it: the agent's actions, or the ghosts'
    joint moves, per state (-1 where the game is over); :func:`team_planner` plays it."""
    if side == Side.AGENT and name == "optimal":
        return solve_agent(game=kernel, ghost="chase").policy
    solution = solve_game(game=kernel)
    return solution.agent_policy if side == Side.AGENT else solution.team_policy


def _table_action(table: bytes, cells: int, state: Any) -> int:
    """The table's entry of ``state``: indexed by the agent's cell, then each ghost's."""
    index = state.agent
    for cell in state.ghosts:
        index = index * cells + cell
    return table[index]


def _table_joint(table: bytes, cells: int, ghosts: int, state: Any) -> tuple[int, ...]:
    """The team's moves in ``state`` of a table of joint moves (two bits a ghost)."""
    joint = _table_action(table, cells, state)
    return tuple(joint >> 2 * ghost & 3 for ghost in range(ghosts))
