"""Self-play on many levels, judged exactly: levels 10..29 of ``MapGenerator(6, 6, difficulty=d)``
for d = 2 and 3 by default (the self-play example and the PPO recipe were run on levels 0..9),
with either learner:

- ``--learner tabular`` (the default): :class:`gridghost.training.TabularSelfPlay`, both sides
  learning one table of action values from their own games (512 games in lockstep on the batched
  engine, epsilon-greedy 0.5, every episode from a uniformly drawn state, step sizes
  ``1 / visits ** 0.6``, the policies greedy in the table averaged over the batches with
  ``averaging=2``). A "generation" is ``--turns`` full turns (summed over the games) after which
  both sides' policies are judged;
- ``--learner ppo``: the recipe of ``examples/selfplay_sb3.py`` (PPO per side, alternating
  generations of ``--steps`` steps, every learner frozen into an ``OpponentPool`` as its greedy
  table; needs ``pip install "gridghost[sb3]"``).

After every generation the latest (agent, ghost) pair's exploitability is computed by the solver
(``selfplay.exploitability_curve``, gamma 0.99, the solver's default and both learners') in
``rewards="normalised"`` units (goal +1, caught -0.5, step -0.01: the reference divided by 100).
The reward range is goal - caught = 1.5, and the bar is 1% of it: an exploitability below 0.015
(1.5 in the reference's units). The result of a level is its exploitability at the final
generation: the whole curve is stored, and its minimum (``best``) is kept in the file but is no
result, since a run cannot know in advance which generation will be its best.

The script writes ``--out`` (JSON, rewritten after each level, so an interrupted run keeps what
it finished): the settings with the run's provenance (``commit``: ``git rev-parse HEAD``;
``dirty``: whether the files the run reads, ``SOURCES``, had uncommitted changes, listed in
``uncommitted``; ``command``: the exact command line, to run from the repository root), the
run's wall time (``wall_seconds``) and per level its minimax value, final exploitability, wall
time (``seconds``: learning and judging every generation, one process) and every generation's
row. It prints one row per level (the final exploitability, as a percentage of the range, the
generations and the wall time), then how many levels of each difficulty end under 1%.

Results (seed 0), stored in ``benchmarks/results/``: ``selfplay.json`` (tabular, levels 10..29)
and ``selfplay_ppo.json`` (the PPO recipe on levels 0..9, at an earlier commit: under 1% on 3 of
10 levels of difficulty 2 and 1 of 10 of difficulty 3; 51.5 minutes). The numbers and the wall
times measured are quoted on the Self-play page of the docs; ``pytest -m results`` re-runs the
cheapest stored tabular level from its recorded command and matches it.

    python benchmarks/selfplay_levels.py                                   # the full run, tabular
    python benchmarks/selfplay_levels.py --learner ppo --levels 0 1 2 3 4 5 6 7 8 9 \\
        --out benchmarks/results/selfplay_ppo.json
    python benchmarks/selfplay_levels.py --difficulties 2 --levels 0 1 --generations 2 --turns 100000
    python benchmarks/selfplay_levels.py --redraw --figure docs/selfplay_levels.png   # the picture only

``--figure`` draws every level's exploitability by generation (matplotlib, which gridghost does
not depend on: ``pip install matplotlib``).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from gridghost.core.layout import Layout
from gridghost.maps.levels import MapGenerator
from gridghost.planning import evaluate_policies, solve_game
from gridghost.training import OpponentPool, TabularSelfPlay, exploitability_curve

from harness import add_progress_option, load_example, load_pyplot, provenance, save_figure

ROOT = Path(__file__).resolve().parent.parent
#: Goal minus caught in normalised units; the bar is 1% of it.
REWARD_RANGE = 1.5
BAR = 0.01 * REWARD_RANGE
LEARNERS = ("tabular", "ppo")
#: The tabular learner's settings (TabularSelfPlay's defaults, with the normalised rewards).
TABULAR = {"num_games": 512, "epsilon": 0.5, "explore_starts": 1.0, "step_exponent": 0.6, "averaging": 2.0,
           "gamma": 0.99, "rewards": "normalised"}
#: The levels of each difficulty run by default: 10..29, none of the levels 0..9 the recipes were run on.
LEVELS = tuple(range(10, 30))
#: What a run depends on: uncommitted changes to these paths make its results file say so.
SOURCES = ("gridghost", "benchmarks/selfplay_levels.py", "examples/selfplay_sb3.py", "pyproject.toml")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learner", choices=LEARNERS, default="tabular")
    parser.add_argument("--difficulties", type=int, nargs="+", choices=(2, 3), default=[2, 3])
    parser.add_argument("--levels", type=int, nargs="+", default=list(LEVELS), help="level indices, >= 0")
    parser.add_argument("--generations", type=int, default=8, help="generations per level, >= 1")
    parser.add_argument("--turns", type=int, default=2_000_000,
                        help="tabular: full turns per generation, summed over the games, >= 1")
    parser.add_argument("--steps", type=int, default=16_384, help="ppo: PPO steps per generation, >= 64")
    parser.add_argument("--explore-starts", type=float, default=0.3, help="ppo: as examples/selfplay_sb3.py")
    parser.add_argument("--seed", type=int, default=0, help="seeds everything (>= 0)")
    parser.add_argument("--out", type=Path, default=None,
                        help="results file (default benchmarks/results/selfplay.json, or selfplay_ppo.json)")
    parser.add_argument("--figure", type=Path, default=None, help="also draw the curves into this picture")
    parser.add_argument("--redraw", action="store_true", help="run nothing: draw --figure from --out")
    add_progress_option(parser)
    args = parser.parse_args(argv)
    for name, low in (("generations", 1), ("turns", 1), ("steps", 64), ("seed", 0)):
        if getattr(args, name) < low:
            parser.error(f"--{name} must be >= {low}, got {getattr(args, name)}")
    if min(args.levels) < 0:
        parser.error(f"--levels must be >= 0, got {min(args.levels)}")
    if not 0 <= args.explore_starts <= 1:
        parser.error(f"--explore-starts must lie in [0, 1], got {args.explore_starts}")
    if args.out is None:
        name = "selfplay.json" if args.learner == "tabular" else "selfplay_ppo.json"
        args.out = ROOT / "benchmarks" / "results" / name
    if args.redraw and args.figure is None:
        parser.error("--redraw draws --figure: name the picture")
    return args


def draw(results: dict[str, Any], path: Path) -> None:
    """Draw each level's exploitability by generation, one panel per difficulty, with the 1% bar."""
    pyplot = load_pyplot()
    if pyplot is None:
        raise SystemExit("--figure draws with matplotlib: pip install matplotlib")

    difficulties = sorted({entry["difficulty"] for entry in results["levels"]})
    columns = 1 + len({entry["level"] for entry in results["levels"]}) // 12  # of the legend, 12 rows at most
    size = (4.8 * len(difficulties) + 1.6 * columns, 3.6)
    figure, axes = pyplot.subplots(1, len(difficulties), figsize=size, dpi=100, sharey=True, squeeze=False)
    for axis, difficulty in zip(axes[0], difficulties, strict=True):
        for entry in results["levels"]:
            if entry["difficulty"] == difficulty:
                values = [row["exploitability"] for row in entry["generations"]]
                axis.plot(range(1, len(values) + 1), values, marker=".", linewidth=1, label=f"level {entry['level']}")
        axis.axhline(BAR, color="grey", linestyle="--", label="1% of the reward range")
        axis.set_yscale("symlog", linthresh=1e-3)
        axis.set_ylim(bottom=0)
        axis.set_xlabel("generation")
        axis.set_title(f"difficulty {difficulty}")
    axes[0][0].set_ylabel("exact exploitability (normalised)")
    axes[0][-1].legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.02, 1.0), ncols=columns)
    figure.suptitle(f"Self-play ({results['settings']['learner']}): exploitability by generation")
    save_figure(figure, path)


