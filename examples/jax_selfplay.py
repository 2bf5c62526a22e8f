"""PPO in JAX, env and networks in one compiled program: self-play judged by the exact solver,
and one side trained on many levels (``pip install "gridghost[jax]"``).

Self-play (the default): both sides learn at once with PPO (:func:`gridghost.jax.ppo.make_selfplay`)
on one level (``--difficulty``, default 2, and ``--level``, default 0), from the same games, half of
them started from a uniformly drawn state (exploring starts). Every generation (``--updates`` PPO
updates, one jitted ``jax.lax.scan``) both greedy policies are tabulated over every state and the
solver computes their exploitability: how much a best response to each gains, in the agent's return.
The run stops when it is under 1% of the reward range (goal minus caught, 1.5 in normalised units)::

    python examples/jax_selfplay.py                      # difficulty 2, level 0
    python examples/jax_selfplay.py --difficulty 3 --level 3 --generations 20

One side (``--single``): the agent learns against the chasing ghost on the 500 training levels
of ``--difficulty`` (default 2; with ``--level``, on that one training level alone) with the
recipe of the README's baselines (32 games, rollouts of 128 steps, minibatches of 512, 10 epochs,
entropy 0.01, the ``MovePlanes`` inputs of an egocentric grid of radius 5, 200,704 steps) and is
scored exactly on its training levels and on the preset's 100 held-out levels::

    python examples/jax_selfplay.py --single             # about 1.5 minutes (wall time, see below)
    python examples/jax_selfplay.py --single --difficulty 3 --steps 2_000_000   # the open problem
    python examples/jax_selfplay.py --single --score-levels 100

Wall time of ``--single`` on a shared 2-core CPU: 87 s in all, of which 19 s train (compiling
included) and the rest builds the env's 500 levels and scores 600 levels exactly. The same code
runs on a GPU: ``pip install "jax[cuda12]"``.
"""

from __future__ import annotations

import argparse
import time
from typing import Any, NamedTuple

import jax
import numpy as np
from tqdm import tqdm

import gridghost
from gridghost.jax import GridGhostJax, GridGhostJaxSingle
from gridghost.jax.ppo import PPOConfig, greedy_actions, make_selfplay, make_train, policy_table
from gridghost.maps import DIFFICULTIES, MapGenerator, level_split
from gridghost.planning import exploitability
from gridghost.sensing.observations import MOVE_PLANES, grid_channels

#: Goal minus caught in normalised units; the bar is 1% of it.
REWARD_RANGE = 1.5
BAR = 0.01 * REWARD_RANGE
#: Self-play's PPO: many games, short rollouts, large minibatches (both sides alike).
SELFPLAY = PPOConfig(num_envs=256, num_steps=32, epochs=4, minibatch_size=2048, learning_rate=1e-3)
#: The README's baseline recipe (benchmarks/baselines.py) on the JAX engine.
RADIUS = 5
RECIPE = PPOConfig(num_envs=32, num_steps=128, minibatch_size=512, ent_coef=0.01,
                   planes=tuple(grid_channels(RADIUS).index(name) for name in MOVE_PLANES))


def check_level(level: int, count: int | None = None) -> None:
    """Refuse a level number that is not an int >= 0 (below ``count`` when given).

    Raises:
        ValueError: such a level.
    """
    if not isinstance(level, int) or isinstance(level, bool) or level < 0 or (count is not None and level >= count):
        accepted = "an int >= 0" if count is None else f"a training level, 0..{count - 1}"
        raise ValueError(f"level must be {accepted}, got {level!r}")


class Generation(NamedTuple):
    """One self-play generation: its number, the wall time since the start (compiling
    included), the exact exploitability of the greedy pair and the agent's mean step reward."""

    generation: int
    seconds: float
    exploitability: float
    reward: float


def selfplay(level: int = 0, difficulty: int = 2, generations: int = 12, updates: int = 10, seed: int = 0,
             explore_starts: float = 0.5, config: PPOConfig = SELFPLAY, stop_under_bar: bool = True,
             verbose: bool = True, progress: bool = False) -> list[Generation]:
    """Both sides learn by PPO on one level; each generation is judged by the solver.

    Args:
        level, difficulty: the level of ``MapGenerator(6, 6, difficulty=difficulty)``.
        generations: generations at most; updates: PPO updates per generation.
        seed: the PRNG seed (networks, games, minibatches).
        explore_starts: the share of games started from a uniformly drawn state.
        config: both sides' PPO settings.
        stop_under_bar: stop at the first generation under 1% of the reward range.
        verbose: print one line per generation.
        progress: count the generations on a progress bar on stderr.

    Returns:
        The :class:`Generation` of every generation played.
    """
    start = time.perf_counter()
    check_level(level)
    layout = MapGenerator(6, 6, difficulty=difficulty).level(level)
    env = GridGhostJax(layout=layout, obs_type="grid", rewards="normalised", max_cycles=100,
                       explore_starts=explore_starts)
    init, train = make_selfplay(env, config)
    train = jax.jit(train, static_argnums=1)
    state = init(jax.random.key(seed))
    history = []
    for generation in tqdm(range(1, generations + 1), desc="self-play", unit="generation", disable=not progress):
        state, metrics = train(state, updates)
        agent = policy_table(env, state.learners["agent"].networks, "agent", config)
        ghost = policy_table(env, state.learners["ghost"].networks, "ghost", config)
        gap = float(exploitability(agent, ghost, layout=layout, rewards="normalised"))
        history.append(Generation(generation, time.perf_counter() - start, gap,
                                  float(np.asarray(metrics["agent_reward"]).mean())))
        if verbose:
            print(f"generation {generation:2d}  {history[-1].seconds:6.1f} s  exploitability {gap:.4f} "
                  f"({100 * gap / REWARD_RANGE:.2f}% of the range)", flush=True)
        if stop_under_bar and gap < BAR:
            break
    return history


