"""The rules for declaring blockers, judged on a batch being played as blockers are declared:
the restrictions (509.1a-b), how many attackers a creature may block (509.1a) and the
requirements (509.1c: lure's, and those attack triggers made), by rows of the run; and the combat of every
battle of a batch as its blockers are declared (:func:`declaring_blockers`), for the bulk
decision search. The engines judge a scenario's blocks with the creatures as they are then
(after the attack triggers: RULES 4, ``reference/characteristics.py``); so does this.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ecs_combat.batched.arrays import BoolArray, CombatBatch, IntArray
from ecs_combat.batched.views import RowSide
from ecs_combat.plugin.restrictions import Restriction

if TYPE_CHECKING:
    from ecs_combat.batched.engine import BatchedEngine, _Run

I64 = np.int64


def restrictions(run: _Run, kind: str) -> list[Restriction]:
    """The restrictions of a kind whose keyword the batch has a bit for."""
    return [r for r in run.reg.restrictions_of(kind) if r.keyword in run.m.bit]


def _side(run: _Run, rows: IntArray) -> RowSide:
    return RowSide(run, rows, np.ones(len(rows), np.bool_), np.zeros(len(rows), I64))


def able_to_block(run: _Run, rows: IntArray) -> BoolArray:
    """Whether each creature row is allowed to block at all ("block" restrictions)."""
    able = np.ones(len(rows), np.bool_)
    if len(rows):
        side = _side(run, rows)
        for r in restrictions(run, "block"):
            able &= np.asarray(r.test(side), np.bool_)
    return able


def legal_pairs(run: _Run, attackers: IntArray, blockers: IntArray) -> BoolArray:
    """Whether each (attacker row, blocker row) pair is a block the rules allow now
    (509.1a-b restrictions, minimum numbers of blockers aside)."""
    ok = able_to_block(run, blockers)
    if len(attackers):
        attacker, blocker = _side(run, attackers), _side(run, blockers)
        for r in restrictions(run, "block-pair"):
            ok &= np.asarray(r.test(attacker, blocker), np.bool_)
    return ok


def blockers_needed(run: _Run, attackers: IntArray) -> IntArray | None:
    """How many blockers each attacker row needs at least if blocked (509.1b), or None
    when no rule asks for more than one."""
    rules = restrictions(run, "blockers")
    if not rules or not len(attackers):
        return None
    side = _side(run, attackers)
    need = np.ones(len(attackers), I64)
    for r in rules:
        need = np.maximum(need, np.asarray(r.test(side), I64))
    return need


def block_capacity(run: _Run, blockers: IntArray) -> IntArray:
    """How many attackers at most each creature row may block (509.1a): one, or the most
    any ``blocks`` restriction allows it."""
    capacity = np.ones(len(blockers), I64)
    rules = restrictions(run, "blocks")
    if rules and len(blockers):
        side = _side(run, blockers)
        for r in rules:
            capacity = np.maximum(capacity, np.asarray(r.test(side), I64))
    return capacity


def required_pairs(run: _Run, attackers: IntArray, blockers: IntArray) -> IntArray | None:
    """How many block requirements each (attacker row, blocker row) pair obeys if declared
    (509.1c): the keywords' ("block-requirement" restrictions: lure) and those the attack
    triggers made (provoke); None when nothing is required."""
    rules = restrictions(run, "block-requirement")
    made = [(b, a) for b, a, _ in run.required_blocks if len(b)]
    if not rules and not made:
        return None
    count = np.zeros(len(attackers), I64)
    if rules and len(attackers):
        attacker, blocker = _side(run, attackers), _side(run, blockers)
        for r in rules:
            count += np.asarray(r.test(attacker, blocker), np.bool_)
    if made:
        n = np.int64(run.n)
        keys = np.concatenate([b.astype(I64) * n + a.astype(I64) for b, a in made])
        keys.sort()
        pair = blockers.astype(I64) * n + attackers.astype(I64)
        count += np.searchsorted(keys, pair, side="right") - np.searchsorted(keys, pair)
    return count


@dataclass(frozen=True)
class DeclaringBlockers:
    """Every battle of a batch as its blockers are declared: attackers declared and their
    triggers resolved (508.1, 508.2), nothing blocked yet."""

    run: _Run
    #: [N] creatures untapped on the battlefield that the rules allow to block at all.
    may_block: BoolArray

    def legal_blocks(self, attackers: IntArray, blockers: IntArray) -> BoolArray:
        """:func:`legal_pairs` now."""
        return legal_pairs(self.run, attackers, blockers)

    def blockers_needed(self, attackers: IntArray) -> IntArray | None:
        """:func:`blockers_needed` now."""
        return blockers_needed(self.run, attackers)

    def required(self, attackers: IntArray, blockers: IntArray) -> IntArray | None:
        """:func:`required_pairs` now."""
        return required_pairs(self.run, attackers, blockers)

    def capacity(self, blockers: IntArray) -> IntArray:
        """:func:`block_capacity` now."""
        return block_capacity(self.run, blockers)


def declaring_blockers(
    engine: BatchedEngine, batch: CombatBatch, defends: BoolArray
) -> DeclaringBlockers:
    """The batch's combats played to the declaration of blockers (its blocks and divisions
    are not read); `defends`: the defending player's creature rows."""
    run = engine.as_blockers_are_declared(batch)
    may = defends & run.on_bf & ~run.tapped
    rows = np.flatnonzero(may)
    may[rows] = able_to_block(run, rows)
    return DeclaringBlockers(run, may)
