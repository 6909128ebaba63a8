"""Can block an additional creature, can block any number of creatures (509.1a): a blocker
may block one attacker, one more per instance of "can block an additional creature" (they add
up), any number with "can block any number of creatures".

The engines resolve whatever blocks a scenario declares (a blocker may be given a list); these
say how many attackers the decision search lets one blocker block.
"""

from __future__ import annotations

import numpy as np

from ecs_combat import Keyword, Restriction, Side, Verdict, hookimpl

ADDITIONAL = "can block an additional creature"
ANY_NUMBER = "can block any number of creatures"
#: More attackers than any combat has: "any number".
UNLIMITED = 1 << 30


def additional(blocker: Side) -> Verdict:
    return 1 + np.asarray(blocker.count(ADDITIONAL))


def any_number(blocker: Side) -> Verdict:
    return np.where(blocker.has(ANY_NUMBER), UNLIMITED, 1)


@hookimpl
def register_keywords() -> list[Keyword]:
    return [
        Keyword(ADDITIONAL, rule="509.1a", summary="it may block one more attacker (adds up)"),
        Keyword(ANY_NUMBER, rule="509.1a", summary="it may block any number of attackers"),
    ]


@hookimpl
def register_restrictions() -> list[Restriction]:
    return [
        Restriction("blocks", ADDITIONAL, "509.1a", additional),
        Restriction("blocks", ANY_NUMBER, "509.1a", any_number),
    ]
