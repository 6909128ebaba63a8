"""Melee (702.121): whenever this creature attacks, it gets +1/+1 until end of turn for each
opponent you attacked with a creature this combat.

An attack trigger, once per instance. The opponents are counted as attackers are declared
(the players its controller's creatures were declared attacking), kept in a mark until it
resolves.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ecs_combat import (
    AttackDeclaration,
    BatchAttackDeclaration,
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
    hookimpl,
)

MELEE = "melee"
#: Per attacker: how many opponents its controller attacked this combat.
ATTACKED = "melee: opponents attacked"


def resolve(combat: CombatContext, trigger: Trigger) -> None:
    n = trigger.data["opponents"]
    combat.pump(trigger.source, n, n)
    combat.note(
        f"{MELEE} ({combat.creature_id(trigger.source)}): {n} opponent(s) attacked, +{n}/+{n}"
    )


def resolve_batched(batch: BatchContext, triggers: BatchTriggers) -> None:
    n = batch.marks(ATTACKED, np.int64)[triggers.source]
    batch.pump(triggers.source, n, n)


def triggers(combat: CombatContext, declaration: AttackDeclaration) -> None:
    before = len(declaration.triggers)
    declaration.trigger_each_instance(combat, MELEE, resolve)
    for t in declaration.triggers[before:]:
        you = combat.controller(t.source)
        attacked = {
            combat.defending_player(a) for a in declaration.attackers if combat.controller(a) == you
        }
        t.data["opponents"] = len(attacked - {None})


def triggers_batched(batch: BatchContext, declaration: BatchAttackDeclaration) -> None:
    attackers, controllers = declaration.attackers, batch.controller()
    melee = np.flatnonzero(attackers & batch.has(MELEE))
    if melee.size:
        # the opponents are counted for the controllers of attackers with melee only
        counted = np.zeros(batch.player_rows, np.bool_)
        counted[controllers[melee]] = True
        rows = np.flatnonzero(attackers & counted[controllers])
        controller = controllers[rows]
        defender = batch.defending_player()[rows]
        pairs = np.unique(controller * batch.player_rows + defender)
        per_player = np.bincount(pairs // batch.player_rows, minlength=batch.player_rows)
        batch.marks(ATTACKED, np.int64)[rows] = per_player[controller]
    declaration.trigger_each_instance(batch, MELEE, resolve_batched)


def before_blocks(board: DeclaredAttack) -> Changes:
    """Every trigger resolved before blockers are declared, for the rules core: +1/+1 per
    opponent its controller attacked, per instance."""
    attackers = board.attackers()
    out = Changes()
    for source in attackers:
        you = board.controller[source]
        n = len({board.attacks[a] for a in attackers if board.controller[a] == you})
        for _ in board.instances(source, MELEE):
            out = out + Changes(pump={source: (n, n)})
    return out


def resolve_kernel(row: int, n: int, other: int, c: Any, t: Any, own: Any) -> None:
    """The trigger resolving in the compiled kernel: the opponents its controller attacked,
    counted among the attackers now (in the kernel nothing an attack trigger does removes
    an attacker or a player before the attack triggers have resolved)."""
    if not c.on_battlefield[row]:
        return
    b = c.battle[row]
    you = c.controller[row]
    count = 0
    for i in range(t.rows[b], t.rows[b + 1]):
        if c.attacking[i] and c.controller[i] == you:
            first = True  # the first of your attackers attacking that player
            for j in range(t.rows[b], i):
                if c.attacking[j] and c.controller[j] == you and c.attacked[j] == c.attacked[i]:
                    first = False
            if first:
                count += 1
    c.power[row] += count
    c.toughness[row] += count


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(MELEE, rule="702.121", summary="+1/+1 per opponent attacked (an attack trigger)")
    ]


@hookimpl
def register_systems() -> list[System]:
    return [
        System(
            "declare-attackers",
            "attack trigger",
            triggers,
            triggers_batched,
            {MELEE},
            before_blocks=BeforeBlocks(before_blocks),
        )
    ]


@hookimpl
def register_kernel_parts() -> list[KernelPart]:
    return [KernelPart("declare-attackers", "attack trigger", resolve_kernel, event="attacks")]
