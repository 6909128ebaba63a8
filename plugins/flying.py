"""Flying (702.9): it can be blocked only by creatures with flying or reach."""

from __future__ import annotations

from ecs_combat import Keyword, Restriction, Side, Verdict, hookimpl

FLYING = "flying"


def may_block(attacker: Side, blocker: Side) -> Verdict:
    return ~attacker.has(FLYING) | blocker.has(FLYING) | blocker.has("reach")


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(FLYING, rule="702.9", counter=True)]


@hookimpl
def register_restrictions() -> list[Restriction]:
    return [
        Restriction(
            "block-pair",
            FLYING,
            "702.9",
            may_block,
            "{attacker} has flying and can be blocked only by creatures with flying or reach, "
            "which {blocker} doesn't have",
        )
    ]
