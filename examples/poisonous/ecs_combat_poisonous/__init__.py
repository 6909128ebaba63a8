"""Poisonous N (702.70), an example third-party keyword plugin for ecs-combat.

"Whenever this creature deals combat damage to a player, that player gets N poison counters."
Each instance triggers separately (113.2c). Written against the public API only: a system at
``deal-damage`` (after prevention and replacements) notes the triggers of the damage dealt to
players; one at ``state-based-actions``, after the checks the damage caused, resolves them and
checks 704.5c for the players it poisoned. A player losing in that same check (or already out)
gets nothing. Poison counters are the bundled ``poison`` plugin's ``player.poison`` state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import esper
import numpy as np

from ecs_combat import (
    BatchDamageEvent,
    BatchStateCheck,
    DamageEvent,
    Keyword,
    StateCheck,
    System,
    hookimpl,
)

POISONOUS = "poisonous"
POISON = "poison"
#: Poison counters a player loses the game at (704.5c).
LOSING_COUNT = 10
#: The batched engine's per-creature columns: poison its triggers will give, and to whom.
PENDING = "poisonous: pending poison"
PLAYER = "poisonous: damaged player"
#: Reads after the state-based actions the damage caused (and before other late systems).
AFTER_CHECKS = 90


@dataclass(slots=True)
class PendingPoison:
    """Component of a player entity: poison counters from poisonous triggers not resolved yet."""

    count: int


def total(values: list[Any]) -> int:
    """The poison counters of a creature's poisonous triggers (one per instance)."""
    return sum(n for n in values if n)


def trigger(combat: Any, event: DamageEvent) -> None:
    """Note the triggers of the combat damage dealt to players by poisonous sources."""
    for d in event.dealt:
        if d.to_player and d.amount > 0 and combat.has(d.source, POISONOUS):
            n = total(combat.instances(d.source, POISONOUS))
            pending = esper.try_component(d.recipient, PendingPoison)
            if pending is None:
                esper.add_component(d.recipient, PendingPoison(n))
            else:
                pending.count += n


def resolve(combat: Any, check: StateCheck) -> None:
    """Resolve the noted triggers; then 704.5c for the players poisoned."""
    for player, pending in list(esper.get_component(PendingPoison)):
        esper.remove_component(player, PendingPoison)
        if player in check.loses or combat.game_over():
            continue
        poison = combat.state(player, POISON) + pending.count
        combat.set_state(player, POISON, poison)
        combat.note(f"{POISONOUS} (702.70): {combat.pid(player)} gets {pending.count} poison")
        if poison >= LOSING_COUNT:
            check.loses.add(player)
            check.why[player] = f"has {LOSING_COUNT} or more poison counters and loses (704.5c)"


def trigger_batched(batch: Any, event: BatchDamageEvent) -> None:
    """The same over a batch: per source row, the poison due and the player it damaged."""
    hit = (event.recipient < 0) & (event.amount > 0)
    hit[hit] = batch.has(POISONOUS)[event.source[hit]]
    if not hit.any():
        return
    rows, values = batch.instances(POISONOUS)
    due = np.bincount(rows, weights=np.maximum(values, 0), minlength=batch.n).astype(np.int64)
    sources = event.source[hit]
    batch.column(PENDING, np.int64)[sources] += due[sources]  # one entry per source and step
    batch.column(PLAYER, np.int64)[sources] = -1 - event.recipient[hit]


def resolve_batched(batch: Any, check: BatchStateCheck) -> None:
    """Resolve the noted triggers in the battles being checked; then 704.5c for them."""
    if not batch.has_column(PENDING):
        return
    pending = batch.column(PENDING, np.int64)
    rows = np.flatnonzero((pending > 0) & check.battles[batch.battle])
    if not rows.size:
        return
    players = batch.column(PLAYER, np.int64)[rows]
    counts = pending[rows]
    pending[rows] = 0
    keep = (
        ~check.loses[players]
        & ~batch.lost[players]
        & ~batch.game_over[batch.player_battle[players]]
    )
    poison = batch.player_state(POISON)
    np.add.at(poison, players[keep], counts[keep])
    check.loses[players[keep]] |= poison[players[keep]] >= LOSING_COUNT


@hookimpl
def register_keywords() -> list[Keyword]:
    """Poisonous: a number, and the players' poison counters of the bundled poison plugin."""
    return [
        Keyword(
            POISONOUS,
            rule="702.70",
            parameter="number",
            requires=frozenset({f"player.{POISON}"}),
            summary="poison counters to players it deals combat damage to (a trigger)",
        )
    ]


@hookimpl
def register_systems() -> list[System]:
    """Trigger as damage is dealt; resolve after the state-based actions it caused."""
    return [
        System("deal-damage", "poisonous triggers", trigger, trigger_batched, {POISONOUS}, 90),
        System(
            "state-based-actions",
            "poisonous triggers resolve",
            resolve,
            resolve_batched,
            order=AFTER_CHECKS,  # no keywords: its creature may have died or lost poisonous
        ),
    ]
