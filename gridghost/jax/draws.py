"""Uniforms for a whole batch of games from one PRNG key, cheaply.

JAX's default generator (threefry) costs about 50 ns a 32-bit word on a CPU: for 4,096 games and
the few uniforms of a step with its auto-reset, about the whole step of the NumPy engine.
The batched calls (:meth:`~gridghost.jax.GridGhostJaxSingle.batch_step`, ...) therefore take one
key per call, draw two words from it with ``jax.random.bits`` (whatever the key's
implementation), and make each game's uniforms by hashing ``(those words, the draw's counter)``
with MurmurHash3's 32-bit finaliser twice: a bijection of the counter for each seed, so no two
draws of one call collide, and the output passes the statistical tests that matter here (the
chi-square tests of ``tests/test_jax.py``). It is not a cryptographic generator, and a key gives
other numbers here than in the per-game calls, which use ``jax.random.uniform``.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

_GOLDEN = 0x9E3779B9


def _mix(x: Any) -> Any:
    """MurmurHash3's 32-bit finaliser (``fmix32``), a bijection of ``uint32``."""
    x = x ^ (x >> 16)
    x = x * jnp.uint32(0x85EBCA6B)
    x = x ^ (x >> 13)
    x = x * jnp.uint32(0xC2B2AE35)
    return x ^ (x >> 16)


def batch_uniforms(key: Any, shape: tuple[int, ...]) -> Any:
    """``float32`` uniforms in [0, 1) of ``shape``, 24 bits each, from one key.

    Args:
        key: a JAX PRNG key (any implementation; a raw ``uint32[2]`` key too).
        shape: the uniforms' shape, e.g. ``(games, draws)``.

    Returns:
        ``float32[shape]``.
    """
    seed = jax.random.bits(key, (2,), dtype=jnp.uint32)
    size = 1
    for length in shape:
        size *= length
    counter = jnp.arange(size, dtype=jnp.uint32)
    bits = _mix(_mix(counter * jnp.uint32(_GOLDEN) + seed[0]) ^ seed[1])
    return ((bits >> 8).astype(jnp.float32) * jnp.float32(2.0**-24)).reshape(shape)
