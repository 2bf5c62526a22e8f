"""The ghosts alone as a PettingZoo Parallel environment: a team of ghosts learning, one policy
per ghost (or one shared), against a fixed agent played inside the env.

| Import        | ``gridghost.parallel_env(ghosts=k, controlled="ghosts", opponent="random")``  |
|---------------|-------------------------------------------------------------------------------|
| Agents        | ``ghost_0, ..., ghost_{k-1}``; ``["ghost"]`` for ``k = 1``                    |
| Actions       | Discrete(4) each; every ghost's action is required and carried out            |
| Observations  | each ghost's own, exactly as :func:`gridghost.parallel_env` gives it          |
| State         | :meth:`state`, the game's global state (a channel per ghost)                  |

A ``step`` is one cycle of the game from the team's side: every ghost's move, carried out
together, then the opponent agent's answer (unless the team's move ended the game). The episode
starts after the agent's opening move; ``max_cycles`` (default 100) counts cycles, so steps.
The loop is the team Gymnasium view's (:meth:`Duel.turn <gridghost.envs.duel.Duel.turn>`): with
the same settings and seed the two play the same games. Each ghost is paid its own rewards
since it last acted (its first step's include the opening move's), observes what the plain
parallel env gives it, turn flag included (0 in the final observation), and has its mask in
``info["action_mask"]`` (only the no-op once the episode is over). The opponent agent
(``opponent=``) is ``"random"`` (the default), ``"minimax"``, ``"optimal"``, a policy of
its observation (in ``opponent_obs_type``), or a state table of the agent played from the true
state (:class:`~gridghost.envs.tables.AgentTable`), seeded from the reset seed on a stream of
its own.
The Teams page ("Learning a team") says the rest: the defaults, the maps refused, the trainers.

>>> import gridghost
>>> env = gridghost.parallel_env(ghosts=2, controlled="ghosts", opponent="random",
...                              layout="team_eight", obs_type="vector")
>>> observations, infos = env.reset(seed=0)
>>> env.agents, observations["ghost_1"].shape, infos["ghost_0"]["action_mask"].dtype
(['ghost_0', 'ghost_1'], (30,), dtype('int8'))
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, cast

from gridghost.config.settings import GameSpec
from gridghost.core.checks import check_choice
from gridghost.core.names import AGENT, GHOST
from gridghost.envs.duel import TEAM, Duel
from gridghost.envs.parallel import GridGhostParallelEnv, ParallelView, StepResults, _BothObserve

#: What ``parallel_env(controlled=...)`` takes besides ``None`` (both sides, the plain parallel env).
PARALLEL_CONTROLLED: tuple[str, ...] = ("ghosts",)


class GhostTeamParallelEnv(ParallelView):
    """PettingZoo's Parallel API for the ghosts alone against a fixed agent (see the module
    docstring): what ``gridghost.parallel_env(controlled="ghosts", ...)`` returns.

    Args:
        opponent: the agent's policy (see the module docstring); ``None`` means ``"random"``.
        render_mode: as :class:`~gridghost.envs.aec.GridGhostEnv`.
        opponent_obs_type: the encoding a policy ``opponent`` reads (default ``"dict"``).
        spec, **settings: the game's settings, as :func:`gridghost.parallel_env` takes them.

    Raises:
        TypeError, ValueError: any setting as :class:`~gridghost.envs.aec.GridGhostEnv`; what
            the team Gymnasium view refuses for ``controlled="ghosts"``: an opponent,
            ``obs_type="belief"`` (the ghosts have no belief), ``expert="optimal"``, a layout
            where the agent's opening move can end the game.
    """

    metadata: ClassVar[dict[str, Any]] = {
        **GridGhostParallelEnv.metadata,
        "name": "gridghost_ghost_team_v0",
    }

    def __init__(self, opponent: Any = None, render_mode: str | None = None, opponent_obs_type: str = "dict",
                 spec: GameSpec | Mapping[str, Any] | None = None, **settings: Any) -> None:
        aec = _BothObserve(render_mode, spec, **settings)
        self._duel = Duel(aec, TEAM, opponent, opponent_obs_type)
        self._view(aec, aec.possible_agents[1:])
        #: The agent's policy, as given (or ``"random"``).
        self.opponent = self._duel.team_opponent

    def _start(self, seed: int | None, options: dict[str, Any] | None) -> None:
        """Reset the game and play the opponent agent's opening move."""
        self._duel.reset(seed=seed, options=options)

    def _movers(self) -> tuple[str, ...]:
        """Every ghost: each step carries out every ghost's action."""
        return tuple(self.possible_agents)

    def step(self, actions: Mapping[str, Any]) -> StepResults:
        """The team's move (every ghost's, together), then the opponent agent's answer.

        Args:
            actions: every ghost's action, by name.

        Returns:
            ``(observations, rewards, terminations, truncations, infos)`` of every ghost; each
            reward is that ghost's rewards since its last step.

        Raises:
            TypeError: ``actions`` is not a mapping, or an action is not an int in 0..3.
            ValueError: ``actions`` names an unknown ghost, lacks a ghost's action, or holds an
                action out of range; nothing is carried out then.
            TypeError, ValueError: the ``opponent`` policy answers anything but an int in
                0..3 (named ``opponent``); nothing is carried out then either (see
                :mod:`gridghost.envs.duel`).
            RuntimeError: before ``reset`` or after the episode ended.
        """
        self._check_actions(actions)
        results = self._results(self._duel.turn(tuple(actions[name] for name in self.agents)))
        if self._duel.over():
            self.agents = []
        return results


