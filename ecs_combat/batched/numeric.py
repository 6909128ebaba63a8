"""Array helpers of the batched engine: segmented sums, the default division in order,
keyword bit masks, runs of equal values, flows of damage."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.batched.arrays import (
    BoolArray,
    IntArray,
    MaskArray,
)

I64 = np.int64
U64 = np.uint64
SmallArray = npt.NDArray[np.int8]
AnyArray = npt.NDArray[Any]


def segmented_exclusive_cumsum(values: IntArray, groups: RowGroups) -> IntArray:
    """For each row, the sum of the values of the rows before it in its group."""
    before: IntArray = values.cumsum()
    before -= values
    before -= before[groups.start][groups.row_group]
    return before


def divide_in_order(
    power: IntArray, owed: IntArray, groups: RowGroups
) -> tuple[IntArray, IntArray]:
    """The default division (RULES.md section 3) of each group's power over its rows in order.

    `power` is each row's group's power. Each row, in order, gets what it is `owed` (the damage
    lethal to it; 0 for a row that is no recipient) while its group's power lasts. Returns the
    amount per row and each group's leftover power (never negative), which goes to the player
    or the first recipient.
    """
    before = segmented_exclusive_cumsum(owed, groups)
    leftover: IntArray = power[groups.start] - before[groups.last] - owed[groups.last]
    np.maximum(leftover, 0, out=leftover)
    amount: IntArray = np.subtract(power, before, out=before)
    np.maximum(amount, 0, out=amount)
    np.minimum(amount, owed, out=amount)
    return amount, leftover


def bits_of(columns: BoolArray) -> MaskArray:
    """[R, K] booleans as R 64-bit masks (bit k for column k)."""
    if columns.shape[1] == 0:
        return np.zeros(columns.shape[0], U64)
    weights = (np.ones(columns.shape[1], U64) << np.arange(columns.shape[1], dtype=U64)).astype(U64)
    out: MaskArray = (columns.astype(U64) * weights).sum(axis=1, dtype=U64)
    return out


def distinct_runs(values: IntArray, starts: IntArray, n: int) -> bool:
    """Whether no value of `values` (rows below `n`) comes back after its run ends."""
    firsts = values[starts]
    if bool((firsts[1:] > firsts[:-1]).all()):  # ascending runs: none comes back
        return True
    return int(np.count_nonzero(np.bincount(values, minlength=n))) == len(starts)


def concat(parts: Sequence[IntArray]) -> IntArray:
    """The arrays end to end."""
    if len(parts) == 1:
        return parts[0]
    return np.concatenate(parts) if parts else np.zeros(0, I64)


def mask_type(bits: int) -> type[np.unsignedinteger[Any]]:
    """The narrowest unsigned integer type with at least `bits` bits."""
    for kind, width in _MASK_TYPES:
        if bits <= width:
            return kind
    return np.uint64


#: The unsigned integer types narrower than 64 bits, with their widths.
_MASK_TYPES: tuple[tuple[type[np.unsignedinteger[Any]], int], ...] = (
    (np.uint8, 8),
    (np.uint16, 16),
    (np.uint32, 32),
)


class RowGroups:
    """Runs of contiguous rows with one owner each: an attacker's blocks, a blocker's blocks."""

    def __init__(self, owner_of_row: IntArray, new: BoolArray) -> None:
        """`new` marks the first row of each run."""
        self.start = new.nonzero()[0]
        self.size = len(self.start)
        self.last = np.empty(self.size, I64)
        np.subtract(self.start[1:], 1, out=self.last[:-1])
        self.last[-1:] = len(new) - 1
        self.owner = owner_of_row[self.start]
        self.row_group: IntArray = new.cumsum()
        self.row_group -= 1

    @classmethod
    def of(cls, owner_of_row: IntArray) -> RowGroups:
        """The runs of equal owners."""
        new = np.empty(len(owner_of_row), np.bool_)
        new[:1] = True
        np.not_equal(owner_of_row[1:], owner_of_row[:-1], out=new[1:])
        return cls(owner_of_row, new)


@dataclass(frozen=True)
class Flow:
    """Damage assigned: source rows, recipients (creature row or ``-1 - player_row``),
    amounts, and each one's place among its source's recipients (the reference's order)."""

    source: IntArray
    recipient: IntArray
    amount: IntArray
    place: IntArray | int

    def without(self, sources: BoolArray) -> Flow:
        """The flow less what some sources assign."""
        keep = ~sources[self.source]
        place = self.place if isinstance(self.place, int) else self.place[keep]
        return Flow(self.source[keep], self.recipient[keep], self.amount[keep], place)

    def places(self) -> IntArray:
        """The places as an array."""
        if isinstance(self.place, int):
            return np.full(len(self.source), self.place, I64)
        return self.place

    @staticmethod
    def empty() -> Flow:
        """No damage."""
        none = np.zeros(0, I64)
        return Flow(none, none, none, 0)


def run_starts(values: IntArray) -> IntArray:
    """Indices where a new run of equal values begins."""
    if values.size == 0:
        return np.zeros(0, I64)
    new = np.empty(values.size, np.bool_)
    new[0] = True
    np.not_equal(values[1:], values[:-1], out=new[1:])
    out: IntArray = new.nonzero()[0]
    return out


def starts_mask(n: int, starts: IntArray) -> IntArray:
    """1 at each run start, 0 elsewhere (cumsum - 1 gives each row its run number)."""
    out = np.zeros(n, I64)
    out[starts] = 1
    return out


def some(values: npt.NDArray[Any]) -> bool:
    """Whether any value is set: ``values.any()`` without its Python-level dispatch, which
    costs more than the work on the small arrays of a decision search."""
    return bool(np.count_nonzero(values))


def mask_of(size: int, indices: IntArray) -> BoolArray:
    """A mask of `size` with the `indices` set (battles of some battle numbers, ...)."""
    out = np.zeros(size, np.bool_)
    out[indices] = True
    return out


def as_slice(rows: IntArray) -> slice | None:
    """The slice that picks the same rows, when they are evenly spaced and ascending (a
    gather by it is then a view); else None."""
    n = len(rows)
    if n < 2:
        return None
    first, step = int(rows[0]), int(rows[1] - rows[0])
    if step <= 0 or int(rows[-1]) != first + step * (n - 1):
        return None
    if np.count_nonzero(np.diff(rows) != step):
        return None
    return slice(first, first + step * (n - 1) + 1, step)


def rows_per_battle(battle: IntArray, nb: int) -> int | None:
    """k when every battle's rows are k consecutive rows (rows ki to ki + k - 1 are battle
    i's, as in one-on-one battles), else None: masks by battle are then strided views."""
    n = len(battle)
    k = n // nb if nb else 0
    if not k or k * nb != n or k > 4:
        return None
    numbers = np.arange(nb, dtype=battle.dtype)
    if all(np.array_equal(battle[j::k], numbers) for j in range(k)):
        return k
    return None


def battles_with(rows: BoolArray, battle: IntArray, nb: int, per_battle: int | None) -> BoolArray:
    """Battle mask: the battles in which some row of a row mask is set (`per_battle`: as
    :func:`rows_per_battle` found)."""
    if per_battle is None:
        return mask_of(nb, battle[rows.nonzero()[0]])
    out = rows[0::per_battle].copy()
    for j in range(1, per_battle):
        out |= rows[j::per_battle]
    return out


def rows_of_battles(
    battles: BoolArray | None, battle: IntArray, per_battle: int | None = None
) -> BoolArray | None:
    """Row mask of the rows (of battle numbers `battle`) in some battles (None: every battle,
    and None when they are all)."""
    if battles is None or np.count_nonzero(battles) == battles.size:
        return None
    if per_battle is not None:
        return repeated(battles, per_battle)
    out: BoolArray = battles[battle]
    return out


def distinct_rows(rows: IntArray) -> tuple[IntArray, IntArray]:
    """The distinct rows of a 2-D integer array in lexicographic order, and each row's place
    among them: ``np.unique(rows, axis=0, return_inverse=True)``, whose sort of whole rows is
    slow, done as one sort of a number per row (mixed radix) when the numbers fit."""
    n = len(rows)
    if n == 0 or not rows.shape[1]:
        return rows[: min(n, 1)], np.zeros(n, I64)
    # one kind is the common case (column by column when many: numpy compares rows of a few
    # columns against one row slowly)
    if n < STRIDED_FROM:
        one_kind = not np.count_nonzero(rows != rows[0])
    else:
        one_kind = not any(
            np.count_nonzero(rows[:, t] != v) for t, v in enumerate(rows[0].tolist())
        )
    if one_kind:
        return rows[:1], np.zeros(n, I64)
    low = rows.min(axis=0)
    span = rows.max(axis=0) - low + 1
    if float(np.prod(span.astype(np.float64))) >= 2.0**62:
        kinds, inverse = np.unique(rows, axis=0, return_inverse=True)
        return kinds, inverse.reshape(-1).astype(I64)
    key = np.zeros(n, I64)
    for t in range(rows.shape[1]):
        key *= span[t]
        key += rows[:, t] - low[t]
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    return rows[first], inverse.reshape(-1).astype(I64)


def distinct_values(values: IntArray) -> list[int]:
    """The distinct values, ascending: ``np.unique(values).tolist()``, without its sort or
    hash table when they are all one value (the common case: one group, one level)."""
    if values.size == 0:
        return []
    low, high = int(values.min()), int(values.max())
    if low == high:
        return [low]
    out: list[int] = np.unique(values).tolist()
    return out


#: Ranges of at most this many rows each, all as long, are listed a place at a time; so are
#: repeats and tiles of at most this many, of arrays of :data:`STRIDED_FROM` or more values
#: (for smaller ones a single call costs less).
FEW_ROWS = 8
STRIDED_FROM = 2048


def repeated(values: AnyArray, times: int) -> AnyArray:
    """``values.repeat(times)``: a strided pass per copy when few (numpy repeats by a few
    slowly)."""
    if times > FEW_ROWS or len(values) < STRIDED_FROM:
        return values.repeat(times)
    out = np.empty(len(values) * times, values.dtype)
    for j in range(times):
        out[j::times] = values
    return out


def tiled(values: AnyArray, times: int) -> AnyArray:
    """``np.tile(values, times)`` of a 1-D array: a strided fill per value when few."""
    k = len(values)
    if k > FEW_ROWS or times < STRIDED_FROM:
        return np.tile(values, times)
    out = np.empty(k * times, values.dtype)
    for j, v in enumerate(values.tolist()):
        out[j::k] = v
    return out


def row_ranges(lo: IntArray, hi: IntArray) -> tuple[IntArray, IntArray]:
    """The rows ``lo[i]:hi[i]`` of every i, in order, and each one's i (scalar repeats when
    every range is as long: numpy's repeat by a count array is the slower)."""
    count = hi - lo
    n = len(lo)
    each = int(count[0]) if n else 0
    if 0 < each <= FEW_ROWS and n >= STRIDED_FROM and not np.count_nonzero(count != each):
        # a strided pass per place: numpy repeats by a few slowly
        rows, owner = np.empty(n * each, I64), np.empty(n * each, I64)
        places = np.arange(n, dtype=I64)
        for j in range(each):
            np.add(lo, j, out=rows[j::each])
            owner[j::each] = places
        return rows, owner
    if each and not np.count_nonzero(count != each):
        first = np.arange(0, n * each, each, dtype=I64)
        owner = np.arange(n, dtype=I64).repeat(each)
        shift = (lo - first).repeat(each)
    else:
        first = count.cumsum()
        first -= count
        owner = np.arange(n, dtype=I64).repeat(count)
        shift = (lo - first).repeat(count)
    shift += np.arange(len(owner), dtype=I64)
    return shift, owner


def rows_in(battle: IntArray, battles: IntArray, per_battle: int | None = None) -> IntArray:
    """The rows of some battles (ascending battle numbers), in order: `battle` is each row's
    battle, ascending (a battle's rows are consecutive; `per_battle`: as
    :func:`rows_per_battle` found)."""
    if per_battle is not None:
        out: IntArray = (battles[:, None] * per_battle + np.arange(per_battle)).reshape(-1)
        return out
    lo = np.searchsorted(battle, battles)
    rows, _ = row_ranges(lo, np.searchsorted(battle, battles, "right"))
    return rows
