"""The game as the AEC env's callers see it: its state, the sides' cells and the global state
(:class:`WorldView`, a part of :class:`~gridghost.envs.aec.GridGhostEnv`, which its rendering reads).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gridghost.core.layout import Layout
from gridghost.core.rules import GameState, Outcome, Side
from gridghost.envs.binding import BEFORE_RESET
from gridghost.envs.infos import ghost_cells

_ONGOING = Outcome.ONGOING


class WorldView:
    """The current game of :class:`~gridghost.envs.aec.GridGhostEnv` as its callers read it."""

    _game: GameState | None
    _cycles: int
    board: Any
    config: Any
    layout: Layout
    state_space: Any

    # -- the game as the world sees it ---------------------------------------------------------
    @property
    def game_state(self) -> GameState:
        """The current :class:`~gridghost.core.rules.GameState`.

        Raises:
            RuntimeError: before the first ``reset``.
        """
        if self._game is None:
            raise RuntimeError(BEFORE_RESET)
        return self._game

    @property
    def agent_pos(self) -> tuple[int, int]:
        """The agent's ``(row, col)``."""
        return self.board.position(self.game_state.agent)

    @property
    def ghosts(self) -> int:
        """The ghost team's size ``k`` (1: the one-ghost game)."""
        return self.config.ghosts  # type: ignore[no-any-return]

    @property
    def ghost_positions(self) -> tuple[tuple[int, int], ...]:
        """Every ghost's ``(row, col)``, in the ghosts' order."""
        board = self.board
        return tuple(board.position(cell) for cell in ghost_cells(self.game_state))

    @property
    def ghost_pos(self) -> tuple[int, int]:
        """The ghost's ``(row, col)``; a team's ghost 0's (:attr:`ghost_positions` has every ghost's)."""
        return self.ghost_positions[0]

    @property
    def cycles(self) -> int:
        """Cycles completed in this episode (one per ghost move)."""
        return self._cycles

    def state(self) -> np.ndarray:
        """The global state: ``int8`` array ``rows x cols x (k + 3)`` (``rows x cols x 4`` for one ghost).

        Channels: 0 the agent's cell, 1 to k each ghost's cell (in the ghosts' order), then the
        goal cells, then all ones when the ghosts move next (all zeros once the game has ended).

        Raises:
            RuntimeError: before the first ``reset``.
        """
        game, board, k = self.game_state, self.board, self.ghosts
        grid = np.zeros(self.state_space.shape, dtype=np.int8)
        grid[(*board.position(game.agent), 0)] = 1
        for index, cell in enumerate(ghost_cells(game)):
            grid[(*board.position(cell), index + 1)] = 1
        for goal in self.layout.goals:
            grid[(*goal, k + 1)] = 1
        grid[:, :, k + 2] = game.turn == Side.GHOST and game.outcome == _ONGOING
        return grid

