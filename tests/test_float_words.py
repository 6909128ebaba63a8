"""float_words: float32 uniforms compared with probabilities from the generator's raw words,
exactly as ``rng.random(dtype=np.float32) < p`` would, leaving the generator as it would."""

from __future__ import annotations

import numpy as np
import pytest

from ecs_combat.simulation.float_words import GRID, below, float32_words, grid_limit, limits

PROBABILITIES = [0.0, 1e-9, 2**-24, 0.05, 0.1, 1 / 3, 0.5, 0.7, 1 - 2**-24, 1.0, 1.5, -0.5]


def generators(seed: int, before: int) -> tuple[np.random.Generator, np.random.Generator]:
    """Two generators in the same state, after `before` float32 draws (an odd number leaves
    half of a 64-bit output kept for the next 32-bit draw)."""
    pair = tuple(np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(3,))) for _ in "ab")
    for rng in pair:
        rng.random(before, dtype=np.float32)
    return pair[0], pair[1]


@pytest.mark.parametrize("before", [0, 1, 2, 7])
@pytest.mark.parametrize("count", [0, 1, 2, 3, 10, 1001])
def test_words_are_the_float32_draws_and_leave_the_same_state(before: int, count: int) -> None:
    expected, mine = generators(before * 100 + count, before)
    u = expected.random(count, dtype=np.float32)
    words = float32_words(mine, count)
    assert words.dtype == np.uint32 and words.shape == (count,)
    assert np.array_equal(words.astype(np.float32) / np.float32(GRID), u)
    assert mine.bit_generator.state == expected.bit_generator.state
    # what comes next is the same too, 32-bit and 64-bit draws alike
    assert np.array_equal(mine.random(5, dtype=np.float32), expected.random(5, dtype=np.float32))
    assert np.array_equal(
        mine.integers(0, 6, 9, dtype=np.int16), expected.integers(0, 6, 9, dtype=np.int16)
    )
    assert np.array_equal(mine.random(3), expected.random(3))


@pytest.mark.parametrize("p", PROBABILITIES)
def test_below_is_the_float32_comparison(p: float) -> None:
    expected, mine = generators(11, 1)
    u = expected.random(20_000, dtype=np.float32)
    words = float32_words(mine, 20_000)
    assert np.array_equal(below(words, p), u < np.float32(p))
    # at the edges of the grid: every k near p's limit
    m = grid_limit(p)
    k = np.arange(max(m - 3, 0), min(m + 3, GRID), dtype=np.uint32)
    grid = k.astype(np.float32) / np.float32(GRID)
    assert np.array_equal(below(k, p), grid < np.float32(p))
    assert np.array_equal(limits([p, p]), np.array([m, m], np.uint32))


def test_other_bit_generators_read_through_random() -> None:
    expected = np.random.Generator(np.random.Philox(5))
    mine = np.random.Generator(np.random.Philox(5))
    u = expected.random(101, dtype=np.float32)
    words = float32_words(mine, 101)
    assert np.array_equal(words.astype(np.float32) / np.float32(GRID), u)
    assert np.array_equal(mine.random(5, dtype=np.float32), expected.random(5, dtype=np.float32))


@pytest.mark.parametrize("before", [0, 1])
@pytest.mark.parametrize("count", [0, 1, 2, 1001])
@pytest.mark.parametrize("bits", [np.random.PCG64, np.random.Philox])
def test_unshifted_words_have_the_draws_in_their_top_24_bits(
    before: int, count: int, bits: type[np.random.BitGenerator]
) -> None:
    expected, mine = (np.random.Generator(bits(before + count)) for _ in "ab")
    for rng in (expected, mine):
        rng.random(before, dtype=np.float32)
    u = expected.random(count, dtype=np.float32)
    words = float32_words(mine, count, shifted=False)
    assert words.dtype == np.uint32 and words.shape == (count,)
    assert np.array_equal((words >> np.uint32(8)).astype(np.float32) / np.float32(GRID), u)
    assert np.array_equal(mine.random(5, dtype=np.float32), expected.random(5, dtype=np.float32))
