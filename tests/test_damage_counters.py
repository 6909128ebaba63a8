"""Counters, poison and damage dealt as counters (RULES.md section 7): +1/+1 and -1/-1
counters (122.1a, 704.5q), poison (122.1f, 704.5c), wither (702.80), infect (702.90) and toxic
(702.164). Every test runs on both engines; expected values are derived by hand."""

from __future__ import annotations

import io
import re
import tomllib

import pytest
from conftest import Resolve, bundled_registry, dealt, step
from rich.console import Console
from scenario_text import combat, creature, event

from ecs_combat import InputError, Registry, load_registry, parse_scenario
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.console.account import render
from ecs_combat.reference.engine import ReferenceEngine

PLAYERS = "[players.A]\n[players.B]\n"


def poisoned_players(poison: int) -> str:
    """Players A and B, B with `poison` poison counters."""
    return f"[players.A]\n[players.B]\npoison = {poison}\n"


# -- poison counters (122.1f, 704.5c) --------------------------------------------------------


def test_122_1f_poison_is_printed_and_defaults_to_0(resolve: Resolve) -> None:
    """Players' poison counters are output; a player given none has 0."""
    out = resolve(poisoned_players(4) + creature("bear", "A", 2, 2) + combat({"bear": "B"}))
    assert out["players"]["A"] == {"life": 20, "lost": False, "poison": 0}
    assert out["players"]["B"] == {"life": 18, "lost": False, "poison": 4}


def test_704_5c_ten_poison_counters_lose_before_damage(resolve: Resolve) -> None:
    """704.5c: a player starting with 10 poison counters loses at the first state-based
    check, before any damage: the game is over and no damage step takes place."""
    out = resolve(poisoned_players(10) + creature("bear", "A", 2, 2) + combat({"bear": "B"}))
    assert out["players"]["B"] == {"life": 20, "lost": True, "poison": 10}
    assert out["steps"] == []


def test_704_5c_nine_poison_counters_do_not_lose(resolve: Resolve) -> None:
    """704.5c: nine poison counters are not enough."""
    out = resolve(poisoned_players(9) + creature("bear", "A", 2, 2) + combat({"bear": "B"}))
    assert out["players"]["B"] == {"life": 18, "lost": False, "poison": 9}


# -- +1/+1 and -1/-1 counters (122.1a, 704.5q) -----------------------------------------------


def test_122_1a_counters_change_power_and_toughness(resolve: Resolve) -> None:
    """A 2/2 with two +1/+1 counters is 4/4 and kills a 3/3 blocker, surviving its 3."""
    out = resolve(
        PLAYERS
        + creature("bear", "A", 2, 2, counters={"+1/+1": 2})
        + creature("ogre", "B", 3, 3)
        + combat({"bear": "B"}, {"ogre": "bear"})
    )
    bear = out["creatures"]["bear"]
    assert (bear["power"], bear["toughness"], bear["alive"]) == (4, 4, True)
    assert bear["counters"] == {"+1/+1": 2}
    assert step(out, "regular")["died"] == ["ogre"]


def test_122_1a_minus_counters_at_0_toughness_die(resolve: Resolve) -> None:
    """704.5f: a `counters` event puts two -1/-1 counters on B's 2/2 wisp blocking the bear:
    0/0, it dies as state-based actions are checked after the event (before damage), with
    its counters; the blocked bear deals no damage (509.1h). (A creature that starts at 0/0
    with its counters is an input error, RULES 11.2: tests/test_simultaneous_sba.py.)"""
    out = resolve(
        PLAYERS
        + creature("bear", "A", 2, 2)
        + creature("wisp", "B", 2, 2)
        + combat({"bear": "B"}, {"wisp": "bear"})
        + event("declare-blockers", "counters", target="wisp", counters={"-1/-1": 2})
    )
    assert out["creatures"]["wisp"]["alive"] is False
    assert out["creatures"]["wisp"]["counters"] == {"-1/-1": 2}
    assert out["players"]["B"]["life"] == 20
    assert step(out, "regular")["damage"] == []


def test_704_5q_plus_and_minus_counters_cancel(resolve: Resolve) -> None:
    """704.5q: three +1/+1 and one -1/-1 counters become two +1/+1 counters: 4/4 for a 2/2."""
    out = resolve(
        PLAYERS
        + creature("bear", "A", 2, 2, counters={"+1/+1": 3, "-1/-1": 1})
        + combat({"bear": "B"})
    )
    bear = out["creatures"]["bear"]
    assert bear["counters"] == {"+1/+1": 2}
    assert (bear["power"], bear["toughness"]) == (4, 4)
    assert out["players"]["B"]["life"] == 16


