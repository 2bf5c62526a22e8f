"""What the games of :class:`~gridghost.batched.engine.BatchedGame` are at: each game's map, level,
positions and action mask, and the episode statistics (:class:`EpisodeStats`), read from the
engine's state when asked (:class:`GameStatistics`, a part of the engine).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from gridghost.core.checks import check_choice
from gridghost.core.names import AGENT
from gridghost.maps.levels import MapGenerator


class EpisodeStats(NamedTuple):
    """Per game, the return, length and success of an episode (:meth:`BatchedGame.episodes`).

    Attributes:
        returns: ``float64[N]``, the side's undiscounted return.
        lengths: ``int64[N]``, its steps.
        successes: ``bool[N]``, the side won: the agent reached a goal, or the ghost caught it.
    """

    returns: np.ndarray
    lengths: np.ndarray
    successes: np.ndarray


class GameStatistics:
    """The maps, positions, masks and episode statistics of the games of
    :class:`~gridghost.batched.engine.BatchedGame` (a part of it: the engine inherits this class
    and keeps the state it reads, annotated below)."""

    controlled: str | None
    _GHOST_SIDE: str
    generator: MapGenerator | None
    num_cells: int
    _states: int
    _state: np.ndarray
    _steps: np.ndarray
    _masks: np.ndarray
    _goals: np.ndarray
    _returns: dict[str, np.ndarray]
    _ended_games: np.ndarray
    _ended_states: np.ndarray
    _ended_returns: dict[str, np.ndarray]
    _ended_lengths: np.ndarray

    @property
    def maps(self) -> np.ndarray:
        """``int64[N]``: the index into :attr:`layouts` of each game's current map."""
        return self._cells()[0] // self.num_cells

    @property
    def levels(self) -> np.ndarray | None:
        """``int64[N]``: each game's level with a map generator, else ``None``."""
        return None if self.generator is None else self.maps + self.generator.start_level

    @property
    def positions(self) -> tuple[np.ndarray, np.ndarray]:
        """``(agent cells int64[N], ghost cells int64[N]`` (one ghost) or ``int64[N, k]`` (a team
        of ``k``)``)``: the games' true states (cell indices)."""
        agents, ghosts = self._cells()
        return agents % self.num_cells, ghosts % self.num_cells

    def action_masks(self, side: str | None = None) -> np.ndarray:
        """``int8[N, 4]`` (``int8[N, k, 4]`` for a team of ``k``): 1 where a move changes the cell
        of ``side`` (default: the learner's; required with two learners), as the single envs'
        ``info["action_mask"]``.

        Raises:
            ValueError: an unknown side, or none given with two learners.
        """
        side = self._side(side)
        agents, ghosts = self._cells()
        return self._masks[agents if side == AGENT else ghosts]

    def episodes(self, side: str | None = None) -> EpisodeStats:
        """Per game, its episode as of the last call (:class:`EpisodeStats`): a game that ended
        in that call gives the episode that ended, also in same-step mode, where it has already
        restarted; any other game its episode so far. Computed when asked (the engine keeps
        only the running returns and steps), so ask once per call that ends games.

        Args:
            side: whose return and success (default: the learner's; required with two learners).

        Returns:
            ``EpisodeStats(returns, lengths, successes)``: ``float64[N]`` (a team's: each
            ghost's, ``float64[N, k]``), the undiscounted sum of ``side``'s rewards;
            ``int64[N]``, its steps (learner steps with one learner, full turns with two);
            ``bool[N]``, the episode's state is ``side``'s win: the agent on a goal (not caught)
            for the agent, the agent caught for the ghosts.

        Raises:
            ValueError: an unknown side, or none given with two learners.
        """
        side = self._side(side)
        returns, lengths = self._returns[side].copy(), self._steps.copy()
        agents, ghosts = self._cells()
        ended = self._ended_games
        if len(ended):
            returns[ended] = self._ended_returns[side]
            lengths[ended] = self._ended_lengths
            agents[ended], ghosts[ended] = self._cells(ended=True)
        # a ghost on the agent's cell (halfturn.team_lands's rule; one ghost's a plain comparison)
        caught = agents == ghosts if ghosts.ndim == 1 else (ghosts == agents[:, None]).any(axis=1)
        successes = self._goals[agents] & ~caught if side == AGENT else caught
        return EpisodeStats(returns, lengths, successes)

    def _cells(self, ended: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """New arrays of the global cells (``map * cells + cell``) of the agents ``[N]`` and the
        ghosts ``[N]`` (a team's engine's: ``[N, k]``) of the games now, or with ``ended`` of the
        games that ended in the last call (same-step mode), at their episode's end."""
        maps, local = np.divmod(self._ended_states if ended else self._state, self._states)
        agents, ghosts = np.divmod(local, self.num_cells)
        maps *= self.num_cells
        return agents + maps, ghosts + maps

    def _side(self, side: str | None) -> str:
        """``side``, or the learner's when it is ``None``; refused when unknown, or when
        ``None`` with two learners."""
        side = self.controlled if side is None else side
        if side is None:
            raise ValueError(f"with two learning sides pass side='agent' or {self._GHOST_SIDE!r}")
        return check_choice(side, "side", (AGENT, self._GHOST_SIDE))
