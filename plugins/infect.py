"""Infect (702.90): damage it deals to a creature is dealt as -1/-1 counters, and damage it
deals to a player as that many poison counters, with no life lost.

A replacement as damage is dealt: a system at ``deal-damage``, after prevention. It is still
damage dealt (listed in the step's ``damage``; lifelink and deathtouch apply). Needs the
-1/-1 counter kind (plugin ``pt_counters``) and players' poison counters (plugin
``poison``): without either, infect is unavailable and a scenario naming it is an input error.
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

INFECT = "infect"
MINUS = "-1/-1"
POISON = "poison"


def as_counters(combat: CombatContext, event: DamageEvent) -> None:
    """Damage from infect sources: -1/-1 counters on creatures, poison counters on players."""
    for d in event.dealt:
        if d.amount <= 0 or not combat.has(d.source, INFECT):
            continue
        if d.to_player and d.loses_life:
            d.loses_life = False
            poison = int(combat.player_state(d.recipient, POISON) or 0)
            combat.set_player_state(d.recipient, POISON, poison + d.amount)
        elif not d.to_player and d.marked:
            d.marked = False
            combat.add_counters(d.recipient, MINUS, d.amount)


def as_counters_batched(batch: BatchContext, event: BatchDamageEvent) -> None:
    """The same over a batch: counters added once per creature, summed over sources."""
    infect = np.flatnonzero(event.amount > 0)
    infect = infect[batch.has(INFECT)[event.source[infect]]]
    if not infect.size:
        return
    to_creature = event.recipient[infect] >= 0
    creatures = infect[to_creature & event.marked[infect]]
    players = infect[~to_creature & event.loses_life[infect]]
    if creatures.size:
        event.marked[creatures] = False
        rows, where = np.unique(event.recipient[creatures], return_inverse=True)
        totals = np.zeros(len(rows), np.int64)
        np.add.at(totals, where, event.amount[creatures])
        batch.add_counters(rows, MINUS, totals)
    if players.size:
        event.loses_life[players] = False
        np.add.at(batch.player_state(POISON), -1 - event.recipient[players], event.amount[players])


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(
            INFECT,
            rule="702.90",
            requires=frozenset({MINUS, f"player.{POISON}"}),
            summary="damage as -1/-1 counters and poison counters",
        )
    ]


@hookimpl
def register_systems() -> list[System]:
    return [
        System(
            "deal-damage",
            "damage as -1/-1 and poison counters",
            as_counters,
            as_counters_batched,
            {INFECT},
            sets={"replacement"},
            writes={"marked", "loses_life"},
            ambiguous_with={"wither"},  # whichever runs first replaces the marked damage
        )
    ]


# -- kernel form (docs/plugins.md, "Kernel parts") ------------------------------------------


def as_counters_kernel(source: int, recipient: int, amount: int, c: Any, own: Any) -> int:
    """Damage as -1/-1 counters on a creature (each -1/-1, 122.1a) or poison counters on a
    player (702.90b-c): none marked, no life lost."""
    if recipient < 0:
        own.poison[-1 - recipient] += amount
        return 0
    own.minus[recipient] += amount
    c.power[recipient] -= amount
    c.toughness[recipient] -= amount
    return 0


@hookimpl
def register_kernel_parts() -> list[KernelPart | KernelColumn]:
    return [
        KernelColumn("creature", "minus", "int", counters=MINUS),
        KernelColumn("player", "poison", "int", state=POISON),
        KernelPart(
            "deal-damage",
            "damage as -1/-1 and poison counters",
            as_counters_kernel,
            replacement=True,
        ),
    ]
