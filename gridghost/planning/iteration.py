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

from gridghost.core import halfturn
from gridghost.core.checks import check_flag, check_limit, check_number
from gridghost.core.progress import sweep_bar
from gridghost.core.rules import NUM_ACTIONS, Outcome, Side
from gridghost.planning import compiled
from gridghost.planning.budget import stage_sizes
from gridghost.planning.joint import (
    _CHUNK,
    _FLOOR,
    _MAXIMISE,
    _MINIMISE,
    _RELAX_FROM,
    _RELAXED_TO,
    _SHALLOW_FROM,
    _SOLVE_AT,
    _SOLVE_DEPTH,
    FixedTurn,
    JointTurn,
    _evaluate,
    _reduce,
)
from gridghost.planning.model import TurnModel, by_outcome, multisets

#: Value iteration gives up after this many sweeps without reaching the tolerance.
MAX_ITERATIONS = 100_000


#: The compiled game's in-place sweeps (:func:`_compiled_sweeps`) are extrapolated once no value
#: changed by more than this in the second sweep of a pair and the last :data:`_STEADY_PAIRS` pairs
#: shrank that change by ratios within :data:`_STEADY` of each other (the slowest way the values settle
#: dominates what is left: games that go on for many turns).
_EXTRAPOLATE_BELOW = 1e-3
_STEADY_PAIRS, _STEADY = 3, 2e-3


def _compiled(model: TurnModel, side: Side, agent: Rule, ghost: Rule, horizon: int | None,
              gamma: float) -> compiled.CompiledTurn | None:
    """The compiled sweeps of the game where they apply (:func:`~gridghost.planning.compiled.applies`,
    the agent maximising and the ghost minimising), else ``None``."""
    if (not isinstance(agent, str) or not isinstance(ghost, str) or agent != _MAXIMISE or ghost != _MINIMISE
            or not compiled.applies(model.game, gamma, horizon)):
        return None
    return compiled.CompiledTurn(model, side)

#: A horizon's outcome probabilities are final once a turn changes none by more than this.
_SETTLED = 1e-15
#: How many horizons' outcome probabilities a solution keeps.
_OUTCOMES_KEPT = 8


# -- checks --------------------------------------------------------------------------------------
def _check_settings(gamma: Any, tol: Any, horizon: Any, progress_bar: Any = False) -> tuple[float, float, int | None]:
    check_flag(progress_bar, "progress_bar")
    try:
        value = check_number(gamma, "gamma", 0.0, strict=True)
    except ValueError:
        value = float("nan")
    if not 0.0 < value <= 1.0:
        raise ValueError(f"gamma must be a number in (0, 1], got {gamma!r}")
    return value, check_number(tol, "tol", 0.0, strict=True), check_limit(horizon, "horizon", maximum=MAX_ITERATIONS)


