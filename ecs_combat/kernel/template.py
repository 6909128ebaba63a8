"""The core's combat of one battle, in numba's subset: the template the kernel generator
(:mod:`.generate`) compiles with the plugins' parts.

It plays exactly the batched engine's combat (:mod:`ecs_combat.batched.combat`) for a batch
the kernel resolves (:mod:`.dispatch`): attackers and blocks declared (508, 509), the
state-based actions (704), each damage step of the step table (510: who deals damage, the
default division of RULES.md section 3, dealing it all at once), and players leaving the game
(800.4a). Where a plugin's system runs, it calls a glue function: the ones at the end of this
file call no part (a combat with no plugin), and the generator writes the plugin set's in
their place. Every array is one of the whole batch; a battle reads and writes its own rows
only, so ranges of battles run in threads at once (the GIL released).
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from ecs_combat.kernel.template_checks import check_apart, check_state, dies_bits
from ecs_combat.kernel.template_log import deal_logged, log_deaths
from ecs_combat.kernel.template_triggers import has_any, triggers_at

# The columns the parts see (:data:`ecs_combat.plugin.kernels.CORE_COLUMNS`, in that order).
Core = namedtuple(
    "Core",
    [
        "battle",
        "controller",
        "power",
        "toughness",
        "marked",
        "colors",
        "on_battlefield",
        "attacking",
        "blocking",
        "attacked",
        "life_gained",
        "life",
        "lost",
        "player_battle",
    ],
)
#: ``assign-damage``'s and ``state-based-actions``' own columns.
Assign = namedtuple("Assign", ["one_is_lethal", "player_gets_excess"])
Check = namedtuple("Check", ["destroy", "dies", "loses"])
#: The core's own state of every creature row: its keywords (bit masks), in combat, struck in
#: an earlier step, blocked, died in a step's state-based actions, combat damage dealt to
#: players; and scratch: its blocks as an attacker (first, how many), as a blocker (one of
#: them, how many); its battle's count of returns as it last returned as a new object (0:
#: never), its power plus toughness then (-1: never; :mod:`.template_checks`), scratch for
#: "dies" triggers (the battle's stack from its first row on, a flag), and its printed
#: power, toughness and keywords.
State = namedtuple(
    "State",
    [
        "kw", "in_combat", "struck", "blocked", "died", "to_players", "a_start", "a_count",
        "b_first", "b_count", "back", "returned", "pending", "dying", "printed_power",
        "printed_toughness", "printed_kw",
    ],
)  # fmt: skip
#: The blocks, grouped by attacker, battles ascending: blocker, attacker, the attacker's
#: place in its blocker's declared list; `order` is scratch (a blocker's blocks by rank).
Blocks = namedtuple("Blocks", ["blocker", "attacker", "rank", "order"])
#: Per battle: where its creature, player and block rows begin ([battles + 1] each), damage
#: dealt to players, whether its game is over, [steps, battles] the steps taken, and how
#: many creatures returned to the battlefield as new objects.
Battles = namedtuple(
    "Battles", ["rows", "players", "blocks", "to_players", "game_over", "steps_taken", "clock"]
)
#: The step table, per damage step in order: the default step, the keywords that strike in
#: it and those that withhold a creature from it (bit masks of the batch's keywords).
Steps = namedtuple("Steps", ["default", "strike", "withhold"])
#: Scratch for a step's damage, from each battle's offset: source, recipient, amount.
Flows = namedtuple("Flows", ["source", "recipient", "amount"])
#: The cards cast as blockers are declared (events at point 0), sorted by battle: where each
#: battle's begin ([battles + 1]), the target creature row, the caster's player row, the
#: card's ``cast`` part (its number) and its target rule (bits: ``RULE_*``).
Events = namedtuple("Events", ["start", "target", "caster", "part", "rule"])
#: A ``cast`` part's `g`: the keywords of every creature row, and the bits of its grants.
Cast = namedtuple("Cast", ["keywords", "bits"])
#: A card's target rule (:class:`ecs_combat.plugin.definitions.TargetRule`), as bits.
RULE_CASTER_CONTROLS = 1
RULE_BLOCKING_OR_BLOCKED = 2
RULE_IN_COMBAT = 4
#: Explicit divisions (the decision search's, legal by construction), by source row: where
#: each row's begin ([rows + 1]), and each one's step, recipient (a creature row, or
#: ``-1 - player row``) and amount.
Divisions = namedtuple("Divisions", ["start", "step", "recipient", "amount"])


def resolve_range(
    lo: int, hi: int, c: Any, st: Any, bt: Any, bl: Any, sp: Any, fl: Any, a: Any, k: Any,
    guards: Any, ev: Any, cb: Any, o: Any, rc: Any, dv: Any, tg: Any,
) -> None:  # fmt: skip
    """Play battles `lo` to `hi - 1` through."""
    for b in range(lo, hi):
        play(b, c, st, bt, bl, sp, fl, a, k, guards, ev, cb, o, rc, dv, tg)


def one_on_one_range(
    lo: int, hi: int, keyword: Any, power: Any, toughness: Any, masks: Any, work: Any,
    fresh: Any, counts: Any, codes: int, memo: Any, ranges: Any, c: Any, st: Any, bt: Any,
    bl: Any, sp: Any, fl: Any, a: Any, k: Any, guards: Any, ev: Any, cb: Any, o: Any, rc: Any,
    dv: Any, tg: Any,
) -> None:  # fmt: skip
    """Battles `lo` to `hi - 1` of a block of one attacker against one blocker (rows 2b and
    2b + 1), drawn, played and tallied: `keyword`, `power` and `toughness` [battles, 2] as
    drawn (attacker, blocker), `masks` each keyword code's bits; the state (`work`, every
    state column's bytes) starts as `fresh`. Adds to `counts` [codes * codes, 8] the
    summary's columns per (attacker code, blocker code): battles, attacker wins, blocker
    wins, trades, neither dies, damage to players, attackers died, blockers died.

    A battle is decided by what was drawn for it alone, so `memo` keeps each drawn
    battle's outcome once played (4 x damage to players + 2 x attacker died + blocker died;
    -1: not played yet), at ``(attacker code, blocker code, attacker power, attacker
    toughness, blocker power, blocker toughness)`` less `ranges`' least power and toughness
    (`ranges`: least power, how many powers, least toughness, how many toughnesses); a
    battle drawn again is tallied from it without being played. No rows: none kept."""
    for i in range(work.shape[0]):
        work[i] = fresh[i]
    kept = memo.shape[0] != 0
    p0, pn, t0, tn = ranges[0], ranges[1], ranges[2], ranges[3]
    for b in range(lo, hi):
        key = int(keyword[b, 0]) * codes + int(keyword[b, 1])
        at = -1
        if kept:
            pa, ta = int(power[b, 0]) - p0, int(toughness[b, 0]) - t0
            pb, tb = int(power[b, 1]) - p0, int(toughness[b, 1]) - t0
            if 0 <= pa < pn and 0 <= pb < pn and 0 <= ta < tn and 0 <= tb < tn:
                at = ((key * pn + pa) * tn + ta) * pn * tn + pb * tn + tb
        outcome = memo[at] if at >= 0 else -1
        if outcome < 0:
            for side in range(2):
                row = 2 * b + side
                c.power[row] = st.printed_power[row] = power[b, side]
                c.toughness[row] = st.printed_toughness[row] = toughness[b, side]
                st.kw[row] = st.printed_kw[row] = masks[keyword[b, side]]
            play(b, c, st, bt, bl, sp, fl, a, k, guards, ev, cb, o, rc, dv, tg)
            outcome = 4 * bt.to_players[b]
            outcome += 0 if c.on_battlefield[2 * b] else 2
            outcome += 0 if c.on_battlefield[2 * b + 1] else 1
            if at >= 0:
                memo[at] = outcome
        attacker_died = (outcome >> 1) & 1
        blocker_died = outcome & 1
        counts[key, 0] += 1
        if attacker_died:
            counts[key, 3 if blocker_died else 2] += 1
        else:
            counts[key, 1 if blocker_died else 4] += 1
        counts[key, 5] += outcome >> 2
        counts[key, 6] += attacker_died
        counts[key, 7] += blocker_died


def play(
    b: int, c: Any, st: Any, bt: Any, bl: Any, sp: Any, fl: Any, a: Any, k: Any, guards: Any,
    ev: Any, cb: Any, o: Any, rc: Any, dv: Any, tg: Any,
) -> None:  # fmt: skip
    """One battle's combat: declarations with their triggers, state-based actions, the
    cards cast as blockers are declared, the damage steps."""
    has_attack, keywords = declare(b, c, st, bt)
    dying = dies_bits(guards)
    if dying and has_any(b, dying, st, bt):  # the combat's first check (RULES 13): counters
        check_apart(b, c, st, bt, k, guards, o)  # cancel before any trigger (704.5q)
    if not has_attack:
        return  # no attacker: nothing happens, no step, no state-based actions
    triggers = tg.bits[0] != 0 and has_any(b, tg.bits[0], st, bt)
    for point in range(2):  # attack triggers (508.2), then block triggers (509.2-509.5)
        if point == 1:
            keywords = declare_blocks(b, keywords, c, st, bt, bl)
        if triggers:  # one call site, compiled on its own, called only where needed
            triggers_at(point, b, c, st, bt, bl, k, guards, o, tg)
    check_state(b, False, c, st, bt, k, guards, o)
    for e in range(ev.start[b], ev.start[b + 1]):
        if bt.game_over[b]:
            break  # the game is over: no more spells
        t = ev.target[e]
        if may_target(t, ev.caster[e], ev.rule[e], c, st):  # else it does nothing (608.2b)
            cast_parts(ev.part[e], t, ev.caster[e], c, st, cb, o)
            if st.in_combat[t]:
                keywords |= st.kw[t]
        check_state(b, False, c, st, bt, k, guards, o)
    for s in range(len(sp.default)):
        if bt.game_over[b]:
            break
        if not sp.default[s] and (keywords & sp.strike[s]) == 0:
            continue  # nobody in combat has a keyword striking in it (the usual case)
        if not step_exists(b, s, c, st, bt, sp):
            continue
        bt.steps_taken[s, b] = True
        damage_step(b, s, c, st, bt, bl, sp, fl, a, guards, o, rc, dv)
        check_state(b, True, c, st, bt, k, guards, o)


def declare(b: int, c: Any, st: Any, bt: Any) -> tuple[bool, Any]:
    """Attackers (508): whether the battle has one, and their keywords (bits or-ed)."""
    has_attack = False
    keywords = np.uint64(0)
    for i in range(np.uint64(bt.rows[b]), np.uint64(bt.rows[b + 1])):  # unsigned: no wraparound
        if c.attacking[i]:
            st.in_combat[i] = True
            has_attack = True
            keywords |= st.kw[i]
    return has_attack, keywords


def declare_blocks(b: int, keywords: Any, c: Any, st: Any, bt: Any, bl: Any) -> Any:
    """Blockers (509): the blocks of a blocker on the battlefield of an attacker still
    attacking (509.1a; an attacker all of whose blockers are gone is not blocked); the
    keywords of every creature in combat (`keywords`: the attackers', bits or-ed)."""
    for q in range(np.uint64(bt.blocks[b]), np.uint64(bt.blocks[b + 1])):  # unsigned: no wraparound
        x, y = np.uint64(bl.attacker[q]), np.uint64(bl.blocker[q])
        if st.a_count[x] == 0:
            st.a_start[x] = q
        st.a_count[x] += 1
        st.b_first[y] = q
        st.b_count[y] += 1
        if c.on_battlefield[y] and c.attacking[x]:
            st.blocked[x] = True  # blocked, whatever happens to its blockers (509.1h)
            c.blocking[y] = True
            st.in_combat[y] = True
            keywords |= st.kw[y]
    return keywords


def may_target(t: int, caster: int, rule: int, c: Any, st: Any) -> bool:
    """Whether a card's target creature is still legal as it resolves (608.2b): on the
    battlefield and as the card's target rule asks."""
    if not c.on_battlefield[t]:
        return False
    if rule & RULE_CASTER_CONTROLS and c.controller[t] != caster:
        return False
    if rule & RULE_BLOCKING_OR_BLOCKED and not (
        c.blocking[t] or (c.attacking[t] and st.blocked[t])
    ):
        return False
    return not (rule & RULE_IN_COMBAT and not (c.attacking[t] or c.blocking[t]))


def step_exists(b: int, s: int, c: Any, st: Any, bt: Any, sp: Any) -> bool:
    """The default step always; another if a creature in combat strikes in it (510.4)."""
    if sp.default[s]:
        return True
    for i in range(np.uint64(bt.rows[b]), np.uint64(bt.rows[b + 1])):  # unsigned: no wraparound
        if st.in_combat[i] and st.kw[i] & sp.strike[s]:
            return True
    return False


def damage_step(
    b: int, s: int, c: Any, st: Any, bt: Any, bl: Any, sp: Any, fl: Any, a: Any, guards: Any,
    o: Any, rc: Any, dv: Any,
) -> None:  # fmt: skip
    """Who deals damage (510.1), how each divides it (as `dv` gives, else by default), and
    all of it dealt at once (510.2); what the dealers could divide noted in `rc` when it
    has rows, and what happened logged when its log has rows (:mod:`.template_log`)."""
    r0, r1 = bt.rows[b], bt.rows[b + 1]
    noting = rc.deals.shape[1] != 0
    logging = rc.log.shape[0] != 0
    if logging:
        log_deaths(b, s, bt, st, rc)
    if noting:
        for i in range(r0, r1):
            rc.power[s, i] = c.power[i]
            rc.remaining[s, i] = max(c.toughness[i] - c.marked[i], 0)
        for q in range(bt.blocks[b], bt.blocks[b + 1]):
            rc.live[s, q] = c.blocking[bl.blocker[q]] and c.attacking[bl.attacker[q]]
    e0 = 2 * (r0 + bt.blocks[b])  # room for two flows per creature and per block
    e = e0
    for i in range(r0, r1):  # each assigns as it divides: parts write their row's only
        u = np.uint64(i)  # its columns read unsigned: no wraparound
        if not st.in_combat[u]:
            continue
        striker = (st.kw[u] & sp.strike[s]) != 0
        stays = sp.default[s] and not st.struck[u] and (st.kw[u] & sp.withhold[s]) == 0
        if striker:
            st.struck[u] = True
        if not (striker or stays) or c.power[u] <= 0:
            continue
        a.one_is_lethal[u] = False
        a.player_gets_excess[u] = False
        assign_parts(i, c, st, bt, bl, a, guards, o)
        if noting:
            rc.deals[s, u] = True
            rc.one_is_lethal[s, u] = a.one_is_lethal[u]
            rc.player_gets_excess[s, u] = a.player_gets_excess[u]
        given = False
        for x in range(dv.start[i], dv.start[i + 1]):
            if dv.step[x] == s:
                e = flow(fl, e, i, dv.recipient[x], dv.amount[x])
                given = True
        if given:
            continue
        if c.attacking[u]:
            e = attacker_divides(i, e, c, st, bl, fl, a)
        elif c.blocking[u]:
            e = blocker_divides(b, i, e, c, st, bt, bl, fl, a)
    if logging:
        deal_logged(b, s, e0, e, c, st, bt, fl, guards, o, rc)
        return
    for x in range(np.uint64(e0), np.uint64(e)):  # unsigned places and rows: no wraparound
        source, recipient = fl.source[x], fl.recipient[x]
        amount = deal_parts(source, recipient, fl.amount[x], c, st, guards, o)
        if amount <= 0:
            continue
        kept = replace_parts(source, recipient, amount, c, st, guards, o)  # 120.3
        react_parts(source, recipient, amount, c, st, guards, o)
        receive(b, source, recipient, amount, kept, c, st, bt)


def receive(
    b: int, source: int, recipient: int, amount: int, kept: int, c: Any, st: Any, bt: Any
) -> None:  # fmt: skip
    """Damage dealt (`amount`, of which `kept` after replacement) marked on its creature, or
    taken from its player's life and counted as combat damage to players."""
    if recipient >= 0:
        c.marked[np.uint64(recipient)] += kept
    else:
        bt.to_players[b] += amount
        st.to_players[np.uint64(source)] += amount
        c.life[np.uint64(-1 - recipient)] -= kept


def flow(fl: Any, e: int, source: int, recipient: int | np.uint64, amount: int) -> int:
    """Note damage to deal; the next flow's place."""
    at = np.uint64(e)  # unsigned: no wraparound
    fl.source[at] = source
    fl.recipient[at] = recipient
    fl.amount[at] = amount
    return e + 1


def lethal(row: int | np.uint64, source: int | np.uint64, c: Any, a: Any) -> int:
    """Damage lethal to a creature from a source (702.19b; 1 from a source whose damage
    destroys, 702.2c), never below 0."""
    owed: int = max(c.toughness[row] - c.marked[row], 0)
    if a.one_is_lethal[source]:
        owed = min(owed, 1)
    return owed


def attacker_divides(i: int, e: int, c: Any, st: Any, bl: Any, fl: Any, a: Any) -> int:
    """An attacker's damage (RULES.md section 3): all to the player if unblocked; else
    lethal damage to each blocker still blocking in declared order, the rest to the player
    where a system allows excess, else to the first of them (702.19b-e)."""
    u = np.uint64(i)  # its columns, its blocks and its blockers read unsigned: no wraparound
    power = c.power[u]
    player = -1 - c.attacked[u]
    if not st.blocked[u]:
        return flow(fl, e, i, player, power)
    first = -1
    owed = 0
    q0 = np.uint64(st.a_start[u])
    for q in range(q0, q0 + np.uint64(st.a_count[u])):
        y = np.uint64(bl.blocker[q])
        if not c.blocking[y]:
            continue
        due = lethal(y, u, c, a)
        if first < 0:
            first = e
        e = flow(fl, e, i, y, min(max(power - owed, 0), due))
        owed += due
    if first < 0:  # no blocker left: all of it to the player, or none (702.19e)
        if a.player_gets_excess[u]:
            e = flow(fl, e, i, player, power)
        return e
    left = max(power - owed, 0)
    if left > 0:
        if a.player_gets_excess[u]:
            e = flow(fl, e, i, player, left)
        else:
            fl.amount[first] += left
    return e


def blocker_divides(
    b: int, j: int, e: int, c: Any, st: Any, bt: Any, bl: Any, fl: Any, a: Any
) -> int:  # fmt: skip
    """A blocker's damage over the attackers it blocks that still attack, in the order it
    declared them: lethal damage to each, the rest to the first (510.1d)."""
    u = np.uint64(j)  # unsigned: no wraparound
    if st.b_count[u] == 1:  # one block (the usual case): all of it to its attacker
        x = np.uint64(bl.attacker[st.b_first[u]])
        return flow(fl, e, j, x, c.power[u]) if c.attacking[x] else e
    q0 = bt.blocks[b]
    n = 0
    for q in range(q0, bt.blocks[b + 1]):
        if bl.blocker[q] == j and c.attacking[bl.attacker[q]]:
            at = q0 + n  # insertion by declared place, stable
            while at > q0 and bl.rank[bl.order[at - 1]] > bl.rank[q]:
                bl.order[at] = bl.order[at - 1]
                at -= 1
            bl.order[at] = q
            n += 1
    if n == 0:
        return e
    power = c.power[j]
    if n == 1:
        return flow(fl, e, j, bl.attacker[bl.order[q0]], power)
    first = e
    owed = 0
    for t in range(q0, q0 + n):
        x = bl.attacker[bl.order[t]]
        due = lethal(x, j, c, a)
        e = flow(fl, e, j, x, min(max(power - owed, 0), due))
        owed += due
    fl.amount[first] += max(power - owed, 0)
    return e


# -- glue: the generator writes the plugin set's in place of these -----------------------------


def assign_parts(
    row: int, c: Any, st: Any, bt: Any, bl: Any, a: Any, guards: Any, o: Any
) -> None:  # fmt: skip
    """The ``assign-damage`` parts for a creature assigning damage."""


def deal_parts(
    source: int, recipient: int, amount: int, c: Any, st: Any, guards: Any, o: Any
) -> int:  # fmt: skip
    """The ``deal-damage`` parts that prevent or replace: the amount dealt."""
    return amount


def react_parts(
    source: int, recipient: int, amount: int, c: Any, st: Any, guards: Any, o: Any
) -> None:  # fmt: skip
    """The ``deal-damage`` reactions to damage dealt."""


def replace_parts(
    source: int, recipient: int, amount: int, c: Any, st: Any, guards: Any, o: Any
) -> int:  # fmt: skip
    """The ``deal-damage`` replacements: the amount still marked (or lost as life)."""
    return amount


def cast_parts(part: int, row: int, caster: int, c: Any, st: Any, cb: Any, o: Any) -> None:
    """The ``cast`` part numbered `part`: a card's effect on its target `row`."""
