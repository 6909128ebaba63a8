"""Undying (702.93) and persist (702.79): a creature that dies returns to the battlefield as a
new object (400.7) with a counter, on both engines (RULES section 10). Expected values derived
by hand; decisions count a creature that died and returned as its value minus what returned
(RULES section 9)."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest
from conftest import Resolve, dealt, step
from hypothesis import HealthCheck, given, settings
from scenario_text import combat, creature, event

from ecs_combat import InputError, Registry, parse_scenario
from ecs_combat.decisions import Decision, best_blocks
from ecs_combat.testing import assert_engines_agree, registry_with, scenarios
from tests.test_turns import ResolveTurn, turn_of, turn_resolver

TWO = "[players.A]\n[players.B]\n"


def final(out: dict[str, Any], cid: str) -> tuple[bool, int, int, int, dict[str, int]]:
    """(alive, damage, power, toughness, counters) at the end."""
    c = out["creatures"][cid]
    return c["alive"], c["damage"], c["power"], c["toughness"], c["counters"]


def first_striker_blocks(attacker: str, keywords: tuple[str, ...], **extra: object) -> str:
    """A's 2/2 `attacker` with `keywords` attacks B; B's 3/3 first-strike knight blocks it."""
    return (
        TWO
        + creature(attacker, "A", 2, 2, *keywords, **extra)
        + creature("knight", "B", 3, 3, "first strike")
        + combat({attacker: "B"}, {"knight": attacker})
    )


# -- undying (702.93) -----------------------------------------------------------------------


def test_undying_attacker_returns_not_attacking(resolve: Resolve) -> None:
    """702.93a, 400.7 (the w4 example): the knight's 3 first-strike damage kills the 2/2
    beast (3 >= 2); it had no +1/+1 counter, so it returns with one: 2+1/2+1 = 3/3, no damage.
    It is a new object, not attacking: it deals no regular damage, trample or not, and B keeps
    20 life."""
    out = resolve(first_striker_blocks("beast", ("undying", "trample")))
    assert dealt(out, "first-strike") == {("knight", "beast", 3)}
    assert step(out, "first-strike")["died"] == ["beast"]
    assert step(out, "regular")["damage"] == [] and step(out, "regular")["died"] == []
    assert final(out, "beast") == (True, 0, 3, 3, {"+1/+1": 1})
    assert out["players"]["B"]["life"] == 20
    assert final(out, "knight")[:2] == (True, 0)


def test_undying_with_a_plus_counter_stays_dead(resolve: Resolve) -> None:
    """702.93a's condition: with a +1/+1 counter the beast is 3/3; the knight's 3 kill it and
    it stays in the graveyard, counter and all (the output keeps its last counters)."""
    out = resolve(first_striker_blocks("beast", ("undying",), counters={"+1/+1": 1}))
    assert step(out, "first-strike")["died"] == ["beast"]
    assert final(out, "beast") == (False, 3, 3, 3, {"+1/+1": 1})


def test_a_returned_blocker_no_longer_blocks_and_the_attacker_stays_blocked(
    resolve: Resolve,
) -> None:
    """400.7, 509.1h: A's 2/2 double striker is blocked by B's 2/2 undying wall; its 2
    first-strike damage kill the wall, which returns 3/3, not blocking. In the regular step
    the attacker is still blocked, by nobody, and has no trample: it deals no damage (B: 20),
    and the wall, not blocking, deals none either."""
    out = resolve(
        TWO
        + creature("duelist", "A", 2, 2, "double strike")
        + creature("wall", "B", 2, 2, "undying")
        + combat({"duelist": "B"}, {"wall": "duelist"})
    )
    assert dealt(out, "first-strike") == {("duelist", "wall", 2)}
    assert step(out, "regular")["damage"] == []
    assert final(out, "wall") == (True, 0, 3, 3, {"+1/+1": 1})
    assert final(out, "duelist")[:2] == (True, 0)
    assert out["players"]["B"]["life"] == 20


def test_a_later_event_acts_on_the_new_object(resolve: Resolve) -> None:
    """400.7: the beast gets +1/+1 before damage (3/3) and the knight's 3 kill it. What returns
    is 2/2 + the counter = 3/3: the old pump is gone. An event after first strike naming
    `beast` acts on the new object: +2/+0 and 1 damage: 5/3 with 1 damage, alive."""
    out = resolve(
        first_striker_blocks("beast", ("undying",))
        + event("declare-blockers", "pump", target="beast", power=1, toughness=1)
        + event("after first-strike", "pump", target="beast", power=2, toughness=0)
        + event("after first-strike", "damage", target="beast", amount=1)
    )
    assert step(out, "first-strike")["died"] == ["beast"]
    assert final(out, "beast") == (True, 1, 5, 3, {"+1/+1": 1})


def test_a_destroy_event_kills_it_and_it_returns(resolve: Resolve) -> None:
    """700.4: destroyed by an event, the undying bear dies and returns 3/3 with its counter;
    destroyed again after first strike, it had a +1/+1 counter and stays dead. No step lists
    an event's deaths."""
    text = (
        TWO
        + creature("bear", "A", 2, 2, "undying")
        + creature("elf", "A", 1, 1)
        + combat({"elf": "B"})
        + event("declare-blockers", "destroy", target="bear")
    )
    out = resolve(text)
    assert final(out, "bear") == (True, 0, 3, 3, {"+1/+1": 1})
    out = resolve(text + event("after regular", "destroy", target="bear"))
    assert final(out, "bear") == (False, 0, 3, 3, {"+1/+1": 1})
    assert all(s["died"] == [] for s in out["steps"])


