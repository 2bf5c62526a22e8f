"""The batched engine for stable-baselines3: a ``VecEnv`` over N games stepped as arrays.

Needs stable-baselines3 (``pip install stable-baselines3``, and ``sb3-contrib`` for
``MaskablePPO``); importing this module imports it.

SB3's own ``DummyVecEnv`` steps one Python env after the other; :class:`SB3VecEnv` hands SB3
the whole batch of :class:`~gridghost.batched.GridGhostVectorEnv` in one call::

    from stable_baselines3 import PPO
    from gridghost.integrations.sb3 import SB3VecEnv

    env = SB3VecEnv(num_envs=64, obs_type="vector", difficulty=2, max_episode_steps=100)
    model = PPO("MlpPolicy", env, n_steps=128, seed=0).learn(20_000)
    print(model.ep_info_buffer[-1])   # {"r": ..., "l": ..., "t": ...}, no Monitor needed

What SB3 reads from the infos is there without ``Monitor`` or ``VecMonitor``: at the step where
an env's episode ends, its info holds ``terminal_observation`` (the episode's last observation;
the observation returned is already the next episode's, as SB3 auto-resets),
``TimeLimit.truncated`` (the step limit ended it and the game did not), ``episode`` (``{"r":
return, "l": length, "t": seconds since this adapter was made}``, as ``Monitor`` writes it, so
``model.ep_info_buffer`` and the ``rollout/ep_rew_mean`` log fill) and ``is_success`` (the
learner won: the agent reached a goal, or the ghost caught the agent; SB3 logs
``rollout/success_rate``). Other infos are empty dicts.

:class:`MovePlanes` is the features extractor of the published baselines (the README's recipe):
a grid policy that reads only :data:`~gridghost.sensing.observations.MOVE_PLANES` generalises to
held-out levels where one that reads every plane memorises the training levels.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, cast

import gymnasium
import numpy as np
import torch
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper
from stable_baselines3.common.vec_env.base_vec_env import (
    VecEnvIndices,
    VecEnvObs,
    VecEnvStepReturn,
)

from gridghost.batched import GridGhostVectorEnv
from gridghost.batched.limits import checked_actions
from gridghost.core.checks import check_choice, check_limit, check_seed
from gridghost.envs.ghost_team import parallel_env
from gridghost.sensing.observations import GRID_LAYOUTS, MOVE_PLANES, grid_channels
from gridghost.training.selfplay import SelfPlayParallelEnv

#: The methods :meth:`SB3VecEnv.env_method` answers per env (every other method acts on the
#: whole batch and needs every index).
PER_ENV_METHODS: tuple[str, ...] = ("action_masks",)


class SB3VecEnv(VecEnv):
    """A stable-baselines3 ``VecEnv`` over a :class:`~gridghost.batched.GridGhostVectorEnv`
    in same-step auto-reset (see the module docstring for the infos).

    The N games share one engine and one random generator, so what SB3 asks of "env i" is
    asked of the batch: :meth:`get_attr` returns the batch's attribute for every index,
    :meth:`set_attr` and :meth:`env_method` (but for ``action_masks``, answered per env) need
    every index, and :meth:`env_is_wrapped` is ``False`` (no game is a wrapped Gymnasium env).
    Seeds: :meth:`seed` gives env i the seed ``seed + i``, as SB3 does; the next :meth:`reset`
    seeds the batch's generator with that list, so a seed fixes everything.

    Args:
        env: a :class:`~gridghost.batched.GridGhostVectorEnv` with
            ``autoreset_mode=AutoresetMode.SAME_STEP``; or ``None`` to build one from ``kwargs``.
        **kwargs: without ``env``, :func:`~gridghost.batched.make_vector_env`'s arguments, with
            the Gymnasium views' defaults (:data:`~gridghost.config.TRAINER_DEFAULTS`); the
            auto-reset mode is same-step.

    Raises:
        TypeError: ``env`` is not a ``GridGhostVectorEnv``, or both ``env`` and ``kwargs`` are given.
        ValueError: ``env`` or ``autoreset_mode`` is not same-step; and whatever
            :class:`~gridghost.batched.GridGhostVectorEnv` refuses.
    """

    def __init__(self, env: GridGhostVectorEnv | None = None, **kwargs: Any) -> None:
        if env is None:
            env = GridGhostVectorEnv(**{"autoreset_mode": AutoresetMode.SAME_STEP, **kwargs})
        elif kwargs:
            raise TypeError(f"pass either env or the vector env's keyword arguments, not both (got {sorted(kwargs)})")
        if not isinstance(env, GridGhostVectorEnv):
            raise TypeError(f"env must be a gridghost.batched.GridGhostVectorEnv (the batched engine), got "
                            f"{type(env).__name__}; for other envs use SB3's DummyVecEnv")
        if env.autoreset_mode != AutoresetMode.SAME_STEP:
            raise ValueError(f"SB3 resets an env in the step where its game ends: the vector env's autoreset_mode "
                             f"must be AutoresetMode.SAME_STEP (or 'same_step'), got {env.autoreset_mode!r}")
        self.env = env
        self._team = isinstance(env.single_action_space, gymnasium.spaces.MultiDiscrete)
        self._actions: np.ndarray | None = None
        self._start = time.time()
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)

    # -- the VecEnv calls ------------------------------------------------------------------------
    def reset(self) -> VecEnvObs:
        """Start new episodes in every env, seeded as the last :meth:`seed` said (else the
        generator continues).

        Returns:
            The observations, ``(N, ...)``.
        """
        seeds = self._seeds
        seed = None if any(s is None for s in seeds) else [int(s) for s in seeds]  # type: ignore[arg-type]
        observations, _ = self.env.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        return self._own(observations)

    def step_async(self, actions: np.ndarray) -> None:
        """Keep the actions (``int[N]``, or the column ``int[N, 1]``, in 0..3; a learning team's
        ``int[N, k]``) for :meth:`step_wait`, which checks them."""
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        """Step every env with the actions of :meth:`step_async`.

        Returns:
            ``(observations, rewards float32[N], dones bool[N], infos)``, ``infos`` a list of N
            dicts, filled where an episode ended (see the module docstring).

        Raises:
            RuntimeError: no :meth:`step_async` before.
            TypeError, ValueError: bad actions, among them a batch of another shape (a
                transposed one is refused, not reshaped); nothing is stepped.
        """
        if self._actions is None:
            raise RuntimeError("call step_async(actions) before step_wait()")
        actions, self._actions = self._actions, None
        # a team's MultiDiscrete moves, [N, k], are checked by the vector env itself
        checked = actions if self._team else checked_actions(actions, self.num_envs, "actions", column=True)
        observations, rewards, terminated, truncated, found = self.env.step(checked)
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if dones.any():
            elapsed = round(time.time() - self._start, 6)
            final_obs = found["final_obs"]
            returns, lengths, successes = found["episode_return"], found["episode_length"], found["is_success"]
            for game in np.flatnonzero(dones).tolist():
                infos[game] = {
                    "terminal_observation": final_obs[game],
                    "TimeLimit.truncated": bool(truncated[game] and not terminated[game]),
                    "episode": {"r": round(float(returns[game]), 6), "l": int(lengths[game]), "t": elapsed},
                    "is_success": bool(successes[game]),
                }
        return self._own(observations), rewards.astype(np.float32), dones, infos

    def close(self) -> None:
        """Close the vector env."""
        self.env.close()

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seeds for the next :meth:`reset`: env i gets ``seed + i`` (a random ``seed`` when
        ``None``), and the batch's generator is seeded with that list.

        Returns:
            The N seeds.

        Raises:
            TypeError, ValueError: ``seed`` is not ``None`` nor an int >= 0 (as
                :func:`~gridghost.core.checks.check_seed` refuses it).
        """
        return super().seed(check_seed(seed))

    def set_options(self, options: list[dict] | dict | None = None) -> None:
        """Reset options: the batch takes none, so only ``None`` or empty dicts are accepted.

        Raises:
            ValueError: a non-empty option.
        """
        listed = [options] if isinstance(options, dict) else list(options or [])
        if any(listed):
            raise ValueError(f"SB3VecEnv takes no reset options (the batch resets every game alike), got {options!r}")
        super().set_options(options)

    def action_masks(self) -> np.ndarray:
        """``bool[N, 4]``: the moves that change the learner's cell (sb3-contrib's ``MaskablePPO``
        reads them through ``env_method("action_masks")``)."""
        return self.env.action_masks()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The batch's attribute ``attr_name`` (the vector env's, or this adapter's
        ``action_masks``), once per index.

        Raises:
            AttributeError: neither has it.
        """
        value = self.action_masks if attr_name == "action_masks" else getattr(self.env, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set the vector env's attribute ``attr_name``, which is every env's.

        Raises:
            ValueError: ``indices`` leave some env out.
        """
        self._all_indices(indices, f"set_attr({attr_name!r})")
        setattr(self.env, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> list[Any]:
        """Call a method: ``action_masks`` gives each env's row; any other method of the
        vector env is called once (it acts on the batch) and its result given per index.

        Raises:
            ValueError: ``indices`` leave some env out, for a method of the batch.
            AttributeError: the vector env has no such method.
        """
        if method_name in PER_ENV_METHODS:
            masks = self.action_masks()
            return [masks[i] for i in self._get_indices(indices)]
        self._all_indices(indices, f"env_method({method_name!r})")
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result for _ in range(self.num_envs)]

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        """``False`` per index: the games are no Gymnasium envs, so none is wrapped (nor in a
        ``Monitor``: the episode infos are this adapter's own)."""
        return [False for _ in self._get_indices(indices)]

    def render(self, mode: str | None = None) -> np.ndarray | None:
        """Not served: the batched engine draws nothing.

        Raises:
            ValueError: always.
        """
        raise ValueError(f"SB3VecEnv does not render (mode={mode!r}): the batched engine draws nothing; render a "
                         "single env, e.g. gridghost.env(render_mode='rgb_array')")

    def get_images(self) -> Sequence[np.ndarray | None]:
        """Not served, as :meth:`render`.

        Raises:
            ValueError: always.
        """
        return [self.render("rgb_array")]

    # -- helpers --------------------------------------------------------------------------------------
    def _own(self, observations: np.ndarray) -> np.ndarray:
        """The observations as an array SB3 may keep (the engine's buffer is overwritten by the
        next step, and SB3 keeps the last observation across it)."""
        return observations if self.env.copy else observations.copy()

    def _all_indices(self, indices: VecEnvIndices, call: str) -> None:
        if sorted(set(self._get_indices(indices))) != list(range(self.num_envs)):
            raise ValueError(f"{call} acts on the whole batch, whose games share one engine: indices must be None "
                             f"or cover all {self.num_envs} envs, got {indices!r}")


