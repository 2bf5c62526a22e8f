"""Baselines trained to their plateau: PPO on the JAX engine for every difficulty preset and both
ghosts, three seeds a row, at least 2M steps a run, scored exactly along the way.

The recipe is the README's (:data:`RECIPE` of ``examples/jax_selfplay.py``: 32 games, rollouts
of 128 steps, minibatches of 512, 10 epochs, entropy 0.01, the ``MovePlanes`` inputs of an
egocentric grid of radius 5, episodes cut at 100 turns, ``rewards="normalised"``), compiled with
the env into one program (:func:`gridghost.jax.ppo.make_train`); a row's seeds train side by side
(``jax.vmap``). The 200k-step stable-baselines3 table (``benchmarks/baselines.py``) is the same
recipe on a short budget.

A *group* is one difficulty, one ghost (``chase`` or ``minimax``) and one number of training
levels: levels 0..499 (``level_split(d, "train")``) for 500 or fewer, and levels 600 on for more
(2,000 and 5,000 for difficulty 3 against the chasing ghost, the count a generalisation study
varies first), so that every group is held out on the same levels 500..599
(``level_split(d, "test")``).

Every :data:`CURVE_EVERY` updates (200,704 steps) each seed's greedy policy is scored exactly
(:class:`gridghost.Evaluator`: the solver plays the policy's table; no episode is sampled) on the
first :data:`CURVE_TRAIN_LEVELS` training levels and on the 100 held-out levels; at the end on the
first :data:`FINAL_TRAIN_LEVELS` training levels, with each held-out level's score kept. The
figures of a row:

- train and held-out score at the final step, mean ± sample standard deviation over the seeds;
- the step at which the training curve flattened (:func:`harness.flattened_at`: the first checkpoint
  that no later one beats by more than :data:`FLAT_TOLERANCE`, with at least
  :data:`FLAT_AFTER` checkpoints after it), or "still rising";
- the failures: the fraction of held-out levels scoring under :data:`FAILURE` (mean over seeds);
- held-out success beside the best response's.

Outputs: ``--out`` (``benchmarks/results/baselines_jax.json``: settings, and per run the
provenance of the commands that scored and trained it (``provenance``, ``trained_by``: commit and
command), its machine, its curve, per-update training returns and final scores), the figure
``--figure`` (``docs/baselines.png``, matplotlib) and the markdown table on stdout; ``--readme``
rewrites the README's table from the stored runs, and ``--redraw`` draws the figure and the table
from ``--out`` without training. Groups run in ``--workers`` processes. A group's training state
and finished checkpoints are saved to ``--state-dir`` after every checkpoint, so an interrupted
run resumes where it stopped (``--resume`` also keeps the groups ``--out`` holds).
``--train-only DIR`` trains and writes each group's checkpoints (about 7 MB a group), and
``--trained DIR`` scores them: training is GPU work, the exact scoring CPU work.

Wall time, measured for the stored table: on one NVIDIA H100, nine groups trained at once in 156 s
(``--train-only``, nine workers); the scoring takes about 5 minutes of one CPU core a group. On
this shared 2-core CPU a group of three seeds trained in 19 minutes (the 5,000-level group: 1,127
s of training and 3 minutes building its levels).

    python benchmarks/baselines_jax.py --workers 10 --train-only trained     # on a GPU: minutes
    python benchmarks/baselines_jax.py --workers 2 --trained trained         # the exact scores, on CPUs
    python benchmarks/baselines_jax.py --redraw --readme              # figure and README from the file
    python benchmarks/baselines_jax.py --groups 2-chase-500 --seeds 0 --updates 50 --out /tmp/b.json \\
        --figure none                                                 # a smoke run on a CPU
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import replace
from multiprocessing import get_context
from pathlib import Path
from typing import Any, NamedTuple

# Each worker process shares the GPU: take memory as needed, not 75% of it up front.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import numpy as np

try:
    import jax
    import jax.numpy as jnp
except ImportError:  # pragma: no cover - the light venv
    raise SystemExit('benchmarks/baselines_jax.py needs the jax extra: pip install "gridghost[jax]"') from None

import gridghost
import gridghost.batched
from gridghost.jax import GridGhostJaxSingle
from gridghost.jax.ppo import greedy_actions, make_train
from gridghost.maps import DIFFICULTIES, SPLITS, MapGenerator, level_split
from gridghost.sensing.observations import MOVE_PLANES

from harness import (
    add_progress_option,
    flattened_at,
    load_example,
    load_pyplot,
    provenance,
    rewrite_block,
    save_figure,
)

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "benchmarks" / "results" / "baselines_jax.json"
DEFAULT_FIGURE = ROOT / "docs" / "baselines.png"
DEFAULT_STATE = ROOT / "benchmarks" / "results" / ".baselines_jax_state"
EXAMPLE = load_example("jax_selfplay")
RECIPE = EXAMPLE.RECIPE
#: The env's settings besides the levels and the ghost.
ENV_SETTINGS: dict[str, Any] = {"obs_type": "grid", "view_radius": EXAMPLE.RADIUS, "rewards": "normalised",
                                "max_episode_steps": 100}
OPPONENTS: tuple[str, ...] = ("chase", "minimax")
SEEDS: tuple[int, ...] = (0, 1, 2)
#: PPO updates a run (4,096 steps each): the first whole number of updates past 2M steps.
UPDATES = math.ceil(2_000_000 / RECIPE.batch_size)
#: Updates between two checkpoints of the learning curve: 200,704 steps, the short budget's
#: (the stable-baselines3 table's and ``examples/jax_selfplay.py --single``'s).
CURVE_EVERY = 49
#: Training levels scored at every checkpoint, and at the end.
CURVE_TRAIN_LEVELS = 100
FINAL_TRAIN_LEVELS = 500
#: A curve has flattened at a checkpoint no later one beats by more than this, with this many
#: checkpoints after it (600k steps) to show it.
FLAT_TOLERANCE = 0.02
FLAT_AFTER = 3
#: A held-out level scoring under this is a failure.
FAILURE = 0.5
#: The turns an episode lasts at most, and the horizon of the exact scores.
HORIZON = 100
#: The training tables of 5,000 6x6 maps take about 800 MiB: above the default budget.
TABLE_BYTES = 4 << 30


class Group(NamedTuple):
    """One row of the table: a difficulty, a ghost and a number of training levels."""

    difficulty: int
    opponent: str
    levels: int

    @property
    def key(self) -> str:
        """The group's name in the results file and on the command line, ``"2-chase-500"``."""
        return f"{self.difficulty}-{self.opponent}-{self.levels}"

    @classmethod
    def parse(cls, text: str) -> Group:
        """The group named ``"difficulty-opponent-levels"``.

        Raises:
            ValueError: another form, an unknown difficulty or ghost, or levels < 1.
        """
        parts = text.split("-")
        if len(parts) != 3 or not parts[0].isdigit() or not parts[2].isdigit():
            raise ValueError(f"a group is named difficulty-ghost-levels, e.g. 2-chase-500; got {text!r}")
        group = cls(int(parts[0]), parts[1], int(parts[2]))
        if group.difficulty not in DIFFICULTIES or group.opponent not in OPPONENTS or group.levels < 1:
            raise ValueError(f"group {text!r}: the difficulty must be one of {sorted(DIFFICULTIES)}, the ghost one "
                             f"of {list(OPPONENTS)} and the levels >= 1")
        return group


