"""State-based actions happen at once (704.3, RULES 11.1) and a creature that leaves before
blockers are declared doesn't block (RULES 11.2-11.3, section 13's decisions of version 1.3),
on both engines (the `resolve` fixture). Expected values derived by hand from the rules."""

from __future__ import annotations

import io
import tomllib
from typing import Any

import pytest
from conftest import Resolve, bundled_registry, text_resolver
from harm_plugin import Harm
from rich.console import Console
from scenario_text import combat, creature

from ecs_combat import InputError, Registry, parse_scenario
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.console.account import render
from ecs_combat.decisions import best_blocks
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.scenario.turn_loader import parse_turn

TWO = "[players.A]\n[players.B]\n"


def final(out: dict[str, Any], cid: str) -> tuple[bool, int, int, int, dict[str, int]]:
    """(alive, damage, power, toughness, counters) at the end."""
    c = out["creatures"][cid]
    return c["alive"], c["damage"], c["power"], c["toughness"], c["counters"]


# -- 11.1: one check, every action at once (704.3, 704.5f-g, 704.5q) -------------------------


def test_persist_creature_killed_as_its_counters_annihilate_does_not_return(
    resolve: Resolve,
) -> None:
    """704.3, 704.5g, 704.5q, 702.79: B's 2/2 persist husk with a +1/+1 counter (3/3) blocks
    A's 1/1 wither stinger and 2/2 bear. The stinger's 1 is a -1/-1 counter (2/2 with both
    counters), the bear's 2 is lethal. In one check the husk dies and the counters would
    annihilate: it dies with both, so it "had a -1/-1 counter" and persist does nothing (before
    the fix the annihilation came first and the husk returned 1/1). The husk's 3 go 1 to the
    stinger and 2 to the bear (default division): both die; B stays at 20."""
    out = resolve(
        TWO
        + creature("stinger", "A", 1, 1, "wither")
        + creature("bear", "A", 2, 2)
        + creature(
            "husk", "B", 2, 2, "persist", "can block an additional creature", counters={"+1/+1": 1}
        )
        + combat({"stinger": "B", "bear": "B"}, {"husk": ["stinger", "bear"]})
    )
    assert set(out["steps"][0]["died"]) == {"stinger", "bear", "husk"}
    assert final(out, "husk")[0] is False
    assert final(out, "husk")[4] == {"+1/+1": 1, "-1/-1": 1}
    assert out["players"]["B"]["life"] == 20


def test_undying_creature_at_toughness_0_with_a_plus_counter_does_not_return(
    resolve: Resolve,
) -> None:
    """704.3, 704.5f, 702.93: B's 2/2 undying troll with a +1/+1 counter (3/3) blocks A's 3/3
    wither stinger: three -1/-1 counters, toughness 0. In the same check it dies and one pair
    of counters would annihilate: it dies with +1/+1 x1 and -1/-1 x3, had a +1/+1 counter, and
    doesn't return (before the fix: 2/2 with a +1/+1 counter, alive). Its 3 damage kill the
    stinger (3 >= 3)."""
    out = resolve(
        TWO
        + creature("stinger", "A", 3, 3, "wither")
        + creature("troll", "B", 2, 2, "undying", counters={"+1/+1": 1})
        + combat({"stinger": "B"}, {"troll": "stinger"})
    )
    assert set(out["steps"][0]["died"]) == {"stinger", "troll"}
    assert final(out, "troll")[0] is False
    assert final(out, "troll")[4] == {"+1/+1": 1, "-1/-1": 3}


def test_a_survivor_of_the_check_has_its_counters_annihilated_in_it(resolve: Resolve) -> None:
    """704.3, 704.5q, 702.12: an indestructible 2/2 wall with a +1/+1 counter blocks the 1/1
    wither stinger and the 2/2 bear: a -1/-1 counter and 2 damage, lethal but indestructible.
    It stays, and in that same check the counters annihilate: 2/2 with none, 2 damage marked.
    Its 3 damage kill both attackers (1 and 2)."""
    out = resolve(
        TWO
        + creature("stinger", "A", 1, 1, "wither")
        + creature("bear", "A", 2, 2)
        + creature(
            "wall",
            "B",
            2,
            2,
            "indestructible",
            "can block an additional creature",
            counters={"+1/+1": 1},
        )
        + combat({"stinger": "B", "bear": "B"}, {"wall": ["stinger", "bear"]})
    )
    assert final(out, "wall") == (True, 2, 2, 2, {})
    assert set(out["steps"][0]["died"]) == {"stinger", "bear"}


