"""Vigilance (702.20): attacking doesn't cause it to tap.

It matters once a turn has several combat phases: a tapped creature can't attack again.
"""

from ecs_combat import Keyword, hookimpl


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword("vigilance", rule="702.20", counter=True, attacks_untapped=True)]
