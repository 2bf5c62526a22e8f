"""Defects found by users trying teams (``ghosts=k``), and the rest of each one's class:
policies' answers of the wrong shape, NumPy integers as team sizes, saved settings read back
without the checks across settings, NumPy scalars kept in a spec, vectorised teams, solver tables
passed as opponents, and the observations a team trained on another view reads.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from gridghost import Layout
from gridghost.config.settings import resolve
from gridghost.planning import tabulate_policy
from gridghost.planning.team_tabulate import live_team_states, tabulate_team_policy

OPEN = Layout(np.zeros((4, 4), int), goals=[(0, 0)], agent_start=(2, 1), ghost_start=[(3, 3), (0, 3), (3, 0)])


def _team_spec(k: int = 2, **settings: Any) -> Any:
    return resolve(layout=OPEN, ghosts=k, obs_type="vector", **settings)


# -- a policy's answer of the wrong shape is refused, never reshaped -----------------------------------
def _live(k: int = 2) -> int:
    return len(live_team_states(_team_spec(k).game()))


@pytest.mark.parametrize(("name", "answer"), [
    ("transposed", lambda n, k: np.zeros((k, n), np.int64)),
    ("flat", lambda n, k: np.zeros(n * k, np.int64)),
    ("extra axis", lambda n, k: np.zeros((n, k, 1), np.int64)),
])
def test_a_centralised_answer_of_another_shape_is_refused(name: str, answer: Any) -> None:
    n, k = _live(), 2
    got = re.escape(str(answer(n, k).shape))
    with pytest.raises(TypeError, match=rf"policy must return .*shape \({n}, {k}\).*got an array of shape {got}"):
        tabulate_team_policy(lambda stacked: answer(len(stacked), k), spec=_team_spec(), centralised=True)


@pytest.mark.parametrize("shape", [lambda n: (1, n), lambda n: (n, 2), lambda n: (n, 1, 1)])
@pytest.mark.parametrize("per_ghost", [False, True])
def test_a_ghosts_answer_of_another_shape_is_refused(shape: Any, per_ghost: bool) -> None:
    n = _live()
    ask = lambda obs: np.zeros(shape(len(obs)), np.int64)  # noqa: E731
    with pytest.raises(TypeError, match=rf"the actions of ghost 0.*shape \({n},\).*got an array of shape"):
        tabulate_team_policy([ask, ask] if per_ghost else ask, spec=_team_spec())


def test_a_ghosts_column_of_actions_is_its_documented_form() -> None:
    # the column [n, 1] some predict() return, as the one-ghost tabulation takes it
    column = tabulate_team_policy(lambda obs: np.full((len(obs), 1), 2), spec=_team_spec())
    flat = tabulate_team_policy(lambda obs: np.full(len(obs), 2), spec=_team_spec())
    np.testing.assert_array_equal(column, flat)
    assert (flat == 2).sum() == 2 * _live()


def test_a_centralised_team_is_scored_from_the_table_it_answered() -> None:
    # every state's answer differs per ghost: a transposed reading would scramble them
    spec = _team_spec()
    rows = live_team_states(spec.game())

    def team(stacked: np.ndarray) -> np.ndarray:
        return np.stack([np.arange(len(stacked)) % 4, (np.arange(len(stacked)) // 4) % 4], axis=1)

    table = tabulate_team_policy(team, spec=spec, centralised=True)
    flat = table.reshape((16,) * 3 + (2,))
    got = flat[tuple(rows.T)]
    np.testing.assert_array_equal(got[:, 0], np.arange(len(rows)) % 4)
    np.testing.assert_array_equal(got[:, 1], (np.arange(len(rows)) // 4) % 4)


@pytest.mark.parametrize(("answer", "batch"), [
    (lambda obs: np.full((4, len(obs)), 0.25), True),   # transposed
    (lambda obs: np.full(4 * len(obs), 0.25), True),    # flat
    (lambda obs: np.full((2, 2), 0.25), False),         # four numbers, not a distribution's shape
])
def test_one_ghosts_probabilities_of_another_shape_are_refused(answer: Any, batch: bool) -> None:
    with pytest.raises(ValueError, match=r"policy must return .*probabilities.*shape"):
        tabulate_policy(answer, "ghost", batch=batch, stochastic=True)


def test_one_ghosts_batch_of_actions_of_another_shape_is_refused() -> None:
    with pytest.raises(TypeError, match=r"one action per observation.*got an array of shape \(1, \d+\)"):
        tabulate_policy(lambda obs: np.zeros((1, len(obs)), np.int64), batch=True)
