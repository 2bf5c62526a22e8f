"""The contracts of the NumPy batched engine, :class:`gridghost.batched.BatchedGame`, with one
learner (``controlled="agent"`` or ``"ghost"``, full turns) or two (``controlled=None``,
half-turns), in either auto-reset mode; with a team (``ghosts >= 2``) the ghosts' side is
``"ghosts"`` (``int[N, k]`` actions, rows and rewards per ghost) and its learner
``controlled="ghosts"``.

Each check takes ``make_game``, which returns a fresh engine, and fails as
:mod:`gridghost.testing` says; :func:`batched_conformance` runs them all.
"""

from __future__ import annotations

import copy
import functools
import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from gridghost.core.rules import NUM_ACTIONS, Outcome, Side
from gridghost.testing.common import (
    added,
    arguments_checked,
    check_goes_on,
    check_in_space,
    check_mask,
    check_seeded,
    check_zero_sum,
    contract,
    fail,
    kernel_of,
)
from gridghost.testing.observing import Expected, HandedOut, check_final

#: The calls the checks make per run.
STEPS = 40


def _ghost_side(game: Any) -> str:
    """The ghosts' side name: ``"ghost"``, or ``"ghosts"`` for a team."""
    return "ghosts" if getattr(game, "ghosts", 1) > 1 else "ghost"


def _calls(game: Any) -> list[str]:
    """The sides whose step methods one turn calls: the learner's, or the agent's then the ghosts'."""
    return ["agent", _ghost_side(game)] if game.controlled is None else [game.controlled]


def _step(game: Any, side: str) -> Callable[[Any], Any]:
    """The step method of ``side`` (the ghosts' is ``step_ghost``, for one ghost or a team)."""
    return game.step_agent if side == "agent" else game.step_ghost


def _actions(game: Any, side: str, rng: np.random.Generator) -> np.ndarray:
    """Random actions of ``side``: ``int[N]``, or ``int[N, k]`` for a team."""
    shape = (game.num_games, game.ghosts) if side == "ghosts" else (game.num_games,)
    return rng.integers(NUM_ACTIONS, size=shape)


def cells_of(state: Any) -> tuple[int, tuple[int, ...]]:
    """A kernel state's ``(agent cell, ghost cells)``."""
    return state.agent, tuple(state.ghosts)


def row_cells(positions: Sequence[np.ndarray], row: int) -> tuple[int, tuple[int, ...]]:
    """Game ``row``'s ``(agent cell, ghost cells)`` from the engine's positions."""
    return int(positions[0][row]), tuple(np.atleast_1d(positions[1][row]).tolist())


def state_of(kernel: Any, cells: tuple[int, tuple[int, ...]], turn: Side, outcome: Outcome = Outcome.ONGOING) -> Any:
    """The kernel's state with these cells."""
    return kernel.initial_state()._replace(agent=cells[0], ghosts=cells[1], turn=turn, outcome=outcome)


def row_move(kernel: Any, before: Sequence[np.ndarray], actions: np.ndarray, row: int, side: str) -> tuple[Any, Any]:
    """Game ``row``'s ``(state, action)`` of a call of ``side``: its cells in ``before`` (the
    positions before the call) with ``side`` to move, and its action (a team's tuple)."""
    state = state_of(kernel, row_cells(before, row), Side.AGENT if side == "agent" else Side.GHOST)
    return state, tuple(actions[row].tolist()) if side == "ghosts" else int(actions[row])


def learner_starts(kernel: Any, learner: str) -> tuple[set[tuple[int, tuple[int, ...]]], Any]:
    """Where a learner's episodes start, and what its first step also pays: the start state (the
    agent's), or every state after the opening move (the ghosts', paid its reward for it; a
    team's each ghost's)."""
    start = kernel.initial_state()
    if learner == "agent":
        return {cells_of(start)}, 0.0
    opening = kernel.rewards(Side.AGENT, Outcome.ONGOING)[1]
    return ({cells_of(after) for after, *_ in half_turns(kernel, start, Side.AGENT, None)},
            (opening,) * kernel.ghosts if learner == "ghosts" else opening)


