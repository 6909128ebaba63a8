"""The combat damage steps over a whole batch (510, RULES.md sections 2-3): who deals
damage, the default and explicit divisions, the excess rule, and dealing it all at once
through the ``assign-damage`` and ``deal-damage`` systems."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.batched.actions import run_systems, state_based_actions
from ecs_combat.batched.arrays import (
    NO_RECIPIENT,
    BoolArray,
    IntArray,
    StepDivisions,
)
from ecs_combat.batched.context import read_only
from ecs_combat.batched.dealers import dealers
from ecs_combat.batched.keywords import flags
from ecs_combat.batched.numeric import (
    Flow,
    RowGroups,
    battles_with,
    concat,
    divide_in_order,
    mask_of,
    rows_of_battles,
    some,
    starts_mask,
)
from ecs_combat.batched.state import Run
from ecs_combat.errors import InputError
from ecs_combat.plugin.payloads import BatchDamageAssignment, BatchDamageEvent

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


def step_exists(run: Run, s: int) -> BoolArray:
    """Battles in which some attacking or blocking creature strikes in step `s`."""
    strike = run.schedule.masks.strike[s]
    if not strike:
        return np.zeros(run.nb, np.bool_)
    strikers = run.combat.in_combat & flags(run, strike)
    return battles_with(strikers, run.creatures.battle, run.nb, run.per_battle)


def damage_step(run: Run, s: int, happen: BoolArray) -> None:
    """One combat damage step in some battles: who deals damage, assignment, dealing,
    state-based actions (510, RULES.md section 2)."""
    schedule, c, combat, log = run.schedule, run.creatures, run.combat, run.log
    plan = schedule.plans[s]
    masks = schedule.masks
    # Creatures in combat are in battles with attackers; a striker's battle has the step.
    # So only battles whose game is over need leaving out.
    game_over = run.players.game_over
    rows_mask = rows_of_battles(~game_over, c.battle, run.per_battle) if some(game_over) else None
    in_combat = combat.in_combat if rows_mask is None else combat.in_combat & rows_mask
    striker = in_combat & flags(run, masks.strike[s])
    if plan.step.default:
        stays = in_combat & ~combat.struck
        if masks.withhold[s]:
            stays &= ~flags(run, masks.withhold[s])
        deals = (striker | stays) & _positive(run)
    else:
        deals = striker & _positive(run)  # a new array: `striker` stays as it is
    if log is not None and combat.struck_steps is not None:
        rows = (in_combat & happen[c.battle]).nonzero()[0]
        log.strikes.append(
            (s, rows, deals[rows], run.keywords.cur[rows], combat.struck_steps[rows], c.power[rows])
        )
        combat.struck_steps[striker] |= U64(1 << s)
    combat.struck |= striker
    assign_and_deal(run, s, deals)
    died = state_based_actions(run, happen)
    c.died[died] = True
    if log is not None:
        log.died.append((s, died))  # in row order, each death


def _positive(run: Run) -> BoolArray:
    """Whether each creature's power is above 0 (cached until power changes)."""
    c = run.creatures
    if c.power_positive is None:
        c.power_positive = c.power > 0
    return c.power_positive


