"""What every view's checks share: exact comparison, the action-mask contract and the kernel's
replay of an episode (:class:`KernelReplay`).

Every failure is an ``AssertionError`` whose message starts with the contract that failed
(``"determinism: ..."``, ``"kernel: ..."``), so a test can tell which check caught a view.
"""

from __future__ import annotations

import copy
import functools
import inspect
import itertools
import pickle
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NoReturn, TypeVar, cast

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

from gridghost.core.game import Game
from gridghost.core.layout import Layout
from gridghost.core.names import FILTER_STREAM
from gridghost.core.rules import NUM_ACTIONS, Outcome, Side
from gridghost.sensing.belief import BeliefFilter
from gridghost.sensing.sensors import ColorSensor

#: Actions every view must refuse (``TypeError`` or ``ValueError``), leaving everything as it was.
BAD_ACTIONS: tuple[Any, ...] = (4, -1, 1.5, "up", np.float32(1.0), True)
#: The errors a refused action may raise.
REFUSALS = (TypeError, ValueError)
#: How many seeds, from the one it is given, a check tries to find an episode long enough for it.
SEED_TRIES = 20

CheckT = TypeVar("CheckT", bound=Callable[..., None])


def fail(contract: str, message: str) -> NoReturn:
    """Raise the ``AssertionError`` of a broken ``contract``.

    Raises:
        AssertionError: always, as ``"<contract>: <message>"``.
    """
    raise AssertionError(f"{contract}: {message}")


#: The parameters that name the function building a fresh view, one per kind of view.
MAKERS = ("make_env", "make_game", "make_view")
#: The counting parameters of the public checks and the least value each accepts (the first
#: seed, how many episodes, half-turns into an episode, steps or turns to play).
COUNTS = {"seed": 0, "episodes": 1, "after": 0, "steps": 1, "turns": 1}


def checked_arguments(function: Callable[..., Any], args: Sequence[Any],
                      kwargs: Mapping[str, Any]) -> inspect.BoundArguments:
    """The arguments of a call of the public check or suite ``function``, checked before it runs:
    the view's maker (``make_env``, ``make_game`` or ``make_view``) callable, every count of
    :data:`COUNTS` an ``int`` (a numpy integer is taken as the ``int`` it holds) at least its
    least value. The caller's mistakes, never the view's.

    Returns:
        The bound arguments, defaults applied.

    Raises:
        TypeError: an argument missing, unknown or of the wrong type, naming it.
        ValueError: a count below its least value, naming it.
    """
    try:
        bound = inspect.signature(function).bind(*args, **kwargs)
    except TypeError as error:
        raise TypeError(f"{function.__name__}(): {error}") from None
    bound.apply_defaults()
    for name, value in bound.arguments.items():
        if name in MAKERS:
            if not callable(value):
                raise TypeError(f"{name} must be a function of no arguments that returns a fresh view, got "
                                f"{type(value).__name__} {value!r}")
        elif name in COUNTS:
            least = COUNTS[name]
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
                raise TypeError(f"{name} must be an int >= {least}, got {type(value).__name__} {value!r}")
            if value < least:
                raise ValueError(f"{name} must be an int >= {least}, got {value}")
            bound.arguments[name] = int(value)
        else:
            raise TypeError(f"{function.__name__}() has a parameter {name!r} that the suite cannot check")
    return bound


def arguments_checked(function: CheckT) -> CheckT:
    """``function`` (a public check or suite) with its arguments checked by
    :func:`checked_arguments` before it runs."""

    @functools.wraps(function)
    def run(*args: Any, **kwargs: Any) -> None:
        bound = checked_arguments(function, args, kwargs)
        function(*bound.args, **bound.kwargs)

    return cast(CheckT, run)


