"""Legacy N, an example third-party keyword plugin for ecs-combat (invented for the example:
no Magic card has it).

"When this creature dies, put N +1/+1 counters on each other creature its controller
controls, plus one more for each +1/+1 counter this creature had."

A triggered ability on dying (700.4, 603.10a), written against the public API only: one
system at the ``dies`` point, in both forms. The engine gives the creatures that just died,
off the battlefield but as they last existed, so their keywords and counters can still be read.
Each instance triggers separately (113.2c): ``legacy 1`` listed twice puts 1 + c counters
twice. Creatures that died at the same time are off the battlefield and get nothing; neither
does anyone once the game is over (the engines run no ``dies`` systems then). A creature that
persist or undying returned is a new object (400.7), so it gets them too, the dead legacy
creature itself included: legacy's triggers resolve after theirs (``after``), the order its
controller would choose (603.3b). The +1/+1 counters are the bundled ``pt_counters`` plugin's.
"""

from __future__ import annotations

import numpy as np

from ecs_combat import (
    BatchContext,
    BatchDeaths,
    CombatContext,
    Deaths,
    Keyword,
    System,
    hookimpl,
)

LEGACY = "legacy"
PLUS = "+1/+1"


def bequest(n: int, instances: int, counters: int) -> int:
    """The counters a dead creature's legacy triggers put on each other creature: the sum of
    their N, plus one per +1/+1 counter it had for each trigger."""
    return n + instances * counters


def leave_counters(combat: CombatContext, deaths: Deaths) -> None:
    """Each creature that died with legacy: its triggers put counters on each creature of
    its controller on the battlefield (it is not: it died, or returned as a new object)."""
    for dead in deaths.creatures:
        if not combat.has(dead, LEGACY):
            continue
        values = combat.instances(dead, LEGACY)
        n = sum(max(v, 0) for v in values)
        amount = bequest(n, len(values), combat.counters(dead, PLUS))
        owner = combat.controller(dead)
        heirs = [
            c
            for c in combat.creatures()
            if combat.on_battlefield(c) and combat.controller(c) == owner
        ]
        for heir in heirs:
            combat.add_counters(heir, PLUS, amount)
        if heirs and amount:
            names = ", ".join(combat.creature_id(c) for c in heirs)
            combat.note(
                f"{LEGACY}: {combat.creature_id(dead)} dies; {names} "
                f"{'gets' if len(heirs) == 1 else 'each get'} {amount} +1/+1 counters"
            )


def leave_counters_batched(batch: BatchContext, deaths: BatchDeaths) -> None:
    """The same over a batch: what each player's dead legacy creatures leave, summed, on each
    of that player's creatures on the battlefield."""
    rows, values = batch.instances(LEGACY)
    dying = deaths.creatures[rows]
    rows, values = rows[dying], values[dying]
    if not rows.size:
        return
    n = np.bincount(rows, weights=np.maximum(values, 0), minlength=batch.rows)
    count = np.bincount(rows, minlength=batch.rows)
    amount = (n + count * batch.counters(PLUS)).astype(np.int64)
    dead = np.unique(rows)  # a row per instance: sum each dead creature once
    given = np.zeros(batch.player_rows, np.int64)
    np.add.at(given, batch.controller()[dead], amount[dead])
    heirs = np.flatnonzero(batch.on_battlefield() & (given[batch.controller()] > 0))
    if heirs.size:
        batch.add_counters(heirs, PLUS, given[batch.controller()[heirs]])


@hookimpl
def register_keywords() -> list[Keyword]:
    """Legacy: a number, and the +1/+1 counters of the bundled pt_counters plugin."""
    return [
        Keyword(
            LEGACY,
            rule="example plugin (legacy)",
            parameter="number",
            requires=frozenset({PLUS}),
            summary="when it dies, its controller's other creatures get +1/+1 counters",
        )
    ]


@hookimpl
def register_systems() -> list[System]:
    """One trigger, as creatures die."""
    return [
        System(
            "dies",
            "legacy triggers",
            leave_counters,
            leave_counters_batched,
            {LEGACY},
            after={"persist", "undying"},  # a creature they return gets the counters
        )
    ]
