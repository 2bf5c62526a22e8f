"""Env steps per second of the JAX engine against the NumPy batched engine, same run.

A step is one full turn of every game (the agent's move and the chasing ghost's answer, with
the observation of every game gathered and finished games auto-reset), on the classic map with
``max_episode_steps=100`` and uniformly random actions drawn before the clock starts, as
``batched_throughput.py`` measures the NumPy engine. The JAX contenders run ``turns`` steps in one
jitted ``jax.lax.scan`` (compiled before the clock starts; the compile time is printed apart):

- ``JAX batch_step``: :meth:`gridghost.jax.GridGhostJaxSingle.batch_step`, one key per step for
  the whole batch (the fast path);
- ``JAX vmap(step)``: ``jax.vmap`` of the per-game ``step`` over a key per game (JaxMARL's and
  gymnax's convention), to show what deriving a key per game costs on a CPU.

Both engines time in process CPU time (time spent descheduled does not count; a multi-threaded
XLA kernel counts every thread's time), in interleaved rounds; ratios are medians over rounds of
each contender's rate over the NumPy engine's at the same number of games. The NumPy engine
draws the colour sensor's reading each step (its filter reads it) and the JAX engine has no
sensor, so the NumPy engine runs twice: as it plays by default, and with ``sensors=[]``, nearly
the same work as the JAX engine's (it also keeps the final observations of the games that end),
which is the target's baseline.

    python benchmarks/jax_throughput.py                 # 5 rounds
    python benchmarks/jax_throughput.py --rounds 3 --turns 1000000

Target: at 4,096 games the JAX engine's steps/s at least equal the NumPy engine's
(without the sensor).

Teams: the agent against a chasing team of ``k = 2`` and ``3`` ghosts on a generated 7x7 map, 4,096
games, the JAX engine's computed path (:mod:`gridghost.jax.positions`) against the NumPy engine's team
(``BatchedGame(n, ghosts=k)``, without the sensor) on the same map and encoding; where that NumPy
engine does not serve teams, against its one-ghost game on the same map (the table says which).
Target: the JAX team at ``k = 2`` at least equals the NumPy one.

    python benchmarks/jax_throughput.py --teams-only    # the team rows alone
"""

from __future__ import annotations

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from batched_throughput import batched_rate  # noqa: E402

from gridghost.core.layout import Layout  # noqa: E402
from gridghost.jax import GridGhostJaxSingle  # noqa: E402

from harness import add_progress_option, interleaved_rates, median_ratio, verdict  # noqa: E402

SIZES = (1, 64, 1_024, 4_096, 65_536)
TARGET_GAMES = 4_096
#: The teams' map (generated, with three ghost starts), its name in the table, and the team sizes.
TEAM_MAP, TEAM_MAP_NAME, TEAM_SIZES = Layout.generate(7, 7, seed=0, ghosts=3), "7x7", (2, 3)


class JaxContender:
    """A compiled rollout of ``calls`` steps of ``games`` games; ``rate(seed)`` runs it once."""

    def __init__(self, env: GridGhostJaxSingle, games: int, calls: int, per_game: bool) -> None:
        self.games, self.calls = games, calls
        params = env.default_params
        actions = jax.random.randint(jax.random.key(99), (calls, games), 0, 4, dtype=jnp.int32)
        if per_game:
            step = jax.vmap(env.step, in_axes=(0, 0, 0, None))

            def advance(key: Any, states: Any, action: Any) -> Any:
                return step(jax.random.split(key, games), states, action, params)
        else:
            def advance(key: Any, states: Any, action: Any) -> Any:
                return env.batch_step(key, states, action, params)

        observations, self._states = env.batch_reset(jax.random.key(0), games)
        outputs = (observations, jnp.zeros(games, dtype=jnp.float32), jnp.zeros(games, dtype=bool))

        def rollout(states: Any, key: Any) -> Any:
            # each step's outputs go to the carry, so that XLA computes them every step (the loop
            # returns the last); a sum of them would be work the NumPy contender does not do
            def body(carry: Any, action: Any) -> Any:
                states, key, _ = carry
                key, step_key = jax.random.split(key)
                observations, states, rewards, dones, _ = advance(step_key, states, action)
                return (states, key, (observations, rewards, dones)), None
            return jax.lax.scan(body, (states, key, outputs), actions)[0]

        self._run = jax.jit(rollout)
        start = time.perf_counter()
        jax.block_until_ready(self._run(self._states, jax.random.key(1)))
        self.compile_seconds = time.perf_counter() - start

    def rate(self, seed: int) -> float:
        """Steps per second (process CPU time) of one rollout."""
        start = time.process_time()
        jax.block_until_ready(self._run(self._states, jax.random.key(seed + 2)))
        return self.calls * self.games / (time.process_time() - start)


