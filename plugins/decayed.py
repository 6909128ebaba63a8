"""Decayed (702.147): it can't block; when it attacks, it is sacrificed at end of combat."""

from ecs_combat import Keyword, hookimpl


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(
            "decayed",
            rule="702.147",
            counter=True,
            can_block=False,
            sacrificed_after_attacking=True,
        )
    ]
