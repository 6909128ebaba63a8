"""When the kernel can't resolve a batch's fights: bands (the kernel plays none), and a
creature with a keyword whose ``assign-damage`` part is guarded by the recipient (another
player divides the damage of the creatures it fights) where that division is a choice:
among two or more creatures, or in a decision search, which records who divides."""

from __future__ import annotations

from typing import Any

import numpy as np

from ecs_combat.batched.arrays import CombatBatch
from ecs_combat.kernel.generate import KernelSource

U64 = np.uint64


def fight_refusal(b: CombatBatch, source: KernelSource, guards: Any, legal: bool) -> str:
    """Why the kernel can't resolve a batch's fights, or ``""`` (`guards`: each part's
    keywords' bits in the batch; `legal`: the decision search's batch)."""
    if b.band is not None and bool((np.asarray(b.band) >= 0).any()):
        return "the batch has bands"
    fought = 0
    for i, p in enumerate(source.parts):
        if p.part.point == "assign-damage" and p.part.guard == "recipient":
            fought |= int(guards[i])
    if not fought or not b.block_blocker.size:
        return ""
    has = (np.asarray(b.keywords, U64) & U64(fought)) != 0
    if not bool(has.any()):
        return ""
    if legal:
        return "another player may divide a creature's damage (the search records no divider)"
    blocker, attacker = np.asarray(b.block_blocker), np.asarray(b.block_attacker)
    blockers = np.bincount(attacker, minlength=b.n_creatures)  # of each attacker
    blocked = np.bincount(blocker, minlength=b.n_creatures)  # by each blocker
    if bool(
        ((has[blocker] & (blockers[attacker] > 1)) | (has[attacker] & (blocked[blocker] > 1))).any()
    ):
        return "another player divides a creature's damage among two or more creatures"
    return ""
