"""The strike keywords and the damage-step pipeline: RULES.md section 2, one test per consequence."""

from __future__ import annotations

from conftest import Resolve, dealt, step, step_names
from scenario_text import combat, creature, event

PLAYERS = """
[players.A]
[players.B]
"""


def test_510_4_worked_example_cerberus_and_boar(resolve: Resolve) -> None:
    """510.4 / 702.4b: the seed example: both die in the regular step."""
    out = resolve(
        PLAYERS
        + creature("cerberus", "A", 1, 2, "double strike")
        + creature("boar", "B", 2, 2)
        + combat({"cerberus": "B"}, {"boar": "cerberus"})
    )
    assert dealt(out, "first-strike") == {("cerberus", "boar", 1)}
    assert dealt(out, "regular") == {("cerberus", "boar", 1), ("boar", "cerberus", 2)}
    assert set(step(out, "regular")["died"]) == {"boar", "cerberus"}


def test_510_4_first_striker_kills_before_regular_damage(resolve: Resolve) -> None:
    """510.4: a first striker that kills its blocker takes no damage from it."""
    out = resolve(
        PLAYERS
        + creature("knight", "A", 2, 2, "first strike")
        + creature("bear", "B", 2, 2)
        + combat({"knight": "B"}, {"bear": "knight"})
    )
    assert step_names(out) == ["first-strike", "regular"]
    assert step(out, "first-strike")["died"] == ["bear"]
    assert dealt(out, "regular") == set()
    assert out["creatures"]["knight"] == {
        "alive": True,
        "damage": 0,
        "power": 2,
        "toughness": 2,
        "counters": {},
    }


def test_510_4_no_first_strike_step_without_a_first_striker(resolve: Resolve) -> None:
    """510.4: with no first, double or triple strike there is only the regular step."""
    out = resolve(PLAYERS + creature("bear", "A", 2, 2) + combat({"bear": "B"}))
    assert step_names(out) == ["regular"]
    assert out["players"]["B"] == {"life": 18, "lost": False, "poison": 0}


def test_702_4c_removing_double_strike_stops_regular_damage(resolve: Resolve) -> None:
    """702.4c: double strike removed during the first-strike step: no regular damage."""
    out = resolve(
        PLAYERS
        + creature("blade", "A", 3, 3, "double strike")
        + combat({"blade": "B"})
        + event("after first-strike", "remove", target="blade", keywords=["double strike"])
    )
    assert dealt(out, "first-strike") == {("blade", "B", 3)}
    assert dealt(out, "regular") == set()
    assert out["players"]["B"]["life"] == 17


def test_702_4d_giving_double_strike_to_a_first_striker_adds_regular_damage(
    resolve: Resolve,
) -> None:
    """702.4d: a first striker given double strike after first-strike damage deals regular damage."""
    out = resolve(
        PLAYERS
        + creature("knight", "A", 2, 2, "first strike")
        + combat({"knight": "B"})
        + event("after first-strike", "grant", target="knight", keywords=["double strike"])
    )
    assert dealt(out, "first-strike") == {("knight", "B", 2)}
    assert dealt(out, "regular") == {("knight", "B", 2)}


def test_702_7c_first_strike_gained_after_the_step_still_deals_regular(resolve: Resolve) -> None:
    """702.7c: a creature given first strike after the first-strike step deals regular damage."""
    out = resolve(
        PLAYERS
        + creature("knight", "A", 2, 2, "first strike")
        + creature("bear", "A", 2, 2)
        + combat({"knight": "B", "bear": "B"})
        + event("after first-strike", "grant", target="bear", keywords=["first strike"])
    )
    assert dealt(out, "first-strike") == {("knight", "B", 2)}
    assert dealt(out, "regular") == {("bear", "B", 2)}


def test_702_7c_losing_first_strike_after_dealing_damage_gives_no_regular_hit(
    resolve: Resolve,
) -> None:
    """702.7c: removing first strike after first-strike damage does not give a regular hit."""
    out = resolve(
        PLAYERS
        + creature("knight", "A", 2, 2, "first strike")
        + combat({"knight": "B"})
        + event("after first-strike", "remove", target="knight", keywords=["first strike"])
    )
    assert dealt(out, "regular") == set()
    assert out["players"]["B"]["life"] == 18