def contenders(turns: int) -> tuple[dict[str, Callable[[int], float]], dict[str, float]]:
    """Name -> rate for a round's seed, and each JAX contender's compile time."""
    env = GridGhostJaxSingle(obs_type="vector", max_episode_steps=100)
    table: dict[str, Callable[[int], float]] = {}
    compiles: dict[str, float] = {}
    for games in SIZES:
        calls = max(3, min(-(-turns // games), 3_000))
        table[f"NumPy BatchedGame({games:,})"] = (
            lambda seed, games=games: batched_rate(games, turns, seed, "vector"))
        table[f"NumPy no sensor({games:,})"] = (
            lambda seed, games=games: batched_rate(games, turns, seed, "vector", sensors=[]))
        for label, per_game in (("batch_step", False), ("vmap(step)", True)):
            if per_game and games not in (64, TARGET_GAMES):
                continue
            contender = JaxContender(env, games, calls, per_game)
            name = f"JAX {label}({games:,})"
            table[name] = contender.rate
            compiles[name] = contender.compile_seconds
    return table, compiles


def numpy_serves_teams() -> bool:
    """Whether the NumPy engine plays a team (``BatchedGame(n, ghosts=2)``)."""
    from gridghost.batched import BatchedGame

    try:
        BatchedGame(1, ghosts=2, layout=TEAM_MAP, obs_type="vector", sensors=[])
    except (TypeError, ValueError):  # UnsupportedSetting is a ValueError
        return False
    return True


def team_contenders(turns: int) -> tuple[dict[str, Callable[[int], float]], dict[str, float], dict[str, str]]:
    """The team rows: name -> rate, compile times, and each JAX row's NumPy baseline."""
    table: dict[str, Callable[[int], float]] = {}
    compiles: dict[str, float] = {}
    baselines: dict[str, str] = {}
    games, calls = TARGET_GAMES, max(3, min(-(-turns // TARGET_GAMES), 3_000))
    teams = numpy_serves_teams()
    for k in TEAM_SIZES:
        numpy_k = k if teams else 1
        baseline = f"NumPy ghosts={numpy_k} {TEAM_MAP_NAME}({games:,})"
        if baseline not in table:
            table[baseline] = (lambda seed, numpy_k=numpy_k: batched_rate(
                games, turns, seed, "vector", sensors=[], layout=TEAM_MAP, **({"ghosts": numpy_k} if teams else {})))
        env = GridGhostJaxSingle(obs_type="vector", max_episode_steps=100, ghosts=k, layout=TEAM_MAP)
        contender = JaxContender(env, games, calls, False)
        name = f"JAX ghosts={k} {TEAM_MAP_NAME}({games:,})"
        table[name], compiles[name], baselines[name] = contender.rate, contender.compile_seconds, baseline
    return table, compiles, baselines


def main(argv: list[str] | None = None) -> int:
    """Run the interleaved rounds and print rates, ratios and the verdict; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_progress_option(parser)
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (the median is printed)")
    parser.add_argument("--turns", type=int, default=2_000_000, help="steps (games x calls) per contender per round")
    parser.add_argument("--teams-only", action="store_true", help="only the team rows")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.turns < 1:
        parser.error("--rounds and --turns must be >= 1")
    teams, team_compiles, baselines = team_contenders(args.turns)
    rates = interleaved_rates(teams, args.rounds, args.progress)
    print(f"Teams: the agent against a chasing team, random actions, a {TEAM_MAP_NAME} map, vector obs, no sensor; "
          f"process "
          f"CPU time, {args.rounds} interleaved rounds")
    print(f"{'contender':<34} {'steps/s':>12} {'vs NumPy':>9}  {'compile s':>9}  target")
    for name in teams:
        ratio = f"{median_ratio(rates, name, baselines[name]):>8.2f}x" if name in baselines else " " * 9
        note = verdict(median_ratio(rates, name, baselines[name]), 1.0) if name.startswith("JAX ghosts=2") else ""
        compile_time = f"{team_compiles[name]:9.1f}" if name in team_compiles else " " * 9
        print(f"{name:<34} {statistics.median(rates[name]):>12,.0f} {ratio}  {compile_time}  {note}")
    if args.teams_only:
        return 0
    table, compiles = contenders(args.turns)
    rates = interleaved_rates(table, args.rounds, args.progress)
    print(f"JAX engine against the NumPy batched engine: full turns (agent move + chasing ghost), random actions, "
          f"classic map, vector obs; process CPU time, {args.rounds} interleaved rounds; jax {jax.__version__} on "
          f"{jax.devices()[0].platform}")
    print(f"{'contender':<28} {'steps/s':>12} {'vs NumPy':>9} {'vs no sensor':>12}  {'compile s':>9}  target")
    for name in table:
        games = int(name.rsplit("(", 1)[1].split(")")[0].replace(",", ""))
        ratio = median_ratio(rates, name, f"NumPy BatchedGame({games:,})")
        like = median_ratio(rates, name, f"NumPy no sensor({games:,})")
        note = ""
        if name.startswith("JAX batch_step") and games == TARGET_GAMES:
            note = verdict(like, 1.0)
        compile_time = f"{compiles[name]:9.1f}" if name in compiles else " " * 9
        print(f"{name:<28} {statistics.median(rates[name]):>12,.0f} {ratio:>8.2f}x {like:>11.2f}x  {compile_time}  "
              f"{note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
