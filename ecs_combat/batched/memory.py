"""The C allocator's settings for the batched engine's arrays.

A run allocates and frees arrays of a few hundred kilobytes to a few megabytes per chunk of
battles (a decision search's candidate combats more). glibc's ``malloc`` gives freed memory at
the top of its heap back to the system once more than a threshold is free, and maps
allocations above another threshold afresh each time; every chunk then pays for fresh pages
(page faults and zeroing: a third of the CPU time of a tournament with decisions,
docs/performance.md). :func:`keep_freed_memory` raises both thresholds once per process, so
freed memory is reused: resident memory stays at its peak instead of going back to the system
between chunks. Elsewhere than glibc it does nothing.
"""

from __future__ import annotations

import ctypes
import platform

#: glibc's ``mallopt`` parameters (malloc.h).
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
#: Free memory at the top of the heap kept for reuse (glibc's default starts at 128 KB).
TRIM_THRESHOLD = 256 << 20
#: Allocations above this are mapped afresh; glibc's largest allowed value on 64-bit systems.
MMAP_THRESHOLD = 32 << 20

_kept: bool | None = None


def keep_freed_memory() -> bool:
    """Have glibc keep freed memory for reuse (once per process); whether it does."""
    global _kept
    if _kept is None:
        _kept = False
        if platform.system() == "Linux" and platform.libc_ver()[0] == "glibc":
            try:
                mallopt = ctypes.CDLL(None).mallopt
            except (OSError, AttributeError):
                return False
            mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
            mallopt.restype = ctypes.c_int
            _kept = bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)) and bool(
                mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
            )
    return _kept
