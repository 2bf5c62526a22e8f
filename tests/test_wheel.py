"""The built wheel holds the whole package, the map files included: install it into a fresh venv
(not editable, with its dependencies) and load every shipped map from there, away from the source tree."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

# A wheel build and a venv install: .ci/run runs the slow group.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent

CHECK = """
import importlib, json, gridghost, gridghost.maps as maps
folders = ["core", "sensing", "planning", "maps", "config", "drawing", "envs", "batched", "training"]
print(json.dumps({"file": gridghost.__file__, "maps": {n: maps.load(n).name for n in maps.names()},
                  "folders": {f: importlib.import_module("gridghost." + f).__file__ for f in folders}}))
"""


def run(*command: str | Path, cwd: Path, timeout: float) -> str:
    """Run a command without PYTHONPATH (which could put the source tree on sys.path); return its
    output, or fail with its error output."""
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    done = subprocess.run([str(part) for part in command], cwd=cwd, env=environment, timeout=timeout,
                          capture_output=True, text=True)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_wheel_installs_with_its_maps(tmp_path: Path) -> None:
    # Build from a copy: setuptools writes build/ and *.egg-info next to the sources, and a stale
    # build/ could smuggle deleted files into the wheel.
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "venv", "__pycache__", "*.egg-info", ".pytest_cache", ".hypothesis", ".mypy_cache",
        ".ruff_cache", "build", "dist"))
    wheels = tmp_path / "wheels"
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", wheels, source, cwd=tmp_path, timeout=300)
    (wheel,) = wheels.glob("gridghost-*.whl")
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    run(python, "-m", "pip", "install", "-q", wheel, cwd=tmp_path, timeout=600)
    # -I and an empty working folder: only the venv's own site-packages can provide gridghost.
    run_dir = tmp_path / "elsewhere"
    run_dir.mkdir()
    found = json.loads(run(python, "-I", "-c", CHECK, cwd=run_dir, timeout=120))
    assert Path(found["file"]).resolve().is_relative_to(env_dir.resolve())
    expected = sorted(path.stem for path in (ROOT / "gridghost" / "maps").glob("*.txt"))
    assert sorted(found["maps"]) == expected
    assert found["maps"] == {name: name for name in expected}
    # every folder of the package is in the wheel, installed beside gridghost itself
    package = Path(found["file"]).parent
    assert {folder: Path(path).parent for folder, path in found["folders"].items()} == {
        folder: package / folder for folder in found["folders"]}
