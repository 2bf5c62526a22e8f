"""Exact solutions of the game: the agent's MDP, the ghost's MDP, the zero-sum game, and
exploitability.

gridghost's maps are small enough to solve exactly, which gives every experiment a ground truth:
how often a perfect agent reaches a goal against the chasing ghost, what the game is worth when
both sides play perfectly, and how far a learned policy is from either.

States are ``(agent cell, ghost cell)`` with the agent to move, plus the terminal states (value
0). One decision of the agent is one full turn: its move (with slip), then the ghost's answer. A
turn's reward is the agent's reward summed over both half-turns (as in the Gymnasium view: -1,
+100, -50 for walking into the ghost, -51 when caught after a step), and ``gamma`` discounts per
full turn. The ghost decides in the state between the two half-turns (the agent has moved, the
ghost is to move), so its policies and Q-values are indexed by the positions at that moment.
Positions are ``(row, col)`` tuples.

Everything is built on the kernel's exact distribution of a half-turn,
:meth:`gridghost.core.game.Game.transitions` (what :meth:`~gridghost.core.game.Game.successors` reads for
one state), asked once per action for every state at once and stored as sparse arrays
(:class:`TurnModel`: next-state indices and probabilities per state-action). Value iteration
then runs in NumPy with no Python loop over states.

A *state policy* for a side is a callable ``(agent_pos, ghost_pos) -> action`` or an array of
probabilities of shape ``(rows, cols, rows, cols, 4)``; the ghost's is read with the ghost to
move. ``"chase"`` (the chasing ghost) and ``"random"`` name the shipped ones. A policy of
observations (a network trained on ``obs_type="vector"``, say) becomes a state policy through
:func:`tabulate_policy`, which asks it once per state through the env's own encoder.

>>> from gridghost.core.layout import CLASSIC
>>> sol = solve_agent(CLASSIC, "longitudinal", ghost="chase", gamma=0.99)
>>> round(sol.success_probability(CLASSIC.agent_start, CLASSIC.ghost_start), 3) > 0.9
True
"""

from __future__ import annotations

import inspect
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from gridghost.config.settings import EXPERTS, GameConfig
from gridghost.core.checks import check_action, check_choice, check_instance, check_limit, check_number
from gridghost.core.game import Game
from gridghost.core.layout import CLASSIC, Cell, Layout, check_cell
from gridghost.core.policies import ChasePolicy, RandomPolicy
from gridghost.core.rules import NUM_ACTIONS, GameState, Outcome, Rewards, Side
from gridghost.core.slip import SlipModel, make_slip

#: Value iteration gives up after this many sweeps without reaching the tolerance.
MAX_ITERATIONS = 100_000
#: The most live states the solver takes on (a 32 x 32 map has about a million): its arrays take
#: some 500 bytes per state, and a sweep some 60 ns per state.
MAX_STATES = 2**20
#: About how many bytes of turn models, and of solutions, are kept for the next solve (the most
#: recent one always is).
CACHE_BYTES = 256 * 2**20

_MAXIMISE, _MINIMISE = "max", "min"
#: A horizon's outcome probabilities are final once a turn changes none by more than this.
_SETTLED = 1e-15
#: How many horizons' outcome probabilities a solution keeps.
_OUTCOMES_KEPT = 8
_POLICY_SHAPE_TEXT = "(rows, cols, rows, cols, 4)"


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
        board = self.game.board
        agent, ghost = _cell_index(board.layout, agent_pos, "agent_pos"), _cell_index(board.layout, ghost_pos,
                                                                                       "ghost_pos")
        return int(self.index[agent * self.game.num_cells + ghost])

    def expand(self, values: np.ndarray, fill: float = 0.0) -> np.ndarray:
        """Per-live-state ``values`` (``[num_live, ...]``) spread over every pair of cells:
        ``[rows, cols, rows, cols, ...]``, with ``fill`` where the game is over."""
        rows, cols = self.game.layout.shape
        full = np.full((self.game.num_cells ** 2, *values.shape[1:]), fill, dtype=values.dtype)
        full[self.states] = values
        return full.reshape(rows, cols, rows, cols, *values.shape[1:])


def _nbytes(item: Any) -> int:
    """The bytes of the arrays an object holds directly or in a dict (a cache's estimate of its
    size)."""
    values = list(vars(item).values())
    values += [inner for value in values if isinstance(value, dict) for inner in value.values()]
    return sum(value.nbytes for value in values if isinstance(value, np.ndarray))


