"""The contracts of the NumPy batched engine, :class:`gridghost.batched.BatchedGame`, with one
learner (``controlled="agent"`` or ``"ghost"``, full turns) or two (``controlled=None``,
half-turns), in either auto-reset mode.

Each check takes ``make_game``, a function of no arguments that returns a fresh engine, and raises
an ``AssertionError`` naming the contract that failed; :func:`batched_conformance` runs them all.
"""

from __future__ import annotations

import copy
import functools
import pickle
from collections.abc import Callable
from typing import Any

import numpy as np

from gridghost.core.rules import NUM_ACTIONS, GameState, Outcome, Side
from gridghost.testing.common import (
    arguments_checked,
    check_in_space,
    check_mask,
    check_outcome,
    check_refusal,
    check_same,
    check_seeded,
    contract,
    fail,
    kernel_of,
    start_states,
    successors_of,
    turn_outcomes,
)
from gridghost.testing.observing import Expected, check_batch, check_final

#: The calls the checks make per run.
STEPS = 40


def _calls(game: Any) -> list[str]:
    """The sides whose step methods one turn calls: the learner's, or the agent's then the ghost's."""
    return ["agent", "ghost"] if game.controlled is None else [game.controlled]


def _run(game: Any, seed: int | None, rng: np.random.Generator, steps: int = STEPS) -> list[Any]:
    """``reset(seed=seed)`` (skipped when ``seed`` is ``-1``), then ``steps`` turns of random
    actions; every result copied (the engine's buffers are overwritten by its next call)."""
    record = [] if seed == -1 else [copy.deepcopy(game.reset(seed=seed))]
    for _ in range(steps):
        for side in _calls(game):
            step = getattr(game, f"step_{side}")
            record.append(copy.deepcopy(step(rng.integers(NUM_ACTIONS, size=game.num_games))))
    return record


@contract("spaces")
def check_batched_spaces_and_masks(make_game: Callable[[], Any], seed: int = 0) -> None:
    """Every observed row lies in ``observation_space`` (final observations too); ``action_masks``
    of each observing side is ``int8[N, 4]``, the kernel's at each game's cell.

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
                for row, observation in enumerate(observations[name]):
                    check_in_space(game.observation_space, observation, f"{name}'s observation {row} at turn {turn}")
            result = getattr(game, f"step_{side}")(rng.integers(NUM_ACTIONS, size=game.num_games))
            observations = result.observations
            for name, finals in result.final_observations.items():
                for row, observation in enumerate(finals):
                    check_in_space(game.observation_space, observation, f"{name}'s final observation {row}")


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
    game sum to exactly 0 (one learner's engine sees one side and passes).

    Raises:
        AssertionError: ``"zero-sum: ..."``.
    """
    game = make_game()
    if game.controlled is not None or kernel_of(game, game.layouts[0]).ghost_rewards != \
            kernel_of(game, game.layouts[0]).agent_rewards.negated():
        return
    for call, result in enumerate(_run(game, seed, np.random.default_rng(seed))[1:]):
        total = result.rewards["agent"] + result.rewards["ghost"]
        if total.any():
            fail("zero-sum", f"call {call}: the sides' rewards sum to {total}, not 0")


@contract("pickling")
def check_batched_pickle(make_game: Callable[[], Any], seed: int = 0) -> None:
    """An engine pickled mid-run and the engine itself go on identically.

    Raises:
        AssertionError: ``"pickling: ..."``.
    """
    game = make_game()
    _run(game, seed, np.random.default_rng(seed), steps=5)
    try:
        clone = pickle.loads(pickle.dumps(game))
    except Exception as error:
        fail("pickling", f"the engine does not pickle mid-run: {type(error).__name__}: {error}")
    rest = [_run(engine, -1, np.random.default_rng(seed + 1), steps=10) for engine in (game, clone)]
    check_same("pickling", rest[0], rest[1], "the engine and its unpickled copy")


