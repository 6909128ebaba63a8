"""Last strike (Extremely Slow Zombie): deals combat damage only after regular damage."""

from ecs_combat import REGULAR_STEP, DamageStep, Keyword, hookimpl

from .steps import LAST_STRIKE


@hookimpl
def register_damage_steps() -> list[DamageStep]:
    return [LAST_STRIKE]


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(
            "last strike",
            rule="Extremely Slow Zombie rulings",
            strikes_in=frozenset({LAST_STRIKE.name}),
            withholds_from=frozenset({REGULAR_STEP}),
        )
    ]
