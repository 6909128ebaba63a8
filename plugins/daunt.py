"""Daunt (509.1b; named after its reminder text): it can't be blocked by creatures with power
2 or less.

Checked as blockers are declared (509.1b), with the powers the blockers have then (printed,
counters, pumps in effect); a change of power afterwards doesn't undo the block.
"""

from __future__ import annotations

from ecs_combat import Keyword, Restriction, Side, Verdict, hookimpl

DAUNT = "daunt"
#: The greatest power a creature that can't block it may have.
MOST = 2


def may_block(attacker: Side, blocker: Side) -> Verdict:
    return ~attacker.has(DAUNT) | (blocker.power > MOST)


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(DAUNT, rule="509.1b", summary="can't be blocked by creatures with power 2 or less")
    ]


@hookimpl
def register_restrictions() -> list[Restriction]:
    return [
        Restriction(
            "block-pair",
            DAUNT,
            "509.1b",
            may_block,
            "{attacker} has daunt and can't be blocked by creatures with power 2 or less, "
            "such as {blocker}",
        )
    ]
