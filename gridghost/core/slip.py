"""Slip models: the agent's motion noise.

A slip model turns an intended action into the sequence of single moves actually carried out. It
states its outcome distribution (:meth:`SlipModel.outcomes`, ``[(probability, moves), ...]``) and
samples from that same table; the env, belief filters and planners all ask the one model, so the
motion model is written once.

Shipped models, with slip probability ``p``:

- :class:`NoSlip`: the intended move, always.
- :class:`LongitudinalSlip` (the reference default): stay in place with ``p/2``, move twice in the
  intended direction with ``p/2``, else move once.
- :class:`PerpendicularSlip`: with ``p`` one of the two perpendicular moves (each ``p/2``), else
  the intended move.

Sampling follows the reference's draw order exactly (docs/game.md, "the RNG contract"): no draw at
all when only one outcome is possible, otherwise one ``rng.random()`` that picks an outcome group,
and a second draw only when that group holds several equally likely outcomes (the perpendicular
slip's two sides).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np

from gridghost.core.checks import check_choice, check_probability, is_int
from gridghost.core.rules import NUM_ACTIONS, Action

Moves = tuple[int, ...]
Outcomes = tuple[tuple[float, Moves], ...]
#: ``((probability, (moves, ...)), ...)``: a group's members are equally likely.
Groups = tuple[tuple[float, tuple[Moves, ...]], ...]

#: The two directions perpendicular to each action, in the reference's order.
PERPENDICULAR: dict[int, tuple[int, int]] = {
    Action.LEFT: (Action.DOWN, Action.UP),
    Action.DOWN: (Action.LEFT, Action.RIGHT),
    Action.RIGHT: (Action.DOWN, Action.UP),
    Action.UP: (Action.LEFT, Action.RIGHT),
}


class SlipModel:
    """The interface of a slip model.

    A subclass defines ``_groups(action)``: ``((probability, (moves, ...)), ...)``, the outcome
    groups in the order a uniform draw walks them, the last one being what happens otherwise.
    The members of a group are equally likely; a second draw, ``rng.integers(len(members))``,
    picks one when there are several. ``moves`` is a tuple of actions carried out one after the
    other (``()`` means stay). The uniform is drawn only when a group before the last one is
    possible, which is the reference's "no draw when p is 0". The groups are checked once, here.

    Args:
        probability: the slip probability ``p`` in [0, 1].

    Raises:
        TypeError, ValueError: ``probability`` is not a number in [0, 1], or ``_groups`` returns
            something that is not a distribution over valid move sequences.
    """

    name = "custom"

    def __init__(self, probability: float) -> None:
        self.probability = check_probability(probability, "probability")
        groups = tuple(self._checked_groups(action) for action in range(NUM_ACTIONS))
        self._groups_table = groups
        self._table: tuple[Outcomes, ...] = tuple(
            tuple((p / len(members), moves) for p, members in action_groups if p > 0 for moves in members)
            for action_groups in groups
        )
        self._walks = tuple(_walk(action_groups) for action_groups in groups)

    def _groups(self, action: int) -> Groups:
        raise NotImplementedError(f"{type(self).__name__} must define _groups(action)")

    def _checked_groups(self, action: int) -> Groups:
        where = f"{type(self).__name__}._groups({action})"
        groups = self._groups(action)
        checked: list[tuple[float, tuple[Moves, ...]]] = []
        try:
            pairs = [(p, tuple(members)) for p, members in groups]
        except (TypeError, ValueError):
            raise TypeError(f"{where} must return (probability, (moves, ...)) pairs, got {groups!r}") from None
        for p, members in pairs:
            if isinstance(p, bool) or not isinstance(p, numbers.Real) or not math.isfinite(p) or p < 0:
                raise ValueError(f"{where}: probabilities must be finite numbers >= 0, got {p!r}")
            if not members:
                raise ValueError(f"{where}: a group needs at least one move sequence")
            for moves in members:
                if not isinstance(moves, tuple) or not all(
                    is_int(m) and 0 <= m < NUM_ACTIONS
                    for m in moves
                ):
                    raise ValueError(f"{where}: moves must be tuples of actions 0..{NUM_ACTIONS - 1}, got {moves!r}")
            checked.append((float(p), tuple(tuple(int(m) for m in moves) for moves in members)))
        total = sum(p for p, _ in pairs)
        if not math.isclose(total, 1.0, rel_tol=0, abs_tol=1e-9):
            raise ValueError(f"{where}: probabilities must sum to 1, got {total!r}")
        return tuple(checked)

    def outcomes(self, action: int) -> Outcomes:
        """The possible move sequences for ``action`` and their probabilities.

        Returns:
            ``((probability, moves), ...)`` with positive probabilities summing to 1, in the order
            sampling walks them; ``moves`` is a tuple of actions (``()`` means stay).
        """
        return self._table[action]

    @property
    def longest(self) -> int:
        """The most single moves one possible outcome of any action carries out (``1`` for
        :class:`NoSlip`, ``2`` for :class:`LongitudinalSlip` with ``p > 0``): how long a record
        of one agent move's moves must be. Outcomes of probability 0 do not count."""
        return max(len(moves) for outcomes in self._table for _, moves in outcomes)

    def groups(self, action: int) -> Groups:
        """The outcome groups of ``action`` in the order a uniform draw walks them (see the class
        docstring): ``((probability, (moves, ...)), ...)``, members equally likely. What a
        vectorised sampler needs to read one uniform as :meth:`sample` does."""
        return self._groups_table[action]

    def sample(self, action: int, rng: np.random.Generator) -> Moves:
        """Draw the moves actually carried out for ``action``, in the draw order the module
        documentation states (the class documentation, per group)."""
        thresholds, members = self._walks[action]
        if thresholds:
            u = rng.random()
            for total, group in thresholds:
                if u < total:
                    members = group
                    break
        if len(members) == 1:
            return members[0]
        # The reference draws rng.choice(members); integers(len(members)) is that same draw.
        return members[int(rng.integers(len(members)))]

    def __eq__(self, other: object) -> bool:
        # The same motion model: the same outcomes, drawn the same way, whatever the class
        # (NoSlip() and LongitudinalSlip(0) are one model; two custom models with one
        # probability but different tables are two).
        return isinstance(other, SlipModel) and other._table == self._table and other._walks == self._walks

    def __hash__(self) -> int:
        return hash(self._table)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(probability={self.probability})"


