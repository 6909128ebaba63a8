"""Bushido N (702.45): whenever this creature blocks or becomes blocked, it gets +N/+N until
end of turn.

A block trigger (509.2-509.5): each instance triggers once, however many creatures block it or
it blocks; the engine resolves block triggers in APNAP order with state-based actions after
each.
"""

from __future__ import annotations

from ecs_combat import (
    BatchBlockDeclaration,
    BatchContext,
    BatchTriggers,
    BlockDeclaration,
    CombatContext,
    Keyword,
    System,
    Trigger,
    hookimpl,
)

BUSHIDO = "bushido"


def resolve(combat: CombatContext, trigger: Trigger) -> None:
    n = trigger.data["n"]
    combat.pump(trigger.source, n, n)
    combat.note(f"{BUSHIDO} {n} ({combat.creature_id(trigger.source)}): +{n}/+{n}")


def resolve_batched(batch: BatchContext, triggers: BatchTriggers) -> None:
    n = triggers.data["n"]
    batch.pump(triggers.source, n, n)


def triggers(combat: CombatContext, declaration: BlockDeclaration) -> None:
    declaration.trigger_each_instance(combat, BUSHIDO, resolve)


def triggers_batched(batch: BatchContext, declaration: BatchBlockDeclaration) -> None:
    declaration.trigger_each_instance(batch, BUSHIDO, resolve_batched)


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(BUSHIDO, rule="702.45", parameter="number")]


@hookimpl
def register_systems() -> list[System]:
    return [System("declare-blockers", "block trigger", triggers, triggers_batched, {BUSHIDO})]
