"""Reach (702.17): it can block creatures with flying.

Reach has no mechanism of its own: flying names it among the keywords a blocker needs.
"""

from ecs_combat import Keyword, hookimpl


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword("reach", rule="702.17", counter=True)]
