"""A creature that returns (persist, undying) is a new object (400.7; RULES.md section 10): no
trigger of the old object acts on it, it has none of the old object's plugin state (pairs are
broken on both sides), and it keeps its id; on both engines (the `resolve` fixture)."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import Resolve, bundled_registry, text_resolver
from scenario_text import combat, creature, event

from ecs_combat import StateField, hookimpl

TWO = "[players.A]\n[players.B]\n"


def final(out: dict[str, Any], cid: str) -> tuple[bool, int, int, int, dict[str, int]]:
    """(alive, damage, power, toughness, counters) at the end."""
    c = out["creatures"][cid]
    return c["alive"], c["damage"], c["power"], c["toughness"], c["counters"]


def test_a_pending_trigger_does_nothing_to_the_new_object(resolve: Resolve) -> None:
    """400.7, 113.7a: A's 2/2 with flanking three times is blocked by B's 2/2 persist husk:
    three flanking triggers. The first makes it 1/1, the second 0/0: it dies (704.5f) and
    returns 2/2 with a -1/-1 counter = 1/1, not blocking. The third trigger named the old
    husk: it does nothing to the new one (before the fix it made it 0/0, and with its -1/-1
    counter it stayed dead). The knight is blocked by nobody and deals nothing (B: 20)."""
    out = resolve(
        TWO
        + creature("knight", "A", 2, 2, "flanking", "flanking", "flanking")
        + creature("husk", "B", 2, 2, "persist")
        + combat({"knight": "B"}, {"husk": "knight"})
    )
    assert final(out, "husk") == (True, 0, 1, 1, {"-1/-1": 1})
    assert out["players"]["B"]["life"] == 20
    assert all(s["damage"] == [] for s in out["steps"])


def _paired(cast_on: str) -> str:
    """B's 2/2 persist husk, paired with B's 1/1 elf (both sides say so), blocks A's 3/3 ogre and dies in the
    regular step (3 >= 2); it returns 1/1 (2/2 and a -1/-1 counter). After the step B casts
    Joint Assault on `cast_on`."""
    return (
        TWO
        + creature("ogre", "A", 3, 3)
        + creature("husk", "B", 2, 2, "persist", paired_with="elf")
        + creature("elf", "B", 1, 1, paired_with="husk")
        + combat({"ogre": "B"}, {"husk": "ogre"})
        + event("after regular", "cast", card="Joint Assault", caster="B", target=cast_on)
    )


def test_the_partner_of_a_returned_creature_is_no_longer_paired(resolve: Resolve) -> None:
    """702.95, 400.7: Joint Assault on the elf gives it +2/+2 (3/3); the returned husk is not
    its partner any more and stays 1/1 (before the fix: 3/3)."""
    out = resolve(_paired("elf"))
    assert final(out, "elf")[2:4] == (3, 3)
    assert final(out, "husk") == (True, 0, 1, 1, {"-1/-1": 1})


def test_a_returned_creature_is_paired_with_nothing(resolve: Resolve) -> None:
    """Joint Assault on the returned husk: +2/+2 to it (1/1 -> 3/3); it is paired with
    nothing, so the elf stays 1/1 (before the fix: 3/3)."""
    out = resolve(_paired("husk"))
    assert final(out, "husk") == (True, 0, 3, 3, {"-1/-1": 1})
    assert final(out, "elf")[2:4] == (1, 1)


class _Marks:
    """Two creature states for the output: one of the object, one printed on the card."""

    __name__ = "object_state"

    @hookimpl
    def register_state(self) -> list[StateField]:
        return [
            StateField("creature", "charge", "int", 0, output=True, summary="of the object"),
            StateField(
                "creature", "art", "int", 0, output=True, printed=True, summary="of the card"
            ),
        ]


@pytest.fixture(scope="module")
def with_marks(engine: str) -> Resolve:
    return text_resolver(engine, bundled_registry(extra=(_Marks(),)))


def test_state_of_the_object_resets_and_printed_state_stays(with_marks: Resolve) -> None:
    """400.7: the undying beast (charge 3, art 2) dies to the knight's 3 first-strike damage
    and returns: charge is back to its default 0, art (a characteristic of the card) stays 2.
    The knight, which didn't return, keeps its charge 5."""
    out = with_marks(
        TWO
        + creature("beast", "A", 2, 2, "undying", charge=3, art=2)
        + creature("knight", "B", 3, 3, "first strike", charge=5)
        + combat({"beast": "B"}, {"knight": "beast"})
    )
    assert out["creatures"]["beast"]["alive"]
    assert (out["creatures"]["beast"]["charge"], out["creatures"]["beast"]["art"]) == (0, 2)
    assert out["creatures"]["knight"]["charge"] == 5
