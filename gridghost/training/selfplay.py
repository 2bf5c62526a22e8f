"""Self-play tooling: a pool of frozen opponents, the rules that draw from it, a Gymnasium env whose
opponent is drawn at every reset, win-rate bookkeeping, Elo ratings and an exact exploitability
curve. NumPy, Gymnasium and gridghost only: no deep-learning framework.

A typical loop trains one side against snapshots of the other, freezes the learner into the pool
every generation, and reads progress from the solver::

    pool = OpponentPool()
    pool.add("chase", "ghost")                       # generation 0 of the ghost
    env = SelfPlayEnv(pool, controlled="agent", rule="prioritised", obs_type="vector")
    ...                                              # train an agent on env; then
    pool.add(agent_policy, "agent")                  # a deep copy: later training leaves it be
    curve = exploitability_curve([(pool["agent-0"], pool["ghost-0"])])

Snapshots
    What :meth:`OpponentPool.add` takes: any policy a :class:`~gridghost.envs.single_agent.Duel` plays,
    or a tabulated one as :func:`gridghost.planning.tabulate_policy` returns it (the ghost's read
    with the ghost to move).

Sampling rules (:data:`SAMPLING_RULES`)
    ``"latest"``: the snapshot of the highest generation. ``"recent"``: the ``window`` snapshots of
    the highest generations alike (default 3): alternating best responses can cycle (a ghost that
    guards the agent's latest route leaves the previous one open, and the next agent takes it), and
    a window that holds both ends of the cycle makes the learner answer both at once, while
    snapshots long beaten no longer dilute its games. ``"uniform"``: every snapshot of the side
    alike (fictitious self-play). ``"prioritised"``: prioritised fictitious self-play as in
    AlphaStar (Vinyals et al., 2019): snapshot ``i`` has weight ``(1 - w_i) ** exponent``, where
    ``w_i`` is the learner's :meth:`OpponentPool.win_rate` against it, so the opponents the learner
    beats least are drawn most; ``exponent`` (``p``, default 2, AlphaStar's "hard" weighting)
    sharpens that preference, and ``exponent=0`` is the uniform rule.

Exploring starts
    Exploitability asks what a best response does in states that self-play's own games rarely
    reach: a learned ghost that has only ever chased the pool's agents along their favourite path
    leaves the other paths open. ``SelfPlayEnv(..., explore_starts=p)`` begins a fraction ``p`` of
    the episodes with a random opening: 1 to ``explore_turns`` uniformly random moves of the
    learner, answered by its opponent, that the learner neither sees nor is rewarded for; its
    episode starts where the opening left the game. The game is the same (same rules, same start
    state), only the learner's training states are spread out, so the exploitability from the start
    state stays a fair measure.

Randomness
    :class:`SelfPlayEnv` draws its opponents from a generator spawned from the reset seed on a
    stream of its own, :data:`SELFPLAY_STREAM`, and its random openings on another,
    :data:`OPENING_STREAM`, so neither shifts the game's, the opponent's, the filter's or the map
    generator's draws, nor each other's.
"""

from __future__ import annotations

import copy as copying
from collections.abc import Mapping
from typing import Any, ClassVar, cast

import numpy as np

from gridghost.config.opponents import DEFAULT_OPPONENTS, TEAM_DEFAULT_OPPONENTS
from gridghost.config.settings import with_defaults
from gridghost.core.checks import (
    check_choice,
    check_instance,
    check_limit,
    check_probability,
    check_seed,
)
from gridghost.core.names import AGENT, AGENTS, GHOST
from gridghost.core.rules import NUM_ACTIONS, SIDE_OF
from gridghost.envs.aec import GridGhostEnv
from gridghost.envs.duel import TEAM, Duel
from gridghost.envs.ghost_team import GhostTeamParallelEnv
from gridghost.envs.parallel import StepResults
from gridghost.envs.single_agent import GridGhostGymEnv
from gridghost.envs.tables import draw_action
from gridghost.planning import StatePolicy

# The pool and the ratings live in pool and ratings; their names import from here too.
from gridghost.training.pool import (  # noqa: F401
    RESULTS,
    SAMPLING_RULES,
    OpponentPool,
    Results,
    Snapshot,
    check_window,
    table_ghosts,
)
from gridghost.training.ratings import (  # noqa: F401
    ExploitabilityCurve,
    elo_ratings,
    expected_score,
    exploitability_curve,
)