def single_side(steps: int = 200_704, seed: int = 0, score_levels: int | None = None,
                config: PPOConfig = RECIPE, verbose: bool = True, progress: bool = False, difficulty: int = 2,
                level: int | None = None) -> dict[str, Any]:
    """The agent learns against the chasing ghost on the preset ``difficulty``'s training levels
    (or on training level ``level`` alone), and is scored exactly on the first ``score_levels``
    of them (``None``: all) and on the preset's held-out levels (with ``progress``, the scoring
    draws its bars on stderr).

    Returns:
        ``{"train": Evaluation, "test": Evaluation, "train_seconds": float, "steps": int}``.

    Raises:
        ValueError: ``difficulty`` not a preset, or ``level`` not one of its training levels.
    """
    train_levels = level_split(difficulty, "train")
    if level is not None:
        check_level(level, train_levels.num_levels)
        train_levels = MapGenerator(difficulty=difficulty, start_level=level, num_levels=1)
    env = GridGhostJaxSingle(layout=train_levels, opponent="chase", obs_type="grid", view_radius=RADIUS,
                             rewards="normalised", max_episode_steps=100)
    init, train = make_train(env, config)
    updates = -(-steps // config.batch_size)
    start = time.perf_counter()
    state, _ = jax.jit(train, static_argnums=1)(init(jax.random.key(seed)), updates)
    jax.block_until_ready(state)
    seconds = time.perf_counter() - start
    networks = state.learner.networks
    play = jax.jit(lambda observations: greedy_actions(networks, observations, config))

    def policy(observations: np.ndarray) -> np.ndarray:
        return np.asarray(play(observations))

    settings = {"obs_type": "grid", "view_radius": RADIUS, "batch": True, "rewards": "normalised",
                "progress_bar": progress}
    count = train_levels.num_levels if score_levels is None else min(score_levels, train_levels.num_levels)
    scored = MapGenerator(difficulty=difficulty, start_level=train_levels.start_level, num_levels=count)
    result = {"train": gridghost.evaluate(policy, scored, **settings),
              "test": gridghost.evaluate(policy, level_split(difficulty, "test"), **settings),
              "train_seconds": seconds, "steps": updates * config.batch_size}
    if verbose:
        print(f"{result['steps']:,} steps in {seconds:.0f} s (compiling included)")
        print(f"training levels: {result['train']}")
        print(f"held-out levels: {result['test']}")
    return result


def main(argv: list[str] | None = None) -> int:
    """Run self-play or the one-side recipe; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--single", action="store_true", help="the one-side recipe instead of self-play")
    parser.add_argument("--difficulty", type=int, choices=sorted(DIFFICULTIES), default=2,
                        help="the difficulty preset (both modes)")
    parser.add_argument("--level", type=int, default=None,
                        help="self-play: the level played (default 0); one side: train on this training level alone")
    parser.add_argument("--generations", type=int, default=12, help="self-play: generations at most")
    parser.add_argument("--updates", type=int, default=10, help="self-play: PPO updates per generation")
    parser.add_argument("--steps", type=int, default=200_704, help="one side: training steps")
    parser.add_argument("--score-levels", type=int, default=None, help="one side: training levels scored")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-progress", dest="progress", action="store_false",
                        help="draw no progress bars (they go to stderr, the results to stdout)")
    args = parser.parse_args(argv)
    if args.single:
        single_side(args.steps, args.seed, args.score_levels, progress=args.progress, difficulty=args.difficulty,
                    level=args.level)
        return 0
    history = selfplay(0 if args.level is None else args.level, args.difficulty, generations=args.generations,
                       updates=args.updates, seed=args.seed, progress=args.progress)
    under = [entry for entry in history if entry.exploitability < BAR]
    if under:
        print(f"under 1% of the reward range at generation {under[0].generation}, {under[0].seconds:.1f} s")
        return 0
    print(f"not under 1% of the reward range after {len(history)} generations")
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
