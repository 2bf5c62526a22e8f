"""Per-side metrics from TorchRL's batches of gridghost steps.

``PettingZooWrapper(gridghost.env(...))`` and ``PettingZooWrapper(gridghost.parallel_env(...))``
put each side's reward and numeric info in every step of a collected batch, so the agent's
return, how each game ended and the agent's moves can be read from it
(:mod:`gridghost.integrations.metrics`)::

    from gridghost.integrations.torchrl import TensorDictMetrics

    metrics = TensorDictMetrics()
    for batch in collector:
        metrics.update(batch)
        print(format_metrics(metrics.summary()))     # from gridghost.integrations.metrics
        metrics.metrics.clear()

The keys read: ``("next", "agent", "reward")``, ``("next", "done")`` and the agent's info
entries ``mover``, ``reached_goal`` and ``caught_by_ghost`` under ``("next", "agent", "info")``.
A batch of the ghosts alone (``gridghost.parallel_env(controlled="ghosts", ...)``, whose one
group is ``"ghost"``) holds no agent's reward: its summary has
:data:`~gridghost.integrations.metrics.GHOSTS_METRICS`, and how each game ended is read from
ghost 0's info.
Nothing here imports torch: a batch is read through its ``get`` and each tensor's ``numpy()``.
:mod:`gridghost.integrations.benchmarl` wraps this as a BenchMARL callback.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gridghost.core.names import AGENT, GHOST
from gridghost.core.rules import Side
from gridghost.integrations.metrics import EpisodeMetrics, EpisodeTracker

#: The keys :class:`TensorDictMetrics` reads from a batch, by what they mean.
KEYS: dict[str, tuple[str, ...]] = {
    "agent_reward": ("next", AGENT, "reward"),
    "mover": ("next", AGENT, "info", "mover"),
    "done": ("next", "done"),
    "reached_goal": ("next", AGENT, "info", "reached_goal"),
    "caught_by_ghost": ("next", AGENT, "info", "caught_by_ghost"),
}

#: The keys read from a batch of the ghosts alone: :data:`KEYS` but ``mover``, under the group
#: ``"ghost"`` (one entry per ghost).
TEAM_KEYS: dict[str, tuple[str, ...]] = {
    name.replace(AGENT, GHOST): tuple(GHOST if part == AGENT else part for part in key)
    for name, key in KEYS.items() if name != "mover"}


def _get(batch: Any, key: tuple[str, ...]) -> Any:
    try:
        return batch.get(key)
    except KeyError:
        return None


def _steps(batch: Any, key: tuple[str, ...]) -> np.ndarray:
    """``batch[key]`` as an array of the batch's shape (its trailing group and feature axes of
    size 1 dropped); of the ghost group's entries (:data:`TEAM_KEYS`), the mean over the ghosts
    of a reward, ghost 0's of an info. The batch's axes must come first: an entry of another layout
    is refused, never reshaped into them (that would read each value as another step's)."""
    value = _get(batch, key)
    if value is None:
        raise KeyError(f"the batch has no entry {key}: TensorDictMetrics reads gridghost's numeric infos through "
                       "TorchRL's PettingZooWrapper (the groups 'agent' and 'ghost', or 'ghost' alone, infos with "
                       "their default keys)")
    array = value.detach().cpu().numpy() if hasattr(value, "detach") else np.asarray(value)
    shape = tuple(batch.batch_size)
    rest = array.shape[len(shape):]
    group = GHOST in key and len(rest) > 0  # the group's axis: one entry per ghost
    if array.shape[:len(shape)] != shape or any(size != 1 for size in rest[int(group):]):
        layout = " then the ghosts' axis" if GHOST in key else ""
        raise ValueError(f"batch entry {key} has shape {array.shape}, not one value per step of {shape} (the "
                         f"batch's axes first{layout}, then only axes of size 1)")
    if group:
        team = array.reshape(*shape, rest[0])
        array = team.mean(axis=-1) if key[-1] == "reward" else team[..., 0]
    return array.reshape(shape)


class TensorDictMetrics:
    """Reads TorchRL batches of gridghost steps into per-side metrics.

    Follows the same envs from batch to batch, as
    :class:`~gridghost.integrations.metrics.EpisodeTracker` does: a batch's steps are on its last
    batch axis.

    Args:
        metrics: where finished games go; a new :class:`~gridghost.integrations.metrics.EpisodeMetrics`
            when None.
    """

    def __init__(self, metrics: EpisodeMetrics | None = None) -> None:
        self.tracker = EpisodeTracker(metrics)
        self.metrics = self.tracker.metrics
        self._ghosts_alone = False

    def update(self, batch: Any) -> int:
        """Read one collected batch (a ``TensorDict``).

        Returns:
            How many games ended in it.

        Raises:
            KeyError: the batch lacks one of :data:`KEYS`.
            ValueError: an entry does not hold one value per step, or as
                :meth:`~gridghost.integrations.metrics.EpisodeTracker.update`.
        """
        self._ghosts_alone = _get(batch, KEYS["agent_reward"]) is None
        steps = {name: _steps(batch, key) for name, key in (TEAM_KEYS if self._ghosts_alone else KEYS).items()}
        if self._ghosts_alone:  # the tracker's return is the ghosts' mean here, every step one team move
            steps["agent_reward"], steps["mover"] = steps["ghost_reward"], np.full_like(steps["done"], int(Side.AGENT))
        return self.tracker.update(steps["agent_reward"], steps["mover"] == int(Side.AGENT), steps["done"],
                                   steps["reached_goal"], steps["caught_by_ghost"])

    def summary(self) -> dict[str, float]:
        """The metrics' summary (see :meth:`~gridghost.integrations.metrics.EpisodeMetrics.summary`;
        :data:`~gridghost.integrations.metrics.GHOSTS_METRICS` when the batches read were the ghosts alone).

        Raises:
            ValueError: no game ended in the batches read since the metrics were last cleared.
        """
        summary = self.metrics.summary()
        if self._ghosts_alone:
            summary = {("ghost_return" if name == "agent_return" else name): value for name, value in summary.items()}
        return summary