def test_counters_annihilate_as_combat_begins(resolve: Resolve) -> None:
    """RULES 13 (version 1.3), 704.5q: a 2/2 with two +1/+1 and one -1/-1 counters has one
    pair annihilated at the first state-based check, as combat begins: 3/3 with one +1/+1
    counter at the end, even though no creature attacks (before: both kinds stayed)."""
    out = resolve(TWO + creature("bear", "B", 2, 2, counters={"+1/+1": 2, "-1/-1": 1}) + combat({}))
    assert final(out, "bear") == (True, 0, 3, 3, {"+1/+1": 1})


def test_undying_creature_with_both_counters_at_the_start_returns(resolve: Resolve) -> None:
    """RULES 13 (version 1.3), 702.93: B's 2/2 undying troll starts with a +1/+1 and a -1/-1
    counter; they annihilate as combat begins (2/2, none). It blocks A's 3/3 ogre and dies
    with no +1/+1 counter: it returns with one, 3/3, a new object (before: it died with the
    +1/+1 counter and stayed dead). The ogre takes 2."""
    out = resolve(
        TWO
        + creature("ogre", "A", 3, 3)
        + creature("troll", "B", 2, 2, "undying", counters={"+1/+1": 1, "-1/-1": 1})
        + combat({"ogre": "B"}, {"troll": "ogre"})
    )
    assert out["steps"][0]["died"] == ["troll"]
    assert final(out, "troll") == (True, 0, 3, 3, {"+1/+1": 1})
    assert final(out, "ogre")[:2] == (True, 2)


# -- 11.2: scenarios start legal ------------------------------------------------------------


@pytest.mark.parametrize(
    ("counters", "says"),
    [
        ({"-1/-1": 1}, "toughness 0 (1 and its counters)"),
        ({"-1/-1": 3, "+1/+1": 1}, "toughness -1 (1 and its counters)"),
    ],
)
def test_toughness_0_or_less_with_counters_is_an_input_error(
    registry: Registry, counters: dict[str, int], says: str
) -> None:
    """RULES 11.2, 704.5f: printed toughness 1 with counters that bring it to 0 or less is
    an input error at ``creatures.<id>.counters`` (the -1/-1 counters count before any
    annihilation: 1 - 3 + 1 = -1)."""
    text = TWO + creature("b1", "B", 0, 1, counters=counters) + combat({})
    with pytest.raises(InputError) as info:
        parse_scenario(tomllib.loads(text), registry, "t.toml")
    assert info.value.path == "creatures.b1.counters"
    assert says in str(info.value)
    assert "can't be on the battlefield (704.5f)" in str(info.value)


# -- 11.3: a creature that leaves before blockers are declared doesn't block -----------------


@pytest.fixture(scope="module", params=("reference", "batched"))
def harmed(request: pytest.FixtureRequest) -> Resolve:
    """Resolve with the bundled plugins and the test keywords ``blight`` and ``cull``."""
    return text_resolver(request.param, bundled_registry(extra=(Harm(),)))


def test_blocker_sacrificed_by_an_attack_trigger_does_not_block(harmed: Resolve) -> None:
    """RULES 11.3, 701.17, 509.1a: A's 2/2 culler attacks; its trigger makes B sacrifice its
    0/1 wall, listed as the culler's blocker. The wall is gone before blocks: it doesn't
    block, and the culler, with no declared blocker, is unblocked (509.1h is for creatures
    declared blocking): 2 to B (18). Before the fix the batched engine kept the block (B at
    20)."""
    out = harmed(
        TWO
        + creature("culler", "A", 2, 2, "cull")
        + creature("wall", "B", 0, 1)
        + combat({"culler": "B"}, {"wall": "culler"})
    )
    assert out["players"]["B"]["life"] == 18
    assert final(out, "wall")[0] is False
    assert out["steps"][0]["damage"] == [{"source": "culler", "target": "B", "amount": 2}]


