"""The package's folders: the old flat module paths still work (with a warning naming the new
home), and the import contracts between the folders hold."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import json
import logging
import os
import pickle
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

import gridghost
from gridghost import _moved

#: Every public name each flat module of 0.1 defined (from its source at 7757798, the last commit
#: of the flat layout): what old code may import from the old paths.
FLAT_API: dict[str, list[str]] = json.loads((Path(__file__).parent / "flat_api_0_1.json").read_text())


def test_the_flat_api_is_the_shims_table() -> None:
    flat = [old for old in _moved.MOVED if old.count(".") == 1]  # the deeper ones are 0.3's merged team modules
    assert sorted(FLAT_API) == sorted([*flat, "gridghost.batched", "gridghost.config"])
    assert sum(map(len, FLAT_API.values())) == 244


@pytest.mark.parametrize("old", sorted(FLAT_API))
def test_every_public_name_of_the_flat_modules_still_imports_from_its_old_path_with_a_warning(old: str) -> None:
    module = importlib.import_module(old)
    for name in FLAT_API[old]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = getattr(module, name)
        if old in _moved.MOVED:  # an old module path: the shim warns and names where the value lives
            assert len(caught) == 1 and caught[0].category is DeprecationWarning, (old, name)
            home = re.fullmatch(rf"{old} moved to \S+: import {name} from (\S+) \(the old path is removed in "
                                rf"gridghost {re.escape(_moved.REMOVED_IN)}\)", str(caught[0].message)).group(1)
            assert getattr(importlib.import_module(home), name) is value
    with pytest.raises(AttributeError):
        module.no_such_name  # noqa: B018


def test_import_star_from_an_old_path_gives_the_new_homes_names() -> None:
    namespace: dict[str, object] = {}
    with pytest.warns(DeprecationWarning, match="gridghost.solve moved to gridghost.planning"):
        exec("from gridghost.solve import *", namespace)
    assert namespace["solve_game"] is gridghost.planning.solve_game
    assert set(gridghost.planning.__all__) <= set(namespace)


def test_old_from_imports_and_old_names_of_the_renderer_still_work() -> None:
    with pytest.warns(DeprecationWarning, match="gridghost.solve moved to gridghost.planning"):
        from gridghost.solve import solve_game
    assert solve_game is gridghost.planning.solve_game
    # the renderer's older aliases (the recording helpers lived in render) resolve too
    with pytest.warns(DeprecationWarning, match="gridghost.render moved to gridghost.drawing"):
        from gridghost.render import save_image, text_picture
    assert (save_image, text_picture) == (gridghost.drawing.save_image, gridghost.drawing.text_picture)


def test_the_env_function_survives_importing_the_old_env_module() -> None:
    import gridghost.env  # the old module path of the AEC env

    with pytest.warns(DeprecationWarning, match="gridghost.env moved to gridghost.envs.aec"):
        from gridghost.env import GridGhostEnv
    assert GridGhostEnv is gridghost.GridGhostEnv
    assert callable(gridghost.env) and gridghost.env is gridghost.envs.env  # still the function


def test_objects_pickled_under_an_old_module_path_load() -> None:
    # a pickle written before the move names its class by the old module path
    data = pickle.dumps(gridghost.Rewards(goal=10.0), protocol=0)  # protocol 0 names classes as text
    old = data.replace(b"gridghost.core.rules", b"gridghost.rules")
    assert old != data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert pickle.loads(old) == gridghost.Rewards(goal=10.0)


def test_old_modules_read_as_attributes_of_the_package_resolve() -> None:
    assert gridghost.solve.__name__ == "gridghost.solve"  # the package's __getattr__ imports it
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        gridghost.nonexistent  # noqa: B018


def test_a_fresh_interpreter_imports_gridghost_without_any_warning() -> None:
    code = "import warnings; warnings.simplefilter('error'); import gridghost, gridghost.planning, gridghost.training"
    done = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


ROOT = Path(__file__).resolve().parent.parent


def test_the_import_contracts_hold(capsys: pytest.CaptureFixture[str]) -> None:
    from importlinter.cli import lint_imports

    # lint_imports configures logging with dictConfig, which disables every logger that exists
    # (gridghost's among them): give them back their state for the tests that follow
    loggers = {name: logger.disabled for name, logger in logging.Logger.manager.loggerDict.items()
               if isinstance(logger, logging.Logger)}
    try:
        kept = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True)
    finally:
        for name, disabled in loggers.items():
            logging.getLogger(name).disabled = disabled
    report = capsys.readouterr().out
    assert kept == 0, report
    summary = re.search(r"Contracts: (\d+) kept, (\d+) broken", report)
    assert summary is not None, report
    assert summary.groups() == ("9", "0"), report  # every contract of pyproject.toml ran and held


def test_an_arrow_up_breaks_the_contracts(tmp_path: Path) -> None:
    # the contracts can fail: the same package with the rules importing a view is refused
    shutil.copytree(ROOT / "gridghost", tmp_path / "gridghost", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    rules = tmp_path / "gridghost" / "core" / "rules.py"
    rules.write_text(rules.read_text() + "\nfrom gridghost.envs.aec import GridGhostEnv  # noqa\n")
    code = ("import sys; from importlinter.cli import lint_imports; "
            "sys.exit(lint_imports(config_filename='pyproject.toml', no_cache=True))")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert done.returncode != 0
    assert "gridghost.core is not allowed to import gridghost.envs" in done.stdout, done.stdout + done.stderr
    assert "gridghost.core.rules -> gridghost.envs.aec" in done.stdout


#: What only the one builder of a map's parts makes, in the views and the batched engine.
BUILT_BY_THE_BUILDER = {"Game", "make_sensors", "make_filter", "expert_tables", "make_observations"}


@pytest.mark.parametrize("folder", ["envs", "batched", "training", "integrations"])
def test_the_views_and_the_batched_engine_build_a_map_only_through_the_one_builder(folder: str) -> None:
    calls = set()
    # a filter, like gridghost.sensing's, reads its motion model from a kernel of its own
    for path in set((ROOT / "gridghost" / folder).glob("*.py")) - {ROOT / "gridghost" / "batched" / "filter.py"}:
        for node in ast.walk(ast.parse(path.read_text())):
            called = getattr(node.func, "id", getattr(node.func, "attr", None)) if isinstance(node, ast.Call) else None
            if called in BUILT_BY_THE_BUILDER:  # f(...) or module.f(...)
                calls.add(f"{path.name}: {called}")
            if isinstance(node, ast.ImportFrom):  # a builder function under another name would hide from the above
                calls.update(f"{path.name}: {alias.name} as {alias.asname}" for alias in node.names
                             if alias.name in BUILT_BY_THE_BUILDER and alias.asname)
    assert calls == set()
    # and the builder does make them (the scan looks for the right names), the kernel through the
    # spec's game(), the one place a Game is built from settings
    made = set()
    for name in ("parts.py", "settings.py"):
        builder = ast.parse((ROOT / "gridghost" / "config" / name).read_text())
        made |= {node.func.id for node in ast.walk(builder)
                 if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    assert made >= BUILT_BY_THE_BUILDER
    assert "config.game(layout)" in (ROOT / "gridghost" / "config" / "parts.py").read_text()


def _resolves(name: str) -> bool:
    """Whether a dotted name (``gridghost.core.Layout``, say) is a module, or an attribute of one
    (an instance attribute counts when its class sets it as ``self.<name>``)."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            if not hasattr(found, attr):
                return isinstance(found, type) and bool(re.search(rf"self\.{attr}\s*[:=]", inspect.getsource(found)))
            found = getattr(found, attr)
        return True
    return False


