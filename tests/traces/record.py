"""Records the team trajectories that ``tests/test_traces.py`` replays.

What it records: games of one agent against ``k = 1..4`` ghosts, played with seeded random legal
actions through every public view: the AEC env (``gridghost.env``), the parallel env (plain,
and ``controlled="ghosts"``), the Gymnasium views (the agent against the team, a ghost for
``k = 1``, the team as one learner with ``controlled="ghosts"``) and the kernel's
``successors`` (the game ``GameSpec(...).game()`` builds). The maps are the shipped
``classic`` (``k = 1``), ``team_eight``, ``team_ring`` and ``team_crossroads`` (``k <= 2``) and
generated ones (``Layout.generate(6, 6, seed=..., ghosts=k)``) and, for ``k >= 3``, a drawn one
where the agent starts beside a goal; every observation type a view
serves, both ``ghost_credit`` values, several seeds, short step limits so that episodes end by
goal, capture and truncation. Each file ``<view>_k<k>.jsonl.gz`` holds one case a line: its
settings, the actions taken and what the view showed after the reset and after every step
(see ``tests/trajectories.py``, which plays both the recording and the replay).

The files were recorded from the behaviour of commit d051fe5, the last one before the ghosts'
number became a parameter of one game rather than a class of its own: they are the reference
that the unified game must reproduce, byte for byte at ``k = 1``. Re-record only for a change
of behaviour that is meant, and say so in the commit::

    git archive d051fe5 gridghost | tar -x -C /tmp/base     # the package as it was then
    PYTHONPATH=/tmp/base python tests/traces/record.py      # rewrites every file in tests/traces/

(``PYTHONPATH`` chooses the package recorded: the script drops an editable install's finder and
prints the package's path.)
"""

from __future__ import annotations

import gzip
import json
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np

#: A drawn map for the big teams: the agent starts beside a goal, so that episodes end by a goal
#: as well as by a capture (the ghosts cannot learn on it: the agent's opening move can end it).
GOAL_RACE = """\
+---+---+---+---+---+
| *   A   .   .   G |
+   +---+   +   +   +
| .   .   .   G2  G3|
+   +---+---+   +   +
| G1  .   .   .   * |
+---+---+---+---+---+
name: goal_race
"""
#: The maps where the agent's opening move can end the game: no view of learning ghosts takes them.
OPENING_CAN_END = ("classic", "team_ring", GOAL_RACE)
OBS_TYPES = ("dict", "vector", "belief", "grid", "belief_vector", "text")
CREDITS = ("team", "catcher")


def _maps(k: int) -> list[Any]:
    """The maps played with ``k`` ghosts: the shipped ones with enough starts, two generated, and
    for three or four ghosts a third generated one and :data:`GOAL_RACE`."""
    shipped: list[Any] = (["classic"] if k == 1 else []) + (["team_eight", "team_ring", "team_crossroads"]
                                                          if k <= 2 else [])
    generated = [[6, 6, 20 + k, k], [6, 6, 40 + k, k]] + ([[5, 5, 60 + k, k], GOAL_RACE] if k >= 3 else [])
    return shipped + generated


def _rotation(k: int, maps: list[Any], per_map: int, obs_types: tuple[str, ...]) -> list[dict[str, Any]]:
    """Game settings for each map: ``per_map`` cases, the observation types taken in turn over
    the maps, the credits alternating, a short and a longer step limit."""
    settings = []
    for i, layout in enumerate(maps):
        for j in range(per_map):
            turn = i * per_map + j
            settings.append({"ghosts": k, "layout": layout, "obs_type": obs_types[turn % len(obs_types)],
                             "ghost_credit": CREDITS[(i + j) % 2], "max_cycles": (4, 30)[turn % 2]})
    return settings


def _aec(k: int) -> list[dict[str, Any]]:
    return [{"view": "aec", "settings": s, "seeds": [7 * k + n, 100 + n, 500 + n]}
            for n, s in enumerate(_rotation(k, _maps(k), 3, OBS_TYPES))]


