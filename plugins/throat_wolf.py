"""Throat Wolf: a creature card with firstest strike and a combat phase of its own.

"After each opponent's first combat phase of each turn, there is an additional combat phase.
Only Throat Wolf can attack during that combat phase", played as the ruling says: "you have a
combat phase" (its controller is the active and attacking player in it, though it is still the
other player's turn). A Throat Wolf adds such a phase directly after each opponent's first
combat phase of the turn, whoever's turn it is.
"""

from __future__ import annotations

from ecs_combat import COMBAT, Card, Phase, PhaseRule, TurnView, hookimpl

THROAT_WOLF = Card(
    name="Throat Wolf",
    cost="{1}{R}{R}",
    text=(
        "You may cast Throat Wolf during an opponent's combat phase.\n"
        "Firstest strike (This creature deals combat damage to creatures before creatures "
        "with first strike.)\n"
        "After each opponent's first combat phase of each turn, there is an additional combat "
        "phase. Only Throat Wolf can attack during that combat phase."
    ),
    types=("creature",),
    type_line="Summon Wolf",
    power=3,
    toughness=1,
    printed=("firstest strike",),
)


def wolf_combats(turn: TurnView) -> list[Phase]:
    """A combat phase for each Throat Wolf whose controller's opponent just finished their
    first combat phase of the turn; only that Wolf may attack in it."""
    ended = turn.ended
    if ended.kind != COMBAT or not turn.first_combat_of(ended.player):
        return []
    return [
        Phase(
            COMBAT,
            wolf.controller,
            f"{THROAT_WOLF.name} ({wolf.id})",
            frozenset({wolf.id}),
            source=wolf.id,
        )
        for wolf in turn.creatures_of_card(THROAT_WOLF.name)
        if wolf.controller != ended.player
    ]


@hookimpl
def register_cards() -> list[Card]:
    return [THROAT_WOLF]


@hookimpl
def register_phase_rules() -> list[PhaseRule]:
    return [PhaseRule("Throat Wolf", wolf_combats, rule="Throat Wolf rulings")]