# -- a deciding team's turn, dense over multisets ----------------------------------------------------
class TeamStages:
    """A full turn of a team stored by multisets, with the team deciding, held dense over every
    agent cell and multiset of ghost cells (``[cells, placements]``).

    The team's move is ``k`` moves of one ghost each: the ghosts move at once from the same state
    and the value after the move is a function of their cells as a multiset, so the team's best
    joint move is ``k`` nested bests, one ghost each. Stage ``u`` holds, per agent cell, the values
    with ``u`` ghosts still to move (a multiset) and ``k - u`` moved (another), and moving the last
    still-to-move ghost of each state reads stage ``u - 1``. Stage 0 is the value after the whole
    move, stage ``k`` the value before it; no table has ``4 ** k`` joint moves. The agent's move
    does not change the multiset: it reads whole rows of stage ``k``, by the agent's next cell per
    action and slip outcome (the kernel's :attr:`~gridghost.core.game.Game.outcomes`). Where a
    half-turn ends is :mod:`gridghost.core.halfturn`'s rule, asked once per agent cell and multiset.

    Args:
        model: a team's :class:`~gridghost.planning.model.TurnModel` stored by multisets.
        side: whose rewards are summed.
    """

    def __init__(self, model: TurnModel, side: Side) -> None:
        game, k, cells = model.game, model.ghosts, model.game.num_cells
        combos, ranks = zip(*[multisets(cells, j) for j in range(k)], (model.multisets, model.rank), strict=True)
        #: per stage ``u >= 1`` and action, where moving the ghost lands in stage ``u - 1``
        self.moves: list[np.ndarray] = []
        for u in range(1, k + 1):
            still, moved = combos[u], combos[k - u]
            rest = ranks[u - 1][(still[:, :-1] * cells ** np.arange(u - 2, -1, -1)).sum(axis=1)]
            table = np.empty((NUM_ACTIONS, len(still) * len(moved)), dtype=np.int64)
            for action in range(NUM_ACTIONS):
                lands = np.broadcast_to(game.moves[still[:, -1], action][:, None, None], (len(still), len(moved), 1))
                after = np.sort(np.concatenate([np.broadcast_to(moved, (len(still), *moved.shape)), lands], axis=2))
                code = (after * cells ** np.arange(k - u, -1, -1)).sum(axis=2)
                table[action] = (rest[:, None] * len(combos[k - u + 1]) + ranks[k - u + 1][code]).ravel()
            self.moves.append(table)
        agents, placed = np.arange(cells)[:, None], combos[k][None]
        self.caught = halfturn.team_lands(agents, placed) == Outcome.CAUGHT  # [cells, placements]
        landing = halfturn.agent_lands(agents, placed, game.goals)
        #: each live state's place (agent to move, in the model's order), and each place's live state
        self.live, self.index = np.flatnonzero(landing == Outcome.ONGOING), model.index
        team = by_outcome(game, Side.GHOST, side)
        self.rewards = team[Outcome.ONGOING], team[Outcome.CAUGHT]
        reward = by_outcome(game, Side.AGENT, side)
        self.landed = reward[Outcome.ONGOING]
        self.ends = [(reward[outcome], landing == outcome) for outcome in Outcome if outcome != Outcome.ONGOING]
        self.outcomes = game.outcomes
        # stage u is written in buffer u % 2, read from the other (see stage_sizes)
        widths, lengths, self.rows = stage_sizes(cells, k)
        buffers = [np.empty(cells * length) for length in lengths]
        self.stages = [buffers[u % 2][: cells * width].reshape(cells, -1) for u, width in enumerate(widths)]
        self.scratch = buffers[1 - k % 2][: 2 * cells * widths[0]].reshape(2, cells, -1)
        self.spare = np.empty(self.rows * max(widths))

    def turn(self, values: np.ndarray, gamma: float, rule: str, out: np.ndarray) -> None:
        """One sweep's full turns: per agent action and live state, into ``out`` (``[4,
        num_live]``), the expected reward of the agent's move and of the team's best answer (by
        ``rule``, ``"min"`` or ``"max"``), plus ``gamma`` times ``values`` after it (agent to move,
        ``[num_live + 1]``, the sink last and 0)."""
        self._team(values, gamma, rule)
        landed = self.stages[-1]  # the value of the agent's move ending on each cell, per multiset
        landed += self.landed
        for reward, where in self.ends:
            np.copyto(landed, reward, where=where)
        q, rows = self.scratch
        for action, (probabilities, destinations) in enumerate(self.outcomes):
            for i, (probability, cells) in enumerate(zip(probabilities.tolist(), destinations, strict=True)):
                into = rows if i else q
                landed.take(cells, axis=0, out=into, mode="clip")
                into *= probability
                if i:
                    q += rows
            q.reshape(-1).take(self.live, out=out[action], mode="clip")

    def _team(self, values: np.ndarray, gamma: float, rule: str) -> None:
        """The team's best move, stage by stage, into the last stage (ghosts to move)."""
        best = np.minimum if rule == _MINIMISE else np.maximum
        after = values.take(self.index, out=self.stages[0].reshape(-1), mode="clip")
        after *= gamma
        after += self.rewards[0]
        np.copyto(self.stages[0], self.rewards[1], where=self.caught)
        for table, before, out in zip(self.moves, self.stages[:-1], self.stages[1:], strict=True):
            before.take(table[0], axis=1, out=out, mode="clip")
            for start in range(0, len(out), self.rows):
                block = out[start:start + self.rows]
                spare = self.spare[: block.size].reshape(block.shape)
                for action in range(1, NUM_ACTIONS):
                    best(block, before[start:start + self.rows].take(table[action], axis=1, out=spare, mode="clip"),
                         out=block)


