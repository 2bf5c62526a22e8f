"""The episode's rules (gridghost.core.episode), each against hand-derived expectations, with NumPy
and, where jax is installed, jax.numpy giving the same (the JAX cases carry the ``jax`` marker)."""

from __future__ import annotations

import importlib
from typing import Any, NamedTuple

import numpy as np
import pytest

from gridghost.batched.tables import slip_bounds as engine_bounds
from gridghost.core import episode
from gridghost.core.game import Game
from gridghost.core.layout import CLASSIC
from gridghost.core.rules import Rewards
from gridghost.core.slip import LongitudinalSlip, PerpendicularSlip

XPS = [pytest.param("numpy", id="numpy"), pytest.param("jax.numpy", id="jax", marks=pytest.mark.jax)]


@pytest.fixture(params=XPS)
def xp(request: pytest.FixtureRequest) -> Any:
    """The array namespace of a case: numpy, or jax.numpy (skipped where jax is not installed)."""
    if request.param == "jax.numpy":
        pytest.importorskip("jax")
    return importlib.import_module(request.param)


def _host(value: Any) -> np.ndarray:
    return np.asarray(value)


# -- the turn index -----------------------------------------------------------------------------------
def test_the_sides_alternate_and_the_agent_moves_again_without_the_ghost(xp: Any) -> None:
    assert (episode.next_mover(0), episode.next_mover(1), episode.next_mover(0, use_ghost=False)) == (1, 0, 0)
    movers = xp.asarray([0, 1, 0])
    np.testing.assert_array_equal(_host(episode.next_mover(movers)), [1, 0, 1])
    np.testing.assert_array_equal(_host(episode.next_mover(movers, use_ghost=False)), [0, 0, 0])


def test_a_cycle_counts_when_the_turn_comes_back_to_its_opener(xp: Any) -> None:
    assert episode.count_cycles(3, episode.GHOST_TO_MOVE) == 3  # the agent moved: the ghost answers next
    assert episode.count_cycles(3, episode.AGENT_TO_MOVE) == 4  # the ghost answered: a cycle is complete
    # a learning ghost alone opens every turn itself
    assert episode.count_cycles(3, episode.GHOST_TO_MOVE, first_to_move=episode.GHOST_TO_MOVE) == 4
    steps = xp.asarray([0, 5, 9])
    np.testing.assert_array_equal(_host(episode.count_cycles(steps, xp.asarray([0, 1, 0]))), [1, 5, 10])


def test_counting_in_place_writes_the_numpy_buffer() -> None:
    steps = np.array([0, 5, 9])
    result = episode.count_cycles(steps, episode.AGENT_TO_MOVE, out=steps)
    assert result is steps
    np.testing.assert_array_equal(steps, [1, 6, 10])


# -- truncation ----------------------------------------------------------------------------------------
#: (steps, terminated, max_cycles, max_episode_steps) -> truncated, derived from the rule by hand.
TRUNCATIONS = [
    (99, False, 100, None, False),   # before the game's limit
    (100, False, 100, None, True),   # at it
    (100, True, 100, None, False),   # the game ended in that step: terminated, not truncated
    (101, False, 100, None, True),
    (10_000, False, None, None, False),  # no limit at all
    (50, True, 100, 50, True),       # the TimeLimit first: whatever the outcome
    (49, False, 100, 50, False),
    (50, True, 50, 50, True),        # equal limits: the TimeLimit's rule
    (10, False, 10, 20, True),       # the game's limit first
    (10, True, 10, 20, False),       # ... which spares a game that ended
    (20, True, 10, 20, True),        # ... the TimeLimit does not
    (5, True, None, 5, True),
    (4, False, None, 5, False),
]


@pytest.mark.parametrize(("steps", "terminated", "cycles", "episode_steps", "expected"), TRUNCATIONS)
def test_truncation_on_python_scalars(steps: int, terminated: bool, cycles: int | None, episode_steps: int | None,
                                      expected: bool) -> None:
    assert bool(episode.truncated(steps, terminated, cycles, episode_steps)) is expected


