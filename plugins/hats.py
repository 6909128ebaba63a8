"""Hats (Unfinity rulings) and the card that cares about them, Hat Trick.

A creature has a hat if the creature depicted in its art possesses one (it need not wear it;
background characters don't count). A player has a hat if they have one with them, and may
also be wearing it. Scenarios say so with ``hat`` (creatures and players) and ``wearing_hat``
(players). Hats are yes-or-no: additional hats never give more strikes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ecs_combat import (
    Card,
    EcsCombatError,
    EffectTarget,
    KernelColumn,
    KernelPart,
    PlayerSpec,
    Scenario,
    StateField,
    TargetRule,
    hookimpl,
    normalize_keyword,
)

RULINGS = "Unfinity rulings"
HAT = "hat"
WEARING_HAT = "wearing_hat"


@dataclass(frozen=True)
class Headwear:
    """Something on a head, described by what the hat rulings ask of it.

    A hat is a garment worn on the head that is not part of another garment, covers more
    than the face, and is purposely decorative.
    """

    name: str
    #: Worn as a garment; a thing merely balanced on a head is not.
    worn: bool = True
    #: Part of another garment, like a hoodie's hood.
    part_of_another_garment: bool = False
    #: Covers only the face and not the top of the head, like a face mask.
    covers_only_face: bool = False
    #: Purposely decorative; a space helmet is equipment.
    decorative: bool = True

    def is_hat(self) -> bool:
        """Whether it counts as a hat under the rulings."""
        return (
            self.worn
            and not self.part_of_another_garment
            and not self.covers_only_face
            and self.decorative
        )


#: The items the rulings decide, by name.
RULED: dict[str, Headwear] = {
    h.name: h
    for h in (
        Headwear("hat"),
        Headwear("wig"),
        Headwear("headband"),
        Headwear("hoodie", part_of_another_garment=True),
        Headwear("face mask", covers_only_face=True),
        Headwear("space helmet", decorative=False),
        Headwear("something balanced on a head", worn=False),
    )
}


def is_hat(item: Headwear | str) -> bool:
    """Whether an item counts as a hat: a :class:`Headwear`, or the name of one the rulings
    decide (``wig``, ``headband``: yes; ``hoodie``, ``face mask``, ``space helmet``,
    ``something balanced on a head``: no).

    Raises ValueError for a name the rulings don't decide; describe it with Headwear instead.
    """
    if isinstance(item, Headwear):
        return item.is_hat()
    found = RULED.get(normalize_keyword(item))
    if found is None:
        raise ValueError(
            f"the {RULINGS} don't name {item!r}; describe it with Headwear "
            f"(ruled: {', '.join(RULED)})"
        )
    return found.is_hat()


class HatRemovalRefused(EcsCombatError):
    """Someone tried to remove another player's hat."""


def remove_player_hat(player: PlayerSpec, by: str) -> PlayerSpec:
    """Return the player without their hat, removed by the player `by`.

    No player can remove another player's hat (Unfinity rulings): anyone but the player
    themself is refused with :class:`HatRemovalRefused`.
    """
    if by != player.id:
        raise HatRemovalRefused(
            f"{by} can't remove {player.id}'s hat: no player can remove another player's hat "
            f"({RULINGS})"
        )
    return replace(player, state={**player.state, HAT: False, WEARING_HAT: False})


def resolve_hat_trick(target: EffectTarget) -> None:
    """+1/+1 and first strike; double strike with a creature hat; triple strike when the
    caster and the creature both have hats. Hats are checked as it resolves."""
    creature_hat = np.asarray(target.state(HAT), np.bool_)  # one, or one per card
    both = np.logical_and(creature_hat, np.asarray(target.caster_state(HAT), np.bool_))
    target.pump(1, 1)
    target.grant("first strike")
    target.grant("double strike", where=creature_hat)
    target.grant("triple strike", where=both)
    target.note("the creature has no hat, first strike", where=np.logical_not(creature_hat))
    target.note(
        "the creature has a hat, double strike",
        where=np.logical_and(creature_hat, np.logical_not(both)),
    )
    target.note("both have hats, triple strike", where=both)


#: Hat Trick's grants, as its kernel part reads their bits (``g.bits``).
FIRST_STRIKE, DOUBLE_STRIKE, TRIPLE_STRIKE = 0, 1, 2


def hat_trick_kernel(row: int, caster: int, c: Any, g: Any, own: Any) -> None:
    """Hat Trick resolving on one target, in the compiled kernel (the same as
    :func:`resolve_hat_trick`)."""
    c.power[row] += 1
    c.toughness[row] += 1
    g.keywords[row] |= g.bits[FIRST_STRIKE]
    if own.hat[row]:
        g.keywords[row] |= g.bits[DOUBLE_STRIKE]
        if own.player_hat[caster]:
            g.keywords[row] |= g.bits[TRIPLE_STRIKE]


HAT_TRICK = Card(
    name="Hat Trick",
    cost="{1}{W}",
    text=(
        "Target blocking or blocked creature you control gets +1/+1 and gains first strike "
        "until end of turn. If it has a hat, it gains double strike until end of turn. If you "
        "and that creature each have a hat, it gains triple strike until end of turn."
    ),
    target=TargetRule(blocking_or_blocked=True, caster_controls=True),
    resolve=resolve_hat_trick,
    keywords=frozenset({"first strike", "double strike", "triple strike"}),
)


def wearing_means_having(scenario: Scenario) -> tuple[str, str] | None:
    """A player wearing a hat has a hat."""
    for pid, player in scenario.players.items():
        if player.state[WEARING_HAT] and not player.state[HAT]:
            return f"players.{pid}.hat", "a player wearing a hat has a hat"
    return None


@hookimpl
def register_state() -> list[StateField]:
    return [
        StateField(
            "creature",
            HAT,
            "bool",
            False,
            printed=True,  # the card's art: a creature returning as a new object keeps it
            summary="the creature in its art has a hat",
        ),
        StateField("player", WEARING_HAT, "bool", False, summary="the player wears a hat"),
        StateField(
            "player",
            HAT,
            "bool",
            False,
            default_from=WEARING_HAT,
            summary="the player has a hat with them",
            check=wearing_means_having,
            check_defaults=False,  # nobody wears a hat by default
        ),
    ]


@hookimpl
def register_cards() -> list[Card]:
    return [HAT_TRICK]


@hookimpl
def register_kernel_parts() -> list[KernelPart | KernelColumn]:
    return [
        KernelColumn("creature", "hat", "bool", state=HAT),
        KernelColumn("player", "player_hat", "bool", state=HAT),
        KernelPart(
            "cast",
            HAT_TRICK.name,
            hat_trick_kernel,
            grants=("first strike", "double strike", "triple strike"),
        ),
    ]
