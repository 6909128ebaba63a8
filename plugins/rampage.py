"""Rampage N (702.23): whenever this creature becomes blocked, it gets +N/+N until end of turn
for each creature blocking it beyond the first, counted as the ability resolves.

A block trigger, once per instance (702.23c).
"""

from __future__ import annotations

from ecs_combat import Keyword, PumpTrigger, System, block_trigger, hookimpl

RAMPAGE = "rampage"
PUMP = PumpTrigger(
    RAMPAGE,
    1,
    1,
    "{keyword} {n} ({id}): {beyond} blocker(s) beyond the first, +{power}/+{toughness}",
    per_blocker_beyond_first=True,
)


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(RAMPAGE, rule="702.23", parameter="number")]


@hookimpl
def register_systems() -> list[System]:
    return [block_trigger(RAMPAGE, "becomes blocked", PUMP.resolve, PUMP.resolve_batched)]
