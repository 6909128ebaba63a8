"""The compiled kernel's log of a few battles (kernel/template_log.py) and the results built
from it (batched/logged_results.py): the same results as the numpy engine's log gives, or
none where the log can't tell them (the decision search then plays its best lines again
with the numpy engine).

The kernel compiles into the cache tests/test_kernels.py uses (pytest's cache directory).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from ecs_combat import Registry, parse_scenario
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.batched.from_scenarios import scenarios_to_batch
from ecs_combat.decisions import best_blocks, playing
from ecs_combat.decisions import decide as decide_module
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
    yield
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture(scope="module")
def engine() -> BatchedEngine:
    return BatchedEngine(BUNDLED)


def double_block(keywords: list[str]) -> dict[str, Any]:
    """A 4/4 attacker with `keywords` blocked by a 1/1 and a 2/2, in that order."""
    return {
        "players": {"A": {}, "B": {}},
        "creatures": {
            "t": {"controller": "A", "power": 4, "toughness": 4, "keywords": keywords},
            "b1": {"controller": "B", "power": 1, "toughness": 1},
            "b2": {"controller": "B", "power": 2, "toughness": 2},
        },
        "combat": {"attackers": {"t": "B"}, "blockers": {"b1": "t", "b2": "t"}},
    }


def results(engine: BatchedEngine, doc: dict[str, Any], registry: Registry) -> tuple[Any, Any]:
    """The kernel's logged results of a scenario (None: not told) and the numpy engine's."""
    batch = scenarios_to_batch([parse_scenario(doc, registry, "t.toml")], registry)
    numpy = engine.play_batch(batch, True).results([0], notes=False)
    return engine.kernel_results(batch), numpy


def test_trampler_with_lifelink_double_blocked(engine: BatchedEngine) -> None:
    """A 4/4 trampler with lifelink blocked by a 1/1 and a 2/2: lethal damage to each
    blocker in order and 1 to the player (702.19b-c), 1 and 2 back (510.1d), 4 life gained
    by its controller (702.15b), both blockers die (704.5g); as the numpy engine says."""
    logged, numpy = results(engine, double_block(["trample", "lifelink"]), BUNDLED)
    assert logged is not None
    (step,) = logged[0].steps
    assert step.name == "regular"
    assert step.damage == [("t", "b1", 1), ("t", "b2", 2), ("t", "B", 1), ("b1", "t", 1), ("b2", "t", 2)]  # fmt: skip
    assert step.life_gained == [("A", "t", 4)]
    assert step.died == ["b1", "b2"]
    players = logged[0].players
    assert (players["A"].life, players["B"].life) == (24, 19)
    creatures = logged[0].creatures
    assert [(c.alive, c.damage) for c in creatures.values()] == [(True, 3), (False, 1), (False, 2)]
    assert logged[0].to_json() == numpy[0].to_json()


def test_two_steps_log_deaths_after_their_step(engine: BatchedEngine) -> None:
    """A 4/4 double striker with trample and lifelink against a 1/1 and a 2/2: both die
    after the first-strike step (510.4), so the regular step sends all 4 to the player
    (702.19e) and only the player is dealt damage then; 8 life gained in two steps."""
    logged, numpy = results(engine, double_block(["double strike", "trample", "lifelink"]), BUNDLED)
    assert logged is not None
    first, regular = logged[0].steps
    assert first.died == ["b1", "b2"] and regular.died == []
    assert regular.damage == [("t", "B", 4)]
    assert [s.life_gained for s in logged[0].steps] == [[("A", "t", 4)], [("A", "t", 4)]]
    assert logged[0].to_json() == numpy[0].to_json()


@pytest.mark.parametrize("keyword", ["wither", "infect"])
def test_replaced_damage_is_not_told(engine: BatchedEngine, keyword: str) -> None:
    """Damage dealt as counters instead (702.80, 702.90) is replaced: the log doesn't tell
    the results (the numpy engine's log gives them)."""
    logged, _ = results(engine, double_block([keyword, "trample"]), BUNDLED)
    assert logged is None


def test_life_lost_otherwise_is_not_told(engine: BatchedEngine) -> None:
    """Life lost to a trigger (afflict, 702.130a) is not damage logged: not told."""
    logged, _ = results(engine, double_block(["afflict 2"]), BUNDLED)
    assert logged is None


@settings(max_examples=10 if NOT_JITTED else 40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])  # fmt: skip
@given(doc=scenarios(BUNDLED, keywords=KERNEL_KEYWORDS, state=False, events=False))
def test_logged_results_are_the_numpy_engines(engine: BatchedEngine, doc: dict[str, Any]) -> None:
    """Every result the kernel's log tells is the numpy engine's (its JSON document)."""
    combat = {k: v for k, v in doc.get("combat", {}).items() if k != "divide"}
    logged, numpy = results(engine, {**doc, "combat": combat}, BUNDLED)
    if logged is not None:
        assert [r.to_json() for r in logged] == [r.to_json() for r in numpy]


