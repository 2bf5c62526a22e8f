"""The game as an RLlib ``MultiAgentEnv``, with one policy per side and full reward credit.

Needs Ray's RLlib (``pip install "gridghost[rllib]"``); importing this module imports it.

RLlib's own ``PettingZooEnv`` wrapper over :func:`gridghost.env` loses one reward per episode:
the ghost's reward for the agent's opening move comes with the ghost's first observation, and
RLlib files that reward outside the ghost's learning episode, so the two sides' returns sum to
-1 instead of 0. :class:`GridGhostMultiAgentEnv` follows the reward-credit rule of
:mod:`gridghost.integrations`, so they sum to exactly 0::

    from ray.rllib.algorithms.ppo import PPOConfig
    from gridghost.integrations.rllib import GridGhostMultiAgentEnv

    config = (
        PPOConfig()
        .environment(GridGhostMultiAgentEnv, env_config={"obs_type": "vector", "difficulty": 2})
        .multi_agent(policies={"agent", "ghost"}, policy_mapping_fn=lambda side, *args, **kw: side)
    )

See ``examples/rllib_selfplay.py`` for a whole training run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ray.rllib.env.multi_agent_env import MultiAgentEnv

from gridghost.integrations.turns import TurnBasedDictEnv


class GridGhostMultiAgentEnv(TurnBasedDictEnv, MultiAgentEnv):
    """The turn-based game for RLlib: only the side to move observes, and rewards reach each side
    in full (see :mod:`gridghost.integrations.turns`).

    Args:
        config: the game's settings as a dict, the way RLlib passes ``env_config`` (an
            ``EnvContext``); keywords as :class:`~gridghost.env.GridGhostEnv` takes them.
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