class MovePlanes(BaseFeaturesExtractor):
    """An SB3 features extractor for a ``"grid"`` observation: the planes in ``planes``,
    flattened (``policy_kwargs={"features_extractor_class": MovePlanes}``). It reads the channel
    axis that ``grid_layout`` names: first for ``"chw"`` (the envs' default), last for ``"hwc"``.

    Args:
        observation_space: the env's grid space.
        planes: the channel names to keep; by default
            :data:`~gridghost.sensing.observations.MOVE_PLANES` (those the grid has: a whole-map
            grid has no ``out_of_map``).
        channels: the grid's channel names in order
            (:func:`~gridghost.sensing.observations.grid_channels`); ``None`` reads them off the
            space's channel axis, a whole-map or an egocentric grid without the step count.
        grid_layout: the env's ``grid_layout``, ``"chw"`` or ``"hwc"``; ``None`` tells it from
            the shape, which must then read one way only: ``(15, 15, 16)`` is a channels-last
            window of radius 7 and a channels-first whole map of 15 x 16 cells alike, so it
            needs ``policy_kwargs={"features_extractor_kwargs": {"grid_layout": ...}}``.

    Raises:
        ValueError: a space of another shape than those grids (pass ``channels``), a channel
            axis (as ``grid_layout`` says, or either when ``None``) of another length than the
            channels, a shape that reads both ways without ``grid_layout``, or planes the grid
            does not have (or one named twice).
    """

    def __init__(self, observation_space: gymnasium.spaces.Box, planes: Sequence[str] | None = None,
                 channels: Sequence[str] | None = None, grid_layout: str | None = None) -> None:
        check_choice(grid_layout, "grid_layout", GRID_LAYOUTS, allow_none=True)
        shape = observation_space.shape
        if shape is None or len(shape) != 3:
            raise ValueError(f"MovePlanes reads a grid observation (obs_type='grid'), of 3 axes; got shape {shape}")
        known = {len(names): names for names in (grid_channels(None), grid_channels(1))}
        if channels is not None:
            known = {len(channels): tuple(channels)}
        axes = {"chw": 0, "hwc": 2}
        fitting = [layout for layout in GRID_LAYOUTS if shape[axes[layout]] in known]
        if grid_layout is not None and grid_layout not in fitting:
            raise ValueError(f"with grid_layout={grid_layout!r} the channels are axis {axes[grid_layout]} of shape "
                             f"{shape}, which holds {shape[axes[grid_layout]]}, not {' or '.join(map(str, known))} "
                             "channels; pass the env's grid_layout" + ("" if channels is not None else
                                                                        ", or channels=grid_channels(...)"))
        if not fitting:
            raise ValueError(f"MovePlanes reads a grid of {sorted(known)} channels (whole map or egocentric), first "
                             f"(grid_layout='chw') or last ('hwc'), got shape {shape}; pass "
                             "channels=grid_channels(radius, append_step_count) for another")
        if grid_layout is None and len(fitting) > 1:
            raise ValueError(f"shape {shape} reads as a channels-first grid and as a channels-last one: pass the "
                             "env's grid_layout ('chw' or 'hwc') in features_extractor_kwargs")
        layout = grid_layout if grid_layout is not None else fitting[0]
        self.channel_axis = 1 + axes[layout]  # in a batch [n, ...]
        names = known[shape[axes[layout]]]
        if planes is None:
            planes = [name for name in MOVE_PLANES if name in names]
        unknown = sorted(set(planes) - set(names))
        if unknown or not planes or len(set(planes)) != len(planes):
            raise ValueError(f"planes must be distinct names of the grid's channels {list(names)}, got {list(planes)}")
        cells = int(np.prod(shape)) // shape[axes[layout]]
        super().__init__(observation_space, features_dim=len(planes) * cells)
        self.planes = tuple(planes)
        self.grid_layout = layout
        self.register_buffer("keep", torch.as_tensor([list(names).index(name) for name in planes]))

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        """The kept planes of a batch (``[n, C, H, W]``, or ``[n, H, W, C]`` channels last),
        flattened to ``[n, len(planes) * H * W]``."""
        return observations.index_select(self.channel_axis, self.keep).flatten(1)


