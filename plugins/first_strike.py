"""First strike (702.7): deals combat damage in the first-strike step, not the regular one."""

from ecs_combat import DamageStep, Keyword, hookimpl

from .steps import FIRST_STRIKE


@hookimpl
def register_damage_steps() -> list[DamageStep]:
    return [FIRST_STRIKE]


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(
            "first strike",
            rule="702.7",
            counter=True,
            strikes_in=frozenset({FIRST_STRIKE.name}),
        )
    ]
