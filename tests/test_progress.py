"""Progress bars and logging: every long library call draws a bar on stderr when asked
(``progress_bar=True``) and writes nothing at all otherwise; ``progress_bar`` takes a bool only;
the library prints nothing and logs through ``logging``; ``import gridghost`` does not load tqdm."""

from __future__ import annotations

import argparse
import logging
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gridghost.core.layout import Layout
from gridghost.core.progress import SweepBar, make_bar, sweep_bar, sweeps_left
from gridghost.maps import level_split
from gridghost.planning import evaluate_policies, solve_agent, solve_game, solve_ghost
from gridghost.training import Evaluator, evaluate
from gridghost.training.selfplay import OpponentPool, exploitability_curve
from gridghost.training.tabular import TabularSelfPlay

ROOT = Path(__file__).resolve().parent.parent
# Solutions are cached by game: every call below gets a map of its own, so that it really solves.
_SEEDS = iter(range(9_000, 10_000))


def fresh_map() -> Layout:
    return Layout.generate(4, 4, seed=next(_SEEDS))


def two_levels() -> Any:
    return level_split(0, "test", num_levels=2)


def chase_table(layout: Layout) -> np.ndarray:
    """The chasing ghost as probabilities: a policy the solver does not cache."""
    rows, cols = layout.shape
    table = np.zeros((rows, cols, rows, cols, 4))
    table[..., 0] = 1.0
    return table


def pool_pairs() -> list[Any]:
    pool = OpponentPool()
    pool.add("random", "agent")
    pool.add("chase", "ghost")
    return [(pool["agent-0"], pool["ghost-0"])] * 2


#: Each long call, with ``progress_bar`` given, and the words its bar starts with.
CALLS: dict[str, tuple[Callable[[Any], Any], str]] = {
    "TabularSelfPlay.learn": (lambda bar: TabularSelfPlay(fresh_map(), num_games=8, seed=0).learn(
        32, progress_bar=bar), "self-play: 100%|"),
    "evaluate": (lambda bar: evaluate("random", two_levels(), progress_bar=bar), "evaluating: 100%|"),
    "Evaluator": (lambda bar: Evaluator(two_levels(), progress_bar=bar), "solving levels: 100%|"),
    "exploitability_curve": (lambda bar: exploitability_curve(pool_pairs(), fresh_map(), progress_bar=bar),
                             "exploitability: 100%|"),
    "solve_agent": (lambda bar: solve_agent(fresh_map(), progress_bar=bar), "value iteration: 100%|"),
    "solve_agent horizon": (lambda bar: solve_agent(fresh_map(), gamma=1.0, horizon=7, progress_bar=bar),
                            "value iteration: 100%|"),
    "solve_ghost": (lambda bar: solve_ghost(fresh_map(), progress_bar=bar), "value iteration: 100%|"),
    "solve_game": (lambda bar: solve_game(fresh_map(), progress_bar=bar), "value iteration: 100%|"),
    "evaluate_policies": (lambda bar: evaluate_policies("random", chase_table(layout := fresh_map()), layout,
                                                        progress_bar=bar), "value iteration: 100%|"),
}