def half_turns(kernel: Any, state: Any, side: Side, action: Any) -> list[tuple[Any, float, Any]]:
    """``(next state, agent's reward, ghosts' reward)`` of every outcome with a positive probability
    of ``side``'s half-turn (every action when ``action`` is ``None``: a team's every joint
    action); a team's reward is each ghost's tuple."""
    if side == Side.GHOST:  # every joint action as a tuple (one ghost's of one)
        every = itertools.product(range(NUM_ACTIONS), repeat=kernel.ghosts) if action is None else (action,)
        afters = [kernel.ghost_step(state, tuple(np.atleast_1d(chosen).tolist())) for chosen in every]
        paid = [(after, kernel.rewards(side, after.outcome)[0]) for after in afters]
    else:
        actions = range(NUM_ACTIONS) if action is None else (int(action),)
        paid = [(after, agent) for a in actions for _, after, agent, _ in kernel.successors(state, a)]
    return [(after, agent, kernel.ghost_rewards_of(side, after) if kernel.ghosts > 1 else
             kernel.rewards(side, after.outcome)[1]) for after, agent in paid]


def full_turns(kernel: Any, state: Any, learner: str, action: Any, carried: Any = None, half_turn: bool = False
               ) -> list[tuple[Any, Any]]:
    """Every ``(final state, learner's reward)`` of a learner's full turn: its move, then (if the
    game goes on) any answer, with ``carried`` (the opening reward, or ``None``) added first; with
    ``half_turn``, of its move alone (``carried`` not paid)."""
    side = Side.AGENT if learner == "agent" else Side.GHOST
    mine = 1 if side == Side.AGENT else 2
    found = []
    for after, *rewards in half_turns(kernel, state, side, action):
        paid = rewards[mine - 1] if half_turn else added(carried, rewards[mine - 1])
        if half_turn or after.outcome != Outcome.ONGOING:
            found.append((after, paid))
            continue
        for final, *answer in half_turns(kernel, after, Side.GHOST if side == Side.AGENT else Side.AGENT, None):
            found.append((final, added(carried, added(rewards[mine - 1], answer[mine - 1]))))
    return found


def _run(game: Any, seed: int | None, rng: np.random.Generator, steps: int = STEPS) -> list[Any]:
    """``reset(seed=seed)`` (skipped when ``seed`` is ``-1``), then ``steps`` turns of random
    actions; every result copied (the engine's buffers are overwritten by its next call)."""
    record = [] if seed == -1 else [copy.deepcopy(game.reset(seed=seed))]
    for _ in range(steps):
        for side in _calls(game):
            record.append(copy.deepcopy(_step(game, side)(_actions(game, side, rng))))
    return record


def _check_rows_in_space(space: Any, observations: Any, where: str) -> None:
    """Each row in ``space``; a team's row of every ghost (``[k, ...]``) ghost by ghost when the
    space is one ghost's."""
    for row, observation in enumerate(observations):
        parts = [observation] if np.shape(observation) == space.shape else list(observation)
        for part in parts:
            check_in_space(space, part, f"{where} {row}")


@contract("spaces")
def check_batched_spaces_and_masks(make_game: Callable[[], Any], seed: int = 0) -> None:
    """Every observed row lies in ``observation_space`` (final observations too; a team's row
    ghost by ghost where the space is one ghost's); ``action_masks`` of each observing side is
    ``int8[N, 4]`` (a team's ``int8[N, k, 4]``), the kernel's at each game's cells.

    Raises:
        AssertionError: ``"spaces: ..."`` or ``"masks: ..."``.
    """
    game = make_game()
    kernel, rng = kernel_of(game, game.layouts[0]), np.random.default_rng(seed)
    observations = game.reset(seed=seed)
    for turn in range(STEPS):
        for side in _calls(game):
            agents, ghosts = game.positions
            for name in observations:
                check_mask(game.action_masks(name), f"action_masks({name!r}) at turn {turn}",
                           kernel.action_masks[agents if name == "agent" else ghosts])
                _check_rows_in_space(game.observation_space, observations[name],
                                     f"{name}'s observation at turn {turn}: row")
            result = _step(game, side)(_actions(game, side, rng))
            observations = result.observations
            for name, finals in result.final_observations.items():
                _check_rows_in_space(game.observation_space, finals, f"{name}'s final observation")


