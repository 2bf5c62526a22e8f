"""PPO for a team of ghosts on the JAX engine, env and learners in one compiled program.

:func:`make_team_train` trains the team of ``GridGhostJaxSingle("ghosts", ghosts=k)`` (every
ghost's observation ``[k, D]``, a ``MultiDiscrete([4] * k)`` move, the team's reward) against the
view's agent, as :func:`gridghost.jax.ppo.make_train` trains one side; :func:`make_team_selfplay`
trains the team and the agent at once on ``GridGhostJax(ghosts=k)``, as
:func:`gridghost.jax.ppo.make_selfplay` does with one ghost. Both run the same loops as those
(:func:`~gridghost.jax.ppo.train_one_side`, :func:`~gridghost.jax.ppo.train_both_sides`) with
the same PPO update; only the team's networks (a :class:`~gridghost.jax.ppo.Policy`) differ, by
``mode``:

- ``"ippo"``: one policy and one value MLP shared by every ghost, fed a ghost's observation
  and its one-hot index; each ghost's move is a sample of the loss, with its own value;
- ``"ippo_separate"``: a policy and a value MLP per ghost (parameters stacked on a leading
  axis ``k``, applied with ``vmap``); samples as ``"ippo"``'s;
- ``"mappo"``: the shared policy of ``"ippo"`` and a centralised critic fed the global state,
  every ghost's observation concatenated in ghost order, with the ghost's one-hot index (a
  value per ghost); samples as ``"ippo"``'s;
- ``"central"``: one team policy on the concatenated observations with ``k`` factorised heads
  of 4 logits, and one value MLP on the same inputs; the sample is the team's joint move, its
  log-probability the heads' sum.

Every network has :class:`~gridghost.jax.ppo.PPOConfig`'s hidden layers and initialisation. The
global state is what the ghosts see together (the cells around each ghost and every other
player's offset and distance from each), as BenchMARL's and JaxMARL's MAPPO build it from the
agents' observations. The team's reward is the view's
(the mean of the ghosts'); in self-play the ghosts' rewards run from a move to the next as
:func:`~gridghost.jax.ppo.ghost_credit` says, each ghost's own for the per-ghost modes (they
differ with ``ghost_credit="catcher"``) and their mean for ``"central"``.

:class:`TeamPPO` wraps either program as a learner trained a few updates at a time, with its
greedy team tabulated for the solver (:func:`gridghost.jax.team_table`): the learner that
:class:`gridghost.training.ExploiterLoop` trains against the agent's exact best responses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium
import jax
import jax.numpy as jnp
import numpy as np

from gridghost.core.checks import check_choice, check_limit, is_int
from gridghost.core.names import AGENT
from gridghost.core.rules import NUM_ACTIONS
from gridghost.jax.draws import _count
from gridghost.jax.env import GridGhostJax, GridGhostJaxSingle
from gridghost.jax.networks import _init_mlp, _mlp, _network_keys, features, init_networks
from gridghost.jax.positions import TEAM, team_table
from gridghost.jax.ppo import (
    Policy,
    PPOConfig,
    SelfPlayState,
    SingleState,
    Trainer,
    _channels_last,
    _check_call,
    check_inputs,
    side_policy,
    train_both_sides,
    train_one_side,
)
from gridghost.jax.tables import EnvParams

#: The team learners :func:`make_team_train` and :func:`make_team_selfplay` build (the module's list).
MODES: tuple[str, ...] = ("ippo", "ippo_separate", "mappo", "central")


# -- the team's networks -------------------------------------------------------------------------
def _indexed(inputs: Any) -> Any:
    """Each ghost's features ``[..., k, F]`` with its one-hot index appended, ``[..., k, F + k]``."""
    k = inputs.shape[-2]
    index = jnp.broadcast_to(jnp.eye(k, dtype=inputs.dtype), (*inputs.shape[:-1], k))
    return jnp.concatenate((inputs, index), axis=-1)


def _joined(inputs: Any) -> Any:
    """The team's features concatenated in ghost order, ``[..., k * F]``."""
    return inputs.reshape(*inputs.shape[:-2], -1)


def _shared(networks: dict[str, Any], inputs: Any) -> tuple[Any, Any]:
    own = _indexed(inputs)
    return _mlp(networks["pi"], own), _mlp(networks["vf"], own)[..., 0]


def _separate(networks: dict[str, Any], inputs: Any) -> tuple[Any, Any]:
    def one(ghost: dict[str, Any], x: Any) -> tuple[Any, Any]:
        return _mlp(ghost["pi"], x), _mlp(ghost["vf"], x)[..., 0]

    return jax.vmap(one, in_axes=(0, -2), out_axes=(-2, -1))(networks, inputs)


