"""gridghost in JAX: pure, jittable and vmappable ``reset`` and ``step`` over the batched engine's
tables, and a PPO that trains in the same compiled program (``pip install "gridghost[jax]"``).

``env`` holds the two views (:class:`GridGhostJax`, both sides, JaxMARL's API;
:class:`GridGhostJaxSingle`, one side, gymnax's); ``tables`` moves the NumPy engine's tables to
the device; ``ppo`` trains on them.
"""

from __future__ import annotations

try:
    import jax  # noqa: F401
except ImportError as error:  # pragma: no cover - exercised in a venv without the extra
    raise ImportError('gridghost.jax needs JAX: pip install "gridghost[jax]" (or "jax[cuda12]" for NVIDIA '
                      "GPUs)") from error

from gridghost.jax.env import JAX_OBS_TYPES, EnvState, GridGhostJax, GridGhostJaxSingle
from gridghost.jax.positions import TeamEnvState, team_table
from gridghost.jax.tables import EnvParams

__all__ = ["JAX_OBS_TYPES", "EnvParams", "EnvState", "GridGhostJax", "GridGhostJaxSingle", "TeamEnvState", "team_table"]