def test_704_5q_counters_event_then_cancel(resolve: Resolve) -> None:
    """A `counters` event puts two -1/-1 counters on a 2/2 with one +1/+1 counter (3/3 ->
    1/1); 704.5q then leaves one -1/-1 counter: 1/1, dealing 1."""
    out = resolve(
        PLAYERS
        + creature("bear", "A", 2, 2, counters={"+1/+1": 1})
        + combat({"bear": "B"})
        + event("declare-blockers", "counters", target="bear", counters={"-1/-1": 2})
    )
    assert out["creatures"]["bear"]["counters"] == {"-1/-1": 1}
    assert out["players"]["B"]["life"] == 19


# -- wither (702.80) -------------------------------------------------------------------------


def test_702_80_wither_damage_is_minus_counters(resolve: Resolve) -> None:
    """A 2/2 wither attacker blocked by a 3/3: the 3/3 gets two -1/-1 counters (1/1, no
    damage marked) and survives; the attacker takes 3 and dies. The damage is listed."""
    out = resolve(
        PLAYERS
        + creature("rot", "A", 2, 2, "wither")
        + creature("ogre", "B", 3, 3)
        + combat({"rot": "B"}, {"ogre": "rot"})
    )
    assert dealt(out, "regular") == {("rot", "ogre", 2), ("ogre", "rot", 3)}
    ogre = out["creatures"]["ogre"]
    assert (ogre["alive"], ogre["damage"], ogre["counters"]) == (True, 0, {"-1/-1": 2})
    assert (ogre["power"], ogre["toughness"]) == (1, 1)
    assert step(out, "regular")["died"] == ["rot"]


def test_702_80_wither_counters_kill_at_0_toughness(resolve: Resolve) -> None:
    """A 3/3 wither attacker blocked by a 2/2: three -1/-1 counters make it -1/-1: it dies
    (704.5f), with its counters as they were."""
    out = resolve(
        PLAYERS
        + creature("rot", "A", 3, 3, "wither")
        + creature("bear", "B", 2, 2)
        + combat({"rot": "B"}, {"bear": "rot"})
    )
    assert out["creatures"]["bear"]["alive"] is False
    assert out["creatures"]["bear"]["counters"] == {"-1/-1": 3}
    assert out["creatures"]["rot"]["damage"] == 2


def test_702_80_wither_damage_to_a_player_is_life_loss(resolve: Resolve) -> None:
    """Wither changes only damage to creatures: an unblocked 2/2 makes B lose 2 life."""
    out = resolve(PLAYERS + creature("rot", "A", 2, 2, "wither") + combat({"rot": "B"}))
    assert out["players"]["B"] == {"life": 18, "lost": False, "poison": 0}


def test_702_80_wither_with_trample_counts_marked_damage(resolve: Resolve) -> None:
    """Lethal for trample is toughness minus damage marked: a 3/3 blocker with 1 damage needs
    2; the other 2 of a 4/4 wither trampler go to B. The blocker is then 1/1 with 1 damage
    marked: destroyed (704.5g)."""
    out = resolve(
        PLAYERS
        + creature("rot", "A", 4, 4, "wither", "trample")
        + creature("ogre", "B", 3, 3, damage=1)
        + combat({"rot": "B"}, {"ogre": "rot"})
    )
    assert dealt(out, "regular") == {("rot", "ogre", 2), ("rot", "B", 2), ("ogre", "rot", 3)}
    assert out["creatures"]["ogre"]["alive"] is False
    assert out["creatures"]["ogre"]["counters"] == {"-1/-1": 2}
    assert out["players"]["B"]["life"] == 18


def test_702_80_wither_and_deathtouch_destroy(resolve: Resolve) -> None:
    """Damage as counters is still damage: a 1/1 with wither and deathtouch destroys a 5/5
    (704.5h) that it gave one -1/-1 counter."""
    out = resolve(
        PLAYERS
        + creature("rot", "A", 1, 1, "wither", "deathtouch")
        + creature("wurm", "B", 5, 5)
        + combat({"rot": "B"}, {"wurm": "rot"})
    )
    assert set(step(out, "regular")["died"]) == {"rot", "wurm"}
    assert out["creatures"]["wurm"]["counters"] == {"-1/-1": 1}
    assert out["creatures"]["wurm"]["damage"] == 0


