"""Every encoding, with each option, for one to four ghosts: the spaces and the observations of
a fixed set of states match digests recorded from gridghost 0.2's encoders (one-ghost encoders,
extended to teams by a wrapper), so serving every number of ghosts from one encoder changed no
byte, no space and no slot order. ``tests/golden/README.md`` says how the digests were recorded."""

from __future__ import annotations

import hashlib
import json
import pathlib
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces

from gridghost.core.layout import Layout
from gridghost.core.rules import GameState, Outcome, Side, board_for
from gridghost.sensing.observations import make_observations

GOLDEN = pathlib.Path(__file__).parent / "golden" / "observation_digests.json"
LAYOUT = Layout(
    colours=np.arange(30).reshape(5, 6) % 3,
    goals=[(4, 5), (0, 5)],
    agent_start=(0, 0),
    ghost_start=[(4, 0), (2, 3), (4, 4), (1, 5)],
    walls_horizontal=np.arange(24).reshape(4, 6) % 7 == 1,
    walls_vertical=np.arange(25).reshape(5, 5) % 6 == 2,
    items={(0, 3): ("dog",), (1, 2): ("two_flowers", "one_note"), (3, 1): ("two_notes",)},
    texts={(0, 0): "start", (4, 5): "goal"},
)
#: (id, obs_type, options) of every variant recorded.
VARIANTS: list[tuple[str, str, dict[str, Any]]] = [
    *((obs_type, obs_type, {}) for obs_type in ("dict", "vector", "belief", "grid", "belief_vector", "text")),
    *((f"{obs_type}-step", obs_type, {"append_step_count": True, "max_cycles": 40})
      for obs_type in ("dict", "vector", "belief", "grid", "belief_vector", "text")),
    *((f"{obs_type}-mask", obs_type, {"action_mask_in_obs": True})
      for obs_type in ("dict", "vector", "belief", "grid", "belief_vector")),
    *((f"{obs_type}-both", obs_type, {"both_observe": True, "action_mask_in_obs": obs_type != "text"})
      for obs_type in ("dict", "vector", "belief", "grid", "belief_vector", "text")),
    ("grid-r1", "grid", {"view_radius": 1}),
    ("grid-r2-step", "grid", {"view_radius": 2, "append_step_count": True, "max_cycles": 40}),
    ("grid-hwc", "grid", {"grid_layout": "hwc"}),
    ("grid-hwc-r2-step", "grid", {"grid_layout": "hwc", "view_radius": 2, "append_step_count": True,
                                  "max_cycles": 40}),
]
STATES = 8


