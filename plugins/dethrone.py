"""Dethrone (702.105): whenever this creature attacks the player with the most life or tied
for most life, put a +1/+1 counter on it.

An attack trigger, once per instance; whether it triggers is decided as attackers are
declared, among the players still in the game. Needs the +1/+1 counter kind (plugin
``pt_counters``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ecs_combat import (
    AttackDeclaration,
    BatchAttackDeclaration,
    BatchContext,
    CombatContext,
    CounterTrigger,
    DeclaredAttack,
    KernelColumn,
    KernelPart,
    Keyword,
    System,
    hookimpl,
)

DETHRONE = "dethrone"
PLUS = "+1/+1"
COUNTER = CounterTrigger(
    DETHRONE, PLUS, "{keyword} ({id}): it attacks the player with the most life, a +1/+1 counter"
)


def triggers(combat: CombatContext, declaration: AttackDeclaration) -> None:
    most = max(combat.life(p) for p in combat.players() if not combat.lost(p))
    richest = [
        a
        for a in declaration.attackers
        if (p := combat.defending_player(a)) is not None and combat.life(p) >= most
    ]
    declaration.trigger_each_instance(combat, DETHRONE, COUNTER.resolve, richest)


def triggers_batched(batch: BatchContext, declaration: BatchAttackDeclaration) -> None:
    found, _ = batch.instances(DETHRONE)
    rows = found[declaration.attackers[found]]  # few: looked up for these only
    defender = batch.defending_player()[rows]
    rows, defender = rows[defender >= 0], defender[defender >= 0]
    if not rows.size:
        return
    life, player_battle = batch.life(), batch.player_battle()
    battle = batch.battle()[rows]
    in_play = np.zeros(batch.battles, np.bool_)
    in_play[battle] = True
    players = np.flatnonzero(in_play[player_battle] & ~batch.lost())
    most = np.full(batch.battles, np.iinfo(np.int64).min, np.int64)
    np.maximum.at(most, player_battle[players], life[players])
    richest = np.zeros(batch.rows, np.bool_)
    richest[rows] = life[defender] >= most[battle]
    declaration.trigger_each_instance(batch, DETHRONE, COUNTER.resolve_batched, richest)


def richest(board: DeclaredAttack) -> list[str] | None:
    """The same for the rules core, as attackers are declared; None while a player is at 0
    life or less (the engines decide whether they lost)."""
    if min(board.life.values()) <= 0:
        return None
    most = max(board.life.values())
    return [a for a in board.attackers() if board.life[board.attacks[a]] >= most]


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(
            DETHRONE,
            rule="702.105",
            requires=frozenset({PLUS}),
            summary="+1/+1 counter attacking the player with the most life (an attack trigger)",
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
            {DETHRONE},
            before_blocks=COUNTER.before_blocks(richest),
        )
    ]


# -- kernel form (docs/plugins.md, "Kernel parts") ------------------------------------------


def counter_kernel(row: int, n: int, other: int, c: Any, t: Any, own: Any) -> None:
    """702.105a in the compiled kernel, one trigger resolving: a +1/+1 counter on its source
    (+1/+1, 122.1a), nothing if it left the battlefield. The core picks who triggers: each
    instance on an attacker attacking the player with the most life or tied (among those
    still in the game) as attackers are declared."""
    if c.on_battlefield[row]:
        own.plus[row] += 1
        c.power[row] += 1
        c.toughness[row] += 1


@hookimpl
def register_kernel_parts() -> list[KernelPart | KernelColumn]:
    return [
        KernelColumn("creature", "plus", "int", counters=PLUS),
        KernelPart(
            "declare-attackers",
            "attack trigger",
            counter_kernel,
            event="attacks the player with the most life",
        ),
    ]
