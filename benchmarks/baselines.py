"""Baselines: PPO (stable-baselines3) for the agent on every difficulty preset, scored exactly.

For each difficulty (0-3), each opponent (the chasing ghost ``"chase"`` and the zero-sum game's
minimax ghost ``"minimax"``) and each seed, PPO learns the agent on the preset's training levels
(``level_split(d, "train")``: levels 0..499, what ``difficulty=d`` plays) and is then scored
exactly (:func:`gridghost.evaluate`: the solver plays the policy's table, no episodes are
sampled) on those training levels and on the held-out levels (``level_split(d, "test")``:
levels 500..599). The headline is the *normalised score* ``(return - random) / (optimum -
random)`` of the greedy (deterministic) policy, averaged over the levels: 0 is random play, 1 is
the best response to that ghost, returns undiscounted within 100 turns from each level's starts.
The stochastic policy's score and the agent's goal probability are recorded as well.

The recipe (:data:`RECIPE`, :data:`ENV_SETTINGS`, :class:`MovePlanes`):

- the env is :class:`gridghost.integrations.sb3.SB3VecEnv` over the batched engine, 32 games,
  ``obs_type="grid", view_radius=5`` (an egocentric 11x11 window: on the presets' 5x5 and 6x6
  maps it always holds the whole map), ``rewards="normalised"`` (goal +1, caught -0.5, step
  -0.01: the reference's /100, the same optimal policies), episodes cut at 100 turns;
- the policy is SB3's ``MlpPolicy`` (two hidden layers of 64 for the policy and for the value)
  over :class:`MovePlanes`: the flattened planes that decide where a move leads and what it
  meets (the four wall planes, the goals, the ghost and the out-of-map border). The colour and
  item planes are the sensors' cues; the grid shows the true positions, so they carry nothing
  about the game, and a network that reads them tells the 500 training levels apart by them and
  memorises: with every plane the same PPO scored 0.88 on training levels and 0.67 held out
  after 200,000 steps on difficulty 2 (seed 0, 100 levels of each), with these seven 0.93 and
  0.90, and it runs twice as fast (847 inputs instead of 1,936);
- PPO's defaults otherwise, but ``n_steps=128`` (a rollout of 4,096 steps), ``batch_size=512``
  and ``ent_coef=0.01``; ``gamma=0.99`` (the solver's).

The learning curve is the exact greedy score, at :data:`CURVE_POINTS` evenly spaced checkpoints,
on the first :data:`CURVE_TRAIN_LEVELS` training levels and on all the held-out levels; the last
point is the run's final score on every training level (``--train-levels``, all 500 by default).

Outputs: ``--out`` (``benchmarks/results/baselines.json``: settings, every run with its curve
and final scores, and the summary: mean and sample standard deviation over the seeds, and the
range), a learning-curve figure ``--figure`` (``docs/baselines_sb3.png``; drawn with matplotlib when
it is installed, which gridghost does not depend on: ``pip install matplotlib``) and the
markdown table on stdout. The JSON is rewritten after every run, and ``--resume`` skips the runs
it already holds, so an interrupted run picks up where it stopped.

Needs the sb3 extra (``pip install "gridghost[sb3]"``, CPU torch first). Every draw is seeded:
PPO's seed (torch, NumPy, Python's ``random``) and the env's (``seed + i`` for game ``i``) are
the run's seed; torch runs on one thread. Wall time on a shared 2-core machine (measured for
difficulty 2 against the chasing ghost): a run trains 200,704 steps in about 85 s (2,300-2,400
steps/s) and is scored in about 2.3 minutes (five curve points on 200 levels, the final greedy
and stochastic scores on 600, and the gridghost.evaluate check on 100); per difficulty and
opponent the env's 500 levels take about 40 s to build and the scorers' 600 about a minute
(more against the minimax ghost, which is solved per level). Difficulty 2 against the chasing
ghost, three seeds: 13 minutes; the whole table (4 difficulties x 2 opponents x 3 seeds):
about 2 hours.

    python benchmarks/baselines.py                                   # the full table
    python benchmarks/baselines.py --difficulties 2 --opponents chase --seeds 0 1 2
    python benchmarks/baselines.py --difficulties 0 --opponents chase --seeds 0 --steps 8192 \\
        --train-levels 5 --test-levels 5 --out /tmp/baselines.json --figure none   # a smoke test
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

try:
    import torch
    from stable_baselines3 import PPO
except ImportError:  # pragma: no cover - the light venv
    raise SystemExit('benchmarks/baselines.py needs the sb3 extra: pip install "gridghost[sb3]"') from None

import gridghost
from gridghost.integrations.sb3 import MovePlanes, SB3VecEnv
from gridghost.maps import DIFFICULTIES, SPLITS, level_split
from gridghost.sensing.observations import MOVE_PLANES

from harness import add_progress_option, load_pyplot, provenance, rewrite_block, save_figure

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "benchmarks" / "results" / "baselines.json"
DEFAULT_FIGURE = ROOT / "docs" / "baselines_sb3.png"
OPPONENTS: tuple[str, ...] = ("chase", "minimax")
SEEDS: tuple[int, ...] = (0, 1, 2)

#: The env's settings (besides the levels, the opponent and the seed).
ENV_SETTINGS: dict[str, Any] = {
    "num_envs": 32,
    "obs_type": "grid",
    "view_radius": 5,
    "rewards": "normalised",
    "max_episode_steps": 100,
}
#: PPO's settings (stable-baselines3's defaults for the rest).
RECIPE: dict[str, Any] = {
    "n_steps": 128,
    "batch_size": 512,
    "n_epochs": 10,
    "learning_rate": 3e-4,
    "gamma": 0.99,
    "gae_lambda": 0.95,
    "ent_coef": 0.01,
    "clip_range": 0.2,
}
#: The hidden layers of the policy and of the value network.
NET_ARCH: tuple[int, ...] = (64, 64)
#: Environment steps per run.
STEPS = 200_000
#: Learning-curve points per run (evenly spaced, the last at the end of training).
CURVE_POINTS = 5
#: Training levels scored at the curve's checkpoints (the first ones of the split).
CURVE_TRAIN_LEVELS = 100
#: The turns an episode lasts at most, and the horizon of the exact scores.
HORIZON = 100
#: Below this gap between the optimum and random play a level's score is 1 at the optimum, else
#: NaN (:func:`gridghost.evaluate`'s rule).
FLAT = 1e-9


def make_env(difficulty: int, opponent: str) -> SB3VecEnv:
    """The training env: the recipe's games on the difficulty's training levels, against
    ``opponent`` (seeded by PPO at the start of learning)."""
    return SB3VecEnv(layout=level_split(difficulty, "train"), opponent=opponent, **ENV_SETTINGS)


def make_model(env: SB3VecEnv, seed: int) -> PPO:
    """A fresh PPO learner with the recipe, seeded with ``seed``."""
    policy_kwargs = {"features_extractor_class": MovePlanes,
                     "net_arch": {"pi": list(NET_ARCH), "vf": list(NET_ARCH)}}
    return PPO("MlpPolicy", env, seed=seed, policy_kwargs=policy_kwargs, device="cpu", verbose=0, **RECIPE)


def probabilities(model: PPO, observations: np.ndarray) -> np.ndarray:
    """The model's action probabilities ``float64[n, 4]`` over a batch of observations."""
    with torch.no_grad():
        tensor = torch.as_tensor(np.asarray(observations, dtype=np.float32))
        return model.policy.get_distribution(tensor).distribution.probs.numpy().astype(np.float64)


