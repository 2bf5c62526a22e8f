"""The exact solver, gridghost.planning.solve, against oracles that do not use it: the turn model against
the real AEC env (chi-square on simulated turns) and against the rules of docs/game.md written out
again here; values against Bellman equations solved by hand and against a brute-force value
iteration over plain dicts; the optimal agent's predictions against seeded episodes; the minimax
pair against every shipped policy; and the argument checks."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import gridghost
import gridghost.planning.solve
from gridghost.core.game import Game
from gridghost.core.layout import CLASSIC, Layout
from gridghost.core.policies import ChasePolicy, RandomPolicy
from gridghost.core.rules import Outcome, Side
from gridghost.core.slip import LongitudinalSlip, NoSlip, PerpendicularSlip, SlipModel
from gridghost.planning import (
    MinimaxAgent,
    MinimaxGhost,
    OptimalAgent,
    QMDPAgent,
    TurnModel,
    exploitability,
    policy_array,
    solve_agent,
    solve_game,
    solve_ghost,
    tabulate_policy,
)

LEFT, DOWN, RIGHT, UP = range(4)
DELTAS = {LEFT: (0, -1), DOWN: (1, 0), RIGHT: (0, 1), UP: (-1, 0)}
PERPENDICULAR = {LEFT: (DOWN, UP), DOWN: (LEFT, RIGHT), RIGHT: (DOWN, UP), UP: (LEFT, RIGHT)}


# -- the game, written again from docs/game.md on plain Python data ------------------------------
def chase_move(dr: int, dc: int, open_: dict) -> int:
    """The chasing ghost of docs/game.md: the agent's offset ``(dr, dc)`` and which moves are open."""
    vertical = DOWN if dr > 0 else UP if dr < 0 else None
    horizontal = RIGHT if dc > 0 else LEFT if dc < 0 else None
    for move in (vertical, horizontal) if abs(dr) >= abs(dc) else (horizontal, vertical):
        if move is not None and open_[move]:
            return move
    for move in (UP, RIGHT, DOWN, LEFT):
        if open_[move]:
            return move
    return LEFT


class Rules:
    """The rules of docs/game.md ("Rules"), independent of gridghost's kernel: cells are
    ``(row, col)`` tuples, walls are sets, slip is a ``(kind, p)`` pair.

    ``walls_h`` holds ``(r, c)`` when a wall lies below ``(r, c)``; ``walls_v`` when one lies
    right of it. Only :meth:`layout` touches gridghost, to build the same map for the solver and
    the env.
    """

    def __init__(self, rows: int, cols: int, goals, walls_h=(), walls_v=(), slip=("longitudinal", 0.2)):
        self.rows, self.cols, self.goals = rows, cols, frozenset(goals)
        self.walls_h, self.walls_v = frozenset(walls_h), frozenset(walls_v)
        self.kind, self.p = slip
        self.cells = [(r, c) for r in range(rows) for c in range(cols)]

    def slip_model(self) -> SlipModel:
        return LongitudinalSlip(self.p) if self.kind == "longitudinal" else PerpendicularSlip(self.p)

    def layout(self, agent, ghost) -> Layout:
        horizontal = np.zeros((self.rows - 1, self.cols), dtype=bool)
        vertical = np.zeros((self.rows, self.cols - 1), dtype=bool)
        for cell in self.walls_h:
            horizontal[cell] = True
        for cell in self.walls_v:
            vertical[cell] = True
        return Layout(colours=np.zeros((self.rows, self.cols), dtype=int), goals=sorted(self.goals),
                      agent_start=agent, ghost_start=ghost, walls_horizontal=horizontal, walls_vertical=vertical)

    def step(self, cell, action):
        (r, c), (dr, dc) = cell, DELTAS[action]
        target = (r + dr, c + dc)
        if not (0 <= target[0] < self.rows and 0 <= target[1] < self.cols):
            return cell
        if (dr == 1 and cell in self.walls_h) or (dr == -1 and target in self.walls_h):
            return cell
        if (dc == 1 and cell in self.walls_v) or (dc == -1 and target in self.walls_v):
            return cell
        return target

    def slip_outcomes(self, action):
        p = self.p
        if self.kind == "longitudinal":
            return [(p / 2, ()), (p / 2, (action, action)), (1 - p, (action,))]
        first, second = PERPENDICULAR[action]
        return [(p / 2, (first,)), (p / 2, (second,)), (1 - p, (action,))]

    def chase(self, agent, ghost) -> int:
        """The chasing ghost of docs/game.md, from the two positions."""
        open_ = {move: self.step(ghost, move) != ghost for move in range(4)}
        return chase_move(agent[0] - ghost[0], agent[1] - ghost[1], open_)

    def live(self):
        """Pairs ``(agent, ghost)`` where the game goes on."""
        return [(a, g) for a in self.cells for g in self.cells if a != g and a not in self.goals]

    def agent_half(self, agent, ghost, action):
        """``{(kind, cell, reward): probability}`` of the agent's move; kind "walked" (into the
        ghost), "goal" or "on"."""
        out: dict = {}
        for p, moves in self.slip_outcomes(action):
            if p == 0:
                continue
            cell = agent
            for move in moves:
                cell = self.step(cell, move)
            if cell == ghost:
                key = ("walked", cell, -50.0)
            elif cell in self.goals:
                key = ("goal", cell, 100.0)
            else:
                key = ("on", cell, -1.0)
            out[key] = out.get(key, 0.0) + p
        return out

    def ghost_half(self, agent, ghost, action):
        """``(ghost cell, agent's reward, caught)`` of the ghost's move."""
        cell = self.step(ghost, action)
        return (cell, -50.0, True) if cell == agent else (cell, 0.0, False)

    def turn(self, agent, ghost, action, ghost_action) -> dict:
        """A full turn with a fixed ghost action: ``{category: probability}``, categories
        ``("walked", reward)``, ``("goal", reward)``, ``("caught", agent cell, reward)`` and
        ``("on", agent cell, ghost cell, reward)``, rewards summed over both halves."""
        out: dict = {}
        for (kind, cell, reward), p in self.agent_half(agent, ghost, action).items():
            if kind != "on":
                key: tuple = (kind, reward)
            else:
                ghost_cell, ghost_reward, caught = self.ghost_half(cell, ghost, ghost_action)
                key = ("caught", cell, reward + ghost_reward) if caught else ("on", cell, ghost_cell, reward)
            out[key] = out.get(key, 0.0) + p
        return out


# The maps of this file.
CORRIDOR = Rules(1, 3, {(0, 2)}, slip=("longitudinal", 0.3))
SQUARE = Rules(2, 2, {(1, 1)}, slip=("perpendicular", 0.4))
WALLED = Rules(3, 3, {(2, 2)}, walls_h={(0, 1)}, walls_v={(1, 0)}, slip=("longitudinal", 0.2))
WALLED_PERPENDICULAR = Rules(3, 3, {(2, 2)}, walls_h={(0, 1)}, walls_v={(1, 0)}, slip=("perpendicular", 0.3))
#: A map where the minimax ghost catches the agent about a third of the time.
CONTESTED = Rules(3, 3, {(2, 0)}, walls_h={(0, 1)}, walls_v={(1, 0)}, slip=("perpendicular", 0.2))
CONTESTED_START = ((0, 0), (2, 2))
#: A map where the chasing ghost catches the optimal agent about half the time.
CHASED = Rules(3, 3, {(2, 2)}, walls_h={(1, 1)}, slip=("perpendicular", 0.2))
CHASED_START = ((0, 0), (2, 0))
#: The classic map, from the wall list of docs/game.md (tests/helpers.py has the same).
CLASSIC_RULES = Rules(4, 5, {(3, 1), (3, 4)}, walls_h={(0, 3), (1, 2), (1, 3), (2, 3)},
                      walls_v={(0, 0), (1, 2), (2, 1), (2, 2), (3, 1)}, slip=("longitudinal", 0.2))
CLASSIC_START = ((0, 2), (3, 4))


