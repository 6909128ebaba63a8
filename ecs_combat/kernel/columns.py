"""Plugins' own columns the kernel fills from a batch beyond zeros, state and counters: the
bits of a keyword's parameters, one array shared by the plugins naming the same state or
counters; and the power and toughness a batch's counters give."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ecs_combat.batched.arrays import CombatBatch, IntArray
from ecs_combat.kernel.arrays import AnyArray
from ecs_combat.plugin.kernels import KernelColumn
from ecs_combat.plugin.registry import Registry

I64 = np.int64


def counters_give(registry: Registry, b: CombatBatch) -> IntArray | None:
    """The power and toughness the batch's counters give ([rows, 2], 122.1a), or None when
    no creature has counters (keyword counters give none: the kernel refuses them)."""
    if b.counters is None or not b.counters.size or not bool(b.counters.any()):
        return None
    kinds = registry.counter_kinds
    k = len(b.keyword_names)
    pt = [[0, 0]] * k + [[kinds[n].power, kinds[n].toughness] for n in b.counter_names[k:]]
    out: IntArray = np.asarray(b.counters, I64) @ np.asarray(pt, I64).reshape(-1, 2)
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
