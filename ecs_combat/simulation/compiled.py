"""Chunks drawn, played and tallied in the plugin set's compiled kernel, block by block: the
keyword tournament (:meth:`Generator.compiled_blocks`) and a SPEC (:meth:`Generator.
compiled_spec`), from the same seeded blocks and random numbers as the numpy path, so the same
tally, with no batch and no outcome arrays made. Used when the engine has a kernel
(``ECS_COMBAT_KERNELS=1``) that can resolve the battles; else None, and the chunk takes the
numpy path."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ecs_combat.batched import IntArray
from ecs_combat.simulation.generate import Generator
from ecs_combat.simulation.seeded_blocks import battles_per_block, block_cuts, block_rng

#: Per (generator, engine): both, how a block is drawn (a block's index: what its players
#: play), and the kernel's players (one a thread; none: the kernel can't play them), made at
#: the first chunk.
_players: dict[tuple[int, int], tuple[Generator, object, Callable[[int, int], Any], list[Any]]] = {}


def compiled_counts(
    generator: Generator, engine: object, seed: int, start: int, stop: int
) -> IntArray | None:
    """Battles ``start`` to ``stop - 1`` of the run with `seed` tallied in the kernel: per
    (attacker code, blocker code) the summary's columns, [codes * codes, 8], then a row
    whose first column counts the creatures; None when the kernel can't play them."""
    if generator.spec.decisions == "optimal":
        return None
    found = _players.get((id(generator), id(engine)))
    if found is None or found[0] is not generator or found[1] is not engine:
        found = (generator, engine, *_player(generator, engine, seed))
        if len(_players) >= 8:
            _players.clear()
        _players[(id(generator), id(engine))] = found
    _, _, draw, players = found
    if not players:
        return None
    from ecs_combat.kernel.blocks import play_blocks

    blocks = block_cuts(generator.spec, start, stop)
    counts: IntArray = play_blocks(players, blocks, lambda block: draw(seed, block))
    return counts


def compiled_rows(
    generator: Generator, engine: object, seed: int, start: int, stop: int
) -> tuple[dict[tuple[int, int], IntArray], int, float] | None:
    """:func:`compiled_counts` as a tally's rows (per (attacker code, blocker code) that
    has battles, its row), the creatures, and the seconds it took."""
    began = time.perf_counter()
    counts = compiled_counts(generator, engine, seed, start, stop)
    if counts is None:
        return None
    n = generator.n_codes
    rows = {(k // n, k % n): row for k, row in enumerate(counts[:-1]) if row[0] > 0}
    return rows, int(counts[-1, 0]), time.perf_counter() - began


def _player(
    generator: Generator, engine: object, seed: int
) -> tuple[Callable[[int, int], Any], list[Any]]:
    """How a block is drawn (seed, block), and the kernel's players of the generator's blocks (one a
    thread), or none."""
    kernel_of = getattr(engine, "kernel", None)
    kernel = kernel_of() if kernel_of is not None else None
    if kernel is None:
        return block_rng, []
    from ecs_combat.kernel.threads import thread_limit

    schedules = engine.schedules  # type: ignore[attr-defined]
    spec = generator.compiled_spec()
    if spec is not None:
        from ecs_combat.kernel.spec_player import spec_player

        schedule = schedules.of([spec.probe])
        made = [spec_player(kernel, schedule, spec) for _ in range(thread_limit())]
        return block_rng, [p for p in made if p is not None]
    shape = generator.compiled_blocks()
    if shape is None or shape.batch.n_battles != battles_per_block(generator.spec):
        return block_rng, []
    from ecs_combat.kernel.blocks import one_on_one_player

    schedule = schedules.of([shape.batch])
    size = shape.batch.n_battles
    one = [
        one_on_one_player(
            kernel, schedule, shape.batch, shape.masks, shape.codes, shape.ranges, shape.fills
        )
        for _ in range(thread_limit())
    ]
    if shape.fills is not None:  # the players draw each block from its seed
        from ecs_combat.kernel.blocks import SeededBlock, seed_words

        def seeded(seed: int, block: int) -> Any:
            if seed < 0 or block >> 32:  # (numpy's own draws)
                return shape.draw(block_rng(seed, block), size)
            return SeededBlock(seed_words(seed), block)

        return seeded, [p for p in one if p is not None]

    def draw(seed: int, block: int) -> Any:
        return shape.draw(block_rng(seed, block), size)

    return draw, [p for p in one if p is not None]
