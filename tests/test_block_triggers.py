"""Block triggers (509.2-509.5, 603.3b): bushido, rampage, flanking, afflict, and exalted's
instances, on both engines. Expected values are worked out by hand in each docstring."""

from __future__ import annotations

from typing import Any

from conftest import Resolve
from scenario_text import combat, creature, event

PLAYERS = "[players.A]\n[players.B]\n"


def alive(out: dict[str, Any], cid: str) -> bool:
    return bool(out["creatures"][cid]["alive"])


def pt(out: dict[str, Any], cid: str) -> tuple[int, int]:
    c = out["creatures"][cid]
    return c["power"], c["toughness"]


def test_702_45a_bushido_pumps_a_blocker(resolve: Resolve) -> None:
    """702.45a: a 1/1 with bushido 2 blocks a 2/2: it becomes 3/3, kills the 2/2 and survives
    with 2 damage."""
    out = resolve(
        PLAYERS
        + creature("bear", "A", 2, 2)
        + creature("samurai", "B", 1, 1, "bushido 2")
        + combat({"bear": "B"}, {"samurai": "bear"})
    )
    assert pt(out, "samurai") == (3, 3)
    assert alive(out, "samurai") and not alive(out, "bear")
    assert out["creatures"]["samurai"]["damage"] == 2


def test_702_45a_bushido_triggers_once_per_instance_however_many_block(resolve: Resolve) -> None:
    """702.45a-b: an attacker with bushido 1 listed twice, blocked by two creatures, gets
    +1/+1 twice (once per instance, not per blocker): 2/2 -> 4/4."""
    out = resolve(
        PLAYERS
        + creature("ronin", "A", 2, 2, "bushido 1", "bushido 1")
        + creature("w1", "B", 0, 5)
        + creature("w2", "B", 0, 5)
        + combat({"ronin": "B"}, {"w1": "ronin", "w2": "ronin"})
    )
    assert pt(out, "ronin") == (4, 4)


def test_702_23a_rampage_counts_blockers_beyond_the_first(resolve: Resolve) -> None:
    """702.23a: rampage 2 blocked by three creatures: +2/+2 for each of the two beyond the
    first: 3/3 -> 7/7."""
    out = resolve(
        PLAYERS
        + creature("beast", "A", 3, 3, "rampage 2")
        + creature("w1", "B", 0, 4)
        + creature("w2", "B", 0, 4)
        + creature("w3", "B", 0, 4)
        + combat({"beast": "B"}, {"w1": "beast", "w2": "beast", "w3": "beast"})
    )
    assert pt(out, "beast") == (7, 7)


def test_702_23a_rampage_with_one_blocker_gives_nothing(resolve: Resolve) -> None:
    """702.23a: one blocker is none beyond the first: the 3/3 stays 3/3."""
    out = resolve(
        PLAYERS
        + creature("beast", "A", 3, 3, "rampage 2")
        + creature("w1", "B", 0, 4)
        + combat({"beast": "B"}, {"w1": "beast"})
    )
    assert pt(out, "beast") == (3, 3)


def test_702_25a_flanking_shrinks_each_blocker_without_flanking(resolve: Resolve) -> None:
    """702.25a: a 2/2 flanker blocked by a 2/2 and a 1/1: each gets -1/-1; the 1/1 dies at once
    (0 toughness, before damage), the 2/2 becomes 1/1 and dies to the flanker's 2 damage (the
    default division gives it lethal 1 first, then the rest to it too)."""
    out = resolve(
        PLAYERS
        + creature("knight", "A", 2, 2, "flanking")
        + creature("bear", "B", 2, 2)
        + creature("squire", "B", 1, 1)
        + combat({"knight": "B"}, {"bear": "knight", "squire": "knight"})
    )
    assert not alive(out, "squire")
    assert pt(out, "squire") == (0, 0)
    assert pt(out, "bear") == (1, 1)
    assert not alive(out, "bear")
    assert alive(out, "knight")  # the bear, now 1/1, deals 1
    assert out["creatures"]["knight"]["damage"] == 1


def test_702_25b_a_blocker_with_flanking_is_not_flanked(resolve: Resolve) -> None:
    """702.25a: only blockers without flanking get -1/-1."""
    out = resolve(
        PLAYERS
        + creature("knight", "A", 2, 2, "flanking")
        + creature("rival", "B", 2, 2, "flanking")
        + combat({"knight": "B"}, {"rival": "knight"})
    )
    assert pt(out, "rival") == (2, 2)


def test_702_25b_two_flanking_instances_trigger_twice(resolve: Resolve) -> None:
    """702.25b: flanking twice: the 3/3 blocker gets -1/-1 twice: 1/1."""
    out = resolve(
        PLAYERS
        + creature("knight", "A", 1, 1, "flanking", "flanking")
        + creature("wall", "B", 0, 3)
        + combat({"knight": "B"}, {"wall": "knight"})
    )
    assert pt(out, "wall") == (-2, 1)


