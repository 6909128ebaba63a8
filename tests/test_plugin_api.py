"""The plugin surface: systems at the points of a combat, the registry's checks, limits.

Each test writes a small plugin object the way a third party would, against the public API.
"""

from __future__ import annotations

import json
import subprocess
import tomllib
from typing import Any

import numpy as np
import pytest
from conftest import bundled_registry
from scenario_text import combat, creature

from ecs_combat import (
    BatchContext,
    BatchDamageEvent,
    BatchDeaths,
    CombatContext,
    DamageEvent,
    Deaths,
    InputError,
    Keyword,
    PluginError,
    RefusedError,
    System,
    hookimpl,
    parse_scenario,
)
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.reference.engine import ReferenceEngine

PLAYERS = "[players.A]\n[players.B]\n"


def _doc(*keywords: str) -> str:
    return (
        PLAYERS
        + creature("bear", "A", 2, 2, *keywords)
        + creature("wall", "B", 0, 4)
        + combat({"bear": "B"}, {"wall": "bear"})
    )


def _both(registry: Any, text: str) -> list[dict[str, Any]]:
    scenario = parse_scenario(tomllib.loads(text), registry, "t.toml")
    return [
        ReferenceEngine(registry).resolve(scenario).to_json(),
        BatchedEngine(registry).resolve(scenario).to_json(),
    ]


class Doubling:
    """A made-up keyword whose mechanism no bundled plugin has: the damage it deals to a
    creature is doubled as it is dealt (a replacement at ``deal-damage``)."""

    @hookimpl
    def register_keywords(self) -> list[Keyword]:
        return [Keyword("doubling")]

    @hookimpl
    def register_systems(self) -> list[System]:
        def reference(combat: Any, event: DamageEvent) -> None:
            for d in event.dealt:
                if not d.to_player and combat.has(d.source, "doubling"):
                    d.amount *= 2

        def batched(batch: Any, event: BatchDamageEvent) -> None:
            doubled = (event.recipient >= 0) & batch.has("doubling")[event.source]
            event.amount[doubled] *= 2

        return [
            System(
                "deal-damage",
                "double it",
                reference,
                batched,
                {"doubling"},
                sets={"replacement"},
                writes={"amount"},
            )
        ]


def test_a_new_mechanism_works_in_both_engines_without_touching_the_core() -> None:
    """A 2/2 with doubling deals 4 to a 0/4 wall, which dies (704.5g)."""
    registry = bundled_registry(extra=(Doubling(),))
    for out in _both(registry, _doc("doubling")):
        assert out["steps"][-1]["damage"] == [{"source": "bear", "target": "wall", "amount": 4}]
        assert out["creatures"]["wall"]["alive"] is False


def test_a_system_without_a_batched_form_makes_the_batched_engine_refuse_naming_it() -> None:
    class Halfway(Doubling):
        @hookimpl
        def register_systems(self) -> list[System]:
            return [System("deal-damage", "reference only", lambda c, e: None, None, {"doubling"})]

    registry = bundled_registry(extra=(Halfway(),))
    scenario = parse_scenario(tomllib.loads(_doc("doubling")), registry, "t.toml")
    ReferenceEngine(registry).resolve(scenario)
    with pytest.raises(RefusedError, match=r"Halfway.*without a batched form"):
        BatchedEngine(registry).resolve(scenario)


@pytest.mark.parametrize("engine", [ReferenceEngine, BatchedEngine])
def test_a_system_that_raises_is_reported_naming_its_plugin(engine: Any) -> None:
    class Broken(Doubling):
        @hookimpl
        def register_systems(self) -> list[System]:
            def boom(*_: Any) -> None:
                raise ZeroDivisionError("oops")

            return [System("deal-damage", "boom", boom, boom, {"doubling"})]

    registry = bundled_registry(extra=(Broken(),))
    scenario = parse_scenario(tomllib.loads(_doc("doubling")), registry, "t.toml")
    with pytest.raises(PluginError, match=r"plugin 'Broken'.*boom.*ZeroDivisionError"):
        engine(registry).resolve(scenario)


