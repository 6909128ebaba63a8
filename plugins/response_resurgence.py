"""Response // Resurgence, a split card (709): each half is cast by its own name.

- **Response** ({R/W}{R/W} instant): 5 damage to target attacking or blocking creature.
- **Resurgence** ({3}{R}{W} sorcery): creatures the caster controls as it resolves gain first
  strike and vigilance until end of turn. After the main phase it was cast in come an
  additional combat phase and then an additional main phase; the combat's attacking player is
  the active player (also when another player cast it). Cast outside a main phase (a ``cast``
  event during combat) it gives first strike and vigilance only: its phase rule reads the
  spells cast during main phases (``TurnView.casts``).

Elsewhere than on the stack the card has both halves' characteristics: mana value 7, red and
white (709.4).
"""

from __future__ import annotations

from ecs_combat import (
    COMBAT,
    MAIN,
    Card,
    EffectTarget,
    Phase,
    PhaseRule,
    SplitCard,
    TargetRule,
    TurnView,
    hookimpl,
)


def resolve_response(target: EffectTarget) -> None:
    """5 damage to the target."""
    target.damage(5)


def resolve_resurgence(target: EffectTarget) -> None:
    """Each creature the caster controls gains first strike and vigilance until end of turn."""
    target.grant_each("first strike")
    target.grant_each("vigilance")


RESPONSE = Card(
    name="Response",
    cost="{R/W}{R/W}",
    text="Response deals 5 damage to target attacking or blocking creature.",
    target=TargetRule(in_combat=True),
    resolve=resolve_response,
)

RESURGENCE = Card(
    name="Resurgence",
    cost="{3}{R}{W}",
    text=(
        "Creatures you control gain first strike and vigilance until end of turn. After this "
        "main phase, there is an additional combat phase followed by an additional main phase."
    ),
    target=TargetRule(kind="none"),
    resolve=resolve_resurgence,
    keywords=frozenset({"first strike", "vigilance"}),
    types=("sorcery",),
)

RESPONSE_RESURGENCE = SplitCard((RESPONSE, RESURGENCE))


def resurgence_phases(turn: TurnView) -> list[Phase]:
    """After a main phase in which Resurgence was cast: a combat phase of the active player,
    then a main phase, for each Resurgence cast in it (numbered in cast order: the schedule
    puts the most recent one's first, 500.8)."""
    if turn.ended.kind != MAIN:
        return []
    added: list[Phase] = []
    cast = [c for c in turn.casts if c.card.casefold() == RESURGENCE.name.casefold()]
    for n, c in enumerate(cast):
        created_by = f"{RESURGENCE.name} ({c.caster})"
        added += [
            Phase(COMBAT, turn.active, created_by, created=n),
            Phase(MAIN, turn.active, created_by, created=n),
        ]
    return added


@hookimpl
def register_cards() -> list[SplitCard]:
    return [RESPONSE_RESURGENCE]


@hookimpl
def register_phase_rules() -> list[PhaseRule]:
    return [PhaseRule("Resurgence", resurgence_phases, rule="Response // Resurgence rulings")]