@contract("determinism")
def check_batched_determinism(make_game: Callable[[], Any], seed: int = 0) -> None:
    """One seed, one run bit for bit; other seeds differ somewhere.

    Raises:
        AssertionError: ``"determinism: ..."``.
    """
    runs = [_run(make_game(), seed, np.random.default_rng(seed)) for _ in range(2)]
    check_seeded(runs, lambda other: _run(make_game(), other, np.random.default_rng(seed)), seed, 5,
                 "two engines reset with one seed", run="run")


@contract("zero-sum")
def check_batched_zero_sum(make_game: Callable[[], Any], seed: int = 0) -> None:
    """With two learners and the default rewards, both sides' rewards of every half-turn of every
    game sum to exactly 0, the agent's and each ghost's (one learner's engine sees one side and
    passes; so does a team with the catcher's credit).

    Raises:
        AssertionError: ``"zero-sum: ..."``.
    """
    game = make_game()
    if game.controlled is None:
        rng = np.random.default_rng(seed)
        check_sides_sum_to_zero(kernel_of(game, game.layouts[0]), _ghost_side(game), "call",
                                lambda: [result.rewards for result in _run(game, seed, rng)[1:]])


def check_sides_sum_to_zero(kernel: Any, ghosts: str, unit: str, run: Callable[[], Iterable[Mapping[str, Any]]]
                            ) -> None:
    """With the default rewards (the ghosts paid the agent's negated; a team with the team's
    credit), the two sides' rewards of every call of ``run()`` (each call's rewards by side:
    ``"agent"`` and ``ghosts``) sum to exactly 0 in every game, the agent's and each ghost's; other
    rewards pass, ``run`` not called.

    Raises:
        AssertionError: ``"zero-sum: ..."``, naming the ``unit`` (call, step) that does not.
    """
    if kernel.ghost_rewards != kernel.agent_rewards.negated() or kernel.credit != "team":
        return
    for call, rewards in enumerate(run()):
        check_zero_sum({"agent": rewards["agent"], ghosts: rewards[ghosts]}, f"{unit} {call}")


@contract("pickling")
def check_batched_pickle(make_game: Callable[[], Any], seed: int = 0) -> None:
    """An engine pickled mid-run and the engine itself go on identically.

    Raises:
        AssertionError: ``"pickling: ..."``.
    """
    game = make_game()
    _run(game, seed, np.random.default_rng(seed), steps=5)
    check_goes_on("pickling", game, lambda engine: _run(engine, -1, np.random.default_rng(seed + 1), steps=10),
                  "the engine", "mid-run")


@contract("refusals")
def check_batched_refusals(make_game: Callable[[], Any], seed: int = 0) -> None:
    """Actions of another shape (a team's ``int[N]``, one ghost's ``int[N, 1]``), dtype or range
    raise ``TypeError`` or ``ValueError`` and change nothing (the engine then runs on as a copy
    that never saw them).

    Raises:
        AssertionError: ``"refusals: ..."``.
    """
    game = make_game()
    _run(game, seed, np.random.default_rng(seed), steps=2)
    n, side = game.num_games, _calls(game)[0]
    shape = (n, game.ghosts) if side == "ghosts" else (n,)
    bad = [*bad_batches(shape, (n,) if side == "ghosts" else (n, 1)), np.full(shape, 0.5).tolist()]
    check_goes_on("refusals", game, lambda engine: _run(engine, -1, np.random.default_rng(seed + 1), steps=5),
                  "the engine", "mid-run",
                  [(functools.partial(_step(game, side), b), f"step({np.asarray(b).dtype}{np.shape(b)})") for b in bad])


def bad_batches(shape: tuple[int, ...], other: tuple[int, ...] | None = None, dtype: Any = np.int64
                ) -> list[np.ndarray]:
    """The batches of actions, of integer ``dtype``, that a batched step taking ``shape``
    (``int[N]``, a team's ``int[N, k]``) must refuse: moves out of range (4, -1), one game too
    many, ``float32`` and ``bool`` ones, and (given) ``other``'s shape (the other side's, or a
    column)."""
    bad = [np.full(shape, 4, dtype), np.full(shape, -1, dtype), np.zeros((shape[0] + 1, *shape[1:]), dtype),
           np.zeros(shape, np.float32), np.zeros(shape, bool)]
    return bad if other is None else [*bad, np.zeros(other, dtype)]