@pytest.mark.parametrize("name", CALLS)
def test_a_long_call_draws_a_finished_bar_on_stderr_when_asked(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    call, finished = CALLS[name]
    call(True)
    out, err = capsys.readouterr()
    assert out == ""  # the bar never touches stdout, which scripts' callers parse
    assert finished in err


@pytest.mark.parametrize("name", CALLS)
def test_a_long_call_writes_nothing_by_default(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    call, _ = CALLS[name]
    call(False)
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize("name", CALLS)
@pytest.mark.parametrize("bad", [1, 0, "yes", None, 1.0])
def test_progress_bar_takes_a_bool_only(name: str, bad: Any, capsys: pytest.CaptureFixture[str]) -> None:
    call, _ = CALLS[name]
    with pytest.raises(TypeError, match=r"progress_bar must be a bool, got"):
        call(bad)
    assert capsys.readouterr().err == ""  # refused before any bar was drawn


def test_evaluate_draws_one_bar_for_the_levels_and_one_for_the_policy(capsys: pytest.CaptureFixture[str]) -> None:
    evaluate("random", two_levels(), progress_bar=True)
    err = capsys.readouterr().err
    assert "solving levels: 100%|" in err and "evaluating: 100%|" in err
    assert "2/2" in err  # counted in levels


def test_learn_counts_the_turns_it_plays(capsys: pytest.CaptureFixture[str]) -> None:
    learner = TabularSelfPlay(fresh_map(), num_games=8, seed=0)
    learner.learn(20, progress_bar=True)  # rounded up to 3 batches of 8
    assert "24/24" in capsys.readouterr().err and learner.turns == 24


def test_a_solve_estimates_its_sweeps_and_shows_the_change(capsys: pytest.CaptureFixture[str]) -> None:
    solution = solve_agent(fresh_map(), progress_bar=True)
    err = capsys.readouterr().err
    assert f"{solution.sweeps}/{solution.sweeps}" in err  # the estimate ends at the sweeps made
    assert "tol 1e-10" in err


def test_a_cached_solution_draws_no_bar(capsys: pytest.CaptureFixture[str]) -> None:
    layout = fresh_map()
    solve_game(layout)
    capsys.readouterr()
    solve_game(layout, progress_bar=True)
    assert capsys.readouterr().err == ""


def test_sweeps_left_extrapolates_the_rate_at_which_changes_shrink() -> None:
    assert sweeps_left([1.0, 0.5, 0.25], 0.01) == 5  # 0.25 / 2**5 < 0.01 <= 0.25 / 2**4
    assert sweeps_left([1.0, 0.1], 1e-3) == 2
    assert sweeps_left([0.5], 1e-3) is None  # one change: no rate yet
    assert sweeps_left([0.5, 0.5], 1e-3) is None  # not shrinking
    assert sweeps_left([float("inf"), 0.5], 1e-3) is None
    assert sweeps_left([1.0, 1e-4], 1e-3) == 0  # already there


def test_a_sweep_bar_never_estimates_beyond_its_limit() -> None:
    class Recorder:
        total: float | None = None
        updates = 0

        def update(self, n: float = 1) -> None:
            self.updates += 1

        def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
            pass

        def close(self) -> None:
            pass

    recorder = Recorder()
    bar = SweepBar(recorder, tol=1e-300, limit=50)  # type: ignore[arg-type]
    for change in (1.0, 0.99, 0.98):  # shrinking slowly: thousands of sweeps to go
        bar.count(change)
    assert recorder.total == 50 and recorder.updates == 3


def test_the_silent_bars_are_used_as_the_real_ones(capsys: pytest.CaptureFixture[str]) -> None:
    with make_bar(False, 3, "levels") as bar:
        bar.update(3)
        bar.set_postfix_str("x")
    with sweep_bar(False, "value iteration", None, 1e-3, 10) as sweeps:
        sweeps.count(0.5)
    assert capsys.readouterr() == ("", "") and sweeps.sweeps == 1


def test_the_library_logs_through_logging_and_prints_nothing(caplog: pytest.LogCaptureFixture,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    with caplog.at_level(logging.DEBUG, logger="gridghost"):
        TabularSelfPlay(fresh_map(), num_games=8, seed=0).learn(16)
        evaluate("random", two_levels())
        exploitability_curve(pool_pairs(), fresh_map())
    assert capsys.readouterr() == ("", "")
    names = {record.name for record in caplog.records}
    assert {"gridghost.training.tabular", "gridghost.training.evaluation", "gridghost.training.selfplay"} <= names
    assert all(record.levelno == logging.DEBUG for record in caplog.records)


def test_the_package_logger_has_a_null_handler_and_nothing_else() -> None:
    handlers = logging.getLogger("gridghost").handlers
    assert [type(handler) for handler in handlers] == [logging.NullHandler]


def test_importing_gridghost_does_not_load_tqdm() -> None:
    code = "import sys, gridghost, gridghost.training, gridghost.planning; print('tqdm' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def run_script(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_an_example_draws_its_bar_by_default_and_not_with_no_progress() -> None:
    quick = ("examples/q_learning.py", "--episodes", "40", "--eval-episodes", "5")
    drawn, plain = run_script(*quick), run_script(*quick, "--no-progress")
    assert drawn.returncode == 0 and plain.returncode == 0, drawn.stderr + plain.stderr
    assert "Q-learning: 100%|" in drawn.stderr and "40/40" in drawn.stderr
    assert plain.stderr == ""
    assert drawn.stdout == plain.stdout  # the results do not depend on the bar


def test_the_benchmarks_harness_counts_the_timing_runs_and_gives_scripts_no_progress(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import harness

    contenders = {"a": lambda seed: 1.0, "b": lambda seed: 2.0}
    assert harness.interleaved_rates(contenders, 3, progress=True) == {"a": [1.0] * 3, "b": [2.0] * 3}
    err = capsys.readouterr().err
    assert "timing: 100%|" in err and "6/6" in err  # every contender once per round
    harness.interleaved_rates(contenders, 3)
    assert capsys.readouterr() == ("", "")
    parser = argparse.ArgumentParser()
    harness.add_progress_option(parser)
    assert parser.parse_args([]).progress is True and parser.parse_args(["--no-progress"]).progress is False
