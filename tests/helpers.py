"""Helpers shared by the tests (imported as ``helpers``; pytest puts tests/ on the path)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

GOLDEN = Path(__file__).parent / "golden"


def load_traces(name: str) -> list[dict[str, Any]]:
    """The records of one golden file."""
    with open(GOLDEN / name) as handle:
        return [json.loads(line) for line in handle]


def plain(value: Any) -> Any:
    """``value`` with NumPy arrays and scalars turned into lists and Python numbers, for
    comparison with JSON records."""
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


def record_rest(env: Any, policy_seed: int = 0) -> list[tuple[Any, ...]]:
    """Play the env from where it stands to the end with uniformly random actions for both sides;
    return what every ``last()`` showed, with the positions."""
    rng = np.random.default_rng(policy_seed)
    record = []
    for name in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        record.append((name, plain(obs), reward, termination, truncation, plain(info), env.agent_pos, env.ghost_pos))
        env.step(None if termination or truncation else int(rng.integers(4)))
    return record
