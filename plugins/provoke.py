"""Provoke (702.39): whenever this creature attacks, you may have target creature defending
player controls untap and block it if able.

An attack trigger, once per instance with a target (the creature's ``targets`` key; without
one, "you may" is not chosen and nothing happens). As it resolves the target must still be on
the battlefield under the control of the player the provoker attacks (608.2b); then it untaps
and must block the provoker if it is able to: a requirement (509.1c) the declared blocks are
checked against, with any other requirement (lure).
"""

from __future__ import annotations

from ecs_combat import (
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
)

PROVOKE = "provoke"


def _legal(combat: CombatContext, source: int, target: int) -> bool:
    """608.2b: still a creature the defending player controls."""
    defender = combat.defending_player(source)
    return combat.on_battlefield(target) and combat.controller(target) == defender


def resolve(combat: CombatContext, trigger: Trigger) -> None:
    source, target = trigger.source, trigger.data["target"]
    who = f"{PROVOKE} ({combat.creature_id(source)})"
    if not _legal(combat, source, target):
        combat.note(f"{who}: its target {combat.creature_id(target)} is gone; nothing happens")
        return
    combat.untap(target)
    combat.require_block(target, source, PROVOKE)
    combat.note(f"{who}: {combat.creature_id(target)} untaps and must block it if able")


def resolve_batched(batch: BatchContext, triggers: BatchTriggers) -> None:
    source, target = triggers.source, triggers.data["target"]
    legal = batch.on_battlefield()[target] & (
        batch.controller()[target] == batch.defending_player()[source]
    )
    batch.untap(target[legal])
    batch.require_block(target[legal], source[legal], PROVOKE)


def triggers(combat: CombatContext, declaration: AttackDeclaration) -> None:
    for e in declaration.attackers:
        for i, target in enumerate(combat.targets(e, PROVOKE)):
            if target is not None:
                declaration.triggers.append(
                    Trigger(e, resolve, i, {"target": target}, keyword=PROVOKE)
                )


def triggers_batched(batch: BatchContext, declaration: BatchAttackDeclaration) -> None:
    source, instance, target = batch.targets(PROVOKE)
    keep = declaration.attackers[source]
    if keep.any():
        declaration.triggers.append(
            BatchTriggers(
                source[keep], resolve_batched, instance[keep], {"target": target[keep]},
                keyword=PROVOKE,
            )
        )  # fmt: skip


def before_blocks(board: DeclaredAttack) -> Changes:
    """Every trigger resolved before blockers are declared, for the rules core: each target
    the defending player controls untaps and must block its provoker."""
    untap, require = set(), []
    for source in board.attackers():
        instances = board.instances(source, PROVOKE)
        for target in board.targets[source].get(PROVOKE, ())[: len(instances)]:
            if board.controller.get(target) == board.attacks[source]:
                untap.add(target)
                require.append((target, source, PROVOKE))
    return Changes(untap=frozenset(untap), require=tuple(require))


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(
            PROVOKE,
            rule="702.39",
            summary="its target untaps and blocks it if able (an attack trigger)",
            target="creature the defending player controls",
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
            {PROVOKE},
            before_blocks=BeforeBlocks(before_blocks, reads=frozenset({"battlefield"})),
        )
    ]
