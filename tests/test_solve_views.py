"""The solver inside the views: experts in the infos, planner opponents in the Gymnasium env,
``Duel`` and ``AgentInterface``, planner policies in the AEC loop, and the QMDP agent."""

from __future__ import annotations

import re

import gymnasium
import numpy as np
import pytest

import gridghost
from gridghost import AgentInterface, GameConfig
from gridghost.core.layout import CLASSIC, Layout
from gridghost.core.slip import LongitudinalSlip
from gridghost.envs.single_agent import Duel
from gridghost.planning import (
    MinimaxAgent,
    MinimaxGhost,
    OptimalAgent,
    QMDPAgent,
    StatePolicy,
    solve_agent,
    solve_game,
)

#: A 3 x 4 map where the minimax ghost catches the minimax agent about a third of the time.
CONTESTED = Layout(
    colours=np.zeros((3, 4), int),
    goals=[(2, 3)],
    agent_start=(0, 0),
    ghost_start=(0, 1),
    walls_horizontal=np.array([[0, 0, 0, 0], [0, 1, 0, 1]], bool),
    walls_vertical=np.array([[1, 1, 0], [0, 1, 0], [0, 0, 0]], bool),
    name="contested",
)


def play_aec(env, policies: dict, steps: int = 400) -> list[tuple]:
    """Run one episode of the AEC env with ``policies[name](env, obs, info)``; the trace of
    (mover, agent_pos, ghost_pos, info) before every move, and last (None, ..., infos) when the
    game has ended."""
    trace = []
    for name in env.agent_iter(steps):
        obs, _, termination, truncation, info = env.last()
        if termination or truncation:
            if trace[-1][0] is not None:
                trace.append((None, env.unwrapped.agent_pos, env.unwrapped.ghost_pos, dict(env.infos)))
            env.step(None)
            continue
        trace.append((name, env.unwrapped.agent_pos, env.unwrapped.ghost_pos, dict(info)))
        env.step(policies[name](env, obs, info))
    return trace


@pytest.mark.parametrize("layout", [CLASSIC, CONTESTED], ids=lambda layout: layout.name)
def test_the_minimax_expert_advises_each_side_to_move_with_the_solved_moves(layout: Layout) -> None:
    env = gridghost.env(layout=layout, expert="minimax", max_cycles=50)
    game = solve_game(layout, env.unwrapped.slip)
    rng = np.random.default_rng(0)
    seen = {"agent": 0, "ghost": 0}
    for seed in range(5):
        env.reset(seed=seed)
        trace = play_aec(env, {name: lambda *_: int(rng.integers(4)) for name in ("agent", "ghost")})
        *moves, (over, _, _, infos) = trace
        for mover, agent_pos, ghost_pos, info in moves:
            want = (game.agent_action if mover == "agent" else game.ghost_action)(agent_pos, ghost_pos)
            assert info["expert_action"] == want
            seen[mover] += 1
        assert over is None and all(info["expert_action"] == -1 for info in infos.values())  # the game has ended
    assert seen["agent"] > 20 and seen["ghost"] > 20


def test_the_side_that_waits_gets_no_advice() -> None:
    env = gridghost.raw_env(layout=CONTESTED, expert="minimax")
    game = solve_game(CONTESTED, env.slip)
    env.reset(seed=0)
    assert env.infos["agent"]["expert_action"] == game.agent_action(env.agent_pos, env.ghost_pos)
    assert env.infos["ghost"]["expert_action"] == -1
    env.step(0)
    assert env.infos["agent"]["expert_action"] == -1
    assert env.infos["ghost"]["expert_action"] == game.ghost_action(env.agent_pos, env.ghost_pos)


def test_the_optimal_expert_advises_the_agent_only_with_the_best_reply_to_the_chasing_ghost() -> None:
    env = gridghost.env(layout=CONTESTED, expert="optimal", max_cycles=30)
    best = solve_agent(CONTESTED, env.unwrapped.slip, ghost="chase")
    env.reset(seed=3)
    trace = play_aec(env, {"agent": lambda env, obs, info: info["expert_action"],
                           "ghost": lambda env, obs, info: 0})
    agent_moves = [(a, g, info) for mover, a, g, info in trace[:-1] if mover == "agent"]
    assert agent_moves and all(info["expert_action"] == best.action(a, g) for a, g, info in agent_moves)
    assert all(info["expert_action"] == -1 for mover, *_, info in trace if mover == "ghost")


