"""Protection from a color (702.16): ``protection from red``, one instance per color.

A creature with protection from a color can't be blocked by creatures of that color
(702.16e), can't be the target of spells of that color (702.16c), and all damage sources of
that color would deal to it is prevented (702.16f): a ``deal-damage`` system in the standard
``prevention`` set, so before lifelink and deathtouch, sets those amounts to 0, so that damage
gives no life, destroys nothing and is not listed. Damage is still *assigned* to it as usual (702.19b:
trample must assign it lethal damage first); only its dealing is prevented.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ecs_combat import (
    BatchContext,
    BatchDamageEvent,
    CombatContext,
    DamageEvent,
    Keyword,
    Restriction,
    Side,
    System,
    hookimpl,
)

PROTECTION = "protection"


def may_block(attacker: Side, blocker: Side) -> Any:
    """702.16e: it can't be blocked by creatures of a color it has protection from."""
    return (attacker.values(PROTECTION) & blocker.colors) == 0


def may_target(creature: Side) -> Any:
    """702.16c: it can't be the target of spells of a color it has protection from."""
    return (creature.values(PROTECTION) & creature.spell_colors) == 0


def prevent(combat: CombatContext, event: DamageEvent) -> None:
    """702.16f: prevent the damage sources of a color it has protection from would deal."""
    for d in event.dealt:
        if d.to_player or d.amount == 0 or not combat.has(d.recipient, PROTECTION):
            continue
        protected = set(combat.instances(d.recipient, PROTECTION))
        if protected & set(combat.colors(d.source)):
            d.amount = 0


def prevent_batched(batch: BatchContext, event: BatchDamageEvent) -> None:
    """The same over a batch: each row's protection colors as a bit mask."""
    rows, colors = batch.instances(PROTECTION)
    named = colors >= 0
    if not named.any():
        return
    protected = np.zeros(batch.rows, np.int64)
    np.bitwise_or.at(protected, rows[named], np.left_shift(1, colors[named]))
    to_creature = event.recipient >= 0
    recipient = np.where(to_creature, event.recipient, 0)
    source_colors = np.asarray(batch.colors(), np.int64)[event.source]
    prevented = to_creature & ((protected[recipient] & source_colors) != 0)
    event.amount[prevented] = 0


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(PROTECTION, rule="702.16", parameter="color")]


@hookimpl
def register_systems() -> list[System]:
    return [
        System(
            "deal-damage",
            "protection prevents damage",
            prevent,
            prevent_batched,
            {PROTECTION},
            sets={"prevention"},  # before replacements and what reacts to damage (616.1)
            writes={"amount"},
        )
    ]


@hookimpl
def register_restrictions() -> list[Restriction]:
    return [
        Restriction(
            "block-pair",
            PROTECTION,
            "702.16e",
            may_block,
            "{attacker} has protection from a color {blocker} has, so {blocker} can't block it",
        ),
        Restriction(
            "target",
            PROTECTION,
            "702.16c",
            may_target,
            "{creature} has protection from a color of the spell {caster} cast, so it can't be "
            "targeted by it",
        ),
    ]