def _centralised_critic(networks: dict[str, Any], inputs: Any) -> tuple[Any, Any]:
    state = jnp.broadcast_to(_joined(inputs)[..., None, :], (*inputs.shape[:-1], inputs.shape[-2] * inputs.shape[-1]))
    return _mlp(networks["pi"], _indexed(inputs)), _mlp(networks["vf"], _indexed(state))[..., 0]


def _central(networks: dict[str, Any], inputs: Any) -> tuple[Any, Any]:
    team = _joined(inputs)
    return _mlp(networks["pi"], team).reshape(*inputs.shape[:-1], NUM_ACTIONS), _mlp(networks["vf"], team)[..., :1]


def _mean_of_ghosts(rewards: Any) -> Any:
    return rewards.mean(axis=-1, keepdims=True)


def _check_config(config: Any) -> None:
    if not isinstance(config, PPOConfig):
        raise TypeError(f"config must be a gridghost.jax.ppo.PPOConfig, got {type(config).__name__}")


def team_policy(mode: str, ghosts: int, inputs: int, config: PPOConfig) -> Policy:
    """The team's :class:`~gridghost.jax.ppo.Policy` in ``mode`` (the module's list).

    Args:
        mode: one of :data:`MODES`.
        ghosts: the team's size ``k``.
        inputs: the features of one ghost's observation (:func:`~gridghost.jax.ppo.check_inputs`).
        config: PPO's settings (the hidden layers, ``planes``).

    Returns:
        The policy: its networks' ``evaluate`` gives the logits ``[..., k, 4]`` and values
        ``[..., k]`` (``"central"``: ``[..., 1]``) of features ``[..., k, inputs]``.

    Raises:
        ValueError: an unknown ``mode``; ``ghosts`` or ``inputs`` not an int >= 1.
        TypeError: ``config`` not a :class:`~gridghost.jax.ppo.PPOConfig`.
    """
    check_choice(mode, "mode", MODES)
    k, f = _count(ghosts, "ghosts"), _count(inputs, "inputs")
    _check_config(config)

    def indexed(key: Any) -> dict[str, Any]:  # shared actor, critic per mode
        keys = _network_keys(key, config)
        critic = k * f + k if mode == "mappo" else f + k
        return {"pi": _init_mlp(keys, f + k, NUM_ACTIONS, 0.01, config), "vf": _init_mlp(keys, critic, 1, 1.0, config)}

    def central(key: Any) -> dict[str, Any]:
        keys = _network_keys(key, config)
        return {"pi": _init_mlp(keys, k * f, k * NUM_ACTIONS, 0.01, config),
                "vf": _init_mlp(keys, k * f, 1, 1.0, config)}

    def separate(key: Any) -> dict[str, Any]:
        return jax.vmap(lambda ghost_key: init_networks(ghost_key, f, config))(jax.random.split(key, k))

    init, evaluate = {"ippo": (indexed, _shared), "ippo_separate": (separate, _separate),
                      "mappo": (indexed, _centralised_critic), "central": (central, _central)}[mode]
    policy = Policy(init, lambda seen: features(seen, config, batch_axes=2), evaluate)
    return policy._replace(joint=True, credit=_mean_of_ghosts) if mode == "central" else policy


def _team_inputs(space: gymnasium.spaces.Space[Any], config: PPOConfig, channels_last: bool | None) -> int:
    """The features of one ghost's observation, from the team's space ``[k, ...]`` (a ``Box``)."""
    assert isinstance(space, gymnasium.spaces.Box), space  # every JAX view's observation is a Box
    return check_inputs(gymnasium.spaces.Box(space.low[0], space.high[0]), config, channels_last)


def team_actions(networks: dict[str, Any], observations: Any, config: PPOConfig, mode: str) -> Any:
    """The team's most probable move in each of a batch of states (``"central"``: each head's,
    which together are the most probable joint move).

    Args:
        networks: the team's networks (``state.learner.networks``, ``state.learners["ghosts"].networks``).
        observations: the team's observations, ``[n, k, ...]`` (the view's, batched).
        config: the PPO settings the networks were built with.
        mode: the mode they were trained in.

    Returns:
        ``int32[n, k]``, each ghost's move.

    Raises:
        ValueError: an unknown ``mode``; ``observations`` without a batch and a ghost axis; networks
            of another shape than ``mode`` builds for these observations (another mode, team size
            or observation).
        TypeError: ``config`` not a :class:`~gridghost.jax.ppo.PPOConfig`.
    """
    check_choice(mode, "mode", MODES)
    _check_config(config)
    if jnp.ndim(observations) < 3:
        raise ValueError(f"observations must be a batch of the team's, [n, k, ...], got shape "
                         f"{jnp.shape(observations)}")
    inputs = features(jnp.asarray(observations), config, batch_axes=2)
    policy = team_policy(mode, inputs.shape[1], inputs.shape[2], config)
    expected = jax.eval_shape(policy.init, jax.random.key(0))
    shapes = jax.tree_util.tree_map(jnp.shape, networks)
    if shapes != jax.tree_util.tree_map(lambda leaf: leaf.shape, expected):
        raise ValueError(f"networks do not fit mode={mode!r} with {inputs.shape[1]} ghosts of {inputs.shape[2]} "
                         f"features each (another mode, team or observation?)")
    logits, _ = policy.evaluate(networks, inputs)
    return jnp.argmax(logits, axis=-1).astype(jnp.int32)


