"""Defender (702.3): it can't attack.

Not a keyword counter: defender is not on the 122.1b list.
"""

from ecs_combat import Keyword, hookimpl


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword("defender", rule="702.3", can_attack=False)]
