"""Training (702.149): whenever this creature attacks with another creature with greater
power, put a +1/+1 counter on this creature.

An attack trigger, once per instance; the powers are read as it resolves (RULES section 10),
so a battle cry resolved earlier counts. Needs the +1/+1 counter kind (plugin
``pt_counters``).
"""

from __future__ import annotations

import numpy as np

from ecs_combat import (
    AttackDeclaration,
    BatchAttackDeclaration,
    BatchContext,
    BatchTriggers,
    CombatContext,
    Keyword,
    System,
    Trigger,
    hookimpl,
)

TRAINING = "training"
PLUS = "+1/+1"


def resolve(combat: CombatContext, trigger: Trigger) -> None:
    own = combat.power(trigger.source)
    greater = [
        c
        for c in combat.creatures()
        if c != trigger.source and combat.attacking(c) and combat.power(c) > own
    ]
    if greater:
        combat.add_counters(trigger.source, PLUS, 1)
        combat.note(
            f"{TRAINING} ({combat.creature_id(trigger.source)}): it attacks with "
            f"{combat.creature_id(greater[0])}, which has greater power: a +1/+1 counter"
        )


def resolve_batched(batch: BatchContext, triggers: BatchTriggers) -> None:
    """One trigger per battle at once: the greatest power among its battle's attackers."""
    battle, power = batch.battle(), batch.power()
    attackers = np.flatnonzero(batch.attacking())
    greatest = np.full(batch.battles, np.iinfo(np.int64).min, np.int64)
    np.maximum.at(greatest, battle[attackers], power[attackers])
    source = triggers.source
    go = source[greatest[battle[source]] > power[source]]
    if go.size:
        batch.add_counters(go, PLUS, 1)


def triggers(combat: CombatContext, declaration: AttackDeclaration) -> None:
    declaration.trigger_each_instance(combat, TRAINING, resolve)


def triggers_batched(batch: BatchContext, declaration: BatchAttackDeclaration) -> None:
    declaration.trigger_each_instance(batch, TRAINING, resolve_batched)


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(
            TRAINING,
            rule="702.149",
            requires=frozenset({PLUS}),
            summary="+1/+1 counter attacking with a greater power (an attack trigger)",
        )
    ]


@hookimpl
def register_systems() -> list[System]:
    return [System("declare-attackers", "attack trigger", triggers, triggers_batched, {TRAINING})]
