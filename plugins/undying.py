"""Undying (702.93): when this creature dies, if it had no +1/+1 counters on it, return it to
the battlefield under its owner's control with a +1/+1 counter on it.

The returned creature is a new object (400.7): see :mod:`ecs_combat_keywords.returning`.
Needs the +1/+1 counter kind (plugin ``pt_counters``).
"""

from __future__ import annotations

from ecs_combat import Keyword, System, hookimpl

from .returning import returning_keyword, returning_system

UNDYING = "undying"
RULE = "702.93"
PLUS = "+1/+1"


@hookimpl
def register_keywords() -> list[Keyword]:
    return [returning_keyword(UNDYING, RULE, PLUS)]


@hookimpl
def register_systems() -> list[System]:
    return [returning_system(UNDYING, RULE, PLUS)]
