"""The template's log of what happened in each damage step, for the results of a few battles
(the best lines of a decision), in numba's subset: the generator (:mod:`.generate`) copies
this module's source from its mark on after the template's, in the one generated module.

A log (``Record.log``, [entries, 5], none when it has no rows) holds, in the order they
happen: ``(DEALT, step, source, recipient, amount)`` for damage dealt (as the
``deal-damage`` parts leave it, above 0), ``(GAINED, step, source, amount, 0)`` for life
its controller gained as the source dealt it, and ``(DIED, step, row, 0, 0)`` for a
creature that died in the state-based actions after the damage step taken before `step`.
``Record.logged`` [2]: the entries written, and 1 if some damage was replaced (120.3: kept
other than dealt) or the log was full, so that it does not tell what happened.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np


def deal_parts(*arguments: Any) -> int:
    """The generated glue's: the ``deal-damage`` parts' amount."""
    return 0


def replace_parts(*arguments: Any) -> int:
    """The generated glue's: the damage kept after the replacement parts."""
    return 0


def react_parts(*arguments: Any) -> None:
    """The generated glue's: the reactions to damage dealt."""


def receive(*arguments: Any) -> None:
    """The template's (:func:`.template.receive`): damage dealt marked or taken from life."""


# -- kernel source: the generator copies from here on ------------------------------------------

#: What the dealers of each damage step could divide, for the decision search
#: (:class:`~ecs_combat.batched.StepDivisions`), [steps, rows] (`live`: [steps, blocks]), or
#: [steps, 0] each when not recorded: who deals, power and toughness left as the step's
#: damage is assigned, the ``assign-damage`` parts' flags, the blocks still in effect; and
#: the log (`log`, `logged`, `dead` [rows]: the deaths noted; no rows: nothing logged).
Record = namedtuple(
    "Record",
    [
        "deals", "power", "remaining", "one_is_lethal", "player_gets_excess", "live",
        "log", "logged", "dead",
    ],
)  # fmt: skip

#: Kinds of log entries.
LOG_DEALT = 0
LOG_GAINED = 1
LOG_DIED = 2


def log_entry(rc: Any, kind: int, s: int, x: int, y: int, z: int) -> None:
    """Add an entry to the log (or mark it untold when full)."""
    at = rc.logged[0]
    if at >= rc.log.shape[0]:
        rc.logged[1] = 1
        return
    rc.log[at, 0] = kind
    rc.log[at, 1] = s
    rc.log[at, 2] = x
    rc.log[at, 3] = y
    rc.log[at, 4] = z
    rc.logged[0] = at + 1


def log_deaths(b: int, s: int, bt: Any, st: Any, rc: Any) -> None:
    """Note the creatures of battle `b` that died after the step taken before `s` (each
    once: `rc.dead` marks those noted)."""
    for i in range(np.uint64(bt.rows[b]), np.uint64(bt.rows[b + 1])):  # unsigned: no wraparound
        if st.died[i] and not rc.dead[i]:
            rc.dead[i] = True
            log_entry(rc, LOG_DIED, s, i, 0, 0)


def log_dealt(
    s: int, source: int, recipient: int, amount: int, kept: int, gained: int, rc: Any
) -> None:  # fmt: skip
    """Note damage dealt (`amount` above 0) and the life gained as it was; damage replaced
    (`kept` other than `amount`), or life gained without damage, leaves the log untold."""
    if amount <= 0:
        if gained != 0:
            rc.logged[1] = 1
        return
    log_entry(rc, LOG_DEALT, s, source, recipient, amount)
    if gained != 0:
        log_entry(rc, LOG_GAINED, s, source, gained, 0)
    if kept != amount:
        rc.logged[1] = 1


def deal_logged(
    b: int, s: int, e0: int, e: int, c: Any, st: Any, bt: Any, fl: Any, guards: Any, o: Any,
    rc: Any,
) -> None:  # fmt: skip
    """The template's dealing of a step's damage (:func:`.template.damage_step`, flows `e0`
    to `e` - 1), each flow logged with the life its source gained as it was dealt."""
    for x in range(np.uint64(e0), np.uint64(e)):  # unsigned places and rows: no wraparound
        source, recipient = fl.source[x], fl.recipient[x]
        gained = c.life_gained[np.uint64(source)]
        amount = deal_parts(source, recipient, fl.amount[x], c, st, guards, o)
        kept = 0
        if amount > 0:
            kept = replace_parts(source, recipient, amount, c, st, guards, o)  # 120.3
            react_parts(source, recipient, amount, c, st, guards, o)
        log_dealt(s, source, recipient, amount, kept, c.life_gained[np.uint64(source)] - gained, rc)
        if amount > 0:
            receive(b, source, recipient, amount, kept, c, st, bt)
