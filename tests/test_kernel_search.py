"""The decision search's levels played in the compiled kernel (issue 32, item 5): the kernel
records what each damage step's dealers could divide as the numpy engine does, plays the
search's explicit divisions, and every decision is the numpy path's.

The kernel compiles into the cache tests/test_kernels.py uses (pytest's cache directory).
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from ecs_combat import Registry, parse_scenario
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.batched.from_scenarios import scenarios_to_batch
from ecs_combat.decisions import best_blocks
from ecs_combat.decisions import decide as decide_module
from ecs_combat.decisions.divisions import StepRecord
from ecs_combat.kernel.runner import Kernel
from ecs_combat.simulation.generate import draw_battles
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.spec_reader import parse_spec
from ecs_combat.testing import registry_with, scenarios

KERNEL_KEYWORDS = [
    "first strike", "double strike", "deathtouch", "trample", "lifelink", "indestructible",
    "flying", "reach", "menace",
]  # fmt: skip
BUNDLED = registry_with()
NOT_JITTED = os.environ.get("NUMBA_DISABLE_JIT") == "1"


@pytest.fixture(scope="module", autouse=True)
def kernels_on(pytestconfig: pytest.Config) -> Iterator[None]:
    """Kernels on for this module, compiled into the cache tests/test_kernels.py shares."""
    saved = {k: os.environ.get(k) for k in ("ECS_COMBAT_KERNELS", "ECS_COMBAT_KERNEL_CACHE")}
    os.environ["ECS_COMBAT_KERNELS"] = "1"
    os.environ["ECS_COMBAT_KERNEL_CACHE"] = str(pytestconfig.cache.mkdir("ecs-combat-kernels"))
    decide_module._ENGINES.clear()
    yield
    decide_module._ENGINES.clear()
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


class Counted:
    """Counts the kernel's plays with division records (logged or not), and those with
    explicit divisions."""

    def __init__(self) -> None:
        self.plays = 0
        self.with_divisions = 0

    def __enter__(self) -> Counted:
        self._play = play = Kernel.play
        self._logged = logged = Kernel.play_logged

        def count(batch: Any, divisions: bool) -> None:
            self.plays += divisions
            self.with_divisions += divisions and bool(batch.division_step.size)

        def counting(kernel: Kernel, schedule: Any, batch: Any, divisions: bool) -> Any:
            count(batch, divisions)
            return play(kernel, schedule, batch, divisions)

        def counting_logged(kernel: Kernel, schedule: Any, batch: Any, divisions: bool) -> Any:
            count(batch, divisions)
            return logged(kernel, schedule, batch, divisions)

        Kernel.play = counting  # type: ignore[method-assign]
        Kernel.play_logged = counting_logged  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        Kernel.play = self._play  # type: ignore[method-assign]
        Kernel.play_logged = self._logged  # type: ignore[method-assign]


def decisions(scenario: Any, registry: Registry, kernels: bool) -> Any:
    """`best_blocks` with kernels on or off, its time left out."""
    os.environ["ECS_COMBAT_KERNELS"] = "1" if kernels else "0"
    decide_module._ENGINES.clear()
    try:
        return dataclasses.replace(best_blocks(scenario, registry), seconds=0.0)
    finally:
        os.environ["ECS_COMBAT_KERNELS"] = "1"
        decide_module._ENGINES.clear()


SPEC = """
attackers = [1, 3]
blockers_per_attacker = [0, 3]
power = [0, 6]
toughness = [1, 6]
life = 4
[keywords]
"first strike" = 0.15
"double strike" = 0.1
deathtouch = 0.2
trample = 0.3
lifelink = 0.1
indestructible = 0.1
"""


def test_division_records_are_the_numpy_engines(registry: Registry) -> None:
    """Each step record the numpy engine makes is the kernel's for the same step (on the
    rows that deal and the battles that took the step: all a search reads); a step the
    kernel records beyond them has nobody with a division to choose."""
    kernel_engine, numpy_engine = BatchedEngine(registry), BatchedEngine(registry, kernels=False)
    spec = parse_spec(tomllib.loads(SPEC), registry, "search.toml")
    batch = draw_battles(make_generator(spec, registry), 5, 0, 800).batch
    assert kernel_engine.kernel_takes(batch)
    ours = kernel_engine.play_batch(batch, record=False, kernel=True)
    theirs = numpy_engine.play_batch(batch, record=False)
    assert np.array_equal(ours.outcome.life, theirs.outcome.life)
    by_step = {r.step: r for r in ours.divisions}
    assert len(theirs.divisions) >= 2  # the first-strike and regular steps
    for rec in theirs.divisions:
        mine = by_step.pop(rec.step)
        assert np.array_equal(mine.deals, rec.deals)
        d = rec.deals
        for name in ("power", "remaining", "one_is_lethal", "player_gets_excess"):
            assert np.array_equal(getattr(mine, name)[d], getattr(rec, name)[d]), name
        assert rec.one_is_lethal[d].any() and rec.player_gets_excess[d].any()
        # the blocks in effect, in the battles that took the step (the numpy engine's
        # record lists those of every battle; where a battle has no such step, nobody in
        # it deals, so nothing reads them)
        taken = ours.outcome.steps_taken[rec.step][np.asarray(batch.battle)[rec.block_attacker]]
        assert not taken.all()
        for name in ("block_blocker", "block_attacker", "block_rank"):
            assert np.array_equal(getattr(mine, name), getattr(rec, name)[taken]), name
    for rest in by_step.values():
        assert not StepRecord(rest, np.asarray(batch.battle), batch.n_battles).battles.any()


def test_explicit_divisions_are_played(registry: Registry) -> None:
    """510.1c-d: a 5/5 trampler blocked by two 2/2s dividing 3 and 2 (none to the player,
    702.19b allows it) kills both and leaves the player at 20; by default it would assign 2,
    2 and 1 to the player (19)."""
    text = """
