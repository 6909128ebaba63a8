"""Phantom twin, an imagined keyword: "Whenever this creature attacks, create a token that's a
copy of it, tapped and attacking the same player. Exile that token at end of combat."

A token maker written through the public contract only. Decisions about names:

- An attack trigger per instance (603.2), resolved with the other attack triggers before
  blockers are declared (508.2); it makes the token through the contexts' ``create_token``
  with ``tapped=True`` and ``attacking=`` the player its source attacks (506.3: if that
  player has left the game, the token enters but doesn't attack).
- The token is a copy of the creature's copiable values as printed (707.2): name, power,
  toughness, keywords (phantom twin too), colors; no counters, damage or pumps. It was never
  declared as an attacker, so its own phantom twin doesn't trigger (508.4).
- One token per id, ``<creature>~<player>``: a second instance (or a second combat phase)
  makes none while the first token exists. ``Keyword.tokens = "copy per opponent"`` has the
  batched engine reserve a row for each opponent's copy as it builds a batch.
- At end of combat the token is exiled (it leaves the battlefield: no dies trigger) and is
  listed with ``alive: false``; a token that died doesn't come back (111.8).
"""

from __future__ import annotations

import numpy as np

from ecs_combat import (
    AttackDeclaration,
    BatchAttackDeclaration,
    BatchContext,
    BatchEndOfCombat,
    BatchTriggers,
    CombatContext,
    Keyword,
    System,
    Trigger,
    hookimpl,
)

PHANTOM_TWIN = "phantom twin"
#: The tokens phantom twin made this combat, exiled at end of combat.
MADE = "phantom twin: exile at end of combat"


def make_twin(combat: CombatContext, trigger: Trigger) -> None:
    """The trigger resolves: a tapped token copy attacking the player the source attacked."""
    source = trigger.source
    defender = trigger.data["defender"]
    token = combat.create_token(combat.controller(source), source, tapped=True, attacking=defender)
    if token is not None:
        combat.marks(MADE)[token] = True
        combat.note(f"{PHANTOM_TWIN}: {combat.creature_id(token)} enters tapped and attacking")


def make_twins_batched(batch: BatchContext, triggers: BatchTriggers) -> None:
    """The same for the triggers resolving together (at most one per battle)."""
    sources = triggers.source
    rows = batch.create_token(
        batch.controller()[sources], sources, tapped=True, attacking=triggers.data["defender"]
    )
    batch.marks(MADE, np.bool_)[rows[rows >= 0]] = True


def attack_triggers(combat: CombatContext, declaration: AttackDeclaration) -> None:
    """One trigger per instance on each attacker; each remembers the player it attacks."""
    before = len(declaration.triggers)
    declaration.trigger_each_instance(combat, PHANTOM_TWIN, make_twin)
    for t in declaration.triggers[before:]:
        defender = combat.defending_player(t.source)
        t.data["defender"] = -1 if defender is None else defender


def attack_triggers_batched(batch: BatchContext, declaration: BatchAttackDeclaration) -> None:
    """The same over a batch."""
    before = len(declaration.triggers)
    declaration.trigger_each_instance(batch, PHANTOM_TWIN, make_twins_batched)
    for group in declaration.triggers[before:]:
        group.data["defender"] = np.asarray(batch.defending_player()[group.source], np.int64)


def exile(combat: CombatContext, _: None) -> None:
    """End of combat: the tokens still on the battlefield are exiled."""
    made = combat.marks(MADE)
    for token in list(made):
        del made[token]
        if combat.on_battlefield(token):
            combat.leave_battlefield(token)
            combat.note(f"end of combat: {combat.creature_id(token)} is exiled ({PHANTOM_TWIN})")


def exile_batched(batch: BatchContext, end: BatchEndOfCombat) -> None:
    """The same in the battles whose combat ends."""
    if not batch.has_marks(MADE):
        return
    made = batch.marks(MADE, np.bool_)
    rows = np.flatnonzero(made)
    rows = rows[end.battles[batch.battle()[rows]]]
    made[rows] = False
    batch.leave_battlefield(rows[batch.on_battlefield()[rows]])


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(
            PHANTOM_TWIN,
            tokens="copy per opponent",
            summary="a token copy attacks beside it, exiled at end of combat",
        )
    ]


@hookimpl
def register_systems() -> list[System]:
    return [
        System(
            "declare-attackers",
            "make a twin",
            attack_triggers,
            attack_triggers_batched,
            {PHANTOM_TWIN},
        ),
        System("end-of-combat", "exile the twins", exile, exile_batched, {PHANTOM_TWIN}),
    ]
