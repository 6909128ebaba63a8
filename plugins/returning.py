"""What persist and undying share: "when this creature dies, if it had no <kind> counters on
it, return it to the battlefield with a <kind> counter on it" (702.79, 702.93).

A `dies` system puts one trigger per instance on the stack; the engine resolves them in the
order of RULES 11.5 (APNAP, sources in scenario order, a creature's instances in list order).
The creature's keywords and counters are read as it last existed on the battlefield
(603.10a). It returns as a new object (400.7, ``return_to_battlefield``); a token doesn't
return (111.8). One creature with several instances (of persist, undying or both) returns
once: the first trigger to resolve returns it, the others find a new object
(``new_object``) and do nothing.
"""

from __future__ import annotations

from ecs_combat import (
    BatchContext,
    BatchDeaths,
    BatchTriggers,
    CombatContext,
    Deaths,
    Keyword,
    System,
    Trigger,
)


def returning_keyword(keyword: str, rule: str, kind: str) -> Keyword:
    """The keyword: it needs its counter kind (plugin ``pt_counters``)."""
    return Keyword(
        keyword,
        rule=rule,
        requires=frozenset({kind}),
        summary=f"when it dies with no {kind} counters, it returns with a {kind} counter",
    )


def returning_system(keyword: str, rule: str, kind: str) -> System:
    """The `dies` system of a keyword that returns the creature with a `kind` counter: one
    trigger per instance, resolved in the order RULES 11.5 gives."""

    def returns(combat: CombatContext, trigger: Trigger) -> None:
        c = trigger.source
        if combat.new_object(c):
            combat.note(
                f"{combat.creature_id(c)} has returned as a new object: its {keyword} "
                "does nothing (400.7)"
            )
            return
        if combat.on_battlefield(c):
            return
        if combat.counters(c, kind) > 0:
            combat.note(f"{combat.creature_id(c)} had a {kind} counter: {keyword} does nothing")
            return
        combat.return_to_battlefield(c)
        if combat.on_battlefield(c):
            combat.add_counters(c, kind, 1)
            combat.note(
                f"{combat.creature_id(c)} returns to the battlefield ({keyword}, {rule}) "
                f"with a {kind} counter, a new object not in combat"
            )
        else:
            combat.note(f"{combat.creature_id(c)} is a token: it doesn't return (111.8)")

    def returns_batched(batch: BatchContext, triggers: BatchTriggers) -> None:
        rows = triggers.source  # one trigger per battle at most: distinct rows
        rows = rows[~batch.new_objects()[rows] & ~batch.on_battlefield()[rows]]
        rows = rows[batch.counters(kind)[rows] == 0]
        if rows.size:
            batch.return_to_battlefield(rows)
            back = rows[batch.on_battlefield()[rows]]
            if back.size:
                batch.add_counters(back, kind, 1)

    def triggers(combat: CombatContext, deaths: Deaths) -> None:
        deaths.trigger_each_instance(combat, keyword, returns)

    def triggers_batched(batch: BatchContext, deaths: BatchDeaths) -> None:
        deaths.trigger_each_instance(batch, keyword, returns_batched)

    return System("dies", f"return with a {kind} counter", triggers, triggers_batched, {keyword})
