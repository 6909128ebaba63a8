"""Protection (702.16): ``protection from red``, ``protection from creatures``, ``protection
from everything``, ``protection from multicolored``; one instance per quality.

A creature with protection from a quality (a color; ``creatures``: any creature;
``multicolored``: two or more colors, 105.2b; ``everything``: anything, 702.16j) can't be
blocked by creatures with that quality (702.16e), can't be the target of spells or abilities
whose source has it (702.16c, 702.16b: provoke's and mentor's sources are creatures), and all
damage sources with it would deal to it is prevented (702.16f): a ``deal-damage`` system in the
standard ``prevention`` set, so before lifelink and deathtouch, sets those amounts to 0, so that
damage gives no life, destroys nothing and is not listed. Damage is still *assigned* to it as
usual (702.19b: trample must assign it lethal damage first); only its dealing is prevented.
From everything, all damage is prevented, also a scenario ``damage`` event's, which has no
source (an ``event-damage`` system); other qualities leave that damage alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ecs_combat import (
    BatchContext,
    BatchDamageEvent,
    BatchEventDamage,
    CombatContext,
    DamageEvent,
    EventDamage,
    KernelColumn,
    KernelPart,
    Keyword,
    Number,
    Restriction,
    Side,
    System,
    Truth,
    Verdict,
    from_mask,
    hookimpl,
)

PROTECTION = "protection"
CREATURES = from_mask(["creatures"])
EVERYTHING = from_mask(["everything"])
MULTICOLORED = from_mask(["multicolored"])


def _multicolored(colors: Number) -> Truth:
    """105.2b: two or more colors (a bit mask with more than one bit)."""
    return (colors & (colors - 1)) != 0


def _from_creature_source(protected: Number, source_colors: Number) -> Truth:
    """Whether protection `protected` (a mask) covers a creature source of `source_colors`."""
    return (
        ((protected & source_colors) != 0)
        | ((protected & (CREATURES | EVERYTHING)) != 0)
        | (((protected & MULTICOLORED) != 0) & _multicolored(source_colors))
    )


def may_block(attacker: Side, blocker: Side) -> Verdict:
    """702.16e: it can't be blocked by creatures with a quality it has protection from."""
    return np.logical_not(_from_creature_source(attacker.values(PROTECTION), blocker.colors))


def may_target(creature: Side) -> Verdict:
    """702.16c: it can't be the target of spells or abilities whose source has a quality it has
    protection from (a spell is no creature; everything covers it too)."""
    protected, colors = creature.values(PROTECTION), creature.spell_colors
    return np.logical_not(
        ((protected & colors) != 0)
        | ((protected & EVERYTHING) != 0)
        | (((protected & CREATURES) != 0) & creature.from_creature)
        | (((protected & MULTICOLORED) != 0) & _multicolored(colors))
    )


def _mask(parameters: list[int]) -> int:
    """A creature's protection qualities as a bit mask (bit i for ``FROM_WORDS[i]``)."""
    mask = 0
    for p in parameters:
        if p >= 0:
            mask |= 1 << p
    return mask


def prevent(combat: CombatContext, event: DamageEvent) -> None:
    """702.16f: prevent the combat damage sources with a quality it has protection from would
    deal (the sources are creatures)."""
    for d in event.dealt:
        if d.to_player or d.amount == 0 or not combat.has(d.recipient, PROTECTION):
            continue
        protected = _mask(combat.instances(d.recipient, PROTECTION))
        if _from_creature_source(protected, combat.colors(d.source)):
            d.amount = 0


def _protected(batch: BatchContext, of: np.ndarray | None = None) -> np.ndarray:
    """Per row: its protection qualities as a bit mask (only those of the rows `of`, if
    given; 0 for the others)."""
    rows, params = batch.instances(PROTECTION)
    named = params >= 0
    if of is not None:
        wanted = np.zeros(batch.rows, np.bool_)
        wanted[of] = True
        named &= wanted[rows]
    protected = np.zeros(batch.rows, np.int64)
    rows, params = rows[named], params[named]
    if rows.size:  # a row's instances are consecutive (row order): OR-ed run by run
        starts = (np.diff(rows, prepend=-1) != 0).nonzero()[0]
        qualities = np.bitwise_or.reduceat(np.left_shift(1, params), starts)
        protected[rows[starts]] = qualities
    return protected


def prevent_batched(batch: BatchContext, event: BatchDamageEvent) -> None:
    """The same over a batch."""
    hit = np.flatnonzero(event.recipient >= 0)  # damage to creatures with protection
    hit = hit[batch.has(PROTECTION)[event.recipient[hit]]]
    if not hit.size:
        return
    recipient = event.recipient[hit]
    protected = _protected(batch, recipient)[recipient]
    source_colors = batch.colors()[event.source[hit]]
    event.amount[hit[_from_creature_source(protected, source_colors)]] = 0


def prevent_event(combat: CombatContext, event: EventDamage) -> None:
    """702.16j: protection from everything prevents a damage event's damage to it too."""
    if event.to_player or not combat.has(event.recipient, PROTECTION):
        return
    if _mask(combat.instances(event.recipient, PROTECTION)) & EVERYTHING:
        event.amount = 0
        combat.note(
            f"protection from everything: the damage to {combat.creature_id(event.recipient)} "
            "is prevented (702.16j)"
        )


def prevent_event_batched(batch: BatchContext, event: BatchEventDamage) -> None:
    """The same over a batch."""
    protected = _protected(batch)
    to_creature = event.recipient >= 0
    recipient = np.where(to_creature, event.recipient, 0)
    event.amount[to_creature & ((protected[recipient] & EVERYTHING) != 0)] = 0


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
        ),
        System(
            "event-damage",
            "protection from everything prevents damage",
            prevent_event,
            prevent_event_batched,
            {PROTECTION},
            writes={"amount"},
        ),
    ]


@hookimpl
def register_restrictions() -> list[Restriction]:
    return [
        Restriction(
            "block-pair",
            PROTECTION,
            "702.16e",
            may_block,
            "{attacker} has protection from a quality {blocker} has (a color, creatures, "
            "multicolored or everything), so {blocker} can't block it",
        ),
        Restriction(
            "target",
            PROTECTION,
            "702.16c",
            may_target,
            "{creature} has protection from a quality of the source {caster} controls (a color, "
            "creatures, multicolored or everything), so it can't be targeted by it",
        ),
    ]


# -- kernel form (docs/plugins.md, "Kernel parts") ------------------------------------------


def prevent_kernel(source: int, recipient: int, amount: int, c: Any, own: Any) -> int:
    """702.16f for damage to a creature with protection (the guard: the recipient's)."""
    protected = own.protected[recipient]
    colors = c.colors[source]
    if (protected & colors) != 0 or (protected & (CREATURES | EVERYTHING)) != 0:
        return 0
    if (protected & MULTICOLORED) != 0 and (colors & (colors - 1)) != 0:
        return 0  # 105.2b: two or more colors
    return amount


@hookimpl
def register_kernel_parts() -> list[KernelPart | KernelColumn]:
    return [
        KernelColumn("creature", "protected", "int", parameters=PROTECTION),
        KernelPart("deal-damage", "protection prevents damage", prevent_kernel, guard="recipient"),
    ]
