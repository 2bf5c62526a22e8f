"""The contracts of the Gymnasium views: the single-agent env (``gymnasium.make("gridghost/GridGhost-v1",
controlled=...)``, either side) and the vector env (``gymnasium.make_vec(...,
vectorization_mode="vector_entry_point")``), or a wrapper around either.

Each check takes ``make_env`` and fails as :mod:`gridghost.testing` says;
:func:`gymnasium_conformance` and :func:`vector_conformance` run them all.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from types import SimpleNamespace
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from gridghost.core.names import ghost_names
from gridghost.core.rules import NUM_ACTIONS, Side
from gridghost.testing.batched_views import bad_batches, check_engine_moves, check_engine_observations
from gridghost.testing.common import (
    BAD_ACTIONS,
    KernelReplay,
    arguments_checked,
    check_action_space,
    check_cells,
    check_episode_determinism,
    check_goes_on,
    check_in_space,
    check_mask,
    check_private_mask,
    check_seeded,
    config_of,
    contract,
    fail,
    kernel_of,
    lasting_seed,
    random_actions,
    rest_of_episode,
)
from gridghost.testing.observing import HandedOut, check_replayed, replayed_filter

#: How many steps the checks play at most per episode.
MAX_STEPS = 40


def _side(env: Any) -> str:
    """The learner's side (``controlled``), ``"agent"`` unless the view says otherwise."""
    return getattr(env.unwrapped, "controlled", "agent") or "agent"


def _team_size(env: Any) -> int:
    """How many ghosts a learning team has (``controlled="ghosts"``: its ``MultiDiscrete``'s length;
    a vector env's ``single_action_space``'s), else 0."""
    space = getattr(env, "single_action_space", env.action_space)
    return len(space.nvec) if _side(env) == "ghosts" and isinstance(space, spaces.MultiDiscrete) else 0


def _learner_actions(env: Any, seed: int) -> Callable[[], Any]:
    """A seeded stream of the learner's random actions: ints, or a team's lists of ``k`` ints."""
    actions, k = random_actions(seed), _team_size(env)
    return (lambda: [actions() for _ in range(k)]) if k else actions


def _check_learner_action_space(env: Any, space: Any, where: str) -> None:
    """The learner's action ``space`` (the env's ``action_space``, or a vector env's
    ``single_action_space``, called ``where``) is ``Discrete(4)``; a learning team's ``MultiDiscrete([4] * k)``."""
    if _side(env) != "ghosts":
        check_action_space(space, where)
        return
    if not isinstance(space, spaces.MultiDiscrete) or space.nvec.ndim != 1 or not (space.nvec == NUM_ACTIONS).all():
        fail("spaces", f"a learning team's {where} must be MultiDiscrete([{NUM_ACTIONS}] * k), got {space!r}")


def _learner_reward(rewards: tuple[float, ...], side: str) -> float:
    """The learner's share of a half-turn's ``(agent's, ghost's...)`` rewards: a team's the mean of its ghosts'."""
    if side == "agent":
        return rewards[0]
    return sum(rewards[1:]) / len(rewards[1:])


# -- the single-agent env ---------------------------------------------------------------------------
def _episode(env: Any, seed: int | None, actions: Callable[[], int], limit: int = MAX_STEPS,
             reset: bool = True) -> list[tuple[Any, ...]]:
    """Play (after ``reset(seed=seed)`` when ``reset``) until the episode ends or ``limit`` steps;
    return every call's result."""
    record: list[tuple[Any, ...]] = [env.reset(seed=seed)] if reset else []
    for _ in range(limit):
        record.append(result := env.step(actions()))
        if result[2] or result[3]:
            break
    return record


def _cells(env: Any) -> tuple[tuple[int, int], tuple[tuple[int, int], ...]]:
    """The true ``(agent, ghosts)`` cells, from the AEC game a gridghost Gymnasium view holds."""
    game = getattr(env.unwrapped, "game", None)
    if game is None or not hasattr(game, "ghost_positions"):
        fail("kernel", "the view holds no `game` with agent_pos and ghost_positions (a gridghost AEC env)")
    return tuple(game.agent_pos), tuple(tuple(cell) for cell in game.ghost_positions)


