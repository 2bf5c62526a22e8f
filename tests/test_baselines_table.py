"""The baseline tables say what the stored runs hold: the README's plateau table
(benchmarks/results/baselines_jax.json) and the Learning page's 200k-step table
(benchmarks/results/baselines.json). Every row's numbers are recomputed here from the stored runs
(not from a summary, and not with the script's own code), every group of runs has its row, and
the recipe the README shows is the one the runs used."""

from __future__ import annotations

import json
import re
import statistics
from collections import defaultdict
from pathlib import Path

from gridghost.sensing.observations import MOVE_PLANES

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
LEARNING = (ROOT / "docs" / "learning.md").read_text()
RESULTS = json.loads((ROOT / "benchmarks" / "results" / "baselines.json").read_text())
PLATEAU = json.loads((ROOT / "benchmarks" / "results" / "baselines_jax.json").read_text())
ROW = re.compile(r"^\| (\d) \| (\w+) \| ([\d.]+ ± [\d.]+) \| ([\d.]+ ± [\d.]+) \| ([\d.]+ \([\d.]+\)) \| (\d+) \|$")
PLATEAU_ROW = re.compile(r"^\| (\d) \| (\w+) \| ([\d,]+) \| ([\d.]+)M \| (-?[\d.]+ ± [\d.]+) \| (-?[\d.]+ ± [\d.]+) "
                         r"\| ([\d.]+M|still rising) \| ([\d.]+) \| ([\d.]+ \([\d.]+\)) \| (\d+) \|$")


def table_lines(text: str, marker: str) -> list[str]:
    block = text.split(f"<!-- {marker}:", 1)[1].split(f"<!-- /{marker} -->", 1)[0]
    return [line for line in block.splitlines()[1:] if line.startswith("| ") and not line.startswith("| difficulty")]


def table_rows(text: str = LEARNING, marker: str = "baselines-sb3", form: re.Pattern = ROW) -> list[tuple[str, ...]]:
    rows = []
    for line in table_lines(text, marker):
        match = form.match(line)
        assert match, f"a {marker} row is not in the table's form: {line!r}"
        rows.append(match.groups())
    return rows


def mean_and_spread(values: list[float]) -> str:
    spread = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.fmean(values):.3f} ± {spread:.3f}"


def test_every_row_of_the_short_budget_table_is_recomputed_from_the_stored_runs() -> None:
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


def flattened(steps: list[int], scores: list[float], tolerance: float, after: int) -> int | None:
    """The first checkpoint no later one beats by more than ``tolerance``, with ``after`` checkpoints after it."""
    candidates = [k for k in range(len(steps)) if len(steps) - 1 - k >= after
                  and all(later - scores[k] <= tolerance for later in scores[k:])]
    return steps[candidates[0]] if candidates else None


def test_every_row_of_the_plateau_table_is_recomputed_from_the_stored_runs() -> None:
    settings = PLATEAU["settings"]
    runs: dict[tuple[str, str, str], list[dict]] = defaultdict(list)
    for run in PLATEAU["runs"]:
        runs[(str(run["difficulty"]), run["opponent"], f"{run['train_levels']:,}")].append(run)
    rows = table_rows(README, "baselines", PLATEAU_ROW)
    assert {row[:3] for row in rows} == set(runs), "a group of runs has no row, or a row no runs"
    for difficulty, ghost, levels, steps, train, test, flat, failures, success, seeds in rows:
        group = sorted(runs[(difficulty, ghost, levels)], key=lambda run: run["seed"])
        assert int(seeds) == len({run["seed"] for run in group}) == len(group) == 3
        assert {run["steps"] for run in group} == {group[0]["steps"]} and steps == f"{group[0]['steps'] / 1e6:.2f}"
        assert train == mean_and_spread([run["train"]["score"] for run in group])
        assert test == mean_and_spread([run["test"]["score"] for run in group])
        curve_steps = [point["steps"] for point in group[0]["curve"]]
        assert all([point["steps"] for point in run["curve"]] == curve_steps for run in group)
        mean_curve = [statistics.fmean(run["curve"][k]["train"]["score"] for run in group)
                      for k in range(len(curve_steps))]
        at = flattened(curve_steps, mean_curve, settings["flat_tolerance"], settings["flat_after"])
        assert flat == ("still rising" if at is None else f"{at / 1e6:.1f}M")
        # trained to the plateau: at least 2M steps, or stopped where the curve had flattened
        assert group[0]["steps"] >= 2_000_000 or at is not None
        under = [statistics.fmean(score < settings["failure"] for score in run["test"]["level_scores"])
                 for run in group]
        assert failures == f"{statistics.fmean(under):.2f}"
        got = statistics.fmean(run["test"]["success"] for run in group)
        best = statistics.fmean(run["test"]["optimum_success"] for run in group)
        assert success == f"{got:.3f} ({best:.3f})"
        assert all(len(run["test"]["level_scores"]) == settings["test_levels"][1] for run in group)


