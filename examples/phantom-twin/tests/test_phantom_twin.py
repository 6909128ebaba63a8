"""Phantom twin (the example token maker) on both engines: hand-derived rule tests, what the
tokens are (ids, tapped and attacking, printed values, exiled), and the test kit's agreement
check. They run with ecs-combat's test command once this package is installed (skipped
otherwise); they use ecs-combat's public names only."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given

pytest.importorskip("ecs_combat_phantom_twin")

from ecs_combat import (
    BatchContext,
    BatchDamageEvent,
    BatchedEngine,
    CombatContext,
    DamageEvent,
    Keyword,
    ReferenceEngine,
    Registry,
    System,
    hookimpl,
    parse_scenario,
)
from ecs_combat.testing import agreement_settings, assert_engines_agree, registry_with, scenarios

Resolve = Callable[[str], dict[str, Any]]
REGISTRY = registry_with("ecs_combat_phantom_twin")


def engine_run(registry: Registry, engine: str) -> Resolve:
    """Resolve a TOML scenario with one engine; return its ``resolve --json`` document."""

    def run(text: str) -> dict[str, Any]:
        scenario = parse_scenario(tomllib.loads(text), registry, "test.toml")
        if engine == "reference":
            return ReferenceEngine(registry).resolve(scenario).to_json()
        return BatchedEngine(registry).resolve_many([scenario])[0].to_json()

    return run


@pytest.fixture(params=["reference", "batched"])
def resolve(request: pytest.FixtureRequest) -> Resolve:
    return engine_run(REGISTRY, request.param)


def creature(cid: str, controller: str, pt: str, *keywords: str, extra: str = "") -> str:
    """A creature table: ``pt`` is ``power/toughness``."""
    power, toughness = pt.split("/")
    return (
        f'[creatures.{cid}]\ncontroller = "{controller}"\npower = {power}\n'
        f"toughness = {toughness}\nkeywords = {list(keywords)!r}\n".replace("'", '"')
        + extra
    )


def battle(*creatures: str, attackers: str, blockers: str = "") -> str:
    """Players A and B, the creatures and the combat's tables as TOML."""
    text = "[players.A]\n[players.B]\n" + "".join(creatures)
    text += f"[combat.attackers]\n{attackers}\n"
    return text + (f"[combat.blockers]\n{blockers}\n" if blockers else "")


def test_a_twin_attacks_beside_it_and_is_exiled(resolve: Resolve) -> None:
    """The unblocked 2/2 and its token copy ``bear~B`` each deal 2 to B: 20 - 4 = 16. The
    token is listed, exiled at end of combat (``alive: false``, not in `died`: exile is no
    death)."""
    out = resolve(battle(creature("bear", "A", "2/2", "phantom twin"), attackers='bear = "B"'))
    assert out["players"]["B"]["life"] == 16
    assert out["creatures"]["bear~B"]["alive"] is False
    assert out["creatures"]["bear"]["alive"] is True
    assert [(d["source"], d["target"], d["amount"]) for d in out["steps"][0]["damage"]] == [
        ("bear", "B", 2),
        ("bear~B", "B", 2),
    ]
    assert out["steps"][0]["died"] == []


def test_707_2_the_twin_copies_printed_values_only(resolve: Resolve) -> None:
    """The bear is a 2/2 with a +1/+1 counter (3/3); its token copies the printed 2/2 (707.2:
    counters are not copied): 3 + 2 = 5 to B, 15 left."""
    bear = creature("bear", "A", "2/2", "phantom twin", extra='counters = { "+1/+1" = 1 }\n')
    out = resolve(battle(bear, attackers='bear = "B"'))
    assert out["players"]["B"]["life"] == 15
    assert out["creatures"]["bear~B"]["power"] == 2


def test_the_twin_is_unblocked_and_copies_keywords(resolve: Resolve) -> None:
    """The wall blocks the first-striking bear; the token, made after blocks could name it,
    attacks unblocked and copies first strike: it deals its 2 to B in the first-strike step."""
    out = resolve(
        battle(
            creature("bear", "A", "2/2", "phantom twin", "first strike"),
            creature("wall", "B", "0/4"),
            attackers='bear = "B"',
            blockers='wall = "bear"',
        )
    )
    first = out["steps"][0]
    assert first["name"] == "first-strike"
    assert {(d["source"], d["target"], d["amount"]) for d in first["damage"]} == {
        ("bear", "wall", 2),
        ("bear~B", "B", 2),
    }
    assert out["players"]["B"]["life"] == 18


def test_one_token_per_id(resolve: Resolve) -> None:
    """Two instances trigger twice, but the token ``bear~B`` exists once: 2 + 2 to B."""
    out = resolve(
        battle(creature("bear", "A", "2/2", "phantom twin", "phantom twin"), attackers='bear = "B"')
    )
    assert out["players"]["B"]["life"] == 16
    assert [c for c in out["creatures"] if "~" in c] == ["bear~B"]


class Watcher:
    """A one-off test plugin: at each damage step, whether each token is tapped and
    attacking, read through both contexts."""

    __name__ = "watcher"

    def __init__(self) -> None:
        self.seen: dict[str, list[tuple[str, bool, bool]]] = {"reference": [], "batched": []}

    @hookimpl
    def register_keywords(self) -> list[Keyword]:
        return [Keyword("watched")]

    @hookimpl
    def register_systems(self) -> list[System]:
        def watch(combat: CombatContext, _: DamageEvent) -> None:
            for c in combat.creatures():
                if "~" in combat.creature_id(c):
                    seen = (combat.creature_id(c), combat.tapped(c), combat.attacking(c))
                    self.seen["reference"].append(seen)

        def watch_batched(batch: BatchContext, _: BatchDamageEvent) -> None:
            tapped, attacking = batch.tapped(), batch.attacking()
            for row in range(batch.rows):  # a test's two rows: never in a plugin
                if "~" in batch.creature_id(row):
                    seen = (batch.creature_id(row), bool(tapped[row]), bool(attacking[row]))
                    self.seen["batched"].append(seen)

        return [System("deal-damage", "watch", watch, watch_batched, {"watched"})]


def test_506_3_the_twin_enters_tapped_and_attacking() -> None:
    """Read as damage is dealt: the token is tapped and attacking, in both engines."""
    watcher = Watcher()
    registry = registry_with("ecs_combat_phantom_twin", extra=[watcher])
    text = battle(creature("bear", "A", "2/2", "phantom twin", "watched"), attackers='bear = "B"')
    for engine in ("reference", "batched"):
        engine_run(registry, engine)(text)
    assert watcher.seen == {
        "reference": [("bear~B", True, True)],
        "batched": [("bear~B", True, True)],
    }


@agreement_settings()  # AGREEMENT_EXAMPLES drawn battles: fewer miss disagreements
@given(scenarios(REGISTRY, keywords=["phantom twin", "first strike", "deathtouch", "lifelink"]))
def test_engines_agree(doc: dict[str, Any]) -> None:
    """Random legal battles with tokens resolve alike on both engines."""
    assert_engines_agree(REGISTRY, doc)
