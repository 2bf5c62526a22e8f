"""Which team game a team solver is asked about, and the two sides' policies in the team solver's
form: the agent's as actions ``int8[shape]`` or probabilities ``float64[4, *shape]``, the team's as a
:class:`~gridghost.planning.team_iteration.TeamRule`.

A state policy of a team game reads the true state, ``(agent_pos, ghost_positions)``:

- the agent's: ``"random"``, a callable ``(agent_pos, ghost_positions) -> action``, an int array
  of actions (``-1`` allowed where the game is over: a solution's ``agent_policy``) or an array of
  probabilities with a last axis of 4;
- the team's: ``"chase"`` (every ghost the reference's chasing rule, on its own), ``"random"``,
  a callable ``(agent_pos, ghost_positions) -> k actions``, an int array of joint indices (ghost
  0 the lowest base-4 digit; ``-1`` where the game is over: a solution's ``team_policy``), an int
  array of each ghost's moves (a last axis of ``k``) or an array of probabilities over the joint
  moves (a last axis of ``4 ** k``).

Arrays are indexed by the state, either ``(rows, cols) * (k + 1)`` or ``(cells,) * (k + 1)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gridghost.core.checks import check_action, check_ghosts
from gridghost.core.game import Game
from gridghost.core.names import NUM_ACTIONS
from gridghost.planning.arguments import solver_game
from gridghost.planning.team_iteration import TeamRule, joint_indices
from gridghost.planning.team_model import AGENT_POLICY_BYTES, TEAM_TABLE_BYTES, TeamModel


def team_game(layout: Any = None, slip: Any = None, rewards: Any = None, ghosts: Any = None, *,
              game: Any = None, spec: Any = None) -> Game:
    """The team game of a team solver's arguments.

    Args:
        layout, slip, rewards: the settings one by one, as :func:`~gridghost.planning.solve_game`
            takes them; ``ghosts`` (default 2) the team's size, its ghosts on the map's first starts.
        game: the whole game instead: a :class:`~gridghost.core.game.Game`, or a one-ghost
            :class:`~gridghost.core.game.Game` (played as a team of one).
        spec: the game's settings instead (a :class:`gridghost.GameSpec`), read as ``spec.game()``.

    Raises:
        TypeError, ValueError: a bad setting, or the game passed more than once.
    """
    if game is not None or spec is not None:
        if ghosts is not None or any(value is not None for value in (layout, slip, rewards)):
            raise ValueError("pass the game as game= or spec=, or as settings (layout, slip, rewards, ghosts), "
                             "not both")
        if game is not None and spec is not None:
            raise ValueError("pass the game once: as game= or spec=")
        if spec is not None:
            if not callable(getattr(spec, "game", None)):
                raise TypeError(f"spec must be a gridghost.GameSpec (with a game() method), got {spec!r}")
            game = spec.game()
        if not isinstance(game, Game):
            raise TypeError(f"game must be a gridghost.core.game.Game, got {game!r}")
        return game
    ghosts = 2 if ghosts is None else check_ghosts(ghosts)
    one = solver_game(layout, slip, rewards, stacklevel=4)
    return Game(one.layout, one.slip, one.agent_rewards, one.ghost_rewards, ghosts=ghosts)


def policy_bytes(agent: Any = None, team: Any = None, ghosts: int = 1) -> int:
    """The bytes per state that fixed policies add to a solve (for the budget)."""
    if agent is None or isinstance(agent, str):
        per_state = 0
    else:
        mixed = isinstance(agent, (np.ndarray, list, tuple)) and array_kind(np.asarray(agent)) != "int"
        per_state = AGENT_POLICY_BYTES if mixed else 1
    if team is not None and not (isinstance(team, str) and team == "random"):
        array = np.asarray(team) if isinstance(team, (np.ndarray, list, tuple)) else None
        mixed = array is not None and np.issubdtype(array.dtype, np.floating)
        per_state += 8 * NUM_ACTIONS**ghosts if mixed else TEAM_TABLE_BYTES
    return per_state


def _as_states(array: np.ndarray, model: TeamModel, trailing: tuple[int, ...], argument: str,
               what: str) -> np.ndarray:
    """``array`` reshaped to ``model.shape + trailing``, from that shape or the grid's."""
    grid = (model.rows, model.cols) * (model.ghosts + 1)
    if array.shape not in (model.shape + trailing, grid + trailing):
        raise ValueError(f"{argument} must be an array of shape {grid + trailing} (or {model.shape + trailing}): "
                         f"{what}; got shape {array.shape}")
    return array.reshape(model.shape + trailing)


