"""The batched engine's tables as JAX arrays: what :mod:`gridghost.jax.env` steps with.

Nothing of the game is written here: :meth:`gridghost.batched.BatchedGame.export_tables` gives
every table one step reads, built from the game kernel, and they are copied to the device once.
The tables of every map of one size are stacked (states ``map * cells**2 + agent * cells +
ghost``), so a level is an index into them; :class:`EnvParams` holds them with the settings a
learner may change under ``jit`` (which levels a reset draws, the share of exploring starts).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import jax.numpy as jnp
import numpy as np

from gridghost.batched import EngineTables


class Layout(NamedTuple):
    """The static facts of a set of tables (Python values, fixed at tracing).

    Attributes:
        controlled, num_maps, num_cells, k, b, max_cycles, max_episode_steps: as
            :class:`~gridghost.batched.EngineTables`'s; ``states = cells**2``.
        flagged: per observing side, whether its vector observation differs when it is not to
            move (the table then holds both, ``states`` rows apart).
        grid: per observing side with ``obs_type="grid"``, the static facts of its planes:
            ``(shape, channels_last, to_move, radius)``.
    """

    controlled: str | None
    num_maps: int
    num_cells: int
    k: int
    b: int
    flagged: tuple[tuple[str, bool], ...]
    grid: tuple[tuple[str, tuple[tuple[int, ...], bool, int, int | None]], ...]
    max_cycles: int | None
    max_episode_steps: int | None

    @property
    def states(self) -> int:
        """Joint states of one map, ``cells**2``."""
        return self.num_cells * self.num_cells


class EnvParams(NamedTuple):
    """The device tables and the settings of :class:`~gridghost.jax.GridGhostJax` (a pytree: pass
    it through ``jit`` and ``vmap``; arrays of the same shapes do not retrace). Only ``levels``
    and ``explore_starts`` may be replaced (``params._replace(...)``), and a learning team's agent
    tables (``planned`` and ``pool``, through the team view's ``opponent_params``); the views
    refuse tables that are not their own, and settings they cannot play.

    Attributes:
        turns: the folded turn tables by name (see :class:`gridghost.batched.EngineTables`),
            ``int32`` states, ``float32`` rewards, ``int8`` outcomes, ``bool`` ends; a team's
            view: its :class:`~gridghost.batched.team.TeamTables`.
        bounds: ``float32[4, k - 1]``, the slip's running probabilities per action.
        start: ``int32[maps]``, each map's first state.
        opening: ``int32[...]``, a learning ghost's states after the opening move (else empty).
        opening_reward: ``float32``, what a learning ghost's first step adds for it.
        observations: per observing side, the ``float32`` observation of every state (vector).
        grids: per observing side, the grid planes' arrays (``static``, ``self_at``, ...).
        masks: ``bool[maps * cells, 4]``, the moves that change each cell.
        goals: ``bool[maps * cells]``.
        starts: ``int32[maps, S]``: per map, the local states an exploring start may draw (the
            two apart, the agent not on a goal of that map), padded; start_counts:
            ``int32[maps]``, how many each map has.
        levels: ``int32[L]``: the maps a reset draws from, uniformly (default: all).
        explore_starts: ``float32``: the probability that a reset draws a uniform start from
            ``starts`` instead of the map's (0 by default; both sides learning or the agent alone).
        planned: a team's views: ``uint8[P, maps * cells**(k + 1)]``, the agent tables a learning
            team plays (:func:`~gridghost.config.opponents.agent_tables`'s layout), one drawn per
            episode; ``P = 0`` where the view plays no table (``None`` with one ghost).
        pool: a team's views: ``float32[P]``, the tables' weights, summing to 1 (rows of weight 0
            pad a pool to a fixed size and are never drawn; ``None`` with one ghost).
    """

    turns: Any
    bounds: Any
    start: Any
    opening: Any
    opening_reward: Any
    observations: dict[str, Any]
    grids: dict[str, dict[str, Any]]
    masks: Any
    goals: Any
    starts: Any
    start_counts: Any
    levels: Any
    explore_starts: Any
    planned: Any = None
    pool: Any = None


def device_grids(exported: Mapping[str, Mapping[str, Any]]) -> tuple[dict[str, dict[str, Any]], tuple[Any, ...]]:
    """The device arrays and static facts of grid planes.

    Args:
        exported: per observing side, :meth:`GridPlanes.export
            <gridghost.batched.grids.GridPlanes.export>`.

    Returns:
        ``(grids, facts)``: per side, its arrays with ``keep`` (0 on the ``to_move`` plane, 1
        elsewhere); the facts :attr:`Layout.grid` holds.
    """
    grids: dict[str, dict[str, Any]] = {}
    facts = []
    for side, grid in exported.items():
        grids[side] = {key: jnp.asarray(grid[key]) if key == "static" else jnp.asarray(grid[key], dtype=jnp.int32)
                       for key in ("static", "self_at", "opponent_at", "ghosts_at", "window_at", "offsets")
                       if key in grid}
        shape = tuple(grid["shape"])
        keep = np.ones(shape, dtype=np.float32)
        (np.moveaxis(keep, -1, 0) if grid["channels_last"] else keep)[grid["to_move"]] = 0.0  # a view: writes keep
        grids[side]["keep"] = jnp.asarray(keep.reshape(-1))
        grids[side]["map_strips"] = jnp.int32(grid.get("map_strips", 1))
        facts.append((side, (shape, bool(grid["channels_last"]), int(grid["to_move"]), grid.get("radius"))))
    return grids, tuple(facts)


def device_tables(tables: EngineTables) -> tuple[Layout, EnvParams]:
    """The engine's exported tables as a :class:`Layout` and device :class:`EnvParams`.

    Args:
        tables: :meth:`gridghost.batched.BatchedGame.export_tables`.

    Returns:
        ``(layout, params)``; ``params.explore_starts`` is 0 and ``params.levels`` every map.

    Raises:
        ValueError: indices into the tables would not fit 32 bits (too many levels).
    """
    cells = tables.num_cells
    states = cells * cells
    cast = {"next": jnp.int32, "agent_next": jnp.int32, "ghost_next": jnp.int32, "reward": jnp.float32,
            "agent_rewards": jnp.float32, "ghost_rewards": jnp.float32}
    # the largest index a step computes, ((state * 4 + action) * b + opponent) * k + slip, fits int32
    if tables.num_maps * states * 4 * tables.b * tables.k > np.iinfo(np.int32).max:
        raise ValueError(f"the tables of {tables.num_maps} maps of {cells} cells are too large for 32-bit indices: "
                         "use fewer levels")
    turns = {key: jnp.asarray(value, dtype=cast.get(key)) for key, value in tables.turns.items()}
    grids, grid_facts = device_grids(tables.grids)
    flagged = tuple((side, len(table) == 2 * tables.num_maps * states) for side, table in tables.observations.items())
    # exploring starts: per map, the local states (agent, ghost) apart with the agent off its goals
    agents, ghosts = np.divmod(np.arange(states), cells)
    goals = tables.goals.reshape(tables.num_maps, cells)
    allowed = (agents != ghosts)[None, :] & ~goals[:, agents]  # [map, state]
    counts = allowed.sum(axis=1)
    # each map's allowed states first (stable order), then padding that is never drawn
    starts = np.argsort(~allowed, axis=1, kind="stable")
    layout = Layout(tables.controlled, tables.num_maps, cells, tables.k, tables.b, flagged, grid_facts,
                    tables.max_cycles, tables.max_episode_steps)
    params = EnvParams(
        turns=turns, bounds=jnp.asarray(tables.bounds, dtype=jnp.float32),
        start=jnp.asarray(tables.start, dtype=jnp.int32),
        opening=jnp.asarray(tables.opening if tables.opening is not None else np.zeros(0), dtype=jnp.int32),
        opening_reward=jnp.float32(tables.opening_reward),
        observations={side: jnp.asarray(table) for side, table in tables.observations.items()}, grids=grids,
        masks=jnp.asarray(tables.masks, dtype=bool), goals=jnp.asarray(tables.goals),
        starts=jnp.asarray(starts, dtype=jnp.int32), start_counts=jnp.asarray(counts, dtype=jnp.int32),
        levels=jnp.arange(tables.num_maps, dtype=jnp.int32), explore_starts=jnp.float32(0.0))
    return layout, params