def contract(name: str) -> Callable[[CheckT], CheckT]:
    """A check of the contract ``name``.

    Its arguments are checked first (:func:`checked_arguments`: a bad one raises ``TypeError`` or
    ``ValueError``, nothing runs). An exception that building a view raises (the maker's), and
    one other than ``AssertionError`` that the view raises while the check plays it (a view that
    misreports its state, such as a hidden truncation, makes the game refuse the next call),
    becomes the contract's ``AssertionError``, the exception chained to it.

    Args:
        name: the contract, which the check's failures start with.

    Returns:
        A decorator of the check.
    """

    def checked(check: CheckT) -> CheckT:
        @functools.wraps(check)
        def run(*args: Any, **kwargs: Any) -> None:
            bound = checked_arguments(check, args, kwargs)
            maker = next(parameter for parameter in bound.arguments if parameter in MAKERS)
            make = bound.arguments[maker]

            def build() -> Any:  # ``make``, its exceptions failing the contract
                try:
                    return make()
                except Exception as error:
                    raise AssertionError(f"{name}: building the view raised {type(error).__name__} ({error}): "
                                         f"{maker}() must return a fresh view") from error

            bound.arguments[maker] = build
            try:
                check(*bound.args, **bound.kwargs)
            except AssertionError:
                raise
            except Exception as error:
                raise AssertionError(
                    f"{name}: the view raised {type(error).__name__} ({error}) in {check.__name__}, which plays "
                    "it as it reports itself; a view that misreports its state (a hidden termination or "
                    "truncation, another agent to move) makes the game refuse the next call") from error

        return cast(CheckT, run)

    return checked


def lasting_seed(contract_name: str, lasts: Callable[[int], bool], seed: int, steps: int) -> int:
    """The first seed from ``seed`` whose episode lasts ``steps`` steps (``lasts(seed)``), for a
    check that needs an episode going on; :data:`SEED_TRIES` seeds at most.

    Raises:
        AssertionError: ``"<contract_name>: ..."`` when every episode of those seeds ends sooner.
    """
    for candidate in range(seed, seed + SEED_TRIES):
        if lasts(candidate):
            return candidate
    fail(contract_name, f"the episodes of seeds {seed}..{seed + SEED_TRIES - 1} all end within {steps} steps; the "
                        "check needs one that goes on (a map or an opponent that ends every episode at once?)")


def same(first: Any, second: Any, where: str = "value") -> str | None:
    """Where two values differ, bit for bit, or ``None`` when they are the same.

    Arrays must agree in dtype, shape and every element (NaN equals NaN); floats exactly; mappings
    in their keys and values; sequences item by item; anything else by ``==``.

    >>> same({"a": np.array([1, 2])}, {"a": np.array([1, 3])})
    "value['a']: [1 2] != [1 3]"
    """
    if isinstance(first, np.ndarray) or isinstance(second, np.ndarray):
        a, b = np.asarray(first), np.asarray(second)
        if a.dtype != b.dtype or a.shape != b.shape:
            return f"{where}: {a.dtype}{a.shape} != {b.dtype}{b.shape}"
        if a.dtype == object:
            return same(a.ravel().tolist(), b.ravel().tolist(), where)
        equal = np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
        return None if equal else f"{where}: {a} != {b}"
    if isinstance(first, Mapping) and isinstance(second, Mapping):
        if list(first) != list(second):
            return f"{where}: keys {list(first)} != {list(second)}"
        for key in first:
            found = same(first[key], second[key], f"{where}[{key!r}]")
            if found:
                return found
        return None
    if isinstance(first, (list, tuple)) and isinstance(second, (list, tuple)):
        if len(first) != len(second):
            return f"{where}: length {len(first)} != {len(second)}"
        for index, (a, b) in enumerate(zip(first, second, strict=True)):
            found = same(a, b, f"{where}[{index}]")
            if found:
                return found
        return None
    if type(first) is not type(second) and not (np.isscalar(first) and np.isscalar(second)):
        return f"{where}: {type(first).__name__} {first!r} != {type(second).__name__} {second!r}"
    if isinstance(first, float) and isinstance(second, float) and np.isnan(first) and np.isnan(second):
        return None  # NaN is the same NaN
    return None if first == second else f"{where}: {first!r} != {second!r}"


