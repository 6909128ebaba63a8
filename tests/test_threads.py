"""The reference engine is safe to call from several threads at once (docs/distributed.md offers
thread executors): esper keeps the current world in module globals, so combats must not
interleave."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from ecs_combat import load_scenario
from ecs_combat.errors import InputError
from ecs_combat.plugin.registry import Registry
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.scenario.model import Scenario

SCENARIOS = Path(__file__).resolve().parent / "scenarios"


@pytest.fixture
def frequent_thread_switches() -> Iterator[None]:
    """Let threads switch every microsecond, so that interleavings happen within a short test."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def loadable(registry: Registry) -> list[Scenario]:
    """The scenario files of tests/scenarios that load with the installed plugins."""
    found = []
    for path in sorted(SCENARIOS.glob("*.toml")):
        try:
            found.append(load_scenario(path, registry))
        except InputError:  # a scenario that needs a plugin not installed here
            continue
    return found


@pytest.mark.usefixtures("frequent_thread_switches")
def test_concurrent_reference_resolves_match_serial_ones(registry: Registry) -> None:
    scenarios = loadable(registry)[:120]
    assert len(scenarios) >= 60
    engine = ReferenceEngine(registry)
    serial = [engine.resolve(s).to_json() for s in scenarios]
    work = scenarios * 3
    with ThreadPoolExecutor(4) as pool:
        # One engine shared by all threads, as a thread executor running tasks would share it.
        concurrent: list[dict[str, Any]] = [r.to_json() for r in pool.map(engine.resolve, work)]
    wrong = [
        scenarios[i % len(scenarios)].file
        for i, got in enumerate(concurrent)
        if got != serial[i % len(scenarios)]
    ]
    assert wrong == []


@pytest.mark.usefixtures("frequent_thread_switches")
def test_engines_in_different_threads_keep_their_own_combats(registry: Registry) -> None:
    scenarios = loadable(registry)[:60]
    serial = [ReferenceEngine(registry).resolve(s).to_json() for s in scenarios]

    def resolve_all(_: int) -> list[dict[str, Any]]:
        engine = ReferenceEngine(registry)  # an engine per thread, as distribute.py makes them
        return [engine.resolve(s).to_json() for s in scenarios]

    with ThreadPoolExecutor(4) as pool:
        for results in pool.map(resolve_all, range(4)):
            assert results == serial
