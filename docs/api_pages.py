"""MkDocs hook for the API reference pages (``docs/reference/``), named in mkdocs.yml's ``hooks``.

mkdocstrings groups a module's members by kind and puts the constants first, so that a
subpackage's functions and classes came after pages of constants. This hook gives every
``::: gridghost.<module>`` directive an explicit ``members`` list, from the module's
``__all__`` (read statically with griffe, so that no optional extra is imported): its functions,
then its classes, then everything else, each in ``__all__`` order. A directive that already
names its members keeps them. A name is left to the page that owns it: one imported from a
module that another directive of the same page documents (``gridghost.testing`` and its
``pettingzoo_views``), or from another subpackage that exports it too (``gridghost.config``'s
``slip_to_dict``, documented under ``gridghost.core``).

The top-level page (``::: gridghost``) documents only what no subpackage's page documents, and
lists every other top-level name with a link to its subpackage's entry, so that each object is
documented once and a search finds it once.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import griffe

ROOT = Path(__file__).resolve().parent.parent
#: The subpackages whose pages document the top-level names, in the order the index lists them.
SUBPACKAGES = ("core", "sensing", "planning", "maps", "config", "drawing", "envs", "batched", "jax",
               "training", "testing")
DIRECTIVE = re.compile(r"^::: (gridghost(?:\.\w+)*)\n((?:    .*\n|\n(?=    ))*)", flags=re.M)
KIND_ORDER = {griffe.Kind.FUNCTION: 0, griffe.Kind.CLASS: 1}


@functools.cache
def package() -> griffe.Module:
    """The ``gridghost`` package as griffe reads it from this checkout."""
    return griffe.load("gridghost", search_paths=[str(ROOT)], resolve_aliases=False)


def kind(member: griffe.Object | griffe.Alias) -> griffe.Kind:
    """A member's kind, following an import to its definition (an attribute where it cannot)."""
    try:
        return member.final_target.kind if member.is_alias else member.kind
    except (griffe.AliasResolutionError, griffe.CyclicAliasError):
        return griffe.Kind.ATTRIBUTE


def module_at(path: str) -> griffe.Module:
    """The module ``path`` (``"gridghost.core"``) as griffe reads it."""
    found = package()[path.removeprefix("gridghost.")] if path != "gridghost" else package()
    assert isinstance(found, griffe.Module), path
    return found


def documented_elsewhere(path: str, name: str, siblings: list[str]) -> bool:
    """Whether the page of the module ``path`` leaves ``name`` to another entry: it is imported
    from one of ``siblings`` (the other directives of the page), or from another subpackage that
    exports it too."""
    member = module_at(path)[name]
    try:  # where it is defined, following re-exports
        origin = member.final_target.path if member.is_alias else member.path
    except (griffe.AliasResolutionError, griffe.CyclicAliasError):
        origin = member.target_path
    # the page's directive for the most specific module that holds its definition documents it
    holders = [sibling for sibling in siblings if origin.startswith(f"{sibling}.")]
    if holders and max(holders, key=len) != path:
        return True
    owner = origin.split(".")[1] if origin.count(".") >= 2 else None
    mine = path.split(".")[1] if "." in path else None
    if owner in SUBPACKAGES and owner != mine:
        return name in {str(exported) for exported in module_at(f"gridghost.{owner}").exports or ()}
    return False


def ordered_members(path: str, siblings: list[str]) -> list[str]:
    """The names the module ``path`` exports and documents (see :func:`documented_elsewhere`),
    functions first, then classes, then the rest, each group in ``__all__`` order; for a module
    without ``__all__``, its public names that it defines itself, in source order (what
    mkdocstrings shows of such a module)."""
    module = module_at(path)
    if module.exports is None:
        exported = [name for name, member in module.members.items() if not name.startswith("_") and not member.is_alias]
    else:
        exported = [str(name) for name in module.exports]
    names = [name for name in exported if not documented_elsewhere(path, name, siblings)]
    return sorted(names, key=lambda name: KIND_ORDER.get(kind(module[name]), 2))


def top_level_index() -> tuple[list[str], str]:
    """The top-level names no subpackage exports (documented on the top-level page), and the
    Markdown index of the others: per subpackage, a link to each name's entry on its page."""
    owners: dict[str, list[str]] = {}
    placed = set()
    for sub in SUBPACKAGES:
        exported = {str(name) for name in package()[sub].exports or ()}
        for name in package().exports or ():
            if (str(name) in exported and str(name) not in placed
                    and not documented_elsewhere(f"gridghost.{sub}", str(name), [])):
                placed.add(str(name))
                owners.setdefault(sub, []).append(str(name))
    own = [str(name) for name in package().exports or () if str(name) not in placed]
    lines = ["## Also at the top level", "",
             "`import gridghost` also gives these names; each is documented on its subpackage's page.", ""]
    for sub, names in owners.items():
        links = ", ".join(f"[`{name}`][gridghost.{sub}.{name}]" for name in names)
        lines += [f"**[gridghost.{sub}]({sub}.md)**: {links}.", ""]
    return own, "\n".join(lines)


def with_members(path: str, options: str, members: list[str]) -> str:
    """The directive for ``path`` with ``members`` added to its ``options`` block (made if missing)."""
    listed = f"      members: [{', '.join(members)}]\n"
    if "    options:\n" in options:
        return f"::: {path}\n" + options.replace("    options:\n", "    options:\n" + listed, 1)
    return f"::: {path}\n    options:\n{listed}{options}"


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """Rewrite the reference pages' directives (MkDocs calls this for every page)."""
    if not page.file.src_uri.startswith("reference/"):
        return markdown

    siblings = [match[1] for match in DIRECTIVE.finditer(markdown)]

    def rewrite(match: re.Match[str]) -> str:
        path, options = match[1], match[2]
        if "members:" in options:
            return match[0]
        if path == "gridghost":
            own, index = top_level_index()
            return with_members(path, options, own) + "\n" + index + "\n"
        return with_members(path, options, ordered_members(path, siblings))

    return DIRECTIVE.sub(rewrite, markdown)
