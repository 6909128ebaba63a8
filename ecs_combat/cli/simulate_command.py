"""``ecs-combat simulate`` and ``ecs-combat bench``: bulk runs (docs/simulate.md,
docs/distributed.md) and the engines measured (docs/performance.md), imported when they run."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

import click

from ecs_combat.cli.common import State, ctrl_c_exits_130, fail
from ecs_combat.errors import InputError, PluginError, RefusedError

if TYPE_CHECKING:
    from ecs_combat.plugin.registry import Registry


@click.command()
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
              help="Finish the run checkpointed in the --out directory (it must hold one): "
              "skip its tasks saved there that verify.")  # fmt: skip
@click.option("--plot", type=click.Path(dir_okay=False),
              help="Draw the matchup heatmap (for a card pool: a bar chart of the best and "
                   "worst cards) to this .png file.")  # fmt: skip
@click.option("--chunk-size", type=click.IntRange(min=1),
              help="Battles per chunk (memory and progress; at most about 2,097,152 "
              "creatures' worth); results do not depend on it.")  # fmt: skip
@click.option("--workers", "-w", type=click.IntRange(min=1), default=1, show_default=True,
              help="Run the battles on this many local processes.")  # fmt: skip
@click.option("--scheduler", metavar="ADDRESS",
              help="Run the battles on the Dask cluster with this scheduler (tcp://host:8786).")  # fmt: skip
@click.option("--decisions", type=click.Choice(("drawn", "optimal")),
              help="Blocks as drawn, or the defending player's best, as `blocks` chooses; "
              "default: the SPEC's decisions key, else drawn.")  # fmt: skip
@click.option("--replay", type=click.IntRange(min=0), metavar="K",
              help="Print battle K of the run (give its --seed) as a scenario file for "
              "`ecs-combat resolve` (a turn file for a SPEC with [turn]), instead of running "
              "it.")  # fmt: skip
@click.pass_obj
@ctrl_c_exits_130
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
    decisions: str | None,
    replay: int | None,
) -> None:
    """Resolve many random battles in bulk and tally the outcomes per matchup.

    Without SPEC: the keyword tournament, one attacker against one blocker, each with a strike
    keyword drawn from none and every installed strike keyword. SPEC is a TOML file describing
    other battles (docs/simulate.md). --workers and --scheduler spread the battles over local
    processes or a Dask cluster, with the same results; --out DIR keeps finished tasks and
    --resume finishes an interrupted run (docs/distributed.md). --decisions optimal chooses
    each battle's blocks as the defending player's best (docs/simulate.md).
    """
    from ecs_combat.cli.flag_words import in_flags
    from ecs_combat.cli.simulate_run import Interrupted, OutputFailed, run_command
    from ecs_combat.simulation.distribute import TaskFailed, WorkerDied
    from ecs_combat.simulation.tasks import PluginOptions

    registry = state.registry
    plugins = PluginOptions.current(state.load, sorted(state.block))
    if replay is not None:
        _replay(registry, spec, battles, seed, replay, decisions, out=out, plot=plot,
                json=as_json, resume=resume, workers=workers > 1, scheduler=scheduler)  # fmt: skip
        return
    from ecs_combat.kernel.compiles import setting_error

    if wrong := setting_error():
        fail(wrong, 2)
    try:
        run_command(
            registry, spec, battles, seed, engine, as_json, out, plot, chunk_size,
            workers=workers, scheduler=scheduler, resume=resume, plugins=plugins,
            decisions=decisions,
        )  # fmt: skip
    except InputError as exc:
        fail(str(exc), 2)
    except RefusedError as exc:
        fail(f"the {engine} engine refuses these battles: {exc}", 2)
    except WorkerDied as exc:
        fail(in_flags(str(exc)), 1)
    except (TaskFailed, PluginError, OutputFailed) as exc:
        fail(str(exc), 1)
    except Interrupted as exc:
        fail(str(exc), 130)


def _replay(
    registry: Registry,
    spec: str | None,
    battles: int,
    seed: int | None,
    battle: int,
    decisions: str | None,
    **others: object,
) -> None:
    """simulate --replay: one battle printed; options of a run are refused, by name."""
    from ecs_combat.cli.simulate_run import replay_command

    given = [name for name, value in others.items() if value]
    if given:
        fail(f"--replay prints one battle and runs nothing: drop --{given[0]}", 2)
    try:
        replay_command(registry, spec, battles, seed, battle, decisions)
    except InputError as exc:
        fail(str(exc), 2)


@click.command()
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
    from ecs_combat.bench.bench import missed_targets, run_bench
    from ecs_combat.cli.bench_table import render_bench

    report = run_bench(
        state.registry, battles, reference_battles, melee_battles, seed, repeat, whole_process
    )
    if as_json:
        click.echo(json.dumps(report, indent=2))
    else:
        from rich.console import Console

        render_bench(report, Console(highlight=False))
    if check:
        missed = missed_targets(report)
        for line in missed:
            click.echo(f"missed: {line}", err=True)
        if missed:
            sys.exit(1)