@contract("kernel")
def check_batched_autoreset_and_kernel(make_game: Callable[[], Any], seed: int = 0) -> None:
    """Every game plays the kernel's game and restarts as ``autoreset_mode`` says (see
    :func:`gridghost.testing.gymnasium_views.check_vector_autoreset_and_kernel`); with two learners
    each call is one half-turn of the kernel, a game that ended in the agent's half gets reward
    0 in the ghost's, and every game that ended restarts at the end of its turn, listed in
    ``final_games``.

    Raises:
        AssertionError: ``"kernel: ..."`` or ``"auto-reset: ..."``.
    """
    check_engine_moves(make_game(), seed)


def check_engine_moves(game: Any, seed: int, steps: int = STEPS, pay: Callable[[Any], Any] | None = None) -> None:
    """The kernel and auto-reset contracts of an engine ``game``, not yet reset (a
    :class:`~gridghost.batched.BatchedGame`, or a vector env or a JAX view seen as one), as
    :func:`check_batched_autoreset_and_kernel` says, for ``steps`` turns from ``seed``; with a
    true ``explore_starts`` a game may restart in any state with the agent off the goals and no
    ghost on its cell.

    Args:
        pay: a learner's reward as the engine pays it from the kernel's (a vector env's learning
            team: the mean); ``None``: the kernel's.

    Raises:
        AssertionError: ``"kernel: ..."`` or ``"auto-reset: ..."``.
    """
    kernel, rng = kernel_of(game, game.layouts[0]), np.random.default_rng(seed)
    learner = game.controlled or "agent"
    starts, opening = learner_starts(kernel, learner)

    def started(cells: tuple[int, tuple[int, ...]]) -> bool:
        if getattr(game, "explore_starts", False):  # any state with the agent off the goals and no ghost on its cell
            return not kernel.goals[cells[0]] and cells[0] not in cells[1]
        return cells in starts

    nothing = (0.0,) * game.ghosts if learner == "ghosts" else 0.0
    game.reset(seed=seed)
    n = game.num_games
    first, restarting, ended = np.ones(n, dtype=bool), np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
    for turn in range(steps):
        for side in _calls(game):
            before = [cells.copy() for cells in game.positions]
            actions = _actions(game, side, rng)
            result = _step(game, side)(actions)
            after = game.positions
            done = result.terminations | result.truncations
            rewards = result.rewards[learner if game.controlled else side]
            turn_over = side == _calls(game)[-1]
            for row in range(n):
                where = f"turn {turn}, {side}'s call, game {row}"
                cells = row_cells(after, row)
                reward = tuple(rewards[row].tolist()) if np.ndim(rewards[row]) else float(rewards[row])  # a team's
                reset_now = bool(done[row]) and turn_over and game.autoreset_mode == "same_step"
                if reset_now and not started(cells):
                    fail("auto-reset", f"{where}: a finished game restarts at the end of its turn; got {cells}")
                if restarting[row] or ended[row]:
                    paid = any(np.any(values[row] != 0.0) for values in result.rewards.values())  # any side's
                    if paid or (restarting[row] and (done[row] or not started(cells))):
                        fail("auto-reset", f"{where}: a finished game's next call restarts it with reward 0; got "
                                           f"cells {cells}, reward {reward}, done {done[row]}")
                    continue
                state, action = row_move(kernel, before, actions, row, side)
                check_move(kernel, state, side, action, (cells, reward, bool(result.terminations[row]), reset_now),
                           f"{where}, move {action} from {cells_of(state)}", game.controlled is None,
                           opening if first[row] else nothing, pay)
            if turn_over and game.autoreset_mode == "same_step" and \
                    not np.array_equal(result.final_games, np.flatnonzero(done)):
                fail("auto-reset", f"turn {turn}: final_games {result.final_games}, the games that ended "
                                   f"{np.flatnonzero(done)}")
            ended = done & (not turn_over)
            if turn_over:
                first = restarting.copy() if game.autoreset_mode == "next_step" else done.copy()
                restarting = done.copy() if game.autoreset_mode == "next_step" else restarting


