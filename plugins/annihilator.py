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

from ecs_combat import (
    BatchContext,
    BatchTriggers,
    BeforeBlocks,
    Changes,
    CombatContext,
    DeclaredAttack,
    Keyword,
    System,
    Trigger,
    attack_trigger,
    hookimpl,
)

ANNIHILATOR = "annihilator"


def resolve(combat: CombatContext, trigger: Trigger) -> None:
    player = trigger.data["defending_player"]
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
    players, n = triggers.data["defending_player"], triggers.data["n"]
    here = players >= 0
    here[here] = ~batch.lost()[players[here]]
    if here.any():
        batch.sacrifice(batch.chosen_sacrifices(players[here], n[here]))


def before_blocks(board: DeclaredAttack) -> Changes | None:
    """Every trigger resolved before blockers are declared, for the rules core: in the
    attackers' order, each instance's player sacrifices N creatures, chosen as the contexts
    choose them. None when the attackers have several controllers or a defending player is at
    0 life or less (the engines' order and losses decide)."""
    attackers = board.attackers()
    if len({board.controller[a] for a in attackers}) > 1:
        return None
    taken: dict[str, int] = {}
    gone: set[str] = set()
    for source in attackers:
        player = board.attacks[source]
        for n in board.instances(source, ANNIHILATOR):
            if board.life[player] <= 0:
                return None
            gone |= set(board.chosen_sacrifices(player, n, taken.get(player, 0), gone))
            taken[player] = taken.get(player, 0) + n
    return Changes(leave=frozenset(gone))


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
        attack_trigger(
            ANNIHILATOR,
            resolve,
            resolve_batched,
            defender=True,
            before_blocks=BeforeBlocks(before_blocks),
        )
    ]
