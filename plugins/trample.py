"""Trample (702.19): an attacker's damage beyond lethal to its blockers may go to the player.

With no blocker left, all of its damage goes to the player (702.19d). An explicit division
may send damage to the player only once every blocker is assigned lethal damage (702.19b).
It does nothing for a blocker.
"""

from ecs_combat import Keyword, hookimpl


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(
            "trample",
            rule="702.19",
            counter=True,
            assigns_excess_to_player=True,
        )
    ]
