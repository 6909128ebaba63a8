"""Intimidate (702.13): it can't be blocked except by artifact creatures and/or creatures that
share a color with it."""

from __future__ import annotations

from ecs_combat import Keyword, Restriction, Side, Verdict, hookimpl, type_mask

INTIMIDATE = "intimidate"
ARTIFACT = type_mask(["artifact"])


def may_block(attacker: Side, blocker: Side) -> Verdict:
    artifact = (blocker.types & ARTIFACT) != 0
    shares = (attacker.colors & blocker.colors) != 0
    return ~attacker.has(INTIMIDATE) | artifact | shares


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(INTIMIDATE, rule="702.13")]


@hookimpl
def register_restrictions() -> list[Restriction]:
    return [
        Restriction(
            "block-pair",
            INTIMIDATE,
            "702.13",
            may_block,
            "{attacker} has intimidate and can be blocked only by artifact creatures and "
            "creatures that share a color with it, which {blocker} is not",
        )
    ]
