"""Frenzy N (702.68): whenever this creature attacks and isn't blocked, it gets +N/+0 until
end of turn.

It triggers as blockers are declared, for the attackers that didn't become blocked, once per
instance, ordered with the block triggers (RULES section 10).
"""

from __future__ import annotations

from ecs_combat import Keyword, PumpTrigger, System, block_trigger, hookimpl

FRENZY = "frenzy"
PUMP = PumpTrigger(FRENZY, 1, 0, "{keyword} {n} ({id}): unblocked, +{power}/+{toughness}")


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(FRENZY, rule="702.68", parameter="number", summary="+N/+0 when unblocked")]


@hookimpl
def register_systems() -> list[System]:
    return [block_trigger(FRENZY, "attacks and isn't blocked", PUMP.resolve, PUMP.resolve_batched)]
