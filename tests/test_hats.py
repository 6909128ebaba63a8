"""Hats and Hat Trick (RULES.md section 5, Unfinity rulings)."""

from __future__ import annotations

import io
import tomllib

import pytest
from conftest import Resolve, bundled_registry, dealt, step_names
from ecs_combat_keywords.hats import (
    HatRemovalRefused,
    Headwear,
    is_hat,
    remove_player_hat,
)
from rich.console import Console

from ecs_combat import InputError, parse_scenario
from ecs_combat.console.account import render
from ecs_combat.plugin.registry import Registry
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.scenario.model import PlayerSpec


def hat_trick(
    caster_hat: bool = False,
    creature_hat: bool = False,
    *,
    wearing: bool = False,
    at: str = "declare-blockers",
    caster: str = "A",
    target: str = "goblin",
    blocked: bool = True,
    keywords: str = "[]",
    extra: str = "",
) -> str:
    """A 2/2 goblin of A's, blocked by B's 0/12 wall, and a Hat Trick cast on it."""
    text = f"""
[players.A]
hat = {str(caster_hat).lower()}
wearing_hat = {str(wearing).lower()}

[players.B]

[creatures.goblin]
controller = "A"
power = 2
toughness = 2
hat = {str(creature_hat).lower()}
keywords = {keywords}

[creatures.wall]
controller = "B"
power = 0
toughness = 12

[combat.attackers]
goblin = "B"
"""
    if blocked:
        text += '\n[combat.blockers]\nwall = "goblin"\n'
    return (
        text
        + extra
        + f"""
[[events]]
at = "{at}"
action = "cast"
card = "Hat Trick"
caster = "{caster}"
target = "{target}"
"""
    )


# -- the three outcomes ---------------------------------------------------------------------


def test_hat_trick_without_hats_gives_plus_1_and_first_strike(resolve: Resolve) -> None:
    """RULES.md 5, Hat Trick: +1/+1 and first strike until end of turn."""
    out = resolve(hat_trick())
    assert step_names(out) == ["first-strike", "regular"]
    assert dealt(out, "first-strike") == {("goblin", "wall", 3)}
    assert dealt(out, "regular") == set()
    assert out["creatures"]["goblin"]["power"] == 3
    assert out["creatures"]["goblin"]["toughness"] == 3


def test_hat_trick_caster_hat_alone_is_not_enough(resolve: Resolve) -> None:
    """RULES.md 5, Hat Trick: double strike needs the creature's hat; the caster's alone gives nothing more."""
    out = resolve(hat_trick(caster_hat=True))
    assert step_names(out) == ["first-strike", "regular"]
    assert out["creatures"]["wall"]["damage"] == 3


def test_hat_trick_creature_hat_gives_double_strike(resolve: Resolve) -> None:
    """RULES.md 5, Hat Trick: if it has a hat, it gains double strike (first-strike and regular damage)."""
    out = resolve(hat_trick(creature_hat=True))
    assert step_names(out) == ["first-strike", "regular"]
    assert dealt(out, "first-strike") == {("goblin", "wall", 3)}
    assert dealt(out, "regular") == {("goblin", "wall", 3)}


def test_hat_trick_both_hats_give_triple_strike(resolve: Resolve) -> None:
    """RULES.md 5, Hat Trick: if you and that creature each have a hat, it gains triple strike."""
    out = resolve(hat_trick(caster_hat=True, creature_hat=True))
    assert step_names(out) == ["first-strike", "regular", "last-strike"]
    assert out["creatures"]["wall"]["damage"] == 9


def test_additional_hats_never_add_strikes(resolve: Resolve) -> None:
    """Unfinity ruling: additional hats (having and wearing one) give no more strikes."""
    out = resolve(hat_trick(caster_hat=True, creature_hat=True, wearing=True))
    assert step_names(out) == ["first-strike", "regular", "last-strike"]
    assert out["creatures"]["wall"]["damage"] == 9


def test_hat_trick_works_for_a_blocking_creature(resolve: Resolve) -> None:
    """RULES.md 5, Hat Trick: "blocking or blocked": B's blocking wall, cast by B."""
    out = resolve(hat_trick(caster="B", target="wall"))
    assert dealt(out, "first-strike") == {("wall", "goblin", 1)}
    assert out["creatures"]["wall"]["power"] == 1


def test_hat_trick_on_a_blocked_creature_whose_blocker_left(resolve: Resolve) -> None:
    """509.1h: an attacker stays blocked after its blocker is gone, so it is a legal target."""
    destroy = '\n[[events]]\nat = "declare-blockers"\naction = "destroy"\ntarget = "wall"\n'
    out = resolve(hat_trick(extra=destroy))
    assert out["creatures"]["goblin"]["power"] == 3


def test_hat_trick_on_its_controllers_hexproof_creature(resolve: Resolve) -> None:
    """702.11b: hexproof stops only opponents."""
    out = resolve(hat_trick(keywords='["hexproof"]'))
    assert out["creatures"]["goblin"]["power"] == 3


# -- illegal targets as it resolves: it does nothing -----------------------------------------