def tabular(layout: Layout, generations: int, turns: int, seed: int) -> list[dict[str, Any]]:
    """Both sides' greedy policies judged after each of ``generations`` rounds of ``turns`` turns.

    Returns:
        One dict per generation: ``generation``, ``learner`` (``"both"``), ``turns`` (so far),
        ``exploitability``, ``agent_gap``, ``ghost_gap``, ``success`` (the pair's) and ``seconds``.
    """
    learner = TabularSelfPlay(layout, seed=seed, **TABULAR)  # type: ignore[arg-type]
    pool = OpponentPool()
    start = (layout.agent_start, layout.ghost_start)
    rows = []
    for generation in range(1, generations + 1):
        began = time.perf_counter()
        learner.learn(turns)
        agent, ghost = learner.policy("agent"), learner.policy("ghost")
        pair = pool.add(agent, "agent", generation=generation), pool.add(ghost, "ghost", generation=generation)
        curve = exploitability_curve([pair], layout=layout, rewards="normalised")
        success = evaluate_policies(agent, ghost, layout=layout, rewards="normalised").success_probability(*start)
        rows.append(dict(generation=generation, learner="both", turns=learner.turns,
                         exploitability=float(curve.exploitability[0]), agent_gap=float(curve.agent_gap[0]),
                         ghost_gap=float(curve.ghost_gap[0]), success=float(success),
                         seconds=time.perf_counter() - began))
    return rows


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run the learner on every level, write ``--out`` and print the table.

    Returns:
        What was written: the settings and, per level, its minimax value and every generation's row.
    """
    args = parse_args(argv)
    if args.redraw:
        results = json.loads(args.out.read_text())
        draw(results, args.figure)
        return results
    settings: dict[str, Any] = {"learner": args.learner, "generations": args.generations, "seed": args.seed,
                                "rewards": "normalised", "gamma": 0.99, "reward_range": REWARD_RANGE, "bar": BAR,
                                **provenance(__file__, argv, SOURCES)}
    if args.learner == "tabular":
        settings.update(turns=args.turns, tabular=TABULAR)
        example = None
    else:
        settings.update(steps=args.steps, explore_starts=args.explore_starts, rule="recent", window=3)
        example = load_example("selfplay_sb3")  # it holds the PPO recipe
    results: dict[str, Any] = {"settings": settings, "wall_seconds": 0.0, "levels": []}
    run_began = time.perf_counter()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    print(f"{'d':>2} {'level':>5} {'v*':>7} {'final':>8} {'% range':>8} {'gens':>4} {'wall':>7}")
    bar = tqdm(total=len(args.difficulties) * len(args.levels), desc="levels", unit="level", disable=not args.progress)
    for difficulty in args.difficulties:
        for level in args.levels:
            layout = MapGenerator(6, 6, difficulty=difficulty).level(level)
            start = (layout.agent_start, layout.ghost_start)
            value = solve_game(layout=layout, rewards="normalised").value(*start)
            began = time.perf_counter()
            if example is None:
                rows = tabular(layout, args.generations, args.turns, args.seed)
            else:
                rows = example.selfplay(layout, args.generations, args.steps, args.seed, rule="recent",
                                        explore_starts=args.explore_starts)
            seconds = time.perf_counter() - began
            final = rows[-1]["exploitability"]
            best = min(row["exploitability"] for row in rows)
            results["levels"].append({"difficulty": difficulty, "level": level, "minimax_value": value,
                                      "final": final, "best": best, "seconds": seconds, "generations": rows})
            results["wall_seconds"] = time.perf_counter() - run_began
            args.out.write_text(json.dumps(results, indent=1))
            print(f"{difficulty:2d} {level:5d} {value:7.4f} {final:8.4f} {100 * final / REWARD_RANGE:7.2f}% "
                  f"{len(rows):4d} {seconds:6.1f}s", flush=True)
            bar.update()
    bar.close()
    for difficulty in args.difficulties:
        finished = [entry for entry in results["levels"] if entry["difficulty"] == difficulty]
        under = sum(entry["final"] < BAR for entry in finished)
        print(f"difficulty {difficulty}: {under} of {len(finished)} levels end under 1% of the reward range at the "
              f"final generation (exploitability < {BAR:g})")
    if args.figure is not None:
        draw(results, args.figure)
    return results


if __name__ == "__main__":
    main()