def assign_and_deal(run: Run, s: int, deals: BoolArray) -> None:
    """Each dealer assigns its damage (510.1) and all of it is dealt at once (510.2)."""
    n, combat, power = run.n, run.combat, run.creatures.power
    plan = BatchDamageAssignment(
        run.schedule.plans[s].name, deals, np.zeros(n, np.bool_), np.zeros(n, np.bool_)
    )
    plan.fights = lambda: _fights(run, deals)
    run_systems(run, "assign-damage", plan)
    split = None
    if len(plan.any_split) and some(plan.any_split & deals):
        split = plan.any_split & deals
        np.logical_and(plan.player_gets_excess, ~split, out=plan.player_gets_excess)
        if run.divisions is None:  # the search chooses these divisions itself
            _check_split(run, s, split, plan)
    excess = plan.player_gets_excess if some(plan.player_gets_excess) else None
    destroys = plan.one_is_lethal if some(plan.one_is_lethal) else None
    combat.excess_by = plan.excess_by
    if run.divisions is not None and (
        excess is not None or not combat.one_blocker_each or combat.multi_block
    ):  # else nobody has a division to choose: one blocker each, no excess to send on
        _record_divisions(run, s, deals, plan)
    attacking = combat.attacking
    dense = bool(combat.div_rows)  # explicit divisions read the dealers' masks
    who = dealers(combat, deals, n, dense)
    unblocked = who.unblocked
    to_player = [Flow(unblocked, -1 - attacking[unblocked], power[unblocked], 0)]
    to_creature: list[Flow] = []
    if combat.nblocks:
        bb, ba = combat.bb, combat.ba
        # attackers: the blocks, in declaration order, whose attacker deals and whose
        # blocker is still blocking
        rows = who.attacker_blocks
        every = len(rows) == combat.nblocks  # then rows are every block's, in order
        blk, atk = (bb, ba) if every else (bb[rows], ba[rows])
        blockers, players = _attackers_divide(run, rows, blk, atk, destroys, excess)
        to_creature.append(blockers)
        to_player.append(players)
        if excess is not None:  # no blocker left: all of it to the player (702.19e)
            alone = who.blocked_with(combat.blocked, excess)
            alone = alone[(~mask_of(n, blockers.source)[alone]).nonzero()[0]]
            to_player.append(Flow(alone, -1 - attacking[alone], power[alone], 1 << 40))
        # blockers: the blocks whose blocker deals and whose attacker is still attacking
        rows = who.blocker_blocks
        every = len(rows) == combat.nblocks and not combat.multi_block
        blk, atk = (bb, ba) if every else (bb[rows], ba[rows])
        to_creature.append(_blockers_divide(run, rows, blk, atk, destroys))
    explicit = (
        _explicit(run, s, deals & combat.att, deals & combat.blocking, excess) if dense else None
    )
    if explicit is not None:  # sources dividing as the scenario says drop the default
        to_player = [f.without(explicit.sources) for f in to_player]
        to_creature = [f.without(explicit.sources) for f in to_creature]
        e = explicit
        c = e.recipient >= 0
        to_creature.append(Flow(e.source[c], e.recipient[c], e.amount[c], e.row[c]))
        to_player.append(Flow(e.source[~c], e.recipient[~c], e.amount[~c], e.row[~c]))
        hot = np.zeros(0, I64)
        if destroys is not None:
            hot = concat(
                [
                    f.recipient[(destroys[f.source] & (f.amount > 0)).nonzero()[0]]
                    for f in to_creature
                ]
            )
        incoming = np.zeros(n, I64)
        for f in to_creature:
            np.add.at(incoming, f.recipient, f.amount)
        _check_excess(run, s, explicit, incoming, hot, destroys, excess)
    deal(run, s, [*to_creature, *to_player])


def _fights(run: Run, deals: BoolArray) -> tuple[IntArray, IntArray, IntArray]:
    """What the ``assign-damage`` payload's `amount`, `blockers` and `attackers` are: each
    row's damage to assign, and the blocks in effect (blocker and attacker rows)."""
    combat = run.combat
    amount = read_only(np.where(deals, run.creatures.power, 0))
    if not combat.nblocks:
        empty = read_only(np.zeros(0, I64))
        return amount, empty, empty
    live = (combat.blocking[combat.bb] & combat.att[combat.ba]).nonzero()[0]
    return amount, read_only(combat.bb[live]), read_only(combat.ba[live])


def _record_divisions(run: Run, s: int, deals: BoolArray, plan: BatchDamageAssignment) -> None:
    """What each dealer of step `s` could divide (decision search)."""
    assert run.divisions is not None
    remaining = run.creatures.toughness - run.creatures.marked
    np.maximum(remaining, 0, out=remaining)
    if run.combat.nblocks:
        live = (run.combat.blocking[run.combat.bb] & run.combat.att[run.combat.ba]).nonzero()[0]
        bb, ba, rank = run.combat.bb[live], run.combat.ba[live], run.combat.rank[live]
    else:
        bb = ba = rank = np.zeros(0, I64)
    # the step's own arrays, which nothing changes after its damage is assigned; power may
    # change in place later (a pump after the first-strike step)
    split = by_attacking = None
    if len(plan.any_split):
        split = plan.any_split & deals
        c = run.creatures
        divider = np.where(plan.divided_by >= 0, plan.divided_by, c.controller)
        by_attacking = divider == run.players.active_of(c.battle)
    run.divisions.append(
        StepDivisions(
            s,
            deals,
            run.creatures.power.copy(),
            remaining,
            plan.one_is_lethal,
            plan.player_gets_excess,
            bb,
            ba,
            rank,
            split,
            by_attacking,
        )
    )


