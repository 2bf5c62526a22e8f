"""Value iteration over full turns of a :class:`~gridghost.planning.team_model.TeamModel`, for the
team solutions of :mod:`gridghost.planning.team`: each side's rule, the sweeps, the greedy
policies, and the probabilities of each outcome within a horizon.

A turn from ``(a, G)``, agent to move: the agent's move (with slip) to ``a'``, paying the agent
half-turn's reward; unless that ended the game, the team's joint move to ``G'``, paying the team
half-turn's reward; then ``gamma`` times the value of ``(a', G')``. The agent's rule is
``"max"``, ``"mean"``, fixed actions ``int8[shape]`` or probabilities ``float64[4, *shape]``; the
team's a :class:`TeamRule`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gridghost.core.names import NUM_ACTIONS
from gridghost.core.progress import sweep_bar
from gridghost.core.rules import Outcome, Side
from gridghost.planning import iteration
from gridghost.planning.team_model import TeamModel

#: A horizon's outcome probabilities are final once a turn changes none by more than this.
_SETTLED = 1e-15


class TeamRule:
    """How the team moves in value iteration.

    Args:
        kind: ``"min"`` (the best joint move for the agent's opponent in the zero-sum game),
            ``"max"`` (the best joint move for the team's own rewards), ``"mean"`` (every ghost
            uniformly at random), ``"table"`` (a fixed joint move per state: ``next``) or
            ``"mix"`` (fixed joint probabilities: ``weights``).
        next: for ``"table"``, ``int64[size]``: the flat index of the state each state's move leads to.
        weights: for ``"mix"``, ``{joint index: float64[size]}``: each joint move's probability
            per state (joint moves never played left out).
    """

    def __init__(self, kind: str, next: np.ndarray | None = None,
                 weights: dict[int, np.ndarray] | None = None) -> None:
        self.kind = kind
        self.next = np.empty(0, dtype=np.int64) if next is None else next
        self.weights = {} if weights is None else weights

    @property
    def decides(self) -> bool:
        """Whether the team chooses (``"min"`` or ``"max"``) rather than follows a fixed policy."""
        return self.kind in ("min", "max")

    def __repr__(self) -> str:
        return f"TeamRule({self.kind!r})"


def team_backup(model: TeamModel, after_team: np.ndarray, rule: TeamRule, buffers: list[np.ndarray],
                scratch: np.ndarray | None = None) -> np.ndarray:
    """The value of every state between the half-turns (team to move) from the values
    ``after_team`` of the states the team's moves reach (their rewards included), by ``rule``.
    ``buffers`` are two scratch arrays of the model's shape; the result is one of them.
    ``scratch``, a third, saves the reductions allocating one."""
    if rule.kind in ("min", "max", "mean"):
        k, source = model.ghosts, after_team
        for axis in range(1, k if k > 1 else 2):
            source = model.reduce_axis(source, axis, rule.kind, buffers[(axis - 1) % 2], scratch)
        if k > 1:
            # The last axis reduces fastest as the one before it: swap the two, reduce, swap back
            # (two copies cost less than shifts along NumPy's inner loop).
            swap = [*range(k - 1), k, k - 1]
            spare = buffers[1] if source is buffers[0] else buffers[0]
            np.copyto(spare, source.transpose(swap))
            model.reduce_axis(spare, k - 1, rule.kind, source)
            np.copyto(spare, source.transpose(swap))
            source = spare
        return source
    out = buffers[0]
    if rule.kind == "table":
        np.take(after_team.ravel(), rule.next, out=out.reshape(-1))
        return out
    out.fill(0.0)
    for joint, weight in rule.weights.items():
        out += weight * joint_shift(model, after_team, joint)
    return out


def joint_shift(model: TeamModel, values: np.ndarray, joint: int) -> np.ndarray:
    """``values`` read after the joint move ``joint`` (ghost 0 the lowest base-4 digit)."""
    for axis in range(1, model.ghosts + 1):
        values = model.take_move(values, axis, joint // NUM_ACTIONS ** (axis - 1) % NUM_ACTIONS)
    return values


class Workspace:
    """The arrays a sweep writes into, allocated once per solve (fresh arrays of this size every
    sweep would cost page faults as well as the copies).

    Attributes:
        reduce: two scratch arrays for :func:`team_backup`; ``landing``: the values the team's
            moves land on; ``q``: the agent's four action values; ``term``: one outcome's share;
            ``values``: two arrays that hold the old and the new values in turn; ``diff``: their change.
    """

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.reduce = [np.empty(shape), np.empty(shape)]
        self.landing, self.term, self.diff = np.empty(shape), np.empty(shape), np.empty(shape)
        self.q = [np.empty(shape) for _ in range(NUM_ACTIONS)]
        self.values = [np.empty(shape), np.empty(shape)]


def agent_q(model: TeamModel, after_agent: np.ndarray, work: Workspace) -> list[np.ndarray]:
    """The agent's four action values per state, ``sum_j p_j * after_agent[dest_j(a), G]``, in ``work.q``."""
    for total, outcomes in zip(work.q, model.agent_outcomes, strict=True):
        for j, (probability, destination) in enumerate(outcomes):
            term = after_agent if destination is None else np.take(after_agent, destination, axis=0, out=work.term)
            if j == 0:
                np.multiply(term, probability, out=total)
            else:
                total += np.multiply(term, probability, out=work.term)
    return work.q


def _agent_values(q: list[np.ndarray], rule: Any, out: np.ndarray) -> np.ndarray:
    """The agent's values by its rule: the best action (``"max"``), every action alike
    (``"mean"``), a fixed action per state (``int8[shape]``) or fixed probabilities
    (``float64[4, *shape]``)."""
    if isinstance(rule, str):
        combine = np.maximum if rule == "max" else np.add
        combine(q[0], q[1], out=out)
        for action in range(2, NUM_ACTIONS):
            combine(out, q[action], out=out)
        if rule == "mean":
            out *= 1.0 / NUM_ACTIONS
        return out
    if rule.dtype == np.int8:
        return np.choose(rule, q, out=out)
    np.multiply(q[0], rule[0], out=out)
    for action in range(1, NUM_ACTIONS):
        out += q[action] * rule[action]
    return out


def one_turn(model: TeamModel, values: np.ndarray, agent: Any, team: TeamRule, rewards: tuple[np.ndarray, np.ndarray],
             gamma: float, work: Workspace) -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
    """One sweep: ``(new values, the agent's action values, the team's after-move values)``, in
    ``work``'s arrays (the new values in the one of ``work.values`` that is not ``values``)."""
    after_agent, after_team = rewards
    landing = np.multiply(values, gamma, out=work.landing)
    landing += after_team  # 0 values where the game is over leave just the half-turn's reward
    between = team_backup(model, landing, team, work.reduce, work.term)
    np.copyto(between, 0.0, where=model.over)
    between += after_agent
    q = agent_q(model, between, work)
    new = _agent_values(q, agent, work.values[1] if values is work.values[0] else work.values[0])
    np.copyto(new, 0.0, where=model.over)
    return new, q, landing


def team_iterate(model: TeamModel, agent: Any, team: TeamRule, rewards: tuple[np.ndarray, np.ndarray], gamma: float,
                 tol: float, horizon: int | None, start: float = 0.0, settle: bool = False,
                 progress_bar: bool = False) -> tuple[np.ndarray, list[np.ndarray], np.ndarray, int, float]:
    """Value iteration over full turns.

    Args:
        model: the game.
        agent: the agent's rule: ``"max"`` (its best action), ``"mean"`` (uniformly random), a
            fixed action per state ``int8[shape]`` or probabilities ``float64[4, *shape]``.
        team: the team's :class:`TeamRule`.
        rewards: the half-turns' rewards (:meth:`TeamModel.reward_arrays`).
        gamma, tol: discount per turn; stop when no value changes by more than ``tol``.
        horizon: if given, exactly this many sweeps from 0 (fewer with ``settle``, once no
            value changes by more than 1e-15: further turns change nothing).
        start: the live states' starting value without a horizon.
        progress_bar: count the sweeps on stderr.

    Returns:
        ``(values, agent_q, landing, sweeps, residual)``: values (agent to move, 0 where the game
        is over), the last sweep's agent action values and the values the team's moves land on.

    Raises:
        RuntimeError: the tolerance was not reached in ``MAX_ITERATIONS`` sweeps.
    """
    work = Workspace(model.shape)
    values = work.values[0]
    values[...] = np.where(model.live, start if horizon is None else 0.0, 0.0)
    limit = horizon if horizon is not None else iteration.MAX_ITERATIONS
    residual, q, landing = float("inf"), work.q, work.landing
    with sweep_bar(progress_bar, "team value iteration", horizon, tol, limit) as bar:
        for sweep in range(1, limit + 1):
            new, q, landing = one_turn(model, values, agent, team, rewards, gamma, work)
            residual = float(np.abs(np.subtract(new, values, out=work.diff), out=work.diff).max())
            values = new
            if progress_bar:
                bar.count(residual)
            if (horizon is None and residual <= tol) or (settle and residual <= _SETTLED):
                return values, q, landing, sweep, residual
    if horizon is None:
        raise RuntimeError(f"team value iteration did not reach tol={tol:g} in {limit} sweeps (last change "
                           f"{residual:.3g}); raise tol or lower gamma")
    return values, q, landing, limit, residual


def check_ends(model: TeamModel, agent: Any, team: TeamRule) -> None:
    """Refuse undiscounted values without a horizon where the game may go on for ever: the
    states from which the deciding sides, or the fixed policies' chances, can keep it going.

    Raises:
        ValueError: such states exist (the message names one).
    """
    going = model.live.copy()
    buffers = [np.empty(model.shape), np.empty(model.shape)]
    while True:
        between = _can_go_on(model, going.astype(float), team, buffers) & model.live
        stays = [np.logical_and.reduce([between if to is None else between.take(to, axis=0) for _, to in outcomes])
                 for outcomes in model.agent_outcomes]
        if isinstance(agent, str):  # the best action: any that goes on; every action alike: all of them
            new = np.logical_or.reduce(stays) if agent == "max" else np.logical_and.reduce(stays)
        elif agent.dtype == np.int8:
            new = np.choose(agent, stays)
        else:
            new = np.logical_and.reduce([stays[a] | (agent[a] <= 0) for a in range(NUM_ACTIONS)])
        new &= model.live
        if (new == going).all():
            break
        going = new
    if going.any():
        index = np.unravel_index(int(np.argmax(going)), model.shape)
        raise ValueError(f"gamma=1 without a horizon: the game may never end ({int(going.sum()):,} states, e.g. "
                         f"{model.describe(index)}, can go on for ever), so its undiscounted values are not "
                         "defined; pass gamma < 1 or a horizon")


def _can_go_on(model: TeamModel, going: np.ndarray, team: TeamRule, buffers: list[np.ndarray]) -> np.ndarray:
    """Per state between the half-turns: whether some move the team may make (any joint move
    where it decides or plays at random, else one its policy gives a chance) lands where the game
    can go on (``going``, 1.0 or 0.0)."""
    if team.kind == "table":
        return team_backup(model, going, team, buffers) > 0
    if team.kind == "mix":
        reach = np.zeros(model.shape, dtype=bool)
        for joint, weight in team.weights.items():
            reach |= (weight > 0) & (joint_shift(model, going, joint) > 0)
        return reach
    return team_backup(model, going, TeamRule("max"), buffers) > 0


# -- greedy policies ---------------------------------------------------------------------------------
def greedy_choice(values: list[np.ndarray], how: str) -> np.ndarray:
    """The index of the best of ``values`` (arrays of one shape) per element, ``int8``, for a side
    that maximises (``how="max"``) or minimises (``"min"``) them; ties (within 1e-9 of the best,
    relative) go to the lowest index, as :func:`gridghost.planning.iteration.greedy` does, with
    no stacked copy of ``values``."""
    better = np.maximum if how == "max" else np.minimum
    best = values[0].copy()
    for value in values[1:]:
        better(best, value, out=best)
    slack = np.maximum(1.0, np.abs(best))
    slack *= 1e-9
    bound = np.subtract(best, slack, out=best) if how == "max" else np.add(best, slack, out=best)
    del slack
    choice = np.full(bound.shape, len(values) - 1, dtype=np.int8)
    for index in range(len(values) - 2, -1, -1):
        choice[values[index] >= bound if how == "max" else values[index] <= bound] = index
    return choice


def agent_greedy(q: list[np.ndarray]) -> np.ndarray:
    """The agent's best action per state (ties to the lowest action), ``int8[shape]``."""
    return greedy_choice(q, "max")


def team_greedy(model: TeamModel, landing: np.ndarray, how: str) -> np.ndarray:
    """The team's best joint move per state between the half-turns, ``int8[shape + (k,)]`` (each
    ghost's move), for the values ``landing`` its moves land on.

    The joint best is found one ghost at a time, in the reverse order of the reductions: the
    last ghost's best move against the others' best replies, then the one before given it, and
    so on (ties to the lowest move of each ghost).
    """
    k = model.ghosts
    partial = [landing]  # partial[j]: ghosts 0..j-1 reduced (their axes hold their current cells)
    for axis in range(1, k):
        partial.append(model.reduce_axis(partial[-1], axis, how, np.empty(model.shape)))
    actions = np.zeros((*model.shape, k), dtype=np.int8)
    chosen: dict[int, np.ndarray] = {}  # axis -> the cell its ghost moves to, per state
    for axis in range(k, 0, -1):
        source = partial.pop()  # partial[axis - 1], no longer needed after this ghost: its memory goes
        candidates = []
        for move in range(NUM_ACTIONS):
            values = model.take_move(source, axis, move)
            for later, cells in chosen.items():
                values = np.take_along_axis(values, cells, axis=later)
            candidates.append(values)
        best = greedy_choice(candidates, how)
        del candidates, source
        actions[..., axis - 1] = best
        cells = np.arange(model.cells).reshape([model.cells if a == axis else 1 for a in range(k + 1)])
        chosen[axis] = model.moves[np.broadcast_to(cells, model.shape), best].astype(np.int32)
    return actions


def joint_indices(actions: np.ndarray) -> np.ndarray:
    """Per-ghost moves ``[..., k]`` as joint indices (ghost 0 the lowest base-4 digit)."""
    weights = NUM_ACTIONS ** np.arange(actions.shape[-1])
    return (actions.astype(np.int64) * weights).sum(axis=-1)


def outcome_within(model: TeamModel, agent: np.ndarray | str, team: TeamRule, event: Outcome,
                   horizon: int) -> np.ndarray:
    """For fixed policies of both sides: the probability, per state (agent to move), that the
    game ends in ``event`` within ``horizon`` full turns."""
    return team_iterate(model, agent, team, model.event_arrays(event), 1.0, 0.0, horizon, settle=True)[0]


def side_rewards(model: TeamModel, side: Side) -> tuple[np.ndarray, np.ndarray]:
    """``side``'s half-turn rewards (a thin name for :meth:`TeamModel.reward_arrays`)."""
    return model.reward_arrays(side)
