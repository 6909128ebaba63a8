"""The files `ecs-combat simulate` writes: what `--out` names, paths checked before a run, files
written atomically, and the per-battle file (CSV or Parquet).

Files are written to a temporary file beside the target and renamed into place when complete,
so an interrupted or failed run leaves nothing half-written.
"""

from __future__ import annotations

import contextlib
import csv
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import numpy as np

from ecs_combat.errors import InputError
from ecs_combat.simulation.creature_rows import CREATURE_COLUMNS
from ecs_combat.simulation.options import OUTPUT, RESULTS_FILE
from ecs_combat.simulation.races import RACE_TABLE_COLUMNS, WINNERS
from ecs_combat.simulation.simulate import OUTCOME_NAMES, TABLE_COLUMNS, ChunkResult

#: Suffixes of the per-battle file, by format.
CSV_SUFFIXES = (".csv",)
PARQUET_SUFFIXES = (".parquet", ".pq")
PARQUET_EXTRA = 'pip install "ecs-combat[parquet]"'
#: An `--out` suffix like this one (a letter, then letters or digits: ``.xlsx``) names a file;
#: any other (``run-1.2``) is part of a directory's name.
FILE_SUFFIX = re.compile(r"\.[a-z][a-z0-9]*")


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


def code_labels(codes: np.ndarray, label: Callable[[int], str]) -> list[str]:
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
                OUTPUT,
                path,
                f"writing Parquet needs pyarrow: {PARQUET_EXTRA}, or write .csv instead",
            ) from None
        return "parquet"
    if target.exists():
        raise InputError(
            OUTPUT,
            path,
            "is a file: an output path is a .csv, .parquet or .pq file, or a directory for checkpoints",
        )
    if FILE_SUFFIX.fullmatch(suffix):
        raise InputError(
            OUTPUT,
            path,
            "the file must end in .csv, .parquet or .pq (or name a directory, for checkpoints: "
            "end the path with / to use this name for one)",
        )
    return "checkpoints"


def creatures_path(path: str) -> str:
    """Where the per-creature table of a per-battle file goes: beside it, ``.creatures``
    before its suffix (``battles.csv``: ``battles.creatures.csv``)."""
    target = Path(path)
    return str(target.with_name(f"{target.stem}.creatures{target.suffix}"))


#: Text columns of the two tables (the others are integers; ``died`` is a boolean).
TEXT_COLUMNS = frozenset({"attacker", "blocker", "outcome", "side", "id", "card", "keywords"})


class _TableFile:
    """One table written chunk by chunk to a CSV or Parquet file under a temporary name."""

    def __init__(self, path: str, kind: str, columns: tuple[str, ...]) -> None:
        self.path = path
        self.columns = columns
        self.tmp = temporary_beside(path, RESULTS_FILE)
        self._file: IO[str] | None = None
        self._csv: Any = None
        self._parquet: Any = None
        if kind == "csv":
            self._file = open(self.tmp, "w", newline="", encoding="utf-8")  # noqa: SIM115
            self._csv = csv.writer(self._file)
            self._csv.writerow(columns)
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            def kind_of(name: str) -> Any:
                if name in TEXT_COLUMNS:
                    return pa.string()
                return pa.bool_() if name == "died" else pa.int64()

            schema = pa.schema([pa.field(name, kind_of(name)) for name in columns])
            self._parquet = pq.ParquetWriter(self.tmp, schema)

    def write(self, columns: dict[str, Any]) -> None:
        """Append rows given column by column."""
        if self._csv is not None:
            lists = [columns[c] if isinstance(columns[c], list) else columns[c].tolist()
                     for c in self.columns]  # fmt: skip
            self._csv.writerows(zip(*lists, strict=True))
        else:
            import pyarrow as pa

            table = {c: columns[c] for c in self.columns}
            self._parquet.write_table(pa.table(table, schema=self._parquet.schema))

    def close(self) -> None:
        """Close the file, keeping it under its temporary name."""
        for closing in (self._file, self._parquet):
            if closing is not None:
                closing.close()
        self._file = self._parquet = self._csv = None

    def abandon(self) -> None:
        """Close and remove the temporary file."""
        with contextlib.suppress(Exception):
            self.close()
        with contextlib.suppress(OSError):
            self.tmp.unlink()


class BattleWriter:
    """Writes the per-battle table chunk by chunk, in chunk order, to a CSV or Parquet file,
    and the per-creature table beside it (:func:`creatures_path`).

    Columns: :data:`ecs_combat.simulation.simulate.TABLE_COLUMNS` with matchup labels and
    outcome names as text (with `races`, one row per race: :data:`RACE_TABLE_COLUMNS`, the
    winner as text), and :data:`~ecs_combat.simulation.simulate.CREATURE_COLUMNS`. The
    files are written under temporary names and renamed when complete. If writing fails
    part-way (a full disk), the run goes on: the temporary files are removed and
    :attr:`error` says what happened.
    """

    def __init__(self, path: str, label: Callable[[int], str], races: bool = False) -> None:
        self.path = path
        self.format = check_out_path(path)
        self.label = label
        #: One row per race (a SPEC with ``[race]``: :data:`RACE_TABLE_COLUMNS`), not battle.
        self.races = races
        self.columns = RACE_TABLE_COLUMNS if races else TABLE_COLUMNS
        #: Why the files could not be written, once they could not.
        self.error: str | None = None
        self._files: list[_TableFile] = []

    def __enter__(self) -> BattleWriter:
        if Path(self.path).is_dir():
            raise InputError(RESULTS_FILE, self.path, "is a directory")
        try:
            for path, columns in (
                (self.path, self.columns),
                (creatures_path(self.path), CREATURE_COLUMNS),
            ):
                self._files.append(_TableFile(path, self.format, columns))
        except OSError as exc:
            self._abandon()
            raise InputError(
                RESULTS_FILE, self.path, f"cannot write: {exc.strerror or exc}"
            ) from None
        except InputError:
            self._abandon()
            raise
        return self

    def write(self, result: ChunkResult) -> None:
        """Append one chunk's battles and creatures (nothing once writing has failed)."""
        if self.error is not None:
            return
        table = result.table
        assert table is not None and result.creatures is not None, "run the chunk with_table"
        columns: dict[str, Any] = {name: table[name] for name in self.columns}
        columns["attacker"] = code_labels(table["attacker"], self.label)
        columns["blocker"] = code_labels(table["blocker"], self.label)
        if self.races:
            columns["winner"] = code_labels(table["winner"], lambda c: WINNERS[c])
        else:
            columns["outcome"] = code_labels(table["outcome"], lambda c: OUTCOME_NAMES[c])
        try:
            self._files[0].write(columns)
            self._files[1].write(result.creatures)
        except OSError as exc:
            self._failed(exc)

    def _failed(self, exc: OSError) -> None:
        self.error = f"{RESULTS_FILE} {self.path}: cannot write: {exc.strerror or exc}"
        self._abandon()

    def _abandon(self) -> None:
        """Close and remove the temporary files."""
        for file in self._files:
            file.abandon()
        self._files = []

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if kind is not None or self.error is not None:
            self._abandon()
            return
        try:
            for file in self._files:
                file.close()
            for file in self._files:
                os.replace(file.tmp, file.path)
        except OSError as exc:
            self._failed(exc)
