"""The combat keywords of RULES.md section 4 and keyword counters (122.1b): one test per rule
consequence, citing the rule. Illegal attacks and blocks through the command line are in
test_legality.py; Hat Trick is in test_hats.py."""

from __future__ import annotations

import io
import tomllib
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest
from conftest import Resolve, bundled_registry, dealt, step, step_names, text_resolver
from rich.console import Console
from scenario_text import combat, creature, divide, event

from ecs_combat import Card, InputError, TargetRule, hookimpl, load_registry, parse_scenario
from ecs_combat.console.account import render
from ecs_combat.plugin.registry import Registry
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.rules.result import CombatResult

if TYPE_CHECKING:  # the card-effect interface, for annotations only
    from ecs_combat.plugin.views import EffectTarget

PLAYERS = "[players.A]\n[players.B]\n"

#: The keywords this file covers, and which of them may be keyword counters (122.1b).
KEYWORDS = {
    "deathtouch", "indestructible", "lifelink", "trample", "flying", "reach", "menace",
    "shadow", "defender", "decayed", "vigilance", "haste", "exalted", "hexproof",
}  # fmt: skip
COUNTER_LIST_122_1B = {
    "flying", "first strike", "double strike", "deathtouch", "decayed", "exalted", "haste",
    "hexproof", "indestructible", "lifelink", "menace", "reach", "shadow", "trample", "vigilance",
}  # fmt: skip


Result = Callable[[str], CombatResult]


@pytest.fixture(scope="module")
def result(registry: Registry) -> Result:
    """Resolve a TOML scenario with the reference engine; return the full CombatResult."""
    engine = ReferenceEngine(registry)

    def run(text: str) -> CombatResult:
        return engine.resolve(parse_scenario(tomllib.loads(text), registry, "test.toml"))

    return run


def invalid(resolve: Resolve, text: str) -> InputError:
    """The InputError a scenario raises, as it is loaded or resolved."""
    with pytest.raises(InputError) as info:
        resolve(text)
    return info.value


def readable(registry: Registry, text: str) -> str:
    """The readable account of a scenario, as plain text."""
    scenario = parse_scenario(tomllib.loads(text), registry, "test.toml")
    buffer = io.StringIO()
    render(scenario, ReferenceEngine(registry).resolve(scenario), Console(file=buffer, width=200))
    return buffer.getvalue()


# -- the plugins ----------------------------------------------------------------------------


def test_every_keyword_of_this_issue_is_a_loaded_plugin() -> None:
    """Each keyword comes from its own plugin, registered through an entry point named like
    the keyword (as a user's installation finds them)."""
    registry = load_registry(autoload=True)
    for name in KEYWORDS:
        assert registry.keyword_plugin[name] == name


def test_122_1b_exactly_the_listed_keywords_may_be_counters(registry: Registry) -> None:
    """122.1b: a scenario may put a counter of exactly the listed keywords on a creature."""
    accepted = set()
    for name in sorted(registry.keywords):
        text = PLAYERS + creature("bear", "A", 2, 2, counters={name: 1}) + combat({})
        try:
            parse_scenario(tomllib.loads(text), registry, "counters.toml")
        except InputError:
            continue
        accepted.add(name)
    assert accepted == COUNTER_LIST_122_1B


# -- deathtouch (702.2) ---------------------------------------------------------------------


def test_702_2b_any_damage_from_deathtouch_destroys(resolve: Resolve) -> None:
    """702.2b: 1 damage from a deathtouch source destroys a 5/5 (704.5h)."""
    out = resolve(
        PLAYERS
        + creature("snake", "A", 1, 1, "deathtouch")
        + creature("wurm", "B", 5, 5)
        + combat({"snake": "B"}, {"wurm": "snake"})
    )
    assert set(step(out, "regular")["died"]) == {"snake", "wurm"}
    assert out["creatures"]["wurm"]["damage"] == 1


def test_702_2b_deathtouch_works_for_blockers(resolve: Resolve) -> None:
    """702.2b: a blocking deathtouch creature destroys the attacker it damages."""
    out = resolve(
        PLAYERS
        + creature("wurm", "A", 6, 6)
        + creature("snake", "B", 1, 1, "deathtouch")
        + combat({"wurm": "B"}, {"snake": "wurm"})
    )
    assert set(step(out, "regular")["died"]) == {"snake", "wurm"}


def test_510_1a_deathtouch_with_0_power_destroys_nothing(resolve: Resolve) -> None:
    """510.1a / 702.2b: a 0-power deathtouch creature assigns no damage, so destroys nothing."""
    out = resolve(
        PLAYERS
        + creature("snake", "A", 0, 1, "deathtouch")
        + creature("bear", "B", 2, 2)
        + combat({"snake": "B"}, {"bear": "snake"})
    )
    assert dealt(out, "regular") == {("bear", "snake", 2)}
    assert out["creatures"]["bear"]["alive"] is True


def test_702_2c_one_is_lethal_in_the_default_division(resolve: Resolve) -> None:
    """702.2c: dividing among blockers, 1 is lethal; the rest goes to the first blocker."""
    out = resolve(
        PLAYERS
        + creature("snake", "A", 3, 3, "deathtouch")
        + creature("ox", "B", 0, 4)
        + creature("yak", "B", 0, 4)
        + combat({"snake": "B"}, {"ox": "snake", "yak": "snake"})
    )
    assert dealt(out, "regular") == {("snake", "ox", 2), ("snake", "yak", 1)}
    assert set(step(out, "regular")["died"]) == {"ox", "yak"}


