"""The one turn loop of the single-agent views (:class:`Duel`): one side of the AEC game played
by a caller (the agent, the ghost, or a team's ghosts all at once), the other by a policy. Behind
:class:`~gridghost.envs.single_agent.GridGhostGymEnv`, the reference-compatible
:class:`~gridghost.envs.compat.AgentInterface` and the ghosts-only parallel env
(:mod:`gridghost.envs.ghost_team`); none of them touches the rules.

A team opponent's moves go through the AEC env's held choices, as any team move. A learning
team's opponent agent answers before the team's move is carried out: a ghost's move draws nothing
at random, so the state it leads to is known first. An answer that is no move is refused, naming
``opponent``, before anything changes, and the draws the policy made from the action space it was
given are undone, so a following valid step plays as if the call had not been made (a policy's
own generator, or any other state it keeps, is its own). The one-ghost Gymnasium view
(``controlled="ghost"``) keeps its step as fast as it was: it asks the opponent after the ghost's
move, refuses a bad answer by the same name (:func:`checked_answer`), and then asks for a
``reset`` before any further step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np
from gymnasium import spaces

from gridghost.config.opponents import (
    DEFAULT_OPPONENTS,
    TEAM_DEFAULT_OPPONENTS,
    TEAM_OPPONENTS,
    check_opponent_name,
    opponent_view,
    planned_opponent,
    refuse_table,
    team_planner,
)
from gridghost.config.parts import recent_map
from gridghost.core.checks import check_action, check_choice
from gridghost.core.episode import cycle_limit
from gridghost.core.game import Game
from gridghost.core.layout import Layout
from gridghost.core.names import AGENT, AGENTS, GHOST, OPPONENT_STREAM
from gridghost.core.policies import ChasePolicy, Policy, RandomPolicy, ReferencePolicy, make_policy
from gridghost.core.rules import NUM_ACTIONS, SIDE_OF, Outcome, Side
from gridghost.envs.aec import GridGhostEnv
from gridghost.envs.tables import AgentTable, is_state_table
from gridghost.planning import StatePolicy
from gridghost.sensing.observations import OBS_TYPES

#: The sides a learner can control (one side of the one-ghost game).
CONTROLLED_SIDES: tuple[str, ...] = AGENTS
#: What a learner may control: a side, or every ghost of the team at once.
TEAM = "ghosts"
_EPISODE_ENDED = "the episode has ended; call reset() to start a new one"
_SUCCESS = {AGENT: Outcome.GOAL, GHOST: Outcome.CAUGHT, TEAM: Outcome.CAUGHT}


def _check_opening_cannot_end(kernel: Game, controlled: str = GHOST) -> None:
    """A learning ghost's first observation comes after the agent's opening move, and Gymnasium's
    ``reset`` cannot report a finished episode: refuse layouts where that move could end it."""
    if kernel.opening_can_end():
        raise ValueError(
            f"controlled={controlled!r} needs a layout where the agent's opening move cannot end the game; on "
            f"{kernel.layout.name or 'this layout'} it can reach a goal or {'the' if controlled == GHOST else 'a'} "
            "ghost (a MapGenerator redraws such maps)"
        )


def ghosts_move_ends(game: GridGhostEnv, moved: Any) -> bool:
    """Whether the ghosts' move from ``game``'s current state, leading to ``moved``, ends the
    episode: a catch, or the game's ``max_cycles`` reached (the move completes a cycle).

    Args:
        game: the AEC game, the ghosts to move.
        moved: the state the ghosts' move leads to.

    Returns:
        ``True`` when the opponent agent does not answer the move.
    """
    return bool(moved.outcome != Outcome.ONGOING or game.cycles + 1 >= cycle_limit(game.max_cycles))


def checked_answer(policy: Callable[[Any], Any], observation: Any, space: spaces.Space[Any]) -> int:
    """The opponent agent's answer to ``observation``, as an int in 0..3.

    Args:
        policy: the opponent agent's policy.
        observation: what it sees.
        space: the action space it draws from (seeded by the env), if it does.

    Returns:
        The answer.

    Raises:
        TypeError, ValueError: the answer is not an int in 0..3 (named ``opponent``); the draws
            from ``space`` are undone first.
    """
    # make_policy hands the env's space to a reference-style class only (behind a ReferencePolicy)
    stream = space.np_random.bit_generator if type(policy) is ReferencePolicy else None
    drawn = None if stream is None else stream.state
    answer = policy(observation)
    if type(answer) is int and 0 <= answer < NUM_ACTIONS:
        return answer
    try:
        return check_action(answer, "opponent")
    except (TypeError, ValueError) as error:
        if stream is not None and drawn is not None:
            stream.state = drawn
        raise type(error)(f"opponent must answer with a move, an int in 0..{NUM_ACTIONS - 1}; it "
                          f"answered {answer!r}") from None


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
    """One side of the AEC game played by a caller, the other by a policy (see the module docstring).

    Args:
        game: the bare AEC env to drive.
        controlled: the caller's side, ``"agent"`` or ``"ghost"`` (one ghost), or ``"ghosts"``
            (every ghost of the team at once, for any team size).
        opponent: in a team game (``ghosts >= 2`` or ``controlled="ghosts"``) the team's
            opponents (see :class:`~gridghost.envs.single_agent.GridGhostGymEnv`); against a
            learning team also a state table of the agent (an array indexed by the joint state,
            or for one ghost a :class:`~gridghost.planning.StatePolicy`), played from the true
            state (:class:`~gridghost.envs.tables.AgentTable`). Otherwise the
            other side's policy: a name (``"chase"``, ``"random"``; ``"minimax"``,
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
        ValueError: an unknown side, policy name or ``opponent_obs_type``; ``controlled="ghost"``
            with a team; a policy of one side
            (the chasing ghost, a state policy) for the other, or a state policy of another layout;
            ``opponent_obs_type="belief"`` for an opponent ghost or without a belief filter;
            an opponent or an ``opponent_obs_type`` other than ``"dict"`` without a ghost in the
            game; ``controlled="ghost"`` without a ghost in the game, or on a layout where the
            agent's opening move can end the game; ``controlled`` other than ``"agent"`` with the
            game's ``obs_type="belief"`` or ``expert="optimal"`` (they serve a learning agent).
        TypeError: ``opponent`` is none of the accepted kinds.
    """

    _answer: Callable[[Any], tuple[int, ...]]  # the opponent's moves in a state
    # a team game's: the random team's generator and the current map's planned player (see _bind_map)
    _rng: np.random.Generator | None
    _player: Any

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
        self.controlled = check_choice(controlled, "controlled", (*CONTROLLED_SIDES, TEAM))
        if controlled == GHOST and game.ghosts > 1:
            raise ValueError("controlled='ghost' controls one ghost; with ghosts >= 2 the team learns as "
                             "controlled='ghosts' (or use the PettingZoo envs, one policy per ghost)")
        if controlled != AGENT and not game.use_ghost:
            raise ValueError(f"controlled={controlled!r} needs the ghost in the game (use_ghost=True)")
        if controlled != AGENT and game.obs_type == "belief":  # what serves a learning agent alone
            raise ValueError(f"obs_type='belief' adds the agent's belief map; the {controlled} have none (use 'dict' "
                             "or 'vector')".replace("ghost have", "ghost has"))
        if controlled != AGENT and game.expert == "optimal":
            raise ValueError("expert='optimal' advises the agent (against the chasing ghost); "
                             "a learning ghost's expert is expert='minimax'")
        #: The caller's agents in the AEC game, in turn order.
        self.learners: tuple[str, ...] = (AGENT,) if controlled == AGENT else tuple(game.possible_agents[1:])
        self._me = self.learners[0]
        self.opponent = GHOST if controlled == AGENT else AGENT
        self.opponent_obs_type = check_choice(opponent_obs_type, "opponent_obs_type", OBS_TYPES)
        if opponent_obs_type == "belief" and (self.opponent != AGENT or game.belief_filter is None):
            raise ValueError(
                "opponent_obs_type='belief' shows the agent's belief filter to an opponent agent: it needs "
                "controlled='ghost' and a game with a belief_filter; use 'dict' or 'vector'"
            )
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
        self._carried: Any = 0.0  # the reward a learning ghost earned before its first observation
        # The opponent's observers and planned player per map, for a map generator's maps (see _bind_map).
        self._maps: dict[Layout, tuple[Any, Any]] = {}
        self._team = controlled == TEAM or game.ghosts > 1  # a team game
        if self._team:
            self._rng = None
            self._team_opponent(opponent)
            return
        self._answer = self._one_answer
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
        if self._team:
            self._team_opponent(opponent)
            if self._opponent_seeds is not None:
                self._seed_opponent()
            return
        refuse_table(opponent, "wrap a one-ghost table as gridghost.planning.StatePolicy(layout, side, actions), "
                               "which the view plays exactly")
        # a planner's state policy, built for this game and checked to fit it, or None (another kind)
        policy: Any = planned_opponent(opponent, self.game.kernel, SIDE_OF[self.opponent])
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
        opponent's observers and, for a planner, its player (or policy) for this map; built on a
        map's first visit and kept, as the env keeps its own components."""
        game = self.game
        self._kernel = game.kernel
        self._opponent_view, policy = recent_map(self._maps, game.layout, self._build_map)
        if self._team:
            self._player = policy
            return
        if policy is not None:  # None only before set_opponent, or without a ghost
            self.policy = policy
            self._set_table()

    def _build_map(self) -> tuple[Any, Any]:
        """The opponent's observers and planned player on the game's current map (see :meth:`_bind_map`)."""
        game, names = self.game, self.game.possible_agents
        if self.controlled != AGENT:
            _check_opening_cannot_end(game.kernel, self.controlled)
        side, k, obs_type = SIDE_OF[self.opponent], game.ghosts, self.opponent_obs_type
        belief = None if game.belief_filter is None else game.belief_filter.belief
        if self._team and self.controlled == AGENT:  # a team (k >= 2): every ghost's observer
            view: Any = {name: opponent_view(obs_type, game.board, side, belief, ghosts=k, who=name)
                         for name in names[1:]}
        else:
            view = opponent_view(obs_type, game.board, side, belief, ghosts=k, who=AGENT if k > 1 else None)
        if self._team:
            opponent = self.team_opponent
            if not self._planned:
                return view, None
            if isinstance(opponent, str):
                return view, team_planner(opponent, game.kernel, side)
            return view, self._table_player  # a state table: one map (no map generator)
        policy = self.policy
        if isinstance(policy, StatePolicy) and policy.layout != game.layout:
            policy = planned_opponent(self._opponent_source, game.kernel, side)
        return view, policy

    def _seed_opponent(self) -> None:
        """Seed the opponent from the next child of its seeds: the action space it is handed, and
        its policy through the policy's own ``seed(int)``, if it has one."""
        entropy = int(cast(np.random.SeedSequence, self._opponent_seeds).spawn(1)[0].generate_state(1)[0])
        self.opponent_action_space.seed(entropy)
        for policy in (self.policy, self._player if self._team else None):  # a team's table player draws too
            reseed = getattr(policy, "seed", None)
            if callable(reseed):
                reseed(entropy)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start an episode (``seed`` and ``options`` as :meth:`GridGhostEnv.reset`).

        The opponent's randomness is seeded from ``seed`` on a stream of its own, so it never
        shifts the game's draws; with ``seed=None`` it continues where it was. A policy set
        later with :meth:`set_opponent` is seeded from the same stream. A learning ghost (or
        team) first sees the opponent agent's opening move.
        """
        game = self.game
        game.reset(seed=seed, options=options)
        if game.kernel is not self._kernel:
            self._bind_map()
        if seed is not None or self._opponent_seeds is None:
            # After a first unseeded reset the game's own (drawn) seed is used, so that
            # reset(seed=game.np_random_seed) replays the opponent too.
            root = seed if seed is not None else game.np_random_seed
            self._opponent_seeds = np.random.SeedSequence(root, spawn_key=(OPPONENT_STREAM,))
            if self._team:  # a random team draws its moves from a stream of these seeds
                self._rng = np.random.default_rng(self._opponent_seeds)
            self._seed_opponent()
        self._carried = 0.0 if self.controlled != TEAM else np.zeros(len(self.learners))
        if self.controlled != AGENT:
            self._carry_out(self._answer(game.game_state))
            # The agent's opening move rewards the ghosts before their first observation (a
            # reset returns no reward): the first play() pays it.
            self._carried = self._gains()

    def play(self, action: Any) -> tuple[Any, bool, bool, dict[str, Any]]:
        """Carry out the caller's ``action`` and the opponent's answer (:meth:`turn`).

        Returns:
            The caller's rewards (:meth:`turn`); whether the game ended (caught or goal);
            whether the AEC env's ``max_cycles`` cut it short; and a fresh copy of the caller's
            info.

        Raises:
            RuntimeError, TypeError, ValueError: as :meth:`turn`.
        """
        reward = self.turn(action)
        game, me = self.game, self._me
        terminated = game.terminations[me]
        return reward, terminated, game.truncations[me] and not terminated, self.info()

    def turn(self, action: Any) -> Any:
        """Carry out the caller's ``action`` and, unless the game ended, the opponent's answer.

        Args:
            action: the agent's or the ghost's move, or the team's ``k`` moves (ghost ``i``'s at
                index ``i``), carried out together.

        Returns:
            The caller's reward summed over both half-turns (on a learning ghost's first move,
            also the opening move's, which it earned before it first observed); for a team,
            each ghost's, ``float64[k]`` in ghost order.

        Raises:
            RuntimeError: the episode has ended, ``reset`` was never called, or the opponent's
                last move failed.
            TypeError, ValueError: ``action`` is not a move (the team's: not ``k`` moves, named
                ``action``), or the opponent's answer is not (named ``opponent``; a learning
                team's opponent agent is asked before the team's move, so nothing changes then).
        """
        game, me = self.game, self._me
        if self.over():
            raise RuntimeError(_EPISODE_ENDED)
        if game.agent_selection != me:
            if game.agent_selection == AGENT and game.cycles == 0:
                raise RuntimeError("the opponent's opening move failed (reset raised its error); call reset()")
            raise RuntimeError("the opponent's last move failed (its error was raised then); call reset()")
        answer = None  # a learning team's opponent's moves, asked for before the team moves
        if self.controlled == TEAM:
            moves = self._check(action, "action")
            moved = game._ghost_step(game.game_state, moves if len(moves) > 1 else moves[0])
            answer = () if ghosts_move_ends(game, moved) else self._answer(moved)
            self._carry_out(moves)
            reward = self._carried + self._gains()
        else:
            game.step(action)
            if self.after_half_turn is not None:
                self.after_half_turn()
            reward = self._carried + game.rewards[me]
        self._carried = 0.0
        if game.agent_selection != me and not (game.terminations[me] or game.truncations[me]):
            moves = answer
            if moves is None:  # the caller is one side: its opponent answers now
                state, table = game.game_state, self._table
                # a table opponent's answer read inline (as _one_answer reads it): the hot path
                moves = (self._answer(state) if table is None
                         else (table[state.agent * self._cells + state.ghosts[0]],))
            for move in moves:  # as _carry_out, inline: the hot path
                game.step(move)
                if self.after_half_turn is not None:
                    self.after_half_turn()
            reward += game.rewards[me] if answer is None else self._gains()
        return reward

    def _gains(self) -> Any:
        """The caller's reward of the half-turn just played: a float, or a team's ``float64[k]``
        (:meth:`turn` reads one learner's at once)."""
        rewards = self.game.rewards
        if self.controlled != TEAM:
            return rewards[self._me]
        return np.array([rewards[name] for name in self.learners], dtype=np.float64)

    def _carry_out(self, moves: tuple[int, ...]) -> None:
        """One side's moves, each in turn (a team's are held until the last one's)."""
        game = self.game
        for move in moves:
            game.step(move)
            if self.after_half_turn is not None:
                self.after_half_turn()

    def info(self) -> dict[str, Any]:
        """A fresh copy of the caller's info that shares nothing mutable with the AEC env or an
        earlier call (Gymnasium's checker insists, and users keep infos): its arrays are writable
        copies, and nested dicts and lists (the reference infos' estimate, a custom sensor's
        reading) are copied with :func:`detached`. A team's is ghost 0's, with every ghost's
        ``action_mask`` (``int8[k, 4]``)."""
        game = self.game
        pending = game._pending_infos
        if type(pending) is tuple:  # numeric infos not built yet: this side's alone, its arrays copies
            info = game._numeric_infos(pending, self._me)
        else:
            info = dict(game.infos[self._me])
            for key in self._copied_keys:
                value = info.get(key)
                if type(value) in _MUTABLE:
                    info[key] = value.copy() if type(value) is np.ndarray else detached(value)
        if self.controlled == TEAM and "action_mask" in info:
            masks = game.board.action_mask
            info["action_mask"] = np.stack([masks[cell] for cell in game.game_state.ghosts])
        return info

    def over(self) -> bool:
        """Whether the current episode has ended (caught, goal or ``max_cycles``).

        Raises:
            RuntimeError: before the first ``reset``.
        """
        game = self.game
        game.game_state  # noqa: B018 - raises before reset
        return game.terminations[self._me] or game.truncations[self._me]

    def _one_answer(self, state: Any) -> tuple[int]:
        """The one-ghost game's opponent's move in ``state``."""
        if self._table is not None:
            return (self._table[state.agent * self._cells + state.ghosts[0]],)
        # a bad answer is refused by name; the next step asks for a reset
        return (checked_answer(self.policy, self._opponent_view(state), self.opponent_action_space),)  # type: ignore[arg-type]

    def success(self) -> bool:
        """Whether the game ended the way the caller wants (a goal for the agent, a catch for the
        ghosts)."""
        return self.game.game_state.outcome == _SUCCESS[self.controlled]

    def _team_opponent(self, opponent: Any) -> None:
        """Set up a team game's opponent on the current map: the team against a learning agent, or
        the agent against a learning team (see :class:`~gridghost.envs.single_agent.GridGhostGymEnv`);
        against a learning team, a state table of the agent is played from the true state
        (:class:`~gridghost.envs.tables.AgentTable`).

        Raises:
            ValueError, TypeError: an opponent this view does not serve (a NumPy array against a
                learning agent, such as the solver's ``team_policy``, is a ``TypeError`` naming
                ``opponent``); a state table that does not fit the game
                (:class:`~gridghost.envs.tables.AgentTable`), or any state table when the game
                draws a new map at every reset.
        """
        controlled = self.controlled
        # checks a team's actions, on any map: the team's own kernel, or one ghost's played as a team of one
        self._check: Callable[[Any, str], Any] = self.game.kernel.check_joint_action
        if opponent is None:
            opponent = TEAM_DEFAULT_OPPONENTS[controlled]
        table = controlled != AGENT and is_state_table(opponent)
        player = None  # a state table's player, checked before anything changes
        if table:
            if self.game.maps is not None:
                raise ValueError("opponent is a state table of one map, and the game draws a new map at every reset; "
                                 f"pass one of {list(TEAM_OPPONENTS[controlled])} or a policy of observations")
            player = AgentTable(opponent, self.game.kernel)
        else:
            refuse_table(opponent, f"name the team solver's player (one of {list(TEAM_OPPONENTS[controlled])}) or "
                                   "pass a callable policy of observations")
            if isinstance(opponent, str):
                check_choice(opponent, "opponent", TEAM_OPPONENTS[controlled])
            elif controlled == AGENT and not callable(opponent):
                raise TypeError(f"opponent must be one of {list(TEAM_OPPONENTS[controlled])} or a callable, got "
                                f"{opponent!r}")
        planned = table or (isinstance(opponent, str) and opponent in ("minimax", "optimal"))
        # The opponent agent's policy when it is no planner: what the one-ghost view's opponent
        # agents may be (make_policy's kinds), drawing from an action space seeded per reset.
        policy = None
        if controlled != AGENT and not planned:
            policy = make_policy(opponent, self.opponent_action_space, argument="opponent")
        self._table_player, self._planned, self.policy = player, planned, policy
        #: A team game's opponent as given (or its default name).
        self.team_opponent = opponent
        self._player = None
        self._maps = {}  # another opponent: every map's player is built afresh
        self._answer = self._agent_answer if controlled != AGENT else self._team_answer
        self._bind_map()

    def _team_answer(self, state: Any) -> tuple[int, ...]:
        """The opponent team's moves in ``state``, checked before any is carried out."""
        opponent = self.team_opponent
        if opponent == "chase":
            return self.game.kernel.chase_actions(state)
        if opponent == "random":
            rng = cast(np.random.Generator, self._rng)
            return tuple(int(move) for move in rng.integers(NUM_ACTIONS, size=len(self.game.possible_agents) - 1))
        if self._player is not None:
            return self._check(self._player(state), "the opponent's actions")
        observations = {name: observe(state) for name, observe in self._opponent_view.items()}
        return self._check(opponent(observations), "the opponent's actions")

    def _agent_answer(self, state: Any) -> tuple[int]:
        """The opponent agent's answer in ``state`` against a learning team, checked (:func:`checked_answer`)."""
        if self._player is not None:
            return (self._player(state),)
        return (checked_answer(self.policy, self._opponent_view(state), self.opponent_action_space),)  # type: ignore[arg-type]