# -- training ------------------------------------------------------------------------------------
def make_team_train(env: GridGhostJaxSingle, config: PPOConfig, mode: str = "ippo",
                    params: EnvParams | None = None) -> tuple[Callable[..., SingleState], Trainer[SingleState]]:
    """PPO for the learning team of ``env`` against its agent, in ``mode`` (the module's list).

    Args:
        env: ``GridGhostJaxSingle("ghosts", ghosts=k)``, ``k >= 2``.
        config: PPO's settings; ``minibatch_size`` counts team steps (each holds the ``k`` ghosts'
            moves).
        mode: one of :data:`MODES`.
        params: the env's tables (default ``env.default_params``).

    Returns:
        ``(init, train)`` as :func:`gridghost.jax.ppo.make_train`'s: ``init(key, params=None)``,
        and ``train(state, updates, params=None)`` to ``jax.jit`` with ``static_argnums=1``;
        ``params`` is traced, so the same env's tables with other values (another pool of
        agents, other levels) do not recompile. Per update ``{"loss", "reward", "episodes",
        "return"}``, the team's.

    Raises:
        TypeError: ``env`` is not a :class:`~gridghost.jax.GridGhostJaxSingle`, or ``config`` not a
            :class:`~gridghost.jax.ppo.PPOConfig`.
        ValueError: an unknown ``mode``; an env whose learner is not a team (``controlled`` not
            ``"ghosts"``); ``config.planes`` that the observation does not have;
            ``train`` raises it for ``updates`` that is not an int >= 1.
        TypeError, ValueError: ``params`` that ``env`` cannot play.
    """
    _check_call("make_team_train", env, GridGhostJaxSingle, config)
    check_choice(mode, "mode", MODES)
    if env.controlled != TEAM:
        raise ValueError(f"make_team_train trains a learning team, GridGhostJaxSingle('ghosts', ghosts=k >= 2); this "
                         f"env's learner is {env.controlled!r} (train it with gridghost.jax.ppo.make_train)")
    inputs = _team_inputs(env.observation_space(), config, _channels_last(env, TEAM))
    return train_one_side(env, config, team_policy(mode, env.spec.ghosts, inputs, config), params)


def make_team_selfplay(env: GridGhostJax, config: PPOConfig, mode: str = "ippo",
                       params: EnvParams | None = None) -> tuple[Callable[..., SelfPlayState], Trainer[SelfPlayState]]:
    """PPO for the agent and a team at once, from the same games: the agent's networks as
    :func:`gridghost.jax.ppo.make_selfplay` trains them, the team's in ``mode``.

    Args:
        env: ``GridGhostJax(ghosts=k)``, ``k >= 2`` (``explore_starts`` in its params gives
            exploring starts).
        config: PPO's settings, both sides alike; ``num_steps`` counts full turns.
        mode: the team's, one of :data:`MODES`.
        params: the env's tables (default ``env.default_params``).

    Returns:
        ``(init, train)`` as :func:`gridghost.jax.ppo.make_selfplay`'s; the metrics per update
        are ``{"agent_loss", "ghosts_loss", "agent_reward", "episodes"}``, and the learners
        ``state.learners["agent"]`` and ``state.learners["ghosts"]``.

    Raises:
        TypeError: ``env`` is not a :class:`~gridghost.jax.GridGhostJax`, or ``config`` not a
            :class:`~gridghost.jax.ppo.PPOConfig`.
        ValueError: an unknown ``mode``; one ghost (``make_selfplay`` trains it); ``config.planes``
            that an observation does not have; ``train`` raises it for bad ``updates``.
    """
    _check_call("make_team_selfplay", env, GridGhostJax, config)
    check_choice(mode, "mode", MODES)
    if env.spec.ghosts < 2:
        raise ValueError("make_team_selfplay trains a team of ghosts >= 2; one ghost trains with "
                         "gridghost.jax.ppo.make_selfplay")
    agent = side_policy(check_inputs(env.observation_space(AGENT), config, _channels_last(env, AGENT)), config)
    inputs = _team_inputs(env.observation_space(TEAM), config, _channels_last(env, TEAM))
    return train_both_sides(env, config, {AGENT: agent, TEAM: team_policy(mode, env.spec.ghosts, inputs, config)},
                            params)


