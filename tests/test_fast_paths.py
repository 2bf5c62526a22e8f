"""The hot paths' shortcuts give what the plain code gives: numeric infos built when first read,
a single-agent view's own info built alone, and the vector encoder's kept cell-pair vectors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import gridghost
from gridghost.core.rules import ACTION_NAMES
from gridghost.envs import infos as infos_module
from gridghost.envs.infos import writable_copy


def _same_info(got: dict[str, Any], want: dict[str, Any]) -> None:
    assert list(got) == list(want)
    for key, value in want.items():
        if isinstance(value, np.ndarray):
            assert type(got[key]) is np.ndarray and got[key].dtype == value.dtype, key
            np.testing.assert_array_equal(got[key], value, err_msg=key)
        else:
            assert type(got[key]) is type(value) and got[key] == value, key


def _infos_now(env: Any) -> dict[str, dict[str, Any]]:
    """The env's infos, rebuilt now from what the env keeps (the state they describe)."""
    pending = env._pending_infos
    assert pending is not None
    return env._numeric_infos(pending)


def _agrees_with_reference(numeric: dict[str, dict[str, Any]], reference: dict[str, dict[str, Any]]) -> None:
    """Numeric infos say what the reference infos of the same half-turn say."""
    assert list(numeric) == list(reference)
    for name, info in numeric.items():
        ref = reference[name]
        assert info["to_move"] == ("agent", "ghost").index(ref["current_turn"])
        assert info["mover"] == (-1 if "mover" not in ref else ("agent", "ghost").index(ref["mover"]))
        assert info["distance"] == ref.get("ghost_distance", ref.get("agent_distance"))
        assert (info["reached_goal"], info["caught_by_ghost"]) == (ref.get("reached_goal", False),
                                                                   ref.get("caught_by_ghost", False))
        np.testing.assert_array_equal(info["action_mask"], ref["action_mask"])
        assert info.get("expert_action", -1) == ref.get("expert_action", -1)
        agent = reference.get("agent")
        if agent is None:  # after the agent's dead step: the agent's own entries are gone
            continue
        assert info["slipped"] == agent.get("slipped", False)
        assert info["intended_action"] == (-1 if "intended_action" not in agent
                                           else ACTION_NAMES.index(agent["intended_action"]))
        assert info["color_measurement"] == agent["color_measurement"]
        if "estimated_pos" in agent:
            np.testing.assert_array_equal(info["estimated_pos"], agent["estimated_pos"]["float_pos"])
            np.testing.assert_array_equal(info["estimated_cell"], agent["estimated_pos"]["cell_pos"])


@pytest.mark.parametrize("settings", [{}, {"belief_filter": "histogram", "expert": "minimax"}, {"use_ghost": False}])
def test_infos_read_late_say_what_their_half_turn_did(settings: dict[str, Any]) -> None:
    # The numeric env's infos are read only every third half-turn, and around the dead steps;
    # its reference twin, which builds its infos at once, says what each half-turn did.
    env = gridghost.raw_env(max_cycles=8, **settings)
    reference = gridghost.raw_env(max_cycles=8, reference_infos=True, **settings)
    for seed in range(4):
        env.reset(seed=seed)
        reference.reset(seed=seed)
        for turn in range(40):
            if not env.agents:
                break
            dead = env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
            if turn % 3 == 0 or dead:
                _agrees_with_reference(env.infos, reference.infos)
            action = None if dead else turn % 4
            env.step(action)
            reference.step(action)
        assert not env.agents and env.infos == {} == reference.infos


def test_infos_after_a_half_turn_are_read_only_and_after_a_reset_writable() -> None:
    env = gridghost.raw_env()
    env.reset(seed=0)
    assert all(value.flags.writeable for info in env.infos.values() for value in info.values()
               if isinstance(value, np.ndarray))
    env.step(1)
    arrays = [value for info in env.infos.values() for value in info.values() if isinstance(value, np.ndarray)]
    assert arrays and not any(array.flags.writeable for array in arrays)
    assert env.infos is env.infos  # built once, then the same dicts


def test_infos_set_by_a_caller_replace_those_not_built_yet() -> None:
    env = gridghost.raw_env()
    env.reset(seed=0)
    env.step(1)
    env.infos = {"agent": {"mine": 1}, "ghost": {}}
    assert env.infos == {"agent": {"mine": 1}, "ghost": {}}


def test_infos_before_reset_still_explain() -> None:
    with pytest.raises(AttributeError, match=r"infos does not exist before reset\(\)"):
        gridghost.raw_env().infos  # noqa: B018


