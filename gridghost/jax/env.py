"""gridghost as pure JAX functions: ``reset(key, params)`` and ``step(key, state, actions, params)``.

| Import        | ``from gridghost.jax import GridGhostJax, GridGhostJaxSingle``                      |
| Both sides    | :class:`GridGhostJax`: JaxMARL's ``MultiAgentEnv`` style (a dict per side,          |
|               | ``get_avail_actions``), one half-turn a step, ``params`` as gymnax passes them      |
| One side      | :class:`GridGhostJaxSingle`: gymnax's API, against a built-in (table) opponent      |
| Observations  | ``"vector"`` or ``"grid"`` (``view_radius``, ``grid_layout``), ``float32``, as the  |
|               | single envs encode them                                                             |
| Auto-reset    | same step (gymnax, JaxMARL): ``step`` returns the next episode's first observation  |
|               | where a game ended (both sides: at the end of its turn); ``step_env`` never resets  |
| Batches       | ``batch_reset``/``batch_step``: N games from one key (the fast path), or            |
|               | ``jax.vmap`` of the per-game functions over keys and states; ``jax.jit`` anything   |

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

from collections.abc import Mapping
from typing import Any, NamedTuple

import gymnasium
import jax
import jax.numpy as jnp
import numpy as np

from gridghost.batched import BatchedGame, UnsupportedSetting
from gridghost.core import episode
from gridghost.core.checks import check_choice
from gridghost.core.names import ACTION_NAMES, AGENT, AGENTS, GHOST
from gridghost.core.rules import NUM_ACTIONS
from gridghost.jax.draws import batch_uniforms
from gridghost.jax.tables import EnvParams, device_tables

#: The encodings the JAX engine serves.
JAX_OBS_TYPES: tuple[str, ...] = ("vector", "grid")


class EnvState(NamedTuple):
    """One game (a pytree of scalars; batched by ``vmap``).

    Attributes:
        state: ``int32``, the joint state ``map * cells**2 + agent cell * cells + ghost cell``.
        steps: ``int32``, the episode's learner steps (one side) or full turns (both sides).
        to_move: ``int32``, both sides: 0 when the agent moves next, 1 the ghost (0 with one side).
        ended: ``bool``, both sides: the game ended in the agent's half of this turn (the ghost's
            half then ignores its action and resets the game).
    """

    state: Any
    steps: Any
    to_move: Any
    ended: Any


#: What both sides' steps return: ``(observations, state, rewards, dones, infos)``, per side.
MultiStep = tuple[dict[str, Any], EnvState, dict[str, Any], dict[str, Any], dict[str, Any]]
#: What one side's steps return: ``(observation, state, reward, done, info)``.
SingleStep = tuple[Any, EnvState, Any, Any, dict[str, Any]]

_AGENT_TO_MOVE, _GHOST_TO_MOVE = episode.AGENT_TO_MOVE, episode.GHOST_TO_MOVE
_MOVES = ", ".join(f"{i}={name}" for i, name in enumerate(ACTION_NAMES))


def _span(values: np.ndarray) -> str:
    """Concrete values for a message: a scalar, or the range of an array."""
    return f"{values}" if values.ndim == 0 else f"values {values.min()}..{values.max()}"


# -- the checks: what is static (shapes, dtypes) always, what is concrete (not a tracer) too ----------------
def _facts(value: Any, argument: str) -> tuple[tuple[int, ...], np.dtype, np.ndarray | None]:
    """``value``'s shape, dtype and, unless it is traced (under ``jit`` or ``vmap``), its value on the host."""
    if isinstance(value, jax.core.Tracer):
        return tuple(value.shape), np.dtype(value.dtype), None
    try:
        array = np.asarray(value)
    except (TypeError, ValueError):
        raise TypeError(f"{argument} must be an array or a number, got {value!r}") from None
    return array.shape, array.dtype, array


