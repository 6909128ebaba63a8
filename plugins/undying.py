"""Undying (702.93): when this creature dies, if it had no +1/+1 counters on it, return it to
the battlefield under its owner's control with a +1/+1 counter on it.

The returned creature is a new object (400.7): see :mod:`ecs_combat_keywords.returning`.
Needs the +1/+1 counter kind (plugin ``pt_counters``).
"""

from __future__ import annotations

from typing import Any

from ecs_combat import KernelColumn, KernelPart, Keyword, System, hookimpl

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


# -- kernel form (docs/plugins.md, "Kernel parts") ------------------------------------------


def returns_kernel(row: int, c: Any, own: Any) -> bool:
    """702.93a in the compiled kernel: whether the creature that died returns, having had no
    +1/+1 counter as it last existed (603.10a)."""
    return not own.plus[row]


def counter_kernel(row: int, c: Any, own: Any) -> None:
    """The new object (400.7) gets its +1/+1 counter, and the +1/+1 it gives (122.1a)."""
    own.plus[row] += 1
    c.power[row] += 1
    c.toughness[row] += 1


@hookimpl
def register_kernel_parts() -> list[KernelPart | KernelColumn]:
    return [
        KernelColumn("creature", "plus", "int", counters=PLUS),
        KernelPart("dies", f"return with a {PLUS} counter", returns_kernel, enters=counter_kernel),
    ]
