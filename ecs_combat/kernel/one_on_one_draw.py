"""A one-on-one block's draws made from its seed, compiled: the bytes numpy's
``Generator.integers(least, greatest + 1, size, dtype=np.uint8)`` calls give, in order, on
the block's generator ``default_rng(SeedSequence(seed, spawn_key=(block,)))``, bit for bit:
``SeedSequence``'s hashing, ``PCG64``'s seeding and 128-bit steps (XSL-RR output, 32-bit
words as each output's low half then high half), and ``random_bounded_uint8_fill``'s
Lemire rejection on a word's bytes (a fresh buffer each call). So a block of the tournament
is drawn in one compiled call, without a ``Generator`` and its Python calls
(:class:`.blocks.OneOnOnePlayer`, :class:`.blocks.SeededBlock`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from ecs_combat.kernel.cache_repair import guard

AnyArray = npt.NDArray[Any]
U32 = np.uint64(0xFFFFFFFF)
S32 = np.uint64(32)
#: SeedSequence's hash constants (numpy/random/bit_generator.pyx), as 64-bit words.
INIT_A, MULT_A = np.uint64(0x43B0D7E5), np.uint64(0x931E8875)
INIT_B, MULT_B = np.uint64(0x8B51F9DD), np.uint64(0x58F38DED)
MIX_L, MIX_R, XSHIFT = np.uint64(0xCA01F9DD), np.uint64(0x4973F715), np.uint64(16)
#: PCG64's multiplier (high and low words).
PCG_HIGH, PCG_LOW = np.uint64(2549297995355413924), np.uint64(4865540595714422341)
ONE = np.uint64(1)
SIXTY_THREE, ROTATE = np.uint64(63), np.uint64(58)


@njit(cache=True, nogil=True)
def seeded_state(entropy: Any, block: int) -> Any:  # pragma: no cover
    """A fresh ``PCG64(SeedSequence(seed, spawn_key=(block,)))``'s state and increment
    (high, low words each), `entropy` being the seed's 32-bit words padded to the pool's
    four (``SeedSequence``'s assembled entropy less the spawn key), `block` below 2**32."""
    pool = np.zeros(4, np.uint64)
    words = np.zeros(entropy.shape[0] + 1, np.uint64)
    for i in range(entropy.shape[0]):
        words[i] = np.uint64(entropy[i])
    words[entropy.shape[0]] = np.uint64(block)
    hash_const = INIT_A
    for i in range(4):  # SeedSequence.mix_entropy
        value = words[i] if i < words.shape[0] else np.uint64(0)
        value, hash_const = _hashmix(value, hash_const)
        pool[i] = value
    for src in range(4):
        for dst in range(4):
            if src != dst:
                value, hash_const = _hashmix(pool[src], hash_const)
                pool[dst] = _mix(pool[dst], value)
    for src in range(4, words.shape[0]):
        for dst in range(4):
            value, hash_const = _hashmix(words[src], hash_const)
            pool[dst] = _mix(pool[dst], value)
    state = np.zeros(8, np.uint64)  # SeedSequence.generate_state(4, np.uint64) as 32-bit words
    hash_const = INIT_B
    for i in range(8):
        value = pool[i % 4] ^ hash_const
        hash_const = (hash_const * MULT_B) & U32
        value = (value * hash_const) & U32
        state[i] = value ^ (value >> XSHIFT)
    seed = [state[2 * i] | (state[2 * i + 1] << S32) for i in range(4)]
    inc_high = (seed[2] << ONE) | (seed[3] >> SIXTY_THREE)  # pcg64_set_seed: (initseq << 1) | 1
    inc_low = (seed[3] << ONE) | ONE
    high, low = step(np.uint64(0), np.uint64(0), inc_high, inc_low)
    low += seed[1]
    high += seed[0] + (ONE if low < seed[1] else np.uint64(0))
    high, low = step(high, low, inc_high, inc_low)
    return high, low, inc_high, inc_low


@njit(cache=True, nogil=True)
def _hashmix(value: Any, hash_const: Any) -> Any:  # pragma: no cover
    """SeedSequence's ``hashmix``: the value and the next hash constant."""
    value ^= hash_const
    hash_const = (hash_const * MULT_A) & U32
    value = (value * hash_const) & U32
    return value ^ (value >> XSHIFT), hash_const


@njit(cache=True, nogil=True)
def _mix(x: Any, y: Any) -> Any:  # pragma: no cover
    """SeedSequence's ``mix``."""
    result = (MIX_L * x - MIX_R * y) & U32
    return result ^ (result >> XSHIFT)


@njit(cache=True, nogil=True)
def step(high: Any, low: Any, inc_high: Any, inc_low: Any) -> Any:  # pragma: no cover
    """PCG64's state times its multiplier plus its increment, modulo 2**128."""
    a0, a1 = low & U32, low >> S32
    b0, b1 = PCG_LOW & U32, PCG_LOW >> S32
    middle = a1 * b0 + ((a0 * b0) >> S32)
    carry = (middle & U32) + a0 * b1
    upper = a1 * b1 + (middle >> S32) + (carry >> S32)  # the high word of low * PCG_LOW
    new_low = low * PCG_LOW
    new_high = upper + high * PCG_LOW + low * PCG_HIGH
    out_low = new_low + inc_low
    out_high = new_high + inc_high + (ONE if out_low < new_low else np.uint64(0))
    return out_high, out_low


@njit(cache=True, nogil=True)
def output(high: Any, low: Any) -> Any:  # pragma: no cover
    """PCG64's 64-bit output of a stepped state (XSL-RR): its low 32 bits are the next
    32-bit word, its high 32 bits the one after."""
    turn = high >> ROTATE
    mixed = high ^ low
    return (mixed >> turn) | (mixed << ((np.uint64(64) - turn) & SIXTY_THREE))


@njit(cache=True, nogil=True)
def seeded_bytes(entropy: Any, block: int, fills: Any, out: Any) -> None:  # pragma: no cover
    """`out` filled as ``integers`` calls on a fresh ``default_rng(SeedSequence(seed,
    spawn_key=(block,)))`` fill theirs (`entropy`, `block`: :func:`seeded_state`'s): per row
    of `fills` (least, greatest, count), `count` bytes from `least` to `greatest`.

    Each call takes the bytes of the generator's next 32-bit words, low byte first, and keeps
    a byte's ``(byte * (span + 1)) >> 8`` unless its low 8 bits fall below ``(255 - span) %
    (span + 1)`` (Lemire; with a span of 255 every byte as drawn); the rest of its last word
    is left unused."""
    high, low, inc_high, inc_low = seeded_state(entropy, block)
    half = False  # whether `word`'s high 32 bits are the next word
    word = np.uint64(0)
    at = 0
    for f in range(fills.shape[0]):
        least, span, end = fills[f, 0], fills[f, 1] - fills[f, 0], at + fills[f, 2]
        if span == 0:
            out[at:end] = least
            at = end
            continue
        excl = span + 1
        threshold = (255 - span) % excl
        while at < end:
            if half:
                bits = np.int64(word >> S32)
            else:
                high, low = step(high, low, inc_high, inc_low)
                word = output(high, low)
                bits = np.int64(word & U32)
            half = not half
            for shift in range(0, 32, 8):
                scaled = ((bits >> shift) & 0xFF) * excl
                if (scaled & 0xFF) >= threshold:
                    out[at] = least + (scaled >> 8)
                    at += 1
                    if at == end:
                        break


# a damaged cache entry never fails a run
for _function in (seeded_state, step, output, seeded_bytes):
    guard(_function)