def test_truncation_on_arrays_pure_and_in_place(xp: Any) -> None:
    for cycles, episode_steps in {(c, e) for _, _, c, e, _ in TRUNCATIONS}:
        cases = [(s, t, want) for s, t, c, e, want in TRUNCATIONS if (c, e) == (cycles, episode_steps)]
        steps = np.array([s for s, _, _ in cases])
        terminated = np.array([t for _, t, _ in cases])
        expected = [want for _, _, want in cases]
        got = episode.truncated(xp.asarray(steps), xp.asarray(terminated), cycles, episode_steps)
        np.testing.assert_array_equal(_host(got), expected)
        out = np.ones(len(cases), dtype=bool)
        assert episode.truncated(steps, terminated, cycles, episode_steps, out=out) is out
        np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("cycles", [None, 1, 5, 100])
def test_the_compiled_limit_truncates_a_game_that_goes_on_exactly_as_the_rule(cycles: int | None) -> None:
    limit = episode.cycle_limit(cycles)
    for steps in range(0, 130):
        assert (steps >= limit) is episode.truncated(steps, False, cycles)
    assert episode.cycle_limit(None) == float("inf") and episode.cycle_limit(7) == 7


# -- the opening reward -------------------------------------------------------------------------------
def test_the_opening_reward_is_the_ghosts_reward_for_an_agents_step() -> None:
    game = Game(CLASSIC, LongitudinalSlip(0.2))  # reference rewards: the agent's step -1, the ghost's +1
    assert episode.opening_reward(game) == 1.0
    ghost = Rewards(caught=5.0, goal=-7.0, step=0.25)
    assert episode.opening_reward((game.agent_rewards, ghost)) == 0.25
    assert episode.opening_reward(Game(CLASSIC, LongitudinalSlip(0.2), ghost_rewards=ghost)) == 0.25


def test_the_opening_reward_is_added_on_the_first_step_only(xp: Any) -> None:
    reward, steps = np.array([2.0, 2.0, -50.0]), np.array([0, 1, 0])
    got = episode.with_opening_reward(xp.asarray(reward), xp.asarray(steps), 1.0, xp=xp)
    np.testing.assert_array_equal(_host(got), [3.0, 2.0, -49.0])
    assert float(episode.with_opening_reward(-1.0, 0, 1.0, xp=xp)) == 0.0


def test_the_opening_reward_in_place() -> None:
    reward, steps, scratch = np.array([2.0, 2.0, -50.0]), np.array([0, 1, 0]), np.empty(3, dtype=bool)
    assert episode.with_opening_reward(reward, steps, 1.0, out=reward, scratch=scratch) is reward
    np.testing.assert_array_equal(reward, [3.0, 2.0, -49.0])
    episode.with_opening_reward(reward, steps, 0.0, out=reward, scratch=scratch)  # no opening reward: unchanged
    np.testing.assert_array_equal(reward, [3.0, 2.0, -49.0])


# -- the end in the agent's half ----------------------------------------------------------------------
def test_a_game_that_ended_in_the_agents_half_keeps_its_state_and_pays_nothing(xp: Any) -> None:
    ended, state, after = np.array([True, False, False]), np.array([5, 6, 7]), np.array([8, 9, 7])
    rewards = (np.array([1.0, 2.0, 3.0]), np.array([-1.0, -2.0, -3.0]))
    caught = np.array([False, True, False])
    got = episode.ghost_half_after_end(xp.asarray(ended), xp.asarray(state), xp.asarray(after),
                                       tuple(xp.asarray(r) for r in rewards), xp.asarray(caught), xp=xp)
    expected = ([5, 9, 7], ([0.0, 2.0, 3.0], [0.0, -2.0, -3.0]), [True, True, False])
    np.testing.assert_array_equal(_host(got[0]), expected[0])
    for side in range(2):
        np.testing.assert_array_equal(_host(got[1][side]), expected[1][side])
    np.testing.assert_array_equal(_host(got[2]), expected[2])
    # in place, into the NumPy buffers
    episode.ghost_half_after_end(ended, state, after, rewards, caught, inplace=True)
    np.testing.assert_array_equal(after, expected[0])
    np.testing.assert_array_equal(rewards[0], expected[1][0])
    np.testing.assert_array_equal(rewards[1], expected[1][1])
    np.testing.assert_array_equal(caught, expected[2])


