"""The opponent pool of self-play: frozen policies (:class:`Snapshot`) of both sides, the record
of each one's results, and the rules that pick an opponent from them (:data:`SAMPLING_RULES`; the
module docstring of :mod:`gridghost.training.selfplay` describes them).
"""

from __future__ import annotations

import copy as copying
import dataclasses
from typing import Any, NamedTuple

import numpy as np

from gridghost.config.opponents import check_opponent_name
from gridghost.core.checks import (
    check_choice,
    check_flag,
    check_floats,
    check_limit,
    check_number,
)
from gridghost.core.names import AGENTS, GHOST, MAX_GHOSTS
from gridghost.core.policies import ChasePolicy
from gridghost.core.rules import NUM_ACTIONS, SIDE_OF
from gridghost.planning import (
    StatePolicy,
)

#: How a pool picks an opponent (see the module docstring).
SAMPLING_RULES: tuple[str, ...] = ("latest", "recent", "uniform", "prioritised")
#: A game's result from the learner's point of view; a draw is a game cut by the step limit.
RESULTS: tuple[str, ...] = ("win", "loss", "draw")


def check_window(window: object) -> int:
    """``window`` if it is a recent rule's window, an int >= 1.

    Raises:
        TypeError: not an int (bools and floats included).
        ValueError: an int < 1.
    """
    return check_limit(window, "window", allow_none=False)


@dataclasses.dataclass(frozen=True)
class Snapshot:
    """One frozen policy in an :class:`OpponentPool`.

    Attributes:
        name: its name in the pool, unique.
        side: ``"agent"`` or ``"ghost"``, the side it plays.
        generation: its generation index (0, 1, ... per side unless given).
        policy: the policy: a name, a class, a deep copy of a callable (or the object itself when
            added with ``copy=False``), a :class:`~gridghost.planning.StatePolicy`, or a read-only
            ``float64[rows, cols, rows, cols, 4]`` array of probabilities (``(rows, cols) * (k + 1)
            + (4,)`` for a game of ``k`` ghosts). Nothing gridghost does
            changes it: every :class:`SelfPlayEnv` plays a deep copy of its own, and
            :func:`exploitability_curve` tabulates a copy.
        shared: the policy is the caller's object itself (added with ``copy=False``): it cannot be
            copied, so every env plays that one object, and it is not frozen.
    """

    name: str
    side: str
    generation: int
    policy: Any = dataclasses.field(repr=False)
    shared: bool = dataclasses.field(default=False, repr=False)

    def playable_copy(self) -> Any:
        """A copy of :attr:`policy` to play, so that playing (and reseeding) it leaves the
        snapshot as it was: a deep copy of a policy object; a name, a class or a table as it is
        (each is built afresh where it plays); the object itself when :attr:`shared`.

        Raises:
            TypeError: the policy can no longer be deep-copied.
        """
        policy = self.policy
        if self.shared or isinstance(policy, (str, type, np.ndarray)):
            return policy
        try:
            return copying.deepcopy(policy)
        except Exception as error:  # deepcopy raises whatever the object's __deepcopy__/__reduce__ does
            raise TypeError(f"snapshot {self.name!r}'s policy {policy!r} cannot be deep-copied "
                            f"({type(error).__name__}: {error}); add it with copy=False to keep the object itself "
                            "(it is then not frozen)") from error

    @property
    def tabulated(self) -> bool:
        """Whether the policy is a table of the state (a :class:`~gridghost.planning.StatePolicy` or
        probabilities), so that the solver can judge it without tabulating it first."""
        return isinstance(self.policy, (StatePolicy, np.ndarray))


class Results(NamedTuple):
    """The games a learner played against one opponent: ``games == wins + losses + draws``."""

    games: int
    wins: int
    losses: int
    draws: int