def test_702_4e_702_7d_multiple_instances_are_redundant(resolve: Resolve) -> None:
    """702.4e, 702.7d: two instances (printed and a counter) strike once per step."""
    out = resolve(
        PLAYERS
        + creature("knight", "A", 2, 2, "first strike", "First Strike")
        + 'counters = { "first strike" = 2 }\n'
        + creature("blade", "A", 1, 1, "double strike")
        + 'counters = { "double strike" = 1 }\n'
        + combat({"knight": "B", "blade": "B"})
    )
    assert dealt(out, "first-strike") == {("knight", "B", 2), ("blade", "B", 1)}
    assert dealt(out, "regular") == {("blade", "B", 1)}
    assert out["players"]["B"]["life"] == 16


def test_throat_wolf_firstest_strike_kills_first_striker(resolve: Resolve) -> None:
    """Throat Wolf rulings: firstest strike deals damage in its own step, before first strike;
    the first-strike step is decided after it and does not happen when no first striker is left."""
    out = resolve(
        PLAYERS
        + creature("wolf", "A", 3, 1, "firstest strike")
        + creature("knight", "B", 2, 2, "first strike")
        + combat({"wolf": "B"}, {"knight": "wolf"})
    )
    assert step_names(out) == ["firstest-strike", "regular"]
    assert step(out, "firstest-strike")["died"] == ["knight"]
    assert out["creatures"]["wolf"]["alive"] is True


def test_firstest_strike_step_exists_only_with_a_firstest_striker(resolve: Resolve) -> None:
    """Throat Wolf rulings: the firstest-strike step exists only if some creature has it."""
    out = resolve(PLAYERS + creature("knight", "A", 2, 2, "first strike") + combat({"knight": "B"}))
    assert step_names(out) == ["first-strike", "regular"]


def test_first_strike_step_created_after_firstest_step(resolve: Resolve) -> None:
    """RULES.md 2: whether the first-strike step exists is decided as it would begin: first
    strike given after the firstest-strike step creates it."""
    out = resolve(
        PLAYERS
        + creature("wolf", "A", 3, 1, "firstest strike")
        + creature("bear", "A", 2, 2)
        + combat({"wolf": "B", "bear": "B"})
        + event("after firstest-strike", "grant", target="bear", keywords=["first strike"])
    )
    assert step_names(out) == ["firstest-strike", "first-strike", "regular"]
    assert dealt(out, "first-strike") == {("bear", "B", 2)}
    assert dealt(out, "regular") == set()


def test_firstest_and_first_strike_deal_in_both_early_steps(resolve: Resolve) -> None:
    """Throat Wolf rulings: firstest strike + first strike: firstest-strike and first-strike steps."""
    out = resolve(
        PLAYERS
        + creature("wolf", "A", 3, 1, "firstest strike", "first strike")
        + combat({"wolf": "B"})
    )
    assert step_names(out) == ["firstest-strike", "first-strike", "regular"]
    assert dealt(out, "firstest-strike") == {("wolf", "B", 3)}
    assert dealt(out, "first-strike") == {("wolf", "B", 3)}
    assert dealt(out, "regular") == set()


def test_firstest_and_double_strike_deal_in_all_three_steps(resolve: Resolve) -> None:
    """Throat Wolf rulings: firstest strike + double strike: all three of firstest, first, regular."""
    out = resolve(
        PLAYERS
        + creature("wolf", "A", 3, 1, "firstest strike", "double strike")
        + combat({"wolf": "B"})
    )
    assert [dealt(out, s) for s in step_names(out)] == [{("wolf", "B", 3)}] * 3
    assert out["players"]["B"]["life"] == 11


def test_firstest_strike_unblocked_hits_the_player(resolve: Resolve) -> None:
    """Decision (firstest strike and players): an unblocked firstest striker damages the player."""
    out = resolve(PLAYERS + creature("wolf", "A", 3, 1, "firstest strike") + combat({"wolf": "B"}))
    assert dealt(out, "firstest-strike") == {("wolf", "B", 3)}
    assert out["players"]["B"]["life"] == 17


def test_throat_wolf_entering_during_firstest_step_deals_regular_damage(resolve: Resolve) -> None:
    """Throat Wolf ruling: a firstest striker entering during the firstest-strike step was no
    striker as that step began, so it deals regular damage."""
    out = resolve(
        PLAYERS
        + creature("wolf", "A", 3, 1, "firstest strike")
        + combat({"wolf": "B"})
        + '[[events]]\nat = "after firstest-strike"\naction = "enter"\nattacking = "B"\n'
        + '[events.creature]\nid = "pup"\ncontroller = "A"\npower = 2\ntoughness = 2\n'
        + 'keywords = ["firstest strike"]\n'
    )
    assert dealt(out, "firstest-strike") == {("wolf", "B", 3)}
    assert dealt(out, "regular") == {("pup", "B", 2)}


