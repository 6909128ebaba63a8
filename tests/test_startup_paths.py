"""The quick paths of start-up give what the slow ones gave (docs/performance.md, "Start-up"):
the plugin manager finds the same hook implementations as pluggy's own, and the plain layout
written without Rich is byte for byte what Rich's console wrote to a pipe."""

from __future__ import annotations

import importlib
import io
import sys
import types
from importlib import metadata

import pluggy
import pytest
from rich.console import Console
from rich.text import Text

from ecs_combat.console import PlainOutput, print_line
from ecs_combat.plugin import hookspecs
from ecs_combat.plugin.loading import ENTRY_POINT_GROUP, _PluginManager

hookimpl = pluggy.HookimplMarker(hookspecs.PROJECT)


@hookimpl
def register_keywords() -> list[object]:
    return []


class _Holder:
    @staticmethod
    @hookimpl
    def register_cards() -> list[object]:
        return []


def _hooks(manager: pluggy.PluginManager, plugin: object) -> dict[str, object]:
    """The attributes `manager` takes for hook implementations, with their options."""
    found: dict[str, object] = {}
    for name in dir(plugin):
        opts = manager.parse_hookimpl_opts(plugin, name)
        if opts is not None:
            found[name] = opts
    return found


def _modules() -> list[types.ModuleType]:
    """Every installed plugin module, and one made here with the shapes pluggy accepts: a
    marked function imported from elsewhere, a marked static method, unmarked functions,
    classes, constants and a module."""
    made = types.ModuleType("made_here")
    made.register_keywords = register_keywords  # type: ignore[attr-defined]
    made.register_cards = _Holder.__dict__["register_cards"]  # type: ignore[attr-defined]
    made.helper = _hooks  # type: ignore[attr-defined]
    made.Holder = _Holder  # type: ignore[attr-defined]
    made.LIMIT = 3  # type: ignore[attr-defined]
    made.np = io  # type: ignore[attr-defined]
    eps = metadata.entry_points(group=ENTRY_POINT_GROUP)
    return [made, *(importlib.import_module(ep.module) for ep in eps)]


@pytest.mark.parametrize("module", _modules(), ids=lambda m: m.__name__)
def test_the_manager_finds_the_hooks_pluggy_finds(module: types.ModuleType) -> None:
    ours = _hooks(_PluginManager(hookspecs.PROJECT), module)
    assert ours == _hooks(pluggy.PluginManager(hookspecs.PROJECT), module)
    if module.__name__ == "made_here":  # the check saw hooks, and passed over the rest
        assert set(ours) == {"register_keywords", "register_cards"}


LINES = [
    "Attacking: Two-Headed Cerberus (cerberus) → nadine",
    "  ✔ Brindle Boar (boar): had first strike   ",  # trailing spaces kept
    "",
    "[bold]not markup[/bold] :smile: ",
    "wide 漢字 and e\u0301 combining, \u200b zero width",
    "tab\tand\tmore",  # Rich lays these out: printed by Rich
    "two\nlines",
    "bell\x07 back\x08 vt\x0b ff\x0c cr\r end",  # Rich drops these
    "escape \x1b[31m kept",
    "a" * 500,
]


def test_plain_output_writes_what_rich_wrote_to_a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    theirs = io.StringIO()
    rich = Console(file=theirs, highlight=False)
    assert not rich.is_terminal
    for line in LINES:
        rich.print(Text(line), soft_wrap=True)
    ours = io.StringIO()
    monkeypatch.setattr(sys, "stdout", ours)
    plain = PlainOutput()
    for line in LINES:
        print_line(plain, line, "bold")
    assert ours.getvalue() == theirs.getvalue()
