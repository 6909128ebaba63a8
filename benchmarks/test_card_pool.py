"""Real cards against the built-in tournament: the 2-drop card pool of
docs/examples/specs/two-drops.toml (1,000,000 one-on-one battles of real cards) and the default
keyword tournament (1,000,000 battles), both on the batched engine, in process.

The ratio to read off the table (target in docs/performance.md): the card pool's battles/s over
the tournament's (>= 0.8).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.simulate import Run, default_chunk_size, make_engine, simulate
from ecs_combat.simulation.spec import Spec, tournament
from ecs_combat.simulation.spec_reader import parse_spec

BATTLES = 1_000_000
SEED = 1
TWO_DROPS = (
    Path(__file__).resolve().parent.parent / "docs" / "examples" / "specs" / "two-drops.toml"
)


def two_drops(registry: Registry) -> Spec:
    """The 2-drop pool (the database read against the plugins once, outside the timing)."""
    return parse_spec(tomllib.loads(TWO_DROPS.read_text()), registry, str(TWO_DROPS))


def run(registry: Registry, spec: Spec) -> Run:
    """Draw, resolve and tally, as `ecs-combat simulate` does."""
    generator = make_generator(spec, registry)
    engine = make_engine("batched", registry)
    return simulate(
        generator, "batched", engine, SEED, BATTLES, default_chunk_size(spec, "batched")
    )


def record(benchmark: Any, run: Run) -> None:
    """Battles and creatures per second of the fastest round, for the report."""
    best = benchmark.stats.stats.min
    benchmark.extra_info.update(
        battles=BATTLES,
        battles_per_second=round(BATTLES / best),
        creatures_per_second=round(run.tally.creatures / best),
    )


@pytest.mark.benchmark(group="real cards")
def test_card_pool_two_drops_batched(benchmark: Any, registry: Registry) -> None:
    spec = two_drops(registry)
    result = benchmark.pedantic(run, (registry, spec), rounds=5, warmup_rounds=1)
    if benchmark.stats:
        record(benchmark, result)


@pytest.mark.benchmark(group="real cards")
def test_card_pool_tournament_batched(benchmark: Any, registry: Registry) -> None:
    """The built-in tournament, measured beside the card pool for the ratio."""
    result = benchmark.pedantic(run, (registry, tournament(registry)), rounds=5, warmup_rounds=1)
    if benchmark.stats:
        record(benchmark, result)
