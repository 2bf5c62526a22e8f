"""The recorded team trajectories (``tests/traces/``) replay exactly through every public view.

Each case was played with random legal actions and recorded before teams became a shape of one
game (see ``tests/traces/record.py``); replaying its actions must show, step by step, the same
agents, rewards, terminations, truncations, infos, observations and states, exactly (arrays
by dtype, shape and bytes). The first case of every file runs in the default suite; all of
them, and the check of what the files cover, are marked slow.

One exception: the belief filter's estimate (the infos' ``estimated_pos`` and ``estimated_cell``)
is compared by key and place, not by value. The filters compute it with BLAS products, whose last
bits depend on the kernels the CPU selects: the files were recorded on an AVX-512 machine, and an
AVX2 one rounds some estimates differently (and once breaks a near tie between two cells the other
way). The filters' values are tested in ``test_filters.py``; the belief maps, which the
observations carry, still replay exactly.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
from trajectories import TRACES, Actions, play, read

FILES = sorted(TRACES.glob("*.jsonl.gz"))
IDS = [path.name.removesuffix(".jsonl.gz") for path in FILES]


def _pairs(value: Any) -> dict[str, Any] | None:
    """A recorded dict (its ordered pairs) as a dict by key, or None for anything else."""
    if isinstance(value, dict) and list(value) == ["dict"]:
        return {str(key): item for key, item in value["dict"]}
    return None


#: Info keys compared by place only: the belief filter's estimate, whose last bits depend on the CPU.
_ESTIMATE_KEYS = ("estimated_pos", "estimated_cell")


def _without_estimates(value: Any) -> Any:
    """A record with the value of every :data:`_ESTIMATE_KEYS` entry replaced by its key (its key
    and place still compared)."""
    if isinstance(value, dict) and list(value) == ["dict"]:
        return {"dict": [[key, key if key in _ESTIMATE_KEYS else _without_estimates(item)]
                         for key, item in value["dict"]]}
    if isinstance(value, dict):
        return {key: _without_estimates(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_without_estimates(item) for item in value]
    return value


def _first_difference(expected: Any, actual: Any, where: str = "") -> str:
    """Where two records first differ, as a path of keys (for the failure message)."""
    if _pairs(expected) is not None and _pairs(actual) is not None and [k for k, _ in expected["dict"]] == [
            k for k, _ in actual["dict"]]:
        expected, actual = _pairs(expected), _pairs(actual)
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in expected.keys() | actual.keys():
            if expected.get(key) != actual.get(key):
                return _first_difference(expected.get(key), actual.get(key), f"{where}/{key}")
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        for index, (left, right) in enumerate(zip(expected, actual, strict=True)):
            if left != right:
                return _first_difference(left, right, f"{where}[{index}]")
    return f"{where}: recorded {expected!r}, replayed {actual!r}"


@pytest.mark.slow
def test_traces_cover_every_view_and_team_size() -> None:
    """The files hold every view at every team size, both credits and every observation type."""
    cases = [case for path in FILES for case in read(path)]
    covered = {(case["view"], case["settings"]["ghosts"]) for case in cases}
    assert covered == {(view, k) for view in ("aec", "parallel", "gym", "successors") for k in (1, 2, 3, 4)}
    assert {case["settings"].get("ghost_credit") for case in cases} >= {"team", "catcher"}
    assert {case["settings"].get("obs_type") for case in cases if case["view"] == "aec"} == {
        "dict", "vector", "belief", "grid", "belief_vector", "text"}


def replay(case: dict[str, Any], where: str) -> None:
    """Every record of the case is shown again, in order, and no more."""
    actions = Actions(recorded=case["actions"])
    recorded = case["records"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecations and Gymnasium's checker are not under test here
        replayed = [_without_estimates(record) for record in play(case, actions)]
    for index, (expected, actual) in enumerate(zip(map(_without_estimates, recorded), replayed, strict=False)):
        assert actual == expected, f"{where}, record {index}: {_first_difference(expected, actual)}"
    assert len(replayed) == len(recorded), where


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_the_first_case_of_every_file_replays_exactly(path: Path) -> None:
    replay(read(path, first=True)[0], "case 0")


@pytest.mark.slow
@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_every_case_replays_exactly(path: Path) -> None:
    for number, case in enumerate(read(path)):
        replay(case, f"case {number}")
