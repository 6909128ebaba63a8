"""The combat damage steps over a whole batch (510, RULES.md sections 2-3): who deals
damage, the default and explicit divisions, the excess rule, and dealing it all at once
through the ``assign-damage`` and ``deal-damage`` systems."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.batched.actions import run_systems, state_based_actions
from ecs_combat.batched.arrays import (
    BoolArray,
    IntArray,
    StepDivisions,
)
from ecs_combat.batched.context import read_only
from ecs_combat.batched.dealers import dealers
from ecs_combat.batched.explicit import check_excess, check_split, given, lethal_to
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
)
from ecs_combat.batched.state import Run
from ecs_combat.plugin.payloads import BatchDamageAssignment, BatchDamageEvent

I64 = np.int64
U64 = np.uint64
SmallArray = npt.NDArray[np.int8]
AnyArray = npt.NDArray[Any]


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
            check_split(run, s, split, plan)
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
    explicit = given(run, s, deals & combat.att, deals & combat.blocking, excess) if dense else None
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
        check_excess(run, s, explicit, incoming, hot, destroys, excess)
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
        lethal = lethal_to(run, bb[sends], destroys, ba[sends])
        amount[sends] = np.minimum(power[sends], lethal)
        leftover = power[sends] - amount[sends]
        owner = ba[sends]
    else:
        lethal = lethal_to(run, bb, destroys, ba)
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
            lethal = lethal_to(run, ba, destroys, bb)
            amount, leftover = divide_in_order(amount, lethal, groups)
            amount[groups.start] += leftover  # to the first attacker left
    return Flow(bb, ba, amount, rows if run.log is None else run.combat.rank[rows])


# -- state-based actions and leaving --------------------------------------------------------
