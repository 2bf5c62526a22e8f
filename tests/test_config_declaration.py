"""GameSpec: every setting declared once, and what derives from the declaration: the keywords of
every view, the checks and their messages, to_dict/from_dict, the engines' refusals and the
settings table of docs/configuration.md."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import gridghost
from gridghost import AgentInterface, GridGhostGymEnv, Rewards
from gridghost.batched import BatchedGame, GridGhostVectorEnv, UnsupportedSetting
from gridghost.config import INPUTS, GameConfig, GameSpec, game_config, resolve, settings_lines
from gridghost.config.declaration import DEFAULT_ONLY, declared
from gridghost.sensing.sensors import ColorSensor
from gridghost.training import Evaluator

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "configuration.md"

#: A map with two ghost starts, for the team settings.
TWO_STARTS = gridghost.Layout(np.zeros((4, 5), int), goals=[(0, 0)], agent_start=(2, 2), ghost_start=[(3, 4), (0, 4)])

#: A value other than the default for every setting (with what it needs beside it).
OTHER_VALUES: dict[str, dict[str, Any]] = {
    "layout": dict(layout="corridor"),
    "slip": dict(slip="perpendicular"),
    "sensors": dict(sensors=[ColorSensor(quality=0.7)]),
    "rewards": dict(rewards="normalised"),
    "ghost_rewards": dict(ghost_rewards=Rewards(goal=3)),
    "max_cycles": dict(max_cycles=7),
    "use_ghost": dict(use_ghost=False),
    "ghosts": dict(ghosts=2, layout=TWO_STARTS),
    "ghost_credit": dict(ghost_credit="catcher"),
    "obs_type": dict(obs_type="vector"),
    "belief_filter": dict(belief_filter="particle"),
    "show_belief": dict(show_belief=False, belief_filter="histogram"),
    "expert": dict(expert="minimax"),
    "view_radius": dict(view_radius=2, obs_type="grid"),
    "action_mask_in_obs": dict(action_mask_in_obs=True),
    "append_step_count": dict(append_step_count=True),
    "grid_layout": dict(grid_layout="hwc", obs_type="grid"),
    "reference_infos": dict(reference_infos=True),
}

#: A bad value for every keyword (the settings and the inputs), with what it needs beside it.
BAD_VALUES: dict[str, dict[str, Any]] = {
    "layout": dict(layout=3), "slip": dict(slip="sideways"), "sensors": dict(sensors=3),
    "rewards": dict(rewards="huge"), "ghost_rewards": dict(ghost_rewards="x"), "max_cycles": dict(max_cycles=0),
    "use_ghost": dict(use_ghost=1), "ghosts": dict(ghosts=0), "ghost_credit": dict(ghost_credit="shared"),
    "obs_type": dict(obs_type="pixels"), "belief_filter": dict(belief_filter=3),
    "show_belief": dict(show_belief="no"), "expert": dict(expert="best"),
    "view_radius": dict(view_radius=0, obs_type="grid"), "action_mask_in_obs": dict(action_mask_in_obs=None),
    "append_step_count": dict(append_step_count="no"), "grid_layout": dict(grid_layout="whc"),
    "reference_infos": dict(reference_infos=0), "slip_probability": dict(slip_probability=1.5),
    "slip_type": dict(slip_type="sideways"), "color_sensor_quality": dict(color_sensor_quality=2.0),
    "difficulty": dict(difficulty=9),
}


def test_every_setting_is_declared_with_docs_and_covered_here() -> None:
    settings = declared(GameSpec)
    assert list(OTHER_VALUES) == list(settings)  # a new setting needs its row in these tables
    assert set(BAD_VALUES) == set(settings) | set(INPUTS)
    for name, (_, setting) in settings.items():
        assert setting.doc and setting.accepts, name
    assert GameConfig is GameSpec and game_config(max_cycles=3).to_dict() == resolve(max_cycles=3).to_dict()


@pytest.mark.parametrize("name", list(OTHER_VALUES))
def test_every_setting_round_trips_through_its_dict_form(name: str) -> None:
    spec = resolve(**OTHER_VALUES[name])
    assert spec.to_dict()[name] != resolve().to_dict()[name]  # the value is not the default's
    data = json.loads(json.dumps(spec.to_dict()))
    again = GameSpec.from_dict(data)
    assert again.to_dict() == spec.to_dict()
    if name not in ("sensors",):  # sensors compare by their dict form (they are bound to a map)
        assert getattr(again, name) == getattr(spec, name) or name in ("layout", "slip", "belief_filter")


@pytest.mark.parametrize("name", list(BAD_VALUES))
def test_every_check_refuses_bad_input_under_the_name_the_caller_wrote(name: str) -> None:
    with pytest.raises((TypeError, ValueError), match=name):
        resolve(**BAD_VALUES[name])
    with pytest.raises((TypeError, ValueError), match=name):
        gridghost.env(**BAD_VALUES[name])


@pytest.mark.parametrize("name", [name for name in OTHER_VALUES if name not in ("layout", "sensors")])
def test_a_spec_built_directly_checks_each_field_under_its_name(name: str) -> None:
    bad = next(iter(BAD_VALUES[name].values())) if name != "slip" else "perpendicular"
    with pytest.raises((TypeError, ValueError), match=f"GameSpec.{name}"):
        GameSpec(**{name: bad})


def test_unknown_keywords_and_a_spec_beside_keywords_are_refused() -> None:
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'colour'; the game settings are \['layout'"):
        resolve(colour=1)
    with pytest.raises(ValueError, match=r"as spec= or as keywords, not both; got spec and \['max_cycles'\]"):
        gridghost.env(spec=resolve(), max_cycles=3)
    with pytest.raises(ValueError, match="spec= or its old spelling config=, not both"):
        resolve(spec=resolve(), config=resolve())
    with pytest.raises(TypeError, match=r"spec must be a gridghost\.GameSpec or its to_dict"):
        gridghost.env(spec=3)


#: Settings that every view serves, with the defaults that differ between views given.
SHARED = dict(obs_type="grid", view_radius=2, slip="perpendicular", slip_probability=0.3, rewards="normalised",
              max_cycles=9)


def _views() -> dict[str, Any]:
    """Each view's builder from keywords, and how to read its spec and a trajectory."""
    def aec_run(env: Any) -> list[Any]:
        env.reset(seed=3)
        out = [env.observe("agent")]
        for action in (1, 2, 3, 0):
            env.step(action)
            out.append(env.observe(env.agent_selection))
        return out

    def parallel_run(env: Any) -> list[Any]:
        out = [env.reset(seed=3)[0]]
        for action in (1, 2, 3, 0):
            out.append(env.step(dict.fromkeys(env.agents, action))[0])
        return out

    def gym_run(env: Any) -> list[Any]:
        return [env.reset(seed=3)[0], *(env.step(action)[0] for action in (1, 2, 3))]

    def batched_run(game: Any) -> list[Any]:
        return [game.reset(seed=3).copy(), *(game.step_agent(np.array([1, 2])).observations.copy()
                                              for _ in range(3))]

    def vector_run(env: Any) -> list[Any]:
        return [env.reset(seed=3)[0], *(env.step(np.array([1, 2]))[0] for _ in range(3))]

    return {
        "aec": (lambda **kw: gridghost.env(**kw), lambda env: env.config, aec_run),
        "parallel": (lambda **kw: gridghost.parallel_env(**kw), lambda env: env.config, parallel_run),
        "gymnasium": (lambda **kw: GridGhostGymEnv(**kw), lambda env: env.config, gym_run),
        "vector": (lambda **kw: GridGhostVectorEnv(2, **kw), lambda env: env.game.spec, vector_run),
        "batched": (lambda **kw: BatchedGame(2, **kw), lambda game: game.spec, batched_run),
    }


