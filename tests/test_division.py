"""Assigning combat damage among several recipients (510.1c-d, RULES.md section 3)."""

from __future__ import annotations

import pytest
from conftest import Resolve, dealt, step
from scenario_text import combat, creature, divide, event

from ecs_combat import InputError

TWO_BLOCKERS = """
[players.A]
[players.B]
[creatures.giant]
controller = "A"
power = 4
toughness = 6
[creatures.b1]
controller = "B"
power = 2
toughness = 2
[creatures.b2]
controller = "B"
power = 1
toughness = 3
[combat]
attackers = { giant = "B" }
blockers = { b1 = "giant", b2 = "giant" }
"""


PLAYERS = "[players.A]\n[players.B]\n"


def trampler_against(*blockers: str, power: int = 5, keywords: tuple[str, ...] = ()) -> str:
    """A 5/5 trampler (with `keywords`) attacking B, blocked by the given creature tables,
    which must be named b1, b2, ... in their declared order."""
    names = [f"b{i + 1}" for i in range(len(blockers))]
    return (
        PLAYERS
        + creature("rhino", "A", power, 5, "trample", *keywords)
        + "".join(blockers)
        + combat({"rhino": "B"}, dict.fromkeys(names, "rhino"))
    )


def test_702_19b_lethal_damage_counts_marked_damage(resolve: Resolve) -> None:
    """702.19b: lethal damage is toughness minus damage already marked.

    By hand: a 0/3 wall with 1 marked needs 3 - 1 = 2; the 5/5 trampler assigns 2 to it
    and 5 - 2 = 3 to B (20 -> 17)."""
    out = resolve(trampler_against(creature("b1", "B", 0, 3, damage=1)))
    assert dealt(out, "regular") == {("rhino", "b1", 2), ("rhino", "B", 3)}
    assert out["players"]["B"]["life"] == 17


def test_702_19b_lethal_damage_is_never_below_0(resolve: Resolve) -> None:
    """702.19b (RULES.md 3: never below 0): a blocker with more damage marked than its toughness needs 0, not a
    negative amount (a surviving mutant let the trampler deal its power plus the overkill).

    By hand: an indestructible 0/2 with 3 marked survives with lethal damage (702.12b); lethal
    for it is max(2 - 3, 0) = 0, so the 5/5 trampler assigns it nothing and all 5 to B
    (20 -> 15). Listed damage is above 0 only, so no entry for b1; its damage stays 3."""
    out = resolve(trampler_against(creature("b1", "B", 0, 2, "indestructible", damage=3)))
    assert dealt(out, "regular") == {("rhino", "B", 5)}
    assert out["players"]["B"] == {"life": 15, "lost": False, "poison": 0}
    assert out["creatures"]["b1"] == {
        "alive": True,
        "damage": 3,
        "power": 0,
        "toughness": 2,
        "counters": {},
    }


def test_702_19b_overkill_on_one_blocker_goes_to_no_other(resolve: Resolve) -> None:
    """702.19b, 510.1c: with two blockers, one already past lethal needs 0, the other its
    toughness.

    By hand: b1 indestructible 0/2 with 4 marked needs 0; b2 0/3 needs 3; 5 - 3 = 2 to B."""
    out = resolve(
        trampler_against(
            creature("b1", "B", 0, 2, "indestructible", damage=4), creature("b2", "B", 0, 3)
        )
    )
    assert dealt(out, "regular") == {("rhino", "b2", 3), ("rhino", "B", 2)}
    assert out["players"]["B"]["life"] == 18


def test_702_2c_destroying_source_makes_1_lethal(resolve: Resolve) -> None:
    """702.2c: from a deathtouch source 1 is lethal.

    By hand: 5/5 trample deathtouch against a 0/5: 1 to it, 4 to B; the wall dies (702.2b)."""
    out = resolve(trampler_against(creature("b1", "B", 0, 5), keywords=("deathtouch",)))
    assert dealt(out, "regular") == {("rhino", "b1", 1), ("rhino", "B", 4)}
    assert step(out, "regular")["died"] == ["b1"]


def test_702_2c_no_lethal_needed_when_already_lethally_damaged(resolve: Resolve) -> None:
    """702.2c: deathtouch makes 1 lethal, but a blocker already at lethal damage needs 0.

    By hand: an indestructible 0/5 with 5 marked needs min(max(5 - 5, 0), 1) = 0: all 5 to B."""
    out = resolve(
        trampler_against(
            creature("b1", "B", 0, 5, "indestructible", damage=5), keywords=("deathtouch",)
        )
    )
    assert dealt(out, "regular") == {("rhino", "B", 5)}


