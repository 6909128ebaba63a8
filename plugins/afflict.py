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
    player = trigger.data.get("player")
    if player is None:
        return
    n = trigger.data["n"]
    combat.lose_life(player, n)
    combat.note(
        f"{AFFLICT} {n} ({combat.creature_id(trigger.source)}): {combat.player_id(player)} loses {n} life"
    )


def resolve_batched(batch: BatchContext, triggers: BatchTriggers) -> None:
    batch.lose_life(triggers.data["player"], triggers.data["n"])


def triggers(combat: CombatContext, declaration: BlockDeclaration) -> None:
    """The defending player is the one it attacks as it becomes blocked: the trigger resolves
    even if it has left combat since (113.7a)."""
    before = len(declaration.triggers)
    declaration.trigger_each_instance(combat, AFFLICT, resolve, declaration.blocked_attackers())
    for t in declaration.triggers[before:]:
        player = combat.defending_player(t.source)
        if player is not None:
            t.data["player"] = player


def triggers_batched(batch: BatchContext, declaration: BatchBlockDeclaration) -> None:
    before = len(declaration.triggers)
    declaration.trigger_each_instance(
        batch, AFFLICT, resolve_batched, declaration.blocked_attackers(batch.rows)
    )
    for group in declaration.triggers[before:]:
        group.data["player"] = batch.defending_player()[group.source]


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(AFFLICT, rule="702.130", parameter="number")]


@hookimpl
def register_systems() -> list[System]:
    return [System("declare-blockers", "block trigger", triggers, triggers_batched, {AFFLICT})]
