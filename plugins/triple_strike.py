"""Triple strike (Three-Headed Goblin, Hat Trick): first-strike, regular and last-strike damage.

The creature must survive each step to deal damage in the next.
"""

from ecs_combat import REGULAR_STEP, DamageStep, Keyword, hookimpl

from .steps import FIRST_STRIKE, LAST_STRIKE


@hookimpl
def register_damage_steps() -> list[DamageStep]:
    return [FIRST_STRIKE, LAST_STRIKE]


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(
            "triple strike",
            rule="Three-Headed Goblin rulings",
            strikes_in=frozenset({FIRST_STRIKE.name, REGULAR_STEP, LAST_STRIKE.name}),
        )
    ]
