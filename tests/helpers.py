"""Helpers shared by the tests (imported as ``helpers``; pytest puts tests/ on the path)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import os
import re
import subprocess
import sys
from collections import Counter, deque
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from gridghost.core.layout import Layout
from gridghost.sensing.sensors import Sensor

GOLDEN = Path(__file__).parent / "golden"
ROOT = Path(__file__).resolve().parent.parent
#: A fenced block of a Markdown page: its opening fence's info string and its body.
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```\s*$", flags=re.S | re.M)
#: What may stand just above a Python block that the light test run cannot run, and must say why.
NOT_RUN = re.compile(r"<!-- not-run: (.+?) -->\n$")
#: A not-run reason naming the test that runs the block where its extra is installed.
RUN_BY = re.compile(r"\b(tests/test_\w+\.py) runs it\b")


def runs_avx512() -> bool:
    """Whether NumPy runs its AVX-512 kernels on this CPU, as on the machines that made the stored
    results (``benchmarks/results/``). Elsewhere NumPy's and XLA's vector kernels (exp, log, sums)
    round some values differently: a learning run that draws from those values can take another
    path from the first such draw, and its re-run is then another sample of nearly the same run."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__  # NumPy 2
    except ImportError:
        from numpy.core._multiarray_umath import __cpu_features__  # NumPy 1
    return bool(__cpu_features__.get("AVX512F"))


