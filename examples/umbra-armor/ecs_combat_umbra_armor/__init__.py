"""Umbra armor (702.89, once totem armor): "If enchanted creature would be destroyed, instead
remove all damage from it and destroy this Aura."

Written as the creature's own keyword, the Aura imagined on it: each instance of umbra armor
is one Aura. The first time the creature would be destroyed (lethal damage, deathtouch, a
`destroy` event), all damage is removed from it instead and one of its Auras is destroyed
(used up: an instance used is kept in the plugin's marks, for the turn). It stays in combat and
untapped, unlike a regenerated creature. Decisions about names:

- It is a replacement at ``destroy``: after indestructible (an indestructible creature isn't
  destroyed, so its Aura stays) and before regeneration (616.1: the creature's controller
  chooses; keeping the creature in combat and the regeneration shield for later is the
  better choice, and one order keeps both engines the same).
- Toughness 0 or less is not destruction (704.5f): the Aura doesn't save the creature.
- A creature that returns to the battlefield is a new object (400.7): its marks are gone, its
  printed instances are whole again.
"""

from __future__ import annotations

import numpy as np

from ecs_combat import (
    BatchContext,
    BatchDestruction,
    CombatContext,
    Destruction,
    Keyword,
    System,
    hookimpl,
)

UMBRA_ARMOR = "umbra armor"
#: The Auras (instances) each creature has used up.
USED = "umbra armor: used"


def instead(combat: CombatContext, destruction: Destruction) -> None:
    """Each creature about to be destroyed with an Aura left: its damage is removed instead."""
    used = combat.marks(USED)
    for c in sorted(destruction.creatures):
        left = len(combat.instances(c, UMBRA_ARMOR)) - int(used.get(c) or 0)
        if left <= 0:
            continue
        used[c] = int(used.get(c) or 0) + 1
        destruction.creatures.discard(c)
        destruction.kept[c] = f"{UMBRA_ARMOR} (702.89)"
        combat.remove_damage(c)
        combat.note(f"{combat.creature_id(c)}: its damage is removed instead ({UMBRA_ARMOR})")


def instead_batched(batch: BatchContext, destruction: BatchDestruction) -> None:
    """The same for every row at once: instances counted per row with one bincount."""
    rows, _ = batch.instances(UMBRA_ARMOR)
    if not rows.size:
        return
    auras = np.bincount(rows, minlength=batch.rows)
    used = batch.marks(USED, np.int64)
    saved = np.flatnonzero(destruction.creatures & (auras > used))
    if saved.size:
        used[saved] += 1
        destruction.creatures[saved] = False
        batch.remove_damage(saved)


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(
            UMBRA_ARMOR,
            rule="702.89",
            summary="if it would be destroyed, its damage is removed instead (once per instance)",
        )
    ]


@hookimpl
def register_systems() -> list[System]:
    return [
        System(
            "destroy",
            "damage removed instead",
            instead,
            instead_batched,
            {UMBRA_ARMOR},
            after={"indestructible"},
            before={"regeneration"},
            writes={"creatures"},
        )
    ]
