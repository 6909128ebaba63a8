"""RULES 11.5: "dies" triggers (persist, undying, a plugin's `dies` triggers) resolve as block
triggers do: APNAP (the non-active player's first), one player's in the order of their
sources in `creatures`, one creature's in the order its keyword instances are listed. When
two would return the same card, the first returns it; the second finds a new object and does
nothing (400.7). Expected values derived by hand, on both engines."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import Resolve, bundled_registry, step, text_resolver
from herald_plugin import HERALDS, Herald
from scenario_text import combat, creature, event

TWO = "[players.A]\n[players.B]\n"


def final(out: dict[str, Any], cid: str) -> tuple[bool, int, int, int, dict[str, int]]:
    """(alive, damage, power, toughness, counters) at the end."""
    c = out["creatures"][cid]
    return c["alive"], c["damage"], c["power"], c["toughness"], c["counters"]


def knight_kills(attacker: str, power: int, toughness: int, *keywords: str) -> str:
    """A's `attacker` attacks B; B's 3/3 first-strike knight blocks it and kills it in the
    first-strike step (3 >= its toughness)."""
    return (
        TWO
        + creature(attacker, "A", power, toughness, *keywords)
        + creature("knight", "B", 3, 3, "first strike")
        + combat({attacker: "B"}, {"knight": attacker})
    )


def test_undying_listed_first_returns_it_and_persist_finds_a_new_object(
    resolve: Resolve,
) -> None:
    """11.5, 702.93a, 400.7: a 2/2 with ["undying", "persist"] dies with no counters; undying's
    trigger resolves first and returns it with a +1/+1 counter (3/3); persist's finds a new
    object and does nothing (no -1/-1 counter)."""
    out = resolve(knight_kills("beast", 2, 2, "undying", "persist"))
    assert step(out, "first-strike")["died"] == ["beast"]
    assert final(out, "beast") == (True, 0, 3, 3, {"+1/+1": 1})


def test_persist_listed_first_returns_it_and_undying_finds_a_new_object(
    resolve: Resolve,
) -> None:
    """11.5, 702.79a, 400.7: the same 2/2 with ["persist", "undying"]: persist's trigger returns
    it with a -1/-1 counter (1/1); undying's does nothing."""
    out = resolve(knight_kills("beast", 2, 2, "persist", "undying"))
    assert step(out, "first-strike")["died"] == ["beast"]
    assert final(out, "beast") == (True, 0, 1, 1, {"-1/-1": 1})


def test_a_one_one_with_undying_first_returns_once(resolve: Resolve) -> None:
    """11.5: a 1/1 with ["undying", "persist"]: undying returns it 2/2 with a +1/+1 counter;
    persist finds a new object. It died once (RULES 11.11: `died` lists it once)."""
    out = resolve(knight_kills("sprite", 1, 1, "undying", "persist"))
    assert step(out, "first-strike")["died"] == ["sprite"]
    assert final(out, "sprite") == (True, 0, 2, 2, {"+1/+1": 1})


def test_a_one_one_with_persist_first_dies_twice(resolve: Resolve) -> None:
    """11.5, 704.5f, 11.11: a 1/1 with ["persist", "undying"]: persist returns it with a -1/-1
    counter, 0/0, and it dies at the check after that trigger. The new object's triggers go on
    the stack above the old undying trigger and resolve first: its persist does nothing (it
    had a -1/-1 counter), its undying returns it with a +1/+1 counter (2/2, no -1/-1: a newer
    object again). The old undying trigger then finds a new object and does nothing. The step
    lists the sprite twice."""
    out = resolve(knight_kills("sprite", 1, 1, "persist", "undying"))
    assert step(out, "first-strike")["died"] == ["sprite", "sprite"]
    assert final(out, "sprite") == (True, 0, 2, 2, {"+1/+1": 1})


