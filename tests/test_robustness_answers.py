"""Input of the wrong shape or kind, refused by name rather than reshaped or misreported: a
TorchRL batch entry whose axes are not the batch's, an SB3 action batch of another shape, a bad
opponent in every view that takes one, and a custom sensor's likelihood map of another shape.
"""

from __future__ import annotations

import re
from typing import Any

import gymnasium
import numpy as np
import pytest

import gridghost
from gridghost import Layout
from gridghost.batched.limits import checked_actions
from gridghost.batched.tables import sensor_tables
from gridghost.core.slip import LongitudinalSlip
from gridghost.integrations.torchrl import KEYS, TEAM_KEYS, TensorDictMetrics
from gridghost.sensing.filters import HistogramFilter
from gridghost.sensing.sensors import Sensor


class _Batch:
    """The part of a TorchRL TensorDict that TensorDictMetrics reads: ``get`` and ``batch_size``."""

    def __init__(self, entries: dict, batch_size: tuple[int, ...]) -> None:
        self.entries, self.batch_size = entries, batch_size

    def get(self, key: tuple[str, ...]) -> Any:
        return self.entries.get(key)


def _agent_batch(envs: int, steps: int) -> dict[tuple[str, ...], np.ndarray]:
    """A batch of ``envs x steps`` half-turns in TorchRL's layout (group and feature axes of
    size 1 after the batch's axes), in which no game ends."""
    shape = (envs, steps)
    return {KEYS["agent_reward"]: np.full((*shape, 1, 1), -1.0), KEYS["mover"]: np.zeros((*shape, 1, 1), np.int64),
            KEYS["done"]: np.zeros((*shape, 1), bool), KEYS["reached_goal"]: np.zeros((*shape, 1, 1), bool),
            KEYS["caught_by_ghost"]: np.zeros((*shape, 1, 1), bool)}


# -- a TorchRL batch entry is read on the batch's axes, never reshaped into them -----------------------
@pytest.mark.parametrize("entry", ["agent_reward", "done"])
def test_a_batch_entry_with_the_batchs_axes_swapped_is_refused(entry: str) -> None:
    # (steps, envs) in a batch of (envs, steps): the same size, every value on another game's step
    entries = _agent_batch(2, 3)
    entries[KEYS[entry]] = np.swapaxes(entries[KEYS[entry]], 0, 1)
    got = re.escape(str(entries[KEYS[entry]].shape))
    with pytest.raises(ValueError, match=rf"{re.escape(str(KEYS[entry]))} has shape {got}.*\(2, 3\)"):
        TensorDictMetrics().update(_Batch(entries, (2, 3)))


def test_a_batch_entry_of_the_batchs_shape_and_size_one_axes_is_read() -> None:
    # the layouts TorchRL's PettingZooWrapper gives, and the bare batch shape: all read alike
    trailing = _agent_batch(2, 3)
    bare = {key: value.reshape(2, 3) for key, value in trailing.items()}
    ends = np.zeros((2, 3), bool)
    ends[:, 2] = True
    for entries in (trailing, bare):
        entries[KEYS["done"]] = ends.reshape(entries[KEYS["done"]].shape)
        reader = TensorDictMetrics()
        assert reader.update(_Batch(entries, (2, 3))) == 2
        assert reader.summary()["agent_return"] == -3.0


def test_a_ghost_groups_entry_with_the_group_axis_first_is_refused() -> None:
    # (ghosts, steps, 1) in a batch of (steps,): reshaping it to (steps, -1) mixes steps and ghosts
    steps = 4
    entries = {TEAM_KEYS["ghost_reward"]: np.zeros((2, steps, 1)), TEAM_KEYS["done"]: np.zeros((steps, 1), bool),
               TEAM_KEYS["reached_goal"]: np.zeros((steps, 2), bool),
               TEAM_KEYS["caught_by_ghost"]: np.zeros((steps, 2), bool)}
    with pytest.raises(ValueError, match=r"\('next', 'ghost', 'reward'\) has shape \(2, 4, 1\).*\(4,\)"):
        TensorDictMetrics().update(_Batch(entries, (steps,)))
    entries[TEAM_KEYS["ghost_reward"]] = np.zeros((steps, 2, 1))  # the group's axis after the batch's
    entries[TEAM_KEYS["done"]][-1] = True
    assert TensorDictMetrics().update(_Batch(entries, (steps,))) == 1


# -- an action batch for SB3's VecEnv: one action per game, as a row or a column -----------------------
@pytest.mark.parametrize("shape", [(1, 4), (2, 2), (4, 2), (4, 1, 1)])
def test_an_action_batch_of_another_shape_is_refused_by_name(shape: tuple[int, ...]) -> None:
    actions = np.zeros(shape, np.int64)
    with pytest.raises(ValueError, match=rf"actions must have shape \(4,\) or \(4, 1\).*got shape "
                                         rf"{re.escape(str(shape))}"):
        checked_actions(actions, 4, "actions", column=True)