#: What a :class:`SelfPlayEnv` learner controls: one side, or the whole team of ghosts.
SELFPLAY_CONTROLLED: tuple[str, ...] = (*AGENTS, TEAM)
#: The ``SeedSequence`` spawn key of the stream :class:`SelfPlayEnv` draws its opponents from.
SELFPLAY_STREAM = 2**32 + 16
#: The spawn key of the stream :class:`SelfPlayEnv` draws its random openings from (``explore_starts``).
OPENING_STREAM = 2**32 + 17
#: How many times :meth:`SelfPlayEnv.reset` tries a random opening that the game survives before
#: it starts the episode from the map's starts instead (it never loops for ever).
OPENING_ATTEMPTS = 100


# -- the self-play env ---------------------------------------------------------------------------------
class _TableSampler:
    """An opponent that plays a stochastic tabulated policy: it draws its action from the
    probabilities of the game's true state (which its observation does not hold). The
    :class:`~gridghost.envs.single_agent.Duel` seeds it through :meth:`seed` at every seeded reset."""

    def __init__(self, table: np.ndarray, game: GridGhostEnv) -> None:
        cells = game.kernel.num_cells
        self._cumulative = np.cumsum(table.reshape(cells * cells, NUM_ACTIONS), axis=1)
        self._game, self._cells = game, cells
        self._rng = np.random.default_rng(0)

    def seed(self, seed: int) -> None:
        self._rng = np.random.default_rng(seed)

    def __call__(self, observation: Any) -> int:
        state = self._game.game_state
        return draw_action(self._cumulative[state.agent * self._cells + state.ghost], self._rng)


class _PoolOpponents:
    """What the self-play envs share: the pool, the opponent drawn from it at every reset on a
    seeded stream of its own, and the count of every finished game (see :class:`SelfPlayEnv`)."""

    pool: OpponentPool
    rule: str
    exponent: float
    window: int
    #: The side the pool's opponents play.
    opponent_side: str
    #: Whether the game is a team's (``ghosts >= 2``, or the team learning as ``"ghosts"``).
    team: bool
    #: The snapshot drawn for this episode (``None`` before the first reset).
    opponent: Snapshot | None
    _played: Duel
    _draws: np.random.Generator | None
    _opponent_index: int
    _counted: bool

    def _take_pool(self, pool: OpponentPool, controlled: str, rule: str, exponent: float, window: int,
                   game: dict[str, Any]) -> None:
        """Check and keep the pool and its rule, before the game is built."""
        check_instance(pool, "pool", OpponentPool)
        if "opponent" in game:
            raise TypeError(f"{type(self).__name__} draws its opponent from the pool; pass no opponent=")
        check_choice(controlled, "controlled", SELFPLAY_CONTROLLED)
        self.opponent_side = GHOST if controlled == AGENT else AGENT
        pool.probabilities(self.opponent_side, rule, exponent, window)  # checks them, and refuses an empty side now
        self.pool, self.rule, self.exponent, self.window = pool, rule, float(exponent), int(window)

    def _play_through(self, duel: Duel) -> None:
        """Play the drawn opponents through ``duel``, once the game is built; check the pool's."""
        self._played = duel
        self.team = duel.controlled == TEAM or duel.game.ghosts > 1
        self.opponent, self._draws, self._counted = None, None, True
        self._check_snapshots()

    def _check_snapshots(self) -> None:
        """Refuse, before anything is drawn, opponents the game cannot play."""
        game = self._played.game
        layout, generator, ghosts = game.layout, game.maps is not None, game.ghosts
        for snapshot in self.pool.snapshots(self.opponent_side):
            if generator and snapshot.tabulated:
                raise ValueError(f"snapshot {snapshot.name!r} is tabulated for one map, and the env draws a new map at "
                                 "every reset; with a map generator the pool's opponents must be names, classes or "
                                 "policies of observations")
            if self.team and snapshot.tabulated and self._played.controlled == AGENT:
                raise ValueError(f"snapshot {snapshot.name!r} is a table of the ghosts; a learning agent's team "
                                 "opponents are names or policies of observations")
            if isinstance(snapshot.policy, np.ndarray):
                made_for = (snapshot.policy.shape[:2], table_ghosts(snapshot.policy))
                if made_for != (layout.shape, ghosts):
                    raise ValueError(f"snapshot {snapshot.name!r} is tabulated for a {made_for[0]} map and "
                                     f"{made_for[1]} ghost(s); the game is a {layout.shape} map with {ghosts}")
            if isinstance(snapshot.policy, StatePolicy) and ghosts > 1:
                raise ValueError(f"snapshot {snapshot.name!r} is a StatePolicy of the one-ghost game; with {ghosts} "
                                 "ghosts add the agent's table indexed by the joint state (the solver's agent_policy)")
            if isinstance(snapshot.policy, StatePolicy) and snapshot.policy.layout != layout:
                raise ValueError(f"snapshot {snapshot.name!r} was computed for layout {snapshot.policy.layout.name!r}, "
                                 f"not for {layout.name!r}")

    def _playable(self, snapshot: Snapshot) -> Any:
        """What the duel plays for ``snapshot`` (see the class docstring): this env's own copy of
        it, never the pool's object, which other envs draw too."""
        policy = snapshot.playable_copy()
        if not isinstance(policy, np.ndarray) or self.team:
            return policy  # a team's view plays the agent's table itself (gridghost.envs.tables.AgentTable)
        game = self._played.game
        cells = game.kernel.num_cells
        table = policy.reshape(cells * cells, NUM_ACTIONS)
        if ((table == 0.0) | (table == 1.0)).all():  # deterministic
            return StatePolicy(game.layout, SIDE_OF[snapshot.side], table.argmax(axis=1).reshape(cells, cells))
        return _TableSampler(policy, game)

    def _draw(self, seed: int | None, options: dict[str, Any] | None) -> int | None:
        """Draw this episode's opponent and put it in place (see :meth:`SelfPlayEnv.reset`).

        Returns:
            The seed to reset the game with: ``seed``, or fresh entropy at a first reset
            without one.
        """
        seed = cast("int | None", check_seed(seed))  # no SeedSequence: allow_sequence is False
        self._check_snapshots()
        if options is not None and not isinstance(options, dict):
            raise TypeError(f"options must be a dict or None, got {options!r}")
        if seed is None and self._draws is None:
            # The first reset without a seed: take fresh entropy for the whole episode, so that
            # the game's np_random_seed replays the draw too.
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        if seed is not None:
            draws = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(SELFPLAY_STREAM,)))
        else:  # continue the stream, on a copy until the opponent is in place
            assert self._draws is not None  # a reset without a seed comes after a first one
            draws = copying.deepcopy(self._draws)
        drawn = self.pool.sample(self.opponent_side, draws, self.rule, self.exponent, self.window)
        if drawn is not self.opponent:  # the same opponent again keeps its per-map parts (and its copy)
            self._played.set_opponent(self._playable(drawn))
            self.opponent = drawn
        self._draws = draws
        return seed

    def _drawn(self) -> int:
        """Open the count of the episode just started; the drawn opponent's index."""
        self._counted = False
        self._opponent_index = self.pool.snapshots(self.opponent_side).index(cast(Snapshot, self.opponent))
        return self._opponent_index

    def _count(self, terminated: bool, truncated: bool, success: bool) -> None:
        """Count the episode's game in the pool once it has ended (a draw when cut short)."""
        if (terminated or truncated) and not self._counted:
            self._counted = True
            result = "draw" if not terminated else "win" if success else "loss"
            self.pool.record(cast(Snapshot, self.opponent).name, result)