def test_the_learning_pages_plateau_table_is_the_readmes_without_steps_and_seeds() -> None:
    readme = table_rows(README, "baselines", PLATEAU_ROW)
    page = [tuple(line.strip("| ").split(" | ")) for line in table_lines(LEARNING, "baselines-page")]
    assert page == [(*row[:3], *row[4:9]) for row in readme]
    # the two columns left out are the same in every row, and the page says what they hold
    assert {row[3] for row in readme} == {"2.00"} and {row[9] for row in readme} == {"3"}
    assert "every run trained 2,002,944 steps" in " ".join(LEARNING.split())


def test_every_stored_result_names_the_commit_and_command_that_made_it() -> None:
    hexadecimal = re.compile(r"^[0-9a-f]{40}$")
    for run in PLATEAU["runs"]:
        for origin in (run["provenance"], run["trained_by"]):
            assert hexadecimal.match(origin["commit"]), origin
            assert origin["command"].startswith("python benchmarks/baselines_jax.py"), origin
        assert run["machine"]["platform"] in ("cpu", "gpu")
    learning = json.loads((ROOT / "benchmarks" / "results" / "jax_learning.json").read_text())
    for origin, script in ((RESULTS["provenance"], "baselines.py"),
                           (learning["provenance"]["selfplay"], "jax_learning.py"),
                           (learning["provenance"]["single"], "jax_learning.py")):
        assert hexadecimal.match(origin["commit"])
        assert origin["command"].startswith(f"python benchmarks/{script}")


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
    assert f"model.learn({settings['steps']:_}, progress_bar=True)" in recipe  # it shows its progress
    assert settings["net_arch"] == [64, 64]  # MlpPolicy's default
    assert "MovePlanes" in recipe and settings["planes"] == list(MOVE_PLANES)  # the extractor's default planes
    assert (ROOT / "docs" / "baselines.png").stat().st_size > 0
    assert (ROOT / "docs" / "baselines_sb3.png").stat().st_size > 0
    plateau = PLATEAU["settings"]  # the JAX runs: the same recipe, longer
    assert plateau["env"] == {name: value for name, value in settings["env"].items() if name != "num_envs"}
    assert (plateau["ppo"]["num_envs"], plateau["ppo"]["num_steps"], plateau["ppo"]["minibatch_size"]) == \
        (settings["env"]["num_envs"], settings["ppo"]["n_steps"], settings["ppo"]["batch_size"])
    for mine, theirs in (("epochs", "n_epochs"), ("learning_rate", "learning_rate"), ("gamma", "gamma"),
                         ("gae_lambda", "gae_lambda"), ("ent_coef", "ent_coef"), ("clip", "clip_range")):
        assert plateau["ppo"][mine] == settings["ppo"][theirs], mine
    assert plateau["ppo"]["hidden"] == settings["net_arch"] and plateau["planes"] == settings["planes"]


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
    assert all(run["seconds_to_bar"] < 120 for run in selfplay)  # the JAX page's bar: two minutes
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
