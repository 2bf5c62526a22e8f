"""``gridghost/GridGhost-v1`` as a Gymnasium vector env over the batched engine.
"""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from gridghost.batched.engine import AUTORESET_MODES, GYMNASIUM_MODES, BatchedGame
from gridghost.batched.limits import TooManyGames, UnsupportedSetting, check_count
from gridghost.batched.positions import TEAM
from gridghost.config import REFERENCE_DEFAULTS, trainer_settings
from gridghost.core.checks import check_choice, check_flag
from gridghost.core.names import AGENT, AGENTS
from gridghost.core.rules import NUM_ACTIONS


# -- the Gymnasium vector env -------------------------------------------------------------------------
class GridGhostVectorEnv(VectorEnv):
    """``gridghost/GridGhost-v1`` for N games as one :class:`gymnasium.vector.VectorEnv` over a
    :class:`BatchedGame`: what ``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``
    returns. Its spaces, and its auto-reset, are those of ``SyncVectorEnv`` of the same envs
    (each a ``GridGhostGymEnv`` in a ``TimeLimit``).

    Infos follow Gymnasium's vector convention (a key holds an array over the envs, ``_key`` a
    ``bool[N]`` mask of where it is set) and hold only NumPy arrays of numbers. A step where no
    episode ends returns ``{}``. A step where episodes end (terminated or truncated) holds, set
    for those envs (0 elsewhere):

    - ``episode_return``: ``float64[N]``, the learner's undiscounted return of the episode that
      ended (the sum of the rewards this env returned for it; a learning ghost's includes its
      reward for the opponent agent's opening move, paid with its first step);
    - ``episode_length``: ``int64[N]``, the learner's steps in it (the call that restarts a game
      in next-step mode is no step of either episode, as ``RecordEpisodeStatistics`` counts);
    - ``is_success``: ``bool[N]``, the learner won: with ``controlled="agent"`` the agent reached
      a goal, with ``controlled="ghost"`` the ghost caught the agent (a truncated episode is no
      success);
    - with each, ``_episode_return``, ``_episode_length``, ``_is_success``: the mask of the envs
      whose episode ended;
    - in same-step mode also ``final_obs`` (an object array holding the final observations of
      those envs, ``None`` elsewhere) and ``final_info`` (``{}``), with their masks, as
      ``SyncVectorEnv``'s.

    The keys are not ``RecordEpisodeStatistics``'s ``"episode"``/``"_episode"``, so that wrapper
    can still be put around this env (it refuses an info that already holds its key).

    Args:
        num_envs: N.
        controlled: ``"agent"`` or ``"ghost"``, the learning side; with ``ghosts >= 2``,
            ``"agent"`` or ``"ghosts"``: the whole team learning as one env, its action
            ``MultiDiscrete([4] * k)``, its observation every ghost's stacked (``k x D``), its reward
            the mean of its ghosts' (as the team's Gymnasium view).
        opponent: the other side, as :class:`BatchedGame` takes it.
        max_episode_steps: the ``TimeLimit`` in steps, each a cycle (the learner's move and the
            opponent's answer), the unit of ``max_cycles`` (``make_vec`` passes the registered 100).
        autoreset_mode: ``gymnasium.vector.AutoresetMode.NEXT_STEP`` (default, as
            ``SyncVectorEnv``) or ``SAME_STEP``; also accepted as ``"next_step"``/``"same_step"``.
        copy: return copies of the observations (as ``SyncVectorEnv(copy=True)``); ``False``
            returns the engine's buffers, overwritten by the next step.
        **settings: the game's settings, as :class:`BatchedGame` takes them (``spec=`` too), with
            the Gymnasium views' defaults (:data:`~gridghost.config.TRAINER_DEFAULTS`:
            ``obs_type="vector"``, ``rewards="normalised"``), and its ``table_bytes`` (the tables'
            memory budget; raise it for many levels).

    Raises:
        TypeError, ValueError, UnsupportedSetting: as :class:`BatchedGame`; what the engine does
            not serve is an :class:`UnsupportedSetting`, which :func:`make_vector_env` answers with
            ``SyncVectorEnv`` of the single envs.
    """

    metadata: dict[str, Any] = {"render_modes": [], "autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012

    def __init__(self, num_envs: int = 1, controlled: str = AGENT, opponent: Any = None, *,
                 max_episode_steps: int | None = None, autoreset_mode: Any = AutoresetMode.NEXT_STEP,
                 copy: bool = True, **settings: Any) -> None:
        check_choice(controlled, "controlled", (*AGENTS, TEAM))
        mode = GYMNASIUM_MODES.get(autoreset_mode, autoreset_mode)
        check_choice(mode, "autoreset_mode", AUTORESET_MODES)
        self.copy = check_flag(copy, "copy")
        check_count(num_envs, "num_envs")  # the engine's own checks would name its num_games
        try:
            self.game = BatchedGame(num_envs, controlled=controlled, opponent=opponent,
                                    max_episode_steps=max_episode_steps, autoreset_mode=mode,
                                    **trainer_settings(settings))
        except TooManyGames as error:
            raise error.renamed("num_envs") from None
        self.num_envs = self.game.num_games
        self.controlled = controlled
        self.autoreset_mode = AutoresetMode.NEXT_STEP if mode == "next_step" else AutoresetMode.SAME_STEP
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        self.render_mode = None
        self.single_observation_space = self.game.observation_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.single_action_space: spaces.Space[Any] = spaces.Discrete(NUM_ACTIONS)
        if controlled == TEAM:  # the team's joint move, ghost i's at index i, as the team's Gymnasium view's
            self.single_action_space = spaces.MultiDiscrete(np.full(self.game.spec.ghosts, NUM_ACTIONS, dtype=np.int64))
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._step = self.game.step_agent if controlled == AGENT else self.game.step_ghost

    def reset(self, *, seed: int | list[int] | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Start new episodes in every game (or those of ``options["reset_mask"]``, a bool array).

        Args:
            seed: an int (or a list of ints) seeding the batch's one generator; ``None``
                continues it.
            options: ``None`` or a dict; only ``"reset_mask"`` is read.

        Returns:
            The observations and an empty info dict.

        Raises:
            TypeError, ValueError: a bad seed, options or mask.
        """
        if options is not None and not isinstance(options, dict):
            raise TypeError(f"options must be a dict or None, got {options!r}")
        mask = None if options is None else options.get("reset_mask")
        if mask is not None and (not isinstance(mask, np.ndarray) or mask.dtype != bool
                                 or mask.shape != (self.num_envs,) or not mask.any()):
            raise ValueError(f"options['reset_mask'] must be a bool array of shape ({self.num_envs},) with a True")
        observations = self.game.reset(seed=seed, games=mask)[self.controlled]
        return (observations.copy() if self.copy else observations), {}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every game: the learner's action, then the opponent's answer; games that ended
        reset as ``autoreset_mode`` says.

        Returns:
            ``(observations, rewards, terminations, truncations, infos)``, the infos as the class
            docstring says.

        Raises:
            TypeError, ValueError: ``actions`` is not an int array of shape ``(N,)`` in 0..3.
        """
        result = self._step(actions)
        observations = result.observations[self.controlled]
        rewards = result.rewards[self.controlled]
        infos: dict[str, Any] = {}
        done = result.terminations | result.truncations
        if done.any():
            returns, lengths, successes = self.game.episodes()
            if returns.ndim > 1:  # a team: the mean of its ghosts', as its reward
                returns = returns.mean(axis=1)
            infos = {"episode_return": np.where(done, returns, 0.0), "_episode_return": done,
                     "episode_length": np.where(done, lengths, 0), "_episode_length": done.copy(),
                     "is_success": successes & done, "_is_success": done.copy()}
        if len(result.final_games):
            games = result.final_games
            final_obs = np.full(self.num_envs, None, dtype=object)
            for row, game in enumerate(games.tolist()):
                final_obs[game] = result.final_observations[self.controlled][row]
            mask = np.zeros(self.num_envs, dtype=bool)
            mask[games] = True
            infos.update({"final_obs": final_obs, "_final_obs": mask, "final_info": {}, "_final_info": mask.copy()})
        # a learning team's reward is the mean of its ghosts' (each with its credit), as the team's Gymnasium view pays
        rewards = rewards.mean(axis=1) if rewards.ndim > 1 else rewards.copy()
        return ((observations.copy() if self.copy else observations), rewards,
                result.terminations.copy(), result.truncations.copy(), infos)

    def action_masks(self) -> np.ndarray:
        """``bool[N, 4]``: which actions move the learner (a team's ``bool[N, k * 4]``, ghost by
        ghost), as sb3-contrib's ``MaskablePPO`` reads."""
        return self.game.action_masks().reshape(self.num_envs, -1).astype(bool)


def make_vector_env(num_envs: int = 1, **kwargs: Any) -> VectorEnv:
    """The ``vector_entry_point`` of ``gridghost/GridGhost-v1``: a :class:`GridGhostVectorEnv`.
    Its defaults are the Gymnasium views', :data:`~gridghost.config.TRAINER_DEFAULTS`
    (``obs_type="vector"``, ``rewards="normalised"``), the single env's too.

    For settings the batched engine does not serve (:class:`UnsupportedSetting`: the ``"dict"``
    and ``"text"`` encodings, a callable opponent, rendering, a team's solver opponents,
    ``controlled="ghosts"`` with one ghost, ...) it returns, with a warning saying why, ``SyncVectorEnv`` of the
    same envs (for a team, the team Gymnasium view's), which is what ``make_vec`` built before the
    entry point existed (``table_bytes``, checked, has no tables to bound there).

    Raises:
        TypeError, ValueError: as :class:`GridGhostVectorEnv`.
    """
    try:
        return GridGhostVectorEnv(num_envs, **kwargs)
    except UnsupportedSetting as reason:
        warnings.warn(f"gridghost: {reason}; falling back to gymnasium.vector.SyncVectorEnv", stacklevel=2)
    single = dict(kwargs)
    single.pop("table_bytes", None)  # the single envs build no batched tables
    mode = single.pop("autoreset_mode", AutoresetMode.NEXT_STEP)
    copy = single.pop("copy", True)
    limit = single.pop("max_episode_steps", None)

    def make() -> gymnasium.Env:
        return gymnasium.make("gridghost/GridGhost-v1", max_episode_steps=limit, **single)

    return gymnasium.vector.SyncVectorEnv([make] * num_envs, copy=copy, autoreset_mode=mode)


def make_reference_vector_env(num_envs: int = 1, **kwargs: Any) -> VectorEnv:
    """The ``vector_entry_point`` of ``gridghost/GridGhost-v0``, the id before 0.3.0:
    :func:`make_vector_env` with the game's own defaults
    (:data:`~gridghost.config.REFERENCE_DEFAULTS`) for those settings the caller leaves out, so
    the dict observation falls back to ``SyncVectorEnv`` of ``v0``'s single envs, as then.

    Raises:
        TypeError, ValueError: as :func:`make_vector_env`.
    """
    return make_vector_env(num_envs, **trainer_settings(kwargs, REFERENCE_DEFAULTS))
