"""Shadow (702.28): it can block or be blocked by only creatures with shadow."""

from __future__ import annotations

from ecs_combat import Keyword, Restriction, Side, Verdict, hookimpl

SHADOW = "shadow"


def blocked_only_by_shadow(attacker: Side, blocker: Side) -> Verdict:
    return ~attacker.has(SHADOW) | blocker.has(SHADOW)


def blocks_only_shadow(attacker: Side, blocker: Side) -> Verdict:
    return ~blocker.has(SHADOW) | attacker.has(SHADOW)


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(SHADOW, rule="702.28", counter=True)]


@hookimpl
def register_restrictions() -> list[Restriction]:
    return [
        Restriction(
            "block-pair",
            SHADOW,
            "702.28",
            blocked_only_by_shadow,
            "{attacker} has shadow and can be blocked only by creatures with shadow, which "
            "{blocker} doesn't have",
        ),
        Restriction(
            "block-pair",
            SHADOW,
            "702.28",
            blocks_only_shadow,
            "{blocker} has shadow and can block only creatures with shadow, which {attacker} "
            "doesn't have",
        ),
    ]
