"""Training (702.149): whenever this creature attacks with another creature with greater
power, put a +1/+1 counter on this creature.

An attack trigger, once per instance. Whether it triggers is decided as attackers are
declared, with the powers then (508.2a, 603.2; RULES section 10's correction): a battle cry
that resolves first does not make it trigger, and a pump after it triggered does not stop it
(it has no "if" clause to check again as it resolves, 603.4). Needs the +1/+1 counter kind
(plugin ``pt_counters``).
"""

from __future__ import annotations

import numpy as np

from ecs_combat import (
    AttackDeclaration,
    BatchAttackDeclaration,
    BatchContext,
    CombatContext,
    CounterTrigger,
    DeclaredAttack,
    Keyword,
    System,
    hookimpl,
)

TRAINING = "training"
PLUS = "+1/+1"
COUNTER = CounterTrigger(
    TRAINING,
    PLUS,
    "{keyword} ({id}): it attacked with a creature of greater power: a +1/+1 counter",
)


def triggers(combat: CombatContext, declaration: AttackDeclaration) -> None:
    """It triggers if, as attackers are declared, another attacker has greater power."""
    attackers = declaration.attackers
    greatest = max((combat.power(a) for a in attackers), default=0)
    # an attacker with greater power than it is another one
    trained = [a for a in attackers if combat.power(a) < greatest]
    declaration.trigger_each_instance(combat, TRAINING, COUNTER.resolve, trained)


def triggers_batched(batch: BatchContext, declaration: BatchAttackDeclaration) -> None:
    """The same in every battle: the greatest power among its attackers, as declared."""
    found, _ = batch.instances(TRAINING)
    rows = found[declaration.attackers[found]]  # few: looked up for these only
    if not rows.size:
        return
    battle, power = batch.battle(), batch.power()
    attackers = np.flatnonzero(declaration.attackers)
    greatest = np.full(batch.battles, np.iinfo(np.int64).min, np.int64)
    np.maximum.at(greatest, battle[attackers], power[attackers])
    trained = np.zeros(batch.rows, np.bool_)
    trained[rows] = greatest[battle[rows]] > power[rows]
    declaration.trigger_each_instance(batch, TRAINING, COUNTER.resolve_batched, trained)


def trained(board: DeclaredAttack) -> list[str]:
    """The same for the rules core: the attackers with less power than another."""
    attackers = board.attackers()
    greatest = max((board.power[a] for a in attackers), default=0)
    return [a for a in attackers if board.power[a] < greatest]


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
    return [
        System(
            "declare-attackers",
            "attack trigger",
            triggers,
            triggers_batched,
            {TRAINING},
            before_blocks=COUNTER.before_blocks(trained, reads={"power"}),
        )
    ]
