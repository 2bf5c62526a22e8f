"""How a game setting is declared: once, as a field of :class:`~gridghost.config.settings.GameSpec`
whose metadata is a :class:`Setting` (type, default, unit, check, one line of docs, which engines
serve which values), and the keyword inputs that resolve into a setting (:class:`Input`).

Everything else is derived from these records: the keywords every view takes, the checks and
their messages, ``to_dict`` / ``from_dict``, the engines' refusals and the settings table of
docs/configuration.md (:func:`settings_table`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

#: An engine's entry in :attr:`Setting.served`: the setting's default is the only value it serves.
DEFAULT_ONLY = "default only"


@dataclasses.dataclass(frozen=True)
class Setting:
    """The declaration of one game setting (the metadata of a ``GameSpec`` field).

    Attributes:
        doc: one line of docs.
        unit: the unit of a number (``"cycles"``, ``"cells"``), or ``""``.
        check: ``check(value, argument) -> value``: the value as the spec holds it, or a
            TypeError/ValueError naming ``argument`` (the name the caller wrote) and what is
            accepted. A setting resolved from several keywords checks the resolved value here and
            its keywords where the resolver builds it.
        accepts: what the keyword takes, in words, for the docs table.
        encode: the value's JSON-able form (``to_dict``); decode: ``decode(data, decoded)`` reads
            it back, given the settings decoded before it.
        served: per engine (``"batched"``, ``"jax"``) that does not serve every value: the values
            it serves, or :data:`DEFAULT_ONLY`; an engine refuses any other value generically.
        encoder: the setting is an option of the observation encoder, passed to it by name.
    """

    doc: str
    unit: str = ""
    check: Callable[[Any, str], Any] = lambda value, argument: value
    accepts: str = ""
    encode: Callable[[Any], Any] = lambda value: value
    decode: Callable[[Any, Mapping[str, Any]], Any] = lambda data, decoded: data
    served: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    encoder: bool = False


@dataclasses.dataclass(frozen=True)
class Input:
    """A keyword that is not a setting of its own but resolves into one (``slip_probability``
    into ``slip``).

    Attributes:
        into: the setting it resolves into.
        annotation: its type, in words.
        doc: one line of docs.
    """

    into: str
    annotation: str
    doc: str


def setting(default: Any = dataclasses.MISSING, *, factory: Callable[[], Any] | None = None, **declared: Any) -> Any:
    """A ``GameSpec`` field declared by a :class:`Setting` (the keywords of :class:`Setting`).

    Args:
        default: the default value (or ``factory``, which makes it).
        factory: makes the default, for a mutable or built default.
        **declared: the :class:`Setting`'s attributes.

    Returns:
        The ``dataclasses.field``.
    """
    metadata = {"setting": Setting(**declared)}
    if factory is not None:
        return dataclasses.field(default_factory=factory, metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


def declared(cls: type) -> dict[str, tuple[dataclasses.Field[Any], Setting]]:
    """Every declared setting of the dataclass ``cls``, in declaration order, by name."""
    return {field.name: (field, field.metadata["setting"]) for field in dataclasses.fields(cls)}


def default_of(field: dataclasses.Field[Any]) -> Any:
    """The default value of a declared field."""
    return field.default_factory() if field.default_factory is not dataclasses.MISSING else field.default


def settings_table(cls: type, inputs: Mapping[str, Input]) -> list[str]:
    """The settings list of docs/configuration.md, rendered from the declaration: a Markdown
    definition list (the ``def_list`` extension), one entry per setting, then one per input
    keyword. Each entry is its keyword (a line starting with a backtick), then its definition:
    what it sets, its type, default and unit, what it accepts and the values each engine that
    does not serve every value serves (it refuses the others). A definition list, not a table,
    so that it reads on a phone as on a wide screen.

    Args:
        cls: the spec class.
        inputs: the input keywords, by name.

    Returns:
        The Markdown lines, blank lines around every entry.
    """
    lines = [""]
    for name, (field, declared_) in declared(cls).items():
        unit = f", *unit* {declared_.unit}" if declared_.unit else ""
        refused = "; ".join(
            f"{engine}: only {'the default' if values == DEFAULT_ONLY else ', '.join(map(repr, values))}"
            for engine, values in declared_.served.items())
        lines += [f"`{name}`", f":   {declared_.doc}.",
                  f"    *Type* `{field.type}`, *default* `{default_of(field)!r}`{unit}.",
                  f"    *Accepts* {declared_.accepts}."]
        lines += [f"    *Other engines* {refused}.", ""] if refused else [""]
    for name, entry in inputs.items():
        lines += [f"`{name}`", f":   {entry.doc}.", f"    *Type* `{entry.annotation}`, *default* `None`.",
                  f"    *Resolves into* `{entry.into}`.", ""]
    return lines
