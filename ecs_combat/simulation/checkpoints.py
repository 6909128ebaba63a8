"""The checkpoint directory of a run (``ecs-combat simulate --out DIR``): a manifest naming the
run, one verified file per finished task, and a lock held for the length of a run.

``manifest.json`` holds everything that decides the results (the spec, the seed, the battles,
the task size, the plugins) and ``run``, the SHA-256 of all of it: the run's identity. A task
file ``task-NNNNNN.json`` holds the run's identity, the task's index and battle range, its
tally per matchup, and ``sha256``, the SHA-256 of all of that. On resuming, a task file is
counted only if it verifies (its checksum, its run, its range, its counts); any other is
reported and its task is run again. The checksum finds accidental damage and hand edits; it
is not a signature, so it does not stand against someone who recomputes it on purpose.

The lock is ``flock(2)`` on the directory itself: the kernel releases it when the process
ends, however it ends, so a killed run never leaves a stale lock behind, and no lock file is
left in the directory.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ecs_combat.errors import InputError
from ecs_combat.simulation.options import CHECKPOINTS, RESUME
from ecs_combat.simulation.simulate import COLUMNS, Tally
from ecs_combat.simulation.spec import Spec

MANIFEST = "manifest.json"
CHECKPOINT_FORMAT = "ecs-combat checkpoints 3"  # 3: per-card tallies credit damage and life
#: The columns of a task file's ``counts`` rows.
TASK_COLUMNS = ("attacker_code", "blocker_code", *COLUMNS)
#: Counts in a task file are below this (they are summed as 64-bit integers).
MAX_COUNT = 1 << 62
#: The keys of a manifest, and of a task file.
MANIFEST_KEYS = (
    "format",
    "run",
    "seed",
    "battles",
    "task_battles",
    "tasks",
    "spec_sha256",
    "spec",
    "plugins",
)
#: Columns of a per-card tally (battles of real cards; card_draw.CARD_COLUMNS).
CARD_COLUMNS = 9
TASK_KEYS = ("format", "run", "task", "start", "stop", "creatures", "columns", "counts", "sha256")


def spec_key(spec: Spec) -> str:
    """The spec as canonical JSON."""
    return json.dumps(spec.describe(), sort_keys=True, separators=(",", ":"))


def digest(doc: dict[str, Any]) -> str:
    """The SHA-256 of a document as canonical JSON."""
    return hashlib.sha256(
        json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()


def write_atomically(path: Path, text: str) -> None:
    """Write `text` to a temporary file beside `path`, then rename it to `path`."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


# ---------------------------------------------------------------------------------------------
# The lock

#: Descriptors of the directories this process has locked; closed in forked children, so that
#: a lock ends with the process that took it.
_locked: set[int] = set()


def _close_locks_in_child() -> None:
    for fd in list(_locked):
        with contextlib.suppress(OSError):
            os.close(fd)
    _locked.clear()


os.register_at_fork(after_in_child=_close_locks_in_child)


class DirectoryLock:
    """An exclusive ``flock`` on a directory, held until :meth:`release` or the process ends."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        """Whether this process holds the lock."""
        return self._fd is not None

    def acquire(self) -> None:
        """Take the lock at once, or raise :class:`InputError` if another run holds it."""
        if self._fd is not None:
            return
        where = str(self.directory)
        try:
            fd = os.open(self.directory, os.O_RDONLY | os.O_DIRECTORY)
        except OSError as exc:
            raise InputError(CHECKPOINTS, where, f"cannot open: {exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise InputError(
                    CHECKPOINTS,
                    where,
                    "another ecs-combat run is using this directory (it stays locked until "
                    "that run ends): wait for it, or choose another directory",
                ) from None
            raise InputError(CHECKPOINTS, where, f"cannot lock: {exc.strerror or exc}") from None
        self._fd = fd
        _locked.add(fd)

    def release(self) -> None:
        """Let the lock go (nothing if not held)."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        _locked.discard(fd)
        with contextlib.suppress(OSError):
            os.close(fd)

    def __del__(self) -> None:
        self.release()


# ---------------------------------------------------------------------------------------------
# Verifying what a directory holds


@dataclass
class Rejected:
    """A task file that does not verify: its task is run again."""

    task: int
    file: str
    reason: str

    def as_json(self) -> dict[str, Any]:
        """For the summary's ``run``."""
        return {"task": self.task, "file": self.file, "reason": self.reason}