def _same(first: Any, second: Any) -> None:
    if isinstance(first, dict):
        assert first.keys() == second.keys()
        for key in first:
            _same(first[key], second[key])
    else:
        np.testing.assert_array_equal(np.asarray(first), np.asarray(second))


@pytest.mark.parametrize("view", list(_views()))
def test_spec_config_and_keywords_give_the_same_game_in_every_view(view: str) -> None:
    build, spec_of, run = _views()[view]
    spec = resolve(**SHARED)
    by_keywords, by_spec, by_config = build(**SHARED), build(spec=spec), build(config=spec.to_dict())
    for env in (by_keywords, by_spec, by_config):
        assert spec_of(env).to_dict() == spec.to_dict()
    trajectories = [run(env) for env in (by_keywords, by_spec, by_config)]
    for trajectory in trajectories[1:]:
        for first, second in zip(trajectories[0], trajectory, strict=True):
            _same(first, second)


def test_evaluate_and_the_reference_interface_take_a_spec() -> None:
    encoding = dict(obs_type="grid", view_radius=2, slip="perpendicular", rewards="normalised")
    spec = resolve(**encoding, max_cycles=None)
    results = [Evaluator(**encoding)("random"), Evaluator(spec=spec)("random"),
               Evaluator(config=spec.to_dict())("random")]
    for result in results[1:]:
        assert result.summary() == results[0].summary()
    with pytest.raises(ValueError, match=r"evaluation does not read layout=.*levels="):
        Evaluator(layout="corridor")
    reference = AgentInterface(render=False, slip_probability=0.3, slip_type="perpendicular", max_steps=9,
                               use_particle_filter=False)
    given = AgentInterface(render=False, spec=resolve(slip="perpendicular", slip_probability=0.3, max_cycles=9),
                           use_particle_filter=False)
    assert given.env.config.to_dict() == reference.env.config.to_dict()
    _same(given.reset(seed=4), reference.reset(seed=4))
    with pytest.raises(ValueError, match=r"as the reference keywords, not both; got spec and \['max_steps'"):
        AgentInterface(render=False, spec=resolve(), max_steps=3)


