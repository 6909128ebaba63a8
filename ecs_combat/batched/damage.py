"""The combat damage steps over a whole batch (510, RULES.md sections 2-3): who deals
damage, the default and explicit divisions, the excess rule, and dealing it all at once
through the ``assign-damage`` and ``deal-damage`` systems."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ecs_combat.batched.arrays import (
    NO_RECIPIENT,
    BoolArray,
    IntArray,
    StepDivisions,
)
from ecs_combat.batched.numeric import (
    RowGroups,
    _concat,
    _Flow,
    _starts_mask,
    divide_in_order,
)
from ecs_combat.errors import InputError
from ecs_combat.plugin.schedule import (
    BatchDamageAssignment,
    BatchDamageEvent,
)

if TYPE_CHECKING:
    from ecs_combat.batched.engine import _Run


I64 = np.int64
U64 = np.uint64
SmallArray = npt.NDArray[np.int8]
AnyArray = npt.NDArray[Any]


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


def step_exists(run: _Run, s: int) -> BoolArray:
    """Battles in which some attacking or blocking creature strikes in step `s`."""
    if not run.m.strike[s]:
        return np.zeros(run.nb, np.bool_)
    return run._battles_with(run.in_combat & run._has(run.m.strike[s]))


def damage_step(run: _Run, s: int, happen: BoolArray) -> None:
    """One combat damage step in some battles: who deals damage, assignment, dealing,
    state-based actions (510, RULES.md section 2)."""
    plan = run.plans[s]
    # Creatures in combat are in battles with attackers; a striker's battle has the step.
    # So only battles whose game is over need leaving out.
    rows_mask = run._rows(~run.game_over) if run.game_over.any() else None
    combat = run.in_combat if rows_mask is None else run.in_combat & rows_mask
    striker = combat & run._has(run.m.strike[s])
    if plan.step.default:
        stays = combat & ~run.struck
        if run.m.withhold[s]:
            stays &= ~run._has(run.m.withhold[s])
        deals = (striker | stays) & _positive(
            run,
        )
    else:
        deals = striker & _positive(
            run,
        )  # a new array: `striker` stays as it is
    if run.log is not None and run.struck_steps is not None:
        rows = (combat & happen[run.battle]).nonzero()[0]
        run.log.strikes.append(
            (s, rows, deals[rows], run.cur[rows], run.struck_steps[rows], run.power[rows])
        )
        run.struck_steps[striker] |= U64(1 << s)
    run.struck |= striker
    assign_and_deal(run, s, deals)
    died = run.state_based_actions(happen)
    run.died[died] = True
    if run.log is not None:
        run.log.died.append((s, died))  # in row order, each once


def _positive(run: _Run) -> BoolArray:
    """Whether each creature's power is above 0 (cached until power changes)."""
    if run._power_positive is None:
        run._power_positive = run.power > 0
    return run._power_positive


def assign_and_deal(run: _Run, s: int, deals: BoolArray) -> None:
    """Each dealer assigns its damage (510.1) and all of it is dealt at once (510.2)."""
    plan = BatchDamageAssignment(
        run.plans[s].name, deals, np.zeros(run.n, np.bool_), np.zeros(run.n, np.bool_)
    )
    run.run_systems("assign-damage", plan)
    excess = plan.player_gets_excess if plan.player_gets_excess.any() else None
    destroys = plan.one_is_lethal if plan.one_is_lethal.any() else None
    run._excess_by = plan.excess_by
    if run.divisions is not None:
        _record_divisions(run, s, deals, plan)
    deals_a, deals_b = deals & run.att, deals & run.blocking
    unblocked = (deals_a & ~run.blocked).nonzero()[0]
    to_player = [_Flow(unblocked, -1 - run.attacking[unblocked], run.power[unblocked], 0)]
    to_creature: list[_Flow] = []
    if run.nblocks:
        bb, ba = run.bb, run.ba
        # attackers: the blocks, in declaration order, whose attacker deals and whose
        # blocker is still blocking
        rows = deals_a[ba].nonzero()[0]
        blk = bb[rows]
        still = run.blocking[blk].nonzero()[0]
        rows, blk = rows[still], blk[still]
        blockers, players = _attackers_divide(run, rows, blk, ba[rows], destroys, excess)
        to_creature.append(blockers)
        to_player.append(players)
        if excess is not None:  # no blocker left: all of it to the player (702.19e)
            alone = (deals_a & run.blocked & excess).nonzero()[0]
            run._mark[blockers.source] = True
            alone = alone[(~run._mark[alone]).nonzero()[0]]
            run._mark[blockers.source] = False
            to_player.append(_Flow(alone, -1 - run.attacking[alone], run.power[alone], 1 << 40))
        # blockers: the blocks whose blocker deals and whose attacker is still attacking
        order = run.q if run.multi_block else None
        rows = deals_b[bb if order is None else bb[order]].nonzero()[0]
        if order is not None:
            rows = order[rows]
        att = ba[rows]
        still = run.att[att].nonzero()[0]
        rows, att = rows[still], att[still]
        to_creature.append(_blockers_divide(run, rows, bb[rows], att, destroys))
    explicit = _explicit(run, s, deals_a, deals_b, excess)
    if explicit is not None:  # sources dividing as the scenario says drop the default
        to_player = [f.without(explicit.sources) for f in to_player]
        to_creature = [f.without(explicit.sources) for f in to_creature]
        e = explicit
        c = e.recipient >= 0
        to_creature.append(_Flow(e.source[c], e.recipient[c], e.amount[c], e.row[c]))
        to_player.append(_Flow(e.source[~c], e.recipient[~c], e.amount[~c], e.row[~c]))

    if explicit is not None:
        hot = np.zeros(0, I64)
        if destroys is not None:
            hot = _concat(
                [
                    f.recipient[(destroys[f.source] & (f.amount > 0)).nonzero()[0]]
                    for f in to_creature
                ]
            )
        incoming = np.zeros(run.n, I64)
        for f in to_creature:
            np.add.at(incoming, f.recipient, f.amount)
        _check_excess(run, s, explicit, incoming, hot, destroys, excess)
    deal(run, s, [*to_creature, *to_player])