def test_the_classic_rules_here_are_the_classic_layout() -> None:
    for cell in CLASSIC_RULES.cells:
        for action in range(4):
            dr, dc = DELTAS[action]
            target = (cell[0] + dr, cell[1] + dc)
            assert (CLASSIC_RULES.step(cell, action) == cell) == CLASSIC.blocked(cell, target)
    assert set(CLASSIC.goals) == CLASSIC_RULES.goals and (CLASSIC.agent_start, CLASSIC.ghost_start) == CLASSIC_START


# -- oracles on the rules above ------------------------------------------------------------------
def uniform(agent, ghost):
    return dict.fromkeys(range(4), 0.25)


def chase_of(rules):
    return lambda agent, ghost: {rules.chase(agent, ghost): 1.0}


def one_hot(policy):
    """A state policy ``(agent_pos, ghost_pos) -> action`` as a distribution function."""
    return lambda agent, ghost: {int(policy(agent, ghost)): 1.0}


def value_iteration(rules, gamma, agent="max", ghost="min", sweeps=None, tol=1e-13):
    """Brute-force value iteration over dicts: each side is "max", "min" or a function
    ``(agent, ghost) -> {action: probability}`` (the ghost's read after the agent's move).

    Returns ``(values, agent_q, ghost_q)``: ``values[(a, g)]`` agent to move,
    ``agent_q[(a, g)][action]``, ``ghost_q[(a, g)][action]`` with the ghost to move (the agent's
    return after that ghost move). With ``sweeps``, exactly that many sweeps from zero.
    """
    live = rules.live()
    values = dict.fromkeys(live, 0.0)
    halves = {(s, action): rules.agent_half(*s, action) for s in live for action in range(4)}
    ghost_moves = {s: [rules.ghost_half(*s, action) for action in range(4)] for s in live}
    pick = {"max": max, "min": min}
    count = 0
    while True:
        ghost_q = {(a, g): [reward + (0.0 if caught else gamma * values[(a, cell)]) for cell, reward, caught in moves]
                   for (a, g), moves in ghost_moves.items()}
        between = {}
        for s, q in ghost_q.items():
            between[s] = pick[ghost](q) if isinstance(ghost, str) else sum(p * q[m] for m, p in ghost(*s).items())
        agent_q = {}
        for (a, g) in live:
            agent_q[(a, g)] = [sum(p * (reward + (between[(cell, g)] if kind == "on" else 0.0))
                                   for (kind, cell, reward), p in halves[((a, g), action)].items())
                               for action in range(4)]
        new = {s: pick[agent](q) if isinstance(agent, str) else sum(p * q[m] for m, p in agent(*s).items())
               for s, q in agent_q.items()}
        change = max(abs(new[s] - values[s]) for s in live)
        values = new
        count += 1
        if (sweeps is not None and count == sweeps) or (sweeps is None and change < tol):
            return values, agent_q, ghost_q


def evaluate(rules, agent, ghost, gamma):
    """The agent's expected discounted return of a fixed pair of policies (distribution
    functions), by solving the linear Bellman equations ``(I - gamma P) v = r``."""
    live = rules.live()
    index = {s: i for i, s in enumerate(live)}
    n = len(live)
    matrix, rewards = np.eye(n), np.zeros(n)
    for i, (a, g) in enumerate(live):
        for action, pa in agent(a, g).items():
            for (kind, cell, reward), p in rules.agent_half(a, g, action).items():
                weight = pa * p
                rewards[i] += weight * reward
                if kind != "on":
                    continue
                for ghost_action, pg in ghost(cell, g).items():
                    ghost_cell, ghost_reward, caught = rules.ghost_half(cell, g, ghost_action)
                    rewards[i] += weight * pg * ghost_reward
                    if not caught:
                        matrix[i, index[(cell, ghost_cell)]] -= gamma * weight * pg
    solution = np.linalg.solve(matrix, rewards)
    return {s: float(solution[i]) for s, i in index.items()}


def outcome_within(rules, agent, ghost, horizon):
    """For a fixed pair of policies: ``(P(goal within horizon turns), P(caught within),
    E[T; caught within])`` per live state."""
    live = rules.live()
    goal = dict.fromkeys(live, 0.0)
    caught = dict.fromkeys(live, 0.0)
    timing = dict.fromkeys(live, 0.0)
    for _ in range(horizon):
        new_goal, new_caught, new_timing = {}, {}, {}
        for (a, g) in live:
            pg_total = pc_total = t_total = 0.0
            for action, pa in agent(a, g).items():
                for (kind, cell, _), p in rules.agent_half(a, g, action).items():
                    w = pa * p
                    if kind == "goal":
                        pg_total += w
                    elif kind == "walked":
                        pc_total += w
                        t_total += w
                    else:
                        for ghost_action, pgh in ghost(cell, g).items():
                            ghost_cell, _, done = rules.ghost_half(cell, g, ghost_action)
                            if done:
                                pc_total += w * pgh
                                t_total += w * pgh
                            else:
                                nxt = (cell, ghost_cell)
                                pg_total += w * pgh * goal[nxt]
                                pc_total += w * pgh * caught[nxt]
                                t_total += w * pgh * (caught[nxt] + timing[nxt])
            new_goal[(a, g)], new_caught[(a, g)], new_timing[(a, g)] = pg_total, pc_total, t_total
        goal, caught, timing = new_goal, new_caught, new_timing
    return goal, caught, timing


def at(array, agent, ghost):
    """``array[agent row, agent col, ghost row, ghost col]``."""
    return array[agent[0], agent[1], ghost[0], ghost[1]]


# -- chi-square ----------------------------------------------------------------------------------
#: Upper 0.001 quantiles of the chi-square distribution (standard tables), by degrees of freedom.
CHI2_999 = {1: 10.828, 2: 13.816, 3: 16.266, 4: 18.467, 5: 20.515, 6: 22.458, 7: 24.322, 8: 26.124, 9: 27.877,
            10: 29.588, 20: 45.315, 30: 59.703}
Z_999 = 3.090232  # the standard normal's upper 0.001 quantile


def chi2_critical(df: int) -> float:
    """The p = 0.001 critical value: the table where it has one, else Wilson-Hilferty."""
    if df in CHI2_999:
        return CHI2_999[df]
    h = 2.0 / (9.0 * df)
    return df * (1.0 - h + Z_999 * math.sqrt(h)) ** 3


def test_wilson_hilferty_agrees_with_the_chi_square_table() -> None:
    for df in (5, 10, 20, 30):
        h = 2.0 / (9.0 * df)
        assert df * (1.0 - h + Z_999 * math.sqrt(h)) ** 3 == pytest.approx(CHI2_999[df], rel=0.02)


def chi_square(counts: dict, probabilities: dict) -> tuple[float, int]:
    """Pearson's statistic of ``counts`` against ``probabilities`` and its degrees of freedom;
    a count outside the support fails at once."""
    support = {key for key, p in probabilities.items() if p > 0}
    assert set(counts) <= support, f"outcomes the model calls impossible: {set(counts) - support}"
    n = sum(counts.values())
    statistic = sum((counts.get(key, 0) - n * probabilities[key]) ** 2 / (n * probabilities[key]) for key in support)
    return statistic, len(support) - 1


# -- 1. the turn model ---------------------------------------------------------------------------
def model_turn(model: TurnModel, rules: Rules, agent, ghost, action: int, ghost_action: int) -> dict:
    """The full-turn distribution read from the model's sparse arrays, in :meth:`Rules.turn`'s
    categories."""
    cols, cells, sink = rules.cols, rules.rows * rules.cols, model.num_live
    s = int(model.index[(agent[0] * cols + agent[1]) * cells + ghost[0] * cols + ghost[1]])
    assert s < sink
    out: dict = {}
    for k in range(model.agent_prob.shape[1]):
        p = float(model.agent_prob[action, k])
        if p == 0:
            continue
        mid, outcome = int(model.agent_next[action, k, s]), Outcome(int(model.agent_outcome[action, k, s]))
        reward = float(model.agent_reward[Side.AGENT][action, k, s])
        assert model.agent_reward[Side.GHOST][action, k, s] == -reward
        if mid == sink:
            assert outcome in (Outcome.GOAL, Outcome.CAUGHT)
            key: tuple = ("goal" if outcome == Outcome.GOAL else "walked", reward)
        else:
            assert outcome == Outcome.ONGOING
            mid_agent = divmod(divmod(int(model.states[mid]), cells)[0], cols)
            nxt = int(model.ghost_next[ghost_action, mid])
            ghost_outcome = Outcome(int(model.ghost_outcome[ghost_action, mid]))
            total = reward + float(model.ghost_reward[Side.AGENT][ghost_action, mid])
            if nxt == sink:
                assert ghost_outcome == Outcome.CAUGHT
                key = ("caught", mid_agent, total)
            else:
                assert ghost_outcome == Outcome.ONGOING
                a, g = divmod(int(model.states[nxt]), cells)
                key = ("on", divmod(a, cols), divmod(g, cols), total)
        out[key] = out.get(key, 0.0) + p
    return out


