"""How many threads a kernel splits a batch's battles over."""

from __future__ import annotations

import os

#: Environment variable: the most threads a batch's battles are split over.
THREADS_ENV = "ECS_COMBAT_KERNEL_THREADS"


def thread_limit() -> int:
    """``$ECS_COMBAT_KERNEL_THREADS``, else the CPUs this process may run on."""
    given = os.environ.get(THREADS_ENV, "")
    if given.isdigit() and int(given) > 0:
        return int(given)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
