"""The conformance suite: the contracts every view of gridghost keeps, as functions you call on
your own view or wrapper, in the spirit of PettingZoo's ``api_test``.

>>> import gridghost
>>> from gridghost.testing import aec_conformance
>>> aec_conformance(lambda: gridghost.env(max_cycles=5))

Each function takes ``make_env``, a function of no arguments that returns a fresh view (the
checks build several and compare them), plays short episodes with seeded random actions, and
raises an ``AssertionError`` whose message starts with the contract that failed:

- ``spaces``: every observation lies in its declared space; action spaces are ``Discrete(4)``
  (batched: one per game);
- ``masks``: action masks are ``int8[4]`` (``bool`` where a view documents so), 0/1, never all
  zeros, read-only or a copy of their own, and the kernel's mask at the mover's cell;
- ``determinism``: one seed, one trajectory, bit for bit (observations, rewards, dones, infos),
  also through an unseeded reset that continues the stream; other seeds differ somewhere;
- ``auto-reset``: vector and batched views restart finished games as their mode says
  (Gymnasium's next-step or same-step), with the final observations where the mode keeps them;
- ``zero-sum``: with the default rewards both sides' returns sum to exactly 0;
- ``pickling``: a view pickled mid-episode and the view itself go on identically;
- ``refusals``: a bad action raises ``TypeError`` or ``ValueError`` and changes nothing (state,
  observations, the random stream);
- ``kernel``: the view plays the kernel's game (:class:`gridghost.core.game.Game`): the views
  that follow the RNG contract (AEC, parallel, Gymnasium) equal the kernel's replay of the same
  actions and draws from the same seed (:class:`~gridghost.testing.common.KernelReplay`); the
  batched and JAX engines, which draw their own uniforms, make only moves the kernel gives a
  positive probability, with its rewards and ends; a termination exactly when the kernel's game
  ends, a truncation (AEC and parallel views) exactly when it goes on after ``max_cycles``
  cycles (a parallel step is a half-turn; a view of the ghosts alone plays a cycle per step);
- ``observations``: every observation a view hands out, by every observer it has (the agent
  and every ghost ``ghost_0..ghost_{k-1}``; a learning team's stacked in ghost order; each
  game's row of the vector, batched and JAX views), is the encoder of the view's settings
  applied to the kernel's replayed state, leaf by leaf and exactly (a belief map as
  :mod:`gridghost.testing.observing` says), and no observation changes once handed out.

A view that makes the game raise its own exception during a check, or a ``make_env`` that
raises, fails that check's contract all the same (:func:`~gridghost.testing.common.contract`).
The caller's own mistakes are not the view's: a bad argument to a check or a
``*_conformance`` function (``make_env`` not callable; ``seed`` or ``after`` not an
``int >= 0``; ``episodes``, ``steps`` or ``turns`` not an ``int >= 1``; an argument it does not
take) raises a plain ``TypeError`` or ``ValueError`` naming it, before any view is built. A
check that needs an episode that goes on (pickling or refusing mid-episode) takes the first of
:data:`~gridghost.testing.common.SEED_TRIES` seeds from its ``seed`` whose episode lasts, and
fails naming its contract when none does.

The checks read a view's settings from its ``config`` (on the view, its ``unwrapped``, or the
game it holds), its agents from the view (``possible_agents``, the observations it returns), and
its positions from public state: ``state()`` for the PettingZoo views, the
``game`` of a Gymnasium view, ``positions`` of a :class:`~gridghost.batched.BatchedGame`.

Modules: :mod:`gridghost.testing.pettingzoo_views` (AEC, parallel),
:mod:`gridghost.testing.gymnasium_views` (the single-agent env, the vector env),
:mod:`gridghost.testing.batched_views` (:class:`~gridghost.batched.BatchedGame`) and
:mod:`gridghost.testing.jax_views` (the JAX views; imports JAX when called);
:mod:`gridghost.testing.observing` holds what the ``observations`` checks share.
"""

from __future__ import annotations

from gridghost.testing.batched_views import BATCHED_CHECKS, batched_conformance
from gridghost.testing.gymnasium_views import GYMNASIUM_CHECKS, VECTOR_CHECKS, gymnasium_conformance, vector_conformance
from gridghost.testing.pettingzoo_views import AEC_CHECKS, PARALLEL_CHECKS, aec_conformance, parallel_conformance

__all__ = [
    "AEC_CHECKS",
    "BATCHED_CHECKS",
    "GYMNASIUM_CHECKS",
    "PARALLEL_CHECKS",
    "VECTOR_CHECKS",
    "aec_conformance",
    "batched_conformance",
    "gymnasium_conformance",
    "parallel_conformance",
    "vector_conformance",
]