def test_a_returned_decayed_attacker_is_not_sacrificed(resolve: Resolve) -> None:
    """400.7: decayed's delayed trigger (sacrifice at end of combat) was set up for the
    attacking object; the beast that returns 3/3 is a new object, and stays."""
    out = resolve(first_striker_blocks("beast", ("undying", "decayed")))
    assert final(out, "beast") == (True, 0, 3, 3, {"+1/+1": 1})


def test_a_token_does_not_return(resolve: Resolve) -> None:
    """111.8: Battery's 3/3 Elephant token gains undying and is destroyed: it doesn't return.
    The same events on the 2/2 bear, not a token: it returns 3/3."""
    out = resolve(
        TWO
        + creature("bear", "A", 2, 2)
        + creature("elf", "A", 1, 1)
        + combat({"elf": "B"})
        + event("declare-blockers", "cast", card="Battery", caster="A", token="elephant")
        + event("declare-blockers", "grant", target="elephant", keywords=["undying"])
        + event("declare-blockers", "grant", target="bear", keywords=["undying"])
        + event("declare-blockers", "destroy", target="elephant")
        + event("declare-blockers", "destroy", target="bear")
    )
    assert out["creatures"]["elephant"]["alive"] is False
    assert final(out, "bear") == (True, 0, 3, 3, {"+1/+1": 1})


# -- persist (702.79) -----------------------------------------------------------------------


def test_persist_attacker_returns_with_a_minus_counter(resolve: Resolve) -> None:
    """702.79a: the knight's 3 kill the 2/2 kithkin, which returns with a -1/-1 counter:
    2-1/2-1 = 1/1, not attacking: no regular damage, B keeps 20."""
    out = resolve(first_striker_blocks("kithkin", ("persist",)))
    assert step(out, "first-strike")["died"] == ["kithkin"]
    assert step(out, "regular")["damage"] == []
    assert final(out, "kithkin") == (True, 0, 1, 1, {"-1/-1": 1})
    assert out["players"]["B"]["life"] == 20


def test_persist_with_a_minus_counter_stays_dead(resolve: Resolve) -> None:
    """702.79a's condition: a 3/3 with a -1/-1 counter is 2/2; the knight's 3 kill it, and it
    had a -1/-1 counter: it stays dead."""
    out = resolve(
        first_striker_blocks("kithkin", ("persist",), counters={"-1/-1": 1}).replace(
            "power = 2\ntoughness = 2", "power = 3\ntoughness = 3", 1
        )
    )
    assert final(out, "kithkin") == (False, 3, 2, 2, {"-1/-1": 1})


