"""The game for Ray RLlib (new API stack): a multi-agent env with full reward credit, action
masks under RLlib's keys, and the env ids registered where RLlib's remote workers look.

Needs Ray's RLlib (``pip install "gridghost[rllib]"``); importing this module imports it.

Both sides learning, one module each (:class:`GridGhostMultiAgentEnv`)::

    from ray.rllib.algorithms.ppo import PPOConfig
    from gridghost.integrations.rllib import SIDES, GridGhostMultiAgentEnv, module_of

    config = (
        PPOConfig()
        .environment(
            GridGhostMultiAgentEnv, env_config={"obs_type": "vector", "difficulty": 2}
        )
        .multi_agent(policies=set(SIDES), policy_mapping_fn=module_of)
        .callbacks(GridGhostMetrics)
    )

Teams: with ``"ghosts": k`` in ``env_config`` the same config trains the agent's module and
one ghost module that every ghost shares (:func:`module_of`, as :class:`GridGhostMultiAgentEnv`
names the agents). A mapping that returns the agent id itself, ``lambda side, *args, **kw:
side``, serves one ghost only.

Per-side metrics (:class:`GridGhostMetrics`, one line of them by
:func:`gridghost.integrations.metrics.format_metrics`): under zero-sum rewards RLlib's
``episode_return_mean`` (the sum of every agent's return) is 0 for one ghost and ``(1 - k)``
times the agent's return for ``k`` ghosts, whatever the policies do. RLlib's own
``agent_episode_returns_mean`` has each ghost's return, ``module_episode_returns_mean["ghost"]``
their sum over the team.

RLlib's own ``PettingZooEnv`` wrapper over :func:`gridghost.env` loses one reward per episode:
the ghost's reward for the agent's opening move comes with the ghost's first observation, and
RLlib files that reward outside the ghost's learning episode, so the two sides' returns sum to
-1 instead of 0. :class:`GridGhostMultiAgentEnv` follows the reward-credit rule of
:mod:`gridghost.integrations`, so they sum to exactly 0.

Action masks: with ``action_mask_in_obs=True`` the adapter's observations are
``{"observations": ..., "action_mask": int8[4]}``, the keys of RLlib's action-masking module
(``ray.rllib.examples.rl_modules.classes.action_masking_rlm.ActionMaskingTorchRLModule``, for
PPO); :func:`masked_multi_module_spec` returns that module for both sides::

    config = (
        PPOConfig()
        .environment(
            GridGhostMultiAgentEnv,
            env_config={"obs_type": "vector", "action_mask_in_obs": True},
        )
        .multi_agent(policies=set(SIDES), policy_mapping_fn=module_of)
        .rl_module(rl_module_spec=masked_multi_module_spec())
    )

(PettingZoo's views keep PettingZoo's ``"observation"`` key.)

Env ids: importing this module registers two ids in Ray Tune's registry, which RLlib's env
runners consult before Gymnasium's (a fresh worker process has not imported gridghost, so
Gymnasium's registry there does not know ``"gridghost/GridGhost-v1"``):

- :data:`ENV_ID` ``"gridghost/GridGhost-v1"``: the single-agent Gymnasium env, built by
  ``gymnasium.make(ENV_ID, **env_config)`` (so with its ``TimeLimit``), for
  ``config.environment("gridghost/GridGhost-v1", env_config={...})``;
- :data:`MULTI_AGENT_ENV_ID` ``"gridghost/GridGhostMultiAgent-v0"``: :class:`GridGhostMultiAgentEnv`.

They are registered again after every ``ray.init`` (Tune's registry lives in the Ray cluster,
and a new cluster starts empty). Passing a class works without any registry:
``config.environment(gridghost.GridGhostGymEnv, env_config={...})`` or
``config.environment(GridGhostMultiAgentEnv, env_config={...})``.

See ``examples/rllib_selfplay.py`` and ``examples/rllib_masked.py`` for whole training runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import ray
from gymnasium import spaces
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.env.multi_agent_episode import MultiAgentEpisode
from ray.tune.registry import register_env

from gridghost.core.names import AGENT
from gridghost.integrations.metrics import outcome
from gridghost.integrations.turns import MODULES, TurnBasedDictEnv, module_of

#: The single-agent env's id, the same in Gymnasium's registry and in Ray Tune's.
ENV_ID = "gridghost/GridGhost-v1"
#: :class:`GridGhostMultiAgentEnv`'s id in Ray Tune's registry (RLlib only).
MULTI_AGENT_ENV_ID = "gridghost/GridGhostMultiAgent-v0"
#: The key of the observation beside ``"action_mask"`` in RLlib's action-masking module.
OBSERVATIONS = "observations"
#: The module ids when both sides learn: the agent's, and the ghosts' (one module for every
#: ghost of a team; :func:`module_of` maps agent ids to them).
SIDES: tuple[str, ...] = MODULES

__all__ = ["ENV_ID", "MULTI_AGENT_ENV_ID", "OBSERVATIONS", "SIDES", "GridGhostMetrics", "GridGhostMultiAgentEnv",
           "RLlibMaskKeys", "make_gym_env", "masked_module_spec", "masked_multi_module_spec", "module_of",
           "register_envs"]


def _rllib_keys(masked: Any) -> Any:
    """A masked observation, or its ``Dict`` space, under RLlib's keys: ``"observation"`` renamed
    :data:`OBSERVATIONS`, beside ``"action_mask"``."""
    renamed = {OBSERVATIONS: masked["observation"], "action_mask": masked["action_mask"]}
    return spaces.Dict(renamed) if isinstance(masked, spaces.Dict) else renamed


class GridGhostMultiAgentEnv(TurnBasedDictEnv, MultiAgentEnv):
    """The turn-based game for RLlib: only the side to move observes, and rewards reach each side
    in full (see :mod:`gridghost.integrations.turns`). With ``"ghosts": k`` the agent ids are
    ``agent, ghost_0, ..., ghost_{k-1}`` (:func:`module_of` maps them to the modules); with
    ``"controlled": "ghosts"`` and ``"opponent"`` the ghosts alone, against a fixed agent.

    With ``action_mask_in_obs=True`` the observations carry the mask under RLlib's keys (see the
    module docstring); the side that observes is the side to move, so its mask is never all zeros.

    Args:
        config: the game's settings as a dict, the way RLlib passes ``env_config`` (an
            ``EnvContext``); keywords as :class:`~gridghost.envs.aec.GridGhostEnv` takes them,
            and ``controlled``, ``opponent`` and ``opponent_obs_type`` as
            :class:`~gridghost.integrations.turns.TurnBasedDictEnv` takes them.
        **game: more settings, merged over ``config``.

    Raises:
        TypeError: ``config`` is not a mapping.
        TypeError, ValueError: as :class:`~gridghost.integrations.turns.TurnBasedDictEnv`.
    """

    def __init__(self, config: Mapping[str, Any] | None = None, **game: Any) -> None:
        if config is not None and not isinstance(config, Mapping):
            raise TypeError(f"config must be a dict of the game's settings (RLlib's env_config), got {config!r}")
        MultiAgentEnv.__init__(self)
        TurnBasedDictEnv.__init__(self, **{**dict(config or {}), **game})
        self._masked = bool(self.game.config.action_mask_in_obs)
        if self._masked:
            renamed: dict[int, spaces.Dict] = {}  # sides that share a space keep sharing it
            for name, space in self.observation_spaces.items():
                self.observation_spaces[name] = renamed.setdefault(id(space), _rllib_keys(space))

    def _shown(self, observations: dict[str, Any]) -> dict[str, Any]:
        """The observations under RLlib's mask keys when masks are on (what ``reset`` and
        ``step`` return)."""
        if not self._masked:
            return observations
        return {name: _rllib_keys(obs) for name, obs in observations.items()}


class GridGhostMetrics(RLlibCallback):  # type: ignore[misc]
    """An RLlib callback that logs per-side metrics of every finished game of
    :class:`GridGhostMultiAgentEnv` (:data:`~gridghost.integrations.metrics.METRICS`; with
    ``controlled="ghosts"``, :data:`~gridghost.integrations.metrics.GHOSTS_METRICS`), means over
    RLlib's smoothing window (``metrics_num_episodes_for_smoothing``, as its
    ``episode_return_mean``), in each result's ``"env_runners"`` entry. Pass the class:
    ``config.callbacks(GridGhostMetrics)``.

    A game that spans several sampling rounds is counted whole (RLlib hands over its earlier
    chunks); how it ended is read from the last info of the agent (or, without it, of a ghost)
    (:func:`gridghost.integrations.metrics.outcome`).

    Raises:
        TypeError: an episode is not a multi-agent one (the single-agent env has one side:
            RLlib's own ``episode_return_mean`` is that side's return).
        ValueError: the last chunk has no steps of the agent (``episode_lookback_horizon=0``)
            or none at all; as :func:`gridghost.integrations.metrics.outcome`
            (``reference_infos=True``).
    """

    def on_episode_end(self, *, episode: Any, prev_episode_chunks: list[Any] | None = None,
                       env_runner: Any = None, metrics_logger: Any = None, **kwargs: Any) -> None:
        """Log the finished game's metrics."""
        if not isinstance(episode, MultiAgentEpisode):
            raise TypeError(f"GridGhostMetrics reads the multi-agent episodes of GridGhostMultiAgentEnv; got "
                            f"{type(episode).__name__}")
        chunks = [*(prev_episode_chunks or ()), episode]
        played = {name for chunk in chunks for name in chunk.agent_episodes}
        # the agent's game, or the ghosts' alone (controlled="ghosts"): each read from its first learner
        learners = [AGENT] if AGENT in played else sorted(played)
        if not learners or learners[0] not in episode.agent_episodes:
            raise ValueError(f"the episode's last chunk holds no {(learners or [AGENT])[0]!r} steps, so how its game "
                             "ended is unknown: a chunk cut with no lookback (episode_lookback_horizon=0) drops an "
                             "action still waiting for its next observation; keep RLlib's default of 1")
        reached, caught = outcome(episode.agent_episodes[learners[0]].get_infos(-1))
        returns = [sum(chunk.agent_episodes[name].get_return() for chunk in chunks if name in chunk.agent_episodes)
                   for name in learners]
        moves = sum(len(chunk.agent_episodes[learners[0]]) for chunk in chunks if learners[0] in chunk.agent_episodes)
        window = env_runner.config.metrics_num_episodes_for_smoothing if env_runner is not None else None
        values = {"agent_return" if learners == [AGENT] else "ghost_return": float(sum(returns) / len(returns)),
                  "success_rate": float(reached), "capture_rate": float(caught), "episode_length": float(moves)}
        for name, value in values.items():
            metrics_logger.log_value(name, value, reduce="mean", window=window)


