"""Mentor (702.134): whenever this creature attacks, put a +1/+1 counter on target attacking
creature with lesser power.

An attack trigger, once per instance. Its target is the creature's ``targets`` entry, else
the attacking creature with the greatest power below the mentor's as attackers are declared
that the mentor's ability may target (not one with protection from creatures, 702.16b; the
first in the file on a tie; RULES section 10); with none, nothing triggers. As it resolves the
target must still be a legal target, attacking with power less than the mentor's, all read
then (608.2b): otherwise nothing happens. Needs the +1/+1 counter kind (plugin ``pt_counters``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ecs_combat import (
    AttackDeclaration,
    BatchAttackDeclaration,
    BatchContext,
    BatchTriggers,
    CombatContext,
    KernelColumn,
    KernelPart,
    Keyword,
    System,
    Trigger,
    hookimpl,
)

MENTOR = "mentor"
PLUS = "+1/+1"


def resolve(combat: CombatContext, trigger: Trigger) -> None:
    source, target = trigger.source, trigger.data["target"]
    who = f"{MENTOR} ({combat.creature_id(source)})"
    if not (
        combat.attacking(target)
        and combat.power(target) < combat.power(source)
        and combat.can_target(source, target)
    ):
        combat.note(f"{who}: {combat.creature_id(target)} is no longer a legal target")
        return
    combat.add_counters(target, PLUS, 1)
    combat.note(f"{who}: a +1/+1 counter on {combat.creature_id(target)}")


def resolve_batched(batch: BatchContext, triggers: BatchTriggers) -> None:
    source, target = triggers.source, triggers.data["target"]
    power = batch.power()
    legal = batch.attacking()[target] & (power[target] < power[source])
    legal &= batch.can_target(source, target)
    batch.add_counters(target[legal], PLUS, 1)


def _default(combat: CombatContext, source: int) -> int | None:
    """The attacking creature with the greatest power below the mentor's that it may target,
    first in the file."""
    own = combat.power(source)
    lesser = [
        c
        for c in combat.creatures()
        if combat.attacking(c) and combat.power(c) < own and combat.can_target(source, c)
    ]
    return max(lesser, key=lambda c: combat.power(c), default=None)


def triggers(combat: CombatContext, declaration: AttackDeclaration) -> None:
    for e in declaration.attackers:
        chosen = combat.targets(e, MENTOR)
        for i, target in enumerate(chosen):
            aim = target if target is not None else _default(combat, e)
            if aim is not None:
                declaration.triggers.append(Trigger(e, resolve, i, {"target": aim}, keyword=MENTOR))


def _defaults(batch: BatchContext, sources: np.ndarray) -> np.ndarray:
    """Per source row: the default target row, or -1. Every (source, attacker) pair of a
    battle, kept where the attacker has lesser power and may be targeted; each source takes
    the greatest power, then the first row (file order)."""
    battle, power = batch.battle(), batch.power()
    out = np.full(len(sources), -1, np.int64)
    if not len(sources):
        return out
    mentored = np.zeros(batch.battles, np.bool_)  # the sources' battles only
    mentored[battle[sources]] = True
    attackers = np.flatnonzero(batch.attacking() & mentored[battle])
    if not attackers.size:
        return out
    attackers = attackers[np.argsort(battle[attackers], kind="stable")]  # by battle, then row
    start = np.searchsorted(battle[attackers], battle[sources], side="left")
    stop = np.searchsorted(battle[attackers], battle[sources], side="right")
    count = stop - start
    which = np.repeat(np.arange(len(sources)), count)  # the pair's source, by position
    if not which.size:
        return out
    offset = np.arange(len(which)) - np.repeat(np.cumsum(count) - count, count)
    candidate = attackers[np.repeat(start, count) + offset]
    source = sources[which]
    ok = power[candidate] < power[source]
    if ok.any():  # (targeting asks the restrictions, which cost the same for none)
        ok[ok] = batch.can_target(source[ok], candidate[ok])
    which, candidate = which[ok], candidate[ok]
    if not which.size:
        return out
    order = np.lexsort((candidate, -power[candidate], which))
    which, candidate = which[order], candidate[order]
    first = np.ones(len(which), np.bool_)
    first[1:] = which[1:] != which[:-1]
    out[which[first]] = candidate[first]
    return out


def triggers_batched(batch: BatchContext, declaration: BatchAttackDeclaration) -> None:
    rows, _ = batch.instances(MENTOR)
    rows = rows[declaration.attackers[rows]]
    if not rows.size:
        return
    nth = np.arange(len(rows)) - np.searchsorted(rows, rows)  # each row's instances: 0, 1, ...
    given_source, given_instance, given_target = batch.targets(MENTOR)
    target = _defaults(batch, rows)
    if given_source.size:
        width = int(max(nth.max(), given_instance.max())) + 1
        keys = given_source * width + given_instance
        sort = np.argsort(keys, kind="stable")
        mine = rows * width + nth
        at = np.minimum(np.searchsorted(keys[sort], mine), len(keys) - 1)
        hit = keys[sort][at] == mine
        target = np.where(hit, given_target[sort][at], target)
    keep = target >= 0
    if keep.any():
        declaration.triggers.append(
            BatchTriggers(rows[keep], resolve_batched, nth[keep], {"target": target[keep]},
                          keyword=MENTOR)
        )  # fmt: skip


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(
            MENTOR,
            rule="702.134",
            requires=frozenset({PLUS}),
            summary="a +1/+1 counter on an attacker with lesser power (an attack trigger)",
            target="attacking creature",
        )
    ]


@hookimpl
def register_systems() -> list[System]:
    return [System("declare-attackers", "attack trigger", triggers, triggers_batched, {MENTOR})]


# -- kernel form (docs/plugins.md, "Kernel parts") ------------------------------------------


def target_kernel(row: int, c: Any, t: Any, own: Any) -> int:
    """The default target as the trigger is put on the stack: the attacking creature of
    `row`'s battle with the greatest power below its own, the first row on a tie; -1 for
    none. (The core refuses a batch where such a creature may have a target restriction.)"""
    b = c.battle[row]
    best = -1
    for i in range(t.rows[b], t.rows[b + 1]):
        lesser = c.attacking[i] and c.power[i] < c.power[row]
        if lesser and (best < 0 or c.power[i] > c.power[best]):
            best = i
    return best


def counter_kernel(row: int, n: int, other: int, c: Any, t: Any, own: Any) -> None:
    """702.134a in the compiled kernel, one trigger resolving: a +1/+1 counter on its
    target `other` (+1/+1, 122.1a) if it is still attacking with power less than the
    mentor's (608.2b)."""
    if c.attacking[other] and c.power[other] < c.power[row]:
        own.plus[other] += 1
        c.power[other] += 1
        c.toughness[other] += 1


@hookimpl
def register_kernel_parts() -> list[KernelPart | KernelColumn]:
    return [
        KernelColumn("creature", "plus", "int", counters=PLUS),
        KernelPart(
            "declare-attackers",
            "attack trigger",
            counter_kernel,
            event="attacks, with a target it chooses",
            choose=target_kernel,
        ),
    ]
