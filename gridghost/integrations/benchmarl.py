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

BenchMARL's progress bar shows ``mean return``, the mean over both sides, which is 0 in a
zero-sum game whatever the policies do. :class:`SideMetrics` reads each batch with
:class:`~gridghost.integrations.torchrl.TensorDictMetrics`, prints one line per iteration above
the bar, sends the numbers to the experiment's loggers (``collection/agent_return`` and so on)
and keeps them in :attr:`SideMetrics.history`::

    experiment = Experiment(task=GridGhostTask.GRIDGHOST.get_task({"obs_type": "vector"}), ...,
                            callbacks=[SideMetrics()])
    experiment.run()

Needs BenchMARL (``pip install "benchmarl==1.5.*"``); importing this module imports it.
``examples/benchmarl_mappo.py`` and the training page run whole experiments.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from benchmarl.environments import PettingZooClass, Task
from benchmarl.experiment.callback import Callback
from torchrl.envs.libs.pettingzoo import PettingZooWrapper

from gridghost.config import trainer_settings
from gridghost.envs.ghost_team import parallel_env
from gridghost.integrations.metrics import METRICS, format_metrics
from gridghost.integrations.torchrl import TensorDictMetrics

_logger = logging.getLogger(__name__)


class GridGhostClass(PettingZooClass):  # type: ignore[misc]
    """BenchMARL's PettingZoo task class over gridghost's parallel env; the task's config is the
    game's keywords, with the trainers' defaults (:data:`~gridghost.config.TRAINER_DEFAULTS`:
    ``obs_type="vector"``, which BenchMARL's MLP takes, and ``rewards="normalised"``)."""

    def get_env_fun(self, num_envs: int, continuous_actions: bool, seed: int | None, device: Any
                    ) -> Callable[[], PettingZooWrapper]:
        """A builder of TorchRL's ``PettingZooWrapper`` over ``gridghost.parallel_env(**config)``."""
        config = trainer_settings(self.config)
        return lambda: PettingZooWrapper(parallel_env(**config), use_mask=True, seed=seed, device=device)

    def supports_continuous_actions(self) -> bool:
        """False: the four moves are discrete."""
        return False

    def supports_discrete_actions(self) -> bool:
        """True."""
        return True

    def has_state(self) -> bool:
        """False: the critic sees each side's observation (MAPPO's shared critic needs no state)."""
        return False

    def has_render(self, env: Any) -> bool:
        """False: BenchMARL's video logging is not wired to gridghost's renderer."""
        return False

    def max_steps(self, env: Any) -> int:
        """The parallel steps an episode lasts at most: the game's ``max_cycles`` (100 when the
        config does not set it), two steps each with the ghost in the game."""
        return int(self.config.get("max_cycles", 100)) * (2 if self.config.get("use_ghost", True) else 1)

    @staticmethod
    def env_name() -> str:
        """``"gridghost"``."""
        return "gridghost"


class GridGhostTask(Task):  # type: ignore[misc]
    """The BenchMARL task enum of gridghost: ``GridGhostTask.GRIDGHOST.get_task({...settings})``."""

    GRIDGHOST = None

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
            (:data:`~gridghost.integrations.metrics.METRICS` and ``"episodes"``).
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
        experiment.logger.log({f"collection/{name}": summary[name] for name in (*METRICS, "episodes")},
                              step=iteration - 1)
        _logger.info("iteration %d: %s", iteration, format_metrics(summary))