def test_510_4_first_striker_entering_during_first_strike_step_deals_regular(
    resolve: Resolve,
) -> None:
    """510.4: a first striker entering during the first-strike step had no first strike as that
    step began: it deals regular damage."""
    out = resolve(
        PLAYERS
        + creature("knight", "A", 2, 2, "first strike")
        + combat({"knight": "B"})
        + '[[events]]\nat = "after first-strike"\naction = "enter"\nattacking = "B"\n'
        + '[events.creature]\nid = "squire"\ncontroller = "A"\npower = 1\ntoughness = 1\n'
        + 'keywords = ["first strike"]\n'
    )
    assert dealt(out, "first-strike") == {("knight", "B", 2)}
    assert dealt(out, "regular") == {("squire", "B", 1)}
    assert out["creatures"]["squire"]["alive"] is True


def test_split_strike_first_and_last_strike_skip_regular(resolve: Resolve) -> None:
    """Extremely Slow Zombie rulings: first strike + last strike: first-strike and last-strike."""
    out = resolve(
        PLAYERS + creature("z", "A", 2, 2, "first strike", "last strike") + combat({"z": "B"})
    )
    assert step_names(out) == ["first-strike", "regular", "last-strike"]
    assert dealt(out, "first-strike") == {("z", "B", 2)}
    assert dealt(out, "regular") == set()
    assert dealt(out, "last-strike") == {("z", "B", 2)}


def test_double_and_last_strike_is_triple_strike(resolve: Resolve) -> None:
    """Extremely Slow Zombie rulings: double strike + last strike deals damage in all three steps."""
    out = resolve(
        PLAYERS + creature("z", "A", 2, 2, "double strike", "last strike") + combat({"z": "B"})
    )
    assert [dealt(out, s) for s in step_names(out)] == [{("z", "B", 2)}] * 3


def test_triple_strike_unblocked_3_3_deals_9(resolve: Resolve) -> None:
    """Three-Headed Goblin rulings: triple strike: first-strike, regular and last-strike; 9 damage."""
    out = resolve(
        PLAYERS + creature("goblin", "A", 3, 3, "triple strike") + combat({"goblin": "B"})
    )
    assert step_names(out) == ["first-strike", "regular", "last-strike"]
    assert out["players"]["B"]["life"] == 11


def test_triple_striker_must_survive_each_step(resolve: Resolve) -> None:
    """Hat Trick rulings: a triple striker killed in the regular step deals no last-strike damage."""
    out = resolve(
        PLAYERS
        + creature("goblin", "A", 1, 3, "triple strike")
        + creature("wall", "B", 3, 10)
        + combat({"goblin": "B"}, {"wall": "goblin"})
    )
    assert dealt(out, "first-strike") == {("goblin", "wall", 1)}
    assert dealt(out, "regular") == {("goblin", "wall", 1), ("wall", "goblin", 3)}
    assert step(out, "regular")["died"] == ["goblin"]
    assert step_names(out) == ["first-strike", "regular"]  # no last striker is left
    assert out["creatures"]["wall"]["damage"] == 2


def test_last_strike_alone_deals_only_after_regular_damage(resolve: Resolve) -> None:
    """Unstable: last strike deals damage only after regular damage."""
    out = resolve(
        PLAYERS
        + creature("zombie", "A", 3, 3, "last strike")
        + creature("bear", "A", 2, 2)
        + combat({"zombie": "B", "bear": "B"})
    )
    assert dealt(out, "regular") == {("bear", "B", 2)}
    assert dealt(out, "last-strike") == {("zombie", "B", 3)}


def test_last_striker_killed_in_regular_step_deals_nothing(resolve: Resolve) -> None:
    """Unstable: last strike deals damage only if the creature survived the regular step."""
    out = resolve(
        PLAYERS
        + creature("zombie", "A", 3, 3, "last strike")
        + creature("ogre", "B", 3, 3)
        + combat({"zombie": "B"}, {"ogre": "zombie"})
    )
    assert dealt(out, "regular") == {("ogre", "zombie", 3)}
    assert step(out, "regular")["died"] == ["zombie"]
    assert step_names(out) == ["regular"]
    assert out["creatures"]["ogre"]["damage"] == 0