def _check_moves(actions: Any, argument: str, shape: tuple[int, ...]) -> None:
    """Refuse ``actions`` unless they are ints of ``shape`` (one game: ``()``; N games: ``(N,)``)
    in 0..3. The shape and dtype are checked under ``jit`` too; the values where they are concrete.

    Raises:
        ValueError: another shape, or a concrete value outside 0..3.
        TypeError: not integers (bools and floats included).
    """
    got, dtype, array = _facts(actions, argument)
    if got != shape:
        what = "one action for the game" if shape == () else "one action per game"
        raise ValueError(f"{argument} must have shape {shape}, {what}, got shape {got}")
    if dtype.kind not in "iu":
        kind = "an int" if shape == () else "an int array of actions"
        raise TypeError(f"{argument} must be {kind} in 0..{NUM_ACTIONS - 1} ({_MOVES}), got dtype {dtype}"
                        + (f" ({actions!r})" if shape == () else ""))
    if array is not None and ((array < 0) | (array >= NUM_ACTIONS)).any():
        raise ValueError(f"{argument} must lie in 0..{NUM_ACTIONS - 1}, got {_span(array)}")


class _Engine:
    """What both views share: the tables, the draws and the observations of one game."""

    def __init__(self, controlled: str | None, obs_type: str, explore_starts: float, game: dict[str, Any]) -> None:
        if obs_type not in JAX_OBS_TYPES:
            raise UnsupportedSetting(f"the JAX engine serves obs_type in {list(JAX_OBS_TYPES)}, got {obs_type!r}")
        reasons = {"belief_filter": "it has no filter", "autoreset_mode": "it resets in the step a game ends "
                   "(step_env keeps the final state)", "seed": "its randomness comes from the keys reset and step take",
                   "sensors": "it has no sensors (its encodings show the positions)",
                   "color_sensor_quality": "it has no sensors (its encodings show the positions)"}
        for key, reason in reasons.items():
            if key in game:
                raise UnsupportedSetting(f"the JAX engine does not take {key}: {reason}")
        if not isinstance(explore_starts, (int, float)) or isinstance(explore_starts, bool) or \
                not 0.0 <= explore_starts <= 1.0:
            raise ValueError(f"explore_starts must be a probability in [0, 1], got {explore_starts!r}")
        if explore_starts and controlled == GHOST:
            raise ValueError("explore_starts places games with the agent to move; a learning ghost alone begins "
                             "after the agent's opening move (use GridGhostJax or controlled='agent')")
        #: The NumPy engine whose tables these functions play (one game; it also checks every setting).
        self.engine = BatchedGame(1, controlled=controlled, obs_type=obs_type, **game)
        self.layouts = self.engine.layouts
        self.layout, params = device_tables(self.engine.export_tables())
        #: The tables and settings ``reset`` and ``step`` use when given no ``params``.
        self.default_params = params._replace(explore_starts=jnp.float32(explore_starts))
        # the tables known to be this view's: its own, and those of the last params found equal to them
        self._trusted = self._tables(self.default_params)
        # (position among the tables, id): a trusted array is trusted only where it was checked
        self._trusted_ids = set(enumerate(map(id, self._trusted)))
        self._flagged = dict(self.layout.flagged)
        self._grid = dict(self.layout.grid)
        self._slots(controlled)

    # -- the checks of what a call is given -----------------------------------------------------
    @staticmethod
    def _tables(params: EnvParams) -> list[Any]:
        """The leaves of ``params`` that are tables (all but the settings a caller may change)."""
        return jax.tree_util.tree_leaves(params._replace(levels=None, explore_starts=None))

    def _params(self, params: EnvParams | None) -> EnvParams:
        """``params``, or :attr:`default_params` for ``None``; refused unless they are this
        view's tables with valid settings. Shapes and dtypes are checked under ``jit`` too;
        values where they are concrete (a table not this view's own array is compared once with
        it, and the last such set is remembered)."""
        if params is None:
            return self.default_params
        if not isinstance(params, EnvParams):
            raise TypeError(f"params must be a gridghost.jax.EnvParams (the view's default_params, with levels or "
                            f"explore_starts replaced), got {type(params).__name__}")
        only = "only params.levels and params.explore_starts may be replaced"
        own = self.default_params._replace(levels=None, explore_starts=None)
        mine, structure = jax.tree_util.tree_flatten_with_path(own)
        theirs, their_structure = jax.tree_util.tree_flatten_with_path(params._replace(levels=None,
                                                                                       explore_starts=None))
        if their_structure != structure:
            raise ValueError(f"params hold other tables than this view's (another view's, with another encoding, "
                             f"opponent or sides); {only}")
        unknown = []
        for position, ((path, leaf), (_, table)) in enumerate(zip(theirs, mine, strict=True)):
            if (position, id(leaf)) in self._trusted_ids:
                continue
            name = "params" + jax.tree_util.keystr(path)
            shape, dtype, array = _facts(leaf, name)
            if shape != table.shape or dtype != table.dtype:
                raise ValueError(f"{name} has shape {shape} and dtype {dtype}, this view's table {table.shape} and "
                                 f"{table.dtype}: params of another view (other maps, levels, slip, opponent or "
                                 f"encoding); {only}")
            if array is not None:
                unknown.append((name, array, table))
        for name, array, table in unknown:
            if not np.array_equal(array, np.asarray(table)):
                raise ValueError(f"{name} holds other values than this view's table: params of another view (other "
                                 f"maps, rewards or slip); {only}")
        if unknown and all(isinstance(leaf, jax.Array) for leaf in self._tables(params)):  # immutable: trusted
            self._trusted = self._tables(params)
            own_ids = enumerate(map(id, self._tables(self.default_params)))
            self._trusted_ids = {*enumerate(map(id, self._trusted)), *own_ids}
        self._check_settings(params)
        return params

    def _check_settings(self, params: EnvParams) -> None:
        """Refuse ``params.levels`` and ``params.explore_starts`` that this view cannot play."""
        maps = self.num_maps
        stacked = f"{maps} map{'s' if maps > 1 else ''}"
        accepted = f"a non-empty int array of map indices in 0..{maps - 1} (this view stacks {stacked})"
        shape, dtype, levels = _facts(params.levels, "params.levels")
        if len(shape) != 1 or not shape[0]:
            raise ValueError(f"params.levels must be {accepted}, got shape {shape}")
        if dtype.kind not in "iu":
            raise TypeError(f"params.levels must be {accepted}, got dtype {dtype}")
        if levels is not None and ((levels < 0) | (levels >= maps)).any():
            raise ValueError(f"params.levels must be {accepted}, got {levels.tolist()}")
        accepted = "a probability in [0, 1] (a float scalar)"
        shape, dtype, share = _facts(params.explore_starts, "params.explore_starts")
        if shape != ():
            raise ValueError(f"params.explore_starts must be {accepted}, got shape {shape}")
        if dtype.kind not in "fiu":
            raise TypeError(f"params.explore_starts must be {accepted}, got dtype {dtype}")
        if share is not None and not 0.0 <= float(share) <= 1.0:  # NaN fails this comparison too
            raise ValueError(f"params.explore_starts must be {accepted}, got {float(share)!r}")
        if share is not None and share and self.layout.controlled == GHOST:
            raise ValueError("params.explore_starts places games with the agent to move; a learning ghost alone "
                             "begins after the agent's opening move (use GridGhostJax or controlled='agent')")

    def _check_state(self, state: Any, argument: str, batch: bool, half: int | None = None) -> tuple[int, ...]:
        """Refuse a ``state`` this view cannot step (one game's, or with ``batch`` N games'; with
        ``half``, the side to move: 0 the agent, 1 the ghost); returns its batch shape."""
        if not isinstance(state, EnvState):
            raise TypeError(f"{argument} must be a gridghost.jax.EnvState (from reset or step), got "
                            f"{type(state).__name__}")
        facts = {name: _facts(getattr(state, name), f"{argument}.{name}") for name in EnvState._fields}
        shape = facts["state"][0]
        if batch and (len(shape) != 1 or not shape[0]):
            raise ValueError(f"{argument} must be a batch of games, each field of shape (N,), got {argument}.state "
                             f"of shape {shape} (one game's state goes to the per-game functions)")
        if not batch and shape != ():
            raise ValueError(f"{argument} must be one game's EnvState (each field a scalar), got {argument}.state of "
                             f"shape {shape}: step a batch with the batch_ functions or jax.vmap")
        for name, (got, dtype, _) in facts.items():
            if got != shape:
                raise ValueError(f"{argument}.{name} has shape {got} and {argument}.state {shape}: each field holds "
                                 "one entry per game")
            kind = "bool" if name == "ended" else "int"
            if dtype.kind not in ("b" if kind == "bool" else "iu"):
                raise TypeError(f"{argument}.{name} must be {kind}, got dtype {dtype}")
        values = {name: array for name, (_, _, array) in facts.items()}
        joint, maps = self.num_maps * self.layout.states, f"{self.num_maps} map{'s' if self.num_maps > 1 else ''}"
        if values["state"] is not None and ((values["state"] < 0) | (values["state"] >= joint)).any():
            raise ValueError(f"{argument}.state must be a joint state of this view in 0..{joint - 1} ({maps} of "
                             f"{self.layout.num_cells} cells), got {_span(values['state'])}")
        if values["steps"] is not None and (values["steps"] < 0).any():
            raise ValueError(f"{argument}.steps must be >= 0, got {_span(values['steps'])}")
        self._check_turn(argument, values["to_move"], values["ended"], half)
        return shape

    def _check_turn(self, argument: str, to_move: np.ndarray | None, ended: np.ndarray | None,
                    half: int | None) -> None:
        """Refuse a ``to_move`` or ``ended`` (concrete) that this view never gives."""
        allowed = (0,) if self.layout.controlled is not None else (0, 1)
        if to_move is not None and not np.isin(to_move, allowed).all():
            accepted = "0 (one side: a step is a whole turn)" if self.layout.controlled else "0 or 1"
            raise ValueError(f"{argument}.to_move must be {accepted}, got {_span(to_move)}")
        if ended is not None and ended.any() and (self.layout.controlled is not None
                                                  or (to_move is not None and (to_move[ended] != 1).any())):
            raise ValueError(f"{argument}.ended marks a game that ended in the agent's half-turn, so it is set only "
                             "with both sides and the ghost to move")
        if half is not None and to_move is not None and (to_move != half).any():
            mover, call = (GHOST, "step_ghost") if half == 0 else (AGENT, "step_agent")
            games = np.flatnonzero(to_move != half).tolist() if to_move.ndim else None
            where = f" in games {games[:8]}" if games is not None else ""
            raise ValueError(f"it is the {mover}'s half-turn{where}; call {call} (or step, which follows "
                             f"{argument}.to_move)")

    def _checked(self, state: Any, actions: Any, params: EnvParams | None, batch: bool,
                 half: int | None = None) -> EnvParams:
        """The params to play (:meth:`_params`), after refusing a state or actions that this
        view cannot play."""
        params = self._params(params)
        shape = self._check_state(state, "states" if batch else "state", batch, half)
        self._check_actions(actions, shape, half)
        return params

    def _check_actions(self, actions: Any, shape: tuple[int, ...], half: int | None) -> None:
        _check_moves(actions, "actions" if shape else "action", shape)

    @property
    def num_maps(self) -> int:
        """The maps (levels) the tables stack."""
        return self.layout.num_maps

    def observation_space(self, agent: str | None = None) -> gymnasium.spaces.Space:
        """One game's observation space; the two sides' are the same.

        Args:
            agent: ``"agent"``, ``"ghost"`` or ``None`` (the learner's, for one side).

        Returns:
            The space of one game's observation (as the NumPy engine's).

        Raises:
            ValueError: ``agent`` is not ``None``, ``"agent"`` or ``"ghost"``.
        """
        check_choice(agent, "agent", AGENTS, allow_none=True)
        return self.engine.observation_space

    def action_space(self, agent: str | None = None) -> gymnasium.spaces.Discrete:
        """The action space, the same for either side.

        Args:
            agent: ``"agent"``, ``"ghost"`` or ``None`` (the learner's, for one side).

        Returns:
            ``Discrete(4)``: 0 left, 1 down, 2 right, 3 up.

        Raises:
            ValueError: ``agent`` is not ``None``, ``"agent"`` or ``"ghost"``.
        """
        check_choice(agent, "agent", AGENTS, allow_none=True)
        return gymnasium.spaces.Discrete(NUM_ACTIONS)

    # -- the draws -----------------------------------------------------------------------------
    # Every call draws its uniforms at once (one counter-based draw, not a split per use: on CPU
    # the key derivations would cost more than the step), only those the settings use; an
    # integer in 0..n-1 is floor(u * n).
    def _slots(self, controlled: str | None) -> None:
        """Which uniform of a draw serves what: a reset's (:attr:`reset_draws` of them: the level
        with several maps; whether to explore and where, or for a learning ghost the opening
        move's action with a random agent and its slip) and a one-side turn's
        (:attr:`turn_draws`: the slip, the random opponent's action)."""
        layout = self.layout
        names = ["level"] if layout.num_maps > 1 else []
        if controlled != GHOST:
            names += ["explore", "start"]
        else:
            names += (["opening"] if layout.b > 1 else []) + (["opening_slip"] if layout.k > 1 else [])
        self._reset_slots = {name: i for i, name in enumerate(names)}
        #: Uniforms a reset takes.
        self.reset_draws = len(names)
        turn = (["slip"] if layout.k > 1 else []) + (["opponent"] if layout.b > 1 else [])
        self._turn_slots = {name: i for i, name in enumerate(turn)}
        #: Uniforms a one-side turn takes before its reset's.
        self.turn_draws = len(turn)

    def _slip(self, uniform: Any, action: Any, params: EnvParams) -> Any:
        """The slip outcome of a move: how many of its running probabilities ``uniform`` reaches."""
        if self.layout.k == 1:
            return jnp.int32(0)
        return episode.slip_outcome(uniform, params.bounds, action, xp=jnp).astype(jnp.int32)

    @staticmethod
    def _below(uniform: Any, n: Any) -> Any:
        """An int in 0..n-1 from a uniform in [0, 1)."""
        return jnp.minimum((uniform * n).astype(jnp.int32), n - 1)

    def _first_state(self, uniforms: Any, params: EnvParams) -> Any:
        """A new episode's state from :attr:`reset_draws` uniforms: a level from
        ``params.levels``, its start (or, with probability ``explore_starts``, a uniform start);
        for a learning ghost after the agent's opening move."""
        layout, slot = self.layout, self._reset_slots
        m = params.levels[self._below(uniforms[slot["level"]], params.levels.shape[0]) if "level" in slot else 0]
        state = params.start[m]
        if layout.controlled != GHOST:
            where = self._below(uniforms[slot["start"]], params.start_counts[m])
            state = jnp.where(uniforms[slot["explore"]] < params.explore_starts,
                              params.starts[m, where] + m * layout.states, state)
        else:  # the opening move: [map, agent action, slip] (the slip is the same for every action)
            opponent = self._below(uniforms[slot["opening"]], layout.b) if "opening" in slot else 0
            slip = self._slip(uniforms[slot["opening_slip"]], 0, params) if "opening_slip" in slot else 0
            state = params.opening[(m * layout.b + opponent) * layout.k + slip]
        return state.astype(jnp.int32)

    def _observe(self, side: str, state: Any, not_to_move: Any, params: EnvParams) -> Any:
        """``side``'s observation of the global ``state``, its ``to_move`` plane cleared (or the
        not-to-move row taken) where ``not_to_move``."""
        layout = self.layout
        if side in self._grid:
            shape, _, _, radius = self._grid[side]
            grid = params.grids[side]
            m, local = jnp.divmod(state, layout.states)
            if radius is None:
                flat = grid["static"][m]
            else:
                flat = grid["static"][grid["window_at"][local] + m * grid["map_strips"] + grid["offsets"]].reshape(-1)
            flat = flat.at[grid["self_at"][local]].set(1.0).at[grid["opponent_at"][local]].set(1.0)
            flat = flat * jnp.where(not_to_move, grid["keep"], 1.0)
            return flat.reshape(shape)
        table = params.observations[side]
        if self._flagged[side]:
            state = state + jnp.where(not_to_move, layout.num_maps * layout.states, 0)
        return table[state]

    def _truncated(self, steps: Any, terminated: Any) -> Any:
        """The step limits as the NumPy engine applies them: ``TimeLimit``'s whatever the
        outcome, the game's own only where it goes on."""
        return episode.truncated(steps, terminated, self.layout.max_cycles, self.layout.max_episode_steps)

    def _cells(self, state: Any) -> tuple[Any, Any]:
        """The agent's and the ghost's global cells (``map * cells + cell``) in the global ``state``."""
        cells = self.layout.num_cells
        m, local = jnp.divmod(state, self.layout.states)
        agent, ghost = jnp.divmod(local, cells)
        return m * cells + agent, m * cells + ghost

    def _masks(self, state: Any, params: EnvParams) -> dict[str, Any]:
        agent, ghost = self._cells(state)
        return {AGENT: params.masks[agent], GHOST: params.masks[ghost]}

    def _one(self, core: Any, draws: int, key: Any, state: EnvState, action: Any, params: EnvParams | None,
             half: int | None = None) -> Any:
        """``core(uniforms, state, action, params)`` for one game, its uniforms from ``key``."""
        params = self._checked(state, action, params, False, half)
        return core(jax.random.uniform(key, (draws,)), state, action, params)

    def _many(self, core: Any, draws: int, key: Any, states: EnvState, actions: Any, params: EnvParams | None,
              half: int | None = None) -> Any:
        """``core`` over a batch of games, every game's uniforms from the one ``key``."""
        params = self._checked(states, actions, params, True, half)
        uniforms = batch_uniforms(key, (states.state.shape[0], draws))
        return jax.vmap(core, in_axes=(0, 0, 0, None))(uniforms, states, actions, params)

    def batch_reset(self, key: Any, num_games: int, params: EnvParams | None = None) -> tuple[Any, EnvState]:
        """``num_games`` new games from one key (the batched twin of ``reset``).

        Returns:
            As ``reset``, each leaf with a leading axis of ``num_games``.

        Raises:
            ValueError: ``num_games`` is not an int >= 1.
            TypeError, ValueError: ``params`` as :meth:`reset`.
        """
        if not isinstance(num_games, (int, np.integer)) or isinstance(num_games, (bool, np.bool_)) or num_games < 1:
            raise ValueError(f"num_games must be an int >= 1, got {num_games!r}")
        num_games = int(num_games)
        params = self._params(params)
        uniforms = batch_uniforms(key, (num_games, self.reset_draws))
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

    def _reset_core(self, uniforms: Any, params: EnvParams) -> tuple[Any, EnvState]:
        env = EnvState(self._first_state(uniforms, params), jnp.int32(0), jnp.int32(0), jnp.zeros((), dtype=bool))
        return self._first_observation(env, params), env

    def _first_observation(self, env: EnvState, params: EnvParams) -> Any:
        raise NotImplementedError("each view (GridGhostJax, GridGhostJaxSingle) observes in its own form")