def test_702_2c_deathtouch_and_trample_assign_1_per_blocker(resolve: Resolve) -> None:
    """702.2c, 702.19b: with trample, 1 to each blocker is enough; the rest tramples over."""
    out = resolve(
        PLAYERS
        + creature("giant", "A", 6, 6, "deathtouch", "trample")
        + creature("ox", "B", 0, 4)
        + creature("yak", "B", 0, 4)
        + combat({"giant": "B"}, {"ox": "giant", "yak": "giant"})
    )
    assert dealt(out, "regular") == {("giant", "ox", 1), ("giant", "yak", 1), ("giant", "B", 4)}
    assert out["players"]["B"]["life"] == 16


def test_702_2c_no_lethal_needed_for_a_blocker_already_at_lethal(resolve: Resolve) -> None:
    """702.2c with 702.19b: a blocker already at lethal damage (indestructible) needs nothing."""
    out = resolve(
        PLAYERS
        + creature("giant", "A", 4, 4, "deathtouch", "trample")
        + creature("golem", "B", 0, 2, "indestructible", damage=2)
        + combat({"giant": "B"}, {"golem": "giant"})
    )
    assert dealt(out, "regular") == {("giant", "B", 4)}


def test_readable_account_explains_deathtouch(registry: Registry) -> None:
    """The readable account says "deathtouch: 1 is lethal" where it shapes the division."""
    text = readable(
        registry,
        PLAYERS
        + creature("snake", "A", 3, 3, "deathtouch")
        + creature("ox", "B", 0, 4)
        + creature("yak", "B", 0, 4)
        + combat({"snake": "B"}, {"ox": "snake", "yak": "snake"}),
    )
    assert "deathtouch: 1 is lethal" in text


# -- indestructible (702.12) ----------------------------------------------------------------


def test_702_12b_lethal_damage_does_not_destroy(resolve: Resolve) -> None:
    """702.12b: lethal damage stays marked but doesn't destroy it."""
    out = resolve(
        PLAYERS
        + creature("golem", "A", 1, 2, "indestructible")
        + creature("wurm", "B", 6, 6)
        + combat({"golem": "B"}, {"wurm": "golem"})
    )
    assert step(out, "regular")["died"] == []
    assert out["creatures"]["golem"] == {
        "alive": True,
        "damage": 6,
        "power": 1,
        "toughness": 2,
        "counters": {},
    }


def test_702_12b_deathtouch_does_not_destroy(resolve: Resolve) -> None:
    """702.12b / 704.5h: deathtouch damage doesn't destroy an indestructible creature."""
    out = resolve(
        PLAYERS
        + creature("golem", "A", 1, 5, "indestructible")
        + creature("snake", "B", 1, 1, "deathtouch")
        + combat({"golem": "B"}, {"snake": "golem"})
    )
    assert step(out, "regular")["died"] == ["snake"]
    assert out["creatures"]["golem"]["alive"] is True


def test_702_12b_destroy_event_does_nothing(resolve: Resolve) -> None:
    """702.12b: "destroy" doesn't destroy it."""
    out = resolve(
        PLAYERS
        + creature("golem", "A", 2, 2, "indestructible")
        + combat({"golem": "B"})
        + event("declare-blockers", "destroy", target="golem")
    )
    assert out["creatures"]["golem"]["alive"] is True
    assert dealt(out, "regular") == {("golem", "B", 2)}


def test_704_5f_indestructible_still_dies_to_toughness_0(resolve: Resolve) -> None:
    """702.12b / 704.5f: toughness 0 or less puts it into the graveyard anyway."""
    out = resolve(
        PLAYERS
        + creature("golem", "A", 2, 2, "indestructible")
        + combat({"golem": "B"})
        + event("declare-blockers", "pump", target="golem", toughness=-2)
    )
    assert out["creatures"]["golem"]["alive"] is False
    assert dealt(out, "regular") == set()


def test_704_5g_losing_indestructible_with_lethal_damage_dies(resolve: Resolve) -> None:
    """704.5g: once it loses indestructible, its marked lethal damage destroys it."""
    out = resolve(
        PLAYERS
        + creature("golem", "A", 3, 2, "indestructible", "first strike")
        + creature("wurm", "B", 6, 6)
        + combat({"golem": "B"}, {"wurm": "golem"})
        + event("after regular", "remove", target="golem", keywords=["indestructible"])
    )
    assert step(out, "regular")["died"] == []
    assert out["creatures"]["golem"]["alive"] is False


# -- lifelink (702.15) ----------------------------------------------------------------------


def test_702_15b_controller_gains_life_equal_to_damage(resolve: Resolve) -> None:
    """702.15b: 3 damage dealt, 3 life gained by its controller, one event."""
    out = resolve(PLAYERS + creature("cleric", "A", 3, 3, "lifelink") + combat({"cleric": "B"}))
    assert step(out, "regular")["life_gained"] == [{"player": "A", "source": "cleric", "amount": 3}]
    assert out["players"] == {
        "A": {"life": 23, "lost": False, "poison": 0},
        "B": {"life": 17, "lost": False, "poison": 0},
    }


def test_702_15b_life_gained_at_the_same_time_as_the_damage(resolve: Resolve) -> None:
    """510.2 / 702.15b: B at 3 takes 3 and gains 2 at once: 2 life, B doesn't lose."""
    out = resolve(
        "[players.A]\n[players.B]\nlife = 3\n"
        + creature("ogre", "A", 3, 3)
        + creature("bear", "A", 2, 4)
        + creature("cleric", "B", 2, 2, "lifelink")
        + combat({"ogre": "B", "bear": "B"}, {"cleric": "bear"})
    )
    assert step(out, "regular")["life_gained"] == [{"player": "B", "source": "cleric", "amount": 2}]
    assert out["players"]["B"] == {"life": 2, "lost": False, "poison": 0}


