"""The rules inside a half-turn, written once for any number of ghosts and every engine.

A state is the agent's cell and a tuple of ``k`` ghost cells (``k = 1`` is the one-ghost game). What
a half-turn does to it is stated here, one function per rule:

- :func:`agent_lands`: the agent's move (its slip already carried out) ends on a cell: it is caught
  when any ghost is on that cell, else it reaches a goal when the cell is one;
- :func:`team_moves`: every ghost makes its move from the same state, together, without slip;
  ghosts may share a cell and never block each other;
- :func:`team_lands`: after the team's move the agent is caught when any ghost is on its cell;
- :func:`credited`: each ghost's reward of a half-turn, the team's reward for every ghost, or with
  the catcher's credit only for the ghosts on the agent's cell when the half-turn caught it.

The functions are array-agnostic like :mod:`gridghost.core.episode`: the cells are Python ints
(and a tuple of ghost cells), NumPy arrays or, with ``xp=jax.numpy``, JAX arrays under ``jit`` and
``vmap``. Ghost cells always carry a trailing axis of length ``k``. The kernel
(:class:`~gridghost.core.game.Game`), the solver's model, the NumPy batched engine and the JAX
engine call them, so a rule changed here reaches all of them.

>>> import numpy as np
>>> goals = np.array([False, False, True])
>>> int(agent_lands(2, (0, 1), goals)), int(agent_lands(1, (0, 1), goals))   # a goal; caught
(2, 1)
>>> agent_lands(np.array([0, 2]), np.array([[1, 1], [0, 0]]), goals).tolist()
[0, 2]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gridghost.core.rules import Outcome

_ONGOING, _CAUGHT, _GOAL = np.int8(Outcome.ONGOING), np.int8(Outcome.CAUGHT), np.int8(Outcome.GOAL)


def _on_agent(agents: Any, ghosts: Any, xp: Any) -> Any:
    """Each ghost's "is on the agent's cell", ``[..., k]`` (a tuple of ghost cells is a ``[k]`` array)."""
    return xp.asarray(ghosts) == xp.asarray(agents)[..., None]


def agent_lands(cells: Any, ghosts: Any, goals: Any, *, xp: Any = np) -> Any:
    """How the agent's half-turn ends when its move ends on ``cells``: only the final cell counts.

    Args:
        cells: the agent's final cell, an int or an int array ``[...]``.
        ghosts: the ghosts' cells, a tuple of ints for an int ``cells``, else an int array
            ``[..., k]``.
        goals: bool per cell (an array indexed by cell), whether it is a goal.
        xp: the array namespace (``numpy`` or ``jax.numpy``).

    Returns:
        The :class:`~gridghost.core.rules.Outcome` codes (``int8``, of ``cells``' shape): CAUGHT
        where a ghost is on the cell, else GOAL where the cell is a goal, else ONGOING.
    """
    caught = _on_agent(cells, ghosts, xp).any(axis=-1)
    return xp.where(caught, _CAUGHT, xp.where(xp.asarray(goals)[cells], _GOAL, _ONGOING))


def team_moves(moves: Any, ghosts: Any, actions: Any) -> Any:
    """Every ghost's cell after the team's move: each ghost makes its own move from the same state.

    Args:
        moves: the next-cell table, ``int[num_cells, 4]`` (:attr:`Game.moves
            <gridghost.core.game.Game.moves>`, the board's ``next_cell`` as an array).
        ghosts: the ghosts' cells, ``int[..., k]``.
        actions: each ghost's action, ``int[..., k]`` (broadcast against ``ghosts``).

    Returns:
        The ghosts' new cells, ``int[..., k]``.
    """
    return moves[ghosts, actions]


def team_lands(agents: Any, ghosts: Any, *, xp: Any = np) -> Any:
    """How the team's half-turn ends: CAUGHT where a ghost is on the agent's cell, else ONGOING.

    Args:
        agents: the agent's cell, an int or an int array ``[...]``.
        ghosts: the ghosts' cells after their move, a tuple of ints or ``int[..., k]``.
        xp: the array namespace.

    Returns:
        The :class:`~gridghost.core.rules.Outcome` codes (``int8``, of ``agents``' shape).
    """
    caught = _on_agent(agents, ghosts, xp).any(axis=-1)
    return xp.where(caught, _CAUGHT, _ONGOING)


def credited(team: Any, quiet: Any, agents: Any, ghosts: Any, outcomes: Any, catcher: bool, *,
             xp: Any = np) -> Any:
    """Each ghost's reward of a half-turn that left the agent on ``agents`` and the ghosts on ``ghosts``.

    Args:
        team: the team's reward of the half-turn (each ghost's share), a float or an array ``[...]``.
        quiet: the ghosts' reward of a half-turn of the same mover that ended nothing.
        agents: the agent's cell after the half-turn, ``[...]``.
        ghosts: the ghosts' cells after it, a tuple or ``int[..., k]``.
        outcomes: the half-turn's :class:`~gridghost.core.rules.Outcome` codes, ``[...]``.
        catcher: the catcher's credit (a Python bool): a capture pays ``team`` only to the ghosts
            on the agent's cell and ``quiet`` to the others; without it every ghost gets ``team``.
        xp: the array namespace.

    Returns:
        The rewards, ``float[..., k]`` (for scalars and a tuple: ``float[k]``).
    """
    on_agent = _on_agent(agents, ghosts, xp)
    team = xp.asarray(team, dtype=float)[..., None]
    if not catcher:
        return xp.broadcast_to(team, xp.broadcast_shapes(team.shape, on_agent.shape)) * 1.0
    paid = on_agent | (xp.asarray(outcomes)[..., None] != _CAUGHT)
    return xp.where(paid, team, xp.asarray(quiet, dtype=float)[..., None])
