"""Legacy N, an example third-party keyword plugin for ecs-combat (invented for the example:
no Magic card has it).

"When this creature dies, put N +1/+1 counters on each other creature its controller
controls, plus one more for each +1/+1 counter this creature had."

A triggered ability on dying (700.4, 603.10a), written against the public API only: one
system at the ``dies`` point, in both forms, puts one trigger per instance on the stack
(113.2c: ``legacy 1`` listed twice puts 1 + c counters twice), with the counters the creature
had as it died; the engine resolves them with the other "dies" triggers (persist, undying) in
one order: APNAP, sources in scenario order, one creature's in the order its keywords are
listed. Creatures that died at the same time are off the battlefield and get nothing; neither
does anyone once the game is over (the engines run no ``dies`` systems then). A creature that
returned (persist, undying) after the trigger was put on the stack is a new object the trigger
does not know (400.7): it gets nothing from it. The +1/+1 counters are the bundled
``pt_counters`` plugin's.
"""

from __future__ import annotations

import numpy as np

from ecs_combat import (
    BatchContext,
    BatchDeaths,
    BatchTriggers,
    CombatContext,
    Deaths,
    Keyword,
    System,
    Trigger,
    hookimpl,
)

LEGACY = "legacy"
PLUS = "+1/+1"


def leave_counters(combat: CombatContext, trigger: Trigger) -> None:
    """One legacy trigger resolves: N + c counters on each creature of its controller on the
    battlefield (the dead creature is not: it died, or returned as a new object)."""
    dead = trigger.source
    amount = trigger.data["n"] + trigger.data["had"]
    owner = combat.controller(dead)
    heirs = [
        c for c in combat.creatures() if combat.on_battlefield(c) and combat.controller(c) == owner
    ]
    for heir in heirs:
        combat.add_counters(heir, PLUS, amount)
    if heirs and amount:
        names = ", ".join(combat.creature_id(c) for c in heirs)
        combat.note(
            f"{LEGACY}: {combat.creature_id(dead)} died; {names} "
            f"{'gets' if len(heirs) == 1 else 'each get'} {amount} +1/+1 counters"
        )


def leave_counters_batched(batch: BatchContext, triggers: BatchTriggers) -> None:
    """The same over a batch (one trigger per battle at most): each trigger's N + c on each
    creature of its controller on the battlefield."""
    amount = triggers.data["n"] + triggers.data["had"]
    given = np.zeros(batch.player_rows, np.int64)
    np.add.at(given, batch.controller()[triggers.source], amount)
    heirs = np.flatnonzero(batch.on_battlefield() & (given[batch.controller()] > 0))
    if heirs.size:
        batch.add_counters(heirs, PLUS, given[batch.controller()[heirs]])


def put_triggers(combat: CombatContext, deaths: Deaths) -> None:
    """One trigger per legacy instance of each creature that died, with the +1/+1 counters
    it had as it died (603.10a: the trigger keeps them, whatever happens to it later)."""
    first = len(deaths.triggers)
    deaths.trigger_each_instance(combat, LEGACY, leave_counters)
    for t in deaths.triggers[first:]:
        t.data["had"] = combat.counters(t.source, PLUS)


def put_triggers_batched(batch: BatchContext, deaths: BatchDeaths) -> None:
    """The same over a batch: the counters each trigger's row had, as a data column."""
    first = len(deaths.triggers)
    deaths.trigger_each_instance(batch, LEGACY, leave_counters_batched)
    for group in deaths.triggers[first:]:
        group.data["had"] = batch.counters(PLUS)[group.source]


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
    """One trigger per instance, as creatures die."""
    return [System("dies", "legacy triggers", put_triggers, put_triggers_batched, {LEGACY})]
