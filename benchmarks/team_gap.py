"""The coordination-gap table: how far learned teams of two ghosts are from the team optimum,
scored exactly by the solver, three seeds a row.

A *row* is a learner, the agent it trains against and a map:

- learners: ``chase`` (two independent chasers, nothing learnt), the JAX team PPO of
  :mod:`gridghost.jax.team_ppo` in its modes ``ippo`` (shared parameters), ``mappo``
  (centralised critic) and ``central`` (one policy over the joint move), ``exploiter`` (IPPO in
  :class:`gridghost.training.ExploiterLoop`: every round the agent's exact best response to the
  team joins a pool that holds the minimax agent, and the team trains against a member drawn per
  episode) and ``tabular`` (:class:`gridghost.training.TabularSelfPlay` with the team as one
  minimiser), and on ``coord6`` ``ippo_grid``: IPPO whose ghosts observe the whole map
  (``obs_type="grid"``), where the other learners' ``"vector"`` observation shows no goal;
- opponents: ``minimax`` (the team solver's agent, fixed), ``selfplay`` (the agent learns too:
  its own PPO, or the tabular learner's one table) and ``pool`` (the exploiter loop's);
- maps: the shipped team maps ``team_eight``, ``team_crossroads`` and ``team_ring``, and
  ``coord6``: 500 generated 6x6 coordination levels to train on
  (``MapGenerator(6, 6, ghosts=2, coordination=True, num_levels=500)``), scored on the 100 held
  out after them (``start_level=500``). ``tabular`` learns one table per map, which cannot play a
  level it never saw, so it has no ``coord6`` row.

Every :data:`CHECKPOINT_UPDATES` updates (:data:`LEVEL_CHECKPOINT_UPDATES` on ``coord6``; a round,
for the exploiter loop; a generation, for the tabular learner) the team's greedy moves are
tabulated on every state and scored exactly from each map's start
(:class:`gridghost.training.TeamScorer`, 100 cycles, solved over the states reachable from it):

- its capture of the minimax agent;
- its exploitability: what an agent that best responds to it gains over the team game's value
  (0 for the team optimum), in normalised rewards, and that best response's success;
- on ``coord6``, the mean over the held-out levels, and the fraction of them within
  :data:`WITHIN` of their optimum.

A row's figures are the final checkpoint's (for the exploiter loop, the least exploitable team
it returns, except on ``coord6``: see :func:`chooses`), mean ± sample standard deviation over the
seeds, beside the team optimum's; the step at which the mean exploitability curve flattened
(:func:`harness.flattened_at` on its negative: the first checkpoint no later one improves on by
more than :data:`FLAT_TOLERANCE`, with at least
:data:`FLAT_AFTER` checkpoints after it).

Outputs: ``--out`` (``benchmarks/results/team_gap.json``: the settings, and per run its row,
seed, curve, final scores, the optimum's, its wall time, machine and provenance), the figure
``--figure`` (``docs/team_gap.png``) and the markdown table on stdout; ``--docs`` rewrites the
table in ``docs/teams.md`` from the stored runs, and ``--redraw`` draws figure and table from
``--out`` without training. ``--rows`` picks rows by name (``learner-opponent-map``), ``--resume``
keeps the runs ``--out`` holds and trains only the missing ones.

    python benchmarks/team_gap.py --seeds 0 1 2                       # every row: hours on a CPU
    python benchmarks/team_gap.py --redraw --docs                     # figure and docs from the file
    python benchmarks/team_gap.py --rows ippo-minimax-team_ring --seeds 0 --updates 2 \\
        --out /tmp/gap.json --figure none                             # a smoke run
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

try:
    import jax
except ImportError:  # pragma: no cover - the light venv
    raise SystemExit('benchmarks/team_gap.py needs the jax extra: pip install "gridghost[jax]"') from None

from gridghost.config import resolve
from gridghost.core.progress import make_bar
from gridghost.jax import GridGhostJax, GridGhostJaxSingle
from gridghost.jax.ppo import PPOConfig
from gridghost.jax.team_ppo import TeamPPO
from gridghost.maps import MapGenerator
from gridghost.training import ExploiterLoop, TabularSelfPlay, TeamScorer

import harness

ROOT = Path(__file__).resolve().parent.parent
#: The team and its game: two ghosts, normalised rewards (range 2), episodes cut at 100 turns.
ENV_SETTINGS: dict[str, Any] = {"ghosts": 2, "rewards": "normalised", "obs_type": "vector", "max_cycles": 100}
#: PPO's settings for every PPO row (the one-ghost recipe's network, 64-64).
RECIPE = PPOConfig(num_envs=32, num_steps=128, minibatch_size=512, ent_coef=0.01, hidden=(64, 64))
#: Updates between two exact scores (a round of the exploiter loop), and in a run; on the level set
#: (100 held-out levels to tabulate and score, about 15 s a checkpoint) every 32 updates.
CHECKPOINT_UPDATES = 8
LEVEL_CHECKPOINT_UPDATES = 32
#: Where the exploiter loop solves its best responses on the level set's 500 training levels (see
#: ExploiterLoop): over every state takes minutes a round, from each start seconds.
LEVEL_RESPONSES = "from_start"
UPDATES = 160
#: The tabular learner's turns a generation, its generations, and its games in lockstep (a team's
#: table is large: 4,096 games halve the CPU time per turn of the default 512).
TABULAR_TURNS = 10_000_000
TABULAR_GENERATIONS = 8
TABULAR_GAMES = 4096
#: The generated level set: its size, training levels, and held-out levels after them.
LEVELS = {"rows": 6, "cols": 6, "train": 500, "test": 100}
#: A level counts as solved when the team's exploitability there is at most this.
WITHIN = 0.05
FLAT_TOLERANCE = 0.01
FLAT_AFTER = 3
MAPS = ("team_eight", "team_crossroads", "team_ring", "coord6")
PPO_MODES = ("ippo", "mappo", "central")


class Row(NamedTuple):
    """One row of the table: a learner, its opponent and a map."""

    learner: str
    opponent: str
    map: str

    @property
    def name(self) -> str:
        """``learner-opponent-map``, as ``--rows`` takes it."""
        return f"{self.learner}-{self.opponent}-{self.map}"


def all_rows() -> list[Row]:
    """Every row, in the table's order: on ``team_ring`` the agent's opening move can end the game,
    so the engines train no team against a fixed agent there (no ``minimax`` or ``pool`` rows)."""
    rows = []
    for name in MAPS:
        fixed = name != "team_ring"
        rows.append(Row("chase", "none", name))
        rows.extend(Row(mode, "minimax", name) for mode in PPO_MODES if fixed)
        rows.extend(Row(mode, "selfplay", name) for mode in PPO_MODES)
        rows.extend([Row("exploiter", "pool", name)] if fixed else [])
        rows.extend([Row("tabular", "selfplay", name)] if name != "coord6" else [Row("ippo_grid", "minimax", name)])
    return rows


def spec_of(name: str, split: str = "train", obs_type: str = "vector") -> Any:
    """The game settings of a map, or of the level set's ``split`` (``"train"`` or ``"test"``), with
    the team's observations ``obs_type``."""
    settings = {**ENV_SETTINGS, "obs_type": obs_type}
    if name != "coord6":
        return resolve(layout=name, **settings)
    first, count = (0, LEVELS["train"]) if split == "train" else (LEVELS["train"], LEVELS["test"])
    levels = MapGenerator(LEVELS["rows"], LEVELS["cols"], ghosts=2, coordination=True, num_levels=count,
                          start_level=first)
    levels.levels()  # every level solved (and kept on disk) before training starts
    return resolve(layout=levels, **settings)


