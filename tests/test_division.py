"""Assigning combat damage among several recipients (510.1c-d, RULES.md section 3)."""

from __future__ import annotations

import pytest
from conftest import Resolve, dealt

from ecs_combat import InputError
from ecs_combat.division import default_division, excess_shortfall, lethal_damage

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


def test_702_19b_lethal_damage_counts_marked_damage() -> None:
    """702.19b: lethal damage is toughness minus damage already marked, never below 0."""
    assert lethal_damage(3, 1, False) == 2
    assert lethal_damage(3, 5, False) == 0


def test_702_2c_destroying_source_makes_1_lethal() -> None:
    """702.2c: from a deathtouch source 1 is lethal, 0 if already lethally damaged."""
    assert lethal_damage(5, 0, True) == 1
    assert lethal_damage(5, 5, True) == 0


def test_default_division_lethal_in_order_rest_to_first() -> None:
    """RULES.md 3: lethal to each in order; without trample the rest goes to the first."""
    assert default_division(7, [("a", 2), ("b", 3)]) == {"a": 4, "b": 3}
    assert default_division(3, [("a", 2), ("b", 3)]) == {"a": 2, "b": 1}


def test_default_division_excess_to_player() -> None:
    """702.19b: with trample the excess goes to the player; no blockers: all of it (702.19e)."""
    assert default_division(7, [("a", 2), ("b", 3)], "P") == {"a": 2, "b": 3, "P": 2}
    assert default_division(4, [], "P") == {"P": 4}
    assert default_division(4, []) == {}


def test_excess_shortfall_counts_other_creatures_damage() -> None:
    """702.19b: damage to the player needs lethal to each blocker, counting others' damage."""
    assert excess_shortfall({"a": 1, "P": 3}, "P", {"a": 2}, {"a": 1}) is None
    assert excess_shortfall({"a": 1, "P": 3}, "P", {"a": 2}, {}) == "a"
    assert excess_shortfall({"a": 0, "P": 0}, "P", {"a": 2}, {}) is None


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
