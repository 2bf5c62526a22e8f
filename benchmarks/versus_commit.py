"""This checkout's speed against an earlier commit's, side by side in the same run.

Every workload (the AEC env, the Gymnasium env for either side, ``AgentInterface`` with and
without its particle filter, a rendered frame, the batched engine) runs in a fresh process against each version,
alternating round after round, timed in process CPU time inside the process. The table shows the
median over rounds of this checkout's rate divided by the earlier commit's in the same round:
above 1.00x is faster. Only public APIs that both versions have are used.

    python benchmarks/versus_commit.py fa39bf0

Needs git (to export the earlier commit).
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

#: name -> (Python code that defines ``run(n)``, units per round before --scale).
WORKLOADS: dict[str, tuple[str, int]] = {
    name: (_LOOP.format(make=make, unit=unit), units)
    for name, make, unit, units in (
        ("raw_env() half-steps", "gridghost.raw_env(max_cycles=None)", _AEC_STEP, 20_000),
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

_TIMER = """
import os, sys, time
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
{code}
run(max(1, {units} // 10))  # warm-up: caches, imports, the first frame
start = time.process_time()
done = run({units})
print(done / (time.process_time() - start))
import gridghost
assert gridghost.__file__.startswith({tree!r}), gridghost.__file__
"""


def export(rev: str, into: Path) -> Path:
    """Write the package of commit ``rev`` into ``into`` and return the folder to put on the path."""
    archive = subprocess.run(["git", "archive", rev, "gridghost"], cwd=ROOT, check=True, capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def rate(tree: Path, workload: str, units: int) -> float:
    """Units per CPU second of one workload, run in a fresh process with ``tree`` first on the path."""
    code = _TIMER.format(code=WORKLOADS[workload][0], units=units, tree=str(tree))
    out = subprocess.run([sys.executable, "-c", code], cwd=tree, env={"PYTHONPATH": str(tree), "PATH": ""},
                         check=True, capture_output=True, text=True)
    return float(out.stdout.split()[0])


def main(argv: list[str] | None = None) -> int:
    """Print the table; the exit status is 0."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", help="the earlier commit (any git revision)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (the median is printed)")
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies every workload's units")
    add_progress_option(parser)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"base": export(args.base, Path(tmp) / "base"), "head": ROOT}
        ratios: dict[str, list[float]] = {name: [] for name in WORKLOADS}
        rates: dict[str, list[float]] = {name: [] for name in WORKLOADS}
        bar = tqdm(total=args.rounds * len(WORKLOADS), desc="rounds", unit="workload", disable=not args.progress)
        for round_ in range(args.rounds):
            for name in WORKLOADS:
                units = max(1, int(WORKLOADS[name][1] * args.scale))
                order = ("base", "head") if round_ % 2 == 0 else ("head", "base")
                got = {side: rate(trees[side], name, units) for side in order}
                ratios[name].append(got["head"] / got["base"])
                rates[name].append(got["head"])
                bar.update()
        bar.close()
    width = max(map(len, WORKLOADS)) + 1
    print(f"this checkout against {args.base}: {args.rounds} interleaved rounds, median of per-round ratios")
    print(f"{'workload':<{width}} {'units/s here':>13} {'vs base':>8}")
    for name in WORKLOADS:
        print(f"{name:<{width}} {statistics.median(rates[name]):>13,.0f} {statistics.median(ratios[name]):>7.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
