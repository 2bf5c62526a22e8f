"""Plays recorded team trajectories through every public view (imported as ``trajectories``).

A *case* is one view of one game's settings, played for a few episodes. :func:`play` drives it:
with a seeded ``numpy`` Generator it picks random legal actions and returns them (recording),
and given the recorded actions it plays them again (replaying). Either way it returns the
same *records*: what the view showed after the reset and after every step, in :func:`canon`'s
exact form. ``tests/traces/record.py`` writes cases with their actions and records;
``tests/test_traces.py`` replays them and compares.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

import gridghost
from gridghost import GameSpec, Layout
from gridghost.maps import load

TRACES = Path(__file__).parent / "traces"
#: The views a case can play (see :func:`play`).
VIEWS = ("aec", "parallel", "gym", "successors")


def canon(value: Any) -> Any:
    """``value`` in an exact, JSON-ready form that keeps its type.

    Arrays become the sha256 of their dtype, shape and bytes; NumPy scalars their dtype and
    bytes; floats their hex form (``-0.0`` and NaN stay exact); dicts their ordered pairs;
    tuples are marked apart from lists; ints of a subclass (an ``IntEnum``) keep its name.

    Raises:
        TypeError: a value of another type.
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if type(value) is int:
        return value
    if isinstance(value, int):
        return {"int": [type(value).__name__, int(value)]}
    if type(value) is float:
        return {"float": value.hex()}
    if isinstance(value, np.ndarray):
        digest = hashlib.sha256(f"{value.dtype.str}{value.shape}".encode())
        digest.update(np.ascontiguousarray(value).tobytes())
        return {"array": digest.hexdigest()[:32]}
    if isinstance(value, np.generic):
        return {"scalar": [value.dtype.str, value.tobytes().hex()]}
    if isinstance(value, dict):
        return {"dict": [[canon(key), canon(item)] for key, item in value.items()]}
    if isinstance(value, tuple):
        return {"tuple": [canon(item) for item in value]}
    if isinstance(value, list):
        return [canon(item) for item in value]
    raise TypeError(f"no exact form for a {type(value).__name__}: {value!r}")


def layout_of(described: Any) -> Layout:
    """The map a case names: a shipped map's name, map text, or ``[rows, cols, seed, ghosts]``
    for ``Layout.generate``."""
    if isinstance(described, str):
        return Layout.from_text(described) if "\n" in described else load(described)
    rows, cols, seed, ghosts = described
    return Layout.generate(rows, cols, seed=seed, ghosts=ghosts)


class Actions:
    """The actions of a case: drawn at random among the legal ones (``rng``), appended to
    ``taken``; or, replaying, taken from ``recorded`` in order."""

    def __init__(self, rng: np.random.Generator | None = None, recorded: list[Any] | None = None) -> None:
        self.rng = rng
        self.taken: list[Any] = []
        self._recorded = iter(recorded or [])

    def _next(self, draw: Callable[[np.random.Generator], Any]) -> Any:
        if self.rng is None:
            return next(self._recorded)
        action = draw(self.rng)
        self.taken.append(action)
        return action

    def legal(self, mask: Any) -> Any:
        """A legal action of a mask (``[4]``: an int; ``[k, 4]``: a list of ``k`` ints)."""
        mask = np.asarray(mask)

        def draw(rng: np.random.Generator) -> Any:
            rows = [int(rng.choice(np.flatnonzero(row))) for row in mask.reshape(-1, mask.shape[-1])]
            return rows if mask.ndim == 2 else rows[0]

        return self._next(draw)

    def index(self, size: int) -> int:
        """An index in ``0..size-1``."""
        return self._next(lambda rng: int(rng.integers(size)))