# -- value iteration -------------------------------------------------------------------------------
#: Either side's rule in value iteration: choose the best action for the agent (``"max"``) or
#: for the ghosts in the zero-sum game (``"min"``), or follow fixed probabilities ``[actions,
#: num_live]`` (the ghosts' actions are their ``4 ** k`` joint actions).
Rule = Any


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


def _largest_change(values: np.ndarray, read: np.ndarray, sink: int, scratch: np.ndarray) -> float:
    """The largest ``|values - read|`` over the live states, a chunk of ``scratch``'s length at a time."""
    largest = 0.0
    for start in range(0, sink, len(scratch)):
        stop = min(start + len(scratch), sink)
        change = scratch[: stop - start]
        np.abs(np.subtract(values[start:stop], read[start:stop], out=change), out=change)
        largest = max(largest, float(change.max()))
    return largest


def _iterate(model: TurnModel, agent: Rule, ghost: Rule, side: Side, gamma: float, tol: float,
             horizon: int | None, progress_bar: bool = False) -> tuple[np.ndarray, np.ndarray, Any, int, float]:
    """Value iteration over full turns: from zero with a horizon (the values of a game of that
    many turns), else from the value of a game that never ends.

    Without a horizon and with ``gamma < 1``, one ghost's sweeps (a :class:`JointTurn`) hand over
    to a linear solve once no value changes by more than :data:`_SOLVE_AT`: each deciding side's
    best moves are fixed (:class:`FixedTurn`) and their values solved (:func:`_evaluate`); the
    sweeps then go on from there to the same stopping test, solving again once much closer, so
    the values are value iteration's fixed point either way, only reached in fewer passes and
    closer. In the game (both sides decide) on maps of :data:`_SHALLOW_FROM` cells or more, each
    solve aims :data:`_SOLVE_DEPTH` below the last change and is made again after each sweep that
    halves the change; on maps of :data:`_RELAX_FROM` cells or more, the sweeps before the first
    solve are made in place (:meth:`JointTurn.relax`), until none changes a value by more than
    :data:`_RELAXED_TO`. The passes of the solves and the in-place sweeps are counted
    with the sweeps.

    Args:
        model: the game.
        agent, ghost: each side's :data:`Rule`.
        side: whose rewards are summed.
        gamma, tol: discount per turn; stop when no value changes by more than ``tol``.
        horizon: if given, exactly this many sweeps: the values of a game of ``horizon`` turns.
        progress_bar: count the sweeps on a progress bar on stderr.

    Returns:
        ``(values, agent_q, read, sweeps, residual)``: the agent-to-move values (``[num_live
        + 1]``, the sink last), the agent's action values ``[4, num_live]`` from the last sweep
        (their best is the values) and the values that sweep read (the ghosts' action values
        are :meth:`~gridghost.planning.model.TurnModel.ghost_q` of them), the passes over the
        states (sweeps, in-place sweeps and the solves' passes) and the last sweep's largest change.

    Raises:
        ValueError: ``gamma=1`` without a horizon where the game may never end.
        RuntimeError: the tolerance was not reached in :data:`MAX_ITERATIONS` sweeps.
    """
    if horizon is None and gamma >= 1.0:
        _check_ends(model, agent, ghost)
    sink = model.num_live
    values, read = np.zeros(sink + 1), np.zeros(sink + 1)  # this sweep's values and the last one's
    if horizon is None and gamma < 1.0:
        # Every turn that does not end the game pays the same reward c, so a game that never
        # ends is worth c / (1 - gamma): starting there, states that never end are exact from the
        # first sweep, and the sweeps needed depend on how fast games end, not on gamma alone.
        values[:sink] = model.continuing_reward(side) / (1.0 - gamma)
    kernel = _compiled(model, side, agent, ghost, horizon, gamma)
    stages: TeamStages | JointTurn | None = (None if kernel is not None
                                             else TeamStages(model, side) if model.symmetric and isinstance(ghost, str)
                                             else JointTurn(model, side, ghost))
    agent_q = np.empty((NUM_ACTIONS, sink))
    change = np.empty(max(1, min(_CHUNK, sink)))
    residual = float("inf")
    sweeps = horizon if horizon is not None else MAX_ITERATIONS
    # without a horizon, the slow tail is left to linear solves of the best moves (one JointTurn)
    solve_at = _SOLVE_AT if horizon is None and gamma < 1.0 and isinstance(stages, JointTurn) else -1.0
    passes = 0
    # the game of one ghost on a large map (both sides decide): in-place sweeps first, then solves
    # aimed short and repeated while the best moves change (against a fixed side, measured on a
    # 48x48 map, both took more passes than the solves to the end)
    game = solve_at > 0.0 and model.ghosts == 1 and isinstance(agent, str) and isinstance(ghost, str)
    shallow = game and model.game.num_cells >= _SHALLOW_FROM
    with sweep_bar(progress_bar, "value iteration", horizon, tol, sweeps) as bar:
        if kernel is not None:
            values, read, sweep, passes, residual = _compiled_sweeps(kernel, values, read, agent_q, gamma, tol,
                                                                     bar if progress_bar else None)
            sweeps = 0  # the NumPy sweeps below are skipped
        elif game and model.game.num_cells >= _RELAX_FROM:
            # on a large map, in-place sweeps carry the values across it first (a Jacobi sweep
            # moves them one turn); the first sweep after them hands over to a solve
            assert isinstance(stages, JointTurn)
            while passes < MAX_ITERATIONS and residual > max(_RELAXED_TO, tol):
                residual = stages.relax(values, gamma, agent)
                passes += 1
                if progress_bar:
                    bar.count(residual)
            solve_at = float("inf")
        for sweep in range(1, sweeps + 1):
            assert stages is not None  # (the compiled sweeps make none of these)
            stages.turn(values, gamma, ghost, out=agent_q)
            values, read = read, values
            _reduce(agent_q, agent, out=values[:sink])
            residual = _largest_change(values, read, sink, change)
            if progress_bar:
                bar.count(residual)
            if sweep == sweeps or (horizon is None and residual <= tol):
                break
            if residual <= solve_at:
                fixed = FixedTurn(stages, agent, read, agent_q, gamma)  # type: ignore[arg-type]
                # the last sweep's action values and the values it read are free until the next
                work = [np.empty(sink), read[:sink], *agent_q, np.empty(sink)]
                target = max(tol * (1.0 - gamma), _FLOOR, residual * _SOLVE_DEPTH if shallow else 0.0)
                solved, made = _evaluate(fixed, values, target, work)
                del fixed, work
                passes += made
                if progress_bar:  # the solve's passes, counted as sweeps are
                    bar.sweeps += made
                    bar.bar.update(made)
                if solved is not None:
                    values[:sink] = solved
                # another solve once the sweeps got much closer, or with shallow solves after the
                # next sweep if it gets closer by half (the best moves may have changed)
                solve_at = residual / (2 if shallow and solved is not None else 100)
    if horizon is None and residual > tol:
        raise RuntimeError(
            f"value iteration did not reach tol={tol:g} in {MAX_ITERATIONS} sweeps (last change {residual:.3g}); "
            "raise tol or lower gamma"
        )
    return values, agent_q, read, sweep + passes, residual


