"""How much a map asks a team to coordinate, exactly: the agent's success probability against one
minimax ghost, against ghosts that chase on their own, and against the team optimum.

On many maps one pursuer can never catch a careful evader while two that coordinate always can;
:func:`coordination_numbers` measures that from the map's starts, the agent playing its best each
time. A *coordination map* (:func:`is_coordination_map`) leaves the agent at least
:data:`COORDINATION_FREE` against the first two and at most :data:`COORDINATION_HELD` against the
third. :func:`check_coordination` asks the same question of a candidate map and stops at the
first number that fails, the cheapest first: what a map generator calls.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import numpy as np

from gridghost.core.checks import check_ghosts
from gridghost.core.game import Game
from gridghost.core.layout import Layout
from gridghost.core.rules import Outcome, Side
from gridghost.core.slip import DEFAULT_SLIP_PROBABILITY, LongitudinalSlip, SlipModel
from gridghost.planning.iteration import reachable_outcome, reachable_response
from gridghost.planning.model import turn_model
from gridghost.planning.policy import policy_array
from gridghost.planning.solve import solve_agent, solve_game

#: A coordination map leaves the agent at least this success probability against one minimax
#: ghost and against independent chasers ...
COORDINATION_FREE = 0.5
#: ... and at most this one against the team optimum.
COORDINATION_HELD = 0.1


class Coordination(NamedTuple):
    """The agent's success probability within the horizon, playing its best, against each team.

    Attributes:
        one_ghost: one minimax ghost on the map's first start (the one-ghost zero-sum game).
        chasers: ``k`` ghosts that each chase on their own (the agent's best response to them).
        team: ``k`` ghosts playing the exact team optimum (the zero-sum team game).
    """

    one_ghost: float
    chasers: float
    team: float


#: Each number's threshold test, by field of :class:`Coordination`.
_PASSES: dict[str, Callable[[float], bool]] = {
    "one_ghost": lambda value: value >= COORDINATION_FREE,
    "chasers": lambda value: value >= COORDINATION_FREE,
    "team": lambda value: value <= COORDINATION_HELD,
}


def _numbers(layout: Layout, ghosts: int, slip: SlipModel | None, horizon: int,
             gamma: float) -> Iterator[tuple[str, float]]:
    """The three numbers as ``(field, value)``, the cheapest solve first: the one-ghost game
    (hundreds of states), the team game (stored by multisets, solved in a few sweeps), then the
    agent's best response to the chasers (the most sweeps by far, as the chasers let the agent
    run long)."""
    if check_ghosts(ghosts) < 2:
        raise ValueError(f"ghosts must be 2 or more for a team to coordinate, got {ghosts!r}")
    game = Game(layout, LongitudinalSlip(DEFAULT_SLIP_PROBABILITY) if slip is None else slip)
    team = Game(game.layout, game.slip, ghosts=ghosts)
    start = layout.agent_start, list(layout.ghost_starts[:ghosts])
    one_start = layout.agent_start, layout.ghost_start
    yield "one_ghost", _success(lambda: solve_game(game=game, gamma=gamma), "one_ghost", one_start, horizon)
    yield "team", _success(lambda: solve_game(game=team, gamma=gamma), "team", start, horizon)
    yield "chasers", _success(lambda: solve_agent(game=team, ghost="chase", gamma=gamma, tol=_TOL), "chasers", start,
                              horizon, lambda: _chasers(team, start, gamma, horizon))


def _chasers(team: Game, start: tuple[Any, Any], gamma: float, horizon: int) -> float | None:
    """The agent's success probability against the chasers, its best response solved over the
    states reachable from ``start`` alone (:func:`~gridghost.planning.iteration.reachable_response`),
    or ``None`` where that cannot say what the solve over every state would."""
    model = turn_model(team, True)
    first = model.live_index(*start)
    if gamma >= 1.0 or first == model.num_live:
        return None
    joints = np.argmax(policy_array("chase", model, Side.GHOST, "ghost", gamma), axis=0)
    found = reachable_response(model, first, joints, Side.AGENT, gamma, _TOL)
    if found is None:
        return None
    states, actions, _ = found
    agent_actions = np.zeros(model.num_live, dtype=np.int64)
    agent_actions[states] = actions
    return reachable_outcome(model, first, agent_actions, lambda reached, moves, ends: joints[reached], Outcome.GOAL,
                             horizon)


#: The solvers' tolerance (their default).
_TOL = 1e-10
#: How close to its threshold a number computed over the reachable states alone must not be:
#: closer, it is computed again over every state, as the solutions' own methods do.
_NEAR = 1e-6


def _success(solve: Callable[[], Any], field: str, start: tuple[Any, Any], horizon: int,
             reachable: Callable[[], float | None] | None = None) -> float:
    """The success probability from ``start`` of the solution ``solve()`` makes, over the states
    reachable from ``start`` (the same probability; hundreds of states instead of tens of
    thousands; ``reachable()`` instead of the solve where given), or over every state where that
    number is unknown or lies within :data:`_NEAR` of ``field``'s threshold."""
    value = reachable() if reachable is not None else solve()._reachable_success(*start, horizon)
    threshold = COORDINATION_HELD if field == "team" else COORDINATION_FREE
    if value is None or abs(value - threshold) < _NEAR:
        return float(solve().success_probability(*start, horizon=horizon))
    return float(value)


def coordination_numbers(layout: Layout, ghosts: int = 2, slip: SlipModel | None = None, horizon: int = 100,
                         gamma: float = 0.99) -> Coordination:
    """The three numbers of :class:`Coordination` for ``layout``, from its starts, with the
    reference's rewards.

    Args:
        layout: a map with at least ``ghosts`` ghost starts.
        ghosts: the team's size, 2 or more.
        slip: the agent's slip model; ``None`` means longitudinal, probability 0.2 (the default).
        horizon: the cycles within which a goal counts.
        gamma: the solvers' discount per cycle.

    Returns:
        The :class:`Coordination`.

    Raises:
        TypeError, ValueError: a bad team size (1 is no team), too few starts, or a setting the
            solvers refuse.
    """
    return Coordination(**dict(_numbers(layout, ghosts, slip, horizon, gamma)))


def check_coordination(layout: Layout, ghosts: int = 2, slip: SlipModel | None = None, horizon: int = 100,
                       gamma: float = 0.99) -> Coordination | None:
    """Whether ``layout`` is a coordination map, solving no more than it must: the numbers are
    measured the cheapest first, and the first one that fails its threshold ends the check.

    ``check_coordination(...) is not None`` is ``is_coordination_map(coordination_numbers(...))``
    (the same solves, in another order), and a map that passes gets the same numbers.

    Args:
        layout, ghosts, slip, horizon, gamma: as :func:`coordination_numbers`.

    Returns:
        The :class:`Coordination` of a coordination map, ``None`` for any other map.

    Raises:
        TypeError, ValueError: as :func:`coordination_numbers`.
    """
    numbers: dict[str, float] = {}
    for field, value in _numbers(layout, ghosts, slip, horizon, gamma):
        if not _PASSES[field](value):
            return None
        numbers[field] = value
    return Coordination(**numbers)


def is_coordination_map(numbers: Coordination) -> bool:
    """Whether one ghost and the chasers leave the agent at least :data:`COORDINATION_FREE` and the
    team optimum holds it to at most :data:`COORDINATION_HELD`."""
    return all(_PASSES[field](value) for field, value in numbers._asdict().items())