@pytest.mark.parametrize("engine", [ReferenceEngine, BatchedEngine])
def test_a_system_that_returns_something_is_reported_naming_its_plugin(engine: Any) -> None:
    class Returns(Doubling):
        @hookimpl
        def register_systems(self) -> list[System]:
            return [System("deal-damage", "answers", lambda *_: 1, lambda *_: 1, {"doubling"})]

    registry = bundled_registry(extra=(Returns(),))
    scenario = parse_scenario(tomllib.loads(_doc("doubling")), registry, "t.toml")
    with pytest.raises(PluginError, match=r"plugin 'Returns'.*returned 1"):
        engine(registry).resolve(scenario)


@pytest.mark.parametrize(
    ("keyword", "fragment"),
    [
        (lambda: Keyword("bad", strikes_in="first-strike"), "strikes_in"),  # type: ignore[arg-type]
        (lambda: Keyword("bad", counter="yes"), "counter"),  # type: ignore[arg-type]
        (lambda: Keyword(7), "name"),  # type: ignore[arg-type]
        (lambda: Keyword("bad", parameter="several"), "parameter"),
    ],
)
def test_a_wrong_declaration_is_reported_naming_the_plugin(keyword: Any, fragment: str) -> None:
    class Wrong:
        @hookimpl
        def register_keywords(self) -> list[Keyword]:
            return [keyword()]

    with pytest.raises(PluginError, match=rf"plugin 'Wrong'.*{fragment}"):
        bundled_registry(extra=(Wrong(),))


def test_a_system_at_an_unknown_point_is_reported() -> None:
    class Lost:
        @hookimpl
        def register_systems(self) -> list[System]:
            return [System("after-lunch", "nap", lambda *_: None, lambda *_: None)]

    with pytest.raises(PluginError, match=r"plugin 'Lost'.*unknown point 'after-lunch'"):
        bundled_registry(extra=(Lost(),))


def test_seventy_installed_keywords_do_not_limit_the_batched_engine() -> None:
    """The batch's masks hold the keywords the batch uses, not every installed one."""

    class Many:
        @hookimpl
        def register_keywords(self) -> list[Keyword]:
            return [Keyword(f"filler {i}") for i in range(70)]

    registry = bundled_registry(extra=(Many(),))
    assert len(registry.keywords) > 64
    ref, bat = _both(registry, _doc("trample", "filler 3"))
    assert ref == bat
    assert {"source": "bear", "target": "wall", "amount": 2} in bat["steps"][-1]["damage"]


def test_the_batched_forms_are_called_once_per_point_per_batch() -> None:
    """Hooks are called per batch, never per creature or per battle: 50 battles, one call."""
    calls: list[int] = []

    class Counting(Doubling):
        @hookimpl
        def register_systems(self) -> list[System]:
            def batched(batch: Any, event: BatchDamageEvent) -> None:
                calls.append(int(np.asarray(event.source).size))

            return [System("deal-damage", "count", lambda *_: None, batched, {"doubling"})]

    registry = bundled_registry(extra=(Counting(),))
    scenario = parse_scenario(tomllib.loads(_doc("doubling")), registry, "t.toml")
    BatchedEngine(registry).resolve_many([scenario] * 50)
    assert calls == [50]  # one regular step: the bear's damage to the wall in 50 battles


def test_plugins_command_shows_the_schedule() -> None:
    """`ecs-combat plugins` lists each point in order with the systems that run there."""
    p = subprocess.run(["ecs-combat", "plugins"], capture_output=True, text=True, check=True)
    lines = p.stdout.splitlines()
    at = lines.index("Schedule: the points of a combat in order, and their systems")
    points = [line.split()[0] for line in lines[at + 2 :] if line and not line.startswith("Damage")]
    order = [
        "declare-attackers",
        "declare-blockers",
        "assign-damage",
        "deal-damage",
        "state-based-actions",
        "destroy",
        "dies",
        "end-of-combat",
        "event-damage",
    ]
    assert [p for i, p in enumerate(points) if p not in points[:i]] == order
    assert any(line.split()[:2] == ["deal-damage", "lifelink"] for line in lines[at:])
    doc = json.loads(
        subprocess.run(
            ["ecs-combat", "plugins", "--json"], capture_output=True, text=True, check=True
        ).stdout
    )
    lifelink = next(p for p in doc if "lifelink" in p["keywords"])
    assert lifelink["systems"] == [{"point": "deal-damage", "name": "lifelink gains life"}]