def _compiled_sweeps(kernel: compiled.CompiledTurn, values: np.ndarray, read: np.ndarray, agent_q: np.ndarray,
                     gamma: float, tol: float, bar: Any) -> tuple[np.ndarray, np.ndarray, int, int, float]:
    """The compiled game's sweeps from ``values``: in place, the agent's cells in memory order
    (forwards and backwards in turn), until no value changes by more than ``tol``, then plain ones
    until one changes none by more than ``tol`` (one, on the benchmark's maps): value iteration's
    values and its last sweep. Returns ``(values, read, sweeps, in-place sweeps, residual)``, as
    :func:`_iterate` names them (``agent_q`` holds the last sweep's action values).

    The cells go in memory order, not by their distance to a goal as :meth:`JointTurn.relax
    <gridghost.planning.joint.JointTurn.relax>` takes them: on a 48 x 48 map as many sweeps
    (459 against 450), each cheaper (the rows a row reads are the ones just swept, in the cache).
    Once the changes shrink steadily (see :data:`_EXTRAPOLATE_BELOW`), the values are moved to
    where that shrinking leads (Aitken's extrapolation); the sweeps go on from there to the same
    stopping test, in about half the sweeps (219 against 459 on 48 x 48)."""
    forwards, backwards = kernel.rows, np.ascontiguousarray(kernel.rows[::-1])
    passes, sweep, residual = 0, 0, float("inf")
    ratios: list[float] = []  # how much each pair of sweeps shrank the change, since the last move
    paired = 0.0  # the last pair's change
    while passes < MAX_ITERATIONS and residual > tol:
        if passes % 2 == 0:
            read[...] = values  # the values before this pair (read is free until the plain sweeps)
        residual = kernel.relax(values, gamma, backwards if passes % 2 else forwards)
        passes += 1
        if bar is not None:
            bar.count(residual)
        if passes % 2 or residual <= tol:
            continue
        if paired > 0.0:
            ratios.append(residual / paired)
        paired = residual
        steady = ratios[-_STEADY_PAIRS:]
        if (residual < _EXTRAPOLATE_BELOW and len(steady) == _STEADY_PAIRS and max(steady) < 1.0
                and max(steady) - min(steady) < _STEADY):
            # each pair shrinks the values' changes by about rho: add what the pairs to come would
            shrink = ratios[-1]
            np.subtract(values, read, out=read)
            read *= shrink / (1.0 - shrink)
            values += read
            kernel.moved()
            ratios.clear()
            paired = 0.0
    while passes + sweep < MAX_ITERATIONS and (sweep == 0 or residual > tol):
        residual = kernel.sweep(values, read, gamma, agent_q)
        values, read = read, values
        sweep += 1
        if bar is not None:
            bar.count(residual)
    return values, read, sweep, passes, residual


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



