"""numba's cache of a compiled function read and written so that a damaged or stale entry
never fails a run: an index or data file that can't be read (truncated, written by a kernel
of another name, another numba) is removed and the function compiled again; one that can't
be written (a read-only or full disk) leaves the function compiled in memory for the run.
Either is said once a process, in one line on standard error."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

log = logging.getLogger("ecs_combat")

#: The command that empties the kernel cache, as the lines below name it.
CLEAR = "`ecs-combat kernels clear` empties the kernel cache"
#: Whether a line was said in this process (one line a process, whatever else breaks).
_said = {"said": False}


def _say(message: str) -> None:
    """`message` on standard error, once a process."""
    if not _said["said"]:
        _said["said"] = True
        log.warning("%s", message)


class GuardedCache:
    """A dispatcher's numba cache (`inner`) whose reads and writes can't fail a run."""

    def __init__(self, inner: Any, name: str) -> None:
        self.inner = inner
        self.name = name
        self.keeps = True  # False once its files can't be written: compiled in memory

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self.inner, attribute)

    def files(self) -> list[Path]:
        """The function's index and data files in numba's cache."""
        index = Path(self.inner._cache_file._index_path)
        return [index, *index.parent.glob(index.name.removesuffix(".nbi") + ".*.nbc")]

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        """The cached compiled code for `sig`; None (compiled again) if it can't be read,
        its files then removed."""
        try:
            return self.inner.load_overload(sig, target_context)
        except Exception as exc:  # any damage: truncated, foreign types, unreadable
            removed = True
            for path in self.files():
                try:
                    path.unlink(missing_ok=True)
                except OSError:
                    removed = False
            self.keeps = removed
            where = self.inner._cache_file._index_path
            what = "removed, compiling it again" if removed else "compiling it in memory"
            _say(
                f"numba's cache of the kernel's {self.name} ({where}) can't be read "
                f"({type(exc).__name__}: {exc}): {what}; {CLEAR}"
            )
            return None

    def save_overload(self, sig: Any, data: Any) -> None:
        """`data` kept in the cache if it can be; else the function stays compiled in memory
        for this run."""
        if not self.keeps:
            return
        try:
            self.inner.save_overload(sig, data)
        except Exception as exc:  # read-only, full, or an index it can't read
            self.keeps = False
            _say(
                f"the compiled kernel's {self.name} can't be kept in numba's cache "
                f"({type(exc).__name__}: {exc}): compiled in memory for this run; {CLEAR}"
            )

    def signatures(self) -> int:
        """How many compiled signatures the cache holds (0 if its index can't be read)."""
        try:
            return len(self.inner._cache_file._load_index())
        except Exception:  # damaged: the next run compiles it again
            return 0


def guard(dispatcher: Any) -> None:
    """A numba dispatcher's cache guarded (:class:`GuardedCache`); nothing if it has none."""
    inner = getattr(dispatcher, "_cache", None)
    if inner is None or isinstance(inner, GuardedCache) or not hasattr(inner, "_cache_file"):
        return
    dispatcher._cache = GuardedCache(inner, dispatcher.py_func.__name__)


def signatures(dispatcher: Any) -> int:
    """The compiled signatures numba's cache holds for `dispatcher` (0 if none, or damaged)."""
    guard(dispatcher)
    found = getattr(dispatcher, "_cache", None)
    return found.signatures() if isinstance(found, GuardedCache) else 0