def test_following_the_expert_against_the_minimax_ghost_earns_the_game_value() -> None:
    """The Gymnasium learner that copies ``expert_action`` plays the minimax pair: its mean
    discounted return over seeded episodes matches the solved value within 4 standard errors."""
    env = gymnasium.make(gridghost.ENV_ID, layout=CONTESTED, opponent="minimax", expert="minimax",
                         obs_type="vector", rewards="reference", max_episode_steps=400)
    game = solve_game(CONTESTED, env.unwrapped.config.slip)
    returns = []
    for seed in range(600):
        _, info = env.reset(seed=seed)
        total, discount, done = 0.0, 1.0, False
        while not done:
            _, reward, terminated, truncated, info = env.step(info["expert_action"])
            total += discount * reward
            discount *= 0.99
            done = terminated or truncated
        returns.append(total)
    value = game.value(CONTESTED.agent_start, CONTESTED.ghost_start)
    error = np.std(returns) / np.sqrt(len(returns))
    assert abs(np.mean(returns) - value) < 4 * error + 1e-9


def test_expert_is_part_of_the_config_and_checked() -> None:
    env = gridghost.env(expert="minimax")
    assert env.config.expert == "minimax" and env.config.to_dict()["expert"] == "minimax"
    again = gridghost.env(config=GameConfig.from_dict(env.config.to_dict()))
    again.reset(seed=1)
    env.reset(seed=1)
    assert again.infos["agent"]["expert_action"] == env.infos["agent"]["expert_action"]
    with pytest.raises(ValueError, match="unknown expert 'oracle'; accepted: None or one of"):
        gridghost.env(expert="oracle")
    with pytest.raises(ValueError, match=r"GameSpec\.expert"):
        GameConfig(expert="best")
    with pytest.raises(ValueError, match="expert solves the game against the ghost"):
        gridghost.env(expert="minimax", use_ghost=False)
    with pytest.raises(ValueError, match="expert='optimal' advises the agent"):
        gymnasium.make(gridghost.ENV_ID, controlled="ghost", expert="optimal")


@pytest.mark.parametrize("opponent", ["minimax", MinimaxGhost, "instance"])
def test_a_minimax_ghost_opponent_plays_its_solved_moves(opponent) -> None:
    if opponent == "instance":
        opponent = MinimaxGhost(CONTESTED, LongitudinalSlip(0.2))
    game = solve_game(CONTESTED, LongitudinalSlip(0.2))
    env = gridghost.raw_env(layout=CONTESTED, max_cycles=None)
    duel = Duel(env, "agent", opponent)
    rng = np.random.default_rng(0)
    answered = 0
    for seed in range(10):
        duel.reset(seed=seed)
        for _ in range(30):
            env.step(int(rng.integers(4)))  # the agent's half-turn; then the ghost answers as in play()
            if env.terminations["ghost"]:
                break
            before = env.game_state
            duel._carry_out(duel._answer(before))
            want = game.ghost_action(env.board.position(before.agent), env.board.position(before.ghost))
            assert env.game_state == env.kernel.ghost_step(before, want)
            answered += 1
            if env.terminations["agent"]:
                break
    assert answered >= 30


def interface_trace(ghost) -> list[tuple]:
    """The positions after each step of a fixed run of actions in AgentInterface against ``ghost``."""
    interface = AgentInterface(render=False, ghost_agent_class=ghost, use_particle_filter=False)
    interface.reset(7)
    trace = []
    for action in (1, 1, 2, 1, 0, 0, 1, 2) * 4:
        if interface.is_terminated():
            break
        interface.step(action)
        trace.append((interface.env.agent_pos, interface.env.ghost_pos))
    return trace


def test_agent_interface_takes_the_minimax_ghost_as_class_instance_or_name() -> None:
    traces = [interface_trace(ghost) for ghost in (MinimaxGhost, MinimaxGhost(), "minimax")]
    assert traces[0] == traces[1] == traces[2] and len(traces[0]) >= 3
    # against the chasing ghost the same actions and seed go elsewhere: the planner is playing
    assert interface_trace(None) != traces[0]


