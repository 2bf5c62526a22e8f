"""Value iteration over full turns of the :class:`~gridghost.planning.model.TurnModel`, for the
solutions of :mod:`gridghost.planning.solve`: each side's rule (the best action, or fixed
probabilities), the sweeps themselves, the greedy actions, the exact probabilities of each outcome
within a horizon, and the checks of the solvers' settings.

:data:`MAX_ITERATIONS` is a setting: ``gridghost.planning.solve.MAX_ITERATIONS = ...`` sets it here,
where the sweeps read it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gridghost.core.checks import check_flag, check_limit, check_number
from gridghost.core.progress import sweep_bar
from gridghost.core.rules import NUM_ACTIONS, Outcome, Side
from gridghost.planning.model import TurnModel

#: Value iteration gives up after this many sweeps without reaching the tolerance.
MAX_ITERATIONS = 100_000

_MAXIMISE, _MINIMISE = "max", "min"
#: A horizon's outcome probabilities are final once a turn changes none by more than this.
_SETTLED = 1e-15
#: How many horizons' outcome probabilities a solution keeps.
_OUTCOMES_KEPT = 8


# -- checks --------------------------------------------------------------------------------------
def _check_gamma(gamma: Any) -> float:
    try:
        value = check_number(gamma, "gamma", 0.0, strict=True)
    except ValueError:
        value = float("nan")
    if not 0.0 < value <= 1.0:
        raise ValueError(f"gamma must be a number in (0, 1], got {gamma!r}")
    return value


def _check_settings(gamma: Any, tol: Any, horizon: Any, progress_bar: Any = False) -> tuple[float, float, int | None]:
    check_flag(progress_bar, "progress_bar")
    return (_check_gamma(gamma), check_number(tol, "tol", 0.0, strict=True),
            check_limit(horizon, "horizon", maximum=MAX_ITERATIONS))


# -- value iteration -------------------------------------------------------------------------------
#: Either side's rule in value iteration: choose the best action for the agent (``"max"``) or
#: for the ghosts in the zero-sum game (``"min"``), or follow fixed probabilities ``[actions,
#: num_live]`` (the ghosts' actions are their ``4 ** k`` joint actions).
Rule = Any


def _reduce(q: np.ndarray, rule: Rule) -> np.ndarray:
    """``q`` (``[4, num_live]``) reduced over actions by ``rule``."""
    if isinstance(rule, str):
        return np.maximum.reduce(q) if rule == _MAXIMISE else np.minimum.reduce(q)
    return np.einsum("al,al->l", q, rule)


def greedy(q: np.ndarray, rule: str = _MAXIMISE) -> np.ndarray:
    """The best action per state of action values ``q`` (``[4, n]``) for a side that maximises
    them (``rule="max"``) or minimises them (``"min"``); ties (within 1e-9 of the best,
    relative) go to the lowest action, so that rounding never decides."""
    best = _reduce(q, rule)
    slack = 1e-9 * np.maximum(1.0, np.abs(best))
    near = q >= best - slack if rule == _MAXIMISE else q <= best + slack
    return np.argmax(near, axis=0)


def _check_ends(model: TurnModel, agent: Rule, ghost: Rule) -> None:
    """Refuse undiscounted values without a horizon when the deciding sides (or the fixed
    policies' chances) can keep the game going for ever: its values would not be defined."""
    sink = model.num_live
    going = np.ones(sink + 1, dtype=bool)
    going[sink] = False
    while True:
        stays = going[model.ghost_next]  # [joints, num_live]; the sink is never "going"
        ghost_stays = stays.any(axis=0) if isinstance(ghost, str) else (stays | (ghost <= 0)).all(axis=0)
        after = np.append(ghost_stays, False)  # ghost-to-move states that can go on
        moves_stay = (after[model.agent_next] | (model.agent_prob <= 0)[:, :, None]).all(axis=1)
        agent_stays = moves_stay.any(axis=0) if isinstance(agent, str) else (moves_stay | (agent <= 0)).all(axis=0)
        new = np.append(agent_stays & going[:sink], False)
        if (new == going).all():
            break
        going = new
    endless = np.flatnonzero(going[:sink])
    if len(endless):
        raise ValueError(
            f"gamma=1 without a horizon: the game may never end ({len(endless):,} states, e.g. "
            f"{model.describe(int(endless[0]))}, can go on for ever), so its undiscounted values are not "
            "defined; pass gamma < 1 or a horizon"
        )


def _iterate(model: TurnModel, agent: Rule, ghost: Rule, side: Side, gamma: float, tol: float,
             horizon: int | None, progress_bar: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, float]:
    """Value iteration over full turns: from zero with a horizon (the values of a game of that
    many turns), else from the value of a game that never ends.

    Args:
        model: the game.
        agent, ghost: each side's :data:`Rule`.
        side: whose rewards are summed.
        gamma, tol: discount per turn; stop when no value changes by more than ``tol``.
        horizon: if given, exactly this many sweeps: the values of a game of ``horizon`` turns.
        progress_bar: count the sweeps on a progress bar on stderr.

    Returns:
        ``(values, agent_q, ghost_q, sweeps, residual)``: the agent-to-move values (``[num_live
        + 1]``, the sink last), the agent's action values ``[4, num_live]`` and the ghost's, with the
        ghost to move, from the last sweep (their best is the values).

    Raises:
        ValueError: ``gamma=1`` without a horizon where the game may never end.
        RuntimeError: the tolerance was not reached in :data:`MAX_ITERATIONS` sweeps.
    """
    if horizon is None and gamma >= 1.0:
        _check_ends(model, agent, ghost)
    sink = model.num_live
    values = np.zeros(sink + 1)
    if horizon is None and gamma < 1.0:
        # Every turn that does not end the game pays the same reward c, so a game that never
        # ends is worth c / (1 - gamma): starting there, states that never end are exact from the
        # first sweep, and the sweeps needed depend on how fast games end, not on gamma alone.
        values[:sink] = model.continuing_reward(side) / (1.0 - gamma)
    between = np.zeros(sink + 1)  # values with the ghost to move
    agent_expected = model.agent_expected[side]
    ghost_reward, ghost_next = model.ghost_reward[side], model.ghost_next
    agent_q = ghost_q = np.zeros((NUM_ACTIONS, sink))
    taken = np.empty(ghost_next.shape)
    residual = float("inf")
    sweeps = horizon if horizon is not None else MAX_ITERATIONS
    with sweep_bar(progress_bar, "value iteration", horizon, tol, sweeps) as bar:
        for sweep in range(1, sweeps + 1):
            # in place, the big array; the model's own indices (mode="raise" would copy via a buffer)
            ghost_q = values.take(ghost_next, out=taken, mode="clip")  # type: ignore[call-overload]
            ghost_q *= gamma
            ghost_q += ghost_reward
            between[:sink] = _reduce(ghost_q, ghost)
            agent_q = agent_expected + model.agent_backup(between)
            new = _reduce(agent_q, agent)
            residual = float(np.abs(new - values[:sink]).max()) if sink else 0.0
            values[:sink] = new
            if progress_bar:
                bar.count(residual)
            if horizon is None and residual <= tol:
                return values, agent_q, ghost_q, sweep, residual
    if horizon is None:
        raise RuntimeError(
            f"value iteration did not reach tol={tol:g} in {MAX_ITERATIONS} sweeps (last change {residual:.3g}); "
            "raise tol or lower gamma"
        )
    return values, agent_q, ghost_q, sweeps, residual


def _outcome_within(model: TurnModel, agent: np.ndarray, ghost: np.ndarray, event: Outcome,
                    horizon: int) -> tuple[np.ndarray, np.ndarray]:
    """For fixed policies of both sides, per live agent-to-move state: the probability that the
    game ends in ``event`` within ``horizon`` full turns, and the expected turn it ends in that
    way, counting only games that do (``E[T; T <= horizon]``), each ``[num_live + 1]``."""
    sink = model.num_live
    hit_agent = (model.agent_outcome == event).astype(float)  # [4, k, num_live]
    hit_ghost = model.ghost_outcome == event  # [joints, num_live]
    taken = np.empty(model.ghost_next.shape)
    agent_hit = np.einsum("al,ak,akl->l", agent, model.agent_prob, hit_agent)
    probability, timing = np.zeros(sink + 1), np.zeros(sink + 1)
    between_p, between_t = np.zeros(sink + 1), np.zeros(sink + 1)
    for _ in range(horizon):
        # the ghost's half, then the agent's: one turn before the last horizon's values
        # a move that ends the game leads to the sink, whose probability is 0: the hit is the whole value
        np.copyto(probability.take(model.ghost_next, out=taken, mode="clip"), 1.0, where=hit_ghost)
        between_p[:sink] = np.einsum("al,al->l", ghost, taken)
        between_t[:sink] = np.einsum("al,al->l", ghost, timing.take(model.ghost_next, out=taken, mode="clip"))
        new_p = agent_hit + np.einsum("al,al->l", agent, model.agent_backup(between_p))
        # every game that ends this way later ends one turn later than from the next state
        new_t = new_p + np.einsum("al,al->l", agent, model.agent_backup(between_t))
        settled = (np.abs(new_p - probability[:sink]).max(initial=0.0) <= _SETTLED
                   and (np.abs(new_t - timing[:sink]) <= _SETTLED * np.maximum(1.0, new_t)).all())
        probability[:sink], timing[:sink] = new_p, new_t
        if settled:  # no game still going can end this way any more: longer horizons change nothing
            break
    return probability, timing