def check_move(kernel: Any, state: Any, side: str, action: Any, seen: tuple[Any, Any, bool, bool], where: str,
               half_turn: bool = False, carried: Any = None, pay: Callable[[Any], Any] | None = None) -> None:
    """One game's call against the kernel: some outcome with a positive probability of ``side``'s
    ``action`` (a team's tuple) from ``state``, its half-turn (``half_turn``: paid its own
    reward) or its full turn (its move, then any answer; ``carried``, the opening reward or
    ``None``, paid first), is what the view showed.

    Args:
        seen: the view's ``(cells, reward, terminated, reset_now)``: the cells it reached (any
            when the game has just been reset), its reward (the outcome's as ``pay`` hands it
            out: a learning team's mean, ``float32``) and whether it ended.
        where: the call, for the message.

    Raises:
        AssertionError: ``"kernel: ..."``.
    """
    cells, reward, terminated, reset_now = seen
    outcomes = full_turns(kernel, state, side, action, carried, half_turn)
    outcomes = [(final, pay(paid)) for final, paid in outcomes] if pay is not None else outcomes
    for final, expected in outcomes:
        if ((reset_now or cells_of(final) == cells) and expected == reward
                and (final.outcome != Outcome.ONGOING) == terminated):
            return
    fail("kernel", f"{where}: led to cells {cells} with reward {reward}, terminated {terminated}; the kernel "
                   f"gives only {[(cells_of(f), r, f.outcome.name) for f, r in outcomes]}")


@contract("observations")
def check_batched_observations(make_game: Callable[[], Any], seed: int = 0, turns: int = 12) -> None:
    """Every game's row of every observing side's observations is that side's under the encoder
    of the engine's settings, applied to the game's state: its cells and the side to move (with
    two learners, the ghost after the agent's half-turn); in next-step mode a game that ended
    shows its final state (with two learners, the turn it restarts in is not compared), exactly
    (a belief map is held to a probability map). In same-step mode each final observation is the
    side's of a state the kernel can end that turn in, with the ends reported (a game that ended
    in the agent's half: the state it ended in). The arrays are the engine's buffers, which its
    next call overwrites, as documented: each is compared before that call.

    Raises:
        AssertionError: ``"observations: ..."``.
    """
    check_engine_observations(make_game(), seed, turns)


def check_engine_observations(game: Any, seed: int, turns: int, handed: HandedOut | None = None) -> None:
    """The observations contract of an engine ``game``, not yet reset (a
    :class:`~gridghost.batched.BatchedGame`, or a vector env or a JAX view seen as one), as
    :func:`check_batched_observations` says, for ``turns`` turns from ``seed``.

    Args:
        handed: keeps every batch handed out, to be checked unchanged at the end (a vector env's:
            no buffers of its own); ``None``: each batch is compared before the engine's next call.

    Raises:
        AssertionError: ``"observations: ..."``.
    """
    kernel = kernel_of(game, game.layouts[0])
    expected = Expected(game, game.layouts[0], obs_type=game.obs_type)
    rng, n, calls = np.random.default_rng(seed), game.num_games, _calls(game)
    two_sided, next_step = game.controlled is None, game.autoreset_mode == "next_step"
    ended, restarting, done_in_turn = (np.zeros(n, dtype=bool) for _ in range(3))
    to_move = np.zeros(n, dtype=np.int64)  # the agent's turn
    observations = game.reset(seed=seed)
    where = "after the reset"
    for turn in range(turns):
        for side in calls:
            for name, batch in observations.items():
                check_rows(expected, kernel, batch, game.positions, name, ended, where,
                            to_move if two_sided else None, restarting)
                if handed is not None:
                    handed.keep(batch, f"{name}'s observations {where}")
            before, ended_before = [cells.copy() for cells in game.positions], ended.copy()
            actions = _actions(game, side, rng)
            result = _step(game, side)(actions)
            observations, turn_over = result.observations, side == calls[-1]
            done_in_turn |= result.terminations | result.truncations
            where = f"turn {turn}, after the {side}'s call"
            for index, row in enumerate(result.final_games if result.final_observations else ()):
                state, action = row_move(kernel, before, actions, row, side)
                ended_in = Outcome.CAUGHT if state.agent in state.ghosts else Outcome.GOAL  # if it ended before
                finals = [state._replace(turn=Side.GHOST, outcome=ended_in)] if ended_before[row] else final_states(
                    kernel, state, side, action, bool(result.terminations[row]), two_sided)
                for name, final in result.final_observations.items():
                    for observer, observation in observers_of(kernel, name, final[index]):
                        check_final(expected, observation, observer, finals, f"{where}, game {row}")
            if two_sided and not turn_over:
                ended, to_move = result.terminations.copy(), np.ones(n, dtype=np.int64)
            else:
                ended, to_move = (ended & two_sided | result.terminations) & next_step, np.zeros(n, dtype=np.int64)
        if two_sided and next_step:  # the games that ended restart in the next turn
            restarting, done_in_turn = done_in_turn, np.zeros(n, dtype=bool)
    if handed is not None:
        handed.check()


