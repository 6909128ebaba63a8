"""Haste (702.10): it can attack even if it came under its controller's control this turn.

A scenario says a creature came under its controller's control this turn with
``summoning_sick = true``; attacking with it without haste is illegal (302.6).
"""

from __future__ import annotations

from typing import Any

from ecs_combat import (
    AttackDeclaration,
    BatchAttackDeclaration,
    BatchContext,
    CombatContext,
    KernelPart,
    Keyword,
    Restriction,
    Side,
    System,
    Verdict,
    hookimpl,
)

HASTE = "haste"


def say_why(combat: CombatContext, declaration: AttackDeclaration) -> None:
    for e in declaration.attackers:
        if combat.has(e, HASTE) and combat.summoning_sick(e):
            combat.note(
                f"{combat.creature_id(e)} attacks the turn it came under its controller's control ({HASTE})"
            )


def say_why_batched(batch: BatchContext, declaration: BatchAttackDeclaration) -> None:
    """Nothing changes: the system only explains, and the batched engine keeps no notes."""


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(HASTE, rule="702.10", counter=True)]


def attacks_anyway(creature: Side) -> Verdict:
    return creature.has(HASTE)


@hookimpl
def register_restrictions() -> list[Restriction]:
    return [Restriction("summoning-sickness", HASTE, "702.10", attacks_anyway)]


@hookimpl
def register_systems() -> list[System]:
    return [
        System("declare-attackers", "explains", say_why, say_why_batched, {HASTE}, only_writes=True)
    ]


def untouched_kernel(row: int, n: int, other: int, c: Any, t: Any, own: Any) -> None:
    """The system in the compiled kernel: nothing, as in the batched engine (it only
    explains; attacking is checked before the kernel plays the battle, 302.6)."""


@hookimpl
def register_kernel_parts() -> list[KernelPart]:
    return [
        KernelPart("declare-attackers", "explains", untouched_kernel, event="attacks", at_once=True)
    ]
