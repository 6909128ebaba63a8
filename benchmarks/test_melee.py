"""The melee: 100,000 battles of 5 attackers, each blocked by 0-3 creatures (about 12.5
creatures a battle), on the batched engine. Target: >= 10 million creatures resolved per second
on one core (docs/performance.md)."""

from __future__ import annotations

from typing import Any

import pytest

from ecs_combat.bench.bench import melee_spec
from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.generate import draw_battles
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.simulate import default_chunk_size, make_engine, simulate

BATTLES = 100_000
SEED = 1


@pytest.mark.benchmark(group="melee")
def test_melee_batched_pipeline(benchmark: Any, registry: Registry) -> None:
    """Draw, resolve and tally, as `ecs-combat simulate` does."""
    spec = melee_spec(registry)
    generator = make_generator(spec, registry)
    engine = make_engine("batched", registry)
    size = default_chunk_size(spec, "batched")
    run = benchmark.pedantic(
        simulate, (generator, "batched", engine, SEED, BATTLES, size), rounds=5, warmup_rounds=1
    )
    if benchmark.stats:
        best = benchmark.stats.stats.min
        benchmark.extra_info.update(
            creatures=run.tally.creatures, creatures_per_second=round(run.tally.creatures / best)
        )


@pytest.mark.benchmark(group="melee")
def test_melee_batched_engine_only(benchmark: Any, registry: Registry) -> None:
    """The engine's resolve_batch alone, on battles drawn beforehand."""
    drawn = draw_battles(make_generator(melee_spec(registry), registry), SEED, 0, BATTLES)
    engine = make_engine("batched", registry)
    benchmark.pedantic(engine.resolve_batch, (drawn.batch,), rounds=5, warmup_rounds=1)
    if benchmark.stats:
        best = benchmark.stats.stats.min
        creatures = drawn.batch.n_creatures
        benchmark.extra_info.update(
            creatures=creatures, creatures_per_second=round(creatures / best)
        )
