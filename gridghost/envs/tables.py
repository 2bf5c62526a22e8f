"""The agent played from a table of the true state against a learning team: what the ghosts-only
views (``controlled="ghosts"``: the team Gymnasium view, the ghosts-only parallel env) make of
an ``opponent`` that is a state table rather than a policy of observations.

A state table of the agent is what the exact solver gives for any number of ghosts: the
agent's action in every joint state (``solve_game(...).agent_policy``, ``solve_agent(...).policy``,
``int[rows, cols] * (k + 1)``, -1 where the game is over), or action probabilities with a last
axis of 4 (what :func:`~gridghost.planning.tabulate_policy` returns for the agent). For one
ghost a :class:`~gridghost.planning.StatePolicy` is one too. :class:`AgentTable` checks it once
against the game, as the solver does (:func:`~gridghost.planning.policy_array`), then plays it
by a lookup of the state, or, for probabilities, by a draw from a generator seeded from the
reset seed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gridghost.core.game import Game
from gridghost.core.rules import NUM_ACTIONS, Side
from gridghost.planning import StatePolicy, policy_array, turn_model


def is_state_table(opponent: Any) -> bool:
    """Whether ``opponent`` is what :class:`AgentTable` plays: a NumPy array, a
    :class:`~gridghost.planning.StatePolicy` or a subclass of it."""
    return isinstance(opponent, (np.ndarray, StatePolicy)) or (
        isinstance(opponent, type) and issubclass(opponent, StatePolicy))


def draw_action(cumulative: np.ndarray, rng: np.random.Generator) -> int:
    """An action drawn with one uniform of ``rng`` from a state's cumulative probabilities
    (``float[4]``, of a row that sums to 1)."""
    return min(int(np.searchsorted(cumulative, rng.random() * cumulative[-1], side="right")), NUM_ACTIONS - 1)


class AgentTable:
    """The agent's state table, checked against one game and played from the true state.

    Args:
        table: the agent's state table (see the module docstring): an array indexed by the
            joint state, ``(rows, cols) * (k + 1)`` or ``(cells,) * (k + 1)``, of actions (-1
            allowed where the game is over) or, with a last axis of 4, of probabilities; for
            one ghost also a :class:`~gridghost.planning.StatePolicy` (or its class, built for
            the game).
        game: the game kernel it is played in.
        argument: the caller's name for ``table``, which the messages name.

    Attributes:
        game: the game kernel, as given.
        deterministic: whether every live state has one action of probability 1.

    Raises:
        ValueError: an array of another shape than the game's (another map's size, another
            number of ghosts: a one-ghost table for a team), one that holds no action or no
            distribution in a state where this game goes on (as a table of another map of the
            same size does), a state policy of the ghost or of another map; a game too large
            for the solver's memory budget.
        TypeError: a state policy of one ghost for a team, an array of neither actions nor
            probabilities.
    """

    #: What the views look for: this policy is asked with the state, not an observation.
    reads_state = True

    def __init__(self, table: Any, game: Game, argument: str = "opponent") -> None:
        model = turn_model(game)
        probabilities = policy_array(table, model, Side.AGENT, argument)  # [4, live states], checked
        self.game, self._cells, self._ghosts = game, game.num_cells, game.ghosts
        self.deterministic = bool(((probabilities == 0.0) | (probabilities == 1.0)).all())
        self._actions: bytes | None = None
        self._cumulative: np.ndarray | None = None
        if self.deterministic:
            actions = np.zeros(game.num_cells ** (game.ghosts + 1), dtype=np.uint8)  # 0 where the game is over
            actions[model.states] = probabilities.argmax(axis=0)
            self._actions = actions.tobytes()
        else:
            # each live state's cumulative probabilities, found through the model's state index
            self._index = model.index
            self._cumulative = np.cumsum(probabilities.T, axis=1)
        self._rng = np.random.default_rng(0)

    def seed(self, seed: int) -> None:
        """Reseed the draws of a table of probabilities (a deterministic table draws nothing)."""
        self._rng = np.random.default_rng(seed)

    def __call__(self, state: Any) -> int:
        """The agent's action in the game state ``state`` (the agent to move)."""
        index = state.agent
        for cell in state.ghosts:
            index = index * self._cells + cell
        if self._actions is not None:
            return self._actions[index]
        return draw_action(self._cumulative[self._index[index]], self._rng)  # type: ignore[index]

    def __repr__(self) -> str:
        kind = "actions" if self.deterministic else "probabilities"
        return f"AgentTable({kind}, layout={self.game.layout.name!r}, ghosts={self._ghosts})"
