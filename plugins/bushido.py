"""Bushido N (702.45): whenever this creature blocks or becomes blocked, it gets +N/+N until
end of turn.

A block trigger (509.2-509.5): each instance triggers once, however many creatures block it or
it blocks; the engine resolves block triggers in APNAP order with state-based actions after
each.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ecs_combat import (
    BatchBlockDeclaration,
    BatchTriggers,
    BlockDeclaration,
    Keyword,
    System,
    Trigger,
    hookimpl,
)

BUSHIDO = "bushido"


def resolve(combat: Any, trigger: Trigger) -> None:
    n = trigger.data["n"]
    combat.pump(trigger.source, n, n)
    combat.note(f"{BUSHIDO} {n} ({combat.cid(trigger.source)}): +{n}/+{n}")


def resolve_batched(batch: Any, triggers: BatchTriggers) -> None:
    n = triggers.data["n"]
    batch.pump(triggers.source, n, n)


def triggers(combat: Any, declaration: BlockDeclaration) -> None:
    involved: list[int] = []
    for blocker, attacker in declaration.blocks:
        for e in (blocker, attacker):
            if e not in involved:
                involved.append(e)
    for e in involved:
        for i, n in enumerate(combat.instances(e, BUSHIDO)):
            declaration.triggers.append(Trigger(e, resolve, i, {"n": n or 0}))


def triggers_batched(batch: Any, declaration: BatchBlockDeclaration) -> None:
    involved = np.zeros(batch.n, np.bool_)
    involved[declaration.blockers] = True
    involved[declaration.attackers] = True
    rows, params = batch.instances(BUSHIDO)
    keep = involved[rows]
    rows, params = rows[keep], np.maximum(params[keep], 0)
    if rows.size:
        declaration.triggers.append(BatchTriggers(resolve_batched, rows, _nth(rows), {"n": params}))


def _nth(rows: Any) -> Any:
    """Each row's place among equal rows before it (rows sorted): 0, 1, 2 ... per creature."""
    index = np.arange(len(rows))
    first = np.searchsorted(rows, rows)
    return index - first


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(BUSHIDO, rule="702.45", parameter="number")]


@hookimpl
def register_systems() -> list[System]:
    return [System("declare-blockers", "block trigger", triggers, triggers_batched, {BUSHIDO})]
