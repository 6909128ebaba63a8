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
import secrets
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import TracebackType
from typing import IO, Any

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
from rich.text import Text

from ecs_combat.console import is_plain, print_line, print_plain_table, shown
from ecs_combat.distribute import (
    Checkpoints,
    PluginOptions,
    Simulation,
    WorkerPool,
    dask_executor,
)
from ecs_combat.errors import EcsCombatError, InputError
from ecs_combat.plugins import Registry
from ecs_combat.simspec import Spec, load_spec, tournament
from ecs_combat.simulate import OUTCOME_NAMES, TABLE_COLUMNS, ChunkResult, summary

#: Suffixes of the per-battle file, by format.
CSV_SUFFIXES = (".csv",)
PARQUET_SUFFIXES = (".parquet", ".pq")
PARQUET_EXTRA = 'pip install "ecs-combat[parquet]"'
#: Matchup labels up to this long stay on one line in the table; longer ones fold.
ONE_LINE_LABEL = 16


# ---------------------------------------------------------------------------------------------
# Writing files atomically


@contextlib.contextmanager
def atomic_path(target: str | Path, option: str) -> Iterator[Path]:
    """A temporary path beside `target`, renamed to it if the body finishes, else removed."""
    path = Path(target)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent or ".")
    except OSError as exc:
        raise InputError(option, str(target), f"cannot write: {exc.strerror or exc}") from None
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


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
    ``"checkpoints"`` (a directory: an existing one, or a path without a suffix); an error if
    it is none of them or can't be written."""
    target = Path(path)
    if target.is_dir() or (not target.suffix and not target.exists()):
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
    raise InputError(
        "--out",
        path,
        "the file must end in .csv, .parquet or .pq (or name a directory, for checkpoints)",
    )


class BattleWriter:
    """Writes the per-battle table chunk by chunk, in chunk order, to a CSV or Parquet file.

    Columns: :data:`ecs_combat.simulate.TABLE_COLUMNS`, with matchup labels and outcome names
    as text.
    """

    def __init__(self, path: str, label: Callable[[int], str]) -> None:
        self.path = path
        self.format = check_out_path(path)
        self.label = label
        self._atomic: contextlib.AbstractContextManager[Path] | None = None
        self._file: IO[str] | None = None
        self._csv: Any = None
        self._parquet: Any = None

    def __enter__(self) -> BattleWriter:
        self._atomic = atomic_path(self.path, "--out")
        tmp = self._atomic.__enter__()
        if self.format == "csv":
            self._file = open(tmp, "w", newline="", encoding="utf-8")
            self._csv = csv.writer(self._file)
            self._csv.writerow(TABLE_COLUMNS)
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            fields = [
                pa.field(
                    name, pa.string() if name in ("attacker", "blocker", "outcome") else pa.int64()
                )
                for name in TABLE_COLUMNS
            ]
            self._parquet = pq.ParquetWriter(tmp, pa.schema(fields))
        return self

    def write(self, result: ChunkResult) -> None:
        """Append one chunk's battles."""
        table = result.table
        assert table is not None, "run the chunk with_table"
        columns: dict[str, Any] = {name: table[name] for name in TABLE_COLUMNS}
        columns["attacker"] = _labels(table["attacker"], self.label)
        columns["blocker"] = _labels(table["blocker"], self.label)
        columns["outcome"] = _labels(table["outcome"], lambda c: OUTCOME_NAMES[c])
        if self._csv is not None:
            lists = [c if isinstance(c, list) else c.tolist() for c in columns.values()]
            self._csv.writerows(zip(*lists, strict=True))
        else:
            import pyarrow as pa

            self._parquet.write_table(pa.table(columns, schema=self._parquet.schema))

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._file is not None:
            self._file.close()
        if self._parquet is not None:
            self._parquet.close()
        assert self._atomic is not None
        self._atomic.__exit__(kind, exc, tb)


