"""What a training run should report about a zero-sum game: each side's numbers, not their sum.

Under the default zero-sum rewards the two sides' returns of every episode cancel, so a trainer's
mean return over both sides (RLlib's ``episode_return_mean``, BenchMARL's ``mean return``) is 0
whatever the policies do. The metrics here are per side and read from how each game ended:

- ``agent_return``: the agent's mean return (each ghost's is its negative under zero-sum rewards
  and the team's credit, so with ``k`` ghosts a sum over every agent is ``(1 - k)`` times it);
- ``success_rate``: the share of games in which the agent reached a goal;
- ``capture_rate``: the share in which a ghost caught the agent (the rest hit ``max_cycles``);
- ``episode_length``: the mean number of the agent's moves per game (``max_cycles`` bounds it).

When the ghosts alone learn (the agent played inside the env, ``controlled="ghosts"``), the
agent's rewards are never seen: :data:`GHOSTS_METRICS` has ``ghost_return`` (the mean over the
ghosts of each one's return) in place of ``agent_return``, and ``episode_length`` counts the
team's moves.

:class:`EpisodeMetrics` collects finished games and summarises them; :class:`EpisodeTracker`
follows games step by step, for trainers that hand over batches of steps. No library is needed
here: :mod:`gridghost.integrations.rllib` (``GridGhostMetrics``),
:mod:`gridghost.integrations.torchrl` and :mod:`gridghost.integrations.benchmarl` feed them.

>>> metrics = EpisodeMetrics()
>>> metrics.add(agent_return=95.0, reached_goal=True, caught_by_ghost=False, length=6)
>>> metrics.add(agent_return=-53.0, reached_goal=False, caught_by_ghost=True, length=4)
>>> summary = metrics.summary()
>>> summary["agent_return"], summary["success_rate"], summary["capture_rate"]
(21.0, 0.5, 0.5)
>>> summary["episode_length"], summary["episodes"]
(5.0, 2)
>>> format_metrics(metrics.summary())
'agent return 21.000  success 0.500  capture 0.500  length 5.0  (2 games)'
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gridghost.core.checks import check_flag, check_limit
from gridghost.core.rules import Side

#: The per-side metrics, in the order :meth:`EpisodeMetrics.summary` and :func:`format_metrics` give them.
METRICS: tuple[str, ...] = ("agent_return", "success_rate", "capture_rate", "episode_length")
#: The per-side metrics when the ghosts alone learn: ``ghost_return`` in place of ``agent_return``.
GHOSTS_METRICS: tuple[str, ...] = ("ghost_return", *METRICS[1:])
#: The info keys that say how a game ended (numeric infos, the default, hold both at every step).
OUTCOME_KEYS: tuple[str, str] = ("reached_goal", "caught_by_ghost")


def outcome(info: Mapping[str, Any]) -> tuple[bool, bool]:
    """How a game ended, from its last numeric info (either side's).

    Args:
        info: the info of a game's last step.

    Returns:
        ``(reached_goal, caught_by_ghost)``; both False for a game cut short by ``max_cycles``.

    Raises:
        TypeError: ``info`` is not a mapping.
        ValueError: ``info`` lacks one of :data:`OUTCOME_KEYS` (the reference's infos,
            ``reference_infos=True``, write them only when they happen), or says both.

    >>> outcome({"reached_goal": False, "caught_by_ghost": True})
    (False, True)
    """
    if not isinstance(info, Mapping):
        raise TypeError(f"info must be a game's last info (a dict), got {type(info).__name__}")
    missing = [key for key in OUTCOME_KEYS if key not in info]
    if missing:
        raise ValueError(f"info lacks {missing}: per-side metrics read the numeric infos (the default), "
                         f"which hold {list(OUTCOME_KEYS)} at every step; got the keys {sorted(map(str, info))}")
    reached, caught = bool(info["reached_goal"]), bool(info["caught_by_ghost"])
    if reached and caught:
        raise ValueError("info says the game ended both ways (reached_goal and caught_by_ghost)")
    return reached, caught


def format_metrics(summary: Mapping[str, float]) -> str:
    """One line of per-side metrics, for a progress line or a log.

    Args:
        summary: a mapping holding :data:`METRICS`, or :data:`GHOSTS_METRICS` (and, if it has
            it, ``"episodes"``), such as :meth:`EpisodeMetrics.summary` or RLlib's
            ``result["env_runners"]`` with :class:`~gridghost.integrations.rllib.GridGhostMetrics`.

    Raises:
        KeyError: a metric is missing from ``summary`` (naming the missing ones).

    >>> ghosts = {"ghost_return": 0.5, "success_rate": 0.0, "capture_rate": 1.0,
    ...           "episode_length": 4}
    >>> format_metrics(ghosts)
    'ghost return 0.500  success 0.000  capture 1.000  length 4.0'
    """
    names = GHOSTS_METRICS if "ghost_return" in summary and "agent_return" not in summary else METRICS
    missing = [name for name in names if name not in summary]
    if missing:
        raise KeyError(f"summary lacks the metrics {missing} (did the run finish a game, with the metrics callback?)")
    games = f"  ({int(summary['episodes'])} games)" if "episodes" in summary else ""
    return (f"{names[0].replace('_', ' ')} {summary[names[0]]:.3f}  success {summary['success_rate']:.3f}  "
            f"capture {summary['capture_rate']:.3f}  length {summary['episode_length']:.1f}{games}")


class EpisodeMetrics:
    """Finished games, summarised per side (see the module docstring)."""

    def __init__(self) -> None:
        self._games: list[tuple[float, bool, bool, int]] = []  # per game, the values of METRICS' means

    @property
    def episodes(self) -> int:
        """How many games were added since the last :meth:`clear`."""
        return len(self._games)

    def add(self, agent_return: float, reached_goal: bool, caught_by_ghost: bool, length: int) -> None:
        """Add one finished game.

        Args:
            agent_return: the agent's return over the game.
            reached_goal, caught_by_ghost: how it ended (both False: cut short by ``max_cycles``).
            length: the agent's moves in the game (>= 1).

        Raises:
            TypeError: ``reached_goal`` or ``caught_by_ghost`` is not a bool, ``length`` not an int.
            ValueError: ``agent_return`` is not finite, the game ended both ways, or ``length`` < 1.
        """
        check_flag(reached_goal, "reached_goal")
        check_flag(caught_by_ghost, "caught_by_ghost")
        length = check_limit(length, "length", allow_none=False)  # the agent moves first
        if not math.isfinite(agent_return):
            raise ValueError(f"agent_return must be finite, got {agent_return!r}")
        if reached_goal and caught_by_ghost:
            raise ValueError("a game ends either by a goal or by a capture, not both")
        self._games.append((float(agent_return), bool(reached_goal), bool(caught_by_ghost), length))

    def add_info(self, agent_return: float, info: Mapping[str, Any], length: int) -> None:
        """:meth:`add` a game whose ending is read from its last numeric info (see :func:`outcome`)."""
        reached, caught = outcome(info)
        self.add(agent_return, reached, caught, length)

    def summary(self) -> dict[str, float]:
        """The means over the games added: :data:`METRICS` and ``"episodes"`` (their number).

        Raises:
            ValueError: no game was added (a mean of nothing is no number).
        """
        if not self._games:
            raise ValueError("no finished game to summarise: play longer, or check episodes first")
        n = len(self._games)
        columns = zip(*self._games, strict=True)
        return {**{name: sum(column) / n for name, column in zip(METRICS, columns, strict=True)}, "episodes": n}

    def clear(self) -> None:
        """Forget the games added so far (e.g. at the start of a training iteration)."""
        self._games = []


class EpisodeTracker:
    """Follows games through batches of steps and adds each game to :attr:`metrics` when it ends.

    A batch holds, for each step, the agent's reward, whether the agent moved, whether the game
    ended and how (the step's numeric info). Arrays have the steps on the last axis and any
    number of games on the axes before it (``(steps,)`` for one env, ``(envs, steps)`` for
    several); a game that runs on past a batch's end is carried over to the next batch, whose
    arrays must then have the same leading shape.

    Args:
        metrics: where finished games go; a new :class:`EpisodeMetrics` when None.
    """

    def __init__(self, metrics: EpisodeMetrics | None = None) -> None:
        self.metrics = metrics if metrics is not None else EpisodeMetrics()
        self._return: np.ndarray | None = None
        self._length: np.ndarray | None = None

    def step(self, agent_reward: Any, done: Any, agent_infos: Sequence[Mapping[str, Any]]) -> int:
        """Take one step of several games, with each game's agent info as the env gave it.

        Args:
            agent_reward: the agent's reward in this step, one per game.
            done: whether each game ended (or was cut short) in this step.
            agent_infos: each game's numeric info for the agent (its ``mover``, ``reached_goal`` and
                ``caught_by_ghost`` are read).

        Returns:
            How many games ended in this step.

        Raises:
            ValueError: the three do not have one entry per game, or as :func:`outcome` and
                :meth:`update`.
            KeyError: an info has no ``mover``.
        """
        rewards, ended = np.asarray(agent_reward), np.asarray(done)
        if rewards.ndim != 1 or ended.shape != rewards.shape or len(agent_infos) != len(rewards):
            raise ValueError(f"agent_reward, done and agent_infos must hold one entry per game; got the shapes "
                             f"{rewards.shape}, {ended.shape} and {len(agent_infos)} infos")
        reached, caught = np.array([outcome(info) for info in agent_infos], dtype=bool).reshape(-1, 2).T
        if any("mover" not in info for info in agent_infos):
            raise KeyError("an agent info has no 'mover' (who made the step's move): per-side metrics read the "
                           "numeric infos (the default)")
        moved = np.array([info["mover"] == Side.AGENT for info in agent_infos])
        return self.update(*(column[:, None] for column in (rewards, moved, ended, reached, caught)))

    def update(self, agent_reward: Any, agent_moved: Any, done: Any, reached_goal: Any, caught_by_ghost: Any) -> int:
        """Take one batch of steps.

        Args:
            agent_reward: the agent's reward in each step (the half-turn's, whoever moved).
            agent_moved: whether the agent moved in each step (the step's info ``mover == 0``).
            done: whether the game ended (or was cut short) in each step.
            reached_goal, caught_by_ghost: the step's info keys of those names.

        Returns:
            How many games ended in this batch.

        Raises:
            ValueError: the arrays' shapes differ, have no step axis, or differ in their leading
                axes from the batch before while a game was carried over; a reward is not finite.
        """
        arrays = [np.asarray(a) for a in (agent_reward, agent_moved, done, reached_goal, caught_by_ghost)]
        shape = arrays[0].shape
        names = ("agent_reward", "agent_moved", "done", "reached_goal", "caught_by_ghost")
        for name, array in zip(names, arrays, strict=True):
            if array.shape != shape or not shape:
                raise ValueError(f"{name} has shape {array.shape}; every array must have the shape of agent_reward "
                                 f"{shape}, with the steps on the last axis")
        reward = arrays[0].astype(np.float64).reshape(-1, shape[-1])
        if not np.isfinite(reward).all():
            raise ValueError("agent_reward holds a value that is not finite")
        moved, ended, reached, caught = (a.astype(bool).reshape(-1, shape[-1]) for a in arrays[1:])
        games = reward.shape[0]
        if self._return is None or self._length is None:
            self._return, self._length = np.zeros(games), np.zeros(games, dtype=np.int64)
        elif len(self._return) != games:
            raise ValueError(f"this batch has {games} games, the last one {len(self._return)}; a tracker follows "
                             "the same envs from batch to batch")
        finished = 0
        for game in range(games):
            start = 0
            for end in np.flatnonzero(ended[game]).tolist():
                self.metrics.add(float(self._return[game] + reward[game, start:end + 1].sum()),
                                 bool(reached[game, end]), bool(caught[game, end]),
                                 int(self._length[game] + moved[game, start:end + 1].sum()))
                self._return[game], self._length[game] = 0.0, 0
                start = end + 1
                finished += 1
            self._return[game] += reward[game, start:].sum()
            self._length[game] += moved[game, start:].sum()
        return finished