def test_a_one_one_persists_as_zero_zero_and_dies_again(resolve: Resolve) -> None:
    """704.5f after 702.79a: a 1/1 persist returns as 1-1/1-1 = 0/0 and dies at the next
    check; it has a -1/-1 counter now, so it stays dead. It died twice in the step, and the
    step lists it twice (RULES 11.11)."""
    out = resolve(
        TWO
        + creature("sprite", "A", 1, 1, "persist")
        + creature("knight", "B", 3, 3, "first strike")
        + combat({"sprite": "B"}, {"knight": "sprite"})
    )
    assert step(out, "first-strike")["died"] == ["sprite", "sprite"]
    assert final(out, "sprite") == (False, 0, 0, 0, {"-1/-1": 1})


def test_persist_then_undying(resolve: Resolve) -> None:
    """Both on a 1/1: persist (first, by plugin name) returns it 0/0 with a -1/-1 counter; it
    dies again (704.5f); it had no +1/+1 counter, so undying returns a new object: 1+1/1+1 =
    2/2 with only the +1/+1 counter. It died twice in the step: listed twice (RULES
    11.11)."""
    out = resolve(
        TWO
        + creature("sprite", "A", 1, 1, "persist", "undying")
        + creature("knight", "B", 3, 3, "first strike")
        + combat({"sprite": "B"}, {"knight": "sprite"})
    )
    assert step(out, "first-strike")["died"] == ["sprite", "sprite"]
    assert final(out, "sprite") == (True, 0, 2, 2, {"+1/+1": 1})


def test_blocking_the_undying_plugin_makes_it_unknown(registry: Registry) -> None:
    """The keyword is the plugin's: without pt_counters' +1/+1 kind it is unavailable."""
    from ecs_combat import load_registry

    bare = load_registry(load=["ecs_combat_keywords.undying"], autoload=False)
    doc = tomllib.loads(first_striker_blocks("beast", ("undying",)).replace('"first strike"', ""))
    with pytest.raises(InputError) as caught:
        parse_scenario(doc, bare, "t.toml")
    assert "undying" in str(caught.value) and "+1/+1" in str(caught.value)
    assert "undying" in registry.keywords and "persist" in registry.keywords


# -- in a turn (RULES 8) ------------------------------------------------------------------------

TURN = """
[players.A]
[players.B]

[creatures.knight]
controller = "A"
power = 2
toughness = 4
keywords = [{knight}]

[creatures.ogre]
controller = "B"
power = 4
toughness = 4
keywords = ["first strike"]

[creatures.wolf]
card = "Throat Wolf"
controller = "B"

[[combats]]
attackers = {{ knight = "B" }}
blockers = {{ ogre = "knight" }}

[[combats]]
attackers = {{ wolf = "A" }}
blockers = {{ knight = "wolf" }}
"""


@pytest.fixture(params=["reference", "batched"])
def resolve_turn(request: pytest.FixtureRequest, registry: Registry) -> ResolveTurn:
    return turn_resolver(request.param, registry)


def test_the_returned_creature_blocks_in_a_later_combat(resolve_turn: ResolveTurn) -> None:
    """RULES 10, 400.7: combat 1: the ogre's 4 first-strike damage kill the attacking 2/4
    knight, tapped by attacking; it returns untapped, 3/5 with a +1/+1 counter. Combat 2 (B's
    Throat Wolf, 3/1 firstest strike): it blocks the Wolf, takes 3 (< 5) and deals 3 (>= 1)
    in the regular step: the Wolf dies; A keeps 20."""
    out = resolve_turn(TURN.format(knight='"undying"'))
    first, second = out["combats"]
    assert step(first, "first-strike")["died"] == ["knight"]
    assert step(first, "regular")["damage"] == []
    assert dealt(second, "firstest-strike") == {("wolf", "knight", 3)}
    assert dealt(second, "regular") == {("knight", "wolf", 3)}
    assert final(out, "knight") == (True, 3, 3, 5, {"+1/+1": 1})
    assert out["creatures"]["wolf"]["alive"] is False
    assert out["players"]["A"]["life"] == 20


def test_the_returned_creature_is_summoning_sick(registry: Registry) -> None:
    """302.6: the new object came under A's control this turn: it may not attack again."""
    turn = turn_of(TURN.format(knight='"undying"'), registry)
    from ecs_combat.batched.engine import BatchedEngine
    from ecs_combat.reference.engine import ReferenceEngine

    for result in (
        ReferenceEngine(registry).resolve_turn(turn),
        BatchedEngine(registry).resolve_turns([turn])[0],
    ):
        knight = result.creatures["knight"]
        assert (knight.alive, knight.tapped, knight.may_attack) == (True, False, False)


