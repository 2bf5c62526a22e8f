"""PPO on the JAX engine, env and learner compiled into one program (PureJaxRL's design).

:func:`make_train` trains one side against a table opponent (:class:`~gridghost.jax.GridGhostJaxSingle`);
:func:`make_selfplay` trains both sides at once (:class:`~gridghost.jax.GridGhostJax`), each with its
own networks, from the same games. Either returns a pure function of a PRNG key and a state that
runs ``updates`` PPO updates (rollouts with ``jax.lax.scan``, then epochs of shuffled minibatches)
and can be ``jax.jit``-ed whole.

The algorithm is Stable-Baselines3's PPO, so that runs compare with ``stable_baselines3.PPO``:
separate policy and value MLPs (64, 64, tanh, orthogonal initialisation with gains sqrt 2, 0.01
and 1), Adam (eps 1e-5) with the gradient's norm clipped at 0.5, advantages normalised per
minibatch and, for one side, a truncated episode bootstrapped from the value of its final
observation. :class:`PPOConfig`'s defaults are SB3's but for the README recipe's rollouts of 128
steps, minibatches of 512 and entropy bonus 0.01. A self-play turn gives each side one
transition: the agent's reward is its rewards of both half-turns; the ghost's, its rewards from
its move to its next (the agent's next half-turn included); a ghost "move" in a game that ended
in the agent's half is not trained on. The discount applies per full turn, as the exact
solver's does.

Networks are dicts of arrays (no framework, :mod:`gridghost.jax.networks`, whose names this
module exports too): :func:`greedy_actions` plays them, and :func:`policy_table` tabulates a
side's greedy moves for the exact solver. The trainers' loops take a :class:`Policy` (what a
learner's networks make of observations), so that one loop trains one side and a team
(:mod:`gridghost.jax.team_ppo`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple, Protocol, TypeVar

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax.flatten_util import ravel_pytree

from gridghost.core.checks import is_int
from gridghost.core.names import AGENT, AGENTS
from gridghost.core.rules import Side
from gridghost.jax.draws import _count, batch_permutation, batch_uniforms
from gridghost.jax.env import EnvState, GridGhostJax, GridGhostJaxSingle
from gridghost.jax.networks import PPOConfig, check_inputs, evaluate, features, greedy_actions, init_networks
from gridghost.jax.tables import EnvParams
from gridghost.planning import StatePolicy

__all__ = [
    "Batch", "Learner", "PPOConfig", "Policy", "SelfPlayState", "SingleState", "Trainer", "check_inputs", "evaluate",
    "features", "ghost_credit", "greedy_actions", "init_networks", "make_selfplay", "make_train", "new_learner",
    "policy_table", "side_policy", "train_both_sides", "train_one_side",
]

T = TypeVar("T")


# -- PPO ---------------------------------------------------------------------------------------------
class Batch(NamedTuple):
    """One side's rollout, ``[steps, envs, ...]`` each (``valid``: trained on, ``[steps, envs]``;
    ``None``: all)."""

    inputs: Any
    actions: Any
    log_probs: Any
    values: Any
    advantages: Any
    returns: Any
    valid: Any


class Learner(NamedTuple):
    """One side's networks and its optimiser's state (over the parameters raveled into one
    vector, ``jax.flatten_util.ravel_pytree``)."""

    networks: dict[str, Any]
    optimiser: Any


def _unchanged(rewards: Any) -> Any:
    return rewards


class Policy(NamedTuple):
    """What the trainers ask of a learner's networks: :func:`side_policy` gives one side's,
    :func:`gridghost.jax.team_ppo.team_policy` a team's.

    Attributes:
        init: ``key -> networks``, fresh ones.
        features: a batch of the side's observations as the networks' inputs.
        evaluate: ``(networks, inputs) -> (logits, values)``: the logits of each decision,
            ``[n, 4]`` (a team's ``[n, k, 4]``), and the values, ``[n]`` (a team's ``[n, c]``:
            ``c = k`` where each ghost's move is trained on its own, 1 where they are one action).
        joint: whether a team's moves are one action (a centralised team): their
            log-probabilities and entropies add up, ``[n, 1]``.
        credit: in self-play, the learner's rewards from its side's (``[n]``, a team's ``[n, k]``).
    """

    init: Callable[[Any], dict[str, Any]]
    features: Callable[[Any], Any]
    evaluate: Callable[[dict[str, Any], Any], tuple[Any, Any]]
    joint: bool = False
    credit: Callable[[Any], Any] = _unchanged


def side_policy(inputs: int, config: PPOConfig) -> Policy:
    """One side's :class:`Policy` (Discrete(4)): :func:`init_networks` of ``inputs`` features,
    :func:`features` and :func:`evaluate`."""
    return Policy(lambda key: init_networks(key, inputs, config), lambda seen: features(seen, config), evaluate)


def _optimiser(config: PPOConfig) -> optax.GradientTransformation:
    return optax.chain(optax.clip_by_global_norm(config.max_grad_norm), optax.adam(config.learning_rate, eps=1e-5))


def _categorical(key: Any, logits: Any) -> tuple[Any, Any]:
    """One action a row of ``logits [..., actions]``, drawn from their softmax by the inverse CDF
    with one hashed uniform a row, and its log-probability. (``jax.random.categorical`` draws a
    threefry word an action: 11 us for 32 rows on this CPU, against 3 us.)"""
    log_softmax = jax.nn.log_softmax(logits)
    cdf = jnp.cumsum(jnp.exp(log_softmax), axis=-1)
    thresholds = batch_uniforms(key, (*logits.shape[:-1], 1)) * cdf[..., -1:]
    actions = (thresholds >= cdf[..., :-1]).sum(axis=-1).astype(jnp.int32)
    return actions, jnp.take_along_axis(log_softmax, actions[..., None], axis=-1)[..., 0]


def _columns(x: Any, policy: Policy) -> Any:
    """Per-decision log-probabilities or entropies as ``policy`` trains them (a joint action's summed)."""
    return x.sum(axis=-1, keepdims=True) if policy.joint else x


def _sample(key: Any, policy: Policy, networks: dict[str, Any], inputs: Any) -> tuple[Any, Any, Any]:
    logits, values = policy.evaluate(networks, inputs)
    actions, log_probs = _categorical(key, logits)
    return actions, _columns(log_probs, policy), values


def _advantages(rewards: Any, values: Any, dones: Any, last_values: Any, config: PPOConfig) -> tuple[Any, Any]:
    """GAE(lambda) over ``[steps, envs, ...]``; ``dones[t]``: the episode ended at step t."""
    def back(carry: tuple[Any, Any], step: tuple[Any, Any, Any]) -> tuple[tuple[Any, Any], Any]:
        advantage, next_value = carry
        reward, value, done = step
        live = 1.0 - done
        delta = reward + config.gamma * next_value * live - value
        advantage = delta + config.gamma * config.gae_lambda * live * advantage
        return (advantage, value), advantage

    _, advantages = jax.lax.scan(back, (jnp.zeros_like(last_values), last_values), (rewards, values, dones),
                                 reverse=True)
    return advantages, advantages + values


def _update(key: Any, learner: Learner, batch: Batch, config: PPOConfig, policy: Policy) -> tuple[Learner, Any]:
    """``epochs`` passes of shuffled minibatches over one side's rollout; the mean loss."""
    optimiser = _optimiser(config)
    flat = jax.tree_util.tree_map(lambda x: x.reshape(config.batch_size, *x.shape[2:]), batch)
    count = config.batch_size // config.minibatch_size

    def loss(networks: dict[str, Any], mini: Batch) -> Any:
        logits, values = policy.evaluate(networks, mini.inputs)
        log_softmax = jax.nn.log_softmax(logits)
        log_probs = _columns(jnp.take_along_axis(log_softmax, mini.actions[..., None], axis=-1)[..., 0], policy)
        if mini.valid is None:  # every sample counts: plain means (fewer kernels)
            def average(x: Any) -> Any:
                return x.mean()
            count = jnp.float32(mini.advantages.size)
        else:
            weight = jnp.broadcast_to(_expand(mini.valid, mini.advantages), mini.advantages.shape).astype(jnp.float32)
            count = jnp.maximum(weight.sum(), 1.0)

            def average(x: Any) -> Any:
                return (x * weight).sum() / count
        mean = average(mini.advantages)
        std = jnp.sqrt(average((mini.advantages - mean) ** 2) * count / jnp.maximum(count - 1.0, 1.0))
        advantages = (mini.advantages - mean) / (std + 1e-8)
        ratio = jnp.exp(log_probs - mini.log_probs)
        surrogate = jnp.minimum(ratio * advantages, jnp.clip(ratio, 1 - config.clip, 1 + config.clip) * advantages)
        policy_loss = -average(surrogate)
        value_loss = average((mini.returns - values) ** 2)
        entropy = average(_columns(-(jnp.exp(log_softmax) * log_softmax).sum(-1), policy))
        return policy_loss - config.ent_coef * entropy + config.vf_coef * value_loss

    # The optimiser runs on the parameters raveled into one vector: a few fused kernels a step
    # instead of a few per array, which is most of a small network's step on a CPU.
    vector, unravel = ravel_pytree(learner.networks)

    def flat_loss(parameters: Any, mini: Batch) -> Any:
        return loss(unravel(parameters), mini)

    def epoch(carry: tuple[Any, Any], key: Any) -> tuple[tuple[Any, Any], Any]:
        order = batch_permutation(key, config.batch_size)
        minis = jax.tree_util.tree_map(lambda x: x[order].reshape(count, config.minibatch_size, *x.shape[1:]), flat)

        def step(state: tuple[Any, Any], mini: Batch) -> tuple[tuple[Any, Any], Any]:
            parameters, opt_state = state
            value, grads = jax.value_and_grad(flat_loss)(parameters, mini)
            updates, opt_state = optimiser.update(grads, opt_state, parameters)
            return (optax.apply_updates(parameters, updates), opt_state), value

        return jax.lax.scan(step, carry, minis)

    (vector, opt_state), losses = jax.lax.scan(epoch, (vector, learner.optimiser), jax.random.split(key, config.epochs))
    return Learner(unravel(vector), opt_state), losses.mean()


def _learner(networks: dict[str, Any], config: PPOConfig) -> Learner:
    return Learner(networks, _optimiser(config).init(ravel_pytree(networks)[0]))


def new_learner(key: Any, inputs: int, config: PPOConfig) -> Learner:
    """Fresh networks (:func:`init_networks`) and their Adam state."""
    return _learner(init_networks(key, inputs, config), config)


class Trainer(Protocol[T]):
    """``train(state, updates, params=None) -> (state, metrics)``: what :func:`make_train` and
    :func:`make_selfplay` return (``params`` traced: tables of the same shapes do not recompile)."""

    def __call__(self, state: T, updates: int, params: EnvParams | None = None) -> tuple[T, dict[str, Any]]: ...


# -- one side ----------------------------------------------------------------------------------------
class SingleState(NamedTuple):
    """The state :func:`make_train`'s function carries: the learner, the games and a key."""

    learner: Learner
    games: EnvState
    observations: Any
    key: Any


def make_train(env: GridGhostJaxSingle, config: PPOConfig,
               params: EnvParams | None = None) -> tuple[Callable[..., SingleState], Trainer[SingleState]]:
    """PPO for the learner of ``env`` against its table opponent.

    Args:
        env: the one-side env.
        config: PPO's settings.
        params: the env's tables (default ``env.default_params``).

    Returns:
        ``(init, train)``: ``init(key, params=None)`` gives a :class:`SingleState` (fresh
        networks, ``num_envs`` reset games); ``train(state, updates, params=None)`` runs
        ``updates`` rollouts and updates in one ``lax.scan`` (jit it with ``static_argnums=1``;
        ``params``, by default those given here, is traced, so tables of the same shapes do not
        recompile) and returns the new state and per update ``{"loss", "reward", "episodes",
        "return"}`` (mean step reward, episodes ended, mean return of the episodes that ended in
        that update).

    Raises:
        TypeError: ``env`` is not a :class:`~gridghost.jax.GridGhostJaxSingle`, or ``config`` not a
            :class:`PPOConfig`.
        ValueError: a learning team (``env.controlled="ghosts"``); ``config.planes`` that the
            observation does not have (:func:`check_inputs`);
            ``train`` raises it for ``updates`` that is not an int >= 1.
        TypeError, ValueError: ``params`` that ``env`` cannot play (as ``env.reset`` refuses them).
    """
    _check_call("make_train", env, GridGhostJaxSingle, config)
    if env.controlled == "ghosts":
        raise ValueError("make_train trains one Discrete(4) learner; a learning team (env.controlled='ghosts', "
                         "MultiDiscrete actions) trains with gridghost.jax.team_ppo.make_team_train")
    inputs = check_inputs(env.observation_space(), config, _channels_last(env, env.controlled))
    return train_one_side(env, config, side_policy(inputs, config), params)


def train_one_side(env: GridGhostJaxSingle, config: PPOConfig, policy: Policy,
                   params: EnvParams | None = None) -> tuple[Callable[..., SingleState], Trainer[SingleState]]:
    """:func:`make_train`'s ``(init, train)`` for ``env``'s learner with ``policy``'s networks
    (what :func:`gridghost.jax.team_ppo.make_team_train` returns with a team's)."""
    default = env._params(params)
    n = config.num_envs

    def init(key: Any, params: EnvParams | None = None) -> SingleState:
        net_key, env_key, key = jax.random.split(key, 3)
        observations, games = env.batch_reset(env_key, n, default if params is None else params)
        return SingleState(_learner(policy.init(net_key), config), games, observations, key)

    def rollout_step(params: EnvParams, carry: tuple[SingleState, Any], _: Any) -> tuple[tuple[SingleState, Any], Any]:
        state, returns = carry
        key, act_key, step_key, reset_key = jax.random.split(state.key, 4)
        networks = state.learner.networks
        inputs_now = policy.features(state.observations)
        actions, log_probs, values = _sample(act_key, policy, networks, inputs_now)
        final, games, rewards, dones, info = env.batch_step_env(step_key, state.games, actions, params)
        # a truncated episode is bootstrapped from its final observation's value (SB3's rule)
        cut = info["truncated"] & ~info["terminated"]
        # the final observations' values, computed only in the steps where some episode was cut
        final_values = jax.lax.cond(cut.any(), lambda: policy.evaluate(networks, policy.features(final))[1],
                                    lambda: jnp.zeros_like(values))
        trained = _like(rewards, values) + config.gamma * jnp.where(_expand(cut, values), final_values, 0.0)
        fresh_observations, fresh = env.batch_reset(reset_key, n, params)
        games = jax.tree_util.tree_map(lambda a, b: jnp.where(_expand(dones, a), a, b), fresh, games)
        observations = jnp.where(_expand(dones, final), fresh_observations, final)
        returns = returns + rewards
        record = (inputs_now, actions, log_probs, values, trained, dones.astype(jnp.float32), rewards,
                  jnp.where(dones, returns, 0.0))
        returns = jnp.where(dones, 0.0, returns)
        return (SingleState(state.learner, games, observations, key), returns), record

    def one_update(params: EnvParams, carry: tuple[SingleState, Any],
                   _: Any) -> tuple[tuple[SingleState, Any], dict[str, Any]]:
        (state, returns), record = jax.lax.scan(partial(rollout_step, params), carry, None, config.num_steps)
        inputs_all, actions, log_probs, values, trained, dones, rewards, ended_returns = record
        _, last_values = policy.evaluate(state.learner.networks, policy.features(state.observations))
        advantages, targets = _advantages(trained, values, _like(dones, values), last_values, config)
        batch = Batch(inputs_all, actions, log_probs, values, advantages, targets, None)
        key, update_key = jax.random.split(state.key)
        learner, loss = _update(update_key, state.learner, batch, config, policy)
        episodes = dones.sum()
        metrics = {"loss": loss, "reward": rewards.mean(), "episodes": episodes,
                   "return": ended_returns.sum() / jnp.maximum(episodes, 1.0)}
        return (state._replace(learner=learner, key=key), returns), metrics

    def train(state: SingleState, updates: int, params: EnvParams | None = None) -> tuple[SingleState, dict[str, Any]]:
        (state, _), metrics = jax.lax.scan(partial(one_update, default if params is None else params),
                                           (state, jnp.zeros(config.num_envs)), None, _count(updates, "updates"))
        return state, metrics

    return init, train


def _check_call(function: str, env: Any, kind: type | tuple[type, ...], config: Any) -> None:
    """Refuse (``TypeError``, naming ``function``) an ``env`` that is not a ``kind``, or a
    ``config`` that is not a :class:`PPOConfig`."""
    if not isinstance(env, kind):
        names = " or ".join(f"gridghost.jax.{k.__name__}" for k in (kind if isinstance(kind, tuple) else (kind,)))
        verb = "trains on" if function.startswith("make_") else "takes"
        raise TypeError(f"{function} {verb} a {names}, got {type(env).__name__}")
    if not isinstance(config, PPOConfig):
        raise TypeError(f"{function} takes a gridghost.jax.ppo.PPOConfig, got {type(config).__name__}")


def _channels_last(env: GridGhostJax | GridGhostJaxSingle, side: str) -> bool | None:
    """Whether ``side``'s observation in ``env`` is a channels-last grid (``None``: not a grid)."""
    facts = dict(env.layout.grid).get(side)
    return None if facts is None else bool(facts[1])


def _expand(mask: Any, like: Any) -> Any:
    """``mask [n, ...]`` broadcast against ``like [n, ..., ...]`` (trailing axes added)."""
    return mask.reshape(mask.shape + (1,) * (like.ndim - mask.ndim))


def _like(x: Any, like: Any) -> Any:
    """``x [n, ...]`` repeated along ``like``'s further axes (a team's rewards per ghost)."""
    return jnp.broadcast_to(_expand(x, like), like.shape)


# -- both sides --------------------------------------------------------------------------------------
class SelfPlayState(NamedTuple):
    """The state :func:`make_selfplay`'s function carries: both learners, the games (the agent
    to move) and a key."""

    learners: dict[str, Learner]
    games: EnvState
    observations: Any
    key: Any


def make_selfplay(env: GridGhostJax, config: PPOConfig,
                  params: EnvParams | None = None) -> tuple[Callable[..., SelfPlayState], Trainer[SelfPlayState]]:
    """PPO for both sides of ``env`` at once, from the same games (see the module docstring).

    Args:
        env: the two-side env (``explore_starts`` in its params gives exploring starts).
        config: PPO's settings, both sides alike; ``num_steps`` counts full turns.
        params: the env's tables (default ``env.default_params``).

    Returns:
        ``(init, train)`` as :func:`make_train`'s; the metrics per update are
        ``{"agent_loss", "ghost_loss", "agent_reward", "episodes"}``.

    Raises:
        TypeError: ``env`` is not a :class:`~gridghost.jax.GridGhostJax`, or as :func:`make_train`.
        ValueError: a team (``ghosts >= 2``: :func:`gridghost.jax.team_ppo.make_team_selfplay`
            trains it), and as :func:`make_train`.

    Each update plays ``num_steps + 1`` turns and trains each side on the first ``num_steps``
    (the ghost's last move needs the agent's next half-turn); an episode cut by ``max_cycles`` is
    treated as ended, without the bootstrap from its value that one side gets.
    """
    _check_call("make_selfplay", env, GridGhostJax, config)
    if env.spec.ghosts > 1:
        raise ValueError(f"make_selfplay trains one ghost against the agent; a team (ghosts={env.spec.ghosts}) "
                         f"trains with gridghost.jax.team_ppo.make_team_selfplay")
    policies = {side: side_policy(check_inputs(env.observation_space(side), config, _channels_last(env, side)), config)
                for side in AGENTS}
    return train_both_sides(env, config, policies, params)


def train_both_sides(env: GridGhostJax, config: PPOConfig, policies: dict[str, Policy],
                     params: EnvParams | None = None) -> tuple[Callable[..., SelfPlayState], Trainer[SelfPlayState]]:
    """:func:`make_selfplay`'s ``(init, train)`` with each side's :class:`Policy` (``policies``:
    the agent's and the ghosts' side's, ``"ghost"`` or a team's ``"ghosts"``; the metrics name
    the latter's loss ``"<side>_loss"``)."""
    default = env._params(params)
    n = config.num_envs
    ghost = next(side for side in policies if side != AGENT)
    agent_policy, ghost_policy = policies[AGENT], policies[ghost]

    def init(key: Any, params: EnvParams | None = None) -> SelfPlayState:
        agent_key, ghost_key, env_key, key = jax.random.split(key, 4)
        observations, games = env.batch_reset(env_key, n, default if params is None else params)
        learners = {AGENT: _learner(agent_policy.init(agent_key), config),
                    ghost: _learner(ghost_policy.init(ghost_key), config)}
        return SelfPlayState(learners, games, observations[AGENT], key)

    def turn(params: EnvParams, state: SelfPlayState, _: Any) -> tuple[SelfPlayState, tuple[Any, ...]]:
        key, agent_key, ghost_key, slip_key, reset_key = jax.random.split(state.key, 5)
        agent_inputs = agent_policy.features(state.observations)
        agent_actions, agent_log_probs, agent_values = _sample(agent_key, agent_policy,
                                                               state.learners[AGENT].networks, agent_inputs)
        seen, games, first, ended, _ = env.batch_step_agent(slip_key, state.games, agent_actions, params)
        ghost_inputs = ghost_policy.features(seen[ghost])
        ghost_actions, ghost_log_probs, ghost_values = _sample(ghost_key, ghost_policy,
                                                               state.learners[ghost].networks, ghost_inputs)
        # the ghost's half ends the turn: finished games restart, and the agent sees the new one
        seen, games, second, dones, _ = env.batch_step_ghost(reset_key, games, ghost_actions, params)
        over = dones["__all__"]
        record = (agent_inputs, agent_actions, agent_log_probs, agent_values, first[AGENT] + second[AGENT],
                  ghost_inputs, ghost_actions, ghost_log_probs, ghost_values, ghost_policy.credit(second[ghost]),
                  ghost_policy.credit(first[ghost]), ended[AGENT], over)
        return SelfPlayState(state.learners, games, seen[AGENT], key), record

    def one_update(params: EnvParams, state: SelfPlayState, _: Any) -> tuple[SelfPlayState, dict[str, Any]]:
        # num_steps + 1 turns: the ghost's last transition needs the agent's next half-turn
        state, record = jax.lax.scan(partial(turn, params), state, None, config.num_steps + 1)
        (a_in, a_act, a_logp, a_val, a_rew, g_in, g_act, g_logp, g_val, g_rew, g_first, ended_first, over) = record
        t = config.num_steps
        over_f = over.astype(jnp.float32)
        agent_adv, agent_ret = _advantages(a_rew[:t], a_val[:t], over_f[:t], a_val[t], config)
        ghost_rewards, ghost_dones = ghost_credit(g_rew, g_first, over, ended_first)
        ghost_adv, ghost_ret = _advantages(_like(ghost_rewards, g_val[:t]), g_val[:t], _like(ghost_dones, g_val[:t]),
                                           g_val[t], config)
        batches = {
            AGENT: Batch(a_in[:t], a_act[:t], a_logp[:t], a_val[:t], agent_adv, agent_ret, jnp.ones_like(over[:t])),
            ghost: Batch(g_in[:t], g_act[:t], g_logp[:t], g_val[:t], ghost_adv, ghost_ret, ~ended_first[:t]),
        }
        key, agent_key, ghost_key = jax.random.split(state.key, 3)
        learners, losses = {}, {}
        for side, side_key in ((AGENT, agent_key), (ghost, ghost_key)):
            learners[side], losses[side] = _update(side_key, state.learners[side], batches[side], config,
                                                   policies[side])
        metrics = {"agent_loss": losses[AGENT], f"{ghost}_loss": losses[ghost], "agent_reward": a_rew[:t].mean(),
                   "episodes": over[:t].sum()}
        return state._replace(learners=learners, key=key), metrics

    def train(state: SelfPlayState, updates: int,
              params: EnvParams | None = None) -> tuple[SelfPlayState, dict[str, Any]]:
        return jax.lax.scan(partial(one_update, default if params is None else params), state, None,
                            _count(updates, "updates"))

    return init, train


def ghost_credit(second: Any, first: Any, over: Any, ended_first: Any) -> tuple[Any, Any]:
    """The ghost's rewards and episode ends per move, from ``T + 1`` turns ``[T + 1, envs]``:
    a move's reward runs from it to the ghost's next move, so it is the ghost's reward of its own
    half-turn (``second``) plus that of the agent's next half-turn (``first`` one turn on) unless
    the game ended this turn (``over``) and the next half-turn is a new game's; its episode ends
    with the turn, or with the agent's next half-turn (``ended_first`` one turn on). A team's
    rewards may have a further axis (``[T + 1, envs, k]``), ``over`` and ``ended_first`` not.

    Returns:
        ``(rewards, dones)``, ``float32[T, envs, ...]`` and ``float32[T, envs]``.
    """
    rewards = second[:-1] + jnp.where(_expand(over[:-1], first), 0.0, first[1:])
    return rewards, (over[:-1] | ended_first[1:]).astype(jnp.float32)


def policy_table(env: GridGhostJax | GridGhostJaxSingle, networks: dict[str, Any], side: str, config: PPOConfig,
                 level: int = 0, params: EnvParams | None = None) -> StatePolicy:
    """``side``'s greedy move in every state of map ``level``, as a
    :class:`~gridghost.planning.StatePolicy` the exact solver reads
    (:func:`gridghost.planning.exploitability`, ``OpponentPool``).

    Args:
        env: the env the networks learnt on.
        networks: the side's networks (``state.learner.networks``, ``state.learners[side].networks``).
        side: ``"agent"`` or ``"ghost"``, a side that learns in ``env``.
        config: the PPO settings the networks were built with (their inputs).
        level: the map, an index into ``env``'s stacked levels.
        params: the env's tables (default ``env.default_params``).

    Returns:
        The :class:`~gridghost.planning.StatePolicy` of the greedy moves (the ghost's read with
        the ghost to move).

    Raises:
        TypeError: ``env`` is not a JAX view, or ``config`` not a :class:`PPOConfig`.
        ValueError: ``side`` is not ``"agent"`` or ``"ghost"``, ``level`` is not a map index, or
            ``config.planes`` does not fit the observation.
        TypeError, ValueError: ``params`` that ``env`` cannot play.
    """
    _check_call("policy_table", env, (GridGhostJax, GridGhostJaxSingle), config)
    sides = AGENTS if isinstance(env, GridGhostJax) else (env.controlled,)
    if side not in sides:
        raise ValueError(f"side must be one of {list(sides)} (the env's learning sides), got {side!r}")
    if not is_int(level) or not 0 <= level < env.num_maps:
        raise ValueError(f"level must be a map index in 0..{env.num_maps - 1}, got {level!r}")
    level = int(level)
    check_inputs(env.observation_space(side), config, _channels_last(env, side))
    params = env._params(params)
    cells = env.layout.num_cells
    states = jnp.arange(cells * cells, dtype=jnp.int32) + level * cells * cells
    observe = jax.vmap(lambda s: env._observe(side, s, jnp.zeros((), dtype=bool), params))
    actions = greedy_actions(networks, observe(states), config)
    table = np.asarray(actions, dtype=np.int64).reshape(cells, cells)
    return StatePolicy(env.layouts[level], Side.AGENT if side == AGENT else Side.GHOST, table)
