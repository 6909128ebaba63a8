"""The template's state-based actions (704) and "dies" triggers (700.4, 603.10a), in numba's
subset: the generator (:mod:`.generate`) copies this module's source from its mark on after
the template's (:mod:`.template`), in the one generated module.

A check destroys and kills creatures and makes players lose; a creature that died with a
keyword of a ``dies`` part is pushed on its battle's stack of "dies" triggers, the check's in
APNAP order (603.3b), then by row. They resolve one at a time, last pushed first, with
state-based actions after each: the triggers of creatures dying then are pushed on top and
resolve first, as the numpy engine resolves them. A part may return its creature to the
battlefield as a new object (400.7, :func:`return_to_battlefield`).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def player_parts(*arguments: Any) -> None:
    """The generated glue's: the ``state-based-actions`` parts per player row."""


def creature_parts(*arguments: Any) -> None:
    """The generated glue's: the ``state-based-actions`` parts for one creature row."""


def destroy_parts(*arguments: Any) -> bool:
    """The generated glue's: whether a creature about to be destroyed still is."""
    return True


def dies_parts(*arguments: Any) -> None:
    """The generated glue's: the ``dies`` part of a creature's keyword resolving."""


def dies_bits(guards: Any) -> int:
    """The generated glue's: the bits of the keywords of the ``dies`` parts."""
    return 0


def counters_of(*arguments: Any) -> tuple[int, ...]:
    """The generated glue's: a creature's counters (its plugins' counters columns) if
    `wanted`, else zeros."""
    return ()


def put_counters(*arguments: Any) -> None:
    """The generated glue's: a creature's counters set back to `kept`."""


def renew_own(*arguments: Any) -> None:
    """The generated glue's: a new object's plugins' columns as the batch printed them."""


# -- kernel source: the generator copies from here on ------------------------------------------


def check_state(
    b: int, in_step: bool, c: Any, st: Any, bt: Any, k: Any, guards: Any, o: Any
) -> None:  # fmt: skip
    """One check of the state-based actions (704.3), then the "dies" triggers of the
    creatures it killed (:func:`resolve_dies`, compiled on its own: rarely called)."""
    bits = dies_bits(guards)
    r0 = bt.rows[b]
    top = check_once(b, in_step, bits, r0, c, st, bt, k, guards, o)
    if top != r0:
        resolve_dies(b, in_step, bits, top, c, st, bt, k, guards, o)


def check_apart(
    b: int, c: Any, st: Any, bt: Any, k: Any, guards: Any, o: Any
) -> None:  # fmt: skip
    """:func:`check_state` outside a damage step, compiled on its own for the template's
    rarely taken call site (the combat's first check, in a battle with a "dies" keyword):
    each inlined copy of a check costs compile time (a check after a cast stays inline: the
    example melee's casts were 2-3% slower through a call)."""
    check_state(b, False, c, st, bt, k, guards, o)


def resolve_dies(
    b: int, in_step: bool, bits: Any, top: int, c: Any, st: Any, bt: Any, k: Any, guards: Any,
    o: Any,
) -> None:  # fmt: skip
    """The "dies" triggers on battle `b`'s stack (to place `top`) resolve, last pushed
    first, each followed by a check; a creature that returned to the battlefield noted with
    its power plus toughness as it returned (`st.returned`)."""
    r0 = bt.rows[b]
    since = bt.clock[b]
    while top > r0:
        top -= 1
        row = st.pending[top]
        if not bt.game_over[b] and not c.lost[c.controller[row]]:  # 800.4a
            dies_parts(row, c, st, bt, guards, o)
        top = check_once(b, in_step, bits, top, c, st, bt, k, guards, o)
    if bt.clock[b] != since:
        for i in range(bt.rows[b], bt.rows[b + 1]):
            if st.back[i] > since and c.on_battlefield[i]:
                st.returned[i] = c.power[i] + c.toughness[i]