#: The table's rows: every preset against both ghosts, and difficulty 3 with more levels.
GROUPS: tuple[Group, ...] = (*(Group(d, o, SPLITS["train"][1]) for d in sorted(DIFFICULTIES) for o in OPPONENTS),
                             Group(3, "chase", 2000), Group(3, "chase", 5000))


def training_levels(group: Group, first: int | None = None) -> MapGenerator:
    """The group's training levels: the preset's first ``levels`` training levels, or for more than
    the split holds, ``levels`` levels from the first one after the held-out split; with
    ``first``, only the first ``first`` of them (all when the group has fewer)."""
    count = group.levels if first is None else min(first, group.levels)
    if group.levels <= SPLITS["train"][1]:
        return level_split(group.difficulty, "train", count)
    start = SPLITS["test"][0] + SPLITS["test"][1]
    return MapGenerator(difficulty=group.difficulty, start_level=start, num_levels=count)


def checkpoints(updates: int, every: int = CURVE_EVERY) -> list[int]:
    """The update counts at which the curve is scored: every ``every`` updates, and the last."""
    marks = list(range(every, updates, every))
    return [*marks, updates]


class Scorer:
    """The exact greedy scores of a group's policies on one set of levels, through one
    :class:`gridghost.Evaluator` (its solves and observations are kept between checkpoints).

    The networks' forward pass runs on the CPU, over the planes the networks read, in buckets of
    a multiple of 256 observations (few compilations), so that scores do not depend on where the
    networks were trained.
    """

    def __init__(self, group: Group, levels: MapGenerator) -> None:
        self.evaluator = gridghost.Evaluator(levels, opponent=group.opponent, obs_type="grid",
                                             view_radius=ENV_SETTINGS["view_radius"], rewards=ENV_SETTINGS["rewards"],
                                             horizon=HORIZON)
        self._cpu = jax.devices("cpu")[0]
        flat = replace(RECIPE, planes=None)  # the planes are selected before the call
        self._play = jax.jit(lambda networks, inputs: greedy_actions(networks, inputs, flat))

    def policy(self, networks: dict[str, Any]) -> Callable[[np.ndarray], np.ndarray]:
        """``networks``' greedy policy over a batch of observations, as the evaluator asks it."""
        planes = list(RECIPE.planes or ())

        def play(observations: np.ndarray) -> np.ndarray:
            inputs = observations[:, planes] if planes else observations
            size = -(-len(inputs) // 256) * 256
            padded = np.zeros((size, int(np.prod(inputs.shape[1:]))), dtype=np.float32)
            padded[:len(inputs)] = inputs.reshape(len(inputs), -1)
            with jax.default_device(self._cpu):
                actions = self._play(networks, padded)
            return np.asarray(actions)[:len(inputs)].astype(np.int64)

        return play

    def __call__(self, networks: dict[str, Any], per_level: bool = False) -> dict[str, Any]:
        """The mean score, success and best response's success (and with ``per_level`` each
        level's score), rounded to 4 decimals."""
        result = self.evaluator(self.policy(networks), batch=True)
        out: dict[str, Any] = {"score": round(float(np.mean(result.score)), 4),
                               "success": round(float(np.mean(result.success)), 4),
                               "optimum_success": round(float(np.mean(result.optimum_success)), 4),
                               "levels": len(result.levels)}
        if per_level:
            out["level_scores"] = [round(float(score), 4) for score in result.score]
        return out


def _arrays(state: Any) -> dict[str, np.ndarray]:
    """Every leaf of a state as a NumPy array (PRNG keys as their raw data), by position."""
    return {f"leaf{i}": np.asarray(jax.random.key_data(leaf) if jnp.issubdtype(leaf.dtype, jax.dtypes.prng_key)
                                   else leaf) for i, leaf in enumerate(jax.tree_util.tree_leaves(state))}


def _restore(arrays: Any, template: Any) -> Any:
    """The state shaped as ``template`` whose leaves :func:`_arrays` wrote."""
    leaves, tree = jax.tree_util.tree_flatten(template)
    restored = [jax.random.wrap_key_data(arrays[f"leaf{i}"]) if jnp.issubdtype(leaf.dtype, jax.dtypes.prng_key)
                else jnp.asarray(arrays[f"leaf{i}"], dtype=leaf.dtype) for i, leaf in enumerate(leaves)]
    return jax.tree_util.tree_unflatten(tree, restored)


def _policy_arrays(policies: Sequence[list[dict[str, np.ndarray]]]) -> dict[str, np.ndarray]:
    """The checkpoints' policy networks (each layer's arrays stacked over the seeds), by name."""
    return {f"policy{k}_{layer}_{name}": array for k, policy in enumerate(policies)
            for layer, arrays in enumerate(policy) for name, array in arrays.items()}


def _policies(arrays: Any, count: int) -> list[list[dict[str, np.ndarray]]]:
    """The ``count`` checkpoints' policy networks that :func:`_policy_arrays` named."""
    layers = 1 + max(int(name.split("_")[1]) for name in arrays.files if name.startswith("policy0_"))
    return [[{name: np.asarray(arrays[f"policy{k}_{layer}_{name}"]) for name in ("w", "b")} for layer in range(layers)]
            for k in range(count)]


def _write_npz(path: Path, record: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
    """``record`` (as JSON) and ``arrays`` in one file, replaced atomically: a run killed while
    writing leaves the previous file whole."""
    temporary = path.with_name(path.name + ".tmp.npz")
    np.savez(temporary, record=np.array(json.dumps(record)), **arrays)
    temporary.replace(path)


def train_group(group: Group, seeds: Sequence[int], updates: int, every: int, state_dir: Path | None,
                progress: bool = False, origin: dict[str, Any] | None = None) -> dict[str, Any]:
    """Train the group's seeds side by side (``jax.vmap``), keeping each checkpoint's policy
    networks; with ``state_dir``, the training state and the checkpoints so far are saved after
    every checkpoint and a saved run resumes where it stopped (the same numbers as a run never
    stopped: the state holds the keys too).

    Returns:
        ``{"record": {...}, "policies": [...]}``: the record holds the group, seeds, the steps and
        training seconds at each checkpoint, each seed's mean return of the training episodes that
        ended in each update, the setup seconds, the machine and ``origin`` (the provenance of
        the command that trained it); ``policies`` holds, per
        checkpoint, the policy network's layers stacked over the seeds.
    """
    gridghost.batched.TABLE_BYTES = max(gridghost.batched.TABLE_BYTES, TABLE_BYTES)
    start = time.perf_counter()
    env = GridGhostJaxSingle(layout=training_levels(group), opponent=group.opponent, **ENV_SETTINGS)
    init, train = make_train(env, RECIPE)
    step = jax.jit(jax.vmap(train, in_axes=(0, None)), static_argnums=1)
    state = jax.vmap(init)(jax.vmap(jax.random.key)(jnp.asarray(seeds)))
    record: dict[str, Any] = {"group": group.key, "seeds": list(seeds), "updates": 0, "steps": [], "seconds": [],
                              "returns": [[] for _ in seeds], "setup_seconds": round(time.perf_counter() - start, 1),
                              "machine": machine_record(), "trained_by": origin}
    policies: list[list[dict[str, np.ndarray]]] = []
    name = f"{group.key}-seeds-{'-'.join(map(str, seeds))}-updates-{updates}-every-{every}.npz"
    path = None if state_dir is None else state_dir / name
    if path is not None and path.exists():
        with np.load(path) as saved:
            state, record = _restore(saved, state), json.loads(str(saved["record"]))
            policies = _policies(saved, len(record["steps"]))
    seconds = record["seconds"][-1] if record["seconds"] else 0.0
    for mark in checkpoints(updates, every):
        if mark <= record["updates"]:
            continue
        tick = time.perf_counter()
        state, metrics = step(state, mark - record["updates"])
        jax.block_until_ready(state)
        seconds += time.perf_counter() - tick
        record["updates"] = mark
        record["steps"].append(mark * RECIPE.batch_size)
        record["seconds"].append(round(seconds, 1))
        for i, returns in enumerate(np.asarray(metrics["return"])):
            record["returns"][i].extend(round(float(r), 4) for r in returns)
        policies.append(jax.tree_util.tree_map(np.asarray, state.learner.networks["pi"]))
        if path is not None:
            _write_npz(path, record, {**_arrays(state), **_policy_arrays(policies)})
        if progress:
            print(f"  {group.key}: {mark * RECIPE.batch_size:,} steps, {seconds:.0f} s", flush=True)
    return {"record": record, "policies": policies}


def save_trained(path: Path, trained: dict[str, Any]) -> None:
    """Write what :func:`train_group` returned, to be scored elsewhere (:func:`load_trained`)."""
    _write_npz(path, trained["record"], _policy_arrays(trained["policies"]))


def load_trained(path: Path) -> dict[str, Any]:
    """What :func:`save_trained` wrote."""
    with np.load(path) as saved:
        record = json.loads(str(saved["record"]))
        return {"record": record, "policies": _policies(saved, len(record["steps"]))}


def score_group(group: Group, trained: dict[str, Any], progress: bool = False) -> list[dict[str, Any]]:
    """Score every checkpoint of a trained group exactly, and the last one on more levels.

    Returns:
        One record per seed: the curve (steps, training seconds, the train and held-out scores at
        every checkpoint), the mean return of the training episodes that ended in each update, and
        the final scores (``"train"``, ``"test"`` with each level's score and the failures).
    """
    record, policies = trained["record"], trained["policies"]
    scorers = {"train": Scorer(group, training_levels(group, CURVE_TRAIN_LEVELS)),
               "test": Scorer(group, level_split(group.difficulty, "test"))}
    final_train = Scorer(group, training_levels(group, FINAL_TRAIN_LEVELS))
    runs = []
    for i, seed in enumerate(record["seeds"]):
        networks = [{"pi": [{name: array[i] for name, array in layer.items()} for layer in policy]}
                    for policy in policies]
        curve = [{"steps": steps, "seconds": seconds, **{split: scorer(point) for split, scorer in scorers.items()}}
                 for steps, seconds, point in zip(record["steps"], record["seconds"], networks, strict=True)]
        test = scorers["test"](networks[-1], per_level=True)
        test["failures"] = round(sum(score < FAILURE for score in test["level_scores"]) / len(test["level_scores"]), 4)
        runs.append({"group": group.key, "difficulty": group.difficulty, "opponent": group.opponent,
                     "train_levels": group.levels, "seed": seed, "steps": record["steps"][-1],
                     "train_seconds": record["seconds"][-1], "setup_seconds": record["setup_seconds"],
                     "machine": record["machine"], "trained_by": record.get("trained_by"), "curve": curve,
                     "returns": record["returns"][i],
                     "train": final_train(networks[-1]), "test": test})
        if progress:
            print(f"  {group.key} seed {seed}: train {runs[-1]['train']['score']:.3f}, held out {test['score']:.3f}",
                  flush=True)
    return runs


def run_group(group: Group, seeds: Sequence[int], updates: int, every: int, state_dir: Path | None,
              trained_dir: Path | None, mode: str, progress: bool = False,
              origin: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """One worker's group: ``mode`` ``"both"`` trains and scores it, ``"train"`` trains it and
    writes it to ``trained_dir`` (no runs returned), ``"score"`` scores what ``trained_dir`` holds;
    ``origin`` is the training command's provenance, kept in each run as ``trained_by``."""
    path = None if trained_dir is None else trained_dir / f"{group.key}.npz"
    if mode == "score":
        assert path is not None
        return score_group(group, load_trained(path), progress)
    trained = train_group(group, seeds, updates, every, state_dir, progress, origin)
    if mode == "train":
        assert path is not None
        save_trained(path, trained)
        return []
    return score_group(group, trained, progress)


def spread(values: Sequence[float]) -> str:
    """``"mean ± sample standard deviation"`` to three decimals (0 for one value)."""
    deviation = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.fmean(values):.3f} ± {deviation:.3f}"


def groups_of(runs: Sequence[dict[str, Any]]) -> list[tuple[Group, list[dict[str, Any]]]]:
    """The runs by group, in the table's order (difficulty, ghost, levels)."""
    keys = sorted({Group(r["difficulty"], r["opponent"], r["train_levels"]) for r in runs},
                  key=lambda g: (g.difficulty, OPPONENTS.index(g.opponent), g.levels))
    return [(key, sorted((r for r in runs if r["group"] == key.key), key=lambda r: r["seed"])) for key in keys]


def flat_step(runs: Sequence[dict[str, Any]]) -> int | None:
    """Where the seeds' mean training curve flattened (:func:`flattened_at`)."""
    steps = [point["steps"] for point in runs[0]["curve"]]
    scores = [statistics.fmean(r["curve"][k]["train"]["score"] for r in runs) for k in range(len(steps))]
    return flattened_at(steps, scores, FLAT_TOLERANCE, FLAT_AFTER)


def table_rows(runs: Sequence[dict[str, Any]]) -> list[str]:
    """The README's rows (``tests/test_baselines_table.py`` recomputes them from the stored runs)."""
    rows = []
    for group, members in groups_of(runs):
        flat = flat_step(members)
        flattened = "still rising" if flat is None else f"{flat / 1e6:.1f}M"
        failures = statistics.fmean(r["test"]["failures"] for r in members)
        success = statistics.fmean(r["test"]["success"] for r in members)
        best = statistics.fmean(r["test"]["optimum_success"] for r in members)
        train, test = (spread([r[split]["score"] for r in members]) for split in ("train", "test"))
        rows.append(f"| {group.difficulty} | {group.opponent} | {group.levels:,} | {members[0]['steps'] / 1e6:.2f}M "
                    f"| {train} | {test} "
                    f"| {flattened} | {failures:.2f} | {success:.3f} ({best:.3f}) | {len(members)} |")
    return rows


TABLE_HEADER = ("| difficulty | ghost | training levels | steps | train score | held-out score | flattened at "
                "| held-out levels under 0.5 | held-out success (optimum) | seeds |\n"
                "|---|---|---|---|---|---|---|---|---|---|")
README_START, README_END = "<!-- baselines:", "<!-- /baselines -->"


def write_readme(path: Path, runs: Sequence[dict[str, Any]]) -> None:
    """Rewrite the README's table (between its markers, keeping the marker's comment) from ``runs``."""
    rewrite_block(path, README_START, README_END, [TABLE_HEADER, *table_rows(runs)])
    print(f"wrote the baseline table of {path}")


def draw(runs: Sequence[dict[str, Any]], path: Path) -> bool:
    """Draw every group's full curves (mean over seeds, held-out solid with the seeds' range,
    train dotted) into ``path`` with matplotlib; ``False`` (and a message) without it."""
    pyplot = load_pyplot()
    if pyplot is None:
        print("no figure: it is drawn with matplotlib (pip install matplotlib)")
        return False
    from matplotlib.ticker import FuncFormatter

    difficulties = sorted({r["difficulty"] for r in runs})
    # one row per difficulty, one column per ghost: panels wide enough to read on a docs page
    figure, axes = pyplot.subplots(len(difficulties), len(OPPONENTS), figsize=(7.2, 2.4 * len(difficulties)),
                                   dpi=150, sharex=True, sharey=True, squeeze=False)
    for group, members in groups_of(runs):
        axis = axes[difficulties.index(group.difficulty)][OPPONENTS.index(group.opponent)]
        colour = f"C{[500, 2000, 5000].index(group.levels) if group.levels in (500, 2000, 5000) else 3}"
        steps = np.array([p["steps"] for p in members[0]["curve"]])
        for split, style in (("test", "-"), ("train", ":")):
            scores = np.array([[p[split]["score"] for p in r["curve"]] for r in members])
            axis.plot(steps, scores.mean(axis=0), style, color=colour,
                      label=f"{group.levels:,} levels" if split == "test" else None)
            if split == "test":
                axis.fill_between(steps, scores.min(axis=0), scores.max(axis=0), alpha=0.2, color=colour)
        flat = flat_step(members)
        if flat is not None:
            axis.axvline(flat, color=colour, alpha=0.4, linewidth=0.8)
        axis.set_title(f"difficulty {group.difficulty}, {group.opponent} ghost", fontsize=9)
    for axis in axes.flat:
        axis.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x / 1e6:.1f}M"))
        axis.set_ylim(-0.05, 1.05)
        axis.grid(alpha=0.3)
        if axis.get_legend_handles_labels()[0]:
            axis.legend(loc="lower right", fontsize=8)
    for axis in axes[-1]:
        axis.set_xlabel("environment steps")
    for row in axes:
        row[0].set_ylabel("normalised score")
    figure.suptitle("PPO (JAX engine) for the agent: exact greedy score, held-out (solid, range over seeds)\n"
                    "and train (dotted); a vertical line where the training curve flattened", fontsize=9)
    save_figure(figure, path)
    return True


def settings_record(args: argparse.Namespace) -> dict[str, Any]:
    """What a run's numbers depend on, for the results file (as JSON reads it back: lists, not
    tuples, so that ``--resume`` compares like with like)."""
    ppo = {name: getattr(RECIPE, name) for name in RECIPE.__dataclass_fields__}
    return json.loads(json.dumps({"env": ENV_SETTINGS, "planes": list(MOVE_PLANES), "ppo": ppo,
            "updates": args.updates, "curve_every": args.curve_every, "horizon": HORIZON,
            "curve_train_levels": CURVE_TRAIN_LEVELS, "final_train_levels": FINAL_TRAIN_LEVELS,
            "test_levels": list(SPLITS["test"]), "flat_tolerance": FLAT_TOLERANCE, "flat_after": FLAT_AFTER,
            "failure": FAILURE}))


def machine_record() -> dict[str, Any]:
    """Where the runs trained: jax's version and device, numpy's version."""
    device = jax.devices()[0]
    return {"jax": jax.__version__, "numpy": np.__version__, "platform": device.platform,
            "device": getattr(device, "device_kind", device.platform)}


def write(path: Path, stored: dict[str, Any]) -> None:
    """Write the results file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(stored, indent=1) + "\n", encoding="utf-8")


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line, checked."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", nargs="+", default=[g.key for g in GROUPS],
                        help="groups difficulty-ghost-levels (default: the table's ten)")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(SEEDS), help="seeds (default: 0 1 2)")
    parser.add_argument("--updates", type=int, default=UPDATES, help=f"PPO updates a run (default {UPDATES})")
    parser.add_argument("--curve-every", type=int, default=CURVE_EVERY, help="updates between checkpoints")
    parser.add_argument("--workers", type=int, default=1, help="groups run at once, one process each")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="results file (JSON)")
    parser.add_argument("--figure", default=str(DEFAULT_FIGURE), help="learning-curve picture, or 'none'")
    parser.add_argument("--state-dir", default=str(DEFAULT_STATE),
                        help="where a group's training state is saved after every checkpoint, or 'none'")
    parser.add_argument("--train-only", type=Path, metavar="DIR",
                        help="train the groups and write them to DIR (one file a group), scoring nothing")
    parser.add_argument("--trained", type=Path, metavar="DIR",
                        help="score the groups --train-only wrote to DIR instead of training them")
    parser.add_argument("--resume", action="store_true", help="keep the groups --out already holds")
    parser.add_argument("--redraw", action="store_true", help="train nothing: the figure and table from --out")
    parser.add_argument("--readme", action="store_true", help="rewrite the README's table from --out")
    add_progress_option(parser)
    args = parser.parse_args(argv)
    try:
        args.groups = [Group.parse(text) for text in args.groups]
    except ValueError as error:
        parser.error(str(error))
    for name in ("groups", "seeds"):
        if len(set(getattr(args, name))) != len(getattr(args, name)):
            parser.error(f"--{name} repeats a value")
    if any(seed < 0 for seed in args.seeds):
        parser.error("--seeds must be >= 0")
    if args.train_only and args.trained:
        parser.error("--train-only and --trained exclude each other")
    if args.trained and not all((args.trained / f"{group.key}.npz").exists() for group in args.groups):
        parser.error(f"--trained {args.trained} lacks a group of --groups (it holds a file <group>.npz a group)")
    for name in ("updates", "curve_every", "workers"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run (or redraw) what the command line asks for; returns the exit code."""
    args = parse(argv)
    stored: dict[str, Any] = {}
    if (args.resume or args.redraw) and args.out.exists():
        stored = json.loads(args.out.read_text(encoding="utf-8"))
    if not args.redraw:
        settings = settings_record(args)
        if stored and stored["settings"] != settings:
            raise SystemExit(f"--resume: {args.out} was written with other settings; move it away or drop --resume")
        held = {r["group"] for r in stored.get("runs", [])}
        # the longest groups first: the most levels to build, then the minimax ghost's solves
        todo = sorted((group for group in args.groups if group.key not in held),
                      key=lambda g: (-g.levels, g.opponent != "minimax", -g.difficulty))
        state_dir = None if args.state_dir == "none" else Path(args.state_dir)
        for folder in (state_dir, args.train_only):
            if folder is not None:
                folder.mkdir(parents=True, exist_ok=True)
        mode = "train" if args.train_only else "score" if args.trained else "both"
        started = time.perf_counter()
        stored = {"settings": settings, "runs": stored.get("runs", [])}
        # each run records where it came from: a table can gather groups run at several sittings
        origin = provenance(__file__, argv)
        context = get_context("spawn")  # a forked child would inherit jax's threads
        with ProcessPoolExecutor(max_workers=min(args.workers, max(len(todo), 1)), mp_context=context) as pool:
            futures = {pool.submit(run_group, group, args.seeds, args.updates, args.curve_every, state_dir,
                                   args.train_only or args.trained, mode, args.progress, origin): group
                       for group in todo}
            for future in as_completed(futures):
                records = [{**record, "provenance": origin} for record in future.result()]
                print(f"{futures[future].key}: done ({time.perf_counter() - started:.0f} s)", flush=True)
                if mode != "train":
                    stored["runs"] = [r for r in stored["runs"] if r["group"] != futures[future].key] + records
                    write(args.out, stored)
        if mode == "train":
            return 0
    if not stored.get("runs"):
        raise SystemExit(f"{args.out} holds no runs")
    print("\n" + TABLE_HEADER + "\n" + "\n".join(table_rows(stored["runs"])))
    if args.figure != "none":
        draw(stored["runs"], Path(args.figure))
    if args.readme:
        write_readme(ROOT / "README.md", stored["runs"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