#: Files that name what does not exist on purpose, and the optional extras RLlib, SB3 and BenchMARL (not installed
#: here);
#: gridghost.jax's names are checked where its extra, JAX, is installed.
_NOT_NAMES = re.compile(r"gridghost\.(nonexistent|md)$|gridghost\.integrations\.(rllib|sb3|benchmarl)"
                        + ("" if importlib.util.find_spec("jax") else r"|gridghost\.jax\b"))


def test_every_dotted_gridghost_name_in_the_code_and_docs_exists() -> None:
    # docstrings, comments, error messages and pages name modules and objects by their paths:
    # a move that leaves one behind fails here
    files = [*(ROOT / "gridghost").rglob("*.py"), *(ROOT / "tests").glob("*.py"), *(ROOT / "examples").glob("*.py"),
             *(ROOT / "benchmarks").glob("*.py"), *(ROOT / "docs").rglob("*.md"), ROOT / "README.md",
             ROOT / "pyproject.toml"]
    stale = set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the old paths, in the files that test them
        for path in files:
            for number, line in enumerate(path.read_text().splitlines(), 1):
                # (not a host in a URL: gridghost.github.io after "//")
                for found in re.finditer(r"(?<![\w./])gridghost(?:\.[A-Za-z_]\w*)+", line):
                    name = found.group(0)
                    if _NOT_NAMES.search(name) or path.name in ("_moved.py", "test_package_layout.py"):
                        continue
                    # a name under an old module path resolves through the shim, but is stale
                    old = any(name.startswith(f"{module}.") for module in _moved.MOVED)
                    if old or not _resolves(name):
                        stale.add(f"{path.relative_to(ROOT)}:{number}: {name}")
    assert sorted(stale) == [], "\n".join(sorted(stale))
    assert not _resolves("gridghost.core.NoSuchThing") and _resolves("gridghost.planning.StatePolicy")


