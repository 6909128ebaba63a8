"""Vigilance (702.20): attacking doesn't cause it to tap.

A system at ``declare-attackers`` keeps its attackers from tapping. It matters once a turn
has several combat phases: a tapped creature can't attack again.
"""

from __future__ import annotations

from typing import Any

from ecs_combat import AttackDeclaration, BatchAttackDeclaration, Keyword, System, hookimpl

VIGILANCE = "vigilance"


def stay_untapped(combat: Any, declaration: AttackDeclaration) -> None:
    for e in declaration.attackers:
        if combat.has(e, VIGILANCE):
            declaration.taps.discard(e)
            combat.note(f"{combat.cid(e)} attacks without tapping ({VIGILANCE})")


def stay_untapped_batched(batch: Any, declaration: BatchAttackDeclaration) -> None:
    declaration.taps &= ~batch.has(VIGILANCE)


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
        )
    ]
