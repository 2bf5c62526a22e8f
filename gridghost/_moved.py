"""The module paths of the flat layout (before 0.2), kept importable with a warning.

``gridghost.solve``, ``gridghost.render`` and the other old modules are not files any more: a
finder on ``sys.meta_path`` answers for them with a module whose every attribute comes from the
module's new home, with a :class:`DeprecationWarning` naming that home. Old imports, old pickles
(which name their classes by module) and ``mock.patch`` strings keep working; new code imports
from the subpackages.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings
from typing import Any

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


class MovedModule(types.ModuleType):
    """An old module path: every attribute read comes from the new home, with a warning."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        home = MOVED[self.__name__]
        value = getattr(importlib.import_module(home), name)
        warnings.warn(
            f"{self.__name__} moved to {home}: import {name} from {home}",
            DeprecationWarning,
            stacklevel=2,
        )
        return value

    def __dir__(self) -> list[str]:
        return dir(importlib.import_module(MOVED[self.__name__]))


class MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds and loads the old module paths in :data:`MOVED` as :class:`MovedModule` objects."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        """A spec for an old module path, or ``None`` for every other name."""
        if fullname not in MOVED:
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
