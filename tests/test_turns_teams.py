"""The turn-based dict env (RLlib's multi-agent form, which needs no library) with a team of
``k`` ghosts: every team size plays, in turn order, one observer at a time, and every ghost is
paid all of its rewards; maps that would lose a ghost's reward are refused; the ghosts alone
(``controlled="ghosts"``) play the ghosts-only parallel env's games against a fixed agent; bad
arguments and actions are refused by name; and the module mapping sends every ghost to the one
shared ghost module.
"""

from __future__ import annotations

import numpy as np
import pytest

import gridghost
from gridghost.core.layout import Layout
from gridghost.core.names import ghost_names
from gridghost.integrations.turns import ALL, MODULES, TurnBasedDictEnv, module_of

#: An open 7 x 7 room with four ghost starts: no opening move of the agent (at most two cells
#: with slip) reaches the goal or a ghost, so every team size from 1 to 4 can learn here.
ROOM = Layout(np.zeros((7, 7), int), goals=[(0, 0)], agent_start=(3, 3),
              ghost_start=[(6, 6), (0, 6), (6, 0), (0, 3)])
EPISODES = 30


def _replayed_returns(game, seed, moves):
    """Each name's total of what the AEC ``game``'s half-turns paid it, replaying ``moves``."""
    game.reset(seed=seed)
    paid = dict.fromkeys(game.possible_agents, 0.0)
    for move in moves:
        game.step(move)
        for name, earned in game.rewards.items():
            paid[name] += earned
    assert not game.agents or all(game.terminations.values()) or all(game.truncations.values())
    return paid


@pytest.mark.parametrize("settings", [
    *(dict(ghosts=k, layout=ROOM) for k in (1, 2, 3, 4)),
    dict(ghosts=2, layout="team_eight"),
    dict(ghosts=2, layout="team_crossroads", ghost_credit="catcher"),
], ids=["k1", "k2", "k3", "k4", "team_eight", "catcher"])
def test_every_team_size_plays_in_turn_order_and_pays_every_ghost_in_full(settings):
    settings = dict(settings, obs_type="vector", rewards="reference", max_cycles=20)
    k = settings["ghosts"]
    env, replay = TurnBasedDictEnv(**settings), gridghost.raw_env(**settings)
    order = ["agent", *ghost_names(k)]
    assert env.possible_agents == order
    assert set(env.observation_spaces) == set(env.action_spaces) == set(order)
    rng = np.random.default_rng(k)
    endings = set()
    for seed in range(EPISODES):
        observations, _ = env.reset(seed=seed)
        total = dict.fromkeys(order, 0.0)
        moves, turn = [], 0
        while True:
            (mover,) = observations
            assert mover == order[turn % (k + 1)]  # the agent, then each ghost in turn
            assert env.observation_spaces[mover].contains(observations[mover])
            moves.append(int(rng.integers(4)))
            observations, rewards, terminations, truncations, _ = env.step({mover: moves[-1]})
            turn += 1
            for name, reward in rewards.items():
                total[name] += reward
            if terminations[ALL] or truncations[ALL]:
                break
        # The game's end reaches every side at once, each with its last observation.
        assert set(observations) == set(order) == set(env.agents)  # kept until reset
        with pytest.raises(RuntimeError, match="the episode is over"):
            env.step({"agent": 0})
        assert all(terminations[name] for name in order) or all(truncations[name] for name in order)
        endings.add("ended" if terminations[ALL] else "cut")
        assert total == _replayed_returns(replay, seed, moves)
        if settings.get("ghost_credit", "team") == "team":  # each ghost's return is minus the agent's
            assert all(total[name] == -total["agent"] for name in order[1:])
    assert endings == {"ended", "cut"}  # both kinds of ending were checked


def test_a_fixed_team_map_where_the_opening_move_can_end_the_game_is_refused():
    near = Layout(np.zeros((3, 7), int), goals=[(0, 0)], agent_start=(1, 3),
                  ghost_start=[(2, 6), (1, 4)])  # the second ghost beside the agent
    with pytest.raises(ValueError, match="opening move can end the game"):
        TurnBasedDictEnv(ghosts=2, layout=near)
    TurnBasedDictEnv(ghosts=1, layout=near)  # the first ghost alone is out of the opening's reach


def test_every_ghost_maps_to_the_one_shared_ghost_module():
    assert MODULES == ("agent", "ghost")
    assert module_of("agent") == "agent"
    assert [module_of(name, None) for name in ("ghost", *ghost_names(4))] == ["ghost"] * 5  # RLlib passes the episode
    assert module_of("ghost_1", None, worker=None) == "ghost"
    for name in ("ghost_4", "ghost_", "Agent", "ghost_01", "pursuer_0"):
        with pytest.raises(ValueError, match="agent_id"):
            module_of(name)
    with pytest.raises(TypeError, match="agent_id"):
        module_of(0)