[players.A]
life = 20
[players.B]
life = 20
[creatures.giant]
controller = "A"
power = 5
toughness = 5
keywords = ["trample"]
[creatures.b1]
controller = "B"
power = 2
toughness = 2
[creatures.b2]
controller = "B"
power = 2
toughness = 2
[combat.attackers]
giant = "B"
[combat.blockers]
b1 = "giant"
b2 = "giant"
"""
    divided = text + '[[combat.divide]]\nstep = "regular"\nsource = "giant"\n'
    divided += 'amounts = { "b1" = 3, "b2" = 2 }\n'
    engine = BatchedEngine(registry)
    for doc, life, marked in ((divided, 20, [4, 3, 2]), (text, 19, [4, 2, 2])):
        batch = scenarios_to_batch([parse_scenario(tomllib.loads(doc), registry, "t")], registry)
        assert engine.kernel_takes(batch, legal=True)
        out = engine.play_batch(batch, record=False, kernel=True).outcome
        assert out.life.tolist() == [20, life]
        assert out.damage.tolist() == marked
        assert out.alive.tolist() == [True, False, False]
    batch = scenarios_to_batch([parse_scenario(tomllib.loads(divided), registry, "t")], registry)
    assert batch.division_step.size
    assert not engine.kernel_takes(batch)  # unchecked divisions only where known to be legal


def test_search_levels_are_played_in_the_kernel(registry: Registry) -> None:
    """A trampler double-blocked: the search's first level and its divisions' level are
    played in the kernel, and the decision (RULES section 9) is the numpy path's."""
    doc = {
        "players": {"A": {}, "B": {}},
        "creatures": {
            "t": {"controller": "A", "power": 6, "toughness": 6, "keywords": ["trample"]},
            "b1": {"controller": "B", "power": 3, "toughness": 3},
            "b2": {"controller": "B", "power": 3, "toughness": 3},
        },
        "combat": {"attackers": {"t": "B"}},
    }
    scenario = parse_scenario(doc, registry, "t")
    with Counted() as counted:
        ours = decisions(scenario, registry, kernels=True)
    assert counted.plays >= 2 and counted.with_divisions >= 1
    assert ours == decisions(scenario, registry, kernels=False)


@settings(max_examples=10 if NOT_JITTED else 40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])  # fmt: skip
@given(doc=scenarios(BUNDLED, keywords=KERNEL_KEYWORDS, state=False, events=False))
def test_decisions_are_the_numpy_paths(doc: dict[str, Any]) -> None:
    """Every decision and value of `best_blocks` with kernels on is the numpy path's."""
    doc = {**doc, "combat": {"attackers": doc.get("combat", {}).get("attackers", {})}}
    scenario = parse_scenario(doc, BUNDLED, "drawn.toml")
    assert decisions(scenario, BUNDLED, kernels=True) == decisions(scenario, BUNDLED, kernels=False)
