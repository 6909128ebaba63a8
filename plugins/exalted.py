"""Exalted (702.83): whenever a creature you control attacks alone, it gets +1/+1 until end
of turn for each instance of exalted among permanents you control.

A trigger as attackers are declared: a system at ``declare-attackers`` in both engines.
"""

from __future__ import annotations

from typing import Any

import numpy as np

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

EXALTED = "exalted"


def attacks_alone(combat: CombatContext, declaration: AttackDeclaration) -> None:
    if len(declaration.attackers) != 1:
        return
    (attacker,) = declaration.attackers
    controller = combat.controller(attacker)
    bonus = 0
    for e in combat.creatures():
        if combat.controller(e) == controller and combat.on_battlefield(e):
            for _ in combat.instances(e, EXALTED):  # each instance triggers (702.83b)
                bonus += 1
                combat.note(
                    f"{EXALTED} ({combat.creature_id(e)}): {combat.creature_id(attacker)} attacks alone, +1/+1"
                )
    if bonus:
        combat.pump(attacker, bonus, bonus)


def attacks_alone_batched(batch: BatchContext, declaration: BatchAttackDeclaration) -> None:
    rows, _ = batch.instances(EXALTED)  # each instance triggers (702.83b)
    rows = rows[batch.on_battlefield()[rows]]
    if not rows.size:
        return
    battle = batch.battle()
    # the attackers of the battles with exalted only: whether one attacks alone there
    exalted = np.zeros(batch.battles, np.bool_)
    exalted[battle[rows]] = True
    attackers = np.flatnonzero(declaration.attackers & exalted[battle])
    alone = np.bincount(battle[attackers], minlength=batch.battles) == 1
    rows = rows[alone[battle[rows]]]
    if not rows.size:
        return
    per_player = np.bincount(batch.controller()[rows], minlength=len(batch.life()))
    alone_attackers = attackers[alone[battle[attackers]]]
    gain = per_player[batch.controller()[alone_attackers]]
    gains = gain > 0  # the others get +0/+0
    batch.pump(alone_attackers[gains], gain[gains], gain[gains])


def alone_before_blocks(board: DeclaredAttack) -> Changes:
    """The same before blockers are declared, for the rules core."""
    attackers = board.attackers()
    if len(attackers) != 1:
        return Changes()
    (attacker,) = attackers
    you = board.controller[attacker]
    bonus = sum(
        len(board.instances(c, EXALTED)) for c in board.creatures if board.controller[c] == you
    )
    return Changes(pump={attacker: (bonus, bonus)}) if bonus else Changes()


def attacks_alone_kernel(row: int, n: int, other: int, c: Any, t: Any, own: Any) -> None:
    """702.83a in the compiled kernel, for one instance of exalted (`row`'s): the creature
    attacking alone (`other`) gets +1/+1, at once as in the other forms."""
    if c.on_battlefield[other]:
        c.power[other] += 1
        c.toughness[other] += 1


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(EXALTED, rule="702.83", counter=True)]


@hookimpl
def register_systems() -> list[System]:
    return [
        System(
            "declare-attackers",
            "attacks alone",
            attacks_alone,
            attacks_alone_batched,
            {EXALTED},
            before_blocks=BeforeBlocks(alone_before_blocks),
        )
    ]


@hookimpl
def register_kernel_parts() -> list[KernelPart]:
    return [
        KernelPart(
            "declare-attackers",
            "attacks alone",
            attacks_alone_kernel,
            event="a creature you control attacks alone",
            at_once=True,
        )
    ]
