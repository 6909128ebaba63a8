"""The reference engine's own guarantees: isolated esper worlds and keywords as components."""

from __future__ import annotations

import tomllib

import esper

from ecs_combat import parse_scenario
from ecs_combat.plugin.registry import Registry
from ecs_combat.reference.combat import Combat
from ecs_combat.reference.components import Attacking, keyword_component
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.reference.world import isolated_world
from ecs_combat.rules.pipeline import plan_steps

SCENARIO = """
[players.A]
[players.B]
[creatures.knight]
controller = "A"
power = 2
toughness = 2
keywords = ["first strike"]
[creatures.bear]
controller = "B"
power = 2
toughness = 2
[combat]
attackers = { knight = "B" }
blockers = { bear = "knight" }
"""


def test_each_combat_runs_in_its_own_world(registry: Registry) -> None:
    """Two combats never see each other's entities, and the caller's world is left alone."""
    scenario = parse_scenario(tomllib.loads(SCENARIO), registry, "s.toml")
    before = esper.current_world
    worlds = set(esper.list_worlds())
    engine = ReferenceEngine(registry)
    first = engine.resolve(scenario).to_json()
    second = engine.resolve(scenario).to_json()
    assert first == second
    assert esper.current_world == before
    assert set(esper.list_worlds()) == worlds


def test_keywords_are_esper_components(registry: Registry) -> None:
    """A system can query esper for attacking creatures with a keyword component."""
    scenario = parse_scenario(tomllib.loads(SCENARIO), registry, "s.toml")
    with isolated_world():
        combat = Combat(registry, plan_steps(registry), scenario)
        combat.declare()
        first_strike = keyword_component("first strike")
        found = [combat.board.cid(e) for e, _ in esper.get_components(Attacking, first_strike)]
        assert found == ["knight"]


def test_combat_can_be_driven_step_by_step(registry: Registry) -> None:
    """The reference engine is interactive: steps can be run and inspected one at a time."""
    scenario = parse_scenario(tomllib.loads(SCENARIO), registry, "s.toml")
    with isolated_world():
        combat = Combat(registry, plan_steps(registry), scenario)
        combat.declare()
        first = next(p for p in combat.plans if p.name == "first-strike")
        result = combat.damage_step(first)
        assert result.damage == [("knight", "bear", 2)]
        assert result.died == ["bear"]
        assert not combat.board.on_battlefield(combat.board.creatures["bear"])
