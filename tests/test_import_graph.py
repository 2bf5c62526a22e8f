"""No gridghost module imports one that imports it back, directly or through others.

The graph is read from the source: every ``import`` and ``from ... import`` statement of every
module, at module level and inside functions and classes alike (an import deferred into a
function still ties the two modules together). ``from X import Y`` is an edge to ``X.Y`` where
that is a module, else to ``X``; only gridghost's own modules are nodes.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import gridghost
from gridghost import _moved

PACKAGE = Path(gridghost.__file__).parent

#: Cycles that are being closed elsewhere, each as its modules in import order (the first
#: imports the second, ..., the last imports the first). Empty it once they are gone: the test
#: then holds the package to no cycle at all.
KNOWN: set[tuple[str, ...]] = set()


def module_name(path: Path, package: Path) -> str:
    """The dotted name of a module file of ``package`` (the package's folder)."""
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, package_path: Path, modules: set[str]) -> set[str]:
    """The package's modules that the module at ``path`` imports, anywhere in its body."""
    name = module_name(path, package_path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
    return {target for target in found if target in modules and target != name}


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Every module of the package (its folder) and the package's modules it imports."""
    paths = sorted(package.rglob("*.py"))
    modules = {module_name(path, package) for path in paths}
    return {module_name(path, package): imports(path, package, modules) for path in paths}


def cycles(graph: dict[str, set[str]]) -> list[tuple[str, ...]]:
    """One cycle through every strongly connected group of two or more modules, as its modules
    in import order, starting from the smallest name (so that a cycle has one spelling)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def connect(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return [_cycle_through(graph, group) for group in groups]


def _cycle_through(graph: dict[str, set[str]], group: set[str]) -> tuple[str, ...]:
    """The shortest cycle from the group's smallest module back to itself, inside the group."""
    start = min(group)
    paths = {start: (start,)}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph[node] & group):
                if target == start:
                    return paths[node]
                if target not in paths:
                    paths[target] = (*paths[node], target)
                    following.append(target)
        frontier = following
    raise AssertionError(f"{sorted(group)} is no strongly connected group")


def test_the_import_graph_has_no_cycle_but_the_known_ones() -> None:
    """Without the known cycles' own imports, nothing is left of any cycle."""
    graph = import_graph()
    for cycle in KNOWN:
        for module, imported in zip(cycle, (*cycle[1:], cycle[0]), strict=True):
            graph[module].discard(imported)
    found = cycles(graph)
    assert not found, "import cycles: " + "; ".join(" -> ".join((*cycle, cycle[0])) for cycle in found)


def test_the_graph_reads_every_kind_of_import(tmp_path: Path) -> None:
    """An import inside a function counts; ``from package import module`` names the module,
    ``from module import name`` the module; relative imports resolve; other packages are no nodes."""
    files = {
        "__init__.py": "from pkg import a\nfrom pkg.b import VALUE\n",
        "a.py": "import os\n\n\ndef late():\n    from . import c\n    from .sub.d import THING\n",
        "b.py": "VALUE = 1\n",
        "c.py": "import pkg.b\n",
        "sub/__init__.py": "",
        "sub/d.py": "from ..c import nothing\nfrom .. import b\n",
    }
    for name, text in files.items():
        (tmp_path / "pkg" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "pkg" / name).write_text(text)
    assert import_graph(tmp_path / "pkg") == {
        "pkg": {"pkg.a", "pkg.b"}, "pkg.a": {"pkg.c", "pkg.sub.d"}, "pkg.b": set(), "pkg.c": {"pkg.b"},
        "pkg.sub": set(), "pkg.sub.d": {"pkg.c", "pkg.b"}}


def test_a_cycle_is_found_and_named() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert cycles(graph) == [("a", "b", "c")]


@pytest.mark.parametrize("moved", sorted(_moved.MOVED_NAMES))
def test_a_name_moved_out_of_a_module_still_reads_from_it(moved: str) -> None:
    """Closing a cycle moved these names; their old module still gives the same object."""
    old, _, name = moved.rpartition(".")
    new = importlib.import_module(_moved.MOVED_NAMES[moved])
    assert getattr(importlib.import_module(old), name) is getattr(new, name)
