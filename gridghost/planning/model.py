"""The game as sparse arrays: the solver's turn model, and the caches of models and solutions.

States are ``(agent cell, ghost cell)`` with the agent to move, plus the terminal states (value
0). One decision of the agent is one full turn: its move (with slip), then the ghost's answer. A
turn's reward is the agent's reward summed over both half-turns (as in the Gymnasium view: -1,
+100, -50 for walking into the ghost, -51 when caught after a step). The ghost decides in the
state between the two half-turns (the agent has moved, the ghost is to move), so its policies
and Q-values are indexed by the positions at that moment. Positions are ``(row, col)`` tuples.

Everything is built on the kernel's exact distribution of a half-turn,
:meth:`gridghost.core.game.Game.transitions` (what :meth:`~gridghost.core.game.Game.successors`
reads for one state), asked once per action for every state at once and stored as sparse arrays
(:class:`TurnModel`: next-state indices and probabilities per state-action), so that value
iteration (:mod:`gridghost.planning.solve`) runs in NumPy with no Python loop over states.

>>> from gridghost.core.game import Game
>>> from gridghost.core.layout import CLASSIC
>>> from gridghost.core.slip import LongitudinalSlip
>>> model = turn_model(Game(CLASSIC, LongitudinalSlip(0.2)))
>>> model.num_live == len(model.states) and model.agent_next.shape[::2] == (4, model.num_live)
True
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np

from gridghost.core.checks import check_cell, check_instance
from gridghost.core.game import Game
from gridghost.core.layout import Layout
from gridghost.core.rules import NUM_ACTIONS, Outcome, Side

#: The most live states the solver takes on (a 32 x 32 map has about a million): its arrays take
#: some 500 bytes per state, and a sweep some 60 ns per state.
MAX_STATES = 2**20
#: About how many bytes of turn models, and of solutions, are kept for the next solve (the most
#: recent one always is): each cache holds at most this much of the NumPy arrays its items keep
#: alive (a solution's model and game included, and the outcome tables it may add later). Read at
#: every insertion; set ``gridghost.planning.CACHE_BYTES`` to change it.
CACHE_BYTES = 256 * 2**20


# -- the model -----------------------------------------------------------------------------------
class TurnModel:
    """The game as sparse arrays over its live states, built from the kernel's transitions.

    A state is *live* when the game is not over: the agent is neither on the ghost's cell nor on
    a goal. The same pairs of cells are live with the agent to move and with the ghost to move,
    so both half-turns index one list of live states, ``states`` (cell pairs ``agent * cells +
    ghost``); index ``num_live`` is the terminal sink, whose value is 0.

    Args:
        game: the game kernel (with the ghost in play).

    Attributes:
        game: the kernel.
        states: ``int64[num_live]``, the live pairs ``agent * cells + ghost``.
        index: ``int64[cells * cells]``, each pair's live index, or ``num_live`` when it is over.
        agent_prob: ``float64[4, k]``: per agent action, the probability of each of the slip
            model's ``k`` outcomes (the same in every state; padding has probability 0).
        agent_next, agent_outcome: ``[4, k, num_live]``: per action, outcome and live state, the
            ghost-to-move state reached (live index, or the sink when the game ends) and how the
            half-turn ended (:class:`~gridghost.core.rules.Outcome`).
        agent_reward: ``{Side: float64[4, k, num_live]}``, each side's reward for those outcomes.
        agent_expected: ``{Side: float64[4, num_live]}``, each side's expected reward per action.
        ghost_next, ghost_outcome: ``[4, num_live]``: per ghost action and live state (ghost to
            move), the agent-to-move state reached and how the half-turn ended.
        ghost_reward: ``{Side: float64[4, num_live]}``, each side's reward for the ghost's moves.

    Raises:
        ValueError: the game is played without the ghost, or has more than :data:`MAX_STATES`
            live states.
    """

    def __init__(self, game: Game) -> None:
        check_instance(game, "game", Game)
        if not game.use_ghost:
            raise ValueError("the solver needs the ghost in the game (use_ghost=True)")
        self.game = game
        cells = game.num_cells
        live = np.ones((cells, cells), dtype=bool)
        np.fill_diagonal(live, False)
        live[game.goals] = False
        if live.sum() > MAX_STATES:
            raise ValueError(
                f"layout {game.layout.name!r} has {int(live.sum()):,} states (pairs of cells where the game goes on); "
                f"the solver takes at most gridghost.planning.MAX_STATES = {MAX_STATES:,} (a 32 x 32 map)"
            )
        self.states = np.flatnonzero(live)
        self.num_live = num_live = len(self.states)
        self.index = np.full(cells * cells, num_live, dtype=np.int64)
        self.index[self.states] = np.arange(num_live)

        agents, ghosts = np.divmod(self.states, cells)
        # The agent's half-turns: the slip model's outcomes, padded to the widest action's.
        halves = [game.transitions(Side.AGENT, action, agents, ghosts) for action in range(NUM_ACTIONS)]
        width = max(len(half.probabilities) for half in halves)
        self.agent_prob = np.zeros((NUM_ACTIONS, width))
        shape = (NUM_ACTIONS, width, num_live)
        self.agent_next = np.full(shape, num_live, dtype=np.int32)  # MAX_STATES fits
        self.agent_outcome = np.zeros(shape, dtype=np.int8)
        self.agent_reward = {Side.AGENT: np.zeros(shape), Side.GHOST: np.zeros(shape)}
        for action, half in enumerate(halves):
            k = len(half.probabilities)
            self.agent_prob[action, :k] = half.probabilities
            self.agent_next[action, :k] = self._next(half).T
            self.agent_outcome[action, :k] = half.outcomes.T
            self.agent_reward[Side.AGENT][action, :k] = half.agent_rewards.T
            self.agent_reward[Side.GHOST][action, :k] = half.ghost_rewards.T
        # The ghost's half-turns: one outcome each.
        halves = [game.transitions(Side.GHOST, action, agents, ghosts) for action in range(NUM_ACTIONS)]
        self.ghost_next = np.stack([self._next(half)[:, 0] for half in halves]).astype(np.int32)
        self.ghost_outcome = np.stack([half.outcomes[:, 0] for half in halves])
        self.ghost_reward = {
            Side.AGENT: np.stack([half.agent_rewards[:, 0] for half in halves]),
            Side.GHOST: np.stack([half.ghost_rewards[:, 0] for half in halves]),
        }
        # The expected reward of each agent action, per side (constant through the iterations).
        self.agent_expected = {
            side: np.einsum("ak,akl->al", self.agent_prob, reward) for side, reward in self.agent_reward.items()
        }

    def agent_backup(self, between: np.ndarray) -> np.ndarray:
        """``sum_k p_k * between[next_k]`` per agent action and live state: ``[4, num_live]``, the
        expected value after the agent's half-turn of values ``between`` (``[num_live + 1]``,
        ghost to move, the sink last and 0)."""
        out = np.zeros((NUM_ACTIONS, self.num_live))
        for action in range(NUM_ACTIONS):
            for k, probability in enumerate(self.agent_prob[action].tolist()):
                if probability > 0.0:
                    out[action] += probability * between.take(self.agent_next[action, k])
        return out

    def continuing_reward(self, side: Side) -> float:
        """``side``'s reward for a full turn that does not end the game (the agent's step and the
        ghost's wait); the same for every such turn."""
        game = self.game
        return game.rewards(Side.AGENT, Outcome.ONGOING)[side] + game.rewards(Side.GHOST, Outcome.ONGOING)[side]

    def _next(self, half: Any) -> np.ndarray:
        """The live index each outcome of ``half`` leads to, the sink where the game ends."""
        pairs = half.agents * self.game.num_cells + half.ghosts
        return np.where(half.outcomes == Outcome.ONGOING, self.index[pairs], self.num_live)

    # -- positions and tables ----------------------------------------------------------------------
    def live_index(self, agent_pos: Any, ghost_pos: Any) -> int:
        """The live index of the state with the agent at ``agent_pos`` and the ghost at
        ``ghost_pos``, or :attr:`num_live` when the game is over there.

        Raises:
            TypeError, ValueError: a position is not a ``(row, col)`` cell of the layout.
        """
        layout = self.game.layout
        agent, ghost = cell_index(layout, agent_pos, "agent_pos"), cell_index(layout, ghost_pos, "ghost_pos")
        return int(self.index[agent * self.game.num_cells + ghost])

    def expand(self, values: np.ndarray, fill: float = 0.0) -> np.ndarray:
        """Per-live-state ``values`` (``[num_live, ...]``) spread over every pair of cells:
        ``[rows, cols, rows, cols, ...]``, with ``fill`` where the game is over."""
        rows, cols = self.game.layout.shape
        full = np.full((self.game.num_cells ** 2, *values.shape[1:]), fill, dtype=values.dtype)
        full[self.states] = values
        return full.reshape(rows, cols, rows, cols, *values.shape[1:])


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


