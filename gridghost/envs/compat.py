"""The reference-compatible ``AgentInterface`` of ``custom_grid_env``: a shim for users of the
original package, with its keywords and return values, so that the same seed and actions give the
same episode. Its turn loop is :class:`~gridghost.envs.duel.Duel`, the Gymnasium env's. New code
should use :func:`gridghost.env` (both sides) or the Gymnasium env (one side).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Mapping
from typing import Any

from gymnasium import spaces

from gridghost.config.opponents import DEFAULT_OPPONENTS
from gridghost.config.settings import GameSpec, resolve
from gridghost.core.checks import check_choice, check_flag, check_limit, check_number, check_probability
from gridghost.core.names import AGENT
from gridghost.core.slip import make_slip
from gridghost.envs.aec import GridGhostEnv
from gridghost.envs.single_agent import Duel, detached
from gridghost.sensing.filters import DEFAULT_NUM_PARTICLES, FILTER_TYPES, MAX_PARTICLES, BeliefFilter
from gridghost.sensing.sensors import ColorSensor, ItemSensor, Sensor

#: The reference's pause after each half-turn drawn in a window, in milliseconds.
_DEFAULT_STEP_DELAY = 100
#: What the interface's filter reads: the colour sensor, the item classifier, or both.
PF_SENSOR_MODES: tuple[str, ...] = ("color", "cnn", "both")


def _filter_settings(use_particle_filter: Any, filter_type: Any, pf_num_particles: Any, pf_sensor_mode: Any,
                     show_particles: Any, color_sensor_quality: Any
                     ) -> tuple[list[Sensor], dict[str, Any] | None, bool]:
    """:class:`AgentInterface`'s sensors, belief filter spec and ``show_belief``, from its filter
    and sensor keywords under the reference's names, checked (with a warning about those that set
    a filter there is not): sensors without a map and the filter as a spec, which the env binds to
    its map (to every map it draws, when the layout is a map generator)."""
    check_limit(pf_num_particles, "pf_num_particles", allow_none=False)
    if pf_num_particles > MAX_PARTICLES:  # the filter would say it of its num_particles
        raise ValueError(f"pf_num_particles must be at most gridghost.sensing.MAX_PARTICLES = {MAX_PARTICLES:,}, "
                         f"got {pf_num_particles}")
    if color_sensor_quality is not None:  # None: the sensor's default; checked under the name the caller used
        check_probability(color_sensor_quality, "color_sensor_quality")
    check_choice(pf_sensor_mode, "pf_sensor_mode", PF_SENSOR_MODES)
    check_choice(filter_type, "filter_type", FILTER_TYPES)
    show_particles = check_flag(show_particles, "show_particles")
    sensors: list[Sensor] = [ColorSensor(quality=color_sensor_quality)]
    if not check_flag(use_particle_filter, "use_particle_filter"):
        if filter_type != "particle":
            raise ValueError(f"filter_type={filter_type!r} chooses the belief filter; "
                             "with use_particle_filter=False there is none")
        # The reference accepts these without a filter; say that they do nothing.
        unused = [name for name, value, default in (
            ("pf_num_particles", pf_num_particles, DEFAULT_NUM_PARTICLES),
            ("pf_sensor_mode", pf_sensor_mode, "both"),
            ("show_particles", show_particles, True),
        ) if value != default]
        if unused:
            warnings.warn(f"{', '.join(unused)} set the belief filter, and use_particle_filter=False has none; "
                          "they have no effect", stacklevel=4)
        return sensors, None, True
    if filter_type == "histogram" and pf_num_particles != DEFAULT_NUM_PARTICLES:
        raise ValueError("pf_num_particles applies to the particle filter, not to filter_type='histogram'")
    if pf_sensor_mode != "color":
        sensors.append(ItemSensor())
    read = {"color": [0], "cnn": [1], "both": [0, 1]}[pf_sensor_mode]
    belief_filter: dict[str, Any] = {"type": filter_type, "sensors": read}
    if filter_type == "particle":
        belief_filter["num_particles"] = pf_num_particles
    return sensors, belief_filter, show_particles


def _game_settings(spec: Any, slip_probability: float | None, slip_type: str, use_ghost: bool, layout: Any,
                   max_steps: int | None, difficulty: int | None) -> dict[str, Any]:
    """The game's settings of :class:`AgentInterface`, as the AEC env's keywords: ``spec``'s, or
    those of the reference's keywords, which are refused beside a ``spec``."""
    if spec is None:
        return {"layout": layout, "difficulty": difficulty, "slip": make_slip(None, slip_probability, slip_type),
                "max_cycles": max_steps, "use_ghost": use_ghost}
    reference = {"slip_probability": (slip_probability, None), "slip_type": (slip_type, "longitudinal"),
                 "use_ghost": (use_ghost, True), "layout": (layout, None), "max_steps": (max_steps, None),
                 "difficulty": (difficulty, None)}
    given = [name for name, (value, default) in reference.items() if value is not default and value != default]
    if given:
        raise ValueError(f"pass the game's settings as spec= or as the reference keywords, not both; got spec "
                         f"and {given}")
    keywords = resolve(spec).keywords()
    if keywords.get("ghosts", 1) != 1:
        raise ValueError(f"AgentInterface is the reference's one-ghost interface; spec has ghosts="
                         f"{keywords['ghosts']}: play teams with gridghost.env, parallel_env or GridGhost-v1")
    return keywords