class Unverified(Exception):
    """A task file does not verify; the message says why."""


def _integer(value: object, place: str, low: int = 0, high: int = MAX_COUNT) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise Unverified(f"{place} is {type(value).__name__} {value!r}, not an integer")
    if not low <= value < high:
        raise Unverified(f"{place} is {value}, out of range")
    return value


def _card_counts(raw: object) -> np.ndarray:
    """A task file's per-card tally ([card, role, column], every figure an integer), checked."""
    try:
        cards = np.array(raw, dtype=object)
    except ValueError:
        raise Unverified("cards is not a table of numbers") from None
    if cards.ndim != 3 or cards.shape[1] != 2 or cards.shape[2] != CARD_COLUMNS:
        raise Unverified("cards is not a table of [card][role][column] numbers")
    for place, value in np.ndenumerate(cards):
        _integer(value, f"cards{list(place)}")
    out = cards.astype(np.int64)
    if not np.array_equal(out[..., 0], out[..., 1:5].sum(axis=-1)):
        raise Unverified("cards: outcomes do not add up to battles")
    return out


def verify_task(doc: object, run: str, index: int, start: int, stop: int, n_codes: int) -> Tally:
    """The tally of a task file's document, if it holds task `index` (battles `start` to
    `stop - 1`) of the run `run`, whole and unchanged; else :class:`Unverified`."""
    if not isinstance(doc, dict):
        raise Unverified(f"holds {type(doc).__name__}, not a task")
    if doc.get("format") != CHECKPOINT_FORMAT:
        raise Unverified(f"format {doc.get('format')!r}, not {CHECKPOINT_FORMAT!r}")
    if set(doc) - {"cards"} != set(TASK_KEYS):
        raise Unverified(f"keys {sorted(doc)}, not {sorted(TASK_KEYS)}")
    checksum = doc["sha256"]
    if checksum != digest({k: v for k, v in doc.items() if k != "sha256"}):
        raise Unverified("its checksum does not match its content")
    if doc["run"] != run:
        raise Unverified("belongs to another run")
    if (doc["task"], doc["start"], doc["stop"]) != (index, start, stop):
        raise Unverified(
            f"holds task {doc['task']!r}, battles {doc['start']!r}-{doc['stop']!r}, "
            f"not task {index}, battles {start}-{stop}"
        )
    if doc["columns"] != list(TASK_COLUMNS):
        raise Unverified(f"columns {doc['columns']!r}, not {list(TASK_COLUMNS)}")
    rows = doc["counts"]
    if not isinstance(rows, list):
        raise Unverified("counts is not a list")
    counts: dict[tuple[int, int], np.ndarray] = {}
    for i, row in enumerate(rows):
        place = f"counts[{i}]"
        if not isinstance(row, list) or len(row) != len(TASK_COLUMNS):
            raise Unverified(f"{place} is not a row of {len(TASK_COLUMNS)} numbers")
        a = _integer(row[0], f"{place}.attacker_code", high=n_codes)
        b = _integer(row[1], f"{place}.blocker_code", high=n_codes)
        values = [_integer(v, f"{place}.{name}") for v, name in zip(row[2:], COLUMNS, strict=True)]
        if (a, b) in counts:
            raise Unverified(f"{place} repeats matchup ({a}, {b})")
        if values[0] != sum(values[1:5]):
            raise Unverified(f"{place}: its outcomes do not add up to its battles")
        counts[(a, b)] = np.array(values, dtype=np.int64)
    tally = Tally(counts, _integer(doc["creatures"], "creatures"))
    if "cards" in doc:
        tally.cards = _card_counts(doc["cards"])
    if tally.battles != stop - start:
        raise Unverified(f"holds {tally.battles} battles, not {stop - start}")
    return tally


