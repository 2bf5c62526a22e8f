"""Slip models: stated distributions, sampling that matches them, and the reference draw order."""

from __future__ import annotations

import copy
import math
from collections import Counter

import numpy as np
import pytest

from gridghost.core.slip import (
    PERPENDICULAR,
    LongitudinalSlip,
    NoSlip,
    PerpendicularSlip,
    SlipModel,
    make_slip,
)

MODELS = [NoSlip(), LongitudinalSlip(0.3), PerpendicularSlip(0.3), LongitudinalSlip(1.0), PerpendicularSlip(0.0)]


@pytest.mark.parametrize("model", MODELS, ids=repr)
def test_outcomes_are_a_distribution(model: SlipModel) -> None:
    for action in range(4):
        outcomes = model.outcomes(action)
        assert math.isclose(sum(p for p, _ in outcomes), 1.0)
        assert all(p > 0 for p, _ in outcomes)
        assert len({moves for _, moves in outcomes}) == len(outcomes)


def test_outcomes_state_the_documented_numbers() -> None:
    assert LongitudinalSlip(0.2).outcomes(2) == ((0.1, ()), (0.1, (2, 2)), (0.8, (2,)))
    assert PerpendicularSlip(0.2).outcomes(0) == ((0.1, (1,)), (0.1, (3,)), (0.8, (0,)))
    assert PerpendicularSlip(0.2).outcomes(3) == ((0.1, (0,)), (0.1, (2,)), (0.8, (3,)))
    assert NoSlip().outcomes(1) == ((1.0, (1,)),)
    assert LongitudinalSlip(1.0).outcomes(1) == ((0.5, ()), (0.5, (1, 1)))


@pytest.mark.parametrize("model", MODELS, ids=repr)
def test_sampling_frequencies_match_the_stated_outcomes(model: SlipModel) -> None:
    rng = np.random.default_rng(123)
    n = 20_000
    for action in range(4):
        counts = Counter(model.sample(action, rng) for _ in range(n))
        stated = {moves: p for p, moves in model.outcomes(action)}
        assert set(counts) <= set(stated)
        for moves, p in stated.items():
            assert abs(counts[moves] / n - p) < 4 * math.sqrt(p * (1 - p) / n) + 1e-9, (action, moves)


def reference_slip(slip_type: str, p: float, action: int, rng: np.random.Generator) -> tuple[int, ...]:
    """The RNG contract of docs/game.md, written out literally."""
    if p <= 0:
        return (action,)
    u = rng.random()
    if slip_type == "longitudinal":
        return () if u < p / 2 else (action, action) if u < p else (action,)
    if u < p:
        return (int(rng.choice([1, 3] if action in (0, 2) else [0, 2])),)
    return (action,)


@pytest.mark.parametrize("slip_type", ["longitudinal", "perpendicular"])
@pytest.mark.parametrize("p", [0.0, 0.2, 0.5, 1.0])
def test_sampling_follows_the_rng_contract_draw_for_draw(slip_type: str, p: float) -> None:
    model = make_slip(slip_type, p)
    ours, theirs = np.random.default_rng(7), np.random.default_rng(7)
    for i in range(2000):
        action = i % 4
        assert model.sample(action, ours) == reference_slip(slip_type, p, action, theirs)
    assert ours.random() == theirs.random()  # the streams are still aligned


def test_no_draw_when_the_outcome_is_certain() -> None:
    for model in (NoSlip(), LongitudinalSlip(0.0), PerpendicularSlip(0.0)):
        rng = np.random.default_rng(1)
        before = copy.deepcopy(rng.bit_generator.state)
        model.sample(2, rng)
        assert rng.bit_generator.state == before


def test_perpendicular_table_is_the_references() -> None:
    assert PERPENDICULAR == {0: (1, 3), 1: (0, 2), 2: (1, 3), 3: (0, 2)}


class Backwards(SlipModel):
    """A custom model: with p go the opposite way, else as intended."""

    name = "backwards"

    def _groups(self, action):
        return ((self.probability, (((action + 2) % 4,),)), (1 - self.probability, ((action,),)))


class Hops(SlipModel):
    """A custom model: up hops three cells with p, else stays; every other action stays."""

    name = "hops"

    def _groups(self, action):
        p = self.probability if action == 3 else 0.0
        return ((p, ((3, 3, 3),)), (1.0 - p, ((),)))


