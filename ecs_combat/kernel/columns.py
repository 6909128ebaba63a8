"""Plugins' own columns the kernel fills from a batch beyond zeros, state and counters: the
bits of a keyword's parameters, one array shared by the plugins naming the same state or
counters; and the power and toughness a batch's counters give."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ecs_combat.batched.arrays import CombatBatch, IntArray
from ecs_combat.kernel.arrays import AnyArray
from ecs_combat.plugin.kernels import KernelColumn
from ecs_combat.plugin.registry import Registry

if TYPE_CHECKING:
    from ecs_combat.kernel.generate import KernelSource

I64 = np.int64


def counters_give(registry: Registry, b: CombatBatch) -> IntArray | None:
    """The power and toughness the batch's counters give ([rows, 2], 122.1a), or None when
    no creature has counters (keyword counters give none: the kernel refuses them)."""
    k = len(b.keyword_names)
    if b.counters is None or not b.counters.size or len(b.counter_names) == k:
        return None
    counts = np.asarray(b.counters, I64)[:, k:]  # the kinds other than keyword counters
    if not bool(counts.any()):
        return None
    kinds = registry.counter_kinds
    pt = [[kinds[n].power, kinds[n].toughness] for n in b.counter_names[k:]]
    out: IntArray = counts @ np.asarray(pt, I64).reshape(-1, 2)
    return out


def parameter_bits(batch: CombatBatch, keyword: str) -> AnyArray:
    """Per creature row: bit p for each of its instances of `keyword` with parameter p (a
    color or quality's index in ``FROM_WORDS``)."""
    out: AnyArray = np.zeros(batch.n_creatures, I64)
    names = list(batch.keyword_names)
    if keyword in names:
        given = np.asarray(batch.instance_parameter, I64)
        picked = np.asarray(batch.instance_keyword) == names.index(keyword)
        picked &= given >= 0
        rows = np.asarray(batch.instance_row, I64)[picked]
        np.bitwise_or.at(out, rows, np.left_shift(1, given[picked]))
    return out


def shared(
    make: Callable[[KernelColumn, CombatBatch], AnyArray],
    column: KernelColumn,
    batch: CombatBatch,
    made: dict[tuple[str | None, ...], AnyArray],
) -> AnyArray:
    """A plugin's own column (`make` makes it): one array for the plugins' columns of the
    same owner, kind and state, counters or parameters (`made`, by them)."""
    if column.state is None and column.counters is None and column.parameters is None:
        return make(column, batch)
    key = (column.owner, column.kind, column.state, column.counters, column.parameters)
    if key not in made:
        made[key] = make(column, batch)
    return made[key]


def own_columns(
    classes: Sequence[Any],
    owns: tuple[tuple[str, tuple[KernelColumn, ...]], ...],
    make: Callable[[KernelColumn, CombatBatch], AnyArray],
    batch: CombatBatch,
) -> tuple[Any, ...]:
    """The kernel's `o`: per plugin with parts, its own columns (`classes`: the generated
    module's ``OWNS``), those of the same state, counters or parameters shared."""
    made: dict[tuple[str | None, ...], AnyArray] = {}
    return tuple(
        () if cls is None else cls(*(shared(make, col, batch, made) for col in columns))
        for cls, (_, columns) in zip(classes, owns, strict=True)
    )


def column_bits(source: KernelSource, bit: dict[str, int]) -> tuple[int, int]:
    """The bits of the keywords whose parameters columns read, and of those whose
    ``deal-damage`` replacements change power and toughness."""
    read = {col.parameters for _, cols in source.owns for col in cols}
    replacing = {kw for p in source.parts if p.part.replacement for kw in p.keywords}
    return (
        sum(bit.get(kw, 0) for kw in read if kw is not None),
        sum(bit.get(kw, 0) for kw in replacing),
    )


def power_toughness(
    registry: Registry, b: CombatBatch, copy: bool
) -> tuple[AnyArray, AnyArray] | None:
    """Power and toughness as the kernel starts from them, copies (the kernel changes
    them), with what counters give added; None when neither is wanted (`copy` False, no
    counters): the batch's own may be read."""
    gives = counters_give(registry, b)
    if not copy and gives is None:
        return None
    power, toughness = np.array(b.power, I64), np.array(b.toughness, I64)
    if gives is not None:
        power += gives[:, 0]
        toughness += gives[:, 1]
    return power, toughness