def test_702_2c_one_is_lethal_only_from_the_deathtouch_source(resolve: Resolve) -> None:
    """702.2c: 1 is lethal only for damage from a source with deathtouch, even when another
    creature in the same combat has it.

    By hand: the snake (1/1 deathtouch) is unblocked: 1 to B. The rhino (5/5 trample, no
    deathtouch) must assign the 0/3 wall its toughness, 3, and tramples over 2: B 20 - 3 = 17."""
    out = resolve(
        PLAYERS
        + creature("rhino", "A", 5, 5, "trample")
        + creature("snake", "A", 1, 1, "deathtouch")
        + creature("wall", "B", 0, 3)
        + combat({"rhino": "B", "snake": "B"}, {"wall": "rhino"})
    )
    assert dealt(out, "regular") == {("rhino", "wall", 3), ("rhino", "B", 2), ("snake", "B", 1)}
    assert out["players"]["B"]["life"] == 17


def test_510_1c_default_division_rest_to_the_first_blocker(resolve: Resolve) -> None:
    """RULES.md 3 (default division): lethal to each in declared order; without trample the
    rest goes to the first.

    By hand: 7 power over a 0/2 then a 0/3: 2 + 3, the 2 left to the first: 4 and 3."""
    out = resolve(
        PLAYERS
        + creature("giant", "A", 7, 7)
        + creature("b1", "B", 0, 2)
        + creature("b2", "B", 0, 3)
        + combat({"giant": "B"}, {"b1": "giant", "b2": "giant"})
    )
    assert dealt(out, "regular") == {("giant", "b1", 4), ("giant", "b2", 3)}


def test_510_1c_default_division_runs_out_of_power(resolve: Resolve) -> None:
    """RULES.md 3: power runs out: lethal 2 to the first, the last 1 to the second."""
    out = resolve(
        PLAYERS
        + creature("giant", "A", 3, 7)
        + creature("b1", "B", 0, 2)
        + creature("b2", "B", 0, 3)
        + combat({"giant": "B"}, {"b1": "giant", "b2": "giant"})
    )
    assert dealt(out, "regular") == {("giant", "b1", 2), ("giant", "b2", 1)}


def test_702_19b_default_division_excess_to_the_player(resolve: Resolve) -> None:
    """702.19b: with trample the excess goes to the player: 7 over 0/2 and 0/3: 2, 3, 2 to B."""
    out = resolve(trampler_against(creature("b1", "B", 0, 2), creature("b2", "B", 0, 3), power=7))
    assert dealt(out, "regular") == {("rhino", "b1", 2), ("rhino", "b2", 3), ("rhino", "B", 2)}


def test_702_19e_trampler_with_no_blocker_left_assigns_all_to_the_player(
    resolve: Resolve,
) -> None:
    """702.19e: a blocked trampler whose blocker was destroyed assigns all its damage to the
    player: 5 to B."""
    out = resolve(
        trampler_against(creature("b1", "B", 0, 3))
        + event("declare-blockers", "destroy", target="b1")
    )
    assert dealt(out, "regular") == {("rhino", "B", 5)}
    assert out["players"]["B"]["life"] == 15


@pytest.mark.parametrize(
    ("amounts", "path", "words"),
    [
        ({"b1": 5}, "combat.divide[0].amounts.b1", "can't assign damage to 'b1'"),
        ({"b1": 1, "B": 4}, "combat.divide[0].amounts.b1", "can't assign damage to 'b1'"),
        ({"B": 4}, "combat.divide[0].amounts", "amounts total 4, but rhino has power 5"),
    ],
    ids=["names-destroyed-blocker", "part-to-destroyed-blocker", "totals-4-of-5"],
)
def test_702_19e_trampler_with_no_blocker_left_still_divides_legally(
    resolve: Resolve, amounts: dict[str, int], path: str, words: str
) -> None:
    """510.1, 702.19e: a trampler with no blocker left still assigns its damage, so its explicit
    division is checked: it may name only B (its blocker is gone) and must total its power 5.
    (A surviving mutant treated it as assigning nothing and accepted these.)"""
    with pytest.raises(InputError) as info:
        resolve(
            trampler_against(creature("b1", "B", 0, 3))
            + event("declare-blockers", "destroy", target="b1")
            + divide("regular", "rhino", amounts)
        )
    assert info.value.path == path
    assert words in info.value.message