def test_702_15b_one_life_gain_event_per_source(resolve: Resolve) -> None:
    """702.15b: each lifelink source is its own event, with all the damage it dealt."""
    out = resolve(
        PLAYERS
        + creature("cleric", "A", 4, 4, "lifelink", "trample")
        + creature("monk", "A", 1, 1, "lifelink")
        + creature("ox", "B", 0, 2)
        + combat({"cleric": "B", "monk": "B"}, {"ox": "cleric"})
    )
    gained = step(out, "regular")["life_gained"]
    assert sorted((g["source"], g["amount"]) for g in gained) == [("cleric", 4), ("monk", 1)]
    assert out["players"]["A"]["life"] == 25


def test_702_15b_lifelink_gains_in_each_step_it_deals_damage(resolve: Resolve) -> None:
    """702.15b with 702.4b: double strike and lifelink gain life in both steps."""
    out = resolve(
        PLAYERS
        + creature("cleric", "A", 2, 2, "lifelink", "double strike")
        + combat({"cleric": "B"})
    )
    assert [len(s["life_gained"]) for s in out["steps"]] == [1, 1]
    assert out["players"]["A"]["life"] == 24


# -- trample (702.19) -----------------------------------------------------------------------


def test_702_19b_default_division_sends_the_excess_to_the_player(resolve: Resolve) -> None:
    """702.19b: lethal to the blocker, the rest to the player it attacks."""
    out = resolve(
        PLAYERS
        + creature("rhino", "A", 5, 5, "trample")
        + creature("bear", "B", 2, 2)
        + combat({"rhino": "B"}, {"bear": "rhino"})
    )
    assert dealt(out, "regular") == {("rhino", "bear", 2), ("rhino", "B", 3), ("bear", "rhino", 2)}


def test_510_1c_without_trample_the_excess_stays_on_the_blocker(resolve: Resolve) -> None:
    """510.1c: without trample, all the damage goes to the blockers."""
    out = resolve(
        PLAYERS
        + creature("rhino", "A", 5, 5)
        + creature("bear", "B", 2, 2)
        + combat({"rhino": "B"}, {"bear": "rhino"})
    )
    assert ("rhino", "bear", 5) in dealt(out, "regular")
    assert out["players"]["B"]["life"] == 20


def test_702_19b_lethal_counts_damage_already_marked(resolve: Resolve) -> None:
    """702.19b: a 1/3 blocker with 2 damage marked needs only 1 more."""
    out = resolve(
        PLAYERS
        + creature("rhino", "A", 5, 5, "trample")
        + creature("wall", "B", 0, 3, damage=2)
        + combat({"rhino": "B"}, {"wall": "rhino"})
    )
    assert dealt(out, "regular") == {("rhino", "wall", 1), ("rhino", "B", 4)}


def test_702_19d_no_blocker_left_all_damage_to_the_player(resolve: Resolve) -> None:
    """702.19d: blocked, but its blocker is gone: all of it to the player."""
    out = resolve(
        PLAYERS
        + creature("rhino", "A", 5, 5, "trample")
        + creature("bear", "B", 2, 2)
        + combat({"rhino": "B"}, {"bear": "rhino"})
        + event("declare-blockers", "destroy", target="bear")
    )
    assert dealt(out, "regular") == {("rhino", "B", 5)}


def test_510_1c_blocked_without_trample_and_no_blocker_left_deals_nothing(resolve: Resolve) -> None:
    """509.1h / 510.1c: still blocked, no blocker left and no trample: no damage."""
    out = resolve(
        PLAYERS
        + creature("rhino", "A", 5, 5)
        + creature("bear", "B", 2, 2)
        + combat({"rhino": "B"}, {"bear": "rhino"})
        + event("declare-blockers", "destroy", target="bear")
    )
    assert dealt(out, "regular") == set()


def test_702_19a_trample_does_nothing_for_a_blocker(resolve: Resolve) -> None:
    """702.19a: a blocking trampler deals all its damage to the attacker."""
    out = resolve(
        PLAYERS
        + creature("bear", "A", 2, 2)
        + creature("rhino", "B", 5, 5, "trample")
        + combat({"bear": "B"}, {"rhino": "bear"})
    )
    assert dealt(out, "regular") == {("bear", "rhino", 2), ("rhino", "bear", 5)}
    assert out["players"]["A"]["life"] == 20


def test_702_19b_explicit_division_with_lethal_to_every_blocker_is_legal(
    resolve: Resolve,
) -> None:
    """702.19b: lethal to the blocker, then as its controller chooses, the player included."""
    out = resolve(
        PLAYERS
        + creature("rhino", "A", 5, 5, "trample")
        + creature("wall", "B", 0, 3)
        + combat({"rhino": "B"}, {"wall": "rhino"})
        + divide("regular", "rhino", {"wall": 4, "B": 1})
    )
    assert dealt(out, "regular") == {("rhino", "wall", 4), ("rhino", "B", 1)}


def test_702_19b_explicit_division_short_of_lethal_is_an_input_error(resolve: Resolve) -> None:
    """702.19b: damage to the player before lethal to every blocker is illegal."""
    err = invalid(
        resolve,
        PLAYERS
        + creature("rhino", "A", 5, 5, "trample")
        + creature("wall", "B", 0, 3)
        + combat({"rhino": "B"}, {"wall": "rhino"})
        + divide("regular", "rhino", {"wall": 2, "B": 3}),
    )
    assert err.path == "combat.divide[0].amounts"
    assert "wall" in err.message
    assert "702.19" in err.message


