"""What every command shares: the one-line failure, the ``-p`` options' state, Ctrl-C.

Light on purpose (click only): every command imports it, ``ecs-combat --version`` too
(docs/performance.md, "Start-up").
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar, cast

import click

if TYPE_CHECKING:
    from ecs_combat.plugin.registry import Registry

F = TypeVar("F", bound=Callable[..., Any])

#: Exit status of a command stopped by Ctrl-C or SIGTERM (128 + SIGINT, as shells report it).
INTERRUPTED = 130

PLUGIN_OPTION_HELP = (
    "Load a plugin module explicitly, or block a plugin by name with no:NAME "
    "(the name of docs/plugins.md or `ecs-combat plugins`). Repeatable; before or after the "
    "command."
)


def fail(message: str, status: int) -> NoReturn:
    """Print one message on standard error, on one line, and exit."""
    click.echo(f"ecs-combat: {one_line(message)}", err=True)
    sys.exit(status)


def one_line(message: str) -> str:
    """A message with newlines and other unprintable characters written as escapes."""
    if message.isprintable():
        return message
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in message)


class State:
    """What the ``-p`` options give the commands: how to load plugins."""

    def __init__(self, plugin_options: tuple[str, ...]) -> None:
        self.plugin_options: list[str] = list(plugin_options)
        self._registry: Registry | None = None

    def add(self, plugin_options: tuple[str, ...]) -> None:
        """Take more ``-p`` values (given after the command)."""
        self.plugin_options += plugin_options

    @property
    def load(self) -> list[str]:
        """Modules to load explicitly."""
        from ecs_combat.plugin.loading import parse_plugin_options

        return parse_plugin_options(self.plugin_options)[0]

    @property
    def block(self) -> set[str]:
        """Plugin names to block, in both spellings."""
        from ecs_combat.plugin.loading import parse_plugin_options

        return parse_plugin_options(self.plugin_options)[1]

    @property
    def registry(self) -> Registry:
        """The plugin registry, loaded on first use; a ``no:NAME`` naming no plugin exits 2,
        plugin failures exit 1, with a message."""
        if self._registry is None:
            from ecs_combat.errors import InputError, PluginError
            from ecs_combat.plugin.loading import check_plugin_options, load_registry

            try:
                check_plugin_options(self.plugin_options)
                self._registry = load_registry(load=self.load, block=self.block)
            except InputError as exc:
                fail(str(exc), 2)
            except PluginError as exc:
                fail(str(exc), 1)
        return self._registry


def more_plugin_options(ctx: click.Context, _: click.Parameter, value: tuple[str, ...]) -> None:
    """The ``-p`` values given after the command, added to the group's."""
    state = ctx.find_object(State)
    if state is None:  # the command invoked on its own, without the group
        ctx.obj = state = State(())
    state.add(value)


def plugin_option() -> click.Option:
    """The ``-p`` option every command accepts after its name too."""
    return click.Option(
        ["-p", "plugin_options"],
        multiple=True,
        metavar="MODULE|no:NAME",
        help=PLUGIN_OPTION_HELP,
        expose_value=False,
        callback=more_plugin_options,
    )


def ctrl_c_exits_130(f: F) -> F:
    """Ctrl-C (or SIGTERM, which the console script turns into the same interrupt), whenever it
    comes while the command runs, ends it with one line and exit status 130 (docs/simulate.md),
    rather than click's ``Aborted!`` and 1. (A run interrupted once built says what its
    checkpoints hold: :class:`~ecs_combat.cli.simulate_run.Interrupted`.)"""

    @functools.wraps(f)
    def command(*args: Any, **kwargs: Any) -> Any:
        try:
            return f(*args, **kwargs)
        except KeyboardInterrupt:
            fail("interrupted", INTERRUPTED)

    return cast(F, command)
