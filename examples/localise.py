"""Where am I? The agent wanders without the ghost and localises itself from its slips and its
noisy sensors, with the particle filter and the exact Bayes filter side by side.

    python examples/localise.py                        # colour sensor and item classifier
    python examples/localise.py --sensors color --particles 50 --seed 4
    python examples/localise.py --watch                # a window with the belief drawn over the map

Each line shows the agent's true cell, what its sensors read and each filter's most probable
cell (``*`` where it is right). The last line counts how often each filter was right.
"""

from __future__ import annotations

import argparse

import numpy as np

import gridghost
from gridghost.sensing.filters import HistogramFilter, ParticleFilter
from gridghost.sensing.sensors import ITEM_CLASSES, ColorSensor, ItemSensor, Sensor

SENSOR_CHOICES = ("color", "cnn", "both")


def build(args: argparse.Namespace) -> tuple[gridghost.GridGhostEnv, HistogramFilter]:
    """The env (its particle filter kept in step by the env itself) and an exact filter we feed."""
    layout = gridghost.CLASSIC
    sensors: list[Sensor] = []
    if args.sensors in ("color", "both"):
        sensors.append(ColorSensor(layout, 0.8))
    if args.sensors in ("cnn", "both"):
        sensors.append(ItemSensor(layout))
    slip = gridghost.LongitudinalSlip(args.slip)
    env = gridghost.raw_env(
        render_mode="human" if args.watch else None,
        sensors=sensors,
        slip=slip,
        use_ghost=False,
        max_cycles=args.steps,
        belief_filter=ParticleFilter(layout, slip, sensors, num_particles=args.particles),
    )
    return env, HistogramFilter(layout, slip, sensors)


def reading(info: dict) -> str:
    """The sensors' readings in words."""
    parts = []
    if "color_measurement" in info:
        parts.append(f"colour {gridghost.COLOURS[info['color_measurement']]:<5}")
    if "cnn_prediction" in info:  # the label's index, beside the classifier's probabilities
        label = info["cnn_prediction"]
        parts.append(f"item {ITEM_CLASSES[label]} ({info['cnn_probs'][label]:.2f})")
    return ", ".join(parts)


def main(argv: list[str] | None = None) -> int:
    """Run one walk and print it; returns the process exit code."""
    parser = argparse.ArgumentParser(description="Particle filter and exact Bayes filter on a random walk.")
    parser.add_argument("--sensors", choices=SENSOR_CHOICES, default="both", help="what the agent reads")
    parser.add_argument("--particles", type=int, default=200, help="the particle filter's particles")
    parser.add_argument("--slip", type=float, default=0.2, help="the agent's slip probability")
    parser.add_argument("--steps", type=int, default=30, help="moves in the walk")
    parser.add_argument("--seed", type=int, default=1, help="seeds the game, the filter and the walk")
    parser.add_argument("--watch", action="store_true", help="draw the belief in a pygame window")
    args = parser.parse_args(argv)
    if args.particles < 1:
        parser.error(f"--particles: must be >= 1, got {args.particles}")
    if args.steps < 1:
        parser.error(f"--steps: must be >= 1, got {args.steps}")

    env, exact = build(args)
    walk = np.random.default_rng(args.seed)
    env.reset(seed=args.seed)
    exact.update(env.infos["agent"])
    right = {"particle": 0, "exact": 0}
    print(f"{'step':>4}  {'true':<6}  {'readings':<34}  particle  exact")
    for step in range(1, args.steps + 1):
        if env.terminations["agent"] or env.truncations["agent"]:
            # a goal ends the walk; start again from the start cell (the filters start afresh)
            env.reset()
            exact.reset()
            exact.update(env.infos["agent"])
        action = int(walk.integers(4))
        env.step(action)
        exact.predict(action)
        info = env.infos["agent"]
        exact.update(info)
        truth = list(env.agent_pos)
        guesses = {"particle": info["estimated_cell"].tolist(), "exact": exact.estimate()["cell_pos"]}
        marks = {}
        for name, cell in guesses.items():
            right[name] += cell == truth
            marks[name] = f"{tuple(cell)}{'*' if cell == truth else ' '}"
        print(f"{step:>4}  {tuple(truth)!s:<6}  {reading(info):<34}  {marks['particle']:<8}  {marks['exact']}")
    print(
        f"right {right['particle']}/{args.steps} times with {args.particles} particles, "
        f"{right['exact']}/{args.steps} with the exact filter"
    )
    env.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
