"""Defects found in review and the classes of defect behind them: reserved info keys, validate before
mutating, seeds, wrappers that forward ``seed``, slip models compared by their tables, infos that
share nothing with the env, and arguments that are never silently ignored.

A second review's defects, in their section at the end: map files read as data, layout dicts that drop
nothing, sizes checked before the work (map texts, colour lists, the batched engine's buffers and
level sets), self-play envs that play their own copies of the pool's snapshots, and the small
ones (prioritised sampling, preset options, map names, front-ends naming their own arguments).

The renderer's defects (windows of two sizes, readings of any kind in the status panel, items and
texts kept inside their cell) are tested in ``test_render.py``; the layout's (texts no view can
draw, malformed items, colours and names) in ``test_layout.py``; the bounded tables in
``test_rules.py``.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import gridghost
from gridghost import AgentInterface, GridGhostGymEnv
from gridghost.config import RESERVED_INFO_KEYS
from gridghost.core.layout import CLASSIC, Layout
from gridghost.core.policies import RandomPolicy, ReferencePolicy, make_policy
from gridghost.core.slip import LongitudinalSlip, SlipModel
from gridghost.envs.aec import GridGhostEnv
from gridghost.envs.single_agent import Duel
from gridghost.maps import load as load_map
from gridghost.sensing.filters import HistogramFilter, ParticleFilter
from gridghost.sensing.sensors import ColorSensor, ItemSensor, Sensor


class Echo(Sensor):
    """A custom sensor that reports the agent's cell index under a name of the caller's choice,
    and, if told to, an extra key it never declared."""

    def __init__(self, name: str, extra: str | None = None) -> None:
        self.name = name
        self.layout = CLASSIC
        self.extra = extra

    def measure(self, state, rng):
        return state.agent

    def read(self, state, rng):
        reading = {self.name: self.measure(state, rng)}
        if self.extra is not None:
            reading[self.extra] = True
        return reading


# -- reserved info keys -----------------------------------------------------------------------------
@pytest.mark.parametrize("key", sorted(RESERVED_INFO_KEYS))
def test_no_sensor_may_report_under_a_reserved_key(key: str) -> None:
    with pytest.raises(ValueError, match=f"reports under '{key}', an info key the env writes itself"):
        GridGhostEnv(sensors=[ColorSensor(CLASSIC), Echo(key)])
    with pytest.raises(ValueError, match=f"reports under '{key}'"):
        GridGhostGymEnv(sensors=[ColorSensor(CLASSIC), Echo(key)])
    with pytest.raises(ValueError, match=f"reports under '{key}'"):
        GridGhostEnv(sensors=[ItemSensor(CLASSIC, probs_key=key)])


def test_the_gymnasium_env_no_longer_clobbers_a_sensor_named_is_success() -> None:
    """The defect as found: a sensor named ``is_success`` was accepted and overwritten."""
    with pytest.raises(ValueError, match="'is_success'"):
        GridGhostGymEnv(sensors=[ColorSensor(CLASSIC), Echo("is_success")])


def _sensor_keys(sensors: Any) -> set[str]:
    return {key for sensor in sensors for key in sensor.info_keys}


def _play(step: Callable[[int], bool], rng: np.random.Generator, limit: int = 60) -> None:
    for _ in range(limit):
        if step(int(rng.integers(4))):
            return


def test_every_key_any_view_writes_is_reserved() -> None:
    """The class test: run every view, with a belief filter and the item sensor on, and collect
    every info key it hands out; whatever no sensor declared must be in the one reserved list."""
    rng = np.random.default_rng(0)
    written: dict[str, set[str]] = {}

    aec = gridghost.env(sensors=[ColorSensor(CLASSIC), ItemSensor(CLASSIC)], belief_filter="histogram")
    for seed in range(8):
        aec.reset(seed=seed)
        for _ in aec.agent_iter():
            *_, termination, truncation, info = aec.last()
            written.setdefault("aec", set()).update(info)
            aec.step(None if termination or truncation else int(rng.integers(4)))
    written["aec"] -= _sensor_keys(aec.sensors)

    for controlled in ("agent", "ghost"):
        gym = GridGhostGymEnv(controlled=controlled, belief_filter="histogram" if controlled == "agent" else None)
        keys = written.setdefault(f"gym {controlled}", set())
        for seed in range(8):
            keys.update(gym.reset(seed=seed)[1])

            def step(action: int, gym=gym, keys=keys) -> bool:
                _, _, terminated, truncated, info = gym.step(action)
                keys.update(info)
                return terminated or truncated

            _play(step, rng)
        keys -= _sensor_keys(gym.game.sensors)

    facade = AgentInterface(render=False)
    keys = written.setdefault("interface", set())
    for seed in range(8):
        facade.reset(seed=seed)
        keys.update(facade.last_info)

        def step(action: int) -> bool:
            _, _, done, info = facade.step(action)
            keys.update(info)
            return done

        _play(step, rng)
    keys -= _sensor_keys(facade.env.sensors)

    for view, keys in written.items():
        assert keys <= RESERVED_INFO_KEYS, f"{view} writes keys no list reserves: {sorted(keys - RESERVED_INFO_KEYS)}"
    # The views really wrote their own keys (so the test above had something to check).
    assert {"is_success", "action_mask", "estimated_pos", "caught_by_ghost", "reached_goal"} <= written["gym agent"]
    assert "estimated_pos" in written["interface"] and "mover" in written["aec"]


def test_a_sensor_reporting_keys_it_did_not_declare_is_refused_at_construction() -> None:
    message = r"read\(\) must report exactly its info_keys \['echo'\], got \['echo', 'is_success'\]"
    with pytest.raises(ValueError, match=message):
        gridghost.env(sensors=[ColorSensor(CLASSIC), Echo("echo", extra="is_success")])


def test_a_sensor_renamed_after_construction_cannot_slip_past_the_check() -> None:
    items = ItemSensor(CLASSIC)
    env = GridGhostGymEnv(sensors=[ColorSensor(CLASSIC), items])
    items.name = "is_success"
    with pytest.raises(RuntimeError, match="declares info_keys"):
        env.reset(seed=0)
    echo = Echo("echo")
    aec = gridghost.env(sensors=[ColorSensor(CLASSIC), echo])
    echo.name = "is_success"
    with pytest.raises(RuntimeError, match="declares info_keys"):
        aec.reset(seed=0)

    class Plain(Sensor):
        name = "plain"
        layout = CLASSIC

        def measure(self, state, rng):
            return 1

    plain = Plain()
    aec = gridghost.env(sensors=[ColorSensor(CLASSIC), plain])
    plain.name = "is_success"
    aec.reset(seed=0)
    assert aec.infos["agent"]["plain"] == 1 and "is_success" not in aec.infos["agent"]  # the name checked


@pytest.mark.parametrize("key", ["_is_success", "_hidden", "episode", "final_info", "final_obs"])
def test_keys_gymnasiums_wrappers_write_are_reserved_too(key: str) -> None:
    with pytest.raises(ValueError, match="an info key the env writes itself"):
        GridGhostGymEnv(sensors=[ColorSensor(CLASSIC), Echo(key)])


def test_one_filter_cannot_follow_two_envs() -> None:
    sensors = [ColorSensor(CLASSIC)]
    belief = HistogramFilter(CLASSIC, LongitudinalSlip(0.2), sensors)
    first = GridGhostGymEnv(sensors=sensors, belief_filter=belief)
    with pytest.raises(ValueError, match="already kept in step by another env"):
        GridGhostGymEnv(sensors=sensors, belief_filter=belief)
    copied = pickle.loads(pickle.dumps(first))  # a copy brings its own copy of the filter
    copied.reset(seed=0)
    del first, copied
    import gc

    gc.collect()
    assert GridGhostGymEnv(sensors=sensors, belief_filter=belief).game.belief_filter is belief  # owner gone


def test_a_filter_needs_its_sensors_named() -> None:
    with pytest.raises(TypeError, match="sensors must be a sequence of the sensors the filter reads"):
        HistogramFilter(CLASSIC, LongitudinalSlip(0.2), None)


# -- seeds ------------------------------------------------------------------------------------------
def _aec_trajectory(env: GridGhostEnv, seed: Any) -> list[Any]:
    env.reset(seed=seed)
    record = [env.agent_pos]
    rng = np.random.default_rng(0)
    for _ in env.agent_iter():
        *_, termination, truncation, info = env.last()
        record.append((env.agent_pos, env.ghost_pos, info.get("color_measurement")))
        env.step(None if termination or truncation else int(rng.integers(4)))
    return record


@pytest.mark.parametrize("seed", [np.int64(3), np.uint8(3), np.int32(3)])
def test_numpy_integer_seeds_work_everywhere(seed: Any) -> None:
    env = gridghost.env(slip_probability=0.5)
    assert _aec_trajectory(env, seed) == _aec_trajectory(env, 3)
    assert type(env.np_random_seed) is int and env.np_random_seed == 3

    gym = GridGhostGymEnv(opponent="random", slip_probability=0.5, obs_type="dict")
    first = [gym.reset(seed=seed)[1]["color_measurement"], *(gym.step(a)[0]["ghost_relative_pos"].tolist()
                                                          for a in (1, 2, 1))]
    again = [gym.reset(seed=3)[1]["color_measurement"], *(gym.step(a)[0]["ghost_relative_pos"].tolist()
                                                         for a in (1, 2, 1))]
    assert first == again

    facade = AgentInterface(render=False, slip_probability=0.5)
    facade.reset(seed=seed)
    steps = [facade.step(1)[3]["estimated_pos"] for _ in range(3)]
    facade.reset(seed=3)
    assert steps == [facade.step(1)[3]["estimated_pos"] for _ in range(3)]

    assert RandomPolicy(seed=seed)(None) == RandomPolicy(seed=3)(None)


BAD_SEEDS = [(-1, ValueError), (1.5, TypeError), ("x", TypeError), (True, TypeError), (np.bool_(False), TypeError),
             (np.int64(-2), ValueError), ([1, 2], TypeError)]


@pytest.mark.parametrize(("seed", "error"), BAD_SEEDS)
def test_bad_seeds_name_seed_and_change_nothing(seed: Any, error: type) -> None:
    views: list[Any] = [gridghost.env(), gridghost.raw_env(), GridGhostGymEnv(), AgentInterface(render=False)]
    for view in views:
        view.reset(seed=0)
        before = pickle.dumps(view)
        with pytest.raises(error, match=r"seed must be None or an int >= 0, got"):
            view.reset(seed=seed)
        assert pickle.dumps(view) == before, type(view).__name__
    with pytest.raises(error, match="seed must be None or an int >= 0"):
        RandomPolicy(seed=seed)
    for belief in (HistogramFilter(CLASSIC, LongitudinalSlip(0.2), [ColorSensor(CLASSIC)]),
                   ParticleFilter(CLASSIC, LongitudinalSlip(0.2), [ColorSensor(CLASSIC)], seed=0)):
        with pytest.raises(error, match="seed must be None, an int >= 0 or a numpy SeedSequence"):
            belief.reset(seed)


# -- wrappers forward seed --------------------------------------------------------------------------
class SeededGhost:
    """A reference-style ghost with a generator of its own and ``seed(int)``."""

    def __init__(self, action_space: Any = None) -> None:
        self.rng = np.random.default_rng()

    def seed(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def get_action(self, observation: Any) -> int:
        return int(self.rng.integers(4))


class SpaceGhost:
    """A reference-style ghost that samples the action space it is built with."""

    def __init__(self, action_space: Any) -> None:
        self.action_space = action_space

    def get_action(self, observation: Any) -> int:
        return int(self.action_space.sample())


class SeededCallable:
    """A plain callable policy with a generator and ``seed``."""

    def __init__(self) -> None:
        self.rng = np.random.default_rng()

    def seed(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, observation: Any) -> int:
        return int(self.rng.integers(4))


#: Every form make_policy accepts that draws random numbers, as a factory of fresh specs.
RANDOM_FORMS: dict[str, Callable[[], Any]] = {
    "name 'random'": lambda: "random",
    "RandomPolicy instance": lambda: RandomPolicy(seed=123),
    "reference class with seed": lambda: SeededGhost,
    "reference instance with seed": lambda: SeededGhost(),
    "reference class sampling its action space": lambda: SpaceGhost,
    "callable with seed": SeededCallable,
}


def _ghost_moves(env: GridGhostGymEnv, seed: int) -> list[Any]:
    env.reset(seed=seed)
    moves = []
    for _ in range(15):
        obs, _, terminated, truncated, _ = env.step(3)  # up, into the border: the agent stays put
        moves.append(obs["ghost_relative_pos"].tolist())
        if terminated or truncated:
            break
    return moves


@pytest.mark.parametrize("form", sorted(RANDOM_FORMS))
def test_every_random_opponent_form_is_reseeded_by_reset(form: str) -> None:
    env = GridGhostGymEnv(opponent=RANDOM_FORMS[form](), slip="none", max_cycles=15, obs_type="dict")
    first = _ghost_moves(env, 5)
    assert _ghost_moves(env, 6) != first  # the seed matters ...
    assert _ghost_moves(env, 5) == first  # ... and the same seed replays, on the same env
    other = GridGhostGymEnv(opponent=RANDOM_FORMS[form](), slip="none", max_cycles=15, obs_type="dict")
    assert _ghost_moves(other, 5) == first  # ... and on another one


class LeftGhost:
    """A deterministic reference-style ghost without ``seed``."""

    def __init__(self, action_space: Any = None) -> None:
        self.action_space = action_space

    def get_action(self, observation: Any) -> int:
        return 0


@pytest.mark.parametrize("spec", ["chase", lambda observation: 0, LeftGhost(), LeftGhost])
def test_deterministic_opponent_forms_replay_too(spec: Any) -> None:
    env = GridGhostGymEnv(opponent=spec, slip="none", max_cycles=15, obs_type="dict")
    assert _ghost_moves(env, 5) == _ghost_moves(env, 5)


def test_the_reference_wrapper_forwards_seed() -> None:
    ghost = SeededGhost()
    wrapper = make_policy(ghost)
    assert isinstance(wrapper, ReferencePolicy)
    wrapper.seed(11)
    draws = [wrapper(None) for _ in range(20)]
    ghost.seed(11)
    assert draws == [ghost.get_action(None) for _ in range(20)]
    make_policy(LeftGhost()).seed(3)  # nothing to forward to, and nothing raised


# -- slip models compare by their tables -----------------------------------------------------------
class Sideways(SlipModel):
    """A custom model: with ``p`` the move goes to ``self.side`` instead."""

    side = 0

    def _groups(self, action):
        return ((self.probability, ((self.side,),)), (1.0 - self.probability, ((action,),)))


class LeftSlip(Sideways):
    side = 0


def _right_slip(probability: float) -> SlipModel:
    model = Sideways.__new__(Sideways)
    model.side = 2
    SlipModel.__init__(model, probability)
    return model


def test_slip_models_with_different_tables_differ() -> None:
    left, right = Sideways(0.3), _right_slip(0.3)
    assert left != right and hash(left) != hash(right)
    assert left == Sideways(0.3) and hash(left) == hash(Sideways(0.3))
    assert left == LeftSlip(0.3)  # the same table under another class: the same motion model
    assert LongitudinalSlip(0.2) == LongitudinalSlip(0.2) != LongitudinalSlip(0.3)
    assert gridghost.NoSlip() == LongitudinalSlip(0.0) == gridghost.PerpendicularSlip(0.0)
    assert LongitudinalSlip(0.2) != gridghost.PerpendicularSlip(0.2)


def test_a_filter_for_an_equal_motion_model_is_accepted() -> None:
    sensors = [ColorSensor(CLASSIC)]
    env = gridghost.env(slip="none", sensors=sensors,
                        belief_filter=HistogramFilter(CLASSIC, LongitudinalSlip(0.0), sensors))
    assert env.belief_filter.slip == env.slip


def test_a_filter_for_another_motion_model_is_refused_before_any_draw() -> None:
    sensors = [ColorSensor(CLASSIC, quality=1.0)]
    belief = HistogramFilter(CLASSIC, _right_slip(0.3), sensors)
    with pytest.raises(ValueError, match="another motion model than the env's"):
        gridghost.env(slip=Sideways(0.3), sensors=sensors, belief_filter=belief)
    # With the right model the exact sensor and the exact filter agree for a whole episode.
    env = gridghost.env(slip=Sideways(0.3), sensors=sensors,
                        belief_filter=HistogramFilter(CLASSIC, Sideways(0.3), sensors))
    record = _aec_trajectory(env, 1)
    assert len(record) > 2


# -- infos share nothing ----------------------------------------------------------------------------
def test_the_interfaces_info_is_the_callers_own() -> None:
    facade = AgentInterface(render=False, use_particle_filter=True, slip_type="none", use_ghost=False)
    facade.reset(seed=4)
    for action in (2, 2, 1, 1, 1):  # right, right, down to the Stopp goal
        *_, done, info = facade.step(action)
    assert done and info["reached_goal"]
    stats = facade.get_episode_stats()
    env_estimate = pickle.dumps(facade.env.infos["agent"])
    info.pop("reached_goal")
    info["estimated_pos"]["cell_pos"][0] = 99
    info["action_mask"][:] = 7
    assert facade.get_episode_stats() == stats
    assert facade.last_info["estimated_pos"]["cell_pos"][0] != 99
    assert pickle.dumps(facade.env.infos["agent"]) == env_estimate


def test_the_gymnasium_env_hands_out_detached_estimates() -> None:
    env = GridGhostGymEnv(belief_filter="histogram", reference_infos=True)
    _, reset_info = env.reset(seed=0)
    reset_info["estimated_pos"]["float_pos"].append(5.0)
    _, _, _, _, info = env.step(1)
    kept = pickle.dumps(env.game.infos["agent"])
    info["estimated_pos"]["cell_pos"].clear()
    assert pickle.dumps(env.game.infos["agent"]) == kept
    assert len(env.game.infos["agent"]["estimated_pos"]["float_pos"]) == 2


# -- arguments are never silently ignored ------------------------------------------------------------
def test_the_interface_takes_slip_type_none_with_the_default_probability() -> None:
    facade = AgentInterface(render=False, use_particle_filter=False, slip_type="none", use_ghost=False)
    assert facade.env.slip == gridghost.NoSlip() and facade.get_reward_structure()["slip_probability"] == 0.0
    facade.reset(seed=0)
    assert not any(facade.step(a)[3]["slipped"] for a in (2, 2, 0, 0, 2, 0, 0, 0))
    with pytest.raises(ValueError, match=r"slip_probability must be 0 with slip type 'none', got 0\.2"):
        AgentInterface(render=False, use_particle_filter=False, slip_type="none", slip_probability=0.2)
    assert AgentInterface(render=False, use_particle_filter=False).env.slip == LongitudinalSlip(0.2)


@pytest.mark.parametrize("make", [GridGhostEnv, GridGhostGymEnv])
def test_ghost_rewards_without_a_ghost_are_refused(make: Callable[..., Any]) -> None:
    with pytest.raises(ValueError, match=r"ghost_rewards has no one to reward .*use_ghost=False"):
        make(use_ghost=False, ghost_rewards=gridghost.Rewards())


def test_duel_refuses_what_would_fail_only_after_the_callers_half_turn() -> None:
    with pytest.raises(TypeError, match="after_half_turn must be a callable or None"):
        Duel(gridghost.raw_env(), after_half_turn=5)
    with pytest.raises(ValueError, match=r"draws from 8 actions; the game has 4"):
        GridGhostGymEnv(opponent=RandomPolicy(seed=0, num_actions=8))
    with pytest.raises(TypeError, match=r"game must be a gridghost\.GridGhostEnv"):
        Duel(None)
    with pytest.raises(ValueError, match="unknown opponent_obs_type 'bogus'"):
        GridGhostGymEnv(opponent_obs_type="bogus")


# -- validate before mutating ------------------------------------------------------------------------
def _started(make: Callable[[], Any]) -> Any:
    view = make()
    view.reset(seed=0)
    return view


def _stepped_aec() -> Any:
    env = _started(lambda: gridghost.env(belief_filter="particle"))
    env.step(1)
    return env


REJECTED_CALLS: dict[str, tuple[Callable[[], Any], Callable[[Any], Any], type]] = {
    "aec step 4": (_stepped_aec, lambda env: env.step(4), ValueError),
    "aec step nan": (_stepped_aec, lambda env: env.step(float("nan")), TypeError),
    "aec reset options": (_stepped_aec, lambda env: env.reset(seed=1, options=[1]), TypeError),
    "aec reset seed": (_stepped_aec, lambda env: env.reset(seed=-5), ValueError),
    "gym step": (lambda: _started(lambda: GridGhostGymEnv(belief_filter="particle")), lambda env: env.step(None),
                 TypeError),
    "gym reset": (lambda: _started(GridGhostGymEnv), lambda env: env.reset(seed=True), TypeError),
    "interface step": (lambda: _started(lambda: AgentInterface(render=False)), lambda facade: facade.step(-1),
                       ValueError),
    "interface reset": (lambda: _started(lambda: AgentInterface(render=False)), lambda facade: facade.reset("7"),
                        TypeError),
    "interface set_ghost_agent": (lambda: _started(lambda: AgentInterface(render=False)),
                                  lambda facade: facade.set_ghost_agent("sleepy"), ValueError),
    "duel play": (lambda: _started(lambda: Duel(gridghost.raw_env(), "ghost")), lambda duel: duel.play(2.0),
                  TypeError),
    "particle predict": (lambda: _started(lambda: ParticleFilter(CLASSIC, LongitudinalSlip(0.2),
                                                                 [ColorSensor(CLASSIC)], seed=0)),
                         lambda belief: belief.predict(9), ValueError),
    "histogram update": (lambda: _started(lambda: HistogramFilter(CLASSIC, LongitudinalSlip(0.2),
                                                                  [ColorSensor(CLASSIC)])),
                         lambda belief: belief.update({"color_measurement": 7}), ValueError),
}


@pytest.mark.parametrize("case", sorted(REJECTED_CALLS))
def test_a_rejected_call_leaves_everything_as_it_was(case: str) -> None:
    """The class test: every public call that can change state, given bad input, raises before
    its first draw or change; the object pickles to the same bytes afterwards."""
    make, call, error = REJECTED_CALLS[case]
    view = make()
    before = pickle.dumps(view)
    with pytest.raises(error):
        call(view)
    assert pickle.dumps(view) == before


# -- resources are bounded ---------------------------------------------------------------------------
def test_the_move_description_cache_is_bounded() -> None:
    from gridghost.core.rules import describe_moves

    assert describe_moves.cache_info().maxsize is not None


def test_rewards_too_large_for_a_float_are_named() -> None:
    with pytest.raises(ValueError, match=r"Rewards\.step must be a finite float"):
        gridghost.Rewards(step=10**400)


def test_settings_that_would_do_nothing_are_not_silently_taken() -> None:
    with pytest.warns(UserWarning, match="step_delay pauses after half-turns drawn in a window"):
        AgentInterface(render=False, use_particle_filter=False, step_delay=5000)
    with pytest.raises(ValueError, match="show_belief=False hides the belief filter's map, and there is no"):
        gridghost.env(show_belief=False)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        AgentInterface(render=False, use_particle_filter=False)  # the defaults warn about nothing


def test_a_custom_sensors_mutable_reading_is_copied_for_the_caller() -> None:
    class Listing(Sensor):
        name = "listing"
        layout = CLASSIC

        def measure(self, state, rng):
            return [state.agent, {"ghost": state.ghost}]

    env = GridGhostGymEnv(sensors=[ColorSensor(), Listing()], reference_infos=True)
    _, info = env.reset(seed=0)
    info["listing"][1]["ghost"] = -1
    info["listing"].append("x")
    assert env.game.infos["agent"]["listing"] == [2, {"ghost": 19}]
    _, _, _, _, info = env.step(1)
    kept = pickle.dumps(env.game.infos["agent"])
    info["listing"].clear()
    assert pickle.dumps(env.game.infos["agent"]) == kept


def test_the_gymnasium_env_hands_out_writable_copies_of_numeric_arrays() -> None:
    env = GridGhostGymEnv(belief_filter="histogram", obs_type="vector")
    _, reset_info = env.reset(seed=0)
    _, _, _, _, info = env.step(1)
    kept = pickle.dumps(env.game.infos["agent"])
    for shown in (reset_info, info):
        for key in ("estimated_pos", "estimated_cell", "actual_moves", "action_mask"):
            shown[key][0] = 9  # the caller's own arrays
    assert pickle.dumps(env.game.infos["agent"]) == kept


# == the second review ========================================================================================
# -- map files are data --------------------------------------------------------------------------------
def _file(tmp_path: Any, name: str, content: str | bytes) -> str:
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return str(path)


def test_a_json_map_file_holding_a_string_is_refused_not_followed(tmp_path: Any) -> None:
    import json

    from gridghost.maps.sources import map_source

    looping = tmp_path / "self.json"
    looping.write_text(json.dumps(str(looping)), encoding="utf-8")  # recursed until RecursionError
    text_map = _file(tmp_path, "maze.txt", load_map("maze9").to_text())
    for content in (str(looping), "classic", text_map, load_map("maze9").to_text()):
        path = _file(tmp_path, "pointer.json", json.dumps(content))
        with pytest.raises(ValueError, match=r"layout file '.*pointer\.json' must hold a JSON object .* got a string"):
            map_source(path)
    with pytest.raises(ValueError, match=r"layout file '.*self\.json' must hold a JSON object"):
        gridghost.env(layout=looping)
    for content, kind in (("[1, 2]", "an array"), ("3", "a number"), ("null", "null")):
        with pytest.raises(ValueError, match=f"got {kind}"):
            map_source(_file(tmp_path, "other.json", content))


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("bad.json", "{nope", "is not valid JSON: Expecting property name"),
        ("deep.json", "[" * 100_000 + "]" * 100_000, "nests its JSON too deeply"),
        ("latin.json", b'{"name": "\xe9"}', "is not UTF-8 text"),
        ("latin.txt", b"\xff\xfe", "is not UTF-8 text"),
        ("twice.json", '{"colours": [[0, 0]], "colours": [[0, 0, 0]]}',
         "is not valid JSON: the key 'colours' appears twice"),
        ("huge.json", '{"a": ' + "9" * 5000 + "}", "is not valid JSON"),
        ("broken.txt", "+---+\n| A |\n+---+\n", r"holds no valid map: map text line"),
        ("broken.json", '{"colours": [[0, 0]]}', "holds no valid map: a layout dict needs the keys"),
        ("triples.json", '{"colours": [[0, 0]], "goals": [], "agent_start": [0, 0], "ghost_start": [0, 1], '
                         '"items": [[0, 0]]}', r"holds no valid map: layout dict 'items' must be a list of"),
    ],
)
def test_every_map_file_error_is_a_value_error_naming_the_file_and_layout(tmp_path: Any, name: str,
                                                                        content: str | bytes, message: str) -> None:
    path = _file(tmp_path, name, content)
    with pytest.raises(ValueError, match=rf"^layout file '.*{name}' {message}"):
        gridghost.env(layout=path)


def test_map_files_too_large_or_unreadable_are_named(tmp_path: Any) -> None:
    from gridghost.maps.sources import MAX_MAP_FILE_BYTES, resolve_layout

    huge = tmp_path / "huge.txt"
    with huge.open("wb") as file:
        file.truncate(MAX_MAP_FILE_BYTES + 1)  # sparse: nothing is written
    with pytest.raises(ValueError, match=r"layout file '.*huge\.txt' is larger than .*MAX_MAP_FILE_BYTES"):
        resolve_layout(huge)
    with pytest.raises(ValueError, match=r"is neither a shipped map .* nor a file"):
        resolve_layout("x" * 5000)  # too long a name for the system: no such file, not an OSError


# -- layout dicts drop nothing -------------------------------------------------------------------------
def test_a_layout_dict_naming_a_cell_twice_is_refused() -> None:
    from gridghost.core.layout import Layout

    data = CLASSIC.to_dict()
    with pytest.raises(ValueError, match=r"'items' names the cell \(0, 0\) twice \(entries 0 and 1\)"):
        Layout.from_dict({**data, "items": [[0, 0, ["dog"]], [0, 0, ["flower"]]]})
    with pytest.raises(ValueError, match=r"'texts' names the cell \(3, 1\) twice"):
        Layout.from_dict({**data, "texts": [[3, 1, "Ziel"], [3, 1, "Goal"]]})


@pytest.mark.parametrize("key", ["items", "texts"])
@pytest.mark.parametrize("value", [0, False, "", {}, "abc"])
def test_a_layout_dict_entry_list_of_another_kind_is_refused(key: str, value: Any) -> None:
    from gridghost.core.layout import Layout

    with pytest.raises(TypeError, match=f"layout dict '{key}' must be a list of \\[row, col, value\\] triples"):
        Layout.from_dict({**CLASSIC.to_dict(), key: value})
    plain = {k: v for k, v in CLASSIC.to_dict().items() if k not in ("items", "texts")}
    assert Layout.from_dict({**plain, key: None}) == Layout.from_dict(plain)  # None: none, as when absent


def test_a_generator_dict_with_options_of_another_kind_is_refused() -> None:
    from gridghost.maps.levels import MapGenerator

    for options in (0, False, "", []):
        with pytest.raises(TypeError, match="'options' must be a dict"):
            MapGenerator.from_dict({"generator": {"rows": 5, "cols": 5, "options": options}})


# -- sizes are checked before the work -------------------------------------------------------------------
def _open_drawing(rows: int, cols: int) -> str:
    """A map text of an open ``rows x cols`` room (agent top left, ghost beside it, goal bottom
    right); ``cols >= 2``."""
    wall = "+" + "---+" * cols
    cells = [["   "] * cols for _ in range(rows)]
    cells[0][0], cells[0][1] = " A ", " G "
    cells[-1][-1] = " * "
    body = ["|" + " ".join(row) + "|" for row in cells]
    between = "+" + "   +" * (cols - 1) + "   +"
    drawn = [wall, *(line for row in body for line in (row, between))]
    return "\n".join([*drawn[:-1], wall]) + "\n"


def test_a_map_text_too_large_is_refused_from_its_size_before_it_is_parsed() -> None:
    import tracemalloc

    from gridghost.core.layout import MAX_CELLS, Layout

    assert Layout.from_text(_open_drawing(64, 64)).shape == (64, 64)  # the largest square still reads
    column = Layout(np.zeros((MAX_CELLS, 1), dtype=int), [(MAX_CELLS - 1, 0)], (0, 0), (1, 0))
    assert Layout.from_text(column.to_text()) == column  # and the longest drawing
    huge = _open_drawing(1000, 1000)  # took 4 s and 470 MB to refuse
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"line 10, column 1 .*too long: a map of 1000 column\(s\) has at most 4 "
                                             r"rows .*MAX_CELLS = 4096"):
            Layout.from_text(huge)
        assert tracemalloc.get_traced_memory()[1] < 4 * len(huge)  # the lines, not the cells
    finally:
        tracemalloc.stop()
    with pytest.raises(ValueError, match=r"line 130, column 1 .*a map of 64 column\(s\) has at most 64 rows"):
        Layout.from_text(_open_drawing(65, 64))
    with pytest.raises(ValueError, match=r"line 1, column 1 .*too wide: .* 5,000 columns"):
        Layout.from_text("+" + "---+" * 5000 + "\n")


def test_a_colour_list_too_large_is_refused_before_it_is_converted() -> None:
    import tracemalloc

    from gridghost.core.layout import Layout

    colours = [[0] * 3000 for _ in range(3000)]
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"3000 x 3000 = 9000000 cells.*MAX_CELLS"):
            Layout(colours, goals=[(0, 2)], agent_start=(0, 0), ghost_start=(0, 1))
        assert tracemalloc.get_traced_memory()[1] < 2**20  # 230 MB were converted first
    finally:
        tracemalloc.stop()


def test_batched_buffers_have_a_budget_checked_at_construction(monkeypatch: pytest.MonkeyPatch) -> None:
    import re

    from gridghost.batched import MAX_GAMES, BatchedGame, BatchedHistogramFilter, limits

    # MAX_GAMES took about 12 GiB and was OOM-killed at reset; now refused before any buffer
    with pytest.raises(ValueError, match=r"num_games=67,108,864 needs about [\d,]+ MiB of per-game buffers .*"
                                         r"BUFFER_BYTES .* the maximum for these settings is num_games=[\d,]+"):
        BatchedGame(MAX_GAMES)
    monkeypatch.setattr(limits, "BUFFER_BYTES", 2**20)
    for settings in ({}, {"obs_type": "grid"}, {"obs_type": "belief_vector"}, {"controlled": None}):
        with pytest.raises(ValueError, match="the maximum for these settings is") as refused:
            BatchedGame(100_000, **settings)
        most = int(re.search(r"num_games=([\d,]+)$", str(refused.value)).group(1).replace(",", ""))
        batch = BatchedGame(most, seed=0, **settings)  # the maximum it names is accepted
        batch.reset()
        with pytest.raises(ValueError, match=f"num_games={most + 1:,} needs"):
            BatchedGame(most + 1, **settings)
    with pytest.raises(ValueError, match=r"num_games=100,000 needs .* the exact filter's beliefs"):
        BatchedHistogramFilter(CLASSIC, LongitudinalSlip(0.2), [], 100_000)


def test_batched_level_sets_too_large_are_refused_before_their_levels_are_built() -> None:
    from gridghost.batched import BatchedGame
    from gridghost.maps.levels import MapGenerator

    built: list[int] = []

    class Counting(MapGenerator):
        def level(self, index: int) -> Any:
            built.append(index)
            return super().level(index)

    generator = Counting(5, 5, num_levels=20_000)
    built.clear()  # the constructor builds the first level
    with pytest.raises(ValueError, match=r"20,000 map\(s\) of 5x5 would take at least .*TABLE_BYTES"):
        BatchedGame(2, layout=generator)  # built every level first: 100 s
    # only the first level is looked up (the settings bind the sensors to it; the generator's
    # constructor built it already), none of the other 19,999
    assert built == [generator.start_level]
    with pytest.raises(ValueError, match=r"view_radius must be an int in 1\.\.31"):
        BatchedGame(2, obs_type="grid", view_radius=10**6)  # was: the tables would take 2e11 MiB


# -- self-play envs play their own copies --------------------------------------------------------------
def _selfplay_pool() -> Any:
    from gridghost.training.selfplay import OpponentPool

    pool = OpponentPool()
    pool.add(RandomPolicy(seed=1), "ghost")
    pool.add(RandomPolicy(seed=2), "ghost")
    pool.add("chase", "ghost")
    return pool


def _interleaved(envs: list[Any], seeds: list[int | None], episodes: int = 3) -> list[list[Any]]:
    """Play ``episodes`` episodes in each env, one step of each in turn; each env's record of
    (opponent, reward, terminated, truncated, positions)."""
    records: list[list[Any]] = [[] for _ in envs]
    for episode in range(episodes):
        live = []
        for env, seed, record in zip(envs, seeds, records, strict=True):
            _, info = env.reset(seed=seed if episode == 0 else None)
            record.append(info["opponent"])
            live.append(True)
        for step in range(200):
            for k, env in enumerate(envs):
                if live[k]:
                    _, reward, terminated, truncated, _ = env.step(step % 4)
                    game = env.unwrapped.game
                    records[k].append((reward, terminated, truncated, game.agent_pos, game.ghost_pos))
                    live[k] = not (terminated or truncated)
    return records


def test_selfplay_envs_on_one_pool_play_as_each_would_alone() -> None:
    from gridghost.training.selfplay import SelfPlayEnv

    pool = _selfplay_pool()
    kept = {s.name: pickle.dumps(s.policy) for s in pool.snapshots()}
    together = _interleaved([SelfPlayEnv(pool, max_cycles=40), SelfPlayEnv(pool, max_cycles=40)], [3, 4])
    alone = [_interleaved([SelfPlayEnv(_selfplay_pool(), max_cycles=40)], [seed])[0] for seed in (3, 4)]
    assert together == alone  # a second env changed the first's seeded game from 30 steps to 11
    assert {s.name: pickle.dumps(s.policy) for s in pool.snapshots()} == kept  # the snapshots never played


def test_tabulating_a_snapshot_leaves_it_as_it_was() -> None:
    from gridghost.training.selfplay import OpponentPool, exploitability_curve

    class Counting:
        def __init__(self) -> None:
            self.calls = 0

        def __call__(self, observation: Any) -> int:
            self.calls += 1
            return 0

    pool = OpponentPool()
    agent = pool.add(Counting(), "agent")
    ghost = pool.add("chase", "ghost")
    exploitability_curve([(agent, ghost)])
    assert agent.policy.calls == 0


def test_a_shared_snapshot_is_the_callers_object() -> None:
    from gridghost.training.selfplay import OpponentPool

    pool, live = OpponentPool(), RandomPolicy(seed=1)
    shared, frozen = pool.add(live, "ghost", copy=False), pool.add(live, "ghost")
    assert shared.shared and shared.playable_copy() is live
    assert not frozen.shared and frozen.playable_copy() is not frozen.policy


@pytest.mark.parametrize(("seed", "error"), [(True, TypeError), (-1, ValueError), (1.5, TypeError), ("3", TypeError),
                                             (np.float64(2), TypeError)])
def test_a_rejected_selfplay_reset_names_seed_and_draws_nothing(seed: Any, error: type) -> None:
    from gridghost.training.selfplay import SelfPlayEnv

    pool = _selfplay_pool()
    env, twin = SelfPlayEnv(pool, max_cycles=40), SelfPlayEnv(pool, max_cycles=40)
    env.reset(seed=5)
    twin.reset(seed=5)
    with pytest.raises(error, match=r"^seed must be None or an int >= 0"):
        env.reset(seed=seed)
    assert _interleaved([env], [None], episodes=4) == _interleaved([twin], [None], episodes=4)


# -- small ones ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("exponent", [0.0, 2.0, 1e4, 1e300])
def test_prioritised_sampling_takes_any_finite_exponent(exponent: float) -> None:
    from gridghost.training.selfplay import OpponentPool, SelfPlayEnv

    pool = OpponentPool()
    for _ in range(3):
        pool.add("chase", "ghost")
    for name, result in (("ghost-0", "loss"), ("ghost-1", "win"), ("ghost-2", "win"), ("ghost-2", "win")):
        pool.record(name, result)
    probabilities = pool.probabilities("ghost", "prioritised", exponent)  # 0.5 ** 1e4 was 0 / 0 = NaN
    assert np.isfinite(probabilities).all() and probabilities.sum() == pytest.approx(1.0)
    if exponent >= 1e4:
        assert probabilities.tolist() == [1.0, 0.0, 0.0]  # the opponent the learner beats least
    SelfPlayEnv(pool, rule="prioritised", exponent=exponent).reset(seed=0)


def test_prioritised_sampling_with_every_weight_zero_is_uniform() -> None:
    from gridghost.training.selfplay import OpponentPool

    pool = OpponentPool(prior=1e-300)
    for _ in range(2):
        pool.add("chase", "ghost")
    for name in ("ghost-0", "ghost-1"):
        pool.record(name, "win")  # a win rate of 1.0 in floats: every weight (1 - 1) ** p is 0
    assert pool.probabilities("ghost", "prioritised", 2.0).tolist() == [0.5, 0.5]


def test_an_override_drops_the_preset_options_it_makes_invalid() -> None:
    from gridghost.maps.levels import MapGenerator

    generator = MapGenerator(difficulty=0, walls="none")  # said "loops applies to walls='maze' only"
    assert generator.options == {"walls": "none"}
    assert MapGenerator.from_dict(generator.to_dict()) == generator
    with pytest.raises(ValueError, match="loops applies to walls='maze' only"):
        MapGenerator(difficulty=0, walls="none", loops=0.2)  # the caller's own options still must fit


@pytest.mark.parametrize("name", [["classic"], {"classic": 1}, None, 3])
def test_loading_a_map_by_something_other_than_a_name_says_name(name: Any) -> None:
    with pytest.raises(TypeError, match=r"^name must be a str naming a shipped map"):
        load_map(name)  # a list said "unhashable type: 'list'"


@pytest.mark.parametrize(
    ("settings", "error", "message"),
    [
        ({"color_sensor_quality": 2}, ValueError, r"^color_sensor_quality must lie in \[0, 1\]"),
        ({"color_sensor_quality": "x"}, TypeError, "^color_sensor_quality must be a real number"),
        ({"slip_probability": 2}, ValueError, r"^slip_probability must lie in \[0, 1\]"),
        ({"pf_num_particles": 10**9}, ValueError,
         r"^pf_num_particles must be at most gridghost\.sensing\.MAX_PARTICLES = 10,000,000"),
    ],
)
def test_every_front_end_names_the_argument_its_caller_used(settings: dict[str, Any], error: type,
                                                           message: str) -> None:
    with pytest.raises(error, match=message):
        AgentInterface(render=False, **settings)  # said "quality" and "num_particles"
    if "pf_num_particles" not in settings:
        for make in (gridghost.env, gridghost.raw_env, gridghost.parallel_env, GridGhostGymEnv):
            with pytest.raises(error, match=message):
                make(**settings)
    assert AgentInterface(render=False, color_sensor_quality=None).env.sensors[0].quality == 0.8


def test_the_vector_env_names_num_envs() -> None:
    from gridghost.batched import MAX_GAMES, GridGhostVectorEnv

    for count, error in ((0, ValueError), ("4", TypeError), (MAX_GAMES + 1, ValueError)):
        with pytest.raises(error, match=r"^num_envs must be an int"):
            GridGhostVectorEnv(count)
    with pytest.raises(ValueError, match=r"^num_envs=33,554,432 needs .* the maximum for these settings is num_envs="):
        GridGhostVectorEnv(2**25)


# -- the package-level settings are the ones the code reads ----------------------------------------
@pytest.mark.parametrize(("package", "home", "name"), [
    ("gridghost.batched", "gridghost.batched.limits", "TABLE_BYTES"),
    ("gridghost.batched", "gridghost.batched.limits", "BUFFER_BYTES"),
    ("gridghost.batched", "gridghost.batched.limits", "MAX_GAMES"),
    ("gridghost.planning", "gridghost.planning.model", "CACHE_BYTES"),
    ("gridghost.planning", "gridghost.planning.model", "MAX_STATES"),
    ("gridghost.core", "gridghost.core.rules", "BOARD_CACHE_BYTES"),
    ("gridghost.config", "gridghost.config.parts", "MAP_COMPONENTS_BYTES"),
])
def test_setting_a_packages_budget_sets_the_one_its_code_reads(package: str, home: str, name: str,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    package_module, home_module = importlib.import_module(package), importlib.import_module(home)
    assert getattr(package_module, name) == getattr(home_module, name)
    monkeypatch.setattr(package_module, name, 12_345)
    assert getattr(home_module, name) == 12_345 and getattr(package_module, name) == 12_345


def test_the_board_cache_keeps_to_a_budget_set_on_gridghost_core(monkeypatch: pytest.MonkeyPatch) -> None:
    import gridghost.core
    from gridghost.core import rules

    monkeypatch.setattr(gridghost.core, "BOARD_CACHE_BYTES", 1)  # room for the newest board only
    boards = [rules.board_for(Layout.generate(5, 5, seed=1_000 + seed)) for seed in range(3)]
    assert rules.cached_board_bytes() == boards[-1].nbytes


def test_the_maps_kept_follow_a_budget_set_on_gridghost_config(monkeypatch: pytest.MonkeyPatch) -> None:
    import gridghost.config
    from gridghost.config import maps_kept

    layout = Layout.generate(6, 6, seed=0)
    monkeypatch.setattr(gridghost.config, "MAP_COMPONENTS_BYTES", 1_000 * 4096 * 36)
    assert maps_kept(layout) == 1_000
