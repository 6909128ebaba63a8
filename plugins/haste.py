"""Haste (702.10): it can attack even if it came under its controller's control this turn.

A scenario says a creature came under its controller's control this turn with
``summoning_sick = true``; attacking with it without haste is illegal (302.6).
"""

from ecs_combat import Keyword, hookimpl


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword("haste", rule="702.10", counter=True, ignores_summoning_sickness=True)]
