"""A card pool's one-on-one chunks drawn and tallied in one compiled pass, with kernels on.

The chunk's blocks are drawn from their seeds (:func:`~ecs_combat.kernel.pool_draw.
seeded_indices`: the card indices :meth:`~.card_draw.CardGenerator.draw` gets from numpy,
bit for bit), and each battle's two cards and pair of card classes added to the per-card
tally from the pair of classes' kept outcome (:class:`~.pool_boards.PoolOutcomes`) in the
same pass (:func:`~ecs_combat.kernel.pool_draw.pool_blocks`), with no ``Generator`` and no
array per battle. The battles of pairs of classes not resolved yet are counted by card pair,
their pairs of classes resolved, and added after. So the tally is :func:`~.pool_boards.
pool_tally`'s, which takes every chunk the kernels can't (kernels off, a seed below 0, a
block from 2**32 on, a side of more than 65,536 cards).
"""

from __future__ import annotations

import time
import weakref

import numpy as np
import numpy.typing as npt

from ecs_combat.batched import IntArray
from ecs_combat.simulation.card_draw import CARD_COLUMNS
from ecs_combat.simulation.generate import Generator
from ecs_combat.simulation.pool_boards import PoolOutcomes, PoolTally, card_columns, kept_for
from ecs_combat.simulation.seeded_blocks import battles_per_block, block_cuts

I64 = np.int64


class SeededPool:
    """A generator's arrays for drawing and tallying its blocks in the kernel, with its kept
    outcomes `kept`: each side's index's card and class, a block's drawn indices, the
    ``integers`` calls of a block, the battles of pairs of classes not resolved yet by card
    pair, and the kept outcomes' table by pair of classes (made again when more are
    resolved)."""

    def __init__(self, kept: PoolOutcomes, fills: tuple[tuple[int, int], ...], battles: int):
        pool = kept.pool
        width = max(pool.attacker.size, pool.blocker.size)
        self.cards = np.zeros((2, width), I64)
        self.cards[0, : pool.attacker.size] = pool.attacker
        self.cards[1, : pool.blocker.size] = pool.blocker
        self.classes = np.ascontiguousarray(kept.classes[self.cards], I64)
        #: A side index of each card (any, when a side lists a card more than once).
        self.index = np.zeros((2, kept.n_cards), I64)
        self.index[0, pool.attacker] = np.arange(pool.attacker.size)
        self.index[1, pool.blocker] = np.arange(pool.blocker.size)
        self.fills = np.array([(size, count * battles) for size, count in fills], I64)
        self.drawn = np.zeros(2 * battles, I64)
        self.missing = np.zeros(kept.n_cards * kept.n_cards, I64)
        self._rows = kept.class_rows()
        self._unknown = kept.unknown

    def rows(self, kept: PoolOutcomes) -> npt.NDArray[np.int32] | None:
        """The kept outcomes by pair of classes (:meth:`PoolOutcomes.class_rows`), as now."""
        if kept.unknown != self._unknown:
            self._rows = kept.class_rows()
            self._unknown = kept.unknown
        return self._rows


#: Per kept outcomes: their :class:`SeededPool`.
_seeded: weakref.WeakKeyDictionary[PoolOutcomes, SeededPool] = weakref.WeakKeyDictionary()


def seeded_tally(
    generator: Generator, engine: object, seed: int, start: int, stop: int
) -> PoolTally | None:
    """Battles ``start`` to ``stop - 1`` of the run with `seed` tallied per card in the
    kernel (:mod:`.pool_seeded`), or None when the kernel can't (kernels off, the generator
    keeps no outcomes or draws other than card indices (:meth:`Generator.side_fills`), a
    seed below 0 or a block from 2**32 on): :func:`~.pool_boards.pool_tally` then does."""
    fills = generator.side_fills()
    kernel_of = getattr(engine, "kernel", None)
    if seed < 0 or fills is None or kernel_of is None or kernel_of() is None:
        return None
    kept = kept_for(generator, engine)
    cuts = block_cuts(generator.spec, start, stop)
    if kept is None or not cuts or cuts[-1][0] >> 32:
        return None
    seeded = _seeded.get(kept)
    if seeded is None:
        seeded = _seeded[kept] = SeededPool(kept, fills, battles_per_block(generator.spec))
    rows = seeded.rows(kept)
    if rows is None:
        return None
    from ecs_combat.kernel.blocks import seed_words
    from ecs_combat.kernel.pool_draw import pool_blocks

    sums = np.zeros((kept.n_cards, 2, 8), I64)
    left_out = pool_blocks(
        seed_words(seed), np.array(cuts, I64), seeded.fills, seeded.drawn, seeded.cards,
        seeded.classes, kept.n_classes, kept.known_classes, rows, sums, seeded.missing,
    )  # fmt: skip
    seconds = 0.0
    if left_out:
        began = time.perf_counter()
        if not _add_new(generator, kept, seeded, sums, stop - start):
            return None
        seconds = time.perf_counter() - began
    tally = np.zeros((kept.n_cards, 2, len(CARD_COLUMNS)), I64)
    for role in range(2):
        card_columns(sums[:, role, :7].T, tally[:, role])
    return PoolTally(tally, 2 * (stop - start), seconds)


def _add_new(
    generator: Generator, kept: PoolOutcomes, seeded: SeededPool, sums: IntArray, battles: int
) -> bool:
    """The battles left out for their pairs of classes not resolved (`seeded`'s missing,
    emptied): their pairs of classes resolved, and the battles added to `sums`; False when
    the kept outcomes can't be added so (:meth:`PoolOutcomes.class_rows`)."""
    pairs = np.flatnonzero(seeded.missing)
    times = seeded.missing[pairs]
    seeded.missing[pairs] = 0
    a, b = pairs // kept.n_cards, pairs % kept.n_cards
    side = np.stack([seeded.index[0, a], seeded.index[1, b]], axis=1)
    kept.learn_classes(generator, side, battles)
    rows = seeded.rows(kept)
    if rows is None:
        return False
    from ecs_combat.kernel.pool_draw import add_pairs

    add_pairs(sums, pairs, times, kept.classes[a] * kept.n_classes + kept.classes[b], rows)
    return True
