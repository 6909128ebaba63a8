"""RULES.md section 10 keywords written only against the contexts, on both engines: the attack
triggers (battle cry, training, dethrone, melee), frenzy, and the blocking restrictions
(horsemanship, can't block, can't be blocked). Expected values derived by hand."""

from __future__ import annotations

import pytest
from conftest import Resolve, dealt
from scenario_text import combat, creature

from ecs_combat import InputError

TWO = "[players.A]\n[players.B]\n"


def life(out: dict[str, object], player: str) -> int:
    players = out["players"]
    assert isinstance(players, dict)
    value: int = players[player]["life"]
    return value


def power(out: dict[str, object], cid: str) -> int:
    creatures = out["creatures"]
    assert isinstance(creatures, dict)
    value: int = creatures[cid]["power"]
    return value


# -- battle cry (702.91) ------------------------------------------------------------------------


def test_battle_cry_pumps_each_other_attacker_not_itself(resolve: Resolve) -> None:
    """702.91a (the w4 example): crier 2/2, bear 2/2 and cub 1/1 attack; bear 2+1 = 3, cub
    1+1 = 2, crier stays 2; the sage with exalted doesn't attack and three attack, so exalted
    gives nothing. B: 20 - (2 + 3 + 2) = 13."""
    out = resolve(
        TWO
        + creature("crier", "A", 2, 2, "battle cry")
        + creature("bear", "A", 2, 2)
        + creature("cub", "A", 1, 1)
        + creature("sage", "A", 1, 1, "exalted")
        + combat({"crier": "B", "bear": "B", "cub": "B"})
    )
    assert dealt(out, "regular") == {("crier", "B", 2), ("bear", "B", 3), ("cub", "B", 2)}
    assert life(out, "B") == 13
    assert [power(out, c) for c in ("crier", "bear", "cub", "sage")] == [2, 3, 2, 1]


def test_each_battle_cry_instance_triggers(resolve: Resolve) -> None:
    """702.91b: two instances, two triggers: the bear gets +2/+0 (2 + 2 = 4); B: 20 - 2 - 4
    = 14. Two criers pump each other: 2 + 1 each, B: 20 - 3 - 3 = 14."""
    out = resolve(
        TWO
        + creature("crier", "A", 2, 2, "battle cry", "battle cry")
        + creature("bear", "A", 2, 2)
        + combat({"crier": "B", "bear": "B"})
    )
    assert (power(out, "crier"), power(out, "bear"), life(out, "B")) == (2, 4, 14)
    out = resolve(
        TWO
        + creature("one", "A", 2, 2, "battle cry")
        + creature("two", "A", 2, 2, "battle cry")
        + combat({"one": "B", "two": "B"})
    )
    assert (power(out, "one"), power(out, "two"), life(out, "B")) == (3, 3, 14)


def test_battle_cry_alone_pumps_nobody_and_a_blocker_is_not_pumped(resolve: Resolve) -> None:
    """Only attacking creatures get +1/+0: the crier attacks alone and B's blocking bear stays
    2/2; crier 2 and bear 2 trade."""
    out = resolve(
        TWO
        + creature("crier", "A", 2, 2, "battle cry")
        + creature("bear", "B", 2, 2)
        + combat({"crier": "B"}, {"bear": "crier"})
    )
    assert power(out, "bear") == 2
    assert dealt(out, "regular") == {("crier", "bear", 2), ("bear", "crier", 2)}


# -- training (702.149) ---------------------------------------------------------------------------


def test_training_with_a_greater_power_attacker_gets_a_counter(resolve: Resolve) -> None:
    """702.149a: the 1/1 trainee attacks with a 3/3: a +1/+1 counter, 2/2; B: 20 - 2 - 3 = 15."""
    out = resolve(
        TWO
        + creature("trainee", "A", 1, 1, "training")
        + creature("ogre", "A", 3, 3)
        + combat({"trainee": "B", "ogre": "B"})
    )
    assert out["creatures"]["trainee"]["counters"] == {"+1/+1": 1}
    assert (power(out, "trainee"), life(out, "B")) == (2, 15)