def assert_same_distribution(got: dict, want: dict, tolerance: float = 1e-12) -> None:
    keys = {k for k, p in got.items() if p > 0} | {k for k, p in want.items() if p > 0}
    for key in keys:
        assert abs(got.get(key, 0.0) - want.get(key, 0.0)) < tolerance, key


TINY_MAPS = [CORRIDOR, SQUARE, WALLED, WALLED_PERPENDICULAR]


@pytest.mark.parametrize("rules", TINY_MAPS, ids=["1x3", "2x2", "3x3-wall", "3x3-wall-perpendicular"])
def test_turn_model_matches_the_rules_in_every_state(rules: Rules) -> None:
    start = rules.live()[0]
    model = TurnModel(Game(rules.layout(*start), rules.slip_model()))
    cols, cells = rules.cols, rules.rows * rules.cols
    live = rules.live()
    assert model.num_live == len(live)
    assert sorted(model.states.tolist()) == sorted((a[0] * cols + a[1]) * cells + g[0] * cols + g[1] for a, g in live)
    k = model.agent_prob.shape[1]
    assert model.agent_prob.shape == (4, k)
    assert model.agent_next.shape == model.agent_outcome.shape == (4, k, len(live))
    assert model.ghost_next.shape == model.ghost_outcome.shape == (4, len(live))
    assert np.allclose(model.agent_prob.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert (model.agent_prob >= 0).all()
    for agent, ghost in live:
        for action in range(4):
            want_half = rules.agent_half(agent, ghost, action)
            assert sum(want_half.values()) == pytest.approx(1.0, abs=1e-12)
            for ghost_action in range(4):
                got = model_turn(model, rules, agent, ghost, action, ghost_action)
                assert sum(got.values()) == pytest.approx(1.0, abs=1e-12)
                assert_same_distribution(got, rules.turn(agent, ghost, action, ghost_action))


def test_turn_model_probabilities_by_hand() -> None:
    # 1x3 corridor, longitudinal slip 0.3, agent at 0 pressing right, ghost at 2 (on the goal) going
    # left: stay 0.15 (the ghost steps to 1), single 0.7 (to 1, the ghost steps onto it), double
    # 0.15 (to 2, the ghost's cell: caught before the goal counts).
    model = TurnModel(Game(CORRIDOR.layout((0, 0), (0, 2)), CORRIDOR.slip_model()))
    got = model_turn(model, CORRIDOR, (0, 0), (0, 2), RIGHT, LEFT)
    assert_same_distribution(got, {("on", (0, 0), (0, 1), -1.0): 0.15, ("caught", (0, 1), -51.0): 0.7,
                                   ("walked", -50.0): 0.15})
    # 2x2, perpendicular slip 0.4, goal (1, 1): agent (0, 0) pressing right, ghost (1, 0) going up.
    # right 0.6 -> (0, 1) then the ghost goes to (0, 0); down 0.2 -> into the ghost; up 0.2 -> stays,
    # and the ghost steps onto it.
    model = TurnModel(Game(SQUARE.layout((0, 0), (1, 0)), SQUARE.slip_model()))
    got = model_turn(model, SQUARE, (0, 0), (1, 0), RIGHT, UP)
    assert_same_distribution(got, {("on", (0, 1), (0, 0), -1.0): 0.6, ("walked", -50.0): 0.2,
                                   ("caught", (0, 0), -51.0): 0.2})


#: ``(rules, agent, ghost, agent action, ghost action)``: the states the env is played from.
SIMULATED = [
    (CORRIDOR, (0, 0), (0, 1), RIGHT, LEFT),
    (CORRIDOR, (0, 1), (0, 0), RIGHT, RIGHT),
    (CORRIDOR, (0, 0), (0, 2), RIGHT, LEFT),
    (SQUARE, (0, 0), (1, 0), RIGHT, UP),
    (SQUARE, (0, 1), (1, 0), DOWN, RIGHT),
    (SQUARE, (1, 0), (0, 1), UP, LEFT),
    (WALLED, (1, 1), (0, 0), DOWN, RIGHT),
    (WALLED, (0, 2), (2, 0), DOWN, UP),
    (WALLED_PERPENDICULAR, (1, 0), (2, 2), RIGHT, LEFT),
    (WALLED_PERPENDICULAR, (1, 1), (1, 2), LEFT, LEFT),
]
SAMPLES = 10_000  # per state: 100,000 simulated turns in all


def simulate(rules: Rules, agent, ghost, action: int, ghost_action: int, samples: int, seed: int) -> dict:
    """Counts of :meth:`Rules.turn`'s categories over ``samples`` turns of the real AEC env,
    each from a reset of a layout whose starts are the state."""
    env = gridghost.raw_env(layout=rules.layout(agent, ghost), slip=rules.slip_model(), max_cycles=None)
    env.reset(seed=seed)
    counts: dict = {}
    for _ in range(samples):
        env.reset()  # continues the seeded stream
        assert (env.agent_pos, env.ghost_pos) == (agent, ghost)
        env.step(action)
        reward = env.rewards["agent"]
        if env.terminations["agent"]:
            info = env.infos["agent"]
            key: tuple = ("goal", reward) if info.get("reached_goal") else ("walked", reward)
            assert info.get("reached_goal") or info.get("caught_by_ghost")
        else:
            env.step(ghost_action)
            reward += env.rewards["agent"]
            if env.terminations["agent"]:
                key = ("caught", env.agent_pos, reward)
            else:
                key = ("on", env.agent_pos, env.ghost_pos, reward)
        counts[key] = counts.get(key, 0) + 1
    return counts


@pytest.mark.parametrize(("rules", "agent", "ghost", "action", "ghost_action"), SIMULATED,
                         ids=[f"{r.rows}x{r.cols}-{r.kind}-{a}-{g}-{m}" for r, a, g, m, _ in SIMULATED])
def test_turn_model_matches_the_env_by_chi_square(rules, agent, ghost, action, ghost_action) -> None:
    model = TurnModel(Game(rules.layout(agent, ghost), rules.slip_model()))
    want = model_turn(model, rules, agent, ghost, action, ghost_action)
    assert sum(want.values()) == pytest.approx(1.0, abs=1e-12)
    assert_same_distribution(want, rules.turn(agent, ghost, action, ghost_action))
    assert sum(p > 0 for p in want.values()) >= 2, "a test state with one outcome tests nothing"
    counts = simulate(rules, agent, ghost, action, ghost_action, SAMPLES, seed=SIMULATED.index(
        (rules, agent, ghost, action, ghost_action)))
    statistic, df = chi_square(counts, want)
    assert statistic < chi2_critical(df), (statistic, df, counts, want)


def test_the_chi_square_check_rejects_a_wrong_slip_probability() -> None:
    # The same env counts against the model of a slip probability 0.1 off must be rejected: the
    # check above has the power to see a wrong model.
    rules, agent, ghost, action, ghost_action = SIMULATED[6]
    counts = simulate(rules, agent, ghost, action, ghost_action, SAMPLES, seed=6)
    wrong = Rules(rules.rows, rules.cols, rules.goals, rules.walls_h, rules.walls_v, (rules.kind, rules.p + 0.1))
    model = TurnModel(Game(wrong.layout(agent, ghost), wrong.slip_model()))
    statistic, df = chi_square(counts, model_turn(model, wrong, agent, ghost, action, ghost_action))
    assert statistic > chi2_critical(df)


# -- 1. values by hand ---------------------------------------------------------------------------
@pytest.mark.parametrize("p", [0.2, 0.5])
def test_square_values_by_hand(p: float) -> None:
    # 2x2, goal (1, 0), agent (0, 0), chasing ghost (0, 1), perpendicular slip p. Every turn from
    # here ends the game: a stay is answered by the ghost stepping left onto the agent (-1 - 50).
    rules = Rules(2, 2, {(1, 0)}, slip=("perpendicular", p))
    agent, ghost = (0, 0), (0, 1)
    layout = rules.layout(agent, ghost)
    want = {
        DOWN: (1 - p) * 100 + p / 2 * -50 + p / 2 * -51,  # down; slips: right into the ghost, left stays
        LEFT: (1 - p) * -51 + p / 2 * 100 + p / 2 * -51,  # left stays; slips: down to the goal, up stays
        RIGHT: (1 - p) * -50 + p / 2 * 100 + p / 2 * -51,  # into the ghost; slips: down, up stays
        UP: (1 - p) * -51 + p / 2 * -51 + p / 2 * -50,  # stays; slips: left stays, right into the ghost
    }
    for gamma in (0.5, 0.99):
        sol = solve_agent(layout, PerpendicularSlip(p), ghost="chase", gamma=gamma)
        assert np.allclose(sol.q(agent, ghost), [want[a] for a in range(4)], rtol=0, atol=1e-9)
        assert sol.value(agent, ghost) == pytest.approx(max(want.values()), abs=1e-9)
        assert sol.action(agent, ghost) == DOWN
        for horizon in (1, 5):
            assert sol.success_probability(agent, ghost, horizon=horizon) == pytest.approx(1 - p, abs=1e-12)
            assert sol.capture_probability(agent, ghost, horizon=horizon) == pytest.approx(p, abs=1e-12)
        # A ghost that plays perfectly can do no better than catching at once.
        game = solve_game(layout, PerpendicularSlip(p), gamma=gamma)
        assert game.value(agent, ghost) == pytest.approx(want[DOWN], abs=1e-9)


def test_corridor_values_by_hand_against_a_random_ghost() -> None:
    """1x3 corridor, cells 0 1 2, goal 2, longitudinal slip p, the ghost uniformly random (up
    and down leave it in place). The Bellman equations, written out by hand, solved for every
    deterministic policy with numpy.linalg; the optimum is their pointwise maximum."""
    p, gamma = 0.2, 0.9
    rules = Rules(1, 3, {(0, 2)}, slip=("longitudinal", p))
    states = [(0, 1), (0, 2), (1, 0), (1, 2)]  # (agent col, ghost col), agent to move
    index = {s: i for i, s in enumerate(states)}
    # After the agent's move to x (not the goal), the ghost's half: W(x, g) = const + gamma * coef . V
    # (-50 when the ghost steps onto x).
    w_const = {(0, 1): 0.25 * -50, (0, 2): 0.0, (1, 0): 0.25 * -50, (1, 2): 0.25 * -50}
    w_coef = {(0, 1): {(0, 1): 0.5, (0, 2): 0.25}, (0, 2): {(0, 2): 0.75, (0, 1): 0.25},
              (1, 0): {(1, 0): 0.75}, (1, 2): {(1, 2): 0.75}}
    # Each action: [(probability, ("end", reward)) or (probability, ("mid", (x, g)))], x the agent's
    # cell after its move, paying -1 and then W(x, g). Up and down always stay ("stay").
    stay = {s: [(1.0, ("mid", s))] for s in states}
    actions = {
        (0, 1): {"stay": stay[(0, 1)],
                 "right": [(p / 2, ("mid", (0, 1))), (1 - p, ("end", -50.0)), (p / 2, ("end", 100.0))]},
        (0, 2): {"stay": stay[(0, 2)],
                 "right": [(p / 2, ("mid", (0, 2))), (1 - p, ("mid", (1, 2))), (p / 2, ("end", -50.0))]},
        (1, 0): {"stay": stay[(1, 0)],
                 "left": [(p / 2, ("mid", (1, 0))), (1 - p / 2, ("end", -50.0))],
                 "right": [(p / 2, ("mid", (1, 0))), (1 - p / 2, ("end", 100.0))]},
        (1, 2): {"stay": stay[(1, 2)],
                 "left": [(p / 2, ("mid", (1, 2))), (1 - p / 2, ("mid", (0, 2)))],
                 "right": [(p / 2, ("mid", (1, 2))), (1 - p / 2, ("end", -50.0))]},
    }

    def q_of(outcomes, v):
        total = 0.0
        for prob, (kind, what) in outcomes:
            if kind == "end":
                total += prob * what
            else:
                total += prob * (-1.0 + w_const[what] + gamma * sum(c * v[index[t]] for t, c in w_coef[what].items()))
        return total

    best = np.full(4, -np.inf)
    for choice in itertools.product(*(sorted(actions[s]) for s in states)):
        matrix, rhs = np.eye(4), np.zeros(4)
        for i, (s, name) in enumerate(zip(states, choice, strict=True)):
            for prob, (kind, what) in actions[s][name]:
                if kind == "end":
                    rhs[i] += prob * what
                else:
                    rhs[i] += prob * (-1.0 + w_const[what])
                    for t, c in w_coef[what].items():
                        matrix[i, index[t]] -= prob * gamma * c
        best = np.maximum(best, np.linalg.solve(matrix, rhs))

    sol = solve_agent(rules.layout((0, 0), (0, 2)), LongitudinalSlip(p), ghost="random", gamma=gamma, tol=1e-12)
    for (a, g), want in zip(states, best, strict=True):
        assert sol.value((0, a), (0, g)) == pytest.approx(want, abs=1e-8)
        q = sol.q((0, a), (0, g))
        named = actions[(a, g)]
        want_q = {UP: q_of(named["stay"], best), DOWN: q_of(named["stay"], best),
                  LEFT: q_of(named.get("left", named["stay"]), best),
                  RIGHT: q_of(named["right"], best)}
        assert np.allclose(q, [want_q[m] for m in range(4)], rtol=0, atol=1e-8)
    # Where the game is over the value is 0.
    assert sol.value((0, 2), (0, 0)) == 0.0 and sol.value((0, 1), (0, 1)) == 0.0


# -- 2. the optimal agent in the env -------------------------------------------------------------
def play(env, agent_policy, ghost_policy, seed: int, gamma: float, cap: int = 5000):
    """One episode of the raw AEC env, stepped by hand: ``(turns, outcome, discounted return)``,
    the return discounted per full turn with both half-turns' rewards summed."""
    env.reset(seed=seed)
    total, discount = 0.0, 1.0
    for turn in range(1, cap + 1):
        env.step(agent_policy(env))
        reward = env.rewards["agent"]
        if not env.terminations["agent"]:
            env.step(ghost_policy(env))
            reward += env.rewards["agent"]
        total += discount * reward
        discount *= gamma
        if env.terminations["agent"]:
            info = env.infos["agent"]
            return turn, "goal" if info.get("reached_goal") else "caught", total
        assert not env.truncations["agent"]
    raise AssertionError(f"episode {seed} did not end in {cap} turns")


def chase_in_env(env) -> int:
    return ChasePolicy()(env.observe("ghost"))


@pytest.mark.slow  # a second or more: .ci/run runs the slow group
@pytest.mark.parametrize(("layout", "slip", "start", "gamma", "horizons"), [
    (CLASSIC, LongitudinalSlip(0.2), CLASSIC_START, 0.99, (4, 100)),
    (CHASED.layout(*CHASED_START), CHASED.slip_model(), CHASED_START, 0.95, (3, 100)),
], ids=["classic", "3x3-chased"])
def test_optimal_agent_episodes_match_the_prediction(layout, slip, start, gamma, horizons) -> None:
    episodes = 2000
    agent = OptimalAgent(layout, slip, ghost="chase", gamma=gamma)
    sol = solve_agent(layout, slip, ghost="chase", gamma=gamma)
    env = gridghost.raw_env(layout=layout, slip=slip, max_cycles=None)
    results = [play(env, lambda e: agent(e.agent_pos, e.ghost_pos), chase_in_env, seed, gamma)
               for seed in range(episodes)]
    turns = np.array([t for t, _, _ in results])
    goal = np.array([o == "goal" for _, o, _ in results])
    returns = np.array([r for _, _, r in results])
    for horizon in horizons:
        predicted = sol.success_probability(*start, horizon=horizon)
        observed = float(np.mean(goal & (turns <= horizon)))
        se = math.sqrt(predicted * (1 - predicted) / episodes)
        assert abs(observed - predicted) <= 4 * se + 1e-9, (horizon, observed, predicted)
        caught = sol.capture_probability(*start, horizon=horizon)
        observed = float(np.mean(~goal & (turns <= horizon)))
        assert abs(observed - caught) <= 4 * math.sqrt(caught * (1 - caught) / episodes) + 1e-9
    se = returns.std(ddof=1) / math.sqrt(episodes)
    assert abs(returns.mean() - sol.value(*start)) <= 4 * se, (returns.mean(), sol.value(*start), se)
    # Truncation by max_cycles = horizon agrees: reached_goal within the cap.
    horizon = horizons[0]
    capped = gridghost.raw_env(layout=layout, slip=slip, max_cycles=horizon)
    wins = 0
    for seed in range(episodes):
        capped.reset(seed=seed)
        while not (capped.terminations["agent"] or capped.truncations["agent"]):
            capped.step(agent(capped.agent_pos, capped.ghost_pos) if capped.agent_selection == "agent"
                        else chase_in_env(capped))
        wins += bool(capped.infos["agent"].get("reached_goal"))
    assert wins == int(np.sum(goal & (turns <= horizon)))  # the same seeds, the same games


# -- 3. the minimax pair is an equilibrium -------------------------------------------------------
EQUILIBRIUM_CASES = [
    (CLASSIC_RULES, CLASSIC, CLASSIC_START, 0.99),
    (CONTESTED, CONTESTED.layout(*CONTESTED_START), CONTESTED_START, 0.95),
]


@pytest.mark.parametrize(("rules", "layout", "start", "gamma"), EQUILIBRIUM_CASES, ids=["classic", "3x3-contested"])
def test_minimax_pair_is_an_equilibrium(rules, layout, start, gamma) -> None:
    slip = rules.slip_model()
    agent, ghost = MinimaxAgent(layout, slip, gamma=gamma), MinimaxGhost(layout, slip, gamma=gamma)
    game = solve_game(layout, slip, gamma=gamma)
    value = game.value(*start)
    gap = exploitability(agent, ghost, layout, slip, gamma=gamma)
    assert -1e-9 <= gap < 1e-6
    # The pair's own value, by the linear Bellman equations of the rules written here.
    pair = evaluate(rules, one_hot(agent), one_hot(ghost), gamma)
    assert pair[start] == pytest.approx(value, abs=1e-6)
    for s, v in pair.items():  # in every state, not only the start
        assert at(game.values, *s) == pytest.approx(v, abs=1e-6)
    # The ghost gains nothing by switching to a shipped policy.
    for other, as_distribution in [("chase", chase_of(rules)), ("random", uniform),
                                   (ChasePolicy(), chase_of(rules)), (RandomPolicy(seed=0), uniform)]:
        switched = evaluate(rules, one_hot(agent), as_distribution, gamma)[start]
        assert switched >= value - 1e-6, other
        best_reply = solve_agent(layout, slip, ghost=other, gamma=gamma).value(*start)
        assert best_reply >= switched - 1e-6
        # exploitability = agent's best reply to `other` - ghost's best reply to the minimax agent
        assert exploitability(agent, other, layout, slip, gamma=gamma) == pytest.approx(best_reply - value, abs=1e-6)
    # The agent gains nothing by switching to a shipped policy.
    for other in ("random", OptimalAgent(layout, slip, ghost="chase", gamma=gamma)):
        distribution = uniform if other == "random" else one_hot(other)
        switched = evaluate(rules, distribution, one_hot(ghost), gamma)[start]
        assert switched <= value + 1e-6, other
        ghost_best = solve_ghost(layout, slip, agent=other, gamma=gamma).value(*start)  # the ghost's own return
        assert -ghost_best <= switched + 1e-6
        assert exploitability(other, ghost, layout, slip, gamma=gamma) == pytest.approx(value + ghost_best, abs=1e-6)


def test_the_contested_map_is_contested() -> None:
    # Under the minimax pair the ghost wins about a third of the games: an equilibrium test there
    # is not one where the ghost never matters. The probabilities come from the rules written here.
    layout, slip, gamma = CONTESTED.layout(*CONTESTED_START), CONTESTED.slip_model(), 0.95
    agent, ghost = MinimaxAgent(layout, slip, gamma=gamma), MinimaxGhost(layout, slip, gamma=gamma)
    goal, caught, timing = outcome_within(CONTESTED, one_hot(agent), one_hot(ghost), 100)
    assert 0.2 < caught[CONTESTED_START] < 0.8 and 0.2 < goal[CONTESTED_START] < 0.8
    game = solve_game(layout, slip, gamma=gamma)
    assert game.capture_probability(*CONTESTED_START, horizon=100) == pytest.approx(caught[CONTESTED_START], abs=1e-9)
    assert game.success_probability(*CONTESTED_START, horizon=100) == pytest.approx(goal[CONTESTED_START], abs=1e-9)
    assert game.capture_time(*CONTESTED_START, horizon=100) == pytest.approx(
        timing[CONTESTED_START] / caught[CONTESTED_START], abs=1e-9)


# -- 4. QMDP against a random agent --------------------------------------------------------------
def success_rate(agent_policy, episodes: int, seed0: int) -> float:
    env = gridghost.raw_env(layout=CLASSIC, slip=LongitudinalSlip(0.2), obs_type="belief", max_cycles=100)
    chase = ChasePolicy()
    wins = 0
    for episode in range(episodes):
        env.reset(seed=seed0 + episode)
        rng = np.random.default_rng(seed0 + episode)
        for name in env.agent_iter():
            obs, _, termination, truncation, info = env.last()
            if termination or truncation:
                wins += name == "agent" and bool(info.get("reached_goal"))
                env.step(None)
                continue
            if name == "agent":
                assert obs["belief"].shape == (4, 5)
                env.step(agent_policy(obs, rng))
            else:
                env.step(chase(obs))
    return wins / episodes


def test_qmdp_agent_beats_a_random_agent() -> None:
    qmdp = QMDPAgent(CLASSIC, LongitudinalSlip(0.2), ghost="chase")
    smart = success_rate(lambda obs, rng: qmdp(obs), 300, 10_000)
    random = success_rate(lambda obs, rng: int(rng.integers(4)), 300, 10_000)
    assert smart >= random + 0.3, (smart, random)
    assert smart >= 0.9


# -- 5. bad input --------------------------------------------------------------------------------
#: A 2x3 map whose chasing ghost never catches an agent that stands still at (0, 0): it swings
#: between (1, 0) and (1, 1) under the wall.
STUCK = Rules(2, 3, {(0, 2)}, walls_h={(0, 0), (0, 1)})
STUCK_START = ((0, 0), (1, 0))


@pytest.mark.parametrize("gamma", [0, -1, 1.5, float("nan"), float("inf")])
def test_gamma_outside_the_unit_interval_is_refused(gamma) -> None:
    for solve in (lambda: solve_agent(CLASSIC, gamma=gamma), lambda: solve_game(CLASSIC, gamma=gamma),
                  lambda: solve_ghost(CLASSIC, gamma=gamma), lambda: exploitability("random", "chase", gamma=gamma),
                  lambda: OptimalAgent(CLASSIC, gamma=gamma)):
        with pytest.raises(ValueError, match="gamma"):
            solve()


@pytest.mark.parametrize("gamma", ["x", None, True])
def test_gamma_of_the_wrong_type_is_refused(gamma) -> None:
    with pytest.raises(TypeError, match="gamma"):
        solve_agent(CLASSIC, gamma=gamma)


def test_undiscounted_endless_games_need_a_horizon() -> None:
    layout = STUCK.layout(*STUCK_START)
    # The chasing ghost swings under the wall for ever (the rules written here say so) ...
    assert STUCK.chase((0, 0), (1, 0)) == RIGHT and STUCK.chase((0, 0), (1, 1)) == LEFT
    # ... so an agent standing still is never caught, and without a horizon there is no value.
    for solve in (lambda: solve_agent(layout, NoSlip(), ghost="chase", gamma=1.0),
                  lambda: solve_game(layout, NoSlip(), gamma=1.0),
                  lambda: exploitability("random", "chase", layout, NoSlip(), gamma=1.0),
                  lambda: OptimalAgent(layout, NoSlip(), ghost="chase", gamma=1.0)):
        with pytest.raises(ValueError, match="horizon"):
            solve()
    # With a horizon it works: two steps right past the swinging ghost, -1 + 100.
    sol = solve_agent(layout, NoSlip(), ghost="chase", gamma=1.0, horizon=50)
    assert sol.value(*STUCK_START) == pytest.approx(99.0, abs=1e-12)
    assert sol.action(*STUCK_START) == RIGHT
    # A random ghost catches an agent that stands still, sooner or later: no horizon needed.
    assert np.isfinite(solve_agent(layout, NoSlip(), ghost="random", gamma=1.0).values).all()


def shuttle(agent_pos, ghost_pos) -> int:
    """A fixed agent on a 2x2 map (goal (0, 1)) that shuttles along the bottom row, but walks up
    into the ghost whenever the ghost is right above it."""
    if agent_pos == (0, 0):
        return DOWN
    if ghost_pos == (0, agent_pos[1]):
        return UP
    return RIGHT if agent_pos[1] == 0 else LEFT


def test_undiscounted_endless_games_need_a_horizon_when_the_ghost_keeps_them_going(monkeypatch) -> None:
    """Against :func:`shuttle` the ghost can keep the game going for ever: it dances on the top
    row, always diagonal to the agent (from (0, 1) over the agent at (1, 0), to (0, 0) when the
    agent reaches (1, 1), and back). With gamma=1 its return grows without bound, so solve_ghost
    must refuse as solve_agent does, naming the horizon.

    The dance passes through ghost-to-move states (agent (1, 1), ghost (0, 1)) whose
    agent-to-move twin ends the game (the shuttle walks up into the ghost there); the solver's
    endless-game check must not confuse the two."""
    rules = Rules(2, 2, {(0, 1)}, slip=("longitudinal", 0.0))
    layout = rules.layout((1, 0), (0, 1))
    # The dance, checked on the rules written here: every state of it goes on.
    state = ((1, 0), (0, 1))
    for _ in range(4):
        [(kind, cell, _)] = rules.agent_half(*state, shuttle(*state)).keys()
        assert kind == "on"
        ghost_cell, _, caught = rules.ghost_half(cell, state[1], LEFT if state[1] == (0, 1) else RIGHT)
        assert not caught
        state = (cell, ghost_cell)
    assert state == ((1, 0), (0, 1))
    # With a horizon of H turns the ghost dances H - 1 turns (+1 each: the agent's step) and then
    # steps down onto the agent (+1 + 50).
    for horizon in (1, 7, 50):
        sol = solve_ghost(layout, NoSlip(), agent=shuttle, gamma=1.0, horizon=horizon)
        assert sol.value((1, 0), (0, 1)) == pytest.approx(horizon + 50, abs=1e-9)
    # Without one, a clear refusal (not value iteration running into its sweep limit).
    monkeypatch.setattr(gridghost.planning.solve, "MAX_ITERATIONS", 2_000)  # only so that the failure is quick
    with pytest.raises(ValueError, match="horizon"):
        solve_ghost(layout, NoSlip(), agent=shuttle, gamma=1.0)
    with pytest.raises(ValueError, match="horizon"):
        exploitability(shuttle, "random", layout, NoSlip(), gamma=1.0)


class Opaque:
    pass


@pytest.mark.parametrize("ghost", [42, Opaque(), 2.5, None])
def test_a_ghost_that_is_no_policy_is_refused(ghost) -> None:
    with pytest.raises(TypeError, match="ghost"):
        solve_agent(CLASSIC, ghost=ghost)


def test_a_policy_of_observations_points_to_tabulate_policy() -> None:
    with pytest.raises(TypeError, match="tabulate_policy"):
        solve_agent(CLASSIC, ghost=lambda observation: 0)
    with pytest.raises(TypeError, match="tabulate_policy"):
        solve_ghost(CLASSIC, agent=lambda observation: 0)
    with pytest.raises(TypeError, match="tabulate_policy"):
        exploitability("random", RandomPolicy(seed=0, num_actions=3))


def test_tables_of_the_wrong_shape_or_not_probabilities_are_refused() -> None:
    shape = (4, 5, 4, 5, 4)
    with pytest.raises(ValueError, match="ghost"):
        solve_agent(CLASSIC, ghost=np.full((4, 5, 4, 5, 3), 1 / 3))
    with pytest.raises(ValueError, match="ghost"):
        solve_agent(CLASSIC, ghost=np.full((5, 4, 5, 4, 4), 0.25))
    with pytest.raises(ValueError, match="sum to 1"):
        solve_agent(CLASSIC, ghost=np.full(shape, 0.3))
    negative = np.zeros(shape)
    negative[..., 0], negative[..., 1] = 1.5, -0.5
    with pytest.raises(ValueError, match="ghost"):
        solve_agent(CLASSIC, ghost=negative)
    nan = np.full(shape, 0.25)
    nan[0, 2, 3, 4] = np.nan
    with pytest.raises(ValueError, match="ghost"):
        solve_agent(CLASSIC, ghost=nan)
    with pytest.raises(ValueError, match="agent"):
        solve_ghost(CLASSIC, agent=np.full(shape, 0.2))
    # Rows where the game is over are not read: zeros there are fine.
    table = np.zeros(shape)
    table[..., 2] = 1.0
    table[3, 1] = 0.0  # the agent on the goal (3, 1)
    assert solve_agent(CLASSIC, ghost=table).value(*CLASSIC_START) == pytest.approx(
        solve_agent(CLASSIC, ghost=lambda a, g: RIGHT).value(*CLASSIC_START), abs=1e-12)


def test_unknown_names_and_the_chasing_ghost_as_agent_are_refused() -> None:
    with pytest.raises(ValueError, match="ghost"):
        solve_agent(CLASSIC, ghost="chaser")
    with pytest.raises(ValueError, match="agent"):
        solve_ghost(CLASSIC, agent="chase")
    with pytest.raises(ValueError, match="agent_policy"):
        exploitability("chase", "chase")
    with pytest.raises(ValueError, match="agent"):
        solve_ghost(CLASSIC, agent=ChasePolicy())
    with pytest.raises(ValueError, match="agent"):
        solve_ghost(CLASSIC, agent=MinimaxGhost(CLASSIC))  # a ghost's policy for the agent
    with pytest.raises(ValueError, match="ghost"):
        solve_agent(CLASSIC, ghost=OptimalAgent(CLASSIC))  # an agent's policy for the ghost
    with pytest.raises(ValueError, match="layout"):
        solve_agent(CONTESTED.layout(*CONTESTED_START), ghost=MinimaxGhost(CLASSIC))  # another map's


def test_a_callable_returning_no_action_is_refused() -> None:
    with pytest.raises(ValueError, match="ghost"):
        solve_agent(CLASSIC, ghost=lambda agent, ghost: 4)
    with pytest.raises(TypeError, match="ghost"):
        solve_agent(CLASSIC, ghost=lambda agent, ghost: "up")


@pytest.mark.parametrize(("agent", "ghost", "argument"), [
    ((4, 0), (0, 0), "agent_pos"), ((0, 5), (0, 0), "agent_pos"), ((-1, 0), (0, 0), "agent_pos"),
    ((0, 0), (0, 5), "ghost_pos"), ((0, 0), (4, 4), "ghost_pos"), ((0, 0), (0, -1), "ghost_pos"),
])
def test_positions_outside_the_grid_are_refused(agent, ghost, argument) -> None:
    sol, game = solve_agent(CLASSIC), solve_game(CLASSIC)
    for ask in (sol.value, sol.q, sol.action, sol.success_probability, game.value, game.agent_action,
                game.ghost_action, game.capture_probability, OptimalAgent(CLASSIC), MinimaxGhost(CLASSIC)):
        with pytest.raises(ValueError, match=argument):
            ask(agent, ghost)


def test_positions_that_are_no_cells_are_refused() -> None:
    sol = solve_agent(CLASSIC)
    for bad in [(0.0, 1), "ab", (1, 2, 3), None, (True, 0)]:
        with pytest.raises(TypeError, match="agent_pos"):
            sol.value(bad, (3, 4))


def test_asking_for_an_action_where_the_game_is_over_is_refused() -> None:
    sol, game = solve_agent(CLASSIC), solve_game(CLASSIC)
    for over in [((3, 1), (0, 0)), ((3, 4), (0, 0)), ((1, 1), (1, 1))]:  # on a goal, on a goal, caught
        for ask in (sol.action, sol.q, game.agent_action, game.ghost_action, game.agent_q, game.ghost_q):
            with pytest.raises(ValueError, match="game is over"):
                ask(*over)
        assert sol.value(*over) == 0.0 and game.value(*over) == 0.0


def test_bad_horizons_and_tolerances_are_refused() -> None:
    for bad, error in [(0, ValueError), (-3, ValueError), (2.5, TypeError), (True, TypeError)]:
        with pytest.raises(error, match="horizon"):
            solve_agent(CLASSIC, horizon=bad)
        with pytest.raises(error, match="horizon"):
            solve_agent(CLASSIC).success_probability(*CLASSIC_START, horizon=bad)
    for bad in (0, -1e-3, float("nan")):
        with pytest.raises(ValueError, match="tol"):
            solve_game(CLASSIC, tol=bad)
    with pytest.raises(TypeError, match="layout"):
        solve_agent("classic")


def test_qmdp_agent_bad_input() -> None:
    qmdp = QMDPAgent(CLASSIC, LongitudinalSlip(0.2))
    with pytest.raises(ValueError, match="belief"):
        qmdp.q(np.full((5, 4), 0.05), (1, 1))
    with pytest.raises(ValueError, match="belief"):
        qmdp({"ghost_relative_pos": np.array([1, 1])})  # no belief, no filter
    with pytest.raises(ValueError, match="ghost_relative_pos"):
        qmdp(np.zeros(26))
    with pytest.raises(TypeError, match="belief_filter"):
        QMDPAgent(CLASSIC, belief_filter=42)


# -- 6. tabulating policies of observations ------------------------------------------------------
def vector_chase(rows: int, cols: int):
    """The chasing ghost written again, reading the ``"vector"`` observation's slots."""

    def policy(vector):
        dr = round(float(vector[23]) * max(rows - 1, 1))
        dc = round(float(vector[24]) * max(cols - 1, 1))
        up, right, down, left = (bool(vector[slot]) for slot in (7, 8, 9, 10))
        return chase_move(dr, dc, {LEFT: left, DOWN: down, RIGHT: right, UP: up})

    return policy


def flee_from_vector(vector) -> int:
    """An agent that steps away from the ghost along the column offset, else the row offset."""
    d_row, d_col = float(vector[23]), float(vector[24])
    if d_col > 0:
        return LEFT
    if d_col < 0:
        return RIGHT
    return UP if d_row > 0 else DOWN


def flee_from_positions(agent, ghost) -> int:
    d_row, d_col = ghost[0] - agent[0], ghost[1] - agent[1]
    if d_col > 0:
        return LEFT
    if d_col < 0:
        return RIGHT
    return UP if d_row > 0 else DOWN


def expected_table(rules: Rules, policy) -> np.ndarray:
    """One-hot ``(rows, cols, rows, cols, 4)`` of ``policy(agent, ghost)`` where the game goes on."""
    table = np.zeros((rules.rows, rules.cols, rules.rows, rules.cols, 4))
    for agent, ghost in rules.live():
        table[agent[0], agent[1], ghost[0], ghost[1], policy(agent, ghost)] = 1.0
    return table


@pytest.mark.parametrize(("rules", "start"), [(CLASSIC_RULES, CLASSIC_START), (CONTESTED, CONTESTED_START)],
                         ids=["classic", "3x3-contested"])
def test_tabulated_chase_policy_is_the_chasing_ghost(rules, start) -> None:
    layout = rules.layout(*start)
    table = tabulate_policy(ChasePolicy(), "ghost", layout, obs_type="dict")
    assert table.shape == (rules.rows, rules.cols, rules.rows, rules.cols, 4)
    assert np.array_equal(table, expected_table(rules, rules.chase))
    # The kernel's chase table, where the game goes on, is the same.
    kernel = Game(layout, rules.slip_model()).chase_table
    cells = rules.rows * rules.cols
    for agent, ghost in rules.live():
        a, g = agent[0] * rules.cols + agent[1], ghost[0] * rules.cols + ghost[1]
        assert table[agent[0], agent[1], ghost[0], ghost[1], int(kernel[a, g])] == 1.0
    assert kernel.shape == (cells, cells)
    # A vector-reading chaser, one observation at a time and all at once, gives the same table.
    single = vector_chase(rules.rows, rules.cols)
    calls = []

    def batched(observations):
        calls.append(observations.shape)
        return np.array([single(row) for row in observations], dtype=np.int64)

    assert np.array_equal(tabulate_policy(single, "ghost", layout, obs_type="vector"), table)
    assert np.array_equal(tabulate_policy(batched, "ghost", layout, obs_type="vector", batch=True), table)
    assert calls == [(len(rules.live()), 26)]
    # It plugs into the solvers as the chasing ghost.
    assert exploitability("random", table, layout, rules.slip_model()) == pytest.approx(
        exploitability("random", "chase", layout, rules.slip_model()), abs=1e-12)
    assert np.allclose(solve_agent(layout, rules.slip_model(), ghost=table).values,
                       solve_agent(layout, rules.slip_model(), ghost="chase").values, rtol=0, atol=1e-12)


def test_tabulated_agent_policy_reads_the_agents_observation() -> None:
    rules, layout = CONTESTED, CONTESTED.layout(*CONTESTED_START)
    want = expected_table(rules, flee_from_positions)
    single = tabulate_policy(flee_from_vector, "agent", layout, obs_type="vector")
    batch = tabulate_policy(lambda obs: np.array([flee_from_vector(o) for o in obs]), "agent", layout,
                            obs_type="vector", batch=True)
    assert np.array_equal(single, want) and np.array_equal(batch, want)
    # Its exploitability against the chasing ghost, from the brute-force value iteration here:
    # the agent's best reply to the chaser minus the ghost's best reply to the fleeing agent.
    gamma = 0.9
    best_agent, _, _ = value_iteration(rules, gamma, agent="max", ghost=chase_of(rules))
    best_ghost, _, _ = value_iteration(rules, gamma, agent=one_hot(flee_from_positions), ghost="min")
    want_gap = best_agent[CONTESTED_START] - best_ghost[CONTESTED_START]
    got = exploitability(single, "chase", layout, rules.slip_model(), gamma=gamma, tol=1e-12)
    assert got == pytest.approx(want_gap, abs=1e-8)
    assert got > 1.0  # fleeing is far from optimal


def test_tabulate_policy_bad_input() -> None:
    with pytest.raises(TypeError, match="policy"):
        tabulate_policy(42)
    with pytest.raises(ValueError, match="side"):
        tabulate_policy(ChasePolicy(), side="ghoul", obs_type="dict")
    with pytest.raises(ValueError, match="obs_type"):
        tabulate_policy(ChasePolicy(), side="ghost", obs_type="pixels")
    with pytest.raises(ValueError, match="batch"):
        tabulate_policy(ChasePolicy(), side="ghost", obs_type="dict", batch=True)
    with pytest.raises(ValueError, match="policy"):
        tabulate_policy(lambda obs: 7, "agent")
    with pytest.raises(TypeError, match="policy"):
        tabulate_policy(lambda obs: np.zeros(len(obs)), "agent", batch=True)  # floats, not actions
    with pytest.raises(TypeError, match="policy"):
        tabulate_policy(lambda obs: np.zeros(3, dtype=np.int64), "agent", batch=True)  # too few


def test_policy_array_of_named_and_shipped_policies() -> None:
    model = TurnModel(Game(CLASSIC, LongitudinalSlip(0.2)))
    random = policy_array("random", model, Side.GHOST, "ghost")
    assert random.shape == (4, model.num_live) and np.allclose(random, 0.25)
    assert np.array_equal(policy_array(RandomPolicy(seed=1), model, Side.AGENT, "agent"), random)
    chase = policy_array(ChasePolicy(), model, Side.GHOST, "ghost")
    assert np.allclose(chase.sum(axis=0), 1.0)
    cells, cols = 20, 5
    for i, pair in enumerate(model.states.tolist()):
        agent, ghost = divmod(divmod(pair, cells)[0], cols), divmod(divmod(pair, cells)[1], cols)
        assert chase[CLASSIC_RULES.chase(agent, ghost), i] == 1.0


# -- 7. brute force ------------------------------------------------------------------------------
@pytest.mark.parametrize("rules", [CONTESTED, WALLED], ids=["3x3-contested-perpendicular", "3x3-wall-longitudinal"])
def test_solvers_match_brute_force_value_iteration(rules: Rules) -> None:
    gamma = 0.9
    start = CONTESTED_START
    layout, slip = rules.layout(*start), rules.slip_model()
    live = rules.live()

    # The zero-sum game.
    values, agent_q, ghost_q = value_iteration(rules, gamma, agent="max", ghost="min")
    game = solve_game(layout, slip, gamma=gamma, tol=1e-12)
    for s in live:
        assert at(game.values, *s) == pytest.approx(values[s], abs=1e-8)
        assert np.allclose(at(game.agent_q_values, *s), agent_q[s], rtol=0, atol=1e-8)
        assert np.allclose(at(game.ghost_q_values, *s), ghost_q[s], rtol=0, atol=1e-8)
        assert game.agent_q(*s)[game.agent_action(*s)] == pytest.approx(max(agent_q[s]), abs=1e-8)
        assert game.ghost_q(*s)[game.ghost_action(*s)] == pytest.approx(min(ghost_q[s]), abs=1e-8)
    assert at(game.values, (2, 0) if rules is CONTESTED else (2, 2), (0, 0)) == 0.0  # the agent on the goal
    # Its outcome probabilities under the solution's own policies.
    agent_policy = lambda a, g: {int(at(game.agent_policy, a, g)): 1.0}  # noqa: E731
    ghost_policy = lambda a, g: {int(at(game.ghost_policy, a, g)): 1.0}  # noqa: E731
    for horizon in (1, 3, 10):
        goal, caught, timing = outcome_within(rules, agent_policy, ghost_policy, horizon)
        for s in live:
            assert game.success_probability(*s, horizon=horizon) == pytest.approx(goal[s], abs=1e-10)
            assert game.capture_probability(*s, horizon=horizon) == pytest.approx(caught[s], abs=1e-10)
            if caught[s] > 0:
                assert game.capture_time(*s, horizon=horizon) == pytest.approx(timing[s] / caught[s], abs=1e-9)
            else:
                assert math.isnan(game.capture_time(*s, horizon=horizon))
    # A game cut after a few turns.
    for horizon in (1, 4):
        cut, _, _ = value_iteration(rules, gamma, agent="max", ghost="min", sweeps=horizon)
        short = solve_game(layout, slip, gamma=gamma, horizon=horizon)
        for s in live:
            assert at(short.values, *s) == pytest.approx(cut[s], abs=1e-10)

    # The agent's MDP against the random ghost.
    values, agent_q, _ = value_iteration(rules, gamma, agent="max", ghost=uniform)
    sol = solve_agent(layout, slip, ghost="random", gamma=gamma, tol=1e-12)
    for s in live:
        assert sol.value(*s) == pytest.approx(values[s], abs=1e-8)
        assert np.allclose(sol.q(*s), agent_q[s], rtol=0, atol=1e-8)
        assert agent_q[s][sol.action(*s)] == pytest.approx(max(agent_q[s]), abs=1e-8)
    goal, caught, _ = outcome_within(rules, lambda a, g: {sol.action(a, g): 1.0}, uniform, 10)
    for s in live:
        assert sol.success_probability(*s, horizon=10) == pytest.approx(goal[s], abs=1e-10)
        assert sol.capture_probability(*s, horizon=10) == pytest.approx(caught[s], abs=1e-10)

    # The ghost's MDP against the random agent (its own return: the agent's negated).
    values, _, ghost_q = value_iteration(rules, gamma, agent=uniform, ghost="min")
    ghost_sol = solve_ghost(layout, slip, agent="random", gamma=gamma, tol=1e-12)
    for s in live:
        assert ghost_sol.value(*s) == pytest.approx(-values[s], abs=1e-8)
        assert np.allclose(ghost_sol.q(*s), [-q for q in ghost_q[s]], rtol=0, atol=1e-8)


# -- the caches' budget ----------------------------------------------------------------------------------
def _arrays_kept(items: list) -> int:
    """The bytes of every NumPy array the objects ``items`` keep alive, found by the garbage
    collector's own references (not by the caches' accounting), each memory block once."""
    import gc
    import types

    skipped = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType)
    seen: set[int] = set()
    blocks: dict[int, int] = {}
    stack = list(items)
    while stack:
        item = stack.pop()
        if id(item) in seen or isinstance(item, skipped):
            continue
        seen.add(id(item))
        if isinstance(item, np.ndarray):
            base = item
            while isinstance(base.base, np.ndarray):
                base = base.base
            blocks[id(base)] = base.nbytes
        else:
            stack.extend(gc.get_referents(item))
    return sum(blocks.values())


