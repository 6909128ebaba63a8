"""Turns with two combat phases against single combats, batched engine only, engine time
alone: the same drawn battles (examples/specs/extra-combat.toml: the SPEC's combat, then the
defending player's Throat Wolf combat) resolved as whole turns and as their first combat
phase alone. `python -m pytest benchmarks -k turns --benchmark-enable` (docs/performance.md)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from ecs_combat import Registry
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.simulation.generate import Drawn, draw_battles
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.spec_reader import parse_spec

SEED = 1
CHUNKS = 8
#: Battles a chunk: `ecs-combat simulate`'s chunk for this SPEC until 2026-12-01, kept so that
#: the saved baselines stay comparable.
CHUNK_BATTLES = 4096
SPEC = Path(__file__).resolve().parent.parent / "examples" / "specs" / "extra-combat.toml"


def turn_chunks(registry: Registry) -> list[Drawn]:
    """The example's battles, drawn beforehand in chunks of :data:`CHUNK_BATTLES`."""
    spec = parse_spec(tomllib.loads(SPEC.read_text()), registry, SPEC.name)
    generator = make_generator(spec, registry)
    size = CHUNK_BATTLES
    return [draw_battles(generator, SEED, i * size, (i + 1) * size) for i in range(CHUNKS)]


def record(benchmark: Any, chunks: list[Drawn]) -> None:
    """Battles and creatures per second of the fastest round, for the report."""
    if benchmark.stats:
        best = benchmark.stats.stats.min
        battles = sum(d.batch.n_battles for d in chunks)
        creatures = sum(d.batch.n_creatures for d in chunks)
        benchmark.extra_info.update(
            battles=battles,
            battles_per_second=round(battles / best),
            creatures_per_second=round(creatures / best),
        )


@pytest.mark.benchmark(group="turns")
def test_turns_two_combat_phases(benchmark: Any, registry: Registry) -> None:
    """`resolve_turn_batch`: every battle's two combat phases."""
    chunks = turn_chunks(registry)
    engine = BatchedEngine(registry)

    def resolve() -> None:
        for drawn in chunks:
            assert drawn.turn is not None
            engine.resolve_turn_batch(drawn.turn)

    benchmark.pedantic(resolve, rounds=10, warmup_rounds=1)
    record(benchmark, chunks)


@pytest.mark.benchmark(group="turns")
def test_turns_first_combat_only(benchmark: Any, registry: Registry) -> None:
    """`resolve_batch`: the same battles' first combat phase alone."""
    chunks = turn_chunks(registry)
    engine = BatchedEngine(registry)

    def resolve() -> None:
        for drawn in chunks:
            engine.resolve_batch(drawn.batch)

    benchmark.pedantic(resolve, rounds=10, warmup_rounds=1)
    record(benchmark, chunks)
