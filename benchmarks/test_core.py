"""The damage-step core alone: each engine resolving battles drawn beforehand, nothing else
timed. A slowdown of division, the step pipeline or state-based actions shows here first:
`python -m pytest benchmarks -k core --benchmark-enable --benchmark-compare
--benchmark-compare-fail=min:25%` (docs/performance.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ecs_combat import Registry, load_scenario
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.simulation.generate import Drawn, draw_battles
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.simulate import default_chunk_size, make_engine
from ecs_combat.simulation.spec import tournament

SEED = 1
#: Tournament battles for the batched engine: 16 chunks of 8,192 battles (`ecs-combat
#: simulate`'s chunk until 2026-12-01, kept so that the saved baselines stay comparable).
CHUNKS = 16
CHUNK_BATTLES = 8192
REFERENCE_BATTLES = 2_000
SCENARIOS = Path(__file__).resolve().parent.parent / "tests" / "scenarios"


def tournament_chunks(registry: Registry, chunks: int, engine: str) -> list[Drawn]:
    """Tournament battles drawn beforehand, in chunks of :data:`CHUNK_BATTLES` (batched) or of the
    reference engine's size."""
    spec = tournament(registry)
    generator = make_generator(spec, registry)
    size = CHUNK_BATTLES if engine == "batched" else default_chunk_size(spec, engine)
    return [draw_battles(generator, SEED, i * size, (i + 1) * size) for i in range(chunks)]


def record(benchmark: Any, battles: int, creatures: int) -> None:
    """Battles and creatures per second of the fastest round, for the report."""
    if benchmark.stats:
        best = benchmark.stats.stats.min
        benchmark.extra_info.update(
            battles=battles,
            battles_per_second=round(battles / best),
            creatures_per_second=round(creatures / best),
        )


@pytest.mark.benchmark(group="core")
def test_core_batched_tournament(benchmark: Any, registry: Registry) -> None:
    """`resolve_batch` over 16 tournament chunks (about 131,000 battles)."""
    chunks = tournament_chunks(registry, CHUNKS, "batched")
    engine = make_engine("batched", registry)

    def resolve() -> None:
        for drawn in chunks:
            engine.resolve_batch(drawn.batch)

    benchmark.pedantic(resolve, rounds=15, warmup_rounds=1)
    record(
        benchmark,
        sum(d.batch.n_battles for d in chunks),
        sum(d.batch.n_creatures for d in chunks),
    )


@pytest.mark.benchmark(group="core")
def test_core_reference_tournament(benchmark: Any, registry: Registry) -> None:
    """The reference engine on 2,000 tournament battles (one scenario each)."""
    spec = tournament(registry)
    drawn = draw_battles(make_generator(spec, registry), SEED, 0, REFERENCE_BATTLES)
    engine = make_engine("reference", registry)
    benchmark.pedantic(engine.resolve_batch, (drawn.batch,), rounds=3, warmup_rounds=1)
    record(benchmark, drawn.batch.n_battles, drawn.batch.n_creatures)


@pytest.mark.benchmark(group="core")
def test_core_batched_rules_scenarios(benchmark: Any, registry: Registry) -> None:
    """The batched engine on the rules scenarios of tests/scenarios in one batch: divisions,
    events and every keyword, with the readable log."""
    scenarios = [load_scenario(p, registry) for p in sorted(SCENARIOS.glob("*.toml"))]
    engine = BatchedEngine(registry)
    benchmark.pedantic(engine.resolve_many, (scenarios,), rounds=15, warmup_rounds=1)


@pytest.mark.benchmark(group="core")
def test_core_reference_rules_scenarios(benchmark: Any, registry: Registry) -> None:
    """The reference engine on the same scenarios, one at a time."""
    scenarios = [load_scenario(p, registry) for p in sorted(SCENARIOS.glob("*.toml"))]
    engine = ReferenceEngine(registry)

    def resolve() -> None:
        for scenario in scenarios:
            engine.resolve(scenario)

    benchmark.pedantic(resolve, rounds=5, warmup_rounds=1)
