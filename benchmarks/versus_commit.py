"""This checkout's speed against an earlier commit's, side by side in the same run.

Every workload (the AEC env with and without reading its infos, with the observation too as in the
standard loop, and for a team of two, the Gymnasium env for either side,
``AgentInterface`` with and without its particle filter, a rendered frame, the batched engine, the
zero-sum solver on a 16x16 map, the JAX engine) runs in a fresh process against each version,
alternating round after round, timed in process CPU time inside the process. The table shows the
median over rounds of this checkout's rate divided by the earlier commit's in the same round:
above 1.00x is faster. Only public APIs that both versions have are used; a workload that one
version cannot run (the JAX engine or teams before they existed, or without jax installed) prints ``n/a``
and why.

    python benchmarks/versus_commit.py fa39bf0
    python benchmarks/versus_commit.py fa39bf0 --only raw_env JAX   # some workloads (run it with jax's Python)

Needs git (to export the earlier commit), or the commit's package exported beforehand
(``git archive fa39bf0 gridghost | tar -x -C /tmp/base``, then ``versus_commit.py /tmp/base``).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

from tqdm import tqdm

from harness import add_progress_option

ROOT = Path(__file__).resolve().parent.parent

#: The loop every workload runs: ``run(n)`` does ``n`` units with ``env`` and returns ``n``.
_LOOP = """
import gridghost
env = {make}
def run(n):
    env.reset(seed=0)
    for i in range(n):
        {unit}
    return n
"""
_GYM_STEP = """_, _, terminated, truncated, _ = env.step({action})
        if terminated or truncated:
            env.reset()"""
_INTERFACE_STEP = """if env.step(i % 4)[2]:
            env.reset()"""
_AEC_STEP = """if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            env.reset()
        env.step(i % 4)"""

_LAST_STEP = """_, _, terminated, truncated, _ = env.last(observe=False)
        if terminated or truncated:
            env.reset()
        else:
            env.step(i % 4)"""
_OBSERVED_LAST_STEP = _LAST_STEP.replace("env.last(observe=False)", "env.last()")
#: The zero-sum game solved from scratch (caches cleared) on a 16x16 map with a fifth of its
#: inner edges walled, drawn from a fixed seed (the same map for both versions); the solver moved
#: from ``gridghost.solve`` to ``gridghost.planning``.
_SOLVE = """
import numpy as np
import gridghost
import os
if os.path.isdir(os.path.join(os.path.dirname(gridghost.__file__), "planning")):
    from gridghost.planning import clear_caches, solve_game
else:
    from gridghost.solve import clear_caches, solve_game
rng = np.random.default_rng(0)
while True:
    try:
        layout = gridghost.Layout(colours=rng.integers(0, 3, (16, 16)), goals=[(15, 0), (15, 15)],
                                  agent_start=(0, 8), ghost_start=(15, 8), walls_horizontal=rng.random((15, 16)) < 0.2,
                                  walls_vertical=rng.random((16, 15)) < 0.2)
        break
    except ValueError:  # something unreachable: draw again
        continue
def run(n):
    for _ in range(n):
        clear_caches()
        solve_game(layout, "longitudinal")
    return n
"""
#: The JAX engine (:class:`gridghost.jax.GridGhostJaxSingle`, 4,096 games, vector observations),
#: a jitted ``lax.scan`` of 50 ``batch_step`` calls per unit (compiled in the warm-up); a unit
#: counts every game's step. Needs jax, and a version with the JAX engine on both sides.
_JAX = """
import os
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import jax
import gridghost
from gridghost.jax import GridGhostJaxSingle
env = GridGhostJaxSingle(obs_type="vector", max_episode_steps=100)
params = env.default_params
_, states = env.batch_reset(jax.random.key(0), 4096, params)
@jax.jit
def rollout(states, key):
    def body(carry, _):
        states, key = carry
        key, action_key, step_key = jax.random.split(key, 3)
        actions = jax.random.randint(action_key, (4096,), 0, 4)
        observations, states, rewards, dones, _ = env.batch_step(step_key, states, actions, params)
        return (states, key), (observations, rewards, dones)
    return jax.lax.scan(body, (states, key), None, length=50)
