"""The divisions a scenario gives (``combat.divide``), checked as a step's damage is assigned
(510.1, the excess rule of 702.19b), and the divisions it must give (a split any way,
702.22j-k); lethal damage as the default division reads it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ecs_combat.batched.arrays import NO_RECIPIENT, BoolArray, IntArray
from ecs_combat.batched.numeric import mask_of, some, starts_mask
from ecs_combat.batched.state import CombatRows, CreatureRows, Errors, Frame
from ecs_combat.errors import InputError
from ecs_combat.plugin.payloads import BatchDamageAssignment

I64 = np.int64


@dataclass(frozen=True)
class _Explicit:
    """The explicit divisions used in a step: their amounts above 0, one row each."""

    source: IntArray
    #: Creature row, or ``-1 - player_row``.
    recipient: IntArray
    amount: IntArray
    #: The division row (its place among the source's recipients).
    row: IntArray
    #: Row mask of the sources dividing explicitly (their default division is dropped).
    sources: BoolArray


def check_split(
    frame: Frame,
    creatures: CreatureRows,
    combat: CombatRows,
    errors: Errors,
    s: int,
    split: BoolArray,
    plan: BatchDamageAssignment,
) -> None:
    """A source whose damage a player may split any way (702.22j-k) among two or more
    creatures needs the scenario's division (``combat.divide``): else an input error
    naming it, in the first battle where one is missing."""
    n = frame.n
    count = np.bincount(plan.attackers, minlength=n) + np.bincount(plan.blockers, minlength=n)
    need = split & (count >= 2) & (creatures.power > 0)
    if combat.div_rows and combat.div_rows[s].size:
        need[combat.batch.division_source[combat.div_rows[s]]] = False
    if not need.any():
        return
    rows = need.nonzero()[0]
    battles = creatures.battle[rows]
    battle = int(battles.min())
    if errors.known_before(battle):
        return
    source = int(rows[battles == battle][0])
    divider = int(plan.divided_by[source])
    who = frame.pid(divider if divider >= 0 else int(creatures.controller[source]))
    keyword = min(k for k, rows in plan.split_by if rows[source])
    rule = frame.schedule.registry.keywords[keyword].rule
    file = frame.file_of(battle)
    where = f"{combat.path}.divide"
    options = ", ".join(_options(frame, combat, source, None))
    step = frame.schedule.plans[s].name
    message = (
        f"{who} divides {frame.cid(source)}'s damage among {options} in the {step} step "
        f"({keyword}, {rule}): give the division in {where}"
    )
    errors.fail(battle, InputError(file, where, message))


def lethal_to(
    creatures: CreatureRows, rows: IntArray, destroys: BoolArray | None, sources: IntArray
) -> IntArray:
    """Damage lethal to some creatures from some sources (702.19b; 1 from a destroying
    source, 702.2c), never below 0."""
    lethal: IntArray = creatures.toughness[rows]
    lethal -= creatures.marked[rows]
    np.maximum(lethal, 0, out=lethal)
    if destroys is not None:
        np.minimum(lethal, 1, out=lethal, where=destroys[sources])
    return lethal


def given(
    frame: Frame,
    creatures: CreatureRows,
    combat: CombatRows,
    errors: Errors,
    s: int,
    deals_a: BoolArray,
    deals_b: BoolArray,
    excess: BoolArray | None,
) -> _Explicit | None:
    """The scenario's divisions for step `s` whose source assigns damage, checked (510.1);
    None if no division is used in this step."""
    if not combat.div_rows:
        return None
    rows, starts = combat.div_rows[s], combat.div_start[s]
    if rows.size == 0:
        return None
    b = combat.batch
    src = b.division_source[rows]
    g_src = src[starts]
    used = _assigns(combat, g_src, deals_a, deals_b, excess)
    if not some(used):
        return None
    rec = b.division_recipient[rows]
    amt = b.division_amount[rows]
    row_group = starts_mask(len(rows), starts).cumsum() - 1
    active = used[row_group]
    valid = _options_contain(combat, src, rec, excess)
    bad_row = active & ~valid
    totals = np.add.reduceat(amt, starts)
    bad = used & (
        (np.add.reduceat(bad_row.astype(I64), starts) > 0) | (totals != creatures.power[g_src])
    )
    if some(bad):
        _division_error(
            frame, creatures, combat, errors, s, rows, starts, g_src, bad, valid, totals, excess
        )
    sources = np.zeros(frame.n, np.bool_)
    sources[g_src[used]] = True
    keep = active & (amt > 0) & (rec != NO_RECIPIENT)
    return _Explicit(src[keep], rec[keep], amt[keep], rows[keep], sources)


def _assigns(
    combat: CombatRows,
    sources: IntArray,
    deals_a: BoolArray,
    deals_b: BoolArray,
    excess: BoolArray | None,
) -> BoolArray:
    """Whether each of some dealers assigns damage at all: an unblocked attacker does; a
    blocked one if a blocker remains or it has a keyword sending excess to the player
    (510.1c, 702.19e); a blocker if an attacker it blocks remains."""
    out: BoolArray = deals_a[sources] & ~combat.blocked[sources]
    if combat.nblocks:
        in_effect = combat.blocking[combat.bb] & combat.att[combat.ba]
        has_blocker = np.zeros(len(combat.att), np.bool_)
        has_blocker[combat.ba[in_effect]] = True
        if excess is not None:
            has_blocker |= excess
        has_attacker = np.zeros(len(combat.att), np.bool_)
        has_attacker[combat.bb[in_effect]] = True
        out |= deals_a[sources] & combat.blocked[sources] & has_blocker[sources]
        out |= deals_b[sources] & has_attacker[sources]
    return out


def _options_contain(
    combat: CombatRows, src: IntArray, rec: IntArray, excess: BoolArray | None
) -> BoolArray:
    """Whether each recipient is one the source may assign damage to now (510.1)."""
    attacking = combat.att[src]
    player = (rec < 0) & (rec != NO_RECIPIENT)
    ex = excess[src] if excess is not None else np.zeros(len(src), np.bool_)
    ok_player = (
        player & attacking & (~combat.blocked[src] | ex) & (-1 - rec == combat.attacking[src])
    )
    creature = rec >= 0
    c = np.where(creature, rec, 0)
    blocker = np.where(attacking, c, src)
    attacker = np.where(attacking, src, c)
    key = blocker * max(len(combat.att), 1) + attacker
    declared = np.zeros(len(src), np.bool_)
    if len(combat.pair_keys):
        pos = np.minimum(combat.pair_keys.searchsorted(key), len(combat.pair_keys) - 1)
        declared = combat.pair_keys[pos] == key
    in_effect = combat.blocking[blocker] & combat.att[attacker]
    out: BoolArray = (rec == NO_RECIPIENT) | ok_player | (creature & declared & in_effect)
    return out


def _options(frame: Frame, combat: CombatRows, source: int, excess: BoolArray | None) -> list[str]:
    """Whom a dealer may assign damage to now, in the reference engine's order."""
    if combat.att[source]:
        defender = frame.pid(int(combat.attacking[source]))
        if not combat.blocked[source]:
            return [defender]
        rows = ((combat.ba == source) & combat.blocking[combat.bb]).nonzero()[0]
        out = [frame.cid(int(r)) for r in combat.bb[rows]]
        if excess is not None and excess[source]:
            out.append(defender)
        return out
    rows = ((combat.bb == source) & combat.att[combat.ba]).nonzero()[0]
    rows = rows[np.argsort(combat.rank[rows], kind="stable")]
    return [frame.cid(int(r)) for r in combat.ba[rows]]


