"""The contracts of the JAX views, :class:`gridghost.jax.GridGhostJax` (both sides, half-turns)
and :class:`gridghost.jax.GridGhostJaxSingle` (one learner, full turns), through their batched
functions ``batch_reset`` and ``batch_step`` (the per-game functions are their ``vmap``).

JAX is imported when a check runs (``pip install "gridghost[jax]"``), so that this module
imports without it. Each check takes ``make_view``, which returns a fresh view, and fails as
:mod:`gridghost.testing` says; :func:`jax_conformance` runs them all.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np

from gridghost.core.rules import NUM_ACTIONS
from gridghost.testing.batched_views import (
    bad_batches,
    check_engine_moves,
    check_engine_observations,
    check_sides_sum_to_zero,
)
from gridghost.testing.common import (
    arguments_checked,
    check_goes_on,
    check_in_space,
    check_mask,
    check_refusal,
    check_same,
    check_seeded,
    contract,
    fail,
    kernel_of,
)

#: Games per batch and steps per run the checks play.
NUM_GAMES, STEPS = 4, 20
#: Each view's compiled functions (compiled once per view, dropped with it).
_JITTED: weakref.WeakKeyDictionary[Any, dict[str, Callable[..., Any]]] = weakref.WeakKeyDictionary()


def _key(seed: int) -> Any:
    import jax

    return jax.random.key(seed)


def _host(tree: Any) -> Any:
    """A pytree's arrays on the host, as NumPy arrays (comparable bit for bit)."""
    import jax

    return jax.tree.map(np.asarray, tree)


def _jitted(view: Any, name: str) -> Callable[..., Any]:
    """``jax.jit`` of a view's method (a batch of ``vmap`` for a per-game one), compiled once per view."""
    import jax

    cache = _JITTED.setdefault(view, {})
    if name not in cache:
        method = getattr(view, name)
        cache[name] = jax.jit(method if name.startswith("batch_") else jax.vmap(method))
    return cache[name]  # type: ignore[no-any-return]


def _two_sided(view: Any) -> bool:
    return getattr(view, "controlled", None) is None


def _team(view: Any) -> int:
    """The view's team size ``k`` (1: one ghost)."""
    return int(getattr(view, "ghosts", 1))


def _sides(view: Any) -> tuple[str, ...]:
    """The view's learning sides by the names its dicts use."""
    return tuple(view.agents) if _two_sided(view) else (view.controlled,)


def _action_shape(view: Any, side: str, n: int) -> tuple[int, ...]:
    """One side's actions for ``n`` games: ``(n,)``, or ``(n, k)`` for a team."""
    return (n, _team(view)) if side == "ghosts" else (n,)


def _actions(view: Any, state: Any, rng: np.random.Generator) -> Any:
    """Random actions for a batch: ``int32[N]`` (a team's ``int32[N, k]``), or per side for both sides."""
    n = int(np.shape(state.steps)[0])
    chosen = {side: rng.integers(NUM_ACTIONS, size=_action_shape(view, side, n)).astype(np.int32)
              for side in _sides(view)}
    return chosen if _two_sided(view) else chosen[view.controlled]


def _settings(view: Any) -> Any:
    """What the kernel and encoder builders read of a JAX view: its settings and its first map."""
    return SimpleNamespace(config=view.spec if _team(view) > 1 else view.engine.config, layout=view.engine.layouts[0])


def _kernel(view: Any) -> Any:
    """The kernel of the view's settings on its first map (a team's for ``ghosts >= 2``)."""
    return kernel_of(_settings(view), view.engine.layouts[0])


def _run(view: Any, seed: int, steps: int = STEPS, state: Any = None) -> list[Any]:
    """``batch_reset`` from ``seed``'s key (unless a ``state`` is given), then ``steps`` batch steps
    of random actions, each from its own key; every result on the host."""
    rng = np.random.default_rng(seed)
    record = []
    if state is None:
        observations, state = view.batch_reset(_key(seed), NUM_GAMES)
        record.append(_host((observations, state)))
    for step in range(steps):
        result = _jitted(view, "batch_step")(_key(seed * 1000 + step + 1), state, _actions(view, state, rng))
        state = result[1]
        record.append(_host(result))
    return record


