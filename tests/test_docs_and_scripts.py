"""The README, the demo and the benchmark stay true: their code runs and says what it should."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import gridghost

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def test_readme_starts_with_the_demo_and_test_commands() -> None:
    first, second = README.splitlines()[:2]
    assert first.startswith("    python3 -m venv .venv") and first.endswith("examples/demo.py")
    assert second.startswith("    python3 -m venv .venv") and second.endswith("-m pytest")
    assert '".[dev]"' in second


def test_readme_python_examples_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README, flags=re.S)
    assert len(blocks) >= 2
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})


def test_readme_picture_is_what_the_env_draws() -> None:
    picture = re.search(r"```\n(cycle 0/100.*?)\n```", README, flags=re.S).group(1)
    env = gridghost.env(render_mode="ansi")
    env.reset(seed=0)
    assert env.render() == picture


def run_script(*args: str) -> str:
    result = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_demo_plays_a_whole_game() -> None:
    out = run_script("examples/demo.py")
    assert out.count("The agent tries") >= 1 and out.count("The ghost") >= 1
    assert re.search(r"The agent (reached a goal|was caught|ran out of time) after \d+ cycles; score [+-]\d+\.$",
                     out.strip().splitlines()[-1])


def test_demo_is_reproducible_and_takes_its_options() -> None:
    assert run_script("examples/demo.py", "--seed", "8") == run_script("examples/demo.py", "--seed", "8")
    assert run_script("examples/demo.py", "--seed", "8") != run_script("examples/demo.py", "--seed", "9")
    assert "cycle 0/3" in run_script("examples/demo.py", "--max-cycles", "3")


def test_throughput_benchmark_prints_a_ratio_per_contender() -> None:
    out = run_script("benchmarks/aec_throughput.py", "--rounds", "1", "--half-steps", "300")
    for name in ("tictactoe_v3.env()", "gridghost.env()", "gridghost.raw_env()"):
        assert re.search(rf"^{re.escape(name)}\s+[\d,]+\s+\d+\.\d\dx", out, flags=re.M), name
