"""Flanking (702.25): whenever a creature without flanking blocks this creature, the blocking
creature gets -1/-1 until end of turn.

A block trigger: one per such blocker per instance (702.25b). Whether the blocker has flanking
is checked as blockers are declared; state-based actions after each trigger, so a blocker
flanked to toughness 0 dies before the next trigger resolves.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ecs_combat import (
    BatchBlockDeclaration,
    BatchContext,
    BatchTriggers,
    BlockDeclaration,
    CombatContext,
    KernelPart,
    Keyword,
    System,
    Trigger,
    hookimpl,
)

FLANKING = "flanking"


def resolve(combat: CombatContext, trigger: Trigger) -> None:
    blocker = trigger.data["blocker"]
    if not combat.on_battlefield(blocker):
        return
    combat.pump(blocker, -1, -1)
    combat.note(
        f"{FLANKING} ({combat.creature_id(trigger.source)}): {combat.creature_id(blocker)} gets -1/-1"
    )


def resolve_batched(batch: BatchContext, triggers: BatchTriggers) -> None:
    blocker = triggers.data["blocker"]
    batch.pump(blocker[batch.on_battlefield()[blocker]], -1, -1)


def triggers(combat: CombatContext, declaration: BlockDeclaration) -> None:
    for blocker, attacker in declaration.blocks:
        if combat.has(blocker, FLANKING):
            continue
        for i, _ in enumerate(combat.instances(attacker, FLANKING)):
            declaration.triggers.append(Trigger(attacker, resolve, i, {"blocker": blocker}))


def triggers_batched(batch: BatchContext, declaration: BatchBlockDeclaration) -> None:
    has = batch.has(FLANKING)
    blockers, attackers = declaration.blockers, declaration.attackers
    flanked = has[attackers] & ~has[blockers]
    if not flanked.any():
        return
    rows, _ = batch.instances(FLANKING)  # the attackers' instances, in row order
    count = np.bincount(rows, minlength=batch.rows)
    b, a = blockers[flanked], attackers[flanked]
    times = count[a]
    source = np.repeat(a, times)
    blocker = np.repeat(b, times)
    # the instance of each trigger: 0 .. count - 1 for each block
    instance = np.arange(len(source)) - np.repeat(np.cumsum(times) - times, times)
    declaration.triggers.append(
        BatchTriggers(source, resolve_batched, instance, {"blocker": blocker})
    )


def resolve_kernel(row: int, n: int, other: int, c: Any, t: Any, own: Any) -> None:
    """The trigger resolving in the compiled kernel: the blocker (`other`) gets -1/-1."""
    if c.on_battlefield[other]:
        c.power[other] -= 1
        c.toughness[other] -= 1


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(FLANKING, rule="702.25")]


@hookimpl
def register_systems() -> list[System]:
    return [System("declare-blockers", "block trigger", triggers, triggers_batched, {FLANKING})]


@hookimpl
def register_kernel_parts() -> list[KernelPart]:
    return [
        KernelPart(
            "declare-blockers",
            "block trigger",
            resolve_kernel,
            event="blocked by a creature without it",
        )
    ]
