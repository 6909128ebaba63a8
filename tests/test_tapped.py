"""The creature key ``tapped`` (CONTRACT 8): tapped as combat begins, a creature can't attack
(508.1a) or block (509.1a) unless something untaps it first. Run on both engines; decisions
leave tapped creatures out of the declarations they search."""

from __future__ import annotations

import tomllib

import pytest
from scenario_text import combat, creature

from ecs_combat import InputError, Registry, parse_scenario
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.decisions import best_attacks, best_blocks
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.scenario.writer import scenario_document
from tests.conftest import ENGINES, Resolve
from tests.test_turns import ResolveTurn, turn_of, turn_resolver

PLAYERS = "[players.A]\n[players.B]\n"
TAPPED_WORDS = "it is tapped (tapped = true) and nothing untapped it"


def error_of(text: str, registry: Registry) -> InputError:
    with pytest.raises(InputError) as caught:
        parse_scenario(tomllib.loads(text), registry, "t.toml")
    return caught.value


def test_508_1a_a_tapped_creature_cannot_attack(registry: Registry) -> None:
    text = PLAYERS + creature("bear", "A", 2, 2, tapped=True) + combat({"bear": "B"})
    err = error_of(text, registry)
    assert err.path == "combat.attackers.bear"
    assert f"'bear' can't attack: {TAPPED_WORDS} (508.1a)" in str(err)


def test_509_1a_a_tapped_creature_cannot_block(registry: Registry) -> None:
    text = (
        PLAYERS
        + creature("bear", "A", 2, 2)
        + creature("wall", "B", 0, 4, tapped=True)
        + combat({"bear": "B"}, {"wall": "bear"})
    )
    err = error_of(text, registry)
    assert err.path == "combat.blockers.wall"
    assert f"'wall' can't block: {TAPPED_WORDS} (509.1a)" in str(err)


def test_a_tapped_creature_stays_out_and_tapped(resolve: Resolve) -> None:
    """The untapped guard blocks; the tapped wall sits out: the bear (2/2) kills the guard
    (1/1) and takes 1. The tapped creatures are shown tapped at the end (reference)."""
    text = (
        PLAYERS
        + creature("bear", "A", 2, 2)
        + creature("wall", "B", 0, 4, tapped=True)
        + creature("guard", "B", 1, 1)
        + combat({"bear": "B"}, {"guard": "bear"})
    )
    out = resolve(text)
    assert out["creatures"]["guard"]["alive"] is False
    assert out["creatures"]["bear"]["damage"] == 1
    assert out["creatures"]["wall"] == {
        "alive": True, "damage": 0, "power": 0, "toughness": 4, "counters": {}
    }  # fmt: skip


def test_the_reference_engine_shows_tapped_creatures_tapped(registry: Registry) -> None:
    text = (
        PLAYERS
        + creature("bear", "A", 2, 2, "vigilance")
        + creature("wall", "B", 0, 4, tapped=True)
        + combat({"bear": "B"})
    )
    sc = parse_scenario(tomllib.loads(text), registry, "t.toml")
    out = ReferenceEngine(registry).resolve(sc)
    assert out.creatures["wall"].tapped is True
    assert out.creatures["bear"].tapped is False  # vigilance (702.20b)


def test_tapped_types_value_and_lands_are_written_back(registry: Registry) -> None:
    """A scenario written as a document (replays, decisions) reads back the same."""
    text = (
        '[players.A]\n[players.B]\nlands = ["swamp"]\n'
        + creature("bear", "A", 2, 2, tapped=True, types=["artifact"], value=9)
        + combat({})
    )
    sc = parse_scenario(tomllib.loads(text), registry, "t.toml")
    doc = scenario_document(sc, registry)
    assert doc["creatures"]["bear"]["tapped"] is True
    assert doc["creatures"]["bear"]["types"] == ["artifact"]
    assert doc["creatures"]["bear"]["value"] == 9
    assert doc["players"]["B"]["lands"] == ["swamp"]
    again = parse_scenario(doc, registry, "t.toml")
    assert again.creatures == sc.creatures and again.players == sc.players


def test_decisions_leave_tapped_blockers_out(registry: Registry) -> None:
    """The 0/4 wall would block the 3/3 for free, but it is tapped: the only blocker is the
    1/1, and chumping loses material (2) to save 3 life: no block. Two declarations."""
    text = (
        PLAYERS
        + creature("ogre", "A", 3, 3)
        + creature("wall", "B", 0, 4, tapped=True)
        + creature("elf", "B", 1, 1)
        + combat({"ogre": "B"})
    )
    sc = parse_scenario(tomllib.loads(text), registry, "t.toml", blocks_to_decide=True)
    d = best_blocks(sc, registry)
    assert d.declarations == 2
    assert d.best[0].blockers == {}
    untapped = text.replace("tapped = true\n", "")
    d = best_blocks(parse_scenario(tomllib.loads(untapped), registry, "t.toml"), registry)
    assert d.best[0].blockers == {"wall": "ogre"}


def test_decisions_leave_tapped_attackers_out(registry: Registry) -> None:
    """Of A's bear and tapped giant only the bear may attack: two attack declarations."""
    text = (
        PLAYERS
        + creature("bear", "A", 2, 2)
        + creature("giant", "A", 5, 5, tapped=True)
        + creature("elf", "B", 1, 1)
    )
    sc = parse_scenario(tomllib.loads(text), registry, "t.toml", blocks_to_decide=True)
    d = best_attacks(sc, registry)
    assert d.declarations == 2
    assert all("giant" not in (c.attackers or {}) for c in d.best)


@pytest.fixture(params=ENGINES)
def resolve_turn(request: pytest.FixtureRequest, registry: Registry) -> ResolveTurn:
    return turn_resolver(request.param, registry)


TURN = """
[players.A]
[players.B]

[creatures.bear]
controller = "A"
power = 2
toughness = 2
tapped = true

[[combats]]
attackers = { bear = "B" }
"""


def test_a_turn_creature_tapped_at_start_cannot_attack(resolve_turn: ResolveTurn) -> None:
    """508.1a in a turn: both engines name the file's tapped = true."""
    with pytest.raises(InputError) as caught:
        resolve_turn(TURN)
    assert caught.value.path == "combats[0].attackers.bear"
    assert TAPPED_WORDS in str(caught.value)


def test_a_turn_creature_tapped_at_start_ends_tapped(registry: Registry) -> None:
    """Nothing untaps it (a turn's combats have no untap step): it ends the turn tapped and
    can't attack again; the untapped bear that didn't attack can (both engines)."""
    text = TURN.replace('attackers = { bear = "B" }', "attackers = {}") + (
        '[creatures.cub]\ncontroller = "A"\npower = 1\ntoughness = 1\n'
    )
    turn = turn_of(text, registry)
    for result in (
        ReferenceEngine(registry).resolve_turn(turn),
        BatchedEngine(registry).resolve_turns([turn])[0],
    ):
        bear, cub = result.creatures["bear"], result.creatures["cub"]
        assert (bear.tapped, bear.may_attack) == (True, False)
        assert (cub.tapped, cub.may_attack) == (False, True)