class TeamPPO:
    """A JAX team PPO learner trained in steps: :func:`make_team_train`'s (or, on a view where both
    sides learn, :func:`make_team_selfplay`'s) program, jitted once, with the team's greedy moves
    tabulated for the solver. It has :class:`gridghost.training.TeamLearner`'s protocol, so
    :class:`gridghost.training.ExploiterLoop` trains it against a pool of best responses.

    >>> import jax
    >>> from gridghost.jax import GridGhostJaxSingle
    >>> env = GridGhostJaxSingle("ghosts", ghosts=2, layout="team_eight", opponent="minimax")
    >>> learner = TeamPPO(env, PPOConfig(num_envs=4, num_steps=8, minibatch_size=16), seed=0)
    >>> learner.learn(1).team_steps
    32
    >>> learner.team_table().shape  # each ghost's move, by map and joint state
    (1, 5, 7, 5, 7, 5, 7, 2)

    Args:
        env: ``GridGhostJaxSingle("ghosts", ghosts=k, ...)`` (the team learns against its agent)
            or ``GridGhostJax(ghosts=k, ...)`` (the agent learns too: self-play).
        config: PPO's settings.
        mode: the team's networks, one of :data:`MODES`.
        seed: the seed of the networks' initialisation and of every draw of the games.

    Attributes:
        env, config, mode: as given.
        state: the trainer's state (the learners, the games, the key).
        team_steps: team steps trained so far (in self-play, full turns).
        metrics: per :meth:`learn` call, the trainer's metrics (NumPy arrays, one entry an update).

    Raises:
        TypeError, ValueError: as :func:`make_team_train` or :func:`make_team_selfplay`; ``seed``
            not an int.
    """

    def __init__(self, env: GridGhostJax | GridGhostJaxSingle, config: PPOConfig | None = None, mode: str = "ippo",
                 *, seed: int = 0) -> None:
        if not is_int(seed) or seed < 0:
            raise TypeError(f"seed must be an int >= 0 (the networks' and the games' PRNG key), got {seed!r}")
        config = PPOConfig() if config is None else config
        selfplay = isinstance(env, GridGhostJax)
        make = make_team_selfplay if selfplay else make_team_train
        init, train = make(env, config, mode)  # type: ignore[arg-type]  # the branch picks the view's maker
        self.env, self.config, self.mode, self._selfplay = env, config, mode, selfplay
        self._train = jax.jit(train, static_argnums=1)
        self._act = jax.jit(lambda networks, observations: team_actions(networks, observations, config, mode))
        self.state = init(jax.random.key(int(seed)))
        self.team_steps = 0
        self.metrics: list[dict[str, np.ndarray]] = []

    @property
    def networks(self) -> dict[str, Any]:
        """The team's networks (``state.learner.networks``, or the team's in self-play)."""
        state: Any = self.state  # a SelfPlayState in self-play, else a SingleState
        return (state.learners[TEAM] if self._selfplay else state.learner).networks

    def learn(self, updates: int, params: EnvParams | None = None) -> TeamPPO:
        """Train ``updates`` PPO updates on ``params`` (default: the view's own; a pool of agents:
        ``env.opponent_params(...)``, which does not recompile while its shape holds).

        Returns:
            This learner.

        Raises:
            TypeError, ValueError: ``updates`` not an int >= 1; ``params`` the view cannot play.
        """
        updates = check_limit(updates, "updates", allow_none=False)
        self.state, metrics = self._train(self.state, updates, self.env.default_params if params is None else params)
        self.metrics.append({name: np.asarray(value) for name, value in metrics.items()})
        self.team_steps += updates * self.config.batch_size
        return self

    def act(self, observations: Any) -> Any:
        """The team's greedy moves, ``int32[n, k]``, for the team's observations ``[n, k, ...]``."""
        return self._act(self.networks, observations)

    def team_table(self, params: EnvParams | None = None, *, view: Any = None) -> np.ndarray:
        """The team's greedy moves on every joint state of every map (:func:`gridghost.jax.team_table`).

        Args:
            params: the tables to observe with (default: the view's).
            view: another team view whose maps to tabulate on, with observations of the same
                shape (held-out levels); default :attr:`env`.

        Returns:
            ``int64[maps, (rows, cols) * (k + 1), k]``.
        """
        return team_table(self.env if view is None else view, self.act, params)