class GridGhostJax(_Engine):
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
    ``params`` (the tables), as gymnax passes it.

    Args:
        obs_type: ``"vector"`` (default) or ``"grid"``.
        explore_starts: the probability that a reset starts from a uniformly drawn state of the
            level drawn (the two apart, the agent not on one of its goals) instead of its start:
            exploring starts.
        **game: the settings of :class:`gridghost.batched.BatchedGame` (``layout``, a
            ``MapGenerator`` with ``num_levels`` for many levels, ``difficulty``, ``slip``,
            ``rewards``, ``ghost_rewards``, ``max_cycles``, ``view_radius``, ``grid_layout``, ...).

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

    def __init__(self, *, obs_type: str = "vector", explore_starts: float = 0.0, **game: Any) -> None:
        if "controlled" in game or "opponent" in game:
            raise TypeError("GridGhostJax has both sides learn; for one learner use GridGhostJaxSingle(controlled=..., "
                            "opponent=...)")
        super().__init__(None, obs_type, explore_starts, game)

    def _first_observation(self, env: EnvState, params: EnvParams) -> dict[str, Any]:
        return self._observations(env, params)

    def _check_actions(self, actions: Any, shape: tuple[int, ...], half: int | None) -> None:
        if half is not None:  # a half-turn's actions: the side's alone
            super()._check_actions(actions, shape, half)
            return
        if not isinstance(actions, Mapping):
            raise TypeError(f"actions must be a dict with both sides' actions, {{'agent': ..., 'ghost': ...}} (the "
                            f"side not to move is ignored), got {type(actions).__name__}")
        if set(actions) != set(AGENTS):
            raise ValueError(f"actions must have the keys {list(AGENTS)}, one action per side (the side not to move "
                             f"is ignored), got {list(actions)}")
        for side in AGENTS:
            _check_moves(actions[side], f"actions[{side!r}]", shape)

    def observations(self, state: EnvState, params: EnvParams | None = None) -> dict[str, Any]:
        """Both sides' observations of ``state``: each flagged not to move unless it is to move
        (``state.to_move``) in a game that goes on (a game that ended shows it to neither).

        Args:
            state: one game's :class:`EnvState` (``jax.vmap`` it for a batch).
            params: the tables (default :attr:`default_params`).

        Returns:
            ``{"agent": observation, "ghost": observation}``.

        Raises:
            TypeError, ValueError: a state or params that this view cannot play (see :meth:`step`).
        """
        params = self._params(params)
        self._check_state(state, "state", False)
        return self._observations(state, params)

    def _observations(self, state: EnvState, params: EnvParams) -> dict[str, Any]:
        agent_moves = state.to_move == 0
        agent, ghost = self._cells(state.state)
        over = params.goals[agent] | (agent == ghost)  # a state the game ended in
        return {AGENT: self._observe(AGENT, state.state, ~agent_moves | over, params),
                GHOST: self._observe(GHOST, state.state, agent_moves | state.ended, params)}

    # -- the half-turns, from their uniforms ---------------------------------------------------
    def _agent_half(self, uniform: Any, state: EnvState, action: Any,
                    params: EnvParams) -> tuple[EnvState, dict[str, Any], Any, Any]:
        index = (state.state * NUM_ACTIONS + action) * self.layout.k + self._slip(uniform, action, params)
        turns = params.turns
        terminated = turns["agent_outcome"][index] != 0
        rewards = {AGENT: turns["agent_rewards"][0, index], GHOST: turns["agent_rewards"][1, index]}
        env = EnvState(turns["agent_next"][index], state.steps, jnp.int32(episode.next_mover(_AGENT_TO_MOVE)),
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
        to_move = episode.next_mover(_GHOST_TO_MOVE)
        steps = episode.count_cycles(state.steps, to_move)
        truncated = self._truncated(steps, terminated)
        return EnvState(next_state, steps, jnp.int32(to_move), jnp.zeros((), dtype=bool)), \
            {AGENT: agent_reward, GHOST: ghost_reward}, terminated, truncated

    def _half(self, uniforms: Any, state: EnvState, actions: dict[str, Any],
              params: EnvParams) -> tuple[EnvState, dict[str, Any], Any, Any]:
        return jax.lax.cond(state.to_move == 0,
                            lambda: self._agent_half(uniforms[0], state, actions[AGENT], params),
                            lambda: self._ghost_half(state, actions[GHOST], params))

    def _result(self, env: EnvState, rewards: dict[str, Any], terminated: Any, truncated: Any, params: EnvParams,
                fresh: Any = None) -> MultiStep:
        """The step's returns; with ``fresh`` uniforms, a game whose turn ended over restarts."""
        if fresh is not None:
            over = episode.resets_now(terminated | truncated, env.to_move)  # a game ends its turn in the ghost's half
            env = episode.auto_reset(over, self._reset_core(fresh, params)[1], env, xp=jnp)
        done = terminated | truncated
        dones = {AGENT: done, GHOST: done, "__all__": done}
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

    def get_avail_actions(self, state: EnvState, params: EnvParams | None = None) -> dict[str, Any]:
        """Per side, ``bool[4]``: the moves that change its cell (the single envs'
        ``info["action_mask"]``). Every move is legal; a move into a wall stays put. The side not
        to move gets its mask too, and its action is ignored.

        Args:
            state: one game's :class:`EnvState` (``jax.vmap`` it for a batch).
            params: the tables (default :attr:`default_params`).

        Raises:
            TypeError, ValueError: a state or params that this view cannot play (see :meth:`step`).
        """
        params = self._params(params)
        self._check_state(state, "state", False)
        return self._masks(state.state, params)


class GridGhostJaxSingle(_Engine):
    """One side learns against a built-in table (or random) opponent: gymnax's API,
    ``reset(key, params) -> (obs, state)`` and ``step(key, state, action, params) -> (obs, state,
    reward, done, info)``, one full turn a step (the learner's move and the opponent's answer),
    as the Gymnasium env and the NumPy engine with one learner play it.

    Args:
        controlled: ``"agent"`` (default) or ``"ghost"``.
        opponent: as :class:`gridghost.batched.BatchedGame`'s: ``"chase"``, ``"random"``,
            ``"minimax"``, ``"optimal"``, a ``StatePolicy`` (or its class) or an action table;
            ``None`` is the chasing ghost or the random agent.
        obs_type, explore_starts, **game: as :class:`GridGhostJax` (``max_episode_steps`` too;
            ``explore_starts`` only with a learning agent).

    Attributes:
        default_params, engine: as :class:`GridGhostJax`.

    Raises:
        TypeError, ValueError, UnsupportedSetting: as :class:`GridGhostJax`, and what the NumPy
            engine refuses for one learner.
    """

    def __init__(self, controlled: str = AGENT, *, opponent: Any = None, obs_type: str = "vector",
                 explore_starts: float = 0.0, **game: Any) -> None:
        if controlled not in AGENTS:
            raise ValueError(f"controlled must be 'agent' or 'ghost', got {controlled!r} (both sides: GridGhostJax)")
        super().__init__(controlled, obs_type, explore_starts, {"opponent": opponent, **game})
        self.controlled = controlled

    def _first_observation(self, env: EnvState, params: EnvParams) -> Any:
        return self._observe(self.controlled, env.state, jnp.zeros((), dtype=bool), params)

    def observe(self, state: EnvState, terminated: Any, params: EnvParams | None = None) -> Any:
        """The learner's observation of ``state`` (flagged not to move where ``terminated``).

        Args:
            state: one game's :class:`EnvState` (``jax.vmap`` it for a batch).
            terminated: a ``bool`` scalar, the game ended (the observation then shows no side to move).
            params: the tables (default :attr:`default_params`).

        Raises:
            TypeError, ValueError: a state or params that this view cannot play (see :meth:`step`),
                or ``terminated`` not a ``bool`` scalar.
        """
        params = self._params(params)
        self._check_state(state, "state", False)
        shape, dtype, _ = _facts(terminated, "terminated")
        if shape != () or dtype.kind != "b":
            raise TypeError(f"terminated must be a bool scalar, got shape {shape} and dtype {dtype}")
        return self._observe(self.controlled, state.state, terminated, params)

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
        steps = episode.count_cycles(state.steps, _AGENT_TO_MOVE)
        truncated = self._truncated(steps, terminated)
        return EnvState(turns["next"][index], steps, jnp.int32(0), jnp.zeros((), dtype=bool)), reward, terminated, \
            truncated

    def _env_core(self, uniforms: Any, state: EnvState, action: Any, params: EnvParams) -> SingleStep:
        env, reward, terminated, truncated = self._turn(uniforms, state, action, params)
        info = {"terminated": terminated, "truncated": truncated, "action_mask": self._learner_masks(env, params)}
        return self._observe(self.controlled, env.state, terminated, params), env, reward, terminated | truncated, info

    def _step_core(self, uniforms: Any, state: EnvState, action: Any, params: EnvParams) -> SingleStep:
        env, reward, terminated, truncated = self._turn(uniforms, state, action, params)
        done = terminated | truncated
        env = episode.auto_reset(episode.resets_now(done), self._reset_core(uniforms[self.turn_draws:], params)[1], env,
                                 xp=jnp)
        info = {"terminated": terminated, "truncated": truncated, "action_mask": self._learner_masks(env, params)}
        return self._observe(self.controlled, env.state, jnp.zeros((), dtype=bool), params), env, reward, done, info

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
                ``explore_starts`` outside [0, 1] (or not 0 for a learning ghost).
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

    def action_masks(self, state: EnvState, params: EnvParams | None = None) -> Any:
        """``bool[4]``: the moves that change the learner's cell.

        Args:
            state: one game's :class:`EnvState` (``jax.vmap`` it for a batch).
            params: the tables (default :attr:`default_params`).

        Raises:
            TypeError, ValueError: a state or params that this view cannot play (see :meth:`step`).
        """
        params = self._params(params)
        self._check_state(state, "state", False)
        return self._learner_masks(state, params)

    def _learner_masks(self, state: EnvState, params: EnvParams) -> Any:
        return self._masks(state.state, params)[self.controlled]
