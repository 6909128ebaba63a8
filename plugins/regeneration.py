"""Regeneration (701.19): the scenario event ``{"action": "regenerate", "target": ID}`` gives a
creature a regeneration shield. The next time this turn it would be destroyed (lethal damage,
704.5g; deathtouch damage, 704.5h; a destroy effect), the shield is used instead: it is
tapped, all damage is removed from it and it is removed from combat (701.19c). A creature put
into the graveyard for toughness 0 or less (704.5f) is not destroyed, and a shield doesn't
save it.

The shields are the plugin's marks (a number per creature, for the turn); a creature that
returns to the battlefield is a new object without them (400.7). The replacement is a system
at ``destroy``, after indestructible: an indestructible creature isn't destroyed, so it keeps
its shield. The regenerated creature stays on the battlefield and isn't listed in ``died``.
"""

from __future__ import annotations

import numpy as np

from ecs_combat import (
    BatchContext,
    BatchDestruction,
    CombatContext,
    Creature,
    Destruction,
    EventAction,
    IntArray,
    Keyword,
    System,
    hookimpl,
)

REGENERATION = "regeneration"
#: Regeneration shields on each creature, used up one per replaced destruction.
SHIELDS = "regeneration: shields"


def shield(combat: CombatContext, creature: Creature) -> None:
    shields = combat.marks(SHIELDS)
    shields[creature] = int(shields.get(creature) or 0) + 1


def shield_batched(batch: BatchContext, rows: IntArray) -> None:
    """One event per battle a round: the rows are distinct."""
    batch.marks(SHIELDS, np.int64)[rows] += 1


def regenerate(combat: CombatContext, destruction: Destruction) -> None:
    shields = combat.marks(SHIELDS)
    for c in sorted(destruction.creatures):
        if not shields.get(c):
            continue
        shields[c] = int(shields.get(c) or 0) - 1
        destruction.creatures.discard(c)
        destruction.kept[c] = "regenerated (701.19)"
        combat.tap(c)
        combat.remove_damage(c)
        combat.remove_from_combat(c)
        combat.note(
            f"{combat.creature_id(c)} regenerates: tapped, its damage removed, removed from "
            "combat (701.19)"
        )


def regenerate_batched(batch: BatchContext, destruction: BatchDestruction) -> None:
    if not batch.has_marks(SHIELDS):
        return
    shields = batch.marks(SHIELDS, np.int64)
    rows = np.flatnonzero(destruction.creatures & (shields > 0))
    if not rows.size:
        return
    shields[rows] -= 1
    destruction.creatures[rows] = False
    batch.tap(rows)
    batch.remove_damage(rows)
    batch.remove_from_combat(rows)


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(
            REGENERATION,
            rule="701.19",
            summary="a shield (the regenerate event) replaces its next destruction this turn",
        )
    ]


@hookimpl
def register_event_actions() -> list[EventAction]:
    return [
        EventAction(
            "regenerate",
            REGENERATION,
            shield,
            shield_batched,
            rule="701.19",
            summary="gets a regeneration shield (701.19)",
        )
    ]


@hookimpl
def register_systems() -> list[System]:
    return [
        System(
            "destroy",
            "regenerate (701.19)",
            regenerate,
            regenerate_batched,
            {REGENERATION},
            after={"indestructible"},
            writes={"creatures"},
        )
    ]
