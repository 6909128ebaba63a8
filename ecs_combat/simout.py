"""What `ecs-combat simulate` shows and writes: the matchup table, the heatmap, the per-battle
file (CSV or Parquet) and the progress bar.

Files are written to a temporary file beside the target and renamed into place when complete,
so an interrupted or failed run leaves nothing half-written.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import re
import secrets
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any

import click
import numpy as np
from rich import box
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

from ecs_combat.checkpoints import Checkpoints, Rejected
from ecs_combat.distribute import PluginOptions, Simulation, local_workers
from ecs_combat.errors import EcsCombatError, InputError
from ecs_combat.executors import WorkerPool, dask_executor
from ecs_combat.plugins import Registry
from ecs_combat.simspec import Spec, load_spec, tournament
from ecs_combat.simulate import OUTCOME_NAMES, TABLE_COLUMNS, ChunkResult, summary

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Suffixes of the per-battle file, by format.
CSV_SUFFIXES = (".csv",)
PARQUET_SUFFIXES = (".parquet", ".pq")
PARQUET_EXTRA = 'pip install "ecs-combat[parquet]"'
#: Matchup labels up to this long stay on one line in the table; longer ones fold.
ONE_LINE_LABEL = 16
#: An `--out` suffix like this one (a letter, then letters or digits: ``.xlsx``) names a file;
#: any other (``run-1.2``) is part of a directory's name.
FILE_SUFFIX = re.compile(r"\.[a-z][a-z0-9]*")
#: At most this many task files that don't verify are named one by one on standard error.
NAMED_REJECTS = 10


# ---------------------------------------------------------------------------------------------
# Writing files atomically


def temporary_beside(target: str | Path, option: str) -> Path:
    """A new empty file beside `target`, to be renamed to it when complete; an
    :class:`InputError` naming `option` if none can be made there."""
    path = Path(target)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent or ".")
    except OSError as exc:
        raise InputError(option, str(target), f"cannot write: {exc.strerror or exc}") from None
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    return Path(tmp)


@contextlib.contextmanager
def atomic_path(target: str | Path, option: str) -> Iterator[Path]:
    """A temporary path beside `target`, renamed to it if the body finishes, else removed."""
    tmp = temporary_beside(target, option)
    try:
        yield tmp
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def check_writable(path: str, option: str) -> None:
    """Check, before a run, that a file can be written at `path` (a file is made beside it
    and removed); else :class:`InputError`."""
    if Path(path).is_dir():
        raise InputError(option, path, "is a directory")
    temporary_beside(path, option).unlink()


# ---------------------------------------------------------------------------------------------
# The per-battle file


def _labels(codes: np.ndarray, label: Callable[[int], str]) -> list[str]:
    """Codes as labels, computing each distinct label once."""
    distinct, inverse = np.unique(codes, return_inverse=True)
    names = np.array([label(int(c)) for c in distinct.tolist()], dtype=object)
    out: list[str] = names[inverse.reshape(-1)].tolist()
    return out


def check_out_path(path: str) -> str:
    """What `--out` names: ``"csv"`` or ``"parquet"`` (a per-battle file, by its suffix), or
    ``"checkpoints"`` (a directory: an existing one, a path ending in ``/``, or a path whose
    suffix is not a file's, such as ``run-1.2``); an error if it is none of them."""
    target = Path(path)
    if target.is_dir() or path.endswith(("/", os.sep)):
        return "checkpoints"
    suffix = target.suffix.lower()
    if suffix in CSV_SUFFIXES:
        return "csv"
    if suffix in PARQUET_SUFFIXES:
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise InputError(
                "--out",
                path,
                f"writing Parquet needs pyarrow: {PARQUET_EXTRA}, or write .csv instead",
            ) from None
        return "parquet"
    if target.exists():
        raise InputError(
            "--out",
            path,
            "is a file: --out takes a .csv, .parquet or .pq file, or a directory for checkpoints",
        )
    if FILE_SUFFIX.fullmatch(suffix):
        raise InputError(
            "--out",
            path,
            "the file must end in .csv, .parquet or .pq (or name a directory, for checkpoints: "
            "end the path with / to use this name for one)",
        )
    return "checkpoints"


class BattleWriter:
    """Writes the per-battle table chunk by chunk, in chunk order, to a CSV or Parquet file.

    Columns: :data:`ecs_combat.simulate.TABLE_COLUMNS`, with matchup labels and outcome names
    as text. The file is written under a temporary name and renamed when complete. If writing
    fails part-way (a full disk), the run goes on: the temporary file is removed and
    :attr:`error` says what happened.
    """

    def __init__(self, path: str, label: Callable[[int], str]) -> None:
        self.path = path
        self.format = check_out_path(path)
        self.label = label
        #: Why the file could not be written, once it could not.
        self.error: str | None = None
        self._tmp: Path | None = None
        self._file: IO[str] | None = None
        self._csv: Any = None
        self._parquet: Any = None

    def __enter__(self) -> BattleWriter:
        if Path(self.path).is_dir():
            raise InputError("--out", self.path, "is a directory")
        self._tmp = temporary_beside(self.path, "--out")
        try:
            if self.format == "csv":
                self._file = open(self._tmp, "w", newline="", encoding="utf-8")
                self._csv = csv.writer(self._file)
                self._csv.writerow(TABLE_COLUMNS)
            else:
                import pyarrow as pa
                import pyarrow.parquet as pq

                fields = [
                    pa.field(
                        name,
                        pa.string() if name in ("attacker", "blocker", "outcome") else pa.int64(),
                    )
                    for name in TABLE_COLUMNS
                ]
                self._parquet = pq.ParquetWriter(self._tmp, pa.schema(fields))
        except OSError as exc:
            self._abandon()
            raise InputError("--out", self.path, f"cannot write: {exc.strerror or exc}") from None
        return self

    def write(self, result: ChunkResult) -> None:
        """Append one chunk's battles (nothing once writing has failed)."""
        if self.error is not None:
            return
        table = result.table
        assert table is not None, "run the chunk with_table"
        columns: dict[str, Any] = {name: table[name] for name in TABLE_COLUMNS}
        columns["attacker"] = _labels(table["attacker"], self.label)
        columns["blocker"] = _labels(table["blocker"], self.label)
        columns["outcome"] = _labels(table["outcome"], lambda c: OUTCOME_NAMES[c])
        try:
            if self._csv is not None:
                lists = [c if isinstance(c, list) else c.tolist() for c in columns.values()]
                self._csv.writerows(zip(*lists, strict=True))
            else:
                import pyarrow as pa

                self._parquet.write_table(pa.table(columns, schema=self._parquet.schema))
        except OSError as exc:
            self._failed(exc)

    def _failed(self, exc: OSError) -> None:
        self.error = f"--out {self.path}: cannot write: {exc.strerror or exc}"
        self._abandon()

    def _abandon(self) -> None:
        """Close and remove the temporary file."""
        for closing in (self._file, self._parquet):
            if closing is not None:
                with contextlib.suppress(Exception):
                    closing.close()
        self._file = self._parquet = self._csv = None
        if self._tmp is not None:
            with contextlib.suppress(OSError):
                self._tmp.unlink()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if kind is not None or self.error is not None:
            self._abandon()
            return
        assert self._tmp is not None
        try:
            if self._file is not None:
                self._file.close()
            if self._parquet is not None:
                self._parquet.close()
            os.replace(self._tmp, self.path)
        except OSError as exc:
            self._failed(exc)


# ---------------------------------------------------------------------------------------------
# The readable table


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def render_summary(doc: dict[str, Any], console: Console) -> None:
    """Print the summary for a person: one row per matchup, outcomes as shares of its battles."""
    totals = doc["totals"]
    with_damage = totals["damage_to_players"] > 0
    title = (
        f"{doc['simulation'].capitalize()}{spec_name(doc, ' ')}: {doc['battles']:,} battles, "
        f"{doc['creatures']:,} creatures, seed {doc['seed']}"
    )
    table = Table(
        title=title,
        title_justify="left",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        padding=(0, 1),
        collapse_padding=True,
    )
    labels = [m["attacker"] for m in doc["matchups"]] + [m["blocker"] for m in doc["matchups"]]
    short = max(len(label) for label in labels) <= ONE_LINE_LABEL
    table.add_column("attacker", no_wrap=short, overflow="fold")
    table.add_column("blocker", no_wrap=short, overflow="fold")
    table.add_column("battles", justify="right", no_wrap=True, min_width=len(f"{doc['battles']:,}"))
    for heading in ("attacker\nwins", "blocker\nwins", "trades", "both\nsurvive"):
        table.add_column(heading, justify="right", no_wrap=True, min_width=6)
    if with_damage:
        width = len(f"{totals['damage_to_players']:,}")
        table.add_column("damage to\nplayers", justify="right", no_wrap=True, min_width=width)
    previous = None
    for row in [*doc["matchups"], {"attacker": "all", "blocker": "all", **totals}]:
        if previous is not None and row["attacker"] != previous:
            table.add_section()
        previous = row["attacker"]
        n = row["battles"]
        cells: list[RenderableType] = [
            row["attacker"],
            row["blocker"],
            f"{n:,}",
            _percent(row["attacker_wins"], n),
            _percent(row["blocker_wins"], n),
            _percent(row["trades"], n),
            _percent(row["neither_dies"], n),
        ]
        if with_damage:
            cells.append(f"{row['damage_to_players']:,}")
        table.add_row(*cells, style="bold" if row["attacker"] == "all" else None)
    console.print(table)
    console.print(run_line(doc), style="dim")


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


# ---------------------------------------------------------------------------------------------
# The heatmap


def heatmap_figure(doc: dict[str, Any]) -> Figure:
    """The attacker win rate of every matchup (attacker label x blocker label), in percent;
    the colours span the rates found, from the lowest (red) to the highest (green)."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import PercentFormatter

    attackers = list(dict.fromkeys(m["attacker"] for m in doc["matchups"]))
    blockers = list(dict.fromkeys(m["blocker"] for m in doc["matchups"]))
    rate = np.full((len(attackers), len(blockers)), np.nan)
    for m in doc["matchups"]:
        rate[attackers.index(m["attacker"]), blockers.index(m["blocker"])] = (
            100 * m["attacker_wins"] / m["battles"]
        )
    low, high = float(np.nanmin(rate)), float(np.nanmax(rate))
    if high - low < 1e-9:  # one rate: a scale around it
        low, high = max(0.0, low - 1), min(100.0, high + 1)
    size = (max(6.0, 1.1 * len(blockers) + 3), max(4.5, 0.8 * len(attackers) + 2))
    fig = Figure(figsize=size, layout="constrained")
    ax = fig.subplots()
    image = ax.imshow(np.ma.masked_invalid(rate), cmap="RdYlGn", vmin=low, vmax=high)
    ax.set_xticks(range(len(blockers)), blockers, rotation=30, ha="right")
    ax.set_yticks(range(len(attackers)), attackers)
    ax.set_xlabel("blocker")
    ax.set_ylabel("attacker")
    digits = 0 if high - low >= 10 else 1
    for i, j in np.ndindex(rate.shape):
        if not np.isnan(rate[i, j]):
            shade = (rate[i, j] - low) / (high - low)
            color = "white" if shade < 0.2 or shade > 0.85 else "black"
            ax.text(
                j, i, f"{rate[i, j]:.{digits}f}%", ha="center", va="center", fontsize=9,
                color=color,
            )  # fmt: skip
    what = doc["simulation"] + spec_name(doc, " ")
    ax.set_title(
        f"Attacker win rate by matchup\n{what}, {doc['battles']:,} battles, seed {doc['seed']}",
        fontsize=11,
    )
    bar = fig.colorbar(image, ax=ax, label="attacker wins (only the blocking side loses creatures)")
    bar.ax.yaxis.set_major_formatter(PercentFormatter(xmax=100, decimals=digits))
    return fig


def plot_heatmap(doc: dict[str, Any], path: str) -> None:
    """Draw the heatmap of :func:`heatmap_figure` to a PNG file."""
    fig = heatmap_figure(doc)
    with atomic_path(path, "--plot") as tmp:
        fig.savefig(tmp, format="png", dpi=120)


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


@contextlib.contextmanager
def progress_bar(total: int, description: str, enabled: bool) -> Iterator[Callable[[int], None]]:
    """A callback advancing a progress bar on standard error by the battles of each finished
    chunk or task, whichever worker ran it.

    The bar is shown only when `enabled`, standard error is a terminal and the run lasts
    longer than a second.
    """
    console = Console(stderr=True)
    if not enabled or not console.is_terminal:
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
) -> None:
    """`ecs-combat simulate`: draw, resolve and tally, in this process, on `workers` local
    processes (no more than there are tasks to run) or on the Dask cluster at `scheduler`;
    print the summary; write the files.

    Every output path is checked before the run. Raises :class:`InputError` for a bad SPEC or
    option, :class:`RefusedError` when the batched engine can't resolve the battles,
    :class:`~ecs_combat.distribute.WorkerDied` when a worker goes away, :class:`Interrupted`
    on Ctrl-C, and :class:`OutputFailed` (after printing the summary) when a file could not
    be written after all.
    """
    spec: Spec = load_spec(spec_file, registry) if spec_file else tournament(registry)
    kind = check_out_path(out) if out is not None else None
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
                "--plot", plot, "the heatmap is written as PNG: the file must end in .png"
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
    writer = None
    if out is not None and checkpoint is None:
        writer = BattleWriter(out, simulation.generator.label)
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
            # Forked before the progress bar starts its thread; stopped at once on the way out.
            pool = WorkerPool(workers)
            stack.callback(pool.stop)
            executor = pool
            description += f", {workers} workers"
        if writer is not None:
            stack.enter_context(writer)
        advance = stack.enter_context(progress_bar(battles, description, enabled=not as_json))
        try:
            run = simulation.run(
                executor,
                workers,
                advance,
                writer.write if writer is not None else None,
            )
        except KeyboardInterrupt:
            kept = (
                f"; {simulation.saved} of {len(simulation.tasks)} tasks are saved in "
                f"{checkpoint}: run the same command with --resume to finish"
                if checkpoint is not None
                else ""
            )
            raise Interrupted(f"interrupted{kept}") from None
    errors: list[str] = []
    if writer is not None and writer.error is not None:
        errors.append(f"{writer.error}; the file was not written")
    store = simulation.checkpoints
    if store is not None and store.save_error is not None:
        errors.append(
            f"--out {store.save_error}; {simulation.saved} of {len(simulation.tasks)} tasks are "
            "saved there (--resume runs the rest)"
        )
    doc = summary(simulation.generator, spec, seed, run)
    doc["run"]["scheduler"] = scheduler
    doc["run"]["spec_file"] = spec_file
    doc["run"]["out"] = out
    if plot is not None:
        try:
            plot_heatmap(doc, plot)
        except InputError as exc:
            errors.append(str(exc))
        except OSError as exc:
            errors.append(f"--plot {plot}: cannot write: {exc.strerror or exc}")
    doc["run"]["output_errors"] = errors
    if as_json:
        click.echo(json.dumps(doc, indent=2))
    else:
        render_summary(doc, Console(highlight=False))
    if errors:
        raise OutputFailed("; ".join(errors) + " (the summary printed is complete)")
