"""Draw the Teams page's picture (docs/teams.md): a coordination map with its team-optimal policy.

On ``team_eight`` the agent stands at the crossing and ghost 0 on the left goal, its start. For
every cell ghost 1 could stand on, the picture shows the team game's value (the agent's return,
in normalised rewards, under minimax play by both sides, with the agent to move) and, as an
arrow, ghost 1's part of the team's minimax joint move with the team to move in that position.
Cells no one can reach (inside the blocks) are grey. Run it from the repository root after
changing the solver or the map, and commit the picture it writes:

    python docs/make_team_picture.py                  # rewrites docs/teams_policy.png
    python docs/make_team_picture.py --out /tmp/teams_policy.png
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from gridghost.config import resolve
from gridghost.drawing import save_image
from gridghost.drawing.pictures import team_marks, value_picture
from gridghost.maps import load
from gridghost.planning import solve_game

DEFAULT_OUT = Path(__file__).resolve().parent / "teams_policy.png"
MAP = "team_eight"


def draw() -> np.ndarray:
    """The picture: ghost 1's team-optimal moves and the game's value over its cells."""
    layout = load(MAP)
    solution = solve_game(spec=resolve(layout=layout, ghosts=2, rewards="normalised"))
    agent, ghost_0 = layout.agent_start, layout.ghost_starts[0]
    values = np.array(solution.values[(*agent, *ghost_0)], dtype=float)
    joint = solution.team_policy[(*agent, *ghost_0)]
    moves = np.where(joint >= 0, joint // 4, -1)  # ghost 1 is the second base-4 digit
    reachable = layout.reachable_from(agent)
    hidden = np.array([[joint[r, c] < 0 or (r, c) not in reachable for c in range(layout.cols)]
                       for r in range(layout.rows)])  # the game over (ghost 1 on the agent), or out of reach
    values[hidden], moves[hidden] = np.nan, -1
    return value_picture(layout, values, moves, marks=team_marks([ghost_0, None], agent=agent), number_format="{:.2f}",
                         title=f"{MAP}: ghost 1's team-optimal moves (ghost 0 on the left goal), team game value")


def main(argv: list[str] | None = None) -> int:
    """Draw and save the picture; returns the process exit code."""
    parser = argparse.ArgumentParser(description="Draw the Teams page's picture.")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="the file to write (default: docs/teams_policy.png)")
    args = parser.parse_args(argv)
    print(f"wrote {save_image(draw(), args.out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
