"""`ecs-combat simulate`: the run its flags ask for, its summary printed (:mod:`.simulate_table`,
:mod:`.card_table`) and its files written (the per-battle file:
:mod:`ecs_combat.simulation.outfiles`; the heatmap: :mod:`ecs_combat.simulation.heatmap`), and
``--replay``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import secrets
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import click
from rich.console import Console, RenderableType
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from ecs_combat.cli.card_table import render_card_summary
from ecs_combat.cli.flag_words import as_flags, in_flags
from ecs_combat.cli.simulate_flags import RunFlags, checked_flags
from ecs_combat.cli.simulate_table import (
    render_race_card_summary,
    render_race_summary,
    render_summary,
    run_line,
)
from ecs_combat.console import print_line, shown
from ecs_combat.errors import EcsCombatError, InputError
from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.card_summary import card_summary, plot_cards
from ecs_combat.simulation.checkpoints import Checkpoints, Rejected
from ecs_combat.simulation.distribute import Simulation, local_workers
from ecs_combat.simulation.executors import (
    WorkerPool,
    ctrl_c_deferred,
    ctrl_c_remembered,
    dask_executor,
)
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.heatmap import plot_heatmap
from ecs_combat.simulation.outfiles import BattleWriter
from ecs_combat.simulation.race_cards import race_card_summary
from ecs_combat.simulation.race_summary import race_summary
from ecs_combat.simulation.replay import replay_text
from ecs_combat.simulation.simulate import Run, summary
from ecs_combat.simulation.spec import (
    BattleSpec,
    Spec,
    decisions_refused,
    drawn_refused,
    mean_creatures,
    tournament,
)
from ecs_combat.simulation.spec_reader import load_spec
from ecs_combat.simulation.tasks import PluginOptions

#: At most this many task files that don't verify are named one by one on standard error.
NAMED_REJECTS = 10


# ---------------------------------------------------------------------------------------------
# Progress


class DelayedProgress(Progress):
    """A progress bar that stays hidden until the run has lasted `delay` seconds."""

    def __init__(self, *columns: Any, delay: float = 1.0, **kwargs: Any) -> None:
        self._shown_after = time.monotonic() + delay
        super().__init__(*columns, **kwargs)

    def get_renderables(self) -> Iterable[RenderableType]:
        """Nothing before the delay, then the usual bar."""
        if time.monotonic() < self._shown_after:
            return
        yield from super().get_renderables()


#: In a pipe, a run says how far it is on standard error this often (seconds).
PIPE_PROGRESS_EVERY = 30.0


class PipeProgress:
    """Progress where standard error is not a terminal: a line every `every` seconds (none
    for a run that ends sooner): the battles done, their speed, and the time left at that
    speed."""

    def __init__(
        self,
        total: int,
        every: float = PIPE_PROGRESS_EVERY,
        clock: Callable[[], float] = time.monotonic,
        say: Callable[[str], None] = lambda line: click.echo(line, err=True),
    ) -> None:
        self.total = total
        self.every = every
        self.clock = clock
        self.say = say
        self.started = clock()
        self.next_line = self.started + every
        self.done = 0

    def __call__(self, battles: int) -> None:
        """Count a finished chunk's or task's battles; say how far the run is when it's time."""
        self.done += battles
        now = self.clock()
        if now < self.next_line or self.done >= self.total:
            return
        self.next_line = now + self.every
        elapsed = now - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        left = f"about {duration((self.total - self.done) / rate)} left" if rate else "starting"
        self.say(
            f"ecs-combat: {self.done:,} of {self.total:,} battles "
            f"({100 * self.done / self.total:.1f}%) in {duration(elapsed)}, "
            f"{rate:,.0f} a second; {left}"
        )


def duration(seconds: float) -> str:
    """A time span for a person: ``45 s``, ``12 min 5 s``, ``3 h 20 min``, ``46 days``."""
    s = round(seconds)
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    if s < 86400 * 2:
        return f"{s // 3600} h {s % 3600 // 60} min"
    days = s / 86400
    return f"{days:,.0f} days" if days < 3650 else f"{days / 365.25:,.0f} years"


