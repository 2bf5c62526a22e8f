"""Run pygame headless in every test (and in the scripts the tests start, which inherit the
environment): no display, no sound card, no greeting on stdout. Set before pygame is imported.
No disk cache of solved levels either (GRIDGHOST_CACHE=off).
The tests marked jax (compiled) are deselected where jax (numba) cannot be imported
(pytest_collection_modifyitems)."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from typing import Any

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
# No test writes to the user's cache folder: the disk cache of solved levels is off, and the tests
# of the cache give it a temporary folder of their own.
os.environ["GRIDGHOST_CACHE"] = "off"

#: The markers of tests that need an optional extra, and the module each needs.
_EXTRAS = {"jax": "jax", "compiled": "numba"}


def _importable(module: str) -> bool:
    """Whether ``module`` can be imported here (found without importing it, which takes seconds)."""
    return importlib.util.find_spec(module) is not None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect (not skip) the tests marked jax (or compiled) where jax (or numba) cannot be
    imported, unless ``-m`` names the marker: then the default run holds those tests wherever the
    extra is installed, and the light run without it counts none of them."""
    wanted = config.getoption("markexpr") or ""
    for marker, module in _EXTRAS.items():
        if _importable(module) or marker in wanted:
            continue
        deselected = [item for item in items if item.get_closest_marker(marker) is not None]
        if deselected:
            config.hook.pytest_deselected(items=deselected)
            items[:] = [item for item in items if item.get_closest_marker(marker) is None]


class _UnpacedClock:
    """pygame's clock without the wait: ``tick(fps)`` counts the frame as pygame's does but does
    not sleep to keep to ``fps``."""

    def __init__(self, clock: Any) -> None:
        self._clock = clock

    def tick(self, framerate: float = 0) -> int:
        return self._clock.tick(0)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._clock, name)


@pytest.fixture(autouse=True, scope="session")
def _windows_do_not_wait() -> Iterator[None]:
    """The human render mode keeps to ``render_fps`` (4) by sleeping in pygame's clock, a quarter
    of a second a frame, and gymnasium's ``check_env`` opens a human env of every env it checks: no
    test times frames (none may assert wall-clock times), so in the tests the clock does not wait.
    Everything else about a frame (drawing, the window, events) is as in use."""
    import pygame

    real = pygame.time.Clock
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pygame.time, "Clock", lambda: _UnpacedClock(real()))
        yield
