"""Solve the classic map exactly, print the key figures and draw the solutions: the optimal
agent against the chasing ghost beside the minimax agent (both sides playing perfectly), each
with the ghost at its start cell. Colours are the agent's value, arrows its best move.

    python examples/solve_classic.py                  # rewrites docs/solve_classic.png
    python examples/solve_classic.py --out pictures/
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from gridghost import CLASSIC, LongitudinalSlip
from gridghost.drawing import save_image, value_picture
from gridghost.planning import ghost_exploitability, solve_agent, solve_game

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "docs"
SLIP = LongitudinalSlip(0.2)
GAMMA = 0.99


def main(argv: list[str] | None = None) -> int:
    """Solve, print and draw; returns the process exit code."""
    parser = argparse.ArgumentParser(description="Solve the classic map and draw the optimal policies.")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the folder to write solve_classic.png into")
    args = parser.parse_args(argv)

    start = (CLASSIC.agent_start, CLASSIC.ghost_start)
    vs_chase = solve_agent(CLASSIC, SLIP, ghost="chase", gamma=GAMMA)
    vs_random = solve_agent(CLASSIC, SLIP, ghost="random", gamma=GAMMA)
    game = solve_game(CLASSIC, SLIP, gamma=GAMMA)
    given_away = ghost_exploitability("chase", CLASSIC, SLIP, gamma=GAMMA)  # what a best-responding agent gains
    print(f"optimal agent's success probability (100 turns): {vs_chase.success_probability(*start):.8f} "
          f"vs the chasing ghost, {vs_random.success_probability(*start):.8f} vs the random ghost")
    print(f"minimax value {game.value(*start):.2f}, capture probability {game.capture_probability(*start):.6f}, "
          f"expected capture time (when caught) {game.capture_time(*start):.2f} turns")
    print(f"exploitability of the chasing ghost: {given_away:.3f}")

    # The ghost stays at its start cell; where the game is over (goals, the ghost's cell) there is no value.
    row, col = CLASSIC.ghost_start
    panels = {"Optimal agent vs chasing ghost": (vs_chase.values, vs_chase.policy),
              "Minimax agent vs minimax ghost": (game.values, game.agent_policy)}
    fixed = {title: (np.where(policy[:, :, row, col] >= 0, values[:, :, row, col], np.nan), policy[:, :, row, col])
             for title, (values, policy) in panels.items()}
    low = min(np.nanmin(values) for values, _ in fixed.values())  # one colour scale for both pictures
    high = max(np.nanmax(values) for values, _ in fixed.values())
    pictures = [value_picture(CLASSIC, values, policy, vmin=low, vmax=high, title=title, marks={(row, col): "ghost"})
                for title, (values, policy) in fixed.items()]
    print(f"wrote {save_image(np.hstack(pictures), args.out / 'solve_classic.png')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
