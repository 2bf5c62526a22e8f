"""PPO's settings and networks (:mod:`gridghost.jax.ppo` trains them): :class:`PPOConfig`, and
policy and value MLPs as dicts of arrays (no framework), initialised as Stable-Baselines3's
``ActorCriticPolicy`` (64, 64, tanh, orthogonal initialisation with gains sqrt 2, 0.01 and 1).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from gridghost.core.checks import check_limit, check_number, check_probability, is_int
from gridghost.core.rules import NUM_ACTIONS


@dataclass(frozen=True)
class PPOConfig:
    """PPO's settings, named as ``stable_baselines3.PPO``'s, with its defaults but for the README
    recipe's ``num_steps=128``, ``minibatch_size=512`` and ``ent_coef=0.01``.

    Attributes:
        num_envs: games in lockstep (SB3's vector env size).
        num_steps: steps per game per rollout (``n_steps``).
        epochs: passes over a rollout (``n_epochs``).
        minibatch_size: samples per gradient step (``batch_size``); must divide
            ``num_envs * num_steps``.
        learning_rate, gamma, gae_lambda, clip, ent_coef, vf_coef, max_grad_norm: as SB3's
            ``learning_rate``, ``gamma``, ``gae_lambda``, ``clip_range``, ``ent_coef``,
            ``vf_coef``, ``max_grad_norm``.
        hidden: the hidden layers of each of the policy and value MLPs (``net_arch``).
        planes: channels-first grids only: the channel indices fed to the networks (as
            :class:`gridghost.integrations.sb3.MovePlanes` keeps them); ``None``: the whole
            observation, flattened.

    Counts, hidden sizes and planes may be NumPy integers (a sweep over ``np.arange``); they
    are kept as Python ints.

    Raises:
        TypeError: a count that is not an int (a bool or a float).
        ValueError: a count below 1, a hidden size that is not an int >= 1, a minibatch that does
            not divide the rollout, a rate or coefficient out of range.
    """

    num_envs: int = 32
    num_steps: int = 128
    epochs: int = 10
    minibatch_size: int = 512
    learning_rate: float = 3e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: tuple[int, ...] = (64, 64)
    planes: tuple[int, ...] | None = field(default=None)

    def __post_init__(self) -> None:
        for name in ("num_envs", "num_steps", "epochs", "minibatch_size"):
            object.__setattr__(self, name, check_limit(getattr(self, name), name, allow_none=False))
        if (self.num_envs * self.num_steps) % self.minibatch_size:
            raise ValueError(f"minibatch_size ({self.minibatch_size}) must divide num_envs * num_steps "
                             f"({self.num_envs * self.num_steps})")
        for name in ("gamma", "gae_lambda"):
            check_probability(getattr(self, name), name)
        for name in ("learning_rate", "clip", "max_grad_norm"):
            check_number(getattr(self, name), name, 0.0, strict=True)
        for name in ("ent_coef", "vf_coef"):
            check_number(getattr(self, name), name)
        if not self.hidden or any(not is_int(size) or size < 1 for size in self.hidden):
            raise ValueError(f"hidden must be a non-empty tuple of ints >= 1, got {self.hidden!r}")
        object.__setattr__(self, "hidden", tuple(int(size) for size in self.hidden))
        if self.planes is not None and all(is_int(plane) for plane in self.planes):  # else check_inputs refuses
            object.__setattr__(self, "planes", tuple(int(plane) for plane in self.planes))

    @property
    def batch_size(self) -> int:
        """Samples per rollout, ``num_envs * num_steps``."""
        return self.num_envs * self.num_steps


# -- networks ----------------------------------------------------------------------------------------
def _dense(key: Any, inputs: int, outputs: int, gain: float) -> dict[str, Any]:
    return {"w": jax.nn.initializers.orthogonal(gain)(key, (inputs, outputs)), "b": jnp.zeros(outputs)}


def _network_keys(key: Any, config: PPOConfig) -> Iterator[Any]:
    """The keys of a policy and a value MLP's layers (``_init_mlp``), one a layer."""
    return iter(jax.random.split(key, 2 * (len(config.hidden) + 1)))


def _init_mlp(keys: Iterator[Any], inputs: int, outputs: int, gain: float, config: PPOConfig) -> list[dict[str, Any]]:
    """An MLP of ``config.hidden`` tanh layers, initialised as SB3's: orthogonal weights with gain
    sqrt 2, the output layer's ``gain`` (0.01 a policy's, 1 a value's), zero biases; each layer
    takes the next of ``keys``.

    Returns:
        The layers, each ``{"w", "b"}``.
    """
    sizes = (inputs, *config.hidden)
    layers = [_dense(next(keys), a, b, float(np.sqrt(2))) for a, b in itertools.pairwise(sizes)]
    return [*layers, _dense(next(keys), sizes[-1], outputs, gain)]


def init_networks(key: Any, inputs: int, config: PPOConfig) -> dict[str, Any]:
    """A policy MLP and a value MLP, initialised as SB3's ``ActorCriticPolicy``.

    Args:
        key: a PRNG key.
        inputs: the features' size (:func:`features` of one observation).
        config: the hidden layers.

    Returns:
        ``{"pi": [layers], "vf": [layers]}``, each layer ``{"w", "b"}``.
    """
    keys = _network_keys(key, config)
    return {"pi": _init_mlp(keys, inputs, NUM_ACTIONS, 0.01, config), "vf": _init_mlp(keys, inputs, 1, 1.0, config)}


def _mlp(layers: Sequence[dict[str, Any]], x: Any) -> Any:
    """The MLP ``layers`` applied to ``x [..., inputs]`` (tanh between layers, none after the last)."""
    for layer in layers[:-1]:
        x = jnp.tanh(x @ layer["w"] + layer["b"])
    return x @ layers[-1]["w"] + layers[-1]["b"]


def check_inputs(space: Any, config: PPOConfig, channels_last: bool | None = None) -> int:
    """The number of network inputs a side's observation ``space`` gives under ``config``.

    Args:
        space: the side's observation space.
        config: PPO's settings (``planes``).
        channels_last: whether the observation is a channels-last grid (``grid_layout="hwc"``),
            as the env knows it; ``None``: not known, told from the shape (channels first when
            its last two axes are equal: a square window; a full non-square map's channels-first
            grid fails this guess and a channels-last grid as wide as its channel count passes
            it, so the trainers pass what the env knows).

    Returns:
        The features of one observation.

    Raises:
        ValueError: ``config.planes`` set for an observation that is not a channels-first grid
            (``obs_type="grid"``, ``grid_layout="chw"``), empty, or naming channels it does not have.
    """
    shape = tuple(space.shape or ())
    if config.planes is None:
        return int(np.prod(shape))
    guessed_wrong = channels_last is None and len(shape) == 3 and shape[1] != shape[2]
    if len(shape) != 3 or channels_last or guessed_wrong:
        raise ValueError(f"planes selects channels of a channels-first grid (obs_type='grid', grid_layout='chw'); "
                         f"the observation has shape {shape}{' (channels last)' if channels_last else ''}")
    if not config.planes:
        raise ValueError("planes must name at least one channel (None: the whole observation)")
    if any(not isinstance(plane, int) or isinstance(plane, bool) or not 0 <= plane < shape[0]
           for plane in config.planes) or len(set(config.planes)) != len(config.planes):
        raise ValueError(f"planes must be distinct channel indices in 0..{shape[0] - 1}, got {config.planes!r}")
    return len(config.planes) * shape[1] * shape[2]


def features(observations: Any, config: PPOConfig, batch_axes: int = 1) -> Any:
    """A batch of observations ``[n, ...]`` as the networks' inputs ``[n, features]``: the
    ``planes`` channels (channels first), flattened; with ``batch_axes=2`` a batch of a team's
    ``[n, k, ...]`` as ``[n, k, features]``."""
    lead = observations.shape[:batch_axes]
    if config.planes is not None:
        observations = observations[(slice(None),) * batch_axes + (jnp.asarray(config.planes),)]
    return observations.reshape(*lead, -1).astype(jnp.float32)


def evaluate(networks: dict[str, Any], inputs: Any) -> tuple[Any, Any]:
    """The policy's logits ``[n, 4]`` and the values ``[n]`` of features ``inputs``."""
    return _mlp(networks["pi"], inputs), _mlp(networks["vf"], inputs)[:, 0]


def greedy_actions(networks: dict[str, Any], observations: Any, config: PPOConfig) -> Any:
    """The most probable action of each observation of a batch (``int32[n]``)."""
    return jnp.argmax(_mlp(networks["pi"], features(observations, config)), axis=-1).astype(jnp.int32)
