"""examples/team_ppo.py: two ghosts learn with independent PPO and shared parameters (SuperSuit,
Stable-Baselines3 over ``gridghost.parallel_env(controlled="ghosts")``) against the minimax
agent, scored exactly by the team solver; it takes ``--no-progress`` as every example does."""

from __future__ import annotations

import contextlib
import io
import re

import pytest

from gridghost.config import resolve
from gridghost.planning import solve_agent, solve_game

from helpers import load_script

pytestmark = pytest.mark.integration

LINE = re.compile(r"^team steps\s+([\d,]+): capture (\d\.\d{3}), agent success (\d\.\d{3}); exploitability "
                  r"(-?\d+\.\d{4}) \(best response success (\d\.\d{3})\); \d+ s$")


def _run(*argv: str) -> list[str]:
    example = load_script("examples/team_ppo.py")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        example.main(list(argv))
    return out.getvalue().splitlines()


def test_two_ghosts_train_and_are_scored_exactly_and_reproducibly() -> None:
    lines = _run("--team-steps", "2048", "--eval-every", "1024", "--envs", "2", "--seed", "3")
    spec = resolve(layout="team_eight", ghosts=2, rewards="normalised")
    optimum, chasers = solve_game(spec=spec), solve_agent(ghost="chase", spec=spec)
    start = optimum.start
    success, capture = optimum.success_probability(*start), optimum.capture_probability(*start)
    chased = chasers.success_probability(*start)
    assert lines[0] == (f"team_eight: the team optimum holds the minimax agent to success {success:.3f} (capture "
                        f"{capture:.3f}); two chasers leave its best response {chased:.3f}; "
                        f"team game value {optimum.value(*start):.4f}")
    scores = [LINE.match(line) for line in lines[1:]]
    assert all(scores) and len(scores) >= 3, lines
    steps = [int(match[1].replace(",", "")) for match in scores]
    assert steps[0] >= 1024 and steps[-1] >= 2048 and steps == sorted(steps)
    for match in scores:
        capture, success, exploitability, best = (float(match[i]) for i in (2, 3, 4, 5))
        assert capture + success <= 1.0 + 1e-9
        assert 0.0 <= exploitability <= 1.5  # 0 for the team optimum; a team that ignores the agent gives 1.41
        assert best >= optimum.success_probability(*start) - 1e-9  # no team holds a best response below the optimum
    # The same seed, the same scores, with or without the progress bar (on stderr).
    again = _run("--team-steps", "2048", "--eval-every", "1024", "--envs", "2", "--seed", "3", "--no-progress")
    assert [re.sub(r"; \d+ s$", "", line) for line in again] == [re.sub(r"; \d+ s$", "", line) for line in lines]