@pytest.mark.parametrize("controlled,settings", [
    ("agent", {}),
    ("agent", {"belief_filter": "histogram", "expert": "minimax"}),
    ("ghost", {"expert": "minimax"}),
    ("agent", {"action_mask_in_obs": True}),
])
def test_a_single_agent_views_info_is_a_writable_copy_of_its_sides(controlled: str, settings: dict[str, Any]) -> None:
    env = gridghost.GridGhostGymEnv(controlled=controlled, **settings)
    _, info = env.reset(seed=0)
    for step in range(40):
        pending = env.game._pending_infos  # nothing reads the env's infos: they stay pending
        assert pending is not None
        shared = env.game._numeric_infos(pending)[controlled]
        got = dict(info)
        assert got.pop("is_success") in (True, False)
        _same_info(got, writable_copy(shared))
        for key, value in got.items():
            if isinstance(value, np.ndarray):  # the caller's own: writable, sharing nothing with the env
                assert value.flags.writeable, key
                assert not any(np.shares_memory(value, other) for other in shared.values()
                               if isinstance(other, np.ndarray)), key
        _, _, terminated, truncated, info = env.step(step % 4)
        if terminated or truncated:
            _, info = env.reset()


def test_a_single_agent_views_info_after_the_env_built_its_infos() -> None:
    env = gridghost.GridGhostGymEnv()
    env.reset(seed=0)
    env.game.infos  # noqa: B018 - built: info() copies them
    assert env.game._pending_infos is None
    info = env.duel.info()
    _same_info(info, writable_copy(env.game.infos["agent"]))
    assert not np.shares_memory(info["action_mask"], env.game.infos["agent"]["action_mask"])


def test_vector_observations_are_fresh_copies() -> None:
    plain = gridghost.raw_env(obs_type="vector")
    env = gridghost.raw_env(obs_type="vector")
    for seed in range(2):
        env.reset(seed=seed)
        plain.reset(seed=seed)
        for turn in range(30):
            for name in env.agents:
                first, second = env.observe(name), env.observe(name)
                assert first is not second and first.flags.writeable and first.dtype == np.float32
                first[:] = -7.0  # changes nothing the env keeps
                np.testing.assert_array_equal(second, plain.observe(name))
                np.testing.assert_array_equal(env.observe(name), second)
            if env.terminations["agent"] or env.truncations["agent"]:
                break
            env.step(turn % 4)
            plain.step(turn % 4)


def test_infos_not_built_yet_are_built_on_their_own_map() -> None:
    # A map change (a generator's next map, at reset) builds the pending infos first: they read
    # the board, masks and expert of the map they describe, even if the reset then fails.
    env, twin = gridghost.raw_env(), gridghost.raw_env()
    for each in (env, twin):
        each.reset(seed=3)
        each.step(2)
    assert env._pending_infos is not None
    walled = {**gridghost.CLASSIC.to_dict(), "name": "walled"}
    walled["walls_vertical"] = [[False] * 4 for _ in range(4)]  # other distances and masks
    env._use_map(gridghost.Layout.from_dict(walled))
    assert env._pending_infos is None
    for name, info in twin.infos.items():
        _same_info(env.infos[name], info)


def test_after_a_read_the_next_infos_are_built_at_once_then_one_waits_again() -> None:
    env, twin = gridghost.raw_env(max_cycles=None), gridghost.raw_env(max_cycles=None, reference_infos=True)
    for each in (env, twin):
        each.reset(seed=1)
    env.infos  # noqa: B018
    for turn in range(infos_module._EAGER_PUBLISHES + 1):
        for each in (env, twin):
            if each.terminations[each.agent_selection]:
                each.reset()
            else:
                each.step(turn % 4)
        assert (env._pending_infos is None) == (turn < infos_module._EAGER_PUBLISHES)
        if turn % 7 == 0 or turn == infos_module._EAGER_PUBLISHES:
            env._eager_left, left = 0, env._eager_left  # reading here must not prolong the eager run
            _agrees_with_reference(env.infos, twin.infos)
            env._eager_left = left


def test_the_env_and_its_sensors_define_no_getattr() -> None:
    # CPython 3.11 specializes no attribute read on a class that defines __getattr__: on the AEC
    # env and its sensors that cost a quarter of a Gymnasium step. The explanations of missing
    # attributes come from class attributes instead (the tests above and test_sensors hold them).
    from gridghost.sensing.sensors import ClassifierSensor, ColorSensor, ItemSensor

    for cls in (type(gridghost.raw_env()), type(gridghost.env()), ColorSensor, ItemSensor, ClassifierSensor):
        owners = [klass.__qualname__ for klass in cls.__mro__ if "__getattr__" in vars(klass)]
        assert owners == [], f"{cls.__qualname__} reads attributes through __getattr__ of {owners}"
