"""The batched engine: N games stepped in lockstep as arrays, for training at scale.

| Import        | ``from gridghost.batched import BatchedGame`` or                                 |
|               | ``gymnasium.make_vec("gridghost/GridGhost-v1", num_envs=N,``                     |
|               | ``vectorization_mode="vector_entry_point", obs_type="vector")``                  |
| Sides         | ``controlled="agent"`` or ``"ghost"`` against a built-in opponent (a table), or  |
|               | ``controlled=None``: both sides learn, half-turn by half-turn                    |
| Actions       | ``int[N]`` in 0..3 (0 left, 1 down, 2 right, 3 up)                               |
| Observations  | ``(N, ...)`` ``float32``: ``"vector"``, ``"grid"`` (egocentric too) or           |
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
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
from gymnasium.vector import AutoresetMode

# EngineTables and EpisodeStats are imported from here too (they lived here before the engine's split)
from gridghost.batched.build import EngineTables, TableBuilder  # noqa: F401
from gridghost.batched.limits import (
    UnsupportedSetting,
    check_count,
    checked_actions,
    checked_games,
    checked_team_actions,
    table_budget,
)
from gridghost.batched.observe import TEAM, Observer
from gridghost.batched.stats import EpisodeStats, GameStatistics  # noqa: F401
from gridghost.batched.tables import (
    ONGOING,
    first_map,
)
from gridghost.config.declaration import declared
from gridghost.config.settings import GameSpec, engine_spec
from gridghost.core import episode
from gridghost.core.checks import check_choice, check_limit, is_int
from gridghost.core.names import AGENT, AGENTS, GHOST
from gridghost.core.rules import NUM_ACTIONS

#: The encodings the batched engine serves (each row is the single env's encoder output).
BATCH_OBS_TYPES: tuple[str, ...] = tuple(declared(GameSpec)["obs_type"][1].served["batched"])
#: The turn rule (:func:`~gridghost.core.episode.next_mover`, :func:`~gridghost.core.episode.count_cycles`)
#: compiled for one learner's turn, its move and the opponent's answer, after which it moves again:
#: the steps the turn counts, by learner.
_TURN_CYCLES: dict[str, int] = {
    AGENTS[side]: int(episode.count_cycles(0, episode.next_mover(episode.next_mover(side)), side))
    for side in (episode.AGENT_TO_MOVE, episode.GHOST_TO_MOVE)
}
#: The auto-reset modes (Gymnasium's ``AutoresetMode.NEXT_STEP`` and ``SAME_STEP``).
AUTORESET_MODES: tuple[str, ...] = ("next_step", "same_step")
GYMNASIUM_MODES = {AutoresetMode.NEXT_STEP: "next_step", AutoresetMode.SAME_STEP: "same_step"}
_AGENT_TO_MOVE, _GHOST_TO_MOVE = episode.AGENT_TO_MOVE, episode.GHOST_TO_MOVE

#: The engine's computed path for teams (:class:`~gridghost.batched.positions.PositionGame`, a
#: subclass that registers itself here when :mod:`gridghost.batched` is imported), which
#: ``BatchedGame(..., ghosts=k)`` becomes for ``k >= 2``; listed here so that this module need not
#: import its own subclass.
COMPUTED_PATH: list[type[BatchedGame]] = []


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


# -- the engine --------------------------------------------------------------------------------------
class BatchedGame(TableBuilder, Observer, GameStatistics):
    """N games of gridghost stepped in lockstep as arrays (see the module docstring).

    The class is the stepper; its parts live apart: :class:`~gridghost.batched.build.TableBuilder`
    builds the tables, :class:`~gridghost.batched.observe.Observer` gathers the observations and
    readings, and :class:`~gridghost.batched.stats.GameStatistics` answers :meth:`episodes` and
    the games' maps, positions and masks.

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
        autoreset_mode: ``"next_step"`` (a game that ended shows its final observation, and the
            next call resets it and ignores its action; Gymnasium 1.x's default) or
            ``"same_step"`` (it resets in the call where it ended; its final observation is in
            :attr:`BatchedStep.final_observations`). ``None``: ``"next_step"`` with one learner,
            ``"same_step"`` (the only mode) with two.
        max_episode_steps: Gymnasium's ``TimeLimit`` in learner steps (``None``: none): truncates
            at the limit even when the game ended in that step, as the wrapper does. With one
            learner a learner step is a cycle (its move and the opponent's answer), the unit of
            the ``max_cycles`` setting, so the two limits count the same things; with two
            learners a step is a half-turn.
        table_bytes: the most memory the tables may take, an int >= 1 (bytes); ``None``:
            :data:`TABLE_BYTES` as it is set when the engine is built (512 MiB unless changed).
            Many levels (a ``MapGenerator`` with a large ``num_levels``) need more: the refusal
            says how much (docs/batched.md has a table of what fits).
        spec, **settings: the game's settings as the single envs take them
            (:class:`~gridghost.config.settings.GameSpec`), with the engines' defaults
            (:data:`~gridghost.config.settings.ENGINE_DEFAULTS`: ``obs_type="vector"`` and no
            ``max_cycles``, the game's own limit in cycles, which truncates an episode that did
            not end as the AEC env does). ``layout`` may be a
            :class:`~gridghost.maps.levels.MapGenerator` with ``num_levels``. The values the
            engine does not serve are declared with each setting (``GameSpec``'s ``served``:
            the encodings of :data:`BATCH_OBS_TYPES`, where ``"belief_vector"`` runs a
            :class:`BatchedHistogramFilter` for the agent, not with a learning ghost alone; the
            exact filter ``"histogram"``; the ghost in the game; ...).

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

    #: The side that :meth:`step_ghost` moves: the ghost, or a team's engine's whole team.
    _GHOST_SIDE: str = GHOST

    def __init__(self, num_games: int, seed: int | Sequence[int] | None = None, *,
                 controlled: str | None = AGENT, opponent: Any = None, autoreset_mode: str | None = None,
                 max_episode_steps: int | None = None, table_bytes: int | None = None,
                 spec: GameSpec | Mapping[str, Any] | None = None, **settings: Any) -> None:
        self.num_games = n = check_count(num_games, "num_games")
        #: The bytes the tables may take (``table_bytes``, or :data:`TABLE_BYTES` when built); checked
        #: first, so that the vector env's fallback to single envs never drops a bad one.
        self.table_bytes = table_budget(table_bytes)
        self.controlled = check_choice(controlled, "controlled", (*AGENTS, "ghosts"), allow_none=True)
        #: The game's settings as given, read and resolved as every view's are.
        self.spec = spec = engine_spec("batched", spec, settings, UnsupportedSetting)
        if spec.ghosts > 1:  # a team: the computed path, on positions (its methods replace the tables')
            self.__class__ = COMPUTED_PATH[0]
        elif self.controlled == "ghosts":
            raise UnsupportedSetting("controlled='ghosts' is the team's learner (ghosts >= 2); with one ghost pass "
                                     "controlled='ghost'")
        self.obs_type = obs_type = spec.obs_type
        # None or "histogram", the one filter served (obs_type="belief_vector" sets it)
        belief_filter: str | None = None if spec.belief_filter is None else "histogram"
        if belief_filter is not None and self.controlled in (GHOST, TEAM):
            alone = "team" if self.controlled == TEAM else "ghost"
            raise ValueError(f"belief_filter follows the agent; a learning {alone} alone has none "
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
        #: The settings the tables are built from: the encoding without the belief planes, which
        #: the engine appends from its own filter.
        self.config = dataclasses.replace(spec, obs_type="vector" if obs_type == "belief_vector" else obs_type,
                                          belief_filter=None)
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

    # -- construction ----------------------------------------------------------------------------
    def _buffers(self) -> None:
        """The per-game buffers a step writes (a team's engine adds its own)."""
        n = self.num_games
        # a step's uniforms: the slip, the random opponent's action(s) (if any), each sensor's reading
        sensors = len(self.sensor_tables.counts) if self._draw_readings else 0
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
        self._obs = {side: np.empty((n, *(self._spaces[side].shape or ())), dtype=np.float32) for side in self._sides}
        self.readings = np.zeros((len(self.sensor_tables.counts), n), dtype=np.int64)
        self._no_games = np.zeros(0, dtype=np.int64)
        self._no_finals = {side: np.zeros((0, *obs.shape[1:]), dtype=np.float32) for side, obs in self._obs.items()}

    # -- the public calls --------------------------------------------------------------------------
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
        mover = side if side == AGENT else self._GHOST_SIDE
        if self.controlled is not None and self.controlled != mover:
            call = "step_agent" if self.controlled == AGENT else "step_ghost"
            raise RuntimeError(f"the {mover} {'are' if mover == TEAM else 'is'} the built-in opponent here "
                               f"(controlled={self.controlled!r}); call {call}")
        if self._rng is None:
            raise RuntimeError("call reset() before stepping")
        if self._phase is not None and self._phase != side:
            raise RuntimeError(f"it is the {self._phase}'s half-turn; call step_{self._phase}")
        if mover == TEAM:
            checked = checked_team_actions(actions, self.num_games, self.spec.ghosts)
        else:
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
        if self._opening_reward:  # a learning ghost's first step (the hot path makes no call without one)
            episode.with_opening_reward(reward, self._steps, self._opening_reward, out=reward, scratch=self._bools)
        self._steps += _TURN_CYCLES[self.controlled]  # type: ignore[index]  # one learner here
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

    def _finish(self, terminated: np.ndarray, truncated: np.ndarray) -> BatchedStep:
        """Take the next states, auto-reset the games that ended (same-step mode; next-step mode
        marks them for the next call) and gather the observations."""
        # every call of this ends a turn: the agent (a learner alone: itself) moves next
        done = episode.resets_now(terminated | truncated)
        self._state, self._next = self._next, self._state
        final_games, finals = self._no_games, self._no_finals
        if self.autoreset_mode == "same_step":
            final_games = np.flatnonzero(done)
            self._ended_games = final_games
            if len(final_games):
                self._ended_lengths = self._steps[final_games]
                self._ended_returns = {side: self._returns[side][final_games] for side in self._rewards_of()}
                finals = self._final_observations(final_games, terminated[final_games])
                self._reset_rows(final_games)
            self._observe(None, self._waiting if self.controlled is None else None)
        else:
            self._restart = np.flatnonzero(done)
            self._observe(terminated, terminated)
        return BatchedStep(dict(self._obs), {side: self._rewards[side] for side in self._rewards_of()},
                           terminated, truncated, final_games, finals)

    def _final_observations(self, games: np.ndarray, ended: np.ndarray) -> dict[str, np.ndarray]:
        """Keep the final states of ``games`` (whose episodes ended, ``ended`` where the game
        did) for :meth:`episodes`; returns each side's final observations of them."""
        self._ended_states = self._state[games]
        return {side: self._gather(side, self._ended_states,
                                   self._waiting[games] if self.controlled is None and side == GHOST else ended, games)
                for side in self._sides}

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
        self._state, self._next = self._next, self._state
        return self._agent_half_end(tables["agent_cell"].take(self._state), self._outcome, uniforms, actions)

    def _agent_half_end(self, cells: np.ndarray, outcomes: np.ndarray, uniforms: np.ndarray,
                        actions: np.ndarray) -> BatchedStep:
        """The agent's half-turn after its rules (the rewards in :attr:`_rewards`): the returns,
        the games it ended, the readings at the agents' ``cells``, the filter, the observations."""
        for side in self._returns:
            self._returns[side] += self._rewards[side]
        np.not_equal(outcomes, ONGOING, out=self._terminated)
        np.copyto(self._ended, self._terminated)
        self._ended_games = self._no_games  # a game ends its turn (and resets) in the ghost's half
        self._truncated.fill(False)
        self._read(cells, uniforms, 1)
        if self.filter is not None:
            self.filter.advance(actions)
            self.filter.weigh(self.readings)
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
        terminated = self._terminated
        np.not_equal(self._outcome, ONGOING, out=terminated)
        # the games that ended in the agent's half: the ghost does not move
        episode.ghost_half_after_end(self._ended, self._state, self._next, (self._rewards[AGENT], self._rewards[GHOST]),
                                     terminated, inplace=True)
        return self._ghost_half_end(terminated)

    def _ghost_half_end(self, terminated: np.ndarray) -> BatchedStep:
        """The ghost's half-turn after its rules, which ends the turn: the returns, the count,
        truncation, and the games that ended restart (:meth:`_finish`)."""
        for side in self._returns:
            self._returns[side] += self._rewards[side]
        episode.count_cycles(self._steps, episode.next_mover(_GHOST_TO_MOVE), out=self._steps)
        self._truncate(terminated, self._truncated)
        self._phase = AGENTS[episode.next_mover(_GHOST_TO_MOVE)]
        self._ended.fill(False)
        return self._finish(terminated, self._truncated)

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
        """``starts`` of :meth:`reset` for games ``rows`` as two int64 arrays of cells in range:
        the agents' ``[n]`` and the ghosts' ``[n]`` (one ghost) or ``[n, k]`` (a team of ``k``),
        no ghost on its game's agent and no agent on a goal of any map."""
        k = self.spec.ghosts
        if self.controlled in (GHOST, TEAM):
            raise ValueError(f"starts places games with the agent to move; a learning {'team' if k > 1 else 'ghost'} "
                             "alone begins after the agent's opening move from the map's starts (use "
                             "controlled=None or 'agent')")
        if not (isinstance(starts, tuple) and len(starts) == 2):
            raise TypeError(f"starts must be None or a tuple (agent cells, ghost cells), got {type(starts).__name__}")
        count = len(rows)
        pair = []
        for name, values, shape in zip(("agent", "ghost"), starts, ((count,), (count, k) if k > 1 else (count,)),
                                       strict=True):
            array = np.asarray(values)
            if array.shape != shape or (count and array.dtype.kind not in "iu"):
                raise TypeError(f"starts: the {name} cells must be an int array of shape {shape} (one per reset "
                                f"game{' and ghost' if name == 'ghost' and k > 1 else ''}), got {array.dtype} "
                                f"{array.shape}")
            if count and not 0 <= array.min() <= array.max() < self.num_cells:
                raise ValueError(f"starts: the {name} cells must lie in 0..{self.num_cells - 1}")
            pair.append(array.astype(np.int64))
        same = np.flatnonzero((pair[1].reshape(count, -1) == pair[0][:, None]).any(axis=1))
        if len(same):
            clash = (f"no ghost may start on the agent's cell; game {rows[same[0]]} puts one" if k > 1 else
                     f"the agent and the ghost must start on different cells; game {rows[same[0]]} puts both")
            raise ValueError(f"starts: {clash} on cell {pair[0][same[0]]}")
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


def _seed_sequence(seed: Any) -> np.random.SeedSequence | None:
    """A seed for the batch's generator: ``None``, an int >= 0 or a list of them."""
    if seed is None:
        return None
    values = [seed] if is_int(seed) else seed
    if not isinstance(values, (list, tuple)) or not values or any(not is_int(v) or v < 0 for v in values):
        raise TypeError(f"seed must be None, an int >= 0 or a list of them, got {seed!r}")
    return np.random.SeedSequence([int(v) for v in values])