@contract("spaces")
def check_jax_spaces_and_masks(make_view: Callable[[], Any], seed: int = 0) -> None:
    """Every observation lies in its side's ``observation_space``; ``action_space`` is
    ``Discrete(4)``; the side to move's mask (``get_avail_actions`` or ``action_masks``, ``bool[4]``)
    is the kernel's at its cell.

    Raises:
        AssertionError: ``"spaces: ..."`` or ``"masks: ..."``.
    """
    import gymnasium

    view = make_view()
    engine, rng = _Engine(view), np.random.default_rng(seed)
    for side in _sides(view):
        wanted = gymnasium.spaces.MultiDiscrete([NUM_ACTIONS] * _team(view)) if side == "ghosts" else \
            gymnasium.spaces.Discrete(NUM_ACTIONS)
        if view.action_space(side) != view.action_space(side) or view.action_space(side) != wanted:
            fail("spaces", f"action_space({side!r}) must be {wanted}")
    observations = engine.reset(seed)
    for step in range(STEPS):
        for side, rows in observations.items():
            for row, observation in enumerate(rows):
                check_in_space(view.observation_space(side), observation, f"{side}'s observation {row} at step {step}")
        side = _sides(view)[step % 2] if _two_sided(view) else view.controlled  # both sides: turns in every game
        masks = _host(_jitted(view, "get_avail_actions")(engine.state))[side] if _two_sided(view) else \
            _host(_jitted(view, "action_masks")(engine.state))
        cells = engine.positions[side != "agent"]
        check_mask(masks, f"{side}'s action masks at step {step}", engine.kernel.action_masks[cells].astype(bool), bool)
        observations = (engine.step_agent if side == "agent" else engine.step_ghost)(
            rng.integers(NUM_ACTIONS, size=_action_shape(view, side, NUM_GAMES))).observations


@contract("determinism")
def check_jax_determinism(make_view: Callable[[], Any], seed: int = 0) -> None:
    """One key, one run bit for bit (on two views); other keys differ somewhere.

    Raises:
        AssertionError: ``"determinism: ..."``.
    """
    runs = [_run(make_view(), seed) for _ in range(2)]
    view = make_view()  # one view replays the other keys (a view compiles its functions once)
    check_seeded(runs, lambda other: _run(view, other), seed, 5, "two views from one key", unit="key", run="run")


@contract("zero-sum")
def check_jax_zero_sum(make_view: Callable[[], Any], seed: int = 0) -> None:
    """Both sides' rewards of every half-turn sum to exactly 0 with the default rewards.

    Raises:
        AssertionError: ``"zero-sum: ..."``.
    """
    view = make_view()
    if _two_sided(view):
        check_sides_sum_to_zero(_kernel(view), view.agents[1], "step",
                                lambda: [rewards for _, _, rewards, *_ in _run(view, seed)[1:]])


@contract("pickling")
def check_jax_pickle(make_view: Callable[[], Any], seed: int = 0) -> None:
    """A view and a batch of states pickled mid-run go on identically to the originals.

    Raises:
        AssertionError: ``"pickling: ..."``.
    """
    view = make_view()
    _, state = view.batch_reset(_key(seed), NUM_GAMES)
    _, state, *_ = view.batch_step(_key(seed + 1), state, _actions(view, state, np.random.default_rng(seed)))
    check_goes_on("pickling", (view, state), lambda pair: _run(pair[0], seed, 10, pair[1]), "the view and its state",
                  "mid-run")


@contract("refusals")
def check_jax_refusals(make_view: Callable[[], Any], seed: int = 0) -> None:
    """Actions of another shape, dtype or range raise ``TypeError`` or ``ValueError`` (outside
    ``jit``) and the state they were given plays on as before.

    Raises:
        AssertionError: ``"refusals: ..."``.
    """
    view = make_view()
    _, state = view.batch_reset(_key(seed), NUM_GAMES)
    before = _run(view, seed, 5, state)
    good = _actions(view, state, np.random.default_rng(seed))
    shape = _action_shape(view, _sides(view)[-1], NUM_GAMES)  # the team's, where it learns
    for bad in bad_batches(shape, dtype=np.int32):
        actions = {**good, _sides(view)[-1]: bad} if _two_sided(view) else bad
        check_refusal("refusals", functools.partial(view.batch_step, _key(seed), state, actions),
                      f"batch_step with actions {bad.dtype}{bad.shape}")
    check_same("refusals", _run(view, seed, 5, state), before, "the state after refused actions")


@contract("kernel")
def check_jax_autoreset_and_kernel(make_view: Callable[[], Any], seed: int = 0) -> None:
    """As :func:`~gridghost.testing.batched_views.check_batched_autoreset_and_kernel` in
    same-step mode (as gymnax and JaxMARL: both sides at the end of the turn), the rewards in
    ``float32``; with exploring starts a game restarts in any state with the two apart and the
    agent off the goals.

    Raises:
        AssertionError: ``"kernel: ..."`` or ``"auto-reset: ..."``.
    """
    view = make_view()
    # one learner: a learning team is paid the mean of its ghosts' rewards
    check_engine_moves(_Engine(view), seed, STEPS,
                       pay=_float32 if _two_sided(view) else lambda reward: _float32(np.mean(reward)))


