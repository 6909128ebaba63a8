"""The template's attack and block triggers (508.2, 509.2-509.5, 603.3b), in numba's subset:
the generator (:mod:`.generate`) copies this module's source from its mark on after the
template's (:mod:`.template`), in the one generated module.

A trigger part's triggers are noted per battle as attackers, then blockers, are declared
(one per keyword instance of each creature its event picks), ordered as the numpy engine
orders them (APNAP; one source's in the order its instances are listed) and resolved with
state-based actions after each; a part acting at once (exalted) is called as its triggers
are noted.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any


def check_state(*arguments: Any) -> None:
    """The template's (:func:`.template.check_state`), in the same module once generated."""


def hide_new(*arguments: Any) -> None:
    """The template's (:func:`.template_checks.hide_new`), in the same module once generated."""


def trigger_parts(*arguments: Any) -> None:
    """The generated glue's: the trigger part numbered `part` resolving."""


def choose_parts(*arguments: Any) -> int:
    """The generated glue's: the target the trigger part numbered `part` chooses, or -1."""
    return -1


# -- kernel source: the generator copies from here on ------------------------------------------

#: Attack and block triggers (``declare-attackers``, ``declare-blockers`` parts): the batch's
#: keyword instances by creature row (where each row's begin, [rows + 1]; each one's keyword
#: bit and number, -1 for none), where each battle's triggers begin ([battles + 1]), and per
#: trigger its source, number, `other`, part, place among its source's instances (UNLISTED:
#: a keyword with no listed instance) and `order` (scratch); `blockers`: [rows] scratch; per
#: trigger part, in order: its point (0: attackers declared, 1: blockers), event, number
#: among the kernel's parts, and whether it acts at once; `bits` [1]: their keywords' bits.
Triggers = namedtuple(
    "Triggers",
    [
        "ins_start", "ins_bit", "ins_number", "start",
        "source", "n", "other", "part", "listed", "order", "blockers",
        "point", "event", "index", "at_once", "bits",
    ],
)  # fmt: skip
#: A trigger part's `t`: creatures blocking each (its source's counted as it resolves), and
#: where each battle's creature rows begin.
Trig = namedtuple("Trig", ["blockers", "rows"])
#: The events of trigger parts (:data:`ecs_combat.plugin.kernels.TRIGGER_EVENTS`, in order).
EVENT_ATTACKS = 0
EVENT_ALONE = 1
EVENT_RICHEST = 2
EVENT_CHOOSES = 3
EVENT_IN_BLOCKS = 4
EVENT_BLOCKED = 5
EVENT_UNBLOCKED = 6
EVENT_FLANKED = 7
#: The place of an instance no keyword list names: after every listed one.
UNLISTED = 1 << 30


def has_any(b: int, bits: Any, st: Any, bt: Any) -> bool:
    """Whether a creature of battle `b` has one of the keywords `bits`."""
    for i in range(bt.rows[b], bt.rows[b + 1]):  # noqa: SIM110 (numba: no generators)
        if st.kw[i] & bits:
            return True
    return False


def triggers_at(
    point: int, b: int, c: Any, st: Any, bt: Any, bl: Any, k: Any, guards: Any, o: Any, tg: Any
) -> None:  # fmt: skip
    """The trigger parts at a point of battle `b`: their triggers noted (or, acting at once,
    done), then resolved."""
    e = tg.start[b]
    t = Trig(tg.blockers, bt.rows)
    for j in range(len(tg.point)):
        if tg.point[j] != point:
            continue
        i = tg.index[j]
        done = collect(b, tg.event[j], guards[i], i, e, c, st, bt, bl, tg, t, o)
        if not tg.at_once[j]:
            e = done
            continue
        for x in range(e, done):
            trigger_parts(i, tg.source[x], tg.n[x], tg.other[x], c, t, o)
    resolve_triggers(b, e, c, st, bt, bl, k, guards, o, tg)


