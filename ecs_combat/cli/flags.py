"""The ``ecs-combat`` group: commands imported when they run, bad flags as one line.

Every mistake on the command line (an unknown flag or command, a value out of range, a choice
that isn't one, a missing argument) is reported as one line naming the command and the flag and
saying what is wrong, with the closest valid name for a typo, and exit status 2, the same as
bad input in a file (README.md), instead of click's usage block.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Sequence
from typing import Any

import click

from ecs_combat.cli.common import ctrl_c_exits_130, one_line, plugin_option

#: Exit status of a bad flag: the same as bad input.
BAD_FLAG = 2
#: Where the group notes the command being resolved (ctx.meta).
COMMAND_NAME = "ecs_combat.command"


class Commands(click.Group):
    """A click group whose `lazy` commands ("name": "module:attribute") are imported only when
    they run or are listed, whose usage errors are one line (:func:`flag_message`), and whose
    commands end on Ctrl-C with one line and exit status 130."""

    def __init__(self, *args: Any, lazy: dict[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        """Add a command that also takes ``-p`` after its name."""
        if not any(p.name == "plugin_options" for p in cmd.params):
            cmd.params.append(plugin_option())
        if cmd.callback is not None and not isinstance(cmd, click.Group):
            cmd.callback = ctrl_c_exits_130(cmd.callback)
        super().add_command(cmd, name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy:
            module, attribute = self.lazy[cmd_name].split(":")
            command = getattr(importlib.import_module(module), attribute)
            self.add_command(command, cmd_name)
        return self.commands.get(cmd_name)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0]
        ctx.meta[COMMAND_NAME] = name  # for errors the parser raises without a context
        if self.get_command(ctx, name) is None and not name.startswith("-"):
            from ecs_combat.suggest import did_you_mean

            known = self.list_commands(ctx)
            raise click.UsageError(
                f"no command is named {name!r}{did_you_mean(name, known)} "
                f"(commands: {', '.join(known)})",
                ctx,
            )
        return super().resolve_command(ctx, args)

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.UsageError as exc:
            raise FlagError(exc) from exc

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except FlagError:
            raise
        except click.UsageError as exc:
            if exc.ctx is None and COMMAND_NAME in ctx.meta:
                command = self.get_command(ctx, ctx.meta[COMMAND_NAME])
                if command is not None:  # the parser's errors come without the command
                    exc.ctx = click.Context(command, parent=ctx, info_name=ctx.meta[COMMAND_NAME])
            raise FlagError(exc) from exc


class FlagError(click.ClickException):
    """A usage error, shown as one line (:func:`flag_message`) with exit status 2."""

    exit_code = BAD_FLAG

    def __init__(self, error: click.UsageError) -> None:
        super().__init__(flag_message(error))

    def show(self, file: Any = None) -> None:
        click.echo(f"ecs-combat: {one_line(self.message)}", err=True)


def flag_message(exc: click.UsageError) -> str:
    """One line for a usage error: ``COMMAND FLAG: what is wrong``."""
    where = _command(exc.ctx)
    if isinstance(exc, click.NoSuchOption):
        known = _option_names(exc.ctx)
        from ecs_combat.suggest import closest

        match = closest(exc.option_name, known) if known else None
        hint = f"; did you mean {match}?" if match else ""
        return (
            f"{where}{exc.option_name}: no such option{hint} (ecs-combat {where}--help lists them)"
        )
    if isinstance(exc, click.MissingParameter) and exc.param is not None:
        return f"{where}{_flag(exc.param)}: missing (see ecs-combat {where}--help)"
    if isinstance(exc, click.BadParameter) and exc.param is not None:
        return f"{where}{_flag(exc.param)}: {_reason(exc.param, exc.message)}"
    if isinstance(exc, click.BadOptionUsage):
        if "requires an argument" in exc.message:
            return f"{where}{exc.option_name}: needs a value (see ecs-combat {where}--help)"
        return f"{where}{exc.option_name}: {_sentence(exc.message)}"
    return f"{where.strip()}: {_sentence(exc.message)}" if where else _sentence(exc.message)


def _command(ctx: click.Context | None) -> str:
    """The command's words after ``ecs-combat``, with a trailing space (or nothing)."""
    if ctx is None or ctx.parent is None:
        return ""
    return " ".join(ctx.command_path.split()[1:]) + " "


def _flag(param: click.Parameter) -> str:
    """How the user names a parameter: ``--battles/-n``, or an argument's ``FILE``."""
    if isinstance(param, click.Option):
        return "/".join(sorted(param.opts, key=len, reverse=True))
    return (param.name or "argument").upper()


def _option_names(ctx: click.Context | None) -> list[str]:
    if ctx is None:
        return []
    return [o for p in ctx.command.get_params(ctx) if isinstance(p, click.Option) for o in p.opts]


def _reason(param: click.Parameter, message: str) -> str:
    """What is wrong with a value, in words: ranges and choices said plainly, the closest
    choice for a typo."""
    kind = param.type
    message = _sentence(message)
    if isinstance(kind, click.IntRange | click.FloatRange):
        bad = re.match(r"(.*) is not in the range", message)
        if bad is not None:
            return f"must be {_range_words(kind)}, not {bad.group(1)}"
        return f"must be {'an integer' if isinstance(kind, click.IntRange) else 'a number'}" + (
            f" {_range_words(kind)}, not {_value(message)}" if _value(message) else ""
        )
    if isinstance(kind, click.Choice):
        bad = re.match(r"(.*) is not one of", message)
        choices: Sequence[str] = [str(c) for c in kind.choices]
        if bad is not None:
            from ecs_combat.suggest import did_you_mean

            value = bad.group(1).strip("'\"")
            return (
                f"must be one of {', '.join(choices)}, not {value!r}{did_you_mean(value, choices)}"
            )
    return message


def _range_words(kind: click.IntRange | click.FloatRange) -> str:
    if kind.min is not None and kind.max is not None:
        return f"from {kind.min} to {kind.max}"
    if kind.min is not None:
        return f"{'greater than' if kind.min_open else 'at least'} {kind.min}"
    return f"{'less than' if kind.max_open else 'at most'} {kind.max}"


def _value(message: str) -> str:
    """The quoted value click names in a conversion error, or ''."""
    found = re.match(r"'(.*)' is not a valid", message)
    return repr(found.group(1)) if found else ""


def _sentence(message: str) -> str:
    """Click's message as the clause of a line: no final full stop, lower-case start."""
    message = message.strip().rstrip(".")
    return message[:1].lower() + message[1:] if message[1:2].islower() else message