#: Chooses the ghosts' joint action in ghost-to-move live states ``int[n]`` from those states'
#: joint moves (``next``, ``outcome``: ``[joints, n]``, :meth:`TurnModel.ghost_moves`): ``int[n]``.
GhostChoice = Any


def reachable_outcome(model: TurnModel, start: int, agent_actions: np.ndarray, ghosts: GhostChoice, event: Outcome,
                      horizon: int) -> float:
    """The probability that the game ends in ``event`` within ``horizon`` full turns from the
    live state ``start``, both sides deterministic (the agent's ``agent_actions`` per live state,
    the ghosts' joint moves chosen by ``ghosts`` where first reached), solved over the states
    reachable from ``start`` alone.

    Each state's probability reads only its successors, so the reachable states' probabilities
    are the ones :func:`_outcome_within` gives over every state, turn for turn; all ``horizon``
    turns are made (no early stop), the exact probability of a game of that many turns. The
    ghosts' joint moves are built only for the states reached (a decision of a team is ``4 ** k``
    half-turns per state).
    """
    sink = model.num_live
    if start == sink:
        return 0.0
    seen_agent, seen_ghost = np.zeros(sink + 1, dtype=bool), np.zeros(sink + 1, dtype=bool)
    ghost_next, ghost_hit = np.full(sink + 1, sink, dtype=np.int64), np.zeros(sink + 1, dtype=bool)
    outcomes = np.arange(model.agent_prob.shape[1])
    agent_next, agent_end = _agent_tables(model)
    frontier = np.array([start])
    seen_agent[start] = True
    while frontier.size:
        actions = agent_actions[frontier]
        agent_next[:, :, frontier], agent_end[:, :, frontier] = model.agent_moves(frontier)
        after = agent_next[actions[:, None], outcomes, frontier[:, None]][model.agent_prob[actions] > 0.0]
        after = np.unique(after)
        after = after[(after < sink) & ~seen_ghost[after]]
        seen_ghost[after] = True
        if not after.size:
            break
        moves, ends = model.ghost_moves(after)
        joint, columns = ghosts(after, moves, ends), np.arange(after.size)
        ghost_next[after], ghost_hit[after] = moves[joint, columns], ends[joint, columns] == event
        frontier = np.unique(ghost_next[after])
        frontier = frontier[(frontier < sink) & ~seen_agent[frontier]]
        seen_agent[frontier] = True
    agent_states, ghost_states = np.flatnonzero(seen_agent[:sink]), np.flatnonzero(seen_ghost[:sink])
    actions = agent_actions[agent_states][:, None]
    probabilities = model.agent_prob[actions[:, 0]]  # [n, m]
    lands = agent_next[actions, outcomes, agent_states[:, None]]
    hit = (probabilities * (agent_end[actions, outcomes, agent_states[:, None]] == event)).sum(axis=1)
    probability, between = np.zeros(sink + 1), np.zeros(sink + 1)
    reached, hits = ghost_next[ghost_states], ghost_hit[ghost_states]
    for _ in range(horizon):
        between[ghost_states] = np.where(hits, 1.0, probability[reached])
        probability[agent_states] = hit + (probabilities * between[lands]).sum(axis=1)
    return float(probability[start])


