"""The opponent agent's answer to a learning team of ghosts, chosen before the team's move is
carried out: the team Gymnasium view and the ghosts-only parallel env (``controlled="ghosts"``).

A ghost's move draws nothing at random, so the state it leads to is known before it is carried
out. The opponent's answer is chosen on that state first; an answer that is no move is refused,
naming ``opponent``, before anything changes, and the draws the policy made from the action
space it was given are undone. A following valid step then plays as if the call had not been
made (a policy's own generator, or any other state it keeps, is its own).

The one-ghost Gymnasium view (``controlled="ghost"``) keeps its step as fast as it was: it asks
the opponent after the ghost's move, refuses a bad answer by the same name
(:func:`checked_answer`), and then asks for a ``reset`` before any further step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gymnasium import spaces

from gridghost.core.checks import check_action
from gridghost.core.episode import cycle_limit
from gridghost.core.policies import ReferencePolicy
from gridghost.core.rules import NUM_ACTIONS, Outcome
from gridghost.envs.aec import GridGhostEnv


def ghosts_move_ends(game: GridGhostEnv, moved: Any) -> bool:
    """Whether the ghosts' move from ``game``'s current state, leading to ``moved``, ends the
    episode: a catch, or the game's ``max_cycles`` reached (the move completes a cycle).

    Args:
        game: the AEC game, the ghosts to move.
        moved: the state the ghosts' move leads to.

    Returns:
        ``True`` when the opponent agent does not answer the move.
    """
    return bool(moved.outcome != Outcome.ONGOING or game.cycles + 1 >= cycle_limit(game.max_cycles))


def checked_answer(policy: Callable[[Any], Any], observation: Any, space: spaces.Space[Any]) -> int:
    """The opponent agent's answer to ``observation``, as an int in 0..3.

    Args:
        policy: the opponent agent's policy.
        observation: what it sees.
        space: the action space it draws from (seeded by the env), if it does.

    Returns:
        The answer.

    Raises:
        TypeError, ValueError: the answer is not an int in 0..3 (named ``opponent``); the draws
            from ``space`` are undone first.
    """
    # make_policy hands the env's space to a reference-style class only (behind a ReferencePolicy)
    stream = space.np_random.bit_generator if type(policy) is ReferencePolicy else None
    drawn = None if stream is None else stream.state
    answer = policy(observation)
    if type(answer) is int and 0 <= answer < NUM_ACTIONS:
        return answer
    try:
        return check_action(answer, "opponent")
    except (TypeError, ValueError) as error:
        if stream is not None and drawn is not None:
            stream.state = drawn
        raise type(error)(f"opponent must answer with a move, an int in 0..{NUM_ACTIONS - 1}; it "
                          f"answered {answer!r}") from None
