"""What a drawn battle's outcome comes to for the tally: who died on each side, and the
outcome code (attacker wins, blocker wins, trade, neither dies)."""

from __future__ import annotations

import numpy as np

from ecs_combat.batched import BatchOutcome, IntArray
from ecs_combat.simulation.generate import Drawn, battle_reduce


def outcome_codes(drawn: Drawn, outcome: BatchOutcome) -> tuple[IntArray, IntArray, IntArray]:
    """Per battle: outcome code, and deaths on the attacking and the blocking side."""
    att_died, blk_died = side_deaths(drawn, outcome)
    code = 2 * (att_died > 0).astype(np.int64) + (blk_died > 0).astype(np.int64)
    return code, att_died, blk_died


def side_deaths(drawn: Drawn, outcome: BatchOutcome) -> tuple[IntArray, IntArray]:
    """Per battle: how many creatures of the attacking side and of the blocking side died."""
    batch = drawn.batch
    dead = ~outcome.alive
    if drawn.two_rows_a_battle:
        pairs = dead.reshape(-1, 2).astype(np.int64)
        return pairs[:, 0], pairs[:, 1]
    if drawn.battle_start is not None:  # one sum per battle: the defending side's above
        shift = np.where(drawn.attacking_side, np.int64(0), np.int64(32))
        both = battle_reduce(np.add, np.left_shift(dead, shift, dtype=np.int64), drawn.battle_start)
        return both & 0xFFFFFFFF, both >> 32
    n = batch.n_battles
    att = np.bincount(batch.battle[dead & drawn.attacking_side], minlength=n)
    blk = np.bincount(batch.battle[dead & ~drawn.attacking_side], minlength=n)
    return att, blk
