"""Run pygame headless in every test (and in the scripts the tests start, which inherit the
environment): no display, no sound card, no greeting on stdout. Set before pygame is imported.
The tests marked jax are deselected where jax cannot be imported (pytest_collection_modifyitems)."""

from __future__ import annotations

import importlib.util
import os

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

def _jax_importable() -> bool:
    """Whether jax can be imported here (found without importing it, which takes seconds)."""
    return importlib.util.find_spec("jax") is not None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect (not skip) the tests marked jax where jax cannot be imported, unless ``-m`` names
    jax: then the default run holds the JAX engine's equality and conformance tests wherever the
    extra is installed, and the light run without it counts none of them."""
    if _jax_importable() or "jax" in (config.getoption("markexpr") or ""):
        return
    deselected = [item for item in items if item.get_closest_marker("jax") is not None]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = [item for item in items if item.get_closest_marker("jax") is None]
