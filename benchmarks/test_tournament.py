"""The default keyword tournament: batched engine (1,000,000 battles), reference engine
(10,000) and the hand-written floor (1,000,000), in process and as whole processes.

Ratios to read off the table (targets in docs/performance.md): batched battles/s over
reference battles/s (>= 300), batched time over floor time (<= 4, whole process).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from typing import Any

import pytest

from ecs_combat.bench import floor
from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.simulate import Run, default_chunk_size, make_engine, simulate
from ecs_combat.simulation.spec import tournament

BATCHED_BATTLES = 1_000_000
REFERENCE_BATTLES = 10_000
SEED = 1


def run_tournament(registry: Registry, engine: str, battles: int) -> Run:
    """Draw, resolve and tally the tournament, as `ecs-combat simulate` does."""
    spec = tournament(registry)
    generator = make_generator(spec, registry)
    resolver = make_engine(engine, registry)
    return simulate(generator, engine, resolver, SEED, battles, default_chunk_size(spec, engine))


def record(benchmark: Any, battles: int, creatures: int) -> None:
    """Battles and creatures per second of the fastest round, for the report."""
    best = benchmark.stats.stats.min
    benchmark.extra_info.update(
        battles=battles,
        battles_per_second=round(battles / best),
        creatures_per_second=round(creatures / best),
    )


@pytest.mark.benchmark(group="tournament")
def test_tournament_batched(benchmark: Any, registry: Registry) -> None:
    run = benchmark.pedantic(
        run_tournament, (registry, "batched", BATCHED_BATTLES), rounds=5, warmup_rounds=1
    )
    if benchmark.stats:
        record(benchmark, BATCHED_BATTLES, run.tally.creatures)


@pytest.mark.benchmark(group="tournament")
def test_tournament_reference(benchmark: Any, registry: Registry) -> None:
    run = benchmark.pedantic(run_tournament, (registry, "reference", REFERENCE_BATTLES), rounds=1)
    if benchmark.stats:
        record(benchmark, REFERENCE_BATTLES, run.tally.creatures)


@pytest.mark.benchmark(group="tournament")
def test_tournament_floor(benchmark: Any, registry: Registry) -> None:
    benchmark.pedantic(
        floor.tournament, (registry, BATCHED_BATTLES, SEED), rounds=5, warmup_rounds=1
    )
    if benchmark.stats:
        record(benchmark, BATCHED_BATTLES, 2 * BATCHED_BATTLES)


def simulate_command() -> list[str]:
    exe = shutil.which("ecs-combat")
    return [exe] if exe else [sys.executable, "-c", "from ecs_combat.cli.main import main; main()"]


@pytest.mark.benchmark(group="tournament, whole process")
def test_tournament_batched_whole_process(benchmark: Any) -> None:
    """`ecs-combat simulate --json`, start-up and JSON included, with this installation's
    plugins (as a user runs it)."""
    args = ["simulate", "--battles", str(BATCHED_BATTLES), "--seed", str(SEED), "--json"]
    benchmark.pedantic(
        subprocess.run,
        ([*simulate_command(), *args],),
        {"check": True, "stdout": subprocess.DEVNULL},
        rounds=5,
    )


@pytest.mark.benchmark(group="tournament, whole process")
def test_tournament_floor_whole_process(benchmark: Any) -> None:
    """`python -m ecs_combat.bench.floor`, start-up included."""
    args = ["--battles", str(BATCHED_BATTLES), "--seed", str(SEED)]
    benchmark.pedantic(
        subprocess.run,
        ([sys.executable, "-m", "ecs_combat.bench.floor", *args],),
        {"check": True, "stdout": subprocess.DEVNULL},
        rounds=5,
    )