@pytest.mark.parametrize(("model", "longest"), [
    (NoSlip(), 1),
    (LongitudinalSlip(0.3), 2),
    (LongitudinalSlip(1.0), 2),  # stay or a double move: never one move
    (LongitudinalSlip(0.0), 1),  # the double move has probability 0: no outcome
    (PerpendicularSlip(0.3), 1),
    (PerpendicularSlip(0.0), 1),
    (Backwards(0.25), 1),
    (Hops(0.5), 3),  # up's hop, the one outcome of any action that moves at all
    (Hops(0.0), 0),  # the hop has probability 0: every outcome stays
], ids=repr)
def test_longest_is_the_most_moves_of_a_possible_outcome(model: SlipModel, longest: int) -> None:
    assert model.longest == longest


def test_a_custom_model_only_states_its_groups() -> None:
    model = Backwards(0.25)
    assert model.outcomes(3) == ((0.25, (1,)), (0.75, (3,)))
    rng = np.random.default_rng(0)
    counts = Counter(model.sample(3, rng) for _ in range(8000))
    assert abs(counts[(1,)] / 8000 - 0.25) < 0.02


def test_a_group_of_several_members_is_picked_by_a_second_draw() -> None:
    class Scatter(SlipModel):
        def _groups(self, action):
            return ((self.probability, ((0,), (1,), (2,))), (1 - self.probability, ((action,),)))

    model = Scatter(0.6)
    assert [moves for _, moves in model.outcomes(3)] == [(0,), (1,), (2,), (3,)]
    assert [p for p, _ in model.outcomes(3)] == pytest.approx([0.2, 0.2, 0.2, 0.4])
    ours, theirs = np.random.default_rng(9), np.random.default_rng(9)
    for _ in range(500):
        expected = ((0,), (1,), (2,))[theirs.integers(3)] if theirs.random() < 0.6 else (3,)
        assert model.sample(3, ours) == expected


@pytest.mark.parametrize(
    ("groups", "message"),
    [
        (((-0.5, ((0,),)), (1.5, ((1,),))), "probabilities must be finite numbers >= 0"),
        (((0.3, ((0,),)), (0.2, ((1,),))), "must sum to 1, got 0.5"),
        (((float("nan"), ((0,),)), (1.0, ((1,),))), "finite"),
        (((1.0, ((7,),)),), r"moves must be tuples of actions 0..3, got \(7,\)"),
        (((1.0, ([0],)),), "moves must be tuples"),
        (((1.0, ()),), "at least one move sequence"),
        ((), "must sum to 1, got 0"),
        ((0.5, 0.5), "must return \\(probability, \\(moves, ...\\)\\) pairs"),
    ],
)
def test_a_custom_model_with_a_broken_table_is_rejected_at_construction(groups, message) -> None:
    class Broken(SlipModel):
        def _groups(self, action):
            return groups

    with pytest.raises((ValueError, TypeError), match=message):
        Broken(0.5)


def test_a_model_without_groups_says_so() -> None:
    with pytest.raises(NotImplementedError, match="must define _groups"):
        SlipModel(0.1)


def test_make_slip_resolves_names_and_instances() -> None:
    assert make_slip() == LongitudinalSlip(0.2)
    assert make_slip(slip_type="perpendicular", slip_probability=0.5) == PerpendicularSlip(0.5)
    assert make_slip("none") == NoSlip()
    assert make_slip("none", 0.0) == NoSlip()
    model = PerpendicularSlip(0.1)
    assert make_slip(model) is model


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (dict(slip_type="sideways"), ValueError, "unknown slip_type 'sideways'"),
        (dict(slip="sideways"), ValueError, "unknown slip 'sideways'"),
        (dict(slip=3), TypeError, "slip must be a slip type name or a SlipModel"),
        (dict(slip_probability=1.5), ValueError, r"slip_probability must lie in \[0, 1\]"),
        (dict(slip_probability=-0.1), ValueError, "slip_probability"),
        (dict(slip_probability=float("nan")), ValueError, "slip_probability"),
        (dict(slip_probability="0.2"), TypeError, "slip_probability must be a real number"),
        (dict(slip_probability=True), TypeError, "slip_probability"),
        (dict(slip="none", slip_probability=0.3), ValueError, "must be 0 with slip type 'none'"),
        (dict(slip=NoSlip(), slip_probability=0.3), ValueError, "only apply when slip is a name"),
        (dict(slip="perpendicular", slip_type="longitudinal"), ValueError, "pass the slip type once"),
    ],
)
def test_bad_slip_arguments_raise(kwargs, error, message) -> None:
    with pytest.raises(error, match=message):
        make_slip(**kwargs)
