"""The kernel with a team: one agent against k ghosts that move together (gridghost.core.game.Game)."""

from __future__ import annotations

import itertools
import pickle

import numpy as np
import pytest

import gridghost.core
from gridghost.config.settings import resolve
from gridghost.core import halfturn
from gridghost.core.game import Game, Transitions
from gridghost.core.layout import CLASSIC, Layout
from gridghost.core.rules import GameState, Outcome, Side
from gridghost.core.slip import LongitudinalSlip, NoSlip, PerpendicularSlip

OPEN = Layout(np.zeros((4, 4), int), goals=[(0, 0)], agent_start=(2, 1), ghost_start=[(3, 3), (0, 3), (3, 0)])


def _team(ghosts: int = 2, slip: object = None, **options: object) -> Game:
    return Game(OPEN, slip or LongitudinalSlip(0.2), ghosts=ghosts, **options)  # type: ignore[arg-type]


def test_the_team_starts_on_the_first_k_starts_with_its_names() -> None:
    team = _team(2)
    assert team.initial_state() == GameState(9, (15, 3), Side.AGENT, Outcome.ONGOING)
    assert team.names == ("ghost_0", "ghost_1")
    assert _team(1).names == ("ghost",)
    assert _team(3).initial_state().ghosts == (15, 3, 12)


def test_the_ghosts_move_together_from_one_state_and_may_share_a_cell() -> None:
    team = _team(2)
    state = GameState(5, (6, 7), Side.GHOST)
    # ghost 1 moves into the cell ghost 0 leaves, ghost 0 moves on: both moves are read from the old state
    after = team.ghosts_step(state, (2, 0))
    assert after == GameState(5, (7, 6), Side.AGENT, Outcome.ONGOING)
    shared = team.ghosts_step(GameState(0 + 13, (6, 4), Side.GHOST), (1, 2))  # agent at (3, 1)
    assert shared.ghosts == (10, 5) and shared.outcome == Outcome.ONGOING
    same = team.ghosts_step(GameState(13, (6, 7), Side.GHOST), (1, 0))
    assert same.ghosts == (10, 6)
    together = team.ghosts_step(GameState(13, (6, 9), Side.GHOST), (1, 3))
    assert together.ghosts == (10, 5)


def test_any_ghost_catches_the_agent_in_either_half_turn() -> None:
    team = _team(3, NoSlip())
    caught = team.ghosts_step(GameState(5, (15, 6, 3), Side.GHOST), (3, 0, 1))
    assert caught.outcome == Outcome.CAUGHT and caught.ghosts == (11, 5, 7)
    # the agent walks onto the third ghost
    walked, moves = team.agent_step(GameState(5, (15, 3, 6), Side.AGENT), 2, np.random.default_rng(0))
    assert moves == (2,) and walked == GameState(6, (15, 3, 6), Side.GHOST, Outcome.CAUGHT)
    # a ghost next to the agent that moves away catches nobody
    missed = team.ghosts_step(GameState(5, (6, 15, 3), Side.GHOST), (2, 3, 1))
    assert missed == GameState(5, (7, 11, 7), Side.AGENT, Outcome.ONGOING)


def test_rewards_are_the_teams_or_the_catchers() -> None:
    team, catcher = _team(2, NoSlip()), _team(2, NoSlip(), credit="catcher")
    caught = GameState(5, (5, 7), Side.AGENT, Outcome.CAUGHT)
    assert team.ghost_rewards_of(Side.GHOST, caught) == (50.0, 50.0)
    assert catcher.ghost_rewards_of(Side.GHOST, caught) == (50.0, 0.0)
    assert catcher.ghost_rewards_of(Side.AGENT, caught) == (50.0, 1.0)  # the agent's step is +1 for a ghost
    going = GameState(5, (6, 7), Side.AGENT, Outcome.ONGOING)
    assert catcher.ghost_rewards_of(Side.GHOST, going) == team.ghost_rewards_of(Side.GHOST, going) == (0.0, 0.0)