def parallel_env(*, controlled: str | None = None, opponent: Any = None, **kwargs: Any
                 ) -> GridGhostParallelEnv | GhostTeamParallelEnv:
    """The game under PettingZoo's Parallel API.

    Args:
        controlled: ``None`` (the default): both sides are agents of the env, turn by turn
            (:class:`~gridghost.envs.parallel.GridGhostParallelEnv`). ``"ghosts"``: the ghosts
            alone, against ``opponent`` (:class:`GhostTeamParallelEnv`).
        opponent: the agent's policy for ``controlled="ghosts"``.
        **kwargs: the env's other arguments and the game's settings.

    Raises:
        ValueError: an unknown ``controlled``; ``opponent`` or ``opponent_obs_type`` without
            ``controlled="ghosts"``; any argument the chosen env refuses.
        TypeError: as the chosen env.
    """
    if check_controlled(controlled, opponent, kwargs.get("opponent_obs_type")) is None:
        return GridGhostParallelEnv(**kwargs)
    return GhostTeamParallelEnv(opponent=opponent, **kwargs)


def check_controlled(controlled: Any, opponent: Any = None, opponent_obs_type: Any = None) -> str | None:
    """Check a multi-agent env's ``controlled``, and that ``opponent`` and ``opponent_obs_type``
    are given only where an opponent plays inside the env: the one check of
    :func:`parallel_env` and of the multi-agent env behind RLlib's
    (:class:`~gridghost.integrations.turns.TurnBasedDictEnv`).

    Args:
        controlled: ``None`` (every side an agent of the env) or one of
            :data:`PARALLEL_CONTROLLED` (``"ghosts"``: the ghosts alone).
        opponent, opponent_obs_type: the opponent agent's policy and its encoding, as given
            (``None`` when not).

    Returns:
        ``controlled``.

    Raises:
        ValueError: ``controlled`` is a single learner (``"agent"``, ``"ghost"``: a
            Gymnasium view's) or anything else outside ``None`` and
            :data:`PARALLEL_CONTROLLED`; ``opponent`` or ``opponent_obs_type`` with
            ``controlled=None``.
    """
    if controlled in (AGENT, GHOST):
        raise ValueError(f"controlled={controlled!r} is a single learner: use the Gymnasium view (gymnasium.make("
                         f"'gridghost/GridGhost-v1', controlled={controlled!r}) or gridghost.GridGhostGymEnv); this "
                         f"env takes controlled=None (every side learns, turn by turn) or 'ghosts' (the ghosts alone, "
                         f"against a fixed agent)")
    check_choice(controlled, "controlled", PARALLEL_CONTROLLED, allow_none=True)
    if controlled is None:
        inside = (("opponent", opponent), ("opponent_obs_type", opponent_obs_type))
        given = [name for name, value in inside if value is not None]
        if given:
            raise ValueError(f"{given[0]} plays the agent inside the env, which needs controlled='ghosts'; with "
                             f"controlled=None every side learns")
    return cast(str | None, controlled)
