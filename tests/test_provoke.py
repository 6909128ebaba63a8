"""Provoke (702.39) and the creature key ``targets`` (RULES 10): an attack trigger whose target
creature of the defending player untaps and must block the provoker if able (a requirement,
509.1c). Run on both engines; hand-derived outcomes."""

from __future__ import annotations

import tomllib

import pytest
from scenario_text import combat, creature

from ecs_combat import InputError, Registry, parse_scenario
from ecs_combat.decisions import best_blocks
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.scenario.writer import scenario_document
from tests.conftest import Resolve

PLAYERS = "[players.A]\n[players.B]\n"


def goblin(*keywords: str, target: object = "wall") -> str:
    extra = {} if target is None else {"targets": {"provoke": target}}
    return creature("goblin", "A", 2, 2, "provoke", *keywords, **extra)


def error_of(text: str, registry: Registry) -> InputError:
    with pytest.raises(InputError) as caught:
        parse_scenario(tomllib.loads(text), registry, "t.toml")
    return caught.value


def test_702_39_the_tapped_target_untaps_and_blocks(resolve: Resolve) -> None:
    """The 0/2 wall is tapped; provoke untaps it and it blocks: the goblin deals 2, the wall
    dies, B loses nothing."""
    out = resolve(
        PLAYERS
        + goblin()
        + creature("wall", "B", 0, 2, tapped=True)
        + combat({"goblin": "B"}, {"wall": "goblin"})
    )
    assert out["creatures"]["wall"]["alive"] is False
    assert out["creatures"]["goblin"] == {
        "alive": True, "damage": 0, "power": 2, "toughness": 2, "counters": {}
    }  # fmt: skip
    assert out["players"]["B"]["life"] == 20


def test_509_1c_the_target_must_block_if_able(registry: Registry) -> None:
    err = error_of(
        PLAYERS + goblin() + creature("wall", "B", 0, 2, tapped=True) + combat({"goblin": "B"}),
        registry,
    )
    assert err.path == "combat.blockers"
    assert "'wall' is able to block 'goblin' and doesn't: provoke (goblin) requires it" in str(err)


def test_509_1c_a_target_unable_to_block_it_need_not(registry: Registry) -> None:
    """The goblin flies and the wall has no reach: the wall can't block it, so the requirement
    asks nothing (509.1c); it still untaps."""
    text = (
        PLAYERS
        + goblin("flying")
        + creature("wall", "B", 0, 2, tapped=True)
        + combat({"goblin": "B"})
    )
    out = ReferenceEngine(registry).resolve(parse_scenario(tomllib.loads(text), registry, "t"))
    assert out.players["B"].life == 18
    assert out.creatures["wall"].tapped is False


def test_without_a_target_provoke_does_nothing(registry: Registry) -> None:
    """ "You may": no target given, nothing untaps, and the tapped wall can't block."""
    err = error_of(
        PLAYERS
        + goblin(target=None)
        + creature("wall", "B", 0, 2, tapped=True)
        + combat({"goblin": "B"}, {"wall": "goblin"}),
        registry,
    )
    assert err.path == "combat.blockers.wall"


@pytest.mark.parametrize(
    ("target", "wall", "words"),
    [
        ("cub", {}, "'A' controls both, and the target must be an opponent's"),
        ("wal", {}, "no creature has that id; did you mean 'wall'?"),
        ("B", {}, "it is a player, and the target must be a creature"),
        ("wall", {"keywords": ["hexproof"]}, "hexproof"),
        ("wall", {"keywords": ["protection from red"]}, "protection"),
    ],
)
def test_a_target_that_could_never_be_legal_is_refused(
    registry: Registry, target: str, wall: dict[str, object], words: str
) -> None:
    """RULES 10: at creatures.<id>.targets.<keyword>; protection and hexproof stop abilities
    from their sources too (702.16b, 702.11b)."""
    text = (
        PLAYERS
        + creature("goblin", "A", 2, 2, "provoke", targets={"provoke": target}, colors=["red"])
        + creature("cub", "A", 1, 1)
        + creature("wall", "B", 0, 2, *wall.get("keywords", []))  # type: ignore[misc]
        + combat({"goblin": "B"})
    )
    err = error_of(text, registry)
    assert err.path == "creatures.goblin.targets.provoke"
    assert words in str(err)


def test_targets_key_errors(registry: Registry) -> None:
    two = PLAYERS + goblin(target=["wall", "wall"]) + creature("wall", "B", 0, 2)
    assert "2 targets for 1 instance(s) of 'provoke'" in str(error_of(two, registry))
    none = PLAYERS + creature("bird", "A", 1, 1, "flying", targets={"flying": "wall"})
    assert "'flying' has no trigger that targets" in str(
        error_of(none + creature("wall", "B", 0, 2), registry)
    )


def test_two_instances_provoke_two_creatures(resolve: Resolve) -> None:
    """Two provoke instances, one target each: both walls untap and block the 4/4; its 4
    damage by the default division is lethal 2 to each 0/2 in block order: both die."""
    out = resolve(
        PLAYERS
        + creature("brute", "A", 4, 4, "provoke", "provoke", targets={"provoke": ["w1", "w2"]})
        + creature("w1", "B", 0, 2, tapped=True)
        + creature("w2", "B", 0, 2, tapped=True)
        + combat({"brute": "B"}, {"w1": "brute", "w2": "brute"})
    )
    assert not out["creatures"]["w1"]["alive"] and not out["creatures"]["w2"]["alive"]


def test_targets_are_written_back(registry: Registry) -> None:
    text = (
        PLAYERS
        + goblin()
        + creature("wall", "B", 0, 2)
        + combat({"goblin": "B"}, {"wall": "goblin"})
    )
    sc = parse_scenario(tomllib.loads(text), registry, "t.toml")
    doc = scenario_document(sc, registry)
    assert doc["creatures"]["goblin"]["targets"] == {"provoke": "wall"}
    assert parse_scenario(doc, registry, "t.toml").creatures == sc.creatures


def test_decisions_obey_provoke(registry: Registry) -> None:
    """The goblin provokes the tapped wall: every legal declaration has the wall blocking the
    goblin (not the bear); the elf blocks nothing, the goblin or the bear: three declarations.
    Elf back: the bear's 2 get through, (0, 0, 2, 0). Elf on the bear: the elf (value 2) dies,
    (0, 2, 0, 0). Elf on the goblin: A divides 2 to kill it, and the bear's 2 get through,
    (0, 2, 2, 0). B's best is the first."""
    text = (
        PLAYERS
        + goblin()
        + creature("bear", "A", 2, 2)
        + creature("wall", "B", 0, 4, tapped=True)
        + creature("elf", "B", 1, 1)
        + combat({"goblin": "B", "bear": "B"})
    )
    sc = parse_scenario(tomllib.loads(text), registry, "t.toml", blocks_to_decide=True)
    d = best_blocks(sc, registry, top=3)
    assert d.declarations == 3
    assert all(c.blockers.get("wall") == "goblin" for c in d.best)
    assert d.best[0].blockers == {"wall": "goblin"}
    assert tuple(d.best[0].score.values()) == (0, 0, 2, 0)