def _check_probabilities(table: np.ndarray, model: TeamModel, argument: str) -> np.ndarray:
    """``table`` (``[*shape, n]``) if it holds probabilities summing to 1 where the game goes on."""
    if array_kind(table) != "real":
        raise TypeError(f"{argument} must hold probabilities (real numbers), got dtype {table.dtype}")
    table = table.astype(float)
    if not np.isfinite(table).all() or (table < 0).any():
        raise ValueError(f"{argument} must hold probabilities >= 0 (finite)")
    bad = (np.abs(table.sum(axis=-1) - 1.0) > 1e-6) & model.live
    if bad.any():
        index = np.unravel_index(int(np.argmax(bad)), model.shape)
        raise ValueError(f"{argument}'s probabilities must sum to 1 in every state where the game goes on; "
                         f"with the {model.describe(index)} they sum to {table[index].sum():.6g}")
    return table


def array_kind(array: np.ndarray) -> str:
    """``"int"``, ``"real"`` (floats) or ``"other"`` for an array's dtype (bools are other)."""
    if array.dtype == bool:
        return "other"
    if np.issubdtype(array.dtype, np.integer):
        return "int"
    return "real" if np.issubdtype(array.dtype, np.floating) else "other"


def _check_actions(table: np.ndarray, model: TeamModel, limit: int, argument: str) -> np.ndarray:
    """``table`` of ints if it holds 0..limit-1 where the game goes on (anything >= -1 elsewhere)."""
    live = model.live if table.ndim == model.ghosts + 1 else model.live[..., None]
    bad = (table < -1) | (table >= limit) | ((table < 0) & live)
    if bad.any():
        index = np.unravel_index(int(np.argmax(bad)), table.shape)
        raise ValueError(f"{argument} must hold actions 0..{limit - 1} where the game goes on (-1 where it is over); "
                         f"with the {model.describe(index[: model.ghosts + 1])} it holds {int(table[index])}")
    return np.maximum(table, 0)


def _ask(policy: Any, model: TeamModel, argument: str, check: Any) -> tuple[np.ndarray, np.ndarray]:
    """A state policy callable asked once per live state; ``check(answer, where)`` reads its answer.

    Returns:
        The live states' indices ``[n, k + 1]`` and the answers ``[n, ...]``.
    """
    answers: list[Any] = []
    live = np.argwhere(model.live)
    for index in live.tolist():
        agent = model.position(index[0])
        ghosts = tuple(model.position(cell) for cell in index[1:])
        where = f"{argument} at agent {agent}, ghosts {list(ghosts)}"
        try:
            answers.append(check(policy(agent, ghosts), where))
        except (TypeError, ValueError) as error:
            raise type(error)(f"{error} (a team game's state policy is called as policy(agent_pos, "
                              "ghost_positions))") from error
    return live, np.array(answers, dtype=np.int64).reshape(len(live), -1)


def agent_policy_array(policy: Any, model: TeamModel, argument: str = "agent_policy") -> np.ndarray | str:
    """The agent's state policy in the solver's form: ``"mean"`` (uniformly random), an action
    per state ``int8[shape]`` or probabilities ``float64[4, *shape]``.

    Raises:
        TypeError, ValueError: not one of the forms in this module's docstring, an array of the
            wrong shape or content, or a callable answering something other than an action.
    """
    if isinstance(policy, str):
        if policy != "random":
            raise ValueError(f"{argument} must be 'random' (the agent's named policy), a callable "
                             f"(agent_pos, ghost_positions) -> action or an array; got {policy!r}")
        return "mean"
    if isinstance(policy, (np.ndarray, list, tuple)):
        array = np.asarray(policy)
        if array_kind(array) == "int":
            actions = _check_actions(_as_states(array, model, (), argument, "an action per state"), model,
                                     NUM_ACTIONS, argument)
            return actions.astype(np.int8)
        table = _as_states(array, model, (NUM_ACTIONS,), argument, "4 action probabilities per state")
        return np.moveaxis(_check_probabilities(table, model, argument), -1, 0)
    if callable(policy):
        actions = np.zeros(model.shape, dtype=np.int8)
        live, answers = _ask(policy, model, argument, check_action)
        actions[tuple(live.T)] = answers[:, 0]
        return actions
    raise TypeError(f"{argument} must be 'random', a callable (agent_pos, ghost_positions) -> action or an array "
                    f"of actions or probabilities per state; got {policy!r}")


