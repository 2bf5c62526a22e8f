"""Half-steps per second of the AEC env with a team of ghosts against one ghost, same run.

Every contender plays random actions through the standard loop (``agent_iter``, ``last``,
``step``) on one 6x6 map with three ghost starts: one ghost (today's game, the baseline), two and
three ghosts. A half-step is one ``step``: with k ghosts a cycle is k + 1 of them (the agent's
move, then each ghost's, the team's moves taking effect after the last). The contenders run
interleaved, round after round, timed in process CPU time, and each round's rates are divided by
the same round's one-ghost rate (see :mod:`aec_throughput`, whose loop this reuses).

    python benchmarks/team_throughput.py            # 11 rounds of 10,000 half-steps each
    python benchmarks/team_throughput.py --rounds 3 --half-steps 2000

Target: two ghosts >= 0.6x the one-ghost rate, per half-step, with the vector encoding.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from aec_throughput import run_contenders

import gridghost
from gridghost import Layout

#: A 6x6 room with a pillar, the agent in the middle, three ghost starts in the corners.
TEAM_MAP = Layout.from_text("""
+---+---+---+---+---+---+
| *   .   .   .   .   G1|
+   +   +   +   +   +   +
| .   .   .   .   .   . |
+   +   +---+   +   +   +
| .   . | .   A   .   . |
+   +   +   +   +   +   +
| .   .   .   .   .   . |
+   +   +   +   +   +   +
| .   .   .   .   .   . |
+   +   +   +   +   +   +
| G2  .   .   .   .   G |
+---+---+---+---+---+---+
name: team_bench
""")

CONTENDERS: dict[str, tuple[Callable[[], object], float | None]] = {
    f"raw_env(ghosts={k}, obs_type={obs!r})": (
        functools.partial(gridghost.raw_env, layout=TEAM_MAP, ghosts=k, obs_type=obs), target)
    for obs in ("vector", "dict")
    for k, target in ((1, None), (2, 0.6 if obs == "vector" else None), (3, None))
}
BASELINE = "raw_env(ghosts=1, obs_type='vector')"


def main(argv: list[str] | None = None) -> None:
    """Run the interleaved rounds and print rates and ratios."""
    run_contenders(__doc__.splitlines()[0], "Team AEC throughput", CONTENDERS, BASELINE, argv)


if __name__ == "__main__":
    main()