@pytest.mark.parametrize(("opponent", "max_cycles"), [("random", 15), ("minimax", 5)])
def test_the_ghosts_alone_play_the_ghosts_only_parallel_envs_games(opponent, max_cycles):
    settings = dict(ghosts=2, layout="team_eight", obs_type="vector", max_cycles=max_cycles)
    env = TurnBasedDictEnv(controlled="ghosts", opponent=opponent, **settings)
    assert env.possible_agents == ["ghost_0", "ghost_1"] and env.controlled == "ghosts"
    assert env.game.config.rewards == gridghost.env(rewards="normalised").config.rewards  # the trainers' default
    plain = gridghost.parallel_env(controlled="ghosts", opponent=opponent, rewards="normalised", **settings)
    rng = np.random.default_rng(5)
    endings = set()
    for seed in range(8):
        (observations, _), (expected, _) = env.reset(seed=seed), plain.reset(seed=seed)
        total = dict.fromkeys(env.possible_agents, 0.0)
        while True:
            assert set(observations) == {"ghost_0", "ghost_1"}  # every ghost observes at every step
            for name in observations:
                np.testing.assert_array_equal(observations[name], expected[name])
            actions = {name: int(rng.integers(4)) for name in observations}
            observations, rewards, terminations, truncations, _ = env.step(actions)
            expected, paid, *_ = plain.step(actions)
            assert rewards == paid
            for name, reward in rewards.items():
                total[name] += reward
            if terminations[ALL] or truncations[ALL]:
                break
            assert not any(terminations.values()) and not any(truncations.values())
        assert all(terminations[name] for name in total) or all(truncations[name] for name in total)
        assert not plain.agents  # both ended at the same step
        # the last step's sides stay the env's agents until reset (RLlib checks the keys against them)
        assert sorted(env.agents) == sorted(observations) == sorted(rewards) == sorted(env.possible_agents)
        with pytest.raises(RuntimeError, match="the episode is over"):
            env.step(actions)
        assert total["ghost_0"] == total["ghost_1"] != 0.0  # the team's credit, and they were paid
        endings.add("ended" if terminations[ALL] else "cut")
    assert endings == {"ended", "cut"}  # both kinds of ending were checked


def test_bad_arguments_are_refused_by_name():
    team = dict(ghosts=2, layout="team_eight")
    for controlled in ("agent", "ghost"):
        with pytest.raises(ValueError, match=f"controlled='{controlled}' is a single learner"):
            TurnBasedDictEnv(controlled=controlled, **team)
    with pytest.raises(ValueError, match="controlled"):
        TurnBasedDictEnv(controlled="team", **team)
    with pytest.raises(ValueError, match="opponent plays the agent inside the env"):
        TurnBasedDictEnv(opponent="minimax", **team)
    with pytest.raises(ValueError, match="opponent_obs_type plays the agent inside the env"):
        TurnBasedDictEnv(opponent_obs_type="vector", **team)
    with pytest.raises(ValueError, match="opening move"):  # a map where the ghosts' first observation may not come
        TurnBasedDictEnv(controlled="ghosts", ghosts=2, layout="team_ring")


@pytest.mark.parametrize("controlled", [None, "ghosts"])
def test_bad_steps_are_refused_and_change_nothing(controlled):
    env = TurnBasedDictEnv(controlled=controlled, ghosts=2, layout="team_eight")
    with pytest.raises(RuntimeError, match="call reset"):
        env.step({"agent": 0})
    with pytest.raises((TypeError, ValueError)):  # a reset that fails starts no episode
        env.reset(seed="zero")
    with pytest.raises(RuntimeError, match="call reset"):
        env.step({"agent": 0})
    observations, _ = env.reset(seed=0)
    movers, state = sorted(observations), env.game.game_state
    for wrong in ({}, {"ghost_7": 0}, {**dict.fromkeys(movers, 0), "other": 1}):
        with pytest.raises(ValueError, match="action_dict must hold exactly the actions of"):
            env.step(wrong)
    with pytest.raises(TypeError, match="action_dict must be a dict"):
        env.step([0])
    with pytest.raises(ValueError):
        env.step(dict.fromkeys(movers, 4))
    assert sorted(env.agents) == sorted(env.possible_agents) and env.game.game_state == state
    observations, *_ = env.step(dict.fromkeys(movers, 0))  # the episode goes on where it was
    assert sorted(observations) == (["ghost_0"] if controlled is None else movers)