def test_702_80_counters_lower_toughness_for_a_later_step(resolve: Resolve) -> None:
    """A 1/1 wither double striker blocked by a 3/3: one counter in the first-strike step
    (2/2), one in the regular step (1/1); the blocker, now 2/2 when it strikes, deals 2 and
    kills the attacker, and survives as a 1/1."""
    out = resolve(
        PLAYERS
        + creature("rot", "A", 1, 1, "wither", "double strike")
        + creature("ogre", "B", 3, 3)
        + combat({"rot": "B"}, {"ogre": "rot"})
    )
    assert dealt(out, "first-strike") == {("rot", "ogre", 1)}
    assert dealt(out, "regular") == {("rot", "ogre", 1), ("ogre", "rot", 2)}
    ogre = out["creatures"]["ogre"]
    assert (ogre["alive"], ogre["toughness"], ogre["counters"]) == (True, 1, {"-1/-1": 2})


# -- infect (702.90) -------------------------------------------------------------------------


def test_702_90_infect_damage_to_a_player_is_poison(resolve: Resolve) -> None:
    """An unblocked 3/3 with infect gives B three poison counters and no life loss."""
    out = resolve(PLAYERS + creature("ooze", "A", 3, 3, "infect") + combat({"ooze": "B"}))
    assert dealt(out, "regular") == {("ooze", "B", 3)}
    assert out["players"]["B"] == {"life": 20, "lost": False, "poison": 3}


def test_702_90_infect_to_ten_poison_loses(resolve: Resolve) -> None:
    """704.5c after infect damage: 8 + 2 poison counters, B loses."""
    out = resolve(
        poisoned_players(8) + creature("ooze", "A", 2, 2, "infect") + combat({"ooze": "B"})
    )
    assert out["players"]["B"] == {"life": 20, "lost": True, "poison": 10}


def test_702_90_infect_damage_to_a_creature_is_minus_counters(resolve: Resolve) -> None:
    """A blocking 2/2 with infect gives the 3/3 attacker two -1/-1 counters: 1/1, no damage."""
    out = resolve(
        PLAYERS
        + creature("ogre", "A", 3, 3)
        + creature("ooze", "B", 2, 2, "infect")
        + combat({"ogre": "B"}, {"ooze": "ogre"})
    )
    ogre = out["creatures"]["ogre"]
    assert (ogre["alive"], ogre["damage"], ogre["counters"]) == (True, 0, {"-1/-1": 2})
    assert out["creatures"]["ooze"]["alive"] is False


def test_702_90_infect_with_lifelink_gains_life(resolve: Resolve) -> None:
    """Infect damage is still damage dealt: lifelink gains A 2 life; B gets 2 poison."""
    out = resolve(
        PLAYERS + creature("ooze", "A", 2, 2, "infect", "lifelink") + combat({"ooze": "B"})
    )
    assert out["players"]["A"]["life"] == 22
    assert out["players"]["B"] == {"life": 20, "lost": False, "poison": 2}


def test_702_90_infect_is_unavailable_without_poison_counters() -> None:
    """Without the poison plugin, infect (and toxic) can't be used: an input error says why."""
    registry = bundled_registry(leave_out=("poison",))
    assert "infect" not in registry.keywords and "toxic" not in registry.keywords
    text = PLAYERS + creature("ooze", "A", 2, 2, "infect") + combat({"ooze": "B"})
    with pytest.raises(InputError) as info:
        parse_scenario(tomllib.loads(text), registry, "test.toml")
    assert "player state 'poison', which no loaded plugin declares" in str(info.value)


def test_702_80_wither_is_unavailable_without_minus_counters() -> None:
    """Without the -1/-1 counter kind, wither is unavailable, naming the missing kind."""
    registry = bundled_registry(leave_out=("pt_counters",))
    assert "counters of kind '-1/-1'" in registry.unavailable["wither"]


# -- toxic (702.164) -------------------------------------------------------------------------


def test_702_164_toxic_adds_poison_to_combat_damage(resolve: Resolve) -> None:
    """An unblocked 2/2 with toxic 1: B loses 2 life and gets 1 poison counter."""
    out = resolve(PLAYERS + creature("rat", "A", 2, 2, "toxic 1") + combat({"rat": "B"}))
    assert out["players"]["B"] == {"life": 18, "lost": False, "poison": 1}


def test_702_164c_toxic_values_add_up(resolve: Resolve) -> None:
    """702.164c: toxic 1 and toxic 2 give 3 poison counters per combat damage."""
    out = resolve(PLAYERS + creature("rat", "A", 2, 2, "toxic 1", "toxic 2") + combat({"rat": "B"}))
    assert out["players"]["B"]["poison"] == 3


