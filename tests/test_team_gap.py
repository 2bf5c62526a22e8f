"""The coordination-gap script (``benchmarks/team_gap.py``) and the Ray example around its
learners (``pytest -m jax``): rows, checkpoints and scores as documented, each score the solver's."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gridghost.config import resolve
from gridghost.planning import evaluate_policies, solve_agent, solve_game

from helpers import load_script

pytestmark = pytest.mark.jax

ROOT = Path(__file__).resolve().parent.parent

try:
    gap = load_script("benchmarks/team_gap.py")
except SystemExit:  # no jax: the light run deselects these tests; collecting must not fail
    gap = None


def test_every_row_is_named_once_and_team_ring_has_no_fixed_agent_rows() -> None:
    rows = gap.all_rows()
    names = [row.name for row in rows]
    assert len(names) == len(set(names))
    assert {row.learner for row in rows} == {"chase", "ippo", "mappo", "central", "exploiter", "tabular", "ippo_grid"}
    assert {row.map for row in rows} == {"team_eight", "team_crossroads", "team_ring", "coord6"}
    # the agent's opening move can end a team_ring game: the engines train no team against a fixed agent there
    assert not [row for row in rows if row.map == "team_ring" and row.opponent in ("minimax", "pool")]
    # one table per map cannot play held-out levels
    assert not [row for row in rows if row.map == "coord6" and row.learner == "tabular"]
    # the grid observation's row is the level set's alone, and only it observes the grid
    assert [row.map for row in rows if row.learner == "ippo_grid"] == ["coord6"]
    assert {gap.obs_of(row) for row in rows} == {"vector", "grid"}
    assert [row for row in rows if gap.obs_of(row) == "grid"] == [gap.Row("ippo_grid", "minimax", "coord6")]
    assert len([row for row in rows if row.map == "team_eight"]) == 9


@pytest.mark.parametrize("arguments", [["--rows", "ippo-minimax-team_rings"], ["--updates", "12"],
                                       ["--updates", "0"], ["--generations", "0"],
                                       ["--rows", "ippo-minimax-coord6", "--updates", "16"]])
def test_bad_arguments_are_refused(arguments: list[str]) -> None:
    with pytest.raises(SystemExit):
        gap.parse(arguments)


def test_the_level_set_checkpoints_every_32_updates_and_its_exploiter_reports_its_last_round() -> None:
    # 16 updates make two checkpoints on a shipped map, and none on the level set (refused above)
    assert gap.parse(["--rows", "ippo-minimax-team_eight", "--updates", "16"]).updates == 16
    assert gap.every(gap.Row("ippo", "minimax", "coord6")) == 32 == gap.LEVEL_CHECKPOINT_UPDATES
    assert gap.every(gap.Row("exploiter", "pool", "team_eight")) == 8 == gap.CHECKPOINT_UPDATES
    # held-out levels must not choose the team: there the exploiter's figures are its last round's
    assert gap.chooses(gap.Row("exploiter", "pool", "team_eight"))
    assert not gap.chooses(gap.Row("exploiter", "pool", "coord6"))
    assert not gap.chooses(gap.Row("ippo", "minimax", "team_eight"))


def test_a_rows_flattening_is_read_off_its_mean_exploitability_curve() -> None:
    def runs(*curves: list[float]) -> list[dict]:
        return [{"curve": [{"team_steps": 1000 * (k + 1), "exploitability": value} for k, value in enumerate(curve)]}
                for curve in curves]

    assert gap.flat_step(runs([1.4, 0.5, 0.02, 0.015, 0.02, 0.01])) == "3k"
    assert gap.flat_step(runs([1.4, 1.0, 0.5, 0.2])) == "still falling"
    assert gap.flat_step(runs([0.3])) == "-"
    # the mean over seeds, not each seed's
    assert gap.flat_step(runs([1.4, 0.4, 0.4, 0.4, 0.4, 0.4], [1.4, 1.4, 0.4, 0.4, 0.4, 0.4])) == "3k"


def test_the_chasers_row_is_scored_by_the_solver(tmp_path: Path) -> None:
    out = tmp_path / "gap.json"
    gap.main(["--rows", "chase-none-team_eight", "--seeds", "0", "--out", str(out), "--figure", "none",
              "--no-progress"])
    (run,) = json.loads(out.read_text())["runs"]
    spec = resolve(layout="team_eight", ghosts=2, rewards="normalised")
    optimum = solve_game(spec=spec)
    start = optimum.start
    response = solve_agent(ghost="chase", spec=spec)
    played = evaluate_policies(optimum.agent_policy, "chase", spec=spec)
    assert run["final"]["exploitability"] == pytest.approx(response.value(*start) - optimum.value(*start), abs=1e-12)
    assert run["final"]["best_response_success"] == pytest.approx(response.success_probability(*start), abs=1e-12)
    assert run["final"]["capture"] == pytest.approx(played.capture_probability(*start), abs=1e-12)
    assert run["optimum"]["capture"] == pytest.approx(optimum.capture_probability(*start), abs=1e-12)
    assert run["provenance"]["command"].startswith("python benchmarks/team_gap.py")


@pytest.mark.slow  # trains for seconds: .ci/run's JAX job runs it (-m 'jax or results')
def test_a_learned_rows_checkpoints_are_its_team_scored_exactly(tmp_path: Path) -> None:
    out = tmp_path / "gap.json"
    gap.main(["--rows", "ippo-minimax-team_eight", "--seeds", "0", "--updates", "16", "--out", str(out),
              "--figure", "none", "--no-progress"])
    (run,) = json.loads(out.read_text())["runs"]
    assert [point["team_steps"] for point in run["curve"]] == [8 * 4096, 16 * 4096]
    assert run["final"] == run["curve"][-1]
    assert all(0.0 <= point["capture"] <= 1.0 and point["exploitability"] >= -1e-9 for point in run["curve"])


@pytest.mark.slow  # starts Ray and trains: .ci/run's JAX job runs it (-m 'jax or results')
def test_the_ray_example_runs_a_task_per_map_and_seed_as_one_process_would() -> None:
    # needs the ray extra, which .ci/run's JAX job installs
    arguments = ["--maps", "team_eight", "--seeds", "0", "1", "--rounds", "2", "--updates-per-round", "1",
                 "--envs", "4", "--steps", "8"]
    result = subprocess.run([sys.executable, "examples/ray_teams.py", *arguments], cwd=ROOT, capture_output=True,
                            text=True, timeout=900)
    assert result.returncode == 0, result.stderr
    lines = re.findall(r"^team_eight seed (\d) \(cpu\): exploitability by round ([\d., ]+); least exploitable at "
                       r"round (\d): ([\d.]+) .*$", result.stdout, flags=re.M)
    assert [line[0] for line in lines] == ["0", "1"], result.stdout
    # a task's rounds are its seed's, whichever worker ran it
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import ray_teams
    finally:
        sys.path.remove(str(ROOT / "examples"))
    alone = ray_teams.train("team_eight", 0, 2, 1, 4, 8)
    assert lines[0][1] == ", ".join(f"{value:.3f}" for _, value, _ in alone["rounds"])
    assert lines[0][3] == f"{alone['best_exploitability']:.4f}"
