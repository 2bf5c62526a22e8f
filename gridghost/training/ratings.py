"""The ratings and the exploitability of self-play's snapshots: Elo ratings from a pool's
records (:func:`elo_ratings`) and the exact exploitability of snapshot pairs
(:func:`exploitability_curve`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any, NamedTuple

import numpy as np

from gridghost.core.checks import (
    check_flag,
    check_floats,
    check_number,
)
from gridghost.core.game import Game
from gridghost.core.layout import Layout
from gridghost.core.names import AGENTS
from gridghost.core.progress import make_bar
from gridghost.core.rules import SIDE_OF, Rewards
from gridghost.core.slip import SlipModel
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
from gridghost.training.pool import Snapshot

# The records keep the logger name they had before self-play's module was split.
logger = logging.getLogger("gridghost.training.selfplay")


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
    table = check_floats(scores, "scores", "a square table of real numbers")
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
        exploitability: ``float64[n]``, :func:`gridghost.planning.exploitability` of each pair.
        agent_gap: ``float64[n]``, what each agent gives away against a best-responding ghost,
            ``v* - min_g v(agent, g)`` (:func:`~gridghost.planning.agent_exploitability`).
        ghost_gap: ``float64[n]``, what each ghost gives away, ``max_a v(a, ghost) - v*``.
        minimax_value: ``v*``, the zero-sum game's value from the start (the agent's return).
    """

    exploitability: np.ndarray
    agent_gap: np.ndarray
    ghost_gap: np.ndarray
    minimax_value: float


#: What a pair of :func:`exploitability_curve` may hold: snapshots, or tables as the solver reads them.
_PAIRED = (Snapshot, StatePolicy, np.ndarray)


def exploitability_curve(pairs: Iterable[tuple[Any, Any]], layout: Layout | None = None,
                         slip: str | SlipModel | None = None, rewards: Rewards | str | None = None, gamma: float = 0.99,
                         tol: float = 1e-10, obs_type: str = "vector", *, game: Game | None = None,
                         config: Any = None, progress_bar: bool = False,
                         ghosts: int | None = None) -> ExploitabilityCurve:
    """The solver's exact exploitability of each (agent, ghost) pair of snapshots, next to the
    game's minimax value: a self-play run's progress, in units of the agent's return.

    Tabulated snapshots and state-policy names (``"chase"``, ``"random"``, ``"minimax"``,
    ``"optimal"``) are read as they are; a policy of observations is first tabulated on the layout
    with :func:`gridghost.planning.tabulate_policy` (once per snapshot), reading ``obs_type``.
    A pair may also hold the tables themselves, as the solver takes a side's state policy (a
    :class:`~gridghost.planning.StatePolicy` or an array): a team's, which no pool holds, such as
    :meth:`TabularSelfPlay.policy <gridghost.training.tabular.TabularSelfPlay.policy>` gives it.

    Args:
        pairs: ``(agent, ghost)`` pairs, e.g. one per generation: each a :class:`Snapshot` or a
            tabulated state policy.
        layout, slip, rewards, gamma, tol, game: the game, as :func:`gridghost.planning.exploitability`
            takes it; one fixed layout (``None``: the classic map, or ``game``'s).
        config: deprecated, as the solver's ``config=``: pass ``game=config.game()``.
        ghosts: the number of ghosts ``k`` with ``layout`` (``None``: 1, or ``game``'s), as the
            solver's ``ghosts=``.
        obs_type: the encoding the policies of observations read, ``"vector"`` or ``"dict"``.
        progress_bar: draw a progress bar with an ETA over the pairs on stderr (a self-play
            run's generations, each solved three times).

    Returns:
        An :class:`ExploitabilityCurve`.

    Raises:
        TypeError: an item of ``pairs`` is not a pair of :class:`Snapshot` or tabulated policies;
            ``progress_bar`` is not a bool.
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
                "config": config, "ghosts": ghosts}
    tables: dict[str, Any] = {}

    def table_of(snapshot: Any, where: str) -> Any:
        if not isinstance(snapshot, Snapshot):
            return snapshot  # a table, as the solver reads it
        if snapshot.name not in tables:
            tables[snapshot.name] = _state_policy_of(snapshot, where, layout, obs_type, game, config)
        return tables[snapshot.name]

    totals, agent_gaps, ghost_gaps = (np.empty(len(pairs)) for _ in range(3))
    with make_bar(progress_bar, len(pairs), "exploitability", "pair") as bar:
        for i, pair in enumerate(pairs):
            if not (isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(s, _PAIRED) for s in pair)):
                raise TypeError(f"pairs[{i}] must be a tuple (agent, ghost) of Snapshots or tabulated policies "
                                f"(StatePolicy or arrays), got {pair!r}")
            agent, ghost = pair
            # a table's side is its place in the pair (the solver refuses a StatePolicy of the other side)
            sides = tuple(s.side if isinstance(s, Snapshot) else side for s, side in zip(pair, AGENTS, strict=True))
            names = tuple(s.name if isinstance(s, Snapshot) else "a table" for s in pair)
            if sides != AGENTS:
                raise ValueError(f"pairs[{i}] must be (agent snapshot, ghost snapshot), got the sides "
                                 f"({sides[0]}, {sides[1]}) of {names[0]!r} and {names[1]!r}")
            agent_table, ghost_table = table_of(agent, f"pairs[{i}][0]"), table_of(ghost, f"pairs[{i}][1]")
            try:
                totals[i] = exploitability(agent_table, ghost_table, **settings)
                agent_gaps[i] = agent_exploitability(agent_table, **settings)
                ghost_gaps[i] = ghost_exploitability(ghost_table, **settings)
            except (TypeError, ValueError) as error:
                raise type(error)(f"pairs[{i}] ({names[0]!r}, {names[1]!r}): {error}") from error
            bar.update()
    logger.debug("exploitability of %d pairs: %s", len(pairs), totals)
    solved = solve_game(layout, slip, rewards, gamma, tol, game=game, config=config, ghosts=ghosts)
    return ExploitabilityCurve(totals, agent_gaps, ghost_gaps, solved.value(*solved.start))


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
