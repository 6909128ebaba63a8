"""What the kernel makes of a batch's "dies" triggers (``dies`` parts): their keywords' bits,
and the batches it leaves to the numpy engine, where a creature has two of them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ecs_combat.batched.arrays import CombatBatch

if TYPE_CHECKING:
    from ecs_combat.kernel.generate import KernelSource

U64 = np.uint64


def dies_keywords(source: KernelSource, bit: dict[str, int]) -> int:
    """The bits of the keywords of the kernel's ``dies`` parts."""
    out = 0
    for p in source.parts:
        if p.part.point == "dies":
            for kw in p.keywords:
                out |= bit.get(kw, 0)
    return out


def dies_refusal(b: CombatBatch, dying: int) -> str:
    """Why the kernel can't resolve a batch's "dies" triggers (`dying`: their keywords'
    bits), or ``""``: it resolves one a creature, so a creature with two (two keywords of
    ``dies`` parts, or one listed twice) goes to the numpy engine, which orders them."""
    if not dying:
        return ""
    kw = np.asarray(b.keywords, U64) & U64(dying)
    if bool((kw & (kw - U64(1)) != 0).any()):  # two bits or more
        return "a creature has two dies triggers"
    if b.instance_row.size:
        bits = np.left_shift(U64(1), np.asarray(b.instance_keyword, U64))
        rows = np.asarray(b.instance_row)[(bits & U64(dying)) != 0]
        if rows.size and int(np.bincount(rows).max()) > 1:
            return "a creature has two dies triggers"
    return ""