class Blight:
    """A made-up dies trigger: when a creature with blight dies, each other creature on the
    battlefield gets a -1/-1 counter (the bundled pt_counters plugin's)."""

    @hookimpl
    def register_keywords(self) -> list[Keyword]:
        return [Keyword("blight", requires=frozenset({"-1/-1"}))]

    @hookimpl
    def register_systems(self) -> list[System]:
        def reference(combat: CombatContext, deaths: Deaths) -> None:
            if any(combat.has(c, "blight") for c in deaths.creatures):
                for c in combat.creatures():
                    if combat.on_battlefield(c):
                        combat.add_counters(c, "-1/-1", 1)

        def batched(batch: BatchContext, deaths: BatchDeaths) -> None:
            blighted = np.zeros(batch.battles, np.bool_)
            blighted[batch.battle()[deaths.creatures & batch.has("blight")]] = True
            rows = np.flatnonzero(batch.on_battlefield() & blighted[batch.battle()])
            batch.add_counters(rows, "-1/-1", 1)

        return [System("dies", "blight shrinks the others", reference, batched, {"blight"})]


def test_state_based_actions_are_checked_again_after_a_dies_trigger() -> None:
    """704.3: the 2/2 bear with blight dies to the 4/4 giant blocking it (4 >= 2) and deals it
    2; blight gives the 1/1 bystander and the giant a -1/-1 counter each. The state-based
    actions are checked again after the trigger: the bystander (1/1 - 1 = 0/0) dies then
    (704.5f), in the same step; the giant lives, a 3/3 with 2 damage (2 < 3)."""
    text = (
        PLAYERS
        + creature("bear", "A", 2, 2, "blight")
        + creature("bystander", "A", 1, 1)
        + creature("giant", "B", 4, 4)
        + combat({"bear": "B"}, {"giant": "bear"})
    )
    for out in _both(bundled_registry(extra=(Blight(),)), text):
        assert out["steps"][-1]["died"] == ["bear", "bystander"]
        assert out["creatures"]["bystander"]["alive"] is False
        giant = out["creatures"]["giant"]
        assert (giant["alive"], giant["toughness"], giant["damage"]) == (True, 3, 2)
        assert giant["counters"] == {"-1/-1": 1}


class Canopy:
    """A made-up keyword whose static ability gives its creature flying (a static ability
    belongs to its keyword: docs/plugins.md)."""

    @hookimpl
    def register_keywords(self) -> list[Keyword]:
        return [Keyword("test canopy", requires=frozenset({"flying"}))]

    @hookimpl
    def static_keywords(self, combat: Any) -> dict[str, set[str]]:
        return {c: {"flying"} for c in combat.creatures_with("test canopy")}

    @hookimpl
    def static_keywords_batch(self, batch: Any) -> dict[str, Any]:
        return {"flying": batch.has("test canopy")}


def test_block_legality_reads_the_static_abilities_of_the_keywords_on_the_board() -> None:
    """509.1b, 702.9b: a creature that a static ability gives flying can't be blocked by one
    without flying or reach, and the loader and the decision search judge it so; a loaded
    static ability whose keyword no creature has changes nothing (the creatures are read as
    the scenario declares them)."""
    from ecs_combat.decisions.declarations import block_options

    registry = bundled_registry(extra=(Canopy(),))
    with_canopy = (
        PLAYERS
        + creature("bird", "A", 2, 2, "test canopy")
        + creature("bear", "B", 2, 2)
        + combat({"bird": "B"}, {"bear": "bird"})
    )
    with pytest.raises(InputError, match="flying"):
        parse_scenario(tomllib.loads(with_canopy), registry, "t.toml")
    unblocked = (
        PLAYERS
        + creature("bird", "A", 2, 2, "test canopy")
        + creature("bear", "B", 2, 2)
        + combat({"bird": "B"})
    )
    options = block_options(parse_scenario(tomllib.loads(unblocked), registry), registry, "B")
    assert options.legal.tolist() == [[False]]  # bear may not block bird
    plain = (
        PLAYERS
        + creature("bird", "A", 2, 2)
        + creature("bear", "B", 2, 2)
        + combat({"bird": "B"}, {"bear": "bird"})
    )
    scenario = parse_scenario(tomllib.loads(plain), registry, "t.toml")
    assert ReferenceEngine(registry).resolve(scenario).creatures["bird"].damage == 2  # blocked
