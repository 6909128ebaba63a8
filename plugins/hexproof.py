"""Hexproof (702.11): it can't be the target of spells or abilities an opponent controls."""

from ecs_combat import Keyword, hookimpl


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword("hexproof", rule="702.11", counter=True, untargetable_by_opponents=True)]
