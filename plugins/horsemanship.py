"""Horsemanship (702.31): it can't be blocked except by creatures with horsemanship."""

from __future__ import annotations

from ecs_combat import Keyword, Restriction, Side, Verdict, hookimpl

HORSEMANSHIP = "horsemanship"


def may_block(attacker: Side, blocker: Side) -> Verdict:
    return ~attacker.has(HORSEMANSHIP) | blocker.has(HORSEMANSHIP)


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(HORSEMANSHIP, rule="702.31")]


@hookimpl
def register_restrictions() -> list[Restriction]:
    return [
        Restriction(
            "block-pair",
            HORSEMANSHIP,
            "702.31",
            may_block,
            "{attacker} has horsemanship and can be blocked only by creatures with "
            "horsemanship, which {blocker} doesn't have",
        )
    ]
