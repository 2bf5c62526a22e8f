"""The compiled loops of :class:`~gridghost.planning.compiled.CompiledTurn` (numba, the ``fast``
extra; imported only where numba is). Untyped on purpose: numba types them per call.

A row is the live states of the agent on one cell ``c``, by the ghost's cell ``g`` (skipping
``c``): the state ``(c, g)`` is at ``rowstart[c] + g - (g > c)``. ``ra`` and ``rg`` are the
summed side's rewards of the agent's and the ghost's half-turns by outcome (``ra``: going on, a
catch, a goal; ``rg``: going on, a catch).
"""

# mypy: ignore-errors
import numba
import numpy as np

from gridghost.core.rules import NUM_ACTIONS

jit = numba.njit(cache=True, nogil=True, boundscheck=False)


@jit
def ghost_row(values, gamma, c, start, moves, steps, opens, rg, dense, row, between):
    """The ghost's best answer in each state of row ``c`` into ``between``, from ``values`` (its
    move keeps the row; a catch leads to the sink, whose value is 0). Move ``m`` takes a ghost on
    ``g`` to ``g + steps[m]`` where ``opens[m, g]``, else leaves it on ``g`` (as ``moves`` says);
    ``dense`` is room for the row by ghost cell with the largest step's cells either side, ``row``
    for the answers by ghost cell."""
    cells = moves.shape[0]
    pad = (dense.shape[0] - cells) // 2
    dense[pad: pad + c] = values[start: start + c]
    dense[pad + c] = 0.0  # no state: the ghosts next to c are answered again below
    dense[pad + c + 1: pad + cells] = values[start + c: start + cells - 1]
    s0, s1, s2, s3 = pad + steps[0], pad + steps[1], pad + steps[2], pad + steps[3]
    o0, o1, o2, o3 = opens[0], opens[1], opens[2], opens[3]
    going = rg[0]
    for g in range(cells):  # every load made, then chosen: the loop runs in vector registers
        here, a0, a1, a2, a3 = dense[pad + g], dense[s0 + g], dense[s1 + g], dense[s2 + g], dense[s3 + g]
        best = (a0 if o0[g] else here) * gamma + going
        q = (a1 if o1[g] else here) * gamma + going
        best = q if q < best else best
        q = (a2 if o2[g] else here) * gamma + going
        best = q if q < best else best
        q = (a3 if o3[g] else here) * gamma + going
        row[g] = q if q < best else best
    caught = 0.0 * gamma + rg[1]
    for n in range(moves.shape[1]):  # a ghost whose move n lands on c: that move is a catch
        g = c - steps[n]
        if g < 0 or g >= cells or moves[g, n] != c:
            continue
        best = 0.0
        for m in range(moves.shape[1]):
            h = moves[g, m]
            q = caught if h == c else dense[pad + h] * gamma + going
            if m == 0 or q < best:
                best = q
        row[g] = best
    between[start: start + c] = row[:c]
    between[start + c: start + cells - 1] = row[c + 1: cells]


@jit
def outcomes3(b0, b1, b2, p0, p1, p2, expected, best, first, row):
    """One action's values over a run of ghost cells into ``row`` (its three outcomes' values
    ``b0``-``b2`` weighted ``p0``-``p2``, in the order JointTurn adds them, plus the expected reward)
    and the best so far into ``best`` (``first``: the first action)."""
    for j in range(best.shape[0]):
        x = ((0.0 + b0[j] * p0) + b1[j] * p1) + b2[j] * p2
        x += expected
        row[j] = x
        if first or x > best[j]:
            best[j] = x


