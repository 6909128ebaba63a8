"""Reach (702.17): it can block creatures with flying.

Reach has no rule of its own: flying's blocking restriction names it.
"""

from ecs_combat import Keyword, hookimpl


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword("reach", rule="702.17", counter=True)]