def test_hat_trick_on_an_unblocked_attacker_does_nothing(resolve: Resolve) -> None:
    """RULES.md 5, Hat Trick: neither blocking nor blocked: illegal target, nothing happens."""
    out = resolve(hat_trick(caster_hat=True, creature_hat=True, blocked=False))
    assert step_names(out) == ["regular"]
    assert dealt(out, "regular") == {("goblin", "B", 2)}
    assert out["creatures"]["goblin"]["power"] == 2


def test_hat_trick_on_an_opponents_creature_does_nothing(resolve: Resolve) -> None:
    """RULES.md 5, Hat Trick: "creature you control": A can't pump B's blocking wall."""
    out = resolve(hat_trick(caster_hat=True, target="wall"))
    assert step_names(out) == ["regular"]
    assert out["creatures"]["wall"]["power"] == 0


def test_hat_trick_on_a_creature_that_died_does_nothing(resolve: Resolve) -> None:
    """RULES.md 5, Hat Trick: the target is gone as it resolves (it died in the first-strike step)."""
    killer = (
        '\n[creatures.knight]\ncontroller = "B"\npower = 3\ntoughness = 3\n'
        'keywords = ["first strike"]\n'
    )
    text = hat_trick(creature_hat=True, at="after first-strike", extra=killer).replace(
        'wall = "goblin"', 'wall = "goblin"\nknight = "goblin"'
    )
    out = resolve(text)
    assert out["creatures"]["goblin"]["alive"] is False
    assert out["creatures"]["goblin"]["power"] == 2


def test_hat_trick_on_a_creature_removed_from_combat_does_nothing(resolve: Resolve) -> None:
    """506.4: removed from combat, it is no longer blocked: illegal target."""
    removal = (
        '\n[[events]]\nat = "declare-blockers"\naction = "remove-from-combat"\ntarget = "goblin"\n'
    )
    out = resolve(hat_trick(creature_hat=True, extra=removal))
    assert out["creatures"]["goblin"]["power"] == 2
    assert out["creatures"]["wall"]["damage"] == 0


def test_hat_trick_needs_the_strike_plugins() -> None:
    """A scenario casting Hat Trick with triple strike blocked is an input error naming it."""
    registry = bundled_registry(leave_out=("triple_strike",))
    with pytest.raises(InputError) as info:
        parse_scenario(tomllib.loads(hat_trick()), registry, "t.toml")
    assert info.value.path == "events[0].card"
    assert "triple strike" in info.value.message


def test_readable_account_explains_hat_trick(registry: Registry) -> None:
    """The readable account says "Hat Trick: both have hats, triple strike"."""
    texts = {}
    for hats in [(False, False), (False, True), (True, True)]:
        scenario = parse_scenario(tomllib.loads(hat_trick(*hats)), registry, "t.toml")
        buffer = io.StringIO()
        render(
            scenario, ReferenceEngine(registry).resolve(scenario), Console(file=buffer, width=200)
        )
        texts[hats] = buffer.getvalue()
    assert "Hat Trick: both have hats, triple strike" in texts[(True, True)]
    assert "Hat Trick: the creature has a hat, double strike" in texts[(False, True)]
    assert "Hat Trick: the creature has no hat, first strike" in texts[(False, False)]


# -- the hat API ----------------------------------------------------------------------------


@pytest.mark.parametrize("item", ["hat", "wig", "headband", "Wig"])
def test_wigs_and_headbands_count_as_hats(item: str) -> None:
    """Unfinity ruling: wigs and headbands count as hats."""
    assert is_hat(item)


@pytest.mark.parametrize(
    "item", ["hoodie", "face mask", "space helmet", "something balanced on a head"]
)
def test_ruled_non_hats(item: str) -> None:
    """Unfinity rulings: hoodies, face masks, space helmets and balanced things are not hats."""
    assert not is_hat(item)


def test_hat_definition_for_unruled_items() -> None:
    """A hat: a decorative garment worn on the head, not part of another garment, not only
    covering the face."""
    assert is_hat(Headwear("top hat"))
    assert not is_hat(Headwear("hood of a cloak", part_of_another_garment=True))
    assert not is_hat(Headwear("welding helmet", decorative=False))
    assert not is_hat(Headwear("teacup", worn=False))
    with pytest.raises(ValueError, match="top hat"):
        is_hat("top hat")


def test_a_player_may_remove_their_own_hat() -> None:
    """Unfinity ruling: a player removing their own hat no longer has or wears it."""
    player = PlayerSpec("A", state={"hat": True, "wearing_hat": True})
    bare = remove_player_hat(player, by="A")
    assert (bare.state["hat"], bare.state["wearing_hat"]) == (False, False)
    assert player.state["hat"] is True


def test_no_player_can_remove_another_players_hat() -> None:
    """Unfinity ruling: no player can remove another player's hat."""
    player = PlayerSpec("A", state={"hat": True, "wearing_hat": True})
    with pytest.raises(HatRemovalRefused, match="another player's hat"):
        remove_player_hat(player, by="B")
    assert player.state["hat"] is True
