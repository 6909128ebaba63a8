"""The melee: battles of 5 attackers, each blocked by 0-3 creatures (about 12.5 creatures a
battle), on the batched engine. Target: >= 10 million creatures resolved per second on one
core (docs/performance.md), for `examples/specs/melee.toml` as a user runs it.

- `test_melee_spec_as_the_user_runs_it`: ``ecs-combat simulate examples/specs/melee.toml``
  in process: the SPEC read, the generator and engine made, the battles drawn, resolved and
  tallied in the default chunks, the summary built; Python's start-up, the imports and the
  plugins' loading excluded (they are the same for any number of battles).
- `test_melee_batched_pipeline` and `test_melee_batched_engine_only`: `ecs-combat bench`'s
  melee (strike keywords only, no casts, no state), whole pipeline and `resolve_batch` alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ecs_combat.bench.bench import melee_spec
from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.generate import draw_battles
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.simulate import (
    Run,
    default_chunk_size,
    make_engine,
    simulate,
    summary,
)
from ecs_combat.simulation.spec_reader import load_spec

BATTLES = 100_000
SEED = 1
MELEE_SPEC = Path(__file__).resolve().parent.parent / "examples" / "specs" / "melee.toml"


def record(benchmark: Any, creatures: int, battles: int) -> None:
    """Battles and creatures per second of the fastest round, for the report."""
    if benchmark.stats:
        best = benchmark.stats.stats.min
        benchmark.extra_info.update(
            battles=battles,
            creatures=creatures,
            battles_per_second=round(battles / best),
            creatures_per_second=round(creatures / best),
        )


def run_spec(registry: Registry, path: Path, battles: int) -> Run:
    """`ecs-combat simulate PATH -n BATTLES --seed 1` after start-up: read, draw, resolve,
    tally, sum up."""
    spec = load_spec(path, registry)
    generator = make_generator(spec, registry)
    engine = make_engine("batched", registry)
    run = simulate(generator, "batched", engine, SEED, battles, default_chunk_size(spec, "batched"))
    summary(generator, spec, SEED, run)
    return run


@pytest.mark.benchmark(group="melee")
def test_melee_spec_as_the_user_runs_it(benchmark: Any, registry: Registry) -> None:
    """examples/specs/melee.toml, 100,000 battles, from the SPEC file to the summary."""
    run = benchmark.pedantic(run_spec, (registry, MELEE_SPEC, BATTLES), rounds=5, warmup_rounds=1)
    record(benchmark, run.tally.creatures, BATTLES)


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
    record(benchmark, run.tally.creatures, BATTLES)


@pytest.mark.benchmark(group="melee")
def test_melee_batched_engine_only(benchmark: Any, registry: Registry) -> None:
    """The engine's resolve_batch alone, on battles drawn beforehand."""
    drawn = draw_battles(make_generator(melee_spec(registry), registry), SEED, 0, BATTLES)
    engine = make_engine("batched", registry)
    benchmark.pedantic(engine.resolve_batch, (drawn.batch,), rounds=5, warmup_rounds=1)
    record(benchmark, drawn.batch.n_creatures, BATTLES)
