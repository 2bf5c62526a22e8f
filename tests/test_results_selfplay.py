"""The stored tabular self-play run (``benchmarks/results/selfplay.json``) is what its recorded
command gives: its cheapest level is re-run from the recorded settings and every generation's
exact judgement matches the stored one (``pytest -m results``; about half a minute)."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import shlex
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
STORED = ROOT / "benchmarks" / "results" / "selfplay.json"
#: What a generation's row holds besides its wall time, which no re-run repeats.
JUDGED = ("generation", "learner", "turns", "exploitability", "agent_gap", "ghost_gap", "success")


def benchmark() -> ModuleType:
    spec = importlib.util.spec_from_file_location("selfplay_levels", ROOT / "benchmarks" / "selfplay_levels.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def recorded_arguments(command: str) -> list[str]:
    """The arguments of the recorded command line, after ``python benchmarks/selfplay_levels.py``."""
    words = shlex.split(command)
    assert words[:2] == ["python", "benchmarks/selfplay_levels.py"], command
    return words[2:]


def test_the_stored_run_records_its_commit_and_command() -> None:
    settings = json.loads(STORED.read_text())["settings"]
    assert len(settings["commit"]) == 40 and settings["dirty"] is False and settings["uncommitted"] == []
    arguments = benchmark().parse_args(recorded_arguments(settings["command"]))
    assert (arguments.learner, arguments.generations, arguments.seed) == ("tabular", settings["generations"],
                                                                           settings["seed"])
    assert arguments.turns == settings["turns"]


@pytest.mark.results
def test_the_cheapest_stored_level_is_what_its_recorded_command_gives(tmp_path: Path) -> None:
    stored = json.loads(STORED.read_text())
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
    assert level["minimax_value"] == entry["minimax_value"]
    # The learner is seeded NumPy and the judge the exact solver: on one machine the re-run is
    # bit-for-bit the stored one; another CPU's vector kernels (exp, log1p, sums) may move the last
    # bit, which no policy change could do (a different policy moves the exploitability by far more).
    for again, then in zip(level["generations"], entry["generations"], strict=True):
        assert [again[key] for key in JUDGED] == pytest.approx([then[key] for key in JUDGED], rel=0, abs=1e-12)
    assert level["final"] == pytest.approx(entry["final"], rel=0, abs=1e-12)
    assert len(level["generations"]) == settings["generations"]
