"""What every view's ``observations`` contract shares: the observation a view must hand out (the
encoder of its settings applied to the kernel's state, :class:`Expected`), its comparison, and the
check that an observation once handed out never changes (:class:`HandedOut`).

The encoder is built from the view's settings (its ``config``) the way the views build theirs
(:func:`gridghost.config.parts.build_encoder`), not taken from the view. A belief map (the
``"belief"`` and ``"belief_vector"`` encodings) is a filter's estimate: where the replay can
follow the view's filter (:func:`replayed_filter`: a view of the AEC env, whose sensors all draw
from the game's generator) it is compared exactly too; elsewhere (the batched engines' own
filters) the check finds its entries (those that change with the map the encoder is given) and
holds them to a probability map (every entry in [0, 1], summing to 1).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, cast

import numpy as np

from gridghost.config.parts import build_encoder, build_map_parts
from gridghost.core.layout import Layout
from gridghost.core.rules import SIDE_OF, GameState
from gridghost.sensing.belief import BeliefFilter
from gridghost.testing.common import KernelReplay, config_of, fail, kernel_of, same

#: The contract's name, which its failures start with.
CONTRACT = "observations"
#: How far a belief map's sum may be from 1 (a float32 map of a few thousand cells).
BELIEF_TOLERANCE = 1e-4


class Expected:
    """The observations a view must hand out: the encoder of the view's settings applied to a
    state of the kernel's game.

    Args:
        view: the view (its settings are found as :func:`~gridghost.testing.common.config_of` finds them).
        layout: the map; default the view's.
        both_observe: the view lets every side observe at every half-turn (the parallel env):
            its encoder says whose turn it is.
        clock: returns the cycles completed, for ``append_step_count``.
        obs_type: the encoding, when the view names it apart from its settings (the batched
            engine keeps ``"belief_vector"`` as its ``obs_type``, its settings' being the
            ``"vector"`` it adds its own belief map to).
        belief: returns the belief map a belief encoding shows (a replayed filter's); ``None``:
            the map is held to a probability map only.
    """

    def __init__(self, view: Any, layout: Layout | None = None, both_observe: bool = False,
                 clock: Callable[[], int] | None = None, obs_type: str | None = None,
                 belief: Callable[[], np.ndarray] | None = None) -> None:
        kernel, config = kernel_of(view, layout), config_of(view)
        if obs_type is not None and obs_type != config.obs_type:
            config = dataclasses.replace(config, obs_type=obs_type)
        shape = (kernel.layout.rows, kernel.layout.cols)
        # Without the belief: two maps, and the entries where the two observations differ are the belief's.
        self._maps: tuple[Callable[[], np.ndarray], ...] = (belief,) if belief is not None else (
            functools.partial(np.zeros, shape), functools.partial(np.ones, shape))
        self._map = self._maps[0]
        self.encoder = build_encoder(config, kernel.board, lambda: self._map(), clock, both_observe)

    def of(self, name: str, state: Any) -> tuple[Any, Any]:
        """The observation of ``state`` by the player ``name`` (``"agent"``, ``"ghost"``,
        ``"ghost_<i>"``), as a pair: with a belief map of zeros, and of ones (the one
        observation twice when the belief is known).

        Raises:
            AssertionError: ``"observations: ..."`` when the settings' game has no such player.
        """
        keys = self.encoder.keys
        key = name if name in keys else SIDE_OF.get(name) if len(keys) == 2 else None
        if key not in keys:
            fail(CONTRACT, f"the view names an observer {name!r} that its settings' game does not have "
                           f"(its observers: {list(keys)})")
        observe, pair = self.encoder.observer(key), []
        for belief in self._maps:
            self._map = belief
            pair.append(observe(state))
        return pair[0], pair[-1]

    def check(self, got: Any, expected: tuple[Any, Any], where: str) -> None:
        """Fail unless ``got`` is the observation ``expected`` (a pair from :meth:`of`, or
        :func:`stacked_pairs`), leaf by leaf, exactly but for a belief map.

        Raises:
            AssertionError: ``"observations: ..."``.
        """
        found = _differs(got, expected[0], expected[1], where)
        if found:
            fail(CONTRACT, f"{found} (the encoder of the view's settings applied to the kernel's state)")


def replayed_filter(view: Any) -> BeliefFilter | None:
    """A fresh belief filter of the view's settings (:func:`~gridghost.config.parts.build_map_parts`'s,
    on the view's map) for a :class:`~gridghost.testing.common.KernelReplay` to follow, or
    ``None``: no filter, or a sensor that draws from a stream of its own (the replay draws only
    the game's), or a view without a fixed map."""
    config = config_of(view)
    layout = getattr(getattr(view, "unwrapped", view), "layout", config.layout)
    if config.belief_filter is None or not isinstance(layout, Layout):
        return None
    parts = build_map_parts(dataclasses.replace(config, expert=None), layout)
    if not all(sensor.uses_game_rng for sensor in parts.sensors):
        return None
    return parts.belief_filter


def following(view: Any, replay: KernelReplay, both_observe: bool = False) -> Expected:
    """The :class:`Expected` observations of a view that ``replay`` follows: the cycles its
    clock, its filter's map (when it follows one) the belief (read from the replay at each call:
    a replay that explains a move takes the filter of the trial that did)."""
    return Expected(view, both_observe=both_observe, clock=lambda: replay.cycles, belief=None
                    if replay.belief_filter is None else lambda: cast(BeliefFilter, replay.belief_filter).belief())


def check_replayed(view: Any, steps: Iterable[tuple[KernelReplay, Iterable[tuple[Any, Any, str]]]],
                   both_observe: bool = False) -> None:
    """The observations contract along an episode a replay follows: at each of ``steps``,
    ``(replay, seen)``, every ``(observation, observer, where)`` of ``seen`` is :meth:`Expected.of`
    the replay's state by ``observer`` (a learning team's ghost names: their observations
    stacked, :func:`stacked_pairs`) under :func:`following`'s encoder, one replay throughout;
    and none changes once handed out.

    Raises:
        AssertionError: ``"observations: ..."``.
    """
    handed, expected = HandedOut(), None
    for replay, seen in steps:
        expected = expected or following(view, replay, both_observe)
        for observation, observer, where in seen:
            names = [observer] if isinstance(observer, str) else list(observer)
            pairs = [expected.of(name, replay.state) for name in names]
            expected.check(observation, pairs[0] if isinstance(observer, str) else stacked_pairs(pairs, names), where)
            handed.keep(observation, where)
    handed.check()


def stacked_pairs(pairs: Sequence[tuple[Any, Any]], names: Sequence[str]) -> tuple[Any, Any]:
    """A learning team's observation of its ghosts' own ones (:meth:`Expected.of`'s pairs, both
    halves), in ghost order: ``Box`` encodings stacked on a new first axis, texts joined by a
    space, anything else a dict by ghost name."""
    def stacked(observations: list[Any]) -> Any:
        if isinstance(observations[0], np.ndarray):
            return np.stack(observations)
        if isinstance(observations[0], str):
            return " ".join(observations)
        return dict(zip(names, observations, strict=True))

    return stacked([pair[0] for pair in pairs]), stacked([pair[1] for pair in pairs])


def _differs(got: Any, first: Any, second: Any, where: str) -> str | None:
    """Where ``got`` differs from ``first`` (entries where ``second`` differs from ``first`` are
    a belief map's: held to a probability map instead), or ``None``."""
    if isinstance(first, np.ndarray):
        if not isinstance(got, np.ndarray) or got.dtype != first.dtype or got.shape != first.shape:
            return f"{where}: {type(got).__name__} {getattr(got, 'dtype', '')}{getattr(got, 'shape', '')}, " \
                   f"expected a numpy {first.dtype}{first.shape}"
        fixed = first == second
        wrong = fixed & (got != first)
        if wrong.any():
            at = [tuple(int(i) for i in index) for index in np.argwhere(wrong)[:4]]
            return f"{where}: {got[wrong][:4].tolist()} at {at}, expected {first[wrong][:4].tolist()}"
        belief = got[~fixed].astype(np.float64)
        if belief.size and (((belief < 0) | (belief > 1)).any() or abs(belief.sum() - 1) > BELIEF_TOLERANCE):
            return f"{where}: the belief map is no probability map (entries in [0, 1] summing to 1): {belief}"
        return None
    if isinstance(first, Mapping) and isinstance(got, Mapping) and list(got) == list(first):
        found = (_differs(got[key], first[key], second[key], f"{where}[{key!r}]") for key in first)
        return next(filter(None, found), None)
    return same(got, first, where)  # anything else, and a mapping's other keys, exactly


class HandedOut:
    """The observations a view handed out, each with a copy of what it was then: one that has
    changed since (a buffer the view overwrites) breaks the contract."""

    def __init__(self) -> None:
        self._kept: list[tuple[Any, Any, str]] = []

    def keep(self, observation: Any, where: str) -> None:
        """Remember ``observation`` as it is now."""
        self._kept.append((observation, copy.deepcopy(observation), where))

    def check(self) -> None:
        """Fail if an observation kept has changed since.

        Raises:
            AssertionError: ``"observations: ..."``.
        """
        for observation, then, where in self._kept:
            found = same(observation, then, where)
            if found:
                fail(CONTRACT, f"{found}: {where} changed after the view handed it out; a view must hand out a "
                               "fresh observation at every call, never a buffer it writes again")


def check_final(expected: Expected, observation: Any, side: str, finals: Sequence[GameState], where: str) -> None:
    """A final observation that a same-step view hands out beside the next episode's first one
    is ``side``'s observation (:meth:`Expected.of`) of one of ``finals``, the states the kernel
    can end the game's last turn in (with the ends the view reported).

    Raises:
        AssertionError: ``"observations: ..."``.
    """
    for state in finals:
        if _differs(observation, *expected.of(side, state), where) is None:
            return
    fail(CONTRACT, f"{where}: {side}'s final observation is its observation of none of the states the kernel can "
                   f"end that turn in: {[(state.agent, state.ghosts, state.outcome.name) for state in finals]}")
