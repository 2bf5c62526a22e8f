"""Uniforms for a whole batch of games, and permutations, from one PRNG key, cheaply.

JAX's default generator (threefry) costs about 50 ns a 32-bit word on a CPU: for 4,096 games and
the few uniforms of a step with its auto-reset, about the whole step of the NumPy engine.
The batched calls (:meth:`~gridghost.jax.GridGhostJaxSingle.batch_step`, ...) therefore take one
key per call, draw two words from it with ``jax.random.bits`` (whatever the key's
implementation), and make each game's uniforms by hashing ``(those words, the draw's counter)``
with MurmurHash3's 32-bit finaliser twice: a bijection of the counter for each seed, so no two
draws of one call collide, and the output passes the statistical tests that matter here (the
chi-square tests of ``tests/test_jax.py``). It is not a cryptographic generator, and a key gives
other numbers here than in the per-game calls, which use ``jax.random.uniform``.
:func:`batch_permutation` shuffles PPO's minibatches the same way, without a sort.
"""

from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp

from gridghost.core.checks import is_int

_GOLDEN = 0x9E3779B9


def _count(value: Any, argument: str, accepted: str = "an int >= 1") -> int:
    """``value``, a Python or NumPy int >= 1 (not a bool), as an ``int``.

    Raises:
        ValueError: anything else, naming ``argument`` and what it must be (``accepted``).
    """
    if not is_int(value) or value < 1:
        raise ValueError(f"{argument} must be {accepted}, got {value!r}")
    return int(value)


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
    counter = jnp.arange(math.prod(shape), dtype=jnp.uint32)
    bits = _mix(_mix(counter * jnp.uint32(_GOLDEN) + seed[0]) ^ seed[1])  # distinct words: each counter's hash
    return ((bits >> 8).astype(jnp.float32) * jnp.float32(2.0**-24)).reshape(shape)


#: Rounds of :func:`batch_permutation`'s Feistel cipher (TensorFlow's ``index_shuffle`` advises 8).
PERMUTATION_ROUNDS = 8
#: Below this many indices :func:`batch_permutation` is ``jax.random.permutation``: a sort is
#: cheap there, and a cipher on so few bits is measurably far from uniform.
CIPHER_MIN_SIZE = 1024


def batch_permutation(key: Any, size: int) -> Any:
    """A random permutation of ``0..size-1`` (``int32[size]``) from one key, for minibatches.

    From :data:`CIPHER_MIN_SIZE` indices on, each index is enciphered by a keyed Feistel cipher
    on the ``m`` bits that hold ``size - 1`` (halves of ``m // 2`` and ``m - m // 2`` bits,
    alternating; each round XORs one half with ``fmix32`` of the other and a round key), and an
    index enciphered past the end is enciphered again until it lands inside (cycle walking),
    which keeps it a bijection of ``0..size-1``: the construction of index shuffles such as
    TensorFlow's ``index_shuffle``. It is elementwise, so it costs about a hundredth of
    ``jax.random.permutation`` on a CPU, where that sorts twice with a comparator call per
    comparison (about 30 us against 2.8 ms for 4,096). Like any keyed generator it reaches only
    some of the ``size!`` orders; what minibatches need, each index's position uniform and two
    indices' chance of sharing a minibatch independent of which two they are, is what
    ``tests/test_jax.py`` checks. Smaller sizes use ``jax.random.permutation``.

    Args:
        key: a JAX PRNG key.
        size: how many indices, at least 1 (an ``int``).

    Returns:
        ``int32[size]``, each of ``0..size-1`` once.

    Raises:
        ValueError: ``size`` is not a positive ``int``.
    """
    size = _count(size, "size", "a positive int")
    if size < CIPHER_MIN_SIZE:
        return jax.random.permutation(key, size).astype(jnp.int32)
    bits = (size - 1).bit_length()
    round_keys = jax.random.bits(key, (PERMUTATION_ROUNDS,), dtype=jnp.uint32)

    def encipher(x: Any) -> Any:
        high_bits, low_bits = bits // 2, bits - bits // 2
        for round_key in round_keys:
            high, low = x >> low_bits, x & jnp.uint32((1 << low_bits) - 1)
            x = (low << high_bits) | (high ^ (_mix(low ^ round_key) & jnp.uint32((1 << high_bits) - 1)))
            high_bits, low_bits = low_bits, high_bits
        return x

    first = encipher(jnp.arange(size, dtype=jnp.uint32))
    inside = jax.lax.while_loop(lambda x: (x >= size).any(), lambda x: jnp.where(x >= size, encipher(x), x), first)
    return inside.astype(jnp.int32)