@contract("spaces")
def check_gymnasium_spaces_and_masks(make_env: Callable[[], Any], seed: int = 0) -> None:
    """Every observation lies in ``observation_space``; ``action_space`` is ``Discrete(4)``; the
    learner's mask (``info["action_mask"]`` or the observation's, and ``action_masks()``, a
    ``bool[4]``) is the kernel's at its cell, never all zeros, read-only or a copy of its own. A
    learning team (``controlled="ghosts"``): ``MultiDiscrete([4] * k)``, its mask ``int8[k, 4]``
    (every ghost's, in order) and ``action_masks()`` ``bool[k * 4]``.

    Raises:
        AssertionError: ``"spaces: ..."`` or ``"masks: ..."``.
    """
    env = make_env()
    _check_learner_action_space(env, env.action_space, "action_space")
    kernel, actions, side = kernel_of(env), _learner_actions(env, seed), _side(env)
    observation, info = env.reset(seed=seed)
    previous = None
    for step in range(MAX_STEPS):
        check_in_space(env.observation_space, observation, f"the observation after {step} steps")
        mask = info["action_mask"] if "action_mask" in info else observation["action_mask"]
        agent, ghosts = _cells(env)  # the learner's: the agent's cell, or every ghost's
        expected = kernel.action_masks[[kernel.board.index(cell) for cell in ([agent] if side == "agent" else ghosts)]]
        expected = expected if side == "ghosts" else expected[0]
        check_mask(mask, f"the mask after {step} steps", expected)
        given = env.unwrapped.action_masks()
        if side == "ghosts":  # MaskablePPO's form for a MultiDiscrete: the ghosts' masks one after the other
            if not isinstance(given, np.ndarray) or given.shape != (expected.size,):
                fail("masks", f"a team's action_masks() must be bool[{expected.size}], got {given!r}")
            given = given.reshape(-1, NUM_ACTIONS)
        check_mask(given, "action_masks()", expected.astype(bool), bool)
        if previous is not None:
            check_private_mask(previous, mask, "the info's mask")
        previous = mask
        observation, _, terminated, truncated, info = env.step(actions())
        if terminated or truncated:
            check_in_space(env.observation_space, observation, "the final observation")
            break


def _goes_on(contract_name: str, env: Any, seed: int, steps: int, bad: Iterable[Any] = ()) -> None:
    """The pickling or refusals contract (:func:`~gridghost.testing.common.check_goes_on`) ``steps``
    steps into the episode of the first seed from ``seed`` whose episode (with its random actions)
    goes on there; ``bad``: the actions ``env`` must refuse there."""
    def lasts(candidate: int) -> bool:
        return _episode(env, candidate, _learner_actions(env, candidate), limit=steps)[-1][2:4] == (False, False)

    seed = lasting_seed(contract_name, lasts, seed, steps)
    check_goes_on(contract_name, env, rest_of_episode(_episode, seed, _learner_actions),
                  refused=[(functools.partial(env.step, action), f"step({action!r})") for action in bad])


@contract("determinism")
def check_gymnasium_determinism(make_env: Callable[[], Any], seed: int = 0) -> None:
    """One seed, one trajectory bit for bit (through an unseeded reset after it too); other seeds
    differ somewhere.

    Raises:
        AssertionError: ``"determinism: ..."``.
    """
    check_episode_determinism(make_env, _episode, seed, "two envs reset with one seed", _learner_actions)


@contract("pickling")
def check_gymnasium_pickle(make_env: Callable[[], Any], seed: int = 0, after: int = 2) -> None:
    """An env pickled ``after`` steps into an episode and the env itself go on identically.

    Raises:
        AssertionError: ``"pickling: ..."``.
    """
    _goes_on("pickling", make_env(), seed, after)


@contract("refusals")
def check_gymnasium_refusals(make_env: Callable[[], Any], seed: int = 0, after: int = 1) -> None:
    """A bad action raises ``TypeError`` or ``ValueError`` and changes nothing (for a learning
    team, also a list of the wrong length or with a move out of range).

    Raises:
        AssertionError: ``"refusals: ..."``.
    """
    env = make_env()
    k = _team_size(env)  # a learning team's: a list one too long, one too short, one with a move out of range
    _goes_on("refusals", env, seed, after,
             (*BAD_ACTIONS, None, *(([0] * (k + 1), [0] * (k - 1), [0] * (k - 1) + [NUM_ACTIONS]) if k else ())))


@contract("kernel")
def check_gymnasium_kernel(make_env: Callable[[], Any], seed: int = 0, episodes: int = 2) -> None:
    """Step for step the kernel's game: the learner's move replayed by the kernel with the RNG
    contract's draws from the reset seed, the opponent's the move of it that leads where the
    view went (its choices are its own stream's); the cells, the learner's reward (its two
    half-turns', and a learning ghost's first also the opening move's) and the ends agree.

    Raises:
        AssertionError: ``"kernel: ..."``.
    """
    env = make_env()
    for episode in range(episodes):
        for where, result, replay, expected in _replayed_steps(env, seed + episode):
            if len(result) == 2:  # the reset's
                continue
            _, reward, terminated, *_ = result
            check_cells(replay, _cells(env), where)
            if float(reward) != expected:
                fail("kernel", f"{where}: reward {reward}, the kernel's {expected}")
            if bool(terminated) != replay.over:
                fail("kernel", f"{where}: terminated={terminated}, the kernel's game over: {replay.over}")