def test_702_19b_explicit_division_counts_damage_other_creatures_assign(resolve: Resolve) -> None:
    """702.19b: the ox assigns 2 to the wall it shares, so the rhino needs only 2 more."""
    out = resolve(
        PLAYERS
        + creature("rhino", "A", 5, 5, "trample")
        + creature("ox", "A", 2, 2)
        + creature("wall", "B", 0, 4)
        + combat({"rhino": "B", "ox": "B"}, {"wall": ["rhino", "ox"]})
        + divide("regular", "rhino", {"wall": 2, "B": 3})
    )
    assert dealt(out, "regular") == {("rhino", "wall", 2), ("rhino", "B", 3), ("ox", "wall", 2)}
    assert step(out, "regular")["died"] == ["wall"]


def test_702_19b_explicit_division_counts_damage_already_marked(resolve: Resolve) -> None:
    """702.19b: a wall with 3 of 4 damage marked needs only 1."""
    out = resolve(
        PLAYERS
        + creature("rhino", "A", 5, 5, "trample")
        + creature("wall", "B", 0, 4, damage=3)
        + combat({"rhino": "B"}, {"wall": "rhino"})
        + divide("regular", "rhino", {"wall": 1, "B": 4})
    )
    assert dealt(out, "regular") == {("rhino", "wall", 1), ("rhino", "B", 4)}


def test_702_2c_explicit_trample_division_with_deathtouch_needs_1(resolve: Resolve) -> None:
    """702.2c / 702.19b: with deathtouch, 1 to each blocker is lethal."""
    out = resolve(
        PLAYERS
        + creature("giant", "A", 5, 5, "trample", "deathtouch")
        + creature("wall", "B", 0, 8)
        + combat({"giant": "B"}, {"wall": "giant"})
        + divide("regular", "giant", {"wall": 1, "B": 4})
    )
    assert dealt(out, "regular") == {("giant", "wall", 1), ("giant", "B", 4)}
    assert step(out, "regular")["died"] == ["wall"]


def test_702_2c_another_creatures_deathtouch_damage_counts_as_lethal(resolve: Resolve) -> None:
    """702.2c / 702.19b: the snake's 1 deathtouch damage to the shared wall is lethal already."""
    out = resolve(
        PLAYERS
        + creature("rhino", "A", 5, 5, "trample")
        + creature("snake", "A", 1, 1, "deathtouch")
        + creature("wall", "B", 0, 8)
        + combat({"rhino": "B", "snake": "B"}, {"wall": ["rhino", "snake"]})
        + divide("regular", "rhino", {"wall": 0, "B": 5})
    )
    assert dealt(out, "regular") == {("rhino", "B", 5), ("snake", "wall", 1)}


def test_702_19b_the_same_division_without_deathtouch_is_illegal(resolve: Resolve) -> None:
    """702.19b control: 1 damage from a creature without deathtouch is not lethal to an 0/8."""
    err = invalid(
        resolve,
        PLAYERS
        + creature("rhino", "A", 5, 5, "trample")
        + creature("snake", "A", 1, 1)
        + creature("wall", "B", 0, 8)
        + combat({"rhino": "B", "snake": "B"}, {"wall": ["rhino", "snake"]})
        + divide("regular", "rhino", {"wall": 0, "B": 5}),
    )
    assert "wall" in err.message


def test_readable_account_explains_trample(registry: Registry) -> None:
    """The readable account says where trample's excess went."""
    text = readable(
        registry,
        PLAYERS
        + creature("rhino", "A", 5, 5, "trample")
        + creature("bear", "B", 2, 2)
        + combat({"rhino": "B"}, {"bear": "rhino"}),
    )
    assert "trample: 3 to B after lethal to every blocker" in text


# -- evasion and block legality (702.9, 702.17, 702.111, 702.28, 702.3, 702.147) --------------


def blocked(resolve: Resolve, attacker: str, blocker: str, *blockers: str) -> InputError:
    """The error for blocking `attacker` with `blocker` (and more blockers of plain 2/2s)."""
    extra = "".join(creature(b, "B", 2, 2) for b in blockers)
    blocks: dict[str, str | list[str]] = {
        "blocker": "attacker",
        **dict.fromkeys(blockers, "attacker"),
    }
    return invalid(
        resolve, PLAYERS + attacker + blocker + extra + combat({"attacker": "B"}, blocks)
    )


def test_702_9b_flying_cant_be_blocked_by_a_creature_without_flying_or_reach(
    resolve: Resolve,
) -> None:
    """702.9b: a flyer can't be blocked by a ground creature."""
    err = blocked(
        resolve,
        creature("attacker", "A", 2, 2, "flying"),
        creature("blocker", "B", 2, 2),
    )
    assert err.path == "combat.blockers.blocker"
    assert "'attacker'" in err.message and "'blocker'" in err.message
    assert "flying" in err.message and "702.9" in err.message


@pytest.mark.parametrize("keyword", ["flying", "reach"])
def test_702_9b_702_17b_flying_or_reach_can_block_a_flyer(resolve: Resolve, keyword: str) -> None:
    """702.9b, 702.17b: a creature with flying or reach blocks a flyer."""
    out = resolve(
        PLAYERS
        + creature("drake", "A", 2, 2, "flying")
        + creature("spider", "B", 1, 3, keyword)
        + combat({"drake": "B"}, {"spider": "drake"})
    )
    assert dealt(out, "regular") == {("drake", "spider", 2), ("spider", "drake", 1)}