def _aec(case: dict[str, Any], actions: Actions) -> Iterator[Any]:
    env = gridghost.env(**_settings(case))

    def shown() -> dict[str, Any]:
        return {
            "selection": env.agent_selection,
            "agents": list(env.agents),
            # what last() gives the agent to act: its reward summed since it last acted
            "last_reward": env.last()[1] if env.agents else None,
            "rewards": dict(env.rewards),
            "terminations": dict(env.terminations),
            "truncations": dict(env.truncations),
            "infos": {name: env.infos[name] for name in env.agents},
            "observations": {name: env.observe(name) for name in env.agents},
            "state": env.state(),
        }

    for seed in case["seeds"]:
        env.reset(seed=seed)
        yield shown()
        for _ in env.agent_iter():
            _, _, terminated, truncated, info = env.last()
            env.step(None if terminated or truncated else actions.legal(info["action_mask"]))
            yield shown()


def _parallel(case: dict[str, Any], actions: Actions) -> Iterator[Any]:
    env = gridghost.parallel_env(**_settings(case), **case.get("view_settings", {}))
    for seed in case["seeds"]:
        observations, infos = env.reset(seed=seed)
        yield {"observations": observations, "infos": infos, "agents": list(env.agents), "state": env.state()}
        while env.agents:
            chosen = {name: actions.legal(infos[name]["action_mask"]) for name in env.agents}
            observations, rewards, terminations, truncations, infos = env.step(chosen)
            yield {"observations": observations, "rewards": rewards, "terminations": terminations,
                   "truncations": truncations, "infos": infos, "agents": list(env.agents), "state": env.state()}


def _gym(case: dict[str, Any], actions: Actions) -> Iterator[Any]:
    env = gymnasium.make("gridghost/GridGhost-v1", **_settings(case), **case.get("view_settings", {}))
    for seed in case["seeds"]:
        observation, info = env.reset(seed=seed)
        yield {"observation": observation, "info": info}
        done = False
        while not done:
            action = actions.legal(info["action_mask"])
            observation, reward, terminated, truncated, info = env.step(
                np.array(action, dtype=np.int64) if isinstance(action, list) else action)
            done = terminated or truncated
            yield {"observation": observation, "reward": reward, "terminated": terminated,
                   "truncated": truncated, "info": info}
    env.close()


def _state(state: Any) -> dict[str, Any]:
    """A kernel state by its fields (the ghosts' cells as a list for every team size)."""
    return {"agent": int(state.agent), "ghosts": [int(cell) for cell in state.ghosts], "turn": int(state.turn),
            "outcome": int(state.outcome)}


def _successors(case: dict[str, Any], actions: Actions) -> Iterator[Any]:
    settings = _settings(case)
    k = settings["ghosts"]
    game = GameSpec(layout=settings["layout"], ghosts=k, ghost_credit=settings["ghost_credit"]).game()
    state = game.initial_state()
    for _ in range(case["half_turns"]):
        if int(state.turn) == 0:
            action: Any = actions.index(4)
        else:
            team = [actions.index(4) for _ in range(k)]
            action = team[0] if k == 1 else tuple(team)
        successors = game.successors(state, action)
        yield {"state": _state(state), "action": action,
               "successors": [[p, _state(after), agent, ghost] for p, after, agent, ghost in successors]}
        state = successors[actions.index(len(successors))][1]
        if int(state.outcome) != 0:
            state = game.initial_state()


def _settings(case: dict[str, Any]) -> dict[str, Any]:
    return {**case["settings"], "layout": layout_of(case["settings"]["layout"])}


_PLAYERS = {"aec": _aec, "parallel": _parallel, "gym": _gym, "successors": _successors}


def play(case: dict[str, Any], actions: Actions) -> Iterator[Any]:
    """The records of a case, in :func:`canon`'s form, played with ``actions``.

    A case is ``{"view": one of VIEWS, "settings": {...}, "seeds": [...]}`` (``"successors"``
    takes ``"half_turns"`` for seeds), with ``"view_settings"`` passed to the view only.
    """
    for record in _PLAYERS[case["view"]](case, actions):
        yield json.loads(json.dumps(canon(record)))


def read(path: Path, first: bool = False) -> list[dict[str, Any]]:
    """The cases of a trace file (gzip JSON lines), or only its first (read alone)."""
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return [json.loads(next(lines))] if first else [json.loads(line) for line in lines]
