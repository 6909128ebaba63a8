"""Arrays as the kernel takes them: of the one type and layout its compiled signature wants."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.batched.arrays import IntArray

AnyArray = npt.NDArray[Any]
I64 = np.int64


def fixed(values: Any, dtype: type[Any]) -> AnyArray:
    """An array the kernel only reads, as its type wants it (contiguous, read-only: one
    compiled signature, and numba refuses to compile a write to it), never copied unless
    its type or layout differs."""
    out: AnyArray = np.ascontiguousarray(values, dtype).view()
    out.flags.writeable = False
    return out


def starts(battle_of: AnyArray, nb: int) -> IntArray:
    """Where each battle's rows begin ([nb + 1]), rows grouped by ascending battle."""
    out = np.zeros(nb + 1, I64)
    np.cumsum(np.bincount(np.asarray(battle_of, I64), minlength=nb), out=out[1:])
    return out
