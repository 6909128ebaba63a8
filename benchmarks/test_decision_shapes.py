"""The batches the decision search gives the batched engine (many candidate combats of one
board, `BatchedEngine.play_batch`), timed alone: are they resolved at least as fast per
creature as the melee (`test_melee.py`)? `python -m pytest benchmarks/test_decision_shapes.py
benchmarks/test_melee.py --benchmark-enable` (docs/performance.md, "Bulk simulations").

The batches are caught while `best_blocks` solves the nine boards of each size of
`decision_boards.boards` (the boards of `test_decisions.py`), then played again, each as the
search played it (with or without its log), round after round.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from decision_boards import boards

from ecs_combat import Registry
from ecs_combat.batched.arrays import CombatBatch
from ecs_combat.batched.engine import BatchedEngine, Played
from ecs_combat.decisions import best_blocks

BOARDS = 9


@contextmanager
def caught(into: list[tuple[CombatBatch, bool]]) -> Iterator[None]:
    """Every batch `BatchedEngine.play_batch` is given meanwhile, with its `record` flag."""
    play = BatchedEngine.play_batch

    def catching(
        self: BatchedEngine, batch: CombatBatch, record: bool, kernel: bool = False
    ) -> Played:
        into.append((batch, record))
        return play(self, batch, record, kernel)

    BatchedEngine.play_batch = catching  # type: ignore[method-assign]
    try:
        yield
    finally:
        BatchedEngine.play_batch = play  # type: ignore[method-assign]


def search_batches(registry: Registry, size: int) -> list[tuple[CombatBatch, bool]]:
    """The batches the block search plays for the benchmark's boards of one size."""
    scenarios = boards(registry, size, BOARDS)
    best_blocks(scenarios[0], registry)  # warm: imports, caches
    out: list[tuple[CombatBatch, bool]] = []
    with caught(out):
        for scenario in scenarios:
            best_blocks(scenario, registry)
    return out


@pytest.mark.benchmark(group="decision-shapes")
@pytest.mark.parametrize("size", [3, 4, 5])
def test_search_batches_engine_only(benchmark: Any, registry: Registry, size: int) -> None:
    """`play_batch` on every batch the block search of the size's boards played."""
    batches = search_batches(registry, size)
    engine = BatchedEngine(registry)

    def play_all() -> None:
        for batch, record in batches:
            engine.play_batch(batch, record)

    benchmark.pedantic(play_all, rounds=5, warmup_rounds=1)
    if benchmark.stats:
        best = benchmark.stats.stats.min
        creatures = sum(b.n_creatures for b, _ in batches)
        combats = sum(b.n_battles for b, _ in batches)
        benchmark.extra_info.update(
            size=f"{size}x{size}",
            batches=len(batches),
            combats=combats,
            creatures=creatures,
            creatures_per_batch=round(creatures / len(batches)),
            creatures_per_second=round(creatures / best),
        )
