"""Teams in the AEC env: one agent against ``k >= 2`` ghosts that move together.

:class:`TeamPlay` is the part of the team envs (:class:`~gridghost.envs.team_aec.TeamGridGhostEnv`,
:class:`~gridghost.envs.team_aec.CheckedTeamGridGhostEnv` and the parallel view's) that differs from
the one-ghost env; everything else (the map binding, the infos' machinery, rendering, seeding,
dead steps) is :class:`~gridghost.envs.aec.GridGhostEnv`'s. The env classes choose it at
construction: ``gridghost.env(ghosts=2)`` returns a team env, ``ghosts=1`` (the default) the
one-ghost env, whose hot path knows nothing of teams. The rules are
:class:`~gridghost.core.game.Game`'s.

Agents
    ``["agent", "ghost_0", ..., "ghost_{k-1}"]``, in turn order, every one ``Discrete(4)``.

Turns (PettingZoo's simultaneous moves inside an AEC env)
    The agent moves (with slip); then ``ghost_0``, ..., ``ghost_{k-1}`` each choose a move in
    turn. A ghost's choice is held until the last ghost has chosen: then the team's moves take
    effect together. Nothing changes while the choices are held, so every ghost observes the
    state before the team's move, and none sees a teammate's choice of this turn. A held
    ghost's step rewards nobody (every reward of that step is 0). ``max_cycles`` counts cycles:
    the agent's move and the team's.

Rewards
    The agent's as in the one-ghost game; every ghost gets the team's reward
    (:meth:`~gridghost.core.game.Game.ghost_rewards_of`: with ``ghost_credit="catcher"`` a
    capture pays only the ghosts on the agent's cell).

Observations
    Every encoding, extended to the team (:class:`~gridghost.sensing.team_encoders.TeamObservations`),
    one space per agent name.

Infos
    The numeric infos of the one-ghost env, the same keys for every agent, with ``to_move`` and
    ``mover`` 1 for the team; ``distance``: a ghost's own shortest path to the agent, the
    agent's to its nearest ghost; ``action_mask``: the info's own agent's mask. Two keys follow
    the one-ghost keys: ``ghost_distances`` (``int64[k]``, each ghost's shortest path to the
    agent) and ``catchers`` (``int8[k]``, 1 for each ghost on the agent's cell once it is
    caught). The reference's infos (``reference_infos=True``) and ``expert`` serve one ghost
    and are refused.

State
    ``int8`` ``rows x cols x (k + 3)``: the agent's cell, each ghost's cell (one channel per ghost,
    in order), the goals, all ones when the team moves next (the one-ghost layout, for ``k = 1``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from gridghost.config.settings import GameSpec, resolve
from gridghost.core.checks import check_action, check_ghosts
from gridghost.core.episode import count_cycles, next_mover
from gridghost.core.names import ACTION_NAMES, AGENT, GHOST, NUM_ACTIONS, ghost_names
from gridghost.core.rules import GameState, Outcome, Side
from gridghost.envs.binding import BEFORE_RESET, EPISODE_OVER

_ONGOING, _CAUGHT = Outcome.ONGOING, Outcome.CAUGHT
#: The cycles a team's half-turn completes, by the episode's rule (a cycle: the agent's move, the team's).
_TEAM_CYCLE = int(count_cycles(0, next_mover(int(Side.GHOST))))
#: How many states' info entries a team env keeps (see TeamPlay._team_entries).
_ENTRIES_KEPT = 4096
#: Settings that serve one ghost only, with what the refusal says.
_ONE_GHOST_SETTINGS = {
    "reference_infos": "the reference's infos describe one ghost; teams publish numeric infos (leave it False)",
    "expert": "the expert's tables are the one-ghost solver's; the team solver's expert is not wired yet "
              "(leave it None)",
}


def _frozen(array: np.ndarray) -> np.ndarray:
    """``array``, made read-only (infos after a half-turn share it)."""
    array.setflags(write=False)
    return array


def requested_ghosts(spec: Any, settings: Mapping[str, Any]) -> int:
    """The team size an env's arguments ask for (``ghosts=``, in ``spec`` or ``config``), without
    resolving them, read by the setting's own check (so a NumPy integer counts as
    :func:`~gridghost.config.settings.resolve` counts it); 1 when they do not say or say something
    ``resolve`` will refuse (it then names the argument)."""
    for source in (settings, spec, settings.get("config")):
        if isinstance(source, GameSpec):
            return source.ghosts
        if isinstance(source, Mapping) and "ghosts" in source:
            try:
                return check_ghosts(source["ghosts"])
            except (TypeError, ValueError):
                return 1
    return 1


#: The team variant of each env class (registered by the modules defining them; the AEC env's in
#: :mod:`gridghost.envs.team_aec`, imported on first need).
_TEAM_CLASSES: dict[type, type] = {}


def register_team_class(cls: type, team: type) -> None:
    """Make ``cls(ghosts=k)`` (``k >= 2``) build ``team``, a subclass of ``cls`` with :class:`TeamPlay` first.

    Raises:
        TypeError: ``team`` is not such a subclass.
    """
    if not (isinstance(team, type) and issubclass(team, cls) and team.__mro__[1] is TeamPlay):
        raise TypeError(f"team must be a subclass of {cls.__name__} with TeamPlay first, got {team!r}")
    _TEAM_CLASSES[cls] = team


def team_class(cls: type, spec: Any, settings: Mapping[str, Any]) -> type:
    """The class an env class's constructor builds for its arguments: ``cls`` itself for one ghost
    (or when it is a team's class already), else its team variant.

    Raises:
        ValueError: ``ghosts >= 2`` for a class without a team variant.
    """
    ghosts = requested_ghosts(spec, settings)
    if ghosts == 1 or issubclass(cls, TeamPlay):
        return cls
    if cls not in _TEAM_CLASSES:
        import gridghost.envs.team_aec  # noqa: F401 - registers the AEC env's (it imports the AEC env)
    team = _TEAM_CLASSES.get(cls)
    if team is None:
        raise ValueError(f"{cls.__name__} serves one ghost; ghosts={ghosts} plays on "
                         f"{', '.join(sorted(team.__name__ for team in _TEAM_CLASSES.values()))}")
    return team


def plays_team(controlled: Any, game: Mapping[str, Any]) -> bool:
    """Whether :class:`~gridghost.envs.single_agent.GridGhostGymEnv`'s arguments ask for the team
    view: ``controlled="ghosts"`` or ``ghosts >= 2`` (in the settings, ``spec`` or ``config``; or
    all of them in one mapping)."""
    if isinstance(controlled, Mapping):
        game = dict(controlled)
        controlled = game.pop("controlled", AGENT)
    return controlled == "ghosts" or requested_ghosts(game.get("spec"), game) > 1


class TeamPlay:
    """The team's part of an AEC env (a mix-in before :class:`~gridghost.envs.aec.GridGhostEnv`;
    see the module docstring).

    Args:
        render_mode, spec, **settings: as :class:`~gridghost.envs.aec.GridGhostEnv`, with
            ``ghosts >= 2``.

    Raises:
        TypeError, ValueError: as :class:`~gridghost.envs.aec.GridGhostEnv`; ``reference_infos=True``
            or an ``expert``, which serve one ghost; a map with fewer ghost starts than ghosts.
    """

    def __init__(self, render_mode: str | None = None, spec: GameSpec | Mapping[str, Any] | None = None,
                 **settings: Any) -> None:
        config = resolve(spec, **settings)
        for name, why in _ONE_GHOST_SETTINGS.items():
            if getattr(config, name) not in (None, False):
                raise ValueError(f"{name}={getattr(config, name)!r} with ghosts={config.ghosts}: {why}")
        self._held: list[int] = []  # the ghosts' choices of this turn, held until the last ghost's
        self._ghost_actions: tuple[int, ...] | None = None
        super().__init__(render_mode, spec=config)  # type: ignore[call-arg]
        layout = self.layout  # type: ignore[attr-defined]
        self.state_space = spaces.Box(0, 1, shape=(layout.rows, layout.cols, self.ghosts + 3), dtype=np.int8)

    # -- the hooks of GridGhostEnv and MapBinding -----------------------------------------------
    def _agent_names(self) -> list[str]:
        return [AGENT, *ghost_names(self.config.ghosts)]  # type: ignore[attr-defined]

    def _bind_kernel(self) -> None:
        self._entries: dict[tuple[Any, ...], Any] = {}  # the map's (see _team_entries)
        env: Any = self
        kernel, encoder, names = env.kernel, env._encoder, env.possible_agents
        # With the team's credit the rewards depend on the mover and the outcome alone: tabulated
        # as ((name, reward), ...) by [mover][outcome]; with the catcher's, computed per half-turn.
        self._shared_rewards = None if kernel.credit != "team" else tuple(
            tuple(tuple(zip(names, (kernel.rewards(mover, outcome)[0], *(kernel.rewards(mover, outcome)[1],)
                                    * kernel.ghosts), strict=True)) for outcome in Outcome)
            for mover in Side)
        env._agent_step, env._ghosts_step = kernel.agent_step, kernel.ghosts_step
        env._observers = {name: encoder.observer(name) for name in names}

    def _spaces_of(self, encoder: Any) -> dict[str, Any]:
        return {name: encoder.space(name) for name in self.possible_agents}  # type: ignore[attr-defined]

    # -- the team as the world sees it ----------------------------------------------------------
    @property
    def ghosts(self) -> int:
        """The team's size ``k``."""
        return self.config.ghosts  # type: ignore[attr-defined,no-any-return]

    @property
    def ghost_positions(self) -> tuple[tuple[int, int], ...]:
        """Every ghost's ``(row, col)``, in the ghosts' order."""
        board = self.board  # type: ignore[attr-defined]
        return tuple(board.position(cell) for cell in self.game_state.ghosts)  # type: ignore[attr-defined]

    @property
    def ghost_pos(self) -> tuple[int, int]:
        """Ghost 0's ``(row, col)`` (:attr:`ghost_positions` has every ghost's)."""
        return self.ghost_positions[0]

    @property
    def _drawn_ghost(self) -> Any:
        return self.ghost_positions

    def _shown_mover(self, turn: int) -> str:
        return "ghosts" if turn == Side.GHOST else AGENT

    def _shown_ghost_action(self) -> tuple[str | None, ...]:
        moves = self._ghost_actions
        if moves is None:  # before the team's first move: a dash per ghost
            return (None,) * self.ghosts  # type: ignore[attr-defined]
        return tuple(ACTION_NAMES[move] for move in moves)

    def state(self) -> np.ndarray:
        """The global state: ``int8`` ``rows x cols x (k + 3)`` (see the module docstring).

        Raises:
            RuntimeError: before the first ``reset``.
        """
        game = self.game_state  # type: ignore[attr-defined]
        board, k = self.board, self.ghosts  # type: ignore[attr-defined]
        grid = np.zeros(self.state_space.shape, dtype=np.int8)
        grid[(*board.position(game.agent), 0)] = 1
        for index, cell in enumerate(game.ghosts):
            grid[(*board.position(cell), index + 1)] = 1
        for goal in self.layout.goals:  # type: ignore[attr-defined]
            grid[(*goal, k + 1)] = 1
        grid[:, :, k + 2] = game.turn == Side.GHOST and game.outcome == _ONGOING
        return grid

    # -- the AEC API ----------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start an episode; as :meth:`gridghost.envs.aec.GridGhostEnv.reset`."""
        super().reset(seed=seed, options=options)  # type: ignore[misc]
        self._held = []
        self._ghost_actions = None

    def step(self, action: int | None) -> None:
        """Carry out the selected agent's move, or hold a ghost's choice until the last ghost's
        (``None`` for a terminated or truncated agent).

        Raises:
            TypeError, ValueError: the action is not an int in 0..3 (nothing changes).
            RuntimeError: before ``reset``, or after every agent has taken its dead step.
        """
        env: Any = self
        try:
            name = env.agent_selection
            dead = env.terminations[name] or env.truncations[name]
        except (AttributeError, KeyError):
            raise RuntimeError(BEFORE_RESET if env._game is None else EPISODE_OVER) from None
        if dead:
            env._was_dead_step(action)
            return
        if type(action) is not int or not 0 <= action < NUM_ACTIONS:
            action = check_action(action, name)
        game: GameState = env._game
        names = env.possible_agents
        cumulative = env._cumulative_rewards
        if name == AGENT:
            game = env._agent_half_turn(game, action)
            mover, next_turn = Side.AGENT, GHOST
            env.agent_selection = names[1]
        else:
            held = self._held
            held.append(action)
            if len(held) < len(names) - 1:  # the team moves once every ghost has chosen
                env.agent_selection = names[len(held) + 1]
                cumulative[name] = 0.0
                env.rewards = dict.fromkeys(names, 0.0)
                return
            game = env._ghosts_step(game, held)
            self._held, self._ghost_actions = [], tuple(held)
            env._cycles += _TEAM_CYCLE
            mover, next_turn = Side.GHOST, AGENT
            env.agent_selection = AGENT
        env._game = game
        if game.outcome != _ONGOING:
            env.terminations = dict.fromkeys(names, True)
        elif env._cycles >= env._cycle_limit:
            env.truncations = dict.fromkeys(names, True)
        shared = self._shared_rewards
        if shared is not None:  # the team's credit: every ghost's reward is the team's
            rewards = dict(shared[mover][game.outcome])
        else:
            rewards = dict(zip(names, (env.kernel.rewards(mover, game.outcome)[0],
                                       *env.kernel.ghost_rewards_of(mover, game)), strict=True))
        cumulative[name] = 0.0  # the mover has seen its reward in last()
        for other, reward in rewards.items():
            cumulative[other] += reward
        env.rewards = rewards
        env._publish(game, next_turn, GHOST if mover else AGENT)
        if env.render_mode == "human":
            env.render()

    def _agent_half_turn(self, game: GameState, action: int) -> GameState:
        """The agent's move (its slip drawn from the env's generator), then its sensors' readings
        and the belief filter's update, as the one-ghost env makes them."""
        env: Any = self
        rng = env._np_random
        game, moves = env._agent_step(game, action, rng)
        env._last_move = (action, moves)
        readings = env._readings = env._read_sensors(game, rng, {})
        belief_filter = env.belief_filter
        if belief_filter is not None:
            belief_filter.predict(action)
            belief_filter.update(readings)
            env._estimate = belief_filter.estimate()
        return game

    # -- infos ----------------------------------------------------------------------------------
    def _team_entries(self, game: GameState) -> tuple[tuple[int, ...], int, np.ndarray, np.ndarray]:
        """Each ghost's distance to the agent, the agent's to its nearest ghost, and the read-only
        ``ghost_distances`` and ``catchers`` of ``game``; kept per state (a bounded cache), as a
        loop that reads every info meets the same few states again and again."""
        key = (game.agent, game.ghosts, game.outcome == _CAUGHT)
        cache = self._entries
        entries = cache.get(key)
        if entries is None:
            row = self.board.distance[game.agent]  # type: ignore[attr-defined]
            distances = tuple(row[cell] for cell in game.ghosts)
            reachable = [distance for distance in distances if distance >= 0]
            caught = tuple(int(key[2] and cell == game.agent) for cell in game.ghosts)
            if len(cache) >= _ENTRIES_KEPT:
                cache.clear()
            # the arrays shared by every state with the same values (far fewer than the states)
            ghost_distances = cache.get(distances)
            if ghost_distances is None:
                ghost_distances = cache[distances] = _frozen(np.array(distances, dtype=np.int64))
            catchers = cache.get(("catchers", caught))
            if catchers is None:
                catchers = cache["catchers", caught] = _frozen(np.array(caught, dtype=np.int8))
            entries = cache[key] = (distances, min(reachable) if reachable else -1, ghost_distances, catchers)
        return entries  # type: ignore[no-any-return]

    def _numeric_infos(self, pending: tuple[Any, ...], side: str | None = None) -> dict[str, Any]:
        """The team's numeric infos (see the module docstring), from the one-ghost infos of the
        state with ghost 0 on the board; with ``side`` (``"agent"`` or a ghost's name) that
        agent's alone, its arrays copies of its own."""
        game = pending[0]
        one = (GameState(game.agent, game.ghosts[0], game.turn, game.outcome), *pending[1:])
        masks, names = self._info_masks, self.possible_agents  # type: ignore[attr-defined]
        distances, nearest, ghost_distances, catchers = self._team_entries(game)
        parent: Any = super()
        if side is not None:
            info = parent._numeric_infos(one, AGENT if side == AGENT else GHOST)
            if side == AGENT:
                info["distance"] = nearest
            else:
                index = names.index(side) - 1
                info["distance"] = distances[index]
                if masks is not None:
                    info["action_mask"] = masks[game.ghosts[index]].copy()
            info["ghost_distances"], info["catchers"] = ghost_distances.copy(), catchers.copy()
            return info  # type: ignore[no-any-return]
        both = parent._numeric_infos(one)
        fresh = pending[2] is None  # after a reset: every array a writable copy of its own
        infos = {AGENT: both[AGENT]}
        infos[AGENT]["distance"] = nearest
        ghost_info = both[GHOST]
        for index, name in enumerate(names[1:]):
            infos[name] = info = ghost_info.copy()
            info["distance"] = distances[index]
            if masks is not None:
                mask = masks[game.ghosts[index]]
                info["action_mask"] = mask.copy() if fresh else mask
        for info in infos.values():
            info["ghost_distances"] = ghost_distances.copy() if fresh else ghost_distances
            info["catchers"] = catchers.copy() if fresh else catchers
        return infos
