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

#: Each old module path and its new home: the flat layout's modules, and the modules of later releases
#: folded into another, which answer as the flat paths do.
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
    "gridghost.sensing.team_encoders": "gridghost.sensing.observations",
    "gridghost.sensors": "gridghost.sensing.sensors",
    "gridghost.single_agent": "gridghost.envs.single_agent",
    "gridghost.slip": "gridghost.core.slip",
    "gridghost.solve": "gridghost.planning",
    "gridghost.text": "gridghost.drawing.text",
    # 0.3.0: the team kernel, folded into the one kernel
    "gridghost.core.team": "gridghost.core.game",
    # 0.4.0: the team twins of the env modules, merged into the modules that serve every team size
    "gridghost.envs.teams": "gridghost.envs.aec",
    "gridghost.envs.team_aec": "gridghost.envs.aec",
    "gridghost.envs.team_gym": "gridghost.envs.single_agent",
}


#: Names that moved out of a module that is still there, each with its new module. The old
#: module's ``__getattr__`` reads them there (:func:`moved_name`), so the old import keeps working
#: without the old module importing the new one, which imports it.
MOVED_NAMES: dict[str, str] = {
    "gridghost.envs.parallel.parallel_env": "gridghost.envs.ghost_team",
    **{f"gridghost.maps.levels.{name}": "gridghost.maps.sources"
       for name in ("MAX_MAP_FILE_BYTES", "map_source", "read_map_file", "resolve_layout")},
}


#: The team solver's names (0.3.0), each with the name that serves every team size: a class is
#: read there, a function from :mod:`gridghost.planning.deprecated`, which takes the old arguments.
TEAM_SOLVER: dict[str, str] = {
    "TeamAgentSolution": "AgentSolution", "TeamGameSolution": "GameSolution", "TeamGhostsSolution": "GhostSolution",
    "TeamModel": "TurnModel", "TeamPolicyEvaluation": "PolicyEvaluation", "solve_team_game": "solve_game",
    "solve_team_agent": "solve_agent", "solve_team_ghosts": "solve_ghost",
    "evaluate_team_policies": "evaluate_policies", "team_exploitability": "exploitability",
    "team_agent_exploitability": "agent_exploitability", "team_ghosts_exploitability": "ghost_exploitability",
    "tabulate_team_policy": "tabulate_policy",
}

#: Names replaced by other names (0.3.0: the team kernel became the one kernel, one solver serves
#: every team size), each old ``module.name`` with where it is read now; reading it warns (:func:`moved_name`).
RENAMED: dict[str, str] = {
    f"{module}.{old}": new
    for module in ("gridghost.core", "gridghost.core.team")
    for old, new in (("TeamGame", "gridghost._moved.team_game"), ("TeamState", "gridghost.core.rules.GameState"),
                     ("TeamTransitions", "gridghost.core.game.Transitions"))
} | {
    # 0.4.0: one AEC env class and one Gymnasium view serve every team size
    "gridghost.envs.teams.TeamPlay": "gridghost.envs.aec.GridGhostEnv",
    "gridghost.envs.team_aec.TeamGridGhostEnv": "gridghost.envs.aec.GridGhostEnv",
    "gridghost.envs.team_aec.CheckedTeamGridGhostEnv": "gridghost.envs.aec.CheckedGridGhostEnv",
    "gridghost.envs.team_gym.TeamGymEnv": "gridghost.envs.single_agent.GridGhostGymEnv",
    # 0.4.0: the team names of the encoders, which now serve every team size
    "gridghost.sensing.observations.TeamObservations": "gridghost.sensing.observations._team_observations",
    "gridghost.sensing.observations.TeamMaskedObservations": "gridghost.sensing.observations.MaskedObservations",
    "gridghost.sensing.observations.team_vector_slots": "gridghost.sensing.encoding.vector_slots",
    "gridghost.sensing.observations.team_grid_channels": "gridghost.sensing.observations._team_grid_channels",
} | {f"gridghost.planning.{old}": f"gridghost.planning.{new if old[0].isupper() else 'deprecated.' + old}"
     for old, new in TEAM_SOLVER.items()}

