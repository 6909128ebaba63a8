"""Defender (702.3): it can't attack.

Not a keyword counter: defender is not on the 122.1b list.
"""

from __future__ import annotations

from ecs_combat import Keyword, Restriction, Side, Verdict, hookimpl

DEFENDER = "defender"


def may_attack(creature: Side) -> Verdict:
    return ~creature.has(DEFENDER)


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(DEFENDER, rule="702.3")]


@hookimpl
def register_restrictions() -> list[Restriction]:
    return [Restriction("attack", DEFENDER, "702.3", may_attack)]
