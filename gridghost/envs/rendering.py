"""The rendering adapter of the AEC env: what :class:`~gridghost.envs.aec.GridGhostEnv` shows of
its game: the state and the cells its callers read, the global state, the picture it draws in its
``render_mode``, and the status panel under the picture.

Rendering reads the env's state and draws nothing from its generator, so it never changes the game.
The pictures themselves are :mod:`gridghost.drawing`'s: the pygame :class:`~gridghost.drawing.Renderer`
(created on first use, with the overlay of :meth:`EnvRendering.set_overlay`) and the text picture.
"""

from __future__ import annotations

import copy
from typing import Any

import gymnasium
import numpy as np

from gridghost.config.settings import OUTCOME_INFO_KEYS
from gridghost.core.names import AGENTS
from gridghost.core.rules import ACTION_NAMES, GameState, Outcome, Side, describe_moves
from gridghost.drawing import Renderer, Status, text_picture
from gridghost.envs.binding import BEFORE_RESET, MapBinding

_ONGOING = Outcome.ONGOING


class EnvRendering(MapBinding):
    """The part of :class:`~gridghost.envs.aec.GridGhostEnv` that shows its game (see the module
    docstring), from the env's attributes that :class:`~gridghost.envs.binding.MapBinding` declares."""

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
        return self.config.ghosts

    @property
    def ghost_positions(self) -> tuple[tuple[int, int], ...]:
        """Every ghost's ``(row, col)``, in the ghosts' order."""
        board = self.board
        return tuple(board.position(cell) for cell in self.game_state.ghosts)

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
        for index, cell in enumerate((game.agent, *game.ghosts)):
            grid[(*board.position(cell), index)] = 1
        for goal in self.layout.goals:
            grid[(*goal, k + 1)] = 1
        grid[:, :, k + 2] = game.turn == Side.GHOST and game.outcome == _ONGOING
        return grid

    def render(self) -> np.ndarray | str | None:
        """Draw the current state in the env's ``render_mode``; it never changes the game (see
        :mod:`gridghost.envs.rendering`).

        Returns:
            ``"rgb_array"``: a fresh ``height x width x 3`` ``uint8`` array (its size is
            :attr:`gridghost.drawing.Geometry.shape` of the layout); ``"ansi"``: the text
            picture; ``"human"``: ``None`` (the picture goes to the window); no render mode:
            ``None``, with a warning.

        Raises:
            RuntimeError: before the first ``reset`` (when there is a render mode).
        """
        mode = self.render_mode
        if mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode= to the env")
            return None
        agent, ghost, status = self.agent_pos, self.ghost_positions, self._status()
        if mode == "ansi":
            return text_picture(self.layout, agent, ghost, status.headline())
        renderer = self._pygame_renderer()
        belief = estimate = None
        if self.belief_filter is not None and self.show_belief:
            belief = self.belief_filter.belief()
            estimate = tuple(self.belief_filter.estimate()["cell_pos"])
        if mode == "rgb_array":
            return renderer.frame(agent, ghost, status, belief, estimate)
        renderer.show(agent, ghost, status, belief, estimate)
        return None

    def _pygame_renderer(self) -> Renderer:
        """The renderer, created on first use (and again after ``close()``) with the overlay."""
        if self._renderer is None:
            self._renderer = Renderer(self.layout, fps=self.metadata["render_fps"])
            if self._overlay is not None:
                values, policy, style = self._overlay
                self._renderer.set_overlay(values, policy, **style)
        return self._renderer

    def set_overlay(self, values: Any = None, policy: Any = None, **style: Any) -> None:
        """Draw one number per cell (a value with the ghost fixed, a belief, visit counts) and/or a
        policy's arrows over the pygame picture of every following frame, until the map changes
        (a map generator's next map) or ``set_overlay()`` removes it. See
        :meth:`gridghost.drawing.Renderer.set_overlay` for the arguments and
        :func:`gridghost.drawing.value_picture` for a picture of its own.

        >>> from gridghost.envs.aec import raw_env
        >>> from gridghost.planning.solve import solve_agent
        >>> env = raw_env(render_mode="rgb_array")
        >>> best = solve_agent(env.layout, env.slip, ghost="chase")
        >>> ghost = env.layout.ghost_start
        >>> env.set_overlay(best.values[:, :, ghost[0], ghost[1]], best.policy[:, :, ghost[0], ghost[1]])

        Args:
            values: ``rows x cols`` numbers (NaN: no tint), or ``None``.
            policy: ``rows x cols`` actions (-1: no arrow), or ``None``.
            **style: ``cmap``, ``vmin``, ``vmax``, ``opacity``.

        Raises:
            ValueError: the env draws no pygame picture (``render_mode`` ``None`` or ``"ansi"``).
            TypeError, ValueError: as :meth:`~gridghost.drawing.Renderer.set_overlay` (the overlay
                is then unchanged).
        """
        if self.render_mode not in ("human", "rgb_array"):
            raise ValueError(f"set_overlay draws over the pygame picture; render_mode={self.render_mode!r} draws none "
                             "(use 'rgb_array' or 'human')")
        self._pygame_renderer().set_overlay(values, policy, **style)
        # copies: the overlay is drawn again after close(), whatever the caller does to its arrays
        self._overlay = None if values is None and policy is None else copy.deepcopy((values, policy, style))

    def _status(self) -> Status:
        """What the status panel shows about the current state."""
        game = self.game_state
        to_move: str | None = None
        ending: str | None = None
        if game.outcome != _ONGOING:
            ending = OUTCOME_INFO_KEYS[game.outcome].replace("_", " ")
        elif self._cycles >= self._cycle_limit:
            ending = "out of time"
        else:
            to_move = "ghosts" if game.turn == Side.GHOST and self.ghosts > 1 else AGENTS[game.turn]  # a team's: all
        intended = actual = None
        slipped = False
        if self._last_move is not None:
            slipped, actual = describe_moves(*self._last_move)
            intended = ACTION_NAMES[self._last_move[0]]
        # The ghosts' last moves: one ghost's name, a team's tuple of names (None before the first).
        moves = self._ghost_action
        if isinstance(moves, int):
            ghost_action: str | tuple[str | None, ...] | None = ACTION_NAMES[moves]
        elif moves is None:
            ghost_action = None if self.ghosts == 1 else (None,) * self.ghosts
        else:
            ghost_action = tuple(ACTION_NAMES[move] for move in moves)
        return Status(
            cycle=self._cycles,
            max_cycles=self.max_cycles,
            to_move=to_move,
            ending=ending,
            intended_action=intended,
            actual_action=actual,
            slipped=slipped,
            ghost_action=ghost_action,
            color_measurement=self._readings.get("color_measurement"),
        )

    def close(self) -> None:
        """Close the render window, if one is open, and release the renderer's pygame objects.

        Safe to call more than once. Rendering after ``close()`` works: it opens a new window
        (``"human"``) or draws off screen again (``"rgb_array"``).
        """
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None
