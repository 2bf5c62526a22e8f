"""Module-level settings that a package re-exports and its users may set.

A budget such as ``gridghost.batched.TABLE_BYTES`` lives in the module that reads it
(:mod:`gridghost.batched.limits`); a package that re-exports it with ``from ... import`` holds a
copy, and setting the copy changes nothing. :func:`forward` makes the package's names read and
write the home module's instead, so that the documented ``gridghost.batched.TABLE_BYTES = ...``
takes effect wherever the home module reads it.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Sequence


def _forwarded(home: types.ModuleType, name: str) -> property:
    """A property reading and writing ``name`` of ``home`` (whichever module it is read on)."""
    return property(lambda _module: getattr(home, name), lambda _module, value: setattr(home, name, value),
                    doc=f"{home.__name__}.{name}, read where it applies")


def forward(package: str, home: types.ModuleType, names: Sequence[str]) -> None:
    """Make ``names`` of the module ``package`` the settings of ``home``: reading one reads
    ``home``'s, and setting one sets ``home``'s (where the code that uses it reads it).

    Args:
        package: the name of an imported module (``__name__`` of the package calling this).
        home: the module holding the settings, which reads them at call time.
        names: the settings' names; each must be an attribute of ``home``.

    Raises:
        KeyError: ``package`` is not imported.
        AttributeError: a name is not an attribute of ``home``.
    """
    module = sys.modules[package]
    for name in names:
        getattr(home, name)  # raises AttributeError for a name home does not have
    properties = {name: _forwarded(home, name) for name in names}
    module.__class__ = type("SettingsModule", (type(module),), {
        "__doc__": f"{package}, whose settings {', '.join(names)} live in {home.__name__}", **properties})
