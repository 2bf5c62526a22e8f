"""Tabular self-play: both sides learn one table of action values from their own games, on one
map, until the pair is a minimax equilibrium.

gridghost's game is turn-based, zero-sum and of perfect information (the self-play learners see
both positions), so it has an equilibrium of pure policies, and one table of action values in
the agent's units serves both sides: the agent takes the largest, the ghost the smallest. That
is Q-learning for alternating Markov games (Littman, 1994), whose updates contract to the
game's minimax values when every state and move keeps being tried. Self-play with one table
cannot cycle the way alternating best responses do (each ghost guarding the last agent's
route): each update answers the other side's current best move, state by state.

What it learns from is play and nothing else: the batched engine
(:class:`~gridghost.batched.BatchedGame`, both sides learning) plays ``num_games`` games in
lockstep; each half-turn gives its mover's ``(state, move, reward, next state)`` and each
sample moves one entry of the table towards ``reward + value of the next state`` (the
opponent's best reply after the agent's move; ``gamma`` times the agent's best move after the
ghost's, as the solver discounts per full turn). The solver is not consulted: it only judges
the result (:func:`~gridghost.training.selfplay.exploitability_curve`).

Three choices make it converge, and stay converged (``benchmarks/selfplay_levels.py``: under 1%
of the reward range at the final generation on 39 of 40 levels, levels 10..29 of difficulties 2 and 3):

- *exploring starts*: a fraction ``explore_starts`` of the episodes start from a uniformly drawn
  state (:meth:`BatchedGame.reset`'s ``starts``), so that states a best response could steer to
  are learnt as well as those self-play's own games visit. Without them the agent's moves in
  states far from the usual games stay untried and a best-responding ghost exploits them;
- *step sizes* ``1 / visits ** step_exponent`` per state and move (0.5 < exponent <= 1, the
  range in which Q-learning's estimates converge): large steps while the values downstream are
  still moving, small ones once they settle, which averages the slips' noise out;
- *iterate averaging*: the policies are greedy in an average of the table over the batches played,
  not in the live table. The live table keeps a noise of the order of its step sizes, and where two
  moves are nearly tied its greedy pair flips between them from one batch to the next: on a
  difficulty-2 map the live pair was 0.15% of the reward range from the equilibrium at one
  generation and 4.4% at the next. Averaging the iterates of a stochastic approximation whose steps
  shrink slower than ``1 / visits`` (Polyak and Juditsky, 1992; Ruppert, 1988) keeps the steps'
  speed and gives the estimate the smallest variance such a method can have; the average is
  polynomial-decay averaging (Shamir and Zhang, 2013): after batch ``t`` it moves
  ``(averaging + 1) / (t + averaging)`` of the way to the live table, so that batch ``s`` weighs
  about ``(s / t) ** averaging`` as much as the latest. It needs no horizon, and the early batches,
  when the values are still far off, fade: with ``averaging=2`` the first half of the batches holds
  an eighth of the weight. The learning itself (moves, targets, step sizes) reads the live table.
  The price is a lag: a move the live table has corrected is taken by the average only once the
  batches after the correction outweigh those before (on one difficulty-3 map, generation 9 of
  2,000,000 turns each instead of 4); a larger ``averaging`` lags less and averages less noise.

Moves are epsilon-greedy for both sides (``epsilon``); the learnt policies are greedy in the
averaged table (the first best move where several tie). The average is kept lazily, entry by
entry: a batch changes a few entries of the live table, and every other entry's average moves
by a known factor towards its unchanged live value, applied when the entry next changes or the
average is read (with a team's large tables, stepping every entry at every batch took two thirds
of the time).

A team of ``ghosts=k`` ghosts is one minimiser over its ``4 ** k`` joint moves, as in the team
solver: the ghosts choose together, from the same state, and the table's ghost side has a column
per joint move (ghost 0's move the lowest base-4 digit). The batched team engine
(:class:`~gridghost.batched.positions.PositionGame`) plays the games; nothing else changes. The
table has one row per agent cell and *multiset* of ghost cells (the ghosts' cells sorted), not
per ordered tuple. Both are exact: the ghosts are indexed, but the game does not tell them apart
(the same rules and, in the zero-sum game the table holds, the same reward), so permuting them
changes no value, and the row's joint move is mapped to each game's own ghost order when played.
The multiset is chosen because every sample then teaches all ``k!`` orders of its team at once,
so a row learns from about ``k!`` times more samples (twice as many for two ghosts), which is
what the learner lacks on a team's large tables; it is also how the solver stores a team's
states. Where ghosts share a cell, the two orders of their moves stay two columns of the row,
learnt apart (the same move twice). :meth:`TabularSelfPlay.q_values` and :meth:`~TabularSelfPlay.policy`
give the tables over every ordered state, as the solver reads them.

The tables take ``cells ** (k + 1)`` rows of ``4 + 4 ** k`` entries, four numbers each (the live
value, the visits, the average and its last update): :meth:`TabularSelfPlay.table_bytes`. A
learner whose tables exceed ``max_bytes`` (:data:`TABULAR_BYTES`, 1 GiB, by default) is refused
before anything is built. On the shipped coordination maps (``benchmarks/team_selfplay.py``) two
ghosts and the agent reach the team game's exact equilibrium.

    >>> from gridghost.maps import MapGenerator
    >>> learner = TabularSelfPlay(MapGenerator(6, 6, difficulty=2).level(0), rewards="normalised", seed=0)
    >>> learner.learn(20_000).turns
    20480
    >>> learner.policy("ghost").side.name
    'GHOST'
"""