def _check_split(run: Run, s: int, split: BoolArray, plan: BatchDamageAssignment) -> None:
    """A source whose damage a player may split any way (702.22j-k) among two or more
    creatures needs the scenario's division (``combat.divide``): else an input error
    naming it, in the first battle where one is missing."""
    combat, n = run.combat, run.n
    count = np.bincount(plan.attackers, minlength=n) + np.bincount(plan.blockers, minlength=n)
    need = split & (count >= 2) & (run.creatures.power > 0)
    if combat.div_rows and combat.div_rows[s].size:
        need[run.batch.division_source[combat.div_rows[s]]] = False
    if not need.any():
        return
    rows = need.nonzero()[0]
    battles = run.creatures.battle[rows]
    battle = int(battles.min())
    if run.error is not None and battle >= run.error[0]:
        return
    source = int(rows[battles == battle][0])
    divider = int(plan.divided_by[source])
    who = run.pid(divider if divider >= 0 else int(run.creatures.controller[source]))
    keyword = min(k for k, rows in plan.split_by if rows[source])
    rule = run.schedule.registry.keywords[keyword].rule
    b = run.batch
    file = b.battle_files[battle] if b.battle_files is not None else f"battle {battle}"
    where = f"{combat.path}.divide"
    options = ", ".join(_options(run, source, None))
    step = run.schedule.plans[s].name
    message = (
        f"{who} divides {run.cid(source)}'s damage among {options} in the {step} step "
        f"({keyword}, {rule}): give the division in {where}"
    )
    run.fail(battle, InputError(file, where, message))


def deal(run: Run, s: int, flows: list[Flow]) -> None:
    """Deal a step's damage at once, through the ``deal-damage`` systems (510.2): marked
    on creatures, lost by players, with life gained at the same time."""
    event = BatchDamageEvent(
        run.schedule.plans[s].name,
        concat([f.source for f in flows]),
        concat([f.recipient for f in flows]),
        concat([f.amount for f in flows]),
        np.ones(0, np.bool_),
        np.ones(0, np.bool_),
    )
    event.marked = np.ones(len(event.amount), np.bool_)
    event.loses_life = event.marked.copy()
    run_systems(run, "deal-damage", event)
    amount, recipient = event.amount, event.recipient
    some = amount > 0
    creature = recipient >= 0
    marks = (creature & event.marked & some).nonzero()[0]
    np.add.at(run.creatures.marked, recipient[marks], amount[marks])
    player = (~creature & some).nonzero()[0]
    np.add.at(run.players.to_players, run.creatures.battle[event.source[player]], amount[player])
    np.add.at(run.creatures.dealt_to_players, event.source[player], amount[player])
    loses = player[event.loses_life[player]]
    np.add.at(run.players.life, -1 - recipient[loses], -amount[loses])
    for players, sources, gained in event.gains:
        np.add.at(run.players.life, players, gained)
        np.add.at(run.creatures.life_gained, sources, gained)
        if run.log is not None:
            run.log.gains.append((s, players, sources, gained))
    if run.log is not None:
        places = concat([f.places() for f in flows])
        run.log.damage.append((s, event.source[some], recipient[some], amount[some], places[some]))


def _attackers_divide(
    run: Run,
    rows: IntArray,
    bb: IntArray,
    ba: IntArray,
    destroys: BoolArray | None,
    excess: BoolArray | None,
) -> tuple[Flow, Flow]:
    """Blocked attackers' default division over their blockers (RULES.md section 3).

    `rows` are the block rows that receive damage, grouped by attacker in declaration
    order, `bb` and `ba` their blockers and attackers. Returns the damage to the blockers,
    and the excess that goes to the players (702.19b-d).
    """
    c = run.combat  # every block's attackers: without a gather when evenly spaced
    power = c.of_attackers(run.creatures.power) if ba is c.ba else run.creatures.power[ba]
    groups = None if run.combat.one_blocker_each else RowGroups.of(ba)
    if groups is None or groups.size == len(rows):  # one blocker each: all of it, or
        # lethal and the rest
        if excess is None:
            return Flow(ba, bb, power, rows), Flow.empty()
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
    to_players = Flow(
        owner[sends], -1 - run.combat.attacking[owner[sends]], leftover[sends], 1 << 40
    )
    return Flow(ba, bb, amount, rows), to_players


