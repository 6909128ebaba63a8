"""Decisions on random boards (docs/performance.md#decisions): the exact search for the best
blocks of N attackers against N blockers and the best attacks, against the same search with
its bounds off (every declaration searched to the end), side by side in one run:
`python -m pytest benchmarks/test_decisions.py --benchmark-enable`. Each round solves every
board once; `extra_info` has the median time per board."""

from __future__ import annotations

import os
import statistics
import time
from typing import Any

import pytest
from decision_boards import boards

from ecs_combat import Registry
from ecs_combat.decisions import best_attacks, best_blocks, best_blocks_many
from ecs_combat.decisions import decide as decide_module

BOARDS = 9


def solve_all(
    scenarios: list[Any], registry: Registry, decide: Any, exhaustive: bool
) -> list[float]:
    """Each board's time."""
    times = []
    for sc in scenarios:
        began = time.perf_counter()
        answer = decide(sc, registry, exhaustive=exhaustive)
        times.append(time.perf_counter() - began)
        assert answer.optimal
    return times


def run(
    benchmark: Any, registry: Registry, size: int, decide: Any, exhaustive: bool, attacks: bool
) -> None:
    scenarios = boards(registry, size, BOARDS, attacks=attacks)
    decide(scenarios[0], registry)  # warm: imports, caches
    per_board: list[float] = []

    def once() -> None:
        per_board.extend(solve_all(scenarios, registry, decide, exhaustive))

    benchmark.pedantic(once, rounds=1 if exhaustive and size >= 5 else 3, iterations=1)
    benchmark.extra_info.update(
        boards=BOARDS,
        size=f"{size}x{size}",
        median_ms_per_board=round(statistics.median(per_board) * 1000, 1),
        max_ms_per_board=round(max(per_board) * 1000, 1),
    )


@pytest.mark.benchmark(group="decisions-blocks")
@pytest.mark.parametrize("size", [3, 4, 5, 6])
def test_blocks(benchmark: Any, registry: Registry, size: int) -> None:
    run(benchmark, registry, size, best_blocks, False, False)


@pytest.mark.benchmark(group="decisions-blocks")
@pytest.mark.parametrize("size", [3, 4, 5])
def test_blocks_exhaustive(benchmark: Any, registry: Registry, size: int) -> None:
    run(benchmark, registry, size, best_blocks, True, False)


@pytest.mark.benchmark(group="decisions-attacks")
@pytest.mark.parametrize("size", [3, 4, 5])
def test_attacks(benchmark: Any, registry: Registry, size: int) -> None:
    run(benchmark, registry, size, best_attacks, False, True)


@pytest.mark.benchmark(group="decisions-blocks-kernel")
@pytest.mark.parametrize("kernels", ["1", "0"])
def test_blocks_kernel(benchmark: Any, registry: Registry, kernels: str) -> None:
    """`best_blocks` on the 3x3 boards with the search's levels in the compiled kernel
    (``ECS_COMBAT_KERNELS=1``) and in the numpy engine, side by side."""
    saved = os.environ.get("ECS_COMBAT_KERNELS")
    os.environ["ECS_COMBAT_KERNELS"] = kernels
    decide_module._ENGINES.clear()  # the engine asks for its kernel once
    try:
        run(benchmark, registry, 3, best_blocks, False, False)
    finally:
        if saved is None:
            del os.environ["ECS_COMBAT_KERNELS"]
        else:
            os.environ["ECS_COMBAT_KERNELS"] = saved
        decide_module._ENGINES.clear()


@pytest.mark.benchmark(group="decisions-blocks-many")
@pytest.mark.parametrize("together", [True, False])
def test_blocks_many(benchmark: Any, registry: Registry, together: bool) -> None:
    """The nine 3x3 boards in one `best_blocks_many` call, and in a `best_blocks` call each,
    side by side (the same decisions)."""
    scenarios = boards(registry, 3, BOARDS)

    def once() -> None:
        if together:
            best_blocks_many(scenarios, registry)
        else:
            for sc in scenarios:
                best_blocks(sc, registry)

    once()  # warm: imports, caches
    benchmark.pedantic(once, rounds=5, iterations=1)
    benchmark.extra_info.update(boards=BOARDS, size="3x3")
