"""RULES 13's keywords as bundled plugins, on both engines, with outcomes derived by hand:
daunt (509.1b), battalion +X/+Y (207.2c), regeneration (701.19, the `regenerate` event) and
annihilator N (702.86, the top-level `sacrifices` key)."""

from __future__ import annotations

import tomllib

import pytest
from conftest import Resolve
from scenario_text import combat, creature, event

from ecs_combat import InputError, Registry, parse_scenario

PLAYERS = "[players.A]\n[players.B]\n"


def error_of(text: str, registry: Registry) -> InputError:
    with pytest.raises(InputError) as caught:
        parse_scenario(tomllib.loads(text), registry, "t.toml")
    return caught.value


# -- daunt (509.1b) ----------------------------------------------------------------------------


def test_509_1b_daunt_a_blocker_with_power_2_may_not_block(registry: Registry) -> None:
    err = error_of(
        PLAYERS
        + creature("brute", "A", 3, 3, "daunt")
        + creature("bear", "B", 2, 2)
        + combat({"brute": "B"}, {"bear": "brute"}),
        registry,
    )
    assert err.path == "combat.blockers.bear"
    assert "'brute' has daunt and can't be blocked by creatures with power 2 or less" in str(err)


def test_509_1b_daunt_power_3_blocks_counters_included(resolve: Resolve) -> None:
    """A 2/2 with a +1/+1 counter has power 3 as blockers are declared: it blocks the 3/3
    daunt attacker; each deals 3 to the other, both die; B loses nothing."""
    out = resolve(
        PLAYERS
        + creature("brute", "A", 3, 3, "daunt")
        + creature("bear", "B", 2, 2, counters={"+1/+1": 1})
        + combat({"brute": "B"}, {"bear": "brute"})
    )
    assert out["steps"][0]["died"] == ["brute", "bear"]
    assert out["players"]["B"]["life"] == 20


# -- battalion (207.2c) ------------------------------------------------------------------------


def soldiers(n: int, *keywords: str) -> str:
    text = creature("captain", "A", 1, 1, *keywords)
    for i in range(1, n):
        text += creature(f"s{i}", "A", 1, 1)
    return text


def test_battalion_three_attackers_pump_it(resolve: Resolve) -> None:
    """The captain and two others attack: +2/+1 makes it 3/2; unblocked, B takes 3 + 1 + 1."""
    out = resolve(
        PLAYERS + soldiers(3, "battalion +2/+1") + combat({"captain": "B", "s1": "B", "s2": "B"})
    )
    assert out["players"]["B"]["life"] == 15
    assert out["creatures"]["captain"] == {
        "alive": True, "damage": 0, "power": 3, "toughness": 2, "counters": {}
    }  # fmt: skip


def test_battalion_two_attackers_do_not_trigger_it(resolve: Resolve) -> None:
    """It and only one other creature attack: no trigger; B takes 1 + 1. A third creature
    that stays home doesn't count."""
    out = resolve(PLAYERS + soldiers(3, "battalion +2/+1") + combat({"captain": "B", "s1": "B"}))
    assert out["players"]["B"]["life"] == 18
    assert out["creatures"]["captain"]["power"] == 1


def test_battalion_each_instance_triggers(resolve: Resolve) -> None:
    """Two instances (113.2c), +1/+0 and +0/+2: a 1/1 becomes 2/3 and survives a 2/2 blocker,
    which it kills."""
    out = resolve(
        PLAYERS
        + soldiers(3, "battalion +1/+0", "battalion +0/+2")
        + creature("bear", "B", 2, 2)
        + combat({"captain": "B", "s1": "B", "s2": "B"}, {"bear": "captain"})
    )
    captain = out["creatures"]["captain"]
    assert (captain["alive"], captain["power"], captain["toughness"]) == (True, 2, 3)
    assert out["creatures"]["bear"]["alive"] is False


def test_battalion_takes_a_bonus(registry: Registry) -> None:
    text = PLAYERS + creature("captain", "A", 1, 1, "battalion 2")
    err = error_of(text, registry)
    assert err.path == "creatures.captain.keywords[0]"
    assert "'battalion' takes +X/+Y (such as +1/+0), not '2'" in str(err)
    err = error_of(PLAYERS + creature("captain", "A", 1, 1, "battalion"), registry)
    assert "write it like 'battalion +1/+1'" in str(err)


# -- regeneration (701.19) ---------------------------------------------------------------------


