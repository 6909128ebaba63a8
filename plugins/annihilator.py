"""Annihilator N (702.86): whenever this creature attacks, the defending player sacrifices N
permanents; here creatures (RULES 13).

An attack trigger per instance (702.86b), resolved with the other attack triggers (508.2):
the player the creature attacked as it triggered (kept in the trigger's data, 113.7a) chooses
N creatures through the contexts' ``chosen_sacrifices`` (the scenario's top-level
``sacrifices``, N ids per trigger in trigger order; then the least valuable) and sacrifices
them at once (701.17): the `dies` systems run once for them. A creature sacrificed before
blockers are declared doesn't block (RULES 11.3). Decisions don't search the choice.
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

ANNIHILATOR = "annihilator"


def resolve(combat: CombatContext, trigger: Trigger) -> None:
    player = trigger.data["defender"]
    if player < 0 or combat.lost(player):
        return
    chosen = combat.chosen_sacrifices(player, trigger.data["n"])
    if chosen:
        combat.note(
            f"{ANNIHILATOR} ({combat.creature_id(trigger.source)}): {combat.player_id(player)} "
            f"sacrifices {', '.join(combat.creature_id(c) for c in chosen)}"
        )
    combat.sacrifice(chosen)


def resolve_batched(batch: BatchContext, triggers: BatchTriggers) -> None:
    """At most one trigger per battle resolves at once: the defending players are distinct."""
    players, n = triggers.data["defender"], triggers.data["n"]
    here = players >= 0
    here[here] = ~batch.lost()[players[here]]
    if here.any():
        batch.sacrifice(batch.chosen_sacrifices(players[here], n[here]))


def triggers(combat: CombatContext, declaration: AttackDeclaration) -> None:
    before = len(declaration.triggers)
    declaration.trigger_each_instance(combat, ANNIHILATOR, resolve)
    for t in declaration.triggers[before:]:
        defender = combat.defending_player(t.source)
        t.data["defender"] = -1 if defender is None else defender


def triggers_batched(batch: BatchContext, declaration: BatchAttackDeclaration) -> None:
    before = len(declaration.triggers)
    declaration.trigger_each_instance(batch, ANNIHILATOR, resolve_batched)
    for group in declaration.triggers[before:]:
        group.data["defender"] = np.asarray(batch.defending_player()[group.source], np.int64)


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(
            ANNIHILATOR,
            rule="702.86",
            parameter="number",
            defender_sacrifices=True,
            summary="the defending player sacrifices N creatures (an attack trigger)",
        )
    ]


@hookimpl
def register_systems() -> list[System]:
    return [
        System("declare-attackers", "attack trigger", triggers, triggers_batched, {ANNIHILATOR})
    ]