def test_702_164_toxic_with_infect(resolve: Resolve) -> None:
    """With infect, a 2/2 with toxic 1 gives 2 + 1 poison counters and no life loss."""
    out = resolve(PLAYERS + creature("rat", "A", 2, 2, "infect", "toxic 1") + combat({"rat": "B"}))
    assert out["players"]["B"] == {"life": 20, "lost": False, "poison": 3}


def test_702_164_toxic_needs_damage_to_the_player(resolve: Resolve) -> None:
    """A blocked toxic creature deals no damage to the player: no poison counters."""
    out = resolve(
        PLAYERS
        + creature("rat", "A", 2, 2, "toxic 3")
        + creature("bear", "B", 2, 2)
        + combat({"rat": "B"}, {"bear": "rat"})
    )
    assert out["players"]["B"]["poison"] == 0


def test_702_164_toxic_each_combat_damage_step(resolve: Resolve) -> None:
    """A double striker with toxic 2 deals combat damage twice: 4 poison counters."""
    out = resolve(
        PLAYERS + creature("rat", "A", 1, 1, "toxic 2", "double strike") + combat({"rat": "B"})
    )
    assert out["players"]["B"] == {"life": 18, "lost": False, "poison": 4}


def test_702_164_toxic_with_a_number_is_unavailable_without_poison() -> None:
    """A keyword written with its parameter (`toxic 2`) gets the reason it is unavailable."""
    registry = bundled_registry(leave_out=("poison",))
    text = PLAYERS + creature("rat", "A", 2, 2, "toxic 2") + combat({"rat": "B"})
    with pytest.raises(InputError) as info:
        parse_scenario(tomllib.loads(text), registry, "test.toml")
    assert (
        "keyword 'toxic' (plugin 'ecs_combat_keywords.toxic') is unavailable: it requires"
        in str(info.value)
    )


def test_the_batched_engine_answers_keywords_with_a_number(registry: Registry) -> None:
    """The batched engine models keyword parameters (`toxic 2`): it answers, never refuses."""
    text = PLAYERS + creature("rat", "A", 2, 2, "toxic 2") + combat({"rat": "B"})
    scenario = parse_scenario(tomllib.loads(text), registry, "test.toml")
    (result,) = BatchedEngine(registry).resolve_many([scenario])
    assert result.to_json()["players"]["B"]["poison"] == 2


def test_readable_account_shows_poison_and_why_a_player_lost(registry: Registry) -> None:
    """The account's player table has a poison column, and says why a poisoned player lost."""
    text = poisoned_players(8) + creature("ooze", "A", 2, 2, "infect") + combat({"ooze": "B"})
    scenario = parse_scenario(tomllib.loads(text), registry, "test.toml")
    buffer = io.StringIO()
    render(scenario, ReferenceEngine(registry).resolve(scenario), Console(file=buffer, width=200))
    account = buffer.getvalue()
    assert "player B has 10 or more poison counters and loses (704.5c)" in account
    assert re.search(r"player\s+life\s+lost\s+poison", account)
    assert re.search(r"B\s+20\s+yes\s+10", account)


def test_702_80_wither_from_two_sources_adds_up(resolve: Resolve) -> None:
    """A 0/5 wall blocking two 2/2 wither attackers gets 2 + 2 -1/-1 counters: -4/1, alive."""
    out = resolve(
        PLAYERS
        + creature("rot", "A", 2, 2, "wither")
        + creature("blight", "A", 2, 2, "wither")
        + creature("wall", "B", 0, 5)
        + combat({"rot": "B", "blight": "B"}, {"wall": ["rot", "blight"]})
    )
    wall = out["creatures"]["wall"]
    assert (wall["alive"], wall["damage"], wall["counters"]) == (True, 0, {"-1/-1": 4})
    assert (wall["power"], wall["toughness"]) == (-4, 1)


def test_each_mechanism_is_its_own_plugin() -> None:
    """Wither, infect and toxic are keywords of plugins named like them; poison counters and
    the +1/+1 and -1/-1 counters come from the poison and pt_counters plugins."""
    registry = load_registry(autoload=True)
    for name in ("wither", "infect", "toxic"):
        assert registry.keyword_plugin[name] == name
    assert registry.keywords["toxic"].parameter == "number"
    assert "poison" in registry.state_fields("player")
    assert {"+1/+1", "-1/-1"} <= registry.counter_kinds.keys()
    contributed = {p.name: p for p in registry.plugins}
    assert contributed["poison"].state == ("player.poison",)