def test_702_9b_a_flyer_can_block_a_ground_creature(resolve: Resolve) -> None:
    """702.9b restricts only what blocks a flyer."""
    out = resolve(
        PLAYERS
        + creature("bear", "A", 2, 2)
        + creature("drake", "B", 2, 2, "flying")
        + combat({"bear": "B"}, {"drake": "bear"})
    )
    assert set(step(out, "regular")["died"]) == {"bear", "drake"}


def test_509_1b_losing_flying_after_blocks_doesnt_undo_the_block(resolve: Resolve) -> None:
    """509.1b: legality is checked as blockers are declared only."""
    out = resolve(
        PLAYERS
        + creature("drake", "A", 2, 2, "flying")
        + creature("spider", "B", 1, 3, "reach")
        + combat({"drake": "B"}, {"spider": "drake"})
        + event("declare-blockers", "remove", target="spider", keywords=["reach"])
        + event("declare-blockers", "grant", target="drake", keywords=["shadow"])
    )
    assert dealt(out, "regular") == {("drake", "spider", 2), ("spider", "drake", 1)}


def test_702_111b_menace_cant_be_blocked_by_one_creature(resolve: Resolve) -> None:
    """702.111b: one blocker is not enough."""
    err = blocked(
        resolve, creature("attacker", "A", 3, 3, "menace"), creature("blocker", "B", 2, 2)
    )
    assert err.path == "combat.blockers.blocker"
    assert "menace" in err.message and "702.111" in err.message and "'attacker'" in err.message


def test_702_111b_menace_can_be_blocked_by_two(resolve: Resolve) -> None:
    """702.111b: two blockers are enough."""
    out = resolve(
        PLAYERS
        + creature("ogre", "A", 3, 3, "menace")
        + creature("bear", "B", 2, 2)
        + creature("cub", "B", 2, 2)
        + combat({"ogre": "B"}, {"bear": "ogre", "cub": "ogre"})
    )
    assert "ogre" in step(out, "regular")["died"]


def test_702_111b_menace_may_go_unblocked(resolve: Resolve) -> None:
    """702.111b forbids one blocker, not none."""
    out = resolve(PLAYERS + creature("ogre", "A", 3, 3, "menace") + combat({"ogre": "B"}))
    assert dealt(out, "regular") == {("ogre", "B", 3)}


def test_702_28b_shadow_cant_be_blocked_without_shadow(resolve: Resolve) -> None:
    """702.28b: a creature with shadow can be blocked only by creatures with shadow."""
    err = blocked(
        resolve, creature("attacker", "A", 2, 2, "shadow"), creature("blocker", "B", 2, 2)
    )
    assert "shadow" in err.message and "702.28" in err.message


def test_702_28b_shadow_can_block_only_shadow(resolve: Resolve) -> None:
    """702.28b: a creature with shadow can block only creatures with shadow."""
    err = blocked(
        resolve, creature("attacker", "A", 2, 2), creature("blocker", "B", 2, 2, "shadow")
    )
    assert err.path == "combat.blockers.blocker"
    assert "shadow" in err.message and "702.28" in err.message


def test_702_28b_shadow_blocks_shadow(resolve: Resolve) -> None:
    """702.28b: shadow against shadow is a legal block."""
    out = resolve(
        PLAYERS
        + creature("wraith", "A", 2, 2, "shadow")
        + creature("shade", "B", 2, 2, "shadow")
        + combat({"wraith": "B"}, {"shade": "wraith"})
    )
    assert set(step(out, "regular")["died"]) == {"wraith", "shade"}


def test_702_3b_defender_cant_attack(resolve: Resolve) -> None:
    """702.3b: a creature with defender can't attack."""
    err = invalid(
        resolve, PLAYERS + creature("wall", "A", 0, 4, "defender") + combat({"wall": "B"})
    )
    assert err.path == "combat.attackers.wall"
    assert "defender" in err.message and "702.3" in err.message


def test_702_3b_defender_can_block(resolve: Resolve) -> None:
    """702.3b forbids attacking only."""
    out = resolve(
        PLAYERS
        + creature("bear", "A", 2, 2)
        + creature("wall", "B", 0, 4, "defender")
        + combat({"bear": "B"}, {"wall": "bear"})
    )
    assert dealt(out, "regular") == {("bear", "wall", 2)}


def test_702_147b_decayed_cant_block(resolve: Resolve) -> None:
    """702.147b: a creature with decayed can't block."""
    err = blocked(
        resolve, creature("attacker", "A", 2, 2), creature("blocker", "B", 2, 2, "decayed")
    )
    assert err.path == "combat.blockers.blocker"
    assert "decayed" in err.message and "702.147" in err.message


def test_702_147b_decayed_is_sacrificed_at_end_of_combat(resolve: Resolve) -> None:
    """702.147b: it attacks, deals damage, and is sacrificed at end of combat (not in `died`)."""
    out = resolve(PLAYERS + creature("zombie", "A", 2, 2, "decayed") + combat({"zombie": "B"}))
    assert dealt(out, "regular") == {("zombie", "B", 2)}
    assert step(out, "regular")["died"] == []
    assert out["creatures"]["zombie"]["alive"] is False


def test_702_147b_losing_decayed_after_attacking_doesnt_save_it(resolve: Resolve) -> None:
    """702.147b: the sacrifice is a delayed trigger set up when it attacked."""
    out = resolve(
        PLAYERS
        + creature("zombie", "A", 2, 2, "decayed")
        + combat({"zombie": "B"})
        + event("declare-blockers", "remove", target="zombie", keywords=["decayed"])
    )
    assert out["creatures"]["zombie"]["alive"] is False


