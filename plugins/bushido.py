"""Bushido N (702.45): whenever this creature blocks or becomes blocked, it gets +N/+N until
end of turn.

A block trigger (509.2-509.5): each instance triggers once, however many creatures block it or
it blocks; the engine resolves block triggers in APNAP order with state-based actions after
each.
"""

from __future__ import annotations

from ecs_combat import Keyword, PumpTrigger, System, block_trigger, hookimpl

BUSHIDO = "bushido"
PUMP = PumpTrigger(BUSHIDO, 1, 1, "{keyword} {n} ({id}): +{power}/+{toughness}")


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(BUSHIDO, rule="702.45", parameter="number")]


@hookimpl
def register_systems() -> list[System]:
    return [block_trigger(BUSHIDO, "blocks or becomes blocked", PUMP.resolve, PUMP.resolve_batched)]