def obs_of(row: Row) -> str:
    """What a row's team observes: ``"grid"`` (the whole map, goals too) for ``ippo_grid``, else
    ``"vector"`` (its cell, the neighbours and the others' offsets)."""
    return "grid" if row.learner == "ippo_grid" else ENV_SETTINGS["obs_type"]


class Scores:
    """The exact scores of a run's checkpoints, on its map or on the held-out levels."""

    def __init__(self, row: Row) -> None:
        self.row = row
        self.scorer = TeamScorer(spec_of(row.map, "test"))
        # the held-out levels' observations, for a team that trained on other levels
        self.view = GridGhostJaxSingle("ghosts", opponent="random", spec=spec_of(row.map, "test", obs_of(row))) \
            if row.map == "coord6" else None

    def point(self, team_steps: int, table: Any) -> dict[str, Any]:
        """One checkpoint's scores: means over maps, and the fraction of maps within :data:`WITHIN`."""
        scores = self.scorer.scores(table, responses="none")
        return {"team_steps": int(team_steps), "exploitability": float(scores.exploitability.mean()),
                "best_response_success": float(scores.best_response_success.mean()),
                "capture": float(scores.capture.mean()),
                "within": float((scores.exploitability <= WITHIN).mean())}

    def learned(self, team_steps: int, learner: TeamPPO) -> dict[str, Any]:
        """The point of a JAX team learner (on the held-out levels' observations for ``coord6``)."""
        table = learner.team_table() if self.view is None else learner.team_table(view=self.view)
        return self.point(team_steps, table)

    def optimum(self) -> dict[str, float]:
        """The team optimum's scores (its exploitability is 0)."""
        return {"capture": float(self.scorer.optimum_capture.mean()),
                "best_response_success": float(self.scorer.optimum_success.mean())}


