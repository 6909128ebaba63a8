"""Deathtouch (702.2): any damage it deals to a creature destroys that creature.

The destruction is a state-based action (704.5h); indestructible stops it. For dividing
damage and for trample, 1 damage from it counts as lethal (702.2c).
"""

from ecs_combat import Keyword, hookimpl


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(
            "deathtouch",
            rule="702.2",
            counter=True,
            destroys_on_damage=True,
            summary="1 is lethal",
        )
    ]
