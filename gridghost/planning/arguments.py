"""Which game a solver function is asked about: a :class:`~gridghost.core.game.Game` (``game=``),
the settings one by one (``layout``, ``slip``, ``rewards``, ``ghost_rewards``), an env's settings
(``spec=``, a :class:`gridghost.GameSpec`), or, for one more release, ``config=`` (deprecated).

The solver knows the kernel only: a spec is the envs' business, so ``spec=`` (and ``config=``) is
read by duck typing, through its ``game()`` method, the one place a spec builds its kernel.

>>> from gridghost.core.layout import CLASSIC
>>> from gridghost.core.slip import NoSlip
>>> game = solver_game(CLASSIC, "none", None)
>>> game.slip == NoSlip() and solver_game(game=game) is game
True
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

from gridghost.core.checks import check_instance
from gridghost.core.game import Game
from gridghost.core.layout import CLASSIC, Layout
from gridghost.core.slip import make_slip


def solver_game(layout: Any = None, slip: Any = None, rewards: Any = None, ghost_rewards: Any = None, *,
                game: Any = None, spec: Any = None, config: Any = None, ghosts: Any = None,
                stacklevel: int = 3) -> Any:
    """The game of a solver function's arguments.

    Args:
        layout, slip, rewards, ghost_rewards, game, spec, config, ghosts: as the solver functions
            take them (:func:`~gridghost.planning.solve.solve_ghost`); ``spec`` and ``config``
            are any objects whose ``game()`` method gives the game.
        stacklevel: the :class:`DeprecationWarning`'s stack level, counted from this function
            (3: the caller of the solver function that calls this one).

    Raises:
        TypeError: ``game`` is not a :class:`~gridghost.core.game.Game`, ``config`` is a dict (pass
            ``game=GameConfig.from_dict(d).game()``) or has no ``game()`` method, or a bad setting.
        ValueError: both ``game`` and ``config``, either of them together with a setting, a game
            without the ghost (``use_ghost=False``), or a bad setting.
    """
    argument = "game"
    if spec is not None:
        if game is not None or config is not None:
            raise ValueError("pass the game once: as spec=, game= or config= (deprecated)")
        if not callable(getattr(spec, "game", None)):
            raise TypeError(f"spec must be a gridghost.GameSpec (with a game() method), got {spec!r}")
        game, argument = check_instance(spec.game(), "spec.game()", Game), "spec"
    elif config is not None:
        if game is not None:
            raise ValueError("pass the game as game= (config= is deprecated), not both game and config")
        if isinstance(config, Mapping):
            raise TypeError("config= does not take a dict any more: pass game=GameConfig.from_dict(d).game() "
                            "(gridghost.GameConfig)")
        if not callable(getattr(config, "game", None)):
            raise TypeError(f"config must be a gridghost.GameConfig (with a game() method), got {config!r}; "
                            "pass game= (a gridghost.Game) instead")
        warnings.warn("config= is deprecated: pass game=config.game()", DeprecationWarning, stacklevel=stacklevel)
        game, argument = check_instance(config.game(), "config.game()", Game), "config"
    if game is None:
        layout = CLASSIC if layout is None else check_instance(layout, "layout", Layout)
        return Game(layout, make_slip(slip), rewards, ghost_rewards, ghosts=1 if ghosts is None else ghosts)
    check_instance(game, "game", Game)
    given = [name for name, value in (("layout", layout), ("slip", slip), ("rewards", rewards),
                                      ("ghost_rewards", ghost_rewards), ("ghosts", ghosts)) if value is not None]
    if given:
        raise ValueError(f"pass the game as {argument}= or as settings, not both; got {argument} and {given}")
    if not game.use_ghost:
        raise ValueError(f"{argument} has no ghost in the game (use_ghost=False); the solver needs one")
    return game
