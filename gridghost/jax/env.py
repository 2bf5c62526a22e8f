"""gridghost as pure JAX functions: ``reset(key, params)`` and ``step(key, state, actions, params)``.

| Import        | ``from gridghost.jax import GridGhostJax, GridGhostJaxSingle``                      |
| Both sides    | :class:`GridGhostJax`: JaxMARL's ``MultiAgentEnv`` style (a dict per side,          |
|               | ``get_avail_actions``), one half-turn a step, ``params`` as gymnax passes them      |
| One side      | :class:`GridGhostJaxSingle`: gymnax's API, against a built-in (table) opponent      |
| Observations  | ``"vector"`` or ``"grid"`` (egocentric or not, either layout), ``float32``, as the  |
|               | single envs encode them                                                             |
| Auto-reset    | same step (gymnax, JaxMARL): ``step`` returns the next episode's first observation  |
|               | where a game ended (both sides: at the end of its turn); ``step_env`` never resets  |
| Batches       | ``batch_reset``/``batch_step``: N games from one key (the fast path), or            |
|               | ``jax.vmap`` of the per-game functions over keys and states; ``jax.jit`` anything   |
| Teams         | ``ghosts=k >= 2``: the state holds the cells, each step computes its half-turn with |
|               | the kernel's rules (:mod:`gridghost.jax.positions`); one ghost plays the tables below    |

The functions play the tables of the NumPy batched engine (:class:`gridghost.batched.BatchedGame`,
built once with the same settings and exported by its ``export_tables``): nothing of the game
is written here, so both engines follow one set of rules. A step is a few gathers, one uniform
for the slip, one for a random opponent. With no slip, one map and a table opponent the games
are exactly the NumPy engine's, step for step; otherwise their draws differ (JAX's counter-based
keys, not NumPy's stream) and their distributions agree (``tests/test_jax.py``).

The per-game functions (``reset``, ``step``, ...) take one game's :class:`EnvState` and a key,
as JaxMARL's and gymnax's envs do: batch them with ``jax.vmap`` over keys and states (``params``
stays shared). Their ``batch_*`` twins take a batch of states and one key for the whole batch,
whose uniforms come from :func:`gridghost.jax.draws.batch_uniforms` (on a CPU, deriving a key per
game costs more than the step itself). Compile either with ``jax.jit``; a rollout is a
``jax.lax.scan``. The same code runs on CPU, GPU and TPU (``pip install "jax[cuda12]"`` for
NVIDIA GPUs).

Every call checks what it is given before play, and refuses what this view cannot play with a
``TypeError`` or ``ValueError``: shapes and dtypes always (they are static, under ``jit`` and
``vmap`` too), values where they are concrete (outside ``jit``, or constants a jitted function
closes over). Under ``jit`` these traced values cannot be checked, and are the caller's to keep
right (JAX clamps an index out of range, so a wrong one plays a neighbouring table row):

- actions in 0..3;
- a state's values: a joint state of this view's maps, and ``to_move`` for ``step_agent`` and
  ``step_ghost`` (``step`` and ``step_env`` follow it);
- ``params.levels`` naming this view's maps, ``params.explore_starts`` in [0, 1], and the
  tables being this view's where another view's have the same shapes.

The settings are checked when a view is built. Each view keeps its NumPy engine
(:attr:`engine`), so its tables take host memory besides the device copy.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

import jax
import jax.numpy as jnp

from gridghost.batched import BatchedGame, UnsupportedSetting
from gridghost.config.declaration import declared
from gridghost.config.settings import GameSpec, engine_spec
from gridghost.core import episode
from gridghost.core.layout import Layout
from gridghost.core.names import AGENT, AGENTS, GHOST
from gridghost.core.rules import NUM_ACTIONS
from gridghost.jax.checks import EnvState
from gridghost.jax.draws import _count, batch_uniforms
from gridghost.jax.observe import BothSidesObservations, Observing, OneSideObservations
from gridghost.jax.positions import TEAM, TeamBothSides, TeamOneSide, asks_for_team
from gridghost.jax.tables import EnvParams, device_tables

#: The encodings the JAX engine serves.
JAX_OBS_TYPES: tuple[str, ...] = tuple(declared(GameSpec)["obs_type"][1].served["jax"])
#: The NumPy engine's own options a JAX view passes on to it.
_ENGINE_OPTIONS = ("opponent", "max_episode_steps", "table_bytes")

#: What both sides' steps return: ``(observations, state, rewards, dones, infos)``, per side.
MultiStep = tuple[dict[str, Any], EnvState, dict[str, Any], dict[str, Any], dict[str, Any]]
#: What one side's steps return: ``(observation, state, reward, done, info)``.
SingleStep = tuple[Any, EnvState, Any, Any, dict[str, Any]]


class _Engine(Observing):
    """What both views share: the tables, the draws and the observations of one game."""

    #: The uniforms at the end of every reset's draws that come from a key of their own.
    _appended_draws: int = 0

    def __init__(self, controlled: str | None, explore_starts: float, spec: GameSpec | Mapping[str, Any] | None,
                 options: dict[str, Any]) -> None:
        # the NumPy engine's own options that this engine does not take (the settings it does not
        # serve are declared with each setting: GameSpec's ``served``)
        reasons = {"autoreset_mode": "it resets in the step a game ends (step_env keeps the final state)",
                   "seed": "its randomness comes from the keys reset and step take"}
        for key, reason in reasons.items():
            if key in options:
                raise UnsupportedSetting(f"the JAX engine does not take {key}: {reason}")
        if not isinstance(explore_starts, numbers.Real) or isinstance(explore_starts, bool) or \
                not 0.0 <= explore_starts <= 1.0:
            raise ValueError(f"explore_starts must be a probability in [0, 1], got {explore_starts!r}")
        if explore_starts and controlled == GHOST:
            raise ValueError("explore_starts places games with the agent to move; a learning ghost alone begins "
                             "after the agent's opening move (use GridGhostJax or controlled='agent')")
        engine_options = {key: options.pop(key) for key in _ENGINE_OPTIONS if key in options}
        #: The game's settings, read and resolved as every view's are.
        self.spec: GameSpec = engine_spec("jax", spec, options, UnsupportedSetting)
        params = self._build(controlled, engine_options)
        self.layouts: tuple[Layout, ...] = self.engine.layouts
        #: The tables and settings ``reset`` and ``step`` use when given no ``params``.
        self.default_params = params._replace(explore_starts=jnp.float32(explore_starts))
        # the tables known to be this view's: its own, and those of the last params found equal to them
        self._trusted = self._tables(self.default_params)
        # (position among the tables, id): a trusted array is trusted only where it was checked
        self._trusted_ids = set(enumerate(map(id, self._trusted)))
        self._flagged = dict(self.layout.flagged)
        self._grid = dict(self.layout.grid)
        # which uniform of a draw serves what: a reset's (the level with several maps; whether to
        # explore and where, or for a learning ghost the opening move's action with a random agent
        # and its slip) and a one-side turn's (the slip, the random opponent's action)
        reset, turn = self._draws(controlled)
        names = (["level"] if self.layout.num_maps > 1 else []) + reset
        self._reset_slots: dict[str, int] = {name: i for i, name in enumerate(names)}
        #: Uniforms a reset takes.
        self.reset_draws: int = len(names)
        self._turn_slots: dict[str, int] = {name: i for i, name in enumerate(turn)}
        #: Uniforms a one-side turn takes before its reset's.
        self.turn_draws: int = len(turn)

    def _build(self, controlled: str | None, options: dict[str, Any]) -> EnvParams:
        """The NumPy engine of one game and its tables on the device (sets :attr:`engine`,
        :attr:`layout` and the sides' spaces; returns the params)."""
        #: The NumPy engine whose tables these functions play (one game).
        self.engine = BatchedGame(1, controlled=controlled, spec=self.spec, **options)
        self._spaces = dict.fromkeys(AGENTS, self.engine.observation_space)
        self.layout, params = device_tables(self.engine.export_tables())
        return params

    # -- the draws -----------------------------------------------------------------------------
    # Every call draws its uniforms at once (one counter-based draw, not a split per use: on CPU
    # the key derivations would cost more than the step), only those the settings use; an
    # integer in 0..n-1 is floor(u * n).
    def _draws(self, controlled: str | None) -> tuple[list[str], list[str]]:
        """The names of a reset's uniforms after the level's, and of a one-side turn's."""
        layout = self.layout
        if controlled != GHOST:
            reset = ["explore", "start"]
        else:
            reset = (["opening"] if layout.b > 1 else []) + (["opening_slip"] if layout.k > 1 else [])
        return reset, (["slip"] if layout.k > 1 else []) + (["opponent"] if layout.b > 1 else [])

    def _slip(self, uniform: Any, action: Any, params: EnvParams) -> Any:
        """The slip outcome of a move: how many of its running probabilities ``uniform`` reaches."""
        if self.layout.k == 1:
            return jnp.int32(0)
        return episode.slip_outcome(uniform, params.bounds, action, xp=jnp).astype(jnp.int32)

    @staticmethod
    def _below(uniform: Any, n: Any) -> Any:
        """An int in 0..n-1 from a uniform in [0, 1)."""
        return jnp.minimum((uniform * n).astype(jnp.int32), n - 1)

    def _first_state(self, uniforms: Any, params: EnvParams, m: Any) -> tuple[Any, ...]:
        """A new episode's :class:`EnvState` fields before ``steps``, from :attr:`reset_draws`
        uniforms on map ``m``: its start (or, with probability ``explore_starts``, a uniform
        start); for a learning ghost after the agent's opening move."""
        layout, slot = self.layout, self._reset_slots
        state = params.start[m]
        if layout.controlled != GHOST:
            where = self._below(uniforms[slot["start"]], params.start_counts[m])
            state = jnp.where(uniforms[slot["explore"]] < params.explore_starts,
                              params.starts[m, where] + m * layout.states, state)
        else:  # the opening move: [map, agent action, slip] (the slip is the same for every action)
            opponent = self._below(uniforms[slot["opening"]], layout.b) if "opening" in slot else 0
            slip = self._slip(uniforms[slot["opening_slip"]], 0, params) if "opening_slip" in slot else 0
            state = params.opening[(m * layout.b + opponent) * layout.k + slip]
        return (state.astype(jnp.int32),)

    def _truncated(self, steps: Any, terminated: Any) -> Any:
        """The step limits as the NumPy engine applies them: ``TimeLimit``'s whatever the
        outcome, the game's own only where it goes on."""
        return episode.truncated(steps, terminated, self.layout.max_cycles, self.layout.max_episode_steps)

    def _one(self, core: Any, draws: int, key: Any, state: EnvState, action: Any, params: EnvParams | None,
             half: int | None = None) -> Any:
        """``core(uniforms, state, action, params)`` for one game, its uniforms from ``key``."""
        state, params = self._checked(state, action, params, False, half)
        return core(jax.random.uniform(key, (draws,)), state, action, params)

    def _batch_uniforms(self, key: Any, games: int, draws: int) -> Any:
        """Every game's ``draws`` uniforms from one key, ``float32[games, draws]``; where they end
        with a reset's, its last :attr:`_appended_draws` from a key of their own, so that the
        others are those of a view without them (a learning team's exploring starts leave its
        other draws as they were)."""
        appended = self._appended_draws if draws >= self.reset_draws else 0  # only where a reset's draws end
        if not appended:
            return batch_uniforms(key, (games, draws))
        own = batch_uniforms(key, (games, draws - appended))
        return jnp.concatenate((own, batch_uniforms(jax.random.fold_in(key, 1), (games, appended))), axis=1)

    def _many(self, core: Any, draws: int, key: Any, states: EnvState, actions: Any, params: EnvParams | None,
              half: int | None = None) -> Any:
        """``core`` over a batch of games, every game's uniforms from the one ``key``."""
        states, params = self._checked(states, actions, params, True, half)
        uniforms = self._batch_uniforms(key, states.steps.shape[0], draws)
        return jax.vmap(core, in_axes=(0, 0, 0, None))(uniforms, states, actions, params)

    def batch_reset(self, key: Any, num_games: int, params: EnvParams | None = None) -> tuple[Any, EnvState]:
        """``num_games`` new games from one key (the batched twin of ``reset``).

        Returns:
            As ``reset``, each leaf with a leading axis of ``num_games``.

        Raises:
            ValueError: ``num_games`` is not an int >= 1.
            TypeError, ValueError: ``params`` as :meth:`reset`.
        """
        num_games = _count(num_games, "num_games")
        params = self._params(params)
        uniforms = self._batch_uniforms(key, num_games, self.reset_draws)
        return jax.vmap(self._reset_core, in_axes=(0, None))(uniforms, params)

    def reset(self, key: Any, params: EnvParams | None = None) -> tuple[Any, EnvState]:
        """A new game, with the agent to move (a learning ghost alone: after the agent's opening
        move).

        Args:
            key: a PRNG key.
            params: the tables and settings (default: ``default_params``).

        Returns:
            ``(observation, state)``: the view's observation (:class:`GridGhostJax`: per side;
            :class:`GridGhostJaxSingle`: the learner's) and the :class:`EnvState`.

        Raises:
            TypeError, ValueError: ``params`` not this view's tables (another view's, other map
                sizes), ``levels`` not a non-empty int array of its maps, ``explore_starts`` not a
                scalar in [0, 1] (0 for a learning ghost alone); values only where concrete.
        """
        params = self._params(params)
        return self._reset_core(jax.random.uniform(key, (self.reset_draws,)), params)

    def _reset_core(self, uniforms: Any, params: EnvParams) -> tuple[Any, Any]:
        """A new game from :attr:`reset_draws` uniforms on a level drawn from ``params.levels``:
        its first observation and state (:attr:`_state_type`)."""
        slot = self._reset_slots
        m = params.levels[self._below(uniforms[slot["level"]], params.levels.shape[0]) if "level" in slot else 0]
        env = self._new_state(uniforms, params, m)
        return self._first_observation(env, params), env

    def _new_state(self, uniforms: Any, params: EnvParams, m: Any) -> Any:
        """A new episode's state on map ``m`` (:attr:`_state_type`), from :attr:`reset_draws` uniforms."""
        (state,) = self._first_state(uniforms, params, m)
        return EnvState(state, jnp.int32(0), jnp.int32(0), jnp.zeros((), dtype=bool))

    def _first_observation(self, env: EnvState, params: EnvParams) -> Any:
        raise NotImplementedError("each view (GridGhostJax, GridGhostJaxSingle) observes in its own form")


class GridGhostJax(_Engine, BothSidesObservations):
    """Both sides learn: JaxMARL's ``MultiAgentEnv`` API over pure functions, one half-turn a
    step, as PettingZoo's AEC env and the NumPy engine's ``controlled=None`` play it.

    ``step`` takes a dict of both sides' actions and plays the one of the side to move
    (``state.to_move``; the other's is ignored): the ghost sees the agent's move before choosing
    its own. Rewards come per side for that half-turn. A game that ends in the agent's half waits
    for the ghost's (which ignores its action, pays nothing and reports the game done again) and
    resets at the end of the turn, as the NumPy engine's ``"same_step"`` mode does: a learner
    reads ``infos["to_move"]`` to tell whose transition a step was, and trains the ghost on no
    move of a game that ended before it (:func:`gridghost.jax.ppo.make_selfplay` does so).
    Unlike JaxMARL's ``step(key, state, actions, reset_state)``, the fourth argument is
    ``params`` (the tables), as gymnax passes it. With ``ghosts=k >= 2`` the sides are
    ``"agent"`` and ``"ghosts"`` (the team's actions ``int[k]``, rewards ``float[k]``,
    observations ``[k, D]``, masks ``bool[k, 4]``) and the state a
    :class:`~gridghost.jax.positions.TeamEnvState` (:mod:`gridghost.jax.positions`).

    Args:
        explore_starts: the probability that a reset starts from a uniformly drawn state of the
            level drawn (the two apart, the agent not on one of its goals) instead of its start:
            exploring starts.
        spec, **settings: the game's settings as :class:`gridghost.batched.BatchedGame` takes them
            (``layout`` may be a ``MapGenerator`` with ``num_levels`` for many levels), with its
            defaults (``obs_type="vector"``; this engine serves ``"vector"`` and ``"grid"``), and
            its ``max_episode_steps`` and ``table_bytes``. The settings this engine does not serve
            (a filter, sensors, ...) are declared with each setting
            (:class:`~gridghost.config.settings.GameSpec`) and refused.

    Attributes:
        agents: ``("agent", "ghost")``; num_agents: 2.
        default_params: the :class:`~gridghost.jax.EnvParams` used when none is passed.
        engine: the one-game NumPy engine the tables come from.

    Raises:
        TypeError, ValueError, UnsupportedSetting: a setting the NumPy engine refuses, another
            encoding, a filter, or an ``explore_starts`` outside [0, 1].
    """

    agents: tuple[str, ...] = AGENTS
    num_agents = 2

    def __new__(cls, *args: Any, **kwargs: Any) -> GridGhostJax:
        return super().__new__(_TeamGridGhostJax if cls is GridGhostJax and asks_for_team(kwargs) else cls)

    def __init__(self, *, explore_starts: float = 0.0, spec: GameSpec | Mapping[str, Any] | None = None,
                 **settings: Any) -> None:
        if "controlled" in settings or "opponent" in settings:
            raise TypeError("GridGhostJax has both sides learn; for one learner use GridGhostJaxSingle(controlled=..., "
                            "opponent=...)")
        super().__init__(None, explore_starts, spec, settings)

    def _first_observation(self, env: EnvState, params: EnvParams) -> dict[str, Any]:
        return self._observations(env, params)

    # -- the half-turns, from their uniforms ---------------------------------------------------
    def _agent_half(self, uniform: Any, state: EnvState, action: Any,
                    params: EnvParams) -> tuple[EnvState, dict[str, Any], Any, Any]:
        index = (state.state * NUM_ACTIONS + action) * self.layout.k + self._slip(uniform, action, params)
        turns = params.turns
        terminated = turns["agent_outcome"][index] != 0
        rewards = {AGENT: turns["agent_rewards"][0, index], GHOST: turns["agent_rewards"][1, index]}
        env = EnvState(turns["agent_next"][index], state.steps, jnp.int32(episode.next_mover(episode.AGENT_TO_MOVE)),
                       terminated)
        return env, rewards, terminated, jnp.zeros((), dtype=bool)

    def _ghost_half(self, state: EnvState, action: Any, params: EnvParams) -> tuple[EnvState, dict[str, Any], Any, Any]:
        index = state.state * NUM_ACTIONS + action
        turns = params.turns
        # a game that ended in the agent's half stays, and pays nothing
        next_state, (agent_reward, ghost_reward), terminated = episode.ghost_half_after_end(
            state.ended, state.state, turns["ghost_next"][index],
            (turns["ghost_rewards"][0, index], turns["ghost_rewards"][1, index]), turns["ghost_outcome"][index] != 0,
            xp=jnp)
        to_move = episode.next_mover(episode.GHOST_TO_MOVE)
        steps = episode.count_cycles(state.steps, to_move)
        truncated = self._truncated(steps, terminated)
        return EnvState(next_state, steps, jnp.int32(to_move), jnp.zeros((), dtype=bool)), \
            {AGENT: agent_reward, GHOST: ghost_reward}, terminated, truncated

    def _half(self, uniforms: Any, state: EnvState, actions: dict[str, Any],
              params: EnvParams) -> tuple[EnvState, dict[str, Any], Any, Any]:
        return jax.lax.cond(state.to_move == 0,
                            lambda: self._agent_half(uniforms[0], state, actions[AGENT], params),
                            lambda: self._ghost_half(state, actions[self.agents[1]], params))

    def _result(self, env: EnvState, rewards: dict[str, Any], terminated: Any, truncated: Any, params: EnvParams,
                fresh: Any = None) -> MultiStep:
        """The step's returns; with ``fresh`` uniforms, a game whose turn ended over restarts."""
        if fresh is not None:
            over = episode.resets_now(terminated | truncated, env.to_move)  # a game ends its turn in the ghost's half
            env = episode.auto_reset(over, self._reset_core(fresh, params)[1], env, xp=jnp)
        done = terminated | truncated
        dones = {**dict.fromkeys(self.agents, done), "__all__": done}
        infos = {"terminated": terminated, "truncated": truncated, "to_move": env.to_move}
        return self._observations(env, params), env, rewards, dones, infos

    def _agent_core(self, uniforms: Any, state: EnvState, action: Any, params: EnvParams) -> MultiStep:
        return self._result(*self._agent_half(uniforms[0], state, action, params), params)

    def _ghost_core(self, uniforms: Any, state: EnvState, action: Any, params: EnvParams) -> MultiStep:
        return self._result(*self._ghost_half(state, action, params), params, uniforms)

    def _env_core(self, uniforms: Any, state: EnvState, actions: dict[str, Any], params: EnvParams) -> MultiStep:
        return self._result(*self._half(uniforms, state, actions, params), params)

    def _step_core(self, uniforms: Any, state: EnvState, actions: dict[str, Any], params: EnvParams) -> MultiStep:
        return self._result(*self._half(uniforms, state, actions, params), params, uniforms[1:])

    # -- per game ------------------------------------------------------------------------------
    def step_env(self, key: Any, state: EnvState, actions: dict[str, Any],
                 params: EnvParams | None = None) -> MultiStep:
        """The half-turn of the side to move, without resetting a game that ended.

        Args:
            key: a PRNG key (the slip's draw).
            state: the game's :class:`EnvState`.
            actions: ``{"agent": int, "ghost": int}`` in 0..3 (both checked; the action of the
                side not to move is ignored in play).
            params: the tables (default :attr:`default_params`).

        Returns:
            ``(observations, state, rewards, dones, infos)``: per side its observation and the
            reward of this half-turn; ``dones`` per side and ``"__all__"`` (terminated or
            truncated); ``infos`` with ``"terminated"``, ``"truncated"`` and ``"to_move"`` (who
            moves next).

        Raises:
            TypeError, ValueError: what this view cannot play (checked before play; under ``jit``
                only shapes and dtypes, the module docstring lists the rest): a state that is not
                one game's :class:`EnvState` of this view's maps; ``actions`` not a dict of both
                sides' ints in 0..3 of shape ``()``, bools and floats included; ``params`` not this
                view's tables, ``levels`` naming a map it lacks, ``explore_starts`` outside [0, 1].
        """
        return self._one(self._env_core, 1, key, state, actions, params)

    def step(self, key: Any, state: EnvState, actions: dict[str, Any],
             params: EnvParams | None = None) -> MultiStep:
        """:meth:`step_env`, then a new game where this one is over at the end of the turn
        (same-step auto-reset: the observations are the new game's; the rewards and dones those
        of the half-turn played).

        Returns:
            As :meth:`step_env`.

        Raises:
            TypeError, ValueError: as :meth:`step_env`.
        """
        return self._one(self._step_core, 1 + self.reset_draws, key, state, actions, params)

    def step_agent(self, key: Any, state: EnvState, action: Any, params: EnvParams | None = None) -> MultiStep:
        """The agent's half-turn (``state.to_move`` must be 0; ``action`` the agent's int).
        Lockstep rollouts call this and :meth:`step_ghost` in turn, which saves :meth:`step`
        computing both halves under ``vmap``.

        Returns:
            As :meth:`step_env`.

        Raises:
            TypeError, ValueError: as :meth:`step_env` (``action`` one int), and ``state.to_move``
                not 0 where it is concrete.
        """
        return self._one(self._agent_core, 1, key, state, action, params, half=0)

    def step_ghost(self, key: Any, state: EnvState, action: Any, params: EnvParams | None = None) -> MultiStep:
        """The ghost's half-turn (``state.to_move`` must be 1), which ends the turn: a game that
        is over restarts, as the NumPy engine's ``step_ghost`` (and :meth:`step`) do.

        Returns:
            As :meth:`step_env`.

        Raises:
            TypeError, ValueError: as :meth:`step_env` (``action`` one int), and ``state.to_move``
                not 1 where it is concrete.
        """
        return self._one(self._ghost_core, self.reset_draws, key, state, action, params, half=1)

    # -- batches -------------------------------------------------------------------------------
    def batch_step(self, key: Any, states: EnvState, actions: dict[str, Any],
                   params: EnvParams | None = None) -> MultiStep:
        """:meth:`step` for a batch of games (``actions`` per side ``int[N]``), from one key.

        Raises:
            TypeError, ValueError: as :meth:`step`, for states whose fields have shape ``(N,)``.
        """
        return self._many(self._step_core, 1 + self.reset_draws, key, states, actions, params)

    def batch_step_agent(self, key: Any, states: EnvState, actions: Any,
                         params: EnvParams | None = None) -> MultiStep:
        """:meth:`step_agent` for a batch of games (``actions``: ``int[N]``), from one key.

        Raises:
            TypeError, ValueError: as :meth:`step_agent`, for states whose fields have shape ``(N,)``.
        """
        return self._many(self._agent_core, 1, key, states, actions, params, half=0)

    def batch_step_ghost(self, key: Any, states: EnvState, actions: Any,
                         params: EnvParams | None = None) -> MultiStep:
        """:meth:`step_ghost` for a batch of games (``actions``: ``int[N]``), from one key.

        Raises:
            TypeError, ValueError: as :meth:`step_ghost`, for states whose fields have shape ``(N,)``.
        """
        return self._many(self._ghost_core, self.reset_draws, key, states, actions, params, half=1)


class GridGhostJaxSingle(_Engine, OneSideObservations):
    """One side learns against a built-in table (or random) opponent: gymnax's API,
    ``reset(key, params) -> (obs, state)`` and ``step(key, state, action, params) -> (obs, state,
    reward, done, info)``, one full turn a step (the learner's move and the opponent's answer),
    as the Gymnasium env and the NumPy engine with one learner play it. With ``ghosts=k >= 2``
    the agent learns against a ``"chase"`` (default) or ``"random"`` team, or the team learns
    (``controlled="ghosts"``) against a ``"random"`` (default), ``"minimax"`` or ``"optimal"``
    agent, an agent table or a pool of them (:mod:`gridghost.jax.positions`; ``opponent_params``
    swaps the tables in the params).

    Args:
        controlled: ``"agent"`` (default) or ``"ghost"``; with a team ``"agent"`` or ``"ghosts"``.
        opponent: as :class:`gridghost.batched.BatchedGame`'s: ``"chase"``, ``"random"``,
            ``"minimax"``, ``"optimal"``, a ``StatePolicy`` (or its class) or an action table;
            ``None`` is the chasing ghost or the random agent.
        explore_starts, spec, **settings: as :class:`GridGhostJax` (``explore_starts`` with a
            learning agent, or a learning team: an episode then starts from a uniformly drawn state,
            from which the opponent agent makes its opening move, not played where it would end
            the game; not with one learning ghost).

    Attributes:
        default_params, engine: as :class:`GridGhostJax`.

    Raises:
        TypeError, ValueError, UnsupportedSetting: as :class:`GridGhostJax`, and what the NumPy
            engine refuses for one learner.
    """

    #: The name of the ghosts' side as a learner (a team's view: ``"ghosts"``).
    _GHOSTS: str = GHOST

    def __new__(cls, *args: Any, **kwargs: Any) -> GridGhostJaxSingle:
        return super().__new__(_TeamGridGhostJaxSingle if cls is GridGhostJaxSingle and asks_for_team(kwargs) else cls)

    def __init__(self, controlled: str = AGENT, *, opponent: Any = None, explore_starts: float = 0.0,
                 spec: GameSpec | Mapping[str, Any] | None = None, **settings: Any) -> None:
        ghosts = self._GHOSTS
        if controlled not in (AGENT, ghosts):
            raise ValueError(f"controlled must be 'agent' or {ghosts!r}, got {controlled!r} (with "
                             f"{'ghosts >= 2 the team' if ghosts == TEAM else 'one ghost the ghost'} learns as "
                             f"controlled={ghosts!r}; both sides: GridGhostJax)")
        super().__init__(controlled, explore_starts, spec, {"opponent": opponent, **settings})
        self.controlled = controlled

    def _first_observation(self, env: EnvState, params: EnvParams) -> Any:
        return self._learner_view(env, params)

    def _turn(self, uniforms: Any, state: EnvState, action: Any, params: EnvParams) -> tuple[EnvState, Any, Any, Any]:
        layout = self.layout
        slot = self._turn_slots
        opponent = self._below(uniforms[slot["opponent"]], layout.b) if "opponent" in slot else 0
        index = ((state.state * NUM_ACTIONS + action) * layout.b + opponent) * layout.k
        index = index + (self._slip(uniforms[slot["slip"]], action, params) if "slip" in slot else 0)
        turns = params.turns
        reward = episode.with_opening_reward(turns["reward"][index], state.steps, params.opening_reward, xp=jnp)
        terminated = turns["terminated"][index]
        # one learner: a step is a whole turn, and the learner moves next (to_move stays 0)
        steps = episode.count_cycles(state.steps, episode.AGENT_TO_MOVE)
        truncated = self._truncated(steps, terminated)
        return EnvState(turns["next"][index], steps, jnp.int32(0), jnp.zeros((), dtype=bool)), reward, terminated, \
            truncated

    def _env_core(self, uniforms: Any, state: EnvState, action: Any, params: EnvParams) -> SingleStep:
        env, reward, terminated, truncated = self._turn(uniforms, state, action, params)
        info = {"terminated": terminated, "truncated": truncated, "action_mask": self._learner_masks(env, params)}
        return self._learner_view(env, params, terminated), env, reward, terminated | truncated, info

    def _step_core(self, uniforms: Any, state: EnvState, action: Any, params: EnvParams) -> SingleStep:
        env, reward, terminated, truncated = self._turn(uniforms, state, action, params)
        done = terminated | truncated
        env = episode.auto_reset(episode.resets_now(done), self._reset_core(uniforms[self.turn_draws:], params)[1], env,
                                 xp=jnp)
        info = {"terminated": terminated, "truncated": truncated, "action_mask": self._learner_masks(env, params)}
        return self._learner_view(env, params), env, reward, done, info

    def step_env(self, key: Any, state: EnvState, action: Any, params: EnvParams | None = None) -> SingleStep:
        """The learner's move and the opponent's answer, without resetting a game that ended.

        Args:
            key: a PRNG key (the slip's and a random opponent's draws).
            state: the game's :class:`EnvState`.
            action: an int in 0..3.
            params: the tables (default :attr:`default_params`).

        Returns:
            ``(observation, state, reward, done, info)``: ``done`` is terminated or truncated;
            ``info`` has ``"terminated"``, ``"truncated"`` and ``"action_mask"`` (``bool[4]``,
            the moves that change the learner's cell in the returned state).

        Raises:
            TypeError, ValueError: what this view cannot play (checked before play; under ``jit``
                only shapes and dtypes, the module docstring lists the rest): a state that is not
                one game's :class:`EnvState` of this view's maps (``to_move`` 0, not ``ended``);
                ``action`` not an int in 0..3 of shape ``()``, bools and floats included;
                ``params`` not this view's tables, ``levels`` naming a map it lacks,
                ``explore_starts`` outside [0, 1] (or not 0 for one learning ghost).
        """
        return self._one(self._env_core, self.turn_draws, key, state, action, params)

    def step(self, key: Any, state: EnvState, action: Any, params: EnvParams | None = None) -> SingleStep:
        """:meth:`step_env`, then a new game where this one is over (same-step auto-reset, as
        gymnax: the observation is the new game's, the reward and done the step's).

        Returns:
            As :meth:`step_env` (``info["action_mask"]`` of the returned state).

        Raises:
            TypeError, ValueError: as :meth:`step_env`.
        """
        return self._one(self._step_core, self.turn_draws + self.reset_draws, key, state, action, params)

    def batch_step_env(self, key: Any, states: EnvState, actions: Any,
                       params: EnvParams | None = None) -> SingleStep:
        """:meth:`step_env` for a batch of games (``actions``: ``int[N]``), from one key.

        Raises:
            TypeError, ValueError: as :meth:`step_env`, for states whose fields have shape ``(N,)``.
        """
        return self._many(self._env_core, self.turn_draws, key, states, actions, params)

    def batch_step(self, key: Any, states: EnvState, actions: Any, params: EnvParams | None = None) -> SingleStep:
        """:meth:`step` for a batch of games (``actions``: ``int[N]``), from one key.

        Raises:
            TypeError, ValueError: as :meth:`step`, for states whose fields have shape ``(N,)``.
        """
        return self._many(self._step_core, self.turn_draws + self.reset_draws, key, states, actions, params)


class _TeamGridGhostJax(TeamBothSides, GridGhostJax):
    """:class:`GridGhostJax` with ``ghosts >= 2``: the computed path (:mod:`gridghost.jax.positions`)."""


class _TeamGridGhostJaxSingle(TeamOneSide, GridGhostJaxSingle):
    """:class:`GridGhostJaxSingle` with ``ghosts >= 2``: the computed path (:mod:`gridghost.jax.positions`)."""

    _GHOSTS = TEAM
