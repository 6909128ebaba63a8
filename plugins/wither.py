"""Wither (702.80): damage it deals to a creature is dealt as that many -1/-1 counters.

A replacement as damage is dealt: a system at ``deal-damage``, after prevention, takes the
damage off the marked damage and puts -1/-1 counters instead. It is still damage dealt
(listed in the step's ``damage``; lifelink and deathtouch apply). Needs the -1/-1 counter
kind (plugin ``pt_counters``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ecs_combat import (
    BatchContext,
    BatchDamageEvent,
    CombatContext,
    DamageEvent,
    KernelColumn,
    KernelPart,
    Keyword,
    System,
    hookimpl,
)

WITHER = "wither"
MINUS = "-1/-1"


def as_counters(combat: CombatContext, event: DamageEvent) -> None:
    """Damage from wither sources to creatures: -1/-1 counters instead of marked damage."""
    for d in event.dealt:
        if not d.to_player and d.marked and d.amount > 0 and combat.has(d.source, WITHER):
            d.marked = False
            combat.add_counters(d.recipient, MINUS, d.amount)


def as_counters_batched(batch: BatchContext, event: BatchDamageEvent) -> None:
    """The same over a batch: counters added once per creature, summed over sources."""
    hit = np.flatnonzero((event.recipient >= 0) & event.marked & (event.amount > 0))
    hit = hit[batch.has(WITHER)[event.source[hit]]]
    if not hit.size:
        return
    event.marked[hit] = False
    rows, where = np.unique(event.recipient[hit], return_inverse=True)
    totals = np.zeros(len(rows), np.int64)
    np.add.at(totals, where, event.amount[hit])
    batch.add_counters(rows, MINUS, totals)


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(
            WITHER,
            rule="702.80",
            requires=frozenset({MINUS}),
            summary="damage to creatures as -1/-1 counters",
        )
    ]


@hookimpl
def register_systems() -> list[System]:
    return [
        System(
            "deal-damage",
            "damage as -1/-1 counters",
            as_counters,
            as_counters_batched,
            {WITHER},
            sets={"replacement"},
            writes={"marked"},
            ambiguous_with={"infect"},  # whichever runs first replaces the marked damage
        )
    ]


# -- kernel form (docs/plugins.md, "Kernel parts") ------------------------------------------


def as_counters_kernel(source: int, recipient: int, amount: int, c: Any, own: Any) -> int:
    """Damage to a creature as -1/-1 counters (702.80a), each -1/-1 (122.1a): none marked."""
    if recipient < 0:
        return amount
    own.minus[recipient] += amount
    c.power[recipient] -= amount
    c.toughness[recipient] -= amount
    return 0


@hookimpl
def register_kernel_parts() -> list[KernelPart | KernelColumn]:
    return [
        KernelColumn("creature", "minus", "int", counters=MINUS),
        KernelPart("deal-damage", "damage as -1/-1 counters", as_counters_kernel, replacement=True),
    ]