def _walk(groups: Groups) -> tuple[tuple[tuple[float, tuple[Moves, ...]], ...], tuple[Moves, ...]]:
    """What :meth:`SlipModel.sample` walks: ``(running sum, members)`` of every possible group
    before the last, and the last group's members (taken when the uniform passes them all)."""
    steps = []
    total = 0.0
    for p, members in groups[:-1]:
        total += p
        if p > 0:
            steps.append((total, members))
    return tuple(steps), groups[-1][1]


class NoSlip(SlipModel):
    """Every move goes where it is meant to; draws nothing."""

    name = "none"

    def __init__(self) -> None:
        super().__init__(0.0)

    def _groups(self, action: int) -> Groups:
        return ((1.0, ((action,),)),)


class LongitudinalSlip(SlipModel):
    """With ``p/2`` stay in place, with ``p/2`` move twice in the intended direction."""

    name = "longitudinal"

    def _groups(self, action: int) -> Groups:
        p = self.probability
        return ((p / 2, ((),)), (p / 2, ((action, action),)), (1.0 - p, ((action,),)))


class PerpendicularSlip(SlipModel):
    """With ``p`` move to one of the two perpendicular directions (uniformly), else as intended."""

    name = "perpendicular"

    def _groups(self, action: int) -> Groups:
        p = self.probability
        first, second = PERPENDICULAR[action]
        return ((p, ((first,), (second,))), (1.0 - p, ((action,),)))


SLIP_TYPES: dict[str, type[SlipModel]] = {
    "none": NoSlip,
    "longitudinal": LongitudinalSlip,
    "perpendicular": PerpendicularSlip,
}


DEFAULT_SLIP_PROBABILITY = 0.2


def make_slip(
    slip: str | SlipModel | None = None,
    slip_probability: float | None = None,
    slip_type: str | None = None,
) -> SlipModel:
    """Resolve the envs' slip keywords into a model.

    Args:
        slip: a :class:`SlipModel` instance, a slip type name (one of :data:`SLIP_TYPES`), or
            ``None`` to build the model from the reference keywords.
        slip_probability: the slip probability of a model built by name; ``None`` means 0.2
            (0 for ``"none"``).
        slip_type: the reference's name for the slip type, used when ``slip`` is ``None``;
            ``None`` means ``"longitudinal"``.

    Returns:
        The slip model.

    Raises:
        TypeError: ``slip`` is neither a name nor a :class:`SlipModel`, or a probability is not a
            number.
        ValueError: an unknown slip type, a probability outside [0, 1], a non-zero probability
            for ``"none"``, or keywords that contradict each other (a model instance together
            with ``slip_probability``/``slip_type``, or both ``slip`` and ``slip_type`` by name).
    """
    if isinstance(slip, SlipModel):
        if slip_probability is not None or slip_type is not None:
            raise ValueError(
                "slip_probability and slip_type only apply when slip is a name; "
                f"slip is already the model {slip!r}"
            )
        return slip
    if slip is not None and slip_type is not None:
        raise ValueError(f"pass the slip type once, as slip or as slip_type (got {slip!r} and {slip_type!r})")
    argument = "slip" if slip is not None else "slip_type"
    name = slip if slip is not None else (slip_type if slip_type is not None else "longitudinal")
    if not isinstance(name, str):
        raise TypeError(f"{argument} must be a slip type name or a SlipModel, got {name!r}")
    check_choice(name, argument, sorted(SLIP_TYPES))
    if name == "none":
        if slip_probability is not None and check_probability(slip_probability, "slip_probability") != 0.0:
            raise ValueError(f"slip_probability must be 0 with slip type 'none', got {slip_probability!r}")
        return NoSlip()
    probability = DEFAULT_SLIP_PROBABILITY if slip_probability is None else slip_probability
    return SLIP_TYPES[name](check_probability(probability, "slip_probability"))


def slip_to_dict(slip: SlipModel) -> dict[str, Any]:
    """``{"type": name, "probability": p}`` of a shipped slip model.

    Raises:
        ValueError: a custom model (it has no dict form).
    """
    if SLIP_TYPES.get(slip.name) is not type(slip):
        raise ValueError(f"slip {slip!r} is a custom model with no dict form; only {sorted(SLIP_TYPES)} have one")
    return {"type": slip.name, "probability": slip.probability}


def slip_from_dict(data: Any) -> SlipModel:
    """The slip model of :func:`slip_to_dict`'s form.

    Raises:
        TypeError, ValueError: not such a dict, an unknown type or a bad probability.
    """
    if not isinstance(data, Mapping) or set(data) != {"type", "probability"}:
        raise TypeError(f"config 'slip' must be a dict with keys 'type' and 'probability', got {data!r}")
    if not isinstance(data["type"], str) or data["type"] not in SLIP_TYPES:
        raise ValueError(f"config 'slip' has unknown type {data['type']!r}; accepted: {sorted(SLIP_TYPES)}")
    return make_slip(data["type"], check_probability(data["probability"], "config 'slip' probability"))