def test_planner_agents_play_as_opponents_of_a_learning_ghost() -> None:
    for opponent in ("minimax", "optimal", MinimaxAgent, OptimalAgent(CONTESTED)):
        env = gymnasium.make(gridghost.ENV_ID, layout=CONTESTED, controlled="ghost", opponent=opponent,
                             max_episode_steps=50)
        policy = opponent if isinstance(opponent, StatePolicy) else (
            OptimalAgent(CONTESTED) if opponent == "optimal" else MinimaxAgent(CONTESTED))
        env.reset(seed=2)
        game = env.unwrapped.game
        for _ in range(10):
            before = (game.agent_pos, game.ghost_pos)
            _, _, terminated, truncated, _ = env.step(0)
            if terminated or truncated:
                break
            # the agent's answer was the planner's action in the state after the ghost's move
            answer = game.infos["agent"]["intended_action"]
            assert answer == policy(before[0], game.ghost_pos)


def test_a_planner_for_another_layout_or_side_is_refused() -> None:
    with pytest.raises(ValueError, match="computed for layout 'classic'"):
        gymnasium.make(gridghost.ENV_ID, layout=CONTESTED, opponent=MinimaxGhost())
    with pytest.raises(ValueError, match=r"opponent MinimaxAgent\(layout='classic'\) plays the agent; it is asked to "
                                         "play the ghost"):
        gymnasium.make(gridghost.ENV_ID, opponent=MinimaxAgent())
    with pytest.raises(ValueError, match="'optimal' plays the agent; the opponent here is the ghost"):
        gymnasium.make(gridghost.ENV_ID, opponent="optimal")
    with pytest.raises(ValueError, match="plays the ghost; it is asked to play the agent"):
        gymnasium.make(gridghost.ENV_ID, controlled="ghost", opponent=MinimaxGhost)


def test_state_policies_play_in_the_aec_loop_from_the_true_positions() -> None:
    env = gridghost.env(layout=CONTESTED, max_cycles=60)
    agent, ghost = MinimaxAgent(CONTESTED), MinimaxGhost(CONTESTED)
    outcomes = []
    for seed in range(40):
        env.reset(seed=seed)
        play_aec(env, {"agent": lambda env, *_: agent(env.unwrapped.agent_pos, env.unwrapped.ghost_pos),
                       "ghost": lambda env, *_: ghost(env.unwrapped.agent_pos, env.unwrapped.ghost_pos)})
        outcomes.append(env.unwrapped.game_state.outcome)
    # the minimax ghost catches the minimax agent sometimes on this map, and not always
    caught = sum(outcome == gridghost.Outcome.CAUGHT for outcome in outcomes)
    assert 0 < caught < len(outcomes)


def qmdp_success(agent_policy, episodes: int = 150) -> float:
    env = gridghost.env(obs_type="belief", max_cycles=100)
    wins = 0
    for seed in range(episodes):
        env.reset(seed=seed)
        play_aec(env, {"agent": lambda env, obs, info: agent_policy(obs),
                       "ghost": lambda env, obs, info: gridghost.ChasePolicy()(env.observe("ghost"))})
        wins += env.unwrapped.game_state.outcome == gridghost.Outcome.GOAL
    return wins / episodes


def test_qmdp_reads_the_belief_from_the_observation_or_a_filter() -> None:
    qmdp = QMDPAgent()
    env = gridghost.env(obs_type="belief")
    env.reset(seed=0)
    obs = env.observe("agent")
    filtered = QMDPAgent(belief_filter=env.unwrapped.belief_filter)
    plain = {key: value for key, value in obs.items() if key != "belief"}
    assert qmdp(obs) == filtered(plain)
    # with all the belief on the true cell, QMDP is the optimal agent
    exact = np.zeros(CLASSIC.shape)
    exact[CLASSIC.agent_start] = 1.0
    q = qmdp.q(exact, obs["ghost_relative_pos"])
    np.testing.assert_allclose(q, solve_agent(CLASSIC, "longitudinal").q(CLASSIC.agent_start, CLASSIC.ghost_start))
    with pytest.raises(ValueError, match="needs a belief"):
        qmdp(plain)
    with pytest.raises(ValueError, match="belief must be a 4 x 5 array"):
        qmdp.q(np.ones(3), (1, 1))
    with pytest.raises(TypeError, match="belief_filter must have a belief"):
        QMDPAgent(belief_filter=object())


