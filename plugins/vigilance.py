"""Vigilance (702.20): attacking doesn't cause it to tap.

A system at ``declare-attackers`` keeps its attackers from tapping. It matters once a turn
has several combat phases: a tapped creature can't attack again.
"""

from __future__ import annotations

from typing import Any

from ecs_combat import (
    AttackDeclaration,
    BatchAttackDeclaration,
    BatchContext,
    BeforeBlocks,
    Changes,
    CombatContext,
    DeclaredAttack,
    KernelPart,
    Keyword,
    System,
    hookimpl,
)

VIGILANCE = "vigilance"


def stay_untapped(combat: CombatContext, declaration: AttackDeclaration) -> None:
    for e in declaration.attackers:
        if combat.has(e, VIGILANCE):
            declaration.taps.discard(e)
            combat.note(f"{combat.creature_id(e)} attacks without tapping ({VIGILANCE})")


def stay_untapped_batched(batch: BatchContext, declaration: BatchAttackDeclaration) -> None:
    declaration.taps &= ~batch.has(VIGILANCE)


def stays_untapped(board: DeclaredAttack) -> Changes:
    """The same for the rules core: its attackers don't tap."""
    return Changes(untap=frozenset(a for a in board.attackers() if board.instances(a, VIGILANCE)))


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(VIGILANCE, rule="702.20", counter=True)]


@hookimpl
def register_systems() -> list[System]:
    return [
        System(
            "declare-attackers",
            "attacks untapped",
            stay_untapped,
            stay_untapped_batched,
            {VIGILANCE},
            writes={"taps"},
            only_writes=True,
            before_blocks=BeforeBlocks(stays_untapped),
        )
    ]


def untouched_kernel(row: int, n: int, other: int, c: Any, t: Any, own: Any) -> None:
    """702.20b in the compiled kernel: nothing to do. The kernel plays one combat and keeps
    no creature's tapped state (its outcome has none), so an attacker not tapping changes
    nothing it reads or returns."""


@hookimpl
def register_kernel_parts() -> list[KernelPart]:
    return [
        KernelPart(
            "declare-attackers", "attacks untapped", untouched_kernel, event="attacks", at_once=True
        )
    ]