def greedy(model: PPO) -> Callable[[np.ndarray], np.ndarray]:
    """The model's deterministic policy over a batch of observations, as
    :func:`gridghost.evaluate` asks it."""
    return lambda observations: model.predict(observations, deterministic=True)[0]


class Scores:
    """The exact scores of PPO models on one split against one ghost, through a
    :class:`gridghost.Evaluator` built once (the levels' solves and observed states are kept, so
    a learning curve pays only for each checkpoint's own evaluation).

    Args:
        difficulty: the preset.
        split: ``"train"`` or ``"test"``.
        opponent: ``"chase"`` or ``"minimax"`` (built per level as the env builds it).
        num_levels: the split's first levels to score on.
    """

    def __init__(self, difficulty: int, split: str, opponent: str, num_levels: int) -> None:
        self.difficulty, self.split, self.opponent = difficulty, split, opponent
        self.evaluator = gridghost.Evaluator(level_split(difficulty, split, num_levels), opponent=opponent,
                                             obs_type="grid", view_radius=ENV_SETTINGS["view_radius"],
                                             rewards=ENV_SETTINGS["rewards"], horizon=HORIZON)

    def __call__(self, model: PPO, stochastic: bool = False) -> dict[str, Any]:
        """The greedy policy's mean normalised score and goal probability, the best response's goal
        probability and the number of levels; with ``stochastic`` also the sampling policy's
        (``score_stochastic``, ``success_stochastic``)."""
        result = self.evaluator(greedy(model), batch=True)
        out: dict[str, Any] = {"score": float(np.mean(result.score)), "success": float(np.mean(result.success)),
                               "optimum_success": float(np.mean(result.optimum_success)),
                               "levels": len(result.levels)}
        if stochastic:
            sampled = self.evaluator(lambda observations: probabilities(model, observations), batch=True,
                                     stochastic=True)
            out.update(score_stochastic=float(np.mean(sampled.score)),
                       success_stochastic=float(np.mean(sampled.success)))
        return {name: round(value, 4) if isinstance(value, float) else value for name, value in out.items()}


