"""Battalion +X/+Y (an ability word, 207.2c): whenever this creature and at least two other
creatures attack, it gets +X/+Y until end of turn.

An attack trigger, once per instance, when three or more creatures are declared as attackers
(508.1, all of them the attacking player's); it resolves with the other attack triggers
(508.2, RULES section 10) and pumps its source, which does nothing if it has left the
battlefield by then (113.7a). The bonus is the instance's ``pt`` parameter
(``battalion +1/+0``).
"""

from __future__ import annotations

import numpy as np

from ecs_combat import (
    PT_BASE,
    AttackDeclaration,
    BatchAttackDeclaration,
    BatchContext,
    BatchTriggers,
    BeforeBlocks,
    Changes,
    CombatContext,
    DeclaredAttack,
    Keyword,
    System,
    Trigger,
    hookimpl,
    pt_parameter,
)

BATTALION = "battalion"
#: It and at least two other creatures.
ATTACKERS = 3


def resolve(combat: CombatContext, trigger: Trigger) -> None:
    power, toughness = pt_parameter(trigger.data["n"])
    if combat.on_battlefield(trigger.source):
        combat.pump(trigger.source, power, toughness)
        combat.note(
            f"{BATTALION} ({combat.creature_id(trigger.source)}): it gets +{power}/+{toughness}"
        )


def resolve_batched(batch: BatchContext, triggers: BatchTriggers) -> None:
    """At most one trigger per battle resolves at once: the sources are distinct rows."""
    power, toughness = np.divmod(triggers.data["n"], PT_BASE)
    batch.pump(triggers.source, power, toughness)


def triggers(combat: CombatContext, declaration: AttackDeclaration) -> None:
    if len(declaration.attackers) >= ATTACKERS:
        declaration.trigger_each_instance(combat, BATTALION, resolve)


def triggers_batched(batch: BatchContext, declaration: BatchAttackDeclaration) -> None:
    battle = batch.battle()
    count = np.bincount(battle[declaration.attackers], minlength=batch.battles)
    rows = declaration.attackers & (count[battle] >= ATTACKERS)
    declaration.trigger_each_instance(batch, BATTALION, resolve_batched, rows)


def before_blocks(board: DeclaredAttack) -> Changes:
    """Every trigger resolved before blockers are declared, for the rules core."""
    attackers = board.attackers()
    out = Changes()
    if len(attackers) >= ATTACKERS:
        for source in attackers:
            for n in board.instances(source, BATTALION):
                out = out + Changes(pump={source: pt_parameter(n)})
    return out


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(
            BATTALION,
            rule="207.2c (ability word)",
            parameter="pt",
            summary="+X/+Y when it and two or more others attack (an attack trigger)",
        )
    ]


@hookimpl
def register_systems() -> list[System]:
    return [
        System(
            "declare-attackers",
            "attack trigger",
            triggers,
            triggers_batched,
            {BATTALION},
            before_blocks=BeforeBlocks(before_blocks),
        )
    ]
