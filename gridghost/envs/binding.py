"""The map binding of the AEC env: the components of each map it plays (sensors, kernel, belief
filter, observation encoder, expert), kept for the last few maps, and the generators of each
episode's sensors, map draw and filter, spawned from the reset seed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from gridghost.config.parts import MapParts, build_map_parts, recent_map
from gridghost.core.episode import count_cycles, next_mover
from gridghost.core.game import Game
from gridghost.core.layout import Layout
from gridghost.core.names import AGENT, AGENTS, FILTER_STREAM, GHOST, MAP_STREAM
from gridghost.core.rules import Board, GameState, Outcome, Side
from gridghost.drawing import Renderer
from gridghost.sensing.filters import BeliefFilter
from gridghost.sensing.sensors import Sensor

#: What a step or an observation before the first reset, and after the last dead step, raises.
BEFORE_RESET = "the env has no state before reset(); call reset() first"
EPISODE_OVER = "the episode is over (every agent has taken its dead step); call reset()"
#: Per sensor: the sensor, its name, and the info keys its read() declares (None when it reports
#: just its measurement).
_SensorKeys = tuple[tuple[Sensor, str, frozenset[str] | None], ...]


#: The turn rule (:mod:`gridghost.core.episode`) after the agent's half-turn, per ``use_ghost``:
#: ``(the side to move next, cycles completed)``.
_AFTER_AGENT = {use_ghost: (AGENTS[next_mover(0, use_ghost)], int(count_cycles(0, next_mover(0, use_ghost))))
                for use_ghost in (False, True)}
#: The turn rule after the team's half-turn: the side to move next, the cycles completed and the
#: agent to move next.
_AFTER_GHOST = (AGENTS[next_mover(Side.GHOST)], int(count_cycles(0, next_mover(Side.GHOST))), AGENT)


class MapBinding:
    """The part of :class:`~gridghost.envs.aec.GridGhostEnv` (the env inherits it) that binds the
    game's components to the map being played and seeds each episode's own streams; its other parts
    (:class:`~gridghost.envs.infos.InfoPublisher`, :class:`~gridghost.envs.rendering.EnvRendering`)
    are built on it. It declares the env's attributes that they read, once: the env's constructor,
    :meth:`_use_map` and the env's ``reset`` and ``step`` set them; the constructor sets
    ``_renderer`` and ``_overlay`` to ``None``, and a change of map drops both."""

    metadata: ClassVar[dict[str, Any]]
    _both_observe: ClassVar[bool]
    config: Any
    maps: Any
    render_mode: str | None
    use_ghost: bool
    show_belief: bool
    max_cycles: int | None
    _cycle_limit: float
    possible_agents: list[str]
    #: The ghosts' agent names, in turn order (none without the ghost).
    _ghost_names: tuple[str, ...]
    _ghost_indices: tuple[tuple[int, str], ...]
    state_space: Any
    np_random_seed: int | None
    # The current map and its components (see _use_map).
    layout: Layout
    sensors: tuple[Sensor, ...]
    kernel: Game
    board: Board
    belief_filter: BeliefFilter | None
    _encoder: Any
    _expert: dict[str, bytes]
    _sensor_keys: _SensorKeys
    _info_masks: tuple[np.ndarray, ...] | None
    _bound: dict[Layout, tuple[MapParts, _SensorKeys]]
    _renderer: Renderer | None
    _overlay: tuple[Any, Any, dict[str, Any]] | None
    _map_rng: np.random.Generator | None
    _filter_seeds: np.random.SeedSequence | None
    _sensor_rngs: tuple[np.random.Generator | None, ...] | None
    _sensor_draws: tuple[tuple[Sensor, str, np.random.Generator | None, frozenset[str] | None], ...]
    _team_size: int
    _agent_step: Callable[[Any, int, np.random.Generator], tuple[Any, tuple[int, ...]]]
    _ghost_step: Callable[[Any, Any], Any]
    # The episode's state (see the env's reset and step).
    _game: GameState | None
    _cycles: int
    _last_move: tuple[int, tuple[int, ...]] | None
    _ghost_action: int | tuple[int, ...] | None
    _readings: dict[str, Any]
    _estimate: dict[str, list[Any]] | None
    infos: dict[str, dict[str, Any]]
    _build_pending_infos: Any

    def _use_map(self, layout: Layout) -> None:
        """Play ``layout`` from now on: bind the sensors, the kernel, the belief filter, the
        observation encoder and the expert to it (built once per map, kept for the last few)."""
        parts, self._sensor_keys = recent_map(self._bound, layout, lambda: self._build_map(layout))
        self._build_pending_infos()  # on the map they describe
        if getattr(self, "layout", layout) != layout:  # another map: its picture, without the last one's overlay
            self._overlay = None
            if self._renderer is not None:
                self._renderer.close()
                self._renderer = None
        self.layout = layout
        self.kernel, self.sensors, self.belief_filter, self._encoder, self._expert = parts
        self.board = self.kernel.board
        # Numeric infos hold the mask unless the observation does (TorchRL reads it from one place).
        self._info_masks = None if self.config.action_mask_in_obs else self.board.action_mask
        # the hot path's kernel methods, the rewards of each half-turn and every agent's observer
        kernel, names = self.kernel, self.possible_agents
        k = self._team_size = self.config.ghosts
        self._agent_step = kernel.agent_step
        # a team's moves reach the kernel checked (each ghost's action, and the turn order): its
        # unchecked half-turn; one ghost's checked half-turn is as fast
        self._ghost_step = kernel._team_moves if k > 1 else kernel.ghost_step
        self._ghost_names = tuple(names[1:])
        self._ghost_indices = tuple(enumerate(self._ghost_names))  # (index, name): the infos' loop over the ghosts
        # With the team's credit the rewards depend on the mover and the outcome alone: tabulated
        # by outcome, as {name: reward} and as the (name, reward) pairs to add to the totals
        # (the nonzero ones: adding 0.0 changes no total); with the catcher's (a team's), computed
        # per half-turn.
        shared: dict[Side, Any] = dict.fromkeys(Side)
        if getattr(kernel, "credit", "team") == "team":
            for mover in Side:
                tables = []
                for outcome in Outcome:
                    agent_reward, team_reward = kernel.rewards(mover, outcome)
                    rewards = dict(zip(names, (agent_reward, *(team_reward,) * k), strict=False))
                    tables.append((rewards, tuple((name, r) for name, r in rewards.items() if r != 0.0)))
                shared[mover] = tuple(tables)
        # after each side's half-turn: the side to move next, the cycles completed, the agent to
        # move next, the mover and its rewards (as above)
        next_side, counted = _AFTER_AGENT[self.config.use_ghost]
        self._after_agent = (next_side, counted, names[1] if next_side == GHOST else AGENT, AGENT, shared[Side.AGENT])
        self._after_ghost = (*_AFTER_GHOST, GHOST, shared[Side.GHOST])
        encoder = self._encoder
        self._observers = {name: encoder.observer(key) for name, key in zip(names, encoder.keys, strict=False)}

    def _spaces_of(self, encoder: Any) -> dict[str, Any]:
        """Every agent's observation space of ``encoder``, by agent name: the encoder keys its
        observers in the agents' turn order (the first alone without the ghost)."""
        return {name: encoder.space(key) for name, key in zip(self.possible_agents, encoder.keys, strict=False)}

    def _build_map(self, layout: Layout) -> tuple[MapParts, _SensorKeys]:
        """The components of the game on ``layout`` (see :meth:`_use_map`), with the sensors' info keys.

        Raises:
            RuntimeError: a later map gives other observation spaces than the first.
        """
        parts = build_map_parts(self.config, layout, clock=functools.partial(getattr, self, "cycles"),  # envs pickle
                                both_observe=self._both_observe)
        if parts.belief_filter is not None:
            parts.belief_filter.claim(self)
        # _SensorKeys, fixed here: the keys checked are the keys used.
        keys = tuple(
            (sensor, sensor.name, frozenset(sensor.info_keys) if type(sensor).read is not Sensor.read else None)
            for sensor in parts.sensors
        )
        spaces_ = getattr(self, "observation_spaces", None)  # None while the first map is built
        if spaces_ is not None and self._spaces_of(parts.encoder) != spaces_:
            raise RuntimeError(f"map {layout.name!r} gives other observation spaces than the env's first map; "
                               "every map of a generator must have the same size and labels")
        return parts, keys

    def _bind_episode(self, seed: int | None) -> None:
        """Seed an episode's own streams and draw its map: the sensors other than the
        reference's colour sensor, the belief filter and the map generator draw from generators
        of their own, spawned from the reset ``seed`` (or the drawn one, so that
        ``reset(seed=np_random_seed)`` replays them too), so they never shift the game's draws.
        A new seed (or the first reset) makes them afresh; ``None`` continues them."""
        root = seed if seed is not None else self.np_random_seed
        fresh = seed is not None or self._sensor_rngs is None
        if fresh:
            children = np.random.SeedSequence(root).spawn(len(self._sensor_keys))
            self._sensor_rngs = tuple(
                None if sensor.uses_game_rng else np.random.default_rng(child)
                for (sensor, _, _), child in zip(self._sensor_keys, children, strict=True)
            )
            if self.maps is not None:
                self._map_rng = np.random.default_rng(np.random.SeedSequence(root, spawn_key=(MAP_STREAM,)))
                self._filter_seeds = np.random.SeedSequence(root, spawn_key=(FILTER_STREAM,))
        if self.maps is not None:
            self.level = self.maps.draw(self._map_rng)
            self._use_map(self.maps.level(self.level))
        if fresh or self.maps is not None:
            self._sensor_draws = tuple(
                (sensor, name, own, declared)
                for (sensor, name, declared), own in zip(self._sensor_keys, self._sensor_rngs, strict=True)  # type: ignore[arg-type]
            )
        belief_filter = self.belief_filter
        if belief_filter is not None:
            if self.maps is not None:  # each map has a filter of its own: one seed per episode
                belief_filter.reset(self._filter_seeds.spawn(1)[0])  # type: ignore[union-attr]
            elif fresh:
                belief_filter.reset(np.random.SeedSequence(root, spawn_key=(FILTER_STREAM,)))
            else:
                belief_filter.reset()

    def _read_sensors(self, game: GameState, rng: np.random.Generator, info: dict[str, Any]) -> dict[str, Any]:
        """Write every sensor's reading of the agent's cell into ``info`` (and return it)."""
        for sensor, name, own, declared in self._sensor_draws:
            if declared is None:
                info[name] = sensor.measure(game, own or rng)
                continue
            reading = sensor.read(game, own or rng)
            if reading.keys() != declared:
                # Checked at construction (a dry-run reading included), so this is a sensor whose
                # keys changed since: it could overwrite what a view writes.
                raise RuntimeError(
                    f"sensor {sensor!r} read() reported {sorted(reading)}, but declares info_keys {sorted(declared)}"
                )
            info.update(reading)
        return info