def _where(frame: Frame, combat: CombatRows, battle: int, row: int) -> tuple[str | None, str]:
    """File and key path of a division row."""
    file = frame.file_of(battle)
    b = combat.batch
    index = int(b.division_index[row]) if b.division_index is not None else row
    return file, f"{combat.path}.divide[{index}]"


def _division_error(
    frame: Frame,
    creatures: CreatureRows,
    combat: CombatRows,
    errors: Errors,
    s: int,
    rows: IntArray,
    starts: IntArray,
    g_src: IntArray,
    bad: BoolArray,
    valid: BoolArray,
    totals: IntArray,
    excess: BoolArray | None,
) -> None:
    """The error of the first bad division (first battle, then first dealer)."""
    groups = bad.nonzero()[0]
    battles = creatures.battle[g_src[groups]]
    battle = int(battles.min())
    if errors.known_before(battle):
        return
    mine = groups[battles == battle]
    g = int(mine[np.argmin(g_src[mine])])
    start = int(starts[g])
    end = int(starts[g + 1]) if g + 1 < len(starts) else len(rows)
    source = int(g_src[g])
    step = frame.schedule.plans[s].name
    for i in range(start, end):
        if not valid[i]:
            row = int(rows[i])
            file, path = _where(frame, combat, battle, row)
            rid = frame.recipient_id(int(combat.batch.division_recipient[row]))
            options = ", ".join(_options(frame, combat, source, excess)) or "nobody"
            message = (
                f"{frame.cid(source)} can't assign damage to {rid!r} in the {step} step "
                f"(it can to: {options})"
            )
            errors.fail(battle, InputError(file, f"{path}.amounts.{rid}", message))
            return
    file, path = _where(frame, combat, battle, int(rows[start]))
    power = int(creatures.power[source])
    message = (
        f"amounts total {int(totals[g])}, but {frame.cid(source)} has power {power} in the "
        f"{step} step (510.1)"
    )
    errors.fail(battle, InputError(file, f"{path}.amounts", message))


