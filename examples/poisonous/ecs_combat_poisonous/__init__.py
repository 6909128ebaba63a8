"""Poisonous N (702.70), an example third-party keyword plugin for ecs-combat.

"Whenever this creature deals combat damage to a player, that player gets N poison counters."
Each instance triggers separately (113.2c). Written against the public API only: a system at
``deal-damage`` (after prevention and replacements) notes the triggers of the damage dealt to
players; one at ``state-based-actions``, after the checks the damage caused, resolves them and
checks 704.5c for the players it poisoned. A player losing in that same check (or already out)
gets nothing. Poison counters are the bundled ``poison`` plugin's ``player.poison`` state.
"""

from __future__ import annotations

import numpy as np

from ecs_combat import (
    BatchContext,
    BatchDamageEvent,
    BatchStateCheck,
    CombatContext,
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
#: Marks: poison counters from triggers not resolved yet, per player (reference engine); per
#: source row, the poison due and the player row it damaged (batched engine).
PENDING = "poisonous: pending poison"
PLAYER = "poisonous: damaged player"


def total(values: list[int]) -> int:
    """The poison counters of a creature's poisonous triggers (one per instance; -1, an
    instance without a number, gives none)."""
    return sum(max(n, 0) for n in values)


def trigger(combat: CombatContext, event: DamageEvent) -> None:
    """Note the triggers of the combat damage dealt to players by poisonous sources."""
    for d in event.dealt:
        if d.to_player and d.amount > 0 and combat.has(d.source, POISONOUS):
            n = total(combat.instances(d.source, POISONOUS))
            pending = combat.marks(PENDING)
            pending[d.recipient] = int(pending.get(d.recipient) or 0) + n


def resolve(combat: CombatContext, check: StateCheck) -> None:
    """Resolve the noted triggers; then 704.5c for the players poisoned."""
    pending = combat.marks(PENDING)
    for player in sorted(pending):
        count = int(pending.pop(player) or 0)
        if player in check.loses or combat.game_over():
            continue
        poison = int(combat.player_state(player, POISON) or 0) + count
        combat.set_player_state(player, POISON, poison)
        combat.note(f"{POISONOUS} (702.70): {combat.player_id(player)} gets {count} poison")
        if poison >= LOSING_COUNT:
            check.loses.add(player)
            check.why[player] = f"has {LOSING_COUNT} or more poison counters and loses (704.5c)"


def trigger_batched(batch: BatchContext, event: BatchDamageEvent) -> None:
    """The same over a batch: per source row, the poison due and the player it damaged."""
    hit = (event.recipient < 0) & (event.amount > 0)
    hit[hit] = batch.has(POISONOUS)[event.source[hit]]
    if not hit.any():
        return
    rows, values = batch.instances(POISONOUS)
    due = np.bincount(rows, weights=np.maximum(values, 0), minlength=batch.rows).astype(np.int64)
    sources = event.source[hit]
    batch.marks(PENDING, np.int64)[sources] += due[sources]  # one entry per source and step
    batch.marks(PLAYER, np.int64)[sources] = -1 - event.recipient[hit]


def resolve_batched(batch: BatchContext, check: BatchStateCheck) -> None:
    """Resolve the noted triggers in the battles being checked; then 704.5c for them."""
    if not batch.has_marks(PENDING):
        return
    pending = batch.marks(PENDING, np.int64)
    rows = np.flatnonzero((pending > 0) & check.battles[batch.battle()])
    if not rows.size:
        return
    players = batch.marks(PLAYER, np.int64)[rows]
    counts = pending[rows]
    pending[rows] = 0
    keep = (
        ~check.loses[players]
        & ~batch.lost()[players]
        & ~batch.game_over()[batch.player_battle()[players]]
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
        System(
            "deal-damage",
            "poisonous triggers",
            trigger,
            trigger_batched,
            {POISONOUS},
            sets={"reaction"},  # after prevention and replacements
        ),
        System(
            "state-based-actions",
            "poisonous triggers resolve",
            resolve,
            resolve_batched,
            {POISONOUS},  # skipped only in a combat no creature of which has poisonous
            sets={"reaction"},  # after the conditions, such as poison's 704.5c
            writes={"loses"},
        ),
    ]
