"""Chunks of one-on-one battles (the keyword tournament) drawn, played and tallied in the
plugin set's compiled kernel, block by block (:meth:`Generator.compiled_blocks`): the same seeded
blocks and random numbers as the numpy path, so the same tally, with no batch and no outcome
arrays made. Used when the engine has a kernel (``ECS_COMBAT_KERNELS=1``) that can resolve
the battles; else None, and the chunk takes the numpy path."""

from __future__ import annotations

import time
from typing import Any

from ecs_combat.batched import IntArray
from ecs_combat.simulation.generate import Generator, OneOnOne, battles_per_block, block_rng

#: Per (generator, engine): both, the shape of their battles and the kernel's players of them,
#: one a thread (none: the kernel can't play them), made at the first chunk.
_players: dict[tuple[int, int], tuple[Generator, object, OneOnOne | None, list[Any]]] = {}


def one_on_one_counts(
    generator: Generator, engine: object, seed: int, start: int, stop: int
) -> IntArray | None:
    """Battles ``start`` to ``stop - 1`` of the run with `seed` tallied in the kernel:
    [codes * codes, 8] per (attacker code, blocker code) the summary's columns; None when the
    kernel can't play them."""
    if generator.spec.decisions == "optimal":
        return None
    found = _players.get((id(generator), id(engine)))
    if found is None or found[0] is not generator or found[1] is not engine:
        found = (generator, engine, *_player(generator, engine))
        if len(_players) >= 8:
            _players.clear()
        _players[(id(generator), id(engine))] = found
    _, _, shape, players = found
    if shape is None or not players:
        return None
    from ecs_combat.kernel.blocks import play_blocks

    size = battles_per_block(generator.spec)
    blocks = [
        (block, max(start - block * size, 0), min(stop - block * size, size))
        for block in range(start // size, -(-stop // size))
    ]
    counts: IntArray = play_blocks(
        players, blocks, lambda block: shape.draw(block_rng(seed, block), size)
    )
    return counts


def one_on_one_rows(
    generator: Generator, engine: object, seed: int, start: int, stop: int
) -> tuple[dict[tuple[int, int], IntArray], float] | None:
    """:func:`one_on_one_counts` as a tally's rows (per (attacker code, blocker code) that
    has battles, its row), and the seconds it took."""
    began = time.perf_counter()
    counts = one_on_one_counts(generator, engine, seed, start, stop)
    if counts is None:
        return None
    n = generator.n_codes
    rows = {(k // n, k % n): row for k, row in enumerate(counts) if row[0] > 0}
    return rows, time.perf_counter() - began


def _player(generator: Generator, engine: object) -> tuple[OneOnOne | None, list[Any]]:
    """The battles' shape and the kernel's players of them (one a thread), or nothing."""
    kernel_of = getattr(engine, "kernel", None)
    kernel = kernel_of() if kernel_of is not None else None
    shape = generator.compiled_blocks() if kernel is not None else None
    if (
        kernel is None
        or shape is None
        or shape.batch.n_battles != battles_per_block(generator.spec)
    ):
        return None, []
    from ecs_combat.kernel.blocks import one_on_one_player
    from ecs_combat.kernel.threads import thread_limit

    schedule = engine.schedules.of([shape.batch])  # type: ignore[attr-defined]
    first = one_on_one_player(kernel, schedule, shape.batch, shape.masks, shape.codes)
    if first is None:
        return None, []
    others = [
        one_on_one_player(kernel, schedule, shape.batch, shape.masks, shape.codes)
        for _ in range(thread_limit() - 1)
    ]
    return shape, [first, *others]
