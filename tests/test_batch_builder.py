"""Building a batch column by column (``columns.add_scenarios``, what
``scenarios_to_batch`` does) gives the arrays of building it scenario by scenario
(``BatchBuilder.add``): every field, for scenarios with events, divisions, targets, counters
and plugins' state."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

import numpy as np
import pytest

from ecs_combat.batched.arrays import CombatBatch
from ecs_combat.batched.builder import MAX_KEYWORDS, BatchBuilder
from ecs_combat.batched.builder_arrays import built_batch
from ecs_combat.batched.from_scenarios import scenarios_to_batch
from ecs_combat.errors import InputError
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.usage import used_keywords
from ecs_combat.scenario.loader import load_scenarios, parse_scenario
from ecs_combat.scenario.model import Scenario

SCENARIOS = Path(__file__).parent / "scenarios"


def row_by_row(scenarios: list[Scenario], registry: Registry) -> CombatBatch:
    builder = BatchBuilder(registry, used_keywords(scenarios, registry))
    for b, sc in enumerate(scenarios):
        builder.add(b, sc)
    return built_batch(builder, len(scenarios))


#: Targets given: no scenario file of tests/scenarios has them.
TARGETS = """
[players.A]
[players.B]
[creatures.sensei]
controller = "A"
power = 3
toughness = 3
keywords = ["mentor"]
targets = { mentor = "kid" }
[creatures.kid]
controller = "A"
power = 1
toughness = 1
[creatures.wall]
controller = "B"
power = 0
toughness = 4
[combat.attackers]
sensei = "B"
kid = "B"
[combat.blockers]
wall = "kid"
"""


def loadable(registry: Registry) -> list[Scenario]:
    out: list[Scenario] = [parse_scenario(tomllib.loads(TARGETS), registry, "targets.toml")]
    for path in sorted(SCENARIOS.glob("*.toml")):
        try:
            out.extend(load_scenarios(path, registry))
        except InputError:
            continue
    return out


def assert_same(got: CombatBatch, expected: CombatBatch) -> None:
    for f in dataclasses.fields(CombatBatch):
        a, b = getattr(got, f.name), getattr(expected, f.name)
        if isinstance(b, np.ndarray) or isinstance(a, np.ndarray):
            assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray), f.name
            assert a.dtype == b.dtype and np.array_equal(a, b), f.name
        elif isinstance(b, dict):
            assert list(a) == list(b), f.name
            for k in b:
                assert a[k].dtype == b[k].dtype and np.array_equal(a[k], b[k]), (f.name, k)
        else:
            assert a == b, f.name


def test_columns_are_the_rows_of_each_scenario_in_turn(registry: Registry) -> None:
    scenarios = loadable(registry)
    assert len(scenarios) > 100
    assert any(sc.events for sc in scenarios) and any(sc.divisions for sc in scenarios)
    assert any(c.targets for sc in scenarios for c in sc.creatures.values())
    assert any(c.counters for sc in scenarios for c in sc.creatures.values())
    compared = 0
    for chunk in (scenarios[:50], scenarios[50:200], scenarios[200:], scenarios[::-3]):
        if len(used_keywords(chunk, registry)) > MAX_KEYWORDS:
            continue  # more keywords than a batch's masks hold
        assert_same(scenarios_to_batch(chunk, registry), row_by_row(chunk, registry))
        compared += 1
    assert compared >= 3


@pytest.mark.parametrize("n", [0, 1])
def test_few_scenarios(registry: Registry, n: int) -> None:
    scenarios = loadable(registry)[:n]
    assert_same(scenarios_to_batch(scenarios, registry), row_by_row(scenarios, registry))
