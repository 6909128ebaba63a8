"""Deathtouch (702.2): any damage it deals to a creature destroys that creature.

For dividing damage and for trample, 1 damage from it counts as lethal (702.2c): a system at
``assign-damage``. A creature dealt damage by it is marked as it is dealt (``deal-damage``,
after prevention) and destroyed by the next state-based actions (704.5h), which
indestructible stops.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ecs_combat import (
    BatchContext,
    BatchDamageAssignment,
    BatchDamageEvent,
    BatchStateCheck,
    CombatContext,
    DamageAssignment,
    DamageEvent,
    KernelColumn,
    KernelPart,
    Keyword,
    StateCheck,
    System,
    hookimpl,
)

DEATHTOUCH = "deathtouch"
#: The creatures dealt damage by a source with deathtouch since state-based actions were last
#: checked (704.5h), marked through the context.
MARK = "deathtouch: dealt damage"


def one_is_lethal(combat: CombatContext, assignment: DamageAssignment) -> None:
    for a in assignment.assignments:
        if combat.has(a.source, DEATHTOUCH):
            a.make_one_lethal(DEATHTOUCH)


def one_is_lethal_batched(batch: BatchContext, assignment: BatchDamageAssignment) -> None:
    assignment.make_one_lethal(batch.has(DEATHTOUCH), DEATHTOUCH)


def mark_dealt(combat: CombatContext, event: DamageEvent) -> None:
    for d in event.dealt:
        if not d.to_player and d.amount > 0 and combat.has(d.source, DEATHTOUCH):
            combat.marks(MARK)[d.recipient] = True


def mark_dealt_batched(batch: BatchContext, event: BatchDamageEvent) -> None:
    dealt = (event.recipient >= 0) & (event.amount > 0)
    dealt &= batch.has(DEATHTOUCH)[event.source]  # one gather: most damage is dealt
    hit = np.flatnonzero(dealt)
    if hit.size:
        batch.marks(MARK, np.bool_)[event.recipient[hit]] = True


def destroy(combat: CombatContext, check: StateCheck) -> None:
    dealt = combat.marks(MARK)
    for e in list(dealt):
        del dealt[e]
        if combat.on_battlefield(e):
            check.destroy.add(e)


def destroy_batched(batch: BatchContext, check: BatchStateCheck) -> None:
    if not batch.has_marks(MARK):
        return
    dealt = batch.marks(MARK, np.bool_)
    rows = np.flatnonzero(dealt)  # few: looked up for these only
    rows = rows[check.battles[batch.battle()[rows]]]
    check.destroy[rows[batch.on_battlefield()[rows]]] = True
    dealt[rows] = False


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(DEATHTOUCH, rule="702.2", counter=True, summary="1 is lethal")]


@hookimpl
def register_systems() -> list[System]:
    return [
        System(
            "assign-damage",
            "1 is lethal",
            one_is_lethal,
            one_is_lethal_batched,
            {DEATHTOUCH},
            writes={"one_is_lethal"},
        ),
        System(
            "deal-damage",
            "mark deathtouch damage",
            mark_dealt,
            mark_dealt_batched,
            {DEATHTOUCH},
            sets={"reaction"},
        ),
        # A creature dealt deathtouch damage may have lost deathtouch since: no keywords.
        System(
            "state-based-actions",
            "destroy (704.5h)",
            destroy,
            destroy_batched,
            sets={"conditions"},
            writes={"destroy"},
        ),
    ]


# -- kernel form (docs/plugins.md, "Kernel parts") ------------------------------------------


def one_is_lethal_kernel(row: int, c: Any, a: Any, own: Any) -> None:
    """702.2c, for a creature with deathtouch assigning damage."""
    a.one_is_lethal[row] = True


def mark_dealt_kernel(source: int, recipient: int, amount: int, c: Any, own: Any) -> None:
    """A creature dealt damage by a source with deathtouch is marked (a reaction)."""
    if recipient >= 0:
        own.dealt[recipient] = True


def destroy_kernel(row: int, c: Any, k: Any, own: Any) -> None:
    """704.5h: a creature marked since the last check is destroyed."""
    if own.dealt[row]:
        own.dealt[row] = False
        if c.on_battlefield[row]:
            k.destroy[row] = True


@hookimpl
def register_kernel_parts() -> list[KernelPart | KernelColumn]:
    return [
        KernelColumn("creature", "dealt", "bool"),
        KernelPart("assign-damage", "1 is lethal", one_is_lethal_kernel),
        KernelPart("deal-damage", "mark deathtouch damage", mark_dealt_kernel, reaction=True),
        KernelPart("state-based-actions", "destroy (704.5h)", destroy_kernel),
    ]