# -- auto-reset -----------------------------------------------------------------------------------------
class _Pair(NamedTuple):
    state: Any
    steps: Any


def test_games_reset_when_done_at_the_end_of_their_turn(xp: Any) -> None:
    done, to_move = np.array([True, True, False]), np.array([0, 1, 0])
    np.testing.assert_array_equal(_host(episode.resets_now(xp.asarray(done), xp.asarray(to_move))),
                                  [True, False, False])  # the second ended in the agent's half: the ghost is due
    assert episode.resets_now(done) is done  # a call that ends every turn (one learner, the ghost's half)
    np.testing.assert_array_equal(episode.resets_now(done, episode.GHOST_TO_MOVE), [False, False, False])
    fresh, current = _Pair(xp.asarray([1, 1, 1]), xp.asarray([0, 0, 0])), _Pair(xp.asarray([7, 8, 9]),
                                                                                 xp.asarray([3, 4, 5]))
    got = episode.auto_reset(xp.asarray([True, False, True]), fresh, current, xp=xp)
    assert isinstance(got, _Pair)
    np.testing.assert_array_equal(_host(got.state), [1, 8, 1])
    np.testing.assert_array_equal(_host(got.steps), [0, 4, 0])


# -- the slip outcome of a uniform ----------------------------------------------------------------------
def test_a_uniform_picks_the_outcome_whose_running_sum_it_stays_below(xp: Any) -> None:
    bounds = episode.slip_bounds([0.1, 0.1, 0.8])  # longitudinal, p = 0.2: stay, double, single
    np.testing.assert_allclose(bounds, [0.1, 0.2])
    uniforms = np.array([0.0, 0.0999, 0.1, 0.1999, 0.2, 0.9999])
    expected = [0, 0, 1, 1, 2, 2]
    np.testing.assert_array_equal(_host(episode.slip_outcome(xp.asarray(uniforms), xp.asarray(bounds), xp=xp)),
                                  expected)
    per_action = np.stack([bounds, [0.5, 0.5]])  # the second action: 0.5, then 0, then 0.5
    actions = np.array([0, 0, 1, 1, 1, 1])
    np.testing.assert_array_equal(
        _host(episode.slip_outcome(xp.asarray(uniforms), xp.asarray(per_action), xp.asarray(actions), xp=xp)),
        [0, 0, 0, 0, 0, 2])
    index = np.full(6, 10)  # in place: the outcome is added to a table index
    episode.slip_outcome(uniforms, per_action, actions, out=index, scratch=np.empty(6, dtype=bool))
    np.testing.assert_array_equal(index, [10, 10, 10, 10, 10, 12])
    assert int(episode.slip_outcome(0.15, xp.asarray(bounds), xp=xp)) == 1


class _Uniform:
    """A generator whose ``random()`` gives one number, and ``integers(n)`` the first member."""

    def __init__(self, u: float) -> None:
        self.u = u

    def random(self) -> float:
        return self.u

    def integers(self, n: int) -> int:
        return 0


@pytest.mark.parametrize("slip", [LongitudinalSlip(0.2), LongitudinalSlip(0.5), PerpendicularSlip(0.3)])
def test_the_kernel_the_engines_and_the_sampler_read_a_uniform_alike(slip: Any) -> None:
    game = Game(CLASSIC, slip)
    uniforms = np.linspace(0.0, 0.999, 400)
    engine, _ = engine_bounds(game)
    for action in range(4):
        probabilities, destinations = game.outcomes[action]
        bounds = episode.slip_bounds(probabilities)
        np.testing.assert_array_equal(engine[action, : len(bounds)], bounds)  # the engines' bounds are these
        picked = episode.slip_outcome(uniforms, bounds)
        cell = 7
        np.testing.assert_array_equal(game.agent_moves(np.full(400, cell), action, uniforms),
                                      destinations[picked, cell])
        group_of = {moves: g for g, (_, members) in enumerate(slip.groups(action)) for moves in members}
        for u, outcome in zip(uniforms, picked, strict=True):
            # the scalar sampler takes the same group (its second draw picks within a group)
            assert group_of[slip.sample(action, _Uniform(float(u)))] == group_of[slip.outcomes(action)[outcome][1]]
