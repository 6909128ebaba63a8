"""The legality of declarations judged by the rules core (``rules/characteristics.py``) with the
creatures' characteristics as attackers and as blockers are declared (RULES.md section 4): as
the scenario gives them unless a plugin's static ability or declare-attackers system may change
them, then as the systems' ``before_blocks`` parts say (``rules/before_blocks.py``), or where
they can't, as the engine the caller names plays the declarations (``rules/declaring.py``).
Expected values by hand; the legal boards resolve alike on both engines."""

from __future__ import annotations

import dataclasses
import tomllib

import pytest
from conftest import ENGINES, engine_resolver
from scenario_text import combat, creature

import ecs_combat.batched
from ecs_combat import InputError, Registry, Scenario, parse_scenario
from ecs_combat.reference.characteristics import play_declarations
from ecs_combat.rules.characteristics import (
    as_given,
    at_declare_blockers,
    check_declarations_now,
    may_change,
)
from ecs_combat.rules.declaring import Declared

PLAYERS = "[players.A]\n[players.B]\n"


def board(text: str, registry: Registry) -> Scenario:
    """A scenario read by the loader (its declarations checked as it reads them)."""
    return parse_scenario(tomllib.loads(PLAYERS + text), registry, "test.toml")


def blocked(scenario: Scenario, blockers: dict[str, str]) -> Scenario:
    """The scenario with these blocks declared (not read by the loader: not yet judged)."""
    return dataclasses.replace(scenario, blockers={b: (a,) for b, a in blockers.items()})


def no_engine(scenario: Scenario, registry: Registry, attackers_tapped: bool) -> Declared:
    raise AssertionError("an engine was asked")


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """The batched engine's player the loader names, wrapped to count the calls (each
    call's `attackers_tapped`)."""
    calls: list[bool] = []

    def player(scenario: Scenario, registry: Registry, attackers_tapped: bool) -> Declared:
        calls.append(attackers_tapped)
        return play_declarations(scenario, registry, attackers_tapped)

    monkeypatch.setattr(ecs_combat.batched, "play_declarations", player)
    return calls