def check_once(
    b: int, in_step: bool, bits: Any, top: int, c: Any, st: Any, bt: Any, k: Any, guards: Any,
    o: Any,
) -> int:  # fmt: skip
    """One check of the state-based actions (704.3): toughness 0 or less (704.5f), lethal
    damage (704.5g), players at 0 life (704.5a) and the plugins' conditions; destruction
    (701.8) less what the `destroy` parts exempt; creatures leave, players lose. A creature
    dying with a keyword of `bits` is pushed on the battle's stack of "dies" triggers
    (`st.pending` from place `top`; the new top returned), with the counters it had as the
    check began (704.3: the check's actions happen at once, 704.5q)."""
    r0, r1 = np.uint64(bt.rows[b]), np.uint64(bt.rows[b + 1])  # unsigned rows: no wraparound
    p0, p1 = bt.players[b], bt.players[b + 1]
    for p in range(p0, p1):
        k.loses[p] = c.life[p] <= 0 and not c.lost[p]
    player_parts(p0, p1, c, st, k, guards, o)
    dying = False
    for i in range(r0, r1):  # a row's checks read and write that row only
        k.destroy[i] = False
        k.dies[i] = False
        if c.on_battlefield[i]:
            if c.toughness[i] <= 0:
                k.dies[i] = True
            elif c.marked[i] >= c.toughness[i]:
                k.destroy[i] = True
        dies = (st.kw[i] & bits) != 0
        kept = counters_of(i, o, dies)  # only where it may die with a dies trigger
        creature_parts(i, c, st, k, guards, o)
        gone = k.dies[i]
        if k.destroy[i] and not gone:
            gone = destroy_parts(i, c, st, guards, o)
        if gone and c.on_battlefield[i]:
            leave(i, c, st)
            if in_step:
                st.died[i] = True
            if dies:
                put_counters(i, o, kept)
                st.dying[i] = True
                dying = True
    if dying:  # APNAP: the last player's first (603.3b), then by row; the first on top
        for p in range(p0, p1):
            for i in range(bt.rows[b + 1] - 1, bt.rows[b] - 1, -1):
                if st.dying[i] and c.controller[i] == p:
                    st.dying[i] = False
                    st.pending[top] = i
                    top += 1
    remaining = 0
    losing = False
    for p in range(p0, p1):
        k.loses[p] = k.loses[p] and not c.lost[p]  # those who lose now
        if k.loses[p]:
            c.lost[p] = True
            losing = True
        if not c.lost[p]:
            remaining += 1
    if not losing:
        return top
    if remaining < 2:
        bt.game_over[b] = True
        return top
    for i in range(r0, r1):  # they leave the game with their creatures (800.4a)
        if c.on_battlefield[i] and k.loses[c.controller[i]]:
            leave(i, c, st)
        elif c.attacking[i] and k.loses[c.attacked[i]]:
            c.attacking[i] = False
            st.in_combat[i] = c.blocking[i]
    return top


def leave(i: int, c: Any, st: Any) -> None:
    """A creature leaves the battlefield, and so combat (506.4)."""
    c.on_battlefield[i] = False
    c.attacking[i] = False
    c.blocking[i] = False
    st.in_combat[i] = False


def return_to_battlefield(row: int, c: Any, st: Any, bt: Any, o: Any) -> bool:
    """A creature that died returns to the battlefield as a new object (400.7): its printed
    power, toughness and keywords, no damage, counters or marks (:func:`renew_own`), not in
    combat, noted with the battle's count of returns (`st.back`). Whether it returned."""
    if c.on_battlefield[row]:
        return False
    b = c.battle[row]
    bt.clock[b] += 1
    st.back[row] = bt.clock[b]
    c.on_battlefield[row] = True
    c.marked[row] = 0
    c.power[row] = st.printed_power[row]
    c.toughness[row] = st.printed_toughness[row]
    st.kw[row] = st.printed_kw[row]
    st.blocked[row] = False
    st.struck[row] = False
    renew_own(row, o)
    return True


def hide_new(b: int, since: int, hide: bool, c: Any, st: Any, bt: Any) -> None:
    """With `hide`, the creatures of battle `b` that returned as new objects after count
    `since` leave the battlefield as the triggers resolving see it (400.7: a trigger put on
    the stack before reads the old object, gone); without, they are back."""
    for i in range(bt.rows[b], bt.rows[b + 1]):
        if hide and st.back[i] > since and c.on_battlefield[i]:
            c.on_battlefield[i] = False
            st.dying[i] = True
        elif not hide and st.dying[i]:
            c.on_battlefield[i] = True
            st.dying[i] = False