@pytest.mark.parametrize(("engine", "build"), [("batched", lambda **kw: BatchedGame(1, **kw))])
def test_an_engine_refuses_what_the_declaration_says_it_does_not_serve(engine: str, build: Any) -> None:
    """Every setting with an entry for the engine is refused at a value outside it, by one generic
    check (the engine names no setting)."""
    for name, (_, setting) in declared(GameSpec).items():
        served = setting.served.get(engine)
        if served is None:
            continue
        values = OTHER_VALUES[name] if served == DEFAULT_ONLY or name != "obs_type" else dict(obs_type="dict")
        if name == "belief_filter":
            values = dict(belief_filter="particle")
        with pytest.raises(UnsupportedSetting, match=f"does not serve .*{name}="):
            build(**{"obs_type": "vector", "max_cycles": 5, **values})


def test_the_settings_table_on_the_docs_page_is_the_declarations() -> None:
    page = PAGE.read_text(encoding="utf-8")
    block = page.split("<!-- settings-table:", 1)[1].split("<!-- /settings-table -->", 1)[0]
    assert block.splitlines()[1:] == settings_lines()
    names = [line.strip("`") for line in settings_lines() if line.startswith("`")]
    assert names == [*declared(GameSpec), *INPUTS]


def test_the_documented_command_rewrites_the_table(tmp_path: Path) -> None:
    """The script writes the same page as the committed one (it only rewrites the block)."""
    before = PAGE.read_text(encoding="utf-8")
    broken = before.replace(settings_lines()[2], "| stale row |")
    PAGE.write_text(broken, encoding="utf-8")
    try:
        subprocess.run([sys.executable, str(ROOT / "docs" / "make_settings_table.py")], check=True, cwd=tmp_path)
        assert PAGE.read_text(encoding="utf-8") == before
    finally:
        PAGE.write_text(before, encoding="utf-8")


def test_the_views_name_only_their_own_options() -> None:
    """No view lists a setting in its signature: they take spec= or **settings."""
    import inspect

    from gridghost.envs.parallel import GridGhostParallelEnv

    settings = set(declared(GameSpec)) | set(INPUTS)
    for view in (gridghost.GridGhostEnv, GridGhostParallelEnv, BatchedGame, GridGhostVectorEnv, Evaluator,
                 gridghost.evaluate):
        named = set(inspect.signature(view).parameters)
        assert not named & settings, (view, named & settings)
    assert dataclasses.is_dataclass(GameSpec)
