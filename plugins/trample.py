"""Trample (702.19): an attacker's damage beyond lethal to its blockers may go to the player.

A system at ``assign-damage`` lets trampling attackers assign excess to the player they
attack; the core's division does the rest: with no blocker left, all of it goes to the player
(702.19d), and an explicit division may send damage to the player only once every blocker is
assigned lethal damage (702.19b). It does nothing for a blocker.
"""

from __future__ import annotations

from typing import Any

from ecs_combat import (
    BatchContext,
    BatchDamageAssignment,
    CombatContext,
    DamageAssignment,
    KernelPart,
    Keyword,
    System,
    hookimpl,
)

TRAMPLE = "trample"


def player_gets_excess(combat: CombatContext, assignment: DamageAssignment) -> None:
    for a in assignment.assignments:
        if combat.has(a.source, TRAMPLE) and combat.attacking(a.source):
            a.allow_excess(TRAMPLE)


def excess_batched(batch: BatchContext, assignment: BatchDamageAssignment) -> None:
    assignment.allow_excess(batch.has(TRAMPLE) & batch.attacking(), TRAMPLE)


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(TRAMPLE, rule="702.19", counter=True)]


@hookimpl
def register_systems() -> list[System]:
    return [
        System(
            "assign-damage",
            "excess to the player",
            player_gets_excess,
            excess_batched,
            {TRAMPLE},
            writes={"player_gets_excess"},
        )
    ]


# -- kernel form (docs/plugins.md, "Kernel parts") ------------------------------------------


def excess_kernel(row: int, c: Any, a: Any, own: Any) -> None:
    """702.19b, for an attacking creature with trample assigning damage."""
    if c.attacking[row]:
        a.player_gets_excess[row] = True


@hookimpl
def register_kernel_parts() -> list[KernelPart]:
    return [KernelPart("assign-damage", "excess to the player", excess_kernel)]
