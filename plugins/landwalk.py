"""Landwalk (702.14): swampwalk, forestwalk, islandwalk, mountainwalk, plainswalk and nonbasic
landwalk. A creature with one can't be blocked as long as the defending player controls a land
of that type (a player's ``lands``: land types, and ``nonbasic``)."""

from __future__ import annotations

from collections.abc import Callable

from ecs_combat import Keyword, Restriction, Side, Verdict, hookimpl, land_mask

#: Each landwalk keyword and the land type it walks.
WALKS = {
    "swampwalk": "swamp",
    "forestwalk": "forest",
    "islandwalk": "island",
    "mountainwalk": "mountain",
    "plainswalk": "plains",
    "nonbasic landwalk": "nonbasic",
}


def walks(keyword: str, land: str) -> Callable[[Side, Side], Verdict]:
    """The block-pair test of one landwalk: the blocker's controller (the defending player)
    controls no land of that type."""
    bit = land_mask([land])

    def may_block(attacker: Side, blocker: Side) -> Verdict:
        return ~attacker.has(keyword) | ((blocker.lands & bit) == 0)

    return may_block


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(k, rule="702.14", summary=f"unblockable while they control a {land}")
        for k, land in WALKS.items()
    ]


@hookimpl
def register_restrictions() -> list[Restriction]:
    return [
        Restriction(
            "block-pair",
            k,
            "702.14",
            walks(k, land),
            f"{{attacker}} has {k} and the defending player controls a {land} land, so "
            "{blocker} can't block it",
        )
        for k, land in WALKS.items()
    ]
