"""Per-side metrics for BenchMARL: a callback that reports the agent's return, success and capture
rates and game length after every collected batch.

BenchMARL's progress bar shows ``mean return``, the mean over both sides, which is 0 in a
zero-sum game whatever the policies do. :class:`SideMetrics` reads each batch with
:class:`~gridghost.integrations.torchrl.TensorDictMetrics` and prints one line per iteration
above the bar, sends the numbers to the experiment's loggers (``collection/agent_return`` and
so on), and keeps them in :attr:`SideMetrics.history`::

    experiment = Experiment(task=..., algorithm_config=..., model_config=..., seed=0,
                            config=config, callbacks=[SideMetrics()])
    experiment.run()

Needs BenchMARL (``pip install "benchmarl==1.5.*"``); importing this module imports it.
``examples/benchmarl_mappo.py`` is a whole run.
"""

from __future__ import annotations

from typing import Any

from benchmarl.experiment.callback import Callback
from tqdm import tqdm

from gridghost.integrations.metrics import METRICS, format_metrics
from gridghost.integrations.torchrl import TensorDictMetrics


class SideMetrics(Callback):  # type: ignore[misc]
    """A BenchMARL callback: per-side metrics of the games that ended in each collected batch.

    Args:
        verbose: print each iteration's line (above BenchMARL's progress bar).

    Attributes:
        history: one dict per iteration in which a game ended: ``"iteration"`` (0-based),
            ``"frames"`` (the experiment's total so far) and the summary's entries
            (:data:`~gridghost.integrations.metrics.METRICS` and ``"episodes"``).
    """

    def __init__(self, verbose: bool = True) -> None:
        super().__init__()
        if not isinstance(verbose, bool):
            raise TypeError(f"verbose must be a bool, got {verbose!r}")
        self.verbose = verbose
        self.history: list[dict[str, float]] = []
        self._reader = TensorDictMetrics()

    def on_batch_collected(self, batch: Any) -> None:
        """Read the batch; report the games that ended in it."""
        reader, experiment = self._reader, self.experiment
        reader.metrics.clear()
        if reader.update(batch) == 0:
            return
        summary = reader.summary()
        iteration = int(experiment.n_iters_performed)
        self.history.append({"iteration": iteration, "frames": int(experiment.total_frames), **summary})
        experiment.logger.log({f"collection/{name}": summary[name] for name in (*METRICS, "episodes")},
                              step=iteration)
        if self.verbose:
            tqdm.write(f"iteration {iteration + 1}: {format_metrics(summary)}")
