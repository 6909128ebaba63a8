"""The `ecs-combat` command run in this process (click's CliRunner), as the installed console
script runs it: the same exit status, standard output and standard error, at a tenth of the
cost of starting a process (the imports and the plugins are loaded once per test worker).

CLI tests that check many files or options use :func:`run_cli`; each kind of check also keeps
tests that run the installed command (a subprocess), which this can't replace: the console
script itself, signals, encodings of real pipes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from ecs_combat.cli.main import cli, one_line
from ecs_combat.errors import InputError, PluginError


@dataclass(frozen=True)
class Completed:
    """What a run of the command gave (the fields of :class:`subprocess.CompletedProcess`)."""

    args: Sequence[str]
    returncode: int
    stdout: str
    stderr: str


def run_cli(
    args: Sequence[str],
    *,
    env: Mapping[str, str | None] | None = None,
    cwd: str | Path | None = None,
    input: str | None = None,
) -> Completed:
    """``ecs-combat ARGS`` in this process. `env`: variables set (None: unset) for the run;
    `cwd`: the directory it runs in. An exception a command lets through becomes what the
    console script's ``main()`` makes of it: one ``ecs-combat: ...`` line, exit status 2 for
    bad input, 1 otherwise."""
    before = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        result = CliRunner().invoke(cli, list(args), env=env, input=input, catch_exceptions=True)
    finally:
        os.chdir(before)
    code, stderr = result.exit_code, result.stderr
    error = result.exception
    if error is not None and not isinstance(error, SystemExit):
        if isinstance(error, InputError | PluginError):
            code = 2 if isinstance(error, InputError) else 1
            stderr += f"ecs-combat: {one_line(str(error))}\n"
        else:
            code = 1
            stderr += f"ecs-combat: internal error: {type(error).__name__}: {error}\n"
    return Completed(list(args), code, result.stdout, stderr)
