"""The turn-based game as dictionaries of the side that observes next (RLlib's multi-agent form).

At reset only the agent observes. After each step, the side to move next observes: with a team
(``ghosts=k``), the agent, then ``ghost_0``, ..., ``ghost_{k-1}`` one after another, each
choosing from the same state (the team's moves take effect together once the last ghost has
chosen). When the game ends, every side receives its last observation, reward and termination
(or truncation) in the same step, and ``"__all__"`` is set. Rewards follow the reward-credit
rule of :mod:`gridghost.integrations`: a side's first observation reports 0, and the reward held
back then is paid with its next one.

The ghosts alone (``controlled="ghosts"``, with ``opponent=``): the agent is played inside the
env by a fixed policy, as in :func:`gridghost.parallel_env` with ``controlled="ghosts"``, which
this form then drives. Every ghost observes at every step, and each step is the team's move and
the agent's answer. A ghost's first step also pays its rewards for the agent's opening move.

Modules: a team learns with one module shared by every ghost. :func:`module_of` maps the agent
to the module ``"agent"`` and every ghost (``ghost``, ``ghost_0``, ...) to ``"ghost"``
(:data:`MODULES`), for every team size.

No library is needed here. :mod:`gridghost.integrations.rllib` makes this an RLlib
``MultiAgentEnv``.

>>> env = TurnBasedDictEnv(obs_type="vector")
>>> observations, infos = env.reset(seed=1)
>>> list(observations)
['agent']
>>> observations, rewards, terminations, truncations, infos = env.step({"agent": 0})
>>> # the ghost's +1 for the agent's opening move is held back
>>> list(observations), rewards
(['ghost'], {'ghost': 0.0})
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gymnasium import spaces

from gridghost.config import trainer_settings
from gridghost.core.names import AGENT, GHOST, MAX_GHOSTS, ghost_names
from gridghost.envs.aec import GridGhostEnv, make_game
from gridghost.envs.ghost_team import GhostTeamParallelEnv, check_controlled

#: The key of RLlib's "every agent is done" flag in the termination and truncation dicts.
ALL = "__all__"
#: The module ids of a run where both sides learn: the agent's, and the one the ghosts share.
MODULES: tuple[str, str] = (AGENT, GHOST)
#: A ghost's agent name: ``ghost`` (one ghost) or ``ghost_0`` ... ``ghost_{MAX_GHOSTS - 1}``.
_GHOST_NAMES = frozenset(name for ghosts in range(1, MAX_GHOSTS + 1) for name in ghost_names(ghosts))
#: What a step returns: ``(observations, rewards, terminations, truncations, infos)``, by side.
DictStep = tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]


def module_of(agent_id: str, *args: Any, **kwargs: Any) -> str:
    """The module that plays ``agent_id``: ``"agent"`` for the agent, ``"ghost"`` for every ghost,
    whatever the team's size (one module shared by the team). It has the signature of RLlib's
    ``policy_mapping_fn``: ``config.multi_agent(policies=set(MODULES), policy_mapping_fn=module_of)``.

    Args:
        agent_id: an agent name of the game: ``"agent"``, ``"ghost"``, or ``"ghost_0"`` to
            ``"ghost_3"``.
        *args, **kwargs: what RLlib passes besides (the episode, ...); not read.

    Returns:
        ``"agent"`` or ``"ghost"``.

    Raises:
        TypeError: ``agent_id`` is not a str.
        ValueError: ``agent_id`` is no agent name of the game.

    >>> [module_of(name) for name in ("agent", "ghost", "ghost_0", "ghost_3")]
    ['agent', 'ghost', 'ghost', 'ghost']
    """
    if not isinstance(agent_id, str):
        raise TypeError(f"agent_id must be an agent name (a str), got {agent_id!r}")
    if agent_id == AGENT:
        return AGENT
    if agent_id in _GHOST_NAMES:
        return GHOST
    raise ValueError(f"agent_id must be {AGENT!r}, {GHOST!r} or 'ghost_0' to 'ghost_{MAX_GHOSTS - 1}', "
                     f"got {agent_id!r}")


class TurnBasedDictEnv:
    """The AEC game driven through dictionaries keyed by the sides that observe next.

    Args:
        controlled: ``None`` (every side learns, turn by turn) or ``"ghosts"`` (the ghosts
            alone, against ``opponent``; see the module docstring).
        opponent: with ``controlled="ghosts"``, the agent's policy: ``"random"`` (the default),
            ``"minimax"``, ``"optimal"`` or a policy, as :func:`gridghost.parallel_env` takes it
            (``opponent_obs_type=`` too).
        **game: the game's settings, as :class:`~gridghost.envs.aec.GridGhostEnv` takes them, or
            ``config=``; for trainers, ``obs_type`` and ``rewards`` default to
            :data:`~gridghost.config.TRAINER_DEFAULTS` (``"vector"``, ``"normalised"``).

    Raises:
        ValueError: on a fixed map where the agent's opening move can end the game. The
            ghosts would then end an episode without having observed, and their rewards would
            be lost. A map generator never draws such maps.
        ValueError: ``controlled`` is not ``None`` or ``"ghosts"``; ``opponent`` or
            ``opponent_obs_type`` without ``controlled="ghosts"``.
        TypeError, ValueError: any game setting, as :class:`~gridghost.envs.aec.GridGhostEnv`;
            an opponent, as :func:`gridghost.parallel_env`.

    Attributes:
        possible_agents: every side that can observe.
        agents: the sides in the episode; once it has ended, those of the last step's dicts, until
            :meth:`reset` (RLlib checks a step's keys against them). Empty before the first reset.
    """

    def __init__(self, *, controlled: str | None = None, opponent: Any = None, **game: Any) -> None:
        settings = trainer_settings(game)
        #: The ghosts-alone env this form drives (``controlled="ghosts"``), or ``None``.
        self.team: GhostTeamParallelEnv | None = None
        self.controlled = check_controlled(controlled, opponent, settings.get("opponent_obs_type"))
        if controlled is None:
            self.game: GridGhostEnv = make_game(GridGhostEnv, **settings)
            if self.game.use_ghost and self.game.maps is None and self.game.kernel.opening_can_end():
                raise ValueError(
                    f"layout {self.game.layout.name or '(unnamed)'}: the agent's opening move can end the game "
                    "before the ghosts' first observation, so their rewards would be lost; use a map where the "
                    "agent starts at least 3 steps from every ghost and every goal"
                )
            self.possible_agents: list[str] = list(self.game.possible_agents)
        else:
            team = GhostTeamParallelEnv(opponent=opponent, **settings)  # parallel_env(controlled="ghosts")'s env
            self.team, self.game = team, team.aec_env
            self.possible_agents = list(team.possible_agents)
        self.agents: list[str] = []
        self.observation_spaces: dict[str, spaces.Space[Any]] = {
            name: self.game.observation_space(name) for name in self.possible_agents}
        self.action_spaces: dict[str, spaces.Space[Any]] = {
            name: self.game.action_space(name) for name in self.possible_agents}
        self._observed: set[str] = set()
        self._held: dict[str, float] = {}
        self._over = True  # no episode to step: not started, or ended

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """Start an episode (``seed``, ``options`` as :meth:`gridghost.envs.aec.GridGhostEnv.reset`).

        Returns:
            The observations and infos of the sides that observe first: the agent's, each in a
            dict keyed ``"agent"``; with ``controlled="ghosts"``, every ghost's, after the
            agent's opening move.
        """
        if self.team is not None:
            observations, infos = self.team.reset(seed=seed, options=options)
            self.agents, self._over = list(self.team.agents), False
            return self._shown(observations), infos
        game = self.game
        game.reset(seed=seed, options=options)
        self.agents, self._over = list(game.agents), False
        mover = game.agent_selection
        self._observed = {mover}
        self._held = dict.fromkeys(self.possible_agents, 0.0)
        return self._shown({mover: game.observe(mover)}), {mover: dict(game.infos[mover])}

    def step(self, action_dict: Mapping[str, Any]) -> DictStep:
        """Carry out the moves of the sides that observed last.

        Args:
            action_dict: ``{side: action}`` for the sides that observed last (the side to move;
                with ``controlled="ghosts"``, every ghost), and nothing else.

        Returns:
            ``(observations, rewards, terminations, truncations, infos)`` for the sides that
            observe now. The terminations and truncations also hold ``"__all__"``.

        Raises:
            TypeError: ``action_dict`` is not a mapping; an action is not an int in 0..3.
            ValueError: ``action_dict`` does not hold exactly the actions of the sides to move;
                an action is out of range.
            RuntimeError: before ``reset`` or after the episode ended.
        """
        game = self.game
        if self._over:
            raise RuntimeError("the episode is over (or has not started); call reset()")
        if not isinstance(action_dict, Mapping):
            raise TypeError(f"action_dict must be a dict {{side: action}}, got {action_dict!r}")
        movers = self.agents if self.team is not None else [game.agent_selection]
        if set(action_dict) != set(movers):
            raise ValueError(f"action_dict must hold exactly the actions of {movers}, the sides to move; "
                             f"got the keys {sorted(map(str, action_dict))}")
        if self.team is not None:
            observations, rewards, terminations, truncations, infos = self.team.step(action_dict)
        else:
            observations, rewards, terminations, truncations, infos = self._play(action_dict[movers[0]])
        self.agents = list(self.team.agents if self.team is not None else game.agents)
        over = self._over = not self.agents
        if over:  # the sides of the last step's dicts stay until reset, as RLlib reads them
            self.agents = list(observations)
        terminations[ALL] = over and all(terminations[name] for name in observations)
        truncations[ALL] = over and not terminations[ALL]
        return self._shown(observations), rewards, terminations, truncations, infos

    def _shown(self, observations: dict[str, Any]) -> dict[str, Any]:
        """The observations as :meth:`reset` and :meth:`step` return them (the RLlib env renames
        the mask's keys)."""
        return observations

    def _play(self, action: Any) -> DictStep:
        """The mover's half-turn in the AEC game, and what the sides that observe next receive
        (every side, with their dead steps taken, when the game ends)."""
        game = self.game
        game.step(action)
        result: DictStep = ({}, {}, {}, {}, {})
        observations, rewards, terminations, truncations, infos = result
        while game.agents:
            name = game.agent_selection
            observation, reward, terminated, truncated, info = game.last()
            if name in self._observed:
                reward += self._held[name]
                self._held[name] = 0.0
            else:  # its first observation: RLlib would file this reward outside its episode
                self._observed.add(name)
                self._held[name] += reward
                reward = 0.0
            observations[name], rewards[name], infos[name] = observation, float(reward), dict(info)
            terminations[name], truncations[name] = terminated, truncated
            if not (terminated or truncated):
                break
            game.step(None)
        return result

    def render(self) -> Any:
        """Render the game, as :meth:`gridghost.envs.aec.GridGhostEnv.render`."""
        return self.game.render()

    def close(self) -> None:
        """Close the game's window, if any."""
        self.game.close()
