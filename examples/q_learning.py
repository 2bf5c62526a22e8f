"""Tabular Q-learning against the chasing ghost, with numpy alone.

An agent learns to reach a goal of the classic map through the Gymnasium env
``gymnasium.make("gridghost/GridGhost-v1", obs_type="vector")`` while the chasing ghost hunts it
and its moves slip. The script prints the success rate (the share of evaluation episodes that end
with ``info["is_success"]``) before training, when the table is all zeros and the greedy policy,
which breaks ties at random, is the uniformly random policy, and again after training. Both
evaluations play the same episodes: the same env seeds, drawn from ``--seed``.

    python examples/q_learning.py                       # the defaults
    python examples/q_learning.py --seed 7 --slip 0.4   # another run, slipperier
    python examples/q_learning.py --episodes 500 --eval-episodes 100

Every random draw comes from ``--seed``: the env's seeds and the agent's exploration and
tie-breaking generators (``numpy.random.default_rng``), so a seed always prints the same numbers.
"""

from __future__ import annotations

import argparse
from collections.abc import Hashable, Sequence
from typing import Any

import gymnasium
import numpy as np
from tqdm import tqdm

import gridghost

NUM_ACTIONS = 4


class QTable:
    """Action values of the states seen so far, one row per state, grown on demand.

    Args:
        num_actions: the number of actions (columns).
    """

    def __init__(self, num_actions: int = NUM_ACTIONS) -> None:
        self.num_actions = num_actions
        self._rows: dict[Hashable, int] = {}
        self.values = np.zeros((16, num_actions))

    def __len__(self) -> int:
        return len(self._rows)

    def row(self, state: Hashable) -> int:
        """The row of ``state``, added with zero values the first time it is seen."""
        index = self._rows.get(state)
        if index is None:
            index = self._rows[state] = len(self._rows)
            if index == len(self.values):
                self.values = np.concatenate((self.values, np.zeros_like(self.values)))
        return index

    def greedy(self, state: Hashable, rng: np.random.Generator) -> int:
        """A best action for ``state`` (any action for an unseen one), ties broken uniformly at
        random with ``rng``; an unseen state is not added."""
        index = self._rows.get(state)
        if index is None:
            return int(rng.integers(self.num_actions))
        return _argmax(self.values[index], rng)


def _argmax(values: np.ndarray, rng: np.random.Generator) -> int:
    best = np.flatnonzero(values == values.max())
    return int(best[0] if len(best) == 1 else rng.choice(best))


def state_key(observation: np.ndarray) -> bytes:
    """The table key of a ``"vector"`` observation: its raw bytes."""
    # The vector observation is the whole game state: on the classic map the 23 own-cell slots
    # differ between all 20 cells and the ghost's offset then fixes its cell, so a key stands for
    # (agent cell, ghost cell) and the problem stays Markov. With at most 400 keys (about 80 are
    # reachable against the chasing ghost) a table needs no coarser, lossy key to learn quickly.
    return observation.tobytes()


def make_env(slip: float) -> gymnasium.Env:
    """The agent's Gymnasium env against the chasing ghost, with ``"vector"`` observations."""
    return gymnasium.make(gridghost.ENV_ID, controlled="agent", opponent="chase", obs_type="vector",
                          slip_probability=slip)


def evaluate(env: gymnasium.Env, table: QTable, seeds: Sequence[int], rng: np.random.Generator) -> float:
    """The success rate of the greedy policy of ``table`` over one episode per env seed.

    An episode succeeds when its last step reports ``info["is_success"]`` (the agent reached a
    goal); being caught or running out of steps is a failure. The table is not updated.

    Raises:
        ValueError: ``seeds`` is empty.
    """
    if not seeds:
        raise ValueError("evaluate needs at least one episode seed")
    successes = 0
    for seed in seeds:
        observation, _ = env.reset(seed=int(seed))
        terminated = truncated = False
        info: dict[str, Any] = {}
        while not (terminated or truncated):
            action = table.greedy(state_key(observation), rng)
            observation, _, terminated, truncated, info = env.step(action)
        successes += bool(info["is_success"])
    return successes / len(seeds)