def check_same(contract: str, first: Any, second: Any, what: str) -> None:
    """Fail ``contract`` unless ``first`` and ``second`` are the same bit for bit (see :func:`same`)."""
    found = same(first, second, what)
    if found:
        fail(contract, f"{found}")


def check_seeded(runs: Sequence[Any], replay: Callable[[int], Any], seed: int, tries: int, what: str,
                 unit: str = "seed", run: str = "episode") -> None:
    """The determinism contract: two runs with ``seed`` the same bit for bit, and some other
    seed's run (``replay(other)``, the same actions) different somewhere.

    Args:
        runs: the two runs with ``seed``.
        replay: plays a run with another seed (or key) and ``seed``'s actions.
        seed: the seed of the two runs; the others are the next ``tries``.
        what: how the two runs were made, for the message.
        unit, run: what a seed and a run are called in the message (``"key"``, ``"run"``).

    Raises:
        AssertionError: ``"determinism: ..."``.
    """
    first, second = runs
    check_same("determinism", first, second, what)
    for other in range(seed + 1, seed + tries + 1):
        if same(replay(other), first) is not None:
            return
    fail("determinism", f"{unit}s {seed + 1}..{seed + tries} all replayed {unit} {seed}'s {run}: the {unit} changes "
                        "nothing")


def check_mask(mask: Any, where: str, expected: np.ndarray | None = None, dtype: Any = np.int8) -> None:
    """The action-mask contract for one mask: ``dtype[..., 4]``, 0/1, never all zeros in a row,
    and equal to ``expected`` (the kernel's) when given.

    Raises:
        AssertionError: ``"masks: ..."`` naming ``where``.
    """
    array = np.asarray(mask)
    if not isinstance(mask, np.ndarray) or array.dtype != np.dtype(dtype) or array.shape[-1:] != (NUM_ACTIONS,):
        fail("masks", f"{where} must be a numpy {np.dtype(dtype)} array of shape (..., {NUM_ACTIONS}), got "
                      f"{type(mask).__name__} {getattr(mask, 'dtype', '')}{getattr(mask, 'shape', '')}")
    if not np.isin(array, (0, 1)).all():
        fail("masks", f"{where} must hold only 0 and 1, got {array}")
    if not array.reshape(-1, NUM_ACTIONS).any(axis=1).all():
        fail("masks", f"{where} is all zeros somewhere (a masked sampler would divide by zero): {array}")
    if expected is not None and not np.array_equal(array, expected):
        fail("masks", f"{where} is {array.astype(int).tolist()}, the kernel's is {np.asarray(expected).tolist()}")


def check_private_mask(mask: np.ndarray, later: np.ndarray, where: str) -> None:
    """A mask handed out is read-only, or a copy of its own (writing to it cannot reach the view).

    Raises:
        AssertionError: ``"masks: ..."``.
    """
    if mask.flags.writeable and np.shares_memory(mask, later):
        fail("masks", f"{where} is writable and shares memory with a later mask: a caller writing to it would "
                      "change what the view reports")


def check_in_space(space: spaces.Space[Any], value: Any, where: str) -> None:
    """Fail ``"spaces"`` unless ``value`` lies in ``space``."""
    if not space.contains(value):
        fail("spaces", f"{where} is not in its space {space}: {value!r}")


def check_action_space(space: Any, where: str) -> None:
    """Every view's single-game action space is ``Discrete(4)``."""
    if not isinstance(space, spaces.Discrete) or space.n != NUM_ACTIONS or space.start != 0:
        fail("spaces", f"{where} must be Discrete({NUM_ACTIONS}), got {space!r}")


