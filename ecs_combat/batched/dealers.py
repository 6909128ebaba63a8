"""Who deals combat damage in a step, and over which blocks (510.1): the unblocked attackers,
the blocks whose attacker deals and the blocks whose blocker deals, each in block-row order.

Found from the whole batch's masks when many creatures deal, or from the dealers' rows alone
when few do (a first-strike step): each creature's blocks are indexed once per combat.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ecs_combat.batched.arrays import BoolArray, IntArray
from ecs_combat.batched.numeric import run_starts
from ecs_combat.batched.state import CombatRows

I64 = np.int64
#: Dealers are read row by row when they are fewer than one creature row in this many.
FEW = 8


@dataclass(frozen=True, slots=True)
class Dealers:
    """A step's dealers, ascending: attackers that deal, blocked or not."""

    #: Attacking dealers (rows).
    attackers: IntArray
    #: Unblocked attacking dealers.
    unblocked: IntArray
    #: Block rows whose attacker deals and whose blocker is still blocking.
    attacker_blocks: IntArray
    #: Block rows whose blocker deals and whose attacker is still attacking, grouped by
    #: blocker in its declared order.
    blocker_blocks: IntArray


def dealers(combat: CombatRows, deals: BoolArray, n: int, dense: bool) -> Dealers:
    """The dealers of a step (`deals`, a row mask); read from whole masks if `dense`."""
    att, blocking, blocked = combat.att, combat.blocking, combat.blocked
    if dense or combat.multi_block or FEW * np.count_nonzero(deals) >= n:
        deals_a = deals & att
        attackers = deals_a.nonzero()[0]
        unblocked = attackers[~blocked[attackers]]
        if not combat.nblocks:
            return Dealers(attackers, unblocked, np.zeros(0, I64), np.zeros(0, I64))
        bb, ba = combat.bb, combat.ba
        a_rows = deals_a[ba].nonzero()[0]
        order = combat.q if combat.multi_block else None
        b_rows = (deals & blocking)[bb if order is None else bb[order]].nonzero()[0]
        if order is not None:
            b_rows = order[b_rows]
    else:
        rows = deals.nonzero()[0]
        attackers = rows[att[rows]]
        unblocked = attackers[~blocked[attackers]]
        if not combat.nblocks:
            return Dealers(attackers, unblocked, np.zeros(0, I64), np.zeros(0, I64))
        start, count = _by_attacker(combat, n)
        a_rows = _ranges(start[attackers], count[attackers])
        b_rows = _by_blocker(combat, n)[rows[blocking[rows]]]
        b_rows = np.sort(b_rows[b_rows >= 0])
    blk = combat.bb[a_rows]
    a_rows = a_rows[blocking[blk]]
    b_rows = b_rows[att[combat.ba[b_rows]]]
    return Dealers(attackers, unblocked, a_rows, b_rows)


def _ranges(start: IntArray, count: IntArray) -> IntArray:
    """The rows of ranges ``start`` to ``start + count - 1``, ascending."""
    keep = count > 0
    start, count = start[keep], count[keep]
    total = int(count.sum())
    if total == len(count):  # one row each
        return np.sort(start)
    offset = np.repeat(start - (np.cumsum(count) - count), count)
    return np.sort(offset + np.arange(total, dtype=I64))


def _by_attacker(combat: CombatRows, n: int) -> tuple[IntArray, IntArray]:
    """Per creature row, where its blocks as an attacker begin and how many there are (the
    blocks are grouped by attacker); made once per combat's blocks."""
    if combat.by_attacker is None:
        starts = run_starts(combat.ba)
        start = np.zeros(n, I64)
        count = np.zeros(n, I64)
        first = combat.ba[starts]
        start[first] = starts
        count[first] = np.diff(np.append(starts, combat.nblocks))
        combat.by_attacker = (start, count)
    return combat.by_attacker


def _by_blocker(combat: CombatRows, n: int) -> IntArray:
    """Per creature row, its block row as a blocker, or -1 (each blocks one attacker at
    most); made once per combat's blocks."""
    if combat.by_blocker is None:
        row = np.full(n, -1, I64)
        row[combat.bb] = np.arange(combat.nblocks, dtype=I64)
        combat.by_blocker = row
    return combat.by_blocker