def _lethal(run: Run, rows: IntArray, destroys: BoolArray | None, sources: IntArray) -> IntArray:
    """Damage lethal to some creatures from some sources (702.19b; 1 from a destroying
    source, 702.2c), never below 0."""
    lethal: IntArray = run.creatures.toughness[rows]
    lethal -= run.creatures.marked[rows]
    np.maximum(lethal, 0, out=lethal)
    if destroys is not None:
        np.minimum(lethal, 1, out=lethal, where=destroys[sources])
    return lethal


def _blockers_divide(
    run: Run, rows: IntArray, bb: IntArray, ba: IntArray, destroys: BoolArray | None
) -> Flow:
    """Blockers' default division over the attackers they block, in the order they
    declared them (510.1d; a blocker sends no excess to a player, 702.19a). `rows` are the
    block rows that receive damage, grouped by blocker in that order, `bb` and `ba` their
    blockers and attackers."""
    c = run.combat
    amount = c.of_blockers(run.creatures.power) if bb is c.bb else run.creatures.power[bb]
    if run.combat.multi_block:
        groups = RowGroups.of(bb)
        if groups.size < len(rows):
            lethal = _lethal(run, ba, destroys, bb)
            amount, leftover = divide_in_order(amount, lethal, groups)
            amount[groups.start] += leftover  # to the first attacker left
    return Flow(bb, ba, amount, rows if run.log is None else run.combat.rank[rows])


# -- explicit divisions ---------------------------------------------------------------------


def _explicit(
    run: Run, s: int, deals_a: BoolArray, deals_b: BoolArray, excess: BoolArray | None
) -> _Explicit | None:
    """The scenario's divisions for step `s` whose source assigns damage, checked (510.1);
    None if no division is used in this step."""
    if not run.combat.div_rows:
        return None
    rows, starts = run.combat.div_rows[s], run.combat.div_start[s]
    if rows.size == 0:
        return None
    b = run.batch
    src = b.division_source[rows]
    g_src = src[starts]
    used = _assigns(run, g_src, deals_a, deals_b, excess)
    if not some(used):
        return None
    rec = b.division_recipient[rows]
    amt = b.division_amount[rows]
    row_group = starts_mask(len(rows), starts).cumsum() - 1
    active = used[row_group]
    valid = _options_contain(run, src, rec, excess)
    bad_row = active & ~valid
    totals = np.add.reduceat(amt, starts)
    bad = used & (
        (np.add.reduceat(bad_row.astype(I64), starts) > 0) | (totals != run.creatures.power[g_src])
    )
    if some(bad):
        _division_error(run, s, rows, starts, g_src, bad, valid, totals, excess)
    sources = np.zeros(run.n, np.bool_)
    sources[g_src[used]] = True
    keep = active & (amt > 0) & (rec != NO_RECIPIENT)
    return _Explicit(src[keep], rec[keep], amt[keep], rows[keep], sources)


def _assigns(
    run: Run, sources: IntArray, deals_a: BoolArray, deals_b: BoolArray, excess: BoolArray | None
) -> BoolArray:
    """Whether each of some dealers assigns damage at all: an unblocked attacker does; a
    blocked one if a blocker remains or it has a keyword sending excess to the player
    (510.1c, 702.19e); a blocker if an attacker it blocks remains."""
    out: BoolArray = deals_a[sources] & ~run.combat.blocked[sources]
    if run.combat.nblocks:
        in_effect = run.combat.blocking[run.combat.bb] & run.combat.att[run.combat.ba]
        has_blocker = np.zeros(run.n, np.bool_)
        has_blocker[run.combat.ba[in_effect]] = True
        if excess is not None:
            has_blocker |= excess
        has_attacker = np.zeros(run.n, np.bool_)
        has_attacker[run.combat.bb[in_effect]] = True
        out |= deals_a[sources] & run.combat.blocked[sources] & has_blocker[sources]
        out |= deals_b[sources] & has_attacker[sources]
    return out


