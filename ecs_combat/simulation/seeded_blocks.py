"""The seeded blocks of a run: block ``b`` of a run with seed ``s`` draws from
``SeedSequence(s, spawn_key=(b,))`` (the ``b``-th child of ``SeedSequence(s).spawn(...)``),
so any range of battles is the same whichever chunks it is resolved in."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TypeVar

import numpy as np

from ecs_combat.simulation.spec import (
    SMALL_ATTACKERS,
    SMALL_BLOCKERS_PER_ATTACKER,
    BattleSpec,
    Spec,
    most_creatures,
)

_D = TypeVar("_D")
#: Battles per seeded block.
BLOCK = 1024
#: A SPEC of battles larger than the former limits draws blocks of at most about this many
#: creatures (at least one battle), so that a chunk of cache-sized blocks stays small.
BLOCK_CREATURES = 1 << 16


def battles_per_block(spec: Spec) -> int:
    """Battles per seeded block of a spec: :data:`BLOCK`, as always, for the tournament and a
    SPEC within the former limits (at most 64 attackers and 16 blockers per attacker); for
    larger battles as many as hold :data:`BLOCK_CREATURES` creatures at most, at least one."""
    if not isinstance(spec, BattleSpec) or (
        spec.attackers[1] <= SMALL_ATTACKERS
        and spec.blockers_per_attacker[1] <= SMALL_BLOCKERS_PER_ATTACKER
    ):
        return BLOCK
    return max(1, min(BLOCK, BLOCK_CREATURES // most_creatures(spec)))


def block_rng(seed: int, block: int) -> np.random.Generator:
    """The random generator of one block of battles."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(block,)))


def block_cuts(spec: Spec, start: int, stop: int) -> list[tuple[int, int, int]]:
    """The seeded blocks holding battles ``start`` to ``stop - 1`` of a run of `spec`: each
    block's number and the range of its battles taken (``lo`` to ``hi - 1``)."""
    size = battles_per_block(spec)
    return [
        (block, max(start - block * size, 0), min(stop - block * size, size))
        for block in range(start // size, -(-stop // size))
    ]


def block_draws(
    draw: Callable[[np.random.Generator, int], _D], spec: Spec, seed: int, start: int, stop: int
) -> Iterator[tuple[_D, int, int]]:
    """What `draw` draws for each seeded block holding battles ``start`` to ``stop - 1`` of
    the run with `seed` (whole blocks, from their own generators), and the range of the
    block's battles taken (``lo`` to ``hi - 1``)."""
    size = battles_per_block(spec)
    for block, lo, hi in block_cuts(spec, start, stop):
        yield draw(block_rng(seed, block), size), lo, hi
