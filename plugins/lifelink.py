"""Lifelink (702.15): its controller gains life equal to the damage it deals.

The life is gained at the same time as the damage is dealt (510.2), as one event per source:
a system at ``deal-damage`` after prevention, in both engines.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ecs_combat import (
    BatchContext,
    BatchDamageEvent,
    CombatContext,
    DamageEvent,
    KernelPart,
    Keyword,
    System,
    hookimpl,
)

LIFELINK = "lifelink"


def gain_life(combat: CombatContext, event: DamageEvent) -> None:
    """Each lifelink source's controller gains the damage it dealt, once per source."""
    dealt: dict[int, int] = {}
    for d in event.dealt:
        if d.amount > 0 and combat.has(d.source, LIFELINK):
            dealt[d.source] = dealt.get(d.source, 0) + d.amount
    for source, total in dealt.items():
        player = combat.controller(source)
        event.life[player] = event.life.get(player, 0) + total
        event.life_gained.append((player, source, total))


def gain_life_batched(batch: BatchContext, event: BatchDamageEvent) -> None:
    """The same over a batch: one gain per lifelink source that dealt damage."""
    gaining = np.flatnonzero((event.amount > 0) & batch.has(LIFELINK)[event.source])
    if not gaining.size:
        return
    sources, source = np.unique(event.source[gaining], return_inverse=True)  # in row order
    dealt = np.zeros(len(sources), np.int64)  # each dealt more than 0
    np.add.at(dealt, source.reshape(-1), event.amount[gaining])
    event.gains.append((batch.controller()[sources], sources, dealt))


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(LIFELINK, rule="702.15", counter=True)]


@hookimpl
def register_systems() -> list[System]:
    return [
        System(
            "deal-damage",
            "lifelink gains life",
            gain_life,
            gain_life_batched,
            {LIFELINK},
            sets={"reaction"},
            writes={"life", "gains"},
        )
    ]


# -- kernel form (docs/plugins.md, "Kernel parts") ------------------------------------------


def gain_life_kernel(source: int, recipient: int, amount: int, c: Any, own: Any) -> None:
    """Its controller gains the damage it dealt, as it is dealt (a reaction)."""
    c.life[c.controller[source]] += amount
    c.life_gained[source] += amount


@hookimpl
def register_kernel_parts() -> list[KernelPart]:
    return [KernelPart("deal-damage", "lifelink gains life", gain_life_kernel, reaction=True)]