def check_excess(
    frame: Frame,
    creatures: CreatureRows,
    combat: CombatRows,
    errors: Errors,
    s: int,
    explicit: _Explicit,
    incoming: IntArray,
    hot: IntArray,
    destroys: BoolArray | None,
    excess: BoolArray | None,
) -> None:
    """The excess rule for explicit divisions (702.19b): damage may go to the player only
    if each blocker is assigned lethal damage, counting damage already marked and what the
    other creatures assign it in this step; any from a destroying source is lethal."""
    if excess is None or not combat.nblocks:
        return
    checked = np.zeros(frame.n, np.bool_)
    checked[explicit.source[explicit.recipient < 0]] = True
    checked &= combat.blocked & excess & combat.att
    if not checked.any():
        return
    bb, ba = combat.bb, combat.ba
    rows = (checked[ba] & combat.blocking[bb]).nonzero()[0]
    lethal = lethal_to(creatures, bb[rows], destroys, ba[rows])
    short = (incoming[bb[rows]] < lethal) & ~mask_of(frame.n, hot)[bb[rows]]
    if not short.any():
        return
    rows = rows[short]
    battles = creatures.battle[ba[rows]]
    battle = int(battles.min())
    if errors.known_before(battle):
        return
    rows = rows[battles == battle]
    row = int(rows[np.argmin(ba[rows] * max(combat.nblocks, 1) + rows)])
    source, blocker = int(ba[row]), int(bb[row])
    div_rows = combat.div_rows[s]
    first = div_rows[combat.batch.division_source[div_rows] == source][0]
    file, path = _where(frame, combat, battle, int(first))
    keyword = min(k for k, rows in combat.excess_by if rows[source])
    rule = frame.schedule.registry.keywords[keyword].rule
    player = frame.pid(int(combat.attacking[source]))
    message = (
        f"{frame.cid(source)} assigns damage to {player} before assigning lethal damage to "
        f"{frame.cid(blocker)}, counting damage already marked and damage other creatures "
        f"assign it in this step ({keyword}, {rule})"
    )
    errors.fail(battle, InputError(file, f"{path}.amounts", message))
