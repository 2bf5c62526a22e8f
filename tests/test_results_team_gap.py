"""The stored coordination-gap runs are reproducible from the committed code: the first checkpoint
of one PPO row is re-trained and re-scored and matched (``pytest -m results``; ``.ci/run`` runs it
in the JAX job's environment)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from helpers import load_script

pytestmark = pytest.mark.results

ROOT = Path(__file__).resolve().parent.parent


def test_the_first_checkpoint_of_ippo_against_the_minimax_agent_is_re_made() -> None:
    pytest.importorskip("jax")
    gap = load_script("benchmarks/team_gap.py")
    stored = json.loads((ROOT / "benchmarks" / "results" / "team_gap.json").read_text())
    (run,) = [run for run in stored["runs"] if run["row"] == "ippo-minimax-team_eight" and run["seed"] == 0]
    command = shlex.split(run["provenance"]["command"])
    assert command[:2] == ["python", "benchmarks/team_gap.py"]
    args = gap.parse(command[2:])  # the recorded command's settings
    assert gap.settings_record(args) == stored["settings"] and run["budget"] == {"updates": args.updates}
    row = gap.Row("ippo", "minimax", "team_eight")
    scores = gap.Scores(row)
    curve = gap.train_ppo(row, 0, gap.CHECKPOINT_UPDATES, scores, lambda: None)
    (point,) = curve
    first = run["curve"][0]
    assert point["team_steps"] == first["team_steps"]
    # the same jax build plays the same games and learns the same networks: the same greedy team
    same_build = run["machine"]["jax"] == gap.machine_record()["jax"]
    bound = 1e-9 if same_build else 0.05
    for name in ("exploitability", "best_response_success", "capture"):
        assert point[name] == pytest.approx(first[name], abs=bound), name
