"""Every raw block declaration of boards of one *shape*: how many attackers, and how many
attackers at most each creature that may block may block (509.1a: one, one more per instance
of "can block an additional creature", any number with "can block any number of creatures";
RULES section 9 step 2). Shared by the boards of the shape in the bulk search
(:mod:`.block_search`), which masks out what each board may not declare.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ecs_combat.batched import BoolArray, IntArray, distinct_values, run_starts
from ecs_combat.decisions.declarations import U64, tie_order

I64 = np.int64
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Shape:
    """Every raw block declaration of boards with `attackers` attackers and creatures that
    may block with `capacities` (each at most `attackers`): each of them blocks nothing or a
    set of at most its capacity of the attackers."""

    attackers: int
    capacities: tuple[int, ...]
    #: [O, attackers] the sets a creature may block, by size then in lexicographic order of
    #: the attackers' places: the empty set first, then one attacker each in order, ...
    members: BoolArray
    #: [R, blockers] the set (row of `members`) each blocks.
    option: IntArray
    #: [R] place of each in the order ties are shown (RULES section 9).
    tie: IntArray
    #: [R, attackers] blockers of each attacker.
    count: IntArray
    #: Pairs of each declaration (CSR ``start[r]:start[r + 1]``), grouped by attacker with
    #: its blockers in order: places among the attackers and among the blockers, and the
    #: attacker's place among those its blocker blocks.
    start: IntArray
    pair_attacker: IntArray
    pair_blocker: IntArray
    pair_rank: IntArray

    @property
    def blockers(self) -> int:
        return len(self.capacities)

    @staticmethod
    @functools.lru_cache(maxsize=128)
    def of(attackers: int, capacities: tuple[int, ...]) -> Shape:
        """The shape's declarations, each creature's sets in the order of `members`, the
        declarations in the order ``np.indices`` gives (made once per process: shapes are
        read only)."""
        a, k = attackers, len(capacities)
        caps = tuple(min(c, a) for c in capacities)
        sets = [
            s for n in range(max(caps, default=0) + 1) for s in itertools.combinations(range(a), n)
        ]
        members = np.zeros((len(sets), a), np.bool_)
        for o, s in enumerate(sets):
            members[o, list(s)] = True
        sizes = tuple(options(a, c) for c in caps)
        option = np.indices(sizes, dtype=I64).reshape(k, -1).T if k else np.zeros((1, 0), I64)
        bits = (members.astype(U64) << np.arange(a, dtype=U64)).sum(axis=1, dtype=U64)
        masks = bits[option] if k else np.zeros((1, 0), U64)
        tie = tie_order(masks, np.arange(a, a + k, dtype=I64), np.arange(a, dtype=I64))
        on = members[option]  # [R, k, a]
        count = on.sum(axis=1).astype(I64)
        r, j, i = np.nonzero(on)
        order = np.lexsort((j, i, r))
        r, j, i = r[order], j[order], i[order]
        below: IntArray = np.cumsum(members, axis=1, dtype=I64) - members
        rank: IntArray = below[option[r, j], i].astype(I64)
        per = np.bincount(r, minlength=len(option)).astype(I64)
        start = np.concatenate([[0], np.cumsum(per)]).astype(I64)
        return Shape(
            a, caps, members, option, tie, count, start, i.astype(I64), j.astype(I64), rank
        )


def options(attackers: int, capacity: int) -> int:
    """How many sets a creature that may block at most `capacity` of `attackers` attackers
    chooses from: the empty one and every one of 1 to `capacity` attackers."""
    return sum(math.comb(attackers, n) for n in range(min(capacity, attackers) + 1))


def declarations_of(
    attackers: IntArray, capacities: IntArray, board: IntArray, n: int
) -> FloatArray:
    """[n] how many raw declarations each of `n` boards has (float, may be huge): its
    attackers' number, and the capacity and board of each creature that may block (boards
    ascending)."""
    out = np.ones(n, np.float64)
    if len(capacities):
        a = attackers[board]
        caps = np.minimum(capacities, a)
        width = int(caps.max()) + 1
        key = a * width + caps
        kinds = distinct_values(key)
        if len(kinds) == 1:
            each = np.full(len(key), float(options(kinds[0] // width, kinds[0] % width)))
        else:
            table = np.array([float(options(x // width, x % width)) for x in kinds])
            each = table[np.searchsorted(kinds, key)]
        first = run_starts(board)  # each board's first creature
        out[board[first]] = np.multiply.reduceat(each, first)
    return out