def run(n):
    global states
    for unit in range(max(1, n // (50 * 4096))):
        (states, _), out = rollout(states, jax.random.key(unit))
        jax.block_until_ready(out)
    return max(1, n // (50 * 4096)) * 50 * 4096
"""

#: name -> (Python code that defines ``run(n)``, units per round before --scale).
WORKLOADS: dict[str, tuple[str, int]] = {
    name: (_LOOP.format(make=make, unit=unit), units)
    for name, make, unit, units in (
        ("raw_env() half-steps", "gridghost.raw_env(max_cycles=None)", _AEC_STEP, 20_000),
        # the PettingZoo loop that reads each half-turn's infos (not the observation: the infos' cost)
        ("env() last() + step, half-steps", "gridghost.env(max_cycles=None)", _LAST_STEP, 20_000),
        # the loop of every PettingZoo tutorial: the observation and the infos of every half-turn
        ("env() last() observed + step, half-steps", "gridghost.env(max_cycles=None)", _OBSERVED_LAST_STEP, 20_000),
        # a team of two on a shipped team map (a version without teams prints n/a)
        ("env(ghosts=2) last() observed + step, half-steps",
         'gridghost.env(max_cycles=None, ghosts=2, layout="team_eight", obs_type="vector")', _OBSERVED_LAST_STEP,
         20_000),
        ("gym env, vector, agent steps", 'gridghost.GridGhostGymEnv(obs_type="vector")',
         _GYM_STEP.format(action="i % 4"), 5_000),
        # the encoding named: the Gymnasium env's default became "vector" in 0.3.0
        ("gym env, dict, ghost steps", 'gridghost.GridGhostGymEnv(controlled="ghost", obs_type="dict")',
         _GYM_STEP.format(action="(i * 7) % 4"), 5_000),
        ("AgentInterface, no filter",
         "gridghost.AgentInterface(render=False, use_particle_filter=False, max_steps=100)", _INTERFACE_STEP, 5_000),
        ("AgentInterface, particle filter", "gridghost.AgentInterface(render=False, max_steps=100)",
         _INTERFACE_STEP, 2_000),
        ("rgb_array frames", 'gridghost.env(render_mode="rgb_array")', "env.render()", 300),
        # gridghost.batched was a module and is a package: both import it this way
        ("batched engine, 4,096 games, steps",
         '__import__("gridghost.batched", fromlist=["_"]).BatchedGame(4096, seed=0)',
         'env.step_agent(__import__("numpy").full(4096, i % 4))', 400),
    )
}
WORKLOADS["solve_game, 16x16 map, solves"] = (_SOLVE, 2)
WORKLOADS["JAX engine, 4,096 games, steps"] = (_JAX, 20 * 50 * 4096)

_TIMER = """
import os, sys, time
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
{code}
run(max(1, {units} // 10))  # warm-up: caches, imports, the first frame
start = time.process_time()
done = run({units})
print(done / (time.process_time() - start))
# every gridghost module from the tree (an editable install could supply one the tree lacks)
strays = [mod.__file__ for name, mod in list(sys.modules.items())
          if name.split(".")[0] == "gridghost" and getattr(mod, "__file__", None)
          and not mod.__file__.startswith({tree!r})]
assert not strays, f"modules from outside the tree: {{strays[:3]}}"
"""


def export(rev: str, into: Path) -> Path:
    """Write the package of commit ``rev`` into ``into`` and return the folder to put on the path."""
    archive = subprocess.run(["git", "archive", rev, "gridghost"], cwd=ROOT, check=True, capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def rate(tree: Path, workload: str, units: int) -> float | str:
    """Units per CPU second of one workload, run in a fresh process with ``tree`` first on the path;
    or, where that version cannot run it (no JAX engine, jax not installed), the error's last line."""
    code = _TIMER.format(code=WORKLOADS[workload][0], units=units, tree=str(tree))
    out = subprocess.run([sys.executable, "-c", code], cwd=tree, env={"PYTHONPATH": str(tree), "PATH": ""},
                         capture_output=True, text=True)
    if out.returncode != 0:
        lines = out.stderr.strip().splitlines()
        return lines[-1] if lines else f"exit status {out.returncode}"
    return float(out.stdout.split()[0])


def main(argv: list[str] | None = None) -> int:
    """Print the table; the exit status is 0."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", help="the earlier commit (any git revision), or a folder holding its exported "
                                     "gridghost package (git archive REV gridghost), for a machine without git")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (the median is printed)")
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies every workload's units")
    parser.add_argument("--only", nargs="+", metavar="TEXT",
                        help="run only the workloads whose names contain one of these texts")
    add_progress_option(parser)
    args = parser.parse_args(argv)
    names = [name for name in WORKLOADS if not args.only or any(text in name for text in args.only)]
    if not names:
        parser.error(f"--only {args.only} matches no workload; the workloads: {list(WORKLOADS)}")
    skipped: dict[str, str] = {}  # workload -> why a version cannot run it
    with tempfile.TemporaryDirectory() as tmp:
        given = Path(args.base).resolve()
        base = given if (given / "gridghost").is_dir() else export(args.base, Path(tmp) / "base")
        trees = {"base": base, "head": ROOT}
        ratios: dict[str, list[float]] = {name: [] for name in names}
        rates: dict[str, list[float]] = {name: [] for name in names}
        bar = tqdm(total=args.rounds * len(names), desc="rounds", unit="workload", disable=not args.progress)
        for round_ in range(args.rounds):
            for name in names:
                bar.update()
                if name in skipped:
                    continue
                units = max(1, int(WORKLOADS[name][1] * args.scale))
                order = ("base", "head") if round_ % 2 == 0 else ("head", "base")
                got = {side: rate(trees[side], name, units) for side in order}
                failed = [f"{side}: {value}" for side, value in got.items() if isinstance(value, str)]
                if failed:
                    skipped[name] = "; ".join(failed)
                    continue
                ratios[name].append(got["head"] / got["base"])  # type: ignore[operator]
                rates[name].append(got["head"])  # type: ignore[arg-type]
        bar.close()
    width = max(map(len, names)) + 1
    print(f"this checkout against {args.base}: {args.rounds} interleaved rounds, median of per-round ratios")
    print(f"{'workload':<{width}} {'units/s here':>13} {'vs base':>8}")
    for name in names:
        if name in skipped:
            print(f"{name:<{width}} {'n/a':>13} {'n/a':>8}  ({skipped[name][:100]})")
        else:
            here = statistics.median(rates[name])
            shown = f"{here:>13,.0f}" if here >= 100 else f"{here:>13.3f}"
            print(f"{name:<{width}} {shown} {statistics.median(ratios[name]):>7.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