def test_the_vectorised_transitions_are_the_successors() -> None:
    team = _team(2, PerpendicularSlip(0.3))
    states = [(a, g0, g1) for a, g0, g1 in itertools.product(range(16), repeat=3) if a not in (0, g0, g1)]
    agents = np.array([s[0] for s in states])
    ghosts = np.array([s[1:] for s in states])
    for action in range(4):
        moved = team.transitions(Side.AGENT, action, agents, ghosts)
        for i in range(0, len(states), 37):
            expected: dict[GameState, float] = {}
            rows = (moved.probabilities, moved.agents[i], moved.ghosts[i], moved.outcomes[i])
            for p, a, g, o in zip(*rows, strict=True):
                key = GameState(int(a), tuple(int(x) for x in g), Side.GHOST, Outcome(int(o)))
                expected[key] = expected.get(key, 0.0) + p
            got = {s: p for p, s, _, _ in team.successors(GameState(states[i][0], states[i][1:]), action)}
            assert got.keys() == {s for s, p in expected.items() if p > 0}
            assert all(abs(got[s] - expected[s]) < 1e-12 for s in got)
    for joint in itertools.product(range(4), repeat=2):
        moved = team.transitions(Side.GHOST, joint, agents, ghosts)
        for i in range(0, len(states), 41):
            (_, after, a_reward, g_reward), = team.successors(GameState(states[i][0], states[i][1:], Side.GHOST), joint)
            assert tuple(moved.ghosts[i, 0]) == after.ghosts and moved.outcomes[i, 0] == after.outcome
            assert (moved.agent_rewards[i, 0], moved.ghost_rewards[i, 0]) == (a_reward, g_reward)


def test_joint_action_indices_and_the_chasing_team() -> None:
    team = _team(3)
    indices = [team.joint_index(joint) for joint in itertools.product(range(4), repeat=3)]
    assert sorted(indices) == list(range(64))
    assert all(team.joint_actions(team.joint_index(j)) == j for j in itertools.product(range(4), repeat=3))
    state = GameState(9, (15, 3, 12))
    assert team.chase_actions(state) == tuple(_team(1).chase_action(GameState(9, g)) for g in state.ghosts)
    with pytest.raises(ValueError, match="this state has 3: use chase_actions"):
        team.chase_action(state)


def test_the_spec_builds_a_team_for_more_than_one_ghost() -> None:
    assert isinstance(resolve().game(), Game)
    team = resolve(layout=OPEN, ghosts=3, ghost_credit="catcher", rewards="normalised").game()
    assert isinstance(team, Game) and team.ghosts == 3 and team.credit == "catcher"
    assert team.agent_rewards.goal == 1.0


@pytest.mark.parametrize(("build", "error", "message"), [
    (lambda: _team(0), ValueError, r"ghosts must be an int in 1\.\.4"),
    (lambda: _team(5), ValueError, r"ghosts must be an int in 1\.\.4"),
    (lambda: _team(2.0), TypeError, "ghosts must be an int"),  # type: ignore[arg-type]
    (lambda: _team(True), TypeError, "ghosts must be an int"),  # type: ignore[arg-type]
    (lambda: _team(4), ValueError, "ghosts=4 needs a map with 4 ghost starts; map 'custom' has 3"),
    (lambda: Game(CLASSIC, NoSlip(), ghosts=2), ValueError, "has 1"),
    (lambda: Game(OPEN, NoSlip(), use_ghost=False, ghosts=2), ValueError, "use_ghost=False"),
    (lambda: _team(2, credit="shared"), ValueError, r"credit must be one of \['team', 'catcher'\]"),
    (lambda: resolve(layout=CLASSIC, ghosts=2).game(), ValueError, "ghosts=2 needs a map with 2 ghost starts"),
])
def test_bad_teams_are_refused(build: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        build()  # type: ignore[operator]


@pytest.mark.parametrize(("actions", "error", "message"), [
    ((1,), ValueError, r"actions must hold 2 actions, one per ghost \(ghost_0, ghost_1\), got 1"),
    ((1, 2, 3), ValueError, "must hold 2 actions"),
    ((1, 4), ValueError, "ghost_1"),
    ((1, None), TypeError, "ghost_1"),
    (3, TypeError, "actions must be a sequence of 2 ints"),
    (np.array([[1, 2]]), TypeError, r"shape \(1, 2\)"),
])
def test_bad_joint_actions_are_refused_before_anything_moves(actions: object, error: type[Exception],
                                                             message: str) -> None:
    team = _team(2)
    state = GameState(5, (6, 7), Side.GHOST)
    with pytest.raises(error, match=message):
        team.ghosts_step(state, actions)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="the ghosts cannot move"):
        team.ghosts_step(GameState(5, (6, 7), Side.AGENT), (0, 0))
    with pytest.raises(ValueError, match="the agent cannot move"):
        team.agent_step(state, 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="the game is over"):
        team.transitions(Side.AGENT, 0, np.array([5]), np.array([[5, 7]]))
    with pytest.raises(TypeError, match=r"ghosts must be an int\[n, 2\] array of int cell indices, got shape \(2,\)"):
        team.transitions(Side.AGENT, 0, np.array([5]), np.array([5, 7]))