def test_blocker_killed_by_counters_from_an_attack_trigger_does_not_block(
    harmed: Resolve,
) -> None:
    """RULES 11.3, 704.5f, 704.3: the blighter's trigger puts a -1/-1 counter on B's 1/1:
    toughness 0, and the state-based actions after the trigger put it into the graveyard
    before blocks. The 1/1 blighter is unblocked: B at 19 (before: batched 20)."""
    out = harmed(
        TWO
        + creature("blighter", "A", 1, 1, "blight")
        + creature("b1", "B", 1, 1)
        + combat({"blighter": "B"}, {"b1": "blighter"})
    )
    assert out["players"]["B"]["life"] == 19
    assert final(out, "b1")[0] is False


def test_blocker_that_returned_as_a_new_object_does_not_block(harmed: Resolve) -> None:
    """RULES 13 (version 1.3), 400.7, 702.93: B's 1/1 undying troll, listed as the blighter's
    blocker, gets a -1/-1 counter from the attack trigger and dies (0/0); undying returns it
    with a +1/+1 counter, 2/2, a new object, which was never declared as a blocker: it doesn't
    block (before the fix the reference engine let it block and kill the blighter). The
    blighter deals 1 to B (19) and lives."""
    out = harmed(
        TWO
        + creature("blighter", "A", 1, 1, "blight")
        + creature("troll", "B", 1, 1, "undying")
        + combat({"blighter": "B"}, {"troll": "blighter"})
    )
    assert out["players"]["B"]["life"] == 19
    assert final(out, "troll") == (True, 0, 2, 2, {"+1/+1": 1})
    assert final(out, "blighter")[:2] == (True, 0)


def test_the_other_blocker_still_blocks(harmed: Resolve) -> None:
    """RULES 11.3: the culler's trigger makes B sacrifice its 0/1 wall; B's 3/3 ogre, the
    other listed blocker, still blocks the 2/2 culler: 2 to the ogre, 3 to the culler, which
    dies. B stays at 20."""
    out = harmed(
        TWO
        + creature("culler", "A", 2, 2, "cull")
        + creature("wall", "B", 0, 1)
        + creature("ogre", "B", 3, 3)
        + combat({"culler": "B"}, {"wall": "culler", "ogre": "culler"})
    )
    assert out["players"]["B"]["life"] == 20
    assert out["steps"][0]["died"] == ["culler"]
    assert final(out, "ogre")[:2] == (True, 2)


def test_menace_blocks_broken_by_a_departure_are_an_input_error() -> None:
    """RULES 13 (version 1.3), 702.111b: B lists its 0/1 wall and 2/2 bear as the blockers
    of A's menace culler; the culler's trigger sacrifices the wall, and the bear alone can't
    block a creature with menace: an input error at ``combat.blockers``."""
    registry = bundled_registry(extra=(Harm(),))
    text = (
        TWO
        + creature("culler", "A", 2, 2, "cull", "menace")
        + creature("wall", "B", 0, 1)
        + creature("bear", "B", 2, 2)
        + combat({"culler": "B"}, {"wall": "culler", "bear": "culler"})
    )
    with pytest.raises(InputError) as info:
        parse_scenario(tomllib.loads(text), registry, "t.toml")
    assert info.value.path == "combat.blockers"
    assert "'wall' left the battlefield before blockers were declared" in str(info.value)
    assert "menace" in str(info.value)


@pytest.mark.parametrize("engine", ["reference", "batched"])
def test_the_account_does_not_say_a_departed_blocker_blocks(engine: str) -> None:
    """Issue 30, item 8: the 0/1 wall listed as the culler's blocker is sacrificed by the
    attack trigger; the readable account shows no "Blocking: wall blocks culler" line (it
    doesn't block), and the reference engine's says why."""
    registry = bundled_registry(extra=(Harm(),))
    text = (
        TWO
        + creature("culler", "A", 2, 2, "cull")
        + creature("wall", "B", 0, 1)
        + creature("ogre", "B", 3, 3)
        + combat({"culler": "B"}, {"wall": "culler", "ogre": "culler"})
    )
    scenario = parse_scenario(tomllib.loads(text), registry, "t.toml")
    engine_of = ReferenceEngine(registry) if engine == "reference" else BatchedEngine(registry)
    (result,) = engine_of.resolve_many([scenario])
    buffer = io.StringIO()
    render(scenario, result, Console(file=buffer, width=200))
    lines = buffer.getvalue().splitlines()
    assert "Blocking: ogre blocks culler" in lines
    assert not any("wall blocks" in line for line in lines)
    if engine == "reference":
        assert any(
            "wall left the battlefield before blockers were declared" in line for line in lines
        )


