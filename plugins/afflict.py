"""Afflict N (702.130): whenever this creature becomes blocked, the defending player loses N
life.

A block trigger, once per instance; the loss is not damage. State-based actions after it: a
player afflicted to 0 life loses before the next trigger resolves.
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

AFFLICT = "afflict"


def resolve(combat: CombatContext, trigger: Trigger) -> None:
    player = combat.defending_player(trigger.source)
    if player is None:
        return
    n = trigger.data["n"]
    combat.lose_life(player, n)
    combat.note(
        f"{AFFLICT} {n} ({combat.creature_id(trigger.source)}): {combat.player_id(player)} loses {n} life"
    )


def resolve_batched(batch: BatchContext, triggers: BatchTriggers) -> None:
    attacking = batch.attacking()[triggers.source]  # still attacking: its defending player
    batch.lose_life(
        batch.defending_player()[triggers.source[attacking]], triggers.data["n"][attacking]
    )


def triggers(combat: CombatContext, declaration: BlockDeclaration) -> None:
    declaration.trigger_each_instance(combat, declaration.blocked_attackers(), AFFLICT, resolve)


def triggers_batched(batch: BatchContext, declaration: BatchBlockDeclaration) -> None:
    declaration.trigger_each_instance(
        batch, declaration.blocked_attackers(batch.rows), AFFLICT, resolve_batched
    )


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(AFFLICT, rule="702.130", parameter="number")]


@hookimpl
def register_systems() -> list[System]:
    return [System("declare-blockers", "block trigger", triggers, triggers_batched, {AFFLICT})]
