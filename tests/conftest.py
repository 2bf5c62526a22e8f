"""Run pygame headless in every test (and in the scripts the tests start, which inherit the
environment): no display, no sound card, no greeting on stdout. Set before pygame is imported."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
