"""The module paths of the flat layout (before 0.2), kept importable with a warning.

``gridghost.solve``, ``gridghost.render`` and the other old modules are not files any more: a
finder on ``sys.meta_path`` answers for them with a module whose every attribute comes from the
module's new home, with a :class:`DeprecationWarning` naming that home. Old imports (``from
gridghost.solve import solve_game``, ``import *`` too) and old pickles (which name their classes
by module) keep working; new code imports from the subpackages. A name that moved to another
folder than its module (``gridghost.env.RESERVED_INFO_KEYS`` now lives in
:mod:`gridghost.config`) is found there. ``mock.patch("gridghost.solve.x")`` patches the old
path's module only, not the code that uses ``x``: patch the new home. The old paths are
removed in gridghost 0.4.0 (:data:`REMOVED_IN`).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings
from typing import Any

#: The release that removes the old paths (deprecated since 0.2.0); the warning and the changelog name it.
REMOVED_IN = "0.4.0"

#: Each old module and its new home.
MOVED: dict[str, str] = {
    "gridghost.checks": "gridghost.core.checks",
    "gridghost.compat": "gridghost.envs.compat",
    "gridghost.env": "gridghost.envs.aec",
    "gridghost.filters": "gridghost.sensing.filters",
    "gridghost.game": "gridghost.core.game",
    "gridghost.generate": "gridghost.core.generate",
    "gridghost.layout": "gridghost.core.layout",
    "gridghost.levels": "gridghost.maps.levels",
    "gridghost.maptext": "gridghost.core.maptext",
    "gridghost.observations": "gridghost.sensing.observations",
    "gridghost.parallel": "gridghost.envs.parallel",
    "gridghost.policies": "gridghost.core.policies",
    "gridghost.recording": "gridghost.drawing.recording",
    "gridghost.render": "gridghost.drawing",
    "gridghost.rules": "gridghost.core.rules",
    "gridghost.selfplay": "gridghost.training.selfplay",
    "gridghost.sensors": "gridghost.sensing.sensors",
    "gridghost.single_agent": "gridghost.envs.single_agent",
    "gridghost.slip": "gridghost.core.slip",
    "gridghost.solve": "gridghost.planning",
    "gridghost.text": "gridghost.drawing.text",
}

#: The release that removes the team twins' modules and names (deprecated since 0.4.0).
TWINS_REMOVED_IN = "0.5.0"

#: The team twins of the one-ghost modules (before 0.4), merged into them: each old module and
#: the one that serves every team size now.
TWINS: dict[str, str] = {
    "gridghost.envs.teams": "gridghost.envs.aec",
    "gridghost.envs.team_aec": "gridghost.envs.aec",
    "gridghost.envs.team_gym": "gridghost.envs.single_agent",
}

#: Names that are another name now (the team twins of one-ghost classes, which serve every team
#: size), each by its old module, with its new name in its new home (:data:`TWINS`).
RENAMED: dict[str, str] = {
    "gridghost.envs.teams.TeamPlay": "GridGhostEnv",
    "gridghost.envs.team_aec.TeamGridGhostEnv": "GridGhostEnv",
    "gridghost.envs.team_aec.CheckedTeamGridGhostEnv": "CheckedGridGhostEnv",
    "gridghost.envs.team_gym.TeamGymEnv": "GridGhostGymEnv",
}


#: Names that moved out of a module that is still there, each with its new module. The old
#: module's ``__getattr__`` reads them there (:func:`moved_name`), so the old import keeps working
#: without the old module importing the new one, which imports it.
MOVED_NAMES: dict[str, str] = {
    "gridghost.envs.parallel.parallel_env": "gridghost.envs.ghost_team",
    "gridghost.core.maptext.format_layout": "gridghost.core.mapwrite",
    **{f"gridghost.maps.levels.{name}": "gridghost.maps.sources"
       for name in ("MAX_MAP_FILE_BYTES", "map_source", "read_map_file", "resolve_layout")},
}


def moved_name(module: str, name: str) -> Any:
    """The object ``name`` of ``module`` that moved to another module (:data:`MOVED_NAMES`).

    Args:
        module: the old module's name (its ``__name__``).
        name: the attribute read.

    Returns:
        The object, from its new module.

    Raises:
        AttributeError: ``name`` is no name that moved out of ``module``, as for any missing
            attribute.
    """
    home = MOVED_NAMES.get(f"{module}.{name}")
    if home is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


#: Where a name of an old module that did not move with its module is looked for, in order.
FOLDERS: tuple[str, ...] = ("gridghost.core", "gridghost.sensing", "gridghost.planning", "gridghost.maps",
                            "gridghost.config", "gridghost.drawing", "gridghost.envs", "gridghost.batched",
                            "gridghost.training")


def _public(module: types.ModuleType) -> list[str]:
    """A module's public names: its ``__all__``, or what it defines without an underscore."""
    names = getattr(module, "__all__", None)
    if names is not None:
        return list(names)
    return [name for name, value in vars(module).items()
            if not name.startswith("_") and getattr(value, "__module__", module.__name__) == module.__name__]


class MovedModule(types.ModuleType):
    """An old module path: every attribute read comes from the new home, with a warning."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name != "__all__":
            raise AttributeError(name)
        home = MOVED.get(self.__name__) or TWINS[self.__name__]
        removed_in = REMOVED_IN if self.__name__ in MOVED else TWINS_REMOVED_IN
        module = importlib.import_module(home)
        renamed = RENAMED.get(f"{self.__name__}.{name}")
        if name == "__all__":  # ``from old import *``: the new home's public names
            value: Any = _public(module)
            home_of = home
        elif renamed is not None:  # one class serves every team size now: import it by its name
            value, home_of, name = getattr(module, renamed), home, renamed
        elif hasattr(module, name):
            value, home_of = getattr(module, name), home
        else:
            home_of = next((folder for folder in FOLDERS if hasattr(importlib.import_module(folder), name)), "")
            if not home_of:
                raise AttributeError(f"module {self.__name__!r} (now {home}) has no attribute {name!r}")
            value = getattr(importlib.import_module(home_of), name)
        warnings.warn(
            f"{self.__name__} moved to {home}: import {name} from {home_of} "
            f"(the old path is removed in gridghost {removed_in})",
            DeprecationWarning,
            stacklevel=2,
        )
        return value

    def __dir__(self) -> list[str]:
        return dir(importlib.import_module(MOVED.get(self.__name__) or TWINS[self.__name__]))


class MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds and loads the old module paths in :data:`MOVED` and :data:`TWINS` as :class:`MovedModule` objects."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        """A spec for an old module path, or ``None`` for every other name."""
        if fullname not in MOVED and fullname not in TWINS:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        """The module object of an old path (it holds nothing of its own)."""
        return MovedModule(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing to run: attributes are looked up in the new home when read."""


def install() -> None:
    """Put the finder on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, MovedFinder) for finder in sys.meta_path):
        sys.meta_path.append(MovedFinder())