def _replayed_steps(env: Any, seed: int, belief: bool = False) -> Iterator[tuple[str, Any, KernelReplay, float]]:
    """Play an episode of ``seed`` with random actions and replay it with the kernel as
    :func:`check_gymnasium_kernel` says (with ``belief``, its filter followed too); yield
    ``(where, result, replay, expected reward)``: first the reset's ``(observation, info)``,
    then each step's result (one replay throughout).

    Raises:
        AssertionError: ``"kernel: ..."`` when no move of the opponent leads where the view went.
    """
    side = Side.AGENT if _side(env) == "agent" else Side.GHOST
    other, learner = Side(1 - side), _side(env)
    result = env.reset(seed=seed)
    replay = KernelReplay(kernel_of(env), config_of(env).sensors, seed, replayed_filter(env) if belief else None)
    carried = _learner_reward(replay.explain(other, _cells(env), "the opening move"), learner) \
        if side == Side.GHOST else 0.0
    yield f"seed {seed}, the reset", result, replay, 0.0
    actions = _learner_actions(env, seed)
    for step in range(MAX_STEPS):
        where = f"seed {seed}, step {step}"
        action = actions()
        result = env.step(action)
        expected = carried + _learner_reward(replay.agent(action) if side == Side.AGENT else replay.ghost(action),
                                             learner)
        carried = 0.0
        if not replay.over:
            expected += _learner_reward(replay.explain(other, _cells(env), where), learner)
        yield where, result, replay, expected
        if result[2] or result[3]:
            break


@contract("observations")
def check_gymnasium_observations(make_env: Callable[[], Any], seed: int = 0) -> None:
    """The observation of every ``reset`` and ``step`` is the learner's (``controlled``) under
    the encoder of the env's settings, applied to the kernel's state replayed as
    :func:`check_gymnasium_kernel` replays it (a belief map: the replay's own filter's), exactly;
    a learning team's (``controlled="ghosts"``) is every ghost's own, stacked in ghost
    order (a ``Box`` encoding on a new first axis, texts joined by a space, dicts by ghost name).
    No observation changes once handed out.

    Raises:
        AssertionError: ``"observations: ..."``.
    """
    env = make_env()
    observer = ghost_names(config_of(env).ghosts) if _side(env) == "ghosts" else _side(env)
    check_replayed(env, ((replay, [(result[0], observer, f"{where}: the observation")])
                         for where, result, replay, _ in _replayed_steps(env, seed, belief=True)))


#: The single-agent checks, in the order :func:`gymnasium_conformance` runs them.
GYMNASIUM_CHECKS = (check_gymnasium_spaces_and_masks, check_gymnasium_determinism, check_gymnasium_pickle,
                    check_gymnasium_refusals, check_gymnasium_kernel, check_gymnasium_observations)


@arguments_checked
def gymnasium_conformance(make_env: Callable[[], Any], seed: int = 0) -> None:
    """Run every check of a single-agent Gymnasium view (:data:`GYMNASIUM_CHECKS`).

    For example, ``gymnasium_conformance(lambda: gymnasium.make("gridghost/GridGhost-v1", controlled="ghost"))``.

    Args:
        make_env: returns a fresh env (``gymnasium.make``'s, or a wrapper around one).
        seed: the first seed the checks use.

    Raises:
        TypeError, ValueError: a bad argument (naming it), before any check runs.
        AssertionError: the first contract that fails, named at the start of the message.
    """
    for check in GYMNASIUM_CHECKS:
        check(make_env, seed)


# -- the vector env ---------------------------------------------------------------------------------
def _vector_actions(env: Any, rng: np.random.Generator) -> np.ndarray:
    """Random actions of every game: ``int[N]``, or a learning team's ``int[N, k]``."""
    k = _team_size(env)
    return rng.integers(NUM_ACTIONS, size=(env.num_envs, k) if k else env.num_envs)


def _vector_run(env: Any, seed: int | None, actions: np.random.Generator, steps: int) -> list[Any]:
    """``reset(seed=seed)`` (skipped when ``seed`` is ``-1``), then ``steps`` steps of random actions."""
    record = [] if seed == -1 else [env.reset(seed=seed)]
    for _ in range(steps):
        record.append(env.step(_vector_actions(env, actions)))
    return record


