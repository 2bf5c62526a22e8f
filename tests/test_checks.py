"""The shared argument checks: canonical values back, or an error naming the argument."""

from __future__ import annotations

import numpy as np
import pytest

from gridghost.core.checks import (
    check_action,
    check_cell,
    check_choice,
    check_distribution,
    check_flag,
    check_limit,
    check_probability,
    check_rate,
    check_seed,
    is_int,
)
from gridghost.core.rules import Action


@pytest.mark.parametrize("action", [0, 3, np.int64(2), np.array(1), Action.UP, np.uint8(0)])
def test_every_integer_form_of_an_action_comes_back_as_an_int(action) -> None:
    value = check_action(action, "agent")
    assert type(value) is int and value == int(action)


@pytest.mark.parametrize(("action", "error"), [(4, ValueError), (-1, ValueError), (True, TypeError),
                                               (1.0, TypeError), (None, TypeError), ("1", TypeError)])
def test_bad_actions_name_the_side(action, error) -> None:
    with pytest.raises(error, match="'ghost'"):
        check_action(action, "ghost")


def test_is_int_takes_python_and_numpy_integers_and_refuses_bools_and_floats() -> None:
    assert [is_int(v) for v in (3, np.int8(-1), np.uint64(7), Action.UP)] == [True] * 4
    assert [is_int(v) for v in (True, np.bool_(False), 1.0, np.float32(2), "1", None)] == [False] * 6


def test_choices_list_what_is_accepted() -> None:
    assert check_choice("b", "letter", ("a", "b")) == "b"
    assert check_choice(None, "letter", ("a",), allow_none=True) is None
    with pytest.raises(ValueError, match=r"unknown letter 'c'; accepted: \['a', 'b'\]"):
        check_choice("c", "letter", ("a", "b"))
    with pytest.raises(ValueError, match=r"unknown letter None; accepted: \['a'\]"):
        check_choice(None, "letter", ("a",))
    with pytest.raises(ValueError, match=r"accepted: None or one of \['a'\]"):
        check_choice(3, "letter", ("a",), allow_none=True)


@pytest.mark.parametrize(("value", "error"), [(0, ValueError), (-1.0, ValueError), (float("nan"), ValueError),
                                              (float("inf"), ValueError), (True, TypeError), ("4", TypeError)])
def test_rates_are_finite_and_positive(value, error) -> None:
    with pytest.raises(error, match="fps must be a finite number > 0"):
        check_rate(value, "fps")


def test_layouts_and_numbers_are_checked_in_one_place() -> None:
    from gridghost.core.checks import check_instance, check_number
    from gridghost.core.layout import CLASSIC, Layout
    from gridghost.core.rules import Rewards

    assert check_instance(CLASSIC, "layout", Layout) is CLASSIC
    assert check_instance(None, "layout", Layout, allow_none=True) is None
    with pytest.raises(TypeError, match=r"layout must be a gridghost\.Layout, got 'classic'"):
        check_instance("classic", "layout", Layout)
    with pytest.raises(TypeError, match=r"rewards must be a gridghost\.Rewards or None, got 3"):
        check_instance(3, "rewards", Rewards, allow_none=True)
    assert check_number(0, "delay") == 0.0
    with pytest.raises(ValueError, match="delay must be a finite number >= 0, got -1"):
        check_number(-1, "delay")
    with pytest.raises(TypeError, match="distribution must be 2 probabilities"):
        check_distribution(["a", "b"], "distribution", 2)


def test_the_other_checks_keep_their_contracts() -> None:
    assert check_rate(np.float32(2.5), "fps") == 2.5
    assert check_limit(np.int32(5), "n", maximum=5) == 5 and check_limit(None, "n") is None
    assert check_flag(np.bool_(True), "f") is True
    assert check_seed(np.uint16(9)) == 9
    assert check_probability(1, "p") == 1.0
    assert check_distribution([0.25, 0.75], "d", 2).tolist() == [0.25, 0.75]
    with pytest.raises(ValueError, match="d must sum to 1"):
        check_distribution([1, 3], "d", 2)


def test_a_cell_is_checked_against_the_grid_only_when_one_is_given() -> None:
    assert check_cell((np.int64(9), 99), "cell") == (9, 99)
    with pytest.raises(ValueError, match=r"cell \(9, 99\) lies outside the 4x5 grid"):
        check_cell((9, 99), "cell", 4, 5)
    with pytest.raises(TypeError, match=r"cell must be a \(row, col\) pair of ints"):
        check_cell((True, 0), "cell")
