"""Single-agent views of the two-player game: the turn loop (:class:`Duel`) and a Gymnasium env
for either side.

Both single-agent views (this Gymnasium env and the reference-compatible
:class:`~gridghost.envs.compat.AgentInterface`) are thin views over the AEC env
(:class:`~gridghost.envs.aec.GridGhostEnv`): one call moves the learner, then the opponent's policy
answers within the same call. :class:`Duel` is that one piece of code; neither view touches the
rules.

| Import        | ``gymnasium.make("gridghost/GridGhost-v1")`` (after ``import gridghost``)        |
|---------------|----------------------------------------------------------------------------------|
| Actions       | Discrete(4): 0 left, 1 down, 2 right, 3 up                                       |
| Observations  | ``obs_type="vector"`` (the default: flat ``float32`` ``Box(26)``, the same space |
|               | for both sides), ``"dict"`` (the reference dict of the controlled side),         |
|               | ``"belief"``                                                                     |
|               | (the agent's dict plus its belief filter's ``rows x cols`` map),                 |
|               | ``"belief_vector"`` (``Box(26 + rows * cols)``), ``"grid"`` (``float32``          |
|               | ``Box(15, rows, cols)``; an egocentric window of radius k: ``Box(16, 2k+1, 2k+1)``) or |
|               | ``"text"`` (``Text``); see :mod:`gridghost.sensing.observations`                         |
| Options       | ``action_mask_in_obs``, ``append_step_count`` (needs ``max_cycles``)             |
| Step limit    | ``max_episode_steps=100`` learner steps (cycles) through Gymnasium's ``TimeLimit`` |

Rewards
    The controlled side's rewards of both half-turns of its step (see :mod:`gridghost.envs.aec`):
    with the reference's rewards, for the agent -1 per step, +100 at a goal, -50 when it walks
    into the ghost and -51 when the ghost catches it after a step, all / 100 with
    ``rewards="normalised"`` (this view's default); the ghost's are the negatives unless
    ``ghost_rewards`` says otherwise. A learning ghost's episode starts after the opponent agent's opening move, whose
    half-turn reward belongs to no step.

Episode end
    ``terminated`` when the ghost catches the agent or the agent reaches a goal; ``truncated``
    by ``TimeLimit`` (or by ``max_cycles``, when given). Both count cycles: a learner's step is
    its move and the opponent's answer, one cycle of the game.

Information
    The controlled side's AEC info (see :mod:`gridghost.envs.aec`: numeric by default, the same keys
    at the reset and at every step) with ``action_mask`` (``int8[4]``, 1 where the move changes
    the learner's cell; in the observation instead with ``action_mask_in_obs=True``) and
    ``is_success``: the agent reached a goal (``controlled="agent"``) or the ghost caught the
    agent (``"ghost"``); ``False`` after the reset. Its arrays are the caller's own copies.

Teams
    With ``ghosts=k >= 2`` (the agent against a team) or ``controlled="ghosts"`` (the whole team
    learning as one env with a ``MultiDiscrete([4] * k)`` action) the view is
    :class:`~gridghost.envs.team_gym.TeamGymEnv`.

Arguments
    ``gymnasium.make("gridghost/GridGhost-v1", controlled="agent", opponent=None,
    obs_type="vector", rewards="normalised", render_mode=None, **game)``; see
    :class:`GridGhostGymEnv`.

>>> import gymnasium, gridghost
>>> env = gymnasium.make("gridghost/GridGhost-v1", controlled="ghost", opponent="random",
...                      obs_type="vector")
>>> obs, info = env.reset(seed=3)
>>> obs.shape, env.action_space
((26,), Discrete(4))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

import gymnasium
import numpy as np
from gymnasium import spaces

from gridghost.config.opponents import (
    DEFAULT_OPPONENTS,
    check_opponent_name,
    opponent_view,
    planned_opponent,
    refuse_table,
)
from gridghost.config.parts import recent_map
from gridghost.config.settings import REFERENCE_DEFAULTS, GameConfig, trainer_settings, with_defaults
from gridghost.core.checks import check_choice
from gridghost.core.episode import opening_reward
from gridghost.core.game import Game
from gridghost.core.layout import Layout
from gridghost.core.names import AGENT, AGENTS, GHOST, OPPONENT_STREAM
from gridghost.core.policies import ChasePolicy, Policy, RandomPolicy, make_policy
from gridghost.core.rules import NUM_ACTIONS, Outcome, Side
from gridghost.envs.aec import GridGhostEnv
from gridghost.envs.answers import checked_answer
from gridghost.planning import StatePolicy
from gridghost.sensing.observations import OBS_TYPES

#: The sides a learner can control.
CONTROLLED_SIDES: tuple[str, ...] = AGENTS
#: The opponent each side faces when none is given.
_EPISODE_ENDED = "the episode has ended; call reset() to start a new one"
_SUCCESS = {AGENT: Outcome.GOAL, GHOST: Outcome.CAUGHT}


def _check_opening_cannot_end(kernel: Game) -> None:
    """A learning ghost's first observation comes after the agent's opening move, and Gymnasium's
    ``reset`` cannot report a finished episode: refuse layouts where that move could end it."""
    if kernel.opening_can_end():
        raise ValueError(
            f"controlled='ghost' needs a layout where the agent's opening move cannot end the game; on "
            f"{kernel.layout.name or 'this layout'} it can reach a goal or the ghost (a MapGenerator redraws such maps)"
        )


_MUTABLE = frozenset((dict, list, np.ndarray))


def detached(value: Any) -> Any:
    """A copy of ``value`` that shares nothing mutable with it: dicts, lists and writable arrays
    are copied, all the way down; anything else (numbers, strings, tuples of them, read-only
    arrays such as a sensor's shared probability vectors) cannot be changed and is kept. What
    every view hands a caller, so that a caller changing an info can corrupt neither the env nor
    an info returned earlier or later.

    >>> info = {"estimated_pos": {"cell_pos": [0, 2]}}
    >>> copy = detached(info)
    >>> copy["estimated_pos"]["cell_pos"].append(9)
    >>> info
    {'estimated_pos': {'cell_pos': [0, 2]}}
    """
    kind = type(value)
    if kind is dict:
        copy = dict(value)
        for key, item in copy.items():  # most values are numbers and strings: no call for them
            if type(item) in _MUTABLE:
                copy[key] = detached(item)
        return copy
    if kind is list:
        return [detached(item) if type(item) in _MUTABLE else item for item in value]
    if kind is np.ndarray and value.flags.writeable:
        return value.copy()
    return value



class Duel:
    """One side of the AEC game played by a caller, the other by a policy.

    :meth:`play` carries out the caller's move and then, unless the game ended, the opponent's;
    it is the one turn loop behind :class:`GridGhostGymEnv` and :class:`~gridghost.envs.compat.AgentInterface`.

    Args:
        game: the bare AEC env to drive.
        controlled: the caller's side, ``"agent"`` or ``"ghost"``.
        opponent: the other side's policy: a name (``"chase"``, ``"random"``; ``"minimax"``,
            the zero-sum game's optimal player of that side; ``"optimal"``, the optimal agent
            against the chasing ghost), a callable ``policy(observation) -> action``, an object
            with ``get_action(observation)``, or a reference-style class built as
            ``cls(action_space)``; it sees its own side's observation. A planner's policy that
            reads the true state (a :class:`~gridghost.planning.StatePolicy` such as
            :class:`~gridghost.planning.MinimaxGhost`, or its class, built for this game) is handed
            the state instead. ``None`` means :data:`~gridghost.config.opponents.DEFAULT_OPPONENTS`. The chasing ghost
            (``"chase"`` or a :class:`~gridghost.core.policies.ChasePolicy`) and state policies are
            played from their ``cells x cells`` action tables (for the chasing ghost
            :attr:`Game.chase_table <gridghost.core.game.Game.chase_table>`), without building an observation.
            Its randomness is seeded from
            the reset seed: through its ``seed(int)`` method if it has one (so a
            ``RandomPolicy(seed=7)`` passed in is reseeded), and through the action space handed
            to a reference-style class. An object that samples from an action space of its own
            is not seeded by gridghost.
        opponent_obs_type: the encoding the opponent's policy reads, whatever the caller's;
            one of :data:`~gridghost.sensing.OBS_TYPES`, without the options (no mask,
            no step count, the whole-map grid); ``"dict"`` (default) is what reference-style
            policies expect. ``"belief"`` serves an
            opponent agent (a :class:`~gridghost.planning.QMDPAgent`, say) when the game has a
            ``belief_filter``: the filter follows the agent.
        after_half_turn: called after every half-turn this object plays (the interface's
            ``step_delay`` pause).

    Raises:
        ValueError: an unknown side, policy name or ``opponent_obs_type``; a policy of one side
            (the chasing ghost, a state policy) for the other, or a state policy of another layout;
            ``opponent_obs_type="belief"`` for an opponent ghost or without a belief filter;
            an opponent or an ``opponent_obs_type`` other than ``"dict"`` without a ghost in the
            game; ``controlled="ghost"`` without a ghost in the game, or on a layout where the
            agent's opening move can end the game.
        TypeError: ``opponent`` is none of the accepted kinds.
    """

    def __init__(
        self,
        game: GridGhostEnv,
        controlled: str = AGENT,
        opponent: Any = None,
        opponent_obs_type: str = "dict",
        after_half_turn: Callable[[], None] | None = None,
    ) -> None:
        if not isinstance(game, GridGhostEnv):
            raise TypeError(f"game must be a gridghost.GridGhostEnv (the bare AEC env), got {game!r}")
        if after_half_turn is not None and not callable(after_half_turn):
            raise TypeError(f"after_half_turn must be a callable or None, got {after_half_turn!r}")
        self.game = game
        self.after_half_turn = after_half_turn
        # The info keys whose values may be mutable (arrays, the reference estimate, a custom
        # sensor's reading), which info() copies: every other value is a number, bool or string.
        self._copied_keys = (
            "action_mask", *(() if game.reference_infos else ("actual_moves",)),
            *(("estimated_pos", "estimated_cell") if game.belief_filter is not None else ()),
            *dict.fromkeys(key for sensor in game.sensors for key in sensor.info_keys),
        )
        self.controlled = check_choice(controlled, "controlled", CONTROLLED_SIDES)
        self.opponent = GHOST if controlled == AGENT else AGENT
        self.opponent_obs_type = check_choice(opponent_obs_type, "opponent_obs_type", OBS_TYPES)
        if opponent_obs_type == "belief" and (self.opponent != AGENT or game.belief_filter is None):
            raise ValueError(
                "opponent_obs_type='belief' shows the agent's belief filter to an opponent agent: it needs "
                "controlled='ghost' and a game with a belief_filter; use 'dict' or 'vector'"
            )
        if controlled == GHOST and not game.use_ghost:
            raise ValueError("controlled='ghost' needs the ghost in the game (use_ghost=True)")
        if opponent_obs_type == "belief_vector" and game.belief_filter is None:
            raise ValueError("opponent_obs_type='belief_vector' shows the agent's belief filter's map: it needs a game "
                             "with a belief_filter; use 'vector'")
        # The opponent's own action space, seeded from the reset seed, so that reference-style
        # policies drawing from action_space.sample() are reproducible too.
        self.opponent_action_space = spaces.Discrete(NUM_ACTIONS)
        self.policy: Policy | StatePolicy | None = None
        # The opponent's cells x cells action table when it is the chasing ghost or a state
        # policy: a function of the state, so no observation is built for it.
        self._table: bytes | None = None
        # Seeds for the opponent, spawned from the last reset seed on a stream of their own.
        self._opponent_seeds: np.random.SeedSequence | None = None
        self._carried = 0.0  # the reward a learning ghost earned before its first observation
        self._maps: dict[Layout, tuple[Callable[[Any], Any], Policy | StatePolicy | None]] = {}
        self._bind_map()
        if game.maps is not None and isinstance(getattr(opponent, "layout", None), Layout):
            raise ValueError(f"opponent {opponent!r} was built for one map, and the game draws a new map at every "
                             "reset; pass its name or class, which is built for every map")
        if game.use_ghost:
            self.set_opponent(DEFAULT_OPPONENTS[controlled] if opponent is None else opponent)
        elif opponent is not None or opponent_obs_type != "dict":
            raise ValueError(
                "opponent and opponent_obs_type have no one to play when the ghost is out of the game "
                "(use_ghost=False); leave them at their defaults"
            )

    def set_opponent(self, opponent: Any) -> None:
        """Replace the opponent's policy (from its next move on); accepts what the constructor does.

        Raises:
            ValueError, TypeError: as the constructor.
        """
        refuse_table(opponent, "wrap a one-ghost table as gridghost.planning.StatePolicy(layout, side, actions), "
                               "which the view plays exactly")
        state_policy = self._state_policy(opponent)
        policy: Any = state_policy
        if policy is None:
            policy = make_policy(opponent, self.opponent_action_space, argument="opponent")
        if isinstance(policy, ChasePolicy) and self.opponent != GHOST:
            check_opponent_name("chase", Side.AGENT, given=opponent)  # a ChasePolicy object: the name's rule
        if isinstance(policy, RandomPolicy) and policy.num_actions != NUM_ACTIONS:
            # It would fail only after the caller's half-turn, leaving the episode stuck.
            raise ValueError(
                f"opponent {opponent!r} draws from {policy.num_actions} actions; the game has {NUM_ACTIONS}"
            )
        self.policy = policy
        self._opponent_source = opponent
        # The opponent's encoder and policy per map, for a map generator's maps (see _bind_map).
        self._maps = {self.game.layout: (self._opponent_view, policy)}
        self._set_table()
        if self._opponent_seeds is not None:
            self._seed_opponent()

    def _set_table(self) -> None:
        """The opponent's action table on the game's current map, when it plays from one."""
        policy = self.policy
        # Only the chasing ghost itself: a subclass may add memory or randomness.
        if type(policy) is ChasePolicy:
            self._table = self.game.kernel.chase_bytes
        else:
            self._table = policy.table.tobytes() if isinstance(policy, StatePolicy) else None
        self._cells = self.game.kernel.num_cells

    def _bind_map(self) -> None:
        """Follow the game onto its current map (a map generator draws one at every reset): the
        opponent's observation encoder and, for a planner, its policy for this map; built on a
        map's first visit and kept, as the env keeps its own components."""
        game = self.game
        self._kernel = game.kernel
        self._opponent_view, policy = recent_map(self._maps, game.layout, self._build_map)
        if policy is not None and policy is not self.policy:
            self.policy = policy
        if self.policy is not None:
            self._set_table()

    def _build_map(self) -> tuple[Callable[[Any], Any], Policy | StatePolicy | None]:
        """The opponent's observer and policy on the game's current map (see :meth:`_bind_map`)."""
        game = self.game
        if self.controlled == GHOST:
            _check_opening_cannot_end(game.kernel)
        view = opponent_view(self.opponent_obs_type, game.board, Side.GHOST if self.opponent == GHOST else Side.AGENT,
                             None if game.belief_filter is None else game.belief_filter.belief)
        policy = self.policy
        if isinstance(policy, StatePolicy) and policy.layout != game.layout:
            policy = self._state_policy(self._opponent_source)
        return view, policy

    def _state_policy(self, opponent: Any) -> StatePolicy | None:
        """The state policy ``opponent`` names or is, built for this game and checked to fit it;
        ``None`` when it is another kind of policy (see :func:`~gridghost.config.opponents.planned_opponent`)."""
        return planned_opponent(opponent, self.game.kernel, Side.GHOST if self.opponent == GHOST else Side.AGENT)

    def _seed_opponent(self) -> None:
        child = cast(np.random.SeedSequence, self._opponent_seeds).spawn(1)[0]
        entropy = int(child.generate_state(1)[0])
        self.opponent_action_space.seed(entropy)
        reseed = getattr(self.policy, "seed", None)
        if callable(reseed):
            reseed(entropy)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start an episode (``seed`` and ``options`` as :meth:`GridGhostEnv.reset`).

        The opponent's randomness is seeded from ``seed`` on a stream of its own, so it never
        shifts the game's draws; with ``seed=None`` it continues where it was. A policy set
        later with :meth:`set_opponent` is seeded from the same stream.
        """
        self.game.reset(seed=seed, options=options)
        if self.game.kernel is not self._kernel:
            self._bind_map()
        if seed is not None or self._opponent_seeds is None:
            # After a first unseeded reset the game's own (drawn) seed is used, so that
            # reset(seed=game.np_random_seed) replays the opponent too.
            root = seed if seed is not None else self.game.np_random_seed
            self._opponent_seeds = np.random.SeedSequence(root, spawn_key=(OPPONENT_STREAM,))
            self._seed_opponent()
        self._carried = 0.0
        if self.controlled == GHOST:
            self._opponent_move()
            # The agent's opening move rewards the ghost before its first observation (a reset
            # returns no reward): the first play() pays it.
            self._carried = opening_reward(self.game.kernel)

    def play(self, action: Any) -> tuple[float, bool, bool, dict[str, Any]]:
        """Carry out the caller's ``action`` and the opponent's answer.

        Returns:
            The caller's reward summed over both half-turns (on a learning ghost's first move,
            also the opening move's that it earned before it first observed); whether the game ended (caught or
            goal); whether the AEC env's ``max_cycles`` cut it short; and a fresh copy of the
            caller's info.

        Raises:
            RuntimeError: the episode has ended, or ``reset`` was never called.
            TypeError, ValueError: ``action`` (or the opponent's) is not an int in 0..3.
        """
        game, me = self.game, self.controlled
        if self.over():
            raise RuntimeError(_EPISODE_ENDED)
        if game.agent_selection != me:
            raise RuntimeError("the opponent's last move failed (its error was raised then); call reset()")
        game.step(action)
        if self.after_half_turn is not None:
            self.after_half_turn()
        reward = self._carried + game.rewards[me]
        self._carried = 0.0
        if game.agent_selection != me and not (game.terminations[me] or game.truncations[me]):
            self._opponent_move()
            reward += game.rewards[me]
        terminated = game.terminations[me]
        return reward, terminated, game.truncations[me] and not terminated, self.info()

    def info(self) -> dict[str, Any]:
        """A fresh copy of the caller's info that shares nothing mutable with the AEC env or an
        earlier call (Gymnasium's checker insists, and users keep infos): its arrays are writable
        copies, and nested dicts and lists (the reference infos' estimate, a custom sensor's
        reading) are copied with :func:`detached`."""
        pending = self.game._pending_infos
        if type(pending) is tuple:  # numeric infos not built yet: this side's alone, its arrays copies
            return self.game._numeric_infos(pending, self.controlled)
        info = dict(self.game.infos[self.controlled])
        for key in self._copied_keys:
            value = info.get(key)
            if type(value) in _MUTABLE:
                info[key] = value.copy() if type(value) is np.ndarray else detached(value)
        return info

    def over(self) -> bool:
        """Whether the current episode has ended (caught, goal or ``max_cycles``).

        Raises:
            RuntimeError: before the first ``reset``.
        """
        game = self.game
        game.game_state  # noqa: B018 - raises before reset
        return game.terminations[self.controlled] or game.truncations[self.controlled]

    def _opponent_move(self) -> None:
        game = self.game
        state = game.game_state
        if self._table is not None:
            action = self._table[state.agent * self._cells + state.ghost]
        else:  # a bad answer is refused by name; the next step asks for a reset
            action = checked_answer(self.policy, self._opponent_view(state),  # type: ignore[arg-type]
                                    self.opponent_action_space)
        game.step(action)
        if self.after_half_turn is not None:
            self.after_half_turn()

    def success(self) -> bool:
        """Whether the game ended the way the caller wants (a goal for the agent, a catch for the
        ghost)."""
        return self.game.game_state.outcome == _SUCCESS[self.controlled]


def env_config(config: Mapping[str, Any], opponent: Any, render_mode: str | None, opponent_obs_type: str,
               game: Mapping[str, Any]) -> dict[str, Any]:
    """A Gymnasium view's arguments given as one mapping (RLlib's ``env_config``), as keywords.

    Raises:
        TypeError: arguments given by name beside the mapping.
    """
    if opponent is not None or render_mode is not None or opponent_obs_type != "dict" or game:
        raise TypeError("pass GridGhostGymEnv's arguments as one mapping (RLlib's env_config) or by name, not both")
    return dict(config)


class GridGhostGymEnv(gymnasium.Env):
    """The game as a standard Gymnasium env for one side; the other side is played by a policy.

    Registered as ``gridghost/GridGhost-v1`` (``TimeLimit`` of 100 steps); see the module
    docstring for spaces, rewards and infos. Its defaults are made for trainers
    (:data:`~gridghost.config.TRAINER_DEFAULTS`: ``obs_type="vector"``, ``rewards="normalised"``),
    where the AEC env keeps the reference's.

    Args:
        controlled: the learner's side, ``"agent"`` (default) or ``"ghost"``; or a mapping of
            every argument by name, alone (RLlib builds an env class as ``cls(env_config)``).
        opponent: the other side's policy, as :class:`Duel` accepts; ``None`` means the chasing
            ghost against a learning agent and a random agent against a learning ghost.
        render_mode: ``None`` or one of ``metadata["render_modes"]``; passed to the AEC env.
        opponent_obs_type: the encoding the opponent's policy reads (``"dict"`` by default).
        **game: the game's settings, forwarded to :class:`~gridghost.envs.aec.GridGhostEnv` as they
            are: ``spec=`` (``config=``) or the settings one by one
            (:class:`~gridghost.config.settings.GameSpec`), with this view's defaults
            (:data:`~gridghost.config.TRAINER_DEFAULTS`, and ``max_cycles=None``: ``TimeLimit``
            truncates, after ``max_episode_steps`` steps of the learner, each a cycle, the unit
            of ``max_cycles``, which ``append_step_count`` needs as its denominator).
            ``obs_type="belief"`` serves ``controlled="agent"`` only; with a ``belief_filter``
            the agent's info holds ``estimated_pos``; with an ``expert`` the learner's info
            holds ``expert_action`` while the game goes on.

    Raises:
        ValueError, TypeError: any argument outside what is accepted (see :class:`Duel` and
            :class:`~gridghost.envs.aec.GridGhostEnv`); a mapping of arguments next to other
            arguments.
    """

    metadata = {  # noqa: RUF012 - Gymnasium declares it an instance attribute
        "render_modes": GridGhostEnv.metadata["render_modes"],
        "render_fps": GridGhostEnv.metadata["render_fps"],
    }

    def __new__(cls, *args: Any, **kwargs: Any) -> GridGhostGymEnv:
        # A team (controlled="ghosts", or ghosts >= 2) plays on TeamGymEnv, chosen here once
        # (subclasses, with arguments of their own, keep their class).
        from gridghost.envs.team_gym import TeamGymEnv, plays_team

        if cls is GridGhostGymEnv and plays_team(args[0] if args else kwargs.get("controlled", AGENT), kwargs):
            cls = TeamGymEnv
        return super().__new__(cls)

    def __init__(
        self,
        controlled: str | Mapping[str, Any] = AGENT,
        opponent: Any = None,
        render_mode: str | None = None,
        opponent_obs_type: str = "dict",
        **game: Any,
    ) -> None:
        if isinstance(controlled, Mapping):  # RLlib's env_config: every argument by name
            self.__init__(**env_config(controlled, opponent, render_mode, opponent_obs_type, game))  # type: ignore[misc]
            return
        check_choice(controlled, "controlled", CONTROLLED_SIDES)
        # TimeLimit truncates this view (in steps, each a cycle: the learner's move and the answer)
        self.game = GridGhostEnv(render_mode, **with_defaults(trainer_settings(game), {"max_cycles": None}))
        if controlled == GHOST and self.game.obs_type == "belief":
            raise ValueError(
                "obs_type='belief' adds the agent's belief map; the ghost has none (use 'dict' or 'vector')"
            )
        if controlled == GHOST and self.game.expert == "optimal":
            raise ValueError("expert='optimal' advises the agent (against the chasing ghost); "
                             "a learning ghost's expert is expert='minimax'")
        self.duel = Duel(self.game, controlled, opponent, opponent_obs_type)
        self.controlled = controlled
        self.render_mode = self.game.render_mode
        self.observation_space = self.game.observation_space(controlled)
        self.action_space = self.game.action_space(controlled)

    @property
    def config(self) -> GameConfig:
        """The game's settings (the AEC env's :attr:`~gridghost.envs.aec.GridGhostEnv.config`)."""
        return self.game.config

    @property
    def layout(self) -> Layout:
        """The current episode's map (a map generator draws one at every reset)."""
        return self.game.layout

    @property
    def level(self) -> int | None:
        """The level of the current episode's map (``None`` for a fixed map)."""
        return self.game.level

    @property
    def np_random(self) -> np.random.Generator:
        """The game's generator (slip and sensor draws), which is this env's."""
        return self.game.np_random

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        self.game.np_random = value
        self._np_random = value

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Start an episode; a learning ghost first sees the opponent agent's opening move.

        Args:
            seed: seeds the game (and, on a stream of its own, the opponent); ``None``
                continues the streams.
            options: accepted for API compatibility; nothing is read from it.

        Returns:
            The learner's first observation and a fresh info dict.

        Raises:
            TypeError: ``options`` is neither ``None`` nor a dict.
        """
        self.duel.reset(seed=seed, options=options)
        # Gymnasium's tools (the env checker) read the env's generator here: it is the game's.
        self._np_random, self._np_random_seed = self.game.np_random, self.game.np_random_seed
        info = self.duel.info()
        info["is_success"] = False  # the same keys as every step's info
        return self.game.observe(self.controlled), info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The learner moves, then the opponent answers.

        Returns:
            ``(observation, reward, terminated, truncated, info)`` as Gymnasium defines them.

        Raises:
            TypeError, ValueError: ``action`` is not an int in 0..3 (nothing changes).
            RuntimeError: before ``reset`` or after the episode ended.
        """
        reward, terminated, truncated, info = self.duel.play(action)
        info["is_success"] = self.duel.success()
        return self.game.observe(self.controlled), float(reward), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Which actions move the learner (``bool[4]``), as sb3-contrib's ``MaskablePPO`` reads.

        Raises:
            RuntimeError: before ``reset``.
        """
        state = self.game.game_state
        cell = state.agent if self.controlled == AGENT else state.ghost
        return self.game.board.action_mask[cell].astype(bool)

    def render(self) -> Any:
        """What the AEC env's ``render()`` gives in this ``render_mode``."""
        return self.game.render()

    def set_overlay(self, values: Any = None, policy: Any = None, **style: Any) -> None:
        """Draw numbers per cell and/or a policy's arrows over every following frame, as
        :meth:`gridghost.envs.aec.GridGhostEnv.set_overlay` (which it calls)."""
        self.game.set_overlay(values, policy, **style)

    def close(self) -> None:
        """Release rendering resources; safe to call more than once."""
        self.game.close()


def make_reference_env(controlled: Any = AGENT, **game: Any) -> GridGhostGymEnv:
    """The entry point of ``gridghost/GridGhost-v0``, the id before 0.3.0: :class:`GridGhostGymEnv`
    with the game's own defaults (:data:`~gridghost.config.REFERENCE_DEFAULTS`: the reference's
    dict observation and rewards) for those settings the caller leaves out, as that id gave then.

    Args:
        controlled, **game: as :class:`GridGhostGymEnv` takes them (a mapping of every argument
            too).

    Returns:
        The env.

    Raises:
        ValueError, TypeError: as :class:`GridGhostGymEnv`.
    """
    if isinstance(controlled, Mapping) and not game:
        return GridGhostGymEnv(trainer_settings(controlled, REFERENCE_DEFAULTS))
    return GridGhostGymEnv(controlled, **trainer_settings(game, REFERENCE_DEFAULTS))
