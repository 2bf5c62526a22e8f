"""Every env trace recorded from the reference replays exactly through gridghost."""

from __future__ import annotations

import pytest

import gridghost
from gridghost.core.policies import ChasePolicy

from helpers import load_traces, plain

TRACES = load_traces("env_traces.jsonl")


def trace_id(record: dict) -> str:
    config = record["config"]
    return f"p{config['slip_probability']}-{config['slip_type']}-q{config['color_sensor_quality']}-seed{record['seed']}"


@pytest.mark.parametrize("belief_filter", [None, "particle"])
@pytest.mark.parametrize("record", TRACES, ids=[trace_id(r) for r in TRACES])
def test_env_trace_replays_exactly(record: dict, belief_filter: str | None) -> None:
    """The traces replay as recorded, and again with a belief filter on: it has a generator of
    its own, so it never changes the game."""
    env = gridghost.raw_env(**record["config"], belief_filter=belief_filter, reference_infos=True)
    env.reset(seed=record["seed"])
    reset = record["reset"]
    assert plain(env.observe("agent")) == reset["agent_obs"]
    assert plain(env.observe("ghost")) == reset["ghost_obs"]
    assert {key: env.infos["agent"][key] for key in reset["info"]} == reset["info"]

    for index, step in enumerate(record["steps"]):
        where = f"half-turn {index} ({step['mover']})"
        assert env.agent_selection == step["mover"], where
        env.step(step["action"])
        assert plain(env.observe("agent")) == step["agent_obs"], where
        assert plain(env.observe("ghost")) == step["ghost_obs"], where
        assert env.rewards["agent"] == step["reward"], where
        assert env.terminations["agent"] is step["terminated"], where
        assert env.terminations["ghost"] is step["terminated"], where
        assert env.truncations["agent"] is step["truncated"], where
        assert env.truncations["ghost"] is step["truncated"], where
        assert list(env.agent_pos) == step["agent_pos"], where
        assert list(env.ghost_pos) == step["ghost_pos"], where
        info = env.infos["agent"]
        assert {key: plain(info.get(key)) for key in step["info"]} == step["info"], where
        # The ghost's info is the public part of the same half-turn.
        ghost_info = env.infos["ghost"]
        assert ghost_info["agent_distance"] == info["ghost_distance"], where
        assert (ghost_info["current_turn"], ghost_info["mover"]) == (info["current_turn"], info["mover"]), where
        assert ghost_info.get("caught_by_ghost") == info.get("caught_by_ghost"), where
        assert ghost_info.get("reached_goal") == info.get("reached_goal"), where
    # The recorder stops at the end of an episode or after 80 half-turns.
    assert step["terminated"] or len(record["steps"]) == 80


@pytest.mark.parametrize("record", TRACES, ids=[trace_id(r) for r in TRACES])
def test_chase_policy_chooses_the_recorded_ghost_actions(record: dict) -> None:
    chase = ChasePolicy()
    observation = record["reset"]["ghost_obs"]
    ghost_moves = 0
    for step in record["steps"]:
        if step["mover"] == "ghost":
            assert chase(observation) == step["action"]
            ghost_moves += 1
        observation = step["ghost_obs"]
    assert ghost_moves == len(record["steps"]) // 2


def test_traces_cover_every_kind_of_half_turn() -> None:
    """The replay above is only as strong as the traces: check they exercise each rule."""
    seen = set()
    for record in TRACES:
        for step in record["steps"]:
            info = step["info"]
            if step["mover"] == "agent":
                seen.add((record["config"]["slip_type"], info["actual_action"]))
            if step["terminated"]:
                seen.add(("caught" if info.get("caught_by_ghost") else "goal", step["mover"]))
    assert {
        ("longitudinal", "stay"),
        ("longitudinal", "right, right"),
        ("perpendicular", "up"),
        ("goal", "agent"),
        ("caught", "agent"),
        ("caught", "ghost"),
    } <= seen
