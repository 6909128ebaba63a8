"""Who deals combat damage in a step, and over which blocks (510.1): the unblocked attackers,
the blocks whose attacker deals and the blocks whose blocker deals, each in block-row order.

Found from the whole batch's masks when many creatures deal, or from the dealers' rows alone
when few do (a first-strike step): each creature's blocks are indexed once per combat.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.batched.arrays import BoolArray, IntArray
from ecs_combat.batched.numeric import run_starts
from ecs_combat.batched.state import BlockIndex, CombatRows

I64 = np.int64
AnyArray = npt.NDArray[Any]
#: Dealers are read row by row when they are fewer than one creature row in this many
#: (measured: a gather per dealer costs about as much as a pass over eight rows).
FEW = 8
_NONE = np.zeros(0, I64)
_NONE.flags.writeable = False


@dataclass(frozen=True, slots=True)
class Dealers:
    """A step's dealers, ascending: attackers that deal, blocked or not."""

    #: Attacking dealers: a row mask, or rows.
    attackers: BoolArray | IntArray
    #: Unblocked attacking dealers (rows).
    unblocked: IntArray
    #: Block rows whose attacker deals and whose blocker is still blocking.
    attacker_blocks: IntArray
    #: Block rows whose blocker deals and whose attacker is still attacking, grouped by
    #: blocker in its declared order.
    blocker_blocks: IntArray

    def blocked_with(self, blocked: BoolArray, also: BoolArray) -> IntArray:
        """The blocked attacking dealers that have `also` set (rows)."""
        a: AnyArray = self.attackers
        if a.dtype == np.bool_:
            rows: IntArray = (a & blocked & also).nonzero()[0]
            return rows
        picked: IntArray = a[blocked[a] & also[a]]
        return picked


def dealers(combat: CombatRows, deals: BoolArray, n: int, dense: bool) -> Dealers:
    """The dealers of a step (`deals`, a row mask); read from whole masks if `dense`."""
    att, blocking, blocked = combat.att, combat.blocking, combat.blocked
    dense = dense or combat.multi_block or bool(np.count_nonzero(deals) * FEW >= n)
    if dense:
        attacks = deals & att
        unblocked = (attacks & ~blocked).nonzero()[0]
        if not combat.nblocks:
            return Dealers(attacks, unblocked, _NONE, _NONE)
        # blocks in effect: the blocker blocking, the attacker attacking
        live = combat.of_blockers(blocking) & combat.of_attackers(att)
        a_mask = combat.of_attackers(deals) & live
        if combat.multi_block:
            q = combat.q
            assert q is not None
            b_rows = q[(deals[combat.bb[q]] & live[q]).nonzero()[0]]
            return Dealers(attacks, unblocked, a_mask.nonzero()[0], b_rows)
        b_mask = combat.of_blockers(deals) & live
        a_rows, b_rows = a_mask.nonzero()[0], b_mask.nonzero()[0]
        return Dealers(attacks, unblocked, a_rows, b_rows)
    rows = deals.nonzero()[0]
    attackers = rows[att[rows]]
    unblocked = attackers[~blocked[attackers]]
    if not combat.nblocks:
        return Dealers(attackers, unblocked, _NONE, _NONE)
    index = _index(combat, n)
    blockers = rows[blocking[rows]]
    if index.start is None or index.count is None or index.as_blocker is None:
        # in order: each attacker's blocks and each blocker's block by binary search
        start = combat.ba.searchsorted(attackers, "left")
        a_rows = _ranges(start, combat.ba.searchsorted(attackers, "right") - start, True)
        at = np.minimum(combat.bb.searchsorted(blockers), combat.nblocks - 1)
        b_rows = at[combat.bb[at] == blockers]
    else:
        a_rows = _ranges(index.start[attackers], index.count[attackers], index.in_order)
        b_rows = index.as_blocker[blockers]
        b_rows = b_rows[b_rows >= 0]
        if not index.in_order:
            b_rows = np.sort(b_rows)
    a_rows = a_rows[blocking[combat.bb[a_rows]]]
    b_rows = b_rows[att[combat.ba[b_rows]]]
    return Dealers(attackers, unblocked, a_rows, b_rows)


def _ranges(start: IntArray, count: IntArray, in_order: bool) -> IntArray:
    """The rows of ranges ``start`` to ``start + count - 1``, ascending (`in_order`: the
    ranges are given ascending)."""
    keep = count > 0
    start, count = start[keep], count[keep]
    total = int(count.sum())
    if total == len(count):  # one row each
        return start if in_order else np.sort(start)
    rows = np.repeat(start - (np.cumsum(count) - count), count) + np.arange(total, dtype=I64)
    return rows if in_order else np.sort(rows)


def _index(combat: CombatRows, n: int) -> BlockIndex:
    """Each creature row's blocks, made once per combat's blocks (grouped by attacker, each
    blocker in one block at most); when the attackers and the blockers come in row order,
    none (:func:`dealers` searches the blocks)."""
    if combat.block_index is None:
        ba, bb = combat.ba, combat.bb
        if bool((ba[1:] >= ba[:-1]).all() and (bb[1:] > bb[:-1]).all()):
            combat.block_index = BlockIndex(None, None, None, True)  # no per-row index
            return combat.block_index
        starts = run_starts(combat.ba)
        first = combat.ba[starts]
        start = np.zeros(n, I64)
        count = np.zeros(n, I64)
        start[first] = starts
        count[first] = np.diff(np.append(starts, combat.nblocks))
        as_blocker = np.full(n, -1, I64)
        as_blocker[combat.bb] = np.arange(combat.nblocks, dtype=I64)
        in_order = bool((first[1:] > first[:-1]).all() and (combat.bb[1:] > combat.bb[:-1]).all())
        combat.block_index = BlockIndex(start, count, as_blocker, in_order)
    out: BlockIndex = combat.block_index
    return out
