"""The vocabulary every part of the game shares: cells, colours, items, actions, the two sides
and the seed streams. Plain constants, no logic; the lowest module of the package.
"""

from __future__ import annotations

from collections.abc import Mapping

Cell = tuple[int, int]

#: Colour ids used in observations and by the colour sensor; the index is the id.
COLOURS: tuple[str, ...] = ("white", "red", "green")
WHITE, RED, GREEN = 0, 1, 2

#: Item names a cell may hold, and the ``has_item`` flag each one raises.
ITEMS: Mapping[str, str] = {
    "dog": "dog",
    "flower": "flower",
    "two_flowers": "flower",
    "one_note": "notes",
    "two_notes": "notes",
}
#: The order of the flags in the ``has_item`` observation.
ITEM_FLAGS: tuple[str, ...] = ("dog", "flower", "notes")
#: The most cells a layout may have (64 x 64). The game's tables hold ``cells x cells`` entries
#: (the distances, the chasing ghost): 32 MiB at this size, built in a fraction of a second.
MAX_CELLS = 4096

#: The actions, by index: the same four moves for both sides.
ACTION_NAMES: tuple[str, ...] = ("left", "down", "right", "up")
NUM_ACTIONS = len(ACTION_NAMES)

#: The two sides' agent names, in turn order.
AGENT = "agent"
GHOST = "ghost"
AGENTS: tuple[str, str] = (AGENT, GHOST)
#: The most ghosts a team may have (the ``ghosts`` setting).
MAX_GHOSTS = 4


def ghost_names(ghosts: int) -> tuple[str, ...]:
    """The ghosts' agent names, in turn order: ``("ghost",)`` for one ghost (the original game's
    name), else ``("ghost_0", ..., "ghost_{k-1}")``."""
    return (GHOST,) if ghosts == 1 else tuple(f"{GHOST}_{index}" for index in range(ghosts))

#: ``SeedSequence`` spawn keys of the streams derived from the reset seed besides the sensors'
#: (which are its children 0, 1, ...): the single-agent views' opponent, and the belief filter.
#: Each source of randomness has its own stream, so switching one on or off never changes the
#: game's trajectory.
OPPONENT_STREAM = 2**32
FILTER_STREAM = 2**32 + 1
#: The spawn key of the stream a map generator's levels are drawn from.
MAP_STREAM = 2**32 + 2
