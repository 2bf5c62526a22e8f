"""rgb_array frames per second of gridghost's renderer, against a full redraw in the same run.

Three contenders draw the same states of a random game (a random agent against the chasing
ghost) on the classic map and on a 16x16 layout:

- ``env.render()``: the AEC env with ``render_mode="rgb_array"``, end to end (the env's steps
  between renders are not timed);
- ``Renderer.frame``: the renderer alone, blitting its cached background;
- full redraw (the baseline): the same renderer, but drawing the background (cells, hatching,
  items, labels, walls) again for every frame, as a renderer without the cache would.

Rounds run interleaved, timed in process CPU time (time spent descheduled on a shared machine
does not count); each contender's rate is divided by the same round's baseline rate and the
median ratio is printed with the median rate.

    python benchmarks/render_speed.py                   # 5 rounds of 300 frames per contender
    python benchmarks/render_speed.py --rounds 1 --frames 20

Target: ``env.render()`` >= 200 frames per second on the classic map.
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import time
from collections.abc import Callable

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # no window is opened; this keeps SDL off any display

import numpy as np

import gridghost
from gridghost.core.layout import CLASSIC, Layout
from gridghost.core.policies import ChasePolicy, RandomPolicy
from gridghost.drawing import Renderer, Status

from harness import add_progress_option, interleaved_rates, median_ratio

TARGET_FPS = 200.0
BASELINE = "full redraw"


def layout_16x16() -> Layout:
    """A valid 16x16 map: a colour pattern, walls on a fifth of the inner edges, items, labels."""
    rng = np.random.default_rng(16)
    items = {(r, c): [name] for (r, c), name in zip(
        [(1, 3), (4, 12), (7, 7), (10, 2), (13, 9), (15, 14)],
        ["dog", "flower", "two_flowers", "one_note", "two_notes", "dog"], strict=True)}
    return Layout(
        name="bench16",
        colours=rng.integers(0, 3, size=(16, 16)),
        walls_horizontal=rng.random((15, 16)) < 0.2,
        walls_vertical=rng.random((16, 15)) < 0.2,
        items=items,
        texts={(0, 0): "Start", (15, 15): "Ziel"},
        goals=[(15, 15)],
        agent_start=(0, 0),
        ghost_start=(8, 8),
    )


class FullRedraw(Renderer):
    """The baseline: a renderer that redraws its background for every frame."""

    def draw(self, surface, agent, ghost, status, belief=None, estimate=None) -> None:  # type: ignore[override]
        self.draw_background(surface)
        self.draw_moving(surface, agent, ghost, status, belief, estimate)


def scenes(layout: Layout, frames: int, seed: int) -> list[tuple]:
    """``(agent, ghost, status)`` after every reset and half-turn of random games on ``layout``,
    from what the env shows publicly."""
    env = gridghost.env(layout=layout, max_cycles=40)
    policies = {"agent": RandomPolicy(seed=seed), "ghost": ChasePolicy()}
    out: list[tuple] = []
    while len(out) < frames:
        env.reset(seed=seed + len(out))
        for name in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            reading = env.infos["agent"]["color_measurement"]
            status = Status(env.cycles, env.max_cycles, name, color_measurement=reading)
            out.append((env.agent_pos, env.ghost_pos, status))
            env.step(policies[name](observation))
    return out[:frames]


def time_renderer(renderer: Renderer, states: list[tuple]) -> float:
    """Frames per second of ``renderer.frame`` over ``states``."""
    start = time.process_time()
    for agent, ghost, status in states:
        renderer.frame(agent, ghost, status)
    return len(states) / (time.process_time() - start)


def time_env(layout: Layout, frames: int, seed: int) -> float:
    """Frames per second of ``env.render()`` after every half-turn of random games; the steps
    are not timed."""
    env = gridghost.env(render_mode="rgb_array", layout=layout, max_cycles=40)
    policies = {"agent": RandomPolicy(seed=seed), "ghost": ChasePolicy()}
    spent, drawn = 0.0, 0
    while drawn < frames:
        env.reset(seed=seed + drawn)
        for name in env.agent_iter():
            if drawn == frames:
                break
            start = time.process_time()
            env.render()
            spent += time.process_time() - start
            drawn += 1
            observation, _, termination, truncation, _ = env.last()
            env.step(None if termination or truncation else policies[name](observation))
    return frames / spent


def measure(label: str, layout: Layout, frames: int, rounds: int, progress: bool = False) -> None:
    """Time every contender on one layout and print a line for each."""
    states = scenes(layout, frames, seed=0)
    cached, full = Renderer(layout), FullRedraw(layout)
    contenders: dict[str, Callable[[], float]] = {
        BASELINE: functools.partial(time_renderer, full, states),
        "Renderer.frame": functools.partial(time_renderer, cached, states),
        "env.render()": functools.partial(time_env, layout, frames, 0),
    }
    for contender in contenders.values():
        contender()  # warm up: fonts, background, first surfaces
    rates = interleaved_rates({name: lambda _, run=run: run() for name, run in contenders.items()}, rounds, progress,
                              label)
    width, height = cached.geometry.size
    for name in contenders:
        ratio = median_ratio(rates, name, BASELINE)
        fps = statistics.median(rates[name])
        note = ""
        if label == "classic" and name == "env.render()":
            note = f"  target >= {TARGET_FPS:.0f} fps: {'met' if fps >= TARGET_FPS else 'MISSED'}"
        print(f"{label:<10} {f'{width}x{height}':>9}  {name:<16} {fps:>9,.0f} {ratio:>15.2f}x{note}")


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its table; returns the process exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_progress_option(parser)
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (the median is printed)")
    parser.add_argument("--frames", type=int, default=300, help="frames per contender per round")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.frames < 1:
        parser.error("--rounds and --frames must be >= 1")
    print(f"{'layout':<10} {'picture':>9}  {'contender':<16} {'frames/s':>9} {'vs ' + BASELINE:>16}")
    measure("classic", CLASSIC, args.frames, args.rounds, args.progress)
    measure("16x16", layout_16x16(), args.frames, args.rounds, args.progress)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
