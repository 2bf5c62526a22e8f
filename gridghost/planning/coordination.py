"""How much a map asks a team to coordinate, exactly: the agent's success probability against one
minimax ghost, against ghosts that chase on their own, and against the team optimum.

On many maps one pursuer can never catch a careful evader while two that coordinate always can;
:func:`coordination_numbers` measures that from the map's starts, the agent playing its best each
time. A *coordination map* (:func:`is_coordination_map`) leaves the agent at least
:data:`COORDINATION_FREE` against the first two and at most :data:`COORDINATION_HELD` against the
third.
"""

from __future__ import annotations

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

    Raises:
        TypeError, ValueError: a bad team size (1 is no team), too few starts, or a setting the
            solvers refuse.
    """
    if check_ghosts(ghosts) < 2:
        raise ValueError(f"ghosts must be 2 or more for a team to coordinate, got {ghosts!r}")
    game = Game(layout, LongitudinalSlip(DEFAULT_SLIP_PROBABILITY) if slip is None else slip)
    team = Game(game.layout, game.slip, ghosts=ghosts)
    start = layout.agent_start, layout.ghost_starts[:ghosts]
    one = solve_game(game=game, gamma=gamma).success_probability(layout.agent_start, layout.ghost_start,
                                                                 horizon=horizon)
    chasers = solve_agent(game=team, ghost="chase", gamma=gamma).success_probability(*start, horizon=horizon)
    optimum = solve_game(game=team, gamma=gamma).success_probability(*start, horizon=horizon)
    return Coordination(one, chasers, optimum)


def is_coordination_map(numbers: Coordination) -> bool:
    """Whether one ghost and the chasers leave the agent at least :data:`COORDINATION_FREE` and the
    team optimum holds it to at most :data:`COORDINATION_HELD`."""
    return (numbers.one_ghost >= COORDINATION_FREE and numbers.chasers >= COORDINATION_FREE
            and numbers.team <= COORDINATION_HELD)
