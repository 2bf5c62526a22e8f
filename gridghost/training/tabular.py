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
averaged table (the first best move where several tie).

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
from gridghost.core.checks import (
    check_choice,
    check_flag,
    check_instance,
    check_limit,
    check_number,
    check_probability,
    check_seed,
)
from gridghost.core.layout import Layout
from gridghost.core.names import AGENT, AGENTS, GHOST
from gridghost.core.progress import Bar, make_bar
from gridghost.core.rules import NUM_ACTIONS, SIDE_OF, Rewards, board_for
from gridghost.core.slip import SlipModel
from gridghost.planning import StatePolicy

#: The ``SeedSequence`` spawn key of the stream :class:`TabularSelfPlay` draws its moves and
#: exploring starts from (the engine draws the slips from the seed itself).
TABULAR_STREAM = 2**32 + 18

logger = logging.getLogger(__name__)


class TabularSelfPlay:
    """Self-play of both sides with one table of action values on one map (see the module docstring).

    Args:
        layout: the map, a :class:`~gridghost.core.layout.Layout` (one fixed map).
        num_games: games played in lockstep, an int >= 1 (default 512).
        epsilon: each side's probability of a uniformly random move, in [0, 1] (default 0.5).
        explore_starts: the fraction of episodes that start from a uniformly drawn state (the two
            on different cells, the agent off the goals), in [0, 1] (default 1.0); the others
            start at the map's starts.
        step_exponent: the step size of an entry is ``1 / visits ** step_exponent``, a number in
            (0.5, 1] (default 0.6).
        averaging: the weighting ``eta`` of the averaged table the policies are greedy in (see the
            module docstring), a finite number >= 0 (default 2.0; 0 is the plain mean of every
            batch's table), or ``None``: no average, the policies are greedy in the live table (the
            behaviour before it existed).
        gamma: the discount per full turn, in (0, 1) (default 0.99, the solver's).
        rewards: the agent's rewards (``None``: the reference's; a preset name such as
            ``"normalised"``, or :class:`~gridghost.core.rules.Rewards`). The table holds the
            agent's returns and the ghost minimises them: the zero-sum game the solver plays.
        slip: the slip model, as the envs take it (``None``: the reference's).
        seed: an int >= 0 seeds everything (the games and the learner's draws); ``None`` takes
            fresh entropy.

    Attributes:
        layout, num_games, epsilon, explore_starts, step_exponent, averaging, gamma: as given.
        turns: the full turns played so far, summed over the games.

    Raises:
        TypeError: ``layout`` is not a :class:`Layout` (a map generator is refused: the table is
            one map's), or a setting of the wrong type.
        ValueError: a setting outside the ranges above, or as :class:`BatchedGame` refuses it.
    """

    def __init__(self, layout: Layout, *, num_games: int = 512, epsilon: float = 0.5, explore_starts: float = 1.0,
                 step_exponent: float = 0.6, averaging: float | None = 2.0, gamma: float = 0.99,
                 rewards: Rewards | str | None = None, slip: str | SlipModel | None = None,
                 seed: int | None = None) -> None:
        check_instance(layout, "layout", Layout)
        self.layout = layout
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
        sequence = np.random.SeedSequence(cast("int | None", check_seed(seed)))  # allow_sequence is False
        entropy = int(sequence.entropy)  # type: ignore[arg-type]  # an int for an int seed or fresh entropy
        self._engine = BatchedGame(num_games, seed=entropy, controlled=None, layout=layout, rewards=rewards,
                                   slip=slip, max_cycles=None)
        self._rng = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(TABULAR_STREAM,)))
        cells = self._engine.num_cells
        self._cells = cells
        self._goals = np.array(board_for(layout).is_goal, dtype=bool)
        # Agent to move and ghost to move: [state, move], state = agent cell * cells + ghost cell.
        self._q = {side: np.zeros((cells * cells, NUM_ACTIONS)) for side in AGENTS}
        self._visits = {side: np.zeros((cells * cells, NUM_ACTIONS), dtype=np.int64) for side in AGENTS}
        # The averaged tables (the live ones when averaging is None) and the batches averaged.
        self._average = self._q if self.averaging is None else {side: q.copy() for side, q in self._q.items()}
        self._batches = 0
        self.turns = 0
        self._engine.reset()
        self._explore(np.arange(num_games))

    def _explore(self, games: np.ndarray) -> None:
        """Restart a fraction ``explore_starts`` of ``games`` (which have just started at the
        map's starts) from uniformly drawn states."""
        chosen = games[self._rng.random(len(games)) < self.explore_starts]
        if not len(chosen):
            return
        # The agent off the goals, the ghost on any other cell: uniform over those pairs.
        free = np.flatnonzero(~self._goals)
        agents = free[self._rng.integers(len(free), size=len(chosen))]
        ghosts = self._rng.integers(self._cells - 1, size=len(chosen))
        ghosts += ghosts >= agents
        self._engine.reset(games=chosen, starts=(agents, ghosts))

    @staticmethod
    def _greedy(side: str, q: np.ndarray) -> np.ndarray:
        """``side``'s best moves of the rows of ``q``: the agent's largest, the ghost's smallest."""
        return q.argmax(axis=1) if side == AGENT else q.argmin(axis=1)

    def _moves(self, side: str, states: np.ndarray) -> np.ndarray:
        """Epsilon-greedy moves of ``side`` in ``states``."""
        greedy = self._greedy(side, self._q[side][states])
        explore = self._rng.random(len(states)) < self.epsilon
        return np.where(explore, self._rng.integers(NUM_ACTIONS, size=len(states)), greedy)

    def _update(self, side: str, states: np.ndarray, moves: np.ndarray, targets: np.ndarray) -> None:
        """Step each sampled entry towards its targets, one sample after another in game order,
        each with the step size of its own visit: ``k`` samples of one entry in a batch give what
        ``k`` successive updates would."""
        q, visits = self._q[side].reshape(-1), self._visits[side].reshape(-1)
        index = states * NUM_ACTIONS + moves
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
        q[entries] = kept * q[entries] + np.bincount(group, weights=weights * targets, minlength=len(entries))
        visits[entries] += counts

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
        engine, cells, gamma = self._engine, self._cells, self.gamma
        for _ in range(batches):
            agents, ghosts = engine.positions
            states = agents * cells + ghosts
            moves = self._moves(AGENT, states)
            step = engine.step_agent(moves)
            reward, ended = step.rewards[AGENT].copy(), step.terminations.copy()
            agents, ghosts = engine.positions
            between = agents * cells + ghosts  # the ghost to move (the final state where it ended)
            self._update(AGENT, states, moves, reward + np.where(ended, 0.0, self._q[GHOST][between].min(axis=1)))
            replies = self._moves(GHOST, between)
            step = engine.step_ghost(replies)
            live = ~ended  # games that ended in the agent's half-turn: the ghost does not move
            reward, over = step.rewards[AGENT], step.terminations
            agents, ghosts = engine.positions  # a game that ended has restarted: not read then
            after = agents * cells + ghosts
            targets = reward + np.where(over, 0.0, gamma * self._q[AGENT][after].max(axis=1))
            self._update(GHOST, between[live], replies[live], targets[live])
            self._explore(np.flatnonzero(over))
            self._batches += 1
            if self.averaging is not None:
                weight = (self.averaging + 1.0) / (self._batches + self.averaging)
                for side in AGENTS:
                    self._average[side] += weight * (self._q[side] - self._average[side])
            self.turns += self.num_games
            bar.update(self.num_games)

    def q_values(self, side: str, *, averaged: bool = False) -> np.ndarray:
        """The learnt action values of ``side``'s moves, in the agent's units (the agent takes the
        largest, the ghost the smallest): a copy, ``float64[rows, cols, rows, cols, 4]`` indexed
        by the agent's and the ghost's cells (``[agent row, agent col, ghost row, ghost col]``).

        Args:
            side: ``"agent"`` or ``"ghost"``.
            averaged: the averaged table, which :meth:`policy` is greedy in, instead of the live one
                that the learning reads.

        Raises:
            ValueError: ``side`` is not ``"agent"`` or ``"ghost"``; ``averaged=True`` on a learner
                built with ``averaging=None`` (it keeps no average).
            TypeError: ``averaged`` is not a bool.
        """
        side = check_choice(side, "side", AGENTS)
        if check_flag(averaged, "averaged") and self.averaging is None:
            raise ValueError("averaged=True needs an averaged table; this learner was built with averaging=None")
        table = self._average if averaged else self._q
        return table[side].reshape(*self.layout.shape, *self.layout.shape, NUM_ACTIONS).copy()

    def visits(self, side: str) -> np.ndarray:
        """How many samples each entry of :meth:`q_values` has learnt from: ``int64``, same shape.

        Raises:
            ValueError: ``side`` is not ``"agent"`` or ``"ghost"``.
        """
        side = check_choice(side, "side", AGENTS)
        return self._visits[side].reshape(*self.layout.shape, *self.layout.shape, NUM_ACTIONS).copy()

    def policy(self, side: str) -> StatePolicy:
        """``side``'s greedy policy of the averaged table (of the live one with ``averaging=None``),
        a :class:`~gridghost.planning.StatePolicy` (the first best move where several tie): a
        snapshot to add to an
        :class:`~gridghost.training.selfplay.OpponentPool` or to judge with the solver.

        Raises:
            ValueError: ``side`` is not ``"agent"`` or ``"ghost"``.
        """
        side = check_choice(side, "side", AGENTS)
        moves = self._greedy(side, self._average[side])
        return StatePolicy(self.layout, SIDE_OF[side], moves.reshape(self._cells, self._cells))

    def __repr__(self) -> str:
        return (f"TabularSelfPlay(layout={self.layout.name!r}, num_games={self.num_games}, epsilon={self.epsilon}, "
                f"explore_starts={self.explore_starts}, averaging={self.averaging}, turns={self.turns})")
