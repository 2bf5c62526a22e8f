"""The team solver's functions from before one solver served every number of ghosts, kept for one
release: reading one from :mod:`gridghost.planning` gives a :class:`DeprecationWarning` naming
its replacement (:data:`gridghost._moved.TEAM_SOLVER`). The functions take their old arguments
(the team's size ``ghosts`` after ``rewards``, 2 by default) and call the unified ones.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gridghost.planning.exploit import agent_exploitability, exploitability, ghost_exploitability
from gridghost.planning.solve import (
    evaluate_policies,
    solve_agent,
    solve_game,
    solve_ghost,
)
from gridghost.planning.tabulate import tabulate_policy


def _old(new: Callable[..., Any], names: str, renamed: dict[str, str] | None = None) -> Callable[..., Any]:
    """A team function of the old signature (positional ``names``, the team's size ``ghosts`` 2
    by default with the settings) that calls ``new`` (with ``renamed`` arguments)."""

    def old(*args: Any, **kwargs: Any) -> Any:
        positional = names.split()
        if len(args) > len(positional):
            raise TypeError(f"{new.__name__} takes at most {len(positional)} positional arguments ({names})")
        given = {**dict(zip(positional, args, strict=False)), **kwargs}
        for before, after in (renamed or {}).items():
            if before in given:
                given[after] = given.pop(before)
        if given.get("ghosts") is None and given.get("game") is None and given.get("spec") is None:
            given["ghosts"] = 2
        return new(**given)

    old.__doc__ = f"Deprecated: :func:`~gridghost.planning.{new.__name__}`, with ``ghosts`` 2 by default."
    return old


def tabulate_team_policy(policy: Any, game: Any = None, *, spec: Any = None, obs_type: str | None = None,
                         centralised: bool = False, view: str = "gym", **encoding: Any) -> Any:
    """Deprecated: :func:`~gridghost.planning.tabulate.tabulate_policy` of the ghosts' side.

    Raises:
        ValueError: both or neither of ``game`` and ``spec``.
        TypeError: a game of one ghost.
    """
    if (game is None) == (spec is None):
        raise ValueError("pass the team's game as game= or its settings as spec=, one of the two")
    if getattr(game if spec is None else spec.game(), "ghosts", 1) == 1:
        raise TypeError(f"game must be a team game (spec= with ghosts >= 2), got {game if spec is None else spec!r}")
    return tabulate_policy(policy, "ghost", obs_type=obs_type, batch=True, game=game, spec=spec,
                           centralised=centralised, view=view, **encoding)


_SETTINGS = "layout slip rewards ghosts gamma tol horizon"
_TEAM = {"team_policy": "ghost_policy"}

solve_team_game = _old(solve_game, _SETTINGS)
solve_team_agent = _old(solve_agent, "layout slip team rewards ghosts gamma tol horizon", {"team": "ghost"})
solve_team_ghosts = _old(solve_ghost, "layout slip agent rewards ghosts gamma tol horizon")
evaluate_team_policies = _old(evaluate_policies, f"agent_policy team_policy {_SETTINGS}", _TEAM)
team_exploitability = _old(exploitability, f"agent_policy team_policy {_SETTINGS}", _TEAM)
team_agent_exploitability = _old(agent_exploitability, f"agent_policy {_SETTINGS}")
team_ghosts_exploitability = _old(ghost_exploitability, f"team_policy {_SETTINGS}", _TEAM)
