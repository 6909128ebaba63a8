"""Firstest strike (Throat Wolf): deals combat damage in its own step before first strike.

Whether the first-strike step exists is decided only after the firstest-strike step.
"""

from ecs_combat import DamageStep, Keyword, hookimpl

from .steps import FIRSTEST_STRIKE


@hookimpl
def register_damage_steps() -> list[DamageStep]:
    return [FIRSTEST_STRIKE]


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(
            "firstest strike",
            rule="Throat Wolf rulings",
            strikes_in=frozenset({FIRSTEST_STRIKE.name}),
        )
    ]