def masked_module_spec(model_config: DefaultModelConfig | Mapping[str, Any] | None = None) -> RLModuleSpec:
    """PPO's torch module with RLlib's action masking, for observations
    ``{"observations": ..., "action_mask": ...}`` (:class:`GridGhostMultiAgentEnv` with
    ``action_mask_in_obs=True``).

    Args:
        model_config: the network's settings (RLlib's ``DefaultModelConfig`` or a dict of its
            fields, e.g. ``{"fcnet_hiddens": [64, 64]}``); RLlib's defaults when None.

    Returns:
        An ``RLModuleSpec`` of ``ActionMaskingTorchRLModule``; its spaces are filled in by RLlib.
    """
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    return RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                        model_config=dict(model_config) if isinstance(model_config, Mapping) else model_config)


def masked_multi_module_spec(model_config: DefaultModelConfig | Mapping[str, Any] | None = None
                             ) -> MultiRLModuleSpec:
    """:func:`masked_module_spec` for each side, under the module ids ``"agent"`` and ``"ghost"``
    (:data:`SIDES`; map the agent ids to them with ``policy_mapping_fn=module_of``, which gives
    every ghost of a team the one ``"ghost"`` module).

    Args:
        model_config: as :func:`masked_module_spec`, for both sides.
    """
    return MultiRLModuleSpec(rl_module_specs={side: masked_module_spec(model_config) for side in SIDES})