def test_qmdp_beats_a_random_agent_against_the_chasing_ghost() -> None:
    rng = np.random.default_rng(1)
    qmdp = qmdp_success(QMDPAgent())
    random = qmdp_success(lambda obs: int(rng.integers(4)))
    assert qmdp > random + 0.3 and qmdp > 0.8


def test_qmdp_plays_the_opponent_agent_from_the_envs_belief() -> None:
    env = gymnasium.make(gridghost.ENV_ID, controlled="ghost", opponent=QMDPAgent(), opponent_obs_type="belief",
                         belief_filter="histogram", max_episode_steps=100)
    caught = 0
    for seed in range(30):
        env.reset(seed=seed)
        done = False
        while not done:
            _, _, terminated, truncated, info = env.step(int(np.random.default_rng(seed).integers(4)))
            done = terminated or truncated
        caught += info["is_success"]
    assert caught < 30  # the QMDP agent escapes a random ghost mostly


def test_the_readmes_figures_for_the_classic_map_are_the_solvers() -> None:
    from pathlib import Path

    from gridghost.planning import ghost_exploitability

    readme = (Path(__file__).resolve().parents[1] / "docs" / "solver.md").read_text()
    rows = dict(re.findall(r"^\| ([^|]+?) \| ([^|]+?) \|$", readme, flags=re.M))
    slip, start = LongitudinalSlip(0.2), (CLASSIC.agent_start, CLASSIC.ghost_start)
    chase, random = solve_agent(CLASSIC, slip, "chase"), solve_agent(CLASSIC, slip, "random")
    game = solve_game(CLASSIC, slip)
    want = {
        "optimal agent against the chasing ghost: success probability":
            f"{chase.success_probability(*start):.6f} (discounted return {chase.value(*start):.3f})",
        "optimal agent against the random ghost: success probability":
            f"{random.success_probability(*start):.8f} (discounted return {random.value(*start):.3f})",
        "minimax value of the game (both sides perfect)": f"{game.value(*start):.3f}",
        "capture probability under minimax play": f"{game.capture_probability(*start):.5f}",
        "expected capture time under minimax play (turns, among captures)": f"{game.capture_time(*start):.2f}",
        "exploitability of `ChasePolicy` (what a best-responding agent gains)":
            f"{ghost_exploitability('chase', CLASSIC, slip):.3f}",
    }
    for label, figure in want.items():
        assert rows[label] == figure, label
    assert 1 / game.capture_probability(*start) > 2500  # "fewer than one game in 2,500"


def test_the_envs_draw_a_solution_as_an_overlay_that_survives_close() -> None:
    best = solve_agent(CLASSIC, LongitudinalSlip(0.2), ghost="chase")
    values, policy = best.values[:, :, 3, 4], best.policy[:, :, 3, 4]
    env = gridghost.raw_env(render_mode="rgb_array")
    env.reset(seed=0)
    plain = env.render()
    mine = values.copy()
    env.set_overlay(mine, policy)
    drawn = env.render()
    assert drawn.shape == plain.shape and (drawn != plain).any(axis=2).mean() > 0.2
    mine[:] = np.inf  # the env keeps its own copy
    env.close()  # the renderer goes; the overlay stays with the env
    np.testing.assert_array_equal(env.render(), drawn)
    with pytest.raises(ValueError):
        env.set_overlay(np.ones((2, 2)))
    np.testing.assert_array_equal(env.render(), drawn)  # a refused overlay changes nothing
    env.set_overlay()
    np.testing.assert_array_equal(env.render(), plain)
    gym_env = gymnasium.make(gridghost.ENV_ID, render_mode="rgb_array")
    gym_env.reset(seed=0)
    gym_plain = gym_env.render()
    gym_env.unwrapped.set_overlay(values, policy)
    # the same pixels change (the status panels differ: this view has no cycle limit)
    np.testing.assert_array_equal((gym_env.render() != gym_plain).any(axis=2), (drawn != plain).any(axis=2))
    for mode in (None, "ansi"):
        with pytest.raises(ValueError, match=f"render_mode={mode!r} draws none"):
            gridghost.raw_env(render_mode=mode).set_overlay(values)
