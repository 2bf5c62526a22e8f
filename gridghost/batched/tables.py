"""The batched engine's tables: every map's half-turns, the opponent's answers and the
observations of every joint state, built from the game kernel of each map.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from gridghost.batched.limits import TABLE_ENTRY_BYTES, UnsupportedSetting, tables_refused
from gridghost.config.opponents import OPPONENT_SIDES, is_planner, planned_opponent
from gridghost.core import episode
from gridghost.core.game import Game
from gridghost.core.layout import Layout
from gridghost.core.names import AGENTS
from gridghost.core.rules import NUM_ACTIONS, GameState, Outcome, Side
from gridghost.maps.levels import MapGenerator
from gridghost.planning import StatePolicy
from gridghost.sensing.belief import checked_likelihood
from gridghost.sensing.sensors import Sensor

ONGOING = int(Outcome.ONGOING)


def first_map(source: Layout | MapGenerator, budget: int) -> tuple[Layout, MapGenerator | None, int]:
    """The first map the games play (a config's ``layout``: one layout, or the first level of a
    generator's bounded level set), the generator (``None`` for one layout) and the number of maps.
    Nothing more is built: a level set whose tables cannot fit ``budget`` bytes (counted from
    the first map) is refused before its levels are generated, each of which is solved.

    Raises:
        UnsupportedSetting: a generator without ``num_levels``.
        ValueError: a level set whose least tables (one opponent answer, one slip outcome)
            exceed ``budget``.
    """
    if isinstance(source, Layout):
        return source, None, 1
    generator = source
    if generator.num_levels is None:
        raise UnsupportedSetting("the batched engine keeps every level's tables, so a MapGenerator needs num_levels "
                                 "(an unbounded level set would build a new map at almost every reset)")
    least = generator.num_levels * (generator.rows * generator.cols) ** 2 * NUM_ACTIONS * TABLE_ENTRY_BYTES
    if least > budget:
        raise tables_refused(f"the batched tables of {generator.num_levels:,} map(s) of {generator.rows}x"
                             f"{generator.cols}", least, budget, "at least")
    return generator.level(generator.start_level), generator, generator.num_levels


def all_maps(first: Layout, generator: MapGenerator | None, count: int) -> tuple[Layout, ...]:
    """Every map the games play: ``first``, and the generator's next ``count - 1`` levels."""
    if generator is None:
        return (first,)
    return (first, *(generator.level(generator.start_level + i) for i in range(1, count)))


def slip_bounds(game: Game) -> tuple[np.ndarray, np.ndarray]:
    """Per action, the running probabilities a uniform is compared with to pick the slip outcome
    (``float64[4, K - 1]``, ``inf`` past an action's last outcome), and the outcomes' count K."""
    sizes = [len(probabilities) for probabilities, _ in game.outcomes]
    k = max(sizes)
    bounds = np.full((NUM_ACTIONS, max(k - 1, 0)), np.inf)
    for action, (probabilities, _) in enumerate(game.outcomes):
        bounds[action, : len(probabilities) - 1] = episode.slip_bounds(probabilities)
    return bounds, np.array(sizes)


def half_turns(game: Game, k: int) -> dict[str, np.ndarray]:
    """Both half-turns from every joint state, from :meth:`Game.transitions`: the agent's
    ``[state, action, slip outcome]`` and the ghost's ``[state, action]`` next states (local
    numbering), outcomes and rewards. States where the game is over stay where they are."""
    cells = game.num_cells
    states = np.arange(cells * cells)
    agents, ghosts = np.divmod(states, cells)
    live = np.flatnonzero(~(game.goals[agents] | (agents == ghosts)))
    tables: dict[str, np.ndarray] = {}
    for side, slips in ((Side.AGENT, (k,)), (Side.GHOST, ())):  # the ghost does not slip
        shape, name = (len(states), NUM_ACTIONS, *slips), AGENTS[side]
        tables[f"{name}_next"] = np.broadcast_to(states.reshape(-1, *(1,) * (len(shape) - 1)), shape).copy()
        tables[f"{name}_outcome"] = np.zeros(shape, dtype=np.int8)
        tables[f"{name}_rewards"] = np.zeros((2, *shape))
        for action in range(NUM_ACTIONS) if side == Side.AGENT or game.use_ghost else ():
            moved = game.transitions(side, action, agents[live], ghosts[live])
            n = moved.agents.shape[1]
            at = np.r_[np.arange(n), np.full(k - n, n - 1)] if slips else 0  # padded: never drawn, their bound is inf
            tables[f"{name}_next"][live, action] = (moved.agents * cells + moved.ghosts)[:, at]
            tables[f"{name}_outcome"][live, action] = moved.outcomes[:, at]
            tables[f"{name}_rewards"][:, live, action] = np.stack((moved.agent_rewards, moved.ghost_rewards))[:, :, at]
    return tables


def opponent_table(opponent: Any, game: Game, side: Side) -> np.ndarray | None:
    """The opponent's action for every joint state (``int64[cells**2]``; the ghost's read with the
    ghost to move), or ``None`` for the random opponent.

    Raises:
        UnsupportedSetting: an opponent the engine has no state table for (a scripted player
            other than ``"random"`` and ``"chase"``, or an object that is not a table or planner).
    """
    if isinstance(opponent, np.ndarray):
        return StatePolicy(game.layout, side, opponent).table.ravel().astype(np.int64)
    if not (isinstance(opponent, str) or is_planner(opponent)):
        raise UnsupportedSetting(
            f"the batched engine plays its opponent from a table: {sorted(OPPONENT_SIDES)}, a gridghost.planning."
            f"StatePolicy (or its class) or an int array (cells, cells) of actions; got {opponent!r}")
    planned = planned_opponent(opponent, game, side)
    if planned is not None:
        return planned.table.ravel().astype(np.int64)
    if opponent == "random":
        return None
    if opponent == "chase":
        return game.chase_table.ravel().astype(np.int64)
    # A scripted player decides from its observation; the engine plays opponents from state tables.
    raise UnsupportedSetting(f"the batched engine has no state table for the scripted opponent {opponent!r}; it "
                             "plays 'random', 'chase', the solver's players and state policies (a StatePolicy or "
                             "an int array (cells, cells) of actions)")


def observation_table(encoder: Any, side: Side, cells: int) -> np.ndarray:
    """``[to-move flag, state, ...]``: the encoder's observation of every joint state, by whether
    the observer is to move (one plane when the encoding does not tell)."""
    other = Side.GHOST if side == Side.AGENT else Side.AGENT
    observe = encoder.observer(side)
    planes = []
    for turn in (side, other):  # flag 0: the observer to move; 1: not (the opponent's turn, or over)
        planes.append(np.stack([observe(GameState(agent, ghost, turn, Outcome.ONGOING))
                                for agent in range(cells) for ghost in range(cells)]))
    if np.array_equal(planes[0], planes[1]):
        return planes[0][None]
    return np.stack(planes)


class SensorTables(NamedTuple):
    """Per sensor: its readings' thresholds by global cell (``[M - 1, maps * cells]``) and their
    likelihoods by ``map * M + reading`` (``[maps * M, cells]``)."""

    thresholds: tuple[np.ndarray, ...]
    likelihoods: tuple[np.ndarray, ...]
    counts: tuple[int, ...]


def sensor_tables(bound: Sequence[tuple[Sensor, ...]]) -> SensorTables:
    """Each sensor's reading distribution per cell, from its likelihoods, stacked over maps."""
    thresholds, likelihoods, counts = [], [], []
    for per_map in zip(*bound, strict=True):
        tables = [np.stack([checked_likelihood(sensor, m) for m in sensor.possible_measurements()])
                  for sensor in per_map]
        readings = np.stack(tables)  # [map, reading, cell]
        running = np.cumsum(readings, axis=1)[:, :-1]  # [map, reading, cell]
        # past a cell's last possible reading no bound may be passed (rounding must not draw it)
        last = readings.shape[1] - 1 - np.argmax(readings[:, ::-1] > 0, axis=1)  # [map, cell]
        running[np.arange(readings.shape[1] - 1)[None, :, None] >= last[:, None, :]] = np.inf
        thresholds.append(np.ascontiguousarray(running.transpose(1, 0, 2).reshape(readings.shape[1] - 1, -1)))
        likelihoods.append(readings.reshape(-1, readings.shape[2]))
        counts.append(readings.shape[1])
    return SensorTables(tuple(thresholds), tuple(likelihoods), tuple(counts))
