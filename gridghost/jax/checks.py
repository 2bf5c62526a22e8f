"""The state of one game of the JAX views (:class:`EnvState`) and the checks of what their calls
are given: the params (this view's tables, with valid levels and ``explore_starts``), the states
and the actions. Shapes and dtypes are checked under ``jit`` and ``vmap`` too, values where they
are concrete (:class:`CallChecks`, a part of :mod:`gridghost.jax.env`'s views).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import jax
import numpy as np

from gridghost.config.settings import GameSpec
from gridghost.core.names import ACTION_NAMES, AGENT, GHOST
from gridghost.core.rules import NUM_ACTIONS
from gridghost.jax.tables import EnvParams, Layout


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


class CallChecks:
    """The checks of the JAX views' calls (a part of them: :mod:`gridghost.jax.env`'s engine
    inherits this class and sets the attributes annotated below)."""

    layout: Layout
    spec: GameSpec
    agents: tuple[str, ...]
    default_params: EnvParams
    #: The state this view steps (a team's view: :class:`~gridghost.jax.positions.TeamEnvState`).
    _state_type: Any = EnvState
    _trusted: list[Any]
    _trusted_ids: set[tuple[int, int]]

    # -- the checks of what a call is given -----------------------------------------------------
    @staticmethod
    def _tables(params: EnvParams) -> list[Any]:
        """The leaves of ``params`` that are tables (all but the settings a caller may change and a
        learning team's agent tables)."""
        return jax.tree_util.tree_leaves(params._replace(levels=None, explore_starts=None, planned=None, pool=None))

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
        only = ("only params.levels and params.explore_starts may be replaced (and a learning team's agent tables, "
                "through opponent_params)")
        own = self.default_params._replace(levels=None, explore_starts=None)
        mine, structure = jax.tree_util.tree_flatten_with_path(own)
        theirs, their_structure = jax.tree_util.tree_flatten_with_path(params._replace(levels=None,
                                                                                       explore_starts=None))
        if their_structure != structure:
            raise ValueError(f"params hold other tables than this view's (another view's, with another encoding, "
                             f"opponent or sides); {only}")
        self._check_opponent(params)
        swapped = ("planned", "pool")  # checked by _check_opponent
        unknown = []
        for position, ((path, leaf), (_, table)) in enumerate(zip(theirs, mine, strict=True)):
            if (position, id(leaf)) in self._trusted_ids or getattr(path[0], "name", None) in swapped:
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

    def _check_opponent(self, params: EnvParams) -> None:
        """Refuse a learning team's agent tables (``params.planned``, ``params.pool``) that this
        view cannot play (a team's view checks them; nothing else has them)."""

    def _filled(self, state: Any, params: EnvParams) -> Any:
        """``state`` with what it may leave out filled in (a team's view: ``member``)."""
        return state

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
        kind, ghosts = self._state_type, self.spec.ghosts
        team = f"; ghosts={ghosts}" if ghosts > 1 else ""
        each = f"each field of shape (N,){team and ' (ghosts (N, k))'}"
        scalar = f"each field a scalar{team and ', ghosts k'}"
        if not isinstance(state, kind):
            raise TypeError(f"{argument} must be a gridghost.jax.{kind.__name__} (from reset or step{team}), got "
                            f"{type(state).__name__}")
        facts = {name: _facts(getattr(state, name), f"{argument}.{name}") for name in kind._fields}
        first = kind._fields[0]
        shape = facts[first][0]
        if batch and (len(shape) != 1 or not shape[0]):
            raise ValueError(f"{argument} must be a batch of games, {each}, got {argument}.{first} of shape {shape} "
                             "(one game's state goes to the per-game functions)")
        if not batch and shape != ():
            raise ValueError(f"{argument} must be one game's {kind.__name__} ({scalar}), got {argument}.{first} of "
                             f"shape {shape}: step a batch with the batch_ functions or jax.vmap")
        for name, (got, dtype, _) in facts.items():
            want = (*shape, ghosts) if name == "ghosts" else shape
            if got != want:
                raise ValueError(f"{argument}.{name} has shape {got} and {argument}.{first} {shape}: it must have "
                                 f"shape {want}, one entry per game{team and ' (ghosts: one per ghost)'}")
            kind_of = "bool" if name == "ended" else "int"
            if dtype.kind not in ("b" if kind_of == "bool" else "iu"):
                raise TypeError(f"{argument}.{name} must be {kind_of}, got dtype {dtype}")
        values = {name: array for name, (_, _, array) in facts.items()}
        self._check_cells(values, argument)
        if values["steps"] is not None and (values["steps"] < 0).any():
            raise ValueError(f"{argument}.steps must be >= 0, got {_span(values['steps'])}")
        self._check_turn(argument, values["to_move"], values["ended"], half)
        return shape

    def _check_cells(self, values: dict[str, np.ndarray | None], argument: str) -> None:
        """Refuse a concrete joint state outside this view's maps."""
        joint, maps = self.num_maps * self.layout.states, f"{self.num_maps} map{'s' if self.num_maps > 1 else ''}"
        if values["state"] is not None and ((values["state"] < 0) | (values["state"] >= joint)).any():
            raise ValueError(f"{argument}.state must be a joint state of this view in 0..{joint - 1} ({maps} of "
                             f"{self.layout.num_cells} cells), got {_span(values['state'])}")

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
                 half: int | None = None) -> tuple[Any, EnvParams]:
        """The state (:meth:`_filled`) and the params (:meth:`_params`) to play, after refusing a
        state or actions that this view cannot play."""
        params = self._params(params)
        state = self._filled(state, params)
        shape = self._check_state(state, "states" if batch else "state", batch, half)
        self._check_actions(actions, shape, half)
        return state, params

    def _check_actions(self, actions: Any, shape: tuple[int, ...], half: int | None) -> None:
        """Refuse ``actions`` unless they are the acting side's (one learner's, or with ``half``
        its mover's), or for both sides' step a dict of both sides' (each checked)."""
        argument = "actions" if shape else "action"
        if self.layout.controlled is not None or half is not None:
            self._check_side(self.layout.controlled or self.agents[half], actions, argument, shape)  # type: ignore[index]
            return
        sides = list(self.agents)
        if not isinstance(actions, Mapping):
            raise TypeError(f"actions must be a dict with both sides' actions, {{{sides[0]!r}: ..., {sides[1]!r}: "
                            f"...}} (the side not to move is ignored), got {type(actions).__name__}")
        if set(actions) != set(sides):
            raise ValueError(f"actions must have the keys {sides}, one action per side (the side not to move is "
                             f"ignored), got {list(actions)}")
        for side in sides:
            self._check_side(side, actions[side], f"actions[{side!r}]", shape)

    def _check_side(self, side: str, actions: Any, argument: str, shape: tuple[int, ...]) -> None:
        """Refuse ``side``'s ``actions`` unless they are ints in 0..3 of ``shape`` (a team's:
        ``shape + (k,)``)."""
        _check_moves(actions, argument, (*shape, self.spec.ghosts) if side == "ghosts" else shape)

    @property
    def num_maps(self) -> int:
        """The maps (levels) the tables stack."""
        return self.layout.num_maps

