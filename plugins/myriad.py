"""Myriad (702.116): whenever this creature attacks, for each opponent other than the
defending player, you may create a token that's a copy of this creature that's tapped and
attacking that player or a planeswalker they control; exile the tokens at end of combat.

An attack trigger per instance, resolved with the other attack triggers (508.2), before
blockers are declared. The tokens are made through the contexts' ``create_token`` (ids
``<creature>~<player>``; ``Keyword.tokens = "copy per opponent"`` makes the batched engine
reserve their rows), attack the player they were made for if that player is still in the game
(506.3), and are exiled at end of combat (they are then listed with ``alive: false``). The
"you may" is always taken. In a two-player game it does nothing. A scenario's blocks can't
name the tokens (they don't exist as it is written): they attack unblocked.
"""

from __future__ import annotations

import numpy as np

from ecs_combat import (
    BatchContext,
    BatchEndOfCombat,
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

MYRIAD = "myriad"
#: The tokens myriad made this combat, exiled at end of combat.
MADE = "myriad: exile at end of combat"


def resolve(combat: CombatContext, trigger: Trigger) -> None:
    source, defender = trigger.source, trigger.data["defending_player"]
    controller = combat.controller(source)
    made = []
    for player in combat.players():
        if player in (controller, defender) or combat.lost(player):
            continue
        token = combat.create_token(controller, source, tapped=True, attacking=player)
        if token is not None:
            combat.marks(MADE)[token] = True
            made.append(combat.creature_id(token))
    if made:
        combat.note(f"{MYRIAD} ({combat.creature_id(source)}): {', '.join(made)} attack")


def resolve_batched(batch: BatchContext, triggers: BatchTriggers) -> None:
    """At most one trigger per battle resolves at once: each pairs its source with every
    player row of its battle (contiguous), then keeps the opponents other than the defender."""
    sources = triggers.source
    player_battle = batch.player_battle()
    first = np.searchsorted(player_battle, batch.battle()[sources])
    count = np.searchsorted(player_battle, batch.battle()[sources], side="right") - first
    each = np.repeat(np.arange(len(sources)), count)
    players = first[each] + np.arange(len(each)) - np.repeat(np.cumsum(count) - count, count)
    controllers = batch.controller()[sources[each]]
    keep = (players != controllers) & (players != triggers.data["defending_player"][each])
    keep &= ~batch.lost()[players]
    if keep.any():
        rows = batch.create_token(controllers[keep], sources[each][keep], True, players[keep])
        batch.marks(MADE, np.bool_)[rows[rows >= 0]] = True


def exile(combat: CombatContext, _: None) -> None:
    made = combat.marks(MADE)
    for token in list(made):
        del made[token]
        if combat.on_battlefield(token):
            combat.leave_battlefield(token)
            combat.note(f"end of combat: {combat.creature_id(token)} is exiled ({MYRIAD})")


def exile_batched(batch: BatchContext, end: BatchEndOfCombat) -> None:
    if not batch.has_marks(MADE):
        return
    made = batch.marks(MADE, np.bool_)
    rows = np.flatnonzero(made)
    rows = rows[end.battles[batch.battle()[rows]]]
    made[rows] = False
    batch.leave_battlefield(rows[batch.on_battlefield()[rows]])


def before_blocks(board: DeclaredAttack) -> Changes | None:
    """For the rules core: with no opponent besides the defending player nothing is made;
    else None (the tokens attack: an engine makes them)."""
    for source in board.attackers():
        if board.instances(source, MYRIAD):
            you, defender = board.controller[source], board.attacks[source]
            if any(p not in (you, defender) for p in board.life):
                return None
    return Changes()


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(
            MYRIAD,
            rule="702.116",
            tokens="copy per opponent",
            summary="token copies attack each other opponent (an attack trigger)",
        )
    ]


@hookimpl
def register_systems() -> list[System]:
    return [
        attack_trigger(
            MYRIAD,
            resolve,
            resolve_batched,
            defender=True,
            before_blocks=BeforeBlocks(before_blocks),
        ),
        System("end-of-combat", "exile the tokens", exile, exile_batched, {MYRIAD}),
    ]