def test_702_147b_gaining_decayed_after_attacking_doesnt_sacrifice(resolve: Resolve) -> None:
    """702.147b: "when this creature attacks" had not triggered."""
    out = resolve(
        PLAYERS
        + creature("zombie", "A", 2, 2)
        + combat({"zombie": "B"})
        + event("declare-blockers", "counters", target="zombie", counters={"decayed": 1})
    )
    assert out["creatures"]["zombie"]["alive"] is True


def test_508_4_decayed_put_onto_the_battlefield_attacking_never_attacked(
    resolve: Resolve,
) -> None:
    """508.4: a creature put onto the battlefield attacking was never declared: no trigger."""
    out = resolve(
        PLAYERS
        + creature("bear", "A", 2, 2)
        + combat({"bear": "B"})
        + event(
            "declare-blockers",
            "enter",
            creature={
                "id": "zombie",
                "controller": "A",
                "power": 2,
                "toughness": 2,
                "keywords": ["decayed"],
            },
            attacking="B",
        )
    )
    assert out["creatures"]["zombie"]["alive"] is True
    assert dealt(out, "regular") == {("bear", "B", 2), ("zombie", "B", 2)}


# -- vigilance (702.20) and haste (702.10, 302.6) ------------------------------------------


def test_508_1f_attacking_taps_and_702_20b_vigilance_doesnt(result: Result) -> None:
    """508.1f / 702.20b: the attacker without vigilance taps and can't attack again this turn."""
    res = result(
        PLAYERS
        + creature("knight", "A", 2, 2, "vigilance")
        + creature("bear", "A", 2, 2)
        + creature("wall", "B", 0, 4)
        + combat({"knight": "B", "bear": "B"}, {"wall": "bear"})
    )
    assert res.creatures["knight"].tapped is False
    assert res.creatures["knight"].may_attack is True
    assert res.creatures["bear"].tapped is True
    assert res.creatures["bear"].may_attack is False
    assert res.creatures["wall"].tapped is False


def test_702_20b_vigilance_shown_in_the_readable_account(registry: Registry) -> None:
    """The readable account says it attacked without tapping, and shows who is tapped."""
    text = readable(
        registry, PLAYERS + creature("knight", "A", 2, 2, "vigilance") + combat({"knight": "B"})
    )
    assert "knight attacks without tapping (vigilance)" in text
    assert "tapped" in text


def test_302_6_summoning_sick_creature_cant_attack(resolve: Resolve) -> None:
    """302.6: a creature that came under its controller's control this turn can't attack."""
    err = invalid(
        resolve, PLAYERS + creature("bear", "A", 2, 2, summoning_sick=True) + combat({"bear": "B"})
    )
    assert err.path == "combat.attackers.bear"
    assert "302.6" in err.message and "haste" in err.message


HASTY = (
    PLAYERS + creature("goblin", "A", 2, 2, "haste", summoning_sick=True) + combat({"goblin": "B"})
)


def test_702_10b_haste_lets_it_attack_this_turn(resolve: Resolve) -> None:
    """702.10b: with haste a creature that came under A's control this turn may attack: the 2/2
    deals 2 to B (20 -> 18)."""
    assert resolve(HASTY)["players"]["B"]["life"] == 18


def test_702_10b_a_hasty_attacker_taps(result: Result) -> None:
    """702.10b, 508.1f: it taps like any attacker, and the account says haste let it attack
    (the reference engine reports tapping; the batched engine doesn't)."""
    res = result(HASTY)
    assert res.creatures["goblin"].tapped is True
    assert any("haste" in n for n in res.notes)


def test_302_6_haste_from_a_keyword_counter(resolve: Resolve) -> None:
    """122.1b / 702.10b: a haste counter lets it attack too."""
    out = resolve(
        PLAYERS
        + creature("goblin", "A", 2, 2, summoning_sick=True, counters={"haste": 1})
        + combat({"goblin": "B"})
    )
    assert out["players"]["B"]["life"] == 18


def test_302_6_summoning_sick_creature_can_block(resolve: Resolve) -> None:
    """302.6 restricts attacking only."""
    out = resolve(
        PLAYERS
        + creature("bear", "A", 2, 2)
        + creature("cub", "B", 1, 1, summoning_sick=True)
        + combat({"bear": "B"}, {"cub": "bear"})
    )
    assert step(out, "regular")["died"] == ["cub"]


def test_302_6_creature_put_onto_battlefield_may_not_attack_later_without_haste(
    result: Result,
) -> None:
    """302.6 / 702.10b: a creature that entered this turn may attack again only with haste."""
    entering = {"controller": "A", "power": 1, "toughness": 1}
    res = result(
        PLAYERS
        + creature("bear", "A", 2, 2, "vigilance")
        + combat({"bear": "B"})
        + event("declare-blockers", "enter", creature={"id": "pup", **entering}, attacking="B")
        + event(
            "declare-blockers",
            "enter",
            creature={"id": "imp", **entering, "keywords": ["haste"]},
            attacking="B",
        )
    )
    assert res.creatures["pup"].may_attack is False
    assert res.creatures["imp"].may_attack is True
    assert res.creatures["bear"].may_attack is True


# -- exalted (702.83) -----------------------------------------------------------------------