@contextlib.contextmanager
def progress_bar(total: int, description: str, enabled: bool) -> Iterator[Callable[[int], None]]:
    """A callback advancing a progress bar on standard error by the battles of each finished
    chunk or task, whichever worker ran it.

    On a terminal the bar (with the time left) is shown when `enabled` and the run lasts
    longer than a second; elsewhere (a pipe, a file, a log) a line says how far the run is
    every :data:`PIPE_PROGRESS_EVERY` seconds (:class:`PipeProgress`), --json or not.
    """
    console = Console(stderr=True)
    if not console.is_terminal:
        yield PipeProgress(total)
        return
    if not enabled:
        yield lambda battles: None
        return
    bar = DelayedProgress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("battles"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=False,
    )
    task = bar.add_task(description, total=total)
    with bar:
        yield lambda battles: bar.advance(task, battles)


# ---------------------------------------------------------------------------------------------
# The command


class Interrupted(EcsCombatError):
    """The run was interrupted (Ctrl-C); the message says what was kept."""


class OutputFailed(EcsCombatError):
    """The run finished and its summary was printed, but a file asked for could not be
    written; the message says which and why."""


def report_rejected(rejected: list[Rejected], simulation: Simulation, directory: str) -> None:
    """Say on standard error which task files did not verify and are run again."""
    for r in rejected[:NAMED_REJECTS]:
        click.echo(
            f"ecs-combat: {Path(directory) / r.file}: {r.reason}; "
            f"{simulation.describe_tasks([r.task])} is run again",
            err=True,
        )
    if len(rejected) > NAMED_REJECTS:
        more = [r.task for r in rejected[NAMED_REJECTS:]]
        click.echo(
            f"ecs-combat: {len(more)} more task files in {directory} do not verify: "
            f"{simulation.describe_tasks(more)} are run again",
            err=True,
        )


def run_command(
    registry: Registry,
    spec_file: str | None,
    battles: int,
    seed: int | None,
    engine_name: str,
    as_json: bool,
    out: str | None = None,
    plot: str | None = None,
    chunk_size: int | None = None,
    *,
    workers: int = 1,
    scheduler: str | None = None,
    resume: bool = False,
    plugins: PluginOptions | None = None,
    decisions: str | None = None,
) -> None:
    """`ecs-combat simulate`: draw, resolve and tally, in this process, on `workers` local
    processes (no more than there are tasks to run) or on the Dask cluster at `scheduler`;
    print the summary; write the files.

    Every output path is checked before the run. Raises :class:`InputError` for a bad SPEC or
    option (in the flags' words), :class:`RefusedError` when the batched engine can't resolve
    the battles, :class:`~ecs_combat.simulation.distribute.WorkerDied` when a worker goes away,
    :class:`Interrupted` on Ctrl-C, whenever it comes (building the run, starting the workers,
    running, writing the outputs), and :class:`OutputFailed` (after printing the summary) when
    a file could not be written after all.
    """
    flags = RunFlags(
        spec_file, battles, seed, engine_name, as_json, out, plot, chunk_size,
        workers, scheduler, resume, plugins, decisions,
    )  # fmt: skip
    #: The run and its checkpoint directory, once built: what an interruption reports.
    built: list[tuple[Simulation, str | None]] = []
    try:
        with ctrl_c_remembered():
            _run_command(registry, flags, built)
    except KeyboardInterrupt:
        raise Interrupted(_interrupted(*built[0]) if built else "interrupted") from None
    except InputError as exc:
        raise as_flags(exc) from None


def _interrupted(simulation: Simulation, checkpoint: str | None) -> str:
    """What an interrupted run says: how many of its tasks the checkpoint directory holds."""
    if checkpoint is None:
        return "interrupted"
    return (
        f"interrupted; {simulation.saved} of {len(simulation.tasks)} tasks are saved in "
        f"{checkpoint}: run the same command with --resume to finish"
    )


