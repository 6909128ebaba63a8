"""The ``ecs-combat`` command line (CONTRACT.md sections 2-4)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import click
from rich.console import Console
from rich.table import Table

from ecs_combat.batched import BatchedEngine
from ecs_combat.definitions import plugin_name_for
from ecs_combat.errors import InputError, PluginError, RefusedError
from ecs_combat.plugins import Registry, load_registry, parse_plugin_options
from ecs_combat.reference import ReferenceEngine
from ecs_combat.report import render
from ecs_combat.scenario import load_scenarios

F = TypeVar("F", bound=Callable[..., Any])

ENGINES = ("reference", "batched")


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
        if engine == "batched":  # a .jsonl file is resolved as one batch
            results = BatchedEngine(registry).resolve_many(scenarios)
        else:
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
        console.print(
            f"Blocked: {', '.join(sorted({plugin_name_for(n) for n in registry.blocked}))}"
        )
    for reason in registry.unavailable.values():
        console.print(f"Unavailable: {reason}")


@cli.command()
@click.argument("spec", required=False, type=click.Path(dir_okay=False))
@click.option("--battles", "-n", type=click.IntRange(min=1), default=100_000, show_default=True)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    help="Seed of the battles (default: a random one, printed in the summary).",
)
@click.option("--engine", type=click.Choice(("batched", "reference")), default="batched",
              show_default=True)  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print the machine-readable summary only.")
@click.option("--out", type=click.Path(),
              help="Write per-battle results to this .csv or .parquet file, or checkpoints of "
              "finished tasks to this directory (docs/distributed.md).")  # fmt: skip
@click.option("--resume", is_flag=True,
              help="Skip the tasks already checkpointed in the --out directory.")  # fmt: skip
@click.option("--plot", type=click.Path(dir_okay=False),
              help="Draw the matchup heatmap to this .png file.")  # fmt: skip
@click.option("--chunk-size", type=click.IntRange(min=1),
              help="Battles per chunk (memory and progress); results do not depend on it.")  # fmt: skip
@click.option("--workers", "-w", type=click.IntRange(min=1), default=1, show_default=True,
              help="Run the battles on this many local processes.")  # fmt: skip
@click.option("--scheduler", metavar="ADDRESS",
              help="Run the battles on the Dask cluster with this scheduler (tcp://host:8786).")  # fmt: skip
@click.pass_obj
def simulate(
    state: State,
    spec: str | None,
    battles: int,
    seed: int | None,
    engine: str,
    as_json: bool,
    out: str | None,
    resume: bool,
    plot: str | None,
    chunk_size: int | None,
    workers: int,
    scheduler: str | None,
) -> None:
    """Resolve many random battles in bulk and tally the outcomes per matchup.

    Without SPEC: the keyword tournament, one attacker against one blocker, each with a strike
    keyword drawn from none and every installed strike keyword. SPEC is a TOML file describing
    other battles (docs/simulate.md). --workers and --scheduler spread the battles over local
    processes or a Dask cluster, with the same results; --out DIR keeps finished tasks and
    --resume finishes an interrupted run (docs/distributed.md).
    """
    from ecs_combat.distribute import PluginOptions, TaskFailed, WorkerDied
    from ecs_combat.simout import Interrupted, run_command

    registry = state.registry
    plugins = PluginOptions.current(state.load, sorted(state.block))
    try:
        run_command(
            registry, spec, battles, seed, engine, as_json, out, plot, chunk_size,
            workers=workers, scheduler=scheduler, resume=resume, plugins=plugins,
        )  # fmt: skip
    except InputError as exc:
        fail(str(exc), 2)
    except RefusedError as exc:
        fail(f"the {engine} engine refuses these battles: {exc}", 2)
    except (WorkerDied, TaskFailed, PluginError) as exc:
        fail(str(exc), 1)
    except Interrupted as exc:
        fail(str(exc), 130)


@cli.command()
@click.option("--battles", "-n", type=click.IntRange(min=1), default=1_000_000, show_default=True,
              help="Tournament battles for the batched engine and the floor.")  # fmt: skip
@click.option("--reference-battles", type=click.IntRange(min=10), default=10_000,
              show_default=True, help="Tournament battles for the reference engine "
              "(a tenth of them for its melee).")  # fmt: skip
@click.option("--melee-battles", type=click.IntRange(min=1), default=100_000, show_default=True,
              help="Melee battles (5 attackers, 0-3 blockers each) for the batched engine.")  # fmt: skip
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True)
@click.option("--repeat", type=click.IntRange(min=1), default=3, show_default=True,
              help="Runs per measurement; the best is kept.")  # fmt: skip
@click.option("--whole-process/--in-process", default=True, show_default=True,
              help="Also time the tournament as whole processes: simulate against the floor.")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.option("--check", is_flag=True,
              help="Exit 1 if a target of docs/performance.md is missed, naming it.")  # fmt: skip
@click.pass_obj
def bench(
    state: State,
    battles: int,
    reference_battles: int,
    melee_battles: int,
    seed: int,
    repeat: int,
    whole_process: bool,
    as_json: bool,
    check: bool,
) -> None:
    """Measure the engines side by side on this machine (docs/performance.md)."""
    from ecs_combat.bench import missed_targets, render_bench, run_bench

    report = run_bench(
        state.registry, battles, reference_battles, melee_battles, seed, repeat, whole_process
    )
    if as_json:
        click.echo(json.dumps(report, indent=2))
    else:
        render_bench(report, Console(highlight=False))
    if check:
        missed = missed_targets(report)
        for line in missed:
            click.echo(f"missed: {line}", err=True)
        if missed:
            sys.exit(1)


def main() -> None:
    """Entry point of the console script: errors become messages, never tracebacks."""
    try:
        cli(standalone_mode=True)
    except (InputError, PluginError) as exc:  # pragma: no cover - commands catch these
        fail(str(exc), 2 if isinstance(exc, InputError) else 1)
    except Exception as exc:  # an internal error: one line, exit 1
        fail(f"internal error: {type(exc).__name__}: {exc}", 1)
