"""A turn with several combat phases in the batched engine (RULES.md section 8).

Expected values are derived by hand from the rules; each turn is also resolved by the reference
engine (`ReferenceEngine.resolve_turn`) and must agree.
"""

from __future__ import annotations

from typing import Any

import pytest
from turn_building import build_turn

from ecs_combat import CastInMain, InputError, Registry
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.scenario.turns import TurnScenario

WOLF = {
    "card": "Throat Wolf",
    "name": "Throat Wolf",
    "power": 3,
    "toughness": 1,
    "keywords": ["firstest strike"],
}


def wolf(controller: str) -> dict[str, Any]:
    return {**WOLF, "controller": controller}


def resolve(registry: Registry, *turns: TurnScenario) -> list[dict[str, Any]]:
    """Resolve turns in one batch; the JSON documents (checked against the reference engine)."""
    out = [r.to_json() for r in BatchedEngine(registry).resolve_turns(list(turns))]
    reference = ReferenceEngine(registry)
    assert out == [reference.resolve_turn(t).to_json() for t in turns]
    return out


def knight_turn(registry: Registry, toughness: int, keywords: list[str]) -> TurnScenario:
    """RULES 8: A's 2/T knight attacks and a 2/2 bear blocks it; then B's Throat Wolf attacks in
    its own combat phase (after A's first combat) and the knight blocks it."""
    return build_turn(
        registry,
        {"A": {}, "B": {}},
        {
            "knight": {
                "name": "Knight",
                "controller": "A",
                "power": 2,
                "toughness": toughness,
                "keywords": keywords,
            },
            "bear": {"name": "Bear", "controller": "B", "power": 2, "toughness": 2},
            "wolf": wolf("B"),
        },
        [
            {"attackers": {"knight": "B"}, "blockers": {"bear": "knight"}},
            {"attackers": {"wolf": "A"}, "blockers": {"knight": "wolf"}},
        ],
    )


def test_phases_and_attacking_players(registry: Registry) -> None:
    """RULES 8: [A, B], a Wolf for B, A's turn -> combat phases A, B."""
    (out,) = resolve(registry, knight_turn(registry, 4, ["vigilance"]))
    assert [(p["phase"], p["player"]) for p in out["phases"]] == [
        ("main", "A"),
        ("combat", "A"),
        ("combat", "B"),
        ("main", "A"),
    ]
    assert [c["player"] for c in out["combats"]] == ["A", "B"]


def test_damage_stays_marked_into_the_wolf_combat(registry: Registry) -> None:
    """RULES 8 (120.6): the 2/4 vigilance knight takes 2 from the bear in combat 1, then 3
    from the firstest-striking Wolf in combat 2: 5 damage, it dies before striking back."""
    (out,) = resolve(registry, knight_turn(registry, 4, ["vigilance"]))
    first, second = out["combats"]
    assert [s["name"] for s in first["steps"]] == ["regular"]
    assert first["steps"][0]["died"] == ["bear"]
    assert [s["name"] for s in second["steps"]] == ["firstest-strike", "regular"]
    assert second["steps"][0]["damage"] == [{"source": "wolf", "target": "knight", "amount": 3}]
    assert second["steps"][0]["died"] == ["knight"]
    assert second["steps"][1]["damage"] == []
    c = out["creatures"]
    assert (c["knight"]["alive"], c["knight"]["damage"]) == (False, 5)
    assert (c["bear"]["alive"], c["bear"]["damage"]) == (False, 2)
    assert (c["wolf"]["alive"], c["wolf"]["damage"]) == (True, 0)
    assert [(p["life"], p["lost"]) for p in out["players"].values()] == [(20, False)] * 2


def test_strikers_are_cleared_per_combat_phase(registry: Registry) -> None:
    """RULES 8: a 2/6 knight that struck in combat 1's regular step strikes again in combat
    2's regular step (strikers are per phase): 5 damage < 6, it kills the 3/1 Wolf."""
    (out,) = resolve(registry, knight_turn(registry, 6, ["vigilance"]))
    regular = out["combats"][1]["steps"][1]
    assert regular["damage"] == [{"source": "knight", "target": "wolf", "amount": 2}]
    assert regular["died"] == ["wolf"]
    assert out["creatures"]["knight"]["damage"] == 5
    assert out["creatures"]["knight"]["alive"] is True


