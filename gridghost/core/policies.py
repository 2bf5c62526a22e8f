"""Scripted policies for either side.

A policy of observations is any callable ``policy(observation) -> action`` (:func:`make_policy`
makes one of a name or a reference-style agent); a policy of states reads the game state itself,
as the chasing ghost's table :attr:`gridghost.core.game.Game.chase_table` does. :class:`ChasePolicy`
is that rule read from the ghost's observation.

>>> chase = ChasePolicy()
>>> chase({"agent_relative_pos": [-2, 1],
...        "neighbors": {"up": {"accessible": 1}, "right": {"accessible": 1},
...                      "down": {"accessible": 0}, "left": {"accessible": 1}}})
3
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np
from gymnasium import spaces

from gridghost.core.checks import check_choice, check_limit, check_seed
from gridghost.core.rules import ACTION_NAMES, NUM_ACTIONS, Action, Board, read_only


@runtime_checkable
class Policy(Protocol):
    """Anything that maps an observation to an action."""

    def __call__(self, observation: Any) -> int:
        """Choose an action for ``observation``."""
        ...


#: The chasing ghost's fallback order when no move toward the agent is open.
CHASE_FALLBACK: tuple[Action, ...] = (Action.UP, Action.RIGHT, Action.DOWN, Action.LEFT)


def chase_rule(dr: int, dc: int, open_: tuple[bool, bool, bool, bool]) -> int:
    """The chasing ghost's rule, the one both :class:`ChasePolicy` (from the ghost's observation)
    and :func:`gridghost.core.game.chase_table` (for every pair of cells at once) apply.

    Args:
        dr, dc: the agent's position minus the ghost's.
        open_: per action (left, down, right, up), whether that move changes the ghost's cell.

    Returns:
        If ``|dr| >= |dc|`` the vertical move toward the agent when it is open, else the
        horizontal one when open (the other way round if ``|dr| < |dc|``); failing both the
        first open move of up, right, down, left; failing all, left.

    >>> chase_rule(-2, 1, (True, False, True, True))
    3
    """
    vertical = Action.DOWN if dr > 0 else Action.UP if dr < 0 else None
    horizontal = Action.RIGHT if dc > 0 else Action.LEFT if dc < 0 else None
    preferred = (vertical, horizontal) if abs(dr) >= abs(dc) else (horizontal, vertical)
    for move in preferred:
        if move is not None and open_[move]:
            return int(move)
    for move in CHASE_FALLBACK:
        if open_[move]:
            return int(move)
    return int(Action.LEFT)


class ChasePolicy:
    """The reference's chasing ghost, from the ghost's own dict observation: :func:`chase_rule`
    with ``(dr, dc) = agent_relative_pos`` and the neighbours' ``accessible`` flags."""

    def __call__(self, observation: Mapping[str, Any]) -> int:
        """The chasing move for a ghost observation.

        Raises:
            ValueError: ``observation`` is not a ghost dict observation.
        """
        try:
            dr, dc = (int(v) for v in observation["agent_relative_pos"])
            neighbours = observation["neighbors"]
            open_ = tuple(bool(neighbours[name]["accessible"]) for name in ACTION_NAMES)  # in action order
        except (KeyError, IndexError, TypeError, ValueError):
            raise ValueError(
                "ChasePolicy reads the ghost's dict observation (agent_relative_pos, neighbors); "
                f"got {observation!r}"
            ) from None
        return chase_rule(dr, dc, open_)  # type: ignore[arg-type]

    def __repr__(self) -> str:
        return "ChasePolicy()"


class RandomPolicy:
    """Uniformly random actions from its own seeded generator.

    Args:
        seed: seeds the generator; ``None`` draws fresh entropy.
        num_actions: the number of actions to choose from.

    Raises:
        TypeError, ValueError: ``seed`` is not None or an int >= 0, or ``num_actions`` is not an
            int >= 1.
    """

    def __init__(self, seed: int | None = None, num_actions: int = NUM_ACTIONS) -> None:
        self.num_actions = check_limit(num_actions, "num_actions", allow_none=False)
        self.rng = np.random.default_rng(check_seed(seed))

    def seed(self, seed: int | None) -> None:
        """Restart the generator from ``seed``.

        Raises:
            TypeError, ValueError: ``seed`` is not None or an int >= 0.
        """
        self.rng = np.random.default_rng(check_seed(seed))

    def __call__(self, observation: Any) -> int:
        """A uniformly random action; ``observation`` is not read."""
        return int(self.rng.integers(self.num_actions))

    def __repr__(self) -> str:
        return f"RandomPolicy(num_actions={self.num_actions})"


class ReferencePolicy:
    """Adapts a reference-style agent (an object with ``get_action(observation)``) to a policy.

    Args:
        agent: the object to ask.
    """

    def __init__(self, agent: Any) -> None:
        self.agent = agent

    def __call__(self, observation: Any) -> int:
        """The wrapped agent's action for ``observation``."""
        return self.agent.get_action(observation)

    def seed(self, seed: int | None) -> None:
        """Reseed the wrapped agent through its own ``seed(seed)``, as callers that reseed
        policies expect of any wrapper. An agent without a ``seed`` method has nothing this
        wrapper can reach (one drawing from the action space it was built with is seeded through
        that space).
        """
        reseed = getattr(self.agent, "seed", None)
        if callable(reseed):
            reseed(seed)

    def __repr__(self) -> str:
        return f"ReferencePolicy({self.agent!r})"


