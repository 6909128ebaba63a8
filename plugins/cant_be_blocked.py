"""Can't be blocked (509.1b): the rules text "~ can't be blocked." as a keyword."""

from __future__ import annotations

from ecs_combat import Keyword, Restriction, Side, Verdict, hookimpl

CANT_BE_BLOCKED = "can't be blocked"


def may_block(attacker: Side, _blocker: Side) -> Verdict:
    return ~attacker.has(CANT_BE_BLOCKED)


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(CANT_BE_BLOCKED, rule="509.1b", summary="it can't be blocked")]


@hookimpl
def register_restrictions() -> list[Restriction]:
    return [
        Restriction(
            "block-pair",
            CANT_BE_BLOCKED,
            "509.1b",
            may_block,
            "{attacker} can't be blocked, so {blocker} can't block it",
        )
    ]