def check_refusal(contract: str, call: Callable[[], Any], what: str) -> None:
    """``call()`` must raise ``TypeError`` or ``ValueError`` (a refused action), nothing else."""
    try:
        call()
    except REFUSALS:
        return
    except Exception as error:  # any other error breaks the contract too
        fail(contract, f"{what} raised {type(error).__name__} ({error}), not TypeError or ValueError")
    fail(contract, f"{what} was accepted; it must raise TypeError or ValueError")


def config_of(view: Any) -> Any:
    """The game settings of a gridghost view or of a wrapper around one: the first ``config`` found
    on the view, its ``unwrapped``, or the game it holds (``aec_env``, ``game``).

    Raises:
        AssertionError: ``"kernel: ..."`` when the view exposes none.
    """
    for holder in (view, getattr(view, "unwrapped", None)):
        for candidate in (holder, getattr(holder, "aec_env", None), getattr(holder, "game", None)):
            config = getattr(candidate, "config", None)
            if config is not None and hasattr(config, "slip"):
                return config
    fail("kernel", f"{view!r} exposes no game settings (a `config` with the slip, rewards and sensors)")


def kernel_of(view: Any, layout: Layout | None = None) -> Any:
    """The kernel of a view's settings (on ``layout``, default the view's map): the
    :class:`~gridghost.core.game.Game` of its slip, rewards and ghosts (a team's credit for
    ``ghosts >= 2``), built here from the settings, not taken from the view (typed ``Any``: the
    one-ghost checks read a ``Game``'s tables)."""
    config = config_of(view)
    if layout is None:
        layout = getattr(getattr(view, "unwrapped", view), "layout", config.layout)
    if not isinstance(layout, Layout):
        fail("kernel", f"cannot tell the view's current map (got {layout!r}); pass a view with a fixed layout")
    return Game(layout, config.slip, config.rewards, config.ghost_rewards, config.use_ghost, ghosts=config.ghosts,
                credit=config.ghost_credit if config.ghosts > 1 else "team")


def zero_sum_by_default(view: Any) -> bool:
    """Whether the view plays the default zero-sum rewards with the ghost in the game (a team's
    every ghost the agent's negated: ``ghost_credit="team"``)."""
    config = config_of(view)
    return (config.ghost_rewards is None and getattr(config, "use_ghost", True)
            and getattr(config, "ghost_credit", "team") == "team")


def check_zero_sum(rewards: Mapping[str, Any], where: str) -> None:
    """The agent's reward (or return) and each ghost's sum to exactly 0 (for one ghost: the two
    sides'); a batch's game by game (the agent's ``[N]``, the ghosts' side's ``[N]`` or ``[N, k]``).

    Raises:
        AssertionError: ``"zero-sum: ..."``.
    """
    agent = np.asarray(rewards.get("agent", 0.0))
    for name, reward in rewards.items():
        total = agent.reshape(-1, 1) + np.asarray(reward).reshape(agent.size, -1)
        if name != "agent" and total.any():
            fail("zero-sum", f"{where}: the agent's {agent} and {name}'s {reward} sum to {total.ravel()}, not 0")


