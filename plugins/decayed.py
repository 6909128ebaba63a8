"""Decayed (702.147): it can't block; when it attacks, it is sacrificed at end of combat.

The sacrifice is a delayed trigger set up as it attacks (``declare-attackers``), so gaining
or losing decayed afterwards changes nothing; it happens at ``end-of-combat``.
"""

from __future__ import annotations

import numpy as np

from ecs_combat import (
    UNCHANGED,
    AttackDeclaration,
    BatchAttackDeclaration,
    BatchContext,
    BatchEndOfCombat,
    CombatContext,
    Keyword,
    Restriction,
    Side,
    System,
    Verdict,
    hookimpl,
)

DECAYED = "decayed"
#: Creatures with a delayed trigger from attacking: sacrifice it at end of combat.
MARK = "decayed: sacrifice at end of combat"


def set_up_sacrifice(combat: CombatContext, declaration: AttackDeclaration) -> None:
    for e in declaration.attackers:
        if combat.has(e, DECAYED):
            combat.marks(MARK)[e] = True
            combat.note(
                f"{combat.creature_id(e)} attacks ({DECAYED}): it is sacrificed at end of combat"
            )


def set_up_sacrifice_batched(batch: BatchContext, declaration: BatchAttackDeclaration) -> None:
    batch.marks(MARK, np.bool_)[declaration.attackers & batch.has(DECAYED)] = True


def sacrifice(combat: CombatContext, _: None) -> None:
    doomed = combat.marks(MARK)
    for e in combat.creatures():
        if e in doomed and combat.on_battlefield(e):
            combat.note(f"end of combat: {combat.creature_id(e)} is sacrificed ({DECAYED})")
            combat.sacrifice([e])


def sacrifice_batched(batch: BatchContext, end: BatchEndOfCombat) -> None:
    if batch.has_marks(MARK):
        marked = batch.marks(MARK, np.bool_)
        doomed = marked & batch.on_battlefield() & end.battles[batch.battle()]
        batch.sacrifice(np.flatnonzero(doomed))


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(DECAYED, rule="702.147", counter=True)]


def may_block(creature: Side) -> Verdict:
    return ~creature.has(DECAYED)


@hookimpl
def register_restrictions() -> list[Restriction]:
    return [Restriction("block", DECAYED, "702.147", may_block)]


@hookimpl
def register_systems() -> list[System]:
    return [
        System(
            "declare-attackers",
            "sacrifice at end of combat",
            set_up_sacrifice,
            set_up_sacrifice_batched,
            {DECAYED},
            before_blocks=UNCHANGED,
        ),
        System("end-of-combat", "sacrifice", sacrifice, sacrifice_batched, {DECAYED}),
    ]
