"""Decayed (702.147): it can't block; when it attacks, it is sacrificed at end of combat.

The sacrifice is a delayed trigger set up as it attacks (``declare-attackers``), so gaining
or losing decayed afterwards changes nothing; it happens at ``end-of-combat``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import esper
import numpy as np

from ecs_combat import (
    AttackDeclaration,
    BatchAttackDeclaration,
    BatchEndOfCombat,
    Keyword,
    Restriction,
    System,
    hookimpl,
)

DECAYED = "decayed"
#: The batched engine's per-creature column: sacrificed at end of combat.
COLUMN = "decayed: sacrifice at end of combat"


@dataclass(slots=True)
class SacrificeAtEndOfCombat:
    """Component: a delayed trigger from attacking: sacrifice it at end of combat."""


def set_up_sacrifice(combat: Any, declaration: AttackDeclaration) -> None:
    for e in declaration.attackers:
        if combat.has(e, DECAYED):
            esper.add_component(e, SacrificeAtEndOfCombat())
            combat.note(f"{combat.cid(e)} attacks ({DECAYED}): it is sacrificed at end of combat")


def set_up_sacrifice_batched(batch: Any, declaration: BatchAttackDeclaration) -> None:
    batch.column(COLUMN, bool)[declaration.attackers & batch.has(DECAYED)] = True


def sacrifice(combat: Any, _: None) -> None:
    for e, _trigger in list(esper.get_component(SacrificeAtEndOfCombat)):
        if combat.on_battlefield(e):
            combat.leave_battlefield(e)
            combat.note(f"end of combat: {combat.cid(e)} is sacrificed ({DECAYED})")


def sacrifice_batched(batch: Any, end: BatchEndOfCombat) -> None:
    if batch.has_column(COLUMN):
        doomed = batch.column(COLUMN, bool) & batch.on_bf & end.battles[batch.battle]
        batch.leave(np.flatnonzero(doomed))


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(DECAYED, rule="702.147", counter=True)]


def may_block(creature: Any) -> Any:
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
        ),
        System("end-of-combat", "sacrifice", sacrifice, sacrifice_batched, {DECAYED}),
    ]
