"""The Gymnasium view of a team game (``ghosts >= 2``, or ``controlled="ghosts"``): the agent
learning against a team, or the whole team learning as one centralised env
(:class:`TeamGymEnv`, which :class:`~gridghost.envs.single_agent.GridGhostGymEnv` builds for
those arguments).
"""

from __future__ import annotations

import collections
import functools
from collections.abc import Callable, Mapping
from typing import Any, cast

import numpy as np
from gymnasium import spaces

from gridghost.config.opponents import opponent_view, planned_opponent, refuse_table
from gridghost.config.parts import recent_map
from gridghost.config.settings import GameSpec, trainer_settings, with_defaults
from gridghost.core.checks import check_choice, check_ghosts
from gridghost.core.game import Game
from gridghost.core.layout import Layout
from gridghost.core.names import AGENT, GHOST, OPPONENT_STREAM
from gridghost.core.policies import make_policy
from gridghost.core.rules import NUM_ACTIONS, Outcome, Side
from gridghost.core.team import TeamGame, TeamState
from gridghost.envs.aec import GridGhostEnv
from gridghost.envs.answers import checked_answer, ghosts_move_ends
from gridghost.envs.single_agent import _EPISODE_ENDED, GridGhostGymEnv, detached, env_config
from gridghost.planning.team import solve_team_agent, solve_team_game
from gridghost.sensing.observations import OBS_TYPES

#: The sides a learner controls against or as a team: the agent, or every ghost at once.
TEAM_CONTROLLED: tuple[str, ...] = (AGENT, "ghosts")
#: The opponents of the team view by name, per learner: scripted ones here, planned ones from the
#: team solver (:func:`team_planner`).
TEAM_OPPONENTS: dict[str, tuple[str, ...]] = {AGENT: ("chase", "random", "minimax"),
                                              "ghosts": ("random", "minimax", "optimal")}
_TEAM_DEFAULT_OPPONENTS = {AGENT: "chase", "ghosts": "random"}


def plays_team(controlled: Any, game: Mapping[str, Any]) -> bool:
    """Whether :class:`~gridghost.envs.single_agent.GridGhostGymEnv`'s arguments ask for the team
    view: ``controlled="ghosts"`` or ``ghosts >= 2`` (in the settings, ``spec`` or ``config``; or all
    of them in one mapping).
    A ``ghosts`` that :func:`~gridghost.config.settings.resolve` will refuse counts as 1 (it then
    names the argument)."""
    if isinstance(controlled, Mapping):
        game = dict(controlled)
        controlled = game.pop("controlled", AGENT)
    if controlled == "ghosts":
        return True
    for source in (game, game.get("spec"), game.get("config")):
        if isinstance(source, GameSpec):
            return source.ghosts > 1
        if isinstance(source, Mapping) and "ghosts" in source:
            try:
                return check_ghosts(source["ghosts"]) > 1
            except (TypeError, ValueError):
                return False
    return False


def team_planner(name: str, kernel: Game | TeamGame, side: Side) -> Callable[[Any], Any]:
    """The solver's player ``name`` of ``side`` on ``kernel``, as a function of the state: an int
    for the agent, the team's ``k`` actions for the ghosts.

    The one place the team view reaches the solver. A one-ghost game is the one-ghost solver's
    (:func:`~gridghost.config.opponents.planned_opponent`). A team's comes from the team solver
    (:mod:`gridghost.planning.team`): ``"minimax"`` is either side's policy in the zero-sum team
    game (:func:`~gridghost.planning.solve_team_game`); ``"optimal"`` is the agent's best response
    to the chasing team (:func:`~gridghost.planning.solve_team_agent`), as for one ghost, where
    it is the agent's best response to the chasing ghost. A team's tables are solved once per
    game and kept for the next env on the same game.

    Raises:
        ValueError: a name the solver has no player of for ``side`` (``"optimal"`` for the
            ghosts), or a team too large for the solver's memory budget.
    """
    if isinstance(kernel, TeamGame):
        if side == Side.GHOST and name != "minimax":
            raise ValueError(f"opponent={name!r} is an agent's player; a team's planned opponent is 'minimax'")
        table = _team_table(kernel, name, side)
        if side == Side.AGENT:
            return functools.partial(_team_table_action, table, kernel.num_cells)
        return functools.partial(_team_table_joint, table, kernel.num_cells, kernel.ghosts)
    policy = planned_opponent(name, kernel, side)
    assert policy is not None  # a solver's name
    table, cells = policy.table.tobytes(), kernel.num_cells
    if side == Side.AGENT:
        return functools.partial(_table_action, table, cells)
    return functools.partial(_table_joint, table, cells)


