"""The conformance suite answers the caller's own mistakes (a bad seed, count or maker) with a
plain ``TypeError`` or ``ValueError`` naming the argument, before building any view, and never
blames the view for them; a maker that raises fails the check's contract, saying that building
the view raised."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import gridghost
from gridghost import testing
from gridghost.testing import jax_views
from gridghost.testing.pettingzoo_views import check_aec_determinism, check_parallel_kernel

CHECKS: list[Callable[..., None]] = [*testing.AEC_CHECKS, *testing.PARALLEL_CHECKS, *testing.GYMNASIUM_CHECKS,
                                     *testing.VECTOR_CHECKS, *testing.BATCHED_CHECKS, *jax_views.JAX_CHECKS]
SUITES: list[Callable[..., None]] = [testing.aec_conformance, testing.parallel_conformance,
                                     testing.gymnasium_conformance, testing.vector_conformance,
                                     testing.batched_conformance, jax_views.jax_conformance]
PUBLIC = {function.__name__: function for function in (*CHECKS, *SUITES)}
#: Each count parameter's least value, as the suite documents it.
LEAST = {"seed": 0, "episodes": 1, "after": 0, "steps": 1, "turns": 1}
#: The contract of each check, from the end of its name.
CONTRACTS = {"spaces_and_masks": "spaces", "determinism": "determinism", "zero_sum": "zero-sum",
             "pickle": "pickling", "refusals": "refusals", "kernel": "kernel", "observations": "observations"}


class Maker:
    """A maker that counts its calls (none, when the arguments are refused first)."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> Any:
        self.calls += 1
        return gridghost.parallel_env(max_cycles=5)


def _maker_name(function: Callable[..., None]) -> str:
    return next(iter(inspect.signature(function).parameters))


def _counts(function: Callable[..., None]) -> list[str]:
    return [name for name in inspect.signature(function).parameters if name in LEAST]


COUNT_CASES = [(name, count) for name, function in PUBLIC.items() for count in _counts(function)]


def test_every_parameter_of_the_public_checks_is_one_the_suite_checks() -> None:
    assert len(CHECKS) == len(set(CHECKS)) == 40 and len(SUITES) == 6
    for name, function in PUBLIC.items():
        maker, *counts = inspect.signature(function).parameters
        assert maker in ("make_env", "make_game", "make_view"), name
        assert "seed" in counts and set(counts) <= set(LEAST), name


@pytest.mark.parametrize(("name", "count"), COUNT_CASES, ids=[f"{name}-{count}" for name, count in COUNT_CASES])
def test_a_count_below_its_least_value_or_not_an_int_is_refused_naming_it(name: str, count: str) -> None:
    function, make, least = PUBLIC[name], Maker(), LEAST[count]
    with pytest.raises(ValueError, match=rf"^{count} must be an int >= {least}, got {least - 1}$"):
        function(make, **{count: least - 1})
    for bad in ("two", 1.0, True, None):
        with pytest.raises(TypeError, match=rf"^{count} must be an int >= {least}, got {type(bad).__name__} "):
            function(make, **{count: bad})
    assert make.calls == 0  # refused before any view was built


@pytest.mark.parametrize("name", PUBLIC)
def test_a_maker_that_is_not_callable_is_refused_naming_it(name: str) -> None:
    maker = _maker_name(PUBLIC[name])
    with pytest.raises(TypeError, match=rf"^{maker} must be a function of no arguments that returns a fresh view, "
                                        r"got GridGhostParallelEnv "):
        PUBLIC[name](gridghost.parallel_env())  # the view itself, not a function that builds one


@pytest.mark.parametrize("name", PUBLIC)
def test_arguments_the_check_does_not_take_are_refused_naming_the_check(name: str) -> None:
    make = Maker()
    with pytest.raises(TypeError, match=rf"^{name}\(\): got an unexpected keyword argument 'sead'"):
        PUBLIC[name](make, sead=1)
    with pytest.raises(TypeError, match=rf"^{name}\(\): too many positional arguments"):
        PUBLIC[name](make, 0, 1, 2)
    with pytest.raises(TypeError, match=rf"^{name}\(\): missing a required argument"):
        PUBLIC[name]()
    assert make.calls == 0


@pytest.mark.parametrize("check", CHECKS, ids=[check.__name__ for check in CHECKS])
def test_a_maker_that_raises_fails_the_checks_contract_saying_building_the_view_raised(
        check: Callable[..., None]) -> None:
    contract = next(name for end, name in CONTRACTS.items() if check.__name__.endswith(end))
    refused = RuntimeError("no such map")

    def make() -> Any:
        raise refused

    with pytest.raises(AssertionError, match=rf"^{contract}: building the view raised RuntimeError \(no such map\): "
                                             rf"{_maker_name(check)}\(\) must return a fresh view$") as caught:
        check(make)
    assert caught.value.__cause__ is refused


def test_a_suite_whose_maker_raises_fails_its_first_contract() -> None:
    def make() -> Any:
        raise KeyError("layout")

    with pytest.raises(AssertionError, match=r"^spaces: building the view raised KeyError \('layout'\)"):
        testing.parallel_conformance(make)


def test_a_numpy_integer_is_a_seed_like_the_int_it_holds() -> None:
    make = lambda: gridghost.env(max_cycles=4)  # noqa: E731
    check_aec_determinism(make, seed=np.int64(3))
    check_parallel_kernel(lambda: gridghost.parallel_env(max_cycles=4), seed=np.uint8(3), episodes=np.int32(1))