# ---------------------------------------------------------------------------------------------
# The readable table


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def render_summary(doc: dict[str, Any], console: Console) -> None:
    """Print the summary for a person: one row per matchup, outcomes as shares of its battles.

    A Rich table on a terminal; the plain layout of :mod:`ecs_combat.console` elsewhere.
    """
    totals = doc["totals"]
    with_damage = totals["damage_to_players"] > 0
    title = (
        f"{doc['simulation'].capitalize()}: {doc['battles']:,} battles, "
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
            _percent(row["attacker_wins"], n),
            _percent(row["blocker_wins"], n),
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
    run = doc["run"]
    speed = f", {run['battles_per_second']:,} battles/s" if run["battles_per_second"] else ""
    workers = f", {run['workers']} workers" if run["workers"] > 1 else ""
    print_line(
        console,
        f"{run['engine']} engine{workers}: {doc['battles']:,} battles in {run['seconds']:.2f} s"
        f"{speed}",
        "dim",
    )


def _summary_table(
    title: str, headings: list[str], rows: list[list[str]], doc: dict[str, Any]
) -> Table:
    """The summary as a Rich table: a section per attacker, the totals in bold."""
    table = Table(
        title=Text(title),
        title_justify="left",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        padding=(0, 1),
        collapse_padding=True,
    )
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
# The heatmap


def plot_heatmap(doc: dict[str, Any], path: str) -> None:
    """Draw the attacker win rate of every matchup (attacker keyword x blocker keyword)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    attackers = list(dict.fromkeys(m["attacker"] for m in doc["matchups"]))
    blockers = list(dict.fromkeys(m["blocker"] for m in doc["matchups"]))
    rate = np.full((len(attackers), len(blockers)), np.nan)
    for m in doc["matchups"]:
        rate[attackers.index(m["attacker"]), blockers.index(m["blocker"])] = (
            m["attacker_wins"] / m["battles"]
        )
    size = (max(6.0, 1.1 * len(blockers) + 3), max(4.5, 0.8 * len(attackers) + 2))
    fig, ax = plt.subplots(figsize=size, layout="constrained")
    image = ax.imshow(np.ma.masked_invalid(rate), cmap="RdYlGn", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(len(blockers)), blockers, rotation=30, ha="right")
    ax.set_yticks(range(len(attackers)), attackers)
    ax.set_xlabel("blocker")
    ax.set_ylabel("attacker")
    for i, j in np.ndindex(rate.shape):
        if not np.isnan(rate[i, j]):
            dark = rate[i, j] < 0.2 or rate[i, j] > 0.85
            color = "white" if dark else "black"
            ax.text(j, i, f"{rate[i, j]:.0%}", ha="center", va="center", fontsize=9, color=color)
    ax.set_title(
        f"Attacker win rate by matchup\n{doc['simulation']}, {doc['battles']:,} battles, "
        f"seed {doc['seed']}",
        fontsize=11,
    )
    fig.colorbar(image, ax=ax, label="attacker wins (only the blocking side loses creatures)")
    with atomic_path(path, "--plot") as tmp:
        fig.savefig(tmp, format="png", dpi=120)
    plt.close(fig)


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
    processes or on the Dask cluster at `scheduler`; print the summary; write the files.

    Raises :class:`InputError` for a bad SPEC or option, :class:`RefusedError` when the
    batched engine can't resolve the battles, :class:`~ecs_combat.distribute.WorkerDied` when
    a worker goes away and :class:`Interrupted` on Ctrl-C.
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
    if plot is not None and Path(plot).suffix.lower() != ".png":
        raise InputError("--plot", plot, "the heatmap is written as PNG: the file must end in .png")
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
    description = f"{engine_name} engine"
    with contextlib.ExitStack() as stack:
        executor = None
        if scheduler is not None:
            executor, workers = stack.enter_context(dask_executor(scheduler))
            description += f", Dask cluster of {workers} threads"
        elif workers > 1:
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
                f"; {len(simulation.done)} of {len(simulation.tasks)} tasks are saved in "
                f"{checkpoint}: run the same command with --resume to finish"
                if checkpoint is not None
                else ""
            )
            raise Interrupted(f"interrupted{kept}") from None
    doc = summary(simulation.generator, spec, seed, run)
    doc["run"]["tasks"] = run.tasks
    doc["run"]["tasks_resumed"] = run.tasks_resumed
    doc["run"]["scheduler"] = scheduler
    doc["run"]["spec_file"] = spec_file
    doc["run"]["out"] = out
    if plot is not None:
        plot_heatmap(doc, plot)
    if as_json:
        click.echo(json.dumps(doc, indent=2))
    else:
        render_summary(doc, Console(highlight=False))