def test_702_9b_flying_judged_as_given_without_an_engine(registry: Registry) -> None:
    """702.9b: a flier can be blocked only by creatures with flying or reach. Neither flying
    nor reach has a static ability or a declare-attackers system, so the creatures are judged
    as given and no engine is asked: the bear (no reach) can't block the bird, the wall can."""
    sc = board(
        creature("bird", "A", 2, 2, "flying")
        + creature("bear", "B", 2, 2)
        + creature("wall", "B", 0, 4, "reach")
        + combat({"bird": "B"}),
        registry,
    )
    assert not may_change(sc, registry)
    with pytest.raises(InputError, match=r"'bear' can't block 'bird'.*\(702\.9\)"):
        check_declarations_now(blocked(sc, {"bear": "bird"}), registry, no_engine)
    check_declarations_now(blocked(sc, {"wall": "bird"}), registry, no_engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_702_9b_the_legal_block_resolves_on_both_engines(engine: str, registry: Registry) -> None:
    """The wall with reach blocks the 2/2 flier: 2 damage to the wall (toughness 4, lives),
    none to the bird (power 0), none to player B."""
    sc = board(
        creature("bird", "A", 2, 2, "flying")
        + creature("wall", "B", 0, 4, "reach")
        + combat({"bird": "B"}, {"wall": "bird"}),
        registry,
    )
    out = engine_resolver(engine, registry)(sc).to_json()
    assert out["creatures"]["wall"] == {
        "alive": True, "damage": 2, "power": 0, "toughness": 4, "counters": {},
    }  # fmt: skip
    assert out["creatures"]["bird"]["damage"] == 0
    assert out["players"]["B"]["life"] == 20


def test_702_118_skulk_judged_after_exalted(registry: Registry) -> None:
    """RULES 4, 702.83a, 702.118b: the 1/1 sneak with skulk and exalted attacks alone, so it
    is a 2/2 as blockers are declared (1 + 1 exalted instance). A 2/2 bear may block it (not
    greater power), a 3/3 ogre may not. As given (power 1) the bear could not: exalted has a
    declare-attackers system, whose ``before_blocks`` part the rules core reads (no engine)."""
    sc = board(
        creature("sneak", "A", 1, 1, "skulk", "exalted")
        + creature("bear", "B", 2, 2)
        + creature("ogre", "B", 3, 3)
        + combat({"sneak": "B"}),
        registry,
    )
    assert may_change(sc, registry)
    at = at_declare_blockers(sc, registry, no_engine)
    assert (at.attacking["sneak"].power, at.blocking["sneak"].power) == (1, 2)
    assert as_given(sc, registry).blocking["sneak"].power == 1
    check_declarations_now(blocked(sc, {"bear": "sneak"}), registry, no_engine)
    with pytest.raises(InputError, match=r"'ogre' can't block 'sneak'.*\(702\.118\)"):
        check_declarations_now(blocked(sc, {"ogre": "sneak"}), registry, no_engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_702_118_the_block_after_exalted_resolves_on_both_engines(
    engine: str, registry: Registry
) -> None:
    """The bear blocks the exalted sneak (2/2 then): each deals 2 to the other, both die."""
    sc = board(
        creature("sneak", "A", 1, 1, "skulk", "exalted")
        + creature("bear", "B", 2, 2)
        + combat({"sneak": "B"}, {"bear": "sneak"}),
        registry,
    )
    out = engine_resolver(engine, registry)(sc).to_json()
    assert out["steps"][0]["died"] == ["sneak", "bear"]
    assert out["creatures"]["sneak"]["power"] == 2
    assert out["players"]["B"]["life"] == 20


def test_the_rules_core_judges_what_the_callers_engine_gives(registry: Registry) -> None:
    """The judgement reads the sides the engine gives, not its own: where a system has no
    ``before_blocks`` part (mentor's, which finds no attacker of lesser power here, 702.134a),
    an engine saying the sneak is still a 1/1 as blockers are declared makes the bear's block
    illegal (702.118b), and one saying it is a 2/2 makes it legal."""
    sc = blocked(
        board(
            creature("sneak", "A", 1, 1, "skulk", "exalted", "mentor")
            + creature("bear", "B", 2, 2)
            + combat({"sneak": "B"}),
            registry,
        ),
        {"bear": "sneak"},
    )

    def as_printed(scenario: Scenario, registry: Registry, attackers_tapped: bool) -> Declared:
        return as_given(scenario, registry)

    with pytest.raises(InputError, match=r"\(702\.118\)"):
        check_declarations_now(sc, registry, as_printed)
    check_declarations_now(sc, registry, play_declarations)


def test_508_1f_which_attackers_tap_asks_the_engine_only_when_read(registry: Registry) -> None:
    """508.1f, 702.20b: vigilance's declare-attackers system only keeps its attacker untapped.
    A caller that reads which attackers tap reads vigilance's ``before_blocks`` part (the ogre
    taps, the knight does not); one that reads only the creatures' characteristics skips
    the system."""
    sc = board(
        creature("knight", "A", 3, 3, "vigilance")
        + creature("ogre", "A", 3, 3)
        + creature("bear", "B", 2, 2)
        + combat({"knight": "B", "ogre": "B"}),
        registry,
    )
    assert may_change(sc, registry, attackers_tapped=True)
    assert not may_change(sc, registry, attackers_tapped=False)
    assert at_declare_blockers(sc, registry, no_engine).tapped == {"ogre"}
    assert play_declarations(sc, registry, True).tapped == {"ogre"}
    assert at_declare_blockers(sc, registry, no_engine, False).tapped == set()


def test_the_loader_judges_through_the_packages_engine(
    registry: Registry, counted: list[bool]
) -> None:
    """The scenario reader asks the batched engine once for a board a declare-attackers
    system without a ``before_blocks`` part may change (mentor), never for one whose systems
    all have one (exalted) or one without such systems (a plain bear)."""
    board(creature("sneak", "A", 1, 1, "exalted") + combat({"sneak": "B"}), registry)
    assert counted == []
    board(creature("sneak", "A", 1, 1, "mentor") + combat({"sneak": "B"}), registry)
    assert counted == [True]
    board(
        creature("bear", "A", 2, 2) + creature("cub", "B", 1, 1) + combat({"bear": "B"}), registry
    )
    assert counted == [True]
