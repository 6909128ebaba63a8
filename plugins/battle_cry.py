"""Battle cry (702.91): whenever this creature attacks, each other attacking creature gets
+1/+0 until end of turn.

An attack trigger, once per instance (702.91b), resolved in the declare-attackers step in the
order of all attack triggers (RULES section 10); "each other attacking creature" is read as it
resolves.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ecs_combat import (
    BatchContext,
    BatchTriggers,
    BeforeBlocks,
    Changes,
    CombatContext,
    DeclaredAttack,
    KernelPart,
    Keyword,
    System,
    Trigger,
    attack_trigger,
    hookimpl,
)

BATTLE_CRY = "battle cry"


def resolve(combat: CombatContext, trigger: Trigger) -> None:
    others = [c for c in combat.creatures() if c != trigger.source and combat.attacking(c)]
    for c in others:
        combat.pump(c, 1, 0)
    if others:
        combat.note(
            f"{BATTLE_CRY} ({combat.creature_id(trigger.source)}): "
            f"{', '.join(combat.creature_id(c) for c in others)} get +1/+0"
        )


def resolve_batched(batch: BatchContext, triggers: BatchTriggers) -> None:
    """At most one trigger per battle resolves at once: every other attacker of its battle."""
    battle = batch.battle()
    crying = np.zeros(batch.battles, np.bool_)
    crying[battle[triggers.source]] = True
    others = batch.attacking() & crying[battle]
    others[triggers.source] = False
    batch.pump(np.flatnonzero(others), 1, 0)


def before_blocks(board: DeclaredAttack) -> Changes:
    """Every trigger resolved before blockers are declared, for the rules core: each other
    attacker +1/+0 per instance of battle cry on each attacker."""
    attackers = board.attackers()
    out = Changes()
    for source in attackers:
        for _ in board.instances(source, BATTLE_CRY):
            out = out + Changes(pump={c: (1, 0) for c in attackers if c != source})
    return out


def resolve_kernel(row: int, n: int, other: int, c: Any, t: Any, own: Any) -> None:
    """The trigger resolving in the compiled kernel: each other attacker of its battle."""
    b = c.battle[row]
    for i in range(t.rows[b], t.rows[b + 1]):
        if i != row and c.attacking[i] and c.on_battlefield[i]:
            c.power[i] += 1


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(BATTLE_CRY, rule="702.91", summary="other attackers +1/+0 (an attack trigger)")]


@hookimpl
def register_systems() -> list[System]:
    return [
        attack_trigger(
            BATTLE_CRY, resolve, resolve_batched, before_blocks=BeforeBlocks(before_blocks)
        )
    ]


@hookimpl
def register_kernel_parts() -> list[KernelPart]:
    return [KernelPart("declare-attackers", "attack trigger", resolve_kernel, event="attacks")]
