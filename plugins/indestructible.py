"""Indestructible (702.12): lethal damage, deathtouch and destroy effects don't destroy it.

It still dies to toughness 0 or less (704.5f), which is not destruction.
"""

from ecs_combat import Keyword, hookimpl


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(
            "indestructible",
            rule="702.12",
            counter=True,
            ignores_destruction=True,
        )
    ]
