"""The package's folders: the old flat module paths still work (with a warning naming the new
home), and the import contracts between the folders hold."""

from __future__ import annotations

import importlib
import pickle
import subprocess
import sys
import warnings

import pytest

import gridghost
from gridghost import _moved


@pytest.mark.parametrize("old", sorted(_moved.MOVED))
def test_every_old_module_path_serves_its_names_from_the_new_home_with_a_warning(old: str) -> None:
    home = importlib.import_module(_moved.MOVED[old])
    module = importlib.import_module(old)
    public = [name for name, value in vars(home).items()
              if not name.startswith("_") and not isinstance(value, type(sys))]
    assert public, f"{home.__name__} exports nothing"
    for name in public[:5] + public[-5:]:
        message = rf"^{old} moved to {home.__name__}: import {name} from {home.__name__}$"
        with pytest.warns(DeprecationWarning, match=message):
            assert getattr(module, name) is getattr(home, name)
    with pytest.raises(AttributeError):
        module.no_such_name  # noqa: B018


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