def shielded(target: str, at: str = "declare-blockers") -> str:
    return event(at, "regenerate", target=target)


def test_701_19_lethal_damage_is_replaced(resolve: Resolve) -> None:
    """The 2/2 blocker with a shield is dealt 3 (lethal, 704.5g): instead it is tapped, its
    damage removed and it leaves combat; it is not in `died`; the ogre took its 2."""
    out = resolve(
        PLAYERS
        + creature("ogre", "A", 3, 3)
        + creature("troll", "B", 2, 2)
        + combat({"ogre": "B"}, {"troll": "ogre"})
        + shielded("troll")
    )
    assert out["steps"][0]["died"] == []
    assert out["creatures"]["troll"] == {
        "alive": True, "damage": 0, "power": 2, "toughness": 2, "counters": {}
    }  # fmt: skip
    assert out["creatures"]["ogre"]["damage"] == 2


def test_701_19c_a_regenerated_creature_is_removed_from_combat(resolve: Resolve) -> None:
    """The first striker deals 3 to the shielded 2/2 attacker first: it regenerates and is
    removed from combat, so it deals no regular damage (the wall ends with 0 damage)."""
    out = resolve(
        PLAYERS
        + creature("troll", "A", 2, 2)
        + creature("wall", "B", 3, 3, "first strike")
        + combat({"troll": "B"}, {"wall": "troll"})
        + shielded("troll")
    )
    assert [s["name"] for s in out["steps"]] == ["first-strike", "regular"]
    assert out["steps"][1]["damage"] == []
    assert out["creatures"]["troll"]["alive"] is True
    assert out["creatures"]["wall"]["damage"] == 0


def test_701_19_not_toughness_0(resolve: Resolve) -> None:
    """Two -1/-1 counters make the shielded 2/2 a 0/0: it is put into the graveyard (704.5f),
    which is not destruction; the shield doesn't save it."""
    out = resolve(
        PLAYERS
        + creature("ogre", "A", 3, 3)
        + creature("troll", "B", 2, 2)
        + combat({"ogre": "B"})
        + shielded("troll")
        + event("declare-blockers", "counters", target="troll", counters={"-1/-1": 2})
    )
    assert out["creatures"]["troll"]["alive"] is False


def test_701_19_one_shield_one_destruction(resolve: Resolve) -> None:
    """One shield, two destroy events after the regular step: the first is replaced, the
    second destroys the troll."""
    after = "after regular"
    out = resolve(
        PLAYERS
        + creature("ogre", "A", 3, 3)
        + creature("troll", "B", 2, 2)
        + combat({"ogre": "B"})
        + shielded("troll")
        + event(after, "destroy", target="troll")
    )
    assert out["creatures"]["troll"]["alive"] is True
    out = resolve(
        PLAYERS
        + creature("ogre", "A", 3, 3)
        + creature("troll", "B", 2, 2)
        + combat({"ogre": "B"})
        + shielded("troll")
        + event(after, "destroy", target="troll")
        + event(after, "destroy", target="troll")
    )
    assert out["creatures"]["troll"]["alive"] is False


def test_702_12_indestructible_keeps_its_shield(resolve: Resolve) -> None:
    """Indestructible runs first (702.12b): the blocker isn't destroyed, so its shield isn't
    used: it keeps its 3 damage (not removed)."""
    out = resolve(
        PLAYERS
        + creature("ogre", "A", 3, 3)
        + creature("troll", "B", 2, 2, "indestructible")
        + combat({"ogre": "B"}, {"troll": "ogre"})
        + shielded("troll")
    )
    assert out["creatures"]["troll"]["alive"] is True
    assert out["creatures"]["troll"]["damage"] == 3


def test_regenerate_names_a_creature(registry: Registry) -> None:
    err = error_of(
        PLAYERS + creature("ogre", "A", 3, 3) + combat({"ogre": "B"}) + shielded("B"), registry
    )
    assert err.path == "events[0].target"
    err = error_of(
        PLAYERS
        + creature("ogre", "A", 3, 3)
        + combat({"ogre": "B"})
        + event("declare-blockers", "regenerat", target="ogre"),
        registry,
    )
    assert "did you mean 'regenerate'?" in str(err)


# -- annihilator (702.86) ----------------------------------------------------------------------


def eldrazi(n: int = 1) -> str:
    return creature("eldrazi", "A", 5, 5, f"annihilator {n}")


def alive(out: dict[str, object], *ids: str) -> list[bool]:
    creatures = out["creatures"]
    assert isinstance(creatures, dict)
    return [creatures[c]["alive"] for c in ids]


