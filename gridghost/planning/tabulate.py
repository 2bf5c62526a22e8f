"""Policies of observations as state policies: :func:`tabulate_policy` asks a policy once per
state, with the observation the env's own encoder gives there, so that a network trained on
``obs_type="vector"`` gets an exact ground truth from the solver
(:func:`~gridghost.planning.solve.exploitability`, :func:`~gridghost.planning.solve.evaluate_policies`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from gridghost.core.checks import check_action, check_choice
from gridghost.core.game import Game
from gridghost.core.layout import Layout
from gridghost.core.rules import NUM_ACTIONS, GameState, Outcome, Side
from gridghost.planning.arguments import solver_game
from gridghost.planning.model import turn_model
from gridghost.planning.policy import one_hot
from gridghost.sensing.observations import make_observations


def tabulate_policy(policy: Callable[[Any], Any], side: str = "agent", layout: Layout | None = None,
                    obs_type: str | None = None, batch: bool = False, stochastic: bool = False, *,
                    game: Game | None = None, config: Any = None) -> np.ndarray:
    """A policy of observations as a state policy: asked once per state where the game goes on,
    with the observation the env's own encoder gives that side there, so that a network trained
    on ``obs_type="vector"`` gets an exact :func:`~gridghost.planning.solve.exploitability`. The
    ghost is asked with the ghost to move. The policy must be memoryless.

    >>> from gridghost.core.policies import ChasePolicy
    >>> from gridghost.planning import exploitability
    >>> table = tabulate_policy(ChasePolicy(), "ghost", obs_type="dict")
    >>> exploitability("random", table) == exploitability("random", "chase")
    True

    Args:
        policy: ``policy(observation) -> action``; with ``batch``, ``policy(observations) ->
            actions`` over a stacked ``[n, ...]`` array (for Stable-Baselines3, ``lambda obs:
            model.predict(obs, deterministic=True)[0]``). With ``stochastic`` it returns the
            action probabilities instead (``float[4]``, or ``[n, 4]`` with ``batch``).
        side: ``"agent"`` or ``"ghost"``.
        layout: the map; ``None`` means the classic map (or ``game``'s).
        obs_type: the encoding the policy reads, ``"vector"`` or ``"dict"`` (a belief is not a
            function of the state); ``None`` means ``"vector"`` (or the deprecated ``config``'s).
        batch: ask once with every observation stacked (``"vector"`` only).
        stochastic: the policy returns probabilities, not actions (a deterministic policy's
            draw would be tabulated as if it were its only choice).
        game: the game (a :class:`~gridghost.core.game.Game`, such as
            ``env.unwrapped.config.game()``) instead of ``layout``.
        config: deprecated (a :class:`DeprecationWarning`): an env's settings, read as
            ``game=config.game()`` and, when ``obs_type`` is ``None``, ``obs_type=config.obs_type``.

    Returns:
        Probabilities ``float64[rows, cols, rows, cols, 4]`` (0 where the game is over), the form
        every solver function takes for a policy of ``side``.

    Raises:
        TypeError: ``policy`` is not callable, or returns something other than actions
            (probabilities).
        ValueError: an unknown side or encoding, ``batch`` with ``"dict"``, actions out of range,
            probabilities that are not a distribution, or the wrong number of answers; the
            message names the state. Also ``game`` together with ``layout``, or a game without
            the ghost.
    """
    if not callable(policy):
        raise TypeError(f"policy must be a callable policy(observation) -> action, got {policy!r}")
    check_choice(side, "side", ("agent", "ghost"))
    game = solver_game(layout, game=game, config=config)
    if obs_type is None:
        obs_type = "vector" if config is None else config.obs_type
    check_choice(obs_type, "obs_type", ("vector", "dict"))
    if batch and obs_type != "vector":
        raise ValueError("batch=True stacks vector observations; use obs_type='vector'")
    mover = Side.AGENT if side == "agent" else Side.GHOST
    model = turn_model(game)
    observe = make_observations(obs_type, game.board).observer(mover)
    cols, cells = game.layout.cols, game.num_cells
    pairs = list(zip(*(a.tolist() for a in np.divmod(model.states, cells)), strict=True))
    observations = [observe(GameState(agent, ghost, mover, Outcome.ONGOING)) for agent, ghost in pairs]

    def where(i: int) -> str:
        agent, ghost = pairs[i]
        return f"the {side} at agent {divmod(agent, cols)}, ghost {divmod(ghost, cols)}"

    if batch:
        answers = [policy(np.stack([np.asarray(observation) for observation in observations]))]
    else:
        answers = [policy(observation) for observation in observations]
    if stochastic:
        try:
            table = np.asarray(answers, dtype=float).reshape(len(pairs), NUM_ACTIONS)
        except ValueError:  # ragged, or the wrong number of probabilities
            raise ValueError(f"policy must return {NUM_ACTIONS} probabilities per observation "
                             f"({len(pairs)} observations)") from None
        bad = np.flatnonzero(~np.isfinite(table).all(axis=1) | (table < 0).any(axis=1)
                             | (np.abs(table.sum(axis=1) - 1.0) > 1e-6))
        if len(bad):
            raise ValueError(f"policy's probabilities for {where(int(bad[0]))} are not a distribution: {table[bad[0]]}")
        return model.expand(table)
    if batch:
        actions = np.asarray(answers[0])
        if actions.size != len(pairs) or not np.issubdtype(actions.dtype, np.integer):
            raise TypeError(f"policy must return {len(pairs)} integer actions for {len(pairs)} observations, "
                            f"got an array of shape {actions.shape} and dtype {actions.dtype}")
        actions = actions.reshape(-1).astype(np.int64)
        bad = np.flatnonzero((actions < 0) | (actions >= NUM_ACTIONS))
        if len(bad):
            raise ValueError(f"policy returned action {actions[bad[0]]} for {where(int(bad[0]))}; "
                             f"actions are 0..{NUM_ACTIONS - 1}")
    else:
        actions = np.empty(len(pairs), dtype=np.int64)
        for i, answer in enumerate(answers):
            try:
                actions[i] = check_action(_scalar(answer), side)
            except (TypeError, ValueError) as error:  # out of range, or not an action at all
                raise type(error)(
                    f"policy returned {answer!r} for {where(i)}; it must return an action 0..{NUM_ACTIONS - 1}"
                ) from None
    return model.expand(one_hot(actions).T)


def _scalar(action: Any) -> Any:
    # Stable-Baselines3's predict returns a 0-d or 1-element array for one observation.
    if isinstance(action, np.ndarray) and action.size == 1:
        return action.reshape(()) if action.ndim else action
    return action
