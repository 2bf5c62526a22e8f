"""Fixtures shared by the test suite."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import load_traces


@pytest.fixture(scope="session")
def env_traces() -> list[dict[str, Any]]:
    """Every record of env_traces.jsonl."""
    return load_traces("env_traces.jsonl")
