"""Adapters for training libraries; each is imported only when used.

- :mod:`gridghost.integrations.turns`: the turn-based game as dictionaries of the side that
  observes next, with full reward credit. This is the dict-in, dict-out form of RLlib's
  ``MultiAgentEnv``, and it needs no library.
- :mod:`gridghost.integrations.rllib`: that form as an RLlib ``MultiAgentEnv`` (needs Ray:
  ``pip install "gridghost[rllib]"``).
- :mod:`gridghost.integrations.sb3`: the batched engine as a Stable-Baselines3 ``VecEnv``
  (``SB3VecEnv``), with episode statistics, ``is_success`` and action masks (needs
  ``pip install "gridghost[sb3]"``).
- :mod:`gridghost.integrations.metrics`: per-side metrics of zero-sum training runs (the agent's
  return, success and capture rates, game length), where a mean over both sides is always 0;
  no library needed. :mod:`gridghost.integrations.torchrl` reads them from TorchRL's batches
  (nothing imported), :mod:`gridghost.integrations.benchmarl` has gridghost's BenchMARL task and
  a callback that prints them (needs BenchMARL); the RLlib module has ``GridGhostMetrics``.

The reward-credit rule holds in every adapter. Each side receives all of its rewards, summed
until it next observes. A reward earned before a side's first observation (the ghost's, for
the agent's opening move) is paid with its second, because trainers such as RLlib drop a reward
that comes with a first observation. Under the default zero-sum rewards the agent's return and
each ghost's return sum to exactly 0 in every episode (with ``ghosts=k`` every ghost receives the
team's reward, so the sum over all k + 1 players is (1 - k) times the agent's return).
"""