def test_702_86_the_least_valuable_is_sacrificed(resolve: Resolve) -> None:
    """No `sacrifices`: B sacrifices its least valuable creature (RULES 9: 1 + 1 < 3 + 3);
    the eldrazi is unblocked: B at 15."""
    out = resolve(
        PLAYERS
        + eldrazi()
        + creature("cub", "B", 1, 1)
        + creature("bear", "B", 3, 3)
        + combat({"eldrazi": "B"})
    )
    assert alive(out, "cub", "bear") == [False, True]
    assert out["players"]["B"]["life"] == 15
    assert out["steps"][0]["died"] == []  # the trigger's, not a step's


def test_702_86_ties_take_the_last_listed_and_value_counts(resolve: Resolve) -> None:
    """Two 1/1s: the last listed goes. With `value = 10` on the first 1/1 and a 2/2 between,
    the 2/2 (value 4) goes before the valued one; the last 1/1 (2) first."""
    out = resolve(
        PLAYERS
        + eldrazi()
        + creature("c1", "B", 1, 1)
        + creature("c2", "B", 1, 1)
        + combat({"eldrazi": "B"})
    )
    assert alive(out, "c1", "c2") == [True, False]
    out = resolve(
        PLAYERS
        + eldrazi(2)
        + creature("c1", "B", 1, 1, value=10)
        + creature("bear", "B", 2, 2)
        + creature("c2", "B", 1, 1)
        + combat({"eldrazi": "B"})
    )
    assert alive(out, "c1", "bear", "c2") == [True, False, False]


def test_702_86_the_sacrifices_key_names_them(resolve: Resolve) -> None:
    """`sacrifices` names the bear for the first of two annihilator 1 triggers; the second
    takes the least valuable of the rest (the cub, not the 4/4)."""
    out = resolve(
        PLAYERS
        + creature("eldrazi", "A", 5, 5, "annihilator 1", "annihilator 1")
        + creature("cub", "B", 1, 1)
        + creature("bear", "B", 3, 3)
        + creature("wurm", "B", 4, 4)
        + combat({"eldrazi": "B"})
        + '[sacrifices]\nB = ["bear"]\n'
    )
    assert alive(out, "cub", "bear", "wurm") == [False, False, True]


def test_702_86_named_ids_go_to_the_first_triggers(resolve: Resolve) -> None:
    """annihilator 1 twice with `sacrifices = ["wurm"]`: ids are taken in trigger order, so
    the first trigger takes the wurm and the second the least valuable left, the cub."""
    out = resolve(
        PLAYERS
        + creature("eldrazi", "A", 5, 5, "annihilator 1", "annihilator 1")
        + creature("cub", "B", 1, 1)
        + creature("wurm", "B", 4, 4)
        + creature("bear", "B", 3, 3)
        + combat({"eldrazi": "B"})
        + '[sacrifices]\nB = ["wurm"]\n'
    )
    assert alive(out, "cub", "wurm", "bear") == [False, False, True]


def test_sacrifices_key_errors(registry: Registry) -> None:
    base = (
        PLAYERS
        + eldrazi()
        + creature("cub", "B", 1, 1)
        + creature("bear", "B", 3, 3)
        + combat({"eldrazi": "B"})
    )
    err = error_of(base + '[sacrifices]\nB = ["eldrazi"]\n', registry)
    assert (err.path, str(err).split(": ")[-1]) == (
        "sacrifices.B",
        "'eldrazi' is controlled by 'A', not 'B'",
    )
    err = error_of(base + '[sacrifices]\nB = ["cub", "bear"]\n', registry)
    assert err.path == "sacrifices.B"
    assert "2 creatures named, but the triggers that make 'B' sacrifice take 1" in str(err)
    err = error_of(base + '[sacrifices]\nB = ["cubb"]\n', registry)
    assert "unknown creature 'cubb'; did you mean 'cub'?" in str(err)
    err = error_of(base + '[sacrifices]\nC = ["cub"]\n', registry)
    assert err.path == "sacrifices.C"


# -- myriad (702.116) and tokens (111.8, 707.2) -------------------------------------------------


def hydra(*keywords: str, **extra: object) -> str:
    return creature("hydra", "A", 3, 3, "myriad", *keywords, **extra)


