"""Toxic N (702.164): a player dealt combat damage by a creature with toxic also gets N poison
counters, N the total of its toxic values (702.164c), with or without infect.

A static ability applied as combat damage is dealt: a system at ``deal-damage``, after
prevention (prevented damage is not dealt). Needs players' poison counters (plugin
``poison``).
"""

from __future__ import annotations

import numpy as np

from ecs_combat import (
    BatchContext,
    BatchDamageEvent,
    CombatContext,
    DamageEvent,
    Keyword,
    System,
    hookimpl,
)

TOXIC = "toxic"
POISON = "poison"


def poison_players(combat: CombatContext, event: DamageEvent) -> None:
    """Each player dealt damage by a toxic source gets the total of its toxic values."""
    for d in event.dealt:
        if d.to_player and d.amount > 0 and combat.has(d.source, TOXIC):
            total = sum(max(n, 0) for n in combat.instances(d.source, TOXIC))
            poison = int(combat.player_state(d.recipient, POISON) or 0)
            combat.set_player_state(d.recipient, POISON, poison + total)


def poison_players_batched(batch: BatchContext, event: BatchDamageEvent) -> None:
    """The same over a batch: each source's toxic values summed with one bincount."""
    hit = (event.recipient < 0) & (event.amount > 0)
    hit[hit] = batch.has(TOXIC)[event.source[hit]]
    if not hit.any():
        return
    rows, values = batch.instances(TOXIC)
    toxic = np.bincount(rows, weights=np.maximum(values, 0), minlength=batch.rows).astype(np.int64)
    np.add.at(batch.player_state(POISON), -1 - event.recipient[hit], toxic[event.source[hit]])


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(
            TOXIC,
            rule="702.164",
            parameter="number",
            requires=frozenset({f"player.{POISON}"}),
            summary="poison counters to players it deals combat damage to",
        )
    ]


@hookimpl
def register_systems() -> list[System]:
    return [
        System(
            "deal-damage",
            "toxic gives poison counters",
            poison_players,
            poison_players_batched,
            {TOXIC},
            sets={"reaction"},
        )
    ]
