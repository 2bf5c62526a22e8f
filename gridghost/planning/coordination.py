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
from typing import NamedTuple

from gridghost.core.checks import check_ghosts
from gridghost.core.game import Game
from gridghost.core.layout import Layout
from gridghost.core.slip import DEFAULT_SLIP_PROBABILITY, LongitudinalSlip, SlipModel
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
    start = layout.agent_start, layout.ghost_starts[:ghosts]
    yield "one_ghost", solve_game(game=game, gamma=gamma).success_probability(layout.agent_start,
                                                                             layout.ghost_start, horizon=horizon)
    yield "team", solve_game(game=team, gamma=gamma).success_probability(*start, horizon=horizon)
    yield "chasers", solve_agent(game=team, ghost="chase", gamma=gamma).success_probability(*start, horizon=horizon)


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
