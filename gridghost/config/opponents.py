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
from collections.abc import Callable, Sequence
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


# -- agent tables: what a learning team plays as its opponent, one table or a pool of them -----------------
#: The entry of an agent table where the game is over (no action; never read): ``uint8`` 255.
GAME_OVER: int = 255


class AgentPool:
    """A pool of agent tables for a learning team: one member is drawn per episode, with
    probability its weight, and plays the agent for the whole episode.

    Args:
        tables: the members: a 2-D stack ``(P, maps * cells**(k + 1))``, or a sequence of members,
            each a table in any form :func:`agent_tables` reads.
        weights: ``P`` probabilities (>= 0, summing to 1); ``None`` means uniform.

    Attributes:
        tables, weights: as given (checked against a game by :func:`agent_tables`).
    """

    def __init__(self, tables: Any, weights: Any = None) -> None:
        self.tables, self.weights = tables, weights

    def __repr__(self) -> str:
        return f"AgentPool({len(agent_members(self))} tables)"


def is_agent_table(opponent: Any) -> bool:
    """Whether ``opponent`` is an agent table or a pool of them (an array, a sequence of arrays,
    or an :class:`AgentPool`), not a name or a policy."""
    return isinstance(opponent, (AgentPool, np.ndarray)) or (
        isinstance(opponent, (list, tuple)) and bool(opponent) and all(hasattr(one, "shape") for one in opponent))


def live_states(goals: Any, ghosts: int) -> np.ndarray:
    """Where the game goes on, ``bool[maps * cells**(k + 1)]`` by ``map * cells**(k + 1)`` + the
    flat joint state (the agent's cell, then each ghost's): the agent off the goals and no ghost
    on its cell.

    Args:
        goals: ``bool[maps, cells]``, each map's goal cells.
        ghosts: the team's size ``k``.
    """
    goals = np.asarray(goals, dtype=bool)
    cells = goals.shape[1]
    grid = np.indices((cells,) * (ghosts + 1)).reshape(ghosts + 1, -1)
    caught = (grid[1:] == grid[0]).any(axis=0)
    return (~goals[:, grid[0]] & ~caught).reshape(-1)


def agent_tables(opponent: Any, kernels: Sequence[Game], argument: str = "opponent") -> tuple[np.ndarray, np.ndarray]:
    """An agent table, or a pool of them, checked against the team game of every map and laid
    out as the engines play it.

    A table gives the agent's action in every joint state of every map, with the agent to move:
    ``int[maps * cells**(k + 1)]`` by ``map * cells**(k + 1)`` + the flat joint state (the agent's
    cell, then each ghost's), or the solver's form (an :class:`~gridghost.planning.AgentSolution`'s
    ``policy``): ``int[(rows, cols) * (k + 1)]`` or ``int[(cells,) * (k + 1)]`` for one map,
    and those stacked ``[maps, ...]`` for several. Each entry is an action 0..3 where the game
    goes on, and may be the game-over marker (-1 or :data:`GAME_OVER`) where it is over.

    Args:
        opponent: one table, a sequence of tables or a 2-D stack ``(P, entries)`` (a pool with
            equal weights), or an :class:`AgentPool`.
        kernels: each map's team :class:`~gridghost.core.game.Game`, as the engine stacks them.
        argument: the caller's name for ``opponent``, for messages.

    Returns:
        ``(tables, weights)``: ``uint8[P, entries]`` (:data:`GAME_OVER` where the game is over)
        and ``float64[P]``.

    Raises:
        TypeError: a table that is not an int array (bools included), or an opponent of no
            such form.
        ValueError: a table of another shape, an entry outside 0..3 where the game goes on or
            outside -1..3 and :data:`GAME_OVER` where it is over, no tables, or weights that are
            not ``P`` probabilities >= 0 summing to 1.
    """
    members = agent_members(opponent)
    if not members:
        raise ValueError(f"{argument} must hold at least one agent table, got none")
    live = live_states([kernel.goals for kernel in kernels], kernels[0].ghosts)
    tables = np.stack([_agent_table(member, kernels, live, f"{argument}'s table {i}" if len(members) > 1 else argument)
                       for i, member in enumerate(members)])
    weights = opponent.weights if isinstance(opponent, AgentPool) else None
    return tables, _pool_weights(weights, len(tables), f"{argument}'s weights")


