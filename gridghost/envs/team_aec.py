"""The team variants of the AEC env classes (see :mod:`gridghost.envs.teams`), which
``gridghost.raw_env(ghosts=k)`` and ``gridghost.env(ghosts=k)`` return for ``k >= 2``.
"""

from __future__ import annotations

from gridghost.envs.aec import CheckedGridGhostEnv, GridGhostEnv
from gridghost.envs.teams import TeamPlay, register_team_class


class TeamGridGhostEnv(TeamPlay, GridGhostEnv):
    """:class:`~gridghost.envs.aec.GridGhostEnv` for a team of ghosts (``ghosts >= 2``): what
    ``raw_env(ghosts=k)`` and ``GridGhostEnv(ghosts=k)`` return (see :mod:`gridghost.envs.teams`)."""


class CheckedTeamGridGhostEnv(TeamPlay, CheckedGridGhostEnv):
    """:class:`~gridghost.envs.aec.CheckedGridGhostEnv` for a team of ghosts: what ``env(ghosts=k)`` returns."""

    def step(self, action: int | None) -> None:
        """As :meth:`TeamPlay.step <gridghost.envs.teams.TeamPlay.step>`."""
        TeamPlay.step(self, action)
        self._stepped = True


register_team_class(GridGhostEnv, TeamGridGhostEnv)
register_team_class(CheckedGridGhostEnv, CheckedTeamGridGhostEnv)