# -- decisions (RULES 9) ----------------------------------------------------------------------


def scores(decision: Decision) -> dict[str, tuple[int, ...]]:
    """Each declaration's score, by its blockers as text."""
    return {str(c.blockers): tuple(c.score[t] for t in decision.objective) for c in decision.best}


def test_material_counts_value_minus_what_returned(registry: Registry) -> None:
    """RULES 9: A's 2/2 undying beast attacks; B's 3/3 ogre may block. Blocking: the beast
    dies (value 2+2 = 4) and returns 3/3 (3+3 = 6): A's material lost 4 - 6 = -2, so material
    = 0 - (-2) = 2; the ogre takes 2 < 3. Not blocking: B loses 2 life. B minimises (game,
    material, life, poison): (0, 0, 2, 0) < (0, 2, 0, 0): no block. (Counting the beast as
    dead, 4, would make blocking (0, -4, 0, 0) the best.)"""
    text = (
        TWO
        + creature("beast", "A", 2, 2, "undying")
        + creature("ogre", "B", 3, 3)
        + combat({"beast": "B"})
    )
    sc = parse_scenario(tomllib.loads(text), registry, "t.toml", blocks_to_decide=True)
    d = best_blocks(sc, registry)
    assert scores(d) == {"{}": (0, 0, 2, 0), "{'ogre': 'beast'}": (0, 2, 0, 0)}
    assert d.best[0].blockers == {}


def test_material_of_a_persisting_creature(registry: Registry) -> None:
    """RULES 9: A's 2/2 persist kithkin, blocked by B's 3/3: it dies (4) and returns 1/1 (2):
    material 0 - (4 - 2) = -2. With `value = 10` what returned has that value too: 10 - 10 =
    0. Not blocking: life 2 either way."""
    text = (
        TWO
        + creature("kithkin", "A", 2, 2, "persist")
        + creature("ogre", "B", 3, 3)
        + combat({"kithkin": "B"})
    )
    sc = parse_scenario(tomllib.loads(text), registry, "t.toml", blocks_to_decide=True)
    assert scores(best_blocks(sc, registry)) == {
        "{'ogre': 'kithkin'}": (0, -2, 0, 0),
        "{}": (0, 0, 2, 0),
    }
    keyed = text.replace('keywords = ["persist"]', 'keywords = ["persist"]\nvalue = 10')
    sc = parse_scenario(tomllib.loads(keyed), registry, "t.toml", blocks_to_decide=True)
    assert scores(best_blocks(sc, registry)) == {
        "{'ogre': 'kithkin'}": (0, 0, 0, 0),
        "{}": (0, 0, 2, 0),
    }


# -- the engines agree --------------------------------------------------------------------------

KIT = registry_with()


@settings(
    max_examples=150,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    scenarios(
        KIT,
        keywords=[
            "undying",
            "persist",
            "first strike",
            "double strike",
            "deathtouch",
            "wither",
            "trample",
            "decayed",
            "training",
            "indestructible",
        ],
    )
)
def test_engines_agree_with_returning_creatures(doc: dict[str, Any]) -> None:
    """CONTRACT.md 2: creatures dying and returning among the strike steps, -1/-1 counters
    (wither against persist), deathtouch, decayed's mark and attack triggers."""
    assert_engines_agree(KIT, doc)


def test_a_sacrificed_decayed_persister_returns(resolve: Resolve) -> None:
    """702.147a, 701.17, 702.79a: the unblocked 2/2 decayed persist zombie deals 2 to B and is
    sacrificed at end of combat: it dies and returns 1/1 with a -1/-1 counter. A 1/1 one
    returns 0/0 and dies again (704.5f)."""
    out = resolve(
        TWO + creature("zombie", "A", 2, 2, "decayed", "persist") + combat({"zombie": "B"})
    )
    assert out["players"]["B"]["life"] == 18
    assert final(out, "zombie") == (True, 0, 1, 1, {"-1/-1": 1})
    out = resolve(
        TWO + creature("zombie", "A", 1, 1, "decayed", "persist") + combat({"zombie": "B"})
    )
    assert final(out, "zombie") == (False, 0, 0, 0, {"-1/-1": 1})
