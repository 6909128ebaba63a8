"""Rampage N (702.23): whenever this creature becomes blocked, it gets +N/+N until end of turn
for each creature blocking it beyond the first, counted as the ability resolves.

A block trigger, once per instance (702.23c).
"""

from __future__ import annotations

import numpy as np

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

RAMPAGE = "rampage"


def resolve(combat: CombatContext, trigger: Trigger) -> None:
    beyond = max(combat.blocker_count(trigger.source) - 1, 0)
    gain = trigger.data["n"] * beyond
    if gain:
        combat.pump(trigger.source, gain, gain)
    combat.note(
        f"{RAMPAGE} {trigger.data['n']} ({combat.creature_id(trigger.source)}): {beyond} blocker(s) "
        f"beyond the first, +{gain}/+{gain}"
    )


def resolve_batched(batch: BatchContext, triggers: BatchTriggers) -> None:
    blockers = batch.blocker_count()[triggers.source]
    gain = triggers.data["n"] * np.maximum(blockers - 1, 0)
    batch.pump(triggers.source, gain, gain)


def triggers(combat: CombatContext, declaration: BlockDeclaration) -> None:
    declaration.trigger_each_instance(combat, RAMPAGE, resolve, declaration.blocked_attackers())


def triggers_batched(batch: BatchContext, declaration: BatchBlockDeclaration) -> None:
    declaration.trigger_each_instance(
        batch, RAMPAGE, resolve_batched, declaration.blocked_attackers(batch.rows)
    )


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(RAMPAGE, rule="702.23", parameter="number")]


@hookimpl
def register_systems() -> list[System]:
    return [System("declare-blockers", "block trigger", triggers, triggers_batched, {RAMPAGE})]
