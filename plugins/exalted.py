"""Exalted (702.83): whenever a creature you control attacks alone, it gets +1/+1 until end
of turn for each instance of exalted among permanents you control."""

from ecs_combat import Keyword, hookimpl


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword("exalted", rule="702.83", counter=True, attacks_alone_bonus=1)]
