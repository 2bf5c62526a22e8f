"""The turn-based dict env (RLlib's multi-agent form, which needs no library) with a team of
``k`` ghosts: every team size plays, in turn order, one observer at a time, and every ghost is
paid all of its rewards; maps that would lose a ghost's reward are refused; and the module
mapping sends every ghost to the one shared ghost module.
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
        assert set(observations) == set(order)
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