class _Cache:
    """A small thread-safe least-recently-used cache of built things by key, bounded by the bytes
    of the arrays they keep alive (:func:`_nbytes`, against :data:`CACHE_BYTES` as it is set at
    each insertion); the most recent item is kept whatever its size."""

    def __init__(self) -> None:
        self._items: OrderedDict[Any, tuple[Any, int]] = OrderedDict()
        self._bytes = 0  # the sum of the items' sizes, kept as they come and go
        self._lock = threading.Lock()

    def get(self, key: Any, build: Callable[[], Any]) -> Any:
        """The item of ``key``, built with ``build()`` (outside the lock) when it is not kept."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key][0]
        item = build()
        size = _nbytes(item)  # outside the lock: a walk over the item's objects
        with self._lock:
            if key in self._items:  # built by another thread meanwhile
                self._bytes -= self._items[key][1]
            self._items[key] = (item, size)
            self._items.move_to_end(key)
            self._bytes += size
            while len(self._items) > 1 and self._bytes > CACHE_BYTES:
                self._bytes -= self._items.popitem(last=False)[1][1]
        return item

    def clear(self) -> None:
        """Forget every item."""
        with self._lock:
            self._items.clear()
            self._bytes = 0


_MODELS = _Cache()
#: Solutions of the named problems (:func:`cached_solution`).
_SOLUTIONS = _Cache()


def clear_caches() -> None:
    """Forget every cached turn model and solution (to free their memory, or to time a solve
    from scratch)."""
    _MODELS.clear()
    _SOLUTIONS.clear()


def _game_key(game: Game) -> tuple[Any, ...]:
    return (game.layout, game.slip, game.agent_rewards, game.ghost_rewards, game.use_ghost)


def turn_model(game: Game) -> TurnModel:
    """The :class:`TurnModel` of ``game``, shared with the last few solves of the same layout,
    slip model and rewards (up to :data:`CACHE_BYTES`)."""
    return _MODELS.get(_game_key(game), lambda: TurnModel(game))


def cached_solution(game: Game, key: tuple[Any, ...], build: Callable[[], Any]) -> Any:
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