from __future__ import annotations

import logging
from typing import cast

import numpy as np

from gridghost.batched import BatchedGame
from gridghost.batched.observe import TEAM
from gridghost.core.checks import (
    check_choice,
    check_flag,
    check_ghosts,
    check_instance,
    check_limit,
    check_number,
    check_probability,
    check_seed,
)
from gridghost.core.layout import Layout
from gridghost.core.names import AGENT, GHOST
from gridghost.core.progress import Bar, make_bar
from gridghost.core.rules import NUM_ACTIONS, SIDE_OF, Rewards, board_for
from gridghost.core.slip import SlipModel
from gridghost.planning import StatePolicy

#: The ``SeedSequence`` spawn key of the stream :class:`TabularSelfPlay` draws its moves and
#: exploring starts from (the engine draws the slips from the seed itself).
TABULAR_STREAM = 2**32 + 18
#: The most memory a :class:`TabularSelfPlay`'s tables may take by default (1 GiB): both sides'
#: action values, visit counts, averages and the averages' last updates.
TABULAR_BYTES = 2**30

logger = logging.getLogger(__name__)


class TabularSelfPlay:
    """Self-play of both sides with one table of action values on one map (see the module docstring).

    Args:
        layout: the map, a :class:`~gridghost.core.layout.Layout` (one fixed map) with at least
            ``ghosts`` ghost starts.
        ghosts: the number of ghosts ``k``, an int in 1..4 (default 1). A team is one minimiser
            over its ``4 ** k`` joint moves; its side is ``"ghosts"`` (``"ghost"`` for ``k = 1``).
        num_games: games played in lockstep, an int >= 1 (default 512).
        epsilon: each side's probability of a uniformly random move (a team's: of a uniformly
            random joint move), in [0, 1] (default 0.5).
        explore_starts: the fraction of episodes that start from a uniformly drawn state (the
            agent on a cell reachable from its start that is no goal, each ghost on any other
            reachable cell), in [0, 1] (default 1.0); the others start at the map's starts.
        step_exponent: the step size of an entry is ``1 / visits ** step_exponent``, a number in
            (0.5, 1] (default 0.6).
        averaging: the weighting ``eta`` of the averaged table the policies are greedy in (see the
            module docstring), a finite number >= 0 (default 2.0; 0 is the plain mean of every
            batch's table), or ``None``: no average, the policies are greedy in the live table (the
            behaviour before it existed).
        gamma: the discount per full turn, in (0, 1) (default 0.99, the solver's).
        rewards: the agent's rewards (``None``: the reference's; a preset name such as
            ``"normalised"``, or :class:`~gridghost.core.rules.Rewards`). The table holds the
            agent's returns and the ghosts minimise them: the zero-sum game the solver plays.
        slip: the slip model, as the envs take it (``None``: the reference's).
        seed: an int >= 0 seeds everything (the games and the learner's draws); ``None`` takes
            fresh entropy.
        max_bytes: the most memory the tables may take, an int >= 1 (bytes; ``None``:
            :data:`TABULAR_BYTES`), checked before anything is built: :meth:`table_bytes` gives
            what a map and a team size need.

    Attributes:
        layout, ghosts, num_games, epsilon, explore_starts, step_exponent, averaging, gamma: as given.
        sides: the two sides' names, ``("agent", "ghost")`` or ``("agent", "ghosts")``.
        turns: the full turns played so far, summed over the games.

    Raises:
        TypeError: ``layout`` is not a :class:`Layout` (a map generator is refused: the table is
            one map's), or a setting of the wrong type.
        ValueError: a setting outside the ranges above, a map with fewer than ``ghosts`` ghost
            starts, tables larger than ``max_bytes``, or as :class:`BatchedGame` refuses it.
    """

    def __init__(self, layout: Layout, *, ghosts: int = 1, num_games: int = 512, epsilon: float = 0.5,
                 explore_starts: float = 1.0, step_exponent: float = 0.6, averaging: float | None = 2.0,
                 gamma: float = 0.99, rewards: Rewards | str | None = None, slip: str | SlipModel | None = None,
                 seed: int | None = None, max_bytes: int | None = None) -> None:
        check_instance(layout, "layout", Layout)
        self.layout = layout
        self.ghosts = k = check_ghosts(ghosts)
        if len(layout.ghost_starts) < k:
            raise ValueError(f"ghosts={k} needs a map with {k} ghost starts; layout {layout.name!r} has "
                             f"{len(layout.ghost_starts)}")
        self.num_games = check_limit(num_games, "num_games", allow_none=False)
        self.epsilon = check_probability(epsilon, "epsilon")
        self.explore_starts = check_probability(explore_starts, "explore_starts")
        self.step_exponent = check_number(step_exponent, "step_exponent")
        if not 0.5 < self.step_exponent <= 1.0:
            raise ValueError(f"step_exponent must lie in (0.5, 1], got {step_exponent!r}")
        self.averaging: float | None = None
        if averaging is not None:
            try:
                self.averaging = check_number(averaging, "averaging")
            except (TypeError, ValueError) as error:
                raise type(error)(f"averaging must be a finite number >= 0 or None, got {averaging!r}") from None
        self.gamma = check_number(gamma, "gamma")
        if not 0.0 < self.gamma < 1.0:
            raise ValueError(f"gamma must lie in (0, 1), got {gamma!r}")
        budget = check_limit(max_bytes, "max_bytes") or TABULAR_BYTES
        needed = self.table_bytes(layout, k, averaged=self.averaging is not None)
        if needed > budget:
            states = (layout.rows * layout.cols) ** (k + 1)
            raise ValueError(f"the tables of {k} ghost(s) on the {layout.rows} x {layout.cols} map {layout.name!r} "
                             f"({states:,} states, {NUM_ACTIONS**k:,} joint moves) would take {needed:,} bytes, "
                             f"more than max_bytes={budget:,}; pass a larger max_bytes, or use a smaller map or team")
        sequence = np.random.SeedSequence(cast("int | None", check_seed(seed)))  # allow_sequence is False
        entropy = int(sequence.entropy)  # type: ignore[arg-type]  # an int for an int seed or fresh entropy
        self._engine = BatchedGame(num_games, seed=entropy, controlled=None, layout=layout, rewards=rewards,
                                   slip=slip, max_cycles=None, ghosts=k)
        self._rng = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(TABULAR_STREAM,)))
        cells = self._engine.num_cells
        self._cells = cells
        self.sides: tuple[str, str] = (AGENT, GHOST if k == 1 else TEAM)
        self._team = self.sides[1]
        self._width = {AGENT: NUM_ACTIONS, self._team: NUM_ACTIONS**k}
        goals = np.array(board_for(layout).is_goal, dtype=bool)
        # exploring starts: the cells reachable from the agent's start (every cell of most maps)
        self._reach = np.array(sorted(r * layout.cols + c for r, c in layout.reachable_from(layout.agent_start)))
        self._free = self._reach[~goals[self._reach]]
        # [state]: the game is over there (the agent on a goal or on a ghost); state = the agent's
        # cell, then each ghost's, in base ``cells`` (agent cell * cells + ghost cell for one ghost)
        digits = np.indices((cells,) * (k + 1)).reshape(k + 1, -1)
        self._over = goals[digits[0]] | (digits[1:] == digits[0]).any(axis=0)
        # Agent to move and ghosts to move: [state, move] (a team's joint move, ghost 0 the lowest digit).
        self._q = {side: np.zeros((cells ** (k + 1), self._width[side])) for side in self.sides}
        self._visits = {side: np.zeros(q.shape, dtype=np.int64) for side, q in self._q.items()}
        # The averaged tables (the live ones when averaging is None) and the batches averaged. The
        # average is kept lazily: an entry's is brought up to date only when its live value
        # changes or the average is read (a batch leaves most entries alone, and their average
        # moves by a known factor towards an unchanged value). ``_log_keep`` is the log of the
        # product of ``1 - weight`` over batches 2..t, ``_synced`` its value when each entry's
        # average was last brought up to date.
        self._average = self._q if self.averaging is None else {side: q.copy() for side, q in self._q.items()}
        self._synced = {} if self.averaging is None else {side: np.zeros(q.size) for side, q in self._q.items()}
        self._log_keep = 0.0
        self._batches = 0
        self.turns = 0
        self._engine.reset()
        self._explore(np.arange(num_games))

    @staticmethod
    def table_bytes(layout: Layout, ghosts: int = 1, averaged: bool = True) -> int:
        """The bytes of a learner's tables on ``layout`` with ``ghosts`` ghosts: per state
        (``cells ** (ghosts + 1)``) and move (4 of the agent's, ``4 ** ghosts`` of the ghosts') a
        live value, a visit count and, when ``averaged``, an averaged value and the point of its
        last update, 8 bytes each.

        Args:
            layout: the map.
            ghosts: the team's size ``k``, an int in 1..4.
            averaged: whether the learner keeps an averaged table (``averaging`` not ``None``).

        Raises:
            TypeError, ValueError: ``ghosts`` is not an int in 1..4.
        """
        k = check_ghosts(ghosts)
        return (2 + 2 * bool(averaged)) * 8 * (layout.rows * layout.cols) ** (k + 1) * (NUM_ACTIONS + NUM_ACTIONS**k)

    def _states(self, agents: np.ndarray, ghosts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The table's rows of the games at ``agents`` (``[N]``) and ``ghosts`` (``[N]`` or
        ``[N, k]``), and each game's ghosts in the row's order (``int64[N, k]``: the row's ghost
        ``j`` is the game's ghost ``order[:, j]``). A row is the agent's cell, then the ghosts'
        cells in increasing order, in base ``cells``: one row per multiset of ghost cells (for
        one ghost, ``agent cell * cells + ghost cell``)."""
        ghosts = ghosts.reshape(len(agents), -1)
        order = np.argsort(ghosts, axis=1, kind="stable")
        index = agents.copy()
        for column in np.take_along_axis(ghosts, order, axis=1).T:
            index *= self._cells
            index += column
        return index, order

    def _explore(self, games: np.ndarray) -> None:
        """Restart a fraction ``explore_starts`` of ``games`` (which have just started at the
        map's starts) from uniformly drawn states."""
        chosen = games[self._rng.random(len(games)) < self.explore_starts]
        if not len(chosen):
            return
        # The agent off the goals, each ghost on any other reachable cell: uniform over those states.
        agents = self._free[self._rng.integers(len(self._free), size=len(chosen))]
        ghosts = self._rng.integers(len(self._reach) - 1, size=(len(chosen), self.ghosts))
        ghosts += ghosts >= np.searchsorted(self._reach, agents)[:, None]
        ghosts = self._reach[ghosts]
        self._engine.reset(games=chosen, starts=(agents, ghosts[:, 0] if self.ghosts == 1 else ghosts))

    def _greedy(self, side: str, q: np.ndarray) -> np.ndarray:
        """``side``'s best moves of the rows of ``q``: the agent's largest, the ghosts' smallest."""
        return q.argmax(axis=1) if side == AGENT else q.argmin(axis=1)

    def _moves(self, side: str, states: np.ndarray) -> np.ndarray:
        """Epsilon-greedy moves of ``side`` in ``states`` (a team's joint moves)."""
        greedy = self._greedy(side, self._q[side][states])
        explore = self._rng.random(len(states)) < self.epsilon
        return np.where(explore, self._rng.integers(self._width[side], size=len(states)), greedy)

    def _team_actions(self, joint: np.ndarray, order: np.ndarray) -> np.ndarray:
        """The engine's ghost actions of joint moves in the rows' order (``order`` as
        :meth:`_states` gives it): ``joint`` itself for one ghost, each ghost's action
        (``int64[N, k]``, in the game's ghost order) for a team."""
        if self.ghosts == 1:
            return joint
        actions = np.empty_like(order)
        np.put_along_axis(actions, order, joint[:, None] // NUM_ACTIONS ** np.arange(self.ghosts) % NUM_ACTIONS, axis=1)
        return actions

    def _update(self, side: str, states: np.ndarray, moves: np.ndarray,
                targets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Step each sampled entry towards its targets, one sample after another in game order,
        each with the step size of its own visit: ``k`` samples of one entry in a batch give what
        ``k`` successive updates would. Returns the entries changed (flat indices) and their
        values before."""
        q, visits = self._q[side].reshape(-1), self._visits[side].reshape(-1)
        index = states * self._width[side] + moves
        order = np.argsort(index, kind="stable")
        index, targets = index[order], targets[order]
        entries, first, counts = np.unique(index, return_index=True, return_counts=True)
        group = np.repeat(np.arange(len(entries)), counts)
        before = visits[entries]
        # The i-th sample of an entry is its (before + i)-th visit: step 1 / visit ** exponent.
        step = (before[group] + np.arange(len(index)) - first[group] + 1).astype(np.float64) ** -self.step_exponent
        # What each sample leaves of what came before it: log(1 - step), a first visit's (step 1)
        # taken as 0 here and its entry's old value dropped below.
        log_keep = np.log1p(-np.where(step < 1.0, step, 0.0))
        running = np.cumsum(log_keep)
        total = running[first + counts - 1]  # the running sums of the entries before it included
        weights = step * np.exp(total[group] - running)  # times the steps after it, within the entry
        kept = np.where(before > 0, np.exp(total - (running[first] - log_keep[first])), 0.0)
        old = q[entries]
        q[entries] = kept * old + np.bincount(group, weights=weights * targets, minlength=len(entries))
        visits[entries] += counts
        return entries, old

    def _average_in(self, side: str, entries: np.ndarray, old: np.ndarray, weight: float, log_before: float) -> None:
        """This batch's step of the average of ``side``'s changed ``entries`` (their live values
        before the batch ``old``): brought up to the last batch, then ``weight`` of the way to the
        new live values."""
        average, synced = self._average[side].reshape(-1), self._synced[side]
        previous = old + np.exp(log_before - synced[entries]) * (average[entries] - old)
        average[entries] = previous + weight * (self._q[side].reshape(-1)[entries] - previous)
        synced[entries] = self._log_keep

    def _averaged(self, side: str) -> np.ndarray:
        """``side``'s averaged table, every entry brought up to date (the live table without an average)."""
        if self.averaging is not None:
            live, synced = self._q[side].reshape(-1), self._synced[side]
            average = self._average[side].reshape(-1)
            average[:] = live + np.exp(self._log_keep - synced) * (average - live)
            synced.fill(self._log_keep)
        return self._average[side]

    def learn(self, turns: int, *, progress_bar: bool = False) -> TabularSelfPlay:
        """Play and learn ``turns`` full turns (summed over the games; rounded up to whole batches).

        Args:
            turns: the full turns to play, an int >= 1.
            progress_bar: draw a progress bar with an ETA on stderr, counted in turns (as
                Stable-Baselines3's ``learn(progress_bar=True)``).

        Returns:
            The learner itself.

        Raises:
            TypeError, ValueError: ``turns`` is not an int >= 1; ``progress_bar`` is not a bool.
        """
        batches = -(-check_limit(turns, "turns", allow_none=False) // self.num_games)
        check_flag(progress_bar, "progress_bar")
        with make_bar(progress_bar, batches * self.num_games, "self-play", "turn") as bar:
            self._learn(batches, bar)
        logger.debug("%r: learnt %d turns in %d batches", self, batches * self.num_games, batches)
        return self

    def _learn(self, batches: int, bar: Bar) -> None:
        """Play and learn ``batches`` batches of one full turn per game, counting them on ``bar``."""
        engine, gamma, team = self._engine, self.gamma, self._team
        for _ in range(batches):
            changed = {}
            states = self._states(*engine.positions)[0]
            moves = self._moves(AGENT, states)
            step = engine.step_agent(moves)
            reward, ended = step.rewards[AGENT].copy(), step.terminations.copy()
            between, order = self._states(*engine.positions)  # the ghosts to move (where it ended: its end)
            changed[AGENT] = self._update(AGENT, states, moves,
                                          reward + np.where(ended, 0.0, self._q[team][between].min(axis=1)))
            replies = self._moves(team, between)
            step = engine.step_ghost(self._team_actions(replies, order))
            live = ~ended  # games that ended in the agent's half-turn: the ghosts do not move
            reward, over = step.rewards[AGENT], step.terminations
            after = self._states(*engine.positions)[0]  # a game that ended has restarted: not read then
            targets = reward + np.where(over, 0.0, gamma * self._q[AGENT][after].max(axis=1))
            changed[team] = self._update(team, between[live], replies[live], targets[live])
            self._explore(np.flatnonzero(over))
            self._batches += 1
            if self.averaging is not None:
                weight = (self.averaging + 1.0) / (self._batches + self.averaging)
                log_before = self._log_keep
                if self._batches > 1:  # the first batch's weight is 1: the average starts at the live table
                    self._log_keep += float(np.log1p(-weight))
                for side, (entries, old) in changed.items():
                    self._average_in(side, entries, old, weight, log_before)
            self.turns += self.num_games
            bar.update(self.num_games)

    def _side(self, side: str) -> str:
        return check_choice(side, "side", self.sides)

    def _grid(self, side: str, table: np.ndarray) -> np.ndarray:
        """``side``'s ``table`` (rows by multisets, see :meth:`_states`) over every state with the
        ghosts in their own order, as a grid: ``(rows, cols)`` per player, the agent's first, then
        the moves (a team's joint moves in the ghosts' own order)."""
        k, cells = self.ghosts, self._cells
        if k > 1:
            ghosts = np.indices((cells,) * k).reshape(k, -1).T
            rows, order = self._states(np.repeat(np.arange(cells), len(ghosts)), np.tile(ghosts, (cells, 1)))
            if side == AGENT:
                table = table[rows]
            else:  # the row's joint move of each of the state's joint moves
                moves = np.arange(NUM_ACTIONS**k)
                joint = np.zeros((len(rows), len(moves)), dtype=np.int64)
                for j in range(k):  # the row's ghost j moves as the state's ghost order[:, j]
                    joint += (moves // NUM_ACTIONS ** order[:, j, None] % NUM_ACTIONS) * NUM_ACTIONS**j
                table = table[rows[:, None], joint]
        return table.reshape(*self.layout.shape * (k + 1), *table.shape[1:])

    def q_values(self, side: str, *, averaged: bool = False) -> np.ndarray:
        """The learnt action values of ``side``'s moves, in the agent's units (the agent takes the
        largest, the ghosts the smallest): a copy, ``float64[rows, cols, rows, cols, 4]`` indexed
        by the agent's and the ghost's cells (``[agent row, agent col, ghost row, ghost col]``);
        for ``k`` ghosts a ``(rows, cols)`` per ghost, in their order, and the team's last axis
        its ``4 ** k`` joint moves (ghost 0's move the lowest base-4 digit, as the solver's).

        Args:
            side: ``"agent"`` or ``"ghost"`` (``"ghosts"`` for a team).
            averaged: the averaged table, which :meth:`policy` is greedy in, instead of the live one
                that the learning reads.

        Raises:
            ValueError: ``side`` is not one of :attr:`sides`; ``averaged=True`` on a learner built
                with ``averaging=None`` (it keeps no average).
            TypeError: ``averaged`` is not a bool.
        """
        side = self._side(side)
        if check_flag(averaged, "averaged") and self.averaging is None:
            raise ValueError("averaged=True needs an averaged table; this learner was built with averaging=None")
        return self._grid(side, self._averaged(side) if averaged else self._q[side]).copy()

    def visits(self, side: str) -> np.ndarray:
        """How many samples each entry of :meth:`q_values` has learnt from: ``int64``, same shape.

        Raises:
            ValueError: ``side`` is not one of :attr:`sides`.
        """
        side = self._side(side)
        return self._grid(side, self._visits[side]).copy()

    def policy(self, side: str) -> StatePolicy | np.ndarray:
        """``side``'s greedy policy of the averaged table (of the live one with ``averaging=None``;
        the first best move where several tie): a snapshot to judge with the solver.

        For one ghost, a :class:`~gridghost.planning.StatePolicy`, which an
        :class:`~gridghost.training.selfplay.OpponentPool` takes. For a team (``k >= 2``), a
        state policy is one ghost's, and the policy is the solver's own table instead: an
        ``int64[rows, cols, rows, cols, ...]`` array with a ``(rows, cols)`` per player, the
        agent's first, holding the agent's move (``"agent"``) or the team's joint move
        (``"ghosts"``), -1 where the game is over, as
        a :class:`~gridghost.planning.GameSolution`'s ``agent_policy`` and ``ghost_policy`` hold them;
        ``solve_ghost(agent=...)``, ``solve_agent(ghost=...)``, the exploitability functions
        and :func:`~gridghost.training.selfplay.exploitability_curve` (with ``ghosts=k``) read it.

        Raises:
            ValueError: ``side`` is not one of :attr:`sides`.
        """
        side = self._side(side)
        if self.ghosts == 1:
            moves = self._greedy(side, self._averaged(side))
            return StatePolicy(self.layout, SIDE_OF[side], moves.reshape(self._cells, self._cells))
        table = self._grid(side, self._averaged(side))
        moves = self._greedy(side, table.reshape(-1, table.shape[-1]))
        return np.where(self._over, -1, moves).reshape(table.shape[:-1])

    def __repr__(self) -> str:
        return (f"TabularSelfPlay(layout={self.layout.name!r}, ghosts={self.ghosts}, num_games={self.num_games}, "
                f"epsilon={self.epsilon}, explore_starts={self.explore_starts}, averaging={self.averaging}, "
                f"turns={self.turns})")
