"""The turn-based game as a PettingZoo Parallel environment, for trainers that step all agents at once.

| Import        | ``import gridghost; env = gridghost.parallel_env()``                          |
|---------------|-------------------------------------------------------------------------------|
| Agents        | ``["agent", "ghost"]``; ``["agent"]`` with ``use_ghost=False``                |
| Actions       | Discrete(4) for both; only the side to move has its action carried out        |
| Observations  | the AEC env's encodings, each saying whether the observer moves next          |
| Registered    | ``pettingzoo.make("parallel", "gridghost/GridGhost-v1")``                     |

The game stays turn-based: the ghost sees where the agent's move took it. A parallel ``step`` is
one half-turn. Both sides send an action; the mover's is carried out, the waiting side's is
checked and dropped. Both sides observe after every step, so each step's ``rewards`` are that
half-turn's rewards for both sides, and nothing waits for a later observation. Under the
default zero-sum rewards the two sides' returns of every episode sum to exactly 0.

The semantics are those of ``pettingzoo.utils.turn_based_aec_to_parallel`` over
:func:`gridghost.raw_env`, with the same rewards, terminations, truncations and infos (numeric,
with ``info["to_move"]``, the side to move next: 0 the agent, 1 the ghost, where PettingZoo's
conversion adds the text ``active_agent``). There are two
differences, each one so that a trainer can tell whose turn it is:

- Every observation says whether the observer moves next. ``"grid"`` and ``"text"`` say so
  already. ``"vector"`` and ``"belief_vector"`` get one more slot at the end, and ``"dict"`` and
  ``"belief"`` a ``"to_move"`` entry (see :class:`~gridghost.sensing.observations.TurnObservations`).
- The waiting side's ``info["action_mask"]`` (and, with ``action_mask_in_obs=True``, the mask in
  its observation) allows exactly one action,
  :data:`~gridghost.sensing.NO_OP_ACTION` (0): its no-op. Whatever the waiting side sends
  (any valid action, or ``None``) is not carried out. A mask is never all zeros, which masked
  samplers would divide by; a learner may drop the waiting side's steps from its batch, or
  keep them: their one legal action has log-probability 0 and no gradient.

``max_cycles`` counts game cycles (the agent's move and the ghost's answer), as in every view:
an episode lasts at most ``2 * max_cycles`` parallel steps (``max_cycles`` with
``use_ghost=False``). Before 0.4 it counted parallel steps (half-turns, default 200); halve such
a number.

Teams (``ghosts=k``, ``k >= 2``): a step is the agent's move or the whole team's (every ghost's
action required), the other side sending its no-op; the Teams page says more, and
:mod:`gridghost.envs.ghost_team` serves the ghosts alone (``controlled="ghosts"``).

Once the game ends, the step that ended it reports the terminations or truncations of both
sides and ``agents`` becomes empty. There are no dead steps; the view takes them on the AEC
env behind it.

Arguments
    ``gridghost.parallel_env(render_mode=None, spec=None, **settings)``: the game's settings as
    :class:`~gridghost.envs.aec.GridGhostEnv` takes them (``spec=``, ``config=``, or one by one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
from pettingzoo import ParallelEnv

from gridghost import _moved
from gridghost.config.settings import GameSpec
from gridghost.core.checks import check_action
from gridghost.core.names import AGENT
from gridghost.envs.aec import AECView, AgentSpaces, GridGhostEnv
from gridghost.envs.infos import writable_copy
from gridghost.sensing.observations import WAITING_MASK

#: The parallel view's default ``max_cycles``, in game cycles as everywhere (before 0.4: 200
#: half-turns).
DEFAULT_MAX_CYCLES = 100
#: What a parallel env's ``step`` returns: ``(observations, rewards, terminations, truncations,
#: infos)``, each by agent name.
StepResults = tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]


class _BothObserve(GridGhostEnv):
    """The AEC game whose encodings say whose turn it is, behind :class:`GridGhostParallelEnv`."""

    _both_observe = True


class ParallelView(AECView, AgentSpaces, ParallelEnv):
    """What every parallel env of the game shares, over the AEC game :attr:`aec_env`: its
    spaces, settings, map, state, rendering, reset and infos. The plain parallel env
    (:class:`GridGhostParallelEnv`) and the ghosts alone
    (:class:`~gridghost.envs.ghost_team.GhostTeamParallelEnv`) are its subclasses; each sets
    its agents with :meth:`_view`, says whose actions a step carries out (:meth:`_movers`) and
    steps in its own way.
    """

    def _view(self, aec: GridGhostEnv, agents: Sequence[str]) -> None:
        """Serve ``aec`` with ``agents`` (some of its agents) as this env's agents."""
        #: The AEC game this view steps.
        self.aec_env: GridGhostEnv = aec
        self._aec = aec
        #: Game cycles before truncation (``None``: no limit), as in the AEC env.
        self.max_cycles = aec.max_cycles
        self.render_mode = aec.render_mode
        self.possible_agents = list(agents)
        self.agents: list[str] = []
        self.observation_spaces = {name: aec.observation_space(name) for name in self.possible_agents}
        self.action_spaces = {name: aec.action_space(name) for name in self.possible_agents}
        self.state_space = aec.state_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """Start an episode; as :meth:`gridghost.envs.aec.GridGhostEnv.reset` (the ghosts alone
        first see the opponent agent's opening move).

        Returns:
            Every agent's observation and info.

        Raises:
            TypeError, ValueError: as :meth:`gridghost.envs.aec.GridGhostEnv.reset`.
        """
        self._start(seed, options)
        aec = self.aec_env
        self.agents = [name for name in aec.agents if name in self.observation_spaces]
        # After a reset every info array is writable and its own, as the AEC env's (trainers build specs from them).
        infos = {name: writable_copy(info) for name, info in self._infos().items()}
        return {name: aec.observe(name) for name in self.agents}, infos

    def _start(self, seed: int | None, options: dict[str, Any] | None) -> None:
        """Reset the game behind this env."""
        self.aec_env.reset(seed=seed, options=options)

    def _movers(self) -> tuple[str, ...]:
        """The agents whose actions the next step carries out."""
        raise NotImplementedError

    #: What this env's agents are, in its refusals (``"sides"``, or the ghosts' ``"agents"``).
    _agents_are = "agents"

    def _check_actions(self, actions: Any) -> tuple[str, ...]:
        """Refuse a step's ``actions`` before anything is carried out: the episode over, not a
        mapping, a name that is not one of this env's agents, a mover's action missing, or any
        given action that is not an int in 0..3 (a waiting agent's too).

        Returns:
            The movers (:meth:`_movers`), whose actions the step carries out.

        Raises:
            RuntimeError: before ``reset`` or after the episode ended.
            TypeError, ValueError: as above, naming ``actions`` or the agent.
        """
        if not self.agents:
            raise RuntimeError("the episode is over (or has not started); call reset()")
        if not isinstance(actions, Mapping):
            raise TypeError(f"actions must be a dict mapping each of the {self._agents_are} to its action, got "
                            f"{actions!r}")
        unknown = sorted(map(str, set(actions) - set(self.possible_agents)))
        if unknown:
            raise ValueError(f"actions names unknown {self._agents_are} {unknown}; the {self._agents_are} are "
                             f"{self.possible_agents}")
        movers = self._movers()
        for mover in movers:
            if actions.get(mover) is None:
                raise ValueError(f"actions must hold an action for {mover!r}, one of {list(movers)} to move "
                                 f"(info['to_move'])")
        for name, action in actions.items():  # every action checked before any is carried out
            if action is not None:
                check_action(action, name)
        return movers

    def _infos(self) -> dict[str, dict[str, Any]]:
        """Fresh infos of every agent, the mask of one that waits or whose episode is over
        allowing only the no-op."""
        aec = self.aec_env
        movers = self._movers()
        infos = {}
        for name in self.agents:
            info = dict(aec.infos[name])
            if "action_mask" in info and (name not in movers or aec.terminations[name] or aec.truncations[name]):
                info["action_mask"] = WAITING_MASK
            infos[name] = info
        return infos

    def _results(self, rewards: Sequence[float]) -> StepResults:
        """What a step returns, ``(observations, rewards, terminations, truncations, infos)``, for
        every agent alive at it; ``rewards`` are theirs, in their order."""
        aec, alive = self.aec_env, self.agents
        return ({name: aec.observe(name) for name in alive},
                {name: float(reward) for name, reward in zip(alive, rewards, strict=True)},
                {name: aec.terminations[name] for name in alive}, {name: aec.truncations[name] for name in alive},
                self._infos())

    def state(self) -> np.ndarray:
        """The global state, as :meth:`gridghost.envs.aec.GridGhostEnv.state`."""
        return self.aec_env.state()