def checkpoints(steps: int, points: int, rollout: int) -> list[int]:
    """``points`` step counts evenly spaced up to ``steps``, each a whole number of rollouts
    (PPO stops after the rollout that reaches the count)."""
    marks = sorted({max(rollout, round(steps * (i + 1) / points / rollout) * rollout) for i in range(points)})
    return [*marks[:-1], steps] if marks[-1] != steps else marks


def run(env: SB3VecEnv, scorers: dict[str, Scores], seed: int, args: argparse.Namespace) -> dict[str, Any]:
    """Train one learner with the recipe on ``env`` and score it along the way (``"curve"``: the
    first training levels, and the held-out ones) and at the end (``"train"``: every training
    level scored, ``"test"``).

    Returns:
        The run's record: its settings, wall times, steps per second, the curve and the final
        scores on both splits.
    """
    torch.set_num_threads(1)
    difficulty, opponent = scorers["test"].difficulty, scorers["test"].opponent
    model = make_model(env, seed)
    rollout = RECIPE["n_steps"] * env.num_envs
    curve, trained, seconds, scoring = [], 0, 0.0, 0.0
    marks = checkpoints(args.steps, args.curve_points, rollout)
    for mark in marks:
        start = time.perf_counter()
        model.learn(mark - trained, reset_num_timesteps=trained == 0)
        seconds += time.perf_counter() - start
        trained = model.num_timesteps
        start = time.perf_counter()
        point: dict[str, Any] = {"steps": trained, "seconds": round(seconds, 1)}
        if mark != marks[-1]:
            point["train"] = scorers["curve"](model)
            point["test"] = scorers["test"](model)
        curve.append(point)
        scoring += time.perf_counter() - start
        scores = f", train {point['train']['score']:.3f}, test {point['test']['score']:.3f}" if "train" in point else ""
        print(f"  d{difficulty} {opponent} seed {seed}: {trained:,} steps, {seconds:.0f} s{scores}", flush=True)
    start = time.perf_counter()
    final = {split: scorers[split](model, stochastic=True) for split in ("train", "test")}
    scoring += time.perf_counter() - start
    curve[-1].update(final)
    record = {"difficulty": difficulty, "opponent": opponent, "seed": seed, "steps": trained,
              "train_seconds": round(seconds, 1), "scoring_seconds": round(scoring, 1),
              "steps_per_second": round(trained / seconds), "curve": curve, **final}
    print(f"  d{difficulty} {opponent} seed {seed}: train {final['train']['score']:.3f} "
          f"(success {final['train']['success']:.3f}), test {final['test']['score']:.3f} "
          f"(success {final['test']['success']:.3f}); {trained / seconds:,.0f} steps/s", flush=True)
    return record


