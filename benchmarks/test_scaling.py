"""Scaling: the tournament on the batched engine from 10^4 to 10^7 battles. Time should grow
linearly with battles: compare `seconds_per_million` across sizes (docs/performance.md)."""

from __future__ import annotations

from typing import Any

import pytest

from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.simulate import default_chunk_size, make_engine, simulate
from ecs_combat.simulation.spec import tournament

SEED = 1


@pytest.mark.benchmark(group="scaling")
@pytest.mark.parametrize("battles", [10_000, 100_000, 1_000_000, 10_000_000])
def test_scaling_batched(benchmark: Any, registry: Registry, battles: int) -> None:
    spec = tournament(registry)
    generator = make_generator(spec, registry)
    engine = make_engine("batched", registry)
    size = default_chunk_size(spec, "batched")
    rounds = 5 if battles <= 1_000_000 else 2
    benchmark.pedantic(
        simulate,
        (generator, "batched", engine, SEED, battles, size),
        rounds=rounds,
        warmup_rounds=1,
    )
    if benchmark.stats:
        best = benchmark.stats.stats.min
        benchmark.extra_info.update(
            battles=battles,
            battles_per_second=round(battles / best),
            seconds_per_million=round(best / battles * 1e6, 4),
        )