def test_tapped_attacker_cannot_block_later(registry: Registry) -> None:
    """RULES 8 (508.1f, 509.1a): without vigilance the knight is tapped by attacking, so
    blocking the Wolf in combat 2 is an input error naming the place."""
    turn = knight_turn(registry, 4, [])
    with pytest.raises(InputError) as caught:
        BatchedEngine(registry).resolve_turns([turn])
    assert caught.value.path == "combats[1].blockers.knight"
    assert "tapped" in str(caught.value)


def test_dead_creature_cannot_block_later(registry: Registry) -> None:
    """RULES 8: dead creatures stay dead: the bear died in combat 1 and can't block in 2."""
    turn = build_turn(
        registry,
        {"A": {}, "B": {}},
        {
            "knight": {"name": "Knight", "controller": "A", "power": 2, "toughness": 4},
            "bear": {"name": "Bear", "controller": "B", "power": 2, "toughness": 2},
            "wolf": wolf("A"),
            "wolf_b": wolf("B"),
        },
        [
            {"attackers": {"knight": "B"}, "blockers": {"bear": "knight"}},
            {},
            {"attackers": {"wolf": "B"}, "blockers": {"bear": "wolf"}},
        ],
    )
    with pytest.raises(InputError) as caught:
        BatchedEngine(registry).resolve_turns([turn])
    assert caught.value.path == "combats[2].blockers.bear"
    assert "not on the battlefield" in str(caught.value)


def test_tapped_attacker_cannot_attack_again(registry: Registry) -> None:
    """RULES 8: [A, B], Wolves for both, A's turn -> combats A, B, A. A's Wolf attacked in
    combat 1 without vigilance: tapped, it can't attack in its own combat 3."""
    turn = build_turn(
        registry,
        {"A": {}, "B": {}},
        {"wolf_a": wolf("A"), "wolf_b": wolf("B")},
        [{"attackers": {"wolf_a": "B"}}, {}, {"attackers": {"wolf_a": "B"}}],
    )
    assert [p.player for p in turn.combat_phases()] == ["A", "B", "A"]
    with pytest.raises(InputError) as caught:
        BatchedEngine(registry).resolve_turns([turn])
    assert caught.value.path == "combats[2].attackers.wolf_a"


def test_until_end_of_turn_pump_lasts(registry: Registry) -> None:
    """RULES 8: a pump "until end of turn" in combat 1 (+2/+2 to the 2/4 knight) lasts into
    combat 2: 4/6 with 2 damage takes 3 from the Wolf (5 < 6) and kills it."""
    turn = knight_turn(registry, 4, ["vigilance"])
    turn2 = build_turn(
        registry,
        {"A": {}, "B": {}},
        {
            k: {
                "name": s.name,
                "controller": s.controller,
                "power": s.power,
                "toughness": s.toughness,
                "keywords": list(s.keywords),
                "card": s.card,
            }
            for k, s in turn.creatures.items()
        },
        [
            {
                "attackers": {"knight": "B"},
                "blockers": {"bear": "knight"},
                "events": [
                    {
                        "at": "declare-blockers",
                        "action": "pump",
                        "target": "knight",
                        "power": 2,
                        "toughness": 2,
                    }
                ],
            },
            {"attackers": {"wolf": "A"}, "blockers": {"knight": "wolf"}},
        ],
    )
    (out,) = resolve(registry, turn2)
    k = out["creatures"]["knight"]
    assert (k["alive"], k["damage"], k["power"], k["toughness"]) == (True, 5, 4, 6)
    assert out["creatures"]["wolf"]["alive"] is False
    assert out["combats"][0]["steps"][0]["damage"][0] == {
        "source": "knight",
        "target": "bear",
        "amount": 4,
    }


