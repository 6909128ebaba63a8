"""Whether compiled kernels are used (``ECS_COMBAT_KERNELS``, numba importable, the kernel
built ahead).

The default (unset) is for bulk runs: ``ecs-combat simulate`` of about :data:`BULK_CREATURES`
creatures or more resolves them in the plugin set's kernel once ``ecs-combat kernels build``
compiled it (:func:`for_run`); anything smaller, and every other command, uses the numpy
engine, since loading a compiled kernel costs more than it saves there (docs/performance.md,
"Kernels by default").
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ecs_combat.kernel.compiles import (
    COMPILE_COST,
    IF_BUILT,
    KERNELS_ENV,
    numba_missing,
    quiet_compiles,
)
from ecs_combat.plugin.registry import Registry

if TYPE_CHECKING:
    from ecs_combat.kernel.runner import Kernel

# KERNELS_ENV, ``ECS_COMBAT_KERNELS``: ``0`` makes the numpy engine resolve every batch; ``1``
# lets the plugin set's kernel resolve the batches it can, compiling it first when numba's
# cache does not hold it (said in one line, :func:`.compiles.announce_compiles`); unset: see
# :func:`for_run`.
#: The fewest creatures (battles times their mean size) of a run for which the default uses
#: a built kernel: below, loading it (about 0.4 s of CPU) costs more than it saves (about
#: 3,000,000 tournament battles, 400,000 of the example melee's).
BULK_CREATURES = 5_000_000
#: The fewest creatures of a run whose kernel is not built for which the run says, in one
#: line, that building it would help.
HINT_CREATURES = 50_000_000


def mode() -> str:
    """``ECS_COMBAT_KERNELS`` as given (``""``: unset)."""
    return os.environ.get(KERNELS_ENV, "").strip()


def wanted() -> bool:
    """Whether kernels may be used: ``ECS_COMBAT_KERNELS`` is ``1``, or a bulk run's default."""
    return mode() in ("1", IF_BUILT)


def forced() -> bool:
    """Whether kernels were asked for explicitly (``ECS_COMBAT_KERNELS=1``)."""
    return mode() == "1"


def for_run(creatures: float, registry: Registry) -> str:
    """The default made explicit for a run of about `creatures` (``ECS_COMBAT_KERNELS``
    unset; set in the environment, so worker processes inherit it): a built kernel for a bulk
    run, the numpy engine otherwise. The hint to build the kernel, for a run of
    :data:`HINT_CREATURES` or more whose kernel is not built (``""``: none)."""
    if mode():
        return ""
    os.environ[KERNELS_ENV] = IF_BUILT if creatures >= BULK_CREATURES else "0"
    if creatures < HINT_CREATURES:
        return ""
    from ecs_combat.kernel import cache
    from ecs_combat.kernel.generate import generate

    if cache.is_built(generate(registry)):
        return ""
    return (
        "runs this size resolve faster in compiled kernels where they apply: "
        f"`ecs-combat kernels build` compiles them once ({COMPILE_COST}); "
        f"{KERNELS_ENV}=0 silences this"
    )


def kernel_for(registry: Registry) -> Kernel | None:
    """The registry's kernel (numba not imported yet: its first batch taken does it), or None
    when kernels are off, or the default's and not built ahead."""
    if not wanted():
        return None
    from ecs_combat.kernel import cache
    from ecs_combat.kernel.runner import Kernel

    kernel = Kernel(registry)
    if not forced() and not cache.is_built(kernel.source):
        return None
    return kernel


__all__ = ["KERNELS_ENV", "numba_missing", "quiet_compiles"]
