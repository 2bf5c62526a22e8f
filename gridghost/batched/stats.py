"""What the games of :class:`~gridghost.batched.engine.BatchedGame` are at: each game's map, level,
positions and action mask, and the episode statistics (:class:`EpisodeStats`), read from the
engine's state when asked.

:class:`GameStatistics` is that part of the engine: :class:`~gridghost.batched.engine.BatchedGame`
inherits it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from gridghost.core.checks import check_choice
from gridghost.core.names import AGENT, AGENTS, GHOST
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
        return self._state // self._states

    @property
    def levels(self) -> np.ndarray | None:
        """``int64[N]``: each game's level with a map generator, else ``None``."""
        return None if self.generator is None else self.maps + self.generator.start_level

    @property
    def positions(self) -> tuple[np.ndarray, np.ndarray]:
        """``(agent cells, ghost cells)``, ``int64[N]`` each: the games' true states (cell indices)."""
        return np.divmod(self._state % self._states, self.num_cells)

    def action_masks(self, side: str | None = None) -> np.ndarray:
        """``int8[N, 4]``: 1 where a move changes the cell of ``side`` (default: the learner's;
        required with two learners), as the single envs' ``info["action_mask"]``.

        Raises:
            ValueError: an unknown side, or none given with two learners.
        """
        side = self._side(side)
        agents, ghosts = self.positions
        cells = (agents if side == AGENT else ghosts) + self.maps * self.num_cells
        return self._masks[cells]

    def episodes(self, side: str | None = None) -> EpisodeStats:
        """Per game, its episode as of the last call (:class:`EpisodeStats`): a game that ended
        in that call gives the episode that ended, also in same-step mode, where it has already
        restarted; any other game its episode so far. Computed when asked (the engine keeps
        only the running returns and steps), so ask once per call that ends games.

        Args:
            side: whose return and success (default: the learner's; required with two learners).

        Returns:
            ``EpisodeStats(returns, lengths, successes)``: ``float64[N]``, the undiscounted sum of
            ``side``'s rewards; ``int64[N]``, its steps (learner steps with one learner, full
            turns with two); ``bool[N]``, the episode's state is ``side``'s win: the agent on a
            goal (not caught) for the agent, the agent caught for the ghost.

        Raises:
            ValueError: an unknown side, or none given with two learners.
        """
        side = self._side(side)
        returns, lengths, states = self._returns[side].copy(), self._steps.copy(), self._state.copy()
        ended = self._ended_games
        if len(ended):
            returns[ended] = self._ended_returns[side]
            lengths[ended] = self._ended_lengths
            states[ended] = self._ended_states
        maps, local = np.divmod(states, self._states)
        agents, ghosts = np.divmod(local, self.num_cells)
        caught = agents == ghosts
        successes = caught if side == GHOST else self._goals[maps * self.num_cells + agents] & ~caught
        return EpisodeStats(returns, lengths, successes)

    def _side(self, side: str | None) -> str:
        """``side``, or the learner's when it is ``None``; refused when unknown, or when
        ``None`` with two learners."""
        side = self.controlled if side is None else side
        if side is None:
            raise ValueError("with two learning sides pass side='agent' or 'ghost'")
        return check_choice(side, "side", AGENTS)
