"""The game as sparse arrays: the solver's turn model, and the caches of models and solutions.

States are ``(agent cell, ghost cells)`` with the agent to move, plus the terminal states (value
0); a game of ``k`` ghosts has ``k`` ghost cells, in the ghosts' order. One decision of the agent
is one full turn: its move (with slip), then the ghosts' answer, one joint move of the team (a
joint index, ghost 0 the lowest base-4 digit). A turn's reward is the agent's reward summed over
both half-turns (as in the Gymnasium view: -1, +100, -50 for walking into a ghost, -51 when
caught after a step). The ghosts decide in the state between the two half-turns (the agent has
moved, the ghosts are to move), so their policies and Q-values are indexed by the positions at
that moment. Positions are ``(row, col)`` tuples.

Everything is built on the kernel's exact distribution of a half-turn,
:meth:`gridghost.core.game.Game.transitions` (what :meth:`~gridghost.core.game.Game.successors`
reads for one state), asked once per action (``4 ** k`` joint actions for the team) for every
state at once and stored as sparse arrays (:class:`TurnModel`: next-state indices and
probabilities per state-action), so that value iteration (:mod:`gridghost.planning.solve`) runs
in NumPy with no Python loop over states. A team stored by multisets builds its joint actions'
arrays only when a solve reads them: a deciding team moves one ghost at a time instead
(:class:`~gridghost.planning.iteration.TeamStages`). With ``symmetric=True`` a team's states are its
*multisets* of ghost cells: permuting the ghosts changes neither side's value when both sides
decide or play a named policy, so a state is stored once, under its sorted ghost cells (about
``k!`` times fewer states).

>>> from gridghost.core.game import Game
>>> from gridghost.core.layout import CLASSIC
>>> from gridghost.core.slip import LongitudinalSlip
>>> model = turn_model(Game(CLASSIC, LongitudinalSlip(0.2)))
>>> model.num_live == len(model.states) and model.agent_next.shape[::2] == (4, model.num_live)
True
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from gridghost.core import halfturn
from gridghost.core.checks import check_cell, check_instance, check_limit
from gridghost.core.game import Game
from gridghost.core.layout import Layout
from gridghost.core.recent import RecentCache
from gridghost.core.rules import NUM_ACTIONS, Outcome, Side
from gridghost.planning.budget import live_count, model_bytes

#: The most live states a one-ghost solve takes on (a 64 x 64 map has about 16.8 million): see
#: :func:`model_bytes` for the bytes per state.
MAX_STATES = 2**24
#: How many live states a model's arrays are built from at a time.
_PART = 2**16
#: The most bytes of arrays a solve allocates unless told otherwise (``max_bytes=``): see
#: :func:`model_bytes` for the estimate.
MAX_BYTES = 2**32
#: About how many bytes of turn models, and of solutions, are kept for the next solve (the most
#: recent one always is): each cache holds at most this much of the NumPy arrays its items keep
#: alive (a solution's model and game included, and the outcome tables it may add later). Read at
#: every insertion; set ``gridghost.planning.CACHE_BYTES`` to change it.
CACHE_BYTES = 256 * 2**20


def check_budget(game: Any, symmetric: bool, max_bytes: Any, joint: bool = True, policy: bool = False,
                 compiled: bool = False) -> int:
    """Refuse a game whose solve would exceed the budget, before anything is allocated (``compiled``:
    a compiled one-ghost game, which reads no tables; see :func:`model_bytes`).

    Returns:
        The estimated bytes.

    Raises:
        TypeError, ValueError: ``max_bytes`` is not an int >= 1 or ``None``.
        ValueError: the estimate exceeds the budget (the message gives the states and bytes).
    """
    budget = check_limit(max_bytes, "max_bytes", none_means="gridghost.planning.MAX_BYTES") or MAX_BYTES
    k, cells, goals = game.ghosts, game.num_cells, int(np.count_nonzero(game.goals))
    needed = model_bytes(cells, goals, k, symmetric, joint=joint, policy=policy, compiled=compiled)
    if needed > budget:
        states = live_count(cells, goals, k, symmetric)
        raise ValueError(
            f"{k} ghost(s) on map {game.layout.name!r} ({cells} cells) make {states:,} live states"
            f"{' (ghosts as multisets)' if symmetric else ''}, about {needed:,} bytes ({needed / 2**20:,.0f} MiB) "
            f"of arrays; the budget is max_bytes={budget:,} ({budget / 2**20:,.0f} MiB): pass a larger max_bytes, "
            "or solve a smaller map or team"
        )
    return needed


#: The ghosts' joint moves' tables, in the order :meth:`TurnModel._ghosts_half` makes them.
_JOINT = ("ghost_next", "ghost_outcome", "ghost_reward")


# -- the model -----------------------------------------------------------------------------------
class TurnModel:
    """The game as sparse arrays over its live states, built from the kernel's transitions.

    A state is *live* when the game is not over: the agent is neither on a ghost's cell nor on a
    goal. The same states are live with the agent to move and with the ghosts to move, so both
    half-turns index one list of live states, ``states`` (codes ``agent * cells**k + ghost 0 *
    cells**(k-1) + ... + ghost k-1``; for one ghost ``agent * cells + ghost``); index ``num_live``
    is the terminal sink, whose value is 0.

    Args:
        game: the game kernel (with its ghosts in play), of any number of ghosts.
        symmetric: keep each team state once, under its sorted ghost cells (for solves whose
            values do not change when the ghosts are permuted); no effect for one ghost.
        max_bytes: the memory budget in bytes (``None``: :data:`MAX_BYTES`), checked before
            anything is allocated.
        tables: build one ghost's tables now (else when first read or by :meth:`make_tables`,
            checking the budget then; the budget checked here is then a compiled solve's, which
            reads none of them).

    Attributes:
        game: the kernel; ``ghosts`` its number of ghosts ``k``, ``joints`` the team's joint
            actions ``4 ** k``, ``symmetric`` as given (``False`` for one ghost).
        states: ``int64[num_live]``, the live states' codes, ascending.
        agents, ghost_cells: ``int64[num_live]`` and ``int64[num_live, k]``, their cells.
        index: ``int64[cells ** (k + 1)]``, each code's live index, or ``num_live`` when it is
            over; with ``symmetric``, ``int64[cells * placements]`` by agent cell and multiset
            (read through :meth:`lookup`), the multisets ranked by ``rank`` (``int64[cells ** k]``,
            by the code of the sorted ghost cells). With ``symmetric`` the live states' arrays, the
            agent's half-turns and the ghosts' joint moves below are made when first read.
        multisets: the ghosts' ``placements`` placements, ``int64[placements, k]`` (sorted
            multisets with ``symmetric``, else every tuple).
        agent_prob: ``float64[4, m]``: per agent action, the probability of each of the slip
            model's ``m`` outcomes (the same in every state; padding has probability 0).
        agent_next, agent_outcome: ``[4, m, num_live]``: per action, outcome and live state, the
            ghosts-to-move state reached (live index, or the sink when the game ends) and how the
            half-turn ended (:class:`~gridghost.core.rules.Outcome`).
        agent_reward: ``{Side: float64[4, m, num_live]}``, each side's reward for those outcomes.
        agent_expected: ``{Side: float64[4, num_live]}``, each side's expected reward per action.
        ghost_next, ghost_outcome: ``[joints, num_live]``: per joint action of the ghosts and live
            state (ghosts to move), the agent-to-move state reached and how the half-turn ended.
        ghost_reward: ``{Side: float64[joints, num_live]}``, each side's reward for the ghosts' moves
            (each side's made when first read).

    Raises:
        TypeError: ``game`` is not a game kernel.
        ValueError: the game is played without the ghost, has more than :data:`MAX_STATES` live
            states (one ghost), or needs more than ``max_bytes``.
    """

    def __init__(self, game: Game, symmetric: bool = False, max_bytes: Any = None, tables: bool = True) -> None:
        check_instance(game, "game", Game)
        if not game.use_ghost:
            raise ValueError("the solver needs the ghost in the game (use_ghost=True)")
        self.game = game
        self.ghosts = k = game.ghosts
        self.joints, self.symmetric = NUM_ACTIONS**k, bool(symmetric) and k > 1
        cells = game.num_cells
        count = live_count(cells, int(np.count_nonzero(game.goals)), 1)
        if k == 1 and count > MAX_STATES:
            raise ValueError(
                f"layout {game.layout.name!r} has {count:,} states (pairs of cells where the game goes on); "
                f"the solver takes at most gridghost.planning.MAX_STATES = {MAX_STATES:,} (a 64 x 64 map)"
            )
        check_budget(game, self.symmetric, max_bytes, joint=not self.symmetric, compiled=not tables)
        self.max_bytes = max_bytes
        self.agent_prob = np.zeros((NUM_ACTIONS, max(len(probabilities) for probabilities, _ in game.outcomes)))
        for action, (probabilities, _) in enumerate(game.outcomes):
            self.agent_prob[action, : len(probabilities)] = probabilities
        if self.symmetric:
            self.multisets, self.rank = multisets(cells, k)
        else:
            self.multisets = np.indices((cells,) * k).reshape(k, -1).T.astype(np.int64)
        # whether the game goes on with the agent on each cell and the ghosts on each placement
        live = halfturn.agent_lands(np.arange(cells)[:, None], self.multisets[None], game.goals) == Outcome.ONGOING
        self.placements, self.num_live = len(self.multisets), int(np.count_nonzero(live))
        self.index = np.full(live.size, self.num_live, dtype=np.int64)
        self.index[live.ravel()] = np.arange(self.num_live)
        if tables and not self.symmetric:
            self._agent_half()
        self._joint_tables = self._ghosts_half() if tables and not self.symmetric else None
        self._forget_cells()
        self._stored: np.ndarray | None = None  # with symmetric, the stored state of every state

    def __getattr__(self, name: str) -> Any:
        # what the class says is made when first read (a deciding team's sweeps read none of it);
        # each value is returned as made here, as a table built by another thread may forget
        # the live states' cells meanwhile
        if name in ("agents", "ghost_cells"):
            agents, rows = np.nonzero(self.index.reshape(self.game.num_cells, -1) < self.num_live)
            cells = self.multisets[rows]
            self.agents, self.ghost_cells = agents, cells
            return agents if name == "agents" else cells
        if name == "states":
            states = self.states = self.code(self.agents, self.ghost_cells)
            return states
        if name in ("agent_next", "agent_outcome", "agent_reward", "agent_expected"):
            if self.symmetric:
                check_budget(self.game, self.symmetric, self.max_bytes)
                self._agent_half()
            else:
                self.make_tables(self.max_bytes)
            return self.__dict__[name]
        if name in _JOINT:
            if self._joint_tables is None:
                if self.symmetric:
                    check_budget(self.game, self.symmetric, self.max_bytes)
                    self._joint_tables = self._ghosts_half()
                else:
                    self.make_tables(self.max_bytes)
            return self._joint_tables[_JOINT.index(name)]  # type: ignore[index]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def make_tables(self, max_bytes: Any) -> None:
        """Build the tables of a model made with ``tables=False`` (one ghost) now, if they are not
        built yet, checking the budget ``max_bytes`` (``None``: :data:`MAX_BYTES`) first; a
        symmetric team's are built when first read, and this does nothing for them.

        Raises:
            ValueError: the tables' solve needs more than ``max_bytes``.
        """
        if self.symmetric or ("agent_next" in self.__dict__ and self._joint_tables is not None):
            return
        check_budget(self.game, False, max_bytes)
        kept = "agents" in self.__dict__
        if "agent_next" not in self.__dict__:
            self._agent_half()
        if self._joint_tables is None:
            self._joint_tables = self._ghosts_half()
        if not kept:
            self._forget_cells()

    def _forget_cells(self) -> None:
        # the live states' cells were needed to build the tables: made again when next read
        self.__dict__.pop("agents", None)
        self.__dict__.pop("ghost_cells", None)

    def _transitions(self, side: Side, action: int, part: Any = slice(None)) -> Any:
        """The kernel's half-turns of ``side``'s ``action`` (a joint index for the ghosts) from the
        live states ``part`` (a slice or live indices)."""
        actions = self.game.joint_actions(action) if side == Side.GHOST else action
        return self.game.transitions(side, actions, self.agents[part], self.ghost_cells[part])

    def _parts(self) -> list[slice]:
        """The live states in slices of at most :data:`_PART` (what the model is built by, so
        that the kernel's transitions of all of them are never held at once)."""
        return [slice(start, start + _PART) for start in range(0, self.num_live, _PART)] or [slice(0, 0)]

    def _agent_half(self) -> None:
        # The agent's half-turns: the slip model's outcomes, padded to the widest action's, built
        # from slices of the live states; each side's rewards and expected reward per action
        # (constant through the iterations) are read from the outcomes when a solve asks for it.
        # The tables are filled before they are set: a model shared through the cache is never
        # seen half built by another thread (which would build its own, equal ones).
        shape = (NUM_ACTIONS, self.agent_prob.shape[1], self.num_live)
        agent_next, agent_outcome = np.empty(shape, dtype=np.int32), np.empty(shape, dtype=np.int8)  # MAX_STATES fits
        for part in self._parts():
            agent_next[:, :, part], agent_outcome[:, :, part] = self.agent_moves(part)
        self.agent_next, self.agent_outcome = agent_next, agent_outcome
        self.agent_reward = _PerSide(lambda side: by_outcome(self.game, Side.AGENT, side)[self.agent_outcome])
        self.agent_expected = _PerSide(self._expected)

    def agent_moves(self, live: Any) -> tuple[np.ndarray, np.ndarray]:
        """The agent's half-turns from the live states ``live`` (a slice or ``int[n]`` of live
        indices), every action and slip outcome: :attr:`agent_next` and :attr:`agent_outcome` for
        those states (``[4, m, n]``), read from the tables if they are built, else made for those
        states alone."""
        if "agent_next" in self.__dict__:
            return self.agent_next[:, :, live], self.agent_outcome[:, :, live]
        size = len(range(self.num_live)[live]) if isinstance(live, slice) else len(live)
        shape = (NUM_ACTIONS, self.agent_prob.shape[1], size)
        moves, outcomes = np.full(shape, self.num_live, dtype=np.int32), np.zeros(shape, dtype=np.int8)
        for action in range(NUM_ACTIONS):
            half = self._transitions(Side.AGENT, action, live)
            m = len(half.probabilities)
            moves[action, :m], outcomes[action, :m] = self._next(half).T, half.outcomes.T
        return moves, outcomes

    def expected_reward(self, side: Side, outcomes: np.ndarray) -> np.ndarray:
        """``side``'s expected reward of the agent's half-turn per action, ``[4, n]``, from its
        outcomes ``[4, m, n]`` (as :meth:`agent_moves` gives them; padding has probability 0)."""
        return np.einsum("ak,akl->al", self.agent_prob, by_outcome(self.game, Side.AGENT, side)[outcomes])

    def _expected(self, side: Side) -> np.ndarray:
        """``side``'s expected reward of the agent's half-turn per action and live state,
        ``[4, num_live]``, from slices of the live states."""
        expected = np.empty((NUM_ACTIONS, self.num_live))
        for part in self._parts():
            expected[:, part] = self.expected_reward(side, self.agent_outcome[:, :, part])
        return expected

    def _ghosts_half(self) -> Any:
        # The ghosts' half-turns: one outcome per joint action; each side's rewards are read from
        # the outcomes when a solve asks for that side.
        ghost_next, ghost_outcome = self.ghost_moves(slice(None))
        return ghost_next, ghost_outcome, _PerSide(lambda side: by_outcome(self.game, Side.GHOST, side)[ghost_outcome])

    def ghost_moves(self, live: Any, joints: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The ghosts' half-turns from the live states ``live`` (a slice or ``int[n]`` of live
        indices, ghosts to move): the columns of :attr:`ghost_next` and :attr:`ghost_outcome` for
        those states, read from the tables if they are built, else made for those states alone.

        Args:
            live: the states.
            joints: ``int[n]``, one joint action per state; ``None``: every joint action.

        Returns:
            ``(next, outcome)``: the agent-to-move states reached (the sink where the game ends)
            and how each half-turn ended, ``[joints, n]`` (``int32``, ``int8``), or ``[n]`` for
            the given ``joints``.
        """
        tables = self.__dict__.get("_joint_tables")  # None while the model is being built
        if tables is not None:
            return ((tables[0][:, live], tables[1][:, live]) if joints is None
                    else (tables[0][joints, live], tables[1][joints, live]))
        agents, ghosts = self.agents[live], self.ghost_cells[live]
        if joints is not None:
            return self._team_half(agents, ghosts, joints[:, None])
        moves = np.empty((self.joints, len(agents)), dtype=np.int32)
        outcomes = np.empty((self.joints, len(agents)), dtype=np.int8)
        block = max(1, _PART // max(1, len(agents)))  # about _PART half-turns at a time
        for first in range(0, self.joints, block):
            some = np.arange(first, min(first + block, self.joints))
            moves[some], outcomes[some] = self._team_half(agents, ghosts[None], some[:, None, None])
        return moves, outcomes

    def _team_half(self, agents: np.ndarray, ghosts: np.ndarray, joints: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The team's half-turns of joint actions ``joints`` (``[..., 1]``) from the agent cells
        ``agents`` and ghost cells ``ghosts`` (``[..., k]``), broadcast: the kernel's half-turn
        rules, as :meth:`~gridghost.core.game.Game.transitions` applies them."""
        digits = joints // NUM_ACTIONS ** np.arange(self.ghosts) % NUM_ACTIONS
        moved = halfturn.team_moves(self.game.moves, ghosts, digits)
        ends = halfturn.team_lands(agents, moved).astype(np.int8)
        going = ends == Outcome.ONGOING
        reached = np.full(ends.shape, self.num_live, dtype=np.int32)
        reached[going] = self.lookup(np.broadcast_to(agents, ends.shape)[going], moved[going])
        return reached, ends

    def cache_reserve(self) -> int:
        """The bytes the arrays made on demand may add (a cache counts them when it takes the
        model in): the joint moves' tables and both sides' rewards ``float64[joints, num_live]``,
        less those already made; with ``symmetric``, the live states' arrays and the agent's
        half-turns until they are made."""
        later = 0 if "agents" in self.__dict__ else 8 * (self.ghosts + 2)
        if "agent_next" not in self.__dict__:
            later += NUM_ACTIONS * (21 * self.agent_prob.shape[1] + 16)
        joint = 10 if self._joint_tables is None else 2 - len(self.ghost_reward)
        return self.num_live * (later + 8 * self.joints * joint)

    def agent_backup(self, between: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """``sum_k p_k * between[next_k]`` per agent action and live state: ``[4, num_live]`` (into
        ``out`` if given), the expected value after the agent's half-turn of values ``between``
        (``[num_live + 1]``, ghosts to move, the sink last and 0)."""
        # every action and slip outcome in one take, then each value's outcomes summed in their
        # order (a padding outcome, of probability 0, adds 0)
        spread = between.take(self.agent_next.reshape(-1)).reshape(self.agent_next.shape)
        spread *= self.agent_prob[:, :, None]
        return np.add.reduce(spread, axis=1, out=out)

    def continuing_reward(self, side: Side) -> float:
        """``side``'s reward for a full turn that does not end the game (the agent's step and the
        ghosts' wait); the same for every such turn."""
        game = self.game
        return game.rewards(Side.AGENT, Outcome.ONGOING)[side] + game.rewards(Side.GHOST, Outcome.ONGOING)[side]

    def code(self, agents: Any, ghosts: np.ndarray) -> np.ndarray:
        """The codes of states with the agent on ``agents`` and the ghosts on ``ghosts`` (a last
        axis of ``k``)."""
        cells, k = self.game.num_cells, self.ghosts
        codes = agents * cells**k
        for i in range(k):
            codes = codes + ghosts[..., i] * cells ** (k - 1 - i)
        return codes

    def lookup(self, agents: Any, ghosts: np.ndarray) -> np.ndarray:
        """The live index of each state (the sink where the game is over), ghosts in any order."""
        if self.symmetric:
            return self.index[agents * self.placements + self.rank[self.code(0, np.sort(ghosts, axis=-1))]]
        return self.index[self.code(agents, ghosts)]

    def _next(self, half: Any) -> np.ndarray:
        """The live index each outcome of ``half`` leads to, the sink where the game ends."""
        return np.where(half.outcomes == Outcome.ONGOING, self.lookup(half.agents, half.ghosts), self.num_live)

    # -- positions and tables ----------------------------------------------------------------------
    def ghost_indices(self, ghost_pos: Any) -> list[int]:
        """The cell indices of the ghosts' positions: one ``(row, col)`` for one ghost (or a
        sequence of one), a sequence of ``k`` of them for ``k`` ghosts.

        Raises:
            TypeError, ValueError: not that, or a position that is not a cell of the layout.
        """
        layout, k = self.game.layout, self.ghosts
        if isinstance(ghost_pos, np.ndarray) and ghost_pos.ndim == 2:
            ghost_pos = [tuple(cell) for cell in ghost_pos.tolist()]
        listed = isinstance(ghost_pos, (list, tuple)) and len(ghost_pos) > 0 and isinstance(
            ghost_pos[0], (list, tuple, np.ndarray))
        if k == 1 and not listed:
            return [cell_index(layout, ghost_pos, "ghost_pos")]
        if not listed or len(ghost_pos) != k:
            raise TypeError(f"ghost_pos must be a sequence of {k} (row, col) cells, one per ghost, got {ghost_pos!r}")
        return [cell_index(layout, cell, f"ghost_pos[{i}]") for i, cell in enumerate(ghost_pos)]

    def live_index(self, agent_pos: Any, ghost_pos: Any) -> int:
        """The live index of the state with the agent at ``agent_pos`` and the ghosts at
        ``ghost_pos`` (see :meth:`ghost_indices`), or :attr:`num_live` when the game is over there.

        Raises:
            TypeError, ValueError: a position is not a ``(row, col)`` cell of the layout.
        """
        agent = cell_index(self.game.layout, agent_pos, "agent_pos")
        ghosts = np.array(self.ghost_indices(ghost_pos), dtype=np.int64)
        return int(self.lookup(np.int64(agent), ghosts))

    def describe(self, live: int) -> str:
        """The positions of live state ``live``, in words (for messages)."""
        cols = self.game.layout.cols
        ghosts = [divmod(int(cell), cols) for cell in self.ghost_cells[live]]
        where = f"ghost at {ghosts[0]}" if self.ghosts == 1 else f"ghosts at {', '.join(map(str, ghosts))}"
        return f"agent at {divmod(int(self.agents[live]), cols)} and {where}"

    def start(self) -> int:
        """The live index of the start state (the sink if the game is over there)."""
        layout = self.game.layout
        return self.live_index(layout.agent_start, list(layout.ghost_starts[: self.ghosts]))

    def _spread(self) -> np.ndarray:
        """Each state's live index by code (the sink where the game is over): :attr:`index`
        itself, or with ``symmetric`` its stored state's, computed once."""
        if not self.symmetric:
            return self.index
        if self._stored is None:
            everything = np.indices((self.game.num_cells,) * (self.ghosts + 1)).reshape(self.ghosts + 1, -1)
            self._stored = self.lookup(everything[0], everything[1:].T)
        return self._stored

    def stored_joints(self, ghosts: np.ndarray) -> np.ndarray:
        """Each joint action of the ghosts on the cells ``ghosts`` (``int[n, k]``, in their order)
        as the joint action of the stored state, ``int64[n, joints]``: the identity unless states
        are stored by multisets, where the stored ghost ``i`` is the ``i``-th in sorted order."""
        joints = np.arange(self.joints)
        if not self.symmetric:
            return np.broadcast_to(joints, (len(ghosts), self.joints))
        digits = joints[:, None] // NUM_ACTIONS ** np.arange(self.ghosts) % NUM_ACTIONS  # [joints, k]
        return joint_index(digits.T[np.argsort(ghosts, axis=1, kind="stable")].swapaxes(1, 2))

    def expand(self, values: np.ndarray, fill: float = 0.0) -> np.ndarray:
        """Per-live-state ``values`` (``[num_live, ...]``) spread over every state:
        ``[rows, cols, (rows, cols) * k, ...]``, with ``fill`` where the game is over."""
        rows, cols = self.game.layout.shape
        shape = (rows, cols) * (self.ghosts + 1) + values.shape[1:]
        padded = np.concatenate([values, np.full((1, *values.shape[1:]), fill, dtype=values.dtype)])
        return padded[self._spread()].reshape(shape)

    def expand_q(self, q: np.ndarray) -> np.ndarray:
        """The ghosts' action values ``[joints, num_live]`` spread as :meth:`expand` does, each
        state's by the joint indices of its own ghosts' order."""
        cells, k = self.game.num_cells, self.ghosts
        placements = np.indices((cells,) * k).reshape(k, -1).T
        padded = np.concatenate([q.T, np.zeros((1, self.joints))])
        spread = padded[self._spread().reshape(cells, -1, 1), self.stored_joints(placements)[None]]
        return spread.reshape(self.game.layout.shape * (k + 1) + (self.joints,))

    def ghost_q(self, values: np.ndarray, side: Side, gamma: float, out: np.ndarray | None = None) -> np.ndarray:
        """``side``'s action values of the ghosts' joint moves, ``[joints, num_live]`` (into
        ``out`` if given): its reward for each move plus ``gamma`` times ``values`` after it
        (agent to move, ``[num_live + 1]``, the sink last and 0)."""
        # the model's own indices: mode="raise" would copy through a buffer
        q = values.take(self.ghost_next, out=out, mode="clip")  # type: ignore[call-overload]
        q *= gamma
        q += self.ghost_reward[side]
        return q


class _PerSide(dict):  # type: ignore[type-arg]
    """An array per side, made by ``make(side)`` when first read."""

    def __init__(self, make: Callable[[Side], np.ndarray]) -> None:
        super().__init__()
        self.make = make

    def __missing__(self, side: Side) -> np.ndarray:
        self[side] = made = self.make(side)
        return made


def by_outcome(game: Game, mover: Side, side: Side) -> np.ndarray:
    """``side``'s reward for a half-turn of ``mover`` by how it ends, ``float64[outcomes]``: the
    kernel's rewards depend on nothing else."""
    return np.array([game.rewards(mover, outcome)[side] for outcome in Outcome])


def multisets(cells: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The multisets of ``size`` of ``cells`` cells, sorted, ``int64[n, size]`` in ascending code
    order, and the rank of each among them by the code of its cells (``int64[cells ** size]``)."""
    combos = np.array(list(itertools.combinations_with_replacement(range(cells), size)), dtype=np.int64)
    combos = combos.reshape(math.comb(cells + size - 1, size), size)
    rank = np.zeros(cells**size, dtype=np.int64)
    rank[(combos * cells ** np.arange(size - 1, -1, -1)).sum(axis=1)] = np.arange(len(combos))
    return combos, rank


def joint_index(actions: Any) -> Any:
    """The joint index of each ghost's action (a last axis of ``k``; ghost 0 the lowest digit)."""
    array = np.asarray(actions, dtype=np.int64)
    return (array * NUM_ACTIONS ** np.arange(array.shape[-1])).sum(axis=-1)


#: What holds no array: the walk of :func:`retained_bytes` stops there.
_LEAVES = (int, float, complex, str, bytes, bool, type(None), range, slice)


def retained_bytes(*roots: Any) -> int:
    """The bytes of the NumPy arrays that ``roots`` keep alive: those reachable through the
    attributes of gridghost's objects and through dicts, lists, tuples and sets, each memory
    block once (a view counts the array it views). A cached solution keeps its turn model, and
    the model its game: all of it is what the cache holds.

    >>> retained_bytes({"a": np.zeros(4), "b": [np.zeros(4)[:2]]})
    64
    """
    seen: set[int] = set()
    blocks: dict[int, int] = {}
    stack = list(roots)
    while stack:
        item = stack.pop()
        if isinstance(item, _LEAVES) or id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, np.ndarray):
            base = item
            while isinstance(base.base, np.ndarray):
                base = base.base
            blocks[id(base)] = base.nbytes
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(element for element in item if not isinstance(element, _LEAVES))
        elif type(item).__module__.startswith("gridghost."):
            stack.extend(getattr(item, "__dict__", {}).values())
            stack.extend(getattr(item, name, None) for kind in type(item).__mro__
                         for name in getattr(kind, "__slots__", ()))
    return sum(blocks.values())


def _nbytes(item: Any) -> int:
    """What a cache counts for ``item``: the arrays it keeps alive, and what it says it may still
    add (its ``cache_reserve()``, such as a solution's outcome tables computed on demand)."""
    reserve = getattr(item, "cache_reserve", None)
    return retained_bytes(item) + (reserve() if reserve is not None else 0)


#: Turn models (:func:`turn_model`), bounded by the bytes they keep alive against :data:`CACHE_BYTES`.
_MODELS: RecentCache[Any] = RecentCache(lambda: CACHE_BYTES, _nbytes)
#: Solutions of the named problems (:func:`cached_solution`).
_SOLUTIONS: RecentCache[Any] = RecentCache(lambda: CACHE_BYTES, _nbytes)


def clear_caches() -> None:
    """Forget every cached turn model and solution (to free their memory, or to time a solve
    from scratch)."""
    _MODELS.clear()
    _SOLUTIONS.clear()


def _game_key(game: Any) -> tuple[Any, ...]:
    return game.layout, game.slip, game.agent_rewards, game.ghost_rewards, game.use_ghost, game.ghosts, game.credit


def turn_model(game: Game, symmetric: bool = False, max_bytes: Any = None, joint: bool = True,
               policy: bool = False, compiled: bool = False) -> TurnModel:
    """The :class:`TurnModel` of ``game``, shared with the last few solves of the same layout,
    slip model, rewards and ghosts (up to :data:`CACHE_BYTES`); the budget ``max_bytes`` is
    checked first in any case (see :class:`TurnModel`), for a solve that reads the ghosts' joint
    moves unless ``joint`` is false (a team that decides moves one ghost at a time), and for a fixed
    side's policy beside it with ``policy``. With ``compiled`` (a one-ghost game that
    :class:`~gridghost.planning.compiled.CompiledTurn` sweeps), the budget is that solve's, and a
    model made here builds its tables when first read (checking the budget then)."""
    symmetric = bool(symmetric) and game.ghosts > 1
    check_budget(game, symmetric, max_bytes, joint or not symmetric, policy, compiled)
    model = _MODELS.get((*_game_key(game), symmetric),
                        lambda: TurnModel(game, symmetric, max_bytes, tables=not compiled))
    if not compiled:  # a model a compiled solve made: its tables now, under this caller's budget
        model.make_tables(max_bytes)
    return model


def cached_solution(game: Any, key: tuple[Any, ...], build: Callable[[], Any]) -> Any:
    """The solution ``key`` names (the problem and the solver's settings) for ``game``, shared
    with the last few solves that asked for the same (up to :data:`CACHE_BYTES`); ``build()``
    makes it when it is not kept. Only the named problems (the game, the agent against a named
    ghost) are worth keeping: the views' experts and opponents ask for them again and again."""
    return _SOLUTIONS.get((_game_key(game), *key), build)


def cell_index(layout: Layout, position: Any, argument: str) -> int:
    """The index ``row * cols + col`` of the cell ``position`` of ``layout``.

    Raises:
        TypeError, ValueError: ``position`` is not a ``(row, col)`` cell of the layout
            (``argument`` names it).
    """
    row, col = check_cell(position, argument, layout.rows, layout.cols)
    return row * layout.cols + col