def _record_divisions(run: _Run, s: int, deals: BoolArray, plan: BatchDamageAssignment) -> None:
    """What each dealer of step `s` could divide (decision search)."""
    assert run.divisions is not None
    remaining = run.toughness - run.marked
    np.maximum(remaining, 0, out=remaining)
    if run.nblocks:
        live = (run.blocking[run.bb] & run.att[run.ba]).nonzero()[0]
        bb, ba, rank = run.bb[live], run.ba[live], run.rank[live]
    else:
        bb = ba = rank = np.zeros(0, I64)
    # the step's own arrays, which nothing changes after its damage is assigned; power may
    # change in place later (a pump after the first-strike step)
    run.divisions.append(
        StepDivisions(
            s,
            deals,
            run.power.copy(),
            remaining,
            plan.one_is_lethal,
            plan.player_gets_excess,
            bb,
            ba,
            rank,
        )
    )


def deal(run: _Run, s: int, flows: list[_Flow]) -> None:
    """Deal a step's damage at once, through the ``deal-damage`` systems (510.2): marked
    on creatures, lost by players, with life gained at the same time."""
    event = BatchDamageEvent(
        run.plans[s].name,
        _concat([f.source for f in flows]),
        _concat([f.recipient for f in flows]),
        _concat([f.amount for f in flows]),
        np.ones(0, np.bool_),
        np.ones(0, np.bool_),
    )
    event.marked = np.ones(len(event.amount), np.bool_)
    event.loses_life = event.marked.copy()
    run.run_systems("deal-damage", event)
    amount, recipient = event.amount, event.recipient
    some = amount > 0
    creature = recipient >= 0
    marks = (creature & event.marked & some).nonzero()[0]
    np.add.at(run.marked, recipient[marks], amount[marks])
    player = (~creature & some).nonzero()[0]
    np.add.at(run.to_players, run.battle[event.source[player]], amount[player])
    np.add.at(run.dealt_to_players, event.source[player], amount[player])
    loses = player[event.loses_life[player]]
    np.add.at(run.life, -1 - recipient[loses], -amount[loses])
    for players, sources, gained in event.gains:
        np.add.at(run.life, players, gained)
        np.add.at(run.life_gained, sources, gained)
        if run.log is not None:
            run.log.gains.append((s, players, sources, gained))
    if run.log is not None:
        places = _concat([f.places() for f in flows])
        run.log.damage.append((s, event.source[some], recipient[some], amount[some], places[some]))


def _attackers_divide(
    run: _Run,
    rows: IntArray,
    bb: IntArray,
    ba: IntArray,
    destroys: BoolArray | None,
    excess: BoolArray | None,
) -> tuple[_Flow, _Flow]:
    """Blocked attackers' default division over their blockers (RULES.md section 3).

    `rows` are the block rows that receive damage, grouped by attacker in declaration
    order, `bb` and `ba` their blockers and attackers. Returns the damage to the blockers,
    and the excess that goes to the players (702.19b-d).
    """
    power = run.power[ba]
    groups = None if run.one_blocker_each else RowGroups.of(ba)
    if groups is None or groups.size == len(rows):  # one blocker each: all of it, or
        # lethal and the rest
        if excess is None:
            return _Flow(ba, bb, power, rows), _Flow.empty()
        amount = power.copy()
        sends = excess[ba].nonzero()[0]
        lethal = _lethal(run, bb[sends], destroys, ba[sends])
        amount[sends] = np.minimum(power[sends], lethal)
        leftover = power[sends] - amount[sends]
        owner = ba[sends]
    else:
        lethal = _lethal(run, bb, destroys, ba)
        amount, leftover = divide_in_order(power, lethal, groups)
        ex = np.zeros(groups.size, np.bool_) if excess is None else excess[groups.owner]
        amount[groups.start] += np.where(ex, 0, leftover)  # to the first blocker left
        leftover = np.where(ex, leftover, 0)
        owner = groups.owner
    sends = leftover.nonzero()[0]
    to_players = _Flow(owner[sends], -1 - run.attacking[owner[sends]], leftover[sends], 1 << 40)
    return _Flow(ba, bb, amount, rows), to_players