def test_702_19e_trampler_with_no_blocker_left_legal_division(resolve: Resolve) -> None:
    """702.19e: the legal division, all 5 to B, is followed."""
    out = resolve(
        trampler_against(creature("b1", "B", 0, 3))
        + event("declare-blockers", "destroy", target="b1")
        + divide("regular", "rhino", {"B": 5})
    )
    assert dealt(out, "regular") == {("rhino", "B", 5)}


def test_510_1c_blocked_without_trample_and_no_blocker_left_assigns_nothing(
    resolve: Resolve,
) -> None:
    """510.1c: without trample the same attacker assigns no damage at all."""
    out = resolve(
        PLAYERS
        + creature("giant", "A", 5, 5)
        + creature("b1", "B", 0, 3)
        + combat({"giant": "B"}, {"b1": "giant"})
        + event("declare-blockers", "destroy", target="b1")
    )
    assert dealt(out, "regular") == set()
    assert out["players"]["B"]["life"] == 20


@pytest.mark.parametrize(
    "amounts", [{"b1": 0, "b2": 5}, {"b1": 0, "b2": 5, "B": 0}], ids=["no-player", "player-0"]
)
def test_702_19b_nothing_to_the_player_needs_no_lethal_to_every_blocker(
    resolve: Resolve, amounts: dict[str, int]
) -> None:
    """510.1c, 702.19b: the lethal-to-every-blocker rule limits damage assigned to the player
    only; a trampler that sends the player nothing divides as its controller chooses.

    By hand: 5 over a 0/3 and a 0/5 as { b1 = 0, b2 = 5 } (B named with 0 or not named): b2
    takes 5 and dies, b1 takes nothing, B stays at 20."""
    out = resolve(
        trampler_against(creature("b1", "B", 0, 3), creature("b2", "B", 0, 5))
        + divide("regular", "rhino", amounts)
    )
    assert dealt(out, "regular") == {("rhino", "b2", 5)}
    assert step(out, "regular")["died"] == ["b2"]
    assert out["players"]["B"]["life"] == 20


def test_510_1c_division_of_a_creature_that_assigns_nothing_is_unused(resolve: Resolve) -> None:
    """510.1c: a blocked attacker without trample whose blocker was destroyed assigns no
    combat damage, so its division (naming the gone blocker) is never made: no error, no
    damage, B stays at 20."""
    out = resolve(
        PLAYERS
        + creature("giant", "A", 4, 4)
        + creature("b1", "B", 0, 3)
        + combat({"giant": "B"}, {"b1": "giant"})
        + event("declare-blockers", "destroy", target="b1")
        + divide("regular", "giant", {"b1": 4})
    )
    assert dealt(out, "regular") == set()
    assert out["players"]["B"]["life"] == 20


def test_702_15b_lifelink_creature_that_assigns_nothing_gains_nothing(resolve: Resolve) -> None:
    """702.15b, 510.1c: lifelink gains life for damage dealt. A blocked 3/3 lifelinker whose
    blocker was destroyed deals no damage, so A gains nothing (stays at 20)."""
    out = resolve(
        PLAYERS
        + creature("cleric", "A", 3, 3, "lifelink")
        + creature("b1", "B", 0, 3)
        + combat({"cleric": "B"}, {"b1": "cleric"})
        + event("declare-blockers", "destroy", target="b1")
    )
    assert step(out, "regular")["life_gained"] == []
    assert out["players"] == {
        "A": {"life": 20, "lost": False, "poison": 0},
        "B": {"life": 20, "lost": False, "poison": 0},
    }


@pytest.mark.parametrize("explicit", [False, True], ids=["default", "explicit"])
def test_702_2b_deathtouch_destroys_only_creatures_dealt_damage(
    resolve: Resolve, explicit: bool
) -> None:
    """702.2b, 704.5h: only a creature *dealt* damage by a deathtouch source is destroyed; 0
    assigned is no damage dealt. (A surviving mutant also killed the blocker assigned 0.)

    By hand: a 1/1 deathtouch attacker blocked by two 0/4 walls, b2 with 1 damage already
    marked, assigns 1 to b1 (lethal with deathtouch, 702.2c) and has nothing left for b2: b1
    dies; b2 was dealt no damage this step, so 1 marked of toughness 4 is not lethal and it
    lives. The explicit division { b1 = 1, b2 = 0 } is the same."""
    text = (
        PLAYERS
        + creature("snake", "A", 1, 1, "deathtouch")
        + creature("b1", "B", 0, 4)
        + creature("b2", "B", 0, 4, damage=1)
        + combat({"snake": "B"}, {"b1": "snake", "b2": "snake"})
    )
    if explicit:
        text += divide("regular", "snake", {"b1": 1, "b2": 0})
    out = resolve(text)
    assert dealt(out, "regular") == {("snake", "b1", 1)}
    assert step(out, "regular")["died"] == ["b1"]
    assert out["creatures"]["b2"] == {
        "alive": True,
        "damage": 1,
        "power": 0,
        "toughness": 4,
        "counters": {},
    }