def test_empty_keywords_beside_a_card_remove_its_keywords(resolve: Resolve) -> None:
    """RULES 11.10 and 13 (version 1.3): ``keywords = []`` beside ``card`` replaces the card's
    keyword list with none. Two-Headed Cerberus (1/2, double strike) without its keywords,
    blocked by a 2/2: one regular step only (no first-strike step), 1 damage to the bear and
    2 to the Cerberus, which dies."""
    out = resolve(
        TWO
        + '[creatures.dog]\ncontroller = "A"\ncard = "Two-Headed Cerberus"\nkeywords = []\n'
        + creature("bear", "B", 2, 2)
        + combat({"dog": "B"}, {"bear": "dog"})
    )
    assert [s["name"] for s in out["steps"]] == ["regular"]
    assert out["steps"][0]["died"] == ["dog"]
    assert final(out, "bear")[:2] == (True, 1)


@pytest.mark.parametrize("engine", ["reference", "batched"])
def test_in_a_turn_a_departed_blocker_does_not_block(engine: str) -> None:
    """RULES 11.3 in a turn's combat phase (the turn engines check blocks as they are
    declared): the culler's trigger makes B sacrifice its 0/1 wall; B's 3/3 ogre still blocks
    the 2/2 culler, which dies; B stays at 20. With menace on the culler the ogre alone can't
    block it: an input error at ``combats[0].blockers``."""
    registry = bundled_registry(extra=(Harm(),))

    def turn(*keywords: str) -> Any:
        doc = {
            "players": {"A": {}, "B": {}},
            "turn": {},
            "creatures": {
                "culler": {"controller": "A", "power": 2, "toughness": 2},
                "wall": {"controller": "B", "power": 0, "toughness": 1},
                "ogre": {"controller": "B", "power": 3, "toughness": 3},
            },
            "combats": [
                {"attackers": {"culler": "B"}, "blockers": {"wall": "culler", "ogre": "culler"}}
            ],
        }
        doc["creatures"]["culler"]["keywords"] = ["cull", *keywords]
        return parse_turn(doc, registry, "turn.json")

    def resolve_turn(t: Any) -> dict[str, Any]:
        if engine == "reference":
            return ReferenceEngine(registry).resolve_turn(t).to_json()
        (out,) = BatchedEngine(registry).resolve_turns([t])
        return out.to_json()

    out = resolve_turn(turn())
    (phase,) = out["combats"]
    assert phase["steps"][0]["died"] == ["culler"]
    assert out["players"]["B"]["life"] == 20
    assert out["creatures"]["wall"]["alive"] is False
    with pytest.raises(InputError) as info:
        resolve_turn(turn("menace"))
    assert info.value.path == "combats[0].blockers"
    assert "'wall' left the battlefield before blockers were declared" in str(info.value)


def test_best_blocks_never_offer_a_creature_gone_before_blocks() -> None:
    """Issue 30 item 2: B's 0/1 wall and 2/2 bear face A's 2/2 culler; the culler's trigger
    sacrifices the wall before blocks, so the defending player chooses between the bear
    blocking and nothing: 2 declarations, none with the wall (before the fix, 4). RULES 9's
    score from A's side: the sacrificed wall is material 1 either way; the bear blocking trades
    (material 1 + 4 - 4 = 1, life 0), not blocking costs B 2 life (material 1, life 2): B
    minimises, so the block is best."""
    registry = bundled_registry(extra=(Harm(),))
    text = (
        TWO
        + creature("culler", "A", 2, 2, "cull")
        + creature("wall", "B", 0, 1)
        + creature("bear", "B", 2, 2)
        + combat({"culler": "B"})
    )
    scenario = parse_scenario(tomllib.loads(text), registry, "t.toml", blocks_to_decide=True)
    decision = best_blocks(scenario, registry, top=4)
    assert decision.declarations == 2
    assert [c.blockers for c in decision.best] == [{"bear": "culler"}, {}]
