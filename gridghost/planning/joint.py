"""One ghost's full turn over the :class:`~gridghost.planning.model.TurnModel`'s joint tables,
swept a chunk of live states at a time into buffers made once (:class:`JointTurn`), or in place
agent cell by agent cell (:meth:`JointTurn.relax`), and the linear solves that finish value
iteration's sweeps without a horizon: each deciding side's best moves fixed (:class:`FixedTurn`)
and their values solved by BiCGSTAB (:func:`_evaluate`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gridghost.core.rules import NUM_ACTIONS, Side
from gridghost.planning.model import TurnModel, by_outcome

_MAXIMISE, _MINIMISE = "max", "min"
#: Either side's rule (see :data:`gridghost.planning.iteration.Rule`).
Rule = Any


#: How many live states a :class:`JointTurn` sweeps at a time: its scratch rows stay in the
#: processor's cache, and no array the size of the model is made during a sweep.
_CHUNK = 2**14


def _reduce(q: np.ndarray, rule: Rule, out: np.ndarray | None = None) -> np.ndarray:
    """``q`` (``[4, num_live]``) reduced over actions by ``rule`` (into ``out`` if given)."""
    if isinstance(rule, str):
        return (np.maximum if rule == _MAXIMISE else np.minimum).reduce(q, out=out)
    return np.einsum("al,al->l", q, rule, out=out)


class JointTurn:
    """A full turn over the :class:`~gridghost.planning.model.TurnModel`'s tables (the ghosts'
    joint moves and the agent's half-turns), swept a chunk of live states at a time into buffers
    made once: the arithmetic of :meth:`~gridghost.planning.model.TurnModel.ghost_q` and
    :meth:`~gridghost.planning.model.TurnModel.agent_backup`, value for value, without their
    ``[joints, num_live]`` and ``[4, m, num_live]`` temporaries.

    Args:
        model: the game.
        side: whose rewards are summed.
        ghost: the ghosts' :data:`Rule`.
    """

    def __init__(self, model: TurnModel, side: Side, ghost: Rule) -> None:
        sink = model.num_live
        self.model, self.ghost = model, ghost
        # each side's reward of the ghosts' move read by its outcome (what ghost_reward holds,
        # without a float64 table per joint move and state)
        self.next, self.ends = model.ghost_next, model.ghost_outcome
        self.by_end = by_outcome(model.game, Side.GHOST, side)
        self.expected = model.agent_expected[side]
        # each action's slip outcomes that can happen (a padding outcome adds 0)
        self.outcomes = [[(k, float(p)) for k, p in enumerate(row.tolist()) if p > 0.0] for row in model.agent_prob]
        self.between = np.zeros(sink + 1)  # the values with the ghosts to move, the sink last and 0
        self.scratch, self.reward = np.empty((2, min(_CHUNK, max(sink, 1))))
        self.chunks = [(start, min(start + _CHUNK, sink)) for start in range(0, sink, _CHUNK)]
        self.relaxed = 0  # the in-place sweeps made (see relax)
        self._order: list[tuple[int, int]] | None = None

    def turn(self, values: np.ndarray, gamma: float, rule: Any, out: np.ndarray) -> None:
        """One sweep's full turns: per agent action and live state, into ``out`` (``[4,
        num_live]``), the expected reward of the agent's move and of the ghosts' answer (by their
        rule), plus ``gamma`` times ``values`` after it (agent to move, ``[num_live + 1]``, the sink
        last and 0). ``rule`` is unused (the ghosts' rule was given to the constructor)."""
        for start, stop in self.chunks:
            self._ghosts(values, gamma, self.ghost, start, stop)
        for start, stop in self.chunks:
            self._agent(out[:, start:stop], start, stop)

    def relax(self, values: np.ndarray, gamma: float, agent: str) -> float:
        """One Gauss-Seidel sweep of full turns, in place: agent cell by agent cell (in
        :meth:`cell_order`, backwards every other sweep), the new values of its live states (the
        agent's best action by ``agent``, ``"max"`` or ``"min"``) are written into ``values``
        (``[num_live + 1]``, the sink last and 0) and their ghosts-to-move values into
        :attr:`between` before the next cell is swept, so that a sweep carries values along the
        agent's paths across the whole map (a Jacobi sweep moves them one turn). The first sweep
        fills :attr:`between` first. Returns the largest change of a value."""
        if self.relaxed == 0:
            for start, stop in self.chunks:
                self._ghosts(values, gamma, self.ghost, start, stop)
        order = self.cell_order()
        self.relaxed += 1
        largest = 0.0
        q = np.empty((NUM_ACTIONS, min(_CHUNK, max(len(values) - 1, 1))))
        for start, stop in order if self.relaxed % 2 else reversed(order):
            into, new = q[:, : stop - start], self.reward[: stop - start]
            self._agent(into, start, stop)
            _reduce(into, agent, out=new)
            old = values[start:stop]
            largest = max(largest, float(np.abs(old - new).max(initial=0.0)))
            old[...] = new
            self._ghosts(values, gamma, self.ghost, start, stop)
        return largest

    def cell_order(self) -> list[tuple[int, int]]:
        """The live states by agent cell (ranges of at most :data:`_CHUNK`), the agent cells in
        order of their fewest moves to a goal (walls counted, the ghosts ignored; cells that
        reach none last): the order in which :meth:`relax` carries the goals' values out."""
        if self._order is None:
            game, sink = self.model.game, self.model.num_live
            cells = game.num_cells
            steps = np.where(game.goals, 0, cells)
            for distance in range(1, cells):  # a breadth-first search back from the goals
                reached = (steps[game.moves] == distance - 1).any(axis=1) & (steps == cells)
                if not reached.any():
                    break
                steps[reached] = distance
            live = np.count_nonzero(self.model.index.reshape(cells, -1) < sink, axis=1)
            ends = np.cumsum(live)
            self._order = [(int(first), int(min(first + _CHUNK, end)))
                           for cell in np.argsort(steps, kind="stable").tolist()
                           for end in [ends[cell]] for first in range(end - live[cell], end, _CHUNK)]
        return self._order

    def _ghosts(self, values: np.ndarray, gamma: float, rule: Rule, start: int, stop: int,
                choice: np.ndarray | None = None, rewards: bool = True) -> None:
        """The ghosts' answer by ``rule`` in the live states ``start:stop`` into :attr:`between`;
        with ``choice`` (``int8``, those states'), a deciding side's best joint move too (the
        lowest of equal ones); without ``rewards``, their rewards left out."""
        into, scratch, reward = self.between[start:stop], self.scratch[: stop - start], self.reward[: stop - start]
        fixed = not isinstance(rule, str)
        best = None if fixed else (np.maximum if rule == _MAXIMISE else np.minimum)
        for joint in range(len(self.next)):
            q = scratch if joint else into
            values.take(self.next[joint, start:stop], out=q, mode="clip")
            q *= gamma
            if rewards:
                q += self.by_end.take(self.ends[joint, start:stop], out=reward, mode="clip")
            if fixed:
                q *= rule[joint, start:stop]
            if not joint:
                if choice is not None:
                    choice[...] = 0
                continue
            if choice is not None:
                choice[scratch > into if rule == _MAXIMISE else scratch < into] = joint
            (np.add if fixed else best)(into, scratch, out=into)  # type: ignore[misc]

    def _agent(self, out: np.ndarray, start: int, stop: int, rewards: bool = True) -> None:
        """The agent's action values in the live states ``start:stop`` into ``out`` (``[4, n]``),
        from :attr:`between`; without ``rewards``, its expected rewards left out."""
        scratch, next_cells = self.scratch[: stop - start], self.model.agent_next
        for action, outcomes in enumerate(self.outcomes):
            into = out[action]
            into[...] = 0.0
            for outcome, probability in outcomes:
                self.between.take(next_cells[action, outcome, start:stop], out=scratch, mode="clip")
                scratch *= probability
                into += scratch
            if rewards:
                into += self.expected[action, start:stop]


class FixedTurn:
    """A full turn of a :class:`JointTurn` with each deciding side's move fixed per live state
    (the best one after the values it is made from: the agent's from its action values, the
    ghosts' from the values; the lowest of equal ones), and each other side's rule as it is: an
    affine map of the values, ``c + M values``, whose fixed point is the value of those moves.

    Args:
        turn: the full turn.
        agent: the agent's :data:`Rule`.
        values: the values the ghosts' moves are chosen after (``[num_live + 1]``).
        agent_q: the agent's action values its moves are chosen by (``[4, num_live]``).
        gamma: the discount.
    """

    def __init__(self, turn: JointTurn, agent: Rule, values: np.ndarray, agent_q: np.ndarray, gamma: float) -> None:
        model, sink = turn.model, turn.model.num_live
        self.turn, self.agent, self.gamma = turn, agent, gamma
        self.ghost_next: np.ndarray | None = None
        if isinstance(turn.ghost, str):
            self.ghost_next, self.ghost_end = np.empty(sink, dtype=np.int32), np.empty(sink, dtype=np.int8)
            choice = np.empty(min(_CHUNK, max(sink, 1)), dtype=np.int8)
            for start, stop in turn.chunks:
                chosen, columns = choice[: stop - start], np.arange(start, stop)
                turn._ghosts(values, gamma, turn.ghost, start, stop, chosen)
                self.ghost_next[start:stop] = turn.next[chosen, columns]
                self.ghost_end[start:stop] = turn.ends[chosen, columns]
        if isinstance(agent, str):
            width = model.agent_prob.shape[1]
            self.action, self.agent_next = np.empty(sink, dtype=np.int8), np.empty((width, sink), dtype=np.int32)
            for start, stop in turn.chunks:
                chosen, columns = agent_q[:, start:stop].argmax(axis=0), np.arange(start, stop)
                self.action[start:stop] = chosen
                self.agent_next[:, start:stop] = model.agent_next[chosen, :, columns].T
            self.probability = [np.ascontiguousarray(model.agent_prob[:, k]) for k in range(width)]
        else:
            self.q = np.empty((NUM_ACTIONS, min(_CHUNK, max(sink, 1))))

    def apply(self, values: np.ndarray, out: np.ndarray, rewards: bool = True) -> None:
        """The full turns with these moves into ``out`` (``[num_live]``): ``c + M values``
        (``values`` is ``[num_live + 1]``, the sink last and 0); without ``rewards``, ``M values``."""
        turn, gamma = self.turn, self.gamma
        for start, stop in turn.chunks:
            if self.ghost_next is None:
                turn._ghosts(values, gamma, turn.ghost, start, stop, rewards=rewards)
            else:
                into = turn.between[start:stop]
                values.take(self.ghost_next[start:stop], out=into, mode="clip")
                into *= gamma
                if rewards:
                    into += turn.by_end.take(self.ghost_end[start:stop], out=turn.reward[: stop - start], mode="clip")
        for start, stop in turn.chunks:
            into = out[start:stop]
            if isinstance(self.agent, str):
                scratch, weight = turn.scratch[: stop - start], turn.reward[: stop - start]
                action = self.action[start:stop]
                if rewards:
                    into[...] = turn.expected[action, np.arange(start, stop)]
                else:
                    into[...] = 0.0
                for outcome, probability in enumerate(self.probability):
                    turn.between.take(self.agent_next[outcome, start:stop], out=scratch, mode="clip")
                    scratch *= probability.take(action, out=weight, mode="clip")
                    into += scratch
            else:
                q = self.q[:, : stop - start]
                turn._agent(q, start, stop, rewards)
                np.einsum("al,al->l", q, self.agent[:, start:stop], out=into)


#: Value iteration hands over to a linear solve (:func:`_evaluate`) once no value changes by
#: more than this in a sweep: the best moves have mostly settled, and the slow tail of the sweeps
#: (games that go on for many turns) is left to the solve.
_SOLVE_AT = 1e-3
#: The one-ghost game's sweeps without a horizon start with in-place sweeps
#: (:meth:`JointTurn.relax`) on maps of at least this many cells: each carries values across the
#: map, in about half the sweeps of a 48 x 48 map's, but costs 1.7 times a sweep there (a step per
#: agent cell), and 2.2 times on a 32 x 32 map, where propagation is not what the sweeps wait for.
_RELAX_FROM = 2048
#: In-place sweeps hand over to a linear solve once no value changes by more than this: they
#: settle the best moves sooner than plain sweeps (452 passes in all on the 64 x 64 game where
#: handing over at :data:`_SOLVE_AT` took 490).
_RELAXED_TO = 1e-2
#: A linear solve handed over to after a sweep whose largest change was ``r`` aims at no state's
#: equation off by more than ``r`` times this (the best moves it fixes may change after it).
_SOLVE_DEPTH = 1e-3
#: Solves aim that shallow on maps of at least this many cells (fewer passes in all on the 32x32
#: to 64x64 benchmark maps); on smaller ones each aims at the sweeps' stopping test (fewer there).
_SHALLOW_FROM = 1024
#: The most passes over the states a linear solve makes.
_SOLVE_PASSES = 150
#: A linear solve aims at no state's equation off by more than ``tol * (1 - gamma)`` (the sweeps'
#: stopping test then leaves the values within about ``tol`` of the fixed point), and not below
#: this (about a hundred roundings of values of a hundred).
_FLOOR = 1e-12


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    """``a . b`` without BLAS (whose threads would spin on a busy machine)."""
    return float(np.einsum("i,i->", a, b))


def _evaluate(fixed: FixedTurn, values: np.ndarray, target: float,
              work: list[np.ndarray]) -> tuple[np.ndarray | None, int]:
    """The values of the fixed moves, ``x = c + M x``, by BiCGSTAB on ``(I - M) x = c`` from
    ``values`` (``[num_live + 1]``), until no state's ``c + M x - x`` exceeds ``target``.

    ``work`` is seven vectors of ``num_live`` (the first receives the values), all overwritten.
    Returns the values (that first vector) and the passes over the states made, or ``None`` where
    the solve broke down or did not get below its starting residual."""
    sink = len(values) - 1
    x, r, start, p, v, s, t = work
    given = np.zeros(sink + 1)  # a vector with the sink's 0 after it, what the turn reads
    scratch = fixed.turn.scratch

    def largest(vector: np.ndarray) -> float:  # max |vector|, a chunk at a time (no temporary)
        return max((float(np.abs(vector[a:b], out=scratch[: b - a]).max()) for a, b in fixed.turn.chunks),
                   default=0.0)
    def product(vector: np.ndarray, out: np.ndarray) -> None:  # (I - M) vector
        given[:sink] = vector
        fixed.apply(given, out, rewards=False)
        np.subtract(vector, out, out=out)

    x[...] = values[:sink]
    given[:sink] = x
    fixed.apply(given, r)
    r -= x  # c - (I - M) x
    first = largest(r)
    start[...] = r
    rho = alpha = omega = 1.0
    p[...] = 0.0
    v[...] = 0.0
    passes, size = 1, first
    with np.errstate(all="ignore"):
        while passes < _SOLVE_PASSES and size > target:
            previous, rho = rho, _dot(start, r)
            if rho == 0.0 or omega == 0.0:
                break
            beta = (rho / previous) * (alpha / omega)
            p -= np.multiply(v, omega, out=s)  # s and t are free until they are set below
            p *= beta
            p += r
            product(p, v)
            passes += 1
            alpha = rho / _dot(start, v)
            np.subtract(r, np.multiply(v, alpha, out=s), out=s)
            if not np.isfinite(alpha) or largest(s) <= target:
                x += np.multiply(p, alpha, out=t)
                size = largest(s)
                break
            product(s, t)
            passes += 1
            omega = _dot(t, s) / _dot(t, t)
            x += np.multiply(p, alpha, out=r)  # r is free until it is set below
            x += np.multiply(s, omega, out=r)
            np.subtract(s, np.multiply(t, omega, out=r), out=r)
            size = largest(r)
    if not (np.isfinite(size) and size < first and np.isfinite(largest(x))):
        return None, passes
    return x, passes
