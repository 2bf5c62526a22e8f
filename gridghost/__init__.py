"""gridghost: a turn-based pursuit-evasion game for reinforcement learning.

An agent tries to reach a goal cell of a small walled grid while a ghost chases it; the agent's
moves slip and its sensors are noisy. Both sides are agents of a PettingZoo AEC environment::

    import gridghost

    env = gridghost.env()
    env.reset(seed=42)
    for name in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        env.step(None if termination or truncation else env.action_space(name).sample())

For one side at a time there is a Gymnasium env and the reference ``AgentInterface``::

    import gymnasium

    env = gymnasium.make("gridghost/GridGhost-v0", controlled="agent", obs_type="vector")
    obs, info = env.reset(seed=42)

``import gridghost`` registers ``gridghost/GridGhost-v0`` in Gymnasium's registry (the
single-agent env, with a ``TimeLimit`` of 100 steps) and in PettingZoo's (the AEC env, and the
parallel env under ``pettingzoo.make("parallel", ...)``; PettingZoo 1.27 or newer has the
registry).
"""

from __future__ import annotations

import gymnasium
import pettingzoo

from gridghost.compat import AgentInterface
from gridghost.config import GameConfig
from gridghost.env import GridGhostEnv, env, raw_env
from gridghost.game import Game
from gridghost.layout import CLASSIC, COLOURS, ITEMS, Layout
from gridghost.levels import DIFFICULTIES, MapGenerator
from gridghost.parallel import GridGhostParallelEnv, parallel_env
from gridghost.policies import ChasePolicy, Policy, RandomPolicy, make_policy
from gridghost.rules import Action, Board, GameState, Outcome, Rewards, board_for
from gridghost.sensors import ColorSensor, Sensor
from gridghost.single_agent import Duel, GridGhostGymEnv
from gridghost.slip import LongitudinalSlip, NoSlip, PerpendicularSlip, SlipModel

__version__ = "0.1.0"

ENV_ID = "gridghost/GridGhost-v0"

__all__ = [
    "CLASSIC",
    "COLOURS",
    "DIFFICULTIES",
    "ENV_ID",
    "ITEMS",
    "Action",
    "AgentInterface",
    "Board",
    "ChasePolicy",
    "ColorSensor",
    "Duel",
    "Game",
    "GameConfig",
    "GameState",
    "GridGhostEnv",
    "GridGhostGymEnv",
    "GridGhostParallelEnv",
    "Layout",
    "LongitudinalSlip",
    "MapGenerator",
    "NoSlip",
    "Outcome",
    "PerpendicularSlip",
    "Policy",
    "RandomPolicy",
    "Rewards",
    "Sensor",
    "SlipModel",
    "board_for",
    "env",
    "make_policy",
    "parallel_env",
    "raw_env",
]

# PettingZoo's registry appeared in 1.27; older versions simply have no pettingzoo.make.
if hasattr(pettingzoo, "register") and ENV_ID not in pettingzoo.aec_registry:
    pettingzoo.register("aec", ENV_ID, entry_point="gridghost.env:env")
if hasattr(pettingzoo, "register") and ENV_ID not in pettingzoo.parallel_registry:
    pettingzoo.register("parallel", ENV_ID, entry_point="gridghost.parallel:parallel_env")

if ENV_ID not in gymnasium.registry:
    gymnasium.register(ENV_ID, entry_point="gridghost.single_agent:GridGhostGymEnv", max_episode_steps=100,
                       vector_entry_point="gridghost.batched:make_vector_env")