def test_battle_without_attackers_is_not_told(engine: BatchedEngine) -> None:
    """Without attackers the kernel leaves a battle untouched (no state-based actions), while
    the numpy engine's check removes a +1/+1 and a -1/-1 counter together (704.5q): not
    told, and the numpy engine's results say no counters."""
    doc = {
        "players": {"A": {}, "B": {}},
        "creatures": {
            "a": {
                "controller": "A",
                "power": 1,
                "toughness": 1,
                "counters": {"+1/+1": 1, "-1/-1": 1},
            }
        },
    }
    logged, numpy = results(engine, doc, BUNDLED)
    assert logged is None
    assert numpy[0].creatures["a"].counters == {}


@pytest.mark.parametrize(("keyword", "replays"), [("lifelink", 0), ("wither", 1)])
def test_best_lines_read_from_the_levels_logs(keyword: str, replays: int) -> None:
    """`best_blocks` with kernels reads its best lines' outcomes from the logs of the levels
    the kernel played (no replay) where they tell them, and plays them again otherwise
    (wither's damage is dealt as counters): the decision is the numpy path's either way."""
    doc = double_block(["trample", keyword])
    doc["combat"] = {"attackers": {"t": "B"}}
    scenario = parse_scenario(doc, BUNDLED, "t.toml")
    played = []
    replay = BatchedEngine.play_batch

    def counting(engine: BatchedEngine, batch: Any, record: bool, **kw: Any) -> Any:
        played.append(record)
        return replay(engine, batch, record, **kw)

    BatchedEngine.play_batch = counting  # type: ignore[method-assign]
    try:
        ours = decisions(scenario, kernels=True)
    finally:
        BatchedEngine.play_batch = replay  # type: ignore[method-assign]
    assert sum(played) == replays
    assert ours == decisions(scenario, kernels=False)


def decisions(scenario: Any, kernels: bool) -> Any:
    """`best_blocks` with kernels on or off, its time left out."""
    os.environ["ECS_COMBAT_KERNELS"] = "1" if kernels else "0"
    decide_module._ENGINES.clear()
    try:
        return dataclasses.replace(best_blocks(scenario, BUNDLED), seconds=0.0)
    finally:
        os.environ["ECS_COMBAT_KERNELS"] = "1"
        decide_module._ENGINES.clear()


def test_larger_levels_play_their_best_lines_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A level over `LOGGED_ROWS` rows keeps no log: its best lines are played again in the
    kernel with the log (not by the numpy engine), and the decision is the numpy path's."""
    monkeypatch.setattr(playing, "LOGGED_ROWS", 0)
    doc = double_block(["trample", "lifelink"])
    doc["combat"] = {"attackers": {"t": "B"}}
    scenario = parse_scenario(doc, BUNDLED, "t.toml")
    told = []
    again = BatchedEngine.kernel_results

    def counting(engine: BatchedEngine, batch: Any) -> Any:
        told.append(again(engine, batch))
        return told[-1]

    monkeypatch.setattr(BatchedEngine, "kernel_results", counting)
    ours = decisions(scenario, kernels=True)
    assert len(told) == 1 and told[0] is not None
    assert ours == decisions(scenario, kernels=False)