def team_rule(policy: Any, model: TeamModel, argument: str = "team_policy") -> TeamRule:
    """The team's state policy as a fixed :class:`~gridghost.planning.team_iteration.TeamRule`.

    Raises:
        TypeError, ValueError: as :func:`agent_policy_array`, for the team's forms.
    """
    k, joints = model.ghosts, NUM_ACTIONS**model.ghosts
    if isinstance(policy, str):
        if policy not in ("chase", "random"):
            raise ValueError(f"{argument} must be 'chase' or 'random', a callable (agent_pos, ghost_positions) -> "
                             f"{k} actions or an array; got {policy!r}")
        return TeamRule("mean") if policy == "random" else TeamRule("table", model.joint_next(chase_actions(model)))
    if isinstance(policy, (np.ndarray, list, tuple)):
        array = np.asarray(policy)
        if array_kind(array) == "int":
            if array.ndim in (2 * (k + 1) + 1, k + 2):
                actions = _as_states(array, model, (k,), argument, f"{k} moves per state, one per ghost")
                return TeamRule("table", model.joint_next(_check_actions(actions, model, NUM_ACTIONS, argument)))
            table = _check_actions(_as_states(array, model, (), argument, "a joint move per state"), model, joints,
                                   argument)
            return TeamRule("table", model.joint_next(joint_actions(table, k)))
        table = _check_probabilities(_as_states(array, model, (joints,), argument,
                                                f"{joints} joint move probabilities per state"), model, argument)
        return TeamRule("mix", weights={joint: np.ascontiguousarray(table[..., joint]) for joint in range(joints)
                                        if table[..., joint].any()})
    if callable(policy):
        actions = np.zeros((*model.shape, k), dtype=np.int64)
        live, answers = _ask(policy, model, argument, lambda answer, where: model.team.check_joint_action(answer,
                                                                                                           where))
        actions[tuple(live.T)] = answers
        return TeamRule("table", model.joint_next(actions))
    raise TypeError(f"{argument} must be 'chase', 'random', a callable (agent_pos, ghost_positions) -> {k} actions "
                    f"or an array of joint moves or probabilities per state; got {policy!r}")


def joint_actions(table: np.ndarray, ghosts: int) -> np.ndarray:
    """Joint indices ``[...]`` as each ghost's move ``[..., k]`` (ghost 0 the lowest digit)."""
    return np.stack([table // NUM_ACTIONS**i % NUM_ACTIONS for i in range(ghosts)], axis=-1)


def chase_actions(model: TeamModel) -> np.ndarray:
    """Every ghost's chasing move in every state, ``int[*shape, k]``: independent chasers, each
    the reference's rule on its own (:meth:`~gridghost.core.game.Game.chase_actions`)."""
    table = np.asarray(model.game.chase_table).reshape(model.cells, model.cells)
    k = model.ghosts
    agent = np.arange(model.cells).reshape((model.cells,) + (1,) * k)
    moves = []
    for axis in range(1, k + 1):
        ghost = np.arange(model.cells).reshape([model.cells if a == axis else 1 for a in range(k + 1)])
        moves.append(np.broadcast_to(table[agent, ghost], model.shape))
    return np.stack(moves, axis=-1)


__all__ = ["agent_policy_array", "chase_actions", "joint_actions", "joint_indices", "policy_bytes", "team_game",
           "team_rule"]