def test_training_without_a_greater_power_attacker_does_nothing(resolve: Resolve) -> None:
    """An equal power is not greater: 2/2 trainee with a 2/2, no counter; B: 20 - 4 = 16.
    Alone, nothing either: B: 20 - 2 = 18."""
    out = resolve(
        TWO
        + creature("trainee", "A", 2, 2, "training")
        + creature("bear", "A", 2, 2)
        + combat({"trainee": "B", "bear": "B"})
    )
    assert out["creatures"]["trainee"].get("counters", {}) == {}
    assert life(out, "B") == 16
    out = resolve(TWO + creature("trainee", "A", 2, 2, "training") + combat({"trainee": "B"}))
    assert life(out, "B") == 18


def test_training_a_battle_cry_resolved_first_does_not_make_it_trigger(resolve: Resolve) -> None:
    """RULES 10 (the correction of version 1.3), 508.2a, 603.2: training's condition is
    checked as attackers are declared. The 2/2 crier has battle cry then training; as
    attackers are declared the 2/2 bear is not greater, so training doesn't trigger, although
    battle cry then makes the bear 3/2. No counter: crier 2/2; B: 20 - 2 - 3 = 15. (Version
    1.2 read the powers as it resolved: a counter and B at 14.)"""
    out = resolve(
        TWO
        + creature("crier", "A", 2, 2, "battle cry", "training")
        + creature("bear", "A", 2, 2)
        + combat({"crier": "B", "bear": "B"})
    )
    assert out["creatures"]["crier"]["counters"] == {}
    assert (power(out, "crier"), power(out, "bear"), life(out, "B")) == (2, 3, 15)


def test_training_a_pump_after_it_triggered_does_not_stop_it(resolve: Resolve) -> None:
    """RULES 10, 603.4: the 1/1 trainee attacks with the 2/2 bear, which has battle cry: as
    attackers are declared 2 > 1, training triggers. The bear's battle cry resolves first
    (the bear comes first in the file) and makes the trainee 2/1, no longer below the bear;
    training has no "if" clause to check again and still puts its counter: 3/2. B: 20 - 2 -
    3 = 15. (Version 1.2: no counter, B at 16.)"""
    out = resolve(
        TWO
        + creature("bear", "A", 2, 2, "battle cry")
        + creature("trainee", "A", 1, 1, "training")
        + combat({"bear": "B", "trainee": "B"})
    )
    assert out["creatures"]["trainee"]["counters"] == {"+1/+1": 1}
    assert (power(out, "trainee"), life(out, "B")) == (3, 15)


# -- dethrone (702.105) ---------------------------------------------------------------------------


def test_dethrone_attacking_the_player_tied_for_most_life(resolve: Resolve) -> None:
    """702.105a: A 20, B 20: tied for most; 2/2 + counter = 3/3; B: 20 - 3 = 17."""
    out = resolve(TWO + creature("rogue", "A", 2, 2, "dethrone") + combat({"rogue": "B"}))
    assert out["creatures"]["rogue"]["counters"] == {"+1/+1": 1}
    assert life(out, "B") == 17


def test_dethrone_attacking_a_player_with_less_life_does_nothing(resolve: Resolve) -> None:
    """B has 10, A 20: B is not the player with the most life; B: 10 - 2 = 8."""
    text = "[players.A]\nlife = 20\n[players.B]\nlife = 10\n"
    out = resolve(text + creature("rogue", "A", 2, 2, "dethrone") + combat({"rogue": "B"}))
    assert life(out, "B") == 8
    assert out["creatures"]["rogue"].get("counters", {}) == {}


