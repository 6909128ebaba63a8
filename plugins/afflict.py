"""Afflict N (702.130): whenever this creature becomes blocked, the defending player loses N
life.

A block trigger, once per instance; the loss is not damage. State-based actions after it: a
player afflicted to 0 life loses before the next trigger resolves.
"""

from __future__ import annotations

from typing import Any

from ecs_combat import (
    BatchBlockDeclaration,
    BatchTriggers,
    BlockDeclaration,
    Keyword,
    System,
    Trigger,
    hookimpl,
)

AFFLICT = "afflict"


def resolve(combat: Any, trigger: Trigger) -> None:
    player = trigger.data["player"]
    if player is None:
        return
    n = trigger.data["n"]
    combat.lose_life(player, n)
    combat.note(
        f"{AFFLICT} {n} ({combat.cid(trigger.source)}): {combat.pid(player)} loses {n} life"
    )


def resolve_batched(batch: Any, triggers: BatchTriggers) -> None:
    batch.lose_life(triggers.data["player"], triggers.data["n"])


def triggers(combat: Any, declaration: BlockDeclaration) -> None:
    """The defending player is the one it attacks as it becomes blocked: the trigger resolves
    even if it has left combat since (113.7a)."""
    before = len(declaration.triggers)
    declaration.trigger_each_instance(combat, declaration.blocked_attackers(), AFFLICT, resolve)
    for t in declaration.triggers[before:]:
        t.data["player"] = combat.defending_player(t.source)


def triggers_batched(batch: Any, declaration: BatchBlockDeclaration) -> None:
    before = len(declaration.triggers)
    declaration.trigger_each_instance(
        batch, declaration.blocked_attackers(batch.n), AFFLICT, resolve_batched
    )
    for group in declaration.triggers[before:]:
        group.data["player"] = batch.attacking[group.source]


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(AFFLICT, rule="702.130", parameter="number")]


@hookimpl
def register_systems() -> list[System]:
    return [System("declare-blockers", "block trigger", triggers, triggers_batched, {AFFLICT})]