def test_exalted_triggers_in_each_combat_phase(registry: Registry) -> None:
    """RULES 8 (702.83): exalted works per combat: A's knight attacks alone in combat 1
    (+1/+1 from A's exalted elf), then A's Wolf attacks alone in A's Wolf combat (+1/+1)."""
    turn = build_turn(
        registry,
        {"A": {}, "B": {}},
        {
            "knight": {"name": "Knight", "controller": "A", "power": 2, "toughness": 2},
            "elf": {
                "name": "Elf",
                "controller": "A",
                "power": 1,
                "toughness": 1,
                "keywords": ["exalted"],
            },
            "wolf_a": wolf("A"),
            "wolf_b": wolf("B"),
        },
        [{"attackers": {"knight": "B"}}, {}, {"attackers": {"wolf_a": "B"}}],
    )
    (out,) = resolve(registry, turn)
    assert (out["creatures"]["knight"]["power"], out["creatures"]["wolf_a"]["power"]) == (3, 4)
    assert out["players"]["B"]["life"] == 20 - 3 - 4
    assert out["combats"][1]["steps"] == []


def test_skipped_events_are_per_combat_phase(registry: Registry) -> None:
    """CONTRACT 6: an event of combat 2 whose step does not happen is listed in combat 2's
    skipped events, with its index in that combat's events."""
    turn = build_turn(
        registry,
        {"A": {}, "B": {}},
        {
            "knight": {"name": "Knight", "controller": "A", "power": 2, "toughness": 2},
            "wolf": wolf("B"),
        },
        [
            {"attackers": {"knight": "B"}},
            {
                "attackers": {"wolf": "A"},
                "events": [
                    {
                        "at": "after regular",
                        "action": "pump",
                        "target": "wolf",
                        "power": 1,
                        "toughness": 1,
                    },
                    {
                        "at": "after first-strike",
                        "action": "pump",
                        "target": "wolf",
                        "power": 1,
                        "toughness": 1,
                    },
                ],
            },
        ],
    )
    (out,) = resolve(registry, turn)
    assert out["combats"][0]["skipped_events"] == []
    assert out["combats"][1]["skipped_events"] == [
        {
            "event": 1,
            "at": "after first-strike",
            "action": "pump",
            "reason": "the first-strike step did not take place",
        }
    ]
    assert out["creatures"]["wolf"]["power"] == 4
    assert out["players"]["A"]["life"] == 20 - 3


def test_turns_with_different_phase_counts_in_one_batch(registry: Registry) -> None:
    """Turns with fewer combat phases sit out the later ones: one batch gives each turn's
    result as it is alone."""
    one = build_turn(
        registry,
        {"A": {}, "B": {}},
        {"bear": {"name": "Bear", "controller": "A", "power": 2, "toughness": 2}},
        [{"attackers": {"bear": "B"}}],
    )
    three = knight_turn(registry, 6, ["vigilance"])
    engine = BatchedEngine(registry)
    together = [r.to_json() for r in engine.resolve_turns([one, three, one])]
    alone = [engine.resolve_turns([t])[0].to_json() for t in (one, three, one)]
    assert together == alone
    assert len(together[0]["combats"]) == 1 and len(together[1]["combats"]) == 2
    assert together[0]["players"]["B"]["life"] == 18


def test_main_phase_cast_outside_combat_finds_no_legal_target(registry: Registry) -> None:
    """RULES 8, 608.2b: Hat Trick cast in the precombat main phase targets a "blocking or
    blocked" creature; nothing is in combat then, so it does nothing."""
    turn = build_turn(
        registry,
        {"A": {}, "B": {}},
        {"bear": {"name": "Bear", "controller": "A", "power": 2, "toughness": 2}},
        [{"attackers": {"bear": "B"}}],
        casts=[CastInMain("Hat Trick", "A", 1, target="bear")],
    )
    (out,) = resolve(registry, turn)
    assert out["creatures"]["bear"]["power"] == 2
    assert out["players"]["B"]["life"] == 18


