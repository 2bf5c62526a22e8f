"""State policies: policies that read the true state, as tables and as arrays of probabilities.

A *state policy* for a side is a callable ``(agent_pos, ghost_pos) -> action`` or an array of
probabilities of shape ``(rows, cols, rows, cols, 4)``; the ghost's is read with the ghost to
move. ``"chase"`` (the chasing ghost) and ``"random"`` name the shipped ones, and a
:class:`StatePolicy` (a planner's table, such as :class:`~gridghost.planning.players.MinimaxGhost`)
is one too. A policy of observations (a network trained on ``obs_type="vector"``, say) becomes a
state policy through :func:`~gridghost.planning.tabulate.tabulate_policy`. :func:`policy_array`
turns any of them into the solver's form: action probabilities over a turn model's live states.

>>> from gridghost.core.game import Game
>>> from gridghost.core.layout import CLASSIC
>>> from gridghost.core.rules import Side
>>> from gridghost.core.slip import NoSlip
>>> from gridghost.planning.model import turn_model
>>> model = turn_model(Game(CLASSIC, NoSlip()))
>>> chase = policy_array("chase", model, Side.GHOST, "ghost")
>>> chase.shape == (4, model.num_live) and bool((chase.sum(axis=0) == 1).all())
True
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from gridghost.core.checks import check_action, check_choice, check_instance
from gridghost.core.game import Game
from gridghost.core.layout import Layout
from gridghost.core.policies import ChasePolicy, RandomPolicy
from gridghost.core.rules import NUM_ACTIONS, Side
from gridghost.planning.model import TurnModel, cell_index, joint_index


class StatePolicy:
    """A policy that reads the true state (both positions), not an observation: a planner's
    policy, for one layout. Call it as ``policy(agent_pos, ghost_pos)``; the Gymnasium env,
    :class:`~gridghost.envs.single_agent.Duel` and :class:`~gridghost.envs.compat.AgentInterface` recognise
    it and hand it the true state when it plays the opponent, and in the AEC loop it is asked
    with ``policy(env.unwrapped.agent_pos, env.unwrapped.ghost_pos)``.

    Args:
        layout: the map the policy was computed for.
        side: the side it plays.
        actions: ``int[cells, cells]``, the action for every ``(agent cell, ghost cell)`` pair
            (the ghost's with the ghost to move).

    Attributes:
        layout, side: as given.
        table: the actions, a read-only ``int8[cells, cells]`` array (0 where the game is over).

    Raises:
        TypeError, ValueError: ``layout`` or ``side`` is not one, or ``actions`` is not an int
            array of shape ``(cells, cells)`` holding actions 0..3.
    """

    #: What the views look for: this policy is asked with the state, not an observation.
    reads_state = True

    def __init__(self, layout: Layout, side: Side, actions: np.ndarray) -> None:
        check_instance(layout, "layout", Layout)
        if not isinstance(side, (Side, int)) or isinstance(side, bool) or side not in tuple(Side):
            raise ValueError(f"side must be a gridghost.core.rules.Side, got {side!r}")
        self.layout, self.side = layout, Side(side)
        cells = layout.rows * layout.cols
        array = np.asarray(actions)
        if array.shape != (cells, cells):
            raise ValueError(f"actions must be an int array of shape (cells, cells) = {(cells, cells)}, "
                             f"got shape {array.shape}")
        if not np.issubdtype(array.dtype, np.integer):
            raise TypeError(f"actions must hold int actions, got dtype {array.dtype}")
        if array.size and not (array.min() >= 0 and array.max() < NUM_ACTIONS):
            raise ValueError(f"actions must hold actions 0..{NUM_ACTIONS - 1}")
        table = array.astype(np.int8)
        table.setflags(write=False)
        self.table = table

    @classmethod
    def for_game(cls, game: Game, gamma: float = 0.99) -> StatePolicy:
        """This policy for the layout, slip model and rewards of the kernel ``game`` (what a view
        or a solver builds when it is named as an opponent or passed as a class).

        Raises:
            NotImplementedError: a subclass that does not say how.
        """
        raise NotImplementedError(f"{cls.__name__} does not say how to build itself for a game")

    def __call__(self, agent_pos: Any, ghost_pos: Any) -> int:
        """The action with the agent at ``agent_pos`` and the ghost at ``ghost_pos``.

        Raises:
            TypeError, ValueError: a position is not a cell of the layout.
        """
        agent = cell_index(self.layout, agent_pos, "agent_pos")
        return int(self.table[agent, cell_index(self.layout, ghost_pos, "ghost_pos")])

    def probabilities(self) -> np.ndarray:
        """The policy as probabilities ``float64[rows, cols, rows, cols, 4]`` (one-hot)."""
        rows, cols = self.layout.shape
        return np.eye(NUM_ACTIONS)[self.table.astype(np.int64)].reshape(rows, cols, rows, cols, NUM_ACTIONS)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(layout={self.layout.name!r})"


def _takes_two_arguments(policy: Callable[..., Any]) -> bool:
    try:
        signature = inspect.signature(policy)
    except (TypeError, ValueError):  # some builtins have none: let the call decide
        return True
    try:
        signature.bind(None, None)
    except TypeError:
        return False
    return True


def check_state_policy(policy: Any, game: Game, side: Side, argument: str, gamma: float = 0.99) -> StatePolicy:
    """Return ``policy`` as a :class:`StatePolicy` of ``side`` for ``game``'s layout: a
    :class:`StatePolicy` subclass is built with :meth:`StatePolicy.for_game` (with ``gamma``).

    Raises:
        ValueError: a policy of the other side, or one computed for another layout.
    """
    if isinstance(policy, type) and issubclass(policy, StatePolicy):
        policy = policy.for_game(game, gamma)
    if policy.side != side:
        raise ValueError(f"{argument} {policy!r} plays the {policy.side.name.lower()}; "
                         f"it is asked to play the {side.name.lower()}")
    if policy.layout != game.layout:
        raise ValueError(f"{argument} {policy!r} was computed for layout {policy.layout.name!r}, "
                         f"not for {game.layout.name!r}")
    return policy


def policy_array(policy: Any, model: TurnModel, side: Side, argument: str, gamma: float = 0.99) -> np.ndarray:
    """A state policy of ``side`` as action probabilities over ``model``'s live states:
    ``float64[4, num_live]`` for the agent, ``float64[4 ** k, num_live]`` over the joint actions
    for ``k`` ghosts (read with the ghosts to move).

    Args:
        policy: ``"random"``, ``"chase"`` (the ghosts only: each ghost the chasing rule on its own),
            a :class:`~gridghost.core.policies.RandomPolicy` or
            :class:`~gridghost.core.policies.ChasePolicy`, a :class:`StatePolicy` of this layout (or
            its class, built for this game; one ghost), a callable ``(agent_pos, ghost_pos) ->
            action`` (asked once per live state; for ``k`` ghosts ``ghost_pos`` is their ``k``
            cells and the ghosts' answer is ``k`` actions), or an array indexed by the state
            (``(rows, cols) * (k + 1)``, or ``(cells,) * (k + 1)``) holding probabilities (a last
            axis of 4 for the agent, ``4 ** k`` for the ghosts), actions (the ghosts' as joint
            indices; -1 allowed where the game is over, as in a solution's policy tables) or, for
            ``k >= 2`` ghosts, each ghost's action (a last axis of ``k``).
        model: the game's turn model.
        side: whose policy it is.
        argument: the argument's name, for messages.
        gamma: the discount a :class:`StatePolicy` class is built with.

    Raises:
        TypeError: ``policy`` is none of these (a policy of observations included: tabulate it
            first with :func:`~gridghost.planning.tabulate.tabulate_policy`).
        ValueError: an unknown name, the chasing ghost for the agent, a :class:`StatePolicy` of
            another layout or side, an array of the wrong shape or not holding probabilities or
            actions, or a callable returning something other than an action.
    """
    num_live, count = model.num_live, NUM_ACTIONS if side == Side.AGENT else model.joints
    if type(policy) is ChasePolicy or (isinstance(policy, RandomPolicy) and policy.num_actions == NUM_ACTIONS):
        policy = "chase" if type(policy) is ChasePolicy else "random"  # the named policies' objects
    if isinstance(policy, str):
        if policy == "chase" and side == Side.AGENT:
            raise ValueError(f"{argument} 'chase' is the chasing ghost's rule; it cannot play the agent "
                             "(the agent's named policy: 'random')")
        check_choice(policy, argument, ("chase", "random") if side == Side.GHOST else ("random",))
        if policy == "random":
            return np.full((count, num_live), 1.0 / count)
        chase = np.asarray(model.game.chase_table)
        return one_hot(joint_index(chase[model.agents[:, None], model.ghost_cells]), count)
    if isinstance(policy, StatePolicy) or (isinstance(policy, type) and issubclass(policy, StatePolicy)):
        if model.ghosts > 1:
            raise TypeError(f"{argument} {policy!r} is a state policy of one ghost's game; this game has "
                            f"{model.ghosts} ghosts")
        policy = check_state_policy(policy, model.game, side, argument, gamma)
        return one_hot(policy.table.ravel()[model.states])
    if isinstance(policy, (np.ndarray, list, tuple)):
        return _array_policy(np.asarray(policy), model, side, argument)
    if callable(policy):
        if not _takes_two_arguments(policy):
            raise TypeError(
                f"{argument} must be a state policy (agent_pos, ghost_pos) -> action; {policy!r} takes one "
                "argument: a policy of observations is tabulated first with gridghost.planning.tabulate_policy"
            )
        return one_hot(_ask(policy, model, side, argument), count)
    names = "'chase', 'random'" if side == Side.GHOST else "'random'"
    raise TypeError(
        f"{argument} must be {names}, a StatePolicy (such as MinimaxGhost), a callable (agent_pos, ghost_pos) "
        f"-> action or an array of probabilities or actions per state; got {policy!r}"
    )


def _ask(policy: Callable[..., Any], model: TurnModel, side: Side, argument: str) -> np.ndarray:
    """A state policy callable asked once per live state: its actions (joint indices for the ghosts)."""
    cols, k = model.game.layout.cols, model.ghosts
    actions = np.empty(model.num_live, dtype=np.int64)
    for i, (agent, ghosts) in enumerate(zip(model.agents.tolist(), model.ghost_cells.tolist(), strict=True)):
        agent_pos, ghost_pos = divmod(agent, cols), [divmod(cell, cols) for cell in ghosts]
        if k == 1:
            ghost_pos = ghost_pos[0]
        where = f"{argument} at agent {agent_pos}, {'ghost' if k == 1 else 'ghosts'} {ghost_pos}"
        try:
            action = policy(agent_pos, ghost_pos)
            if side == Side.GHOST and k > 1:
                actions[i] = joint_index(model.game.check_joint_action(action, where))
            else:
                actions[i] = check_action(action, where)
        except (TypeError, ValueError) as error:
            raise type(error)(
                f"{error} (a state policy is called as policy(agent_pos, ghost_pos) -> action; a policy of "
                "observations, such as a model's predict, is tabulated first with tabulate_policy)"
            ) from error
    return actions


def one_hot(actions: np.ndarray, count: int = NUM_ACTIONS) -> np.ndarray:
    """Deterministic ``actions`` (``int[n]``) as probabilities ``float64[count, n]``."""
    table = np.zeros((count, len(actions)))
    table[actions, np.arange(len(actions))] = 1.0
    return table


def _array_policy(array: np.ndarray, model: TurnModel, side: Side, argument: str) -> np.ndarray:
    """A policy given as an array indexed by the state (see :func:`policy_array`)."""
    k, count = model.ghosts, NUM_ACTIONS if side == Side.AGENT else model.joints
    grid, flat = model.game.layout.shape * (k + 1), (model.game.num_cells,) * (k + 1)
    integer = np.issubdtype(array.dtype, np.integer) and array.dtype != bool
    per_ghost = side == Side.GHOST and k > 1
    if array.shape in ((*grid, count), (*flat, count)):
        return _probabilities(array.reshape(-1, count), model, argument)
    if integer and array.shape in (grid, flat):
        return one_hot(_actions(array.reshape(-1), model, count, argument), count)
    if integer and per_ghost and array.shape in ((*grid, k), (*flat, k)):
        return one_hot(joint_index(_actions(array.reshape(-1, k), model, NUM_ACTIONS, argument)), count)
    if array.shape in (grid, flat, (*grid, k), (*flat, k)):
        raise TypeError(f"{argument} must hold probabilities (real numbers) or int actions, got dtype {array.dtype}")
    shapes = " or ".join(str(shape) for shape in ((*grid, count), grid, *(((*grid, k),) if per_ghost else ())))
    raise ValueError(f"{argument} must be an array of shape {shapes} (probabilities, or actions per state), "
                     f"got shape {array.shape}")


def _probabilities(table: np.ndarray, model: TurnModel, argument: str) -> np.ndarray:
    """``table`` (``[states, n]``) as the live states' probabilities ``[n, num_live]``, checked."""
    if not (np.issubdtype(table.dtype, np.floating) or np.issubdtype(table.dtype, np.integer)) or table.dtype == bool:
        raise TypeError(f"{argument} must hold probabilities (real numbers), got dtype {table.dtype}")
    table = np.ascontiguousarray(table.astype(float)[model.states].T)
    if not np.isfinite(table).all() or (table < 0).any():
        raise ValueError(f"{argument} must hold probabilities >= 0 (finite)")
    sums = table.sum(axis=0)
    bad = np.flatnonzero(np.abs(sums - 1.0) > 1e-6)
    if len(bad):
        raise ValueError(f"{argument}'s probabilities must sum to 1 in every state where the game goes on; at "
                         f"{model.describe(int(bad[0]))} they sum to {sums[bad[0]]:.6g}")
    return table


def _actions(table: np.ndarray, model: TurnModel, limit: int, argument: str) -> np.ndarray:
    """The live states' rows of ``table`` (actions per state, -1 allowed where the game is over)."""
    if (table < -1).any() or (table >= limit).any():
        raise ValueError(f"{argument} must hold actions 0..{limit - 1} where the game goes on (-1 where it is over)")
    live = table[model.states]
    bad = np.flatnonzero((live < 0).reshape(len(live), -1).any(axis=1))
    if len(bad):
        raise ValueError(f"{argument} must hold actions 0..{limit - 1} where the game goes on; at "
                         f"{model.describe(int(bad[0]))} it holds {live[bad[0]]}")
    return live
