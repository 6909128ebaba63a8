"""The bounds of a search: its time budget (:class:`Clock`) and its memory guard
(:func:`refuse_if_too_large`, :func:`guard_combats`) (CONTRACT section 9, docs/decisions.md).

Any code that searches can use them::

    clock = Clock(budget)              # None: no limit
    while work_left and not clock.out():
        ...                            # a piece of work of bounded size
    guard_combats(combats, file)       # SearchTooLarge (exit 2) past MOST_COMBATS

A budget is wall-clock time from the clock's making; it is read between pieces of work, so
each piece must be small (the search resolves at most :data:`LEVEL_ROWS` creature rows at a
time). The guard refuses, before the work starts, a search that would not fit in memory.
"""

from __future__ import annotations

import math
import time

import numpy as np
import numpy.typing as npt

from ecs_combat.batched import IntArray
from ecs_combat.errors import InputError

#: The most candidate combats a search may hold: its block declarations times the damage
#: division choices of each (every player's joint divisions, step by step, as counted on
#: each declaration's default line). A node of the search takes about 200 bytes and each
#: expanded one a Python object, so this keeps a search's tree under about 1 GB.
MOST_COMBATS = 2_000_000
#: The most cells a board's block declarations may take as arrays: declarations times the
#: attackers times the creatures that may block (the enumeration's arrays are about 8 bytes
#: a cell, a few at once: about 0.5 GB at this limit).
MOST_DECLARATION_CELLS = 1 << 24
#: The most creature rows the search resolves in one batch (a piece of a level); the budget
#: is read between pieces.
LEVEL_ROWS = 1 << 17


class SearchTooLarge(InputError):
    """A search that would not fit in memory, refused before it starts (exit 2)."""


class Clock:
    """A time budget: wall-clock seconds from its making (None: no limit)."""

    def __init__(self, seconds: float | None) -> None:
        self.began = time.perf_counter()
        self.seconds = seconds

    @property
    def elapsed(self) -> float:
        """Seconds since the clock was made."""
        return time.perf_counter() - self.began

    def out(self) -> bool:
        """Whether the budget has run out."""
        return self.seconds is not None and self.elapsed > self.seconds

    def past(self, share: float) -> bool:
        """Whether that share of the budget (0 to 1) has passed (never without one)."""
        return self.seconds is not None and self.elapsed > self.seconds * share

    def left(self, least: float = 1e-3) -> float | None:
        """The seconds left of the budget (at least `least`: a search given them still
        answers with what it solved first), or None without a budget."""
        return None if self.seconds is None else max(self.seconds - self.elapsed, least)


def refuse_if_too_large(size: float, most: float, where: str | None, place: str, what: str) -> None:
    """Raise :class:`SearchTooLarge` naming `size` (of `what`, at `place` of file `where`)
    and the limit `most` when `size` is above it."""
    if size > most:
        shown = f"{size:,.0f}" if size < 1e15 else f"{size:.2e}"
        raise SearchTooLarge(
            where,
            place,
            f"the search is too large to fit in memory: {shown} {what}; decisions search at "
            f"most {most:,.0f}",
        )


def guard_combats(
    combats: float, where: str | None, declarations: int | None = None, grown: bool = False
) -> None:
    """Refuse a search of more than :data:`MOST_COMBATS` candidate combats: counted before
    it starts (its `declarations` and the division choices of those it may have to search),
    or, `grown`, as it grows (more than the count foresaw)."""
    what = "candidate combats"
    if grown:
        what += " as it grew (block declarations and damage division choices)"
    elif declarations is not None:
        what += f" ({declarations:,} block declarations and their damage division choices)"
    refuse_if_too_large(combats, MOST_COMBATS, where, "combat", what)


def guard_declarations(
    declarations: int, attackers: int, blockers: int, where: str | None, what: str
) -> None:
    """Refuse a board whose `declarations` (of `attackers` and `blockers`) would take more
    than :data:`MOST_DECLARATION_CELLS` cells as arrays, before they are listed."""
    cells = declarations * max(attackers, 1) * max(blockers, 1)
    if cells > MOST_DECLARATION_CELLS:
        refuse_if_too_large(
            declarations,
            MOST_DECLARATION_CELLS // (max(attackers, 1) * max(blockers, 1)),
            where,
            "combat",
            f"{what} ({attackers} attackers, {blockers} creatures that may block)",
        )


#: log(n!) for n below this, as a table (:func:`log_choices`); larger n by math.lgamma.
_TABLE = 1 << 12
_LOG_FACTORIAL: list[npt.NDArray[np.float64]] = []


def log_choices(power: IntArray, slots: IntArray) -> npt.NDArray[np.float64]:
    """The natural log of how many ways each of some creatures can divide `power` damage
    among `slots` recipients (amounts of 0 or more totalling the power: C(p + s - 1, s - 1))."""
    p = np.maximum(np.asarray(power, np.int64), 0)
    s = np.maximum(np.asarray(slots, np.int64), 1)
    if not _LOG_FACTORIAL:
        _LOG_FACTORIAL.append(np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, _TABLE)))]))
    table = _LOG_FACTORIAL[0]
    n = p + s - 1
    small = n < _TABLE
    out: npt.NDArray[np.float64] = np.zeros(len(p), np.float64)
    out[small] = table[n[small]] - table[p[small]] - table[s[small] - 1]
    for i in np.flatnonzero(~small).tolist():  # a power in the thousands: rare
        a, b = int(p[i]), int(s[i])
        out[i] = math.lgamma(a + b) - math.lgamma(a + 1) - math.lgamma(b)
    return out