def agent_members(opponent: Any) -> list[Any]:
    """The tables of ``opponent`` (one table, a sequence or 2-D stack of them, or an
    :class:`AgentPool`), unchecked: what :func:`agent_tables` reads, one by one."""
    members = opponent.tables if isinstance(opponent, AgentPool) else opponent
    if isinstance(members, np.ndarray) and members.ndim == 2:
        return list(members)
    if isinstance(members, np.ndarray) or not isinstance(members, (list, tuple)):
        return [members]
    return list(members)


def _agent_table(member: Any, kernels: Sequence[Game], live: np.ndarray, argument: str) -> np.ndarray:
    """One table as ``uint8[entries]`` (see :func:`agent_tables`)."""
    k, cells, maps = kernels[0].ghosts, kernels[0].num_cells, len(kernels)
    shape = kernels[0].layout.shape
    array = member if isinstance(member, np.ndarray) else np.asarray(member) if hasattr(member, "shape") else None
    if array is None or array.dtype == bool or not np.issubdtype(array.dtype, np.integer):
        got = f"dtype {array.dtype}" if array is not None else repr(member)
        raise TypeError(f"{argument} must be an int array of the agent's actions (0..3, -1 or {GAME_OVER} where the "
                        f"game is over), got {got}")
    forms = [(len(live),), *([(cells,) * (k + 1), shape * (k + 1)] if maps == 1 else []),
             (maps, *(cells,) * (k + 1)), (maps, *shape * (k + 1))]
    if array.shape not in forms:
        raise ValueError(f"{argument} must have shape {' or '.join(map(str, forms))} (maps * cells**(k + 1) "
                         f"entries with {maps} map(s) of {cells} cells and k={k}), got shape {array.shape}")
    flat = array.reshape(-1).astype(np.int64)
    over = (flat == -1) | (flat == GAME_OVER)
    bad = np.flatnonzero(((flat < 0) | (flat > 3)) & ~(over & ~live))
    if len(bad):
        entry = int(bad[0])
        where = "where the game goes on" if live[entry] else f"(or -1 or {GAME_OVER}) where the game is over"
        raise ValueError(f"{argument} must hold actions 0..3 {where}; entry {entry} ({_describe(entry, cells, k)}) "
                         f"holds {flat[entry]}")
    return np.where(over, GAME_OVER, flat).astype(np.uint8)


def _describe(entry: int, cells: int, k: int) -> str:
    """A joint state of the flat layout, for messages."""
    m, state = divmod(entry, cells ** (k + 1))
    digits = np.unravel_index(state, (cells,) * (k + 1))
    return f"map {m}, agent cell {int(digits[0])}, ghost cells {[int(cell) for cell in digits[1:]]}"


def _pool_weights(weights: Any, count: int, argument: str) -> np.ndarray:
    """``count`` probabilities (``None``: uniform), checked."""
    if weights is None:
        return np.full(count, 1.0 / count)
    array = np.asarray(weights)
    if array.dtype == bool or not (np.issubdtype(array.dtype, np.floating) or np.issubdtype(array.dtype, np.integer)):
        raise TypeError(f"{argument} must be {count} real probabilities, got dtype {array.dtype}")
    array = array.astype(np.float64)
    if array.shape != (count,):
        raise ValueError(f"{argument} must have shape ({count},), one per table, got shape {array.shape}")
    if not np.isfinite(array).all() or (array < 0).any() or abs(array.sum() - 1.0) > 1e-6:
        raise ValueError(f"{argument} must be probabilities >= 0 summing to 1, got {array.tolist()}")
    return array


def draw_members(uniforms: Any, weights: Any, xp: Any = np) -> Any:
    """The pool member each uniform in [0, 1) draws: the inverse of the weights' cumulative
    distribution, never a member of weight 0 (the sums' rounding included).

    Args:
        uniforms: ``float[...]`` in [0, 1).
        weights: ``float[P]``, summing to 1.
        xp: the array namespace (``numpy`` or ``jax.numpy``).

    Returns:
        ``int[...]``, indices into the pool.
    """
    below = (xp.cumsum(weights)[:, None] <= xp.reshape(uniforms, (1, -1))).sum(axis=0)
    last = weights.shape[0] - 1 - xp.argmax(weights[::-1] > 0)  # the last member that can be drawn
    return xp.reshape(xp.minimum(below, last), xp.shape(uniforms))