def test_dethrone_among_three_players(resolve: Resolve) -> None:
    """A 20, B 25, C 10: the rogue attacking B (25, the most) gets a counter, the one attacking
    C doesn't. B: 25 - 3 = 22; C: 10 - 2 = 8."""
    text = "[players.A]\n[players.B]\nlife = 25\n[players.C]\nlife = 10\n"
    out = resolve(
        text
        + creature("rogue", "A", 2, 2, "dethrone")
        + creature("thief", "A", 2, 2, "dethrone")
        + combat({"rogue": "B", "thief": "C"})
    )
    assert (life(out, "B"), life(out, "C")) == (22, 8)


# -- melee (702.121) -------------------------------------------------------------------------------


def test_melee_counts_each_opponent_attacked(resolve: Resolve) -> None:
    """702.121a: A attacks B with the 2/2 melee creature and C with a bear: two opponents,
    +2/+2: 4/4. B: 20 - 4 = 16; C: 20 - 2 = 18. In a two-player game, +1/+1: B 20 - 3 = 17."""
    out = resolve(
        "[players.A]\n[players.B]\n[players.C]\n"
        + creature("brawler", "A", 2, 2, "melee")
        + creature("bear", "A", 2, 2)
        + combat({"brawler": "B", "bear": "C"})
    )
    assert (power(out, "brawler"), life(out, "B"), life(out, "C")) == (4, 16, 18)
    out = resolve(TWO + creature("brawler", "A", 2, 2, "melee") + combat({"brawler": "B"}))
    assert (power(out, "brawler"), life(out, "B")) == (3, 17)


# -- frenzy (702.68) ------------------------------------------------------------------------------


def test_frenzy_unblocked_gets_plus_n(resolve: Resolve) -> None:
    """702.68a: frenzy 2, unblocked: 2 + 2 = 4 power; B: 20 - 4 = 16."""
    out = resolve(TWO + creature("berserker", "A", 2, 2, "frenzy 2") + combat({"berserker": "B"}))
    assert (power(out, "berserker"), life(out, "B")) == (4, 16)


def test_frenzy_blocked_gets_nothing(resolve: Resolve) -> None:
    """Blocked by a 0/5 wall: no trigger; the berserker deals its 2 to the wall."""
    out = resolve(
        TWO
        + creature("berserker", "A", 2, 2, "frenzy 2")
        + creature("wall", "B", 0, 5)
        + combat({"berserker": "B"}, {"wall": "berserker"})
    )
    assert power(out, "berserker") == 2
    assert dealt(out, "regular") == {("berserker", "wall", 2)}


# -- restrictions -----------------------------------------------------------------------------------


def _blocks(resolve: Resolve, attacker_kw: tuple[str, ...], blocker_kw: tuple[str, ...]) -> None:
    resolve(
        TWO
        + creature("rider", "A", 2, 2, *attacker_kw)
        + creature("guard", "B", 1, 3, *blocker_kw)
        + combat({"rider": "B"}, {"guard": "rider"})
    )


@pytest.mark.parametrize(
    ("attacker", "blocker", "words"),
    [
        (("horsemanship",), (), "horsemanship"),
        (("can't be blocked",), (), "can't be blocked"),
        ((), ("can't block",), "can't block"),
        ((), ("can\u2019t block",), "can't block"),  # a typographic apostrophe is accepted
    ],
)
def test_blocking_restrictions(
    resolve: Resolve, attacker: tuple[str, ...], blocker: tuple[str, ...], words: str
) -> None:
    """702.31, 509.1a-b: the guard can't block; the message names the block and the keyword."""
    with pytest.raises(InputError) as info:
        _blocks(resolve, attacker, blocker)
    assert "combat.blockers.guard" in str(info.value)
    assert words in str(info.value)


def test_horsemanship_is_blocked_by_horsemanship(resolve: Resolve) -> None:
    """702.31b: a creature with horsemanship can block it: rider 2 to guard, guard 1 back."""
    out = resolve(
        TWO
        + creature("rider", "A", 2, 2, "horsemanship")
        + creature("guard", "B", 1, 3, "horsemanship")
        + combat({"rider": "B"}, {"guard": "rider"})
    )
    assert dealt(out, "regular") == {("rider", "guard", 2), ("guard", "rider", 1)}
