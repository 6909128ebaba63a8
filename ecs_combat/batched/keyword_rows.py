"""The creatures' keywords, keyword instances and counters in a run, as arrays
(:class:`KeywordRows`; the behaviour over them is in :mod:`.keywords`).

Counters are counted one column per kind that some row has had (:class:`Counts`): a kind
nobody has had has no column (of 37 kinds a bulk simulation touches two or three), so putting
the first counter on a creature costs one column, not a zeroed [rows, kinds] matrix, and a
creature returning as a new object clears the columns there are."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.batched.arrays import BoolArray, CombatBatch, IntArray, MaskArray
from ecs_combat.batched.numeric import bits_of
from ecs_combat.plugin.registry import Registry

I64 = np.int64


class Counts:
    """Counters of `kinds` kinds on `n` rows, column by column (a plugin reads one kind at a
    time)."""

    __slots__ = ("columns", "kinds", "n")

    def __init__(self, n: int, kinds: int, columns: dict[int, IntArray] | None = None) -> None:
        self.n = n
        self.kinds = kinds
        #: Kind index -> each row's count, for the kinds some row has had.
        self.columns: dict[int, IntArray] = {} if columns is None else columns

    @classmethod
    def of_matrix(cls, matrix: IntArray) -> Counts:
        """The counts of a [rows, kinds] matrix (its kinds with some counter get a column)."""
        n, kinds = matrix.shape
        some = np.flatnonzero((matrix != 0).any(axis=0)).tolist()
        return cls(n, kinds, {j: np.array(matrix[:, j], I64) for j in some})

    def column(self, j: int) -> IntArray | None:
        """Kind `j`'s column, or None if no row has had one."""
        return self.columns.get(j)

    def writable(self, j: int) -> IntArray:
        """Kind `j`'s column, made (zeros) if it has none yet."""
        col = self.columns.get(j)
        if col is None:
            col = self.columns[j] = np.zeros(self.n, I64)
        return col

    def at(self, rows: IntArray, kinds: int | None = None) -> IntArray:
        """The counts of some rows [len(rows), kinds] (the first `kinds` kinds only)."""
        k = self.kinds if kinds is None else kinds
        out = np.zeros((len(rows), k), I64)
        for j, col in self.columns.items():
            if j < k:
                out[:, j] = col[rows]
        return out

    def matrix(self) -> IntArray:
        """Every row's counts [rows, kinds]."""
        out = np.zeros((self.n, self.kinds), I64)
        for j, col in self.columns.items():
            out[:, j] = col
        return out

    def clear(self, rows: IntArray) -> None:
        """No counters on some rows."""
        for col in self.columns.values():
            col[rows] = 0


@dataclass(slots=True, eq=False)
class KeywordRows:
    """The creatures' keywords as masks over the batch's keyword bits, their keyword
    instances and counters."""

    #: Printed and granted keywords.
    base: MaskArray
    #: Printed, granted and counters' (the same array as `base` while no counters).
    own: MaskArray
    #: The keywords creatures have now (own plus static), as of the last refresh (the same
    #: array as `own` without static abilities).
    cur: MaskArray
    #: Keywords from keyword counters, once there are any.
    counter: MaskArray | None
    #: Keywords an effect removed, once one did.
    removed: MaskArray | None
    #: Counts of each kind of counter (a column per kind some row has had), once there are any.
    counts: Counts | None
    #: Power and toughness each kind of counter gives [counter columns, 2].
    counter_pt: IntArray
    #: Keyword instances with their parameters (printed, then granted), by row.
    inst_row: IntArray
    inst_kw: IntArray
    inst_param: IntArray
    #: What the batch put onto the battlefield: a returning creature starts from it (400.7).
    born: MaskArray
    born_inst_row: IntArray
    born_inst_kw: IntArray
    born_inst_param: IntArray
    #: Whether static abilities can give keywords (`cur` is then its own array).
    static: bool
    #: Keyword mask -> (who has it now (read-only), how many of `changed` it has seen).
    flags: dict[int, tuple[BoolArray, int]] = field(default_factory=dict)
    #: The rows whose keywords changed since the oldest flags were made, change by change.
    changed: list[IntArray] = field(default_factory=list)
    #: How many rows `changed` holds.
    changed_rows: int = 0
    #: `cur`'s bytes, plane by plane [itemsize, rows] (one keyword's flags read one plane),
    #: once several keywords' flags were made; as of `planes_seen` changes.
    planes: npt.NDArray[np.uint8] | None = None
    planes_seen: int = 0
    #: Flags made from every row's keywords so far.
    made: int = 0
    #: Zero counters of a kind on every row (read-only), once asked for.
    no_counters: IntArray | None = None
    #: The keyword bits some row's keyword counters have ever given (0: none).
    counter_bits: int = 0
    #: While the state-based actions' systems run: the counters they put or removed,
    #: (rows, kind, change per row), so that a creature leaving in that same check leaves
    #: with the counters it had (704.3: the actions happen at once). None otherwise.
    put: list[tuple[IntArray, str, IntArray]] | None = None

    @classmethod
    def of(
        cls,
        batch: CombatBatch,
        kt: type[np.unsignedinteger[Any]],
        k: int,
        registry: Registry,
        static: bool,
    ) -> KeywordRows:
        """The batch's keywords and counters; `k` keyword bits in masks of type `kt`."""
        extra = batch.counter_names[k:]
        counter_pt = np.asarray(
            [[0, 0]] * k
            + [
                [registry.counter_kinds[c].power, registry.counter_kinds[c].toughness]
                for c in extra
            ],
            I64,
        ).reshape(-1, 2)
        base = batch.keywords.astype(kt)
        born = base.copy()
        own, counter = base, None
        counts = None
        if batch.counters is not None:
            matrix = np.asarray(batch.counters, I64)
            counts = Counts.of_matrix(matrix)
            counter = bits_of(matrix[:, :k] > 0).astype(kt)
            own = base | counter
        keywords = cls(
            base=base,
            own=own,
            cur=own.copy() if static else own,
            counter=counter,
            removed=None,
            counts=counts,
            counter_pt=counter_pt,
            inst_row=batch.instance_row,
            inst_kw=batch.instance_keyword,
            inst_param=batch.instance_parameter,
            born=born,
            born_inst_row=batch.instance_row,
            born_inst_kw=batch.instance_keyword,
            born_inst_param=batch.instance_parameter,
            static=static,
        )
        if counter is not None and counter.size:
            keywords.counter_bits = int(np.bitwise_or.reduce(counter))
        return keywords

    def gives(self) -> IntArray | None:
        """The power and toughness the counters give [rows, 2], if any kind gives some."""
        if self.counts is None or not (self.counter_pt != 0).any():
            return None
        out: IntArray = self.counts.matrix() @ self.counter_pt
        return out