class TeamVecEnv(VecEnvWrapper):
    """A team of ghosts for SB3 with one shared policy, through SuperSuit and with no glue: a
    ``VecEnv`` with one slot per ghost of each of ``num_envs`` copies of the ghosts-only parallel
    env (``gridghost.parallel_env(controlled="ghosts")``), or of its self-play version
    (:class:`~gridghost.training.SelfPlayParallelEnv`) when ``pool`` is given. Needs SuperSuit
    (the ``supersuit`` extra).

    Each copy is built here, not copied from one env: copies drawing from a ``pool`` share that
    pool, so a snapshot added to it between two ``learn`` calls is drawn from the next episode
    on, and every copy's games are counted in it. Seeds: :meth:`seed` (SB3 calls it from
    ``PPO(..., seed=...)``) gives copy ``i`` its own seed, spawned from the seed
    (``numpy.random.SeedSequence(seed).spawn``), so that two seeds share no copy's stream; the
    next :meth:`reset` reseeds every copy's game, opponent and draw with it, and later resets
    continue them.

    >>> from stable_baselines3 import PPO                       # doctest: +SKIP
    >>> env = TeamVecEnv(8, seed=0, opponent="minimax", layout="team_eight", ghosts=2,
    ...                  obs_type="vector", rewards="normalised")   # doctest: +SKIP
    >>> PPO("MlpPolicy", env, seed=0).learn(20_000)             # doctest: +SKIP

    Args:
        num_envs: the copies of the team's env, an int >= 1 (the ``VecEnv`` has ``num_envs * k``
            slots, ghost 0 to ``k - 1`` of copy 0 first).
        seed: the seed of the first reset (see above), an int >= 0; ``None`` leaves every copy
            to draw fresh entropy at its first reset.
        opponent: the agent of :func:`gridghost.parallel_env` with ``controlled="ghosts"``: a
            name, a policy of observations or a state table of the agent (the default: random).
        pool: an :class:`~gridghost.training.OpponentPool` holding agents, drawn per episode
            instead of one ``opponent``.
        rule, exponent, window: the pool's rule (:class:`~gridghost.training.SelfPlayEnv`).
        **settings: the game's settings, as :func:`gridghost.parallel_env` takes them.

    Raises:
        ValueError: both ``opponent`` and ``pool``; ``num_envs`` < 1; what the env refuses.
        TypeError: ``num_envs`` or ``seed`` is not an int; what the env refuses.
        ImportError: SuperSuit is not installed.
    """

    def __init__(self, num_envs: int = 8, seed: int | None = None, *, opponent: Any = None, pool: Any = None,
                 rule: str = "uniform", exponent: float = 2.0, window: int = 3, **settings: Any) -> None:
        try:
            from supersuit.vector import ConcatVecEnv, MarkovVectorEnv
            from supersuit.vector.sb3_vector_wrapper import SB3VecEnvWrapper
        except ImportError as error:
            raise ImportError("TeamVecEnv needs SuperSuit: pip install 'gridghost[supersuit]'") from error

        copies = check_limit(num_envs, "num_envs", allow_none=False)
        if pool is not None and opponent is not None:
            raise ValueError("pass opponent (one agent) or pool (an agent drawn per episode), not both")
        if pool is not None:
            envs = [SelfPlayParallelEnv(pool, rule, exponent, window=window, **settings) for _ in range(copies)]
        else:
            envs = [parallel_env(controlled="ghosts", opponent=opponent, **settings) for _ in range(copies)]
        #: The ghosts-only parallel envs, copy by copy.
        self.envs: list[Any] = envs
        self._markov = [MarkovVectorEnv(env) for env in envs]
        self._concat = ConcatVecEnv([lambda markov=markov: markov for markov in self._markov])
        super().__init__(SB3VecEnvWrapper(self._concat))
        self._seeds: list[int | None] = [None] * copies
        self.seed(seed)

    def seed(self, seed: int | None = None) -> list[int | None]:  # type: ignore[override]
        """The seeds of every copy's next reset, spawned from ``seed`` (see the class docstring).

        Returns:
            Each copy's seed (``None`` for each when ``seed`` is ``None``).

        Raises:
            TypeError, ValueError: ``seed`` is not ``None`` nor an int >= 0.
        """
        seed = cast("int | None", check_seed(seed))  # no SeedSequence: allow_sequence is False
        copies = len(self.envs)
        self._seeds = ([None] * copies if seed is None else
                       [int(child.generate_state(1)[0]) for child in np.random.SeedSequence(seed).spawn(copies)])
        return list(self._seeds)

    def reset(self) -> VecEnvObs:
        """Start every copy's episode, each from its seed if one is set (then forgotten)."""
        results = [markov.reset(seed=seed) for markov, seed in zip(self._markov, self._seeds, strict=True)]
        self._seeds = [None] * len(self.envs)
        self.reset_infos = [info for _, infos in results for info in infos]
        return cast(VecEnvObs, self._concat.concat_obs([observations for observations, _ in results]))

    def step_wait(self) -> VecEnvStepReturn:
        """Every ghost's step, as SuperSuit's SB3 wrapper gives it (a finished game restarts)."""
        return cast(VecEnvStepReturn, self.venv.step_wait())