def ppo_env(row: Row) -> GridGhostJax | GridGhostJaxSingle:
    """The JAX view a PPO row trains on."""
    spec = spec_of(row.map, obs_type=obs_of(row))
    if row.opponent == "selfplay":
        return GridGhostJax(spec=spec)
    return GridGhostJaxSingle("ghosts", opponent="minimax", spec=spec)


def every(row: Row) -> int:
    """The updates between two of a row's checkpoints."""
    return LEVEL_CHECKPOINT_UPDATES if row.map == "coord6" else CHECKPOINT_UPDATES


def train_ppo(row: Row, seed: int, updates: int, scores: Scores, tick: Callable[[], None]) -> list[dict[str, Any]]:
    """A PPO row's curve: ``updates`` updates, scored every :func:`every` updates."""
    mode = "ippo" if row.learner in ("exploiter", "ippo_grid") else row.learner
    learner = TeamPPO(ppo_env(row), RECIPE, mode, seed=seed)
    curve = []
    if row.learner == "exploiter":
        loop = ExploiterLoop(learner.env, learner, rounds=updates // every(row), updates_per_round=every(row),
                             responses=LEVEL_RESPONSES if row.map == "coord6" else "every_state")
        for _ in range(loop.rounds):
            scored = loop.step()  # on the maps it trains on: the held-out levels are scored apart
            curve.append(scores.learned(learner.team_steps, learner) if scores.view is not None else
                         {"team_steps": scored.team_steps, "exploitability": scored.exploitability,
                          "best_response_success": scored.best_response_success,
                          "capture": scored.minimax_capture, "within": scored.fraction_within(WITHIN)})
            tick()
        return curve
    for _ in range(updates // every(row)):
        learner.learn(every(row))
        curve.append(scores.learned(learner.team_steps, learner))
        tick()
    return curve


def train_tabular(row: Row, seed: int, generations: int, scores: Scores,
                  tick: Callable[[], None]) -> list[dict[str, Any]]:
    """The tabular learner's curve: ``generations`` of :data:`TABULAR_TURNS` turns."""
    spec = spec_of(row.map)
    learner = TabularSelfPlay(spec.layout, ghosts=2, num_games=TABULAR_GAMES, rewards=ENV_SETTINGS["rewards"],
                              seed=seed)
    curve = []
    for _ in range(generations):
        learner.learn(TABULAR_TURNS)
        curve.append(scores.point(learner.turns, [learner.policy("ghosts")]))
        tick()
    return curve


def chooses(row: Row) -> bool:
    """Whether a row's figures are its least exploitable checkpoint's (the exploiter loop's returned
    team) rather than its last: not on ``coord6``, whose checkpoints are scored on the held-out
    levels, which must not choose the team."""
    return row.learner == "exploiter" and row.map != "coord6"


def run(row: Row, seed: int, args: argparse.Namespace) -> dict[str, Any]:
    """Train and score one seed of one row."""
    began = time.perf_counter()
    scores = Scores(row)
    checkpoints = 1 if row.learner == "chase" else \
        args.generations if row.learner == "tabular" else args.updates // every(row)
    with make_bar(args.progress, checkpoints, f"{row.name} seed {seed}", unit="checkpoint") as bar:
        if row.learner == "chase":
            curve = [scores.point(0, "chase")]
        elif row.learner == "tabular":
            curve = train_tabular(row, seed, args.generations, scores, bar.update)
        else:
            curve = train_ppo(row, seed, args.updates, scores, bar.update)
    final = min(curve, key=lambda point: point["exploitability"]) if chooses(row) else curve[-1]
    budget = {} if row.learner == "chase" else \
        {"generations": args.generations, "turns": TABULAR_TURNS, "games": TABULAR_GAMES} \
        if row.learner == "tabular" else {"updates": args.updates}
    return {"row": row.name, "learner": row.learner, "opponent": row.opponent, "map": row.map, "seed": seed,
            "budget": budget, "curve": curve, "final": final, "optimum": scores.optimum(),
            "seconds": time.perf_counter() - began, "machine": machine_record(),
            "provenance": harness.provenance(__file__)}


# -- the table and the figure ------------------------------------------------------------------
def spread(values: Sequence[float]) -> str:
    """Mean ± sample standard deviation, to 3 decimals."""
    deviation = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.fmean(values):.3f} ± {deviation:.3f}"


