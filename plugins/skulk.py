"""Skulk (702.118): it can't be blocked by creatures with greater power.

Checked as blockers are declared (509.1b), with the powers the creatures have then; a change
of power afterwards doesn't undo the block.
"""

from __future__ import annotations

from ecs_combat import Keyword, Restriction, Side, Verdict, hookimpl

SKULK = "skulk"


def may_block(attacker: Side, blocker: Side) -> Verdict:
    return ~attacker.has(SKULK) | (blocker.power <= attacker.power)


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(SKULK, rule="702.118")]


@hookimpl
def register_restrictions() -> list[Restriction]:
    return [
        Restriction(
            "block-pair",
            SKULK,
            "702.118",
            may_block,
            "{attacker} has skulk and can't be blocked by creatures with greater power, "
            "such as {blocker}",
        )
    ]