def test_702_116_a_token_attacks_each_other_opponent(resolve: Resolve) -> None:
    """Four players; the hydra attacks B: token copies attack C and D, each dealing 3 (the
    hydra's printed 3/3), tapped and attacking as they enter; B blocks the hydra with a wall.
    At end of combat the tokens are exiled: listed with `alive: false`."""
    out = resolve(
        "[players.A]\n[players.B]\n[players.C]\n[players.D]\n"
        + hydra()
        + creature("wall", "B", 0, 4)
        + combat({"hydra": "B"}, {"wall": "hydra"})
    )
    lives = {p: v["life"] for p, v in out["players"].items()}
    assert lives == {"A": 20, "B": 20, "C": 17, "D": 17}
    assert (out["creatures"]["hydra~C"]["alive"], out["creatures"]["hydra~D"]["alive"]) == (
        False,
        False,
    )
    assert ("hydra~C", "C", 3) in {
        (d["source"], d["target"], d["amount"]) for d in out["steps"][0]["damage"]
    }


def test_702_116_tokens_are_listed_before_creatures_events_bring(resolve: Resolve) -> None:
    """The tokens enter as attackers are declared (508.2: the attack trigger), before a
    creature an `enter` event brings at declare-blockers: both engines list the hydra, its
    token, then the newcomer, in the creatures and in the step's damage (3 players: one
    token, attacking C; the newcomer attacks C too). The batched engine used to list the
    newcomer's row before the token's."""
    out = resolve(
        "[players.A]\n[players.B]\n[players.C]\n"
        + hydra()
        + combat({"hydra": "B"})
        + event(
            "declare-blockers",
            "enter",
            attacking="C",
            creature={"id": "newbie", "controller": "A", "power": 1, "toughness": 1},
        )
    )
    assert list(out["creatures"]) == ["hydra", "hydra~C", "newbie"]
    assert [(d["source"], d["target"], d["amount"]) for d in out["steps"][0]["damage"]] == [
        ("hydra", "B", 3),
        ("hydra~C", "C", 3),
        ("newbie", "C", 1),
    ]
    assert {p: v["life"] for p, v in out["players"].items()} == {"A": 20, "B": 17, "C": 16}


def test_702_116_two_players_no_token(resolve: Resolve) -> None:
    """With two players there is no other opponent: no token, none listed."""
    out = resolve(PLAYERS + hydra() + combat({"hydra": "B"}))
    assert sorted(out["creatures"]) == ["hydra"]
    assert out["players"]["B"]["life"] == 17


def test_707_2_the_copy_is_of_printed_values(resolve: Resolve) -> None:
    """707.2: the copy has the hydra's printed values and keywords, not its counters: the
    hydra with a +1/+1 counter deals 4 to B, its token 3 to C; the token has first strike
    too, so it deals its damage in the first-strike step."""
    out = resolve(
        "[players.A]\n[players.B]\n[players.C]\n"
        + hydra("first strike", counters={"+1/+1": 1})
        + combat({"hydra": "B"})
    )
    assert out["players"]["B"]["life"] == 16
    assert out["players"]["C"]["life"] == 17
    assert out["creatures"]["hydra~C"]["power"] == 3
    first = {(d["source"], d["target"], d["amount"]) for d in out["steps"][0]["damage"]}
    assert (out["steps"][0]["name"], first) == (
        "first-strike",
        {("hydra", "B", 4), ("hydra~C", "C", 3)},
    )


def test_111_8_a_token_that_dies_does_not_return(resolve: Resolve) -> None:
    """The copy of a persist hydra has persist; dealt lethal damage by an event after the
    regular step it dies and doesn't return (111.8): not alive (the hydra itself would come
    back). An event may name a token copy; before it is made, or if it never is, the event
    does nothing."""
    out = resolve(
        "[players.A]\n[players.B]\n[players.C]\n"
        + hydra("persist")
        + combat({"hydra": "B"})
        + event("after regular", "damage", target="hydra~C", amount=3)
    )
    token = out["creatures"]["hydra~C"]
    # as it died: had it returned (a new object, 400.7), it would have no damage and a -1/-1
    # counter before being exiled at end of combat
    assert (token["alive"], token["damage"], token["counters"]) == (False, 3, {})
    assert out["players"]["C"]["life"] == 17
    out = resolve(
        "[players.A]\n[players.B]\n[players.C]\n"
        + hydra("persist")
        + creature("bear", "A", 2, 2)
        + combat({"bear": "B"})
        + event("after regular", "damage", target="hydra~C", amount=3)
    )
    assert "hydra~C" not in out["creatures"]
