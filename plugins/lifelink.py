"""Lifelink (702.15): its controller gains life equal to the damage it deals.

The life is gained at the same time as the damage is dealt (510.2), as one event per source.
"""

from ecs_combat import Keyword, hookimpl


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(
            "lifelink",
            rule="702.15",
            counter=True,
            gains_life_on_damage=True,
        )
    ]