class KernelReplay:
    """The game kernel playing an episode as the RNG contract says a view plays it: one generator
    seeded as Gymnasium seeds (``seeding.np_random(seed)``), the sensors that read the game's
    generator drawing after the reset and after each agent move, the slip drawing before them.

    Args:
        game: the kernel.
        sensors: the view's sensors (``None``: the colour sensor of quality 0.8); only those with
            ``uses_game_rng`` draw here.
        seed: the view's reset seed.
        belief_filter: a fresh belief filter to follow the agent as a view's does: seeded from
            its own stream of ``seed`` (``SeedSequence(seed, spawn_key=(FILTER_STREAM,))``),
            updated with the readings after the reset, and after each agent move told the
            action and updated.

    Attributes:
        state: the kernel's state.
        readings: the last readings of the replayed sensors.
        cycles: the cycles completed (a ghost's or the team's move; the agent's without a ghost).
    """

    def __init__(self, game: Game, sensors: Iterable[Any] | None, seed: int,
                 belief_filter: BeliefFilter | None = None) -> None:
        self.game = game
        self.rng = seeding.np_random(seed)[0]
        self.sensors = []
        for sensor in sensors if sensors is not None else (ColorSensor(),):
            if not sensor.uses_game_rng:
                continue
            if not isinstance(sensor, ColorSensor):
                fail("kernel", f"cannot replay {sensor!r}: only the colour sensor draws from the game's generator")
            self.sensors.append(ColorSensor(game.layout, sensor.quality))
        self.state = game.initial_state()
        self.cycles = 0
        self.readings = self._read()
        self.belief_filter = belief_filter
        if belief_filter is not None:
            belief_filter.reset(np.random.SeedSequence(seed, spawn_key=(FILTER_STREAM,)))
            belief_filter.update(self.readings)

    def _read(self) -> dict[str, Any]:
        return {sensor.name: sensor.measure(self.state, self.rng) for sensor in self.sensors}  # type: ignore[arg-type]

    def cells(self) -> tuple[tuple[int, int], tuple[tuple[int, int], ...]]:
        """``((agent row, col), ((ghost row, col), ...))`` now, the ghosts in order."""
        board = self.game.board
        return board.position(self.state.agent), tuple(board.position(cell) for cell in self.state.ghosts)

    def _rewards(self, side: Side) -> tuple[float, ...]:
        """``(agent's reward, ghost's reward)``; a team's ``(agent's, each ghost's...)``."""
        return (self.game.rewards(side, self.state.outcome)[0], *self.game.ghost_rewards_of(side, self.state))

    def agent(self, action: int) -> tuple[float, ...]:
        """Replay the agent's move; return ``(agent's reward, ghost's reward)`` (a team's: each ghost's)."""
        self.state, _ = self.game.agent_step(self.state, int(action), self.rng)  # type: ignore[arg-type]
        self.readings = self._read()
        if self.belief_filter is not None:
            self.belief_filter.predict(int(action))
            self.belief_filter.update(self.readings)
        if not self.game.use_ghost:
            self.cycles += 1
        return self._rewards(Side.AGENT)

    def ghost(self, action: Any) -> tuple[float, ...]:
        """Replay the ghost's move (a team's: its ``k`` actions); return ``(agent's reward, ghost's
        reward)`` (a team's: each ghost's)."""
        # one ghost's int, or a team's actions (a learning team's list: of one for one ghost)
        moves = tuple(int(move) for move in action) if isinstance(action, (list, tuple)) else int(action)
        self.state = self.game.ghost_step(self.state, moves)  # type: ignore[arg-type]
        self.cycles += 1
        return self._rewards(Side.GHOST)

    def explain(self, side: Side, cells: tuple[Any, Any], where: str) -> tuple[float, ...]:
        """Replay the move of ``side`` (an opponent whose action the view does not report) that
        leads to ``cells``, trying 0..3 in order (a team's joint moves in order); return its rewards.

        Raises:
            AssertionError: ``"kernel: ..."`` when no move of ``side`` leads there.
        """
        tried: Iterable[Any] = itertools.product(range(NUM_ACTIONS), repeat=self.game.ghosts) \
            if side == Side.GHOST else range(NUM_ACTIONS)
        for action in tried:
            trial = copy.copy(self)
            trial.rng, trial.belief_filter = copy.deepcopy(self.rng), copy.deepcopy(self.belief_filter)
            try:
                rewards = trial.agent(action) if side == Side.AGENT else trial.ghost(action)
            except ValueError:  # readings the filter finds impossible: not the move the view made
                continue
            if trial.cells() == cells:
                self.__dict__.update(trial.__dict__)
                return rewards
        fail("kernel", f"{where}: no move of the {side.name.lower()} from {self.cells()} with the kernel's draws "
                       f"leads to {cells}")

    @property
    def over(self) -> bool:
        """Whether the kernel's game has ended."""
        return self.state.outcome != Outcome.ONGOING


