"""Menace (702.111): it can't be blocked except by two or more creatures."""

from ecs_combat import Keyword, hookimpl


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword("menace", rule="702.111", counter=True, min_blockers=2)]