def run_script(*args: str, timeout: float = 900) -> str:
    """A script's stdout: ``python *args`` from the repository root, with this checkout's gridghost
    first on the path; the test fails with the script's stderr if it exits non-zero."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    result = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                            env=env)
    assert result.returncode == 0, result.stderr
    return result.stdout


def load_script(relative: str) -> ModuleType:
    """A script of the repository (``"benchmarks/baselines.py"``) as a module named after its file,
    loaded as ``python <relative>`` runs it: its folder is on ``sys.path`` while it loads (so
    ``from harness import ...`` resolves), and it is registered in ``sys.modules``.

    Raises:
        Whatever the script raises while it loads (a missing extra's ``SystemExit``, say).
    """
    path = ROOT / relative
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return module


def python_blocks(path: Path) -> list[tuple[int, str, str | None]]:
    """``(line, code, reason it is not run or None)`` for every ```python block of a Markdown file."""
    text = path.read_text()
    blocks = []
    for match in FENCE.finditer(text):
        if match[1].strip() == "python":
            above = NOT_RUN.search(text[: match.start()])
            blocks.append((text.count("\n", 0, match.start()) + 2, match[2], above[1] if above else None))
    return blocks


def blocks_run_by(test: str) -> list[tuple[Path, int, str]]:
    """``(page, line, code)`` of every Python block of the README and the docs whose not-run
    reason says that ``test`` (``"tests/test_x.py"``) runs it."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return [(page, line, code) for page in pages for line, code, reason in python_blocks(page)
            if reason is not None and any(found[1] == test for found in RUN_BY.finditer(reason))]


def run_block(page: Path, line: int, code: str, folder: Path, timeout: float = 600) -> str:
    """Run a page's block as it is written, as a script of its own in ``folder`` with this
    Python, and return what it printed; a failure raises with its output (the traceback names
    the page and the block's own lines). One intra-op thread for torch: the tiny networks run
    many times faster on a small shared CPU, as the training page says."""
    script = folder / f"{page.stem}_{line}.py"
    script.write_text("\n" * (line - 1) + code)  # the page's line numbers in a traceback
    result = subprocess.run([sys.executable, str(script)], cwd=folder, capture_output=True, text=True,
                            timeout=timeout, env={**os.environ, "OMP_NUM_THREADS": "1", "SDL_VIDEODRIVER": "dummy"})
    if result.returncode != 0:
        raise AssertionError(f"{page.relative_to(ROOT)}:{line} failed ({result.returncode}):\n"
                             f"{result.stdout[-3000:]}\n{result.stderr[-6000:]}")
    return result.stdout

#: The classic map's walls, written out by hand: ``(r, c)`` in HORIZONTAL_WALLS is a wall below
#: cell ``(r, c)``, in VERTICAL_WALLS a wall right of it.
HORIZONTAL_WALLS = {(0, 3), (1, 2), (1, 3), (2, 3)}
VERTICAL_WALLS = {(0, 0), (1, 2), (2, 1), (2, 2), (3, 1)}


def load_traces(name: str) -> list[dict[str, Any]]:
    """The records of one golden file."""
    with open(GOLDEN / name) as handle:
        return [json.loads(line) for line in handle]


def plain(value: Any) -> Any:
    """``value`` with NumPy arrays and scalars turned into lists and Python numbers, for
    comparison with JSON records."""
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


def record_rest(env: Any, policy_seed: int = 0) -> list[tuple[Any, ...]]:
    """Play the env from where it stands to the end with uniformly random actions for both sides;
    return what every ``last()`` showed, with the positions."""
    rng = np.random.default_rng(policy_seed)
    record = []
    for name in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        record.append((name, plain(obs), reward, termination, truncation, plain(info), env.agent_pos, env.ghost_pos))
        env.step(None if termination or truncation else int(rng.integers(4)))
    return record


def bfs_from(rows: int, cols: int, horizontal: set, vertical: set, start: tuple[int, int]) -> dict:
    """Shortest paths from ``start``, written from the wall lists alone, independent of gridghost."""

    def neighbours(r, c):
        if r > 0 and (r - 1, c) not in horizontal:
            yield r - 1, c
        if r < rows - 1 and (r, c) not in horizontal:
            yield r + 1, c
        if c > 0 and (r, c - 1) not in vertical:
            yield r, c - 1
        if c < cols - 1 and (r, c) not in vertical:
            yield r, c + 1

    dist = {start: 0}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        for nxt in neighbours(*cell):
            if nxt not in dist:
                dist[nxt] = dist[cell] + 1
                queue.append(nxt)
    return dist


def bfs_distances(rows: int, cols: int, horizontal: set, vertical: set) -> dict:
    """All-pairs shortest paths, one :func:`bfs_from` per cell."""
    return {(r, c): bfs_from(rows, cols, horizontal, vertical, (r, c)) for r in range(rows) for c in range(cols)}


class Gauge(Sensor):
    """A sensor with continuous readings (only its likelihood matters where it is used)."""

    name = "gauge"

    def __init__(self, layout: Layout) -> None:
        self.layout = layout

    def likelihood(self, measurement: float) -> np.ndarray:
        return np.full(self.layout.shape, 1.0 + measurement)


#: Readings a custom sensor may report under the colour key, by test id: ``(reading, how the
#: status panel shows it)``.
COLOUR_READINGS: dict[str, tuple[Any, str]] = {
    "float": (0.5, "0.5"),
    "str": ("x", "x"),
    "np.int64": (np.int64(2), "green"),
    "np.uint8": (np.uint8(1), "red"),
    "None": (None, "-"),
    "bool": (True, "True"),
    "int-not-a-colour": (7, "7"),
    "null": ("a\x00b", "a\\x00b"),
    "zero-width": ("\u200b", "\\u200b"),
    "surrogate": ("\ud800", "\\ud800"),
    "long-list": (list(range(100)), "[0, 1, 2, 3, 4, 5, 6, 7…"),
    "long-str": ("W" * 500, "W" * 23 + "…"),
}


class FixedReadingSensor(Sensor):
    """A custom sensor that reports the same reading, whatever it is, under the colour key."""

    name = "color_measurement"

    def __init__(self, layout: Layout, reading: Any) -> None:
        self.layout, self.reading = layout, reading

    def measure(self, state: Any, rng: Any) -> Any:
        return self.reading

    def likelihood(self, measurement: Any) -> np.ndarray:
        return np.ones((self.layout.rows, self.layout.cols))

    def possible_measurements(self) -> tuple:
        return (self.reading,)


def hashed_action(observation: Any) -> int:
    """A deterministic 'policy' that tells observations apart: a hash of the observation's bytes,
    mod 4, so that an answer read for the wrong observation shows."""
    return hashlib.sha256(np.ascontiguousarray(observation, dtype=np.float32).tobytes()).digest()[0] % 4


def hashed_actions(observations: Any) -> np.ndarray:
    """:func:`hashed_action` of each of a batch of stacked observations."""
    return np.array([hashed_action(one) for one in observations])


def chi_square_p_value(statistic: float, dof: int) -> float:
    """The chi-square upper tail by the Wilson-Hilferty normal approximation."""
    z = ((statistic / dof) ** (1 / 3) - (1 - 2 / (9 * dof))) / math.sqrt(2 / (9 * dof))
    return 0.5 * math.erfc(z / math.sqrt(2))


def goodness_of_fit(strata: list[tuple[Counter, dict]]) -> tuple[float, int, float, list]:
    """Pearson's chi-square test that each stratum's observed outcomes are draws of its exact
    distribution, summed over the strata. In each stratum the outcomes expected fewer than 5 times
    are pooled into one cell. An outcome of probability 0 that was drawn makes the p-value 0.

    Args:
        strata: per stratum, ``(counts of the observed outcomes, outcome -> probability)``.

    Returns:
        ``(statistic, degrees of freedom, p-value, the impossible outcomes drawn)``.
    """
    statistic, dof, impossible = 0.0, 0, []
    for observed, probabilities in strata:
        assert abs(sum(probabilities.values()) - 1.0) < 1e-9
        impossible += [outcome for outcome in observed if probabilities.get(outcome, 0.0) == 0.0]
        total = sum(observed.values())
        outcomes = [outcome for outcome, p in probabilities.items() if p > 0.0]
        expected = np.array([probabilities[outcome] * total for outcome in outcomes])
        counts = np.array([observed.get(outcome, 0) for outcome in outcomes], dtype=float)
        sparse = expected < 5
        if sparse.any():
            expected = np.r_[expected[~sparse], expected[sparse].sum()]
            counts = np.r_[counts[~sparse], counts[sparse].sum()]
        statistic += float(((counts - expected) ** 2 / expected).sum())
        dof += len(expected) - 1
    return statistic, dof, 0.0 if impossible else chi_square_p_value(statistic, dof), impossible
