"""Umbra armor (the example destroy replacement) on both engines: hand-derived rule tests
(702.89), and the test kit's agreement check. They run with ecs-combat's test command once
this package is installed (skipped otherwise); they use ecs-combat's public names only."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

pytest.importorskip("ecs_combat_umbra_armor")

from ecs_combat import BatchedEngine, ReferenceEngine, parse_scenario
from ecs_combat.testing import assert_engines_agree, registry_with, scenarios

Resolve = Callable[[str], dict[str, Any]]
REGISTRY = registry_with("ecs_combat_umbra_armor")


@pytest.fixture(params=["reference", "batched"])
def resolve(request: pytest.FixtureRequest) -> Resolve:
    """Resolve a TOML scenario with one engine; return its ``resolve --json`` document."""
    engine = ReferenceEngine(REGISTRY) if request.param == "reference" else None
    batched = BatchedEngine(REGISTRY)

    def run(text: str) -> dict[str, Any]:
        scenario = parse_scenario(tomllib.loads(text), REGISTRY, "test.toml")
        if engine is not None:
            return engine.resolve(scenario).to_json()
        return batched.resolve_many([scenario])[0].to_json()

    return run


def creature(cid: str, controller: str, pt: str, *keywords: str) -> str:
    """A creature table: ``pt`` is ``power/toughness``."""
    power, toughness = pt.split("/")
    return (
        f'[creatures.{cid}]\ncontroller = "{controller}"\npower = {power}\n'
        f"toughness = {toughness}\nkeywords = {list(keywords)!r}\n".replace("'", '"')
    )


def battle(*creatures: str, attackers: str, blockers: str = "", events: str = "") -> str:
    """Players A and B, the creatures, the combat's tables and events as TOML."""
    text = "[players.A]\n[players.B]\n" + "".join(creatures)
    text += f"[combat.attackers]\n{attackers}\n"
    return text + (f"[combat.blockers]\n{blockers}\n" if blockers else "") + events


def destroy(target: str, at: str = "after regular") -> str:
    return f'[[events]]\nat = "{at}"\naction = "destroy"\ntarget = "{target}"\n'


def test_702_89_lethal_damage_is_removed_instead(resolve: Resolve) -> None:
    """The 2/2 with umbra armor blocks a 3/3 and is dealt 3: instead of being destroyed its
    damage is removed (0); it is alive and not in `died`; the ogre took its 2."""
    out = resolve(
        battle(
            creature("ogre", "A", "3/3"),
            creature("bear", "B", "2/2", "umbra armor"),
            attackers='ogre = "B"',
            blockers='bear = "ogre"',
        )
    )
    assert out["steps"][0]["died"] == []
    assert out["creatures"]["bear"]["alive"] is True
    assert out["creatures"]["bear"]["damage"] == 0
    assert out["creatures"]["ogre"]["damage"] == 2


def test_702_89_it_stays_in_combat(resolve: Resolve) -> None:
    """A first striker deals 3 to the armored 2/2 attacker: its damage is removed and, still
    attacking (not removed from combat, unlike regeneration), it deals its 2 in the regular
    step: the 3/3 wall ends with 2 damage."""
    out = resolve(
        battle(
            creature("bear", "A", "2/2", "umbra armor"),
            creature("wall", "B", "3/3", "first strike"),
            attackers='bear = "B"',
            blockers='wall = "bear"',
        )
    )
    assert out["creatures"]["bear"]["alive"] is True
    assert out["creatures"]["wall"]["damage"] == 2


def test_702_89_one_aura_one_destruction(resolve: Resolve) -> None:
    """Two destroy events after the regular step: the first is replaced (the Aura goes), the
    second destroys the bear. Two instances (two Auras) save it twice."""
    out = resolve(
        battle(
            creature("ogre", "A", "3/3"),
            creature("bear", "B", "2/2", "umbra armor"),
            attackers='ogre = "B"',
            events=destroy("bear") + destroy("bear"),
        )
    )
    assert out["creatures"]["bear"]["alive"] is False
    out = resolve(
        battle(
            creature("ogre", "A", "3/3"),
            creature("bear", "B", "2/2", "umbra armor", "umbra armor"),
            attackers='ogre = "B"',
            events=destroy("bear") + destroy("bear"),
        )
    )
    assert out["creatures"]["bear"]["alive"] is True


def test_704_5f_toughness_0_is_not_destruction(resolve: Resolve) -> None:
    """-2/-2 makes the armored 2/2 a 2/0: it is put into the graveyard (704.5f), which the
    Aura doesn't replace."""
    pump = '[[events]]\nat = "declare-blockers"\naction = "pump"\ntarget = "bear"\ntoughness = -2\n'
    out = resolve(
        battle(
            creature("ogre", "A", "3/3"),
            creature("bear", "B", "2/2", "umbra armor"),
            attackers='ogre = "B"',
            events=pump,
        )
    )
    assert out["creatures"]["bear"]["alive"] is False


def test_indestructible_first_then_regeneration_after(resolve: Resolve) -> None:
    """Indestructible keeps it from being destroyed, so the Aura isn't used: its 3 damage
    stays. With a regeneration shield as well, umbra armor is used first: the bear is not
    removed from combat (it deals its 2 to the ogre) and the shield is left for later."""
    out = resolve(
        battle(
            creature("ogre", "A", "3/3"),
            creature("bear", "B", "2/2", "umbra armor", "indestructible"),
            attackers='ogre = "B"',
            blockers='bear = "ogre"',
        )
    )
    assert out["creatures"]["bear"]["damage"] == 3
    shield = '[[events]]\nat = "declare-blockers"\naction = "regenerate"\ntarget = "bear"\n'
    out = resolve(
        battle(
            creature("bear", "A", "2/2", "umbra armor"),
            creature("wall", "B", "3/3", "first strike"),
            attackers='bear = "B"',
            blockers='wall = "bear"',
            events=shield,
        )
    )
    # umbra armor first: still attacking, the bear deals its 2 in the regular step (had the
    # shield been used, it would have left combat and the wall would have no damage)
    assert out["creatures"]["wall"]["damage"] == 2
    assert out["creatures"]["bear"]["alive"] is True


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(scenarios(REGISTRY, keywords=["umbra armor", "first strike", "deathtouch", "persist"]))
def test_engines_agree(doc: dict[str, Any]) -> None:
    """Random legal battles (destroy events, deathtouch, returns) resolve alike on both."""
    assert_engines_agree(REGISTRY, doc)