def collect(
    b: int, event: int, bit: Any, part: int, e: int, c: Any, st: Any, bt: Any, bl: Any, tg: Any,
    t: Any, o: Any,
) -> int:  # fmt: skip
    """The triggers of a part (`part`, keyword `bit`) for the creatures of battle `b` its
    `event` picks, one per instance, from place `e` on; the next place. A part choosing
    a target chooses it per creature as its triggers are put on the stack (603.3d): none,
    no trigger."""
    r0, r1 = bt.rows[b], bt.rows[b + 1]
    alone = -1
    if event == EVENT_ALONE:  # the battle's only attacker (702.83a)
        for i in range(r0, r1):
            if c.attacking[i]:
                if alone >= 0:
                    return e
                alone = i
        if alone < 0:
            return e
    most = 0
    if event == EVENT_RICHEST:  # the most life among the battle's players still in the game
        most = richest(b, c, bt)
    for i in range(r0, r1):
        if not st.kw[i] & bit:
            continue
        if event == EVENT_FLANKED:  # each block by a creature without the keyword
            if c.attacking[i]:
                for q in range(st.a_start[i], st.a_start[i] + st.a_count[i]):
                    y = bl.blocker[q]
                    if c.blocking[y] and not st.kw[y] & bit:
                        e = instances_of(i, bit, y, part, e, tg)
            continue
        other = c.attacked[i] if c.attacking[i] else -1
        if event == EVENT_ATTACKS:
            ok = c.attacking[i]
        elif event == EVENT_ALONE:
            ok = c.on_battlefield[i] and c.controller[i] == c.controller[alone]
            other = alone
        elif event == EVENT_RICHEST:
            ok = c.attacking[i] and c.attacked[i] >= 0 and c.life[c.attacked[i]] >= most
        elif event == EVENT_CHOOSES:
            ok = False
            if c.attacking[i]:
                other = choose_parts(part, i, c, t, o)
                ok = other >= 0
        elif event == EVENT_IN_BLOCKS:
            ok = c.blocking[i] or (c.attacking[i] and st.blocked[i])
        elif event == EVENT_BLOCKED:
            ok = c.attacking[i] and st.blocked[i]
        else:
            ok = c.attacking[i] and not st.blocked[i]
        if ok:
            e = instances_of(i, bit, other, part, e, tg)
    return e


def richest(b: int, c: Any, bt: Any) -> int:
    """The most life among the players of battle `b` still in the game."""
    most = -(1 << 62)
    for p in range(bt.players[b], bt.players[b + 1]):
        if not c.lost[p] and c.life[p] > most:
            most = c.life[p]
    return most


def instances_of(row: int, bit: Any, other: int, part: int, e: int, tg: Any) -> int:
    """One trigger per instance of keyword `bit` on `row` (one if none is listed)."""
    found = False
    for x in range(tg.ins_start[row], tg.ins_start[row + 1]):
        if tg.ins_bit[x] == bit:
            e = note_trigger(
                e, row, max(tg.ins_number[x], 0), other, part, x - tg.ins_start[row], tg
            )
            found = True
    if not found:
        e = note_trigger(e, row, 0, other, part, UNLISTED, tg)
    return e


def note_trigger(
    e: int, row: int, n: int, other: int, part: int, listed: int, tg: Any
) -> int:  # fmt: skip
    """Note a trigger at place `e`; the next place."""
    tg.source[e] = row
    tg.n[e] = n
    tg.other[e] = other
    tg.part[e] = part
    tg.listed[e] = listed
    return e + 1


def trigger_before(x: int, y: int, c: Any, tg: Any) -> bool:
    """Whether trigger `x` resolves before `y` (603.3b): the last player in turn order's
    first, then by source in the scenario's order, instance as listed, part."""
    sx, sy = tg.source[x], tg.source[y]
    if c.controller[sx] != c.controller[sy]:
        return bool(c.controller[sx] > c.controller[sy])  # a battle's first player is active
    if sx != sy:
        return bool(sx < sy)
    if tg.listed[x] != tg.listed[y]:
        return bool(tg.listed[x] < tg.listed[y])
    return bool(tg.part[x] < tg.part[y])


def resolve_triggers(
    b: int, e1: int, c: Any, st: Any, bt: Any, bl: Any, k: Any, guards: Any, o: Any, tg: Any
) -> None:  # fmt: skip
    """The triggers noted for battle `b` (to place `e1`) resolve in order, state-based
    actions after each, until the game is over; none of a player who has left the game
    (800.4a). A trigger whose source has left still resolves (113.7a); one put on the stack
    before a creature returned as a new object sees it gone (400.7)."""
    e0 = tg.start[b]
    if e1 == e0:
        return
    for x in range(e0, e1):  # insertion, stable
        at = x
        while at > e0 and trigger_before(x, tg.order[at - 1], c, tg):
            tg.order[at] = tg.order[at - 1]
            at -= 1
        tg.order[at] = x
    for j in range(e0, e1):
        if c.lost[c.controller[tg.source[tg.order[j]]]]:
            tg.part[tg.order[j]] = -1
    t = Trig(tg.blockers, bt.rows)
    since = bt.clock[b]
    for j in range(e0, e1):
        if bt.game_over[b]:
            break
        x = tg.order[j]
        if tg.part[x] < 0:
            continue
        row = tg.source[x]
        count = 0  # creatures blocking it now (509.1h)
        for q in range(st.a_start[row], st.a_start[row] + st.a_count[row]):
            y = bl.blocker[q]
            if c.blocking[y] and c.on_battlefield[y]:
                count += 1
        tg.blockers[row] = count
        new = bt.clock[b] != since
        if new:
            hide_new(b, since, True, c, st, bt)
        trigger_parts(tg.part[x], row, tg.n[x], tg.other[x], c, t, o)
        if new:
            hide_new(b, since, False, c, st, bt)
        check_state(b, False, c, st, bt, k, guards, o)