def test_702_83b_exalted_pumps_a_creature_attacking_alone(resolve: Resolve) -> None:
    """702.83b: +1/+1 until end of turn; it deals 3."""
    out = resolve(PLAYERS + creature("angel", "A", 2, 2, "exalted") + combat({"angel": "B"}))
    assert dealt(out, "regular") == {("angel", "B", 3)}
    assert out["creatures"]["angel"]["power"] == 3
    assert out["creatures"]["angel"]["toughness"] == 3


def test_702_83b_each_exalted_instance_you_control_triggers(resolve: Resolve) -> None:
    """702.83b: three permanents with exalted (one by a counter): +3/+3."""
    out = resolve(
        PLAYERS
        + creature("angel", "A", 2, 2, "exalted")
        + creature("squire", "A", 1, 1, "exalted")
        + creature("page", "A", 1, 1, counters={"exalted": 1})
        + combat({"angel": "B"})
    )
    assert dealt(out, "regular") == {("angel", "B", 5)}


def test_702_83a_no_exalted_when_two_creatures_attack(resolve: Resolve) -> None:
    """702.83a: "attacks alone" means it is the only creature declared as an attacker."""
    out = resolve(
        PLAYERS
        + creature("angel", "A", 2, 2, "exalted")
        + creature("bear", "A", 2, 2)
        + combat({"angel": "B", "bear": "B"})
    )
    assert dealt(out, "regular") == {("angel", "B", 2), ("bear", "B", 2)}


def test_702_83b_an_opponents_exalted_doesnt_count(resolve: Resolve) -> None:
    """702.83b: only exalted instances its controller controls."""
    out = resolve(
        PLAYERS
        + creature("bear", "A", 2, 2)
        + creature("angel", "B", 2, 2, "exalted")
        + combat({"bear": "B"})
    )
    assert dealt(out, "regular") == {("bear", "B", 2)}


def test_702_83b_the_bonus_can_let_it_survive(resolve: Resolve) -> None:
    """702.83b: the +1/+1 comes before blockers: a 2/2 survives a 2-power blocker."""
    out = resolve(
        PLAYERS
        + creature("angel", "A", 2, 2, "exalted")
        + creature("bear", "B", 2, 2)
        + combat({"angel": "B"}, {"bear": "angel"})
    )
    assert step(out, "regular")["died"] == ["bear"]


# -- hexproof (702.11) ----------------------------------------------------------------------


def _giant_growth(target: EffectTarget) -> None:
    target.pump(3, 3)


class _TestCards:
    """A plugin with a card any player may aim at any attacking or blocking creature."""

    __name__ = "test_cards"

    @hookimpl
    def register_cards(self) -> list[Card]:
        return [
            Card(
                name="Test Growth",
                cost="{G}",
                text="Target attacking or blocking creature gets +3/+3 until end of turn.",
                target=TargetRule(in_combat=True),
                resolve=_giant_growth,
            )
        ]


@pytest.fixture(scope="module")
def growth(engine: str) -> Resolve:
    """Resolve with the bundled plugins and the Test Growth card."""
    return text_resolver(engine, bundled_registry(extra=(_TestCards(),)))


def _cast_growth(caster: str, keywords: tuple[str, ...]) -> str:
    return (
        PLAYERS
        + creature("bear", "A", 2, 2, *keywords)
        + combat({"bear": "B"})
        + event("declare-blockers", "cast", card="Test Growth", caster=caster, target="bear")
    )


def test_702_11b_an_opponents_spell_cant_target_hexproof(growth: Resolve) -> None:
    """702.11b: the opponent's card does nothing to a hexproof creature: a 2/2 deals 2."""
    out = growth(_cast_growth("B", ("hexproof",)))
    assert out["creatures"]["bear"]["power"] == 2
    assert out["players"]["B"]["life"] == 18


def test_702_11b_the_readable_account_says_why(registry: Registry) -> None:
    """702.11b: the account says the card did nothing because of hexproof."""
    growth_registry = bundled_registry(extra=(_TestCards(),))
    scenario = parse_scenario(
        tomllib.loads(_cast_growth("B", ("hexproof",))), growth_registry, "t.toml"
    )
    res = ReferenceEngine(growth_registry).resolve(scenario)
    assert any("hexproof" in n and "does nothing" in n for n in res.notes)


def test_702_11b_without_hexproof_the_opponent_may_target_it(growth: Resolve) -> None:
    """702.11b control: the same card works on a creature without hexproof: 5/5, deals 5."""
    out = growth(_cast_growth("B", ()))
    assert out["creatures"]["bear"]["power"] == 5
    assert out["players"]["B"]["life"] == 15


def test_702_11b_its_controller_may_target_hexproof(growth: Resolve) -> None:
    """702.11b: hexproof stops only opponents."""
    assert growth(_cast_growth("A", ("hexproof",)))["creatures"]["bear"]["power"] == 5


# -- keyword counters (122.1b) --------------------------------------------------------------


def test_122_1b_a_counter_gives_its_keyword(resolve: Resolve) -> None:
    """122.1b: a first strike counter makes it strike first."""
    out = resolve(
        PLAYERS
        + creature("bear", "A", 2, 2, counters={"first strike": 1})
        + creature("cub", "B", 2, 2)
        + combat({"bear": "B"}, {"cub": "bear"})
    )
    assert step_names(out) == ["first-strike", "regular"]
    assert step(out, "first-strike")["died"] == ["cub"]


def test_122_1b_a_flying_counter_gives_evasion(resolve: Resolve) -> None:
    """122.1b / 702.9b: a flying counter makes a ground blocker illegal."""
    err = blocked(
        resolve,
        creature("attacker", "A", 2, 2, counters={"flying": 1}),
        creature("blocker", "B", 2, 2),
    )
    assert "flying" in err.message