def _options_contain(run: Run, src: IntArray, rec: IntArray, excess: BoolArray | None) -> BoolArray:
    """Whether each recipient is one the source may assign damage to now (510.1)."""
    attacking = run.combat.att[src]
    player = (rec < 0) & (rec != NO_RECIPIENT)
    ex = excess[src] if excess is not None else np.zeros(len(src), np.bool_)
    ok_player = (
        player
        & attacking
        & (~run.combat.blocked[src] | ex)
        & (-1 - rec == run.combat.attacking[src])
    )
    creature = rec >= 0
    c = np.where(creature, rec, 0)
    blocker = np.where(attacking, c, src)
    attacker = np.where(attacking, src, c)
    key = blocker * max(run.n, 1) + attacker
    declared = np.zeros(len(src), np.bool_)
    if len(run.combat.pair_keys):
        pos = np.minimum(run.combat.pair_keys.searchsorted(key), len(run.combat.pair_keys) - 1)
        declared = run.combat.pair_keys[pos] == key
    in_effect = run.combat.blocking[blocker] & run.combat.att[attacker]
    out: BoolArray = (rec == NO_RECIPIENT) | ok_player | (creature & declared & in_effect)
    return out


def _options(run: Run, source: int, excess: BoolArray | None) -> list[str]:
    """Whom a dealer may assign damage to now, in the reference engine's order."""
    if run.combat.att[source]:
        defender = run.pid(int(run.combat.attacking[source]))
        if not run.combat.blocked[source]:
            return [defender]
        rows = ((run.combat.ba == source) & run.combat.blocking[run.combat.bb]).nonzero()[0]
        out = [run.cid(int(r)) for r in run.combat.bb[rows]]
        if excess is not None and excess[source]:
            out.append(defender)
        return out
    rows = ((run.combat.bb == source) & run.combat.att[run.combat.ba]).nonzero()[0]
    rows = rows[np.argsort(run.combat.rank[rows], kind="stable")]
    return [run.cid(int(r)) for r in run.combat.ba[rows]]


def _where(run: Run, battle: int, row: int) -> tuple[str | None, str]:
    """File and key path of a division row."""
    b = run.batch
    file = b.battle_files[battle] if b.battle_files is not None else f"battle {battle}"
    index = int(b.division_index[row]) if b.division_index is not None else row
    return file, f"{run.combat.path}.divide[{index}]"


def _division_error(
    run: Run,
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
    battles = run.creatures.battle[g_src[groups]]
    battle = int(battles.min())
    if run.error is not None and battle >= run.error[0]:
        return
    mine = groups[battles == battle]
    g = int(mine[np.argmin(g_src[mine])])
    start = int(starts[g])
    end = int(starts[g + 1]) if g + 1 < len(starts) else len(rows)
    source = int(g_src[g])
    step = run.schedule.plans[s].name
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
    power = int(run.creatures.power[source])
    message = (
        f"amounts total {int(totals[g])}, but {run.cid(source)} has power {power} in the "
        f"{step} step (510.1)"
    )
    run.fail(battle, InputError(file, f"{path}.amounts", message))


def _check_excess(
    run: Run,
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
    if excess is None or not run.combat.nblocks:
        return
    checked = np.zeros(run.n, np.bool_)
    checked[explicit.source[explicit.recipient < 0]] = True
    checked &= run.combat.blocked & excess & run.combat.att
    if not checked.any():
        return
    bb, ba = run.combat.bb, run.combat.ba
    rows = (checked[ba] & run.combat.blocking[bb]).nonzero()[0]
    lethal = _lethal(run, bb[rows], destroys, ba[rows])
    short = (incoming[bb[rows]] < lethal) & ~mask_of(run.n, hot)[bb[rows]]
    if not short.any():
        return
    rows = rows[short]
    battles = run.creatures.battle[ba[rows]]
    battle = int(battles.min())
    if run.error is not None and battle >= run.error[0]:
        return
    rows = rows[battles == battle]
    row = int(rows[np.argmin(ba[rows] * max(run.combat.nblocks, 1) + rows)])
    source, blocker = int(ba[row]), int(bb[row])
    div_rows = run.combat.div_rows[s]
    first = div_rows[run.batch.division_source[div_rows] == source][0]
    file, path = _where(run, battle, int(first))
    keyword = min(k for k, rows in run.combat.excess_by if rows[source])
    rule = run.schedule.registry.keywords[keyword].rule
    player = run.pid(int(run.combat.attacking[source]))
    message = (
        f"{run.cid(source)} assigns damage to {player} before assigning lethal damage to "
        f"{run.cid(blocker)}, counting damage already marked and damage other creatures "
        f"assign it in this step ({keyword}, {rule})"
    )
    run.fail(battle, InputError(file, f"{path}.amounts", message))


# -- state-based actions and leaving --------------------------------------------------------
