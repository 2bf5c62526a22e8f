"""What PPO in JAX learns, and how fast: the runs of ``examples/jax_selfplay.py``, stored.

1. Self-play on difficulty 2, level 0: both sides learn with PPO in one jitted program, judged
   by the exact solver every generation (10 updates of 256 games x 32 turns); the wall time
   (compiling included, from the env's construction) until the exploitability of the greedy
   pair is under 1% of the reward range, per seed. Target: under 2 minutes.
2. One side, the README's baseline recipe on the JAX engine: the agent against the chasing ghost
   on difficulty 2's 500 training levels, 200,704 steps, scored exactly (greedy) on the first
   ``--score-levels`` training levels and on the 100 held-out levels, per seed; to set beside the
   SB3 baseline (``benchmarks/results/baselines.json``: 0.926 train, 0.882 held out).

Writes ``--out`` (``benchmarks/results/jax_learning.json``) after every run and prints a table.
Needs ``pip install "gridghost[jax]"``.

    python benchmarks/jax_learning.py                           # seeds 0-2, both parts
    python benchmarks/jax_learning.py --parts selfplay --seeds 0
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
from pathlib import Path
from typing import Any

import jax
from tqdm import tqdm

from harness import add_progress_option, load_example, provenance

ROOT = Path(__file__).resolve().parent.parent
SELFPLAY_LIMIT = 120.0


def main(argv: list[str] | None = None) -> int:
    """Run the parts for every seed, store and print them; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", nargs="+", choices=("selfplay", "single"), default=["selfplay", "single"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--score-levels", type=int, default=100, help="training levels scored (None: all 500)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "jax_learning.json")
    add_progress_option(parser)
    args = parser.parse_args(argv)
    runs = load_example("jax_selfplay")  # the one implementation of both runs
    stored: dict[str, Any] = json.loads(args.out.read_text()) if args.out.exists() else {}
    origin = provenance(__file__, argv)
    for part in args.parts:  # each part names the command and commit that made it
        stored.setdefault("provenance", {})[part] = origin
    stored["machine"] = {"jax": jax.__version__, "device": jax.devices()[0].platform,
                         "python": platform.python_version(), "processor": platform.processor() or platform.machine()}
    if "selfplay" in args.parts:
        results = stored.setdefault("selfplay", {})
        for seed in tqdm(args.seeds, desc="self-play", unit="seed", disable=not args.progress):
            history = runs.selfplay(level=0, seed=seed, verbose=False)
            under = [entry for entry in history if entry.exploitability < runs.BAR]
            results[str(seed)] = {"generations": [entry._asdict() for entry in history],
                                  "seconds_to_bar": under[0].seconds if under else None}
            args.out.write_text(json.dumps(stored, indent=1) + "\n")
            reached = f"under 1% at generation {under[0].generation}, {under[0].seconds:.1f} s" if under else "never"
            print(f"self-play seed {seed}: {reached}", flush=True)
    if "single" in args.parts:
        results = stored.setdefault("single", {})
        for seed in tqdm(args.seeds, desc="one side", unit="seed", disable=not args.progress):
            result = runs.single_side(seed=seed, score_levels=args.score_levels, verbose=False)
            results[str(seed)] = {"train_score": float(result["train"].score.mean()),
                                  "test_score": float(result["test"].score.mean()),
                                  "train_levels": args.score_levels, "steps": result["steps"],
                                  "train_seconds": result["train_seconds"]}
            args.out.write_text(json.dumps(stored, indent=1) + "\n")
            print(f"one side seed {seed}: train {results[str(seed)]['train_score']:.3f}, held out "
                  f"{results[str(seed)]['test_score']:.3f}, {result['train_seconds']:.0f} s", flush=True)
    summarise(stored)
    return 0


def summarise(stored: dict[str, Any]) -> None:
    """Print the stored runs' summary."""
    if stored.get("selfplay"):
        times = [run["seconds_to_bar"] for run in stored["selfplay"].values()]
        met = all(t is not None and t < SELFPLAY_LIMIT for t in times)
        print(f"self-play, difficulty 2 level 0: wall time to under 1%: "
              f"{', '.join('never' if t is None else f'{t:.1f} s' for t in times)}  "
              f"(< {SELFPLAY_LIMIT:.0f} s {'met' if met else 'MISSED'})")
    if stored.get("single"):
        runs = list(stored["single"].values())
        for key in ("train_score", "test_score"):
            values = [run[key] for run in runs]
            spread = f" ± {statistics.stdev(values):.3f}" if len(values) > 1 else ""
            name = key.replace("_", " ")
            print(f"one side, {name}: {statistics.mean(values):.3f}{spread} over {len(values)} seed(s)")


if __name__ == "__main__":
    raise SystemExit(main())