def _run_command(
    registry: Registry, flags: RunFlags, built: list[tuple[Simulation, str | None]]
) -> None:
    """:func:`run_command`, but for Ctrl-C; the run is put in `built` as soon as it is."""
    spec = _with_decisions(
        load_spec(flags.spec_file, registry) if flags.spec_file else tournament(registry),
        flags.decisions,
        registry,
    )
    races = isinstance(spec, BattleSpec) and spec.race is not None
    kind = checked_flags(spec, flags)
    from ecs_combat.kernel.availability import for_run

    # the kernels' default for this run's size (docs/performance.md, "Kernels by default")
    hint = for_run(flags.battles * mean_creatures(spec), registry)
    if hint:
        click.echo(f"ecs-combat: {hint}", err=True)
    checkpoint = flags.out if kind == "checkpoints" else None
    seed = flags.seed
    if seed is None and flags.resume and checkpoint is not None:
        seed = Checkpoints.saved_seed(checkpoint)
    if seed is None:
        seed = secrets.randbits(32)  # short enough to read back and pass as --seed
    simulation = Simulation(
        spec,
        seed,
        flags.battles,
        flags.engine_name,
        registry=registry,
        plugins=flags.plugins,
        chunk_size=flags.chunk_size,
        checkpoint=checkpoint,
        resume=flags.resume,
        with_table=kind in ("csv", "parquet"),
    )
    built.append((simulation, checkpoint))
    writer = None
    if flags.out is not None and checkpoint is None:
        writer = BattleWriter(flags.out, simulation.generator.label, races=races)
    if checkpoint is not None:
        report_rejected(simulation.rejected, simulation, checkpoint)
    run = _run(simulation, flags, writer)
    errors = _saving_errors(simulation, writer)
    doc = _summary(simulation, spec, seed, run, flags)
    cards = simulation.generator.pool is not None
    before_plot = len(errors)  # the errors of --out; those after, of --plot
    errors += _plotted(doc, flags.plot, cards, races)
    doc["run"]["output_errors"] = errors
    written = _written(flags.out, kind, flags.plot, errors, before_plot, cards, races)
    doc["run"]["written"] = written
    _show(doc, flags.as_json, cards, races, written)
    if errors:
        raise OutputFailed("; ".join(errors) + " (the summary printed is complete)")


def _run(simulation: Simulation, flags: RunFlags, writer: BattleWriter | None) -> Run:
    """The run on the executor the flags ask for (this process, local workers or a Dask
    cluster), with a progress bar and the per-battle file being written."""
    description = f"{flags.engine_name} engine"
    workers = flags.workers
    with contextlib.ExitStack() as stack:
        stack.callback(simulation.close)
        executor = None
        if flags.scheduler is not None:
            executor, workers = stack.enter_context(dask_executor(flags.scheduler))
            description += f", Dask cluster of {workers} threads"
        else:
            workers = local_workers(workers, simulation)
        if flags.scheduler is None and workers > 1:
            # Forked before the progress bar starts its thread; stopped at once on the way out,
            # however the run ends (Ctrl-C waits until the stop is registered).
            with ctrl_c_deferred():
                pool = WorkerPool(workers)
                stack.callback(pool.stop)
            executor = pool
            description += f", {workers} workers"
        if writer is not None:
            stack.enter_context(writer)
        advance = stack.enter_context(
            progress_bar(flags.battles, description, enabled=not flags.as_json)
        )
        return simulation.run(
            executor,
            workers,
            advance,
            writer.write if writer is not None else None,
        )


def _saving_errors(simulation: Simulation, writer: BattleWriter | None) -> list[str]:
    """What --out could not write: the per-battle file, or a task's checkpoint."""
    errors: list[str] = []
    if writer is not None and writer.error is not None:
        errors.append(f"{in_flags(writer.error)}; the file was not written")
    store = simulation.checkpoints
    if store is not None and store.save_error is not None:
        errors.append(
            f"--out {store.save_error}; {simulation.saved} of {len(simulation.tasks)} tasks are "
            "saved there (--resume runs the rest)"
        )
    return errors


def _summary(
    simulation: Simulation, spec: Spec, seed: int, run: Run, flags: RunFlags
) -> dict[str, Any]:
    """The run's summary (of cards, races or matchups), with the flags it was run with."""
    generator = simulation.generator
    races = isinstance(spec, BattleSpec) and spec.race is not None
    if generator.pool is not None and races:
        doc = race_card_summary(generator.pool, spec, seed, run)
    elif generator.pool is not None:
        doc = card_summary(generator.pool, spec, seed, run)
    elif isinstance(spec, BattleSpec) and spec.race is not None:
        doc = race_summary(generator, spec, seed, run)
    else:
        doc = summary(generator, spec, seed, run)
    doc["run"]["scheduler"] = flags.scheduler
    doc["run"]["spec_file"] = flags.spec_file
    doc["run"]["out"] = flags.out
    return doc