def _probability_table(values: Any, argument: str) -> np.ndarray:
    """``values`` as a read-only copy of a tabulated policy of a game of ``k`` ghosts (1 to 4),
    ``(rows, cols) * (k + 1) + (4,)``: probabilities that sum to 1 in each state (or are all 0,
    where the game is over). An int array of actions per state, ``(rows, cols) * (k + 1)``
    (-1 where the game is over, as in the solver's policies), becomes its one-hot probabilities."""
    array = np.asarray(values) if isinstance(values, np.ndarray) else None
    if array is not None and np.issubdtype(array.dtype, np.integer) and array.dtype != bool and array.ndim % 2 == 0:
        if _table_shape(array.shape) is None:
            raise ValueError(f"{argument} must hold actions per state, shape (rows, cols) * (ghosts + 1) for 1 to "
                             f"{MAX_GHOSTS} ghosts, got {array.shape}")
        if array.size and (array.min() < -1 or array.max() >= NUM_ACTIONS):
            raise ValueError(f"{argument} must hold actions 0..{NUM_ACTIONS - 1} (-1 where the game is over)")
        table = np.eye(NUM_ACTIONS + 1)[array, :NUM_ACTIONS]  # -1 picks the last row: all 0
        table.setflags(write=False)
        return table
    table = check_floats(values, argument, "a table of probabilities (real numbers)")
    shape = table.shape
    if shape[-1:] != (NUM_ACTIONS,) or _table_shape(shape[:-1]) is None:
        raise ValueError(f"{argument} must have shape (rows, cols, rows, cols, {NUM_ACTIONS}) for one ghost, "
                         f"(rows, cols) * (ghosts + 1) + ({NUM_ACTIONS},) for up to {MAX_GHOSTS}; got {shape}")
    if not np.isfinite(table).all() or (table < 0).any():
        raise ValueError(f"{argument} must hold finite probabilities >= 0")
    sums = table.sum(axis=-1)
    if not (np.isclose(sums, 1.0, rtol=0, atol=1e-6) | (sums == 0)).all():
        raise ValueError(f"{argument}'s probabilities must sum to 1 in every state (0 where the game is over)")
    table.setflags(write=False)
    return table


def _table_shape(shape: tuple[int, ...]) -> tuple[tuple[int, int], int] | None:
    """The map's ``(rows, cols)`` and the number of ghosts of a state table's ``shape`` (a
    ``(rows, cols)`` pair per player), or ``None`` when it is no such shape."""
    pairs = len(shape) // 2 - 1
    if len(shape) % 2 or not 1 <= pairs <= MAX_GHOSTS or shape[:2] * (pairs + 1) != shape:
        return None
    return (shape[0], shape[1]), pairs


def table_ghosts(table: np.ndarray) -> int:
    """The number of ghosts of the game a pool's table of probabilities was made for (what
    :meth:`OpponentPool.add` keeps: ``(rows, cols) * (k + 1) + (4,)``)."""
    return (table.ndim - 1) // 2 - 1


