"""Whether compiled kernels are used: wanted (``ECS_COMBAT_KERNELS``) and numba importable."""

from __future__ import annotations

import logging
import os
from functools import cache
from typing import TYPE_CHECKING

from ecs_combat.plugin.registry import Registry

if TYPE_CHECKING:
    from ecs_combat.kernel.runner import Kernel

#: Environment variable: ``1`` lets a compiled kernel resolve the batches it can; anything
#: else (and unset: the default until the kernel is faster than the numpy engine, see
#: docs/performance.md) makes the numpy engine resolve every batch.
KERNELS_ENV = "ECS_COMBAT_KERNELS"

log = logging.getLogger("ecs_combat")


def wanted() -> bool:
    """Whether kernels may be used (``ECS_COMBAT_KERNELS`` is ``1``)."""
    return os.environ.get(KERNELS_ENV, "0").strip() == "1"


@cache
def numba_missing() -> str:
    """Why numba can't be used (``""`` if it can); said once, in one line, when not."""
    try:
        import numba  # noqa: F401
    except Exception as exc:  # not installed, or broken on this platform
        why = f"numba can't be imported ({type(exc).__name__}: {exc})"
        log.warning("%s: the numpy engine resolves every batch", why)
        return why
    return ""


def kernel_for(registry: Registry) -> Kernel | None:
    """The registry's kernel, or None when kernels are not used."""
    if not wanted() or numba_missing():
        return None
    from ecs_combat.kernel.runner import Kernel

    return Kernel(registry)
