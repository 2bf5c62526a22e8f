"""The two-player game as a PettingZoo AEC environment.

| Import             | ``import gridghost; env = gridghost.env()``                       |
|--------------------|-------------------------------------------------------------------|
| Agents             | ``["agent", "ghost"]``, agent first; ``["agent"]`` if no ghost    |
| Teams              | ``ghosts=k``: ``["agent", "ghost_0", ...]`` (see Teams below)     |
| Actions            | Discrete(4): 0 left, 1 down, 2 right, 3 up (both sides)           |
| Observations       | ``"dict"``: each side's reference dict; ``"vector"``: float32 Box;|
|                    | ``"belief"``: the agent's dict plus its belief filter's map;      |
|                    | ``"belief_vector"``: the vector plus a belief map; ``"grid"``:    |
|                    | float32 planes ``C x rows x cols`` (or an egocentric window);     |
|                    | ``"text"``: an English description (``Text``)                     |
| State              | int8 ``rows x cols x (k + 3)``: agent, each ghost, goals,         |
|                    | ghost-to-move (``rows x cols x 4`` for one ghost)                 |
| Parallel API       | :func:`gridghost.parallel_env`: the same turn-based game, both     |
|                    | sides observing at every half-turn (:mod:`gridghost.envs.parallel`)    |

The agent tries to reach a goal cell of a walled grid; the ghost chases it. The agent's moves
slip (see :mod:`gridghost.core.slip`); after each of its moves the agent's sensors read its cell (see
:mod:`gridghost.sensing.sensors`). The ghost never slips.

Observation space
    See :mod:`gridghost.sensing.observations` (channels, slots, the text). The vector and text
    encodings do not tell a side its own absolute position; the whole-map grid does. Every
    encoding but ``"dict"`` and ``"belief"`` gives both sides the same space object.
    ``action_mask_in_obs=True`` wraps it as ``{"observation": ..., "action_mask": int8[4]}``;
    ``append_step_count=True`` adds the cycles played over ``max_cycles``.

Action mask
    ``info["action_mask"]`` (``observation["action_mask"]`` instead, with
    ``action_mask_in_obs=True``), a read-only ``int8[4]`` indexed by action: 1 where a move
    changes the mover's cell. Bumping into a wall is legal (the mover stays), so every action is
    always allowed; a mask is never all zeros.

Rewards (the agent's, per half-turn; :class:`~gridghost.core.rules.Rewards` changes them)
    After the agent's move: -50 if it shares the ghost's cell (caught), +100 on a goal, else -1.
    After the ghost's move: -50 if it catches the agent, else 0. The ghost's rewards default to
    the negatives of the agent's (zero-sum); ``ghost_rewards`` sets others.

Episode end
    Caught or goal terminates both agents. After ``max_cycles`` cycles (one agent move plus one
    ghost move each; one agent move when ``use_ghost=False``) both are truncated. Either way
    each agent then takes one dead step (``step(None)``) in turn order: the side that would have
    moved next goes first.

Information
    Numeric (the default): every info, of both sides, after the reset and after every
    half-turn, holds the same keys, each a number, a bool or a fixed-shape array, as trainers
    that stack infos into arrays need (Tianshou's buffer, TorchRL's tensordicts, vector envs).
    Reference (``reference_infos=True``): the infos ``custom_grid_env`` wrote, with text values
    and keys that come and go, plus ``action_mask``. The Infos page lists every key and what
    it holds; :mod:`gridghost.envs.infos` writes them.

Arguments
    ``gridghost.env(render_mode=None, **settings)`` or ``gridghost.env(render_mode=None,
    spec=...)``: the game's settings as :class:`~gridghost.config.settings.GameSpec` declares them
    (the table on the configuration page); see :class:`GridGhostEnv`. ``env.config`` holds the
    resolved settings.

Rendering
    ``"human"`` (a window, drawn at every reset and half-turn, at most ``metadata["render_fps"]``
    frames per second), ``"rgb_array"`` or ``"ansi"`` (the text picture); see
    :meth:`~gridghost.envs.rendering.EnvRendering.render` and :mod:`gridghost.drawing`.

Teams (``ghosts=k``, ``k >= 2``; the rules are :class:`~gridghost.core.game.Game`'s)
    Agents ``["agent", "ghost_0", ..., "ghost_{k-1}"]``, in turn order. A ghost's choice is
    held until the last ghost has chosen, and the team's moves then take effect together: every
    ghost observes the state before the team's move, and a held ghost's step rewards nobody.
    The Teams page says what each view, encoding and info holds for a team.

Version history
    v0: initial release, reproducing ``custom_grid_env`` 0.7.x; ``obs_type="vector"``,
    ``max_cycles=None`` and ``use_ghost=False`` added with the single-agent views;
    ``belief_filter``, ``show_belief`` and ``obs_type="belief"`` with the belief filters;
    ``config`` and ``env.config`` with the game kernel; ``expert`` with the solver;
    ``obs_type`` ``"grid"`` (with its egocentric window), ``"belief_vector"`` and ``"text"``,
    ``action_mask_in_obs`` and ``append_step_count`` for learning libraries; ``layout`` as a
    name, text, dict, path or map generator, and ``difficulty``, with the maps; numeric infos
    by default (the reference's behind ``reference_infos=True``) and ``grid_layout``, for
    trainers that batch infos and read channels last; ``spec=`` (a
    :class:`~gridghost.config.settings.GameSpec`, ``config=`` still taken) with the settings'
    one declaration.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from typing import Any, ClassVar, TypeVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from gridghost.config.settings import GameSpec, resolve
from gridghost.core.checks import Unset, check_action, check_choice, check_seed
from gridghost.core.episode import cycle_limit
from gridghost.core.layout import Layout
from gridghost.core.names import AGENT, ghost_names
from gridghost.core.rules import NUM_ACTIONS, SIDE_OF, GameState, Outcome
from gridghost.drawing import RENDER_MODES
from gridghost.envs.binding import BEFORE_RESET, EPISODE_OVER, MapBinding
from gridghost.envs.infos import InfoPublisher
from gridghost.envs.rendering import EnvRendering
from gridghost.maps.levels import MapGenerator
from gridghost.sensing.filters import BeliefFilter, filter_spec


def _per_agent(table: dict[Any, Any], agent: object) -> Any:
    """``table[agent]``, or a ValueError that lists the agents."""
    try:
        return table[agent]
    except (KeyError, TypeError):
        raise ValueError(f"unknown agent {agent!r}; agents: {list(table)}") from None


class AgentSpaces:
    """Each agent's spaces by name, as PettingZoo's envs offer them (the AEC and parallel envs')."""

    observation_spaces: dict[str, spaces.Space[Any]]
    action_spaces: dict[str, spaces.Space[Any]]

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of ``agent``, one of the env's agents (the same object on every call).

        Raises:
            ValueError: ``agent`` is not one of the env's agents.
        """
        return _per_agent(self.observation_spaces, agent)

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The action space of ``agent``, ``Discrete(4)`` for every agent (the same object on every call).

        Raises:
            ValueError: ``agent`` is not one of the env's agents.
        """
        return _per_agent(self.action_spaces, agent)


_ONGOING = Outcome.ONGOING
#: Settings that serve one ghost only, with what their refusal for a team says.
_ONE_GHOST_SETTINGS = {
    "reference_infos": "the reference's infos describe one ghost; teams publish numeric infos (leave it False)",
    "expert": "the expert's tables are the one-ghost solver's; the team solver's expert is not wired yet "
              "(leave it None)",
}
#: Attributes that exist only once an episode has started.
_EPISODE_ATTRIBUTES = frozenset(
    {"agents", "rewards", "terminations", "truncations", "infos", "agent_selection", "_cumulative_rewards"}
)


def _before_reset(name: str, env: Any) -> Any:
    """The episode attribute ``name`` of an env that holds none: the pending numeric infos for
    ``infos`` (:meth:`~gridghost.envs.infos.InfoPublisher._built_infos`), else an
    ``AttributeError`` that says to reset first (the env's class attribute ``name`` calls this)."""
    if name == "infos" and type(env._pending_infos) is tuple:
        return env._built_infos()
    raise AttributeError(f"{name} does not exist before reset(); call reset() first")


class GridGhostEnv(InfoPublisher, EnvRendering, MapBinding, AgentSpaces, AECEnv):
    """The bare AEC environment: agent against ghost on a walled grid.

    Even bare, it validates actions (a rejected action raises and changes nothing) and raises a
    clear error when used before ``reset`` or after the episode's last dead step.
    :func:`gridghost.env` adds the remaining check of PettingZoo's ``OrderEnforcingWrapper``: a
    ``step`` between two agents yielded by ``agent_iter``.

    Args:
        render_mode: ``None``; ``"human"`` (a pygame window, redrawn at every reset and
            half-turn); ``"rgb_array"`` (``render()`` returns the picture as a
            ``height x width x 3`` ``uint8`` array); or ``"ansi"`` (``render()`` returns the text
            picture).
        spec: every setting at once: a :class:`~gridghost.config.settings.GameSpec` (an env's
            ``.config``) or its ``to_dict()`` form; ``config=`` is its old spelling.
        **settings: the settings one by one, as :class:`~gridghost.config.settings.GameSpec`
            declares them (``layout``, ``slip``, ``max_cycles``, ``obs_type``, ...; the reference
            keywords ``slip_probability``, ``slip_type``, ``color_sensor_quality`` and
            ``difficulty`` too), read and checked by :func:`~gridghost.config.settings.resolve`. What
            each does is said on the configuration page and below: ``layout`` may be a
            :class:`~gridghost.maps.levels.MapGenerator`, which draws a fresh map at every reset
            from a stream spawned from the reset seed (:attr:`layout` is then the current
            episode's map and :attr:`level` its level; sensors are bound to each map, and the
            belief filter must then be a name or spec dict). Sensors other than the reference's
            colour sensor, and the belief filter, draw from generators of their own spawned from
            the reset seed, so they never change the game. The belief filter is reset and
            updated with the reset readings on ``reset``, and predicts with the intended action
            and updates with the readings after every agent move (the agent's info then holds
            ``estimated_pos``); a filter object passed in must read the env's own sensor objects.
            ``expert`` solves the game when the env is built (and for every new map a generator
            draws). ``use_ghost=False`` leaves the ghost on its start cell: ``possible_agents`` is
            ``["agent"]`` and a cycle is one agent move.

    Raises:
        TypeError, ValueError: any argument outside what is accepted above.
    """

    #: Whether both sides observe at every half-turn (the parallel view's game): encodings then
    #: say whose turn it is (see :func:`~gridghost.sensing.observations.make_observations`).
    _both_observe: ClassVar[bool] = False

    metadata: ClassVar[dict[str, Any]] = {
        "name": "gridghost_v0",
        "render_modes": list(RENDER_MODES),
        "render_fps": 4,
        "is_parallelizable": False,
    }

    def __init__(self, render_mode: str | None = None, spec: GameSpec | Mapping[str, Any] | None = None,
                 **settings: Any) -> None:
        super().__init__()
        self.render_mode = check_choice(render_mode, "render_mode", RENDER_MODES, allow_none=True)
        #: Every setting of this game, resolved; ``gridghost.env(spec=env.config)`` (or its
        #: ``to_dict()``) builds the same game. Read and checked in one place, ``resolve``.
        self.config = config = resolve(spec, **settings)
        if config.ghosts > 1:
            for name, why in _ONE_GHOST_SETTINGS.items():
                if getattr(config, name) not in (None, False):
                    raise ValueError(f"{name}={getattr(config, name)!r} with ghosts={config.ghosts}: {why}")
        self.slip = config.slip
        #: The map generator drawing this env's map at every reset, or ``None`` for a fixed map.
        self.maps: MapGenerator | None = config.layout if isinstance(config.layout, MapGenerator) else None
        #: The level of the current episode's map (``None`` for a fixed map).
        self.level: int | None = None
        self.max_cycles = config.max_cycles
        self._cycle_limit = cycle_limit(self.max_cycles)
        self.use_ghost = config.use_ghost
        self.show_belief = config.show_belief
        self.expert = config.expert
        self.obs_type = config.obs_type
        self.reference_infos = config.reference_infos
        if self.reference_infos:  # chosen once: the hot path makes no test for it
            self._publish = self._publish_reference  # type: ignore[method-assign]
        self._bound = {}  # the components of the last few maps (see MapBinding)
        self._renderer = None  # created by the first pygame render
        self._overlay = None  # set_overlay's, kept through close()
        self.possible_agents = [AGENT, *ghost_names(config.ghosts)] if config.use_ghost else [AGENT]  # in turn order
        self._use_map(self.maps.level(self.maps.start_level) if self.maps is not None else config.layout)  # type: ignore[arg-type]
        self.agent_rewards, self.ghost_rewards = self.kernel.agent_rewards, self.kernel.ghost_rewards
        if isinstance(config.belief_filter, (dict, BeliefFilter)):  # as the first map's filter reads it
            self.config = dataclasses.replace(config, belief_filter=filter_spec(self.belief_filter, self.sensors))

        self.observation_spaces = self._spaces_of(self._encoder)
        self.action_spaces = {name: spaces.Discrete(NUM_ACTIONS) for name in self.possible_agents}
        self._no_rewards = dict.fromkeys(self.possible_agents, 0.0)  # a held ghost's step's rewards
        self.state_space = spaces.Box(0, 1, shape=(self.layout.rows, self.layout.cols, self.ghosts + 3), dtype=np.int8)
        self._np_random: np.random.Generator | None = None
        self.np_random_seed: int | None = None
        self._game: GameState | None = None
        # The generators the sensors other than the reference's colour sensor draw from (None for
        # the game's), set on the first reset; and, with a map generator, the map stream and the
        # seeds of each episode's belief filter.
        self._sensor_rngs = None
        self._sensor_draws = ()
        self._map_rng = None
        self._filter_seeds = None
        self._cycles = 0
        self._held: tuple[int, ...] = ()  # the ghosts' choices of this turn, held until the last ghost's
        self._stepped = True  # a step or reset since agent_iter last yielded (env()'s iterator checks it)
        self._ghost_action: int | tuple[int, ...] | None = None  # the ghosts' last moves, for the status panel
        # The agent's last (intended action, moves) and the readings and estimate after it.
        self._last_move: tuple[int, tuple[int, ...]] | None = None
        self._readings: dict[str, Any] = {}
        self._estimate: dict[str, list[Any]] | None = None

    @classmethod
    def from_config(cls, config: GameSpec | Mapping[str, Any], render_mode: str | None = None) -> GridGhostEnv:
        """The env of every game setting at once: a :class:`~gridghost.config.settings.GameSpec` (an
        env's ``.config``) or its ``to_dict()`` form; the same as ``cls(render_mode, spec=config)``.

        Raises:
            TypeError, ValueError: ``config`` is neither, or holds settings the env refuses.
        """
        return cls(render_mode=render_mode, spec=config)

    # -- seeding -----------------------------------------------------------------------------
    @property
    def np_random(self) -> np.random.Generator:
        """The env's generator (slip and sensor draws); created unseeded on first use."""
        if self._np_random is None:
            self._np_random, self.np_random_seed = seeding.np_random()
        return self._np_random

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        self._np_random = value

    # -- AEC API --------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start an episode.

        Args:
            seed: reseeds the env's generator when not ``None``
                (``gymnasium.utils.seeding.np_random(seed)``); ``None`` continues the stream.
            options: accepted for API compatibility; gridghost reads no options.

        Raises:
            TypeError: ``seed`` is not None or an int (Python or NumPy; bools are refused), or
                ``options`` is neither ``None`` nor a dict.
            ValueError: ``seed`` is negative.
        """
        seed = check_seed(seed)  # type: ignore[assignment]  # an int or None: no SeedSequence allowed here
        if options is not None and not isinstance(options, dict):
            raise TypeError(f"options must be a dict or None, got {options!r}")
        if seed is not None:
            self._np_random, self.np_random_seed = seeding.np_random(seed)
        rng = self.np_random  # drawn from fresh entropy on a first unseeded reset
        self._bind_episode(seed)
        belief_filter = self.belief_filter
        game = self.kernel.initial_state()
        self._game = game
        self._cycles = 0
        self._held = ()
        self._ghost_action = None
        names = self.possible_agents
        self.agents = list(names)
        self.rewards = dict.fromkeys(names, 0.0)
        self._cumulative_rewards = dict.fromkeys(names, 0.0)
        self.terminations = dict.fromkeys(names, False)
        self.truncations = dict.fromkeys(names, False)
        self.agent_selection = AGENT
        self._skip_agent_selection = None
        # The agent's last move and readings, which the infos keep through the ghost's half-turn.
        self._last_move = None
        self._readings = self._read_sensors(game, rng, {})
        if belief_filter is not None:
            belief_filter.update(self._readings)
            self._estimate = belief_filter.estimate()
        self._publish(game, AGENT, None)
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> Any:
        """A fresh observation of the current state from ``agent``'s point of view.

        Raises:
            ValueError: ``agent`` is unknown.
            RuntimeError: before the first ``reset``.
        """
        game = self._game
        observer = _per_agent(self._observers, agent)
        if game is None:
            raise RuntimeError(BEFORE_RESET)
        return observer(game)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Observation, accumulated reward, termination, truncation and info of the agent to move.

        Raises:
            RuntimeError: before the first ``reset``, or after every agent has taken its dead step.
        """
        game = self._game
        if game is None:
            raise RuntimeError(BEFORE_RESET)
        agent = self.agent_selection
        try:
            return (
                self._observers[agent](game) if observe else None,
                self._cumulative_rewards[agent],
                self.terminations[agent],
                self.truncations[agent],
                self.infos[agent],
            )
        except KeyError:
            raise RuntimeError(EPISODE_OVER) from None

    def step(self, action: int | None) -> None:
        """Carry out the selected agent's move (``None`` for a terminated or truncated agent).

        Raises:
            TypeError, ValueError: the action is not an int in 0..3 (nothing changes).
            RuntimeError: before ``reset``, or after every agent has taken its dead step.
        """
        try:
            agent = self.agent_selection
            dead = self.terminations[agent] or self.truncations[agent]
        except (AttributeError, KeyError):
            raise RuntimeError(BEFORE_RESET if self._game is None else EPISODE_OVER) from None
        if dead:
            self._was_dead_step(action)
            self._stepped = True
            return
        if type(action) is not int or not 0 <= action < NUM_ACTIONS:  # check_action's fast path, inline
            action = check_action(action, agent)
        game: GameState = self._game  # type: ignore[assignment]  # set, since agent_selection exists
        if agent == AGENT:
            rng: np.random.Generator = self._np_random  # type: ignore[assignment]  # set by reset
            game, moves = self._agent_step(game, action, rng)
            self._last_move = (action, moves)
            readings = self._readings = self._read_sensors(game, rng, {})
            belief_filter = self.belief_filter
            if belief_filter is not None:
                belief_filter.predict(action)
                belief_filter.update(readings)
                self._estimate = belief_filter.estimate()
            next_turn, counted, self.agent_selection, mover, shared = self._after_agent
        else:
            chosen: Any = action  # the kernel takes one ghost's move as an int, a team's as a tuple
            if self._team_size > 1:  # a choice is held until the last ghost's: nothing for one ghost
                chosen = (*self._held, action)
                if len(chosen) < self._team_size:  # nothing moves yet
                    self._held = chosen
                    self.agent_selection = self.possible_agents[len(chosen) + 1]
                    self._cumulative_rewards[agent] = 0.0
                    self.rewards = self._no_rewards.copy()
                    self._stepped = True
                    return
                self._held = ()
            game = self._ghost_step(game, chosen)
            self._ghost_action = chosen
            next_turn, counted, self.agent_selection, mover, shared = self._after_ghost
        if counted:
            self._cycles += counted
        self._game = game

        outcome = game.outcome
        if outcome != _ONGOING:
            self.terminations = dict.fromkeys(self.possible_agents, True)
        elif self._cycles >= self._cycle_limit:  # episode.truncated for a game that goes on, compiled
            self.truncations = dict.fromkeys(self.possible_agents, True)
        if shared is not None:  # the team's credit: every ghost's reward is the team's
            rewards, added = shared[outcome]
            rewards = rewards.copy()
        else:  # the catcher's credit (a team's): a capture pays the ghosts on the agent's cell
            kernel: Any = self.kernel
            rewards = dict(zip(self.possible_agents, (kernel.rewards(SIDE_OF[mover], outcome)[0],
                                                      *kernel.ghost_rewards_of(SIDE_OF[mover], game)), strict=True))
            added = rewards.items()
        cumulative = self._cumulative_rewards
        cumulative[agent] = 0.0  # the mover has seen its reward in last()
        for name, reward in added:
            cumulative[name] += reward
        self.rewards = rewards
        self._publish(game, next_turn, mover)
        self._stepped = True
        if self.render_mode == "human":
            self.render()


for _name in _EPISODE_ATTRIBUTES:
    setattr(GridGhostEnv, _name, Unset(functools.partial(_before_reset, _name)))
GridGhostEnvT = TypeVar("GridGhostEnvT", bound=GridGhostEnv)


class AECView:
    """What a view over the AEC game (its ``_aec``) reads from it: the Gymnasium and parallel envs'."""

    _aec: GridGhostEnv

    @property
    def config(self) -> GameSpec:
        """The game's settings (the AEC env's :attr:`GridGhostEnv.config`); the env's constructor
        with ``spec=`` this rebuilds it."""
        return self._aec.config

    @property
    def layout(self) -> Layout:
        """The current episode's map (a map generator draws one at every reset)."""
        return self._aec.layout

    @property
    def level(self) -> int | None:
        """The level of the current episode's map when a generator draws the maps, else ``None``."""
        return self._aec.level

    def render(self) -> Any:
        """What the AEC env's ``render()`` gives in this ``render_mode``."""
        return self._aec.render()

    def close(self) -> None:
        """Release rendering resources (the game's window, if any); safe to call more than once."""
        self._aec.close()


class _CheckedIterator:
    """Agent iterator that insists on a ``step`` (or ``reset``) between two agents."""

    def __init__(self, env: CheckedGridGhostEnv, max_iter: int) -> None:
        self.env = env
        self.remaining = max_iter

    def __iter__(self) -> _CheckedIterator:
        return self

    def __next__(self) -> str:
        env = self.env
        if not env.agents or self.remaining <= 0:
            raise StopIteration
        if not env._stepped:
            raise RuntimeError("call step() (or reset()) once for every agent that agent_iter yields")
        env._stepped = False
        self.remaining -= 1
        return env.agent_selection


class CheckedGridGhostEnv(GridGhostEnv):
    """What :func:`gridghost.env` returns: :class:`GridGhostEnv` plus the agent-iteration check.

    PettingZoo's ``OrderEnforcingWrapper`` and ``AssertOutOfBoundsWrapper`` forward every
    attribute through ``__getattr__`` and cost more per half-turn than the whole game (see
    ``benchmarks/aec_throughput.py``), so the same checks live in the class: actions are
    validated and using the env before ``reset`` raises (both in :class:`GridGhostEnv`), and
    ``agent_iter`` raises when an agent is yielded twice without a ``step`` in between
    (:meth:`GridGhostEnv.step` marks each step that succeeded: no second call per half-turn).
    """

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """As :meth:`GridGhostEnv.reset`."""
        super().reset(seed=seed, options=options)
        self._stepped = True

    def agent_iter(self, max_iter: int = 2**63) -> _CheckedIterator:
        """Yield the agent to move until the episode ends or ``max_iter`` agents were yielded.

        Raises:
            RuntimeError: before ``reset``.
        """
        self.game_state  # noqa: B018 - raises before reset
        return _CheckedIterator(self, max_iter)


def make_game(cls: type[GridGhostEnvT], **kwargs: Any) -> GridGhostEnvT:
    """Build ``cls`` from the keywords of :class:`GridGhostEnv` (``spec=``, its old spelling
    ``config=``, or the settings one by one, as :func:`~gridghost.config.settings.resolve` reads
    them).

    Raises:
        TypeError, ValueError: as :class:`GridGhostEnv`.
    """
    return cls(**kwargs)


def raw_env(**kwargs: Any) -> GridGhostEnv:
    """The bare AEC env; keyword arguments as :class:`GridGhostEnv`, or ``config=`` (see
    :func:`make_game`)."""
    return make_game(GridGhostEnv, **kwargs)


def env(**kwargs: Any) -> CheckedGridGhostEnv:
    """The AEC env with call-order checks; keyword arguments as :class:`GridGhostEnv`, or
    ``config=`` (see :func:`make_game`)."""
    return make_game(CheckedGridGhostEnv, **kwargs)
