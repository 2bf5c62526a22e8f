"""The README's baseline table says what benchmarks/results/baselines.json holds: every row's
numbers are recomputed here from the stored runs (not from the file's own summary), every group
of runs has its row, and the recipe the README shows is the one the runs used."""

from __future__ import annotations

import json
import re
import statistics
from collections import defaultdict
from pathlib import Path

from gridghost.sensing.observations import MOVE_PLANES

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
RESULTS = json.loads((ROOT / "benchmarks" / "results" / "baselines.json").read_text())
ROW = re.compile(r"^\| (\d) \| (\w+) \| ([\d.]+ ± [\d.]+) \| ([\d.]+ ± [\d.]+) \| ([\d.]+ \([\d.]+\)) \| (\d+) \|$")


def table_rows() -> list[tuple[str, ...]]:
    block = README.split("<!-- baselines:", 1)[1].split("<!-- /baselines -->", 1)[0]
    lines = [line for line in block.splitlines()[1:] if line.startswith("| ") and not line.startswith("| difficulty")]
    rows = []
    for line in lines:
        match = ROW.match(line)
        assert match, f"a README baseline row is not in the table's form: {line!r}"
        rows.append(match.groups())
    return rows


def mean_and_spread(values: list[float]) -> str:
    spread = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.fmean(values):.3f} ± {spread:.3f}"


def test_every_row_is_recomputed_from_the_stored_runs() -> None:
    runs: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for run in RESULTS["runs"]:
        runs[(str(run["difficulty"]), run["opponent"])].append(run)
    rows = table_rows()
    assert {(difficulty, ghost) for difficulty, ghost, *_ in rows} == set(runs), "a group of runs has no row"
    for difficulty, ghost, train, test, success, seeds in rows:
        group = runs[(difficulty, ghost)]
        assert train == mean_and_spread([run["train"]["score"] for run in group])
        assert test == mean_and_spread([run["test"]["score"] for run in group])
        got = statistics.fmean(run["test"]["success"] for run in group)
        best = statistics.fmean(run["test"]["optimum_success"] for run in group)
        assert success == f"{got:.3f} ({best:.3f})"
        assert int(seeds) == len({run["seed"] for run in group}) == len(group)
        assert all(run["train"]["levels"] == RESULTS["settings"]["train_levels"] for run in group)
        assert all(run["test"]["levels"] == RESULTS["settings"]["test_levels"] for run in group)


def test_the_readme_recipe_is_the_one_the_runs_used() -> None:
    settings = RESULTS["settings"]
    recipe = README.split("## Learning on generated levels", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    for name, value in settings["env"].items():
        written = f'"{value}"' if isinstance(value, str) else str(value)
        assert f"{name}={written}" in recipe, (name, value)
    for name in ("n_steps", "batch_size", "ent_coef"):
        assert f"{name}={settings['ppo'][name]}" in recipe, name
    defaults = {"n_epochs": 10, "learning_rate": 3e-4, "gamma": 0.99, "gae_lambda": 0.95, "clip_range": 0.2}
    for name, value in defaults.items():  # what the README leaves to stable-baselines3's defaults
        assert settings["ppo"][name] == value, name
    assert f"model.learn({settings['steps']:_})" in recipe
    assert settings["net_arch"] == [64, 64]  # MlpPolicy's default
    assert "MovePlanes" in recipe and settings["planes"] == list(MOVE_PLANES)  # the extractor's default planes
    assert (ROOT / "docs" / "baselines.png").stat().st_size > 0


SELFPLAY = re.compile(r"ends\s+under\s+1%\s+of\s+the\s+reward\s+range\s+on\s+(\d+)\s+of\s+(\d+)\s+levels\s+of\s+"
                      r"difficulty\s+2\s+and\s+(\d+)\s+of\s+(\d+)\s+of\s+difficulty\s+3.*?reaches\s+it\s+on\s+"
                      r"(\d+)\s+and\s+(\d+)", flags=re.S)


def test_the_readmes_self_play_figures_are_the_stored_runs() -> None:
    match = SELFPLAY.search(README)
    assert match, "the README's self-play sentence is missing or changed its form"
    figures = [int(group) for group in match.groups()]
    counted = []
    for name in ("selfplay.json", "selfplay_ppo.json"):
        stored = json.loads((ROOT / "benchmarks" / "results" / name).read_text())
        bar = 0.01 * stored["settings"]["reward_range"]
        for difficulty in (2, 3):
            levels = [level for level in stored["levels"] if level["difficulty"] == difficulty]
            assert all(level["final"] == level["generations"][-1]["exploitability"] for level in levels)
            counted.append((sum(level["final"] < bar for level in levels), len(levels)))
    (tabular2, tabular3, ppo2, ppo3) = counted
    assert figures[:4] == [*tabular2, *tabular3] and figures[4:] == [ppo2[0], ppo3[0]]
    assert tabular2[1] == tabular3[1] == 20 and ppo2[1] == ppo3[1] == 10
    # Each figure names its levels, and the run's wall time is the stored one.
    tabular, ppo = (json.loads((ROOT / "benchmarks" / "results" / name).read_text())
                    for name in ("selfplay.json", "selfplay_ppo.json"))
    assert {level["level"] for level in tabular["levels"]} == set(range(10, 30))
    assert {level["level"] for level in ppo["levels"]} == set(range(10))
    sentence = " ".join(match.group(0).split())
    assert "at its final generation, on levels 10-29" in sentence and "On levels 0-9 the PPO" in sentence, sentence
    minutes = f"{tabular['wall_seconds'] / 60:.0f} minutes of wall time"
    assert minutes in " ".join(README[max(0, match.start() - 400):match.start()].split()), minutes


def test_the_jax_pages_learning_figures_are_the_stored_runs() -> None:
    page = (ROOT / "docs" / "jax.md").read_text()
    stored = json.loads((ROOT / "benchmarks" / "results" / "jax_learning.json").read_text())
    selfplay = [stored["selfplay"][seed] for seed in sorted(stored["selfplay"])]
    reached = [run["generations"][-1] for run in selfplay]
    assert all(generation["exploitability"] < 0.015 for generation in reached)  # 1% of the range
    for run, generation in zip(selfplay, reached, strict=True):
        assert run["seconds_to_bar"] == generation["seconds"]
    assert all(run["seconds_to_bar"] < 120 for run in selfplay)  # the bar: two minutes
    generations = sorted({generation["generation"] for generation in reached})
    seconds = [f"{run['seconds_to_bar']:.1f}" for run in selfplay]
    quoted = (f"at generation {' or '.join(str(g) for g in generations)} for seeds 0, 1 and 2, after "
              f"{', '.join(seconds[:-1])} and {seconds[-1]} seconds")
    assert quoted in " ".join(page.split()), quoted
    single = [stored["single"][seed] for seed in sorted(stored["single"])]
    assert len(single) == 3 and {run["train_levels"] for run in single} == {100}
    train = mean_and_spread([run["train_score"] for run in single])
    test = mean_and_spread([run["test_score"] for run in single])
    quoted = f"scores {train} on the first 100 training levels and {test} held out"
    assert quoted in " ".join(page.split()), quoted