class _Cache:
    """A small thread-safe least-recently-used cache of built things by key, bounded by the bytes
    of their arrays (:data:`CACHE_BYTES`); the most recent item is kept whatever its size."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self._items: OrderedDict[Any, tuple[Any, int]] = OrderedDict()
        self._bytes = 0  # the sum of the items' sizes, kept as they come and go
        self._lock = threading.Lock()

    def get(self, key: Any, build: Callable[[], Any]) -> Any:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key][0]
        item = build()
        with self._lock:
            if key in self._items:  # built by another thread meanwhile
                self._bytes -= self._items[key][1]
            size = _nbytes(item)
            self._items[key] = (item, size)
            self._items.move_to_end(key)
            self._bytes += size
            while len(self._items) > 1 and self._bytes > self.budget:
                self._bytes -= self._items.popitem(last=False)[1][1]
        return item

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0


_MODELS = _Cache(CACHE_BYTES)
#: Solutions of the named problems (the game, the agent against a named ghost), which the views'
#: experts and opponents ask for again and again.
_SOLUTIONS = _Cache(CACHE_BYTES)


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


def _cell_index(layout: Layout, position: Any, argument: str) -> int:
    row, col = check_cell(position, argument, layout.rows, layout.cols)
    return row * layout.cols + col


# -- checks --------------------------------------------------------------------------------------
def _check_gamma(gamma: Any) -> float:
    try:
        value = check_number(gamma, "gamma", 0.0, strict=True)
    except ValueError:
        value = float("nan")
    if not 0.0 < value <= 1.0:
        raise ValueError(f"gamma must be a number in (0, 1], got {gamma!r}")
    return value


def _check_settings(gamma: Any, tol: Any, horizon: Any) -> tuple[float, float, int | None]:
    return (_check_gamma(gamma), check_number(tol, "tol", 0.0, strict=True),
            check_limit(horizon, "horizon", maximum=MAX_ITERATIONS))


def _game(layout: Any, slip: Any, rewards: Any, ghost_rewards: Any = None, config: Any = None) -> Game:
    """The game of the solvers' arguments: the settings one by one, or all of an env's at once as
    ``config`` (a :class:`~gridghost.config.settings.GameConfig` or its dict form)."""
    if config is not None:
        if isinstance(config, Mapping):
            config = GameConfig.from_dict(config)
        check_instance(config, "config", GameConfig)
        given = [name for name, value in (("layout", layout), ("slip", slip), ("rewards", rewards),
                                          ("ghost_rewards", ghost_rewards)) if value is not None]
        if given:
            raise ValueError(f"pass the game as config= or as settings, not both; got config and {given}")
        if not config.use_ghost:
            raise ValueError("config has no ghost in the game (use_ghost=False); the solver needs one")
        layout, slip, rewards, ghost_rewards = config.layout, config.slip, config.rewards, config.ghost_rewards
    layout = CLASSIC if layout is None else check_instance(layout, "layout", Layout)
    return Game(layout, make_slip(slip), rewards, ghost_rewards)


# -- state policies as arrays ----------------------------------------------------------------------
def _takes_two_arguments(policy: Callable[..., Any]) -> bool:
    try:
        signature = inspect.signature(policy)
    except (TypeError, ValueError):  # some builtins have none: let the call decide
        return True
    try:
        signature.bind(None, None)
    except TypeError:
        return False
    return True


def check_state_policy(policy: Any, game: Game, side: Side, argument: str, gamma: float = 0.99) -> StatePolicy:
    """Return ``policy`` as a :class:`StatePolicy` of ``side`` for ``game``'s layout: a
    :class:`StatePolicy` subclass is built with :meth:`StatePolicy.for_game` (with ``gamma``).

    Raises:
        ValueError: a policy of the other side, or one computed for another layout.
    """
    if isinstance(policy, type) and issubclass(policy, StatePolicy):
        policy = policy.for_game(game, gamma)
    if policy.side != side:
        raise ValueError(f"{argument} {policy!r} plays the {policy.side.name.lower()}; "
                         f"it is asked to play the {side.name.lower()}")
    if policy.layout != game.layout:
        raise ValueError(f"{argument} {policy!r} was computed for layout {policy.layout.name!r}, "
                         f"not for {game.layout.name!r}")
    return policy


def policy_array(policy: Any, model: TurnModel, side: Side, argument: str, gamma: float = 0.99) -> np.ndarray:
    """A state policy of ``side`` as ``float64[4, num_live]`` action probabilities over
    ``model``'s live states (the ghost's read with the ghost to move).

    Args:
        policy: ``"random"``, ``"chase"`` (the ghost only), a :class:`~gridghost.core.policies.RandomPolicy`
            or :class:`~gridghost.core.policies.ChasePolicy`, a :class:`StatePolicy` of this layout (or
            its class, built for this game), a callable ``(agent_pos, ghost_pos) -> action`` (asked
            once per live state) or an array of probabilities of shape ``(rows, cols, rows, cols, 4)``.
        model: the game's turn model.
        side: whose policy it is.
        argument: the argument's name, for messages.
        gamma: the discount a :class:`StatePolicy` class is built with.

    Raises:
        TypeError: ``policy`` is none of these (a policy of observations included: tabulate it
            first with :func:`tabulate_policy`).
        ValueError: an unknown name, the chasing ghost for the agent, a :class:`StatePolicy` of
            another layout or side, an array of the wrong shape or not holding probabilities, or a
            callable returning something other than an action.
    """
    num_live, layout = model.num_live, model.game.layout
    if isinstance(policy, str):
        if policy == "chase" and side == Side.AGENT:
            raise ValueError(f"{argument} 'chase' is the chasing ghost's rule; it cannot play the agent "
                             "(the agent's named policy: 'random')")
        check_choice(policy, argument, ("chase", "random") if side == Side.GHOST else ("random",))
        if policy == "random":
            return np.full((NUM_ACTIONS, num_live), 1.0 / NUM_ACTIONS)
        return _one_hot(model.game.chase_table.ravel()[model.states])
    if type(policy) is ChasePolicy:
        return policy_array("chase", model, side, argument)
    if isinstance(policy, RandomPolicy) and policy.num_actions == NUM_ACTIONS:
        return policy_array("random", model, side, argument)
    if isinstance(policy, StatePolicy) or (isinstance(policy, type) and issubclass(policy, StatePolicy)):
        policy = check_state_policy(policy, model.game, side, argument, gamma)
        return _one_hot(policy.table.ravel()[model.states])
    if isinstance(policy, (np.ndarray, list, tuple)):
        return _probability_array(policy, model, argument)
    if callable(policy):
        if not _takes_two_arguments(policy):
            raise TypeError(
                f"{argument} must be a state policy (agent_pos, ghost_pos) -> action; {policy!r} takes one "
                "argument: a policy of observations is tabulated first with gridghost.planning.solve.tabulate_policy"
            )
        cells = model.game.num_cells
        actions = np.empty(num_live, dtype=np.int64)
        for i, pair in enumerate(model.states.tolist()):
            agent, ghost = divmod(pair, cells)
            where = f"{argument} at agent {divmod(agent, layout.cols)}, ghost {divmod(ghost, layout.cols)}"
            try:
                action = policy(divmod(agent, layout.cols), divmod(ghost, layout.cols))
                actions[i] = check_action(action, where)
            except (TypeError, ValueError) as error:
                raise type(error)(
                    f"{error} (a state policy is called as policy(agent_pos, ghost_pos) -> action; a policy of "
                    "observations, such as a model's predict, is tabulated first with tabulate_policy)"
                ) from error
        return _one_hot(actions)
    names = "'chase', 'random'" if side == Side.GHOST else "'random'"
    raise TypeError(
        f"{argument} must be {names}, a StatePolicy (such as MinimaxGhost), a callable (agent_pos, ghost_pos) "
        f"-> action or an array of probabilities of shape {_POLICY_SHAPE_TEXT}; got {policy!r}"
    )


def _one_hot(actions: np.ndarray) -> np.ndarray:
    table = np.zeros((NUM_ACTIONS, len(actions)))
    table[actions, np.arange(len(actions))] = 1.0
    return table


def _probability_array(values: Any, model: TurnModel, argument: str) -> np.ndarray:
    rows, cols = model.game.layout.shape
    array = np.asarray(values)
    shape = (rows, cols, rows, cols, NUM_ACTIONS)
    if array.shape != shape:
        raise ValueError(f"{argument} must be an array of shape {_POLICY_SHAPE_TEXT} = {shape}, "
                         f"got shape {array.shape}")
    if not (np.issubdtype(array.dtype, np.floating) or np.issubdtype(array.dtype, np.integer)) or array.dtype == bool:
        raise TypeError(f"{argument} must hold probabilities (real numbers), got dtype {array.dtype}")
    table = array.astype(float).reshape(rows * cols * rows * cols, NUM_ACTIONS)[model.states].T
    if not np.isfinite(table).all() or (table < 0).any():
        raise ValueError(f"{argument} must hold probabilities >= 0 (finite)")
    sums = table.sum(axis=0)
    bad = np.flatnonzero(np.abs(sums - 1.0) > 1e-6)
    if len(bad):
        agent, ghost = divmod(int(model.states[bad[0]]), rows * cols)
        raise ValueError(
            f"{argument}'s probabilities must sum to 1 in every state where the game goes on; at agent "
            f"{divmod(agent, cols)}, ghost {divmod(ghost, cols)} they sum to {sums[bad[0]]:.6g}"
        )
    return np.ascontiguousarray(table)


# -- value iteration -------------------------------------------------------------------------------
#: Either side's rule in value iteration: choose the best action for the agent (``"max"``) or
#: for the ghost in the zero-sum game (``"min"``), or follow fixed probabilities ``[4, num_live]``.
Rule = Any


def _reduce(q: np.ndarray, rule: Rule) -> np.ndarray:
    """``q`` (``[4, num_live]``) reduced over actions by ``rule``."""
    if isinstance(rule, str):
        return np.maximum.reduce(q) if rule == _MAXIMISE else np.minimum.reduce(q)
    return np.einsum("al,al->l", q, rule)


def _greedy(q: np.ndarray, rule: str) -> np.ndarray:
    """The best action per state of ``q`` (``[4, num_live]``); ties (within 1e-9 of the best,
    relative) go to the lowest action, so that rounding never decides."""
    best = _reduce(q, rule)
    slack = 1e-9 * np.maximum(1.0, np.abs(best))
    near = q >= best - slack if rule == _MAXIMISE else q <= best + slack
    return np.argmax(near, axis=0)


def _check_ends(model: TurnModel, agent: Rule, ghost: Rule) -> None:
    """Refuse undiscounted values without a horizon when the deciding sides (or the fixed
    policies' chances) can keep the game going for ever: its values would not be defined."""
    sink = model.num_live
    going = np.ones(sink + 1, dtype=bool)
    going[sink] = False
    while True:
        stays = going[model.ghost_next]  # [4, num_live]; the sink is never "going"
        ghost_stays = stays.any(axis=0) if isinstance(ghost, str) else (stays | (ghost <= 0)).all(axis=0)
        after = np.append(ghost_stays, False)  # ghost-to-move states that can go on
        moves_stay = (after[model.agent_next] | (model.agent_prob <= 0)[:, :, None]).all(axis=1)
        agent_stays = moves_stay.any(axis=0) if isinstance(agent, str) else (moves_stay | (agent <= 0)).all(axis=0)
        new = np.append(agent_stays & going[:sink], False)
        if (new == going).all():
            break
        going = new
    endless = np.flatnonzero(going[:sink])
    if len(endless):
        cols, cells = model.game.layout.cols, model.game.num_cells
        agent_cell, ghost_cell = divmod(int(model.states[endless[0]]), cells)
        raise ValueError(
            f"gamma=1 without a horizon: the game may never end ({len(endless)} states, e.g. agent at "
            f"{divmod(agent_cell, cols)} and ghost at {divmod(ghost_cell, cols)}, can go on for ever), so its "
            "undiscounted values are not defined; pass gamma < 1 or a horizon"
        )


def _iterate(model: TurnModel, agent: Rule, ghost: Rule, side: Side, gamma: float, tol: float,
             horizon: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, float]:
    """Value iteration over full turns: from zero with a horizon (the values of a game of that
    many turns), else from the value of a game that never ends.

    Args:
        model: the game.
        agent, ghost: each side's :data:`Rule`.
        side: whose rewards are summed.
        gamma, tol: discount per turn; stop when no value changes by more than ``tol``.
        horizon: if given, exactly this many sweeps: the values of a game of ``horizon`` turns.

    Returns:
        ``(values, agent_q, ghost_q, sweeps, residual)``: the agent-to-move values (``[num_live
        + 1]``, the sink last), the agent's action values ``[4, num_live]`` and the ghost's, with the
        ghost to move, from the last sweep (their best is the values).

    Raises:
        ValueError: ``gamma=1`` without a horizon where the game may never end.
        RuntimeError: the tolerance was not reached in :data:`MAX_ITERATIONS` sweeps.
    """
    if horizon is None and gamma >= 1.0:
        _check_ends(model, agent, ghost)
    sink = model.num_live
    values = np.zeros(sink + 1)
    if horizon is None and gamma < 1.0:
        # Every turn that does not end the game pays the same reward c, so a game that never
        # ends is worth c / (1 - gamma): starting there, states that never end are exact from the
        # first sweep, and the sweeps needed depend on how fast games end, not on gamma alone.
        values[:sink] = model.continuing_reward(side) / (1.0 - gamma)
    between = np.zeros(sink + 1)  # values with the ghost to move
    agent_expected = model.agent_expected[side]
    ghost_reward, ghost_next = model.ghost_reward[side], model.ghost_next
    agent_q = ghost_q = np.zeros((NUM_ACTIONS, sink))
    residual = float("inf")
    sweeps = horizon if horizon is not None else MAX_ITERATIONS
    for sweep in range(1, sweeps + 1):
        ghost_q = ghost_reward + gamma * values.take(ghost_next)
        between[:sink] = _reduce(ghost_q, ghost)
        agent_q = agent_expected + model.agent_backup(between)
        new = _reduce(agent_q, agent)
        residual = float(np.abs(new - values[:sink]).max()) if sink else 0.0
        values[:sink] = new
        if horizon is None and residual <= tol:
            return values, agent_q, ghost_q, sweep, residual
    if horizon is None:
        raise RuntimeError(
            f"value iteration did not reach tol={tol:g} in {MAX_ITERATIONS} sweeps (last change {residual:.3g}); "
            "raise tol or lower gamma"
        )
    return values, agent_q, ghost_q, sweeps, residual


def _outcome_within(model: TurnModel, agent: np.ndarray, ghost: np.ndarray, event: Outcome,
                    horizon: int) -> tuple[np.ndarray, np.ndarray]:
    """For fixed policies of both sides, per live agent-to-move state: the probability that the
    game ends in ``event`` within ``horizon`` full turns, and the expected turn it ends in that
    way, counting only games that do (``E[T; T <= horizon]``), each ``[num_live + 1]``."""
    sink = model.num_live
    hit_agent = (model.agent_outcome == event).astype(float)  # [4, k, num_live]
    hit_ghost = (model.ghost_outcome == event).astype(float)  # [4, num_live]
    agent_hit = np.einsum("al,ak,akl->l", agent, model.agent_prob, hit_agent)
    probability, timing = np.zeros(sink + 1), np.zeros(sink + 1)
    between_p, between_t = np.zeros(sink + 1), np.zeros(sink + 1)
    for _ in range(horizon):
        # the ghost's half, then the agent's: one turn before the last horizon's values
        between_p[:sink] = np.einsum("al,al->l", ghost, hit_ghost + probability.take(model.ghost_next))
        between_t[:sink] = np.einsum("al,al->l", ghost, timing.take(model.ghost_next))
        new_p = agent_hit + np.einsum("al,al->l", agent, model.agent_backup(between_p))
        # every game that ends this way later ends one turn later than from the next state
        new_t = new_p + np.einsum("al,al->l", agent, model.agent_backup(between_t))
        settled = (np.abs(new_p - probability[:sink]).max(initial=0.0) <= _SETTLED
                   and (np.abs(new_t - timing[:sink]) <= _SETTLED * np.maximum(1.0, new_t)).all())
        probability[:sink], timing[:sink] = new_p, new_t
        if settled:  # no game still going can end this way any more: longer horizons change nothing
            break
    return probability, timing


class _Solution:
    """What every solution shares: the model, the settings and how value iteration went.

    With a ``horizon``, values are those of a game cut after that many turns, and the policies
    (``action``, ``policy`` and what the probabilities below follow) are the first turn's, the
    best with the whole horizon to go, played at every turn.

    Attributes:
        layout: the map.
        model: the :class:`TurnModel` solved.
        gamma, tol, horizon: the settings.
        sweeps: the value-iteration sweeps made.
        residual: the largest change of a value in the last sweep.
    """

    _values: np.ndarray  # the values of the live states, agent to move, and the sink's 0

    def __setattr__(self, name: str, value: Any) -> None:
        # Solutions are shared through a cache: their arrays are read-only.
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
        object.__setattr__(self, name, value)

    def __init__(self, model: TurnModel, gamma: float, tol: float, horizon: int | None, sweeps: int,
                 residual: float) -> None:
        self.model, self.layout = model, model.game.layout
        self.gamma, self.tol, self.horizon = gamma, tol, horizon
        self.sweeps, self.residual = sweeps, residual
        self._outcomes: dict[tuple[Outcome, int], tuple[np.ndarray, np.ndarray]] = {}

    def __repr__(self) -> str:
        horizon = "" if self.horizon is None else f", horizon={self.horizon}"
        return (f"{type(self).__name__}(layout={self.layout.name!r}, slip={self.model.game.slip!r}, "
                f"gamma={self.gamma:g}{horizon}, sweeps={self.sweeps}, residual={self.residual:.2g})")

    def _live(self, agent_pos: Any, ghost_pos: Any) -> int:
        index = self.model.live_index(agent_pos, ghost_pos)
        if index == self.model.num_live:
            raise ValueError(
                f"the game is over with the agent at {tuple(agent_pos)} and the ghost at {tuple(ghost_pos)} "
                "(caught, or the agent on a goal): nobody moves there"
            )
        return index

    def _policies(self) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError  # pragma: no cover - every solution defines it

    def value(self, agent_pos: Any, ghost_pos: Any) -> float:
        """The expected discounted return from this state, agent to move, when both sides play
        this solution's policies (the agent's return, or the ghost's for a
        :class:`GhostSolution`); 0 where the game is over.

        Raises:
            TypeError, ValueError: a position is not a cell of the layout.
        """
        return float(self._values[self.model.live_index(agent_pos, ghost_pos)])

    def _outcome(self, agent_pos: Any, ghost_pos: Any, event: Outcome, horizon: int) -> tuple[float, float]:
        horizon = check_limit(horizon, "horizon", allow_none=False, maximum=MAX_ITERATIONS)  # type: ignore[assignment]
        index = self.model.live_index(agent_pos, ghost_pos)
        key = (event, horizon)
        if key not in self._outcomes:
            if len(self._outcomes) >= _OUTCOMES_KEPT:
                del self._outcomes[next(iter(self._outcomes))]
            self._outcomes[key] = _outcome_within(self.model, *self._policies(), event, horizon)
        probability, timing = self._outcomes[key]
        return float(probability[index]), float(timing[index])

    def success_probability(self, agent_pos: Any, ghost_pos: Any, horizon: int = 100) -> float:
        """The probability that the agent reaches a goal within ``horizon`` full turns from this
        state (agent to move), both sides following this solution's policies; 0 where the game
        is over.

        Raises:
            TypeError, ValueError: a position is not a cell of the layout, or ``horizon`` is not
                an int >= 1.
        """
        return self._outcome(agent_pos, ghost_pos, Outcome.GOAL, horizon)[0]

    def capture_probability(self, agent_pos: Any, ghost_pos: Any, horizon: int = 100) -> float:
        """The probability that the ghost catches the agent within ``horizon`` full turns from
        this state (agent to move), both sides following this solution's policies.

        Raises:
            TypeError, ValueError: as :meth:`success_probability`.
        """
        return self._outcome(agent_pos, ghost_pos, Outcome.CAUGHT, horizon)[0]

    def capture_time(self, agent_pos: Any, ghost_pos: Any, horizon: int = 100) -> float:
        """The expected number of full turns until the ghost catches the agent, among the games
        from this state that end with a catch within ``horizon`` turns (``nan`` if none does).

        Raises:
            TypeError, ValueError: as :meth:`success_probability`.
        """
        probability, timing = self._outcome(agent_pos, ghost_pos, Outcome.CAUGHT, horizon)
        return timing / probability if probability > 0.0 else float("nan")


class _OneSide(_Solution):
    """One side's MDP against a fixed policy of the other, solved: what :class:`AgentSolution` and
    :class:`GhostSolution` share. Values are that side's own returns."""

    def __init__(self, model: TurnModel, side: Side, opponent: np.ndarray, gamma: float, tol: float,
                 horizon: int | None) -> None:
        agent, ghost = (_MAXIMISE, opponent) if side == Side.AGENT else (opponent, _MAXIMISE)
        values, agent_q, ghost_q, sweeps, residual = _iterate(model, agent, ghost, side, gamma, tol, horizon)
        super().__init__(model, gamma, tol, horizon, sweeps, residual)
        self._side, self._opponent = side, opponent
        self._values, self._q = values, agent_q if side == Side.AGENT else ghost_q
        self._actions = _greedy(self._q, _MAXIMISE)
        self.values = model.expand(values[:-1])
        self.q_values = model.expand(self._q.T)
        self.policy = model.expand(self._actions, fill=-1)

    def _policies(self) -> tuple[np.ndarray, np.ndarray]:
        mine = _one_hot(self._actions)
        return (mine, self._opponent) if self._side == Side.AGENT else (self._opponent, mine)

    def q(self, agent_pos: Any, ghost_pos: Any) -> np.ndarray:
        """This side's action values (``float64[4]``) with this side to move at these positions.

        Raises:
            TypeError, ValueError: a position is not a cell of the layout, or the game is over.
        """
        return self._q[:, self._live(agent_pos, ghost_pos)].copy()

    def action(self, agent_pos: Any, ghost_pos: Any) -> int:
        """This side's greedy action with this side to move at these positions (ties to the
        lowest action).

        Raises:
            TypeError, ValueError: as :meth:`q`.
        """
        return int(self._actions[self._live(agent_pos, ghost_pos)])


class AgentSolution(_OneSide):
    """The agent's MDP against a fixed ghost, solved (:func:`solve_agent`).

    Attributes:
        values: ``float64[rows, cols, rows, cols]``, the optimal value of every state (agent to
            move; 0 where the game is over).
        q_values: ``float64[rows, cols, rows, cols, 4]``, the agent's action values.
        policy: ``int64[rows, cols, rows, cols]``, the greedy action (-1 where the game is over).
        ghost: the ghost's policy, ``float64[rows, cols, rows, cols, 4]`` probabilities (ghost to
            move).
    """

    def __init__(self, model: TurnModel, ghost: np.ndarray, gamma: float, tol: float, horizon: int | None) -> None:
        super().__init__(model, Side.AGENT, ghost, gamma, tol, horizon)
        self.ghost = model.expand(ghost.T)


class GhostSolution(_OneSide):
    """The ghost's MDP against a fixed agent, solved (:func:`solve_ghost`): values are the
    ghost's own returns.

    Turns start with the agent's move, as everywhere in the solver, so the reward of the agent's
    reply to a ghost move is discounted once more than the ghost's move. A learning ghost's
    Gymnasium step is its move plus that reply, undiscounted between them: with ``gamma < 1``
    its action values differ from :attr:`q_values` by that discount.

    Attributes:
        values: ``float64[rows, cols, rows, cols]``, the ghost's optimal value of every state with
            the agent to move (0 where the game is over).
        q_values: ``float64[rows, cols, rows, cols, 4]``, the ghost's action values with the ghost
            to move.
        policy: ``int64[rows, cols, rows, cols]``, the ghost's greedy action with the ghost to
            move (-1 where the game is over).
        agent: the agent's policy, ``float64[rows, cols, rows, cols, 4]`` probabilities.
    """

    def __init__(self, model: TurnModel, agent: np.ndarray, gamma: float, tol: float, horizon: int | None) -> None:
        super().__init__(model, Side.GHOST, agent, gamma, tol, horizon)
        self.agent = model.expand(agent.T)


class GameSolution(_Solution):
    """The zero-sum game, solved (:func:`solve_game`): the agent maximises its return, the ghost
    minimises it, slip is chance. Values are the agent's.

    Attributes:
        values: ``float64[rows, cols, rows, cols]``, the game's value of every state, agent to
            move (0 where the game is over).
        agent_q_values: ``float64[rows, cols, rows, cols, 4]``, the agent's action values.
        ghost_q_values: ``float64[rows, cols, rows, cols, 4]``, the ghost's action values (the
            agent's return after each ghost move), ghost to move.
        agent_policy, ghost_policy: ``int64[rows, cols, rows, cols]``, each side's optimal action
            (the ghost's with the ghost to move; -1 where the game is over).
    """

    def __init__(self, model: TurnModel, gamma: float, tol: float, horizon: int | None) -> None:
        values, agent_q, ghost_q, sweeps, residual = _iterate(model, _MAXIMISE, _MINIMISE, Side.AGENT, gamma, tol,
                                                              horizon)
        super().__init__(model, gamma, tol, horizon, sweeps, residual)
        self._values, self._agent_q, self._ghost_q = values, agent_q, ghost_q
        self._agent_actions = _greedy(agent_q, _MAXIMISE)
        self._ghost_actions = _greedy(ghost_q, _MINIMISE)
        self.values = model.expand(values[:-1])
        self.agent_q_values = model.expand(agent_q.T)
        self.ghost_q_values = model.expand(ghost_q.T)
        self.agent_policy = model.expand(self._agent_actions, fill=-1)
        self.ghost_policy = model.expand(self._ghost_actions, fill=-1)

    def _policies(self) -> tuple[np.ndarray, np.ndarray]:
        return _one_hot(self._agent_actions), _one_hot(self._ghost_actions)

    def agent_q(self, agent_pos: Any, ghost_pos: Any) -> np.ndarray:
        """The agent's action values (``float64[4]``) in this state, agent to move.

        Raises:
            TypeError, ValueError: a position is not a cell of the layout, or the game is over.
        """
        return self._agent_q[:, self._live(agent_pos, ghost_pos)].copy()

    def ghost_q(self, agent_pos: Any, ghost_pos: Any) -> np.ndarray:
        """The ghost's action values (``float64[4]``, the agent's return) with the ghost to move.

        Raises:
            TypeError, ValueError: as :meth:`agent_q`.
        """
        return self._ghost_q[:, self._live(agent_pos, ghost_pos)].copy()

    def agent_action(self, agent_pos: Any, ghost_pos: Any) -> int:
        """The agent's optimal action in this state (ties to the lowest action).

        Raises:
            TypeError, ValueError: as :meth:`agent_q`.
        """
        return int(self._agent_actions[self._live(agent_pos, ghost_pos)])

    def ghost_action(self, agent_pos: Any, ghost_pos: Any) -> int:
        """The ghost's optimal action with the ghost to move at these positions.

        Raises:
            TypeError, ValueError: as :meth:`agent_q`.
        """
        return int(self._ghost_actions[self._live(agent_pos, ghost_pos)])


class PolicyEvaluation(_Solution):
    """Two fixed state policies played against each other, evaluated exactly
    (:func:`evaluate_policies`). Values are the agent's.

    Attributes:
        values: ``float64[rows, cols, rows, cols]``, the agent's expected discounted return from
            every state, agent to move (0 where the game is over).
        agent, ghost: the two policies, ``float64[rows, cols, rows, cols, 4]`` probabilities.
    """

    def __init__(self, model: TurnModel, agent: np.ndarray, ghost: np.ndarray, gamma: float, tol: float,
                 horizon: int | None) -> None:
        values, _, _, sweeps, residual = _iterate(model, agent, ghost, Side.AGENT, gamma, tol, horizon)
        super().__init__(model, gamma, tol, horizon, sweeps, residual)
        self._values, self._agent, self._ghost = values, agent, ghost
        self.values = model.expand(values[:-1])
        self.agent, self.ghost = model.expand(agent.T), model.expand(ghost.T)

    def _policies(self) -> tuple[np.ndarray, np.ndarray]:
        return self._agent, self._ghost


# -- the solvers -----------------------------------------------------------------------------------
def solve_agent(layout: Layout | None = None, slip: str | SlipModel | None = None, ghost: Any = "chase",
                rewards: Rewards | None = None, gamma: float = 0.99, tol: float = 1e-10,
                horizon: int | None = None, *, config: Any = None) -> AgentSolution:
    """Solve the agent's MDP against a fixed ghost.

    Args:
        layout: the map; ``None`` means the classic map.
        slip: the agent's slip model, or a slip type name (probability 0.2); ``None`` means
            longitudinal slip of 0.2, the envs' default.
        ghost: the ghost's state policy: ``"chase"``, ``"random"``, a callable ``(agent_pos,
            ghost_pos) -> action`` or probabilities ``(rows, cols, rows, cols, 4)`` (ghost to move).
        rewards: the agent's rewards; ``None`` means the reference's.
        gamma: the discount per full turn, in (0, 1].
        tol: value iteration stops when no value changes by more than this in a sweep.
        horizon: if given, the values of a game cut after this many turns (and its first turn's
            greedy policy) instead of the unending game's.
        config: all of an env's settings at once instead of ``layout``, ``slip`` and ``rewards``
            (``env.unwrapped.config``, or its dict form); the game's are the agent's rewards.

    Returns:
        The :class:`AgentSolution`.

    Raises:
        TypeError, ValueError: a bad argument (see :func:`policy_array` for ``ghost``), ``config``
            together with a setting, or ``gamma=1`` without a horizon where the agent could make
            the game go on for ever.
        RuntimeError: the tolerance was not reached in :data:`MAX_ITERATIONS` sweeps.
    """
    gamma, tol, horizon = _check_settings(gamma, tol, horizon)
    game = _game(layout, slip, rewards, config=config)
    model = turn_model(game)
    if isinstance(ghost, str):
        return _SOLUTIONS.get(("agent", ghost, _game_key(game), gamma, tol, horizon), lambda: AgentSolution(
            model, policy_array(ghost, model, Side.GHOST, "ghost"), gamma, tol, horizon))
    return AgentSolution(model, policy_array(ghost, model, Side.GHOST, "ghost", gamma), gamma, tol, horizon)


def solve_ghost(layout: Layout | None = None, slip: str | SlipModel | None = None, agent: Any = "random",
                rewards: Rewards | None = None, ghost_rewards: Rewards | None = None, gamma: float = 0.99,
                tol: float = 1e-10, horizon: int | None = None, *, config: Any = None) -> GhostSolution:
    """Solve the ghost's MDP against a fixed agent: the ghost maximises its own return.

    Args:
        layout, slip, rewards, gamma, tol, horizon: as :func:`solve_agent`.
        agent: the agent's state policy: ``"random"``, a callable ``(agent_pos, ghost_pos) ->
            action`` or probabilities ``(rows, cols, rows, cols, 4)``.
        ghost_rewards: the ghost's rewards; ``None`` means zero-sum (the agent's negated).
        config: as :func:`solve_agent` (its ``ghost_rewards`` included).

    Returns:
        The :class:`GhostSolution`.

    Raises:
        TypeError, ValueError, RuntimeError: as :func:`solve_agent`.
    """
    gamma, tol, horizon = _check_settings(gamma, tol, horizon)
    model = turn_model(_game(layout, slip, rewards, ghost_rewards, config))
    return GhostSolution(model, policy_array(agent, model, Side.AGENT, "agent", gamma), gamma, tol, horizon)


def solve_game(layout: Layout | None = None, slip: str | SlipModel | None = None, rewards: Rewards | None = None,
               gamma: float = 0.99, tol: float = 1e-10, horizon: int | None = None, *,
               config: Any = None) -> GameSolution:
    """Solve the zero-sum turn-based stochastic game: the agent maximises its return, the ghost
    minimises it, and slip is chance. Both sides move in turn and see the state, so pure
    optimal policies exist and value iteration finds them.

    Args:
        layout, slip, rewards, gamma, tol, horizon, config: as :func:`solve_agent`.

    Returns:
        The :class:`GameSolution`.

    Raises:
        TypeError, ValueError, RuntimeError: as :func:`solve_agent` (with ``gamma=1``, the two
            sides together could make the game go on for ever).
    """
    gamma, tol, horizon = _check_settings(gamma, tol, horizon)
    return _solved_game(_game(layout, slip, rewards, config=config), gamma, tol, horizon)


def _solved_game(game: Game, gamma: float, tol: float, horizon: int | None) -> GameSolution:
    """The game's solution, shared through the solution cache."""
    return _SOLUTIONS.get(("game", _game_key(game), gamma, tol, horizon),
                          lambda: GameSolution(turn_model(game), gamma, tol, horizon))


def evaluate_policies(agent_policy: Any, ghost_policy: Any, layout: Layout | None = None,
                      slip: str | SlipModel | None = None, rewards: Rewards | None = None, gamma: float = 0.99,
                      tol: float = 1e-10, horizon: int | None = None, *, config: Any = None) -> PolicyEvaluation:
    """Evaluate two fixed state policies against each other exactly: the agent's value, and the
    probabilities of a goal or a catch within a horizon, from any state (a learned pair's ground
    truth, next to the win rates an experiment measures).

    Args:
        agent_policy: the agent's state policy (see :func:`solve_ghost`).
        ghost_policy: the ghost's state policy (see :func:`solve_agent`).
        layout, slip, rewards, gamma, tol, horizon, config: as :func:`solve_agent`.

    Returns:
        The :class:`PolicyEvaluation`.

    Raises:
        TypeError, ValueError, RuntimeError: as the solvers (with ``gamma=1``, the two policies
            may never end the game).
    """
    gamma, tol, horizon = _check_settings(gamma, tol, horizon)
    model = turn_model(_game(layout, slip, rewards, config=config))
    return PolicyEvaluation(model, policy_array(agent_policy, model, Side.AGENT, "agent_policy", gamma),
                            policy_array(ghost_policy, model, Side.GHOST, "ghost_policy", gamma), gamma, tol, horizon)


def exploitability(agent_policy: Any, ghost_policy: Any, layout: Layout | None = None,
                   slip: str | SlipModel | None = None, rewards: Rewards | None = None, gamma: float = 0.99,
                   tol: float = 1e-10, horizon: int | None = None, *, config: Any = None) -> float:
    """How much the two policies give away together against exact best responses, from the start
    state, in the zero-sum game of the agent's rewards (OpenSpiel's NashConv).

    It is ``max_a v(a, ghost_policy) - min_g v(agent_policy, g)``: what the agent would gain by
    switching to a best response, plus what the ghost would gain (in the agent's return it
    takes away). It is also :func:`agent_exploitability` plus :func:`ghost_exploitability`, each
    side's distance from the game's value; the sum is 0 (up to the tolerance) exactly when the
    pair is a minimax equilibrium. To judge one learned side, use that side's term: a perfect
    agent paired with the chasing ghost still shows the chasing ghost's gap.

    Args:
        agent_policy: the agent's state policy (see :func:`solve_ghost`).
        ghost_policy: the ghost's state policy (see :func:`solve_agent`).
        layout, slip, rewards, gamma, tol, horizon, config: as :func:`solve_agent`.

    Returns:
        The exploitability, in units of the agent's return.

    Raises:
        TypeError, ValueError, RuntimeError: as the solvers.
    """
    gamma, tol, horizon = _check_settings(gamma, tol, horizon)
    model = turn_model(_game(layout, slip, rewards, config=config))
    ghost = policy_array(ghost_policy, model, Side.GHOST, "ghost_policy", gamma)
    agent = policy_array(agent_policy, model, Side.AGENT, "agent_policy", gamma)
    return (_start_value(model, _MAXIMISE, ghost, gamma, tol, horizon)
            - _start_value(model, agent, _MINIMISE, gamma, tol, horizon))


def agent_exploitability(agent_policy: Any, layout: Layout | None = None, slip: str | SlipModel | None = None,
                         rewards: Rewards | None = None, gamma: float = 0.99, tol: float = 1e-10,
                         horizon: int | None = None, *, config: Any = None) -> float:
    """How far below the game's value an agent policy falls against a ghost that best responds
    to it, from the start: ``v* - min_g v(agent_policy, g)``, >= 0, 0 for a minimax agent.

    Args:
        agent_policy: the agent's state policy (see :func:`solve_ghost`).
        layout, slip, rewards, gamma, tol, horizon, config: as :func:`solve_agent`.

    Raises:
        TypeError, ValueError, RuntimeError: as the solvers.
    """
    return _one_sided(Side.AGENT, agent_policy, layout, slip, rewards, gamma, tol, horizon, config)


def ghost_exploitability(ghost_policy: Any, layout: Layout | None = None, slip: str | SlipModel | None = None,
                         rewards: Rewards | None = None, gamma: float = 0.99, tol: float = 1e-10,
                         horizon: int | None = None, *, config: Any = None) -> float:
    """How far above the game's value an agent that best responds to a ghost policy gets, from
    the start: ``max_a v(a, ghost_policy) - v*``, >= 0, 0 for a minimax ghost.

    Args:
        ghost_policy: the ghost's state policy (see :func:`solve_agent`).
        layout, slip, rewards, gamma, tol, horizon, config: as :func:`solve_agent`.

    Raises:
        TypeError, ValueError, RuntimeError: as the solvers.
    """
    return _one_sided(Side.GHOST, ghost_policy, layout, slip, rewards, gamma, tol, horizon, config)


def _one_sided(side: Side, policy: Any, layout: Any, slip: Any, rewards: Any, gamma: Any, tol: Any, horizon: Any,
               config: Any) -> float:
    """What ``side``'s policy gives away against a best response, next to the game's value."""
    gamma, tol, horizon = _check_settings(gamma, tol, horizon)
    game = _game(layout, slip, rewards, config=config)
    model = turn_model(game)
    value = _solved_game(game, gamma, tol, horizon).value(*_start_of(model))
    if side == Side.AGENT:
        agent = policy_array(policy, model, side, "agent_policy", gamma)
        return value - _start_value(model, agent, _MINIMISE, gamma, tol, horizon)
    ghost = policy_array(policy, model, side, "ghost_policy", gamma)
    return _start_value(model, _MAXIMISE, ghost, gamma, tol, horizon) - value


def _start_value(model: TurnModel, agent: Rule, ghost: Rule, gamma: float, tol: float, horizon: int | None) -> float:
    """The agent's value from the start with each side playing its :data:`Rule` (a best
    response where the rule is ``"max"`` or ``"min"``)."""
    values = _iterate(model, agent, ghost, Side.AGENT, gamma, tol, horizon)[0]
    return float(values[model.live_index(*_start_of(model))])


def _start_of(model: TurnModel) -> tuple[Cell, Cell]:
    return model.game.layout.agent_start, model.game.layout.ghost_start


# -- tabulating policies of observations -----------------------------------------------------------
def tabulate_policy(policy: Callable[[Any], Any], side: str = "agent", layout: Layout | None = None,
                    obs_type: str | None = None, batch: bool = False, stochastic: bool = False, *,
                    config: Any = None) -> np.ndarray:
    """A policy of observations as a state policy: asked once per state where the game goes on,
    with the observation the env's own encoder gives that side there, so that a network trained
    on ``obs_type="vector"`` gets an exact :func:`exploitability`. The ghost is asked with the ghost
    to move. The policy must be memoryless.

    >>> from gridghost.core.policies import ChasePolicy
    >>> table = tabulate_policy(ChasePolicy(), "ghost", obs_type="dict")
    >>> exploitability("random", table) == exploitability("random", "chase")
    True

    Args:
        policy: ``policy(observation) -> action``; with ``batch``, ``policy(observations) ->
            actions`` over a stacked ``[n, ...]`` array (for Stable-Baselines3, ``lambda obs:
            model.predict(obs, deterministic=True)[0]``). With ``stochastic`` it returns the
            action probabilities instead (``float[4]``, or ``[n, 4]`` with ``batch``).
        side: ``"agent"`` or ``"ghost"``.
        layout: the map; ``None`` means the classic map (or ``config``'s).
        obs_type: the encoding the policy reads, ``"vector"`` or ``"dict"`` (a belief is not a
            function of the state); ``None`` means ``config``'s, or ``"vector"``.
        batch: ask once with every observation stacked (``"vector"`` only).
        stochastic: the policy returns probabilities, not actions (a deterministic policy's
            draw would be tabulated as if it were its only choice).
        config: an env's settings (``env.unwrapped.config``) instead of ``layout``.

    Returns:
        Probabilities ``float64[rows, cols, rows, cols, 4]`` (0 where the game is over), the form
        every solver function takes for a policy of ``side``.

    Raises:
        TypeError: ``policy`` is not callable, or returns something other than actions
            (probabilities).
        ValueError: an unknown side or encoding, ``batch`` with ``"dict"``, actions out of range,
            probabilities that are not a distribution, or the wrong number of answers; the
            message names the state.
    """
    from gridghost.sensing.observations import make_observations  # the encoders are a view's concern

    if not callable(policy):
        raise TypeError(f"policy must be a callable policy(observation) -> action, got {policy!r}")
    check_choice(side, "side", ("agent", "ghost"))
    if isinstance(config, Mapping):
        config = GameConfig.from_dict(config)
    game = _game(layout, None, None, config=config)
    if obs_type is None:
        obs_type = "vector" if config is None else config.obs_type
    check_choice(obs_type, "obs_type", ("vector", "dict"))
    if batch and obs_type != "vector":
        raise ValueError("batch=True stacks vector observations; use obs_type='vector'")
    mover = Side.AGENT if side == "agent" else Side.GHOST
    model = turn_model(game)
    observe = make_observations(obs_type, game.board).observer(mover)
    cols, cells = game.layout.cols, game.num_cells
    pairs = list(zip(*(a.tolist() for a in np.divmod(model.states, cells)), strict=True))
    observations = [observe(GameState(agent, ghost, mover, Outcome.ONGOING)) for agent, ghost in pairs]

    def where(i: int) -> str:
        agent, ghost = pairs[i]
        return f"the {side} at agent {divmod(agent, cols)}, ghost {divmod(ghost, cols)}"

    if batch:
        answers = [policy(np.stack([np.asarray(observation) for observation in observations]))]
    else:
        answers = [policy(observation) for observation in observations]
    if stochastic:
        try:
            table = np.asarray(answers, dtype=float).reshape(len(pairs), NUM_ACTIONS)
        except ValueError:  # ragged, or the wrong number of probabilities
            raise ValueError(f"policy must return {NUM_ACTIONS} probabilities per observation "
                             f"({len(pairs)} observations)") from None
        bad = np.flatnonzero(~np.isfinite(table).all(axis=1) | (table < 0).any(axis=1)
                             | (np.abs(table.sum(axis=1) - 1.0) > 1e-6))
        if len(bad):
            raise ValueError(f"policy's probabilities for {where(int(bad[0]))} are not a distribution: {table[bad[0]]}")
        return model.expand(table)
    if batch:
        actions = np.asarray(answers[0])
        if actions.size != len(pairs) or not np.issubdtype(actions.dtype, np.integer):
            raise TypeError(f"policy must return {len(pairs)} integer actions for {len(pairs)} observations, "
                            f"got an array of shape {actions.shape} and dtype {actions.dtype}")
        actions = actions.reshape(-1).astype(np.int64)
        bad = np.flatnonzero((actions < 0) | (actions >= NUM_ACTIONS))
        if len(bad):
            raise ValueError(f"policy returned action {actions[bad[0]]} for {where(int(bad[0]))}; "
                             f"actions are 0..{NUM_ACTIONS - 1}")
    else:
        actions = np.empty(len(pairs), dtype=np.int64)
        for i, answer in enumerate(answers):
            try:
                actions[i] = check_action(_scalar(answer), side)
            except (TypeError, ValueError) as error:  # out of range, or not an action at all
                raise type(error)(
                    f"policy returned {answer!r} for {where(i)}; it must return an action 0..{NUM_ACTIONS - 1}"
                ) from None
    return model.expand(_one_hot(actions).T)


def _scalar(action: Any) -> Any:
    # Stable-Baselines3's predict returns a 0-d or 1-element array for one observation.
    if isinstance(action, np.ndarray) and action.size == 1:
        return action.reshape(()) if action.ndim else action
    return action


# -- policies that know the answer -----------------------------------------------------------------
class StatePolicy:
    """A policy that reads the true state (both positions), not an observation: a planner's
    policy, for one layout. Call it as ``policy(agent_pos, ghost_pos)``; the Gymnasium env,
    :class:`~gridghost.envs.single_agent.Duel` and :class:`~gridghost.envs.compat.AgentInterface` recognise
    it and hand it the true state when it plays the opponent, and in the AEC loop it is asked
    with ``policy(env.unwrapped.agent_pos, env.unwrapped.ghost_pos)``.

    Args:
        layout: the map the policy was computed for.
        side: the side it plays.
        actions: ``int[cells, cells]``, the action for every ``(agent cell, ghost cell)`` pair
            (the ghost's with the ghost to move).

    Attributes:
        layout, side: as given.
        table: the actions, a read-only ``int8[cells, cells]`` array (0 where the game is over).

    Raises:
        TypeError, ValueError: ``layout`` or ``side`` is not one, or ``actions`` is not an int
            array of shape ``(cells, cells)`` holding actions 0..3.
    """

    #: What the views look for: this policy is asked with the state, not an observation.
    reads_state = True

    def __init__(self, layout: Layout, side: Side, actions: np.ndarray) -> None:
        check_instance(layout, "layout", Layout)
        if not isinstance(side, (Side, int)) or isinstance(side, bool) or side not in tuple(Side):
            raise ValueError(f"side must be a gridghost.core.rules.Side, got {side!r}")
        self.layout, self.side = layout, Side(side)
        cells = layout.rows * layout.cols
        array = np.asarray(actions)
        if array.shape != (cells, cells):
            raise ValueError(f"actions must be an int array of shape (cells, cells) = {(cells, cells)}, "
                             f"got shape {array.shape}")
        if not np.issubdtype(array.dtype, np.integer):
            raise TypeError(f"actions must hold int actions, got dtype {array.dtype}")
        if array.size and not (array.min() >= 0 and array.max() < NUM_ACTIONS):
            raise ValueError(f"actions must hold actions 0..{NUM_ACTIONS - 1}")
        table = array.astype(np.int8)
        table.setflags(write=False)
        self.table = table

    @classmethod
    def for_game(cls, game: Game, gamma: float = 0.99) -> StatePolicy:
        """This policy for the layout, slip model and rewards of the kernel ``game`` (what a view
        or a solver builds when it is named as an opponent or passed as a class).

        Raises:
            NotImplementedError: a subclass that does not say how.
        """
        raise NotImplementedError(f"{cls.__name__} does not say how to build itself for a game")

    def __call__(self, agent_pos: Any, ghost_pos: Any) -> int:
        """The action with the agent at ``agent_pos`` and the ghost at ``ghost_pos``.

        Raises:
            TypeError, ValueError: a position is not a cell of the layout.
        """
        agent = _cell_index(self.layout, agent_pos, "agent_pos")
        return int(self.table[agent, _cell_index(self.layout, ghost_pos, "ghost_pos")])

    def probabilities(self) -> np.ndarray:
        """The policy as probabilities ``float64[rows, cols, rows, cols, 4]`` (one-hot)."""
        rows, cols = self.layout.shape
        return np.eye(NUM_ACTIONS)[self.table.astype(np.int64)].reshape(rows, cols, rows, cols, NUM_ACTIONS)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(layout={self.layout.name!r})"


def _table(model: TurnModel, actions: np.ndarray) -> np.ndarray:
    """Per-live-state ``actions`` as a ``cells x cells`` table (0 where the game is over)."""
    cells = model.game.num_cells
    return model.expand(actions).reshape(cells, cells)


class OptimalAgent(StatePolicy):
    """The optimal agent against a fixed ghost (:func:`solve_agent`'s greedy policy). It reads
    the true state: both positions, which the agent's own observation does not give.

    Args:
        layout, slip, ghost, rewards, gamma, tol: as :func:`solve_agent` (a planner plays the
            unending game's stationary policy, so there is no horizon).

    Attributes:
        solution: the :class:`AgentSolution`.

    Raises:
        TypeError, ValueError, RuntimeError: as :func:`solve_agent`.
    """

    def __init__(self, layout: Layout | None = None, slip: str | SlipModel | None = None, ghost: Any = "chase",
                 rewards: Rewards | None = None, gamma: float = 0.99, tol: float = 1e-10) -> None:
        self.solution = solution = solve_agent(layout, slip, ghost, rewards, gamma, tol)
        super().__init__(solution.layout, Side.AGENT, _table(solution.model, solution._actions))

    @classmethod
    def for_game(cls, game: Game, gamma: float = 0.99) -> OptimalAgent:
        """The optimal agent against the chasing ghost on ``game``'s layout, slip and rewards."""
        return cls(game.layout, game.slip, "chase", game.agent_rewards, gamma)


class _MinimaxPlayer(StatePolicy):
    """One side's optimal policy in the zero-sum game (:func:`solve_game`): what
    :class:`MinimaxAgent` and :class:`MinimaxGhost` share."""

    _side: Side

    def __init__(self, layout: Layout | None = None, slip: str | SlipModel | None = None,
                 rewards: Rewards | None = None, gamma: float = 0.99, tol: float = 1e-10) -> None:
        self.solution = solution = solve_game(layout, slip, rewards, gamma, tol)
        actions = solution._agent_actions if self._side == Side.AGENT else solution._ghost_actions
        super().__init__(solution.layout, self._side, _table(solution.model, actions))

    @classmethod
    def for_game(cls, game: Game, gamma: float = 0.99) -> _MinimaxPlayer:
        """This side's minimax player for ``game``'s layout, slip and rewards."""
        return cls(game.layout, game.slip, game.agent_rewards, gamma)


class MinimaxAgent(_MinimaxPlayer):
    """The agent's optimal policy in the zero-sum game (:func:`solve_game`): the best it can do
    against a ghost that plays perfectly. It reads the true state.

    Args:
        layout, slip, rewards, gamma, tol: as :func:`solve_game` (a planner plays the unending
            game's stationary policy, so there is no horizon).

    Attributes:
        solution: the :class:`GameSolution`.

    Raises:
        TypeError, ValueError, RuntimeError: as :func:`solve_game`.
    """

    _side = Side.AGENT


class MinimaxGhost(_MinimaxPlayer):
    """The ghost's optimal policy in the zero-sum game (:func:`solve_game`): it minimises the
    agent's return against an agent that plays perfectly. It reads the true state, which the
    chasing ghost's observation holds too (the agent's offset), but the ghost's observation does
    not (its own position).

    Args:
        layout, slip, rewards, gamma, tol: as :func:`solve_game` (a planner plays the unending
            game's stationary policy, so there is no horizon).

    Attributes:
        solution: the :class:`GameSolution`.

    Raises:
        TypeError, ValueError, RuntimeError: as :func:`solve_game`.
    """

    _side = Side.GHOST


class QMDPAgent:
    """The classic POMDP baseline: the action maximising the belief-weighted Q-values of the
    fully observed problem (QMDP). It reads only what the agent really knows: its belief over
    its own cell and the observation's ``ghost_relative_pos``. The belief is conditioned on that
    offset (cells from which the ghost would lie outside the grid get no weight).

    Args:
        layout, slip, rewards, gamma, tol: as :func:`solve_agent`.
        ghost: whose Q-values: ``"minimax"`` (the zero-sum game's) or a ghost state policy for
            :func:`solve_agent` (``"chase"``, the default).
        belief_filter: the filter to read when the observation holds no ``"belief"`` (the
            ``obs_type="belief"`` observation does); for example an ``AgentInterface``'s
            ``belief_filter``.

    Raises:
        TypeError, ValueError, RuntimeError: as the solvers.
    """

    def __init__(self, layout: Layout | None = None, slip: str | SlipModel | None = None, ghost: Any = "chase",
                 rewards: Rewards | None = None, gamma: float = 0.99, tol: float = 1e-10,
                 belief_filter: Any = None) -> None:
        if belief_filter is not None and not callable(getattr(belief_filter, "belief", None)):
            raise TypeError(f"belief_filter must have a belief() method (a gridghost filter), got {belief_filter!r}")
        self.belief_filter = belief_filter
        solution: GameSolution | AgentSolution
        if isinstance(ghost, str) and ghost == "minimax":
            solution = solve_game(layout, slip, rewards, gamma, tol)
            q = solution.agent_q_values
        else:
            solution = solve_agent(layout, slip, ghost, rewards, gamma, tol)
            q = solution.q_values
        self.layout = layout = solution.layout
        rows, cols = layout.shape
        self._q = q.reshape(rows * cols, rows * cols, NUM_ACTIONS)
        self._rows, self._cols = np.divmod(np.arange(rows * cols), cols)

    def q(self, belief: Any, ghost_relative_pos: Any) -> np.ndarray:
        """The belief-weighted action values ``float64[4]``.

        Args:
            belief: ``rows x cols`` probabilities of the agent's cell.
            ghost_relative_pos: the ghost's cell minus the agent's, ``(d_row, d_col)``.

        Raises:
            TypeError: ``ghost_relative_pos`` is not a pair of ints.
            ValueError: a belief of the wrong shape or not of finite numbers >= 0, or no cell
                consistent with the offset.
        """
        rows, cols = self.layout.shape
        weights = np.asarray(belief, dtype=float)
        if weights.shape != (rows, cols):
            raise ValueError(f"belief must be a {rows} x {cols} array, got shape {weights.shape}")
        if not np.isfinite(weights).all() or (weights < 0).any():
            raise ValueError("belief must hold finite probabilities >= 0")
        offset = np.asarray(ghost_relative_pos)
        if offset.shape != (2,) or not np.issubdtype(offset.dtype, np.integer):
            raise TypeError(f"ghost_relative_pos must be a (d_row, d_col) pair of ints, got {ghost_relative_pos!r}")
        d_row, d_col = (int(v) for v in offset)
        ghost_rows, ghost_cols = self._rows + d_row, self._cols + d_col
        inside = (ghost_rows >= 0) & (ghost_rows < rows) & (ghost_cols >= 0) & (ghost_cols < cols)
        if not inside.any():
            raise ValueError(f"no cell of the {rows} x {cols} layout has a ghost at offset {(d_row, d_col)}")
        weights = np.where(inside, weights.ravel(), 0.0)
        if weights.sum() <= 0.0:  # the belief rules out every consistent cell: trust the offset
            weights = inside.astype(float)
        agents = np.flatnonzero(weights)
        ghosts = ghost_rows[agents] * cols + ghost_cols[agents]
        return weights[agents] @ self._q[agents, ghosts] / weights[agents].sum()

    def __call__(self, observation: Any) -> int:
        """The QMDP action for an agent observation (a dict with ``ghost_relative_pos``, and
        ``belief`` unless the agent has a ``belief_filter``).

        Raises:
            ValueError: the observation holds neither a belief nor an offset this agent can use.
        """
        try:
            offset = observation["ghost_relative_pos"]
        except (KeyError, TypeError, IndexError):
            raise ValueError("QMDPAgent reads the agent's dict observation (ghost_relative_pos); "
                             f"got {observation!r}") from None
        belief = observation.get("belief") if isinstance(observation, dict) else None
        if belief is None:
            if self.belief_filter is None:
                raise ValueError("QMDPAgent needs a belief: use obs_type='belief' or pass belief_filter=")
            belief = self.belief_filter.belief()
        q = self.q(belief, offset)
        return int(_greedy(q[:, None], _MAXIMISE)[0])

    def __repr__(self) -> str:
        return f"QMDPAgent(layout={self.layout.name!r})"


# -- experts for the views -------------------------------------------------------------------------
#: The state policies the views build by name for a side.
NAMED_POLICIES: dict[str, dict[Side, type[StatePolicy]]] = {
    "minimax": {Side.AGENT: MinimaxAgent, Side.GHOST: MinimaxGhost},
    "optimal": {Side.AGENT: OptimalAgent},
}


def expert_tables(game: Game, expert: str) -> dict[Side, bytes]:
    """The expert's action for every state, per side it advises, as bytes indexed ``agent cell *
    cells + ghost cell`` (a Python int per lookup, for the envs' hot path).

    Raises:
        ValueError: an unknown expert, or a game without the ghost.
    """
    check_choice(expert, "expert", EXPERTS)
    return {side: kind.for_game(game).table.tobytes() for side, kind in NAMED_POLICIES[expert].items()}