def test_a_granted_undying_finds_the_new_object_dead_and_does_nothing(resolve: Resolve) -> None:
    """11.5, 400.7: a 1/1 with persist is granted undying (listed after it: granted later)
    and dies to the knight. Persist's trigger returns it with a -1/-1 counter, 0/0; it dies
    at the check after that trigger, a new object without the granted undying, whose persist
    does nothing (it had a -1/-1 counter). The old undying trigger then finds a new object,
    dead with no +1/+1 counter, and does nothing: the sprite stays dead (returning it would
    make it a 2/2 with a +1/+1 counter)."""
    out = resolve(
        knight_kills("sprite", 1, 1, "persist")
        + event("declare-blockers", "grant", target="sprite", keywords=["undying"])
    )
    assert step(out, "first-strike")["died"] == ["sprite", "sprite"]
    assert final(out, "sprite")[0] is False
    assert final(out, "sprite")[4] == {"-1/-1": 1}


@pytest.fixture(scope="module")
def resolve_herald(engine: str) -> Resolve:
    """Resolve with the bundled plugins and the test keyword ``herald``."""
    return text_resolver(engine, bundled_registry(extra=(Herald(),)))


def test_apnap_then_creatures_order_then_instances(resolve_herald: Resolve) -> None:
    """11.5, 603.3b: A (active) attacks with ahh (herald 1, herald 4) and cee (herald 3); B's
    bee (herald 2) blocks ahh and dee (no herald) blocks cee; all four 2/2s die in the regular
    step. B's trigger resolves first (APNAP: the active player's go on the stack first), then
    A's: ahh's in list order (1, then 4), then cee's (3). Each player's `heralds`: 2143 (the
    file's order alone would give 1432)."""
    out = resolve_herald(
        TWO
        + creature("ahh", "A", 2, 2, "herald 1", "herald 4")
        + creature("cee", "A", 2, 2, "herald 3")
        + creature("bee", "B", 2, 2, "herald 2")
        + creature("dee", "B", 2, 2)
        + combat({"ahh": "B", "cee": "B"}, {"bee": "ahh", "dee": "cee"})
    )
    assert step(out, "regular")["died"] == ["ahh", "cee", "bee", "dee"]
    assert out["players"]["A"][HERALDS] == 2143
    assert out["players"]["B"][HERALDS] == 2143


def test_the_returned_creature_triggers_again_when_it_dies_again(resolve_herald: Resolve) -> None:
    """11.5, 400.7: A's 1/1 with ["herald 1", "persist", "herald 2"] dies to the knight: herald
    1 resolves (1), persist returns it with a -1/-1 counter (0/0), and it dies at the check
    after: the new object's triggers resolve before the old herald 2 (they are put on the
    stack above it): herald 1 (11), persist does nothing (it had a -1/-1 counter), herald 2
    (112); then the old herald 2 (1122). The step lists the creature twice."""
    out = resolve_herald(knight_kills("sprite", 1, 1, "herald 1", "persist", "herald 2"))
    assert step(out, "first-strike")["died"] == ["sprite", "sprite"]
    assert out["players"]["A"][HERALDS] == 1122
    assert final(out, "sprite")[0] is False


def test_returning_a_new_object_again_does_nothing(resolve_herald: Resolve) -> None:
    """400.7, the contexts' return_to_battlefield: a 1/1 with persist is granted revive (a
    test trigger returning its source with no condition) and dies to the knight. Persist
    returns it 0/0 (a -1/-1 counter); it dies at the check after, a new object without
    revive, whose persist does nothing. The old revive trigger then returns... nothing: the
    card is a new object to it. The sprite stays dead."""
    out = resolve_herald(
        knight_kills("sprite", 1, 1, "persist")
        + event("declare-blockers", "grant", target="sprite", keywords=["revive"])
    )
    assert step(out, "first-strike")["died"] == ["sprite", "sprite"]
    assert final(out, "sprite")[0] is False