def test_the_solver_caches_hold_no_more_arrays_than_they_count_and_their_budget(monkeypatch) -> None:
    """A cached solution kept its turn model (and the model its game) alive, counted by
    neither cache once the model cache dropped it: about 1.75x the stated budget was held."""
    from gridghost.planning import clear_caches, model

    layouts = [Layout.generate(4, 4, seed=seed) for seed in range(8)]
    clear_caches()
    full = solve_game(layouts[0])
    for name in type(full)._TABLES:  # the tables over every state, built when first read
        getattr(full, name)
    # a solution with everything it keeps, or what the cache counts for one before its tables are read
    one = max(_arrays_kept([full]), model._nbytes(solve_game(layouts[1])))
    budget = 3 * one
    monkeypatch.setattr(model, "CACHE_BYTES", budget)
    clear_caches()
    for layout in layouts:
        solution = solve_game(layout, horizon=None)
        for horizon in (1, 2, 3, 4, 5, 6, 7, 8, 9):  # outcome tables, added after the solution is cached
            solution.success_probability(layout.agent_start, layout.ghost_start, horizon=horizon)
    for cache in (model._MODELS, model._SOLUTIONS):
        items = list(cache.kept.values())
        assert len(items) >= 2  # the budget holds several: the bound below is no single item's
        assert _arrays_kept(items) <= cache.total <= budget
    both = [item for cache in (model._MODELS, model._SOLUTIONS) for item in cache.kept.values()]
    assert _arrays_kept(both) <= 2 * budget
    clear_caches()


def test_the_cache_budget_set_on_gridghost_planning_is_the_one_the_caches_read(monkeypatch) -> None:
    """The caches took CACHE_BYTES once, at import: setting it (here or in its module) changed nothing."""
    import gridghost.planning
    from gridghost.planning import clear_caches, model

    small = [Layout.generate(3, 4, seed=seed) for seed in range(3)]
    monkeypatch.setattr(gridghost.planning, "CACHE_BYTES", 1)  # room for the most recent item only
    assert model.CACHE_BYTES == 1 and gridghost.planning.CACHE_BYTES == 1
    clear_caches()
    first = solve_game(small[0])
    assert solve_game(small[0]) is first
    solve_game(small[1])
    assert len(model._SOLUTIONS.kept) == 1 and solve_game(small[0]) is not first
    monkeypatch.setattr(gridghost.planning, "MAX_STATES", 10)
    with pytest.raises(ValueError, match=r"at most gridghost\.planning\.MAX_STATES = 10"):
        solve_game(small[2])
    clear_caches()
