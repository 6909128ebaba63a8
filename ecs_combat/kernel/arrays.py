"""Arrays as the kernel takes them: of the one type and layout its compiled signature wants."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.batched.arrays import CombatBatch, IntArray

AnyArray = npt.NDArray[Any]
I64 = np.int64
U64 = np.uint64


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


def read(values: Any, dtype: type[Any]) -> AnyArray:
    """An array the kernel reads, as its type wants it (writable, contiguous: one compiled
    signature), copied only if need be."""
    out: AnyArray = np.ascontiguousarray(values, dtype)
    if not out.flags.writeable:
        out = out.copy()
    return out


def creature_state(
    m: ModuleType, b: CombatBatch, casts: bool, flags: AnyArray, counts: AnyArray,
    scratch: AnyArray,
) -> Any:  # fmt: skip
    """The kernel's `st` (template ``State``) for a batch, on the rows of `flags`,
    `counts` and `scratch` made for it (the keywords copied where `casts` may change them)."""
    n = b.n_creatures
    printed = read(b.keywords, U64)
    return m.State(
        np.array(b.keywords, U64) if casts else printed,  # casts grant
        flags[2], flags[3], flags[4], flags[5],
        counts[1],
        scratch[:n],
        counts[2],
        scratch[n : 2 * n],
        counts[3],
        counts[4],
        np.full(n, -1, I64),
        scratch[2 * n : 3 * n],
        flags[10],
        read(b.power, I64),
        read(b.toughness, I64),
        printed,
    )  # fmt: skip