class AgentInterface:
    """The reference ``custom_grid_env`` interface: one call moves the agent and then the ghost.

    ``reset(seed)`` returns the agent's observation; ``step(action)`` returns
    ``(observation, reward, done, info)`` where ``reward`` is the agent's reward for the whole
    turn (-51 when the ghost catches it after a step, -50 when it walks into the ghost, +100 at a
    goal, else -1), ``done`` covers termination and truncation, and ``info`` is the agent's info
    after both half-turns. Same seed, same episode as the reference.

    Args:
        render: draw after every reset and half-turn, in ``render_mode``.
        render_mode: with ``render=True``: ``None`` or ``"human"`` shows a window (which keeps
            to the env's ``render_fps``, then pauses ``step_delay``); ``"rgb_array"`` or
            ``"ansi"`` keeps the latest picture in :attr:`last_frame`. With ``render=False``:
            ``None``, or ``"rgb_array"``/``"ansi"`` to call ``interface.env.render()`` yourself.
        step_delay: milliseconds to pause after each half-turn drawn in a window (finite, >= 0).
        slip_probability: the slip probability; ``None`` means the reference's 0.2, or 0 with
            ``slip_type="none"``.
        slip_type, color_sensor_quality: the game's reference settings.
        ghost_agent_class: the ghost's policy: a reference-style class (``cls(action_space)``
            with ``get_action(observation)``), or anything :class:`Duel` accepts; ``None`` is the
            chasing ghost.
        use_particle_filter: keep a belief filter in step with the game: updated with the reset
            readings on ``reset`` and with predict + update on every agent move; every info then
            holds ``estimated_pos`` (``{"float_pos": [r, c], "cell_pos": [r, c]}``). The filter
            draws from its own generator, seeded from the reset seed, so the game is the same
            with it on or off.
        pf_num_particles: the particle filter's particles (an int >= 1).
        pf_sensor_mode: what the filter reads: ``"color"`` (the colour sensor), ``"cnn"`` (the
            item classifier, :class:`~gridghost.sensing.sensors.ItemSensor`) or ``"both"``. With
            ``"cnn"`` or ``"both"`` the item classifier measures after every move and the info
            holds ``cnn_prediction`` and ``cnn_probs``; it has its own generator too.
        show_particles: draw the filter's belief and estimate in the picture.
        use_ghost: ``False`` takes the ghost out of the game (see
            :class:`~gridghost.envs.aec.GridGhostEnv`).
        layout: the map, as every env's ``layout=`` takes it
            (:func:`~gridghost.maps.sources.resolve_layout`); ``None`` means the classic map.
        max_steps: truncate after this many steps; ``None`` (the reference) never truncates.
        filter_type: ``"particle"`` (the reference's filter) or ``"histogram"``, the exact Bayes
            filter (:class:`~gridghost.sensing.filters.HistogramFilter`).
        difficulty: ``None`` or a difficulty preset 0..3: a fresh generated map of that
            difficulty at every reset, from the preset's 500 training levels (see
            :mod:`gridghost.maps.levels`); not with ``layout``.
        spec: the game's settings at once (a :class:`~gridghost.config.settings.GameSpec` or its
            dict form) instead of the reference keywords that set the game (``slip_probability``,
            ``slip_type``, ``use_ghost``, ``layout``, ``max_steps``, ``difficulty``; its
            ``max_cycles`` is ``max_steps``). The interface's own sensors, filter and reference
            infos (from ``color_sensor_quality`` and the filter's keywords) replace the spec's.

    Raises:
        TypeError, ValueError: any argument outside what is accepted, including
            ``filter_type="histogram"`` with ``use_particle_filter=False`` and
            ``pf_num_particles`` other than 200 with the histogram filter.

    Warns:
        UserWarning: ``pf_num_particles``, ``pf_sensor_mode`` or ``show_particles`` other than
            their defaults with ``use_particle_filter=False``, or ``step_delay`` other than its
            default without a window (the reference accepts them; they have no effect).
    """

    def __init__(
        self,
        render: bool = True,
        render_mode: str | None = None,
        step_delay: float = _DEFAULT_STEP_DELAY,
        slip_probability: float | None = None,
        slip_type: str = "longitudinal",
        ghost_agent_class: Any = None,
        use_particle_filter: bool = True,
        pf_num_particles: int = 200,
        pf_sensor_mode: str = "both",
        show_particles: bool = True,
        color_sensor_quality: float = 0.8,
        use_ghost: bool = True,
        *,
        layout: Any = None,
        max_steps: int | None = None,
        filter_type: str = "particle",
        difficulty: int | None = None,
        spec: GameSpec | Mapping[str, Any] | None = None,
    ) -> None:
        self.render_enabled = check_flag(render, "render")
        if not render and render_mode == "human":
            raise ValueError("render_mode='human' draws every half-turn; pass render=True for it")
        self.step_delay = check_number(step_delay, "step_delay")
        max_steps = check_limit(max_steps, "max_steps")
        sensors, belief_filter, show_belief = _filter_settings(use_particle_filter, filter_type, pf_num_particles,
                                                               pf_sensor_mode, show_particles, color_sensor_quality)
        mode = "human" if render and render_mode is None else render_mode
        if step_delay != _DEFAULT_STEP_DELAY and mode != "human":
            warnings.warn(f"step_delay pauses after half-turns drawn in a window, and render={render}, "
                          f"render_mode={render_mode!r} opens none; it has no effect", stacklevel=2)
        game = _game_settings(spec, slip_probability=slip_probability, slip_type=slip_type, use_ghost=use_ghost,
                              layout=layout, max_steps=max_steps, difficulty=difficulty)
        self.env = GridGhostEnv(
            mode,
            **{**game, "sensors": sensors, "belief_filter": belief_filter, "reference_infos": True,
               "show_belief": show_belief},
        )
        #: The latest picture when ``render=True`` with ``render_mode`` ``"rgb_array"``/``"ansi"``.
        self.last_frame: Any = None
        self._duel = Duel(self.env, AGENT, ghost_agent_class, after_half_turn=self._drawn if render else None)
        self.total_reward = 0.0
        self.terminated = False
        self.truncated = False
        self.episode_steps = 0
        # The env's info of the latest reset or step; the env never changes a published info.
        self._last_info: dict[str, Any] = {}

    def _drawn(self) -> None:
        """After a reset or half-turn with ``render=True``: the window was drawn by the env
        (pause), or keep the off-screen picture."""
        if self.env.render_mode == "human":
            if self.step_delay > 0:
                time.sleep(self.step_delay / 1000)
        else:
            self.last_frame = self.env.render()

    def reset(self, seed: int | None = None) -> dict[str, Any]:
        """Start an episode and return the agent's first observation.

        Args:
            seed: seeds the game as the reference does; ``None`` continues the stream.
        """
        self._duel.reset(seed)
        if self.render_enabled and self.env.render_mode != "human":
            self.last_frame = self.env.render()
        self.total_reward = 0.0
        self.terminated = self.truncated = False
        self.episode_steps = 0
        self._last_info = self.env.infos[AGENT]
        return self.env.observe(AGENT)

    def step(self, action: int) -> tuple[dict[str, Any], float, bool, dict[str, Any]]:
        """Move the agent with ``action``; the ghost answers unless the game ended.

        Returns:
            ``(observation, reward, done, info)`` as the reference.

        Raises:
            RuntimeError: before ``reset`` or once the episode has ended (call ``reset()``).
            TypeError, ValueError: ``action`` is not an int in 0..3 (nothing changes).
        """
        reward, self.terminated, self.truncated, info = self._duel.play(action)
        self.total_reward += reward
        self.episode_steps += 1
        self._last_info = self.env.infos[AGENT]
        # info is the caller's own copy: changing it changes neither last_info nor the stats.
        return self.env.observe(AGENT), float(reward), self.terminated or self.truncated, info

    @property
    def belief_filter(self) -> BeliefFilter | None:
        """The belief filter of the current map (``None`` with ``use_particle_filter=False``); its
        ``belief()`` is the current ``rows x cols`` probability map."""
        return self.env.belief_filter

    @property
    def last_info(self) -> dict[str, Any]:
        """The agent's info after the latest reset or step (the reference's attribute): a fresh
        copy on every read, as :meth:`step` returns it; ``{}`` before the first reset."""
        return detached(self._last_info) if self._last_info else {}

    def is_terminated(self) -> bool:
        """Whether the episode has ended (terminated or truncated)."""
        return self.terminated or self.truncated

    def get_episode_stats(self) -> dict[str, Any]:
        """The current or last episode's ``total_reward``, ``steps``, ``terminated``,
        ``truncated``, ``reached_goal`` and ``caught_by_ghost``."""
        return {
            "total_reward": self.total_reward,
            "steps": self.episode_steps,
            "terminated": self.terminated,
            "truncated": self.truncated,
            "reached_goal": self._last_info.get("reached_goal", False),
            "caught_by_ghost": self._last_info.get("caught_by_ghost", False),
        }

    def get_action_space(self) -> spaces.Space:
        """The agent's action space, ``Discrete(4)``."""
        return self.env.action_space(AGENT)

    def get_observation_space(self) -> spaces.Space:
        """The agent's dict observation space."""
        return self.env.observation_space(AGENT)

    def get_reward_structure(self) -> dict[str, Any]:
        """The agent's rewards and the slip probability, in the reference's keys."""
        rewards = self.env.agent_rewards
        return {
            "step_penalty": rewards.step,
            "caught_by_ghost": rewards.caught,
            "reached_goal": rewards.goal,
            "slip_probability": self.env.slip.probability,
            "terminal_states": ["caught_by_ghost", "reached_goal"],
        }

    def set_ghost_agent(self, ghost_agent_class: Any) -> None:
        """Use another ghost policy from the ghost's next move on (what the constructor's
        ``ghost_agent_class`` accepts; ``None`` is the chasing ghost).

        Raises:
            ValueError: the ghost is out of the game, or an unknown policy name.
            TypeError: not a policy.
        """
        if not self.env.use_ghost:
            raise ValueError("set_ghost_agent needs the ghost in the game (use_ghost=True)")
        self._duel.set_opponent(DEFAULT_OPPONENTS[AGENT] if ghost_agent_class is None else ghost_agent_class)

    def close(self) -> None:
        """Release rendering resources; safe to call more than once."""
        self.env.close()
