"""Play gridghost with the keyboard, in a pygame window.

    python examples/play.py                        # you are the agent; the chasing ghost hunts you
    python examples/play.py --ghost random         # a ghost that wanders at random
    python examples/play.py --two-players          # two people: agent on the arrow keys, ghost on WASD
    python examples/play.py --slip 0.3 --slip-type perpendicular --seed 7
    python examples/play.py --headless 50          # 50 random key presses, no window (for tests)

Keys: one player moves the agent with the arrow keys or WASD. With ``--two-players`` the agent
moves with the arrow keys and the ghost with WASD, each in turn (a key of the side not to move
is ignored). ``R`` starts a new game, ``Esc`` or closing the window quits. The status panel
under the grid says whose turn it is, how the last moves went (the agent's may slip) and what
the colour sensor read.

``--headless N`` runs the same event loop on N synthetic key presses, random keys of the side
to move (``R`` after a game ends), with the env drawing off screen (``rgb_array``), and prints a
summary; it needs no display.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

import gridghost
from gridghost.core.policies import make_policy
from gridghost.core.rules import Action

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
import pygame  # after silencing its greeting

ARROWS = {pygame.K_LEFT: Action.LEFT, pygame.K_DOWN: Action.DOWN, pygame.K_RIGHT: Action.RIGHT, pygame.K_UP: Action.UP}
ENDINGS = ("caught_by_ghost", "reached_goal")
WASD = {pygame.K_a: Action.LEFT, pygame.K_s: Action.DOWN, pygame.K_d: Action.RIGHT, pygame.K_w: Action.UP}


def key_bindings(two_players: bool) -> dict[int, tuple[str, int]]:
    """Map pygame key codes to ``(side, action)``: one player steers the agent with the arrows
    or WASD; two players share the keyboard, the agent on the arrows and the ghost on WASD."""
    bindings = {key: ("agent", int(action)) for key, action in ARROWS.items()}
    for key, action in WASD.items():
        bindings[key] = ("ghost" if two_players else "agent", int(action))
    return bindings


class Match:
    """A game between key presses and, unless two people play, a ghost policy.

    Args:
        env: a gridghost AEC env.
        bindings: key code -> ``(side, action)``, as :func:`key_bindings` returns.
        ghost: the ghost's policy, or ``None`` when a person plays the ghost.
        seed: the first reset's seed; later games continue the env's random stream.
    """

    def __init__(self, env: Any, bindings: dict[int, tuple[str, int]], ghost: Callable[[Any], int] | None,
                 seed: int | None) -> None:
        self.env = env
        self.bindings = bindings
        self.ghost = ghost
        self.seed = seed
        self.moves = 0
        self.endings: list[str] = []
        self.frame: np.ndarray | None = None

    @property
    def over(self) -> bool:
        """Whether the current game has ended (caught, goal or out of time)."""
        env = self.env
        return env.terminations[env.agent_selection] or env.truncations[env.agent_selection]

    def reset(self) -> None:
        """Start a game (the env draws it in human mode)."""
        self.env.reset(seed=self.seed)
        self.seed = None
        self._draw()

    def keys_to_move(self) -> list[int]:
        """The keys that would move the side whose turn it is."""
        side = self.env.agent_selection
        return [key for key, (owner, _) in self.bindings.items() if owner == side]

    def press(self, key: int) -> bool:
        """Handle one key press; returns ``False`` when the player asked to quit."""
        if key == pygame.K_ESCAPE:
            return False
        if key == pygame.K_r:
            self.reset()
            return True
        side, action = self.bindings.get(key, (None, 0))
        if side != self.env.agent_selection or self.over:
            return True  # not a move key, not this side's turn, or the game has ended
        self._step(action)
        if self.ghost is not None and not self.over:
            self._step(self.ghost(self.env.observe("ghost")))
        return True

    def _step(self, action: int) -> None:
        self.env.step(action)
        self.moves += 1
        if self.over:
            info = self.env.infos["agent"]
            self.endings.append(next((key for key in ENDINGS if info.get(key)), "out of time").replace("_", " "))
        self._draw()

    def _draw(self) -> None:
        # Human mode draws in reset() and step(); rgb_array frames are asked for.
        if self.env.render_mode == "rgb_array":
            self.frame = self.env.render()


def play(match: Match, events: Iterator[pygame.event.Event]) -> None:
    """The event loop: start a game, then handle events until a quit."""
    match.reset()
    for event in events:
        if event.type == pygame.QUIT or (event.type == pygame.KEYDOWN and not match.press(event.key)):
            break
        if event.type == pygame.WINDOWEXPOSED and match.env.render_mode == "human":
            match.env.render()
    match.env.close()


def window_events() -> Iterator[pygame.event.Event]:
    """Events from the window, waiting for each."""
    while True:
        yield pygame.event.wait()


def random_key_presses(match: Match, count: int, seed: int | None) -> Iterator[pygame.event.Event]:
    """``count`` key presses of random keys of the side to move (``R`` once a game is over),
    then a quit."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        keys = [pygame.K_r] if match.over else match.keys_to_move()
        yield pygame.event.Event(pygame.KEYDOWN, key=keys[int(rng.integers(len(keys)))])
    yield pygame.event.Event(pygame.QUIT)


def non_negative_int(text: str) -> int:
    """argparse type: an int >= 0."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def main(argv: list[str] | None = None) -> int:
    """Play until the player quits; returns the process exit code."""
    parser = argparse.ArgumentParser(
        description="Play gridghost: arrows or WASD move the agent (with --two-players the ghost moves on WASD); "
        "R starts a new game; Esc or closing the window quits.",
    )
    ghost_side = parser.add_mutually_exclusive_group()
    ghost_side.add_argument("--ghost", choices=["chase", "random"], default="chase",
                            help="the ghost's policy when one person plays (default: chase)")
    ghost_side.add_argument("--two-players", action="store_true",
                            help="a second person plays the ghost on WASD; the agent keeps the arrow keys")
    parser.add_argument("--slip", type=float, default=None,
                        help="the agent's slip probability (default: 0.2, or 0 with --slip-type none)")
    parser.add_argument("--slip-type", default="longitudinal", choices=["longitudinal", "perpendicular", "none"],
                        help="how the agent slips (default: longitudinal)")
    parser.add_argument("--seed", type=int, default=None, help="seeds the first game (and a random ghost)")
    parser.add_argument("--max-cycles", type=int, default=100, help="agent+ghost moves per game (default: 100)")
    parser.add_argument("--headless", type=non_negative_int, metavar="N",
                        help="play N random key presses off screen and print a summary, then exit")
    args = parser.parse_args(argv)

    if args.headless is not None:
        os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    try:
        env = gridghost.env(
            render_mode="human" if args.headless is None else "rgb_array",
            slip_probability=args.slip,
            slip_type=args.slip_type,
            max_cycles=args.max_cycles,
        )
    except (TypeError, ValueError) as error:
        parser.error(str(error))
    ghost = None if args.two_players else make_policy(args.ghost, seed=args.seed)
    match = Match(env, key_bindings(args.two_players), ghost, args.seed)

    if args.headless is None:
        play(match, window_events())
        return 0
    play(match, random_key_presses(match, args.headless, args.seed))
    assert match.frame is not None and match.frame.shape[2] == 3
    endings = ", ".join(match.endings) or "none"
    print(f"{args.headless} key presses, {match.moves} half-turns; games ended: {endings}; "
          f"last frame {match.frame.shape[1]}x{match.frame.shape[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
