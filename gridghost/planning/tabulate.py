"""Policies of observations as state policies: :func:`tabulate_policy` asks a policy once per
state, with the observation the env's own encoder gives there, so that a network trained on any
encoding gets an exact ground truth from the solver
(:func:`~gridghost.planning.exploitability`, :func:`~gridghost.planning.solve.evaluate_policies`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gridghost.core.checks import check_action, check_choice
from gridghost.core.game import Game
from gridghost.core.layout import Layout
from gridghost.core.names import ghost_names
from gridghost.core.rules import NUM_ACTIONS, GameState, Outcome, Side
from gridghost.planning.arguments import solver_game
from gridghost.planning.model import turn_model
from gridghost.planning.policy import one_hot
from gridghost.sensing.observations import make_observations

#: The encodings :func:`tabulate_policy` reads: every one whose observation is a function of the
#: state (the belief encodings with ``belief="located"``).
TABULATED_OBS_TYPES: tuple[str, ...] = ("vector", "dict", "grid", "text", "belief_vector", "belief")
#: The encodings ``batch=True`` stacks into one array.
_ARRAY_OBS_TYPES = ("vector", "grid", "belief_vector")
#: The encodings a team of ``k >= 2`` ghosts is tabulated with (arrays, functions of the state).
TEAM_TABULATED_OBS_TYPES: tuple[str, ...] = ("vector", "grid")
#: The views whose ghosts' observations a team's policy is handed: the Gymnasium view's and the AEC
#: env's (the same), or the parallel env's, which say whether the observer moves next.
TEAM_TABULATED_VIEWS: tuple[str, ...] = ("gym", "aec", "parallel")


def tabulate_policy(policy: Callable[[Any], Any], side: str = "agent", layout: Layout | None = None,
                    obs_type: str | None = None, batch: bool = False, stochastic: bool = False, *,
                    game: Game | None = None, spec: Any = None, config: Any = None, belief: str | None = None,
                    centralised: bool = False, view: str = "gym", **encoding: Any) -> np.ndarray:
    """A policy of observations as a state policy: asked once per state where the game goes on,
    with the observation the env's own encoder gives that side there, so that a network trained
    on any encoding (``"vector"``, whole-map or egocentric ``"grid"``, ...) gets an exact
    :func:`~gridghost.planning.exploitability` and evaluation. The ghost is asked with the
    ghost to move. The policy must be memoryless.

    >>> from gridghost.core.policies import ChasePolicy
    >>> from gridghost.planning import exploitability
    >>> table = tabulate_policy(ChasePolicy(), "ghost", obs_type="dict")
    >>> exploitability("random", table) == exploitability("random", "chase")
    True

    Args:
        policy: ``policy(observation) -> action``; for a team of ``k >= 2`` ghosts see
            :func:`tabulate_team`, which this calls (``batch=True`` and ``side="ghost"`` required,
            ``centralised`` and ``view`` its options); with ``batch``, ``policy(observations) ->
            actions[n]`` (or the column ``[n, 1]``) over a stacked ``[n, ...]`` array (for
            Stable-Baselines3, ``lambda obs: model.predict(obs, deterministic=True)[0]``). With
            ``stochastic`` it returns the action probabilities instead (``float[4]``, or
            ``[n, 4]`` with ``batch``). An answer of another shape is refused, never reshaped.
        side: ``"agent"`` or ``"ghost"``; the agent of a team game is asked with the team
            views' agent observation (``"vector"`` or ``"grid"``).
        layout: the map; ``None`` means the classic map (or ``game``'s).
        obs_type: the encoding the policy reads, one of :data:`TABULATED_OBS_TYPES`; ``None``
            means ``"vector"`` (or the deprecated ``config``'s).
        batch: ask once with every observation stacked (``"vector"``, ``"grid"`` and
            ``"belief_vector"``).
        stochastic: the policy returns probabilities, not actions (a deterministic policy's
            draw would be tabulated as if it were its only choice).
        game: the game (a :class:`~gridghost.core.game.Game`, such as
            ``env.unwrapped.config.game()``) instead of ``layout``.
        spec: the game's settings instead (a :class:`gridghost.GameSpec`), read as
            ``game=spec.game()``; its encoding is the default ``obs_type``.
        config: deprecated (a :class:`DeprecationWarning`): an env's settings, read as
            ``game=config.game()`` and, when ``obs_type`` is ``None``, ``obs_type=config.obs_type``.
        **encoding: the encoding's options, as the envs take them and
            :func:`~gridghost.sensing.observations.make_observations` checks them (an egocentric
            window, channels first or last, the mask wrapped in; a spec's
            ``encoder_options()`` without ``max_cycles``).
        belief: the belief encodings only, and required with them: ``"located"`` asks the
            policy with the belief of an agent that knows its cell (all mass on it). A belief
            is a function of the sensor readings, not of the state, so no table is exact for the
            env's filter under noisy sensors; this one is exact for a localised agent, which is
            what the filter converges to when the readings identify the cell.

    Returns:
        Probabilities ``float64[rows, cols, rows, cols, 4]`` (0 where the game is over), the form
        every solver function takes for a policy of ``side``; for a team, as :func:`tabulate_team`.

    Raises:
        TypeError: ``policy`` is not callable, or returns something other than actions
            (probabilities); with ``batch``, actions of another shape.
        ValueError: an unknown side or encoding, ``batch`` with an encoding that is not an
            array, a belief encoding without ``belief="located"`` (or ``belief`` with another
            encoding), bad encoding options, actions out of range, probabilities that are not a
            distribution, or probabilities of another shape; the message names the state. Also
            ``game`` together with ``layout``, or a game without the ghost; ``centralised`` or
            ``view`` for one ghost, and for a team ``batch=False``, ``stochastic`` or the agent's side.
    """
    game = solver_game(layout, game=game, spec=spec, config=config)
    if game.ghosts > 1 and side != "agent":
        if side != "ghost" or not batch or stochastic:
            raise ValueError("a team of ghosts is tabulated with side='ghost' and batch=True (its policy is asked "
                             "over stacked observations), and deterministic answers (stochastic=False)")
        if belief is not None:
            raise ValueError(f"belief applies to the belief encodings, which a team's ghosts are not asked with "
                             f"(obs_type one of {list(TEAM_TABULATED_OBS_TYPES)}); got belief={belief!r}: "
                             "leave it None")
        if spec is not None:
            encoding = {**{key: value for key, value in spec.encoder_options().items() if key != "max_cycles"},
                        **encoding}
        return tabulate_team(policy, game, spec.obs_type if obs_type is None and spec is not None else obs_type,
                             centralised, view, **encoding)
    if centralised or view != "gym":
        raise ValueError(f"centralised and view apply to a team of ghosts' policy; this is one ghost's or the agent's "
                         f"(got centralised={centralised!r}, view={view!r})")
    if obs_type is None:
        given = spec if spec is not None else config
        obs_type = "vector" if given is None else given.obs_type
    states = StateObservations(game, side, obs_type, belief=belief, **encoding)
    return states.tabulate(policy, batch=batch, stochastic=stochastic)


class StateObservations:
    """Every live state of a game with the observation one side's encoder gives there (that
    side to move): what :func:`tabulate_policy` asks a policy with, kept so that the same states
    can be asked of many policies (a learning curve's checkpoints; see
    :class:`gridghost.training.Evaluator`). Arrays of 0s and 1s (grids) are kept as bits.

    Args:
        game: the game (with the ghost).
        side, obs_type, belief, **encoding: as :func:`tabulate_policy` takes them.

    Attributes:
        model: the game's :class:`~gridghost.planning.model.TurnModel`; its ``states`` are the rows.
        pairs: ``(agent cell, ghost cell)`` of every row (a tuple of ghost cells for a team).

    Raises:
        ValueError: as :func:`tabulate_policy`, for the side and the encoding.
    """

    def __init__(self, game: Game, side: str, obs_type: str, *, belief: str | None = None, **encoding: Any) -> None:
        check_choice(side, "side", ("agent", "ghost"))
        check_choice(obs_type, "obs_type", TABULATED_OBS_TYPES)
        if obs_type in ("belief", "belief_vector"):
            if belief != "located":
                raise ValueError(f"obs_type={obs_type!r} shows a belief, which is not a function of the state: pass "
                                 "belief='located' to ask the policy as an agent that knows its cell")
        elif belief is not None:
            raise ValueError(f"belief only applies to the belief encodings; got obs_type={obs_type!r} with "
                             f"belief={belief!r}; leave it None")
        self.side, self.obs_type = side, obs_type
        self.stackable = obs_type in _ARRAY_OBS_TYPES and not encoding.get("action_mask_in_obs", False)
        mover = Side.AGENT if side == "agent" else Side.GHOST
        self.model = turn_model(game)
        self._cols, k = game.layout.cols, self.model.ghosts
        if k > 1:  # a team game's agent (the team's own policy is tabulate_team's)
            check_choice(side, "side", ("agent",))
            check_choice(obs_type, "obs_type", TEAM_TABULATED_OBS_TYPES)
        ghosts = [cells[0] if k == 1 else tuple(cells) for cells in self.model.ghost_cells.tolist()]
        self.pairs: list[tuple[int, Any]] = list(zip(self.model.agents.tolist(), ghosts, strict=True))
        located = np.zeros(game.layout.shape, dtype=np.float32)
        encoder = make_observations(obs_type, game.board, (lambda: located.copy()) if belief else None, ghosts=k,
                                    **encoding)
        observe = encoder.observer(mover if k == 1 else side)
        observations = []
        for agent, ghost in self.pairs:
            if belief:
                located.fill(0.0)
                located.flat[agent] = 1.0
            observation = observe(GameState(agent, ghost, mover, Outcome.ONGOING))
            # an encoder may return its own buffer: keep a copy of every array
            observations.append(observation.copy() if isinstance(observation, np.ndarray) else observation)
        self._bits: np.ndarray | None = None
        self._list: list[Any] | None = observations
        if self.stackable:
            stacked = np.stack(observations)
            if ((stacked == 0) | (stacked == 1)).all():  # a grid: one bit per value
                self._shape, self._dtype = stacked.shape[1:], stacked.dtype
                self._bits, self._list = np.packbits(stacked.reshape(len(stacked), -1).astype(bool), axis=1), None

    def __len__(self) -> int:
        return len(self.pairs)

    def observations(self) -> list[Any] | np.ndarray:
        """The observations, one per row: a stacked array for the array encodings, else a list."""
        if self._bits is not None:
            size = int(np.prod(self._shape))
            return np.unpackbits(self._bits, axis=1, count=size).astype(self._dtype).reshape(-1, *self._shape)
        assert self._list is not None
        return np.stack(self._list) if self.stackable else self._list

    def where(self, row: int) -> str:
        """The state of ``row``, in words (for messages)."""
        if self.model.ghosts > 1:
            return f"the {self.side} with the {self.model.describe(row)}"
        agent, ghost = self.pairs[row]
        return f"the {self.side} at agent {divmod(agent, self._cols)}, ghost {divmod(ghost, self._cols)}"

    def tabulate(self, policy: Callable[[Any], Any], batch: bool = False, stochastic: bool = False) -> np.ndarray:
        """Ask ``policy`` in every state and return its table, as :func:`tabulate_policy` does.

        Raises:
            TypeError, ValueError: as :func:`tabulate_policy`, for the policy and its answers.
        """
        if not callable(policy):
            raise TypeError(f"policy must be a callable policy(observation) -> action, got {policy!r}")
        if batch and not self.stackable:
            raise ValueError(f"batch=True stacks array observations; use obs_type in {list(_ARRAY_OBS_TYPES)} "
                             "without action_mask_in_obs")
        observations = self.observations()
        answers = [policy(observations)] if batch else [policy(observation) for observation in observations]
        rows, where = len(self.pairs), self.where
        if stochastic:
            what = f"{NUM_ACTIONS} probabilities per observation ({rows} observations)"
            if batch:
                table = policy_answer(answers[0], (rows, NUM_ACTIONS), what, ValueError, integer=False)
            else:
                table = np.stack([policy_answer(answer, (NUM_ACTIONS,), what, ValueError, integer=False, row=True)
                                  for answer in answers])
            bad = np.flatnonzero(~np.isfinite(table).all(axis=1) | (table < 0).any(axis=1)
                                 | (np.abs(table.sum(axis=1) - 1.0) > 1e-6))
            if len(bad):
                raise ValueError(f"policy's probabilities for {where(int(bad[0]))} are not a distribution: "
                                 f"{table[bad[0]]}")
            return self.model.expand(table)
        if batch:
            actions = _checked_actions(answers[0], (rows,), f"one action per observation ({rows} observations)",
                                       where, column=True, row=True)
        else:
            actions = np.empty(rows, dtype=np.int64)
            for i, answer in enumerate(answers):
                # Stable-Baselines3's predict returns a 0-d or 1-element array for one observation
                action = answer.reshape(()) if isinstance(answer, np.ndarray) and answer.size == 1 else answer
                try:
                    actions[i] = check_action(action, self.side)
                except (TypeError, ValueError) as error:  # out of range, or not an action at all
                    raise type(error)(
                        f"policy returned {answer!r} for {where(i)}; it must return an action 0..{NUM_ACTIONS - 1}"
                    ) from None
        return self.model.expand(one_hot(actions).T)


def policy_answer(answer: Any, shape: tuple[int, ...], what: str, error: type[Exception] = TypeError, *,
                  integer: bool = True, column: bool = False, row: bool = False) -> np.ndarray:
    """A policy's ``answer`` for stacked observations as an array of exactly ``shape``: another
    shape of the same size (a transposed or flat answer) is refused, never reshaped, since
    reading it in ``shape``'s order would give every state another state's answer.

    Args:
        answer: what the policy returned.
        shape: the shape it must have.
        what: what the policy must return, in words, for the message.
        error: the exception to raise.
        integer: integer actions (else real numbers, such as probabilities).
        column: also take ``shape + (1,)``, the column of actions some ``predict()`` return.
        row: also take ``(1,) + shape``, a batch of one (what a network returns for one
            observation, or one row of actions): read in the same order, so never misread.

    Returns:
        The answer as an array of ``shape``.

    Raises:
        error: another shape, or another kind of number; the message names ``policy``, the
            shape and dtype got and the shape expected.
    """
    array = np.asarray(answer)
    shapes = [shape, *([(*shape, 1)] if column else []), *([(1, *shape)] if row else [])]
    kind = np.integer if integer else np.number
    if array.shape not in shapes or not np.issubdtype(array.dtype, kind) or array.dtype == np.bool_:
        expected = " or ".join(str(one) for one in shapes)
        raise error(f"policy must return {what}: an array of shape {expected} and {'integer' if integer else 'real'} "
                    f"dtype, got an array of shape {array.shape} and dtype {array.dtype}")
    return array.reshape(shape)


def tabulate_team(policy: Callable[[Any], Any] | Sequence[Callable[[Any], Any]], game: Any, obs_type: str | None = None,
                  centralised: bool = False, view: str = "gym", **encoding: Any) -> np.ndarray:
    """A learned team of ``k >= 2`` ghosts as a state policy: every ghost asked in every live
    state, ghosts to move, with the observation the team's ``view`` gives it there.

    Args:
        policy: over stacked observations: one callable ``policy(observations[n, ...]) ->
            actions[n]`` (or the column ``[n, 1]``) shared by every ghost, or ``k`` of them; with
            ``centralised=True``, one ``policy(observations[n, k, ...]) -> actions[n, k]``, as the
            team Gymnasium view stacks them.
        game: the team's game; ``obs_type``: one of :data:`TEAM_TABULATED_OBS_TYPES` (``None``:
            ``"vector"``); ``view``: one of :data:`TEAM_TABULATED_VIEWS`; ``**encoding``: the
            encoding's options (no ``append_step_count`` or ``action_mask_in_obs``).

    Returns:
        ``int64[(rows, cols) * (k + 1) + (k,)]``: each ghost's move in every state (0 where the
        game is over), a form every solver function takes for the ghosts.

    Raises:
        TypeError: ``policy`` is not one or ``k`` callables, or answers of another shape or
            dtype (never reshaped).
        ValueError: an encoding, option or view not served, or an answer outside 0..3 (naming the state).
    """
    obs_type = "vector" if obs_type is None else obs_type
    check_choice(obs_type, "obs_type", TEAM_TABULATED_OBS_TYPES)
    check_choice(view, "view", TEAM_TABULATED_VIEWS)
    if encoding.get("append_step_count") or encoding.get("action_mask_in_obs"):
        raise ValueError("append_step_count and action_mask_in_obs are not tabulated: the step count is not a "
                         "function of the state, and a policy reads stacked arrays")
    k, model = game.ghosts, turn_model(game)
    policies = _team_policies(policy, k, centralised)
    encoder = make_observations(obs_type, game.board, ghosts=k, both_observe=view == "parallel", **encoding)
    observers = [encoder.observer(name) for name in ghost_names(k)]
    # [n, k, ...]; an encoder may return its own buffer: each observation is copied as it comes
    observations = np.stack([
        np.stack([np.array(observe(GameState(agent, tuple(ghosts), Side.GHOST, Outcome.ONGOING)))
                  for observe in observers])
        for agent, ghosts in zip(model.agents.tolist(), model.ghost_cells.tolist(), strict=True)
    ])
    n = model.num_live
    if centralised:
        actions = _team_answer(policies[0](observations), (n, k), model)
    else:
        actions = np.stack([_team_answer(ask(observations[:, i]), (n,), model, i) for i, ask in enumerate(policies)],
                           axis=1)
    return model.expand(actions.reshape(n, k), fill=0)


def _team_policies(policy: Any, k: int, centralised: bool) -> list[Callable[[Any], Any]]:
    """The callables to ask: one (shared, or centralised) or one per ghost."""
    if callable(policy):
        return [policy] if centralised else [policy] * k
    if centralised:
        raise TypeError(f"policy must be one callable with centralised=True, got {policy!r}")
    if isinstance(policy, Sequence) and len(policy) == k and all(callable(one) for one in policy):
        return list(policy)
    raise TypeError(f"policy must be a callable policy(observations) -> actions, or {k} of them (one per ghost), "
                    f"got {policy!r}")


def _team_answer(answer: Any, shape: tuple[int, ...], model: Any, ghost: int | None = None) -> np.ndarray:
    """The policy's ``answer`` as ``int64[shape]`` actions, checked."""
    who = "the team" if ghost is None else f"ghost {ghost}"
    # one ghost's answer may be the column [n, 1] some predict() return; the team's is [n, k] exactly
    return _checked_actions(answer, shape, f"the actions of {who}, one row per state",
                            lambda row: f"{who} with the {model.describe(row)}", column=ghost is not None)


def _checked_actions(answer: Any, shape: tuple[int, ...], what: str, where: Callable[[int], str], *,
                     column: bool, row: bool = False) -> np.ndarray:
    """A batch of the policy's actions as ``int64[shape]`` (see :func:`policy_answer`), each in
    0..3; ``where(row)`` names a state for the message."""
    actions = policy_answer(answer, shape, what, column=column, row=row).astype(np.int64)
    bad = np.argwhere((actions < 0) | (actions >= NUM_ACTIONS))
    if len(bad):
        raise ValueError(f"policy returned action {actions[tuple(bad[0])]} for {where(int(bad[0][0]))}; "
                         f"actions are 0..{NUM_ACTIONS - 1}")
    return actions