@jit
def agent_row(between, c, start, dest, prob, goals, rowstart, ra, old, out, q, keep, rows, best,
              fixes):
    """The agent's action values in row ``c`` into ``rows`` (and ``q`` if ``keep``), from the
    ghost-to-move values ``between``; their best into ``out``. Returns the largest change from
    ``old``."""
    cells = goals.shape[0]
    fixed = 0
    for a in range(NUM_ACTIONS):
        row = rows[a]
        expected = 0.0  # where the ghost stands on none of the outcomes' cells
        for k in range(3):
            expected += prob[a, k] * (ra[2] if goals[dest[a, k, c]] else ra[0])
        d0, d1, d2 = dest[a, 0, c], dest[a, 1, c], dest[a, 2, c]
        # an outcome on a goal adds 0 (the sink's value): its row is read times 0
        p0 = 0.0 if goals[d0] else prob[a, 0]
        p1 = 0.0 if goals[d1] else prob[a, 1]
        p2 = 0.0 if goals[d2] else prob[a, 2]
        r0 = start if goals[d0] else rowstart[d0]
        r1 = start if goals[d1] else rowstart[d1]
        r2 = start if goals[d2] else rowstart[d2]
        # runs of ghost cells in which each outcome's row is read in order: cut after each outcome's cell
        c0, c1, c2 = min(d0, d1), max(d0, d1), d2
        c0, c2 = min(c0, c2), max(c0, c2)
        c1, c2 = min(c1, c2), max(c1, c2)
        lo = 0
        for k in range(4):
            hi = (c0 + 1, c1 + 1, c2 + 1, cells)[k]
            if hi <= lo:
                continue
            s0 = r0 - (1 if lo > d0 and not goals[d0] else 0)
            s1 = r1 - (1 if lo > d1 and not goals[d1] else 0)
            s2 = r2 - (1 if lo > d2 and not goals[d2] else 0)
            outcomes3(between[s0 + lo: s0 + hi], between[s1 + lo: s1 + hi], between[s2 + lo: s2 + hi],
                      p0, p1, p2, expected, best[lo:hi], a == 0, row[lo:hi])
            lo = hi
        for k in range(3):  # the ghost on an outcome's cell: that outcome is a catch
            d = dest[a, k, c]
            if d == c:
                continue
            value, reward = 0.0, 0.0
            for j in range(3):
                dj, pj = dest[a, j, c], prob[a, j]
                if dj == d:
                    reward += pj * ra[1]
                elif goals[dj]:
                    reward += pj * ra[2]
                else:
                    reward += pj * ra[0]
                    if pj > 0.0:
                        value += between[rowstart[dj] + d - (1 if d > dj else 0)] * pj
            value += reward
            row[d] = value
            fixes[fixed] = d
            fixed += 1
        if keep:
            q[a, start: start + c] = row[:c]
            q[a, start + c: start + cells - 1] = row[c + 1:]
    for i in range(fixed):
        d = fixes[i]
        top = rows[0, d]
        for a in range(1, NUM_ACTIONS):
            if rows[a, d] > top:
                top = rows[a, d]
        best[d] = top
    largest = 0.0
    for g in range(cells):
        if g == c:
            continue
        s = start + g - (1 if g > c else 0)
        change = abs(best[g] - old[s])
        if change > largest:
            largest = change
        out[s] = best[g]
    return largest


@jit
def _dense(moves, steps):
    """Room for a row by ghost cell, with the largest step's cells either side."""
    return np.zeros(moves.shape[0] + 2 * np.abs(steps).max())


@jit
def ghosts(values, gamma, cells_, rowstart, moves, steps, opens, rg, between):
    """The ghost-to-move values of the rows ``cells_`` into ``between``, from ``values``."""
    dense, row = _dense(moves, steps), np.empty(moves.shape[0])
    for c in cells_:
        ghost_row(values, gamma, c, rowstart[c], moves, steps, opens, rg, dense, row, between)


@jit
def sweep(values, out, gamma, cells_, rowstart, moves, steps, opens, rg, dest, prob, goals, ra, between, q):
    """A plain sweep of the rows ``cells_``: every ghost-to-move value from ``values``, then the
    agent's action values into ``q`` and their best into ``out``. Returns the largest change."""
    rows, best = np.empty((NUM_ACTIONS, goals.shape[0])), np.empty(goals.shape[0])
    fixes = np.empty(NUM_ACTIONS * 3, dtype=np.int64)
    ghosts(values, gamma, cells_, rowstart, moves, steps, opens, rg, between)
    largest = 0.0
    for c in cells_:
        change = agent_row(between, c, rowstart[c], dest, prob, goals, rowstart, ra, values, out, q, True, rows,
                           best, fixes)
        largest = max(largest, change)
    return largest


@jit
def relax(values, gamma, cells_, rowstart, moves, steps, opens, rg, dest, prob, goals, ra, between, q):
    """An in-place sweep of the rows in the order ``cells_``: each row's values, then its
    ghost-to-move values from them. Returns the largest change."""
    rows, best = np.empty((NUM_ACTIONS, goals.shape[0])), np.empty(goals.shape[0])
    fixes = np.empty(NUM_ACTIONS * 3, dtype=np.int64)
    dense, row = _dense(moves, steps), np.empty(moves.shape[0])
    largest = 0.0
    for c in cells_:
        change = agent_row(between, c, rowstart[c], dest, prob, goals, rowstart, ra, values, values, q, False,
                           rows, best, fixes)
        largest = max(largest, change)
        ghost_row(values, gamma, c, rowstart[c], moves, steps, opens, rg, dense, row, between)
    return largest
