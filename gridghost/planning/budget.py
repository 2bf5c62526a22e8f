"""The memory a solve takes: the live states of a game, and the bytes a solve allocates at its
peak (:func:`model_bytes`), which :func:`gridghost.planning.model.check_budget` holds against the
budget before anything is allocated.
"""

from __future__ import annotations

import math

from gridghost.core.rules import NUM_ACTIONS

#: The bytes per live state a compiled solve's count leaves out (the greedy actions' temporaries
#: and the allocator's slack, measured on 24 x 24 to 64 x 64 maps), and its fixed bytes: numba and
#: the compiled loops, with the compiler's working memory where they are compiled, not read from
#: numba's cache (on a 48 x 48 map the peak was 656 MiB with the compiler, 579 MiB without).
_COMPILED_SLACK, _COMPILED_FIXED = 24, 160 * 2**20
#: About how many values a deciding team's stage move reads at a time (a block of agent cells).
_BLOCK = 2**18


def live_count(cells: int, goals: int, ghosts: int, symmetric: bool = False) -> int:
    """The live states of ``ghosts`` ghosts on a map of ``cells`` cells with ``goals`` goals: the
    agent off the goals and off every ghost; with ``symmetric``, the ghosts' cells as multisets."""
    others = cells - 1
    placements = math.comb(others + ghosts - 1, ghosts) if symmetric else others**ghosts
    return (cells - goals) * placements


def model_bytes(cells: int, goals: int, ghosts: int, symmetric: bool = False, slip_outcomes: int = 3,
                joint: bool = True, policy: bool = False, compiled: bool = False) -> int:
    """About the bytes a solve allocates at its peak, never less (measured as the rise of the
    process's resident high-water mark, and with tracemalloc).

    One ghost (``joint``; 1.0 to 1.1 times the peak from 16 x 16 to 64 x 64): per live state, the
    model's tables, the sweeps' and the linear solve's vectors, with ``policy`` a fixed side's
    probabilities and the states' cells, and 24 bytes the count leaves out (measured); not the
    outcome tables of every state computed later. A team with joint tables (``joint``; 74% to 96%
    of this for 2 to 4 ghosts): per live state, the agent's half-turns (21 bytes per action and
    slip outcome, and their expected rewards) and 72 bytes per joint action of the ghosts (the
    model's next state, outcome and both sides' rewards; a policy and the outcome tables). Without
    (a team that decides, one ghost at a time, held dense:
    :class:`~gridghost.planning.iteration.TeamStages`): per live state, its place,
    the agent's action values and three arrays of values; per agent cell and multiset, the rules'
    masks; the stages' values and their moves' tables; with ``policy``, a fixed side's policy (32 bytes).
    With ``compiled`` (one ghost's game swept by :class:`~gridghost.planning.compiled.CompiledTurn`,
    which reads no tables): per live state, three vectors of values, the agent's action values and
    its best actions. Then the index of every state."""
    live = live_count(cells, goals, ghosts, symmetric)
    if compiled and ghosts == 1:
        # the values, the values read and the ghost-to-move values, the agent's action values and
        # its greedy actions (int64), and what the count leaves out (measured)
        total = live * (3 * 8 + 8 * NUM_ACTIONS + 8 + _COMPILED_SLACK) + _COMPILED_FIXED
    elif joint and ghosts > 1:
        # a team's joint tables, read by its outcome tables too (success_probability and the like)
        total = live * (NUM_ACTIONS * (21 * slip_outcomes + 16) + 256 + NUM_ACTIONS**ghosts * 72)
    elif joint:
        # the agent's half-turns and expected rewards, the ghost's moves, the sweeps' action values and
        # vectors, the linear solve's vectors and fixed moves, a fixed side's probabilities and the
        # states' cells, and what the count leaves out (the allocator's slack, measured)
        per_state = (NUM_ACTIONS * (5 * slip_outcomes + 8) + 5 * NUM_ACTIONS + 8 * NUM_ACTIONS + 24
                     + 30 + 4 * slip_outcomes + 8 * (3 + NUM_ACTIONS) * policy + 24)
        total = live * per_state + 2**22
    else:
        widths, lengths, rows = stage_sizes(cells, ghosts)
        per_state = 8 + 8 * NUM_ACTIONS + 3 * 8 + 32 * policy
        total = (live * per_state + 8 * (cells * sum(lengths) + rows * max(widths)) + 4 * cells * widths[0]
                 + 32 * sum(widths[1:]) + 2**20) * 33 // 32  # 3% for what the count leaves out
    if symmetric:
        return total + 8 * cells * math.comb(cells + ghosts - 1, ghosts) + 8 * cells**ghosts
    return total + 8 * cells ** (ghosts + 1)


def stage_sizes(cells: int, ghosts: int) -> tuple[list[int], list[int], int]:
    """The sizes of a deciding team's stages (:class:`~gridghost.planning.iteration.TeamStages`),
    per agent cell: each stage's width (stage ``u``: ``u`` ghosts still to move by ``k - u``
    moved, each a multiset), the lengths of the two buffers the stages alternate between (stage
    ``u`` in buffer ``u % 2``; the one stage ``k`` is not in also holds the agent's move's two
    scratch rows), and the agent cells per block of a stage's move (about :data:`_BLOCK` values)."""
    widths = [math.comb(cells + u - 1, u) * math.comb(cells + ghosts - u - 1, ghosts - u) for u in range(ghosts + 1)]
    lengths = [max(widths[parity::2]) for parity in (0, 1)]
    lengths[1 - ghosts % 2] = max(lengths[1 - ghosts % 2], 2 * widths[0])
    return widths, lengths, min(cells, max(1, _BLOCK // max(widths)))