def test_decision_last_strike_gained_after_regular_damage_strikes_again(resolve: Resolve) -> None:
    """Decision (last strike gained or lost): gained after regular damage: last-strike damage too."""
    out = resolve(
        PLAYERS
        + creature("bear", "A", 2, 2)
        + combat({"bear": "B"})
        + event("after regular", "grant", target="bear", keywords=["last strike"])
    )
    assert step_names(out) == ["regular", "last-strike"]
    assert dealt(out, "last-strike") == {("bear", "B", 2)}
    assert out["players"]["B"]["life"] == 16


def test_decision_last_strike_lost_after_sitting_out_regular_deals_nothing(
    resolve: Resolve,
) -> None:
    """Decision (last strike gained or lost): lost after the regular step: no damage at all."""
    out = resolve(
        PLAYERS
        + creature("zombie", "A", 3, 3, "last strike")
        + combat({"zombie": "B"})
        + event("after regular", "remove", target="zombie", keywords=["last strike"])
    )
    assert step_names(out) == ["regular"]
    assert out["players"]["B"]["life"] == 20


def test_striker_with_power_0_still_counts_as_striker(resolve: Resolve) -> None:
    """RULES.md 2: a striker of a step counts even if its power was 0: pumped later, it deals no
    regular damage."""
    out = resolve(
        PLAYERS
        + creature("knight", "A", 0, 2, "first strike")
        + combat({"knight": "B"})
        + event("after first-strike", "pump", target="knight", power=3, toughness=0)
    )
    assert dealt(out, "first-strike") == set()
    assert dealt(out, "regular") == set()
    assert out["players"]["B"]["life"] == 20
    assert out["creatures"]["knight"]["power"] == 3


def test_704_3_creature_dead_after_a_step_deals_no_later_damage(resolve: Resolve) -> None:
    """704.3: state-based actions after each step: a creature killed by first strike deals nothing."""
    out = resolve(
        PLAYERS
        + creature("knight", "B", 3, 3, "first strike")
        + creature("ogre", "A", 5, 3)
        + combat({"ogre": "B"}, {"knight": "ogre"})
    )
    assert step(out, "first-strike")["died"] == ["ogre"]
    assert dealt(out, "regular") == set()


def test_704_5f_toughness_0_after_an_event_dies_before_the_next_step(resolve: Resolve) -> None:
    """704.5f: state-based actions after each event: toughness 0 dies before it can strike."""
    out = resolve(
        PLAYERS
        + creature("bear", "A", 2, 2)
        + combat({"bear": "B"})
        + event("declare-blockers", "pump", target="bear", power=0, toughness=-2)
    )
    assert out["creatures"]["bear"]["alive"] is False
    assert dealt(out, "regular") == set()
    assert out["players"]["B"]["life"] == 20


def test_decision_end_of_game_stops_further_damage_steps(resolve: Resolve) -> None:
    """Decision (end of game): a player at 0 life after the first-strike step: no regular step."""
    out = resolve(
        "[players.A]\n[players.B]\nlife = 2\n"
        + creature("knight", "A", 2, 2, "first strike")
        + creature("bear", "A", 2, 2)
        + combat({"knight": "B", "bear": "B"})
    )
    assert step_names(out) == ["first-strike"]
    assert out["players"]["B"] == {"life": 0, "lost": True, "poison": 0}


def test_508_8_no_attackers_no_damage_steps_and_events_skipped(resolve: Resolve) -> None:
    """508.8: with no attackers the damage steps are skipped; events there are reported skipped."""
    out = resolve(
        PLAYERS
        + creature("bear", "A", 2, 2)
        + event("declare-blockers", "pump", target="bear", power=1, toughness=1)
    )
    assert out["steps"] == []
    assert [e["event"] for e in out["skipped_events"]] == [0]
    assert out["creatures"]["bear"]["power"] == 2


def test_event_after_a_step_that_does_not_happen_is_skipped(resolve: Resolve) -> None:
    """CONTRACT.md 1, 506.1: an event after a step that does not take place does not happen."""
    out = resolve(
        PLAYERS
        + creature("bear", "A", 2, 2)
        + combat({"bear": "B"})
        + event("after first-strike", "pump", target="bear", power=5, toughness=0)
    )
    assert step_names(out) == ["regular"]
    assert out["players"]["B"]["life"] == 18
    skipped = out["skipped_events"]
    assert len(skipped) == 1 and skipped[0]["at"] == "after first-strike"