def spread(values: Sequence[float]) -> dict[str, float]:
    """Mean, sample standard deviation (0 for one value), minimum and maximum."""
    return {"mean": round(statistics.fmean(values), 4),
            "std": round(statistics.stdev(values), 4) if len(values) > 1 else 0.0,
            "min": round(min(values), 4), "max": round(max(values), 4)}


def summarise(runs: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (difficulty, opponent): the spread over seeds of every final figure."""
    rows = []
    for key in sorted({(r["difficulty"], r["opponent"]) for r in runs}, key=lambda k: (k[0], OPPONENTS.index(k[1]))):
        group = [r for r in runs if (r["difficulty"], r["opponent"]) == key]
        row: dict[str, Any] = {"difficulty": key[0], "opponent": key[1], "seeds": [r["seed"] for r in group]}
        for split in ("train", "test"):
            for name in ("score", "success", "score_stochastic", "success_stochastic", "optimum_success"):
                row[f"{split}_{name}"] = spread([r[split][name] for r in group])
        row["steps"] = group[0]["steps"]
        row["train_seconds"] = spread([r["train_seconds"] for r in group])
        rows.append(row)
    return rows


def markdown(summary: Sequence[dict[str, Any]]) -> str:
    """The summary as a markdown table (means ± sample standard deviations over the seeds)."""
    def cell(figure: dict[str, float]) -> str:
        return f"{figure['mean']:.2f} ± {figure['std']:.2f}"

    lines = ["| difficulty | ghost | seeds | steps | train score | held-out score | train success "
             "| held-out success (optimum) | minutes |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in summary:
        lines.append(f"| {row['difficulty']} | {row['opponent']} | {len(row['seeds'])} | {row['steps']:,} "
                     f"| {cell(row['train_score'])} | {cell(row['test_score'])} | {cell(row['train_success'])} "
                     f"| {cell(row['test_success'])} ({row['test_optimum_success']['mean']:.2f}) "
                     f"| {row['train_seconds']['mean'] / 60:.1f} |")
    return "\n".join(lines)


PAGE = ROOT / "docs" / "learning.md"
TABLE_START, TABLE_END = "<!-- baselines-sb3:", "<!-- /baselines-sb3 -->"


def table_rows(runs: Sequence[dict[str, Any]]) -> list[str]:
    """The short-budget table's rows (on the Learning page): per difficulty and ghost, the train
    and held-out scores (mean ± sample standard deviation over the seeds, three decimals), the
    held-out goal probability next to the best response's, and the number of seeds
    (``tests/test_baselines_table.py`` checks them against the runs)."""
    rows = []
    for row in summarise(runs):
        group = [r for r in runs if (r["difficulty"], r["opponent"]) == (row["difficulty"], row["opponent"])]

        def cell(split: str, group: list[dict[str, Any]] = group) -> str:
            values = [r[split]["score"] for r in group]
            spread = statistics.stdev(values) if len(values) > 1 else 0.0
            return f"{statistics.fmean(values):.3f} ± {spread:.3f}"

        success = statistics.fmean(r["test"]["success"] for r in group)
        best = statistics.fmean(r["test"]["optimum_success"] for r in group)
        rows.append(f"| {row['difficulty']} | {row['opponent']} | {cell('train')} | {cell('test')} "
                    f"| {success:.3f} ({best:.3f}) | {len(group)} |")
    return rows


def write_table(path: Path, runs: Sequence[dict[str, Any]]) -> None:
    """Rewrite the rows of the page's short-budget baseline table (between its markers) from ``runs``,
    keeping the marker's comment, the header and the separator."""
    rewrite_block(path, TABLE_START, TABLE_END, table_rows(runs), keep=3)
    print(f"wrote the short-budget baseline table of {path}")


def draw(runs: Sequence[dict[str, Any]], path: Path) -> bool:
    """Draw the learning curves (held-out score, mean over seeds with its range, per difficulty
    and opponent) into ``path`` with matplotlib; ``False`` (and a message) without it."""
    pyplot = load_pyplot()
    if pyplot is None:
        print("no figure: it is drawn with matplotlib (pip install matplotlib)")
        return False
    from matplotlib.ticker import FuncFormatter

    figure, axes = pyplot.subplots(1, len(OPPONENTS), figsize=(10, 3.8), dpi=100, sharey=True, squeeze=False)
    lowest = min(p[split]["score"] for r in runs for p in r["curve"] for split in ("train", "test"))
    for axis, opponent in zip(axes[0], OPPONENTS, strict=True):
        for difficulty in sorted({r["difficulty"] for r in runs}):
            group = [r for r in runs if r["difficulty"] == difficulty and r["opponent"] == opponent]
            if not group:
                continue
            steps = np.array([p["steps"] for p in group[0]["curve"]])
            for split, style in (("test", "-"), ("train", ":")):
                scores = np.array([[p[split]["score"] for p in r["curve"]] for r in group])
                line = axis.plot(steps, scores.mean(axis=0), style, marker="o", markersize=3,
                                 label=f"difficulty {difficulty}" if split == "test" else None,
                                 color=f"C{difficulty}")
                if split == "test":
                    axis.fill_between(steps, scores.min(axis=0), scores.max(axis=0), alpha=0.2,
                                      color=line[0].get_color())
        axis.set_title(f"against the {'chasing' if opponent == 'chase' else 'minimax'} ghost")
        axis.set_xlabel("environment steps")
        axis.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x / 1000:.0f}k"))
        axis.set_ylim(min(-0.05, lowest - 0.05), 1.05)
        axis.grid(alpha=0.3)
    axes[0][0].set_ylabel("normalised score (exact, greedy)")
    axes[0][0].legend(loc="lower right", title="held-out (solid), train (dotted)", fontsize=8, title_fontsize=8)
    figure.suptitle("PPO (stable-baselines3) for the agent: exact score by training steps, range over seeds")
    save_figure(figure, path)
    return True


