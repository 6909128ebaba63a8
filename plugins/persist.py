"""Persist (702.79): when this creature dies, if it had no -1/-1 counters on it, return it to
the battlefield under its owner's control with a -1/-1 counter on it.

The returned creature is a new object (400.7): see :mod:`ecs_combat_keywords.returning`.
Needs the -1/-1 counter kind (plugin ``pt_counters``).
"""

from __future__ import annotations

from ecs_combat import Keyword, System, hookimpl

from .returning import returning_keyword, returning_system

PERSIST = "persist"
RULE = "702.79"
MINUS = "-1/-1"


@hookimpl
def register_keywords() -> list[Keyword]:
    return [returning_keyword(PERSIST, RULE, MINUS)]


@hookimpl
def register_systems() -> list[System]:
    return [returning_system(PERSIST, RULE, MINUS)]