class RLlibMaskKeys(gymnasium.ObservationWrapper):  # type: ignore[type-arg]
    """A single-agent env with ``action_mask_in_obs=True`` under RLlib's keys: its
    ``{"observation": ..., "action_mask": ...}`` becomes ``{"observations": ..., "action_mask":
    ...}``, what RLlib's action-masking module reads.

    Args:
        env: the env whose observations carry the mask.

    Raises:
        ValueError: ``env``'s observations carry no mask.
    """

    def __init__(self, env: gymnasium.Env[Any, Any]) -> None:
        super().__init__(env)
        space = env.observation_space
        if not (isinstance(space, spaces.Dict) and set(space.spaces) == {"observation", "action_mask"}):
            raise ValueError(f"RLlibMaskKeys renames the masked observation of action_mask_in_obs=True; got {space}")
        self.observation_space = _rllib_keys(space)

    def observation(self, observation: dict[str, Any]) -> dict[str, Any]:
        """The same observation under RLlib's keys."""
        return _rllib_keys(observation)


def make_gym_env(config: Mapping[str, Any]) -> gymnasium.Env[Any, Any] | gymnasium.vector.VectorEnv[Any, Any, Any]:
    """The single-agent env as ``gymnasium.make(ENV_ID, **config)`` builds it: Ray Tune's creator
    of :data:`ENV_ID`. ``config`` is RLlib's ``env_config``; with ``num_envs`` in it (RLlib's
    ``gym_env_vectorize_mode="vector_entry_point"``), the batched vector env of that many games.
    With ``action_mask_in_obs=True`` the single env's observations use RLlib's keys
    (:class:`RLlibMaskKeys`).
    """
    settings = dict(config)
    num_envs = settings.pop("num_envs", None)
    if num_envs is not None:
        return gymnasium.make_vec(ENV_ID, num_envs=num_envs, vectorization_mode="vector_entry_point", **settings)
    env = gymnasium.make(ENV_ID, **settings)
    return RLlibMaskKeys(env) if settings.get("action_mask_in_obs") else env


def register_envs() -> None:
    """Register :data:`ENV_ID` and :data:`MULTI_AGENT_ENV_ID` in Ray Tune's registry (see the
    module docstring): done on import and after every ``ray.init``; calling it again is harmless."""
    register_env(ENV_ID, make_gym_env)
    register_env(MULTI_AGENT_ENV_ID, GridGhostMultiAgentEnv)


register_envs()
# Again after every ray.init (a new cluster's registry starts empty): Tune sends its own
# registrations to a new cluster through the same hook list.
_hooks = getattr(getattr(ray._private, "worker", None), "_post_init_hooks", None)
if isinstance(_hooks, list) and register_envs not in _hooks:
    _hooks.append(register_envs)