def _plotted(doc: dict[str, Any], plot: str | None, cards: bool, races: bool) -> list[str]:
    """The chart written to `plot` (the cards' or the heatmap); what went wrong, if anything."""
    if plot is None:
        return []
    if races:
        return [f"--plot {plot}: a SPEC with [race] draws no chart"]
    try:
        if cards:
            plot_cards(doc, plot)
        else:
            plot_heatmap(doc, plot)
    except InputError as exc:
        return [str(as_flags(exc))]
    except OSError as exc:
        return [f"--plot {plot}: cannot write: {exc.strerror or exc}"]
    return []


def _show(
    doc: dict[str, Any], as_json: bool, cards: bool, races: bool, written: list[dict[str, str]]
) -> None:
    """Print the summary: as JSON, or as the table for a person and the files written."""
    if as_json:
        click.echo(json.dumps(doc, indent=2))
        return
    console = Console(highlight=False)
    if cards and races:
        render_race_card_summary(doc, console, run_line(doc))
    elif cards:
        render_card_summary(doc, console, run_line(doc))
    elif races:
        render_race_summary(doc, console, run_line(doc))
    else:
        render_summary(doc, console)
    for line in written:
        print_line(console, f"Wrote {line['what']} to {shown(line['path'])}")


def _written(
    out: str | None,
    kind: str | None,
    plot: str | None,
    errors: list[str],
    before_plot: int,
    cards: bool,
    races: bool = False,
) -> list[dict[str, str]]:
    """The files the run wrote and what each holds (``run.written``; a line each under the
    readable summary). `errors` are the files that failed, those of --out before
    `before_plot`, then those of --plot."""
    written = []
    if out is not None and before_plot == 0:
        what = "the checkpoints of its tasks" if kind == "checkpoints" else "per-battle results"
        if races:
            what = "per-race results"
        written.append({"what": what, "path": out})
    if plot is not None and len(errors) == before_plot:
        chart = "the chart of the best and worst cards" if cards else "the heatmap"
        written.append({"what": chart, "path": plot})
    return written


def _with_decisions(spec: Spec, decisions: str | None, registry: Registry) -> Spec:
    """The spec with `--decisions` (when given) instead of its own ``decisions``."""
    if decisions is not None and isinstance(spec, BattleSpec) and spec.race is not None:
        raise InputError(
            "--decisions", decisions, "a SPEC with [race] is decided by its race.decisions"
        )
    if decisions is None or decisions == spec.decisions:
        return spec
    spec = dataclasses.replace(spec, decisions=decisions)
    why = (decisions_refused if decisions == "optimal" else drawn_refused)(spec, registry)
    if why is not None:
        raise InputError("--decisions", decisions, f"refused for this SPEC: {why}")
    return spec


def replay_command(
    registry: Registry,
    spec_file: str | None,
    battles: int,
    seed: int | None,
    battle: int,
    decisions: str | None = None,
) -> None:
    """`ecs-combat simulate [SPEC] --seed S --replay K`: print battle K of that run as a
    scenario file (TOML) that `ecs-combat resolve` reads; nothing is resolved here."""
    if seed is None:
        raise InputError(
            "--replay", str(battle), "needs the run's --seed (the seed its summary shows)"
        )
    if battle >= battles:
        raise InputError(
            "--replay", str(battle), f"the run has battles 0 to {battles - 1:,} (-n {battles:,})"
        )
    spec = _with_decisions(
        load_spec(spec_file, registry) if spec_file else tournament(registry), decisions, registry
    )
    run = f"ecs-combat simulate {spec_file + ' ' if spec_file else ''}--seed {seed}"
    comments = (
        f"Battle {battle} of `{run}` (the same battle whatever -n, --engine or --workers).",
        "Players: A attacks B. Creatures: c0, c1, ... as in the per-battle file's creatures.",
        "Read it with: ecs-combat resolve FILE.toml",
    )
    if isinstance(spec, BattleSpec) and spec.race is not None:
        comments = (
            f"Race {battle} of `{run}` (the same race whatever -n, --engine or --workers).",
            "Players: A (the drawn attacking player) takes the first turn; creatures c0, c1, ...",
            "Play it with: ecs-combat race FILE.toml",
        )
    click.echo(
        replay_text(make_generator(spec, registry), registry, seed, battle, comments), nl=False
    )
