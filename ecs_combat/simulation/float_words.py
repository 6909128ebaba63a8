"""Drawing ``rng.random(dtype=np.float32) < p`` from the generator's raw 64-bit words.

numpy makes a float32 uniform from one 32-bit word, ``(word >> 8) * 2**-24``, and PCG64 (the
generator of :func:`numpy.random.default_rng`) hands out 32-bit words as the low and then the
high half of each 64-bit output, keeping the unused high half for the next call. Filling an
array of float32 this way costs about 3 ns a number; reading the same 64-bit outputs with
``random_raw`` and comparing the words' top 24 bits with ``ceil(p * 2**24)`` gives exactly
the same answers (``u < p`` for every ``u`` on the 2**-24 grid) in about a third of the time,
and the generator is left in exactly the state the float32 draw would have left it in.

:func:`float32_words` is the words, :func:`below` the comparison; a generator other than
PCG64 is read through ``rng.random`` itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

WordArray = npt.NDArray[np.uint32]
#: The float32 uniforms are multiples of 2**-24.
GRID = 1 << 24


def float32_words(rng: np.random.Generator, count: int, shifted: bool = True) -> WordArray:
    """The 24-bit integers ``k`` of the next `count` values ``k * 2**-24`` that
    ``rng.random(count, dtype=np.float32)`` would give, consuming the generator as it would;
    unless `shifted`, the 32-bit words whose top 24 bits they are (the low 8 bits arbitrary),
    for a reader that shifts them itself."""
    bits = rng.bit_generator
    if type(bits) is not np.random.PCG64:
        drawn = rng.random(count, dtype=np.float32) * np.float32(GRID)
        out: WordArray = drawn.astype(np.uint32)
        return out if shifted else out << np.uint32(8)
    state: Any = bits.state
    held = int(state["has_uint32"])
    if count == 0:
        return np.zeros(0, np.uint32)
    fresh = count - held
    raw = bits.random_raw((fresh + 1) // 2).view(np.uint32)  # low halves first
    words: WordArray = raw
    if held:
        words = np.empty(count + (fresh & 1), np.uint32)
        words[0] = state["uinteger"]
        words[1:] = raw
    after: Any = bits.state
    if fresh & 1:  # the last output's high half is kept for the next 32-bit draw
        after["has_uint32"], after["uinteger"] = 1, int(words[-1])
        words = words[:-1]
    else:  # numpy leaves the last high half it handed out in the state, used or not
        after["has_uint32"] = 0
        after["uinteger"] = int(words[-1]) if fresh else state["uinteger"]
    bits.state = after
    if shifted:
        words >>= np.uint32(8)
    return words


def grid_limit(p: float | np.floating[Any]) -> int:
    """The ``m`` with ``k * 2**-24 < p`` exactly when ``k < m``, for ``k`` in [0, 2**24)."""
    limit = np.ceil(np.float64(np.float32(p)) * GRID)
    return int(min(max(limit, 0), GRID))


def limits(ps: npt.ArrayLike) -> WordArray:
    """:func:`grid_limit` of each probability."""
    return np.array([grid_limit(p) for p in np.asarray(ps, np.float32).reshape(-1)], np.uint32)


def below(words: WordArray, p: float | np.floating[Any]) -> npt.NDArray[np.bool_]:
    """``u < np.float32(p)`` for the uniforms whose 24-bit integers are `words`."""
    out: npt.NDArray[np.bool_] = words < np.uint32(grid_limit(p))
    return out