def _vector_positions(env: Any) -> tuple[np.ndarray, np.ndarray]:
    """The games' ``(agent cells, ghost cells)`` from the batched engine the vector env holds."""
    game = getattr(env.unwrapped, "game", None)
    if game is None or not hasattr(game, "positions"):
        fail("kernel", "the vector env holds no `game` with `positions` (a gridghost BatchedGame)")
    return game.positions  # type: ignore[no-any-return]


@contract("spaces")
def check_vector_spaces_and_masks(make_env: Callable[[], Any], seed: int = 0, steps: int = 30) -> None:
    """Every batch of observations lies in ``observation_space`` (each row in
    ``single_observation_space``); the action spaces are ``Discrete(4)`` per game (a learning
    team's ``MultiDiscrete([4] * k)``); ``action_masks()`` is ``bool[N, 4]`` (a team's
    ``bool[N, k * 4]``, ghost by ghost), the kernel's at each learner's cell.

    Raises:
        AssertionError: ``"spaces: ..."`` or ``"masks: ..."``.
    """
    env = make_env()
    _check_learner_action_space(env, env.single_action_space, "single_action_space")
    k = _team_size(env)
    expected_batch = batch_space(env.single_action_space, env.num_envs)  # MultiDiscrete([4] * N), a team's Box
    if env.action_space != expected_batch:
        fail("spaces", f"action_space must be {expected_batch}, got {env.action_space}")
    kernel, side = kernel_of(env, env.unwrapped.game.layouts[0]), _side(env)
    rng = np.random.default_rng(seed)
    observations, _ = env.reset(seed=seed)
    for step in range(steps):
        check_in_space(env.observation_space, observations, f"the observations after {step} steps")
        agents, ghosts = _vector_positions(env)
        masks = getattr(env, "action_masks", env.unwrapped.action_masks)()  # a wrapper's, else the view's
        if k:  # a team's bool[N, k * 4], held ghost by ghost
            if np.shape(masks) != (env.num_envs, k * NUM_ACTIONS):
                fail("masks", f"a learning team's action_masks() must have shape ({env.num_envs}, {k * NUM_ACTIONS}), "
                              f"got {np.shape(masks)}")
            masks = masks.reshape(env.num_envs, k, NUM_ACTIONS)
        cells = agents if side == "agent" else ghosts
        check_mask(masks, "action_masks()", kernel.action_masks[cells].astype(bool), bool)
        observations, *_, infos = env.step(_vector_actions(env, rng))
        for row in np.flatnonzero(infos.get("_final_obs", np.zeros(env.num_envs, dtype=bool))):
            check_in_space(env.single_observation_space, infos["final_obs"][row], f"env {row}'s final observation")


@contract("determinism")
def check_vector_determinism(make_env: Callable[[], Any], seed: int = 0, steps: int = 30) -> None:
    """One seed, one run bit for bit (through episodes that auto-reset); other seeds differ.

    Raises:
        AssertionError: ``"determinism: ..."``.
    """
    runs = [_vector_run(make_env(), seed, np.random.default_rng(seed), steps) for _ in range(2)]
    check_seeded(runs, lambda other: _vector_run(make_env(), other, np.random.default_rng(seed), steps), seed, 5,
                 "two vector envs reset with one seed", run="run")


@contract("pickling")
def check_vector_pickle(make_env: Callable[[], Any], seed: int = 0, steps: int = 10) -> None:
    """A vector env pickled mid-run and the env itself go on identically.

    Raises:
        AssertionError: ``"pickling: ..."``.
    """
    env = make_env()
    _vector_run(env, seed, np.random.default_rng(seed), steps)
    check_goes_on("pickling", env, lambda view: _vector_run(view, -1, np.random.default_rng(seed + 1), steps),
                  "the vector env", "mid-run")


@contract("refusals")
def check_vector_refusals(make_env: Callable[[], Any], seed: int = 0, steps: int = 3) -> None:
    """Actions of another shape (a learning team's ``int[N]``), dtype or range raise ``TypeError``
    or ``ValueError`` and change nothing.

    Raises:
        AssertionError: ``"refusals: ..."``.
    """
    env = make_env()
    _vector_run(env, seed, np.random.default_rng(seed), steps)
    n, k = env.num_envs, _team_size(env)
    refused = [(functools.partial(env.step, bad), f"step({bad.dtype}{bad.shape} {bad.ravel()[:3]})")
               for bad in bad_batches((n, k) if k else (n,), (n,) if k else (n, 1))]
    check_goes_on("refusals", env, lambda view: _vector_run(view, -1, np.random.default_rng(seed + 1), steps),
                  refused=refused)


