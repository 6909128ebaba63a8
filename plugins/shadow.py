"""Shadow (702.28): it can block or be blocked by only creatures with shadow."""

from ecs_combat import Keyword, hookimpl


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(
            "shadow",
            rule="702.28",
            counter=True,
            blockable_only_by=frozenset({"shadow"}),
            blocks_only=frozenset({"shadow"}),
        )
    ]
