"""Afflict N (702.130): whenever this creature becomes blocked, the defending player loses N
life.

A block trigger, once per instance; the loss is not damage. State-based actions after it: a
player afflicted to 0 life loses before the next trigger resolves.
"""

from __future__ import annotations

from typing import Any

from ecs_combat import (
    BatchContext,
    BatchTriggers,
    CombatContext,
    KernelPart,
    Keyword,
    System,
    Trigger,
    block_trigger,
    hookimpl,
)

AFFLICT = "afflict"


def resolve(combat: CombatContext, trigger: Trigger) -> None:
    player = trigger.data["defending_player"]
    if player < 0:  # it attacks no player
        return
    n = trigger.data["n"]
    combat.lose_life(player, n)
    combat.note(
        f"{AFFLICT} {n} ({combat.creature_id(trigger.source)}): {combat.player_id(player)} loses {n} life"
    )


def resolve_batched(batch: BatchContext, triggers: BatchTriggers) -> None:
    batch.lose_life(triggers.data["defending_player"], triggers.data["n"])


def resolve_kernel(row: int, n: int, other: int, c: Any, t: Any, own: Any) -> None:
    """The trigger resolving in the compiled kernel: the player its source attacked as it
    became blocked (`other`) loses N life, unless they have left the game (800.4a)."""
    if other >= 0 and not c.lost[other]:
        c.life[other] -= n


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(AFFLICT, rule="702.130", parameter="number")]


@hookimpl
def register_systems() -> list[System]:
    # the defending player is the one it attacks as it becomes blocked: the trigger resolves
    # even if it has left combat since (113.7a)
    return [block_trigger(AFFLICT, "becomes blocked", resolve, resolve_batched, defender=True)]


@hookimpl
def register_kernel_parts() -> list[KernelPart]:
    return [
        KernelPart("declare-blockers", "block trigger", resolve_kernel, event="becomes blocked")
    ]