def test_702_130a_afflict_makes_the_defending_player_lose_life(resolve: Resolve) -> None:
    """702.130a: afflict 3 blocked: B loses 3 life (not damage): 20 -> 17; nothing is dealt to
    B in combat."""
    out = resolve(
        PLAYERS
        + creature("horror", "A", 2, 2, "afflict 3")
        + creature("bear", "B", 2, 2)
        + combat({"horror": "B"}, {"bear": "horror"})
    )
    assert out["players"]["B"]["life"] == 17
    assert all(d["target"] != "B" for s in out["steps"] for d in s["damage"])


def test_702_130a_afflict_unblocked_does_not_trigger(resolve: Resolve) -> None:
    """702.130a: unblocked, it deals its 2 combat damage and afflict does nothing: 18."""
    out = resolve(PLAYERS + creature("horror", "A", 2, 2, "afflict 3") + combat({"horror": "B"}))
    assert out["players"]["B"]["life"] == 18


def test_704_5a_afflict_to_0_life_ends_the_game_before_damage(resolve: Resolve) -> None:
    """704.5a after the trigger: B at 2 is afflicted 3 to -1 and loses; with fewer than two
    players left no damage step happens."""
    out = resolve(
        "[players.A]\n[players.B]\nlife = 2\n"
        + creature("horror", "A", 2, 2, "afflict 3")
        + creature("bear", "B", 2, 2)
        + combat({"horror": "B"}, {"bear": "horror"})
    )
    assert out["players"]["B"] == {**out["players"]["B"], "life": -1, "lost": True}
    assert out["steps"] == []


def test_603_3b_bushido_resolves_before_flanking(resolve: Resolve) -> None:
    """603.3b (APNAP): a 2/2 flanker (A's, active) blocked by a 1/1 with bushido 1 (B's):
    bushido resolves first: 2/2, then flanking: 1/1, and the blocker survives to deal damage
    (1 to the flanker). In the other order it would die at 0/0 first."""
    out = resolve(
        PLAYERS
        + creature("lancer", "A", 2, 2, "flanking")
        + creature("samurai", "B", 1, 1, "bushido 1")
        + combat({"lancer": "B"}, {"samurai": "lancer"})
    )
    assert pt(out, "samurai") == (1, 1)
    assert out["creatures"]["lancer"]["damage"] == 1
    regular = out["steps"][-1]
    assert {"source": "samurai", "target": "lancer", "amount": 1} in regular["damage"]


def test_603_3b_state_based_actions_after_each_trigger(resolve: Resolve) -> None:
    """704.3 after the trigger: a 1/1 blocking a flanker becomes 0/0 and dies before any damage
    step, so nothing deals damage to the flanker."""
    out = resolve(
        PLAYERS
        + creature("lancer", "A", 2, 2, "flanking")
        + creature("page", "B", 1, 1)
        + combat({"lancer": "B"}, {"page": "lancer"})
    )
    assert not alive(out, "page")
    assert out["creatures"]["lancer"]["damage"] == 0
    assert out["steps"][-1]["damage"] == []


def test_603_3b_the_non_active_players_triggers_resolve_first_with_three_players(
    resolve: Resolve,
) -> None:
    """603.3b with three players A (active), B, C: A attacks B with an afflict 2 creature and
    C with another; both are blocked. The triggers are A's only (both afflict), in the order
    of their sources: B loses 2, then C loses 2."""
    out = resolve(
        "[players.A]\n[players.B]\n[players.C]\n"
        + creature("h1", "A", 1, 1, "afflict 2")
        + creature("h2", "A", 1, 1, "afflict 2")
        + creature("b", "B", 0, 3)
        + creature("c", "C", 0, 3)
        + combat({"h1": "B", "h2": "C"}, {"b": "h1", "c": "h2"})
    )
    assert out["players"]["B"]["life"] == 18
    assert out["players"]["C"]["life"] == 18


def test_702_83b_exalted_counts_instances(resolve: Resolve) -> None:
    """702.83b, 113.2c: printed exalted plus an exalted counter are two instances: the lone
    attacker gets +2/+2: 1/1 -> 3/3, and deals 3."""
    out = resolve(
        PLAYERS
        + creature("knight", "A", 1, 1)
        + creature("angel", "A", 1, 1, "exalted", counters={"exalted": 1})
        + combat({"knight": "B"})
    )
    assert pt(out, "knight") == (3, 3)
    assert out["players"]["B"]["life"] == 17


def test_603_3_a_trigger_of_a_creature_that_left_does_nothing(resolve: Resolve) -> None:
    """704.3 between triggers: two flanking instances against a 1/1 blocker. The first makes
    it 0/0 and it dies at once; the second finds it gone and does nothing (it stays 0/0, not
    -1/-1). The pump event comes after the triggers and changes only the attacker."""
    out = resolve(
        PLAYERS
        + creature("knight", "A", 2, 2, "flanking", "flanking")
        + creature("page", "B", 1, 1)
        + combat({"knight": "B"}, {"page": "knight"})
        + event("declare-blockers", "pump", target="knight", power=1, toughness=0)
    )
    assert not alive(out, "page")
    assert pt(out, "page") == (0, 0)  # one -1/-1 only: it was gone when the second resolved
