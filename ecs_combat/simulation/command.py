"""What `ecs-combat simulate` shows and writes: the matchup table, the progress bar, the
per-battle file (:mod:`ecs_combat.simulation.outfiles`) and the heatmap (:mod:`ecs_combat.simulation.heatmap`), and
the command that runs it all.
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
from rich.table import Table
from rich.text import Text

from ecs_combat.console import is_plain, print_line, print_plain_table, shown, summary_table
from ecs_combat.errors import EcsCombatError, InputError
from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.card_summary import card_summary, plot_cards, render_card_summary
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
from ecs_combat.simulation.intervals import percent_with_interval
from ecs_combat.simulation.outfiles import BattleWriter, check_out_path, check_writable
from ecs_combat.simulation.race_cards import race_card_summary, render_race_card_summary
from ecs_combat.simulation.race_summary import race_summary, render_race_summary
from ecs_combat.simulation.replay import replay_text
from ecs_combat.simulation.simulate import summary
from ecs_combat.simulation.spec import (
    BattleSpec,
    Spec,
    decisions_refused,
    drawn_refused,
    tournament,
)
from ecs_combat.simulation.spec_reader import load_spec
from ecs_combat.simulation.tasks import PluginOptions

#: Matchup labels up to this long stay on one line in the table; longer ones fold.
ONE_LINE_LABEL = 16
#: At most this many task files that don't verify are named one by one on standard error.
NAMED_REJECTS = 10


# ---------------------------------------------------------------------------------------------
# The readable table


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def render_summary(doc: dict[str, Any], console: Console) -> None:
    """Print the summary for a person: one row per matchup, outcomes as shares of its battles,
    win rates with their 95% intervals.

    A Rich table on a terminal; the plain layout of :mod:`ecs_combat.console` elsewhere.
    """
    totals = doc["totals"]
    with_damage = totals["damage_to_players"] > 0
    title = (
        f"{doc['simulation'].capitalize()}{spec_name(doc, ' ')}: {doc['battles']:,} battles, "
        f"{doc['creatures']:,} creatures, seed {doc['seed']}"
    )
    headings = ["attacker\nwins", "blocker\nwins", "trades", "both\nsurvive"]
    if with_damage:
        headings.append("damage to\nplayers")
    rows: list[list[str]] = []
    for row in [*doc["matchups"], {"attacker": "all", "blocker": "all", **totals}]:
        n = row["battles"]
        cells = [
            shown(row["attacker"]),
            shown(row["blocker"]),
            f"{n:,}",
            percent_with_interval(row["attacker_win_rate"], row["attacker_win_rate_ci95"]),
            percent_with_interval(row["blocker_win_rate"], row["blocker_win_rate_ci95"]),
            _percent(row["trades"], n),
            _percent(row["neither_dies"], n),
        ]
        if with_damage:
            cells.append(f"{row['damage_to_players']:,}")
        rows.append(cells)
    if is_plain(console):
        headers = ["attacker", "blocker", "battles", *(h.replace("\n", " ") for h in headings)]
        right = [False, False] + [True] * (len(headers) - 2)
        print_plain_table(console, headers, rows, right, title=title)
    else:
        console.print(_summary_table(title, headings, rows, doc))
    print_line(console, run_line(doc), "dim")


def spec_name(doc: dict[str, Any], before: str = "") -> str:
    """The SPEC file's name (after `before`), or nothing for the tournament."""
    spec_file = doc["run"].get("spec_file")
    return f"{before}{Path(spec_file).name}" if spec_file else ""


