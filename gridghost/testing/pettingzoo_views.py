"""The contracts of the two-player PettingZoo views: the AEC env (:func:`gridghost.env`,
:func:`gridghost.raw_env`) and the parallel env (:func:`gridghost.parallel_env`), or a wrapper
around either.

Each check takes ``make_env`` and fails as :mod:`gridghost.testing` says;
:func:`aec_conformance` and :func:`parallel_conformance` run them all.

The checks read the players from the view (``possible_agents``, the observations it returns).
A parallel view whose agents are the ghosts alone, the agent played inside it, is served too:
its opening move and each answer of the agent are replayed as the moves of the kernel's agent
that lead where the view went, and a step's rewards are the team's half-turn's and the answer's.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from gridghost.core.rules import Side
from gridghost.testing.common import (
    BAD_ACTIONS,
    KernelReplay,
    added,
    arguments_checked,
    check_action_space,
    check_cells,
    check_episode_determinism,
    check_goes_on,
    check_in_space,
    check_mask,
    check_private_mask,
    check_zero_sum,
    config_of,
    contract,
    fail,
    kernel_of,
    lasting_seed,
    random_actions,
    rest_of_episode,
    zero_sum_by_default,
)
from gridghost.testing.observing import check_replayed, replayed_filter

#: How many half-turns the checks play at most per episode (episodes usually end sooner).
MAX_HALF_TURNS = 60


def _cells(env: Any) -> tuple[tuple[int, int], tuple[tuple[int, int], ...]]:
    """``((agent row, col), ((ghost row, col), ...))`` from the view's global ``state()``
    (channel 0 the agent's, then one channel per ghost)."""
    grid = np.asarray(env.state())
    found = []
    for channel in range(grid.shape[2] - 2):  # the agent's, each ghost's; then the goals and the turn
        cells = np.argwhere(grid[:, :, channel] == 1)
        if len(cells) != 1:
            fail("spaces", f"state() must mark exactly one cell in each of the agent's and the ghosts' channels, got "
                           f"{len(cells)} in channel {channel} of {grid.shape} {grid.dtype}")
        found.append((int(cells[0][0]), int(cells[0][1])))
    if len(found) < 2:
        fail("spaces", f"state() must mark the agent and at least one ghost, got {grid.shape}")
    return found[0], tuple(found[1:])


def _kernel_mask(env: Any, kernel: Any, name: str) -> np.ndarray:
    """The kernel's action mask at the cell of the agent ``name`` (``"agent"``, ``"ghost"`` or a
    team's ``"ghost_<i>"``)."""
    agent, ghosts = _cells(env)
    return kernel.action_masks[kernel.board.index(agent if name == "agent" else ghosts[_ghosts(env).index(name)])]


def _ghosts(env: Any) -> list[str]:
    """The ghosts' names, in turn order (the team moves together)."""
    return [name for name in env.possible_agents if name != "agent"]


def _mask_of(observation: Any, info: dict[str, Any]) -> Any:
    """The action mask a view hands out: in the info, or in the observation (``action_mask_in_obs``)."""
    if "action_mask" in info:
        return info["action_mask"]
    if isinstance(observation, dict) and "action_mask" in observation:
        return observation["action_mask"]
    fail("masks", "neither the info nor the observation holds an 'action_mask'")


def _check_spaces(env: Any) -> None:
    """Every player's observation space is the same object at every call; its action space ``Discrete(4)``."""
    for name in env.possible_agents:
        if env.observation_space(name) is not env.observation_space(name):
            fail("spaces", f"observation_space({name!r}) must return the same object at every call")
        check_action_space(env.action_space(name), f"action_space({name!r})")


def _goes_on(contract_name: str, env: Any, seed: int, after: int, aec: bool,
             refused: Callable[[Any], Iterable[Any]] = lambda env: ()) -> None:
    """The pickling or refusals contract (:func:`~gridghost.testing.common.check_goes_on`) of an
    AEC view (``aec``) or a parallel one, ``after`` half-turns (steps) into the episode of the
    first seed from ``seed`` whose random actions leave it going on (an agent left, none
    terminated or truncated); ``refused(env)`` gives the bad actions it must refuse there."""
    def lasts(candidate: int) -> bool:
        _episode(aec, env, candidate, random_actions(candidate), limit=after)
        ends = (*getattr(env, "terminations", {}).values(), *getattr(env, "truncations", {}).values())
        return bool(env.agents) and not any(ends)

    seed = lasting_seed(contract_name, lasts, seed, after)
    check_goes_on(contract_name, env, rest_of_episode(functools.partial(_episode, aec), seed), refused=[
        (functools.partial(env.step, bad), f"step({bad!r})" + (f" by {env.agent_selection!r}" if aec else ""))
        for bad in refused(env)])


def _episode(aec: bool, env: Any, seed: int | None, actions: Callable[[], int], limit: int = MAX_HALF_TURNS,
             reset: bool = True) -> list[Any]:
    """Play an AEC view (``aec``) or a parallel one (after ``reset(seed=seed)`` when ``reset``)
    until the episode ends or ``limit`` half-turns (a parallel view's steps); return what
    ``reset`` and then every ``last()`` (a parallel view's: every ``step``) returned."""
    record = [env.reset(seed=seed)] if reset else []
    for name in env.agent_iter(limit) if aec else range(limit):
        if not env.agents:
            break
        if aec:
            record.append((name, *env.last()))
            env.step(None if record[-1][3] or record[-1][4] else actions())
        else:
            record.append(env.step({name: actions() for name in env.agents}))
    return record


# -- the AEC env ------------------------------------------------------------------------------------
@contract("spaces")
def check_aec_spaces_and_masks(make_env: Callable[[], Any], seed: int = 0) -> None:
    """Every observation lies in its space; the spaces are the same objects at every call; both
    action spaces are ``Discrete(4)``; the mover's mask is the kernel's at its cell, never all
    zeros, and read-only or a copy of its own.

    Raises:
        AssertionError: ``"spaces: ..."`` or ``"masks: ..."``.
    """
    env = make_env()
    env.reset(seed=seed)
    _check_spaces(env)
    kernel = kernel_of(env)
    actions = random_actions(seed)
    previous = None
    for name in env.agent_iter(MAX_HALF_TURNS):
        observation, _, termination, truncation, info = env.last()
        check_in_space(env.observation_space(name), observation, f"{name}'s observation")
        for other in env.agents:
            check_in_space(env.observation_space(other), env.observe(other), f"observe({other!r})")
        mask = _mask_of(observation, info)
        expected = None if termination or truncation else _kernel_mask(env, kernel, name)
        check_mask(mask, f"{name}'s action mask", expected)
        if previous is not None:
            check_private_mask(previous, mask, f"{name}'s action mask")
        previous = mask
        env.step(None if termination or truncation else actions())


@contract("determinism")
def check_aec_determinism(make_env: Callable[[], Any], seed: int = 0) -> None:
    """Two envs reset with one seed play the same actions identically, bit for bit, through a
    seeded episode and an unseeded one after it; other seeds give another episode somewhere.

    Raises:
        AssertionError: ``"determinism: ..."``.
    """
    check_episode_determinism(make_env, functools.partial(_episode, True), seed,
                              "two envs reset with one seed, at last()")


@contract("zero-sum")
def check_aec_zero_sum(make_env: Callable[[], Any], seed: int = 0, episodes: int = 3) -> None:
    """With the default rewards (the ghost's the agent's negated), the two sides' returns of every
    episode, summed from ``last()``, add up to exactly 0 (a team's: the agent's and each ghost's).
    Views with other rewards pass.

    Raises:
        AssertionError: ``"zero-sum: ..."``.
    """
    env = make_env()
    if not zero_sum_by_default(env):
        return
    actions = random_actions(seed)
    for episode in range(episodes):
        returns = dict.fromkeys(env.possible_agents, 0.0)
        for name, _, reward, *_ in _episode(True, env, seed + episode, actions, limit=2**31)[1:]:
            returns[name] += reward
        check_zero_sum(returns, f"the returns of episode {episode} (seed {seed + episode})")


@contract("pickling")
def check_aec_pickle(make_env: Callable[[], Any], seed: int = 0, after: int = 3) -> None:
    """An env pickled ``after`` half-turns into an episode and the env itself go on identically.

    Raises:
        AssertionError: ``"pickling: ..."``.
    """
    _goes_on("pickling", make_env(), seed, after, True)


@contract("refusals")
def check_aec_refusals(make_env: Callable[[], Any], seed: int = 0, after: int = 2) -> None:
    """A bad action (out of range, of the wrong type, ``None`` for a live agent) raises
    ``TypeError`` or ``ValueError`` and changes nothing: no state, reward or random draw (the
    env then plays on exactly as a copy that never saw it).

    Raises:
        AssertionError: ``"refusals: ..."``.
    """
    _goes_on("refusals", make_env(), seed, after, True, lambda env: (*BAD_ACTIONS, None))


@contract("kernel")
def check_aec_kernel(make_env: Callable[[], Any], seed: int = 0, episodes: int = 2) -> None:
    """Step for step the kernel's game: replaying the actions with the kernel
    (:class:`~gridghost.core.game.Game`, a team's :class:`~gridghost.core.game.Game`) and the
    RNG contract's draws from ``seed`` gives the same cells (``state()``), rewards, terminations
    and colour readings after every half-turn, and ``last()`` reports a termination exactly when
    the kernel's game is over and a truncation exactly when it goes on after ``max_cycles``
    cycles. A team's ghosts' choices move nobody and reward nobody until the last ghost's, when
    the team's move is the kernel's.

    Raises:
        AssertionError: ``"kernel: ..."``.
    """
    env = make_env()
    limit = config_of(env).max_cycles
    for episode in range(episodes):
        for where, replay, returned, played in _replayed(env, seed + episode, True):
            _compare(env, replay, where, played, returned)
            if env.agents:
                _, _, termination, truncation, _ = env.last()
                _compare_ends(replay, termination, truncation, limit, f"{where}, last() of {env.agent_selection!r}")


def _replay_inner_agent(replay: KernelReplay, env: Any, where: str) -> tuple[float, ...]:
    """For a view that plays the agent itself (no ``"agent"`` among its agents), replay the
    agent's move that leads where the view went (:meth:`KernelReplay.explain`), when it is the
    agent's turn in a game that goes on (before ``max_cycles``); return its rewards (zeros when
    there is none to replay)."""
    limit = config_of(env).max_cycles
    if "agent" in env.possible_agents or replay.state.turn != Side.AGENT or replay.over or \
            (limit is not None and replay.cycles >= limit):
        return (0.0,) * (len(_ghosts(env)) + 1)
    return replay.explain(Side.AGENT, _cells(env), where)


def _replayed(env: Any, seed: int, aec: bool, belief: bool = False) -> Iterator[tuple[str, KernelReplay, Any, Any]]:
    """Play an episode of ``seed``'s random actions (after ``reset(seed=seed)``) with an AEC view
    (``aec``) or a parallel one and replay it as :func:`check_aec_kernel` and
    :func:`check_parallel_kernel` say (with ``belief``, its filter followed too); yield
    ``(where, replay, returned, played)`` before each half-turn (a parallel step) and once after
    the last: ``returned`` the last call's returns (an AEC env's dicts, in their order),
    ``played`` the one before's ``(where, the kernel's rewards)`` (``None`` first); until no
    agent is left, ``last()`` reports an end, or after :data:`MAX_HALF_TURNS` (one replay)."""
    returned = env.reset(seed=seed)
    replay = KernelReplay(kernel_of(env), config_of(env).sensors, seed, replayed_filter(env) if belief else None)
    # a view that plays the agent itself pays its opening move's rewards with the first step
    carried = _replay_inner_agent(replay, env, "the opening move")
    actions, ghosts, played = random_actions(seed), _ghosts(env), None
    held: list[int] = []  # the team's choices so far (an AEC env's come one by one): they move nobody until all are in
    for turn in range(MAX_HALF_TURNS + 1):
        where = f"seed {seed}, {'half-turn' if aec else 'step'} {turn}"
        if aec:
            returned = (None, env.rewards, env.terminations, env.truncations, env.infos)
        yield where, replay, returned, played
        if not env.agents or turn == MAX_HALF_TURNS or (aec and any(env.last()[2:4])):
            return
        movers = [env.agent_selection] if aec else env.agents
        chosen = {name: actions() for name in movers}
        returned = env.step(chosen[movers[0]] if aec else chosen)
        if (movers == ["agent"]) if aec else (replay.state.turn == Side.AGENT):
            moved = replay.agent(chosen["agent"])
        elif len(held := [*held, *(chosen[name] for name in (movers if aec else ghosts))]) < len(ghosts):
            moved = (0.0,) * (len(ghosts) + 1)
        else:  # the team's move, then the answer of an agent the view plays itself
            moved, held = added(replay.ghost(held), _replay_inner_agent(replay, env, where)), []
        played, carried = (where, added(moved, carried)), (0.0,) * len(carried)


def _compare_ends(replay: KernelReplay, termination: bool, truncation: bool, limit: int | None, where: str) -> None:
    """A termination exactly when the kernel's game is over; a truncation exactly when it goes on
    after ``limit`` cycles (``max_cycles``; ``None``: never)."""
    limited = limit is not None and replay.cycles >= limit and not replay.over
    if bool(termination) != replay.over or bool(truncation) != limited:
        fail("kernel", f"{where}: termination {termination}, truncation {truncation}; the kernel's game is "
                       f"{'over' if replay.over else 'on'} after {replay.cycles} cycles (max_cycles {limit})")


@contract("observations")
def check_aec_observations(make_env: Callable[[], Any], seed: int = 0) -> None:
    """Every observation the env hands out, ``last()``'s and ``observe(name)``'s of every agent
    in the game (the agent and every ghost), is the encoder of the env's settings applied to the
    kernel's state, replayed from the seed and the actions as :func:`check_aec_kernel` replays
    them (a belief map: the replay's own filter's), leaf by leaf and exactly; and none changes
    once handed out, as the env plays on.

    Raises:
        AssertionError: ``"observations: ..."``.
    """
    env = make_env()

    def seen(where: str) -> Iterator[tuple[Any, str, str]]:  # each compared as it comes
        mover = env.agent_selection
        yield env.last()[0], mover, f"{where}: last()'s observation of {mover!r}"
        yield from ((env.observe(name), name, f"{where}: observe({name!r})") for name in env.agents)

    check_replayed(env, ((replay, seen(where)) for where, replay, *_ in _replayed(env, seed, True, True)))


def _compare(env: Any, replay: KernelReplay, where: str, played: tuple[str, tuple[float, ...]] | None,
             returned: tuple[Any, ...]) -> None:
    """The view at ``where`` against ``replay``: its cells and the colour readings of the
    ``infos`` it ``returned`` (a parallel step's returns, or the AEC env's dicts in their
    order); after a half-turn (or step) ``played`` (``(where, the kernel's rewards)``), every
    reward it reports the kernel's for that player and its ends as :func:`_compare_ends` says."""
    if played is not None:
        _, rewards, terminations, truncations, _ = returned
        kernel = dict(zip(("agent", *_ghosts(env)), played[1], strict=False))
        if any(float(reward) != kernel.get(name) for name, reward in rewards.items()):
            fail("kernel", f"{played[0]}: rewards {dict(rewards)}, the kernel's {kernel}")
        _compare_ends(replay, any(terminations.values()), any(truncations.values()), config_of(env).max_cycles,
                      played[0])
    check_cells(replay, _cells(env), where)
    info = returned[-1].get("agent", {})
    for name, reading in replay.readings.items():
        if name in info and isinstance(info[name], (int, np.integer)) and int(info[name]) != reading:
            fail("kernel", f"{where}: info[{name!r}] is {info[name]}, the kernel's draw reads {reading}")


#: The AEC checks, in the order :func:`aec_conformance` runs them.
AEC_CHECKS = (check_aec_spaces_and_masks, check_aec_determinism, check_aec_zero_sum, check_aec_pickle,
              check_aec_refusals, check_aec_kernel, check_aec_observations)


@arguments_checked
def aec_conformance(make_env: Callable[[], Any], seed: int = 0) -> None:
    """Run every check of an AEC view (:data:`AEC_CHECKS`) on envs from ``make_env``, as the
    example of :mod:`gridghost.testing` does.

    Args:
        make_env: returns a fresh AEC env (a gridghost env, or a wrapper around one).
        seed: the first seed the checks use.

    Raises:
        TypeError, ValueError: a bad argument (naming it), before any check runs.
        AssertionError: the first contract that fails, named at the start of the message.
    """
    for check in AEC_CHECKS:
        check(make_env, seed)


# -- the parallel env -------------------------------------------------------------------------------
def _movers(env: Any) -> list[str]:
    """The agents to move, from ``state()``'s ghost-to-move channel (its last): the agent, or every
    ghost (always, for a view that plays the agent itself)."""
    agent_acts = "agent" in env.possible_agents
    return _ghosts(env) if not agent_acts or np.asarray(env.state())[:, :, -1].any() else ["agent"]


@contract("spaces")
def check_parallel_spaces_and_masks(make_env: Callable[[], Any], seed: int = 0) -> None:
    """Every observation lies in its space, the spaces are the same objects at every call and
    ``Discrete(4)`` for actions; the mover's mask (each moving ghost's, for a team) is the
    kernel's at its cell, the waiting side's allows exactly one action, none is all zeros.

    Raises:
        AssertionError: ``"spaces: ..."`` or ``"masks: ..."``.
    """
    env = make_env()
    observations, infos = env.reset(seed=seed)
    _check_spaces(env)
    kernel, actions = kernel_of(env), random_actions(seed)
    ended = False
    for _ in range(MAX_HALF_TURNS):
        movers = _movers(env)
        for name, observation in observations.items():
            check_in_space(env.observation_space(name), observation, f"{name}'s observation")
            mask = _mask_of(observation, infos[name])
            if name in movers and not ended:
                check_mask(mask, f"the mover {name}'s action mask", _kernel_mask(env, kernel, name))
            else:
                check_mask(mask, f"the waiting {name}'s action mask")
                if int(np.sum(mask)) != 1:
                    fail("masks", f"the waiting {name}'s mask must allow exactly its no-op, got {mask}")
        if not env.agents:
            break
        observations, _, terminations, truncations, infos = env.step({name: actions() for name in env.agents})
        ended = any(terminations.values()) or any(truncations.values())


@contract("determinism")
def check_parallel_determinism(make_env: Callable[[], Any], seed: int = 0) -> None:
    """As :func:`check_aec_determinism`, through ``reset`` and ``step``'s returns.

    Raises:
        AssertionError: ``"determinism: ..."``.
    """
    check_episode_determinism(make_env, functools.partial(_episode, False), seed, "two envs reset with one seed")


@contract("zero-sum")
def check_parallel_zero_sum(make_env: Callable[[], Any], seed: int = 0, episodes: int = 3) -> None:
    """With the default rewards, both sides' rewards of every step add up to exactly 0 (a team's:
    the agent's and each ghost's). A view that plays the agent itself reports no agent's reward
    to add, and passes.

    Raises:
        AssertionError: ``"zero-sum: ..."``.
    """
    env = make_env()
    if not zero_sum_by_default(env) or "agent" not in env.possible_agents:
        return
    actions = random_actions(seed)
    for episode in range(episodes):
        for step, (_, rewards, *_) in enumerate(_episode(False, env, seed + episode, actions, 2**31)[1:]):
            check_zero_sum(rewards, f"step {step} of seed {seed + episode}")


@contract("pickling")
def check_parallel_pickle(make_env: Callable[[], Any], seed: int = 0, after: int = 3) -> None:
    """As :func:`check_aec_pickle`.

    Raises:
        AssertionError: ``"pickling: ..."``.
    """
    _goes_on("pickling", make_env(), seed, after, False)


@contract("refusals")
def check_parallel_refusals(make_env: Callable[[], Any], seed: int = 0, after: int = 2) -> None:
    """A bad action of the mover, or none for it, raises ``TypeError`` or ``ValueError`` and
    changes nothing (the env then plays on exactly as a copy that never saw it). For a team the
    first ghost's action is the bad one, beside good ones of its teammates; an action for a name
    that is not an agent of the game (``"ghost_9"``) is refused too.

    Raises:
        AssertionError: ``"refusals: ..."``.
    """
    def refused(env: Any) -> list[dict[str, Any]]:
        first, *others = _movers(env)
        chosen = [{first: bad, **dict.fromkeys(others, 0)} for bad in (*BAD_ACTIONS, None)]
        return [*chosen, {**dict.fromkeys([first, *others], 0), "ghost_9": 0}]  # "ghost_9": no agent of the game

    _goes_on("refusals", make_env(), seed, after, False, refused)


@contract("kernel")
def check_parallel_kernel(make_env: Callable[[], Any], seed: int = 0, episodes: int = 2) -> None:
    """As :func:`check_aec_kernel`: each step is the mover's half-turn of the kernel's game (for a
    view that plays the agent itself, the team's move and the agent's answer: one cycle), and its
    returns report a termination exactly when the kernel's game is over and a truncation exactly
    when it goes on after ``max_cycles`` cycles.

    Raises:
        AssertionError: ``"kernel: ..."``.
    """
    env = make_env()
    for episode in range(episodes):
        for where, replay, returned, played in _replayed(env, seed + episode, False):
            _compare(env, replay, where, played, returned)


@contract("observations")
def check_parallel_observations(make_env: Callable[[], Any], seed: int = 0) -> None:
    """As :func:`check_aec_observations`: every observation of ``reset`` and ``step`` (every
    agent's the env returns, with whose turn it is) is the encoder of the env's settings applied
    to the kernel's state, and none changes once handed out.

    Raises:
        AssertionError: ``"observations: ..."``.
    """
    env = make_env()
    check_replayed(env, ((replay, [(observation, name, f"{where}: {name!r}'s observation")
                                   for name, observation in returned[0].items()])
                         for where, replay, returned, _ in _replayed(env, seed, False, True)), True)


#: The parallel checks, in the order :func:`parallel_conformance` runs them.
PARALLEL_CHECKS = (check_parallel_spaces_and_masks, check_parallel_determinism, check_parallel_zero_sum,
                   check_parallel_pickle, check_parallel_refusals, check_parallel_kernel, check_parallel_observations)


@arguments_checked
def parallel_conformance(make_env: Callable[[], Any], seed: int = 0) -> None:
    """Run every check of a parallel view (:data:`PARALLEL_CHECKS`) on envs from ``make_env``.

    For example, ``parallel_conformance(lambda: gridghost.parallel_env(max_cycles=10))``.

    Args:
        make_env: returns a fresh parallel env (a gridghost env, or a wrapper around one).
        seed: the first seed the checks use.

    Raises:
        TypeError, ValueError: a bad argument (naming it), before any check runs.
        AssertionError: the first contract that fails, named at the start of the message.
    """
    for check in PARALLEL_CHECKS:
        check(make_env, seed)
