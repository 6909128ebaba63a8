"""A card pool's one-on-one blocks drawn from their seeds and tallied per card, compiled.

A block's card indices are the numbers numpy's ``Generator.integers(0, size, count,
dtype=np.uint16)`` calls give on the block's generator ``default_rng(SeedSequence(seed,
spawn_key=(block,)))``, bit for bit (:func:`seeded_indices`): the seeding and the 32-bit
words are :mod:`.one_on_one_draw`'s, and each call is numpy's ``random_bounded_uint16_fill``:
a word's low 16 bits, then its high 16 bits (a fresh buffer each call), each kept as
``(value * size) >> 16`` unless ``(value * size) & 0xFFFF`` falls below ``(65536 - size) %
size`` (Lemire's rejection; a size of 65,536 takes every value as drawn, a size of 1 draws
nothing). :func:`pool_blocks` then numbers each battle's cards and pair of card classes and
adds the pair's kept outcome to both cards' sums, in the same pass (the card pool's
:class:`~ecs_combat.simulation.pool_boards.PoolOutcomes`, whose tally the sums give)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from ecs_combat.kernel.cache_repair import guard
from ecs_combat.kernel.one_on_one_draw import output, seeded_state, step

U32 = np.uint64(0xFFFFFFFF)
S32 = np.uint64(32)


@njit(cache=True, nogil=True)
def seeded_indices(entropy: Any, block: int, fills: Any, out: Any) -> None:  # pragma: no cover
    """`out` filled as ``integers(0, size, count, dtype=np.uint16)`` calls on the block's
    fresh generator fill theirs (`entropy`, `block`: :func:`.one_on_one_draw.seeded_state`'s),
    a call per row of `fills` (size from 1 to 65,536, count), in order."""
    high, low, inc_high, inc_low = seeded_state(entropy, block)
    half = False  # whether `word`'s high 32 bits are the next 32-bit word
    word = np.uint64(0)
    at = 0
    for f in range(fills.shape[0]):
        size, end = fills[f, 0], at + fills[f, 1]
        if size == 1:
            out[at:end] = 0
            at = end
            continue
        threshold = (65536 - size) % size
        left = 0  # the 16-bit halves of `buffer` not taken yet (numpy's bcnt)
        buffer = np.int64(0)
        while at < end:
            if left == 0:
                if half:
                    buffer = np.int64(word >> S32)
                else:
                    high, low = step(high, low, inc_high, inc_low)
                    word = output(high, low)
                    buffer = np.int64(word & U32)
                half = not half
                left = 1
            else:
                buffer >>= 16
                left -= 1
            scaled = (buffer & 0xFFFF) * size
            if (scaled & 0xFFFF) >= threshold:
                out[at] = scaled >> 16
                at += 1


@njit(cache=True, nogil=True)
def pool_blocks(
    entropy: Any,
    blocks: Any,
    fills: Any,
    drawn: Any,
    cards: Any,
    classes: Any,
    n_classes: int,
    known: Any,
    table: Any,
    sums: Any,
    missing: Any,
) -> int:  # pragma: no cover
    """Each block of `blocks` (number, first and last battle taken + 1) drawn into `drawn`
    (:func:`seeded_indices` with `fills`: one call of both sides' indices interleaved, or
    one a side), and its battles taken added to `sums` (:func:`add_battle`) when `known`
    has their pair of classes, else counted in `missing` (by card pair, ``attacker *
    cards + blocker``); `cards` and `classes` ([2, indices]) each side's index's card and
    class. The battles not added."""
    per_block = drawn.shape[0] // 2
    n_cards = sums.shape[0]
    interleaved = fills.shape[0] == 1
    left_out = 0
    for k in range(blocks.shape[0]):
        seeded_indices(entropy, blocks[k, 0], fills, drawn)
        for i in range(blocks[k, 1], blocks[k, 2]):
            if interleaved:
                s0, s1 = drawn[2 * i], drawn[2 * i + 1]
            else:
                s0, s1 = drawn[i], drawn[per_block + i]
            kind = classes[0, s0] * n_classes + classes[1, s1]
            a, b = cards[0, s0], cards[1, s1]
            if known[kind]:
                add_battle(sums, a, b, table[kind], 1)
            else:
                missing[a * n_cards + b] += 1
                left_out += 1
    return left_out


@njit(cache=True, nogil=True, inline="always")
def add_battle(sums: Any, a: int, b: int, row: Any, times: int) -> None:  # pragma: no cover
    """`times` battles of attacker card `a` against blocker card `b` added to `sums`
    ([card, role, (each outcome seen, damage to players, dealt, gained)]), `row` their
    pair of classes' (outcome seen by each role, damage to players, dealt by each role,
    gained by each role)."""
    sums[a, 0, row[0]] += times
    sums[b, 1, row[1]] += times
    if row[2] | row[3] | row[4] | row[5] | row[6]:
        sums[a, 0, 4] += row[2] * times
        sums[b, 1, 4] += row[2] * times
        sums[a, 0, 5] += row[3] * times
        sums[b, 1, 5] += row[4] * times
        sums[a, 0, 6] += row[5] * times
        sums[b, 1, 6] += row[6] * times


@njit(cache=True, nogil=True)
def add_pairs(sums: Any, pairs: Any, times: Any, kinds: Any, rows: Any) -> None:  # pragma: no cover
    """Each card pair of `pairs` (``attacker * cards + blocker``) added `times` times to
    `sums` (:func:`add_battle`), from its pair of classes' row of `rows` (`kinds`)."""
    n_cards = sums.shape[0]
    for i in range(pairs.shape[0]):
        p = pairs[i]
        add_battle(sums, p // n_cards, p % n_cards, rows[kinds[i]], times[i])


# a damaged cache entry never fails a run
for _function in (seeded_indices, pool_blocks, add_battle, add_pairs):
    guard(_function)
