"""The coordination-gap table of the Teams page says what the stored runs hold
(``benchmarks/results/team_gap.json``): every row's figures are recomputed here from the runs (not
with the script's code), every group of runs has its row, each row has three seeds, and every run
names the commit and command that made it."""

from __future__ import annotations

import json
import re
import statistics
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = (ROOT / "docs" / "teams.md").read_text()
STORED = json.loads((ROOT / "benchmarks" / "results" / "team_gap.json").read_text())
CELL = r"(\d\.\d{3} ± \d\.\d{3})"
ROW = re.compile(rf"^\| (\w+) \| (\w+) \| (\w+) \| {CELL} \| {CELL} \| {CELL} \| (\d\.\d{{3}}), (\d\.\d{{3}}) \| "
                 rf"({CELL[1:-1]}|-) \| ([\d,]+k|still falling|-) \| (\d) \|$")


def table() -> list[tuple[str, ...]]:
    block = PAGE.split("<!-- team-gap:", 1)[1].split("<!-- /team-gap -->", 1)[0]
    rows = []
    for line in block.splitlines()[3:]:
        if line.startswith("| "):
            match = ROW.match(line)
            assert match, f"a row is not in the table's form: {line!r}"
            rows.append(match.groups())
    return rows


def spread(values: list[float]) -> str:
    return f"{statistics.fmean(values):.3f} ± {statistics.stdev(values) if len(values) > 1 else 0.0:.3f}"


def flattened(runs: list[dict], tolerance: float, after: int) -> str:
    """Where the mean exploitability stops falling by more than ``tolerance``, with ``after``
    checkpoints after it (written out again here, not imported from the script)."""
    steps = [point["team_steps"] for point in runs[0]["curve"]]
    if len(steps) == 1:
        return "-"
    means = [statistics.fmean(run["curve"][k]["exploitability"] for run in runs) for k in range(len(steps))]
    for k in range(len(steps) - after):
        if means[k] - min(means[k:]) <= tolerance:
            return f"{steps[k] / 1e3:,.0f}k"
    return "still falling"


def test_every_row_is_recomputed_from_the_stored_runs() -> None:
    settings = STORED["settings"]
    groups: dict[tuple[str, str, str], list[dict]] = defaultdict(list)
    for run in STORED["runs"]:
        groups[(run["map"], run["learner"], run["opponent"])].append(run)
    rows = table()
    assert {row[:3] for row in rows} == set(groups), "a group of runs has no row, or a row no runs"
    for name, learner, opponent, capture, exploit, success, optimum_capture, optimum_success, within, flat, seeds \
            in rows:
        group = sorted(groups[(name, learner, opponent)], key=lambda run: run["seed"])
        assert int(seeds) == len({run["seed"] for run in group}) == len(group) == 3
        finals = [run["final"] for run in group]
        # the exploiter loop returns its least exploitable round; every other learner its last, and so
        # does the loop on the level set, whose checkpoints are scored on the held-out levels
        for run in group:
            chosen = learner == "exploiter" and name != "coord6"
            expected = min(run["curve"], key=lambda point: point["exploitability"]) if chosen else run["curve"][-1]
            assert run["final"] == expected
        assert capture == spread([final["capture"] for final in finals])
        assert exploit == spread([final["exploitability"] for final in finals])
        assert success == spread([final["best_response_success"] for final in finals])
        assert (optimum_capture, optimum_success) == (f"{group[0]['optimum']['capture']:.3f}",
                                                      f"{group[0]['optimum']['best_response_success']:.3f}")
        assert within == (spread([final["within"] for final in finals]) if name == "coord6" else "-")
        assert flat == flattened(group, settings["flat_tolerance"], settings["flat_after"])


def test_every_stored_run_names_the_commit_and_command_that_made_it() -> None:
    for run in STORED["runs"]:
        assert re.match(r"^[0-9a-f]{40}$", run["provenance"]["commit"]), run["provenance"]
        assert run["provenance"]["command"].startswith("python benchmarks/team_gap.py"), run["provenance"]
        assert run["machine"]["platform"] in ("cpu", "gpu")


def test_the_page_draws_the_curves_and_says_per_map_which_learners_close_the_gap() -> None:
    assert (ROOT / "docs" / "team_gap.png").stat().st_size > 0
    assert "![" in PAGE.split("<!-- /team-gap -->", 1)[1][:3000]
    closes = defaultdict(set)
    for run in STORED["runs"]:
        closes[run["map"], run["learner"], run["opponent"]].add(run["final"]["exploitability"] <= 0.02)
    prose = " ".join(PAGE.split())
    for name in {run["map"] for run in STORED["runs"]}:
        closed = sorted(f"{learner} ({opponent})" for (where, learner, opponent), seeds in closes.items()
                        if where == name and seeds == {True})
        sentence = f"On `{name}`, every seed within 0.02: {', '.join(closed) if closed else 'none'}."
        assert sentence in prose, sentence