def test_an_action_column_is_read_as_its_row() -> None:
    column = np.array([[3], [0], [2], [1]])
    np.testing.assert_array_equal(checked_actions(column, 4, "actions", column=True), [3, 0, 2, 1])
    with pytest.raises(ValueError, match=r"actions must have shape \(4,\), one action per game, got shape \(4, 1\)"):
        checked_actions(column, 4, "actions")


# -- a bad opponent is refused under the argument's name, in every view ---------------------------------
#: A map with two ghost starts, for the team views.
TWO = Layout(np.zeros((4, 4), int), goals=[(0, 0)], agent_start=(2, 1), ghost_start=[(3, 3), (0, 3)])

_VIEWS = {
    "Gymnasium, agent learns": lambda bad: gymnasium.make("gridghost/GridGhost-v1", opponent=bad),
    "Gymnasium, ghost learns": lambda bad: gymnasium.make("gridghost/GridGhost-v1", controlled="ghost", opponent=bad),
    "Gymnasium, set_opponent": lambda bad: gymnasium.make("gridghost/GridGhost-v1").unwrapped.duel.set_opponent(bad),
    "AgentInterface": lambda bad: gridghost.AgentInterface(ghost_agent_class=bad),
    "AgentInterface.set_ghost_agent": lambda bad: gridghost.AgentInterface().set_ghost_agent(bad),
    "team Gymnasium, ghosts learn": lambda bad: gymnasium.make("gridghost/GridGhost-v1", layout=TWO, ghosts=2,
                                                               controlled="ghosts", opponent=bad),
    "ghosts-only parallel env": lambda bad: gridghost.parallel_env(layout=TWO, ghosts=2, controlled="ghosts",
                                                                   opponent=bad),
}


@pytest.mark.parametrize("view", sorted(_VIEWS))
@pytest.mark.parametrize(("bad", "message"), [
    (3, r"^opponent must be a policy name \(chase, random\), a callable, an object with get_action, or a class; "
        r"got 3"),
    (dict, r"^opponent class dict must define get_action\(observation\)"),
])
def test_an_opponent_that_is_no_policy_is_refused_by_name(view: str, bad: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        _VIEWS[view](bad)


# -- a custom sensor's likelihood is read in the layout's shape, never reshaped into it ----------------
#: A map that is not square: its transposed likelihood has the same size and another layout.
WIDE = Layout(np.zeros((2, 3), int), goals=[(0, 0)], agent_start=(1, 1), ghost_start=(1, 2))


class _Column(Sensor):
    """Reads whether the agent is in column 0; ``layout`` writes its likelihood maps (as they
    are by default)."""

    name = "column"

    def __init__(self, layout: Any = lambda table: table) -> None:
        self.layout, self.lay_out = WIDE, layout

    def measure(self, state: Any, rng: np.random.Generator) -> int:
        return int(state.agent % WIDE.shape[1] == 0)

    def likelihood(self, measurement: int) -> np.ndarray:
        first = np.zeros(WIDE.shape)
        first[:, 0] = 1.0
        return self.lay_out(first if measurement else 1.0 - first)

    def possible_measurements(self) -> tuple[int, ...]:
        return (0, 1)


_OTHER_SHAPES = {"transposed": lambda table: table.T, "flat": lambda table: table.ravel()}


@pytest.mark.parametrize("shape", sorted(_OTHER_SHAPES))
def test_a_likelihood_of_another_shape_is_refused_by_the_filter(shape: str) -> None:
    sensor = _Column(_OTHER_SHAPES[shape])
    belief = HistogramFilter(WIDE, LongitudinalSlip(0.2), [sensor])
    belief.reset()
    got = re.escape(str(sensor.likelihood(1).shape))
    with pytest.raises(TypeError, match=rf"likelihood\(1\) must return an array of the layout's shape \(2, 3\).*"
                                        rf"got an array of shape {got}"):
        belief.update({"column": 1})


@pytest.mark.parametrize("shape", sorted(_OTHER_SHAPES))
def test_a_likelihood_of_another_shape_is_refused_by_the_batched_engine(shape: str) -> None:
    with pytest.raises(TypeError, match=r"must return an array of the layout's shape \(2, 3\)"):
        sensor_tables([(_Column(_OTHER_SHAPES[shape]),)])


def test_a_likelihood_of_the_layouts_shape_is_read_cell_by_cell() -> None:
    belief = HistogramFilter(WIDE, LongitudinalSlip(0.2), [_Column()])
    belief.reset()
    belief.update({"column": 1})
    np.testing.assert_allclose(belief.belief(), [[0.5, 0, 0], [0.5, 0, 0]])
    readings = sensor_tables([(_Column(),)]).likelihoods[0]  # [reading, cell]
    np.testing.assert_array_equal(readings[1], [1, 0, 0, 1, 0, 0])