class GridGhostParallelEnv(ParallelView):
    """PettingZoo's Parallel API over the turn-based game (see the module docstring).

    Args:
        render_mode: as :class:`~gridghost.envs.aec.GridGhostEnv`.
        spec, **settings: the game's settings, as :class:`~gridghost.envs.aec.GridGhostEnv` takes
            them (``max_cycles`` counts game cycles, see the module docstring).

    Raises:
        TypeError, ValueError: any setting as :class:`~gridghost.envs.aec.GridGhostEnv`.
    """

    metadata: ClassVar[dict[str, Any]] = {
        **GridGhostEnv.metadata,
        "name": "gridghost_parallel_v0",
        "is_parallelizable": True,
    }
    _agents_are = "sides"

    def __init__(self, render_mode: str | None = None, spec: GameSpec | Mapping[str, Any] | None = None,
                 **settings: Any) -> None:
        aec = _BothObserve(render_mode, spec, **settings)
        self._view(aec, aec.possible_agents)
        # The sides that move together when the ghosts move: the team (one parallel step), or the ghost.
        self._ghost_movers = tuple(self.possible_agents[1:])

    def step(self, actions: Mapping[str, Any]) -> StepResults:
        """Carry out the half-turn of the side to move.

        Args:
            actions: an action per side. The mover's is required. The waiting side's may be
                left out or ``None``; when given it must be valid too, and it is not carried out.

        Returns:
            ``(observations, rewards, terminations, truncations, infos)``, one entry per side
            that was alive at the step.

        Raises:
            TypeError: ``actions`` is not a mapping, or an action is not an int in 0..3.
            ValueError: ``actions`` names an unknown side, lacks the mover's action (a team's: every
                ghost's), or holds an action out of range; nothing is carried out then.
            RuntimeError: before ``reset`` or after the episode ended.
        """
        movers = self._check_actions(actions)
        aec = self.aec_env
        for mover in movers:
            aec.step(actions[mover])
        results = self._results([aec.rewards[name] for name in self.agents])
        while aec.agents and (aec.terminations[aec.agent_selection] or aec.truncations[aec.agent_selection]):
            aec.step(None)  # the AEC env's dead steps, taken here
        self.agents = list(aec.agents)
        return results

    def _movers(self) -> tuple[str, ...]:
        """The agents whose actions this step carries out: the agent, or every ghost."""
        return (AGENT,) if self.aec_env.agent_selection == AGENT else self._ghost_movers


def __getattr__(name: str) -> Any:
    """``parallel_env``, read from here as before it moved (see :mod:`gridghost._moved`)."""
    return _moved.moved_name(__name__, name)