def test_122_1b_counters_event_gives_a_keyword(resolve: Resolve) -> None:
    """122.1b: a deathtouch counter put on during combat destroys what it damages."""
    out = resolve(
        PLAYERS
        + creature("bear", "A", 1, 1)
        + creature("wurm", "B", 6, 6)
        + combat({"bear": "B"}, {"wurm": "bear"})
        + event("declare-blockers", "counters", target="bear", counters={"deathtouch": 1})
    )
    assert set(step(out, "regular")["died"]) == {"bear", "wurm"}


def test_122_1b_removing_the_counter_takes_the_keyword(resolve: Resolve) -> None:
    """122.1b: with its lifelink counter removed, it gains no life."""
    out = resolve(
        PLAYERS
        + creature("cleric", "A", 2, 2, counters={"lifelink": 1})
        + combat({"cleric": "B"})
        + event("declare-blockers", "counters", target="cleric", counters={"lifelink": -1})
    )
    assert step(out, "regular")["life_gained"] == []


def test_122_1b_removing_a_counter_it_doesnt_have_removes_nothing(resolve: Resolve) -> None:
    """122.1b (RULES.md 4): a creature can't have fewer than 0 counters. (A surviving mutant
    let the count go below 0, so a later counter gave no keyword.)

    By hand: the 2/2 has no lifelink counter; removing one leaves 0, adding one gives 1: it has
    lifelink, deals 2 to B (20 -> 18) and A gains 2 (20 -> 22)."""
    out = resolve(
        PLAYERS
        + creature("cleric", "A", 2, 2)
        + combat({"cleric": "B"})
        + event("declare-blockers", "counters", target="cleric", counters={"lifelink": -1})
        + event("declare-blockers", "counters", target="cleric", counters={"lifelink": 1})
    )
    assert step(out, "regular")["life_gained"] == [{"player": "A", "source": "cleric", "amount": 2}]
    assert out["players"] == {
        "A": {"life": 22, "lost": False, "poison": 0},
        "B": {"life": 18, "lost": False, "poison": 0},
    }


def test_122_1b_counters_never_below_0_then_the_last_is_removed(resolve: Resolve) -> None:
    """122.1b (RULES.md 4): -1, +1, -1 on a creature with no lifelink counter: 0, 1, 0. With
    none left it has no lifelink: B loses 2, A gains nothing."""
    out = resolve(
        PLAYERS
        + creature("cleric", "A", 2, 2)
        + combat({"cleric": "B"})
        + event("declare-blockers", "counters", target="cleric", counters={"lifelink": -1})
        + event("declare-blockers", "counters", target="cleric", counters={"lifelink": 1})
        + event("declare-blockers", "counters", target="cleric", counters={"lifelink": -1})
    )
    assert step(out, "regular")["life_gained"] == []
    assert out["players"] == {
        "A": {"life": 20, "lost": False, "poison": 0},
        "B": {"life": 18, "lost": False, "poison": 0},
    }


def test_122_1b_removing_more_counters_than_it_has(resolve: Resolve) -> None:
    """122.1b: one lifelink counter, remove 3, add 1: 1, 0, 1: it has lifelink again."""
    out = resolve(
        PLAYERS
        + creature("cleric", "A", 2, 2, counters={"lifelink": 1})
        + combat({"cleric": "B"})
        + event("declare-blockers", "counters", target="cleric", counters={"lifelink": -3})
        + event("declare-blockers", "counters", target="cleric", counters={"lifelink": 1})
    )
    assert out["players"]["A"]["life"] == 22


def test_122_1b_more_counters_of_a_kind_add_nothing(resolve: Resolve) -> None:
    """122.1b: two double strike counters still mean two hits, and removing one keeps it."""
    out = resolve(
        PLAYERS
        + creature("bear", "A", 2, 2, counters={"double strike": 2})
        + combat({"bear": "B"})
        + event("after first-strike", "counters", target="bear", counters={"double strike": -1})
    )
    assert dealt(out, "first-strike") == {("bear", "B", 2)}
    assert dealt(out, "regular") == {("bear", "B", 2)}
    assert out["players"]["B"]["life"] == 16


def test_122_1b_more_exalted_counters_add_nothing(resolve: Resolve) -> None:
    """122.1b (RULES.md 4): three exalted counters are one exalted."""
    out = resolve(
        PLAYERS + creature("angel", "A", 2, 2, counters={"exalted": 3}) + combat({"angel": "B"})
    )
    assert dealt(out, "regular") == {("angel", "B", 3)}


@pytest.mark.parametrize("keyword", ["defender", "triple strike", "last strike"])
def test_122_1b_other_keywords_cant_be_counters_on_a_creature(
    resolve: Resolve, keyword: str
) -> None:
    """122.1b: a keyword off the list as a counter is an input error naming it."""
    err = invalid(
        resolve, PLAYERS + creature("bear", "A", 2, 2, counters={keyword: 1}) + combat({})
    )
    assert err.path == f"creatures.bear.counters.{keyword}"
    assert keyword in err.message and "122.1b" in err.message


def test_122_1b_other_keywords_cant_be_counters_in_an_event(resolve: Resolve) -> None:
    """122.1b: the same holds for the counters event."""
    err = invalid(
        resolve,
        PLAYERS
        + creature("bear", "A", 2, 2)
        + combat({"bear": "B"})
        + event("declare-blockers", "counters", target="bear", counters={"defender": 1}),
    )
    assert err.path == "events[0].counters.defender"
    assert "defender" in err.message
