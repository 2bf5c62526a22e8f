"""The batched engine: N games stepped in lockstep as arrays, for training at scale.

| Import        | ``from gridghost.batched import BatchedGame`` or                                 |
|               | ``gymnasium.make_vec("gridghost/GridGhost-v1", num_envs=N,``                     |
|               | ``vectorization_mode="vector_entry_point", obs_type="vector")``                  |
| Sides         | ``controlled="agent"`` or ``"ghost"`` against a built-in opponent (a table), or  |
|               | ``controlled=None``: both sides learn, half-turn by half-turn                    |
| Actions       | ``int[N]`` in 0..3 (0 left, 1 down, 2 right, 3 up)                               |
| Observations  | ``(N, ...)`` ``float32``: ``"vector"``, ``"grid"`` (``view_radius`` too) or      |
|               | ``"belief_vector"``; each row equals the single env's encoder output             |
| Auto-reset    | ``"next_step"`` (Gymnasium 1.x's default) or ``"same_step"`` (final obs kept)    |

Nothing of the game is written here. Every table comes from the game kernel
(:class:`~gridghost.core.game.Game`): :meth:`~gridghost.core.game.Game.transitions` gives each half-turn's
outcomes, next states and rewards, :attr:`~gridghost.core.game.Game.outcomes` the slip model's
probabilities, :attr:`~gridghost.core.game.Game.chase_table` the chasing ghost, a
:class:`~gridghost.planning.StatePolicy`'s ``table`` any planner. The sensors' likelihoods give the
readings, and the observation encoders of :mod:`gridghost.sensing.observations` give each state's
observation. These are folded, once per map, into flat tables:

- *the learner's turn*: ``(joint state, action, opponent's action, slip outcome) -> (next joint
  state, reward, outcome, agent's cell for the reading)``. The opponent's table move is folded in;
  a random opponent is one more index, drawn like the slip;
- *half-turns*, for two learning sides: the agent's ``(joint state, action, slip outcome)`` and the
  ghost's ``(joint state, action)``;
- *observations*: ``joint state -> observation`` for ``"vector"`` and ``"belief_vector"`` (one
  ``take`` of a row); for ``"grid"``, whose joint-state table would take gigabytes over a few
  hundred levels, each map's static planes once, the positions and the ``to_move`` plane written
  at each step (:class:`~gridghost.batched.grids.GridPlanes`).

A step is then a handful of ``np.take`` calls into preallocated buffers, a uniform per game for
the slip, one per sensor for its reading, and the auto-reset of the games that ended.

States are numbered ``map * cells**2 + agent cell * cells + ghost cell``, so games on different
maps of one size (a :class:`~gridghost.maps.levels.MapGenerator` with ``num_levels``) share the tables,
stacked per map, and a finished game draws its next level at its reset, as the single env does.

Randomness: one seeded ``numpy.random.Generator`` for the whole batch. Each call draws a fixed
block of uniforms (``rng.random``), so a seed fixes everything; a game's draws are not those of a
single env seeded alike, but their distribution is (``tests/test_batched.py`` checks it with a
chi-square test over 200,000 transitions). With no slip and perfect sensors the games are
exactly the single env's.

Two learning sides (``controlled=None``) play as PettingZoo's AEC API does, in lockstep:
:meth:`BatchedGame.step_agent` then :meth:`BatchedGame.step_ghost`, each returning both sides'
observations and the rewards of that half-turn keyed by ``"agent"``/``"ghost"``. The ghost sees
the agent's move before choosing its own, as the rules require; a simultaneous (Parallel-API or
PufferLib flat-batch) view would hide it, or spend half of every batch on the side that waits. A
game that ends in either half-turn resets at the end of the turn (``same_step``), with both
sides' final observations kept.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from gymnasium.vector import AutoresetMode

from gridghost.batched.filter import BatchedHistogramFilter, filter_game_bytes
from gridghost.batched.grids import GridPlanes, encoder_bytes, gather_bytes, grid_bytes
from gridghost.batched.limits import (
    MAP_PART_BYTES,
    TABLE_ENTRY_BYTES,
    UnsupportedSetting,
    check_buffers,
    check_count,
    checked_actions,
    checked_games,
    table_budget,
    tables_refused,
)
from gridghost.batched.tables import (
    ONGOING,
    all_maps,
    first_map,
    half_turns,
    observation_table,
    opponent_table,
    sensor_tables,
    slip_bounds,
)
from gridghost.config.opponents import DEFAULT_OPPONENTS
from gridghost.config.parts import build_encoder, build_map_parts
from gridghost.config.settings import game_config
from gridghost.core import episode
from gridghost.core.checks import check_choice, check_limit
from gridghost.core.game import Game
from gridghost.core.layout import Layout
from gridghost.core.names import AGENT, AGENTS, GHOST
from gridghost.core.rules import NUM_ACTIONS, Rewards, Side
from gridghost.core.slip import SlipModel
from gridghost.sensing.sensors import Sensor

#: The encodings the batched engine serves (each row is the single env's encoder output).
BATCH_OBS_TYPES: tuple[str, ...] = ("vector", "grid", "belief_vector")
#: The auto-reset modes (Gymnasium's ``AutoresetMode.NEXT_STEP`` and ``SAME_STEP``).
AUTORESET_MODES: tuple[str, ...] = ("next_step", "same_step")
GYMNASIUM_MODES = {AutoresetMode.NEXT_STEP: "next_step", AutoresetMode.SAME_STEP: "same_step"}
_AGENT_TO_MOVE, _GHOST_TO_MOVE = episode.AGENT_TO_MOVE, episode.GHOST_TO_MOVE

#: The opponents each side faces when none is given (as the Gymnasium env's).


class BatchedStep(NamedTuple):
    """What one call of :class:`BatchedGame` returns. The arrays are the engine's buffers,
    overwritten by its next call: copy what you keep.

    Attributes:
        observations: per side that observes (the learner; both with two learning sides), the
            ``(N, ...)`` observations after the call. In ``"next_step"`` mode a game that ended
            shows its final observation here and resets on the next call; in ``"same_step"``
            mode it shows the next episode's first observation.
        rewards: per side, ``float64[N]``, that side's rewards of the half-turns of this call.
        terminations: ``bool[N]``, the game ended (caught or goal) in this call.
        truncations: ``bool[N]``, the step limit cut the game short in this call.
        final_games: ``"same_step"`` mode: the indices of the games that ended in this call and
            were reset (empty otherwise).
        final_observations: per side, the final observations of ``final_games``, in that order.
    """

    observations: dict[str, np.ndarray]
    rewards: dict[str, np.ndarray]
    terminations: np.ndarray
    truncations: np.ndarray
    final_games: np.ndarray
    final_observations: dict[str, np.ndarray]


class EpisodeStats(NamedTuple):
    """Per game, the return, length and success of an episode (:meth:`BatchedGame.episodes`).

    Attributes:
        returns: ``float64[N]``, the side's undiscounted return.
        lengths: ``int64[N]``, its steps.
        successes: ``bool[N]``, the side won: the agent reached a goal, or the ghost caught it.
    """

    returns: np.ndarray
    lengths: np.ndarray
    successes: np.ndarray


class EngineTables(NamedTuple):
    """Everything a step of :class:`BatchedGame` reads, as read-only NumPy arrays
    (:meth:`BatchedGame.export_tables`): for engines on other array libraries (``gridghost.jax``)
    that play the same tables instead of writing the rules again. States are numbered
    ``map * cells**2 + agent cell * cells + ghost cell``, cells ``map * cells + cell``.

    Attributes:
        controlled: the learning side, ``"agent"``, ``"ghost"`` or ``None`` (both).
        num_maps, num_cells: the maps stacked, and the cells of one.
        k: the slip outcomes per move; a move's outcome is the number of ``bounds[action]`` a
            uniform reaches.
        b: 4 with a random opponent (its action drawn as one more index), else 1.
        bounds: ``float64[4, k - 1]``, the running slip probabilities per action (``inf`` padded).
        turns: the folded turn tables. One learner: ``"next"``, ``"reward"``, ``"terminated"``,
            flat by ``((state * 4 + action) * b + opponent's action) * k + slip outcome``. Two
            learners: ``"agent_next"``, ``"agent_outcome"``, ``"agent_rewards"`` (``[2, ...]``, the
            agent's and the ghost's) by ``(state * 4 + action) * k + slip outcome``, and
            ``"ghost_next"``, ``"ghost_outcome"``, ``"ghost_rewards"`` by ``state * 4 + action``.
        start: ``int64[maps]``, each map's first state.
        opening: a learning ghost alone: the state after the agent's opening move, flat by
            ``(map * b + agent action) * k + slip outcome``; else ``None``.
        opening_reward: what a learning ghost's first step adds for that move (else 0).
        observations: per observing side, ``float32[flags * states, ...]``: the observation of
            each state, ``flags`` = 2 when it differs with the observer not to move (rows
            ``states..`` then); absent for ``"grid"``.
        grids: per observing side with ``obs_type="grid"``, :meth:`GridPlanes.export`.
        masks: ``int8[maps * cells, 4]``, the moves that change each cell.
        goals: ``bool[maps * cells]``; goal_anywhere: ``bool[cells]``, a goal of some map.
        max_cycles, max_episode_steps: the limits, as the engine applies them.
    """

    controlled: str | None
    num_maps: int
    num_cells: int
    k: int
    b: int
    bounds: np.ndarray
    turns: dict[str, np.ndarray]
    start: np.ndarray
    opening: np.ndarray | None
    opening_reward: float
    observations: dict[str, np.ndarray]
    grids: dict[str, dict[str, Any]]
    masks: np.ndarray
    goals: np.ndarray
    goal_anywhere: np.ndarray
    max_cycles: int | None
    max_episode_steps: int | None


# -- the engine --------------------------------------------------------------------------------------
class BatchedGame:
    """N games of gridghost stepped in lockstep as arrays (see the module docstring).

    With one learning side, :meth:`step_agent` (``controlled="agent"``) or :meth:`step_ghost`
    (``controlled="ghost"``) plays the learner's move and the opponent's answer; with
    ``controlled=None`` both sides learn and the two calls alternate, one half-turn each.

    Args:
        num_games: N, an int in 1..:data:`MAX_GAMES`, and no more than the settings' per-game
            buffers fit in :data:`BUFFER_BYTES` (the error says how many do).
        seed: seeds the batch's generator (an int >= 0, a list of them, or ``None`` for fresh
            entropy); :meth:`reset` can reseed it.
        controlled: the learning side, ``"agent"`` (default), ``"ghost"``, or ``None`` for both.
        opponent: the other side's policy with one learner: ``"chase"`` (the ghost only),
            ``"random"``, ``"minimax"``, ``"optimal"`` (the agent only), a
            :class:`~gridghost.planning.StatePolicy` or its class, or an int array ``(cells, cells)``
            of actions; ``None`` means the chasing ghost against a learning agent and a random
            agent against a learning ghost.
        obs_type: one of :data:`BATCH_OBS_TYPES`; ``"belief_vector"`` runs a
            :class:`BatchedHistogramFilter` for the agent (not with a learning ghost alone).
        view_radius: ``obs_type="grid"`` only, as in the single envs.
        grid_layout: ``obs_type="grid"`` only: ``"chw"`` (channels first, default) or ``"hwc"``,
            as in the single envs.
        autoreset_mode: ``"next_step"`` (a game that ended shows its final observation, and the
            next call resets it and ignores its action; Gymnasium 1.x's default) or
            ``"same_step"`` (it resets in the call where it ended; its final observation is in
            :attr:`BatchedStep.final_observations`). ``None``: ``"next_step"`` with one learner,
            ``"same_step"`` (the only mode) with two.
        max_cycles: the game's own limit in turns (``None``: none): truncates an episode that did
            not end, as the AEC env does.
        max_episode_steps: Gymnasium's ``TimeLimit`` in learner steps (``None``: none): truncates
            at the limit even when the game ended in that step, as the wrapper does.
        belief_filter: ``None`` or ``"histogram"``: the agent's exact filter for N games
            (:attr:`filter`); ``"belief_vector"`` needs it and sets it.
        table_bytes: the most memory the tables may take, an int >= 1 (bytes); ``None``:
            :data:`TABLE_BYTES` as it is set when the engine is built (512 MiB unless changed).
            Many levels (a ``MapGenerator`` with a large ``num_levels``) need more: the refusal
            says how much (docs/batched.md has a table of what fits).
        **game: the game's settings as the single envs take them: ``layout`` (a map, or a
            :class:`~gridghost.maps.levels.MapGenerator` with ``num_levels``), ``difficulty``,
            ``slip``, ``slip_probability``, ``slip_type``, ``sensors``, ``color_sensor_quality``,
            ``rewards``, ``ghost_rewards``.

    Attributes:
        num_games, controlled, obs_type, autoreset_mode, table_bytes: as resolved.
        layouts: the maps the games play; :attr:`maps` gives each game's.
        filter: the :class:`BatchedHistogramFilter`, or ``None``.
        readings: ``int64[sensors, N]``: each game's latest readings, as indices into each
            sensor's ``possible_measurements()`` (with a learning agent).
        observation_space: the single game's observation space (the single env's, for either side).

    Raises:
        TypeError, ValueError: any setting outside what is accepted.
        UnsupportedSetting: a setting the single envs take but the batched engine does not serve
            (another encoding, a callable opponent, a particle filter, no ghost, a render mode, ...).
    """

    def __init__(self, num_games: int, seed: int | Sequence[int] | None = None, *,
                 controlled: str | None = AGENT, opponent: Any = None, obs_type: str = "vector",
                 view_radius: int | None = None, grid_layout: str = "chw", autoreset_mode: str | None = None,
                 max_cycles: int | None = None,
                 max_episode_steps: int | None = None, belief_filter: str | None = None,
                 table_bytes: int | None = None, layout: Any = None, difficulty: int | None = None,
                 slip: str | SlipModel | None = None,
                 slip_probability: float | None = None, slip_type: str | None = None,
                 sensors: Sequence[Sensor] | None = None, color_sensor_quality: float | None = None,
                 rewards: Rewards | str | None = None, ghost_rewards: Rewards | None = None,
                 **unsupported: Any) -> None:
        self.num_games = n = check_count(num_games, "num_games")
        #: The bytes the tables may take (``table_bytes``, or :data:`TABLE_BYTES` when built); checked
        #: first, so that the vector env's fallback to single envs never drops a bad one.
        self.table_bytes = table_budget(table_bytes)
        self._refuse(unsupported)
        self.controlled = check_choice(controlled, "controlled", AGENTS, allow_none=True)
        if obs_type not in BATCH_OBS_TYPES:
            raise UnsupportedSetting(f"the batched engine serves obs_type in {list(BATCH_OBS_TYPES)}, got {obs_type!r} "
                                     "(use the single envs, or vectorization_mode='sync', for the others)")
        self.obs_type = obs_type
        if belief_filter not in (None, "histogram"):
            raise UnsupportedSetting(f"the batched engine runs the exact filter, belief_filter='histogram'; got "
                                     f"{belief_filter!r}")
        if obs_type == "belief_vector":
            belief_filter = "histogram"
        if belief_filter is not None and self.controlled == GHOST:
            raise ValueError("belief_filter follows the agent; a learning ghost alone has none "
                             "(use obs_type='vector' or 'grid', or controlled=None)")
        if autoreset_mode is None:
            autoreset_mode = "same_step" if self.controlled is None else "next_step"
        autoreset_mode = GYMNASIUM_MODES.get(autoreset_mode, autoreset_mode)  # type: ignore[call-overload]
        self.autoreset_mode = check_choice(autoreset_mode, "autoreset_mode", AUTORESET_MODES)
        if self.controlled is None and self.autoreset_mode != "same_step":
            raise ValueError("with two learning sides a game resets at the end of the turn it ended in: "
                             "autoreset_mode must be 'same_step'")
        if self.controlled is None and opponent is not None:
            raise ValueError("opponent plays the other side of one learner; with controlled=None both sides learn")
        self.max_episode_steps = check_limit(max_episode_steps, "max_episode_steps")
        #: The game's settings, read and resolved as every view's are (the encoding without the
        #: belief planes, which the engine appends from its own filter).
        self.config = game_config(
            layout=layout, difficulty=difficulty, slip=slip, slip_probability=slip_probability, slip_type=slip_type,
            sensors=sensors, color_sensor_quality=color_sensor_quality, rewards=rewards, ghost_rewards=ghost_rewards,
            max_cycles=max_cycles, obs_type="vector" if obs_type == "belief_vector" else obs_type,
            view_radius=view_radius, grid_layout=grid_layout)
        self.max_cycles, self.slip = self.config.max_cycles, self.config.slip
        first, self.generator, count = first_map(self.config.layout, self.table_bytes)
        self._build(opponent, belief_filter, first, count)
        self._seed = seed
        self._rng: np.random.Generator | None = None
        # the games: global state, learner steps (or cycles), whether each ended in the last call
        self._state = np.zeros(n, dtype=np.int64)
        self._steps = np.zeros(n, dtype=np.int64)
        # each game's running return per side, and (same-step mode) the games that ended in the
        # last call with their episode's last state, return and length, taken before their reset
        self._returns = {side: np.zeros(n) for side in AGENTS}
        self._ended_games = np.zeros(0, dtype=np.int64)
        self._ended_states = np.zeros(0, dtype=np.int64)
        self._ended_returns = {side: np.zeros(0) for side in AGENTS}
        self._ended_lengths = np.zeros(0, dtype=np.int64)
        self._restart = np.zeros(0, dtype=np.int64)  # next-step mode: the games to restart next call
        self._ended = np.zeros(n, dtype=bool)  # two sides: ended in the agent's half of this turn
        self._phase: str | None = None  # two sides: whose half-turn is next
        self._buffers()

    @staticmethod
    def _refuse(unsupported: dict[str, Any]) -> None:
        known = {"render_mode", "use_ghost", "expert", "action_mask_in_obs", "append_step_count", "show_belief",
                 "config", "opponent_obs_type"}
        defaults = {"render_mode": None, "use_ghost": True, "expert": None, "action_mask_in_obs": False,
                    "append_step_count": False, "show_belief": True, "opponent_obs_type": "dict"}
        for key, value in unsupported.items():
            if key not in known:
                raise TypeError(f"BatchedGame got an unexpected keyword argument {key!r}")
            if key not in defaults or (value is not defaults[key] and value != defaults[key]):
                raise UnsupportedSetting(f"the batched engine does not serve {key}={value!r} (the single envs do)")

    # -- construction ----------------------------------------------------------------------------
    def _build(self, opponent: Any, belief_filter: str | None, first: Layout, count: int) -> None:
        """Every table, per map, stacked (see the module docstring): the ``count`` maps from
        ``first`` on, measured against the budget from the first before the others are built."""
        cells = first.rows * first.cols
        self.num_cells, self._states = cells, cells * cells
        sides = [Side.AGENT, Side.GHOST] if self.controlled is None else [Side.AGENT if self.controlled == AGENT
                                                                          else Side.GHOST]
        self._sides = tuple(AGENTS[side] for side in sides)
        head = build_map_parts(self.config, first, with_filter=False)
        bounds, sizes = slip_bounds(head.kernel)
        self._k = k = int(sizes.max())
        self._bounds = bounds
        self._same_bounds = bool((bounds == bounds[0]).all())
        if self.controlled == GHOST and not self._same_bounds:
            raise UnsupportedSetting("a learning ghost's opponent agent slips by one uniform per move: the slip "
                                     "model must have the same outcome probabilities for every action")
        opponent_side = None if self.controlled is None else (Side.GHOST if self.controlled == AGENT else Side.AGENT)
        if opponent_side is not None and opponent is None:
            opponent = DEFAULT_OPPONENTS[self.controlled]  # type: ignore[index]  # one learner here
        if isinstance(opponent, np.ndarray) and count > 1:
            raise ValueError("an opponent table belongs to one map, and the games play several; pass a name or a "
                             "StatePolicy class, built for every map")

        def answers(game: Game) -> np.ndarray | None:
            return None if opponent_side is None else opponent_table(opponent, game, opponent_side)

        first_answers = answers(head.kernel)
        self._random_opponent = opponent_side is not None and first_answers is None
        b = NUM_ACTIONS if self._random_opponent else 1
        self._b = b
        belief_size = cells if self.obs_type == "belief_vector" else 0
        # The belief planes are the engine's own: its space is the encoding's with them.
        space_encoder = head.encoder if not belief_size else build_encoder(
            dataclasses.replace(self.config, obs_type="belief_vector"), head.kernel.board,
            lambda: np.zeros(first.shape))
        self.observation_space = space_encoder.space(sides[0])
        estimate = self._table_bytes(count, first.rows, first.cols, k, b, sides)
        if estimate > self.table_bytes:
            raise tables_refused(f"the batched tables of {count:,} map(s) of {first.rows}x{first.cols} with "
                                 f"obs_type={self.obs_type!r}", estimate, self.table_bytes)
        self.layouts = layouts = all_maps(first, self.generator, count)
        parts = [head, *(build_map_parts(self.config, layout, with_filter=False) for layout in layouts[1:])]
        games = [part.kernel for part in parts]
        # A learning ghost's first step also pays its reward for the agent's opening move, played
        # by the reset (which returns no reward), as the single-agent view does.
        self._opening_reward = episode.opening_reward(games[0]) if self.controlled == GHOST else 0.0
        if self.controlled == GHOST:
            for game in games:
                if game.opening_can_end():
                    raise ValueError(f"controlled='ghost' needs maps where the agent's opening move cannot end the "
                                     f"game; on {game.layout.name or 'this layout'} it can")
        opponents = [first_answers, *(answers(game) for game in games[1:])]
        bound_sensors = [part.sensors for part in parts]
        self.sensors = bound_sensors[0]
        self.sensor_tables = sensor_tables(bound_sensors)
        self._draw_readings = self.controlled != GHOST
        per_game = self._game_bytes(int(np.prod(self.observation_space.shape or ())), len(self.sensors),
                                    belief_filter is not None)
        check_buffers(self.num_games, per_game, f"{len(sides)} learning side(s) with obs_type={self.obs_type!r} "
                                                 f"on {layouts[0].rows}x{layouts[0].cols} maps"
                                                 + (" and the exact filter" if belief_filter is not None else ""))
        self.filter = None if belief_filter is None else BatchedHistogramFilter(layouts, self.slip, self.sensors,
                                                                                self.num_games)
        # each map's tables are written into the stacked ones as they are made: the peak is the
        # tables plus one map's temporaries, not twice the tables (as a concatenation would take)
        self._tables = {}
        for m, game in enumerate(games):
            half = half_turns(game, k)
            offset = m * self._states
            tables: dict[str, np.ndarray] = {}
            if self.controlled == AGENT:
                tables.update(self._fold_agent(half, opponents[m], b, offset))
            elif self.controlled == GHOST:
                tables.update(self._fold_ghost(half, opponents[m], b, offset, game))
            else:
                for mover in ("agent", "ghost"):
                    tables[f"{mover}_next"] = half[f"{mover}_next"].ravel() + offset
                    tables[f"{mover}_outcome"] = half[f"{mover}_outcome"].ravel()
                    tables[f"{mover}_rewards"] = half[f"{mover}_rewards"].reshape(2, -1)
            for key, table in tables.items():
                if m == 0:
                    self._tables[key] = np.empty((*table.shape[:-1], table.shape[-1] * len(games)), table.dtype)
                width = table.shape[-1]
                self._tables[key][..., m * width : (m + 1) * width] = table
        self._tables["start"] = np.array([m * self._states + game.board.index(game.layout.agent_start) * cells
                                          + game.board.index(game.layout.ghost_start) for m, game in enumerate(games)])
        # global state (map * cells**2 + agent * cells + ghost) -> global agent cell (map * cells + agent)
        self._tables["agent_cell"] = np.arange(len(games) * self._states) // cells
        self._observations: dict[str, np.ndarray] = {}
        self._flagged: dict[str, bool] = {}
        self._grids: dict[str, GridPlanes] = {}
        for side in sides:
            if self.obs_type == "grid":  # from positions and per-map planes: no joint-state table
                self._grids[AGENTS[side]] = GridPlanes([part.encoder for part in parts], [game.board for game in games],
                                                       side, self.config.view_radius,
                                                       self.config.grid_layout == "hwc")
                continue
            planes = np.empty(0, dtype=np.float32)
            for m, part in enumerate(parts):  # written in place, as the turn tables are
                table = observation_table(part.encoder, side, cells)
                if m == 0:
                    planes = np.empty((len(table), len(parts) * self._states, *table.shape[2:]), table.dtype)
                planes[:, m * self._states : (m + 1) * self._states] = table
            self._flagged[AGENTS[side]] = planes.shape[0] == 2
            table = planes.reshape(-1, *planes.shape[2:])
            if belief_size:
                ones = np.zeros((len(table), belief_size), dtype=np.float32)
                if side == Side.GHOST:  # the ghost's exact belief about itself is its own cell, one-hot
                    ones[np.arange(len(table)), np.arange(len(table)) % cells] = 1.0
                table = np.concatenate((table, ones), axis=1)
            self._observations[AGENTS[side]] = np.ascontiguousarray(table)
        self._masks = np.concatenate([np.array(game.board.action_mask) for game in games]).astype(np.int8)
        self._goals = np.concatenate([np.asarray(game.goals, dtype=bool) for game in games])
        # The cells that are a goal of some map: where reset(starts=...) may not put the agent.
        self._goal_anywhere: np.ndarray = np.logical_or.reduce(self._goals.reshape(len(games), -1), axis=0)

    def _table_bytes(self, maps: int, rows: int, cols: int, k: int, b: int, sides: list[Side]) -> int:
        """An upper estimate of the bytes the tables take: the folded turn tables'
        :data:`TABLE_ENTRY_BYTES` an entry, and per observing side the observations: the static
        planes of :class:`GridPlanes` for the grid, else the joint-state table (both to-move
        planes, as :func:`observation_table` may keep them)."""
        cells = rows * cols
        states = maps * cells * cells
        entries = states * NUM_ACTIONS * b * k if self.controlled is not None else states * NUM_ACTIONS * (k + 1)
        parts = maps * MAP_PART_BYTES
        if self.obs_type == "grid":
            observations = grid_bytes(maps, rows, cols, self.config.view_radius)
            parts += maps * encoder_bytes(rows, cols, self.config.view_radius)
        else:
            observations = 2 * states * int(np.prod(self.observation_space.shape or ())) * 4
        return entries * TABLE_ENTRY_BYTES + observations * len(sides) + parts

    def _game_bytes(self, observation_size: int, sensors: int, filtered: bool) -> int:
        """An upper estimate of the bytes one game takes in the engine's per-game buffers: its
        state and a step's index arrays, flags, rewards and temporaries; the uniforms of a step
        and of a reset and the readings (per sensor); per observing side the observation buffer,
        the final observations of a same-step reset, the vector env's copy and a gather's
        temporary; the filter's. Checked against tracemalloc's peak over resets and steps."""
        fixed = 160
        if self.obs_type == "grid":
            fixed += len(self._sides) * gather_bytes(self.config.view_radius, self.config.grid_layout == "hwc")
        draws = 8 * (2 * (2 + sensors) + 2 * sensors)
        observations = 4 * 4 * observation_size * len(self._sides)
        return fixed + draws + observations + (filter_game_bytes(self.num_cells) if filtered else 0)

    def _fold_agent(self, half: dict[str, np.ndarray], opponent: np.ndarray | None, b: int,
                    offset: int) -> dict[str, np.ndarray]:
        """The learning agent's turn: its move, then the ghost's table (or random) answer, as
        ``[state, action, ghost action, slip outcome]`` tables."""
        first, ended = half["agent_next"][:, :, None, :], half["agent_outcome"][:, :, None, :]  # [s, a, 1, k]
        answer = np.arange(NUM_ACTIONS)[None, None, :, None] if opponent is None else opponent[first]
        second, caught = half["ghost_next"][first, answer], half["ghost_outcome"][first, answer]
        over = ended != ONGOING
        reward = half["agent_rewards"][0][:, :, None, :] + np.where(over, 0.0, half["ghost_rewards"][0][first, answer])
        shape = (len(first), NUM_ACTIONS, b, self._k)
        return {
            "next": (np.broadcast_to(np.where(over, first, second), shape) + offset).ravel(),
            "terminated": np.broadcast_to((ended != ONGOING) | (caught != ONGOING), shape).ravel(),
            "reward": np.broadcast_to(reward, shape).ravel().astype(np.float64),
            # the global cell where the agent's reading is taken, after its move
            "reading": (np.broadcast_to(first // self.num_cells, shape) + offset // self.num_cells).ravel(),
        }

    def _fold_ghost(self, half: dict[str, np.ndarray], opponent: np.ndarray | None, b: int, offset: int,
                    game: Game) -> dict[str, np.ndarray]:
        """The learning ghost's turn: its move, then the agent's table (or random) answer with
        slip, as ``[state, action, agent action, slip outcome]`` tables; and the opening move
        that ``reset`` plays, ``[agent action, slip outcome]``."""
        first, ended = half["ghost_next"][:, :, None, None], half["ghost_outcome"][:, :, None, None]  # [s, a, 1, 1]
        answer = np.arange(NUM_ACTIONS)[None, None, :, None] if opponent is None else opponent[first]
        slip = np.arange(self._k)[None, None, None, :]
        second, landed = half["agent_next"][first, answer, slip], half["agent_outcome"][first, answer, slip]
        over = ended != ONGOING
        reward = half["ghost_rewards"][1][:, :, None, None] + np.where(over, 0.0,
                                                                       half["agent_rewards"][1][first, answer, slip])
        shape = (len(half["ghost_next"]), NUM_ACTIONS, b, self._k)
        start = game.board.index(game.layout.agent_start) * game.num_cells + game.board.index(game.layout.ghost_start)
        opening = np.arange(NUM_ACTIONS) if opponent is None else opponent[[start]]
        return {
            "next": (np.broadcast_to(np.where(over, first, second), shape) + offset).ravel(),
            "terminated": np.broadcast_to((ended != ONGOING) | (landed != ONGOING), shape).ravel(),
            "reward": np.broadcast_to(reward, shape).ravel().astype(np.float64),
            "opening": (half["agent_next"][start, opening] + offset).ravel(),  # [agent action, slip]
        }

    def _buffers(self) -> None:
        n = self.num_games
        # a step's uniforms: the slip, the random opponent's action (if any), each sensor's reading
        sensors = len(self.sensor_tables.counts) if self._draw_readings else 0
        self._sensor_row = 1 + (self._b > 1)
        self._uniforms = np.empty((self._sensor_row + sensors, n))
        self._bools = np.empty(n, dtype=bool)
        self._waiting = np.ones(n, dtype=bool)
        self._index = np.empty(n, dtype=np.int64)
        self._scratch = np.empty(n, dtype=np.int64)
        self._hit = np.empty(n, dtype=bool)
        self._next = np.empty(n, dtype=np.int64)
        self._outcome = np.empty(n, dtype=np.int8)
        self._terminated = np.zeros(n, dtype=bool)
        self._truncated = np.zeros(n, dtype=bool)
        self._rewards = {side: np.zeros(n) for side in AGENTS}
        shape = self.observation_space.shape or ()
        self._obs = {side: np.empty((n, *shape), dtype=np.float32) for side in self._sides}
        self.readings = np.zeros((len(self.sensor_tables.counts), n), dtype=np.int64)
        self._no_games = np.zeros(0, dtype=np.int64)
        self._no_finals = {side: np.zeros((0, *shape), dtype=np.float32) for side in self._sides}

    # -- the public calls --------------------------------------------------------------------------
    def export_tables(self) -> EngineTables:
        """The tables every step reads (:class:`EngineTables`), read-only views of the engine's
        own: another engine plays them to follow these rules exactly.

        Raises:
            UnsupportedSetting: ``obs_type="belief_vector"``, whose belief comes from the
                engine's filter, not from a table.
        """
        if self.filter is not None:
            raise UnsupportedSetting("the belief of obs_type='belief_vector' is the engine's filter, not a table: "
                                     "export the tables of obs_type='vector' or 'grid'")

        def frozen(array: np.ndarray) -> np.ndarray:
            view = array.view()
            view.setflags(write=False)
            return view

        names = ("next", "reward", "terminated", "agent_next", "agent_outcome", "agent_rewards", "ghost_next",
                 "ghost_outcome", "ghost_rewards")
        turns = {key: frozen(self._tables[key]) for key in names if key in self._tables}
        opening = self._tables.get("opening")
        return EngineTables(
            controlled=self.controlled, num_maps=len(self.layouts), num_cells=self.num_cells, k=self._k, b=self._b,
            bounds=frozen(self._bounds), turns=turns, start=frozen(self._tables["start"]),
            opening=None if opening is None else frozen(opening), opening_reward=float(self._opening_reward),
            observations={side: frozen(table) for side, table in self._observations.items()},
            grids={side: grid.export() for side, grid in self._grids.items()}, masks=frozen(self._masks),
            goals=frozen(self._goals), goal_anywhere=frozen(self._goal_anywhere), max_cycles=self.max_cycles,
            max_episode_steps=self.max_episode_steps)

    @property
    def maps(self) -> np.ndarray:
        """``int64[N]``: the index into :attr:`layouts` of each game's current map."""
        return self._state // self._states

    @property
    def levels(self) -> np.ndarray | None:
        """``int64[N]``: each game's level with a map generator, else ``None``."""
        return None if self.generator is None else self.maps + self.generator.start_level

    @property
    def positions(self) -> tuple[np.ndarray, np.ndarray]:
        """``(agent cells, ghost cells)``, ``int64[N]`` each: the games' true states (cell indices)."""
        return np.divmod(self._state % self._states, self.num_cells)

    def action_masks(self, side: str | None = None) -> np.ndarray:
        """``int8[N, 4]``: 1 where a move changes the cell of ``side`` (default: the learner's;
        required with two learners), as the single envs' ``info["action_mask"]``.

        Raises:
            ValueError: an unknown side, or none given with two learners.
        """
        side = self._side(side)
        agents, ghosts = self.positions
        cells = (agents if side == AGENT else ghosts) + self.maps * self.num_cells
        return self._masks[cells]

    def episodes(self, side: str | None = None) -> EpisodeStats:
        """Per game, its episode as of the last call (:class:`EpisodeStats`): a game that ended
        in that call gives the episode that ended, also in same-step mode, where it has already
        restarted; any other game its episode so far. Computed when asked (the engine keeps
        only the running returns and steps), so ask once per call that ends games.

        Args:
            side: whose return and success (default: the learner's; required with two learners).

        Returns:
            ``EpisodeStats(returns, lengths, successes)``: ``float64[N]``, the undiscounted sum of
            ``side``'s rewards; ``int64[N]``, its steps (learner steps with one learner, full
            turns with two); ``bool[N]``, the episode's state is ``side``'s win: the agent on a
            goal (not caught) for the agent, the agent caught for the ghost.

        Raises:
            ValueError: an unknown side, or none given with two learners.
        """
        side = self._side(side)
        returns, lengths, states = self._returns[side].copy(), self._steps.copy(), self._state.copy()
        ended = self._ended_games
        if len(ended):
            returns[ended] = self._ended_returns[side]
            lengths[ended] = self._ended_lengths
            states[ended] = self._ended_states
        maps, local = np.divmod(states, self._states)
        agents, ghosts = np.divmod(local, self.num_cells)
        caught = agents == ghosts
        successes = caught if side == GHOST else self._goals[maps * self.num_cells + agents] & ~caught
        return EpisodeStats(returns, lengths, successes)

    def _side(self, side: str | None) -> str:
        """``side``, or the learner's when it is ``None``; refused when unknown, or when
        ``None`` with two learners."""
        side = self.controlled if side is None else side
        if side is None:
            raise ValueError("with two learning sides pass side='agent' or 'ghost'")
        return check_choice(side, "side", AGENTS)

    def reset(self, seed: int | Sequence[int] | None = None, games: Any = None,
              starts: tuple[Any, Any] | None = None) -> dict[str, np.ndarray]:
        """Start new episodes in every game (or in ``games``, a bool mask or indices), each on
        a level drawn from the generator's set with a map generator.

        Args:
            seed: reseeds the batch's generator (an int >= 0 or a list of them); ``None``
                continues it (fresh entropy on the first reset, unless the constructor had a seed).
            games: ``None`` for all, a bool mask of shape ``(N,)``, or the indices of the games
                to reset, each once.
            starts: ``None`` (the maps' start cells), or ``(agent cells, ghost cells)``: one cell
                index (``row * cols + col``) per reset game, in the order of ``games`` as given
                (a mask's games in increasing order), the two differing and the agent's a goal of
                none of the engine's maps.
                The episodes start there with the agent to move; not with a learning ghost alone,
                whose episodes begin after the agent's opening move from the map's starts. For
                exploring starts and curricula; the draws are the same as without it.

        Returns:
            Per observing side, the observations ``(N, ...)`` (the engine's buffer).

        Raises:
            TypeError, ValueError: a bad seed, ``games`` (a game named twice included) or
                ``starts`` (the message says which game and cell); nothing is drawn, reseeded or
                reset then.
        """
        seeds = None if seed is None else _seed_sequence(seed)
        rows = np.arange(self.num_games) if games is None else checked_games(games, self.num_games)
        if games is not None and self._phase == GHOST:
            raise RuntimeError("games can be reset one by one only between turns; call step_ghost first")
        cells = None if starts is None else self._checked_starts(starts, rows)
        if seeds is not None or self._rng is None:
            self._rng = np.random.default_rng(seeds if seeds is not None else _seed_sequence(self._seed))
        self._reset_rows(rows, cells)
        self._restart = self._restart[~np.isin(self._restart, rows)]
        self._ended_games = self._ended_games[~np.isin(self._ended_games, rows)]
        if self.controlled is None:
            self._phase = AGENT
        self._observe(None, self._waiting if self.controlled is None else None)
        return dict(self._obs)

    def step_agent(self, actions: Any) -> BatchedStep:
        """The agent's move in every game: with ``controlled="agent"`` a full turn (its move, then
        the opponent's answer); with two learners its half-turn (then :meth:`step_ghost`).

        Raises:
            TypeError, ValueError: ``actions`` is not an int array of shape ``(N,)`` in 0..3.
            RuntimeError: before :meth:`reset`, with a learning ghost alone, or when the ghost is
                to move.
        """
        return self._step(AGENT, actions)

    def step_ghost(self, actions: Any) -> BatchedStep:
        """The ghost's move in every game: with ``controlled="ghost"`` a full turn (its move, then
        the opponent agent's answer); with two learners its half-turn, which ends the turn (games
        that ended in the agent's half ignore their action, and every finished game resets).

        Raises:
            TypeError, ValueError: ``actions`` is not an int array of shape ``(N,)`` in 0..3.
            RuntimeError: before :meth:`reset`, with a learning agent alone, or when the agent is
                to move.
        """
        return self._step(GHOST, actions)

    def _step(self, side: str, actions: Any) -> BatchedStep:
        other = GHOST if side == AGENT else AGENT
        if self.controlled == other:
            raise RuntimeError(f"the {side} is the built-in opponent here (controlled={other!r}); call step_{other}")
        if self._rng is None:
            raise RuntimeError("call reset() before stepping")
        if self._phase is not None and self._phase != side:
            raise RuntimeError(f"it is the {self._phase}'s half-turn; call step_{self._phase}")
        checked = checked_actions(actions, self.num_games, "actions")
        if self.controlled is None:
            return self._agent_half(checked) if side == AGENT else self._ghost_half(checked)
        return self._turn(checked)

    # -- one learner -------------------------------------------------------------------------------
    def _turn(self, actions: np.ndarray) -> BatchedStep:
        """The learner's move and the opponent's answer, from the folded tables; in next-step
        mode the games that ended in the last call restart instead (their action ignored)."""
        uniforms, index, tables = self._uniforms, self._index, self._tables
        self._rng.random(out=uniforms)  # type: ignore[union-attr]  # set by reset
        # index = ((state * 4 + action) * b + opponent's action) * k + slip outcome
        np.multiply(self._state, NUM_ACTIONS, out=index)
        index += actions
        if self._b > 1:
            index *= self._b
            index += (uniforms[1] * self._b).astype(np.int64)
        index *= self._k
        self._add_slip(index, uniforms[0], actions)
        next_states, terminated, truncated = self._next, self._terminated, self._truncated
        tables["next"].take(index, out=next_states, mode="clip")
        reward = self._rewards[self.controlled]  # type: ignore[index]
        tables["reward"].take(index, out=reward, mode="clip")
        tables["terminated"].take(index, out=terminated, mode="clip")
        episode.with_opening_reward(reward, self._steps, self._opening_reward, out=reward, scratch=self._bools)
        learner = _AGENT_TO_MOVE if self.controlled == AGENT else _GHOST_TO_MOVE
        # a turn is the learner's half and the opponent's answer: the learner moves next
        episode.count_cycles(self._steps, episode.next_mover(episode.next_mover(learner)), learner, out=self._steps)
        self._returns[self.controlled] += reward  # type: ignore[index]  # one learner here
        restart = self._restart
        maps = None
        if len(restart):  # ended in the last call (next-step mode): a new episode instead
            opponent = uniforms[1, restart] if self._b > 1 else None
            starts, maps = self._starts(len(restart), uniforms[0, restart], opponent)
            next_states[restart] = starts
            reward[restart] = 0.0
            terminated[restart] = False
            self._steps[restart] = 0
            self._returns[self.controlled][restart] = 0.0  # type: ignore[index]  # one learner here
        self._truncate(terminated, truncated)
        if self._draw_readings:
            cells = self._scratch
            tables["reading"].take(index, out=cells, mode="clip")
            if len(restart):
                cells[restart] = tables["agent_cell"][next_states[restart]]
            self._read(cells, uniforms, self._sensor_row)
            if self.filter is not None:
                self.filter.advance(actions)
                if len(restart):
                    self.filter.reset(restart, maps)
                self.filter.weigh(self.readings)
        return self._finish(terminated, truncated)

    def _add_slip(self, index: np.ndarray, uniform: np.ndarray, actions: np.ndarray) -> None:
        """``index += the slip outcome`` of each game's move, drawn from ``uniform``."""
        if self._same_bounds:
            episode.slip_outcome(uniform, self._bounds[0], out=index, scratch=self._hit)
        else:
            episode.slip_outcome(uniform, self._bounds, actions, out=index, scratch=self._hit)

    def _truncate(self, terminated: np.ndarray, truncated: np.ndarray) -> None:
        """Set ``truncated`` from the step count: the TimeLimit one whatever the outcome, the
        game's own only where it goes on."""
        episode.truncated(self._steps, terminated, self.max_cycles, self.max_episode_steps, out=truncated)

    def _read(self, cells: np.ndarray, uniforms: np.ndarray, first_row: int, rows: Any = None) -> None:
        """Draw every sensor's reading with the agent on ``cells`` (global cells) into
        :attr:`readings` (of the games ``rows``; all by default)."""
        whole = rows is None
        for s, thresholds in enumerate(self.sensor_tables.thresholds):
            uniform = uniforms[first_row + s]
            reading = self.readings[s] if whole else np.zeros(len(cells), dtype=np.int64)
            hit = self._bools if whole else np.empty(len(cells), dtype=bool)
            reading.fill(0)
            for bound in thresholds:
                np.greater_equal(uniform, bound.take(cells, mode="clip"), out=hit)
                reading += hit
            if not whole:
                self.readings[s, rows] = reading

    def _finish(self, terminated: np.ndarray, truncated: np.ndarray) -> BatchedStep:
        """Take the next states, auto-reset the games that ended (same-step mode; next-step mode
        marks them for the next call) and gather the observations."""
        # every call of this ends a turn: the agent (a learner alone: itself) moves next
        done = episode.resets_now(terminated | truncated)
        self._state, self._next = self._next, self._state
        final_games, finals = self._no_games, self._no_finals
        two_sides = self.controlled is None
        if self.autoreset_mode == "same_step":
            final_games = np.flatnonzero(done)
            self._ended_games = final_games
            if len(final_games):
                self._ended_states = self._state[final_games]
                self._ended_lengths = self._steps[final_games]
                self._ended_returns = {side: self._returns[side][final_games] for side in self._rewards_of()}
                ended = terminated[final_games]
                finals = {side: self._gather(side, self._state[final_games],
                                             self._waiting[final_games] if two_sides and side == GHOST else ended,
                                             final_games) for side in self._sides}
                self._reset_rows(final_games)
            self._observe(None, self._waiting if two_sides else None)
        else:
            self._restart = np.flatnonzero(done)
            self._observe(terminated, terminated)
        return BatchedStep(dict(self._obs), {side: self._rewards[side] for side in self._rewards_of()},
                           terminated, truncated, final_games, finals)

    def _rewards_of(self) -> tuple[str, ...]:
        return AGENTS if self.controlled is None else (self.controlled,)

    # -- two learners --------------------------------------------------------------------------------
    def _agent_half(self, actions: np.ndarray) -> BatchedStep:
        uniforms, index, tables = self._uniforms, self._index, self._tables
        self._rng.random(out=uniforms)  # type: ignore[union-attr]
        np.multiply(self._state, NUM_ACTIONS, out=index)
        index += actions
        index *= self._k
        self._add_slip(index, uniforms[0], actions)
        tables["agent_next"].take(index, out=self._next, mode="clip")
        tables["agent_outcome"].take(index, out=self._outcome, mode="clip")
        for s, side in enumerate(AGENTS):
            tables["agent_rewards"][s].take(index, out=self._rewards[side], mode="clip")
            self._returns[side] += self._rewards[side]
        np.not_equal(self._outcome, ONGOING, out=self._terminated)
        np.copyto(self._ended, self._terminated)
        self._ended_games = self._no_games  # a game ends its turn (and resets) in the ghost's half
        self._truncated.fill(False)
        self._read(tables["agent_cell"].take(self._next), uniforms, 1)
        if self.filter is not None:
            self.filter.advance(actions)
            self.filter.weigh(self.readings)
        self._state, self._next = self._next, self._state
        self._phase = AGENTS[episode.next_mover(_AGENT_TO_MOVE)]
        self._observe(self._waiting, self._terminated)
        return BatchedStep(dict(self._obs), dict(self._rewards), self._terminated, self._truncated,
                           self._no_games, self._no_finals)

    def _ghost_half(self, actions: np.ndarray) -> BatchedStep:
        index, tables = self._index, self._tables
        np.multiply(self._state, NUM_ACTIONS, out=index)
        index += actions
        tables["ghost_next"].take(index, out=self._next, mode="clip")
        tables["ghost_outcome"].take(index, out=self._outcome, mode="clip")
        for s, side in enumerate(AGENTS):
            tables["ghost_rewards"][s].take(index, out=self._rewards[side], mode="clip")
        terminated, truncated = self._terminated, self._truncated
        np.not_equal(self._outcome, ONGOING, out=terminated)
        # the games that ended in the agent's half: the ghost does not move
        episode.ghost_half_after_end(self._ended, self._state, self._next, (self._rewards[AGENT], self._rewards[GHOST]),
                                     terminated, inplace=True)
        for side in AGENTS:
            self._returns[side] += self._rewards[side]
        episode.count_cycles(self._steps, episode.next_mover(_GHOST_TO_MOVE), out=self._steps)
        self._truncate(terminated, truncated)
        self._phase = AGENTS[episode.next_mover(_GHOST_TO_MOVE)]
        self._ended.fill(False)
        return self._finish(terminated, truncated)

    # -- resets and observations ---------------------------------------------------------------------
    def _starts(self, count: int, slip: np.ndarray,
                opponent: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
        """The first states of ``count`` new episodes and their maps (``None`` with one map): a
        level drawn per game; for a learning ghost, after the opponent agent's opening move, its
        action from the uniforms ``opponent`` (random opponent) and its slip from ``slip``."""
        starts = self._tables["start"]
        maps = None
        if len(starts) > 1:
            maps = self._rng.integers(len(starts), size=count)  # type: ignore[union-attr]  # set by reset
            states = starts[maps]
        else:
            states = np.full(count, starts[0])
        if self.controlled == GHOST:  # the opening move, from the [map, agent action, slip] table
            opening = np.zeros(count, dtype=np.int64) if maps is None else maps * (self._b * self._k)
            if opponent is not None:
                opening += (opponent * self._b).astype(np.int64) * self._k
            opening += episode.slip_outcome(slip, self._bounds[0])
            states = self._tables["opening"][opening]
        return states, maps

    def _checked_starts(self, starts: Any, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``starts`` of :meth:`reset` for games ``rows`` as two int64 arrays of cells in range,
        each pair distinct and no agent on a goal of any map."""
        if self.controlled == GHOST:
            raise ValueError("starts places games with the agent to move; a learning ghost alone begins after the "
                             "agent's opening move from the map's starts (use controlled=None or 'agent')")
        if not (isinstance(starts, tuple) and len(starts) == 2):
            raise TypeError(f"starts must be None or a tuple (agent cells, ghost cells), got {type(starts).__name__}")
        count = len(rows)
        pair = []
        for name, values in zip(("agent", "ghost"), starts, strict=True):
            array = np.asarray(values)
            if array.shape != (count,) or (count and array.dtype.kind not in "iu"):
                raise TypeError(f"starts: the {name} cells must be an int array of shape ({count},) (one per reset "
                                f"game), got {array.dtype} {array.shape}")
            if count and not 0 <= array.min() <= array.max() < self.num_cells:
                raise ValueError(f"starts: the {name} cells must lie in 0..{self.num_cells - 1}")
            pair.append(array.astype(np.int64))
        same = np.flatnonzero(pair[0] == pair[1])
        if len(same):
            raise ValueError(f"starts: the agent and the ghost must start on different cells; game {rows[same[0]]} "
                             f"puts both on cell {pair[0][same[0]]}")
        # The map a game plays is drawn at its reset: no start may be a goal of any of them.
        on_goal = np.flatnonzero(self._goal_anywhere[pair[0]])
        if len(on_goal):
            raise ValueError(f"starts: the agent cannot start on a goal; game {rows[on_goal[0]]} starts it on cell "
                             f"{pair[0][on_goal[0]]}, a goal of {'its map' if len(self.layouts) == 1 else 'a map'}")
        return pair[0], pair[1]

    def _reset_rows(self, rows: np.ndarray, cells: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        """Start new episodes in games ``rows`` now, from draws of their own: the first states
        (on ``cells``, when given), the readings there and the filter."""
        uniforms = self._rng.random((2 + len(self.sensor_tables.counts), len(rows)))  # type: ignore[union-attr]
        states, maps = self._starts(len(rows), uniforms[0], uniforms[1] if self._b > 1 else None)
        if cells is not None:
            agents, ghosts = cells
            states = states - states % self._states + agents * self.num_cells + ghosts  # on the drawn map
        self._state[rows] = states
        self._steps[rows] = 0
        for side in AGENTS:
            self._returns[side][rows] = 0.0
        if self._draw_readings:
            self._read(self._tables["agent_cell"].take(states), uniforms, 2, rows)
            if self.filter is not None:
                self.filter.reset(rows, maps)
                self.filter.weigh(self.readings[:, rows], games=rows)

    def _observe(self, agent_waits: np.ndarray | None, ghost_waits: np.ndarray | None) -> None:
        """Gather every observing side's observations of the current states; ``*_waits``: where
        that side is not to move (its opponent's turn, or the game is over), ``None`` for nowhere."""
        for side in self._sides:
            self._gather(side, self._state, agent_waits if side == AGENT else ghost_waits, None, out=self._obs[side])

    def _gather(self, side: str, states: np.ndarray, not_to_move: np.ndarray | None, games: np.ndarray | None,
                out: np.ndarray | None = None) -> np.ndarray:
        """The observations of ``states`` from ``side``: the grid from the positions, or the
        table rows plus the belief."""
        grid = self._grids.get(side)
        if grid is not None:
            maps, local = np.divmod(states, self._states)
            if out is None:
                out = np.empty((len(states), *grid.shape), dtype=np.float32)
            return grid.gather(maps, local, not_to_move, out)
        table = self._observations[side]
        keys = states
        if self._flagged[side] and not_to_move is not None:
            keys = states + not_to_move * (len(table) // 2)
        observations = table.take(keys, axis=0, out=out, mode="clip")  # clip: no checked copy (in range)
        if self.filter is not None and side == AGENT:
            beliefs = self.filter.beliefs if games is None else self.filter.beliefs[games]
            observations[:, -self.num_cells:] = beliefs
        return observations


def _seed_sequence(seed: Any) -> np.random.SeedSequence | None:
    """A seed for the batch's generator: ``None``, an int >= 0 or a list of them."""
    if seed is None:
        return None
    values = [seed] if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)) else seed
    if not isinstance(values, (list, tuple)) or not values or any(
            isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 0 for v in values):
        raise TypeError(f"seed must be None, an int >= 0 or a list of them, got {seed!r}")
    return np.random.SeedSequence([int(v) for v in values])
