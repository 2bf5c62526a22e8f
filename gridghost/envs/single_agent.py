"""The Gymnasium env for one side of the game, :class:`GridGhostGymEnv`: a thin view over the
AEC env (:class:`~gridghost.envs.aec.GridGhostEnv`) through the turn loop of every single-agent
view (:class:`~gridghost.envs.duel.Duel`): one call moves the learner, then the opponent's
policy answers within the same call.

| Import        | ``gymnasium.make("gridghost/GridGhost-v1")`` (after ``import gridghost``)        |
|---------------|----------------------------------------------------------------------------------|
| Actions       | Discrete(4): 0 left, 1 down, 2 right, 3 up                                       |
| Observations  | any encoding (see :mod:`gridghost.sensing.observations`); by default             |
|               | ``"vector"``, a flat ``float32`` ``Box(26)``, the same space for both sides      |
| Options       | ``action_mask_in_obs``, ``append_step_count`` (needs ``max_cycles``)             |
| Step limit    | ``max_episode_steps=100`` learner steps (cycles) through Gymnasium's ``TimeLimit`` |

Rewards
    The controlled side's rewards of both half-turns of its step (see :mod:`gridghost.envs.aec`):
    with the reference's rewards, for the agent -1 per step, +100 at a goal, -50 when it walks
    into the ghost and -51 when the ghost catches it after a step, all / 100 with
    ``rewards="normalised"`` (this view's default); the ghost's are the negatives unless
    ``ghost_rewards`` says otherwise. A learning ghost's episode starts after the opponent agent's opening move, whose
    half-turn reward belongs to no step.

Episode end
    ``terminated`` when the ghost catches the agent or the agent reaches a goal; ``truncated``
    by ``TimeLimit`` (or by ``max_cycles``, when given). Both count cycles: a learner's step is
    its move and the opponent's answer, one cycle of the game.

Information
    The controlled side's AEC info (see :mod:`gridghost.envs.aec`: numeric by default, the same keys
    at the reset and at every step) with ``action_mask`` (``int8[4]``, 1 where the move changes
    the learner's cell; in the observation instead with ``action_mask_in_obs=True``) and
    ``is_success``: the agent reached a goal (``controlled="agent"``) or the ghost caught the
    agent (``"ghost"``); ``False`` after the reset. Its arrays are the caller's own copies.

Teams (``ghosts=k >= 2``, or ``controlled="ghosts"``; the same class and turn loop)
    ``controlled="agent"``: the agent learns against the team, ``opponent`` ``"chase"`` (the
    default: every ghost chases on its own, :meth:`~gridghost.core.game.Game.chase_actions`),
    ``"random"``, ``"minimax"`` (:func:`~gridghost.config.opponents.team_planner`) or a
    callable ``policy(observations) -> k actions`` of every ghost's observation by name (in
    ``opponent_obs_type``). ``controlled="ghosts"``: the whole team learns as one centralised
    env, for any ``k``: a ``MultiDiscrete([4] * k)`` action (ghost ``i``'s move at index ``i``),
    every ghost's observation stacked in ghost order (a ``Box`` gains a leading axis ``k``, a
    ``Dict`` becomes a ``Dict`` by ghost name, texts are joined with a space) and the mean of
    the ghosts' rewards. Its opponent agent answers the state the team's move leads to before
    that move is carried out (:mod:`gridghost.envs.duel`); the episode starts after its
    opening move, whose reward the first step pays. The info is ghost 0's, with
    ``action_mask`` ``int8[k, 4]``; :meth:`~GridGhostGymEnv.action_masks` gives ``bool[k * 4]``
    (what sb3-contrib's ``MaskablePPO`` reads). The Teams page says the rest.

Arguments
    ``gymnasium.make("gridghost/GridGhost-v1", controlled="agent", opponent=None,
    obs_type="vector", rewards="normalised", render_mode=None, **game)``; see
    :class:`GridGhostGymEnv`.

>>> import gymnasium, gridghost
>>> env = gymnasium.make("gridghost/GridGhost-v1", controlled="ghost", opponent="random",
...                      obs_type="vector")
>>> obs, info = env.reset(seed=3)
>>> obs.shape, env.action_space
((26,), Discrete(4))
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from gridghost.config.settings import REFERENCE_DEFAULTS, trainer_settings, with_defaults
from gridghost.core.checks import check_choice
from gridghost.core.names import AGENT
from gridghost.core.rules import NUM_ACTIONS
from gridghost.envs.aec import AECView, GridGhostEnv
from gridghost.envs.duel import CONTROLLED_SIDES, TEAM, Duel, _check_opening_cannot_end, detached

__all__ = ["CONTROLLED_SIDES", "Duel", "GridGhostGymEnv", "_check_opening_cannot_end", "detached",
           "make_reference_env"]


class GridGhostGymEnv(AECView, gymnasium.Env):
    """The game as a standard Gymnasium env for one side; the other side is played by a policy.

    Registered as ``gridghost/GridGhost-v1`` (``TimeLimit`` of 100 steps); see the module
    docstring for spaces, rewards and infos. Its defaults are made for trainers
    (:data:`~gridghost.config.TRAINER_DEFAULTS`: ``obs_type="vector"``, ``rewards="normalised"``),
    where the AEC env keeps the reference's.

    Args:
        controlled: the learner's side, ``"agent"`` (default) or ``"ghost"``, or ``"ghosts"``
            (the team, see the module docstring); or a mapping of every argument by name, alone
            (RLlib builds an env class as ``cls(env_config)``).
        opponent: the other side's policy, as :class:`Duel` accepts; ``None`` means the chasing
            ghost against a learning agent and a random agent against a learning ghost.
        render_mode: ``None`` or one of ``metadata["render_modes"]``; passed to the AEC env.
        opponent_obs_type: the encoding the opponent's policy reads (``"dict"`` by default).
        **game: the game's settings, forwarded to :class:`~gridghost.envs.aec.GridGhostEnv` as they
            are: ``spec=`` (``config=``) or the settings one by one
            (:class:`~gridghost.config.settings.GameSpec`), with this view's defaults (above, and
            ``max_cycles=None``: ``TimeLimit`` truncates, see the module docstring).
            ``obs_type="belief"`` serves ``controlled="agent"`` only; with a ``belief_filter``
            the agent's info holds ``estimated_pos``; with an ``expert`` the learner's info
            holds ``expert_action`` while the game goes on.

    Raises:
        ValueError, TypeError: any argument outside what is accepted (see :class:`Duel` and
            :class:`~gridghost.envs.aec.GridGhostEnv`); a mapping of arguments next to other
            arguments.
    """

    metadata = {  # noqa: RUF012 - Gymnasium declares it an instance attribute
        "render_modes": GridGhostEnv.metadata["render_modes"],
        "render_fps": GridGhostEnv.metadata["render_fps"],
    }

    def __init__(
        self,
        controlled: str | Mapping[str, Any] = AGENT,
        opponent: Any = None,
        render_mode: str | None = None,
        opponent_obs_type: str = "dict",
        **game: Any,
    ) -> None:
        if isinstance(controlled, Mapping):  # RLlib's env_config: every argument by name
            if opponent is not None or render_mode is not None or opponent_obs_type != "dict" or game:
                raise TypeError("pass GridGhostGymEnv's arguments as one mapping (RLlib's env_config) or by name, "
                                "not both")
            self.__init__(**controlled)  # type: ignore[misc]
            return
        check_choice(controlled, "controlled", (*CONTROLLED_SIDES, TEAM))
        # The AEC game this view drives: the trainers' settings, with no step limit of its own
        # (TimeLimit truncates this view, in steps, each a cycle: the learner's move and the answer).
        self.game = self._aec = GridGhostEnv(render_mode, **with_defaults(trainer_settings(game), {"max_cycles": None}))
        self.duel = Duel(self.game, controlled, opponent, opponent_obs_type)
        self.controlled = controlled
        self.render_mode = self.game.render_mode
        names = self.duel.learners
        self.observation_space = self.game.observation_space(names[0])
        self.action_space = self.game.action_space(names[0])
        self._stack: str | None = None
        if controlled == TEAM:
            self.observation_space = self._stacked_space(self.observation_space, names)
            self.action_space = spaces.MultiDiscrete(np.full(len(names), NUM_ACTIONS, dtype=np.int64))

    def _stacked_space(self, space: spaces.Space[Any], names: tuple[str, ...]) -> spaces.Space[Any]:
        """A learning team's observation space from one ghost's (see the module docstring)."""
        k = len(names)
        if isinstance(space, spaces.Box):
            self._stack = "box"
            return spaces.Box(np.stack([space.low] * k), np.stack([space.high] * k), dtype=space.dtype)
        if isinstance(space, spaces.Text):
            self._stack = "text"
            return spaces.Text(max_length=k * space.max_length + k - 1, min_length=space.min_length,
                               charset=space.character_set)
        self._stack = "dict"
        return spaces.Dict({name: self.game.observation_space(name) for name in names})

    def _observe(self) -> Any:
        """The learner's observation: its own, or a learning team's stack in ghost order."""
        game, stack = self.game, self._stack
        if stack is None:
            return game.observe(self.duel._me)
        observations = [game.observe(name) for name in self.duel.learners]
        if stack == "box":
            return np.stack(observations)
        if stack == "text":
            return " ".join(observations)
        return dict(zip(self.duel.learners, observations, strict=True))

    @property
    def np_random(self) -> np.random.Generator:
        """The game's generator (slip and sensor draws), which is this env's."""
        return self.game.np_random

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        self.game.np_random = value
        self._np_random = value

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Start an episode; a learning ghost first sees the opponent agent's opening move.

        Args:
            seed: seeds the game (and, on a stream of its own, the opponent); ``None``
                continues the streams.
            options: accepted for API compatibility; nothing is read from it.

        Returns:
            The learner's first observation and a fresh info dict.

        Raises:
            TypeError: ``options`` is neither ``None`` nor a dict.
        """
        self.duel.reset(seed=seed, options=options)
        # Gymnasium's tools (the env checker) read the env's generator here: it is the game's.
        self._np_random, self._np_random_seed = self.game.np_random, self.game.np_random_seed
        info = self.duel.info()
        info["is_success"] = False  # the same keys as every step's info
        return self._observe(), info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The learner moves, then the opponent answers.

        Returns:
            ``(observation, reward, terminated, truncated, info)`` as Gymnasium defines them.

        Raises:
            TypeError, ValueError: ``action`` is not an int in 0..3 (nothing changes).
            RuntimeError: before ``reset`` or after the episode ended.
        """
        reward, terminated, truncated, info = self.duel.play(action)
        info["is_success"] = self.duel.success()
        if self._stack is None:
            return self.game.observe(self.controlled), float(reward), terminated, truncated, info
        # a learning team: the mean of its ghosts' rewards
        return self._observe(), float(reward.mean()), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Which actions move the learner: ``bool[4]``, or ``bool[k * 4]`` (ghost by ghost) for a
        learning team, as sb3-contrib's ``MaskablePPO`` reads.

        Raises:
            RuntimeError: before ``reset``.
        """
        state, masks = self.game.game_state, self.game.board.action_mask
        cells = (state.agent,) if self.controlled == AGENT else state.ghosts
        return np.concatenate([masks[cell] for cell in cells]).astype(bool)

    def set_overlay(self, values: Any = None, policy: Any = None, **style: Any) -> None:
        """Draw numbers per cell and/or a policy's arrows over every following frame, as
        :meth:`gridghost.envs.aec.GridGhostEnv.set_overlay` (which it calls)."""
        self.game.set_overlay(values, policy, **style)


def make_reference_env(controlled: Any = AGENT, **game: Any) -> GridGhostGymEnv:
    """The entry point of ``gridghost/GridGhost-v0``, the id before 0.3.0: :class:`GridGhostGymEnv`
    with the game's own defaults (:data:`~gridghost.config.REFERENCE_DEFAULTS`: the reference's
    dict observation and rewards) for those settings the caller leaves out, as that id gave then.

    Args:
        controlled, **game: as :class:`GridGhostGymEnv` takes them (a mapping of every argument
            too).

    Returns:
        The env.

    Raises:
        ValueError, TypeError: as :class:`GridGhostGymEnv`.
    """
    if isinstance(controlled, Mapping) and not game:
        return GridGhostGymEnv(trainer_settings(controlled, REFERENCE_DEFAULTS))
    return GridGhostGymEnv(controlled, **trainer_settings(game, REFERENCE_DEFAULTS))
