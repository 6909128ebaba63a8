"""Flying (702.9): it can be blocked only by creatures with flying or reach."""

from ecs_combat import Keyword, hookimpl


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(
            "flying",
            rule="702.9",
            counter=True,
            blockable_only_by=frozenset({"flying", "reach"}),
        )
    ]