def test_509_1h_blocked_attacker_stays_blocked_when_its_blocker_leaves(resolve: Resolve) -> None:
    """509.1h, 510.1c: a blocked attacker whose blocker is removed assigns no damage."""
    out = resolve(
        PLAYERS
        + creature("bear", "A", 2, 2)
        + creature("wall", "B", 0, 4)
        + combat({"bear": "B"}, {"wall": "bear"})
        + event("declare-blockers", "remove-from-combat", target="wall")
    )
    assert dealt(out, "regular") == set()
    assert out["players"]["B"]["life"] == 20


def test_506_4_removed_attacker_deals_no_damage(resolve: Resolve) -> None:
    """506.4: a creature removed from combat deals no combat damage and takes none."""
    out = resolve(
        PLAYERS
        + creature("bear", "A", 2, 2)
        + creature("ogre", "B", 3, 3)
        + combat({"bear": "B"}, {"ogre": "bear"})
        + event("declare-blockers", "remove-from-combat", target="bear")
    )
    assert dealt(out, "regular") == set()
    assert out["creatures"]["bear"] == {
        "alive": True,
        "damage": 0,
        "power": 2,
        "toughness": 2,
        "counters": {},
    }


def test_120_6_damage_already_marked_counts_toward_lethal(resolve: Resolve) -> None:
    """120.6, 704.5g: damage marked earlier in the turn adds to combat damage."""
    out = resolve(
        PLAYERS
        + creature("bear", "A", 2, 2)
        + creature("ogre", "B", 1, 3, damage=1)
        + combat({"bear": "B"}, {"ogre": "bear"})
    )
    assert step(out, "regular")["died"] == ["ogre"]
    assert out["creatures"]["ogre"]["damage"] == 3


def test_510_2_damage_is_dealt_simultaneously(resolve: Resolve) -> None:
    """510.2: two creatures that kill each other both deal their damage."""
    out = resolve(
        PLAYERS
        + creature("bear", "A", 2, 2)
        + creature("cub", "B", 2, 2)
        + combat({"bear": "B"}, {"cub": "bear"})
    )
    assert set(step(out, "regular")["died"]) == {"bear", "cub"}


def test_noncombat_damage_event_to_player_can_end_the_game(resolve: Resolve) -> None:
    """704.5a: a player brought to 0 by an event loses; no damage steps follow."""
    out = resolve(
        PLAYERS
        + creature("bear", "A", 2, 2)
        + combat({"bear": "B"})
        + event("declare-blockers", "damage", target="B", amount=20)
    )
    assert out["steps"] == []
    assert out["players"]["B"] == {"life": 0, "lost": True, "poison": 0}


def test_destroy_event_kills_before_damage(resolve: Resolve) -> None:
    """CONTRACT 1 destroy: a destroyed blocker is gone; the attacker stays blocked (509.1h)."""
    out = resolve(
        PLAYERS
        + creature("bear", "A", 2, 2)
        + creature("cub", "B", 2, 2)
        + combat({"bear": "B"}, {"cub": "bear"})
        + event("declare-blockers", "destroy", target="cub")
    )
    assert out["creatures"]["cub"]["alive"] is False
    assert dealt(out, "regular") == set()


def test_counters_event_gives_and_takes_a_keyword(resolve: Resolve) -> None:
    """122.1b: a first strike counter gives first strike; removing it takes it away."""
    out = resolve(
        PLAYERS
        + creature("bear", "A", 2, 2)
        + creature("cub", "A", 2, 2)
        + 'counters = { "first strike" = 1 }\n'
        + combat({"bear": "B", "cub": "B"})
        + event("declare-blockers", "counters", target="bear", counters={"first strike": 1})
        + event("declare-blockers", "counters", target="cub", counters={"first strike": -1})
    )
    assert dealt(out, "first-strike") == {("bear", "B", 2)}
    assert dealt(out, "regular") == {("cub", "B", 2)}


def test_multiplayer_blockers_belong_to_the_defending_player(resolve: Resolve) -> None:
    """506.2, 509.1a: attackers may attack different players; each damages the one it attacks."""
    out = resolve(
        "[players.A]\n[players.B]\n[players.C]\n"
        + creature("bear", "A", 2, 2)
        + creature("ogre", "A", 3, 3)
        + combat({"bear": "B", "ogre": "C"})
    )
    assert out["players"]["B"]["life"] == 18
    assert out["players"]["C"]["life"] == 17