def test_702_2b_deathtouch_blocker_assigning_0_to_an_attacker(resolve: Resolve) -> None:
    """702.2b, 510.1d: a 1/1 deathtouch blocker of two attackers kills only the one it damages.

    By hand: it blocks x then y, both 2/2s; lethal 1 to x uses its power: x dies, y lives."""
    out = resolve(
        PLAYERS
        + creature("x", "A", 0, 2)
        + creature("y", "A", 0, 2)
        + creature("snake", "B", 1, 1, "deathtouch")
        + combat({"x": "B", "y": "B"}, {"snake": ["x", "y"]})
    )
    assert dealt(out, "regular") == {("snake", "x", 1)}
    assert step(out, "regular")["died"] == ["x"]
    assert out["creatures"]["y"]["alive"] is True


def test_510_1c_default_division_in_declared_order(resolve: Resolve) -> None:
    """510.1c: the default division gives lethal damage to blockers in declared order."""
    out = resolve(TWO_BLOCKERS)
    assert dealt(out, "regular") == {
        ("giant", "b1", 2), ("giant", "b2", 2), ("b1", "giant", 2), ("b2", "giant", 1)
    }  # fmt: skip


def test_510_1c_explicit_division_as_the_controller_chooses(resolve: Resolve) -> None:
    """510.1c (Foundations): the attacker's controller divides damage as they choose."""
    out = resolve(
        TWO_BLOCKERS
        + '[[combat.divide]]\nstep = "regular"\nsource = "giant"\namounts = { b2 = 4 }\n'
    )
    assert ("giant", "b2", 4) in dealt(out, "regular")
    assert out["creatures"]["b1"]["alive"] is True
    assert out["creatures"]["b2"]["alive"] is False


def test_510_1d_blocker_of_two_attackers_divides_its_damage(resolve: Resolve) -> None:
    """510.1d: a blocker blocking two attackers divides its damage, lethal first, in its order."""
    out = resolve(
        """
[players.A]
[players.B]
[creatures.x]
controller = "A"
power = 1
toughness = 2
[creatures.y]
controller = "A"
power = 1
toughness = 1
[creatures.hydra]
controller = "B"
power = 4
toughness = 5
[combat]
attackers = { x = "B", y = "B" }
blockers = { hydra = ["y", "x"] }
"""
    )
    assert dealt(out, "regular") == {
        ("hydra", "y", 2),
        ("hydra", "x", 2),
        ("x", "hydra", 1),
        ("y", "hydra", 1),
    }


def test_510_1_explicit_division_must_total_power(resolve: Resolve) -> None:
    """510.1: an explicit division must assign exactly the creature's power."""
    with pytest.raises(InputError) as info:
        resolve(
            TWO_BLOCKERS
            + '[[combat.divide]]\nstep = "regular"\nsource = "giant"\namounts = { b1 = 1 }\n'
        )
    assert info.value.path == "combat.divide[0].amounts"
    assert "power 4" in info.value.message


def test_division_counts_power_after_a_pump(resolve: Resolve) -> None:
    """510.1a: the amount is the power as damage is assigned, after earlier effects."""
    out = resolve(
        TWO_BLOCKERS
        + '[[combat.divide]]\nstep = "regular"\nsource = "giant"\namounts = { b1 = 3, b2 = 3 }\n'
        + '[[events]]\nat = "declare-blockers"\naction = "pump"\ntarget = "giant"\npower = 2\ntoughness = 0\n'
    )
    assert {("giant", "b1", 3), ("giant", "b2", 3)} <= dealt(out, "regular")


def test_division_naming_a_blocker_that_left_combat_is_an_error(resolve: Resolve) -> None:
    """510.1c: damage can be assigned only to creatures still blocking."""
    with pytest.raises(InputError) as info:
        resolve(
            TWO_BLOCKERS
            + '[[combat.divide]]\nstep = "regular"\nsource = "giant"\namounts = { b1 = 2, b2 = 2 }\n'
            + '[[events]]\nat = "declare-blockers"\naction = "remove-from-combat"\ntarget = "b1"\n'
        )
    assert info.value.path == "combat.divide[0].amounts.b1"
