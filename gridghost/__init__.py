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

    env = gymnasium.make("gridghost/GridGhost-v1", controlled="agent", obs_type="vector")
    obs, info = env.reset(seed=42)

A learned policy's exact scores, next to the optimum, on held-out levels::

    result = gridghost.evaluate(policy, level_split(2, "test"), obs_type="grid")

``import gridghost`` registers ``gridghost/GridGhost-v1`` in Gymnasium's registry (the
single-agent env, with a ``TimeLimit`` of 100 steps) and in PettingZoo's (the AEC env, and the
parallel env under ``pettingzoo.make("parallel", ...)``; PettingZoo 1.27 or newer has the
registry). ``gridghost/GridGhost-v0``, the id before 0.3.0, stays registered as it was: in
Gymnasium its defaults are the reference's dict observation and rewards (``v1``'s are the
trainers', :data:`~gridghost.config.TRAINER_DEFAULTS`), and Gymnasium says it is out of date.
"""

from __future__ import annotations

import importlib
import logging
from types import ModuleType

import gymnasium
import pettingzoo

from gridghost import _moved

# The library logs through logging and never prints; without a handler of the caller's, its
# records go nowhere (the logging HOWTO's advice for libraries).
logging.getLogger(__name__).addHandler(logging.NullHandler())

# The old flat module paths stay importable (with a warning). gridghost.env is both an old module
# path and the env() function: the module is loaded first so that the function, bound below, wins.
_moved.install()
importlib.import_module("gridghost.env")

from gridghost.config import GameConfig, GameSpec  # noqa: E402
from gridghost.core import (  # noqa: E402
    CLASSIC,
    COLOURS,
    ITEMS,
    REWARD_PRESETS,
    Action,
    Board,
    ChasePolicy,
    Game,
    GameState,
    Layout,
    LongitudinalSlip,
    NoSlip,
    Outcome,
    PerpendicularSlip,
    Policy,
    RandomPolicy,
    Rewards,
    SlipModel,
    board_for,
    make_policy,
)
from gridghost.envs import (  # noqa: E402
    AgentInterface,
    Duel,
    GridGhostEnv,
    GridGhostGymEnv,
    GridGhostParallelEnv,
    env,
    parallel_env,
    raw_env,
)
from gridghost.maps import DIFFICULTIES, MapGenerator  # noqa: E402
from gridghost.sensing import ColorSensor, Sensor  # noqa: E402
from gridghost.training import Evaluation, Evaluator, evaluate  # noqa: E402

#: The package's version, written only here: pyproject.toml reads it ([tool.setuptools.dynamic]).
__version__ = "0.3.0"

#: The id of the game in Gymnasium's and PettingZoo's registries.
ENV_ID = "gridghost/GridGhost-v1"
#: The id before 0.3.0, whose Gymnasium env kept the game's own defaults: a run that names it gets
#: the numbers it got then (an id keeps its behaviour; the defaults' change made ``v1``).
_V0 = "gridghost/GridGhost-v0"

__all__ = [
    "CLASSIC",
    "COLOURS",
    "DIFFICULTIES",
    "ENV_ID",
    "ITEMS",
    "REWARD_PRESETS",
    "Action",
    "AgentInterface",
    "Board",
    "ChasePolicy",
    "ColorSensor",
    "Duel",
    "Evaluation",
    "Evaluator",
    "Game",
    "GameConfig",
    "GameSpec",
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
    "evaluate",
    "make_policy",
    "parallel_env",
    "raw_env",
]

# Both ids name the same PettingZoo envs (older PettingZoo than 1.27 has no registry).
for _id in (ENV_ID, _V0):
    if hasattr(pettingzoo, "register") and _id not in pettingzoo.aec_registry:
        pettingzoo.register("aec", _id, entry_point="gridghost.envs.aec:env")
    if hasattr(pettingzoo, "register") and _id not in pettingzoo.parallel_registry:
        pettingzoo.register("parallel", _id, entry_point="gridghost.envs.ghost_team:parallel_env")

if ENV_ID not in gymnasium.registry:
    gymnasium.register(ENV_ID, entry_point="gridghost.envs.single_agent:GridGhostGymEnv", max_episode_steps=100,
                       vector_entry_point="gridghost.batched:make_vector_env")
if _V0 not in gymnasium.registry:
    gymnasium.register(_V0, entry_point="gridghost.envs.single_agent:make_reference_env", max_episode_steps=100,
                       vector_entry_point="gridghost.batched.vector:make_reference_vector_env")


def __getattr__(name: str) -> ModuleType:
    """An old flat module read as an attribute (``gridghost.solve`` after ``import gridghost``)."""
    if f"gridghost.{name}" in _moved.MOVED:
        return importlib.import_module(f"gridghost.{name}")
    raise AttributeError(f"module 'gridghost' has no attribute {name!r}")