def _float32(reward: Any) -> Any:
    """A reward as a view hands it out: ``float32``, a team's as a tuple of them."""
    values = np.asarray(reward, dtype=np.float32)
    return tuple(values.tolist()) if values.ndim else values


@contract("observations")
def check_jax_observations(make_view: Callable[[], Any], seed: int = 0) -> None:
    """As :func:`~gridghost.testing.batched_views.check_batched_observations` in same-step mode:
    every game's observation by every observing side (both, or the learner) is that side's of
    the game's state (a game that ended in the agent's half shows its final state in that step).

    Raises:
        AssertionError: ``"observations: ..."``.
    """
    check_engine_observations(_Engine(make_view()), seed, STEPS)


class _Engine:
    """A JAX view seen as the batched engine its kernel and observations checks play
    (:func:`~gridghost.testing.batched_views.check_engine_moves`): :data:`NUM_GAMES` games in
    same-step mode, each call one compiled ``batch_step`` with a key of its own (the side not
    to move choosing 0), what it returns on the host, its positions the games' cells.

    Args:
        view: the JAX view.

    Attributes:
        state: the batch of the games' states.
    """

    autoreset_mode, num_games = "same_step", NUM_GAMES

    def __init__(self, view: Any) -> None:
        settings = _settings(view)
        self.view, self.config, self.layouts, self.obs_type = view, settings.config, view.engine.layouts, \
            view.engine.obs_type
        self.controlled: Any = getattr(view, "controlled", None)
        self.ghosts, self.kernel = _team(view), _kernel(view)
        self.explore_starts = float(np.asarray(getattr(view.default_params, "explore_starts", 0.0))) > 0.0
        self.step_agent = functools.partial(self._step, "agent")
        self.step_ghost = functools.partial(self._step, _sides(view)[-1])
        self._seed, self._calls = 0, 0
        self.state: Any = None

    @property
    def positions(self) -> tuple[np.ndarray, np.ndarray]:
        """The games' ``(agent cells, ghost cells)`` (a team's ``[N, k]``) on their map."""
        cells = self.kernel.num_cells
        if hasattr(self.state, "ghosts"):  # a team's: the cells themselves, global
            return np.asarray(self.state.agent) % cells, np.asarray(self.state.ghosts) % cells
        return np.divmod(np.asarray(self.state.state) % cells**2, cells)

    def _by_side(self, observations: Any) -> dict[str, Any]:
        return _host(observations) if _two_sided(self.view) else {self.controlled: _host(observations)}

    def reset(self, seed: int) -> dict[str, Any]:
        """The view's ``batch_reset`` from ``seed``'s key; its observations by side."""
        observations, self.state = self.view.batch_reset(_key(seed), NUM_GAMES)
        self._seed, self._calls = seed, 0
        return self._by_side(observations)

    def _step(self, side: str, actions: np.ndarray) -> SimpleNamespace:
        chosen: Any = actions.astype(np.int32)
        if _two_sided(self.view):
            chosen = {name: chosen if name == side else np.zeros(_action_shape(self.view, name, NUM_GAMES), np.int32)
                      for name in self.view.agents}
        self._calls += 1
        observations, self.state, rewards, dones, infos = _host(
            _jitted(self.view, "batch_step")(_key(self._seed + self._calls), self.state, chosen))
        terminations = np.asarray(infos["terminated"])
        done = np.asarray(dones["__all__"] if _two_sided(self.view) else dones)
        turn_over = side != "agent" or not _two_sided(self.view)  # a game ends its turn in the ghost's half
        return SimpleNamespace(observations=self._by_side(observations), terminations=terminations,
                               rewards=rewards if _two_sided(self.view) else {self.controlled: rewards},
                               truncations=done & ~terminations, final_observations={},
                               final_games=np.flatnonzero(done) if turn_over else np.zeros(0, np.int64))


#: The JAX views' checks, in the order :func:`jax_conformance` runs them.
JAX_CHECKS = (check_jax_spaces_and_masks, check_jax_determinism, check_jax_zero_sum, check_jax_pickle,
              check_jax_refusals, check_jax_autoreset_and_kernel, check_jax_observations)


@arguments_checked
def jax_conformance(make_view: Callable[[], Any], seed: int = 0) -> None:
    """Run every check of a JAX view (:data:`JAX_CHECKS`); needs JAX.

    Args:
        make_view: returns a fresh :class:`~gridghost.jax.GridGhostJax` or
            :class:`~gridghost.jax.GridGhostJaxSingle` (or an object with their API and an
            ``engine``, the :class:`~gridghost.batched.BatchedGame` its tables come from).
        seed: the first seed (PRNG key) the checks use.

    Raises:
        TypeError, ValueError: a bad argument (naming it), before any check runs.
        AssertionError: the first contract that fails, named at the start of the message.
    """
    for check in JAX_CHECKS:
        check(make_view, seed)
