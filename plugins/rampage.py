"""Rampage N (702.23): whenever this creature becomes blocked, it gets +N/+N until end of turn
for each creature blocking it beyond the first, counted as the ability resolves.

A block trigger, once per instance (702.23c).
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

RAMPAGE = "rampage"


def resolve(combat: Any, trigger: Trigger) -> None:
    beyond = max(len(combat.blocked_by(combat.cid(trigger.source))) - 1, 0)
    gain = trigger.data["n"] * beyond
    if gain:
        combat.pump(trigger.source, gain, gain)
    combat.note(
        f"{RAMPAGE} {trigger.data['n']} ({combat.cid(trigger.source)}): {beyond} blocker(s) "
        f"beyond the first, +{gain}/+{gain}"
    )


def resolve_batched(batch: Any, triggers: BatchTriggers) -> None:
    blockers = batch.blockers_of(triggers.source)
    gain = triggers.data["n"] * np.maximum(blockers - 1, 0)
    batch.pump(triggers.source, gain, gain)


def triggers(combat: Any, declaration: BlockDeclaration) -> None:
    declaration.trigger_each_instance(combat, declaration.blocked_attackers(), RAMPAGE, resolve)


def triggers_batched(batch: Any, declaration: BatchBlockDeclaration) -> None:
    declaration.trigger_each_instance(
        batch, declaration.blocked_attackers(batch.n), RAMPAGE, resolve_batched
    )


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(RAMPAGE, rule="702.23", parameter="number")]


@hookimpl
def register_systems() -> list[System]:
    return [System("declare-blockers", "block trigger", triggers, triggers_batched, {RAMPAGE})]