def check_manifest(doc: object, where: str) -> dict[str, Any]:
    """A manifest read from a directory, checked to be one; else :class:`InputError`."""
    place = f"{where}/{MANIFEST}"
    if not isinstance(doc, dict):
        raise InputError(
            CHECKPOINTS, place, f"holds {type(doc).__name__}, not a checkpoint manifest"
        )
    if doc.get("format") != CHECKPOINT_FORMAT:
        found = doc.get("format")
        if isinstance(found, str) and found.startswith("ecs-combat checkpoints"):
            raise InputError(
                CHECKPOINTS,
                place,
                f"was written by another version of ecs-combat ({found!r}, this one reads "
                f"{CHECKPOINT_FORMAT!r}): finish that run with that version, or choose another "
                "directory",
            )
        raise InputError(CHECKPOINTS, place, f"format {found!r}: not a checkpoint manifest")
    missing = [k for k in MANIFEST_KEYS if k not in doc]
    if missing:
        raise InputError(CHECKPOINTS, place, f"lacks {', '.join(missing)}: not a whole manifest")
    if doc["run"] != digest({k: v for k, v in doc.items() if k != "run"}):
        raise InputError(
            CHECKPOINTS,
            place,
            "has been changed since its run wrote it (its run identity does not match its "
            "content): choose another directory",
        )
    return doc


# ---------------------------------------------------------------------------------------------
# The directory


