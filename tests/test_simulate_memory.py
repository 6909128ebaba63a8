"""Memory of bulk simulations: what a chunk's resolution builds is freed when the chunk is done,
so memory stays bounded by one chunk whatever `--battles` is (docs/simulate.md, "Seeds,
blocks and chunks")."""

from __future__ import annotations

import platform
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.simulate import make_engine, run_chunk
from ecs_combat.simulation.spec import tournament
from ecs_combat.simulation.spec_reader import load_spec

MELEE = Path(__file__).resolve().parent.parent / "examples" / "specs" / "melee.toml"
CHUNK = 1024
CHUNKS = 6


@pytest.mark.parametrize("workload", ["tournament", "melee"])
def test_chunks_keep_nothing_of_their_resolution(registry: Registry, workload: str) -> None:
    """Six chunks in a row keep under a fifth of one chunk's peak memory. The batched engine's
    run of a batch holds reference cycles, which the cyclic collector's old generations reach
    rarely: without `run_chunk`'s collection of the young generations after each chunk, this
    kept 0.5 MB of a 1.3 MB peak (the melee 4.7 of 11.8 MB), and a 10,000,000-battle
    tournament peaked at 118 MB instead of 54 MB."""
    spec = tournament(registry) if workload == "tournament" else load_spec(MELEE, registry)
    generator = make_generator(spec, registry)
    engine = make_engine("batched", registry)
    run_chunk(generator, engine, 1, 0, 0, CHUNK)  # warm: caches of the engine and generator
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(CHUNKS):
            run_chunk(generator, engine, 1, i, i * CHUNK, (i + 1) * CHUNK)
        now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert now - before < (peak - before) / 5


FAULTS = """
import resource
import numpy as np
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.testing.registries import registry_with
BatchedEngine(registry_with())


def work():  # arrays of a chunk's sizes made and dropped in turn, the larger last
    for n in (1 << 16, 1 << 17, 1 << 18, 1 << 19):
        a = np.ones(n); b = np.ones(2 * n); del a; c = np.ones(4 * n); del b, c


work()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):
    work()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


@pytest.mark.skipif(
    platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc only"
)
def test_freed_arrays_are_reused_not_mapped_afresh() -> None:
    """Once a batched engine exists, arrays freed between chunks are reused: twenty rounds of
    arrays of 0.5-16 MB made and dropped take (almost) no fresh pages. With glibc's own
    settings (`keep_freed_memory` not called) the same rounds took about 1,000 page faults,
    and a tournament with decisions spent a third of its CPU time in the system."""
    run = subprocess.run([sys.executable, "-c", FAULTS], capture_output=True, text=True, check=True)
    assert int(run.stdout) < 50
