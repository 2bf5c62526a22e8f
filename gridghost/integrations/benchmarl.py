"""gridghost for BenchMARL: the task that runs the game, and a callback that reports per-side
metrics (the agent's return, success and capture rates, game length) after every collected batch.

BenchMARL runs tasks, not env objects: a new environment is a ``TaskClass`` (whose ``get_env_fun``
builds the TorchRL env) and a ``Task`` enum naming it, BenchMARL's "extending: task" recipe.
PettingZoo's tictactoe_v3 needs the same (BenchMARL ships no classic PettingZoo task).
:class:`GridGhostClass` is BenchMARL's own PettingZoo task class with TorchRL's
``PettingZooWrapper(gridghost.parallel_env(**config), use_mask=True)`` as its env, as BenchMARL's
PettingZoo tasks build theirs; ``GridGhostTask.GRIDGHOST.get_task(config)`` makes a task of the
game's settings. The waiting side's action mask is ``[1, 0, 0, 0]``: its policy has one legal
move, the no-op, and nothing it sends is carried out.

``GridGhostTask.GRIDGHOST_TEAM.get_task(config)`` is the ghosts alone learning against a fixed
agent: ``gridghost.parallel_env(controlled="ghosts", **config)``, one group ``"ghost"`` of ``k``
ghosts (``config["ghosts"]``), the agent played inside the env by ``config["opponent"]``
(``"random"`` by default; ``"minimax"``, ``"optimal"`` or a policy), every step the team's move
and the agent's answer::

    task = GridGhostTask.GRIDGHOST_TEAM.get_task(
        {"ghosts": 2, "layout": "team_eight", "opponent": "random"})

Both tasks give BenchMARL the game's global state (:meth:`~gridghost.envs.aec.GridGhostEnv.state`,
a ``rows x cols`` plane per piece, one per ghost, flattened): MAPPO's centralised critic reads it.

BenchMARL's progress bar shows ``mean return``, the mean over the groups of each group's mean
return, which is 0 in a zero-sum game whatever the policies do (with a team and
``ghost_credit="team"`` every ghost's return is minus the agent's, so the ghost group's mean
is too); in the ghosts-only task it is the ghosts' mean return, which :class:`SideMetrics`
reports as ``ghost_return``. :class:`SideMetrics` reads each batch with
:class:`~gridghost.integrations.torchrl.TensorDictMetrics`, prints one line per iteration above
the bar, sends the numbers to the experiment's loggers (``collection/agent_return`` and so on)
and keeps them in :attr:`SideMetrics.history`::

    experiment = Experiment(task=GridGhostTask.GRIDGHOST.get_task({"obs_type": "vector"}), ...,
                            callbacks=[SideMetrics()])
    experiment.run()

Needs BenchMARL (the ``benchmarl`` extra, ``pip install "gridghost[benchmarl]"``); importing this
module imports it.
``examples/benchmarl_mappo.py`` and the training page run whole experiments.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import torch
from benchmarl.environments import PettingZooClass, Task
from benchmarl.experiment.callback import Callback
from torchrl.envs import DTypeCastTransform, FlattenObservation, Transform
from torchrl.envs.libs.pettingzoo import PettingZooWrapper

from gridghost.config import trainer_settings
from gridghost.envs.ghost_team import parallel_env
from gridghost.integrations.metrics import GHOSTS_METRICS, METRICS, format_metrics
from gridghost.integrations.torchrl import TensorDictMetrics

_logger = logging.getLogger(__name__)


#: The task whose env is the ghosts alone (``controlled="ghosts"``).
_TEAM_TASK = "GRIDGHOST_TEAM"


class GridGhostClass(PettingZooClass):  # type: ignore[misc]
    """BenchMARL's PettingZoo task class over gridghost's parallel env; the task's config is the
    game's keywords, with the trainers' defaults (:data:`~gridghost.config.TRAINER_DEFAULTS`:
    ``obs_type="vector"``, which BenchMARL's MLP takes, and ``rewards="normalised"``), and for
    ``GRIDGHOST_TEAM`` the ghosts-only env's ``opponent`` (and ``opponent_obs_type``)."""

    def get_env_fun(self, num_envs: int, continuous_actions: bool, seed: int | None, device: Any
                    ) -> Callable[[], PettingZooWrapper]:
        """A builder of TorchRL's ``PettingZooWrapper`` over ``gridghost.parallel_env(**config)``
        (``controlled="ghosts"`` for ``GRIDGHOST_TEAM``), with the global state."""
        config = trainer_settings(self.config)
        if self.name == _TEAM_TASK:
            config = {"controlled": "ghosts", **config}
        return lambda: PettingZooWrapper(parallel_env(**config), use_mask=True, return_state=True, seed=seed,
                                         device=device)

    def get_env_transforms(self, env: Any) -> list[Transform]:
        """The state flattened (``rows x cols x planes`` to one axis) and cast from ``int8`` to
        ``float32``, as BenchMARL's MLP critic reads it."""
        return [FlattenObservation(first_dim=-3, last_dim=-1, in_keys=["state"], allow_positive_dim=False),
                DTypeCastTransform(env.observation_spec["state"].dtype, torch.float32, in_keys=["state"])]

    def supports_continuous_actions(self) -> bool:
        """False: the four moves are discrete."""
        return False

    def supports_discrete_actions(self) -> bool:
        """True."""
        return True

    def has_state(self) -> bool:
        """True: the game's global state (what MAPPO's centralised critic reads)."""
        return True

    def has_render(self, env: Any) -> bool:
        """False: BenchMARL's video logging is not wired to gridghost's renderer."""
        return False

    def max_steps(self, env: Any) -> int:
        """The parallel steps an episode lasts at most: the game's ``max_cycles`` (100 when the
        config does not set it), two steps each with the ghost in the game, one for the ghosts
        alone."""
        both = self.name != _TEAM_TASK and self.config.get("use_ghost", True)
        return int(self.config.get("max_cycles", 100)) * (2 if both else 1)

    @staticmethod
    def env_name() -> str:
        """``"gridghost"``."""
        return "gridghost"


class GridGhostTask(Task):  # type: ignore[misc]
    """The BenchMARL task enum of gridghost: ``GridGhostTask.GRIDGHOST.get_task({...settings})``
    (both sides learn), ``GridGhostTask.GRIDGHOST_TEAM.get_task({...settings, "opponent": ...})``
    (the ghosts alone, against a fixed agent)."""

    GRIDGHOST = None
    GRIDGHOST_TEAM = None

    @staticmethod
    def associated_class() -> type[GridGhostClass]:
        """:class:`GridGhostClass`."""
        return GridGhostClass


class SideMetrics(Callback):  # type: ignore[misc]
    """A BenchMARL callback: per-side metrics of the games that ended in each collected batch,
    kept in :attr:`history`, sent to the experiment's loggers and logged (``logging``, INFO, this
    module's logger) one line an iteration.

    Attributes:
        history: one dict per iteration in which a game ended: ``"iteration"`` (from 1),
            ``"frames"`` (the experiment's total so far) and the summary's entries
            (:data:`~gridghost.integrations.metrics.METRICS`, for ``GRIDGHOST_TEAM``
            :data:`~gridghost.integrations.metrics.GHOSTS_METRICS`, and ``"episodes"``).
    """

    def __init__(self) -> None:
        super().__init__()
        self.history: list[dict[str, float]] = []
        self._reader = TensorDictMetrics()

    def on_batch_collected(self, batch: Any) -> None:
        """Read the batch; report the games that ended in it."""
        reader, experiment = self._reader, self.experiment
        reader.metrics.clear()
        if reader.update(batch) == 0:
            return
        summary = reader.summary()
        iteration = int(experiment.n_iters_performed) + 1
        self.history.append({"iteration": iteration, "frames": int(experiment.total_frames), **summary})
        names = GHOSTS_METRICS if "ghost_return" in summary else METRICS
        experiment.logger.log({f"collection/{name}": summary[name] for name in (*names, "episodes")},
                              step=iteration - 1)
        _logger.info("iteration %d: %s", iteration, format_metrics(summary))