def check_cells(replay: KernelReplay, cells: tuple[Any, Any], where: str) -> None:
    """Fail ``"kernel"`` unless a view's ``(agent, ghosts)`` ``cells`` are the replay's."""
    if cells != replay.cells():
        fail("kernel", f"{where}: the view's (agent, ghosts) cells are {cells}, the kernel's {replay.cells()}")


def added(first: Any, second: Any) -> Any:
    """Two rewards added: floats, or tuples player by player (``None`` first: the second alone)."""
    if first is None:
        return second
    return tuple(a + b for a, b in zip(first, second, strict=True)) if isinstance(first, tuple) else first + second


def random_actions(seed: int) -> Callable[[], int]:
    """A seeded stream of uniformly random actions (Python ints)."""
    rng = np.random.default_rng(seed)
    return lambda: int(rng.integers(NUM_ACTIONS))


def check_goes_on(contract: str, env: Any, play_on: Callable[[Any], Any], name: str = "the env",
                  when: str = "mid-episode", refused: Iterable[tuple[Callable[[], Any], str]] = ()) -> None:
    """``env`` goes on exactly as its copy through ``pickle`` made now: ``play_on(view)`` (the rest
    of an episode, or of a run) gives the same record for both. With ``refused`` (``(call, what it
    is)`` pairs of ``env``'s calls with a bad action), the refusals contract: each call raises
    ``TypeError`` or ``ValueError`` and changes nothing that the record shows.

    Args:
        contract: the contract, ``"pickling"`` or ``"refusals"``.
        env: the view or engine (called ``name`` in the messages), ``when`` (mid-episode, mid-run).
        play_on: plays a view on and returns what it handed out.
        refused: the calls ``env`` must refuse before it goes on.

    Raises:
        AssertionError: ``"<contract>: ..."``: ``env`` does not pickle (naming the error), a call
            is not refused, or the two differ.
    """
    try:
        copied = pickle.loads(pickle.dumps(env))
    except Exception as error:
        fail(contract, f"{name} does not pickle {when}: {type(error).__name__}: {error}")
    for call, what in refused:
        check_refusal(contract, call, what)
    what = f"after refused actions, {name} against a copy that saw none" if contract == "refusals" else \
        f"{name} and its unpickled copy"
    check_same(contract, play_on(env), play_on(copied), what)


def _random_actions_of(view: Any, seed: int) -> Callable[[], int]:
    return random_actions(seed)


def check_episode_determinism(make_env: Callable[[], Any], episode: Callable[..., Any], seed: int, what: str,
                              actions_of: Callable[[Any, int], Callable[[], Any]] = _random_actions_of) -> None:
    """The determinism contract of a view's episode runner ``episode(view, seed, actions)``: two
    envs reset with ``seed`` play ``seed``'s random actions (``actions_of(view, seed)``: a
    learning team's lists where it says so) identically, bit for bit, through a seeded episode and
    an unseeded one after it; some of the next 10 seeds gives another episode.

    Raises:
        AssertionError: ``"determinism: ..."``, naming ``what`` (how the two runs were made).
    """
    def replay(other: int) -> Any:
        env = make_env()
        return episode(env, other, actions_of(env, seed))

    runs = []
    for _ in range(2):
        env = make_env()
        actions = actions_of(env, seed)
        runs.append(episode(env, seed, actions) + episode(env, None, actions))
    check_seeded(runs, replay, seed, 10, what)


def rest_of_episode(episode: Callable[..., Any], seed: int,
                    actions_of: Callable[[Any, int], Callable[[], Any]] = _random_actions_of) -> Callable[[Any], Any]:
    """A view's rest of its episode, for :func:`check_goes_on`: ``episode(view, None, actions,
    reset=False)`` (a view's episode runner) with the actions of ``actions_of(view, seed + 1)``."""
    return lambda view: episode(view, None, actions_of(view, seed + 1), reset=False)