@contract("refusals")
def check_batched_refusals(make_game: Callable[[], Any], seed: int = 0) -> None:
    """Actions of another shape, dtype or range raise ``TypeError`` or ``ValueError`` and change
    nothing (the engine then runs on as a copy that never saw them).

    Raises:
        AssertionError: ``"refusals: ..."``.
    """
    game = make_game()
    _run(game, seed, np.random.default_rng(seed), steps=2)
    untouched = pickle.loads(pickle.dumps(game))
    n, step = game.num_games, getattr(game, f"step_{_calls(game)[0]}")
    for bad in (np.full(n, 4), np.full(n, -1), np.zeros(n + 1, dtype=np.int64), np.zeros(n, dtype=np.float32),
                np.zeros((n, 1), dtype=np.int64), np.zeros(n, dtype=bool), [0.5] * n):
        check_refusal("refusals", functools.partial(step, bad), f"step({np.asarray(bad).dtype}{np.shape(bad)})")
    rest = [_run(engine, -1, np.random.default_rng(seed + 1), steps=5) for engine in (game, untouched)]
    check_same("refusals", rest[0], rest[1], "after refused actions, the engine against a copy that saw none")


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
    game = make_game()
    kernel, rng = kernel_of(game, game.layouts[0]), np.random.default_rng(seed)
    learner = game.controlled or "agent"
    starts = start_states(kernel, learner)
    opening = kernel.rewards(Side.AGENT, Outcome.ONGOING)[1] if learner == "ghost" else 0.0
    game.reset(seed=seed)
    n = game.num_games
    first, restarting, ended = np.ones(n, dtype=bool), np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
    for turn in range(STEPS):
        for side in _calls(game):
            before = [cells.copy() for cells in game.positions]
            actions = rng.integers(NUM_ACTIONS, size=n)
            result = getattr(game, f"step_{side}")(actions)
            after = game.positions
            done = result.terminations | result.truncations
            rewards = result.rewards[learner if game.controlled else side]
            turn_over = side == _calls(game)[-1]
            for row in range(n):
                where = f"turn {turn}, {side}'s call, game {row}"
                cells = (int(after[0][row]), int(after[1][row]))
                reset_now = bool(done[row]) and turn_over and game.autoreset_mode == "same_step"
                if reset_now and cells not in starts:
                    fail("auto-reset", f"{where}: a finished game restarts at the end of its turn; got {cells}")
                if restarting[row] or ended[row]:
                    if rewards[row] != 0.0 or (restarting[row] and (done[row] or cells not in starts)):
                        fail("auto-reset", f"{where}: a finished game's next call restarts it with reward 0; got "
                                           f"cells {cells}, reward {rewards[row]}, done {done[row]}")
                    continue
                mover = Side.AGENT if side == "agent" else Side.GHOST
                state = GameState(int(before[0][row]), int(before[1][row]), mover)
                if game.controlled is None:
                    own = 0 if side == "agent" else 1
                    outcomes = [(s, r[own]) for s, *r in successors_of(kernel, state, state.turn, int(actions[row]))]
                else:
                    carried = opening if first[row] else 0.0
                    outcomes = [(s, carried + r) for s, r in turn_outcomes(kernel, state, side, int(actions[row]))]
                check_outcome(outcomes, cells, rewards[row], result.terminations[row], reset_now,
                              f"{where}, move {actions[row]} from {(state.agent, state.ghost)}")
            if turn_over and game.autoreset_mode == "same_step" and \
                    not np.array_equal(result.final_games, np.flatnonzero(done)):
                fail("auto-reset", f"turn {turn}: final_games {result.final_games}, the games that ended "
                                   f"{np.flatnonzero(done)}")
            ended = done & (not turn_over)
            if turn_over:
                first = restarting.copy() if game.autoreset_mode == "next_step" else done.copy()
                restarting = done.copy() if game.autoreset_mode == "next_step" else restarting


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
    game = make_game()
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
                check_batch(expected, batch, game.positions, name, ended, where, to_move if two_sided else None,
                            restarting)
            before, ended_before = [cells.copy() for cells in game.positions], ended.copy()
            actions = rng.integers(NUM_ACTIONS, size=n)
            result = getattr(game, f"step_{side}")(actions)
            observations, turn_over = result.observations, side == calls[-1]
            done_in_turn |= result.terminations | result.truncations
            where = f"turn {turn}, after the {side}'s call"
            for index, row in enumerate(result.final_games):
                cells = (int(before[0][row]), int(before[1][row]))
                finals = [_ended_state(*cells)] if ended_before[row] else _final_states(
                    kernel, cells, side, int(actions[row]), bool(result.terminations[row]), two_sided)
                for name, final in result.final_observations.items():
                    check_final(expected, final[index], name, finals, f"{where}, game {row}")
            if two_sided and not turn_over:
                ended, to_move = result.terminations.copy(), np.ones(n, dtype=np.int64)
            else:
                ended, to_move = (ended & two_sided | result.terminations) & next_step, np.zeros(n, dtype=np.int64)
        if two_sided and next_step:  # the games that ended restart in the next turn
            restarting, done_in_turn = done_in_turn, np.zeros(n, dtype=bool)


def _ended_state(agent: int, ghost: int) -> GameState:
    """The state a game ended in with the agent and the ghost on these cells: caught or at the goal."""
    return GameState(agent, ghost, Side.GHOST, Outcome.CAUGHT if agent == ghost else Outcome.GOAL)


def _final_states(kernel: Any, cells: tuple[int, int], side: str, action: int, terminated: bool,
                  half_turn: bool) -> list[GameState]:
    """The states ``side``'s call (its half-turn, or its full turn) with ``action`` from ``cells``
    can end in, ending the game exactly when ``terminated``."""
    state = GameState(*cells, Side.AGENT if side == "agent" else Side.GHOST)
    outcomes = [after for after, *_ in successors_of(kernel, state, state.turn, action)] if half_turn \
        else [after for after, _ in turn_outcomes(kernel, state, side, action)]
    return [after for after in outcomes if (after.outcome != Outcome.ONGOING) == terminated]


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