def mean_curve(runs: Sequence[dict[str, Any]]) -> tuple[list[int], list[float]]:
    """A row's team steps (the first seed's) and mean exploitability at each checkpoint."""
    steps = [point["team_steps"] for point in runs[0]["curve"]]
    means = [statistics.fmean(run["curve"][k]["exploitability"] for run in runs) for k in range(len(steps))]
    return steps, means


def flat_step(runs: Sequence[dict[str, Any]]) -> str:
    """Where a row's mean exploitability curve flattened, as the table shows it."""
    steps, means = mean_curve(runs)
    if len(steps) == 1:
        return "-"
    at = harness.flattened_at(steps, [-value for value in means], FLAT_TOLERANCE, FLAT_AFTER)
    return "still falling" if at is None else f"{at / 1e3:,.0f}k"


def grouped(runs: Sequence[dict[str, Any]]) -> list[tuple[Row, list[dict[str, Any]]]]:
    """The stored runs by row, in the table's order, each row's by seed."""
    by_row: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for stored in runs:
        by_row[stored["row"]].append(stored)
    return [(row, sorted(by_row[row.name], key=lambda stored: stored["seed"])) for row in all_rows()
            if row.name in by_row]


TABLE_HEAD = ["| map | learner | opponent | capture of minimax | exploitability | best response success | "
              "optimum: capture, best response success | held-out levels within 0.05 | flattened at | seeds |",
              "|---|---|---|---|---|---|---|---|---|---|"]


def table_rows(runs: Sequence[dict[str, Any]]) -> list[str]:
    """The markdown table's lines (head included)."""
    lines = list(TABLE_HEAD)
    for row, group in grouped(runs):
        finals = [stored["final"] for stored in group]
        optimum = group[0]["optimum"]
        within = spread([final["within"] for final in finals]) if row.map == "coord6" else "-"
        lines.append(f"| {row.map} | {row.learner} | {row.opponent} | {spread([f['capture'] for f in finals])} | "
                     f"{spread([f['exploitability'] for f in finals])} | "
                     f"{spread([f['best_response_success'] for f in finals])} | "
                     f"{optimum['capture']:.3f}, {optimum['best_response_success']:.3f} | {within} | "
                     f"{flat_step(group)} | {len(group)} |")
    return lines


def draw(runs: Sequence[dict[str, Any]], path: Path) -> bool:
    """The mean exploitability curves, a panel per map that has runs; False where matplotlib is
    missing."""
    pyplot = harness.load_pyplot()
    if pyplot is None:
        return False
    maps = [name for name in MAPS if any(stored["map"] == name for stored in runs)]
    figure, axes = pyplot.subplots(1, len(maps), figsize=(4.4 * len(maps), 3.8), sharey=True, squeeze=False)
    axes = axes[0]
    # a colour per learner, a dashed line where the agent learns too
    colours = {learner: f"C{index}" for index, learner in enumerate((*PPO_MODES, "exploiter", "tabular", "ippo_grid"))}
    for axis, name in zip(axes, maps, strict=True):
        for row, group in grouped(runs):
            if row.map == name and row.learner != "chase":
                steps, means = mean_curve(group)
                axis.plot(np.array(steps) / 1e3, means, label=f"{row.learner} ({row.opponent})",
                          color=colours[row.learner], linestyle="--" if row.opponent == "selfplay" else "-",
                          linewidth=2.0 if row.learner in ("exploiter", "tabular") else 1.2)
        axis.set_title(name)
        axis.set_xlabel("team steps (thousands)")
        axis.set_xscale("log")  # the tabular learner's millions of turns beside PPO's thousands
        axis.axhline(0.0, color="black", linewidth=0.5)
        if axis.get_lines()[:-1]:  # a learner's curve besides the zero line
            axis.legend(fontsize=7)
    axes[0].set_ylabel("exploitability")
    harness.save_figure(figure, path)
    return True


