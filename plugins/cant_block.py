"""Can't block (509.1a): the rules text "~ can't block." as a keyword."""

from __future__ import annotations

from ecs_combat import Keyword, Restriction, Side, Verdict, hookimpl

CANT_BLOCK = "can't block"


def may_block(creature: Side) -> Verdict:
    return ~creature.has(CANT_BLOCK)


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(CANT_BLOCK, rule="509.1a", summary="it can't block")]


@hookimpl
def register_restrictions() -> list[Restriction]:
    return [Restriction("block", CANT_BLOCK, "509.1a", may_block, "{creature} can't block")]
