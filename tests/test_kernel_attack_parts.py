"""The kernel parts of dethrone, vigilance and haste (attack triggers and systems at
``declare-attackers``), hand-derived, on the three engines; drawn scenarios with them."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from test_kernel_triggers import combat, three_engines
from test_kernels import (  # noqa: F401  (kernels on for this module, the same cache)
    BUNDLED,
    NOT_JITTED,
    assert_three_engines_agree,
    creature,
    kernels_on,
)

from ecs_combat.kernel.generate import generate
from ecs_combat.testing import scenarios

#: Three players, the last with the most life.
THREE = "[players.a]\nlife = 20\n[players.b]\nlife = 15\n[players.c]\nlife = 25\n"
TWO = "[players.a]\nlife = 20\n[players.b]\nlife = 20\n"


def test_dethrone_attacking_the_player_with_the_most_life() -> None:
    """702.105a: a 2/2 with dethrone attacking a player tied for the most life gets a +1/+1
    counter as its trigger resolves (122.1a: 3/3), and deals 3."""
    out = three_engines(TWO + creature("x", "a", 2, 2, "dethrone") + combat({"x": "b"}))
    assert out.power.tolist() == [3]
    assert out.toughness.tolist() == [3]
    assert out.life.tolist() == [20, 17]


def test_dethrone_among_three_players() -> None:
    """702.105a: only the attacker of the player with the most life (c, 25) triggers, twice
    for its two instances (702.105b): 4/4, 4 damage to c; the one attacking b (15) does not
    trigger: 2 damage to b."""
    text = THREE + creature("x", "a", 2, 2, "dethrone", "dethrone")
    text += creature("y", "a", 2, 2, "dethrone")
    out = three_engines(text + combat({"x": "c", "y": "b"}))
    assert out.power.tolist() == [4, 2]
    assert out.life.tolist() == [20, 13, 21]


def test_dethrone_blocked_keeps_its_counter() -> None:
    """702.105a, 510.1: the trigger resolves before blocks: a 1/1 with dethrone is a 2/2
    when a 2/2 blocks it: both die (704.5g)."""
    text = TWO + creature("x", "a", 1, 1, "dethrone") + creature("y", "b", 2, 2)
    out = three_engines(text + combat({"x": "b"}, {"y": "x"}))
    assert out.power.tolist() == [2, 2]
    assert out.alive.tolist() == [False, False]
    assert out.life.tolist() == [20, 20]


def test_vigilance_changes_nothing_in_one_combat() -> None:
    """702.20b: attacking without tapping; in one combat the outcome is a 3/3's: 3 damage,
    and a 2/2 blocker of a second vigilant attacker dies."""
    text = TWO + creature("x", "a", 3, 3, "vigilance") + creature("z", "a", 3, 3, "vigilance")
    text += creature("y", "b", 2, 2)
    out = three_engines(text + combat({"x": "b", "z": "b"}, {"y": "z"}))
    assert out.alive.tolist() == [True, True, False]
    assert out.life.tolist() == [20, 17]


def test_haste_attacks_the_turn_it_came() -> None:
    """702.10b, 302.6: a summoning-sick 2/2 with haste may attack; it deals 2."""
    text = TWO + creature("x", "a", 2, 2, "haste").replace(
        "keywords", "summoning_sick = true\nkeywords"
    )
    out = three_engines(text + combat({"x": "b"}))
    assert out.life.tolist() == [20, 18]


def test_the_parts_are_the_plugins() -> None:
    """The three systems have kernel parts, from their plugins."""
    source = generate(BUNDLED)
    assert source.covers("ecs_combat_keywords.dethrone", "attack trigger")
    assert source.covers("ecs_combat_keywords.vigilance", "attacks untapped")
    assert source.covers("ecs_combat_keywords.haste", "explains")


KEYWORDS = ["dethrone", "vigilance", "haste", "exalted", "first strike", "deathtouch", "lifelink"]


@settings(max_examples=10 if NOT_JITTED else 60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(doc=scenarios(BUNDLED, keywords=KEYWORDS, players=3, state=False, events=False))
def test_three_engines_agree_on_drawn_attack_parts(doc: dict[str, Any]) -> None:
    """The kit's check and the kernel against the numpy engine exactly, with dethrone (its
    +1/+1 counters), vigilance and haste among others, and three players."""
    for c in doc["creatures"].values():
        c.pop("counters", None)
    assert_three_engines_agree(doc)
