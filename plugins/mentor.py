"""Mentor (702.134): whenever this creature attacks, put a +1/+1 counter on target attacking
creature with lesser power.

An attack trigger, once per instance. Its target is the creature's ``targets`` entry, else
the attacking creature with the greatest power below the mentor's as attackers are declared
(the first in the file on a tie; RULES section 10); with none, nothing triggers. As it
resolves the target must still be attacking with power less than the mentor's, both read then
(608.2b): otherwise nothing happens. Needs the +1/+1 counter kind (plugin ``pt_counters``).
"""

from __future__ import annotations

import numpy as np

from ecs_combat import (
    AttackDeclaration,
    BatchAttackDeclaration,
    BatchContext,
    BatchTriggers,
    CombatContext,
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
    if not (combat.attacking(target) and combat.power(target) < combat.power(source)):
        combat.note(f"{who}: {combat.creature_id(target)} is no longer a legal target")
        return
    combat.add_counters(target, PLUS, 1)
    combat.note(f"{who}: a +1/+1 counter on {combat.creature_id(target)}")


def resolve_batched(batch: BatchContext, triggers: BatchTriggers) -> None:
    source, target = triggers.source, triggers.data["target"]
    power = batch.power()
    legal = batch.attacking()[target] & (power[target] < power[source])
    batch.add_counters(target[legal], PLUS, 1)


def _default(combat: CombatContext, source: int) -> int | None:
    """The attacking creature with the greatest power below the mentor's, first in the file."""
    own = combat.power(source)
    lesser = [c for c in combat.creatures() if combat.attacking(c) and combat.power(c) < own]
    return max(lesser, key=lambda c: combat.power(c), default=None)


def triggers(combat: CombatContext, declaration: AttackDeclaration) -> None:
    for e in declaration.attackers:
        chosen = combat.targets(e, MENTOR)
        for i, target in enumerate(chosen):
            aim = target if target is not None else _default(combat, e)
            if aim is not None:
                declaration.triggers.append(Trigger(e, resolve, i, {"target": aim}, keyword=MENTOR))


def _defaults(batch: BatchContext, sources: np.ndarray) -> np.ndarray:
    """Per source row: the default target row, or -1. Attackers sorted by battle, then power
    from the greatest, then file order; each source takes the first of its battle below it."""
    battle, power = batch.battle(), batch.power()
    attackers = np.flatnonzero(batch.attacking())
    if not attackers.size:
        return np.full(len(sources), -1, np.int64)
    order = attackers[np.lexsort((attackers, -power[attackers], battle[attackers]))]
    low = int(power.min())
    width = int(power.max()) - low + 2
    key = battle[order] * width + (width - 1 - (power[order] - low))
    below = battle[sources] * width + (width - 1 - (power[sources] - low)) + 1
    at = np.searchsorted(key, below, side="left")
    found = at < len(order)
    pick = order[np.minimum(at, len(order) - 1)]
    ok = found & (battle[pick] == battle[sources])
    return np.where(ok, pick, -1).astype(np.int64)


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
            BatchTriggers(resolve_batched, rows[keep], nth[keep], {"target": target[keep]},
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