@contract("kernel")
def check_vector_autoreset_and_kernel(make_env: Callable[[], Any], seed: int = 0, steps: int = 40) -> None:
    """Every game plays the kernel's game and restarts as the env's ``autoreset_mode`` says.

    Each step of a game goes from its cells to cells one of the kernel's outcomes of the
    learner's move (and any answer of the opponent) reaches with a positive probability, with
    that outcome's reward and end (a truncation only where the game goes on). Next-step mode: a
    game that ended shows its final observation, and the next step restarts it (a start state,
    reward 0, no end). Same-step mode: it restarts at once, its final observation in
    ``infos["final_obs"]`` and ``infos["_final_obs"]`` set exactly where games ended.

    Raises:
        AssertionError: ``"kernel: ..."`` or ``"auto-reset: ..."``.
    """
    # a learner's reward as a Gymnasium view pays it: a learning team's the mean of its ghosts'
    check_engine_moves(_Engine(make_env(), "auto-reset"), seed, steps, pay=lambda reward: float(np.mean(reward)))


@contract("observations")
def check_vector_observations(make_env: Callable[[], Any], seed: int = 0, steps: int = 20) -> None:
    """As :func:`~gridghost.testing.batched_views.check_batched_observations` for the learner's
    rows (its final observations: ``infos["final_obs"]``); a batch handed out does not change as
    the env steps on.

    Raises:
        AssertionError: ``"observations: ..."``.
    """
    check_engine_observations(_Engine(make_env(), "observations"), seed, steps, HandedOut())


class _Engine:
    """A vector env seen as the one-learner batched engine it holds, for the engine's checks
    (:func:`~gridghost.testing.batched_views.check_engine_moves`): its calls the env's ``step``,
    what they return the env's returns, its positions the engine's.

    Args:
        env: the vector env.
        contract: the contract a same-step env fails when ``infos["_final_obs"]`` does not mark
            exactly the games that ended.
    """

    def __init__(self, env: Any, contract: str) -> None:
        engine = env.unwrapped.game
        self.env, self.contract, self.config, self.controlled = env, contract, config_of(env), _side(env)
        self.num_games, self.ghosts, self.layouts, self.obs_type = \
            env.num_envs, _team_size(env) or 1, engine.layouts, engine.obs_type
        same_step = env.metadata.get("autoreset_mode", AutoresetMode.NEXT_STEP) == AutoresetMode.SAME_STEP
        self.autoreset_mode = "same_step" if same_step else "next_step"
        self.step_agent = self.step_ghost = self._step

    @property
    def positions(self) -> tuple[np.ndarray, np.ndarray]:
        """The games' ``(agent cells, ghost cells)``."""
        return _vector_positions(self.env)

    def reset(self, seed: int) -> dict[str, Any]:
        """The env's reset, its observations the learner's."""
        return {self.controlled: self.env.reset(seed=seed)[0]}

    def _step(self, actions: np.ndarray) -> SimpleNamespace:
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        done = terminations | truncations
        marked = infos.get("_final_obs", np.zeros(self.num_games, dtype=bool))
        if self.autoreset_mode == "same_step" and not np.array_equal(marked, done):
            fail(self.contract, f"infos['_final_obs'] is {marked}, the games that ended {done}")
        rows = np.flatnonzero(marked)
        return SimpleNamespace(observations={self.controlled: observations}, rewards={self.controlled: rewards},
                               terminations=terminations, truncations=truncations, final_games=rows,
                               final_observations={self.controlled: [infos["final_obs"][row] for row in rows]})


#: The vector checks, in the order :func:`vector_conformance` runs them.
VECTOR_CHECKS = (check_vector_spaces_and_masks, check_vector_determinism, check_vector_pickle,
                 check_vector_refusals, check_vector_autoreset_and_kernel, check_vector_observations)


@arguments_checked
def vector_conformance(make_env: Callable[[], Any], seed: int = 0) -> None:
    """Run every check of a vector view (:data:`VECTOR_CHECKS`).

    For example, ``vector_conformance(lambda: gymnasium.make_vec("gridghost/GridGhost-v1", num_envs=3,
    vectorization_mode="vector_entry_point"))``.

    Args:
        make_env: returns a fresh vector env over gridghost's batched engine (or a wrapper
            around one).
        seed: the first seed the checks use.

    Raises:
        TypeError, ValueError: a bad argument (naming it), before any check runs.
        AssertionError: the first contract that fails, named at the start of the message.
    """
    for check in VECTOR_CHECKS:
        check(make_env, seed)
