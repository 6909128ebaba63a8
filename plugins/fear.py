"""Fear (702.36): it can't be blocked except by artifact creatures and/or black creatures."""

from __future__ import annotations

from ecs_combat import Keyword, Restriction, Side, Verdict, color_mask, hookimpl, type_mask

FEAR = "fear"
ARTIFACT = type_mask(["artifact"])
BLACK = color_mask(["black"])


def may_block(attacker: Side, blocker: Side) -> Verdict:
    return ~attacker.has(FEAR) | ((blocker.types & ARTIFACT) != 0) | ((blocker.colors & BLACK) != 0)


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(FEAR, rule="702.36")]


@hookimpl
def register_restrictions() -> list[Restriction]:
    return [
        Restriction(
            "block-pair",
            FEAR,
            "702.36",
            may_block,
            "{attacker} has fear and can be blocked only by artifact or black creatures, which "
            "{blocker} is not",
        )
    ]
