"""Record a short GIF of the chasing ghost catching a random agent.

    pip install "gridghost[record]"                     # imageio, for GIF files
    python examples/record.py                           # writes ghost_catches_agent.gif
    python examples/record.py --out chase.gif --fps 2
    python examples/record.py --png-dir frames/         # PNG files too (these need no imageio)

The default seed is one where the ghost catches the agent after nine cycles; other seeds may end
with the agent at a goal or out of time, and the script says which.
"""

from __future__ import annotations

import argparse

import numpy as np

import gridghost
from gridghost.core.policies import ChasePolicy, RandomPolicy
from gridghost.drawing import save_animation, save_frames

#: A seed where the random agent is caught (after nine cycles, with the default settings).
CATCHING_SEED = 9
#: Copies of the last frame, so that viewers that loop show the ending for a moment.
HOLD_LAST = 4


def play(seed: int, max_cycles: int) -> tuple[list[np.ndarray], str]:
    """Play one game; return its frames (one per reset and half-turn) and how it ended."""
    env = gridghost.env(render_mode="rgb_array", max_cycles=max_cycles)
    policies = {"agent": RandomPolicy(seed=seed), "ghost": ChasePolicy()}
    env.reset(seed=seed)
    frames = [env.render()]
    for name in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        env.step(policies[name](observation))
        frames.append(env.render())
    ending = {gridghost.Outcome.CAUGHT: "was caught by the ghost", gridghost.Outcome.GOAL: "reached a goal"}
    result = ending.get(env.game_state.outcome, "ran out of time")
    env.close()
    return frames, result


def main(argv: list[str] | None = None) -> int:
    """Record one game; returns the process exit code."""
    parser = argparse.ArgumentParser(description="Record a GIF of the chasing ghost against a random agent.")
    parser.add_argument("--out", default="ghost_catches_agent.gif", help="the .gif (or .mp4) file to write")
    parser.add_argument("--seed", type=int, default=CATCHING_SEED, help="seeds the env and the random agent")
    parser.add_argument("--fps", type=float, default=4, help="frames per second of the animation")
    parser.add_argument("--max-cycles", type=int, default=30, help="agent+ghost moves before time runs out")
    parser.add_argument("--png-dir", help="also save every frame as a PNG file in this folder")
    args = parser.parse_args(argv)

    frames, result = play(args.seed, args.max_cycles)
    if args.png_dir:
        save_frames(frames, args.png_dir)
    try:
        path = save_animation(frames + [frames[-1]] * HOLD_LAST, args.out, fps=args.fps)
    except (ImportError, ValueError) as error:
        parser.error(str(error))
    print(f"The agent {result} after {len(frames) - 1} half-turns; wrote {path}.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
