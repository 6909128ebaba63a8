"""Frenzy N (702.68): whenever this creature attacks and isn't blocked, it gets +N/+0 until
end of turn.

It triggers as blockers are declared, for the attackers that didn't become blocked, once per
instance, ordered with the block triggers (RULES section 10).
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

FRENZY = "frenzy"


def resolve(combat: CombatContext, trigger: Trigger) -> None:
    n = trigger.data["n"]
    combat.pump(trigger.source, n, 0)
    combat.note(f"{FRENZY} {n} ({combat.creature_id(trigger.source)}): unblocked, +{n}/+0")


def resolve_batched(batch: BatchContext, triggers: BatchTriggers) -> None:
    batch.pump(triggers.source, triggers.data["n"], 0)


def triggers(combat: CombatContext, declaration: BlockDeclaration) -> None:
    blocked = set(declaration.blocked_attackers())
    unblocked = [c for c in combat.creatures() if combat.attacking(c) and c not in blocked]
    declaration.trigger_each_instance(combat, FRENZY, resolve, unblocked)


def triggers_batched(batch: BatchContext, declaration: BatchBlockDeclaration) -> None:
    unblocked = batch.attacking() & ~declaration.blocked_attackers(batch.rows)
    declaration.trigger_each_instance(batch, FRENZY, resolve_batched, unblocked)


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(FRENZY, rule="702.68", parameter="number", summary="+N/+0 when unblocked")]


@hookimpl
def register_systems() -> list[System]:
    return [System("declare-blockers", "block trigger", triggers, triggers_batched, {FRENZY})]