def states(ghosts: int) -> list[tuple[int, tuple[int, ...], Side, Outcome]]:
    """Random positions (ghosts may share cells with each other and the agent), every turn with every outcome."""
    rng = np.random.default_rng(ghosts)
    cells = board_for(LAYOUT).num_cells
    return [(int(rng.integers(cells)), tuple(int(g) for g in rng.integers(cells, size=ghosts)),
             Side(index % 2), Outcome(index // 2 % 3)) for index in range(STATES)]


def state_of(agent: int, ghosts: tuple[int, ...], turn: Side, outcome: Outcome) -> Any:
    """The kernel's state of these positions."""
    return GameState(agent, ghosts, turn, outcome)


def encode(value: Any) -> Any:
    """A JSON-able, order-free form of an observation or a space (dicts by sorted key)."""
    if isinstance(value, dict):
        return {str(key): encode(item) for key, item in sorted(value.items(), key=lambda pair: str(pair[0]))}
    if isinstance(value, np.ndarray):
        return ["array", str(value.dtype), list(value.shape), hashlib.sha256(value.tobytes()).hexdigest()]
    if isinstance(value, spaces.Dict):
        return ["Dict", encode(dict(value.spaces)), list(value.spaces)]
    if isinstance(value, spaces.Box):
        return ["Box", encode(value.low), encode(value.high)]
    if isinstance(value, spaces.Discrete):
        return ["Discrete", int(value.n), int(value.start)]
    if isinstance(value, spaces.MultiBinary):
        return ["MultiBinary", encode(np.asarray(value.n))]
    if isinstance(value, spaces.Text):
        return ["Text", value.min_length, value.max_length, "".join(sorted(value.character_set))]
    if isinstance(value, (str, int, float, np.integer, np.floating)):
        return [type(value).__name__, value.item() if isinstance(value, np.generic) else value]
    raise TypeError(f"no encoding for {type(value)}")


def digests(ghosts: int, obs_type: str, options: dict[str, Any]) -> dict[str, str]:
    """Per observer key: the digest of its space and of its observations of :func:`states`."""
    board = board_for(LAYOUT)
    belief = np.random.default_rng(7).random(LAYOUT.shape)
    played = [0]  # the cycles played: a fixed value per observation
    encoder = make_observations(obs_type, board, lambda: belief / belief.sum(), lambda: played[0],
                                ghosts=ghosts, **options)
    found = {}
    for key in encoder.keys:
        record = [encode(encoder.space(key))]
        for index, state in enumerate(states(ghosts)):
            played[0] = 7 * index % 41
            record.append(encode(encoder.observe(key, state_of(*state))))
        name = key if isinstance(key, str) else key.name.lower()
        found[name] = hashlib.sha256(json.dumps(record).encode()).hexdigest()
    return found


@pytest.mark.parametrize("ghosts", [1, 2, 3, 4])
@pytest.mark.parametrize(("variant", "obs_type", "options"), VARIANTS, ids=[v[0] for v in VARIANTS])
def test_every_encoding_is_the_recorded_one(variant: str, obs_type: str, options: dict[str, Any],
                                            ghosts: int) -> None:
    recorded = json.loads(GOLDEN.read_text())[f"{variant}-k{ghosts}"]
    assert digests(ghosts, obs_type, options) == recorded


if __name__ == "__main__":  # records the digests (see tests/golden/README.md)
    GOLDEN.write_text(json.dumps({f"{variant}-k{ghosts}": digests(ghosts, obs_type, options)
                                  for variant, obs_type, options in VARIANTS for ghosts in (1, 2, 3, 4)},
                                 indent=1, sort_keys=True) + "\n")


@pytest.mark.parametrize("name", ["TeamObservations", "TeamMaskedObservations", "team_vector_slots",
                                  "team_grid_channels"])
def test_the_team_names_of_before_warn_and_still_work(name: str) -> None:
    import importlib

    from gridghost.sensing import observations

    with pytest.warns(DeprecationWarning, match=f"{name} is deprecated"):
        value = getattr(observations, name)
    with pytest.warns(DeprecationWarning, match=r"gridghost\.sensing\.team_encoders moved"):
        assert getattr(importlib.import_module("gridghost.sensing.team_encoders"), name) is value


def test_the_old_team_calls_give_the_unified_encoders() -> None:
    from gridghost.sensing import observations

    board = board_for(LAYOUT)
    with pytest.warns(DeprecationWarning):
        team_observations = observations.TeamObservations
        slots, channels = observations.team_vector_slots, observations.team_grid_channels
    grid = observations.GridObservations(board, 2, channels_last=True)
    team = team_observations(grid, "grid", board, 3)
    assert type(team) is observations.GridObservations and team.keys == ("agent", "ghost_0", "ghost_1", "ghost_2")
    assert team.space("ghost_1").shape == (5, 5, 17)  # 15 channels, out_of_map, then ghosts: channels last
    assert slots(2)[-3:] == ("other_1_d_row", "other_1_d_col", "other_1_distance")
    assert channels(1)[-2:] == ("out_of_map", "ghosts")
    with pytest.raises(ValueError, match=r"ghosts must be an int in 1\.\.4"):
        team_observations(grid, "grid", board, 5)


@pytest.mark.parametrize("ghosts", [0, 5, 2.0, True, "2"])
def test_an_encoder_refuses_a_number_of_ghosts_it_cannot_serve(ghosts: Any) -> None:
    with pytest.raises((TypeError, ValueError), match=r"ghosts must be an int in 1\.\.4"):
        make_observations("vector", board_for(LAYOUT), ghosts=ghosts)
