"""Menace (702.111): it can't be blocked except by two or more creatures."""

from __future__ import annotations

import numpy as np

from ecs_combat import Keyword, Restriction, Side, Verdict, hookimpl

MENACE = "menace"


def least_blockers(attacker: Side) -> Verdict:
    return np.where(attacker.has(MENACE), 2, 1)


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(MENACE, rule="702.111", counter=True)]


@hookimpl
def register_restrictions() -> list[Restriction]:
    return [Restriction("blockers", MENACE, "702.111", least_blockers)]