@pytest.mark.parametrize("ghosts", [1, 2])
def test_the_scalar_half_turns_follow_the_half_turn_rules(ghosts: int) -> None:
    # agent_step, _landed, ghost_step and ghost_rewards_of keep scalar code for speed: each must
    # give what gridghost.core.halfturn's functions give, in every state (every 23rd for a team)
    game = Game(OPEN, NoSlip(), ghosts=ghosts, credit="catcher")
    rng = np.random.default_rng(0)
    states = list(itertools.product(range(16), itertools.product(range(16), repeat=ghosts)))
    states = states[:: 1 if ghosts == 1 else 23]
    for agent, cells in states:
        if agent in cells or game.goals[agent]:
            continue
        for action in range(4):
            after, _ = game.agent_step(GameState(agent, cells), action, rng)
            landed = int(game.moves[agent, action])
            assert after == game._landed(landed, cells)
            assert (after.agent, after.outcome) == (landed, halfturn.agent_lands(landed, cells, game.goals))
        for joint in itertools.product(range(4), repeat=ghosts):
            after = game.ghost_step(GameState(agent, cells, Side.GHOST), joint[0] if ghosts == 1 else joint)
            moved = halfturn.team_moves(game.moves, np.array(cells), np.array(joint))
            assert after.ghosts == tuple(moved.tolist())
            assert after.outcome == halfturn.team_lands(agent, moved)
            for mover in Side:
                team, quiet = game.rewards(mover, after.outcome)[1], game.rewards(mover, Outcome.ONGOING)[1]
                credited = halfturn.credited(team, quiet, agent, moved, after.outcome, True)
                assert game.ghost_rewards_of(mover, after) == tuple(credited.tolist())


def test_one_ghost_takes_its_action_alone_or_in_a_sequence_of_one() -> None:
    game = Game(OPEN, NoSlip())
    state = GameState(5, 7, Side.GHOST)
    assert game.ghost_step(state, 0) == game.ghost_step(state, [0]) == game.ghosts_step(state, np.array([0]))
    assert game.ghost_step(state, np.int64(0)) == GameState(5, (6,), Side.AGENT, Outcome.ONGOING)
    with pytest.raises(ValueError, match=r"actions must hold 1 actions, one per ghost \(ghost\), got 2"):
        game.ghost_step(state, (0, 0))
    with pytest.raises(ValueError, match="the ghost cannot move"):
        game.ghost_step(GameState(5, 7), 0)


def test_one_ghosts_cells_come_as_a_column_or_a_flat_array() -> None:
    game = Game(OPEN, LongitudinalSlip(0.2))
    agents, ghosts = np.array([5, 9, 10]), np.array([7, 15, 3])
    flat = game.transitions(Side.AGENT, 1, agents, ghosts)
    column = game.transitions(Side.AGENT, 1, agents, ghosts[:, None])
    assert flat.ghosts.shape == (3, 3) and column.ghosts.shape == (3, 3, 1)
    assert np.array_equal(flat.ghosts, column.ghosts[..., 0]) and np.array_equal(flat.outcomes, column.outcomes)
    moved = game.transitions(Side.GHOST, 3, agents, ghosts)
    assert moved.ghosts.tolist() == [[3], [11], [3]]  # up from (1, 3), (3, 3) and (0, 3)


def test_max_moves_is_the_slip_models_longest_outcome() -> None:
    assert Game(OPEN, NoSlip()).max_moves == 1
    assert Game(OPEN, LongitudinalSlip(0.2)).max_moves == 2  # the double step
    assert Game(OPEN, PerpendicularSlip(0.3)).max_moves == 1


def test_a_team_game_pickles_with_its_size_and_credit() -> None:
    game = pickle.loads(pickle.dumps(_team(3, credit="catcher")))
    assert (game.ghosts, game.credit, game.starts, game.names) == (3, "catcher", (15, 3, 12),
                                                                   ("ghost_0", "ghost_1", "ghost_2"))


