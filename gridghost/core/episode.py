"""The episode's rules between two half-turns, written once for every engine.

The kernel (:class:`~gridghost.core.game.Game`) says what one half-turn does to a state. What
happens around it is the same in every engine, and lives here, one function per rule: the turn
index and the step counter, truncation, a learning ghost's opening reward, the end in the agent's
half-turn, auto-reset, and which slip outcome a uniform picks.

The functions are array-agnostic: they take Python scalars, NumPy arrays or, with ``xp=jax.numpy``
where they need a namespace, JAX arrays (traced under ``jit`` and ``vmap`` alike), so the AEC env,
the NumPy batched engine and the JAX engine call the same code. The NumPy engine steps thousands
of games in preallocated buffers, so the array forms take ``out=`` (and scratch) buffers and then
write in place. Nothing here draws a random number: the uniforms come in, and the engines keep
their draw order (docs/game.md, "the RNG contract").

>>> truncated(100, False, 100), truncated(100, True, 100), truncated(99, False, 100)
(True, False, False)
>>> next_mover(AGENT_TO_MOVE), next_mover(GHOST_TO_MOVE), next_mover(AGENT_TO_MOVE, use_ghost=False)
(1, 0, 0)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gridghost.core.rules import Outcome, Side

#: ``to_move`` of the agent and of the ghost (the engines' turn index; :class:`~gridghost.core.rules.Side`).
AGENT_TO_MOVE, GHOST_TO_MOVE = int(Side.AGENT), int(Side.GHOST)


# -- the turn index ------------------------------------------------------------------------------------
def next_mover(mover: Any, use_ghost: bool = True) -> Any:
    """Who moves after ``mover``'s half-turn: the other side, or the agent again when the ghost is
    out of the game.

    Args:
        mover: :data:`AGENT_TO_MOVE` (0) or :data:`GHOST_TO_MOVE` (1), a scalar or an int array.
        use_ghost: whether the ghost plays (a Python bool).

    Returns:
        The next mover, of ``mover``'s kind (an int for an int).
    """
    return 1 - mover if use_ghost else mover * 0


def count_cycles(steps: Any, next_to_move: Any, first_to_move: int = AGENT_TO_MOVE, *, out: Any = None) -> Any:
    """The episode's step counter after a half-turn: it counts one whenever the turn comes back to
    the side that opens each turn (the agent: a cycle is its move and the ghost's answer; a
    learner alone counts its own steps, opening with ``first_to_move`` = its side).

    Args:
        steps: the count so far (a scalar or an int array).
        next_to_move: who moves next (:func:`next_mover`), a scalar or an array like ``steps``.
        first_to_move: the side whose move opens a turn.
        out: NumPy only: an int array to write the count into (``steps`` itself for in place).

    Returns:
        The new count (``out`` when given).
    """
    if out is not None:
        return np.add(steps, next_to_move == first_to_move, out=out)
    return steps + (next_to_move == first_to_move)


# -- truncation ----------------------------------------------------------------------------------------
def truncated(steps: Any, terminated: Any, max_cycles: int | None, max_episode_steps: int | None = None, *,
              out: np.ndarray | None = None) -> Any:
    """Whether the step limits cut the episode short after this step: Gymnasium's ``TimeLimit``
    (``max_episode_steps``) at its limit whatever the outcome, as the wrapper does; the game's
    own ``max_cycles`` only where the game goes on (a game that ended is terminated, not
    truncated). Both count ``steps`` (:func:`count_cycles`); ``None`` is no limit.

    Args:
        steps: the steps played, including this one (a scalar or an int array).
        terminated: whether the game ended in this step (a bool, or a bool array like ``steps``).
        max_cycles: the game's limit, or ``None``.
        max_episode_steps: the ``TimeLimit``, or ``None``.
        out: NumPy only: a bool array to write the result into.

    Returns:
        A bool (Python, NumPy or JAX, as the inputs), ``out`` when given.
    """
    if max_episode_steps is not None and (max_cycles is None or max_episode_steps <= max_cycles):
        # the TimeLimit comes first: the game's own limit can no longer matter
        return steps >= max_episode_steps if out is None else np.greater_equal(steps, max_episode_steps, out=out)
    if max_cycles is None:
        if out is not None:
            out.fill(False)
            return out
        return terminated & False  # a False of the inputs' kind
    if out is None:
        cut = (steps >= max_cycles) > terminated  # and not terminated (bools: True > False only)
        return cut | (steps >= max_episode_steps) if max_episode_steps is not None else cut
    np.greater_equal(steps, max_cycles, out=out)
    np.greater(out, terminated, out=out)
    if max_episode_steps is not None:
        out |= steps >= max_episode_steps
    return out


def cycle_limit(max_cycles: int | None) -> float:
    """:func:`truncated`'s game limit compiled to one number for a scalar hot path (the AEC env):
    a game that goes on after ``steps`` steps is truncated exactly when ``steps >= cycle_limit(max_cycles)``.

    Args:
        max_cycles: the game's limit, or ``None``.

    Returns:
        ``max_cycles``, or ``inf`` for no limit.
    """
    return float("inf") if max_cycles is None else max_cycles


# -- the opening reward --------------------------------------------------------------------------------
def opening_reward(agent_and_ghost_rewards: Any) -> float:
    """What a learning ghost earns for the agent's opening move, which the reset plays and a
    reset cannot report: the ghost's reward for an agent's half-turn where the game goes on
    (maps where the opening move can end the game are refused for a learning ghost).

    Args:
        agent_and_ghost_rewards: ``(agent's, ghost's)`` :class:`~gridghost.core.rules.Rewards`,
            or anything with a ``rewards(mover, outcome)`` method (a :class:`~gridghost.core.game.Game`).

    Returns:
        The ghost's reward, a float.
    """
    if hasattr(agent_and_ghost_rewards, "rewards"):
        return float(agent_and_ghost_rewards.rewards(Side.AGENT, Outcome.ONGOING)[1])
    return float(agent_and_ghost_rewards[1].of(Side.AGENT, Outcome.ONGOING))


def with_opening_reward(reward: Any, steps_before: Any, opening: float, *, xp: Any = np, out: Any = None,
                        scratch: np.ndarray | None = None) -> Any:
    """A learning ghost's reward for a step, with the opening move's reward added on the
    episode's first step (``steps_before == 0``).

    Args:
        reward: the step's own reward (a scalar or a float array).
        steps_before: the episode's steps before this one, like ``reward``.
        opening: :func:`opening_reward` (0 adds nothing).
        xp: the array namespace (``numpy`` or ``jax.numpy``).
        out: NumPy only: a float array to add into in place (``reward`` itself); then ``scratch``,
            a bool array like it, holds the first-step mask.

    Returns:
        The reward (``out`` when given).
    """
    if out is not None:
        if not opening:
            return out
        first = np.equal(steps_before, 0, out=scratch)
        return np.add(reward, opening, out=out, where=first)
    return reward + xp.where(steps_before == 0, opening, 0.0)


# -- the end in the agent's half ----------------------------------------------------------------------
def ghost_half_after_end(ended: Any, state: Any, next_state: Any, rewards: tuple[Any, ...], terminated: Any, *,
                         xp: Any = np, inplace: bool = False) -> tuple[Any, tuple[Any, ...], Any]:
    """The ghost's half-turn where the game ended in the agent's half (``ended``): the ghost does
    not move (the state stays), pays and earns nothing, and the game is reported over again.

    Args:
        ended: bool, the game ended in the agent's half of this turn (a scalar or an array).
        state: the state before the ghost's half-turn.
        next_state: the state its move would lead to.
        rewards: the half-turn's rewards, one array per side.
        terminated: whether the ghost's move ends the game.
        xp: the array namespace (``numpy`` or ``jax.numpy``).
        inplace: NumPy only: write into ``next_state``, ``rewards`` and ``terminated`` (arrays),
            touching only the ended games.

    Returns:
        ``(next_state, rewards, terminated)`` (the same arrays when ``inplace``).
    """
    if inplace:
        rows = np.flatnonzero(ended)
        if len(rows):
            next_state[rows] = state[rows]
            for reward in rewards:
                reward[rows] = 0.0
        terminated |= ended
        return next_state, rewards, terminated
    moves = ~ended
    return (xp.where(moves, next_state, state), tuple(xp.where(moves, reward, 0.0) for reward in rewards),
            (moves & terminated) | ended)


# -- auto-reset -----------------------------------------------------------------------------------------
def resets_now(done: Any, next_to_move: Any = AGENT_TO_MOVE, first_to_move: int = AGENT_TO_MOVE) -> Any:
    """Which games start a new episode at the end of this step (same-step auto-reset): those that
    are done once their turn is over, the turn being over when the side that opens each turn is
    to move (a game that ends in the agent's half waits for the ghost's).

    Args:
        done: terminated or truncated (a bool, or a bool array).
        next_to_move: who moves next (:func:`next_mover`).
        first_to_move: the side whose move opens a turn.

    Returns:
        A bool, or a bool array like ``done``.
    """
    if isinstance(next_to_move, int):  # known now: all or none (no array operation)
        return done if next_to_move == first_to_move else done & False
    return done & (next_to_move == first_to_move)


def auto_reset(resets: Any, fresh: Any, current: Any, *, xp: Any = np) -> Any:
    """The state to continue from: a new episode's (``fresh``) where ``resets``, else ``current``.

    Args:
        resets: :func:`resets_now`.
        fresh, current: states of one structure (an array, or a tuple or NamedTuple of them).
        xp: the array namespace (``numpy`` or ``jax.numpy``).

    Returns:
        A state of the same structure.
    """
    if isinstance(current, tuple):
        parts = (auto_reset(resets, a, b, xp=xp) for a, b in zip(fresh, current, strict=True))
        return type(current)(*parts) if hasattr(current, "_fields") else tuple(parts)
    return xp.where(resets, fresh, current)


# -- the slip outcome of a uniform -----------------------------------------------------------------------
def slip_bounds(probabilities: Any) -> np.ndarray:
    """The running probabilities a uniform is compared with to pick a move's slip outcome: the
    outcomes' cumulative sums but the last (``float64[k - 1]``), in the slip model's order
    (:meth:`~gridghost.core.slip.SlipModel.outcomes`, its groups' order with each group's
    members in turn), so that a uniform picks the group :meth:`~gridghost.core.slip.SlipModel.sample`
    picks with it.

    Args:
        probabilities: the outcomes' probabilities, in order.

    Returns:
        ``float64[k - 1]``.
    """
    return np.cumsum(np.asarray(probabilities, dtype=float))[:-1]


def slip_outcome(uniforms: Any, bounds: Any, actions: Any = None, *, xp: Any = np, out: np.ndarray | None = None,
                 scratch: np.ndarray | None = None) -> Any:
    """Which slip outcome each uniform picks: how many of the running probabilities
    (:func:`slip_bounds`) it reaches (``u`` below a running sum takes that outcome, as
    :meth:`~gridghost.core.slip.SlipModel.sample` walks its groups).

    Args:
        uniforms: numbers in [0, 1) (a scalar or an array).
        bounds: ``[k - 1]`` bounds shared by every move, or ``[actions, k - 1]`` per action (then
            ``actions`` picks each uniform's row).
        actions: the moves' actions (like ``uniforms``), with bounds per action; else ``None``.
        xp: the array namespace (``numpy`` or ``jax.numpy``).
        out: NumPy only: an int array to *add* the outcome to, in place (a table index), with
            ``scratch`` a bool array like it.

    Returns:
        The outcome index (an int array, or ``out``).
    """
    if out is None:
        rows = bounds if actions is None else bounds[actions]
        return xp.sum(xp.asarray(uniforms)[..., None] >= rows, axis=-1)
    for j in range(bounds.shape[-1]):
        bound = bounds[j] if actions is None else bounds[:, j].take(actions)  # a scalar, or one per game
        np.greater_equal(uniforms, bound, out=scratch)
        out += scratch
    return out