def test_block_triggers_in_apnap_order_of_the_wolf_combat(registry: Registry) -> None:
    """RULES 7 (603.3b) and 8: in B's Throat Wolf combat B is the active player, so A's
    triggers resolve first: the 1/1 bushido blocker gets +1/+1 (2/2) before the Wolf's flanking
    (-1/-1: 1/1), survives the triggers and dies to the Wolf's firstest-strike damage. (With A
    active, flanking would resolve first and kill it before bushido.)"""
    turn = build_turn(
        registry,
        {"A": {}, "B": {}},
        {
            "wolf": {**wolf("B"), "keywords": ["firstest strike", "flanking"]},
            "samurai": {
                "name": "Samurai",
                "controller": "A",
                "power": 1,
                "toughness": 1,
                "keywords": ["bushido 1"],
            },
        },
        [{}, {"attackers": {"wolf": "A"}, "blockers": {"samurai": "wolf"}}],
    )
    (out,) = resolve(registry, turn)
    (firstest,) = out["combats"][1]["steps"][:1]
    assert firstest["name"] == "firstest-strike"
    assert firstest["damage"] == [{"source": "wolf", "target": "samurai", "amount": 3}]
    assert firstest["died"] == ["samurai"]
    s = out["creatures"]["samurai"]
    assert (s["alive"], s["damage"], s["power"], s["toughness"]) == (False, 3, 1, 1)


def test_tapped_and_may_attack_at_the_end_of_the_turn(registry: Registry) -> None:
    """RULES 8 (508.1f, 302.6): the knight that attacked without vigilance ends the turn tapped
    and can't attack again; the vigilant one is untapped and could; the summoning-sick bear
    could not; the dead one neither."""
    turn = build_turn(
        registry,
        {"A": {}, "B": {}},
        {
            "knight": {"name": "Knight", "controller": "A", "power": 2, "toughness": 4},
            "guard": {
                "name": "Guard",
                "controller": "A",
                "power": 1,
                "toughness": 4,
                "keywords": ["vigilance"],
            },
            "cub": {
                "name": "Cub",
                "controller": "A",
                "power": 1,
                "toughness": 1,
                "summoning_sick": True,
            },
            "bear": {"name": "Bear", "controller": "B", "power": 2, "toughness": 2},
        },
        [{"attackers": {"knight": "B", "guard": "B"}, "blockers": {"bear": "knight"}}],
    )
    (result,) = BatchedEngine(registry).resolve_turns([turn])
    state = {cid: (c.tapped, c.may_attack) for cid, c in result.creatures.items()}
    assert state == {
        "knight": (True, False),
        "guard": (False, True),
        "cub": (False, False),
        "bear": (False, False),
    }
    ref = ReferenceEngine(registry).resolve_turn(turn)
    assert {cid: (c.tapped, c.may_attack) for cid, c in ref.creatures.items()} == state


def test_creature_entering_in_combat_is_summoning_sick_later(registry: Registry) -> None:
    """RULES 8, 302.6: a creature that entered during combat 1 came under its controller's
    control this turn: attacking with it in A's later combat phase is an input error naming
    the place."""
    cub = {"id": "cub", "name": "Cub", "controller": "A", "power": 1, "toughness": 1}
    turn = build_turn(
        registry,
        {"A": {}, "B": {}},
        {
            "bear": {"name": "Bear", "controller": "A", "power": 2, "toughness": 2},
            "wolf_a": wolf("A"),
            "wolf_b": wolf("B"),
        },
        [
            {
                "attackers": {"bear": "B"},
                "events": [
                    {"at": "declare-blockers", "action": "enter", "attacking": "B", "creature": cub}
                ],
            },
            {},
            {"attackers": {"cub": "B"}},
        ],
    )
    with pytest.raises(InputError) as caught:
        BatchedEngine(registry).resolve_turns([turn])
    assert caught.value.path == "combats[2].attackers.cub"
    assert "302.6" in str(caught.value)


def test_division_error_names_its_combat_phase(registry: Registry) -> None:
    """CONTRACT 6: an explicit division found illegal as damage is assigned in combat 2 is an
    input error naming ``combats[1].divide[0]``: the Wolf's 3 damage divided as 1."""
    turn = build_turn(
        registry,
        {"A": {}, "B": {}},
        {
            "knight": {"name": "Knight", "controller": "A", "power": 2, "toughness": 4},
            "wolf": wolf("B"),
        },
        [
            {},
            {
                "attackers": {"wolf": "A"},
                "blockers": {"knight": "wolf"},
                "divide": [{"step": "firstest-strike", "source": "wolf", "amounts": {"knight": 1}}],
            },
        ],
    )
    with pytest.raises(InputError) as caught:
        BatchedEngine(registry).resolve_turns([turn])
    assert caught.value.path == "combats[1].divide[0].amounts"
    assert "amounts total 1, but wolf has power 3" in str(caught.value)
