"""What persist and undying share: "when this creature dies, if it had no <kind> counters on
it, return it to the battlefield with a <kind> counter on it" (702.79, 702.93).

A `dies` system: the creature's keywords and counters are read as it last existed on the
battlefield (603.10a). It returns as a new object (400.7, ``return_to_battlefield``); a token
doesn't return (111.8). One creature with several instances returns once: the first trigger
to resolve returns it, the others find a new object and do nothing.
"""

from __future__ import annotations

import numpy as np

from ecs_combat import (
    BatchContext,
    BatchDeaths,
    CombatContext,
    Deaths,
    Keyword,
    System,
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
    """The `dies` system of a keyword that returns the creature with a `kind` counter."""

    def returns(combat: CombatContext, deaths: Deaths) -> None:
        for c in deaths.creatures:
            if combat.on_battlefield(c) or not combat.has(c, keyword):
                continue
            if combat.counters(c, kind) > 0:
                combat.note(f"{combat.creature_id(c)} had a {kind} counter: {keyword} does nothing")
                continue
            combat.return_to_battlefield(c)
            if combat.on_battlefield(c):
                combat.add_counters(c, kind, 1)
                combat.note(
                    f"{combat.creature_id(c)} returns to the battlefield ({keyword}, {rule}) "
                    f"with a {kind} counter, a new object not in combat"
                )
            else:
                combat.note(f"{combat.creature_id(c)} is a token: it doesn't return (111.8)")

    def returns_batched(batch: BatchContext, deaths: BatchDeaths) -> None:
        rows = np.flatnonzero(deaths.creatures)  # few: looked up for these only
        rows = rows[~batch.on_battlefield()[rows]]
        rows = rows[batch.has(keyword)[rows]]
        rows = rows[batch.counters(kind)[rows] == 0]
        if rows.size:
            batch.return_to_battlefield(rows)
            back = rows[batch.on_battlefield()[rows]]
            if back.size:
                batch.add_counters(back, kind, 1)

    return System("dies", f"return with a {kind} counter", returns, returns_batched, {keyword})