#: The team solver's tables by game and player, the most recently used last (a few: each is a
#: byte per joint state).
_TEAM_TABLES: collections.OrderedDict[tuple[Any, ...], bytes] = collections.OrderedDict()
_TEAM_TABLES_KEPT = 8


def _team_table(kernel: TeamGame, name: str, side: Side) -> bytes:
    """The team solver's player ``name`` of ``side`` as bytes indexed by the flat joint state
    (agent cell, then each ghost's): the agent's action, or the team's joint move."""
    key = (kernel.layout, kernel.slip, kernel.agent_rewards, kernel.ghost_rewards, kernel.ghosts, name, side)
    table = _TEAM_TABLES.pop(key, None)
    if table is None:
        if side == Side.AGENT and name == "optimal":
            actions = solve_team_agent(game=kernel, team="chase").policy
        else:
            solution = solve_team_game(game=kernel)
            actions = solution.agent_policy if side == Side.AGENT else solution.team_policy
        # -1 where the game is over, which no lookup reaches; a joint move of up to 4 ghosts fits a byte
        table = np.asarray(actions).astype(np.uint8).tobytes()
        if len(_TEAM_TABLES) >= _TEAM_TABLES_KEPT:
            _TEAM_TABLES.popitem(last=False)
    _TEAM_TABLES[key] = table
    return table


def _team_table_action(table: bytes, cells: int, state: TeamState) -> int:
    index = state.agent
    for cell in state.ghosts:
        index = index * cells + cell
    return table[index]


def _team_table_joint(table: bytes, cells: int, ghosts: int, state: TeamState) -> tuple[int, ...]:
    joint = _team_table_action(table, cells, state)
    return tuple(joint >> 2 * ghost & 3 for ghost in range(ghosts))


def _table_action(table: bytes, cells: int, state: Any) -> int:
    return table[state.agent * cells + state.ghost]


def _table_joint(table: bytes, cells: int, state: Any) -> tuple[int, ...]:
    return (table[state.agent * cells + state.ghost],)


def _ghost_cells(state: Any) -> tuple[int, ...]:
    """Every ghost's cell, of a team's state or of the one-ghost game's."""
    return state.ghosts if isinstance(state, TeamState) else (state.ghost,)