class SelfPlayEnv(_PoolOpponents, GridGhostGymEnv):
    """The Gymnasium env of one side whose opponent is drawn from an :class:`OpponentPool` at every
    reset, and whose every finished episode is counted in the pool's record of that opponent.

    The draw comes from a generator spawned from the reset seed on :data:`SELFPLAY_STREAM`; a
    reset without a seed continues it (the first one seeds it from the game's drawn seed, so that
    ``reset(seed=env.unwrapped.game.np_random_seed)`` replays it). ``info["opponent"]`` is the
    drawn snapshot's index in ``pool.snapshots(side)`` (a number, as every info value is;
    :attr:`opponent` is the snapshot) after ``reset`` and every ``step``. A game that ends is a win or a loss
    (``info["is_success"]``); one cut by ``max_cycles`` is a draw. An episode cut short by an
    outer wrapper (Gymnasium's ``TimeLimit``) is not counted: let ``max_cycles`` set the limit.

    Tabulated snapshots are played from their tables: a deterministic one as a
    :class:`~gridghost.planning.StatePolicy`, a stochastic one by drawing from its probabilities in
    the true state, seeded from the reset seed like any opponent. With a map generator
    (``layout=MapGenerator(...)`` or ``difficulty=``) only snapshots that are built for every map
    can play: names, classes and policies of observations.

    Args:
        pool: the opponents; it must hold a snapshot of the other side. Snapshots added later are
            drawn from the next reset on.
        controlled: the learner's side, ``"agent"`` (default) or ``"ghost"``, or ``"ghosts"``:
            the whole team (``ghosts=k``) learning as one against a pool of agents, whose
            tables are those of the team game (the solver's agent tables indexed by the joint
            state, or probabilities), played from the true state
            (:class:`~gridghost.envs.tables.AgentTable`).
        rule: one of :data:`SAMPLING_RULES` (``"uniform"`` by default).
        exponent: the prioritised rule's exponent (see :meth:`OpponentPool.probabilities`).
        window: the recent rule's number of snapshots (see :meth:`OpponentPool.probabilities`).
        explore_starts: the probability, in [0, 1], that an episode begins with a random opening
            (see the module docstring); 0 (the default) starts every episode at the map's starts.
            An opening the game does not survive (a goal, a catch or ``max_cycles``) is played
            again from a fresh start, up to :data:`OPENING_ATTEMPTS` times, then the episode starts
            at the map's starts. The opening's moves count towards ``max_cycles``; its games are
            not counted in the pool; :attr:`opening` holds its length (0 without one).
        explore_turns: the longest opening, an int >= 1 (default 20): each opening's length is
            drawn uniformly from 1..``explore_turns``.
        render_mode, opponent_obs_type: as :class:`~gridghost.envs.single_agent.GridGhostGymEnv`.
        **game: the game's settings, as :class:`~gridghost.envs.single_agent.GridGhostGymEnv` takes
            them (not ``opponent``: the pool supplies it); ``max_cycles`` defaults to 100.

    Raises:
        TypeError: ``pool`` is not an :class:`OpponentPool`; ``opponent`` among the settings;
            ``explore_starts`` is not a real number or ``explore_turns`` not an int.
        ValueError: an unknown rule, a negative exponent, a window < 1, no snapshot of the other side, a
            tabulated snapshot that does not fit the layout or the number of ghosts (a one-ghost table
            or ``StatePolicy`` for a team, a team's for one ghost, a table of the ghosts against a
            learning agent in a team game; any tabulated snapshot with a map generator);
            ``explore_starts`` outside [0, 1] or ``explore_turns`` < 1; what
            :class:`~gridghost.envs.single_agent.GridGhostGymEnv` refuses.
    """

    def __init__(self, pool: OpponentPool, controlled: str = AGENT, rule: str = "uniform", exponent: float = 2.0,
                 render_mode: str | None = None, opponent_obs_type: str = "dict", *, window: int = 3,
                 explore_starts: float = 0.0, explore_turns: int = 20, **game: Any) -> None:
        self.explore_starts = check_probability(explore_starts, "explore_starts")
        self.explore_turns = check_limit(explore_turns, "explore_turns", allow_none=False)
        self._take_pool(pool, controlled, rule, exponent, window, game)
        # the game truncates, so that a draw is seen and counted (a whole spec= is taken as it is)
        default = DEFAULT_OPPONENTS[controlled] if controlled != TEAM else TEAM_DEFAULT_OPPONENTS[TEAM]
        super().__init__(controlled, default, render_mode, opponent_obs_type,
                         **with_defaults(game, {"max_cycles": 100}))
        self._play_through(self.duel)
        self._openings: np.random.Generator | None = None
        #: The length of this episode's random opening (0: it began at the map's starts).
        self.opening = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Draw an opponent from the pool, then start an episode against it.

        Args:
            seed: seeds the game, the opponent and the draw (each on a stream of its own);
                ``None`` continues them.
            options: as :meth:`GridGhostGymEnv.reset`.

        Returns:
            The learner's first observation and a fresh info dict naming the opponent
            (``info["opponent"]``, as the class docstring says).

        Raises:
            ValueError: a snapshot added since construction that this game cannot play (see the
                class docstring); nothing is drawn then.
            TypeError, ValueError: ``seed`` is not ``None`` nor an int >= 0, or as
                :meth:`GridGhostGymEnv.reset`; nothing is drawn or reseeded then.
        """
        seed = self._draw(seed, options)
        observation, info = super().reset(seed=seed, options=options)
        if self.explore_starts > 0.0:
            if seed is not None or self._openings is None:
                root = seed if seed is not None else self.game.np_random_seed
                self._openings = np.random.default_rng(np.random.SeedSequence(root, spawn_key=(OPENING_STREAM,)))
            observation, info = self._open(observation, info)
        info["opponent"] = self._drawn()
        return observation, info

    def _open(self, observation: Any, info: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """Play this episode's random opening, if it gets one (see ``explore_starts``): the
        learner's first observation and info where the opening leaves the game."""
        openings = self._openings
        assert openings is not None  # set by reset
        self.opening = 0
        for _ in range(OPENING_ATTEMPTS):
            if openings.random() >= self.explore_starts:
                return observation, info  # this episode starts where the game is
            turns = int(openings.integers(1, self.explore_turns + 1))
            for _ in range(turns):
                # The plain env's step: the opening's games are not counted in the pool.
                move = (openings.integers(NUM_ACTIONS, size=self.game.ghosts) if self.controlled == TEAM
                        else int(openings.integers(NUM_ACTIONS)))
                _, _, terminated, truncated, _ = GridGhostGymEnv.step(self, move)
                if terminated or truncated:
                    break
            else:
                self.opening = turns
                info = self.duel.info()
                info["is_success"] = False  # the keys of a reset's info
                return self._observe(), info
            observation, info = GridGhostGymEnv.reset(self)  # the game ended: a fresh start, same opponent
        return observation, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The learner moves and the opponent answers; a finished episode is counted in the pool.

        Returns:
            As :meth:`GridGhostGymEnv.step`, with ``info["opponent"]``.

        Raises:
            TypeError, ValueError: as :meth:`GridGhostGymEnv.step`.
        """
        observation, reward, terminated, truncated, info = super().step(action)
        info["opponent"] = self._opponent_index
        self._count(terminated, truncated, info["is_success"])
        return observation, reward, terminated, truncated, info



class SelfPlayParallelEnv(_PoolOpponents, GhostTeamParallelEnv):
    """The ghosts-only parallel env (``gridghost.parallel_env(controlled="ghosts")``) whose agent
    is drawn from an :class:`OpponentPool` at every reset: the team of :class:`SelfPlayEnv`
    with ``controlled="ghosts"``, for the multi-agent trainers (one policy per ghost, or one
    shared through SuperSuit).

    The draw, its seeded stream (:data:`SELFPLAY_STREAM`), the snapshots it plays (the agent's
    state tables of the team game from the true state, names, policies of observations) and the
    count of every finished game are :class:`SelfPlayEnv`'s; every ghost's info holds
    ``info["opponent"]``, the drawn snapshot's index in ``pool.snapshots("agent")``, and
    :attr:`opponent` is the snapshot.

    Args:
        pool: the opponents; it must hold a snapshot of the agent.
        rule, exponent, window: as :class:`SelfPlayEnv`.
        render_mode, opponent_obs_type: as :class:`~gridghost.envs.ghost_team.GhostTeamParallelEnv`.
        **game: the game's settings, as :func:`gridghost.parallel_env` takes them (not
            ``opponent``: the pool supplies it); ``max_cycles`` defaults to 100.

    Raises:
        TypeError, ValueError: as :class:`SelfPlayEnv` and
            :class:`~gridghost.envs.ghost_team.GhostTeamParallelEnv`.
    """

    metadata: ClassVar[dict[str, Any]] = {**GhostTeamParallelEnv.metadata, "name": "gridghost_selfplay_team_v0"}

    def __init__(self, pool: OpponentPool, rule: str = "uniform", exponent: float = 2.0,
                 render_mode: str | None = None, opponent_obs_type: str = "dict", *, window: int = 3,
                 **game: Any) -> None:
        self._take_pool(pool, TEAM, rule, exponent, window, game)
        super().__init__(TEAM_DEFAULT_OPPONENTS[TEAM], render_mode, opponent_obs_type,
                         **with_defaults(game, {"max_cycles": 100}))
        self._play_through(self._duel)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """Draw an agent from the pool, then start an episode against it (as
        :meth:`SelfPlayEnv.reset`).

        Returns:
            Every ghost's observation and info, each info naming the opponent.

        Raises:
            TypeError, ValueError: as :meth:`SelfPlayEnv.reset`.
        """
        seed = self._draw(seed, options)
        observations, infos = super().reset(seed=seed, options=options)
        index = self._drawn()
        for info in infos.values():
            info["opponent"] = index
        return observations, infos

    def step(self, actions: Mapping[str, Any]) -> StepResults:
        """The team's move and the agent's answer, as
        :meth:`~gridghost.envs.ghost_team.GhostTeamParallelEnv.step`; a finished game is counted
        in the pool (a win for the team when it caught the agent)."""
        observations, rewards, terminations, truncations, infos = super().step(actions)
        for info in infos.values():
            info["opponent"] = self._opponent_index
        if not self.agents:
            self._count(any(terminations.values()), any(truncations.values()), self._duel.success())
        return observations, rewards, terminations, truncations, infos
