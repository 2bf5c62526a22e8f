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
    Any policy a :class:`~gridghost.envs.single_agent.Duel` plays (a name, a callable ``policy(observation)
    -> action``, an object with ``get_action``, a :class:`~gridghost.planning.StatePolicy`) or a
    tabulated one: probabilities of shape ``(rows, cols, rows, cols, 4)`` as
    :func:`gridghost.planning.tabulate_policy` returns them (the ghost's read with the ghost to move).

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
import dataclasses
import logging
from collections.abc import Iterable
from typing import Any, NamedTuple

import numpy as np

from gridghost.config.opponents import check_opponent_name
from gridghost.config.settings import with_defaults
from gridghost.core.checks import (
    check_choice,
    check_flag,
    check_instance,
    check_limit,
    check_number,
    check_probability,
    check_seed,
)
from gridghost.core.game import Game
from gridghost.core.layout import Layout
from gridghost.core.names import AGENT, AGENTS, GHOST
from gridghost.core.policies import ChasePolicy
from gridghost.core.progress import make_bar
from gridghost.core.rules import NUM_ACTIONS, SIDE_OF, Rewards
from gridghost.core.slip import SlipModel
from gridghost.envs.aec import GridGhostEnv
from gridghost.envs.single_agent import GridGhostGymEnv
from gridghost.maps.levels import MapGenerator
from gridghost.planning import (
    NAMED_POLICIES,
    StatePolicy,
    agent_exploitability,
    exploitability,
    ghost_exploitability,
    solve_game,
    tabulate_policy,
)

#: The ``SeedSequence`` spawn key of the stream :class:`SelfPlayEnv` draws its opponents from.
SELFPLAY_STREAM = 2**32 + 16
#: The spawn key of the stream :class:`SelfPlayEnv` draws its random openings from (``explore_starts``).
OPENING_STREAM = 2**32 + 17
#: How many times :meth:`SelfPlayEnv.reset` tries a random opening that the game survives before
#: it starts the episode from the map's starts instead (it never loops for ever).
OPENING_ATTEMPTS = 100
#: How a pool picks an opponent (see the module docstring).
SAMPLING_RULES: tuple[str, ...] = ("latest", "recent", "uniform", "prioritised")
#: A game's result from the learner's point of view; a draw is a game cut by the step limit.
RESULTS: tuple[str, ...] = ("win", "loss", "draw")

logger = logging.getLogger(__name__)


def check_window(window: object) -> int:
    """``window`` if it is a recent rule's window, an int >= 1.

    Raises:
        TypeError: not an int (bools and floats included).
        ValueError: an int < 1.
    """
    return check_limit(window, "window", allow_none=False)


@dataclasses.dataclass(frozen=True)
class Snapshot:
    """One frozen policy in an :class:`OpponentPool`.

    Attributes:
        name: its name in the pool, unique.
        side: ``"agent"`` or ``"ghost"``, the side it plays.
        generation: its generation index (0, 1, ... per side unless given).
        policy: the policy: a name, a class, a deep copy of a callable (or the object itself when
            added with ``copy=False``), a :class:`~gridghost.planning.StatePolicy`, or a read-only
            ``float64[rows, cols, rows, cols, 4]`` array of probabilities. Nothing gridghost does
            changes it: every :class:`SelfPlayEnv` plays a deep copy of its own, and
            :func:`exploitability_curve` tabulates a copy.
        shared: the policy is the caller's object itself (added with ``copy=False``): it cannot be
            copied, so every env plays that one object, and it is not frozen.
    """

    name: str
    side: str
    generation: int
    policy: Any = dataclasses.field(repr=False)
    shared: bool = dataclasses.field(default=False, repr=False)

    def playable_copy(self) -> Any:
        """A copy of :attr:`policy` to play, so that playing (and reseeding) it leaves the
        snapshot as it was: a deep copy of a policy object; a name, a class or a table as it is
        (each is built afresh where it plays); the object itself when :attr:`shared`.

        Raises:
            TypeError: the policy can no longer be deep-copied.
        """
        policy = self.policy
        if self.shared or isinstance(policy, (str, type, np.ndarray)):
            return policy
        try:
            return copying.deepcopy(policy)
        except Exception as error:  # deepcopy raises whatever the object's __deepcopy__/__reduce__ does
            raise TypeError(f"snapshot {self.name!r}'s policy cannot be deep-copied to be played "
                            f"({type(error).__name__}: {error})") from error

    @property
    def tabulated(self) -> bool:
        """Whether the policy is a table of the state (a :class:`~gridghost.planning.StatePolicy` or
        probabilities), so that the solver can judge it without tabulating it first."""
        return isinstance(self.policy, (StatePolicy, np.ndarray))


class Results(NamedTuple):
    """The games a learner played against one opponent: ``games == wins + losses + draws``."""

    games: int
    wins: int
    losses: int
    draws: int


def _probability_table(values: Any, argument: str) -> np.ndarray:
    """``values`` as a read-only copy of a tabulated policy ``(rows, cols, rows, cols, 4)``:
    probabilities that sum to 1 in each state (or are all 0, where the game is over)."""
    try:
        table = np.array(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{argument} must hold probabilities (real numbers)") from None
    shape = table.shape
    if table.ndim != 5 or shape[:2] != shape[2:4] or shape[4] != NUM_ACTIONS:
        raise ValueError(f"{argument} must have shape (rows, cols, rows, cols, {NUM_ACTIONS}), got {shape}")
    if not np.isfinite(table).all() or (table < 0).any():
        raise ValueError(f"{argument} must hold finite probabilities >= 0")
    sums = table.sum(axis=-1)
    if not (np.isclose(sums, 1.0, rtol=0, atol=1e-6) | (sums == 0)).all():
        raise ValueError(f"{argument}'s probabilities must sum to 1 in every state (0 where the game is over)")
    table.setflags(write=False)
    return table


class OpponentPool:
    """Frozen snapshots of both sides, the rules that draw opponents from them, and each
    opponent's record against the learner.

    Args:
        prior: pseudo-games added to every opponent's record, half won and half lost, so that the
            win rate of an unplayed opponent is 0.5 rather than 0/0 (a Beta(prior/2, prior/2)
            prior); a float > 0.

    Raises:
        TypeError, ValueError: ``prior`` is not a finite number > 0.
    """

    def __init__(self, prior: float = 1.0) -> None:
        self.prior = check_number(prior, "prior", 0.0, strict=True)
        self._snapshots: dict[str, Snapshot] = {}
        self._records: dict[str, list[int]] = {}  # name -> [wins, losses, draws]

    def __len__(self) -> int:
        return len(self._snapshots)

    def __contains__(self, name: object) -> bool:
        return name in self._snapshots

    def __getitem__(self, name: str) -> Snapshot:
        if name not in self._snapshots:
            raise KeyError(f"no snapshot named {name!r} in the pool; it holds {list(self._snapshots)}")
        return self._snapshots[name]

    def __repr__(self) -> str:
        return f"OpponentPool({list(self._snapshots)}, prior={self.prior:g})"

    def add(self, policy: Any, side: str, *, name: str | None = None, generation: int | None = None,
            copy: bool = True) -> Snapshot:
        """Freeze ``policy`` into the pool as a snapshot of ``side``.

        Args:
            policy: a policy name (``"chase"``, ``"random"``, ``"minimax"``, ``"optimal"``), a
                class (a :class:`~gridghost.planning.StatePolicy` subclass, or a reference-style class
                built with an action space), a callable ``policy(observation) -> action`` or an
                object with ``get_action(observation)``, a :class:`~gridghost.planning.StatePolicy`,
                or probabilities ``(rows, cols, rows, cols, 4)`` (a tabulated policy; always
                copied).
            side: the side it plays, ``"agent"`` or ``"ghost"``.
            name: its unique name; ``None`` means ``"<side>-<generation>"``.
            generation: its generation; ``None`` means one more than the side's highest so far
                (0 for the first).
            copy: deep-copy a policy object, so that training the live policy later does not change
                the snapshot. Pass ``False`` for objects that cannot be deep-copied (a model bound
                to a device, say): the pool then keeps the object itself, which is *not* frozen,
                and later training changes what the snapshot plays.

        Returns:
            The new :class:`Snapshot`.

        Raises:
            ValueError: an unknown side or policy name, a policy of the other side, a name already
                in the pool, a generation < 0, or a probability array of the wrong shape or not
                holding probabilities.
            TypeError: ``policy`` is none of the accepted kinds, cannot be deep-copied (with
                ``copy=True``), or ``name``, ``generation`` or ``copy`` is of the wrong type.
        """
        check_choice(side, "side", AGENTS)
        check_flag(copy, "copy")
        if generation is None:
            generation = 1 + max((s.generation for s in self._snapshots.values() if s.side == side), default=-1)
        elif isinstance(generation, bool) or not isinstance(generation, (int, np.integer)):
            raise TypeError(f"generation must be an int >= 0 or None, got {generation!r}")
        elif generation < 0:
            raise ValueError(f"generation must be an int >= 0 or None, got {generation}")
        if name is None:
            name = f"{side}-{generation}"
        if not isinstance(name, str) or not name:
            raise TypeError(f"name must be a non-empty str or None, got {name!r}")
        if name in self._snapshots:
            raise ValueError(f"name {name!r} is already in the pool; snapshot names are unique")
        frozen = self._freeze(policy, side, copy)
        shared = frozen is policy and not isinstance(policy, (str, type))
        snapshot = Snapshot(name, side, int(generation), frozen, shared)
        self._snapshots[name] = snapshot
        self._records[name] = [0, 0, 0]
        return snapshot

    @staticmethod
    def _freeze(policy: Any, side: str, copy: bool) -> Any:
        if isinstance(policy, str):
            return check_opponent_name(policy, SIDE_OF[side], "policy")
        if isinstance(policy, (np.ndarray, list, tuple)):
            return _probability_table(policy, "policy")
        if isinstance(policy, StatePolicy) and policy.side != SIDE_OF[side]:
            raise ValueError(f"policy {policy!r} plays the {policy.side.name.lower()}, not the {side}")
        if isinstance(policy, ChasePolicy) and side != GHOST:
            raise ValueError(f"policy {policy!r} is the chasing ghost; it cannot play the {side}")
        if isinstance(policy, type):
            return policy  # a class holds no trained state: it is built afresh where it plays
        if not (callable(policy) or callable(getattr(policy, "get_action", None))):
            raise TypeError(f"policy must be a policy name, a callable policy(observation) -> action, an object with "
                            f"get_action, a StatePolicy or probabilities (rows, cols, rows, cols, 4); got {policy!r}")
        if not copy:
            return policy
        try:
            return copying.deepcopy(policy)
        except Exception as error:  # deepcopy raises whatever the object's __deepcopy__/__reduce__ does
            raise TypeError(f"policy {policy!r} cannot be deep-copied ({type(error).__name__}: {error}); pass "
                            "copy=False to keep the object itself (it is then not frozen)") from error

    def snapshots(self, side: str | None = None) -> tuple[Snapshot, ...]:
        """The snapshots in the order they were added, of ``side`` only when given.

        Raises:
            ValueError: ``side`` is not ``"agent"``, ``"ghost"`` or ``None``.
        """
        check_choice(side, "side", AGENTS, allow_none=True)
        return tuple(s for s in self._snapshots.values() if side is None or s.side == side)

    # -- bookkeeping -------------------------------------------------------------------------------
    def record(self, name: str, result: str) -> None:
        """Count one game of the learner against opponent ``name``.

        Args:
            name: the opponent's snapshot name.
            result: the learner's result, one of :data:`RESULTS`.

        Raises:
            KeyError: no snapshot of that name.
            ValueError: an unknown result.
        """
        check_choice(result, "result", RESULTS)
        self[name]  # raises for an unknown name
        self._records[name][RESULTS.index(result)] += 1

    def results(self, name: str) -> Results:
        """The games counted against opponent ``name`` (no prior).

        Raises:
            KeyError: no snapshot of that name.
        """
        self[name]  # raises for an unknown name
        wins, losses, draws = self._records[name]
        return Results(wins + losses + draws, wins, losses, draws)

    def win_rate(self, name: str) -> float:
        """The learner's win rate against opponent ``name``, with draws as half a win (as in Elo
        scores) and :attr:`prior` pseudo-games, half won: ``(wins + draws / 2 + prior / 2) /
        (games + prior)``, in (0, 1); 0.5 for an unplayed opponent.

        Raises:
            KeyError: no snapshot of that name.
        """
        games, wins, _, draws = self.results(name)
        return (wins + 0.5 * draws + 0.5 * self.prior) / (games + self.prior)

    # -- sampling ----------------------------------------------------------------------------------
    def probabilities(self, side: str, rule: str = "uniform", exponent: float = 2.0, window: int = 3) -> np.ndarray:
        """The probability of drawing each snapshot of ``side`` (in :meth:`snapshots` order).

        Args:
            side: the opponent's side.
            rule: one of :data:`SAMPLING_RULES`.
            exponent: the prioritised rule's ``p`` in ``(1 - win_rate) ** p``, a finite number >= 0
                (any: the weights are computed without underflow; where every ``1 - win_rate`` is
                0, the snapshots are drawn uniformly).
            window: the recent rule's number of snapshots, an int >= 1 (all of them when the side
                has fewer); the highest generations, among equals the last added.

        Raises:
            ValueError: an unknown side or rule, a negative ``exponent``, a ``window`` < 1, or no
                snapshot of ``side``.
            TypeError: ``exponent`` is not a number, ``window`` not an int.
        """
        check_choice(rule, "rule", SAMPLING_RULES)
        exponent = check_number(exponent, "exponent")
        window = check_window(window)
        snapshots = self.snapshots(side)
        if not snapshots:
            raise ValueError(f"the pool holds no snapshot of the {side} to draw")
        if rule == "latest":
            weights = np.zeros(len(snapshots))
            generations = [s.generation for s in snapshots]
            # the highest generation; among equals, the last added
            weights[len(generations) - 1 - generations[::-1].index(max(generations))] = 1.0
        elif rule == "recent":
            weights = np.zeros(len(snapshots))
            # a stable sort by generation: among equals, the last added ranks highest
            order = sorted(range(len(snapshots)), key=lambda i: (snapshots[i].generation, i))
            weights[order[-window:]] = 1.0
        elif rule == "uniform":
            weights = np.ones(len(snapshots))
        else:
            # (1 - w) ** p, scaled by the largest base first: the same ratios, and no underflow to
            # 0 / 0 for a large p (the largest weight is exactly 1).
            base = 1.0 - np.array([self.win_rate(s.name) for s in snapshots])
            top = base.max()
            # Every base 0 (a win rate rounded to 1): all alike, drawn uniformly.
            weights = np.ones(len(snapshots)) if top <= 0.0 else (base / top) ** exponent
        return weights / weights.sum()

    def sample(self, side: str, rng: np.random.Generator, rule: str = "uniform", exponent: float = 2.0,
               window: int = 3) -> Snapshot:
        """Draw an opponent of ``side`` with ``rng`` (one draw, whatever the rule).

        Raises:
            TypeError: ``rng`` is not a ``numpy.random.Generator``; as :meth:`probabilities`.
            ValueError: as :meth:`probabilities`.
        """
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator, got {rng!r}")
        probabilities = self.probabilities(side, rule, exponent, window)
        return self.snapshots(side)[int(rng.choice(len(probabilities), p=probabilities))]


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
        row = self._cumulative[state.agent * self._cells + state.ghost]
        return min(int(np.searchsorted(row, self._rng.random() * row[-1], side="right")), NUM_ACTIONS - 1)


class SelfPlayEnv(GridGhostGymEnv):
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
        controlled: the learner's side, ``"agent"`` (default) or ``"ghost"``.
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
        TypeError: ``pool`` is not an :class:`OpponentPool`; ``opponent`` among the settings.
        ValueError: an unknown rule, a negative exponent, a window < 1, no snapshot of the other side, a
            tabulated snapshot that does not fit the layout (or any tabulated snapshot with a map
            generator); ``explore_starts`` outside [0, 1] or ``explore_turns`` < 1; what
            :class:`~gridghost.envs.single_agent.GridGhostGymEnv` refuses.
        TypeError: ``explore_starts`` is not a real number or ``explore_turns`` not an int.
    """

    def __init__(self, pool: OpponentPool, controlled: str = AGENT, rule: str = "uniform", exponent: float = 2.0,
                 render_mode: str | None = None, opponent_obs_type: str = "dict", *, window: int = 3,
                 explore_starts: float = 0.0, explore_turns: int = 20, **game: Any) -> None:
        check_instance(pool, "pool", OpponentPool)
        self.explore_starts = check_probability(explore_starts, "explore_starts")
        self.explore_turns = check_limit(explore_turns, "explore_turns", allow_none=False)
        if "opponent" in game:
            raise TypeError("SelfPlayEnv draws its opponent from the pool; pass no opponent=")
        check_choice(controlled, "controlled", AGENTS)
        self.pool, self.rule = pool, check_choice(rule, "rule", SAMPLING_RULES)
        self.exponent = check_number(exponent, "exponent")
        self.window = check_window(window)
        self.opponent_side = GHOST if controlled == AGENT else AGENT
        pool.probabilities(self.opponent_side, rule, self.exponent, self.window)  # refuses an empty side now
        # the game truncates, so that a draw is seen and counted (a whole spec= is taken as it is)
        super().__init__(controlled, "random" if controlled == GHOST else "chase", render_mode, opponent_obs_type,
                         **with_defaults(game, {"max_cycles": 100}))
        self._check_snapshots()
        self._draws: np.random.Generator | None = None
        self._openings: np.random.Generator | None = None
        self.opponent: Snapshot | None = None
        #: The length of this episode's random opening (0: it began at the map's starts).
        self.opening = 0
        self._counted = True

    def _check_snapshots(self) -> None:
        """Refuse, before anything is drawn, opponents the game cannot play."""
        layout, generator = self.game.layout, self.game.maps is not None
        for snapshot in self.pool.snapshots(self.opponent_side):
            if generator and snapshot.tabulated:
                raise ValueError(f"snapshot {snapshot.name!r} is tabulated for one map, and the env draws a new map at "
                                 "every reset; with a map generator the pool's opponents must be names, classes or "
                                 "policies of observations")
            if isinstance(snapshot.policy, np.ndarray) and snapshot.policy.shape[:2] != layout.shape:
                raise ValueError(f"snapshot {snapshot.name!r} is tabulated for a {snapshot.policy.shape[:2]} map; "
                                 f"the layout is {layout.shape}")
            if isinstance(snapshot.policy, StatePolicy) and snapshot.policy.layout != layout:
                raise ValueError(f"snapshot {snapshot.name!r} was computed for layout {snapshot.policy.layout.name!r}, "
                                 f"not for {layout.name!r}")

    def _playable(self, snapshot: Snapshot) -> Any:
        """What the duel plays for ``snapshot`` (see the class docstring): this env's own copy of
        it, never the pool's object, which other envs draw too."""
        policy = snapshot.playable_copy()
        if not isinstance(policy, np.ndarray):
            return policy
        cells = self.game.kernel.num_cells
        table = policy.reshape(cells * cells, NUM_ACTIONS)
        if ((table == 0.0) | (table == 1.0)).all():  # deterministic
            return StatePolicy(self.game.layout, SIDE_OF[snapshot.side], table.argmax(axis=1).reshape(cells, cells))
        return _TableSampler(policy, self.game)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Draw an opponent from the pool, then start an episode against it.

        Args:
            seed: seeds the game, the opponent and the draw (each on a stream of its own);
                ``None`` continues them.
            options: as :meth:`GridGhostGymEnv.reset`.

        Returns:
            The learner's first observation and a fresh info dict naming the opponent
            (``info["opponent"]``: its index in ``pool.snapshots(side)``, a number like every
            info value; :attr:`opponent` is the snapshot itself).

        Raises:
            ValueError: a snapshot added since construction that this game cannot play (see the
                class docstring); nothing is drawn then.
            TypeError, ValueError: ``seed`` is not ``None`` nor an int >= 0, or as
                :meth:`GridGhostGymEnv.reset`; nothing is drawn or reseeded then.
        """
        checked = check_seed(seed)
        assert not isinstance(checked, np.random.SeedSequence)  # allow_sequence=False
        seed = checked
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
            self.duel.set_opponent(self._playable(drawn))
            self.opponent = drawn
        self._draws = draws
        observation, info = super().reset(seed=seed, options=options)
        if self.explore_starts > 0.0:
            if seed is not None or self._openings is None:
                root = seed if seed is not None else self.game.np_random_seed
                self._openings = np.random.default_rng(np.random.SeedSequence(root, spawn_key=(OPENING_STREAM,)))
            observation, info = self._open(observation, info)
        self._counted = False
        self._opponent_index = self.pool.snapshots(self.opponent_side).index(drawn)
        info["opponent"] = self._opponent_index
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
                _, _, terminated, truncated, _ = GridGhostGymEnv.step(self, int(openings.integers(NUM_ACTIONS)))
                if terminated or truncated:
                    break
            else:
                self.opening = turns
                info = self.duel.info()
                info["is_success"] = False  # the keys of a reset's info
                return self.game.observe(self.controlled), info
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
        assert self.opponent is not None
        info["opponent"] = self._opponent_index
        if (terminated or truncated) and not self._counted:
            self._counted = True
            result = "draw" if not terminated else "win" if info["is_success"] else "loss"
            self.pool.record(self.opponent.name, result)
        return observation, reward, terminated, truncated, info


# -- ratings -------------------------------------------------------------------------------------------
def expected_score(rating: float, opponent: float) -> float:
    """The Elo expected score of a player rated ``rating`` against one rated ``opponent``:
    ``1 / (1 + 10 ** ((opponent - rating) / 400))``.

    >>> round(expected_score(1700, 1500), 3)
    0.76
    """
    return float(1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0)))


def elo_ratings(scores: Any, prior: float = 0.0, tol: float = 1e-10, max_iterations: int = 100_000) -> np.ndarray:
    """Elo ratings fitted to a table of results by maximum likelihood (the Bradley-Terry model).

    The model says player ``i`` scores ``expected_score(r_i, r_j)`` against ``j`` on average.
    Fitting all games at once gives ratings that do not depend on the order the games were played
    in, nor on a K-factor, unlike Elo's incremental updates; that is what a table of a league's
    results calls for. The fit runs Hunter's (2004) minorisation-maximisation iteration.

    >>> ratings = elo_ratings([[0, 3], [1, 0]])   # 3 points of 4: a 75% score
    >>> round(float(ratings[0] - ratings[1]), 1)
    190.8

    Args:
        scores: a square table, ``scores[i][j]`` the points ``i`` took in its games against
            ``j`` (1 a win, 0.5 a draw); the games between them are ``scores[i][j] + scores[j][i]``.
            The diagonal must be 0.
        prior: virtual games, drawn, between every two players: it pulls the ratings together
            and makes a fit exist for any table (0: the plain maximum-likelihood fit).
        tol: the iteration stops when no rating changes by more than this (in Elo points).
        max_iterations: it gives up after this many iterations.

    Returns:
        ``float64[n]``, the ratings in Elo points, with mean 0.

    Raises:
        TypeError: ``scores`` is not a table of real numbers.
        ValueError: ``scores`` is not square, has negative or non-finite entries or a nonzero
            diagonal, or (with ``prior=0``) has no maximum-likelihood fit: some group of players
            never took a point from the others (an unbeaten or winless player, or one who never
            played); a negative ``prior``; the iteration did not converge.
    """
    try:
        table = np.array(scores, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"scores must be a square table of real numbers, got {scores!r}") from None
    if table.ndim != 2 or table.shape[0] != table.shape[1] or table.shape[0] < 1:
        raise ValueError(f"scores must be a square table (n x n, n >= 1), got shape {table.shape}")
    if not np.isfinite(table).all() or (table < 0).any():
        raise ValueError("scores must hold finite points >= 0")
    if np.diagonal(table).any():
        raise ValueError("scores' diagonal must be 0 (a player does not play itself)")
    prior = check_number(prior, "prior")
    tol = check_number(tol, "tol", 0.0, strict=True)
    n = len(table)
    if n == 1:
        return np.zeros(1)
    if prior > 0:
        table = table + 0.5 * prior * (1.0 - np.eye(n))
    # A fit exists when every player can reach every other along "took points from" edges.
    reach = (table > 0) | np.eye(n, dtype=bool)
    for _ in range(max(1, int(np.ceil(np.log2(max(n, 2)))))):
        reach = reach | ((reach.astype(np.int64) @ reach.astype(np.int64)) > 0)
    if not reach.all():
        i, j = (int(k) for k in np.argwhere(~reach)[0])
        raise ValueError(f"scores have no maximum-likelihood ratings: player {i} never took a point, directly or "
                         f"through others, from player {j}, so {j}'s rating would be infinitely above; pass prior > 0")
    points, games = table.sum(axis=1), table + table.T
    strength = np.ones(n)
    for _ in range(max_iterations):
        new = points / (games / (strength[:, None] + strength[None, :])).sum(axis=1)
        new /= np.exp(np.log(new).mean())
        change = 400.0 * np.abs(np.log10(new) - np.log10(strength)).max(initial=0.0)
        strength = new
        if change <= tol:
            break
    else:
        raise ValueError(f"the ratings did not converge within max_iterations={max_iterations}")
    ratings = 400.0 * np.log10(strength)
    return ratings - ratings.mean()


# -- exploitability -----------------------------------------------------------------------------------
class ExploitabilityCurve(NamedTuple):
    """Exact exploitability of a sequence of (agent, ghost) snapshot pairs (:func:`exploitability_curve`).

    Attributes:
        exploitability: ``float64[n]``, :func:`gridghost.planning.solve.exploitability` of each pair.
        agent_gap: ``float64[n]``, what each agent gives away against a best-responding ghost,
            ``v* - min_g v(agent, g)`` (:func:`~gridghost.planning.solve.agent_exploitability`).
        ghost_gap: ``float64[n]``, what each ghost gives away, ``max_a v(a, ghost) - v*``.
        minimax_value: ``v*``, the zero-sum game's value from the start (the agent's return).
    """

    exploitability: np.ndarray
    agent_gap: np.ndarray
    ghost_gap: np.ndarray
    minimax_value: float


def exploitability_curve(pairs: Iterable[tuple[Snapshot, Snapshot]], layout: Layout | None = None,
                         slip: str | SlipModel | None = None, rewards: Rewards | str | None = None, gamma: float = 0.99,
                         tol: float = 1e-10, obs_type: str = "vector", *, game: Game | None = None,
                         config: Any = None, progress_bar: bool = False) -> ExploitabilityCurve:
    """The solver's exact exploitability of each (agent, ghost) pair of snapshots, next to the
    game's minimax value: a self-play run's progress, in units of the agent's return.

    Tabulated snapshots and state-policy names (``"chase"``, ``"random"``, ``"minimax"``,
    ``"optimal"``) are read as they are; a policy of observations is first tabulated on the layout
    with :func:`gridghost.planning.tabulate_policy` (once per snapshot), reading ``obs_type``.

    Args:
        pairs: ``(agent snapshot, ghost snapshot)`` pairs, e.g. one per generation.
        layout, slip, rewards, gamma, tol, game: the game, as :func:`gridghost.planning.exploitability`
            takes it; one fixed layout (``None``: the classic map, or ``game``'s).
        config: deprecated, as the solver's ``config=``: pass ``game=config.game()``.
        obs_type: the encoding the policies of observations read, ``"vector"`` or ``"dict"``.
        progress_bar: draw a progress bar with an ETA over the pairs on stderr (a self-play
            run's generations, each solved three times).

    Returns:
        An :class:`ExploitabilityCurve`.

    Raises:
        TypeError: an item of ``pairs`` is not a pair of :class:`Snapshot`; ``progress_bar`` is
            not a bool.
        ValueError: a pair's sides are not (agent, ghost); a map generator as ``layout``; a snapshot
            that cannot be tabulated (a reference-style class, an object without a policy call, a
            policy that is not memoryless in the sense of returning actions) or does not fit the
            layout; the message names the pair and the snapshot.
    """
    if isinstance(layout, MapGenerator):
        raise ValueError("layout must be one fixed map: the exact exploitability is a property of one layout; "
                         "pass the generator's level(i) to measure on level i")
    check_flag(progress_bar, "progress_bar")
    pairs = list(pairs)
    settings = {"layout": layout, "slip": slip, "rewards": rewards, "gamma": gamma, "tol": tol, "game": game,
                "config": config}
    tables: dict[str, Any] = {}

    def table_of(snapshot: Snapshot, where: str) -> Any:
        if snapshot.name not in tables:
            tables[snapshot.name] = _state_policy_of(snapshot, where, layout, obs_type, game, config)
        return tables[snapshot.name]

    totals, agent_gaps, ghost_gaps = (np.empty(len(pairs)) for _ in range(3))
    with make_bar(progress_bar, len(pairs), "exploitability", "pair") as bar:
        for i, pair in enumerate(pairs):
            if not (isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(s, Snapshot) for s in pair)):
                raise TypeError(f"pairs[{i}] must be a tuple (agent Snapshot, ghost Snapshot), got {pair!r}")
            agent, ghost = pair
            if (agent.side, ghost.side) != (AGENT, GHOST):
                raise ValueError(f"pairs[{i}] must be (agent snapshot, ghost snapshot), got the sides "
                                 f"({agent.side}, {ghost.side}) of {agent.name!r} and {ghost.name!r}")
            agent_table, ghost_table = table_of(agent, f"pairs[{i}][0]"), table_of(ghost, f"pairs[{i}][1]")
            try:
                totals[i] = exploitability(agent_table, ghost_table, **settings)
                agent_gaps[i] = agent_exploitability(agent_table, **settings)
                ghost_gaps[i] = ghost_exploitability(ghost_table, **settings)
            except (TypeError, ValueError) as error:
                raise type(error)(f"pairs[{i}] ({agent.name!r}, {ghost.name!r}): {error}") from error
            bar.update()
    logger.debug("exploitability of %d pairs: %s", len(pairs), totals)
    solved = solve_game(layout, slip, rewards, gamma, tol, game=game, config=config)
    start = solved.layout.agent_start, solved.layout.ghost_start
    return ExploitabilityCurve(totals, agent_gaps, ghost_gaps, solved.value(*start))


def _state_policy_of(snapshot: Snapshot, where: str, layout: Layout | None, obs_type: str, game: Game | None,
                     config: Any) -> Any:
    """``snapshot``'s policy in a form the solver reads (see :func:`exploitability_curve`)."""
    policy = snapshot.policy
    if isinstance(policy, str):
        return NAMED_POLICIES[policy][SIDE_OF[snapshot.side]] if policy in NAMED_POLICIES else policy
    if snapshot.tabulated or (isinstance(policy, type) and issubclass(policy, StatePolicy)):
        return policy
    if isinstance(policy, type):
        raise ValueError(f"{where} {snapshot.name!r} is the class {policy.__name__}, built afresh for every game: it "
                         "cannot be tabulated; add a built instance (a fixed policy) to the pool")
    played = snapshot.playable_copy()  # tabulating calls it: the snapshot stays as it was
    call = played if callable(played) else played.get_action
    try:
        return tabulate_policy(call, snapshot.side, layout, obs_type, game=game, config=config)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{where} {snapshot.name!r} cannot be tabulated as a policy of {obs_type!r} "
                         f"observations: {error}") from error