class TeamGymEnv(GridGhostGymEnv):
    """The Gymnasium view of a team game, one side learning: what :class:`GridGhostGymEnv` (and
    ``gymnasium.make("gridghost/GridGhost-v1", ...)``) returns for ``ghosts >= 2`` or
    ``controlled="ghosts"``.

    ``controlled="agent"``: the agent learns (``Discrete(4)``, its own observation) against the
    team; the opponent team is ``"chase"`` (the default: every ghost the reference's chasing
    rule on its own, :meth:`~gridghost.core.team.TeamGame.chase_actions`; independent chasers
    bunch up), ``"random"`` (every ghost uniformly at random, from a stream of the reset seed),
    ``"minimax"`` (the team's minimax joint policy from the team solver, :func:`team_planner`),
    or a callable ``policy(observations) -> k actions`` given every ghost's observation
    by name (in ``opponent_obs_type``).

    ``controlled="ghosts"``: the whole team learns as one centralised env, for any ``k`` (for
    ``k = 1`` the one ghost, with the team's spaces). Its action is ``MultiDiscrete([4] * k)``,
    ghost ``i``'s move at index ``i``, carried out together; a wrong length or value is refused
    naming ``action``. Its observation stacks every ghost's own observation, in ghost order: a
    ``Box`` encoding gains a leading axis ``k`` (``"vector"``: ``k x D``; ``"grid"``:
    ``k x C x H x W``), ``"dict"`` (and ``action_mask_in_obs=True``) becomes a ``Dict`` by ghost
    name, and ``"text"`` joins the ghosts' texts with a space. Each ghost's observation already
    places the agent and its teammates relative to itself, with its own surroundings; the stack
    keeps which ghost is which, which a centralised policy needs to give each its move (a union
    of the ghosts' cells would lose it). Its reward is the mean of the ghosts' rewards of the
    step: the team's reward (zero-sum against the agent) with ``ghost_credit="team"``, the
    catchers' bonus shared out with ``"catcher"``. The opponent agent is ``"random"`` (default),
    ``"minimax"`` / ``"optimal"`` (the one-ghost solver's for ``k = 1``; the team solver's for more:
    :func:`team_planner`), or what the one-ghost view takes for an opponent agent (a
    callable ``policy(observation) -> action``, an object with ``get_action``, a reference-style
    class), seeded from the reset seed on a stream of its own. The episode
    starts after the opponent agent's opening move (maps where it can end the game are refused),
    whose reward the first step pays, as for a learning ghost.

    Infos: the learner's AEC info (for the team, ghost 0's) with ``is_success``; the team's
    ``action_mask`` is ``int8[k, 4]``, and :meth:`action_masks` gives ``bool[k * 4]`` (what
    sb3-contrib's ``MaskablePPO`` reads for a ``MultiDiscrete``).

    Args:
        controlled: ``"agent"`` or ``"ghosts"``, or a mapping of every argument (RLlib).
        opponent, render_mode, opponent_obs_type, **game: as :class:`GridGhostGymEnv`.

    Raises:
        ValueError, TypeError: as :class:`GridGhostGymEnv`; ``controlled="ghost"`` with a team;
            an opponent this view does not serve (a NumPy array, such as the solver's
            ``team_policy`` or ``agent_policy``, is a ``TypeError`` naming ``opponent``: name
            the solver's player instead); ``obs_type="belief"`` for the ghosts.
    """

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
        if controlled == GHOST:
            raise ValueError("controlled='ghost' controls one ghost; with ghosts >= 2 the team learns as "
                             "controlled='ghosts' (or use the PettingZoo envs, one policy per ghost)")
        check_choice(controlled, "controlled", TEAM_CONTROLLED)
        self.game = self._make_game(render_mode, game)
        if controlled != AGENT and self.game.obs_type == "belief":
            raise ValueError("obs_type='belief' adds the agent's belief map; the ghosts have none (use 'dict' or "
                             "'vector')")
        self.controlled = controlled
        self.render_mode = self.game.render_mode
        self.opponent_obs_type = check_choice(opponent_obs_type, "opponent_obs_type", OBS_TYPES)
        self._ghost_names = tuple(self.game.possible_agents[1:])
        k = len(self._ghost_names)
        # checks a team's actions, on any map: the team's own kernel, or one ghost's played as a team of one
        kernel = self.game.kernel
        self._checker = kernel if isinstance(kernel, TeamGame) else TeamGame(kernel, 1)
        if opponent is None:
            opponent = _TEAM_DEFAULT_OPPONENTS[controlled]
        refuse_table(opponent, f"name the team solver's player (one of {list(TEAM_OPPONENTS[controlled])}) or pass "
                               "a callable policy of observations")
        if isinstance(opponent, str):
            check_choice(opponent, "opponent", TEAM_OPPONENTS[controlled])
        elif controlled == AGENT and not callable(opponent):
            raise TypeError(f"opponent must be one of {list(TEAM_OPPONENTS[controlled])} or a callable, got "
                            f"{opponent!r}")
        self.opponent = opponent
        # The opponent agent's policy when it is no planner: what the one-ghost view's opponent
        # agents may be (make_policy's kinds), drawing from an action space seeded per reset.
        self._opponent_space = spaces.Discrete(NUM_ACTIONS)
        planned = isinstance(opponent, str) and opponent in ("minimax", "optimal")
        self._agent_policy = None
        if controlled != AGENT and not planned:
            self._agent_policy = make_policy(opponent, self._opponent_space, argument="opponent")
        self._opponent_rng: np.random.Generator | None = None
        # each ghost's rewards of the opponent agent's opening move, which its first step pays
        self._carried = np.zeros(k)
        self._maps: dict[Layout, tuple[Any, Any]] = {}
        self._bind_map()
        ghost_space = self.game.observation_space(self._ghost_names[0])
        if controlled == AGENT:
            self.observation_space = self.game.observation_space(AGENT)
            self.action_space = self.game.action_space(AGENT)
        else:
            self.observation_space = self._stacked_space(ghost_space, k)
            self.action_space = spaces.MultiDiscrete(np.full(k, NUM_ACTIONS, dtype=np.int64))

    def _make_game(self, render_mode: str | None, game: dict[str, Any]) -> GridGhostEnv:
        """The AEC game this view drives: the trainers' settings, with no step limit of its own
        (``TimeLimit``'s)."""
        return GridGhostEnv(render_mode, **with_defaults(trainer_settings(game), {"max_cycles": None}))

    def _stacked_space(self, space: spaces.Space[Any], k: int) -> spaces.Space[Any]:
        """The team's observation space from one ghost's (see the class docstring)."""
        if isinstance(space, spaces.Box):
            self._stack = "box"
            return spaces.Box(np.stack([space.low] * k), np.stack([space.high] * k), dtype=space.dtype)  # type: ignore[arg-type]
        if isinstance(space, spaces.Text):
            self._stack = "text"
            return spaces.Text(max_length=k * space.max_length + k - 1, min_length=space.min_length,
                               charset=space.character_set)
        self._stack = "dict"
        return spaces.Dict({name: self.game.observation_space(name) for name in self._ghost_names})

    def _bind_map(self) -> None:
        """The opponent's observer and planned player on the game's current map (a map
        generator's maps are kept as the env keeps its own)."""
        self._kernel = self.game.kernel
        self._opponent_observer, self._planned = recent_map(self._maps, self.game.layout, self._build_map)

    def _build_map(self) -> tuple[Any, Any]:
        game, kernel = self.game, self.game.kernel
        k = len(self._ghost_names)
        if self.controlled != AGENT and kernel.opening_can_end():
            raise ValueError(f"controlled='ghosts' needs a layout where the agent's opening move cannot end the "
                             f"game; on {game.layout.name or 'this layout'} it can reach a goal or a ghost")
        planned = None
        if isinstance(self.opponent, str) and self.opponent in ("minimax", "optimal"):
            planned = team_planner(self.opponent, kernel, Side.GHOST if self.controlled == AGENT else Side.AGENT)
        belief = None if game.belief_filter is None else game.belief_filter.belief
        if self.controlled == AGENT:  # a team (k >= 2): every ghost's observer
            observer: Any = {name: opponent_view(self.opponent_obs_type, game.board, Side.GHOST, belief, ghosts=k,
                                                 who=name) for name in self._ghost_names}
        else:
            observer = opponent_view(self.opponent_obs_type, game.board, Side.AGENT, belief, ghosts=k,
                                     who=AGENT if k > 1 else None)
        return observer, planned

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[Any, dict[str, Any]]:
        """Start an episode; the learning team first sees the opponent agent's opening move.

        Raises:
            TypeError, ValueError: as :meth:`GridGhostGymEnv.reset`.
        """
        game = self.game
        game.reset(seed=seed, options=options)
        if game.kernel is not self._kernel:
            self._bind_map()
        if seed is not None or self._opponent_rng is None:
            root = seed if seed is not None else game.np_random_seed
            seeds = np.random.SeedSequence(root, spawn_key=(OPPONENT_STREAM,))
            self._opponent_rng = np.random.default_rng(seeds)
            entropy = int(seeds.spawn(1)[0].generate_state(1)[0])
            self._opponent_space.seed(entropy)
            reseed = getattr(self._agent_policy, "seed", None)
            if callable(reseed):
                reseed(entropy)
        self._np_random, self._np_random_seed = game.np_random, game.np_random_seed
        self._carried = np.zeros(len(self._ghost_names))
        if self.controlled != AGENT:
            game.step(self._agent_action(game.game_state))
            self._carried = self._ghost_rewards()
        info = self._info()
        info["is_success"] = False
        return self._observe(), info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The learner moves (the agent, or every ghost at once), then the opponent answers.

        Raises:
            TypeError, ValueError: a bad action (for the team: not ``k`` ints in 0..3, one per
                ghost), or for the team an opponent agent's answer that is not an int in 0..3
                (named ``opponent``); nothing changes.
            RuntimeError: before ``reset`` or after the episode ended.
        """
        game = self.game
        me = AGENT if self.controlled == AGENT else self._ghost_names[0]
        game.game_state  # noqa: B018 - raises before reset
        if game.terminations[me] or game.truncations[me]:
            raise RuntimeError(_EPISODE_ENDED)
        if self.controlled == AGENT:
            game.step(action)
            reward = game.rewards[AGENT]
            if not self._over():
                self._team_moves(self._team_actions())
                reward += game.rewards[AGENT]
        else:
            reward = float(self.ghosts_turn(action).mean())
        terminated = game.terminations[me]
        info = self._info()
        info["is_success"] = game.game_state.outcome == (Outcome.GOAL if self.controlled == AGENT else Outcome.CAUGHT)
        return self._observe(), float(reward), terminated, game.truncations[me] and not terminated, info

    def _over(self) -> bool:
        game = self.game
        return bool(game.terminations[AGENT] or game.truncations[AGENT])

    def _team_moves(self, actions: tuple[int, ...]) -> None:
        """Every ghost's move of this turn, in order (the team moves once the last has chosen)."""
        for move in actions:  # as many as ghosts: checked by the caller
            self.game.step(move)

    def ghosts_turn(self, actions: Any) -> np.ndarray:
        """The learning team's turn: every ghost's move, carried out together, then the opponent
        agent's answer unless the game ended. The one turn loop of a learning team, behind this
        view's :meth:`step` (which pays their mean) and the ghosts-only parallel env
        (:mod:`gridghost.envs.ghost_team`, which pays each ghost its own).

        Args:
            actions: the team's ``k`` moves, ghost ``i``'s at index ``i``.

        Returns:
            Each ghost's rewards since it last acted, ``float64[k]`` in ghost order: those of the
            team's move and of the agent's answer, and after a reset those of the agent's
            opening move as well.

        Raises:
            TypeError, ValueError: not ``k`` ints in 0..3 (named ``action``), or the opponent
                policy's answer is not an int in 0..3 (named ``opponent``); nothing changes.
            RuntimeError: the opponent's opening move failed at the last reset.
        """
        game = self.game
        if game.agent_selection == AGENT:
            raise RuntimeError("the opponent's opening move failed (reset raised its error); call reset()")
        joint = self._checker.check_joint_action(actions, "action")
        # the answer, chosen before the team's move is carried out (see gridghost.envs.answers)
        moved = self._kernel.ghosts_step(game.game_state, joint) if isinstance(self._kernel, TeamGame) else \
            self._kernel.ghost_step(game.game_state, joint[0])
        answer = None if ghosts_move_ends(game, moved) else self._agent_action(moved)
        self._team_moves(joint)
        rewards = self._carried + self._ghost_rewards()
        self._carried = np.zeros(len(self._ghost_names))
        if answer is not None:
            game.step(answer)
            rewards += self._ghost_rewards()
        return rewards

    def _ghost_rewards(self) -> np.ndarray:
        """Each ghost's reward of the half-turn just played, in ghost order."""
        rewards = self.game.rewards
        return np.array([rewards[name] for name in self._ghost_names], dtype=np.float64)

    def _team_actions(self) -> tuple[int, ...]:
        """The opponent team's moves in the current state, checked before any is carried out."""
        state, opponent = self.game.game_state, self.opponent
        if opponent == "chase":
            return cast(TeamGame, self._kernel).chase_actions(cast(TeamState, state))
        if opponent == "random":
            rng = cast(np.random.Generator, self._opponent_rng)
            return tuple(int(move) for move in rng.integers(NUM_ACTIONS, size=len(self._ghost_names)))
        if self._planned is not None:
            return self._checker.check_joint_action(self._planned(state), "the opponent's actions")
        observations = {name: observe(state) for name, observe in self._opponent_observer.items()}
        return self._checker.check_joint_action(opponent(observations), "the opponent's actions")

    def _agent_action(self, state: Any) -> int:
        """The opponent agent's answer in ``state``, checked (:func:`~gridghost.envs.answers.checked_answer`)."""
        if self._planned is not None:
            return cast(int, self._planned(state))
        return checked_answer(self._agent_policy, self._opponent_observer(state), self._opponent_space)  # type: ignore[arg-type]

    def _observe(self) -> Any:
        game = self.game
        if self.controlled == AGENT:
            return game.observe(AGENT)
        observations = [game.observe(name) for name in self._ghost_names]
        if self._stack == "box":
            return np.stack(observations)
        if self._stack == "text":
            return " ".join(observations)
        return dict(zip(self._ghost_names, observations, strict=True))

    def _info(self) -> dict[str, Any]:
        """A fresh copy of the learner's info (the team's: ghost 0's, with every ghost's mask)."""
        game = self.game
        name = AGENT if self.controlled == AGENT else self._ghost_names[0]
        info = {key: value.copy() if type(value) is np.ndarray else detached(value)  # every array its own
                for key, value in game.infos[name].items()}
        if self.controlled != AGENT and "action_mask" in info:
            info["action_mask"] = np.stack([game.infos[ghost]["action_mask"] for ghost in self._ghost_names])
        return info

    def action_masks(self) -> np.ndarray:
        """Which actions move the learner: ``bool[4]`` for the agent, ``bool[k * 4]`` (ghost by
        ghost) for the team, as sb3-contrib's ``MaskablePPO`` reads.

        Raises:
            RuntimeError: before ``reset``.
        """
        state, masks = self.game.game_state, self.game.board.action_mask
        if self.controlled == AGENT:
            return masks[state.agent].astype(bool)
        return np.concatenate([masks[cell] for cell in _ghost_cells(state)]).astype(bool)