def train(
    env: gymnasium.Env,
    table: QTable,
    episodes: int,
    rng: np.random.Generator,
    *,
    alpha: float = 0.2,
    gamma: float = 0.95,
    epsilon_start: float = 1.0,
    epsilon_end: float = 0.05,
    progress: bool = False,
) -> None:
    """Update ``table`` in place by epsilon-greedy Q-learning over ``episodes`` episodes.

    Epsilon falls linearly from ``epsilon_start`` to ``epsilon_end`` over the first 80% of the
    episodes. A terminal step (goal or caught) does not bootstrap; a step cut by the time limit
    does, since the state it reaches still has a future.

    Args:
        env: the agent's env; its first reset here takes a seed drawn from ``rng``.
        table: the action values to improve.
        episodes: the number of training episodes.
        rng: exploration and tie-breaking draws, and the first env seed.
        alpha: the learning rate.
        gamma: the discount.
        epsilon_start, epsilon_end: the exploration rate at the start and after the decay.
        progress: count the episodes on a progress bar on stderr.
    """
    decay_episodes = max(1, int(0.8 * episodes))
    # Seed once; later resets continue the env's own stream.
    observation, _ = env.reset(seed=int(rng.integers(2**31)))
    for episode in tqdm(range(episodes), desc="Q-learning", unit="episode", disable=not progress):
        if episode:
            observation, _ = env.reset()
        epsilon = epsilon_start + (epsilon_end - epsilon_start) * min(1.0, episode / decay_episodes)
        state = table.row(state_key(observation))
        terminated = truncated = False
        while not (terminated or truncated):
            if rng.random() < epsilon:
                action = int(rng.integers(table.num_actions))
            else:
                action = _argmax(table.values[state], rng)
            observation, reward, terminated, truncated, _ = env.step(action)
            following = table.row(state_key(observation))
            target = reward if terminated else reward + gamma * table.values[following].max()
            table.values[state, action] += alpha * (target - table.values[state, action])
            state = following


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _unit(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must lie in [0, 1], got {value}")
    return value


def main(argv: Sequence[str] | None = None) -> dict[str, float]:
    """Train and evaluate as the command line says; print and return the results.

    Returns:
        ``{"before": rate, "after": rate, "states": number of states in the table}``, the
        success rates in [0, 1].
    """
    parser = argparse.ArgumentParser(description="Tabular Q-learning (numpy only) against the chasing ghost.")
    parser.add_argument("--episodes", type=_positive, default=3000, help="training episodes (default 3000)")
    parser.add_argument("--eval-episodes", type=_positive, default=500,
                        help="evaluation episodes before and after training (default 500)")
    parser.add_argument("--seed", type=int, default=0, help="seeds the envs and the agent (default 0)")
    parser.add_argument("--slip", type=float, default=0.2, help="the agent's slip probability (default 0.2)")
    parser.add_argument("--alpha", type=_unit, default=0.2, help="learning rate in [0, 1] (default 0.2)")
    parser.add_argument("--gamma", type=_unit, default=0.95, help="discount in [0, 1] (default 0.95)")
    parser.add_argument("--no-progress", dest="progress", action="store_false",
                        help="draw no progress bar (it goes to stderr, the results to stdout)")
    args = parser.parse_args(argv)

    train_seeds, eval_seeds = np.random.SeedSequence(args.seed).spawn(2)
    train_rng = np.random.default_rng(train_seeds)
    # Both evaluations replay the same env seeds with the same fresh tie-breaking generator, so
    # they differ only in the table, whatever training drew.
    episode_seeds = [int(seed) for seed in eval_seeds.generate_state(args.eval_episodes)]
    try:
        env = make_env(args.slip)
    except (TypeError, ValueError) as error:
        parser.error(str(error))
    table = QTable()
    try:
        before = evaluate(env, table, episode_seeds, np.random.default_rng(eval_seeds))
        train(env, table, args.episodes, train_rng, alpha=args.alpha, gamma=args.gamma, progress=args.progress)
        after = evaluate(env, table, episode_seeds, np.random.default_rng(eval_seeds))
    finally:
        env.close()

    rows = {
        "before training (all-zero table: uniformly random moves)": before,
        f"after {args.episodes} Q-learning episodes ({len(table)} states seen)": after,
    }
    width = max(map(len, rows))
    print(f"success rate over {args.eval_episodes} evaluation episodes (seed {args.seed}, slip {args.slip}):")
    for label, rate in rows.items():
        print(f"  {label + ':':<{width + 1}} {rate:6.1%}")
    return {"before": before, "after": after, "states": len(table)}


if __name__ == "__main__":
    main()