def _lethal(run: _Run, rows: IntArray, destroys: BoolArray | None, sources: IntArray) -> IntArray:
    """Damage lethal to some creatures from some sources (702.19b; 1 from a destroying
    source, 702.2c), never below 0."""
    lethal: IntArray = run.toughness[rows]
    lethal -= run.marked[rows]
    np.maximum(lethal, 0, out=lethal)
    if destroys is not None:
        np.minimum(lethal, 1, out=lethal, where=destroys[sources])
    return lethal


def _blockers_divide(
    run: _Run, rows: IntArray, bb: IntArray, ba: IntArray, destroys: BoolArray | None
) -> _Flow:
    """Blockers' default division over the attackers they block, in the order they
    declared them (510.1d; a blocker sends no excess to a player, 702.19a). `rows` are the
    block rows that receive damage, grouped by blocker in that order, `bb` and `ba` their
    blockers and attackers."""
    amount = run.power[bb]
    if run.multi_block:
        groups = RowGroups.of(bb)
        if groups.size < len(rows):
            lethal = _lethal(run, ba, destroys, bb)
            amount, leftover = divide_in_order(amount, lethal, groups)
            amount[groups.start] += leftover  # to the first attacker left
    return _Flow(bb, ba, amount, rows if run.log is None else run.rank[rows])


# -- explicit divisions ---------------------------------------------------------------------


def _explicit(
    run: _Run, s: int, deals_a: BoolArray, deals_b: BoolArray, excess: BoolArray | None
) -> _Explicit | None:
    """The scenario's divisions for step `s` whose source assigns damage, checked (510.1);
    None if no division is used in this step."""
    if not run.div_rows:
        return None
    rows, starts = run.div_rows[s], run.div_start[s]
    if rows.size == 0:
        return None
    b = run.batch
    src = b.division_source[rows]
    g_src = src[starts]
    used = _assigns(run, g_src, deals_a, deals_b, excess)
    if not used.any():
        return None
    rec = b.division_recipient[rows]
    amt = b.division_amount[rows]
    row_group = _starts_mask(len(rows), starts).cumsum() - 1
    active = used[row_group]
    valid = _options_contain(run, src, rec, excess)
    bad_row = active & ~valid
    totals = np.add.reduceat(amt, starts)
    bad = used & ((np.add.reduceat(bad_row.astype(I64), starts) > 0) | (totals != run.power[g_src]))
    if bad.any():
        _division_error(run, s, rows, starts, g_src, bad, valid, totals, excess)
    sources = np.zeros(run.n, np.bool_)
    sources[g_src[used]] = True
    keep = active & (amt > 0) & (rec != NO_RECIPIENT)
    return _Explicit(src[keep], rec[keep], amt[keep], rows[keep], sources)


def _assigns(
    run: _Run, sources: IntArray, deals_a: BoolArray, deals_b: BoolArray, excess: BoolArray | None
) -> BoolArray:
    """Whether each of some dealers assigns damage at all: an unblocked attacker does; a
    blocked one if a blocker remains or it has a keyword sending excess to the player
    (510.1c, 702.19e); a blocker if an attacker it blocks remains."""
    out: BoolArray = deals_a[sources] & ~run.blocked[sources]
    if run.nblocks:
        in_effect = run.blocking[run.bb] & run.att[run.ba]
        has_blocker = np.zeros(run.n, np.bool_)
        has_blocker[run.ba[in_effect]] = True
        if excess is not None:
            has_blocker |= excess
        has_attacker = np.zeros(run.n, np.bool_)
        has_attacker[run.bb[in_effect]] = True
        out |= deals_a[sources] & run.blocked[sources] & has_blocker[sources]
        out |= deals_b[sources] & has_attacker[sources]
    return out


