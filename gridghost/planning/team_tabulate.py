"""A team's policy of observations as a state policy: :func:`tabulate_team_policy` asks a learned
team once per state, with each ghost's observation as the team view it was trained on gives it
(:data:`TEAM_TABULATED_VIEWS`), so that the team solver scores it exactly
(:func:`~gridghost.planning.evaluate_team_policies`, :func:`~gridghost.planning.team_ghosts_exploitability`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gridghost.core.checks import check_choice
from gridghost.core.game import Game
from gridghost.core.names import NUM_ACTIONS, ghost_names
from gridghost.core.rules import GameState, Outcome, Side
from gridghost.planning.tabulate import policy_answer
from gridghost.sensing.observations import make_observations

#: The encodings :func:`tabulate_team_policy` stacks: those whose observation is an array and a
#: function of the state.
TEAM_TABULATED_OBS_TYPES: tuple[str, ...] = ("vector", "grid")
#: The team views whose ghosts' observations :func:`tabulate_team_policy` hands a policy: the team
#: Gymnasium view's and the AEC env's (the same), or the parallel env's, which say whether the
#: observer moves next (one more ``"vector"`` slot; ``"grid"`` says it already).
TEAM_TABULATED_VIEWS: tuple[str, ...] = ("gym", "aec", "parallel")


def live_team_states(game: Game) -> np.ndarray:
    """Every joint state where the game goes on, as rows ``(agent cell, ghost 0's, ...)``:
    ``int64[n, k + 1]`` in row-major order of the state index."""
    cells = game.num_cells
    grid = np.array(list(itertools.product(range(cells), repeat=game.ghosts + 1)), dtype=np.int64)
    over = game.goals[grid[:, 0]] | (grid[:, 1:] == grid[:, :1]).any(axis=1)
    return grid[~over]


def tabulate_team_policy(policy: Callable[[Any], Any] | Sequence[Callable[[Any], Any]], game: Any = None, *,
                         spec: Any = None, obs_type: str | None = None, centralised: bool = False,
                         view: str = "gym", **encoding: Any) -> np.ndarray:
    """A learned team as a state policy: every ghost asked in every state where the game goes
    on, with the team to move, with the observation the team env gives it there.

    Args:
        policy: what answers, over stacked observations (a Stable-Baselines3 model's
            ``lambda obs: model.predict(obs, deterministic=True)[0]``):
            - one callable ``policy(observations[n, ...]) -> actions[n]`` (or the column
              ``[n, 1]`` some ``predict()`` return), shared by every ghost (independent learners
              with shared parameters), or a sequence of ``k`` of them, ghost ``i``'s at index
              ``i``;
            - with ``centralised=True``, one callable ``policy(observations[n, k, ...]) ->
              actions[n, k]`` over the team's stacked observations, as the team Gymnasium view
              (``controlled="ghosts"``) gives them.
        game: the team's :class:`~gridghost.core.game.Game`; or ``spec=``, its settings
            (read as ``spec.game()``; its encoding and options are the defaults of ``obs_type``
            and ``**encoding``).
        obs_type: ``"vector"`` or ``"grid"``; ``None`` means the spec's, or ``"vector"``.
        centralised: see ``policy``.
        view: the view the policy was trained on, whose ghosts' observations it is handed, one
            of :data:`TEAM_TABULATED_VIEWS`: ``"gym"`` (the team Gymnasium view's, each ghost's
            observation in the stack) or ``"aec"`` (the AEC env's; the same observations), or
            ``"parallel"`` (:func:`gridghost.parallel_env`'s, which say whether the observer
            moves next: a ``"vector"`` observation has one more slot, 1 here).
        **encoding: the encoding's options, as the envs take them (``view_radius``,
            ``grid_layout``); ``append_step_count`` and ``action_mask_in_obs`` are refused, as a
            step count is not a function of the state and a mask makes no stacked array (a spec's
            ``max_cycles`` is left out).

    Returns:
        ``int64[(rows, cols) * (k + 1) + (k,)]``: each ghost's move in every state (0 where the
        game is over), the per-ghost table form every team solver function takes.

    Raises:
        TypeError: ``policy`` is not callable (or not ``k`` callables), ``game`` is not a team
            game, or the answers are not integer arrays of exactly the shape above (``[k, n]``
            or a flat ``[n * k]`` for ``[n, k]`` is refused, never reshaped); the message gives
            the shape got and the shape expected.
        ValueError: an encoding or view that is not served, both or neither of ``game``/``spec``,
            or an answer outside 0..3 (naming the state).
    """
    if (game is None) == (spec is None):
        raise ValueError("pass the team's game as game= or its settings as spec=, one of the two")
    if spec is not None:
        encoding = {**{key: value for key, value in spec.encoder_options().items() if key != "max_cycles"},
                    **encoding}
        game = spec.game()
        obs_type = spec.obs_type if obs_type is None else obs_type
    obs_type = "vector" if obs_type is None else obs_type
    if not isinstance(game, Game) or game.ghosts < 2:
        raise TypeError(f"game must be a gridghost.core.game.Game of ghosts >= 2 (spec= with ghosts >= 2), "
                        f"got {game!r}")
    check_choice(obs_type, "obs_type", TEAM_TABULATED_OBS_TYPES)
    check_choice(view, "view", TEAM_TABULATED_VIEWS)
    if encoding.get("append_step_count") or encoding.get("action_mask_in_obs"):
        raise ValueError("append_step_count and action_mask_in_obs are not tabulated: the step count is not a "
                         "function of the state, and a policy reads stacked arrays")
    k, names = game.ghosts, ghost_names(game.ghosts)
    policies = _policies(policy, k, centralised)
    states = live_team_states(game)
    encoder = make_observations(obs_type, game.board, ghosts=k, both_observe=view == "parallel", **encoding)
    observers = [encoder.observer(name) for name in names]
    # [n, k, ...]; an encoder may return its own buffer: each observation is copied as it comes
    observations = np.stack([
        np.stack([np.array(observe(GameState(int(row[0]), tuple(int(c) for c in row[1:]), Side.GHOST,
                                             Outcome.ONGOING))) for observe in observers])
        for row in states
    ])
    if centralised:
        actions = _checked(policies[0](observations), (len(states), k), states, game)
    else:
        actions = np.stack([_checked(ask(observations[:, i]), (len(states),), states, game, i)
                            for i, ask in enumerate(policies)], axis=1)
    table = np.zeros(((game.num_cells,) * (k + 1)) + (k,), dtype=np.int64)
    table[tuple(states.T)] = actions
    return table.reshape(game.layout.shape * (k + 1) + (k,))


def _policies(policy: Any, k: int, centralised: bool) -> list[Callable[[Any], Any]]:
    """The callables to ask: one (shared, or centralised) or one per ghost."""
    if callable(policy):
        return [policy] if centralised else [policy] * k
    if centralised:
        raise TypeError(f"policy must be one callable with centralised=True, got {policy!r}")
    if isinstance(policy, Sequence) and len(policy) == k and all(callable(one) for one in policy):
        return list(policy)
    raise TypeError(f"policy must be a callable policy(observations) -> actions, or {k} of them (one per ghost), "
                    f"got {policy!r}")


def _checked(answer: Any, shape: tuple[int, ...], states: np.ndarray, game: Game, ghost: int | None = None) -> Any:
    """The policy's ``answer`` as ``int64[shape]`` actions, checked."""
    who = "the team" if ghost is None else f"ghost {ghost}"
    # one ghost's answer may be the column [n, 1] some predict() return; the team's is [n, k] exactly
    actions = policy_answer(answer, shape, f"the actions of {who}, one row per state", column=ghost is not None)
    actions = actions.astype(np.int64)
    bad = np.argwhere((actions < 0) | (actions >= NUM_ACTIONS))
    if len(bad):
        row = states[bad[0][0]]
        where = [game.board.position(int(cell)) for cell in row]
        raise ValueError(f"policy returned action {actions[tuple(bad[0])]} for {who} with the agent at {where[0]} "
                         f"and the ghosts at {where[1:]}; actions are 0..{NUM_ACTIONS - 1}")
    return actions