def settings_record(args: argparse.Namespace) -> dict[str, Any]:
    """What a run's numbers depend on, for the results file."""
    import stable_baselines3

    return {"env": ENV_SETTINGS, "planes": list(MOVE_PLANES), "ppo": RECIPE, "net_arch": list(NET_ARCH),
            "steps": args.steps, "horizon": HORIZON, "splits": {k: list(v) for k, v in SPLITS.items()},
            "train_levels": args.train_levels, "test_levels": args.test_levels,
            "curve_train_levels": min(args.curve_train_levels, args.train_levels), "curve_points": args.curve_points,
            "versions": {"gridghost": gridghost.__version__, "stable_baselines3": stable_baselines3.__version__,
                         "torch": torch.__version__, "numpy": np.__version__, "python": platform.python_version()}}


def write(path: Path, settings: dict[str, Any], origin: dict[str, Any], runs: list[dict[str, Any]]) -> None:
    """Write the results file (settings, ``origin``: the run's provenance, runs, summary)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"settings": settings, "provenance": origin, "runs": runs, "summary": summarise(runs)}
    path.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line, checked."""
    parser = argparse.ArgumentParser(description="PPO baselines on the difficulty presets, scored exactly.")
    parser.add_argument("--difficulties", type=int, nargs="+", default=sorted(DIFFICULTIES),
                        help="difficulty presets (default: all)")
    parser.add_argument("--opponents", nargs="+", choices=OPPONENTS, default=list(OPPONENTS),
                        help="the ghost the agent learns against (default: both)")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(SEEDS), help="seeds (default: 0 1 2)")
    parser.add_argument("--steps", type=int, default=STEPS, help=f"environment steps per run (default {STEPS:,})")
    parser.add_argument("--curve-points", type=int, default=CURVE_POINTS,
                        help=f"learning-curve points per run (default {CURVE_POINTS})")
    parser.add_argument("--train-levels", type=int, default=SPLITS["train"][1],
                        help="training levels scored at the end (the split's first ones; default all)")
    parser.add_argument("--curve-train-levels", type=int, default=CURVE_TRAIN_LEVELS,
                        help=f"training levels scored at each curve point (default {CURVE_TRAIN_LEVELS})")
    parser.add_argument("--test-levels", type=int, default=SPLITS["test"][1],
                        help="held-out levels scored (the split's first ones; default all)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="results file (JSON)")
    parser.add_argument("--figure", default=str(DEFAULT_FIGURE), help="learning-curve picture, or 'none'")
    parser.add_argument("--resume", action="store_true", help="keep the runs --out already holds and skip them")
    parser.add_argument("--table", "--readme", dest="table", action="store_true",
                        help="rewrite the Learning page's short-budget table (docs/learning.md) from the runs "
                             "(--readme: its name when the table was the README's)")
    add_progress_option(parser)
    args = parser.parse_args(argv)
    bad = sorted(set(args.difficulties) - set(DIFFICULTIES))
    if bad:
        parser.error(f"unknown difficulties {bad}; the presets are {sorted(DIFFICULTIES)}")
    if any(seed < 0 for seed in args.seeds):
        parser.error("seeds must be >= 0")
    for name in ("difficulties", "opponents", "seeds"):
        values = getattr(args, name)
        if len(set(values)) != len(values):
            parser.error(f"--{name} repeats a value: {values}")
    rollout = RECIPE["n_steps"] * ENV_SETTINGS["num_envs"]
    if args.steps < rollout:
        parser.error(f"--steps must be at least one rollout ({rollout:,} steps), got {args.steps:,}")
    if not 1 <= args.curve_points <= math.ceil(args.steps / rollout):
        parser.error(f"--curve-points must be in 1..{math.ceil(args.steps / rollout)} (one per rollout at most)")
    for name, split in (("train_levels", "train"), ("curve_train_levels", "train"), ("test_levels", "test")):
        if not 1 <= getattr(args, name) <= SPLITS[split][1]:
            parser.error(f"--{name.replace('_', '-')} must be in 1..{SPLITS[split][1]}")
    return args


def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Run the table the command line asks for; return the summary rows."""
    args = parse(argv)
    torch.set_num_threads(1)
    settings = settings_record(args)
    origin = provenance(__file__, argv)
    runs: list[dict[str, Any]] = []
    if args.resume and args.out.exists():
        held = json.loads(args.out.read_text(encoding="utf-8"))
        if held["settings"] != settings:
            raise SystemExit(f"--resume: {args.out} was written with other settings; move it away or drop --resume")
        runs = held["runs"]
    done = {(r["difficulty"], r["opponent"], r["seed"]) for r in runs}
    started = time.perf_counter()
    bar = tqdm(total=sum((d, o, s) not in done for d in args.difficulties for o in args.opponents for s in args.seeds),
               desc="PPO runs", unit="run", disable=not args.progress)
    for difficulty in args.difficulties:
        for opponent in args.opponents:
            todo = [seed for seed in args.seeds if (difficulty, opponent, seed) not in done]
            if not todo:
                continue
            start = time.perf_counter()
            env = make_env(difficulty, opponent)
            built = time.perf_counter()
            scorers = {split: Scores(difficulty, split, opponent, getattr(args, f"{split}_levels"))
                       for split in ("train", "test")}
            scorers["curve"] = Scores(difficulty, "train", opponent, min(args.curve_train_levels, args.train_levels))
            print(f"difficulty {difficulty}, {opponent} ghost: env of {env.num_envs} games on "
                  f"{SPLITS['train'][1]} levels built in {built - start:.0f} s, the scorers in "
                  f"{time.perf_counter() - built:.0f} s", flush=True)
            for seed in todo:
                runs.append(run(env, scorers, seed, args))
                write(args.out, settings, origin, runs)
                bar.update()
            env.close()
    bar.close()
    summary = summarise(runs)
    write(args.out, settings, origin, runs)
    print(f"\nwrote {args.out} ({len(runs)} runs; {(time.perf_counter() - started) / 60:.1f} minutes)\n")
    print(markdown(summary))
    if args.figure != "none" and runs:
        draw(runs, Path(args.figure))
    if args.table:
        write_table(PAGE, runs)
    return summary


if __name__ == "__main__":
    main(sys.argv[1:])