def _options_contain(
    run: _Run, src: IntArray, rec: IntArray, excess: BoolArray | None
) -> BoolArray:
    """Whether each recipient is one the source may assign damage to now (510.1)."""
    attacking = run.att[src]
    player = (rec < 0) & (rec != NO_RECIPIENT)
    ex = excess[src] if excess is not None else np.zeros(len(src), np.bool_)
    ok_player = player & attacking & (~run.blocked[src] | ex) & (-1 - rec == run.attacking[src])
    creature = rec >= 0
    c = np.where(creature, rec, 0)
    blocker = np.where(attacking, c, src)
    attacker = np.where(attacking, src, c)
    key = blocker * max(run.n, 1) + attacker
    declared = np.zeros(len(src), np.bool_)
    if len(run.pair_keys):
        pos = np.minimum(run.pair_keys.searchsorted(key), len(run.pair_keys) - 1)
        declared = run.pair_keys[pos] == key
    in_effect = run.blocking[blocker] & run.att[attacker]
    out: BoolArray = (rec == NO_RECIPIENT) | ok_player | (creature & declared & in_effect)
    return out


def _options(run: _Run, source: int, excess: BoolArray | None) -> list[str]:
    """Whom a dealer may assign damage to now, in the reference engine's order."""
    if run.att[source]:
        defender = run.pid(int(run.attacking[source]))
        if not run.blocked[source]:
            return [defender]
        rows = ((run.ba == source) & run.blocking[run.bb]).nonzero()[0]
        out = [run.cid(int(r)) for r in run.bb[rows]]
        if excess is not None and excess[source]:
            out.append(defender)
        return out
    rows = ((run.bb == source) & run.att[run.ba]).nonzero()[0]
    rows = rows[np.argsort(run.rank[rows], kind="stable")]
    return [run.cid(int(r)) for r in run.ba[rows]]


def _where(run: _Run, battle: int, row: int) -> tuple[str | None, str]:
    """File and key path of a division row."""
    b = run.batch
    file = b.battle_files[battle] if b.battle_files is not None else f"battle {battle}"
    index = int(b.division_index[row]) if b.division_index is not None else row
    return file, f"{run.combat_path}.divide[{index}]"


def _division_error(
    run: _Run,
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
    battles = run.battle[g_src[groups]]
    battle = int(battles.min())
    if run.error is not None and battle >= run.error[0]:
        return
    mine = groups[battles == battle]
    g = int(mine[np.argmin(g_src[mine])])
    start = int(starts[g])
    end = int(starts[g + 1]) if g + 1 < len(starts) else len(rows)
    source = int(g_src[g])
    step = run.plans[s].name
    for i in range(start, end):
        if not valid[i]:
            row = int(rows[i])
            file, path = _where(run, battle, row)
            rid = run.recipient_id(int(run.batch.division_recipient[row]))
            options = ", ".join(_options(run, source, excess)) or "nobody"
            message = (
                f"{run.cid(source)} can't assign damage to {rid!r} in the {step} step "
                f"(it can to: {options})"
            )
            run.fail(battle, InputError(file, f"{path}.amounts.{rid}", message))
            return
    file, path = _where(run, battle, int(rows[start]))
    power = int(run.power[source])
    message = (
        f"amounts total {int(totals[g])}, but {run.cid(source)} has power {power} in the "
        f"{step} step (510.1)"
    )
    run.fail(battle, InputError(file, f"{path}.amounts", message))


def _check_excess(
    run: _Run,
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
    if excess is None or not run.nblocks:
        return
    checked = np.zeros(run.n, np.bool_)
    checked[explicit.source[explicit.recipient < 0]] = True
    checked &= run.blocked & excess & run.att
    if not checked.any():
        return
    bb, ba = run.bb, run.ba
    rows = (checked[ba] & run.blocking[bb]).nonzero()[0]
    lethal = _lethal(run, bb[rows], destroys, ba[rows])
    run._mark[hot] = True
    short = (incoming[bb[rows]] < lethal) & ~run._mark[bb[rows]]
    run._mark[hot] = False
    if not short.any():
        return
    rows = rows[short]
    battles = run.battle[ba[rows]]
    battle = int(battles.min())
    if run.error is not None and battle >= run.error[0]:
        return
    rows = rows[battles == battle]
    row = int(rows[np.argmin(ba[rows] * max(run.nblocks, 1) + rows)])
    source, blocker = int(ba[row]), int(bb[row])
    div_rows = run.div_rows[s]
    first = div_rows[run.batch.division_source[div_rows] == source][0]
    file, path = _where(run, battle, int(first))
    keyword = min(k for k, rows in run._excess_by if rows[source])
    rule = run.reg.keywords[keyword].rule
    player = run.pid(int(run.attacking[source]))
    message = (
        f"{run.cid(source)} assigns damage to {player} before assigning lethal damage to "
        f"{run.cid(blocker)}, counting damage already marked and damage other creatures "
        f"assign it in this step ({keyword}, {rule})"
    )
    run.fail(battle, InputError(file, f"{path}.amounts", message))


# -- state-based actions and leaving --------------------------------------------------------