#: The longest module, in lines, and the longest function, in lines without its docstring.
MAX_MODULE_LINES, MAX_FUNCTION_LINES = 600, 80
#: The modules and functions allowed to be longer, each with why (none should stay for good).
LONG_MODULES: set[str] = set()
LONG_FUNCTIONS: set[str] = set()


def _function_lengths(path: Path) -> dict[str, int]:
    """Each function of ``path`` (``Class.method`` for a method; nested ones by their own name) and
    its length in lines, from its ``def`` to its end, without the lines of its docstring."""
    lengths: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                body = child.body
                docstring = (body[0].end_lineno - body[0].lineno + 1  # type: ignore[operator]
                             if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                             and isinstance(body[0].value.value, str) else 0)
                lengths[f"{prefix}{child.name}"] = child.end_lineno - child.lineno + 1 - docstring  # type: ignore[operator]
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(ast.parse(path.read_text()), "")
    return lengths


def test_no_module_or_function_is_longer_than_the_limits() -> None:
    modules, functions = set(), set()
    for path in sorted((ROOT / "gridghost").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        if len(path.read_text().splitlines()) > MAX_MODULE_LINES:
            modules.add(name)
        functions |= {f"{name}: {function}" for function, lines in _function_lengths(path).items()
                      if lines > MAX_FUNCTION_LINES}
    assert modules - LONG_MODULES == set(), f"modules over {MAX_MODULE_LINES} lines: split them along their concerns"
    assert functions - LONG_FUNCTIONS == set(), f"functions over {MAX_FUNCTION_LINES} lines: extract named helpers"
    # an entry that is short by now leaves the list (the lists only shrink)
    assert modules >= LONG_MODULES and functions >= LONG_FUNCTIONS


def test_the_length_limits_count_code_and_not_docstrings(tmp_path: Path) -> None:
    source = tmp_path / "sample.py"
    docstring = '    """' + "\n".join(["line"] * 30) + '"""\n'
    source.write_text("class A:\n    def f(self):\n" + docstring.replace("    ", "        ", 1)
                      + "".join(f"        x{i} = {i}\n" for i in range(81))
                      + "def g():\n" + docstring + "    return 1\n")
    assert _function_lengths(source) == {"A.f": 82, "g": 2}


def test_a_setting_that_moved_with_its_code_still_takes_effect_from_its_old_module(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # value iteration moved from planning.solve to planning.iteration; solve.MAX_ITERATIONS still sets its limit
    from gridghost.core.layout import CLASSIC
    from gridghost.planning import iteration, solve

    monkeypatch.setattr(solve, "MAX_ITERATIONS", 3)
    assert iteration.MAX_ITERATIONS == 3 and solve.MAX_ITERATIONS == 3
    with pytest.raises(RuntimeError, match="in 3 sweeps"):
        solve.solve_agent(CLASSIC, "longitudinal", ghost="chase", gamma=0.99, tol=1e-12)