def run_line(doc: dict[str, Any]) -> str:
    """How the run was made, in a line: battles resolved in this run and their speed, and
    those read back from checkpoints."""
    run = doc["run"]
    workers = f", {run['workers']} workers" if run["workers"] > 1 else ""
    resolved = run.get("battles_resolved", doc["battles"])
    speed = f", {run['battles_per_second']:,} battles/s" if run["battles_per_second"] else ""
    timed = f" in {run['seconds']:.2f} s{speed}"
    resumed = run.get("battles_resumed", 0)
    if not resumed:
        return f"{run['engine']} engine{workers}: {doc['battles']:,} battles{timed}"
    where = f" from {run['out']}" if run.get("out") else ""
    if not resolved:
        return f"all {doc['battles']:,} battles resumed{where}; 0 resolved in this run"
    return (
        f"{resumed:,} battles resumed{where}; {run['engine']} engine{workers}: "
        f"{resolved:,} resolved in this run{timed}"
    )


def _summary_table(
    title: str, headings: list[str], rows: list[list[str]], doc: dict[str, Any]
) -> Table:
    """The summary as a Rich table: a section per attacker, the totals in bold."""
    table = summary_table(title)
    short = max(len(label) for row in rows for label in row[:2]) <= ONE_LINE_LABEL
    table.add_column("attacker", no_wrap=short, overflow="fold")
    table.add_column("blocker", no_wrap=short, overflow="fold")
    table.add_column("battles", justify="right", no_wrap=True, min_width=len(f"{doc['battles']:,}"))
    for heading in headings:
        table.add_column(heading, justify="right", no_wrap=True, min_width=6)
    if len(headings) > 4:
        table.columns[-1].min_width = len(f"{doc['totals']['damage_to_players']:,}")
    previous = None
    for i, row in enumerate(rows):
        last = i == len(rows) - 1
        if previous is not None and (row[0] != previous or last):
            table.add_section()
        previous = row[0]
        table.add_row(*(Text(cell) for cell in row), style="bold" if last else None)
    return table


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
    option, :class:`RefusedError` when the batched engine can't resolve the battles,
    :class:`~ecs_combat.simulation.distribute.WorkerDied` when a worker goes away, :class:`Interrupted`
    on Ctrl-C, whenever it comes (building the run, starting the workers, running, writing
    the outputs), and :class:`OutputFailed` (after printing the summary) when a file could not
    be written after all.
    """
    #: The run and its checkpoint directory, once built: what an interruption reports.
    built: list[tuple[Simulation, str | None]] = []
    try:
        with ctrl_c_remembered():
            _run_command(
                registry, spec_file, battles, seed, engine_name, as_json, out, plot, chunk_size,
                workers=workers, scheduler=scheduler, resume=resume, plugins=plugins,
                decisions=decisions, built=built,
            )  # fmt: skip
    except KeyboardInterrupt:
        raise Interrupted(_interrupted(*built[0]) if built else "interrupted") from None


def _interrupted(simulation: Simulation, checkpoint: str | None) -> str:
    """What an interrupted run says: how many of its tasks the checkpoint directory holds."""
    if checkpoint is None:
        return "interrupted"
    return (
        f"interrupted; {simulation.saved} of {len(simulation.tasks)} tasks are saved in "
        f"{checkpoint}: run the same command with --resume to finish"
    )


def _run_command(
    registry: Registry,
    spec_file: str | None,
    battles: int,
    seed: int | None,
    engine_name: str,
    as_json: bool,
    out: str | None,
    plot: str | None,
    chunk_size: int | None,
    *,
    workers: int,
    scheduler: str | None,
    resume: bool,
    plugins: PluginOptions | None,
    decisions: str | None,
    built: list[tuple[Simulation, str | None]],
) -> None:
    """:func:`run_command`, but for Ctrl-C; the run is put in `built` as soon as it is."""
    spec = _with_decisions(
        load_spec(spec_file, registry) if spec_file else tournament(registry), decisions, registry
    )
    if isinstance(spec, BattleSpec) and spec.turn is not None and engine_name != "batched":
        raise InputError(
            "--engine", engine_name, "a SPEC with [turn] resolves on the batched engine only"
        )
    races = isinstance(spec, BattleSpec) and spec.race is not None
    kind = check_out_path(out) if out is not None else None
    if races and kind == "checkpoints":
        raise InputError(
            "--out",
            str(out),
            "a SPEC with [race] keeps no checkpoints: --out FILE.csv or "
            "FILE.parquet writes one row per race",
        )
    checkpoint = out if kind == "checkpoints" else None
    if resume and checkpoint is None:
        raise InputError("--resume", "", "needs --out DIR, the directory of the run to resume")
    if scheduler is not None and workers > 1:
        raise InputError(
            "--workers", str(workers), "the Dask cluster decides the workers: drop --workers"
        )
    if plot is not None:
        if Path(plot).suffix.lower() != ".png":
            raise InputError(
                "--plot", plot, "the chart is written as PNG: the file must end in .png"
            )
        check_writable(plot, "--plot")
    if seed is None and resume and checkpoint is not None:
        seed = Checkpoints.saved_seed(checkpoint)
    if seed is None:
        seed = secrets.randbits(32)  # short enough to read back and pass as --seed
    simulation = Simulation(
        spec,
        seed,
        battles,
        engine_name,
        registry=registry,
        plugins=plugins,
        chunk_size=chunk_size,
        checkpoint=checkpoint,
        resume=resume,
        with_table=kind in ("csv", "parquet"),
    )
    built.append((simulation, checkpoint))
    writer = None
    if out is not None and checkpoint is None:
        writer = BattleWriter(out, simulation.generator.label, races=races)
    if checkpoint is not None:
        report_rejected(simulation.rejected, simulation, checkpoint)
    description = f"{engine_name} engine"
    with contextlib.ExitStack() as stack:
        stack.callback(simulation.close)
        executor = None
        if scheduler is not None:
            executor, workers = stack.enter_context(dask_executor(scheduler))
            description += f", Dask cluster of {workers} threads"
        else:
            workers = local_workers(workers, simulation)
        if scheduler is None and workers > 1:
            # Forked before the progress bar starts its thread; stopped at once on the way out,
            # however the run ends (Ctrl-C waits until the stop is registered).
            with ctrl_c_deferred():
                pool = WorkerPool(workers)
                stack.callback(pool.stop)
            executor = pool
            description += f", {workers} workers"
        if writer is not None:
            stack.enter_context(writer)
        advance = stack.enter_context(progress_bar(battles, description, enabled=not as_json))
        run = simulation.run(
            executor,
            workers,
            advance,
            writer.write if writer is not None else None,
        )
    errors: list[str] = []
    if writer is not None and writer.error is not None:
        errors.append(f"{writer.error}; the file was not written")
    store = simulation.checkpoints
    if store is not None and store.save_error is not None:
        errors.append(
            f"--out {store.save_error}; {simulation.saved} of {len(simulation.tasks)} tasks are "
            "saved there (--resume runs the rest)"
        )
    generator = simulation.generator
    cards = generator.pool is not None
    if generator.pool is not None and races:
        doc = race_card_summary(generator.pool, spec, seed, run)
    elif generator.pool is not None:
        doc = card_summary(generator.pool, spec, seed, run)
    elif isinstance(spec, BattleSpec) and spec.race is not None:
        doc = race_summary(generator, spec, seed, run)
    else:
        doc = summary(generator, spec, seed, run)
    doc["run"]["scheduler"] = scheduler
    doc["run"]["spec_file"] = spec_file
    doc["run"]["out"] = out
    before_plot = len(errors)  # the errors of --out; those after, of --plot
    if plot is not None and races:
        errors.append(f"--plot {plot}: a SPEC with [race] draws no chart")
    elif plot is not None:
        try:
            if cards:
                plot_cards(doc, plot)
            else:
                plot_heatmap(doc, plot)
        except InputError as exc:
            errors.append(str(exc))
        except OSError as exc:
            errors.append(f"--plot {plot}: cannot write: {exc.strerror or exc}")
    doc["run"]["output_errors"] = errors
    written = _written(out, kind, plot, errors, before_plot, cards, races)
    doc["run"]["written"] = written
    if as_json:
        click.echo(json.dumps(doc, indent=2))
    else:
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
    if errors:
        raise OutputFailed("; ".join(errors) + " (the summary printed is complete)")


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