def observers_of(kernel: Any, side: str, row: Any) -> list[tuple[str, Any]]:
    """``(observer name, observation)`` of one game's row of ``side``: the side's own, or a team's
    every ghost's by name."""
    if side == "ghosts":
        return list(zip(kernel.names, row, strict=True))
    return [(side, row)]


def check_rows(expected: Expected, kernel: Any, observations: np.ndarray, positions: Sequence[np.ndarray],
                side: str, ended: np.ndarray, where: str, to_move: np.ndarray | None,
                skipped: np.ndarray) -> None:
    """Every game's row of ``side``'s ``observations`` is :meth:`Expected.of` its state: its
    cells, over where ``ended`` (caught when a ghost is on the agent's cell, else the goal), else
    ``side`` to move (``to_move`` per game with two learners); rows where ``skipped`` is set are
    not compared.

    Raises:
        AssertionError: ``"observations: ..."``.
    """
    for row, observation in enumerate(observations):
        if skipped[row]:
            continue
        cells = row_cells(positions, row)
        turn = Side(int(to_move[row])) if to_move is not None else Side.AGENT if side == "agent" else Side.GHOST
        outcome = (Outcome.CAUGHT if cells[0] in cells[1] else Outcome.GOAL) if ended[row] else Outcome.ONGOING
        state = state_of(kernel, cells, turn, outcome)
        for observer, seen in observers_of(kernel, side, observation):
            expected.check(seen, expected.of(observer, state), f"{where}, game {row}: {observer}'s observation")


def final_states(kernel: Any, state: Any, side: str, action: Any, terminated: bool, half_turn: bool = False
                 ) -> list[Any]:
    """The states ``side``'s call (its half-turn, or its full turn) with ``action`` from ``state``
    can end in, ending the game exactly when ``terminated``."""
    outcomes = full_turns(kernel, state, side, action, half_turn=half_turn)
    return [after for after, _ in outcomes if (after.outcome != Outcome.ONGOING) == terminated]


#: The batched engine's checks, in the order :func:`batched_conformance` runs them.
BATCHED_CHECKS = (check_batched_spaces_and_masks, check_batched_determinism, check_batched_zero_sum,
                  check_batched_pickle, check_batched_refusals, check_batched_autoreset_and_kernel,
                  check_batched_observations)


@arguments_checked
def batched_conformance(make_game: Callable[[], Any], seed: int = 0) -> None:
    """Run every check of the batched engine (:data:`BATCHED_CHECKS`).

    For example, ``batched_conformance(lambda: BatchedGame(4, controlled=None))``.

    Args:
        make_game: returns a fresh :class:`~gridghost.batched.BatchedGame` (or an object with
            its API).
        seed: the first seed the checks use.

    Raises:
        TypeError, ValueError: a bad argument (naming it), before any check runs.
        AssertionError: the first contract that fails, named at the start of the message.
    """
    for check in BATCHED_CHECKS:
        check(make_game, seed)