def test_the_team_kernels_old_names_still_work_with_a_warning() -> None:
    with pytest.warns(DeprecationWarning, match=r"core\.team\.TeamGame is deprecated: use gridghost\.core\.game"):
        from gridghost.core.team import TeamGame
    team = TeamGame(Game(OPEN, NoSlip(), rewards="normalised"), 2, "catcher")
    assert isinstance(team, Game) and (team.ghosts, team.credit, team.layout) == (2, "catcher", OPEN)
    assert team.agent_rewards.goal == 1.0
    with pytest.raises(TypeError, match=r"game must be a gridghost\.core\.game\.Game"):
        TeamGame(OPEN, 2)
    with pytest.raises(ValueError, match="use_ghost=False"):
        TeamGame(Game(OPEN, NoSlip(), use_ghost=False), 2)
    with pytest.warns(DeprecationWarning, match=r"gridghost\.core\.TeamState is deprecated: use gridghost\.core"):
        assert gridghost.core.TeamState is GameState
    with pytest.warns(DeprecationWarning, match="TeamTransitions is deprecated"):
        from gridghost.core.team import TeamTransitions
    assert TeamTransitions is Transitions
    with pytest.warns(DeprecationWarning, match="gridghost.core.team moved to gridghost.core.game"):
        from gridghost.core.team import CREDITS, check_credit
    assert CREDITS == ("team", "catcher") and check_credit("catcher") == "catcher"
    unknown = "TeamPlay"  # no deprecated name: an AttributeError as for any missing name
    with pytest.raises(AttributeError, match="has no attribute 'TeamPlay'"):
        getattr(gridghost.core, unknown)


def test_a_state_with_another_number_of_ghosts_is_refused_naming_the_state() -> None:
    layout = Layout(np.zeros((3, 3), int), goals=[(0, 0)], agent_start=(1, 1), ghost_start=[(2, 2), (2, 0), (0, 2)])
    team, one = Game(layout, NoSlip(), ghosts=2), Game(layout, NoSlip())
    rng = np.random.default_rng(0)
    for game, wrong in ((team, GameState(4, (8,), Side.GHOST)), (team, GameState(4, (8, 6, 2), Side.GHOST)),
                        (one, GameState(4, (8, 6), Side.GHOST))):
        expected = rf"state holds {len(wrong.ghosts)} ghosts .*this game plays {game.ghosts}"
        with pytest.raises(ValueError, match=expected):
            game.ghost_step(wrong, (0,) * game.ghosts if game.ghosts > 1 else 0)
        before = rng.bit_generator.state
        with pytest.raises(ValueError, match="state holds"):
            game.agent_step(wrong._replace(turn=Side.AGENT), 0, rng)
        assert rng.bit_generator.state == before  # refused before anything is drawn
        with pytest.raises(ValueError, match="state holds"):
            game.successors(wrong._replace(turn=Side.AGENT), 0)
        with pytest.raises(ValueError, match="state holds"):
            game.ghost_rewards_of(Side.GHOST, wrong)
        with pytest.raises(ValueError, match="state holds"):
            game.chase_actions(wrong)
    with pytest.raises(TypeError, match="actions must be a sequence of 2 ints"):  # one int for two ghosts
        team.ghost_step(GameState(4, (8,), Side.GHOST), 0)
    assert team.ghost_step(GameState(4, (8, 6), Side.GHOST), (3, 3)).ghosts == (5, 3)


@pytest.mark.parametrize("ghosts", [1, 2, 3])
def test_the_unchecked_team_moves_follow_the_half_turn_rules(ghosts: int) -> None:
    # the AEC env hands a team's checked moves to _team_moves (one ghost's move in a sequence of
    # one comes there too, through ghost_step): each state it builds is what halfturn gives
    game = Game(OPEN, NoSlip(), ghosts=ghosts)
    rng = np.random.default_rng(ghosts)
    for _ in range(300):
        agent, cells = int(rng.integers(16)), tuple(int(cell) for cell in rng.integers(16, size=ghosts))
        joint = tuple(int(action) for action in rng.integers(4, size=ghosts))
        after = game._team_moves(GameState(agent, cells, Side.GHOST), joint)
        moved = halfturn.team_moves(game.moves, np.array(cells), np.array(joint))
        assert type(after) is GameState and after == GameState(agent, tuple(moved.tolist()), Side.AGENT,
                                                               halfturn.team_lands(agent, moved))
