"""Whether compiled kernels are used (``ECS_COMBAT_KERNELS``, numba importable, the kernel
built ahead), and the one line a run says when it compiles one.

The default (unset) is for bulk runs: ``ecs-combat simulate`` of :data:`BULK_BATTLES` battles
or more resolves them in the plugin set's kernel once ``ecs-combat kernels build`` compiled it
(:func:`for_run`); anything smaller, and every other command, uses the numpy engine, since
loading a compiled kernel costs more than it saves there (docs/performance.md, "Kernels by
default").
"""

from __future__ import annotations

import logging
import os
from functools import cache
from typing import TYPE_CHECKING, Any

from ecs_combat.plugin.registry import Registry

if TYPE_CHECKING:
    from ecs_combat.kernel.runner import Kernel

#: Environment variable: ``0`` makes the numpy engine resolve every batch; ``1`` lets the
#: plugin set's kernel resolve the batches it can, compiling it first when numba's cache does
#: not hold it (said in one line, :func:`announce_compiles`); unset: see :func:`for_run`.
KERNELS_ENV = "ECS_COMBAT_KERNELS"
#: Its value for a bulk run by default: the kernel where it applies if it was built ahead.
IF_BUILT = "built"
#: The fewest battles of a run for which the default uses a built kernel: below, loading it
#: (about 0.35 s of CPU) costs more than it saves; and from which a run says, once, that
#: building it would help (:data:`HINT_BATTLES`).
BULK_BATTLES = 1_000_000
HINT_BATTLES = 10_000_000
#: What a first compile of an entry point costs on the reference machine (docs/performance.md,
#: "Kernels by default"), as the line says it.
COMPILE_COST = "about 15-25 s of CPU"

log = logging.getLogger("ecs_combat")


def mode() -> str:
    """``ECS_COMBAT_KERNELS`` as given (``""``: unset)."""
    return os.environ.get(KERNELS_ENV, "").strip()


def wanted() -> bool:
    """Whether kernels may be used: ``ECS_COMBAT_KERNELS`` is ``1``, or a bulk run's default."""
    return mode() in ("1", IF_BUILT)


def forced() -> bool:
    """Whether kernels were asked for explicitly (``ECS_COMBAT_KERNELS=1``)."""
    return mode() == "1"


def for_run(battles: int, registry: Registry) -> str:
    """The default made explicit for a run of `battles` (``ECS_COMBAT_KERNELS`` unset; set in
    the environment, so worker processes inherit it): a built kernel for a bulk run, the
    numpy engine otherwise. The hint to build the kernel, for a run of :data:`HINT_BATTLES`
    or more whose kernel is not built (``""``: none)."""
    if mode():
        return ""
    os.environ[KERNELS_ENV] = IF_BUILT if battles >= BULK_BATTLES else "0"
    if battles < HINT_BATTLES:
        return ""
    from ecs_combat.kernel import cache
    from ecs_combat.kernel.generate import generate

    if cache.is_built(generate(registry)):
        return ""
    return (
        "runs this size resolve faster in compiled kernels where they apply: "
        f"`ecs-combat kernels build` compiles them once ({COMPILE_COST} per entry point); "
        f"{KERNELS_ENV}=0 silences this"
    )


@cache
def numba_missing() -> str:
    """Why numba can't be used (``""`` if it can); said once, in one line, when not."""
    try:
        import numba  # noqa: F401
    except Exception as exc:  # not installed, or broken on this platform
        why = f"numba can't be imported ({type(exc).__name__}: {exc})"
        if forced():
            log.error("%s=1 but %s: the numpy engine resolves every batch", KERNELS_ENV, why)
        else:
            log.warning("%s: the numpy engine resolves every batch", why)
        return why
    announce_compiles()
    return ""


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


#: Whether the compile line is said (``kernels build`` says its own); said once a process.
_announce = {"on": True, "said": False}


def quiet_compiles() -> None:
    """No compile line from now on (``ecs-combat kernels build`` reports each compile)."""
    _announce["on"] = False


@cache
def announce_compiles() -> None:
    """Say, in one line on standard error, when a run starts compiling a kernel that numba's
    cache does not hold (numba's ``numba:compile`` event, sent only on a cache miss)."""
    from numba.core import event

    class Listener(event.Listener):
        def on_start(self, ev: Any) -> None:
            if not _announce["on"] or _announce["said"]:
                return
            _announce["said"] = True
            name = ev.data["dispatcher"].py_func.__name__
            log.warning(
                "compiling the plugin set's kernel (%s, %s, once: then cached); "
                "%s=0 skips it, `ecs-combat kernels build` does it ahead",
                name, COMPILE_COST, KERNELS_ENV,
            )  # fmt: skip

        def on_end(self, ev: Any) -> None:
            pass

    event.register("numba:compile", Listener())  # type: ignore[no-untyped-call]
