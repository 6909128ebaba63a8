"""Poison counters (122.1f): a player with ten or more of them loses the game (704.5c).

Players' poison counters are plugin state, ``poison`` (a scenario key, 0 by default, printed
in ``resolve --json``); infect, toxic and poisonous give them. The loss is a state-based
action: a system at ``state-based-actions``, checked with the others, in both engines.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ecs_combat import (
    BatchContext,
    BatchStateCheck,
    CombatContext,
    KernelColumn,
    KernelPart,
    ScoreTerm,
    StateCheck,
    StateField,
    System,
    hookimpl,
)

POISON = "poison"
#: Poison counters a player loses the game at (704.5c).
LOSING_COUNT = 10
WHY = f"has {LOSING_COUNT} or more poison counters and loses (704.5c)"


def poisoned(combat: CombatContext, check: StateCheck) -> None:
    """704.5c: every player with ten or more poison counters loses."""
    for player in combat.players():
        poison = int(combat.player_state(player, POISON) or 0)
        if poison >= LOSING_COUNT and player not in check.loses:
            check.loses.add(player)
            check.why[player] = WHY


def poisoned_batched(batch: BatchContext, check: BatchStateCheck) -> None:
    """The same over a batch's player rows, in the battles being checked."""
    players = np.flatnonzero(batch.player_state(POISON) >= LOSING_COUNT)
    if players.size:
        check.loses[players] |= check.battles[batch.player_battle()[players]]


@hookimpl
def register_state() -> list[StateField]:
    return [
        StateField(
            "player", POISON, "int", 0, output=True, summary="the player's poison counters (122.1f)"
        )
    ]


@hookimpl
def register_systems() -> list[System]:
    return [
        System(
            "state-based-actions",
            "poison (704.5c)",
            poisoned,
            poisoned_batched,
            sets={"conditions"},
            writes={"loses"},
        )
    ]


@hookimpl
def register_score_terms() -> list[ScoreTerm]:
    return [
        ScoreTerm(
            POISON,
            POISON,
            "poison counters the defending player got minus those the attacking player got",
        )
    ]


# -- kernel form (docs/plugins.md, "Kernel parts") ------------------------------------------


def poisoned_kernel(player: int, c: Any, k: Any, own: Any) -> None:
    """704.5c for one player."""
    if own.poison[player] >= LOSING_COUNT:
        k.loses[player] = True


@hookimpl
def register_kernel_parts() -> list[KernelPart | KernelColumn]:
    return [
        KernelColumn("player", "poison", "int", state=POISON),
        KernelPart("state-based-actions", "poison (704.5c)", poisoned_kernel, per="player"),
    ]
