"""Hexproof (702.11): it can't be the target of spells or abilities an opponent controls."""

from __future__ import annotations

from ecs_combat import Keyword, Restriction, Side, Verdict, hookimpl

HEXPROOF = "hexproof"


def may_target(creature: Side) -> Verdict:
    return ~(creature.has(HEXPROOF) & creature.opponent)


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(HEXPROOF, rule="702.11", counter=True)]


@hookimpl
def register_restrictions() -> list[Restriction]:
    return [
        Restriction(
            "target",
            HEXPROOF,
            "702.11",
            may_target,
            "{creature} has hexproof: {caster} is an opponent and can't target it",
        )
    ]
