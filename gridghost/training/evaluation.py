"""The evaluation protocol: a learned policy's exact scores on a set of levels, next to the optimum.

:func:`evaluate` asks a policy of observations once per state of each level
(:func:`~gridghost.planning.tabulate_policy`, any encoding) and lets the solver play the table
against the opponent: no episodes are sampled, so two runs of the same policy give the same
numbers, and a score's spread is the spread over levels and training seeds only.

Per level it gives, from the level's starts and within ``horizon`` turns (the envs' 100 by
default), undiscounted as the envs pay:

- the policy's expected return, its probability of reaching a goal and of being caught;
- the best return any policy gets against the same opponent (the *optimum*, a finite-horizon
  best response), and the zero-sum game's minimax value;
- the return of the uniformly random policy;
- the *normalised score* ``(return - random) / (optimum - random)``: 0 is random play, 1 is
  optimal against this opponent. It does not depend on the reward scale.

The same protocol scores a team of ``k`` ghosts (``ghosts=k``): the ``"ghost"`` side is then the
team, one player whose move is every ghost's. The team's return is the agent's negated (the game
is zero-sum), its optimum the team's best response, ``random`` the team of uniformly random
ghosts, and ``caught`` the probability that any ghost catches the agent.

The levels of a difficulty preset are split once, in :data:`gridghost.maps.SPLITS`; evaluate
on ``level_split(d, "train")`` and ``level_split(d, "test")`` (held out).

>>> from gridghost.maps import level_split
>>> result = evaluate("random", level_split(0, "test", num_levels=2), obs_type="vector")
>>> result.score.round(6).tolist()      # random play scores 0 by definition
[0.0, 0.0]
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from gridghost.config.opponents import DEFAULT_OPPONENTS, check_opponent_name, planned_opponent, solver_policy
from gridghost.config.settings import GameSpec, engine_spec
from gridghost.core.checks import check_choice, check_flag, check_instance, check_limit
from gridghost.core.game import Game
from gridghost.core.layout import CLASSIC, Layout
from gridghost.core.names import AGENT, AGENTS
from gridghost.core.progress import make_bar
from gridghost.core.rules import SIDE_OF, Side
from gridghost.maps.levels import MapGenerator
from gridghost.planning import (
    NAMED_POLICIES,
    AgentSolution,
    GhostSolution,
    StatePolicy,
    evaluate_policies,
    solve_agent,
    solve_game,
    solve_ghost,
    tabulate_policy,
)
from gridghost.planning.tabulate import StateObservations

#: Below this gap between the optimum and random play a level cannot tell policies apart; its
#: normalised score is 1 for a policy at the optimum (within the gap) and NaN otherwise.
_FLAT = 1e-9

logger = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Evaluation:
    """A policy's exact scores on a set of levels (:func:`evaluate`). Returns are the evaluated
    side's, in the units of the rewards evaluated with; every array has one entry per level (a
    team of ghosts' columns read as the module docstring says).

    Attributes:
        side: the evaluated side (``"ghost"``: the ghost, or the team).
        levels: the level numbers (``-1`` for maps given as layouts).
        returns: the policy's expected return.
        success: the probability that the agent reaches a goal.
        caught: the probability that the ghost (any ghost of a team) catches the agent.
        optimum: the best return against the same opponent (a best response).
        optimum_success: the agent's goal probability under that best response (for a ghost, the
            goal probability the best ghost leaves the agent).
        minimax: the zero-sum game's value, as the evaluated side's return.
        random: the return of the uniformly random policy against the same opponent.
        score: the normalised score ``(returns - random) / (optimum - random)``.
        ghosts: the number of ghosts of the levels' games.
    """

    side: str
    levels: np.ndarray
    returns: np.ndarray
    success: np.ndarray
    caught: np.ndarray
    optimum: np.ndarray
    optimum_success: np.ndarray
    minimax: np.ndarray
    random: np.ndarray
    score: np.ndarray
    ghosts: int = 1

    def summary(self) -> dict[str, float]:
        """The means over the levels (and the score's standard deviation, ``score_std``).

        Returns:
            ``{"score", "score_std", "returns", "success", "caught", "optimum",
            "optimum_success", "minimax", "random", "levels"}``.
        """
        means = {name: float(np.mean(getattr(self, name))) for name in
                 ("score", "returns", "success", "caught", "optimum", "optimum_success", "minimax", "random")}
        return {**means, "score_std": float(np.std(self.score)), "levels": float(len(self.levels))}

    def __str__(self) -> str:
        mean = self.summary()
        side = self.side if self.ghosts == 1 else f"team of {self.ghosts} ghosts"
        return (f"{side} on {len(self.levels)} levels: normalised score {mean['score']:.3f} "
                f"(sd {mean['score_std']:.3f}), success {mean['success']:.3f} (optimum "
                f"{mean['optimum_success']:.3f}), caught {mean['caught']:.3f}, return {mean['returns']:.3f} "
                f"(optimum {mean['optimum']:.3f}, minimax {mean['minimax']:.3f}, random {mean['random']:.3f})")


class Evaluator:
    """The evaluation protocol on fixed levels, for many policies: everything that does not
    depend on the policy (each level's game, the opponent, the best response, random play, the
    minimax value and the observation of every state) is computed once, so that scoring a
    learning curve's checkpoints costs only each policy's own evaluation. :func:`evaluate` is
    one call of it.

    Args:
        levels, side, opponent, belief, horizon, spec, **settings: as :func:`evaluate` takes them.
        progress_bar: draw a progress bar over the levels on stderr while the levels are solved
            here and while each policy is scored (see :func:`evaluate`).

    Raises:
        TypeError, ValueError: as :func:`evaluate`.
    """

    def __init__(
        self,
        levels: Layout | Sequence[Layout] | MapGenerator | None = None,
        *,
        side: str = AGENT,
        opponent: Any = None,
        belief: str | None = None,
        horizon: int = 100,
        progress_bar: bool = False,
        spec: GameSpec | Mapping[str, Any] | None = None,
        **settings: Any,
    ) -> None:
        check_choice(side, "side", AGENTS)
        self.progress_bar = check_flag(progress_bar, "progress_bar")
        self.side, self.horizon = side, check_limit(horizon, "horizon", allow_none=False)
        maps, self.levels = _levels(levels)
        settings_of = engine_spec("evaluate", spec, settings)
        self._learner = SIDE_OF[side]
        other = Side(1 - self._learner)
        if opponent is None:
            opponent = DEFAULT_OPPONENTS[side]
        encoding = settings_of.encoder_options()
        del encoding["max_cycles"]  # the states are asked without a clock: horizon bounds the episode
        self._encoding: dict[str, Any] = {"obs_type": settings_of.obs_type, "belief": belief, **encoding}
        self.ghosts = settings_of.ghosts
        self._team = self.ghosts > 1 and self._learner == Side.GHOST  # the learner is a team of ghosts
        self._sign = 1.0 if self._learner == Side.AGENT else -1.0  # zero-sum: the ghost's return is -the agent's
        self._games: list[_Level] = []
        self._observed: dict[int, StateObservations] = {}  # a level's states, once a policy of observations needs them
        fixed = []
        with make_bar(self.progress_bar, len(maps), "solving levels", "level") as bar:
            for layout in maps:
                fixed.append(self._prepare(layout, settings_of, opponent, other))
                bar.update()
        logger.debug("evaluation set up on %d levels for the %s", len(maps), side)
        self.optimum, self.optimum_success, self.minimax, self.random = (
            np.array(column, dtype=float) for column in zip(*fixed, strict=True))
        if not self._team:
            self._states(0)  # checks the encoding's options now, not at the first policy

    def _prepare(self, layout: Layout, settings_of: Any, opponent: Any, other: Side) -> tuple[float, ...]:
        """Build ``layout``'s level (its game and the opponent planned on it) and return what does
        not depend on the policy: the best response's return and success, the minimax value and
        random play's return."""
        game = settings_of.game(layout)
        them = _planned(opponent, game, other, "opponent")
        settings = self._settings(game)
        best: AgentSolution | GhostSolution = (
            solve_agent(ghost=them, **settings) if self._learner == Side.AGENT else solve_ghost(agent=them, **settings))
        chance = evaluate_policies(*self._pair("random", them), **settings)
        start = best.start
        self._games.append(_Level(game, them, start))
        return (best.value(*start),  # the best response's own return
                best.success_probability(*start, horizon=self.horizon),
                self._sign * solve_game(**settings).value(*start), self._sign * chance.value(*start))

    def _settings(self, game: Game) -> dict[str, Any]:
        return {"game": game, "gamma": 1.0, "horizon": self.horizon}

    def _pair(self, mine: Any, them: Any) -> tuple[Any, Any]:
        """The learner's policy and the opponent's as the solver takes them: the agent's first."""
        return (mine, them) if self._learner == Side.AGENT else (them, mine)

    def _states(self, index: int) -> StateObservations:
        if index not in self._observed:
            self._observed[index] = StateObservations(self._games[index].game, self.side, **self._encoding)
        return self._observed[index]

    def __call__(self, policy: Any, *, batch: bool = False, stochastic: bool = False, centralised: bool = False,
                 view: str = "gym") -> Evaluation:
        """Score ``policy`` on every level (see :func:`evaluate` for ``policy``, ``batch``,
        ``stochastic``, ``centralised`` and ``view``).

        Returns:
            The :class:`Evaluation`.

        Raises:
            TypeError, ValueError: a policy the solver or :func:`~gridghost.planning.tabulate_policy`
                refuses.
        """
        if not self._team and (centralised or view != "gym"):
            raise ValueError(f"centralised and view apply to a team of ghosts' policy (side='ghost', ghosts >= 2); "
                             f"got centralised={centralised!r}, view={view!r} for the {self.side} of "
                             f"{self.ghosts} ghost(s)")
        rows = []
        with make_bar(self.progress_bar, len(self._games), "evaluating", "level") as bar:
            for index, level in enumerate(self._games):
                rows.append(self._score(index, level, policy, (batch, stochastic, centralised, view)))
                bar.update()
        returns, success, caught = (np.array(column, dtype=float) for column in zip(*rows, strict=True))
        gap = self.optimum - self.random
        score = np.where(gap > _FLAT, (returns - self.random) / np.where(gap > _FLAT, gap, 1.0),
                         np.where(returns >= self.optimum - _FLAT, 1.0, np.nan))
        return Evaluation(self.side, self.levels, returns, success, caught, self.optimum, self.optimum_success,
                          self.minimax, self.random, score, self.ghosts)

    def _score(self, index: int, level: _Level, policy: Any, asking: tuple[bool, bool, bool, str]) -> tuple[float, ...]:
        """``policy``'s return, success and capture probabilities on level ``index``; ``asking``
        is ``(batch, stochastic, centralised, view)``."""
        table: Any
        batch, stochastic, centralised, view = asking
        if isinstance(policy, (str, type, StatePolicy)):
            table = _planned(policy, level.game, self._learner, "policy")  # built for this game
        elif self._team and (callable(policy) or (isinstance(policy, Sequence) and bool(policy)
                             and all(callable(one) for one in policy))):  # a team's states are asked per call
            table = tabulate_policy(policy, self.side, batch=batch, stochastic=stochastic, game=level.game,
                                    centralised=centralised, view=view, **self._encoding)
        elif callable(policy):
            table = self._states(index).tabulate(policy, batch=batch, stochastic=stochastic)
        else:
            table = policy  # probabilities: the solver reads them (and refuses what it cannot)
        mine = evaluate_policies(*self._pair(table, level.them), **self._settings(level.game))
        return (self._sign * mine.value(*level.start), mine.success_probability(*level.start, horizon=self.horizon),
                mine.capture_probability(*level.start, horizon=self.horizon))


def _planned(policy: Any, game: Game, side: Side, argument: str) -> Any:
    """``policy`` as the solver takes it on ``game`` for ``side``: a solver player's name as the
    team views play it (:func:`~gridghost.config.opponents.solver_policy`), a planner's class
    built for this game, else as given.

    Raises:
        ValueError: a name that does not play ``side``; TypeError: a state policy that does not fit.
    """
    if isinstance(policy, str) and policy in NAMED_POLICIES:
        return solver_policy(game, check_opponent_name(policy, side, argument), side)
    planned = planned_opponent(policy, game, side, argument)
    return policy if planned is None else planned


class _Level(NamedTuple):
    game: Game
    them: Any  # the opponent as the solver takes it
    start: tuple[Any, Any]


def evaluate(
    policy: Any,
    levels: Layout | Sequence[Layout] | MapGenerator | None = None,
    *,
    side: str = AGENT,
    opponent: Any = None,
    belief: str | None = None,
    batch: bool = False,
    stochastic: bool = False,
    centralised: bool = False,
    view: str = "gym",
    horizon: int = 100,
    progress_bar: bool = False,
    spec: GameSpec | Mapping[str, Any] | None = None,
    **settings: Any,
) -> Evaluation:
    """A policy's exact scores on every level of ``levels`` (see the module docstring). To score
    many policies on the same levels (a learning curve), build an :class:`Evaluator` once.

    For a Stable-Baselines3 model trained on ``gymnasium.make(ENV_ID, **settings)`` (say
    ``settings = dict(obs_type="grid", difficulty=2)``), pass the same settings, less the map::

        def policy(obs):
            return model.predict(obs, deterministic=True)[0]

        result = evaluate(policy, level_split(2, "test"), obs_type="grid", batch=True)
        print(result)                      # the means; result.score per level

    Args:
        policy: ``policy(observation) -> action`` (or probabilities, or batched: see
            :func:`~gridghost.planning.tabulate_policy`); or a state policy the solver takes
            directly (``"random"``, a :class:`~gridghost.planning.StatePolicy`, a solver player's
            name such as ``"minimax"``), which skips the tabulation. For a team of ghosts
            (``side="ghost"``, ``ghosts=k >= 2``): the forms
            :func:`~gridghost.planning.tabulate_policy` takes for a team (``batch=True``): one
            policy of stacked observations shared by every ghost, ``k`` of them (one per ghost),
            or one centralised policy; or a state policy of the team (a name, or an array such
            as a :class:`~gridghost.planning.GameSolution`'s ``team_policy``).
        levels: a map, a sequence of maps, or a :class:`~gridghost.maps.MapGenerator` with
            ``num_levels`` (every level of it, such as ``level_split(2, "test")``); ``None``
            means the classic map. A team plays its ghosts from each map's first ``k`` ghost
            starts (a ``MapGenerator(..., ghosts=k)``, or a team map).
        side: the policy's side, ``"agent"`` or ``"ghost"`` (the ghost, or the team).
        opponent: the other side, as the envs take it: a name (``"chase"``, ``"random"``,
            ``"minimax"``, ``"optimal"``), a :class:`~gridghost.planning.StatePolicy` or its
            class; ``None`` means the envs' default (the chasing ghost, or every ghost of a team
            chasing, against an agent; the random agent against the ghosts). A planner is built
            per level, with these rewards; a team's ``"minimax"`` (either side) and
            ``"optimal"`` (the agent's best response to the chasing team) are the team
            solver's, as the team views play them.
        belief, batch, stochastic, centralised, view: how to ask the policy, as
            :func:`~gridghost.planning.tabulate_policy` takes them (``centralised`` and
            ``view``, ``"gym"``, ``"aec"`` or ``"parallel"``, for a team only).
        horizon: the turns an episode lasts at most (the envs' ``max_cycles``), an int >= 1.
        progress_bar: draw progress bars with an ETA on stderr, one while the levels are solved
            and one while the policy is scored on them (worth it from some tens of levels).
        spec, **settings: the game's settings the policy was trained with, as the envs take them
            (:class:`~gridghost.config.settings.GameSpec`), with the Gymnasium views' defaults
            (:data:`~gridghost.config.TRAINER_DEFAULTS`: ``obs_type="vector"``,
            ``rewards="normalised"``): the encoding and its options say how to ask the policy;
            ``ghosts`` the team's size (``ghost_credit`` splits a capture among the ghosts and
            leaves the team's return, the one scored, as it is);
            ``slip`` and ``rewards`` set each level's game (the rewards set the units of the
            returns only: the normalised score, the success and the caught rates are the same for
            both presets). The settings the exact evaluation does not read (``layout``: pass
            ``levels``; ``max_cycles``: pass ``horizon``; sensors, an expert, ...) are declared
            as not served and refused.

    Returns:
        The :class:`Evaluation`.

    Raises:
        TypeError, ValueError: a bad argument (``progress_bar`` not a bool included); ``levels``
            an unbounded generator (give it ``num_levels``) or an empty sequence; ``ghosts`` more
            than a level's ghost starts; an opponent that cannot play the other side;
            ``centralised`` or ``view`` for one ghost; anything
            :func:`~gridghost.planning.tabulate_policy` refuses (a team's policy of the wrong
            arity, an agent's policy of observations against a team).
    """
    evaluator = Evaluator(levels, side=side, opponent=opponent, belief=belief, horizon=horizon,
                          progress_bar=progress_bar, spec=spec, **settings)
    return evaluator(policy, batch=batch, stochastic=stochastic, centralised=centralised, view=view)


def _levels(levels: Any) -> tuple[list[Layout], np.ndarray]:
    """The maps of ``levels`` and their level numbers (-1 for a map given as a layout)."""
    if levels is None or isinstance(levels, Layout):
        return [CLASSIC if levels is None else levels], np.array([-1])
    if isinstance(levels, MapGenerator):
        if levels.num_levels is None:
            raise ValueError("levels is an unbounded MapGenerator; give it num_levels (or use "
                             "gridghost.maps.level_split(d, 'train' or 'test'))")
        numbers = np.arange(levels.start_level, levels.start_level + levels.num_levels)
        return [levels.level(int(i)) for i in numbers], numbers
    if isinstance(levels, (str, bytes)) or not isinstance(levels, Sequence):
        raise TypeError(f"levels must be a Layout, a sequence of them or a MapGenerator, got {levels!r}")
    maps = [check_instance(layout, f"levels[{i}]", Layout) for i, layout in enumerate(levels)]
    if not maps:
        raise ValueError("levels is empty; give at least one map")
    return maps, np.full(len(maps), -1)
