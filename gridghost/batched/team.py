"""A team's step from positions, written once for both engines that compute it.

With ``ghosts >= 2`` the NumPy engine (:class:`~gridghost.batched.positions.PositionGame`) and the
JAX views (:mod:`gridghost.jax.positions`) keep each game's cells, the agent's and the team's, as
*global* cells ``map * cells + cell`` (games on different maps share every table), and compute a
step with the kernel's rules (:mod:`gridghost.core.halfturn`, :mod:`gridghost.core.episode`) over
the small per-map tables of :class:`TeamTables`. :class:`TeamTurns` composes those rules into the
half-turns of two learning sides and the turns of one learner, array-agnostic: ``xp`` is
``numpy`` (a batch of games, arrays ``[N]`` and ``[N, k]``) or ``jax.numpy`` (one game under
``vmap``, a scalar and ``[k]``), and every write is a ``where``. Each engine passes in what it
computes its own way: where the agent's slip lands it and the opponent's answer (and the NumPy
engine carries out the team's moves as one ``take`` into a buffer).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from gridghost.batched.tables import ONGOING as _ONGOING
from gridghost.core import episode, halfturn
from gridghost.core.names import NUM_ACTIONS
from gridghost.core.rules import Outcome, Side


class TeamTables(NamedTuple):
    """The per-map tables a team's half-turns read, by global cell (a pytree: JAX passes it in
    its params).

    Attributes:
        moves: ``int[maps * cells, 4]``, the board's next cell of each move.
        destinations: ``int[4, K, maps * cells]``, the agent's cell after each of the slip
            model's outcomes of each action (:attr:`Game.outcomes
            <gridghost.core.game.Game.outcomes>`; fewer outcomes padded with the last, whose
            bound is never passed).
        goals: ``bool[maps * cells]``.
        rewards: ``float[2, 2, 3]``: by mover (the agent, the team), the agent's or the team's
            reward, by outcome.
        chase: ``int[maps * cells * cells]``, a chasing ghost's move by ``map * cells**2 + agent
            * cells + ghost`` (local cells).
        start: ``int[maps, 1 + k]``, the agent's and the ghosts' start cells.
    """

    moves: Any
    destinations: Any
    goals: Any
    rewards: Any
    chase: Any
    start: Any


def team_tables(kernels: Sequence[Any], slips: int) -> TeamTables:
    """The :class:`TeamTables` (NumPy) of the team kernels of every map, one map after the other.

    Args:
        kernels: each map's :class:`~gridghost.core.game.Game` (the same settings, ``ghosts=k``).
        slips: ``K``, the most slip outcomes of an action.

    Returns:
        The tables, ``int64`` cells and ``float64`` rewards.
    """
    cells = kernels[0].num_cells
    offsets = np.arange(len(kernels)) * cells
    destinations = np.empty((NUM_ACTIONS, slips, len(kernels) * cells), dtype=np.int64)
    for m, kernel in enumerate(kernels):
        for action, (_, reached) in enumerate(kernel.outcomes):
            pad = np.r_[np.arange(len(reached)), np.full(slips - len(reached), len(reached) - 1)]
            destinations[action, :, m * cells : (m + 1) * cells] = reached[pad] + offsets[m]
    states = [kernel.initial_state() for kernel in kernels]
    return TeamTables(
        moves=np.concatenate([np.asarray(kernel.moves, dtype=np.int64) + offset
                              for kernel, offset in zip(kernels, offsets, strict=True)]),
        destinations=destinations,
        goals=np.concatenate([np.asarray(kernel.goals, dtype=bool) for kernel in kernels]),
        rewards=np.array([[[kernels[0].rewards(mover, outcome)[side] for outcome in Outcome] for side in (0, 1)]
                          for mover in Side]),
        chase=np.concatenate([kernel.chase_table.ravel() for kernel in kernels]).astype(np.int64),
        start=np.array([[state.agent, *state.ghosts] for state in states], dtype=np.int64) + offsets[:, None])


class TeamTurns:
    """A team game's half-turns and one learner's turns on positions (see the module docstring);
    a part of each engine's team path, which sets ``xp`` and ``catcher`` (the catcher's credit)."""

    xp: Any
    catcher: bool

    def _team_moves(self, tables: TeamTables, ghosts: Any, actions: Any) -> Any:
        return halfturn.team_moves(tables.moves, ghosts, actions)

    def _paid(self, tables: TeamTables, mover: Side, agents: Any, ghosts: Any, outcomes: Any) -> tuple[Any, Any]:
        """The agent's reward and each ghost's (the credit rule) of ``mover``'s half-turn."""
        pay = tables.rewards[mover]
        team = halfturn.credited(pay[1].take(outcomes), pay[1, _ONGOING], agents, ghosts, outcomes, self.catcher,
                                 xp=self.xp)
        return pay[0].take(outcomes), team

    def _agent_lands(self, tables: TeamTables, landed: Any, ghosts: Any) -> tuple[Any, Any, Any]:
        """The agent's half-turn that ended on ``landed``: ``(outcomes, the agent's rewards, the
        ghosts' rewards)``."""
        outcomes = halfturn.agent_lands(landed, ghosts, tables.goals, xp=self.xp)
        return (outcomes, *self._paid(tables, Side.AGENT, landed, ghosts, outcomes))

    def _team_half(self, tables: TeamTables, agents: Any, ghosts: Any, actions: Any,
                   ended: Any) -> tuple[Any, Any, Any, Any]:
        """The team's half-turn of two learning sides (a game that ended in the agent's half
        stays, and pays nothing): ``(the ghosts' cells, the agent's rewards, the ghosts',
        terminated)``. With NumPy the team's moves' array is written in place."""
        moved = self._team_moves(tables, ghosts, actions)
        outcomes = halfturn.team_lands(agents, moved, xp=self.xp)
        moved, rewards, terminated = episode.ghost_half_after_end(
            ended, ghosts, moved, self._paid(tables, Side.GHOST, agents, moved, outcomes), outcomes != _ONGOING,
            xp=self.xp, inplace=self.xp is np)
        return (moved, *rewards, terminated)

    def _agent_turn(self, tables: TeamTables, agents: Any, ghosts: Any, actions: Any,
                    landing: Callable[[Any, Any], Any], answer: Callable[[Any], Any]) -> tuple[Any, Any, Any, Any]:
        """A learning agent's turn from the cells ``agents`` and ``ghosts``: its ``actions``,
        landed by ``landing(agents, actions)`` (the engine's slip), then where that ended nothing
        the team's ``answer(landed agents)``. Returns ``(the agent's cells, the ghosts', the
        agent's rewards, terminated)``."""
        xp = self.xp
        landed = landing(agents, actions)
        first = halfturn.agent_lands(landed, ghosts, tables.goals, xp=xp)
        over = first != _ONGOING
        moved = self._team_moves(tables, ghosts, answer(landed))
        second = halfturn.team_lands(landed, moved, xp=xp)
        reward = tables.rewards[0, 0].take(first) + xp.where(over, 0.0, tables.rewards[1, 0].take(second))
        return landed, xp.where(over[..., None], ghosts, moved), reward, over | (second != _ONGOING)

    def _team_turn(self, tables: TeamTables, agents: Any, ghosts: Any, actions: Any,
                   landing: Callable[[Any, Any], Any], answer: Callable[[Any], Any]) -> tuple[Any, Any, Any, Any]:
        """A learning team's turn: its ``actions``, then where that caught nobody the agent's
        ``answer(moved ghosts)``, landed by ``landing``. Returns ``(the agent's cells, the
        ghosts', each ghost's rewards, terminated)``."""
        xp = self.xp
        moved = self._team_moves(tables, ghosts, actions)
        first = halfturn.team_lands(agents, moved, xp=xp)
        over = first != _ONGOING
        landed = xp.where(over, agents, landing(agents, answer(moved)))
        second, _, answered = self._agent_lands(tables, landed, moved)
        reward = self._paid(tables, Side.GHOST, agents, moved, first)[1] + xp.where(over[..., None], 0.0, answered)
        return landed, moved, reward, over | (second != _ONGOING)
