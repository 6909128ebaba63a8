"""Assault // Battery, a split card (709): each half is cast by its own name.

- **Assault** ({R} sorcery): 2 damage to any target, a creature or a player (115.4).
- **Battery** ({3}{G} sorcery): create a 3/3 green Elephant creature token; ``cast`` events
  give the token's id with ``token``. It enters under the caster's control, not in combat.

On the stack only the cast half's characteristics exist (Assault is a red sorcery with mana
value 1); elsewhere the card has both halves': mana value 5, red and green (709.4).
"""

from __future__ import annotations

from ecs_combat import Card, CreatureToken, EffectTarget, SplitCard, TargetRule, hookimpl


def resolve_assault(target: EffectTarget) -> None:
    """2 damage to the target, creature or player."""
    target.damage(2)


ASSAULT = Card(
    name="Assault",
    cost="{R}",
    text="Assault deals 2 damage to any target.",
    target=TargetRule(in_combat=False, kind="any"),
    resolve=resolve_assault,
    types=("sorcery",),
)

BATTERY = Card(
    name="Battery",
    cost="{3}{G}",
    text="Create a 3/3 green Elephant creature token.",
    target=TargetRule(kind="none"),
    types=("sorcery",),
    creates=CreatureToken("Elephant", 3, 3, ("green",)),
)

ASSAULT_BATTERY = SplitCard((ASSAULT, BATTERY))


@hookimpl
def register_cards() -> list[SplitCard]:
    return [ASSAULT_BATTERY]