def _agent_tables(model: TurnModel) -> tuple[np.ndarray, np.ndarray]:
    """Room for the agent's half-turns of every live state (``[4, m, num_live]``), filled where
    reached: the sink and ONGOING elsewhere."""
    shape = (NUM_ACTIONS, model.agent_prob.shape[1], model.num_live)
    return np.full(shape, model.num_live, dtype=np.int32), np.zeros(shape, dtype=np.int8)


#: How many sweeps :func:`reachable_response` makes past the tolerance, at most, to reach the
#: sweep after which its values never change.
_SETTLE_SWEEPS = 5_000


def reachable_response(model: TurnModel, start: int, joints: np.ndarray, side: Side, gamma: float,
                       tol: float) -> tuple[np.ndarray, np.ndarray, float] | None:
    """The agent's greedy best response to deterministic ghosts (joint action ``joints[state]``
    per live state, ``gamma < 1``), by value iteration over the states reachable from the live
    state ``start`` alone (any agent action, any slip outcome, the ghosts' moves): the greedy
    actions that :func:`_iterate` over every state with the ghosts' one-hot policy ends with.

    Each state's values read only its successors, so sweep for sweep the reachable states'
    values are bit for bit those of the sweeps over every state; only the stopping test differs,
    over fewer states, so that those sweeps may stop later. The sweeps here go on past ``tol``
    until the values stop changing: where every sweep from the first within ``tol`` to that one
    has the same greedy actions, so has the sweep over every state that stops somewhere between.

    Returns:
        ``(states, actions, value)``: the reachable live states (ascending), the agent's greedy
        action in each, and the value of ``start`` once the values stopped changing (within the
        tolerance's tail of the value a solve over every state stops at); ``None`` where the
        greedy actions change after the tolerance or the values do not settle within
        :data:`_SETTLE_SWEEPS` sweeps past it (solve over every state then).

    Raises:
        RuntimeError: the tolerance was not reached in :data:`MAX_ITERATIONS` sweeps.
    """
    sink, probabilities = model.num_live, model.agent_prob
    seen_agent, seen_ghost = np.zeros(sink + 1, dtype=bool), np.zeros(sink + 1, dtype=bool)
    ghost_next, ghost_end = np.full(sink + 1, sink, dtype=np.int64), np.zeros(sink + 1, dtype=np.int8)
    agent_next, agent_end = _agent_tables(model)
    frontier = np.array([start])
    seen_agent[start] = True
    while frontier.size:
        agent_next[:, :, frontier], agent_end[:, :, frontier] = model.agent_moves(frontier)
        after = np.unique(agent_next[:, :, frontier][probabilities > 0.0])
        after = after[(after < sink) & ~seen_ghost[after]]
        seen_ghost[after] = True
        ghost_next[after], ghost_end[after] = model.ghost_moves(after, joints[after])
        frontier = np.unique(ghost_next[after])
        frontier = frontier[(frontier < sink) & ~seen_agent[frontier]]
        seen_agent[frontier] = True
    states, ghost_states = np.flatnonzero(seen_agent[:sink]), np.flatnonzero(seen_ghost[:sink])
    agent_place, ghost_place = np.full(sink + 1, len(states)), np.full(sink + 1, len(ghost_states))
    agent_place[states], ghost_place[ghost_states] = np.arange(len(states)), np.arange(len(ghost_states))
    reached = agent_place[ghost_next[ghost_states]]
    ghost_reward = by_outcome(model.game, Side.GHOST, side)[ghost_end[ghost_states]]
    # the agent's half-turns, every action and slip outcome in one take: each value sums its
    # outcomes in their order, as TurnModel.agent_backup does (a padding outcome adds 0)
    landing = ghost_place[agent_next[:, :, states]].reshape(-1)
    weights = np.broadcast_to(probabilities[:, :, None], (NUM_ACTIONS, probabilities.shape[1], len(states)))
    expected = model.expected_reward(side, agent_end[:, :, states])
    values, read = np.zeros(len(states) + 1), np.zeros(len(states) + 1)
    values[:-1] = model.continuing_reward(side) / (1.0 - gamma)  # as _iterate
    between, agent_q = np.zeros(len(ghost_states) + 1), np.empty((NUM_ACTIONS, len(states)))
    spread = np.empty(weights.shape)
    actions, residual, limit = None, float("inf"), MAX_ITERATIONS
    for sweep in range(1, MAX_ITERATIONS + _SETTLE_SWEEPS + 1):
        taken = values.take(reached)
        taken *= gamma
        taken += ghost_reward
        between[:-1] = taken
        between.take(landing, out=spread.reshape(-1))
        spread *= weights
        np.add.reduce(spread, axis=1, out=agent_q)
        agent_q += expected
        values, read = read, values
        np.maximum.reduce(agent_q, out=values[:-1])
        residual = float(np.abs(values[:-1] - read[:-1]).max(initial=0.0))
        if actions is None and residual <= tol:
            actions, limit = greedy(agent_q), sweep + _SETTLE_SWEEPS
        elif actions is not None and not np.array_equal(greedy(agent_q), actions):
            return None
        if actions is not None and (residual == 0.0 or sweep >= limit):
            return (states, actions, float(values[agent_place[start]])) if residual == 0.0 else None
        if sweep >= limit:
            break
    raise RuntimeError(f"value iteration did not reach tol={tol:g} in {MAX_ITERATIONS} sweeps (last change "
                       f"{residual:.3g}); raise tol or lower gamma")
