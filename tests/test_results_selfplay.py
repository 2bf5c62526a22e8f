"""The stored tabular self-play runs (``benchmarks/results/selfplay.json``, seed 0, and
``selfplay_seed1.json``, seed 1) are what their recorded commands give: each file's cheapest level
is re-run from its recorded command and every generation's exact judgement matches the stored one
(``pytest -m results``; about 20 s of wall time a file here)."""

from __future__ import annotations

import contextlib
import io
import json
import shlex
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from helpers import load_script, runs_avx512

ROOT = Path(__file__).resolve().parent.parent
STORED = [ROOT / "benchmarks" / "results" / name for name in ("selfplay.json", "selfplay_seed1.json")]
#: What a generation's row holds besides its wall time, which no re-run repeats: its count and the judgement.
COUNTED = ("generation", "learner", "turns")
JUDGED = ("exploitability", "agent_gap", "ghost_gap", "success")


def benchmark() -> ModuleType:
    return load_script("benchmarks/selfplay_levels.py")


def recorded_arguments(command: str) -> list[str]:
    """The arguments of the recorded command line, after ``python benchmarks/selfplay_levels.py``."""
    words = shlex.split(command)
    assert words[:2] == ["python", "benchmarks/selfplay_levels.py"], command
    return words[2:]


@pytest.mark.parametrize("stored", STORED, ids=lambda path: path.name)
def test_the_stored_run_records_its_commit_and_command(stored: Path) -> None:
    settings = json.loads(stored.read_text())["settings"]
    assert len(settings["commit"]) == 40 and settings["dirty"] is False and settings["uncommitted"] == []
    arguments = benchmark().parse_args(recorded_arguments(settings["command"]))
    assert (arguments.learner, arguments.generations, arguments.seed) == ("tabular", settings["generations"],
                                                                           settings["seed"])
    assert arguments.turns == settings["turns"]


@pytest.mark.results
@pytest.mark.parametrize("path", STORED, ids=lambda path: path.name)
def test_the_cheapest_stored_level_is_what_its_recorded_command_gives(path: Path, tmp_path: Path) -> None:
    stored = json.loads(path.read_text())
    settings = stored["settings"]
    module = benchmark()
    assert settings["tabular"] == module.TABULAR, "the learner's settings changed since the stored run"
    entry: dict[str, Any] = min(stored["levels"], key=lambda level: level["seconds"])
    # The recorded command, narrowed to that one level, its output redirected.
    arguments = recorded_arguments(settings["command"])
    arguments += ["--difficulties", str(entry["difficulty"]), "--levels", str(entry["level"]),
                  "--out", str(tmp_path / "selfplay.json"), "--no-progress"]
    with contextlib.redirect_stdout(io.StringIO()):
        rerun = module.main(arguments)
    (level,) = rerun["levels"]
    assert (level["difficulty"], level["level"]) == (entry["difficulty"], entry["level"])
    # The game's value is the exact solver's, stopped within its tolerance of the fixed point: a
    # solver that stops nearer it (its slow tail solved as a linear system) moves the value in the
    # last digits, far inside what could tell one level or policy from another.
    assert level["minimax_value"] == pytest.approx(entry["minimax_value"], rel=0, abs=1e-9)
    # The learner is seeded NumPy and the judge the exact solver: on a CPU with the stored run's
    # AVX-512 kernels the re-run is the stored one to the last bit (1e-12: a policy change would
    # move the exploitability by far more). On another CPU NumPy's vector kernels (exp, log1p,
    # sums) round differently, the learner takes another path from its first differing draw (on an
    # AVX2 machine: 0.003 off in the first generation, 0.19 in the last), and only what does not
    # hang on those draws is compared: the counts, and judgements that are judgements at all.
    for again, then in zip(level["generations"], entry["generations"], strict=True):
        assert [again[key] for key in COUNTED] == [then[key] for key in COUNTED]
        if runs_avx512():
            assert [again[key] for key in JUDGED] == pytest.approx([then[key] for key in JUDGED], rel=0, abs=1e-12)
        else:
            assert again["exploitability"] >= -1e-9 and 0.0 <= again["success"] <= 1.0
    if runs_avx512():
        assert level["final"] == pytest.approx(entry["final"], rel=0, abs=1e-12)
    assert len(level["generations"]) == settings["generations"]


def test_the_self_play_page_quotes_the_stored_run_level_by_level() -> None:
    """Every final value and wall time in the Self-play page's table of the held-out levels, its
    count under the bar and the run's wall time are the stored run's (seed 0)."""
    stored = json.loads(STORED[0].read_text())
    page = (ROOT / "docs" / "selfplay.md").read_text()
    section = page[page.index("### Forty held-out levels"):]
    bar, scale = stored["settings"]["bar"], 100 / stored["settings"]["reward_range"]
    by_level = {(entry["difficulty"], entry["level"]): entry for entry in stored["levels"]}
    for level in range(10, 30):
        cells = []
        for difficulty in (2, 3):
            entry = by_level[difficulty, level]
            cells += [f"{abs(scale * entry['final']):.2f}%" if abs(entry["final"]) < 1e-6 else
                      f"{scale * entry['final']:.2f}%", f"{entry['seconds']:.1f} s"]
        row = f"| {level} | " + " | ".join(cells) + " |"
        assert row in section, row
    under = [sum(entry["final"] < bar for entry in stored["levels"] if entry["difficulty"] == difficulty)
             for difficulty in (2, 3)]
    assert f"| under 1% | {under[0]} of 20 | | {under[1]} of 20 | |" in section
    assert f"The run took {stored['wall_seconds'] / 60:.1f} minutes of wall time" in section


@pytest.mark.results
def test_the_ppo_pools_first_generation_is_what_its_recorded_command_gives(tmp_path: Path) -> None:
    """The PPO pool run (selfplay_ppo.json, levels 0-9, recorded after the run) is re-made from its
    recorded command: the cheapest level's first generation (one PPO learner, 16,384 steps; about
    30 s here), judged exactly, is the stored one."""
    pytest.importorskip("stable_baselines3")
    path = ROOT / "benchmarks" / "results" / "selfplay_ppo.json"
    stored = json.loads(path.read_text())
    settings = stored["settings"]
    assert len(settings["commit"]) == 40
    entry: dict[str, Any] = min(stored["levels"], key=lambda level: level["seconds"])
    arguments = [*recorded_arguments(settings["command"]), "--difficulties", str(entry["difficulty"]),
                 "--levels", str(entry["level"]), "--generations", "1", "--out", str(tmp_path / "selfplay_ppo.json"),
                 "--no-progress"]
    with contextlib.redirect_stdout(io.StringIO()):
        rerun = benchmark().main(arguments)
    (level,) = rerun["levels"]
    (again,) = level["generations"]
    then = entry["generations"][0]
    assert [again[key] for key in COUNTED if key in then] == [then[key] for key in COUNTED if key in then]
    # torch on one CPU thread and the exact solver: bit-for-bit on one machine; the last bit may
    # move on another CPU's kernels
    assert [again[key] for key in (*JUDGED, "win_rate")] == pytest.approx(
        [then[key] for key in (*JUDGED, "win_rate")], rel=0, abs=1e-12)
