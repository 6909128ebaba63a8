"""Double strike (702.4): deals combat damage in the first-strike step and the regular step."""

from ecs_combat import REGULAR_STEP, DamageStep, Keyword, hookimpl

from .steps import FIRST_STRIKE


@hookimpl
def register_damage_steps() -> list[DamageStep]:
    return [FIRST_STRIKE]


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(
            "double strike",
            rule="702.4",
            counter=True,
            strikes_in=frozenset({FIRST_STRIKE.name, REGULAR_STEP}),
        )
    ]
