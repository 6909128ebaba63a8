"""numba imported when a batch needs it (one line when it can't be), and the one line a run
says when it compiles a kernel numba's cache does not hold."""

from __future__ import annotations

import logging
import os
from functools import cache
from typing import Any

#: Environment variable (:mod:`.availability`): ``1`` asks for kernels explicitly.
KERNELS_ENV = "ECS_COMBAT_KERNELS"
#: Its value for a bulk run by default: the kernel where it applies if it was built ahead.
IF_BUILT = "built"
#: What a first compile of each entry point costs, as the compile line says it
#: (docs/performance.md, "Kernels by default"; 2 shared cores).
COMPILE_COSTS = {
    "resolve_range": "about 45 s of CPU",
    "one_on_one_range": "about 25 s of CPU",
    "draw_block": "about 3 s of CPU",
}
COMPILE_COST = "about 30-70 s of CPU in all"

log = logging.getLogger("ecs_combat")


def setting_error() -> str:
    """What is wrong with ``ECS_COMBAT_KERNELS`` (``""``: nothing): it is unset, ``0`` or
    ``1`` (or :data:`IF_BUILT`, which a run gives its worker processes for its default)."""
    value = os.environ.get(KERNELS_ENV, "").strip()
    if value in ("", "0", "1", IF_BUILT):
        return ""
    return f"{KERNELS_ENV}: must be 0 (the numpy engine) or 1 (compiled kernels), not {value!r}"


@cache
def numba_missing() -> str:
    """Why numba can't be used (``""`` if it can); said once, in one line, when not."""
    try:
        import numba  # noqa: F401
    except Exception as exc:  # not installed, or broken on this platform
        why = f"numba can't be imported ({type(exc).__name__}: {exc})"
        if os.environ.get(KERNELS_ENV, "").strip() == "1":
            log.error("%s=1 but %s: the numpy engine resolves every batch", KERNELS_ENV, why)
        else:
            log.warning("%s: the numpy engine resolves every batch", why)
        return why
    announce_compiles()
    return ""


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
                name, COMPILE_COSTS.get(name, "a few seconds of CPU"), KERNELS_ENV,
            )  # fmt: skip

        def on_end(self, ev: Any) -> None:
            pass

    event.register("numba:compile", Listener())  # type: ignore[no-untyped-call]