POLICY_NAMES: dict[str, Callable[..., Policy]] = {"chase": ChasePolicy, "random": RandomPolicy}


def make_policy(spec: Any, action_space: spaces.Space | None = None, seed: int | None = None, *,
                argument: str = "policy") -> Policy:
    """Turn a policy specification into a callable policy.

    Args:
        spec: a name in :data:`POLICY_NAMES`, a callable ``policy(observation)``, an object with
            ``get_action(observation)``, or a reference-style class (instantiated as
            ``spec(action_space)``).
        action_space: passed to a reference-style class; defaults to ``Discrete(4)``.
        seed: seeds the ``"random"`` policy; the other policies are deterministic and draw
            nothing, so they have nothing to seed.
        argument: the name the caller took ``spec`` under (``"opponent"``), which the
            messages name.

    Returns:
        A callable policy.

    Raises:
        ValueError: an unknown policy name.
        TypeError: ``spec`` is none of the accepted kinds.
    """
    if isinstance(spec, str):
        check_choice(spec, f"{argument} name", sorted(POLICY_NAMES))
        return RandomPolicy(seed) if spec == "random" else POLICY_NAMES[spec]()
    if isinstance(spec, type):
        if not callable(getattr(spec, "get_action", None)):
            raise TypeError(f"{argument} class {spec.__name__} must define get_action(observation)")
        return ReferencePolicy(spec(action_space if action_space is not None else spaces.Discrete(NUM_ACTIONS)))
    if callable(getattr(spec, "get_action", None)):
        return ReferencePolicy(spec)
    if callable(spec):
        return spec
    raise TypeError(
        f"{argument} must be a policy name ({', '.join(sorted(POLICY_NAMES))}), a callable, an object with "
        f"get_action, or a class; got {spec!r}"
    )


#: Agent cells per block when the chase table is built.
_CHASE_BLOCK = 256


def chase_table(moves: np.ndarray, cols: int) -> np.ndarray:
    """The chasing ghost's rule (:func:`~gridghost.core.policies.chase_rule`) for every pair of cells.

    The rule depends on the signs of the agent's offset, on whether the vertical gap is at least
    the horizontal one, and on which of the ghost's four moves are open: it is tabulated once over
    those 3 x 3 x 2 x 16 cases, and the table reads that. Built in blocks of agent cells, so that
    the work arrays stay small next to the table.

    Args:
        moves: ``int[cells, 4]``, the cell a single move leads to.
        cols: the layout's number of columns.

    Returns:
        A read-only ``int8[cells, cells]`` array indexed ``[agent cell, ghost cell]``.
    """
    cells = moves.shape[0]
    ghosts = np.arange(cells)
    open_ = moves != ghosts[:, None]  # [ghost cell, action]
    masks = (open_ << np.arange(NUM_ACTIONS)).sum(axis=1)  # the open moves of each ghost cell, as bits
    rows, columns = (a.astype(np.int16) for a in np.divmod(ghosts, cols))
    table = np.empty((cells, cells), dtype=np.int8)
    for start in range(0, cells, _CHASE_BLOCK):
        agents = slice(start, min(start + _CHASE_BLOCK, cells))
        dr = rows[agents, None] - rows[None, :]  # [agent, ghost]
        dc = columns[agents, None] - columns[None, :]
        table[agents] = _CHASE_CASES[np.sign(dr) + 1, np.sign(dc) + 1, (np.abs(dr) >= np.abs(dc)).astype(np.int8),
                                     masks[None, :]]
    return read_only(table)


def _chase_cases() -> np.ndarray:
    """:func:`~gridghost.core.policies.chase_rule` for every case ``[sign(dr) + 1, sign(dc) + 1,
    |dr| >= |dc|, open-move bits]`` (cases that cannot occur are filled all the same)."""
    cases = np.empty((3, 3, 2, 2**NUM_ACTIONS), dtype=np.int8)
    for sign_r, sign_c, vertical_first, bits in np.ndindex(cases.shape):
        dr = (sign_r - 1) * (2 if vertical_first else 1)
        dc = (sign_c - 1) * (1 if vertical_first else 2)
        open_ = tuple(bool(bits >> action & 1) for action in range(NUM_ACTIONS))
        cases[sign_r, sign_c, vertical_first, bits] = chase_rule(dr, dc, open_)  # type: ignore[arg-type]
    return read_only(cases)


def chase_action(board: Board, agent_cell: int, ghost_cell: int) -> int:
    """The chasing ghost's move with the agent at ``agent_cell`` and itself at ``ghost_cell``
    (cell indices), straight from the rule; :attr:`Game.chase_table` holds it for every pair.

    >>> from gridghost.core.layout import CLASSIC
    >>> from gridghost.core.rules import board_for
    >>> chase_action(board_for(CLASSIC), 2, 19)   # agent at (0, 2), ghost at (3, 4): up
    3
    """
    (ar, ac), (gr, gc) = board.position(agent_cell), board.position(ghost_cell)
    mask = board.action_mask[ghost_cell]
    return chase_rule(ar - gr, ac - gc, (bool(mask[0]), bool(mask[1]), bool(mask[2]), bool(mask[3])))


_CHASE_CASES = _chase_cases()
