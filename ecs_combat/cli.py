"""The ``ecs-combat`` command line (CONTRACT.md sections 2-4)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import click
from rich.console import Console
from rich.table import Table

from ecs_combat.errors import InputError, PluginError, RefusedError
from ecs_combat.plugins import Registry, load_registry, parse_plugin_options
from ecs_combat.reference import ReferenceEngine
from ecs_combat.report import render
from ecs_combat.scenario import load_scenarios

F = TypeVar("F", bound=Callable[..., Any])

ENGINES = ("reference",)


def fail(message: str, status: int) -> NoReturn:
    """Print one message on standard error and exit."""
    click.echo(f"ecs-combat: {message}", err=True)
    sys.exit(status)


class State:
    """What the group options give the commands: how to load plugins."""

    def __init__(self, plugin_options: tuple[str, ...]) -> None:
        self.load, self.block = parse_plugin_options(plugin_options)
        self._registry: Registry | None = None

    @property
    def registry(self) -> Registry:
        """The plugin registry, loaded on first use; plugin failures exit with a message."""
        if self._registry is None:
            try:
                self._registry = load_registry(load=self.load, block=self.block)
            except PluginError as exc:
                fail(str(exc), 1)
        return self._registry


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "-p",
    "plugin_options",
    multiple=True,
    metavar="MODULE|no:NAME",
    help="Load a plugin module explicitly, or block a plugin by name with no:NAME "
    "(e.g. -p 'no:double strike'). Repeatable.",
)
@click.version_option(package_name="ecs-combat")
@click.pass_context
def cli(ctx: click.Context, plugin_options: tuple[str, ...]) -> None:
    """Simulate Magic: The Gathering combat.

    Keyword plugins come from the `ecs_combat` entry points; set
    ECS_COMBAT_DISABLE_PLUGIN_AUTOLOAD=1 to load none.
    """
    ctx.obj = State(plugin_options)


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--engine", type=click.Choice(ENGINES), default="reference", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the CONTRACT.md JSON document.")
@click.pass_obj
def resolve(state: State, file: str, engine: str, as_json: bool) -> None:
    """Resolve the combat(s) in FILE (.toml, .json, or .jsonl with one scenario a line)."""
    registry = state.registry
    try:
        scenarios = load_scenarios(file, registry)
        results = ReferenceEngine(registry).resolve_many(scenarios)
    except InputError as exc:
        fail(str(exc), 2)
    except RefusedError as exc:
        fail(f"{file}: the {engine} engine refuses this scenario: {exc}", 2)
    if as_json:
        out = [json.dumps(r.to_json(), sort_keys=False) for r in results]
        if file.endswith(".jsonl"):
            click.echo("\n".join(out))
        else:
            click.echo(json.dumps(results[0].to_json(), indent=2))
        return
    console = Console(highlight=False)
    for i, (scenario, result) in enumerate(zip(scenarios, results, strict=True)):
        if len(scenarios) > 1:
            console.rule(f"{scenario.file}" if i == 0 else scenario.file)
        render(scenario, result, console)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list.")
@click.pass_obj
def plugins(state: State, as_json: bool) -> None:
    """List the loaded plugins with their distributions, versions and keywords."""
    registry = state.registry
    if as_json:
        doc = [
            {
                "name": p.name,
                "distribution": p.distribution,
                "version": p.version,
                "module": p.module,
                "keywords": list(p.keywords),
                "steps": list(p.steps),
                "cards": list(p.cards),
            }
            for p in registry.plugins
        ]
        click.echo(json.dumps(doc, indent=2))
        return
    table = Table("plugin", "distribution", "version", "keywords", "steps", "cards")
    for p in registry.plugins:
        table.add_row(
            p.name,
            p.distribution or "-",
            p.version or "-",
            ", ".join(p.keywords),
            ", ".join(p.steps),
            ", ".join(p.cards),
        )
    console = Console()
    console.print(table)
    steps = " → ".join(registry.step_names)
    console.print(f"Damage steps: {steps}")
    if registry.blocked:
        console.print(f"Blocked: {', '.join(sorted(registry.blocked))}")


def main() -> None:
    """Entry point of the console script: errors become messages, never tracebacks."""
    try:
        cli(standalone_mode=True)
    except (InputError, PluginError) as exc:  # pragma: no cover - commands catch these
        fail(str(exc), 2 if isinstance(exc, InputError) else 1)
    except Exception as exc:  # an internal error: one line, exit 1
        fail(f"internal error: {type(exc).__name__}: {exc}", 1)
