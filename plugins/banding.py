"""Banding (702.22): creatures attack in bands, a band is blocked as one, and where a creature
with banding is in a fight, its controller divides the damage of the creatures on the other
side.

A scenario's ``combat.bands`` name the bands (702.22c-d: any number of creatures with banding
and at most one without, all attacking one player; the ``band`` restriction lets a creature
with banding be in a band beyond that one). At ``declare-blockers``, a creature blocking one
member of a band blocks every member (702.22h), even one it could not block. At
``assign-damage``, an attacker blocked by a creature with banding has its damage divided by
that creature's controller, the defending player (702.22j); a blocker blocking a creature with
banding, by the attacking player (702.22k): any way among the creatures in that fight, none
to a player, trample's excess included. Where that is a choice among two or more creatures,
the scenario's ``combat.divide`` gives it; decisions search it as that player's choice.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ecs_combat import (
    BatchBlockDeclaration,
    BatchContext,
    BatchDamageAssignment,
    BlockDeclaration,
    CombatContext,
    DamageAssignment,
    KernelPart,
    Keyword,
    Restriction,
    Side,
    System,
    hookimpl,
)

BANDING = "banding"


def may_band(creature: Side) -> Any:
    return creature.has(BANDING)


def band_blocked(combat: CombatContext, declaration: BlockDeclaration) -> None:
    """702.22h: a creature blocking one member of a band blocks the whole band."""
    members: dict[int, list[int]] = {}
    for c in combat.creatures():
        first = combat.band(c)
        if first is not None and combat.attacking(c):
            members.setdefault(first, []).append(c)
    for blocker, attacker in list(declaration.blocks):
        first = combat.band(attacker)
        for other in members.get(first, []) if first is not None else []:
            declaration.add_block(blocker, other)


def band_blocked_batched(batch: BatchContext, declaration: BatchBlockDeclaration) -> None:
    band = batch.band()
    first = band[declaration.attackers]
    banded = first >= 0
    if not banded.any():
        return
    blockers, first = declaration.blockers[banded], first[banded]
    members = ((band >= 0) & batch.attacking()).nonzero()[0]
    members = members[np.argsort(band[members], kind="stable")]
    keys = band[members]
    lo, hi = keys.searchsorted(first), keys.searchsorted(first, side="right")
    count = hi - lo
    place = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    declaration.add_blocks(np.repeat(blockers, count), members[np.repeat(lo, count) + place])


def who_divides(combat: CombatContext, assignment: DamageAssignment) -> None:
    """702.22j-k: facing a creature with banding, its controller divides the damage."""
    for a in assignment.assignments:
        banded = [r for r in a.recipients if combat.has(r, BANDING)]
        if banded:
            a.divide_by(combat.controller(banded[0]), BANDING)


def who_divides_batched(batch: BatchContext, assignment: BatchDamageAssignment) -> None:
    sources, recipients = assignment.recipients()
    hit = batch.has(BANDING)[recipients]
    if not hit.any():
        return
    rows = np.zeros(batch.rows, np.bool_)
    rows[sources[hit]] = True
    players = np.full(batch.rows, -1, np.int64)
    players[sources[hit]] = batch.controller()[recipients[hit]]
    assignment.divide_by(rows, players, BANDING)


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(
            BANDING,
            rule="702.22",
            summary="attacks in a band, blocked as one; divides the damage of creatures it fights",
        )
    ]


@hookimpl
def register_restrictions() -> list[Restriction]:
    return [Restriction("band", BANDING, "702.22c", may_band, "{creature} has no banding")]


@hookimpl
def register_systems() -> list[System]:
    return [
        System(
            "declare-blockers",
            "a band is blocked as one",
            band_blocked,
            band_blocked_batched,
            {BANDING},
        ),
        System(
            "assign-damage",
            "its controller divides the damage of the creatures it fights",
            who_divides,
            who_divides_batched,
            {BANDING},
            writes={"divided_by", "any_split"},
        ),
    ]


# -- kernel form (docs/plugins.md, "Kernel parts") ------------------------------------------


def no_band_kernel(row: int, n: int, other: int, c: Any, t: Any, own: Any) -> None:
    """702.22h in the compiled kernel: nothing to do, as the kernel plays no bands (a batch
    with bands goes to the numpy engine)."""


def divided_kernel(row: int, c: Any, a: Any, own: Any) -> None:
    """702.22j-k in the compiled kernel, for a creature fighting one with banding: its
    damage is divided among the creatures it fights by that creature's controller, none to
    a player (trample's excess included). The core refuses the batch where that is a choice
    (two or more creatures), so all of it goes to the one it fights."""
    a.player_gets_excess[row] = False


@hookimpl
def register_kernel_parts() -> list[KernelPart]:
    return [
        KernelPart(
            "declare-blockers",
            "a band is blocked as one",
            no_band_kernel,
            event="blocks or becomes blocked",
            at_once=True,
        ),
        KernelPart(
            "assign-damage",
            "its controller divides the damage of the creatures it fights",
            divided_kernel,
            guard="recipient",
        ),
    ]
