"""Bulk simulation with decisions = "optimal" (docs/simulate.md, "Optimal blocks"): the keyword
tournament and the 2-drop card pool, blocks as drawn against the defending player's best.

Ratio to read off the table (target in docs/performance.md): the optimal tournament's
battles/s over the drawn one's (>= 0.2).
"""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path
from typing import Any

import pytest

from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.simulate import Run, default_chunk_size, make_engine, simulate
from ecs_combat.simulation.spec import Spec, tournament
from ecs_combat.simulation.spec_reader import parse_spec

TOURNAMENT_BATTLES = 200_000
POOL_BATTLES = 50_000
SEED = 1
TWO_DROPS = (
    Path(__file__).resolve().parent.parent / "docs" / "examples" / "specs" / "two-drops.toml"
)


def run_spec(registry: Registry, spec: Spec, battles: int) -> Run:
    """Draw, decide, resolve and tally, as `ecs-combat simulate` does (batched engine)."""
    generator = make_generator(spec, registry)
    resolver = make_engine("batched", registry)
    return simulate(
        generator, "batched", resolver, SEED, battles, default_chunk_size(spec, "batched")
    )


def record(benchmark: Any, battles: int) -> None:
    best = benchmark.stats.stats.min
    benchmark.extra_info.update(battles=battles, battles_per_second=round(battles / best))


@pytest.mark.benchmark(group="decisions-tournament")
@pytest.mark.parametrize("decisions", ["drawn", "optimal"])
def test_tournament(benchmark: Any, registry: Registry, decisions: str) -> None:
    spec = dataclasses.replace(tournament(registry), decisions=decisions)
    benchmark.pedantic(run_spec, (registry, spec, TOURNAMENT_BATTLES), rounds=5, warmup_rounds=1)
    if benchmark.stats:
        record(benchmark, TOURNAMENT_BATTLES)


@pytest.mark.benchmark(group="decisions-two-drops")
@pytest.mark.parametrize("decisions", ["drawn", "optimal"])
def test_two_drops(benchmark: Any, registry: Registry, decisions: str) -> None:
    doc = {**tomllib.loads(TWO_DROPS.read_text()), "decisions": decisions}
    spec = parse_spec(doc, registry, str(TWO_DROPS))
    benchmark.pedantic(run_spec, (registry, spec, POOL_BATTLES), rounds=3, warmup_rounds=1)
    if benchmark.stats:
        record(benchmark, POOL_BATTLES)
