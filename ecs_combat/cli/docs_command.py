"""``ecs-combat docs [PAGE]``: the documentation pages installed with ecs-combat (the package
``ecs_combat_docs``, from the repository's docs/), so the docs/PAGE.md that help texts name
can be read after a plain ``pip install``."""

from __future__ import annotations

import importlib
from pathlib import Path

from ecs_combat.errors import InputError
from ecs_combat.suggest import did_you_mean

#: The package the pages are installed in.
PACKAGE = "ecs_combat_docs"


def pages() -> dict[str, Path]:
    """The installed pages by name (``scenarios`` for docs/scenarios.md), in name order. The
    package has no ``__init__``: its folders are those of its path that exist (an editable
    install's path also holds an import hook)."""
    package = importlib.import_module(PACKAGE)
    found: dict[str, Path] = {}
    for folder in map(Path, package.__path__):
        if folder.is_dir():
            for entry in folder.glob("*.md"):
                found.setdefault(entry.stem, entry)
    return dict(sorted(found.items()))


def page_text(name: str) -> str:
    """The Markdown text of a page, by name (``scenarios``, ``docs/scenarios.md`` or
    ``scenarios.md``); an :class:`InputError` with the closest name for an unknown one."""
    known = pages()
    key = name.removeprefix("docs/").removesuffix(".md")
    if key not in known:
        raise InputError(
            None, "docs", f"no page {name!r} (pages: {', '.join(known)}){did_you_mean(key, known)}"
        )
    return known[key].read_text(encoding="utf-8")


def page_list() -> str:
    """The pages, one a line, with each one's title (its first line)."""
    lines = []
    for name, entry in pages().items():
        title = entry.read_text(encoding="utf-8").splitlines()[0].lstrip("# ").strip()
        lines.append(f"{name:<14} {title}")
    return "\n".join(lines)