#: What the warning advises instead of a replacement that takes other arguments than the old name.
ADVICE: dict[str, str] = {
    "TeamGame": "gridghost.core.game.Game(..., ghosts=k, credit=...)",
    "TeamObservations": "make_observations(..., ghosts=k) or an encoder's ghosts=k",
    "team_grid_channels": "grid_channels(radius, append_step_count, ghosts=k)",
    **{old: f"gridghost.planning.{new}, which serves any number of ghosts" for old, new in TEAM_SOLVER.items()},
}


def team_game(game: Any, ghosts: int, credit: str = "team") -> Any:
    """What the deprecated ``TeamGame(game, ghosts, credit)`` builds: the
    :class:`~gridghost.core.game.Game` of ``game``'s map, slip and rewards with ``ghosts`` ghosts.

    Raises:
        TypeError: ``game`` is not a Game; a bad ``ghosts`` or ``credit`` (as ``Game`` raises).
        ValueError: ``game`` plays without its ghost (``use_ghost=False``), or as ``Game`` raises.
    """
    from gridghost.core.game import Game  # here: the core imports this module

    if not isinstance(game, Game):
        raise TypeError(f"game must be a gridghost.core.game.Game, got {game!r}")
    if not game.use_ghost:
        raise ValueError("a team plays only with its ghosts in the game: use_ghost=False takes one ghost out")
    return Game(game.layout, game.slip, game.agent_rewards, game.ghost_rewards, ghosts=ghosts, credit=credit)


def moved_name(module: str, name: str) -> Any:
    """The object read as ``module.name`` that moved to another module (:data:`MOVED_NAMES`) or
    was replaced by another name (:data:`RENAMED`, read with a :class:`DeprecationWarning` naming
    the replacement, or what :data:`ADVICE` says to use instead).

    Args:
        module: the old module's name (its ``__name__``).
        name: the attribute read.

    Returns:
        The object, from its new module.

    Raises:
        AttributeError: ``name`` is no name that moved out of ``module`` nor a deprecated one, as
            for any missing attribute.
    """
    home, attribute = MOVED_NAMES.get(f"{module}.{name}"), name
    if home is None:
        new = RENAMED.get(f"{module}.{name}")
        if new is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        home, _, attribute = new.rpartition(".")
        warnings.warn(f"{module}.{name} is deprecated: use {ADVICE.get(name, new)} (removed in gridghost {REMOVED_IN})",
                      DeprecationWarning, stacklevel=3)
    return getattr(importlib.import_module(home), attribute)


#: Where a name of an old module that did not move with its module is looked for, in order.
FOLDERS: tuple[str, ...] = ("gridghost.core", "gridghost.sensing", "gridghost.planning", "gridghost.maps",
                            "gridghost.config", "gridghost.drawing", "gridghost.envs", "gridghost.batched",
                            "gridghost.training")
_MISSING = object()


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
        if f"{self.__name__}.{name}" in RENAMED:
            return moved_name(self.__name__, name)
        home = MOVED[self.__name__]
        if name == "__all__":  # ``from old import *``: the new home's public names
            value: Any = _public(importlib.import_module(home))
            home_of = home
        else:  # the new home's, else a folder's; read once, since a deprecated name warns when read
            for home_of in (home, *FOLDERS):
                value = getattr(importlib.import_module(home_of), name, _MISSING)
                if value is not _MISSING:
                    break
            else:
                raise AttributeError(f"module {self.__name__!r} (now {home}) has no attribute {name!r}")
        warnings.warn(
            f"{self.__name__} moved to {home}: import {name} from {home_of} "
            f"(the old path is removed in gridghost {REMOVED_IN})",
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