# -- the command -----------------------------------------------------------------------------------
def machine_record() -> dict[str, Any]:
    """Where a run trained: jax's version and device, numpy's version."""
    device = jax.devices()[0]
    return {"jax": jax.__version__, "numpy": np.__version__, "platform": device.platform,
            "device": getattr(device, "device_kind", device.platform)}


def settings_record(args: argparse.Namespace) -> dict[str, Any]:
    """What every run's numbers depend on (as JSON reads it back); a run's own budget (its updates,
    or the tabular learner's generations) is in its record."""
    ppo = {name: getattr(RECIPE, name) for name in RECIPE.__dataclass_fields__}
    return json.loads(json.dumps({
        "env": ENV_SETTINGS, "ppo": ppo, "checkpoint_updates": CHECKPOINT_UPDATES,
        "level_checkpoint_updates": LEVEL_CHECKPOINT_UPDATES, "level_responses": LEVEL_RESPONSES, "levels": LEVELS,
        "within": WITHIN, "flat_tolerance": FLAT_TOLERANCE, "flat_after": FLAT_AFTER}))


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line, checked."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", nargs="+", help="rows by name, learner-opponent-map (default: all)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--updates", type=int, default=UPDATES, help="PPO updates a run (a multiple of "
                        f"{CHECKPOINT_UPDATES})")
    parser.add_argument("--generations", type=int, default=TABULAR_GENERATIONS, help="the tabular learner's")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "team_gap.json")
    parser.add_argument("--figure", default=str(ROOT / "docs" / "team_gap.png"), help="a path, or none")
    parser.add_argument("--docs", action="store_true", help="rewrite docs/teams.md's table from --out")
    parser.add_argument("--redraw", action="store_true", help="draw the figure and the table from --out only")
    parser.add_argument("--resume", action="store_true", help="keep --out's runs and train the missing ones")
    harness.add_progress_option(parser)
    args = parser.parse_args(argv)
    names = {row.name for row in all_rows()}
    unknown = sorted(set(args.rows or ()) - names)
    if unknown:
        parser.error(f"--rows: unknown {unknown}; the rows are {sorted(names)}")
    step = LEVEL_CHECKPOINT_UPDATES if any(name.endswith("-coord6") for name in args.rows or names) \
        else CHECKPOINT_UPDATES
    if args.updates < step or args.updates % step:
        parser.error(f"--updates must be a positive multiple of {step} (the checkpoints' spacing of the rows "
                     f"asked for), got {args.updates}")
    if args.generations < 1:
        parser.error(f"--generations must be >= 1, got {args.generations}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Train the rows asked for, store them, and print the table."""
    args = parse(argv)
    stored: dict[str, Any] = {"settings": settings_record(args), "runs": []}
    if args.redraw or args.resume:
        stored = json.loads(args.out.read_text())
    if not args.redraw:
        if args.resume and stored["settings"] != settings_record(args):
            raise SystemExit(f"--resume: {args.out} holds runs of other settings")
        done = {(run["row"], run["seed"]) for run in stored["runs"]}
        rows = [row for row in all_rows() if args.rows is None or row.name in args.rows]
        for row in rows:
            for seed in args.seeds:
                if (row.name, seed) not in done:
                    stored["runs"].append(run(row, seed, args))
                    args.out.parent.mkdir(parents=True, exist_ok=True)
                    args.out.write_text(json.dumps(stored, indent=1) + "\n", encoding="utf-8")
    lines = table_rows(stored["runs"])
    print("\n".join(lines))
    if args.figure != "none":
        draw(stored["runs"], Path(args.figure))
    if args.docs:
        harness.rewrite_block(ROOT / "docs" / "teams.md", "<!-- team-gap:", "<!-- /team-gap -->", lines[2:], keep=3)
    return 0


if __name__ == "__main__":
    sys.exit(main())
