"""Where generated kernels are kept, and loading one: the module is written once, named by
its hash, and imported from there, so numba's cache (``cache=True``, next to the file)
reuses its compiled code in every later run."""

from __future__ import annotations

import importlib.util
import logging
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from ecs_combat.kernel import cache_repair
from ecs_combat.kernel.generate import ENTRY_POINTS, KernelSource

#: Environment variable naming the directory of generated kernels.
CACHE_ENV = "ECS_COMBAT_KERNEL_CACHE"
PREFIX = "ecs_combat_kernel_"

log = logging.getLogger("ecs_combat")
#: Kernels written to a temporary directory in this process, the cache being unwritable.
_elsewhere: dict[str, Path] = {}
#: Why a kernel's module could be written nowhere in this process, by its hash.
_nowhere: dict[str, str] = {}


def cache_dir() -> Path:
    """``$ECS_COMBAT_KERNEL_CACHE``, else ``$XDG_CACHE_HOME/ecs-combat/kernels`` (by default
    ``~/.cache/ecs-combat/kernels``)."""
    given = os.environ.get(CACHE_ENV)
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ecs-combat" / "kernels"


def module_path(source: KernelSource, directory: Path | None = None) -> Path:
    """The generated module's file."""
    return (directory or cache_dir()) / f"{PREFIX}{source.digest}.py"


def write(source: KernelSource) -> Path:
    """The kernel's module written to the cache (again if the file there is not its text:
    truncated, or edited); to a temporary directory if the cache can't be written (the
    compiled code is then not kept)."""
    path = _elsewhere.get(source.digest) or module_path(source)
    try:
        if path.read_text() == source.text:
            return path
    except (OSError, UnicodeDecodeError):  # not there yet, or unreadable
        pass
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_atomically(path, source.text)
    except OSError as exc:
        path = _temporary_module(source)
        _elsewhere[source.digest] = path
        log.warning(
            "the kernel cache %s can't be written (%s): the kernel is compiled in %s, "
            "not kept", cache_dir(), exc.strerror or exc, path.parent,
        )  # fmt: skip
    return path


def _temporary_module(source: KernelSource) -> Path:
    """The kernel's module written to a new temporary directory (its compiled code is not
    kept there beyond the run)."""
    path = module_path(source, Path(tempfile.mkdtemp(prefix="ecs-combat-kernels-")))
    _write_atomically(path, source.text)
    return path


def _write_atomically(path: Path, text: str) -> None:
    """Whole or not at all: another process may be reading or writing the same kernel."""
    # named as the kernel's files are, so that `kernels clear` removes one a killed run left
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f"{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(tmp, 0o644)  # readable as a module file is (mkstemp makes it private)
    os.replace(tmp, path)


@contextmanager
def locked(source: KernelSource) -> Iterator[None]:
    """Hold the kernel's lock (a file beside its module) while compiling it: another process
    waits, then reads what this one compiled from numba's cache."""
    path = write(source).with_suffix(".lock")
    try:
        import fcntl
    except ImportError:  # no advisory locks here: each process compiles its own
        yield
        return
    try:
        f = open(path, "w")  # noqa: SIM115  (closed below)
    except OSError:  # a read-only cache: compiled without the lock
        yield
        return
    with f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def load(source: KernelSource) -> ModuleType:
    """The kernel's module, imported (numba compiles it at its first call, or reads its
    cached compiled code)."""
    name = PREFIX + source.digest
    found = sys.modules.get(name)
    if found is not None:
        return found
    path = write(source)
    try:
        module = _imported(name, path)
    except Exception as exc:  # e.g. numba finds no cache directory it may write
        sys.modules.pop(name, None)
        path = _temporary_module(source)
        log.warning(
            "the kernel's module can't be loaded from the cache (%s: %s): loaded from %s, "
            "not kept; %s", type(exc).__name__, exc, path, cache_repair.CLEAR,
        )  # fmt: skip
        module = _imported(name, path)
    for entry in ENTRY_POINTS:
        cache_repair.guard(getattr(module, entry, None))
    return module


def unavailable(source: KernelSource) -> str:
    """Why the kernel's module can't be loaded, ``""`` if it can (it is then loaded): written
    neither to the cache nor to a temporary directory (a full disk). Said once a process,
    in one line; the numpy engine resolves the kernel's batches then."""
    if PREFIX + source.digest in sys.modules:
        return ""
    if source.digest not in _nowhere:
        try:
            load(source)
            return ""
        except OSError as exc:
            why = (
                f"the kernel's module can't be written, in {cache_dir()} or a temporary "
                f"directory ({exc.strerror or exc})"
            )
            log.warning("%s: the numpy engine resolves every batch", why)
            _nowhere[source.digest] = why
    return _nowhere[source.digest]


def _imported(name: str, path: Path) -> ModuleType:
    """The module at `path`, imported as `name`."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # numba's cache pickles the module's types by name
    spec.loader.exec_module(module)
    return module


def built_path(source: KernelSource) -> Path:
    """The mark `ecs-combat kernels build` leaves beside a kernel's module once every entry
    point a run can use is compiled (the default uses a kernel only then)."""
    return module_path(source).with_suffix(".built")


def is_built(source: KernelSource) -> bool:
    """Whether the kernel was built ahead (:func:`built_path`)."""
    return built_path(source).exists()


def mark_built(source: KernelSource) -> None:
    """Leave the built mark (:func:`built_path`)."""
    _write_atomically(built_path(source), "")


def cached() -> list[tuple[Path, int]]:
    """The generated kernels in the cache and the bytes of compiled code kept for each."""
    directory = cache_dir()
    out = []
    for path in sorted(directory.glob(f"{PREFIX}*.py")):
        compiled = directory / "__pycache__"
        size = (
            sum(p.stat().st_size for p in compiled.glob(f"{path.stem}.*"))
            if compiled.is_dir()
            else 0
        )
        out.append((path, size))
    return out


def clear() -> list[Path]:
    """Every generated kernel in the cache removed, with what numba's cache keeps of it and
    its lock and built marks; the paths removed."""
    directory = cache_dir()
    found = [*directory.glob(f"{PREFIX}*"), *directory.glob(f"__pycache__/{PREFIX}*")]
    for path in found:
        path.unlink(missing_ok=True)
    return found