def _parallel(k: int) -> list[dict[str, Any]]:
    plain = [{"view": "parallel", "settings": s, "seeds": [11 * k + n, 600 + n]}
             for n, s in enumerate(_rotation(k, _maps(k), 2, OBS_TYPES))]
    # the ghosts learn only where the agent's opening move cannot end the game
    learning = [m for m in _maps(k) if m not in OPENING_CAN_END]
    ghosts = [{"view": "parallel", "settings": s, "view_settings": {"controlled": "ghosts"},
               "seeds": [13 * k + n, 200 + n]}
              for n, s in enumerate(_rotation(k, learning, 2, tuple(o for o in OBS_TYPES if o != "belief")))]
    if k == 2:  # the solver's opponent agents
        for opponent, layout in (("minimax", "team_crossroads"), ("optimal", "team_eight")):
            ghosts.append({"view": "parallel", "seeds": [3, 4], "settings": {"ghosts": 2, "layout": layout},
                           "view_settings": {"controlled": "ghosts", "opponent": opponent}})
    return plain + ghosts


def _gym(k: int) -> list[dict[str, Any]]:
    cases = []
    opponents = ("chase", "random")
    for n, s in enumerate(_rotation(k, _maps(k), 2, OBS_TYPES)):
        s.pop("max_cycles")
        cases.append({"view": "gym", "settings": s, "seeds": [17 * k + n, 300 + n],
                      "view_settings": {"controlled": "agent", "opponent": opponents[n % 2],
                                        "max_episode_steps": (5, 40)[n % 2]}})
    learners = ["ghost", "ghosts"] if k == 1 else ["ghosts"]
    learning = [m for m in _maps(k) if m not in OPENING_CAN_END]
    for controlled in learners:
        for n, s in enumerate(_rotation(k, learning, 2, tuple(o for o in OBS_TYPES if o != "belief"))):
            s.pop("max_cycles")
            cases.append({"view": "gym", "settings": s, "seeds": [19 * k + n, 400 + n],
                          "view_settings": {"controlled": controlled, "max_episode_steps": (5, 40)[n % 2]}})
    if k == 2:  # the team solver's players
        for controlled, opponent, layout in (("agent", "minimax", "team_ring"),
                                             ("ghosts", "minimax", "team_eight"),
                                             ("ghosts", "optimal", "team_crossroads")):
            cases.append({"view": "gym", "seeds": [5, 6], "settings": {"ghosts": 2, "layout": layout},
                          "view_settings": {"controlled": controlled, "opponent": opponent,
                                            "max_episode_steps": 30}})
    return cases


def _successors(k: int) -> list[dict[str, Any]]:
    return [{"view": "successors", "settings": {"ghosts": k, "layout": layout, "ghost_credit": credit},
             "half_turns": 30 if k <= 2 else 80}
            for layout in _maps(k) for credit in CREDITS]


CASES = {"aec": _aec, "parallel": _parallel, "gym": _gym, "successors": _successors}


def record(directory: Path) -> None:
    """Plays every case with random legal actions (one seeded Generator per case) and writes
    the files."""
    from trajectories import Actions, play

    for view, cases in CASES.items():
        for k in (1, 2, 3, 4):
            path = directory / f"{view}_k{k}.jsonl.gz"
            lines = []
            for number, case in enumerate(cases(k)):
                actions = Actions(rng=np.random.default_rng([k, number]))
                records = list(play(case, actions))
                lines.append(json.dumps({**case, "actions": actions.taken, "records": records},
                                        separators=(",", ":")))
            with gzip.GzipFile(path, "wb", mtime=0) as out:
                out.write(("\n".join(lines) + "\n").encode())
            print(f"{path.name}: {len(lines)} cases, {sum(len(json.loads(x)['records']) for x in lines)} records, "
                  f"{path.stat().st_size} bytes")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    sys.meta_path[:] = [finder for finder in sys.meta_path if "editable" not in repr(finder).lower()]
    warnings.simplefilter("ignore")
    import gridghost

    print("recording", gridghost.__file__)
    record(Path(__file__).resolve().parent)