@dataclass
class Checkpoints:
    """A directory holding the finished tasks of one run, locked by this process while open."""

    directory: Path
    manifest: dict[str, Any]
    lock: DirectoryLock
    #: Tasks saved by this process, and the first error writing one (then no more are saved).
    saved: set[int] = field(default_factory=set)
    save_error: str | None = None

    @property
    def run(self) -> str:
        """The run's identity."""
        run: str = self.manifest["run"]
        return run

    @staticmethod
    def manifest_of(
        spec: Spec,
        seed: int,
        battles: int,
        tasks: Sequence[tuple[int, int]],
        plugins: Sequence[str],
    ) -> dict[str, Any]:
        """The manifest of a run: everything that decides its results, and nothing else (not
        the engine, the chunk size or the workers), and its identity."""
        manifest: dict[str, Any] = {
            "format": CHECKPOINT_FORMAT,
            "seed": seed,
            "battles": battles,
            "task_battles": tasks[0][1] - tasks[0][0] if tasks else 0,
            "tasks": len(tasks),
            "spec_sha256": hashlib.sha256(spec_key(spec).encode()).hexdigest(),
            "spec": spec.describe(),
            "plugins": list(plugins),
        }
        manifest["run"] = digest(manifest)
        return manifest

    @classmethod
    def open(cls, directory: str | Path, manifest: dict[str, Any], resume: bool) -> Checkpoints:
        """Lock `directory` and start a run there (absent or empty), or with `resume`,
        continue the run whose manifest is there; anything else is an :class:`InputError`."""
        path = Path(directory)
        where = str(directory)
        if path.exists() and not path.is_dir():
            raise InputError(CHECKPOINTS, where, "exists and is not a directory")
        if resume and not (path / MANIFEST).exists():
            raise InputError(
                RESUME,
                where,
                "holds no run to resume (no manifest.json there): check the directory, or "
                "start a new run instead of resuming",
            )
        created = not path.exists()
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(CHECKPOINTS, where, f"cannot write: {exc.strerror or exc}") from None
        lock = DirectoryLock(path)
        lock.acquire()  # another run's directory is left as it is
        try:
            checkpoints = cls(path, cls._start(path, where, manifest, resume), lock)
        except BaseException:
            if created:
                with contextlib.suppress(OSError):
                    path.rmdir()
            lock.release()
            raise
        checkpoints._remove_temporary()
        return checkpoints

    @staticmethod
    def _start(path: Path, where: str, manifest: dict[str, Any], resume: bool) -> dict[str, Any]:
        """Under the lock: check the directory against the run, and write a new manifest."""
        found = path / MANIFEST
        if found.exists():
            if not resume:
                raise InputError(
                    CHECKPOINTS,
                    where,
                    "already holds checkpoints of a run: resume that run to finish it, or choose "
                    "another directory",
                )
            try:
                text = found.read_text(encoding="utf-8")
            except OSError as exc:
                raise InputError(CHECKPOINTS, where, f"cannot read {MANIFEST}: {exc}") from None
            try:
                theirs = check_manifest(json.loads(text), where)
            except ValueError as exc:
                raise InputError(CHECKPOINTS, f"{where}/{MANIFEST}", f"not JSON: {exc}") from None
            _compare(theirs, manifest, where)
            return manifest
        if resume:
            raise InputError(RESUME, where, "holds no run to resume (no manifest.json there)")
        if any(path.iterdir()):
            raise InputError(
                CHECKPOINTS,
                where,
                "is not empty and holds no checkpoints: choose another directory",
            )
        try:
            write_atomically(found, json.dumps(manifest, indent=2) + "\n")
        except OSError as exc:
            raise InputError(CHECKPOINTS, where, f"cannot write: {exc.strerror or exc}") from None
        return manifest

    @staticmethod
    def saved_seed(directory: str | Path) -> int | None:
        """The seed of the run checkpointed in `directory`, if it holds one."""
        try:
            doc = json.loads((Path(directory) / MANIFEST).read_text(encoding="utf-8"))
            seed = doc["seed"]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return seed if isinstance(seed, int) and not isinstance(seed, bool) else None

    def _remove_temporary(self) -> None:
        for stale in self.directory.glob(".*.part"):
            with contextlib.suppress(OSError):
                stale.unlink()

    def task_path(self, index: int) -> Path:
        """The file of one task."""
        return self.directory / f"task-{index:06d}.json"

    def save(self, index: int, start: int, stop: int, tally: Tally) -> None:
        """Write a finished task's tally, with the run's identity and a checksum. A failure
        to write is kept in :attr:`save_error` (the run goes on; no more tasks are saved)."""
        if self.save_error is not None:
            return
        doc: dict[str, Any] = {
            "format": CHECKPOINT_FORMAT,
            "run": self.run,
            "task": index,
            "start": start,
            "stop": stop,
            "creatures": tally.creatures,
            "columns": list(TASK_COLUMNS),
            "counts": [[a, b, *row.tolist()] for (a, b), row in sorted(tally.counts.items())],
        }
        if tally.cards is not None:
            doc["cards"] = tally.cards.tolist()
        doc["sha256"] = digest(doc)
        path = self.task_path(index)
        try:
            write_atomically(path, json.dumps(doc) + "\n")
        except OSError as exc:
            self.save_error = f"{path}: cannot write: {exc.strerror or exc}"
            return
        self.saved.add(index)

    def load(
        self, tasks: Sequence[tuple[int, int]], n_codes: int
    ) -> tuple[dict[int, Tally], list[Rejected]]:
        """The tallies of the tasks already finished, and the task files that don't verify
        (their tasks are to be run again). A missing file is an unfinished task."""
        done: dict[int, Tally] = {}
        rejected: list[Rejected] = []
        for index, (start, stop) in enumerate(tasks):
            path = self.task_path(index)
            try:
                text = path.read_text(encoding="utf-8")
            except FileNotFoundError:
                continue
            except (OSError, ValueError) as exc:
                rejected.append(Rejected(index, path.name, f"cannot be read: {exc}"))
                continue
            try:
                doc = json.loads(text)
            except ValueError:
                rejected.append(Rejected(index, path.name, "is not whole JSON"))
                continue
            try:
                done[index] = verify_task(doc, self.run, index, start, stop, n_codes)
            except Unverified as exc:
                rejected.append(Rejected(index, path.name, str(exc)))
        return done, rejected

    def close(self) -> None:
        """Release the directory's lock."""
        self.lock.release()


def _compare(theirs: dict[str, Any], manifest: dict[str, Any], where: str) -> None:
    """Refuse a directory whose run is not this one, naming what differs."""
    differ = [k for k in manifest if theirs.get(k) != manifest[k] and k not in ("spec", "run")]
    if not differ:
        return
    # How tasks are cut follows from the rest: name it only if nothing else differs.
    derived: tuple[str, ...] = ("tasks", "task_battles")
    if set(differ) <= set(derived):
        derived = ()
    detail = ", ".join(
        f"{k} {theirs.get(k)!r} there, {manifest[k]!r} here"
        for k in differ
        if k not in ("spec_sha256", "plugins", *derived)
    )
    if "spec_sha256" in differ:
        detail = ", ".join(filter(None, ["another spec", detail]))
    if "plugins" in differ:
        detail = ", ".join(filter(None, [detail, "other plugins"]))
    raise InputError(
        CHECKPOINTS,
        where,
        f"holds checkpoints of a different run ({detail}); resume it with the same SPEC, "
        "number of battles, seed and plugins, or choose another directory",
    )
