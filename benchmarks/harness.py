"""Timing helpers shared by the benchmark scripts (imported as ``harness``: a script's folder is
on ``sys.path`` when it runs).

Machines here are shared and noisy, so every benchmark runs its contenders interleaved, round
after round, times them in process CPU time (time spent descheduled does not count), and reports
the median over rounds of each contender's rate divided by the same round's baseline rate.

Every script draws progress bars on stderr (its stdout, the results, stays as it was) unless
given ``--no-progress`` (:func:`add_progress_option`).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import shlex
import statistics
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from tqdm import tqdm


def add_progress_option(parser: argparse.ArgumentParser) -> None:
    """Give a script ``--no-progress``, which sets ``args.progress`` to False (True by default)."""
    parser.add_argument("--no-progress", dest="progress", action="store_false",
                        help="draw no progress bars (they go to stderr, the results to stdout)")


def load_pyplot() -> ModuleType | None:
    """matplotlib's ``pyplot`` drawing to files only (the Agg backend), or ``None`` where
    matplotlib is not installed (gridghost does not depend on it)."""
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    from matplotlib import pyplot

    return pyplot


def save_figure(figure: Any, path: Path) -> None:
    """Lay ``figure`` (a matplotlib figure) out, write it to ``path`` (making its folder), close it
    and say so."""
    from matplotlib import pyplot  # a figure exists, so matplotlib does

    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path)
    pyplot.close(figure)
    print(f"wrote {path}")


def load_example(name: str) -> ModuleType:
    """``examples/<name>.py`` as a module, so that a benchmark runs the example's own code.

    Raises:
        FileNotFoundError: no such example.
    """
    path = Path(__file__).resolve().parent.parent / "examples" / f"{name}.py"
    if not path.exists():
        raise FileNotFoundError(f"no example {path}")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)  # a worker process unpickles what it defines by this name
    spec.loader.exec_module(module)
    return module


def rewrite_block(path: Path, start: str, end: str, lines: Sequence[str], keep: int = 1) -> None:
    """Replace what lies between the markers ``start`` (the opening of an HTML comment, kept with
    the rest of its line) and ``end`` in the text file ``path`` by its first ``keep`` lines (the
    marker's line, and a table's header and separator where ``keep`` is 3) and ``lines``.

    Raises:
        ValueError: ``path`` lacks either marker.
    """
    text = path.read_text(encoding="utf-8")
    if start not in text or end not in text.split(start, 1)[1]:
        raise ValueError(f"{path} has no block between {start!r} and {end!r}")
    head, rest = text.split(start, 1)
    block, tail = rest.split(end, 1)
    kept = block.split("\n")[:keep]
    path.write_text(head + start + "\n".join([*kept, *lines]) + "\n" + end + tail, encoding="utf-8")


def provenance(script: str | Path, argv: Sequence[str] | None = None,
               sources: Sequence[str] | None = None) -> dict[str, Any]:
    """What a stored result needs to be re-made: the commit of the checkout that ran it, whether
    the code differed from it, the exact command line and the Python version.

    Args:
        script: the script that ran (its ``__file__``): the command names it from the repository
            root, so that the command is right however the script was started (also when a test
            calls its ``main``).
        argv: its arguments (default ``sys.argv[1:]``).
        sources: the paths the run reads, from the repository root: only uncommitted changes to
            these make it ``dirty``, and they are listed in ``uncommitted``; ``None``: any tracked
            file counts, and nothing is listed.

    Returns:
        ``{"commit", "dirty", "command", "python"}``, and ``"uncommitted"`` with ``sources``.
        Outside a git checkout (a copied tree, a GPU machine's copy) the commit is the environment
        variable ``GIT_COMMIT`` where it is set, else ``None``, and ``dirty`` is ``None``.
    """
    root = Path(__file__).resolve().parent.parent
    arguments = list(sys.argv[1:] if argv is None else argv)
    path = Path(script).resolve()
    shown = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(script)
    record: dict[str, Any] = {"commit": os.environ.get("GIT_COMMIT"), "dirty": None,
                              "command": shlex.join(["python", shown, *arguments]), "python": platform.python_version()}
    if sources is not None:
        record["uncommitted"] = []
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=root, capture_output=True, text=True,
                             check=True)
        if Path(top.stdout.strip()).resolve() != root:  # a copy inside another checkout is not that checkout
            return record
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True)
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", *(sources or ())],
                                cwd=root, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):  # not a checkout, or no git
        return record
    changed = sorted(line[3:] for line in status.stdout.splitlines())
    record.update(commit=commit.stdout.strip(), dirty=bool(changed))
    if sources is not None:
        record["uncommitted"] = changed
    return record


def interleaved_rates(contenders: Mapping[str, Callable[[int], float]], rounds: int, progress: bool = False,
                      description: str = "timing") -> dict[str, list[float]]:
    """Call every contender once per round with the round number (its seed) and collect the rates
    it returns; the order rotates from round to round so no contender always runs first. With
    ``progress``, a bar on stderr counts the calls (the bar's own time is outside every timing)."""
    names = list(contenders)
    rates: dict[str, list[float]] = {name: [] for name in names}
    with tqdm(total=rounds * len(names), desc=description, unit="run", disable=not progress) as bar:
        for round_ in range(rounds):
            shift = round_ % len(names)
            for name in names[shift:] + names[:shift]:
                rates[name].append(contenders[name](round_))
                bar.update()
    return rates


def median_ratio(rates: Mapping[str, list[float]], name: str, baseline: str) -> float:
    """The median over rounds of ``name``'s rate divided by ``baseline``'s rate in the same round."""
    return statistics.median(r / b for r, b in zip(rates[name], rates[baseline], strict=True))


def print_ratio_table(
    rates: Mapping[str, list[float]], targets: Mapping[str, float | None], baseline: str, unit: str
) -> None:
    """Print one line per contender (in the order of ``targets``): its median rate in ``unit``,
    its median ratio to ``baseline`` and its verdict against its target ratio."""
    width = max(len(name) for name in targets) + 1
    print(f"{'contender':<{width}} {unit:>13} {'ratio':>7}  target")
    for name, target in targets.items():
        ratio = median_ratio(rates, name, baseline)
        note = "baseline" if name == baseline else verdict(ratio, target)
        print(f"{name:<{width}} {statistics.median(rates[name]):>13,.0f} {ratio:>6.2f}x  {note}")


def verdict(ratio: float, target: float | None) -> str:
    """``"met"``/``"MISSED"`` against a target ratio, or ``""`` without one."""
    if target is None:
        return ""
    return f">= {target:g}x  {'met' if ratio >= target else 'MISSED'}"


def flattened_at(steps: Sequence[int], scores: Sequence[float], tolerance: float, after: int) -> int | None:
    """The step of the first checkpoint that no later checkpoint's score exceeds by more than
    ``tolerance``, among those with at least ``after`` checkpoints after them; ``None``
    (still rising) when there is none.

    >>> flattened_at([1, 2, 3, 4], [0.1, 0.5, 0.51, 0.5], tolerance=0.02, after=2)
    2
    >>> flattened_at([1, 2, 3, 4], [0.1, 0.2, 0.3, 0.4], tolerance=0.02, after=2) is None
    True
    """
    for index, (step, score) in enumerate(zip(steps, scores, strict=True)):
        if len(steps) - 1 - index < after:
            return None
        if max(scores[index:]) - score <= tolerance:
            return step
    return None
