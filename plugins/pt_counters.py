"""+1/+1 and -1/-1 counters (122.1a) and their state-based action (704.5q).

A +1/+1 counter gives +1/+1 and a -1/-1 counter -1/-1 while it is on a creature (the engines
apply a :class:`CounterKind`'s power and toughness). A creature with both loses N of each as a
state-based action, N the smaller count: a system at ``state-based-actions``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ecs_combat import (
    BatchContext,
    BatchStateCheck,
    CombatContext,
    CounterKind,
    KernelColumn,
    KernelPart,
    StateCheck,
    System,
    hookimpl,
)

PLUS = "+1/+1"
MINUS = "-1/-1"


def annihilate(combat: CombatContext, check: StateCheck) -> None:
    """704.5q: remove N +1/+1 and N -1/-1 counters, N the smaller count."""
    for e in combat.creatures():
        n = min(combat.counters(e, PLUS), combat.counters(e, MINUS))
        if n > 0 and combat.on_battlefield(e):
            combat.add_counters(e, PLUS, -n)
            combat.add_counters(e, MINUS, -n)


def annihilate_batched(batch: BatchContext, check: BatchStateCheck) -> None:
    """The same over a batch, in the battles being checked."""
    if not batch.has_counters(PLUS):  # most batches: no counters at all, nothing to read
        return
    plus, minus = batch.counters(PLUS), batch.counters(MINUS)
    # most batches: nothing to cancel, and nothing more to read (a maximum is the cheapest
    # pass over a column of counts: any(), count_nonzero() and nonzero() of int64 are not)
    if not plus.size or plus.max() <= 0 or minus.max() <= 0:
        return
    rows = (plus > 0).nonzero()[0]  # few: looked up for these only
    rows = rows[minus[rows] > 0]
    rows = rows[batch.on_battlefield()[rows]]
    rows = rows[check.battles[batch.battle()[rows]]]
    if rows.size:
        remove = -np.minimum(plus[rows], minus[rows])
        batch.add_counters(rows, PLUS, remove)
        batch.add_counters(rows, MINUS, remove)


@hookimpl
def register_counters() -> list[CounterKind]:
    return [CounterKind(PLUS, 1, 1, rule="122.1a"), CounterKind(MINUS, -1, -1, rule="122.1a")]


@hookimpl
def register_systems() -> list[System]:
    return [
        System(
            "state-based-actions",
            "+1/+1 and -1/-1 counters cancel (704.5q)",
            annihilate,
            annihilate_batched,
            sets={"conditions"},
        )
    ]


# -- kernel form (docs/plugins.md, "Kernel parts") ------------------------------------------


def annihilate_kernel(row: int, c: Any, k: Any, own: Any) -> None:
    """704.5q for one creature."""
    n = min(own.plus[row], own.minus[row])
    if n > 0 and c.on_battlefield[row]:
        own.plus[row] -= n
        own.minus[row] -= n


@hookimpl
def register_kernel_parts() -> list[KernelPart | KernelColumn]:
    return [
        KernelColumn("creature", "plus", "int", counters=PLUS),
        KernelColumn("creature", "minus", "int", counters=MINUS),
        KernelPart(
            "state-based-actions", "+1/+1 and -1/-1 counters cancel (704.5q)", annihilate_kernel
        ),
    ]