class OpponentPool:
    """Frozen snapshots of both sides, the rules that draw opponents from them, and each
    opponent's record against the learner.

    Args:
        prior: pseudo-games added to every opponent's record, half won and half lost, so that the
            win rate of an unplayed opponent is 0.5 rather than 0/0 (a Beta(prior/2, prior/2)
            prior); a float > 0.

    Raises:
        TypeError, ValueError: ``prior`` is not a finite number > 0.
    """

    def __init__(self, prior: float = 1.0) -> None:
        self.prior = check_number(prior, "prior", 0.0, strict=True)
        self._snapshots: dict[str, Snapshot] = {}
        self._records: dict[str, list[int]] = {}  # name -> [wins, losses, draws]

    def __len__(self) -> int:
        return len(self._snapshots)

    def __contains__(self, name: object) -> bool:
        return name in self._snapshots

    def __getitem__(self, name: str) -> Snapshot:
        if name not in self._snapshots:
            raise KeyError(f"no snapshot named {name!r} in the pool; it holds {list(self._snapshots)}")
        return self._snapshots[name]

    def __repr__(self) -> str:
        return f"OpponentPool({list(self._snapshots)}, prior={self.prior:g})"

    def add(self, policy: Any, side: str, *, name: str | None = None, generation: int | None = None,
            copy: bool = True) -> Snapshot:
        """Freeze ``policy`` into the pool as a snapshot of ``side``.

        Args:
            policy: a policy name (``"chase"``, ``"random"``, ``"minimax"``, ``"optimal"``), a
                class (a :class:`~gridghost.planning.StatePolicy` subclass, or a reference-style class
                built with an action space), a callable ``policy(observation) -> action`` or an
                object with ``get_action(observation)``, a :class:`~gridghost.planning.StatePolicy`,
                or probabilities ``(rows, cols, rows, cols, 4)`` (a tabulated policy; always
                copied); for a game of ``k`` ghosts ``(rows, cols) * (k + 1) + (4,)``, or an int
                array of the agent's actions per joint state, ``(rows, cols) * (k + 1)`` with -1
                where the game is over (the solver's ``agent_policy``), kept as its one-hot
                probabilities.
            side: the side it plays, ``"agent"`` or ``"ghost"``.
            name: its unique name; ``None`` means ``"<side>-<generation>"``.
            generation: its generation; ``None`` means one more than the side's highest so far
                (0 for the first).
            copy: deep-copy a policy object, so that training the live policy later does not change
                the snapshot. Pass ``False`` for objects that cannot be deep-copied (a model bound
                to a device, say): the pool then keeps the object itself, which is *not* frozen,
                and later training changes what the snapshot plays.

        Returns:
            The new :class:`Snapshot`.

        Raises:
            ValueError: an unknown side or policy name, a policy of the other side, a name already
                in the pool, a generation < 0, or a probability array of the wrong shape or not
                holding probabilities.
            TypeError: ``policy`` is none of the accepted kinds, cannot be deep-copied (with
                ``copy=True``), or ``name``, ``generation`` or ``copy`` is of the wrong type.
        """
        check_choice(side, "side", AGENTS)
        check_flag(copy, "copy")
        if generation is None:
            generation = 1 + max((s.generation for s in self._snapshots.values() if s.side == side), default=-1)
        elif isinstance(generation, bool) or not isinstance(generation, (int, np.integer)):
            raise TypeError(f"generation must be an int >= 0 or None, got {generation!r}")
        elif generation < 0:
            raise ValueError(f"generation must be an int >= 0 or None, got {generation}")
        if name is None:
            name = f"{side}-{generation}"
        if not isinstance(name, str) or not name:
            raise TypeError(f"name must be a non-empty str or None, got {name!r}")
        if name in self._snapshots:
            raise ValueError(f"name {name!r} is already in the pool; snapshot names are unique")
        frozen = self._freeze(policy, side)
        shared = not copy and frozen is policy and not isinstance(policy, (str, type))
        snapshot = Snapshot(name, side, int(generation), frozen, shared)
        if copy:  # the snapshot's own copy, made as every env's is
            snapshot = dataclasses.replace(snapshot, policy=snapshot.playable_copy())
        self._snapshots[name] = snapshot
        self._records[name] = [0, 0, 0]
        return snapshot

    @staticmethod
    def _freeze(policy: Any, side: str) -> Any:
        if isinstance(policy, str):
            return check_opponent_name(policy, SIDE_OF[side], "policy")
        if isinstance(policy, (np.ndarray, list, tuple)):
            return _probability_table(policy, "policy")
        if isinstance(policy, StatePolicy) and policy.side != SIDE_OF[side]:
            raise ValueError(f"policy {policy!r} plays the {policy.side.name.lower()}, not the {side}")
        if isinstance(policy, ChasePolicy) and side != GHOST:
            raise ValueError(f"policy {policy!r} is the chasing ghost; it cannot play the {side}")
        if isinstance(policy, type):
            return policy  # a class holds no trained state: it is built afresh where it plays
        if not (callable(policy) or callable(getattr(policy, "get_action", None))):
            raise TypeError(f"policy must be a policy name, a callable policy(observation) -> action, an object with "
                            f"get_action, a StatePolicy or probabilities (rows, cols, rows, cols, 4); got {policy!r}")
        return policy

    def snapshots(self, side: str | None = None) -> tuple[Snapshot, ...]:
        """The snapshots in the order they were added, of ``side`` only when given.

        Raises:
            ValueError: ``side`` is not ``"agent"``, ``"ghost"`` or ``None``.
        """
        check_choice(side, "side", AGENTS, allow_none=True)
        return tuple(s for s in self._snapshots.values() if side is None or s.side == side)

    # -- bookkeeping -------------------------------------------------------------------------------
    def record(self, name: str, result: str) -> None:
        """Count one game of the learner against opponent ``name``.

        Args:
            name: the opponent's snapshot name.
            result: the learner's result, one of :data:`RESULTS`.

        Raises:
            KeyError: no snapshot of that name.
            ValueError: an unknown result.
        """
        check_choice(result, "result", RESULTS)
        self[name]  # raises for an unknown name
        self._records[name][RESULTS.index(result)] += 1

    def results(self, name: str) -> Results:
        """The games counted against opponent ``name`` (no prior).

        Raises:
            KeyError: no snapshot of that name.
        """
        self[name]  # raises for an unknown name
        wins, losses, draws = self._records[name]
        return Results(wins + losses + draws, wins, losses, draws)

    def win_rate(self, name: str) -> float:
        """The learner's win rate against opponent ``name``, with draws as half a win (as in Elo
        scores) and :attr:`prior` pseudo-games, half won: ``(wins + draws / 2 + prior / 2) /
        (games + prior)``, in (0, 1); 0.5 for an unplayed opponent.

        Raises:
            KeyError: no snapshot of that name.
        """
        games, wins, _, draws = self.results(name)
        return (wins + 0.5 * draws + 0.5 * self.prior) / (games + self.prior)

    # -- sampling ----------------------------------------------------------------------------------
    def probabilities(self, side: str, rule: str = "uniform", exponent: float = 2.0, window: int = 3) -> np.ndarray:
        """The probability of drawing each snapshot of ``side`` (in :meth:`snapshots` order).

        Args:
            side: the opponent's side.
            rule: one of :data:`SAMPLING_RULES`.
            exponent: the prioritised rule's ``p`` in ``(1 - win_rate) ** p``, a finite number >= 0
                (any: the weights are computed without underflow; where every ``1 - win_rate`` is
                0, the snapshots are drawn uniformly).
            window: the recent rule's number of snapshots, an int >= 1 (all of them when the side
                has fewer); the highest generations, among equals the last added.

        Raises:
            ValueError: an unknown side or rule, a negative ``exponent``, a ``window`` < 1, or no
                snapshot of ``side``.
            TypeError: ``exponent`` is not a number, ``window`` not an int.
        """
        check_choice(rule, "rule", SAMPLING_RULES)
        exponent = check_number(exponent, "exponent")
        window = check_window(window)
        snapshots = self.snapshots(side)
        if not snapshots:
            raise ValueError(f"the pool holds no snapshot of the {side} to draw")
        if rule in ("latest", "recent"):  # the latest is the recent window of one
            weights = np.zeros(len(snapshots))
            # a stable sort by generation: among equals, the last added ranks highest
            order = sorted(range(len(snapshots)), key=lambda i: (snapshots[i].generation, i))
            weights[order[-(1 if rule == "latest" else window):]] = 1.0
        elif rule == "uniform":
            weights = np.ones(len(snapshots))
        else:
            # (1 - w) ** p, scaled by the largest base first: the same ratios, and no underflow to
            # 0 / 0 for a large p (the largest weight is exactly 1).
            base = 1.0 - np.array([self.win_rate(s.name) for s in snapshots])
            top = base.max()
            # Every base 0 (a win rate rounded to 1): all alike, drawn uniformly.
            weights = np.ones(len(snapshots)) if top <= 0.0 else (base / top) ** exponent
        return weights / weights.sum()

    def sample(self, side: str, rng: np.random.Generator, rule: str = "uniform", exponent: float = 2.0,
               window: int = 3) -> Snapshot:
        """Draw an opponent of ``side`` with ``rng`` (one draw, whatever the rule).

        Raises:
            TypeError: ``rng`` is not a ``numpy.random.Generator``; as :meth:`probabilities`.
            ValueError: as :meth:`probabilities`.
        """
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator, got {rng!r}")
        probabilities = self.probabilities(side, rule, exponent, window)
        return self.snapshots(side)[int(rng.choice(len(probabilities), p=probabilities))]

