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
from ecs_combat.batched.keyword_rows import KeywordRows
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
from ecs_combat.batched.state import CombatRows, CreatureRows, Frame, PlayerRows, State
from ecs_combat.plugin.payloads import BatchDamageAssignment, BatchDamageEvent

I64 = np.int64
U64 = np.uint64
SmallArray = npt.NDArray[np.int8]
AnyArray = npt.NDArray[Any]


def step_exists(
    frame: Frame, kw: KeywordRows, creatures: CreatureRows, combat: CombatRows, s: int
) -> BoolArray:
    """Battles in which some attacking or blocking creature strikes in step `s`."""
    strike = frame.schedule.masks.strike[s]
    if not strike:
        return np.zeros(frame.nb, np.bool_)
    strikers = combat.in_combat & flags(frame, kw, strike)
    return battles_with(strikers, creatures.battle, frame.nb, frame.per_battle)


def damage_step(state: State, s: int, happen: BoolArray) -> None:
    """One combat damage step in some battles: who deals damage, assignment, dealing,
    state-based actions (510, RULES.md section 2)."""
    frame, c, combat, log = state.frame, state.creatures, state.combat, state.records.log
    kw = state.keywords
    schedule = frame.schedule
    plan = schedule.plans[s]
    masks = schedule.masks
    # Creatures in combat are in battles with attackers; a striker's battle has the step.
    # So only battles whose game is over need leaving out.
    game_over = state.players.game_over
    rows_mask = rows_of_battles(~game_over, c.battle, frame.per_battle) if some(game_over) else None
    in_combat = combat.in_combat if rows_mask is None else combat.in_combat & rows_mask
    striker = in_combat & flags(frame, kw, masks.strike[s])
    if plan.step.default:
        stays = in_combat & ~combat.struck
        if masks.withhold[s]:
            stays &= ~flags(frame, kw, masks.withhold[s])
        deals = (striker | stays) & _positive(c)
    else:
        deals = striker & _positive(c)  # a new array: `striker` stays as it is
    if log is not None and combat.struck_steps is not None:
        rows = (in_combat & happen[c.battle]).nonzero()[0]
        log.strikes.append(
            (s, rows, deals[rows], kw.cur[rows], combat.struck_steps[rows], c.power[rows])
        )
        combat.struck_steps[striker] |= U64(1 << s)
    combat.struck |= striker
    assign_and_deal(state, s, deals)
    died = state_based_actions(state, happen)
    c.died[died] = True
    if log is not None:
        log.died.append((s, died))  # in row order, each death


def _positive(creatures: CreatureRows) -> BoolArray:
    """Whether each creature's power is above 0 (cached until power changes)."""
    c = creatures
    if c.power_positive is None:
        c.power_positive = c.power > 0
    return c.power_positive


def assign_and_deal(state: State, s: int, deals: BoolArray) -> None:
    """Each dealer assigns its damage (510.1) and all of it is dealt at once (510.2)."""
    frame, c, combat, errors = state.frame, state.creatures, state.combat, state.errors
    n, power, divisions = frame.n, c.power, state.records.divisions
    plan = BatchDamageAssignment(
        frame.schedule.plans[s].name, deals, np.zeros(n, np.bool_), np.zeros(n, np.bool_)
    )
    plan.fights = lambda: _fights(c, combat, deals)
    run_systems(frame, state.context, "assign-damage", plan)
    split = None
    if len(plan.any_split) and some(plan.any_split & deals):
        split = plan.any_split & deals
        np.logical_and(plan.player_gets_excess, ~split, out=plan.player_gets_excess)
        if divisions is None:  # the search chooses these divisions itself
            check_split(frame, c, combat, errors, s, split, plan)
    excess = plan.player_gets_excess if some(plan.player_gets_excess) else None
    destroys = plan.one_is_lethal if some(plan.one_is_lethal) else None
    combat.excess_by = plan.excess_by
    if divisions is not None and (
        excess is not None or not combat.one_blocker_each or combat.multi_block
    ):  # else nobody has a division to choose: one blocker each, no excess to send on
        _record_divisions(divisions, c, combat, state.players, s, deals, plan)
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
        blockers, players = _attackers_divide(c, combat, rows, blk, atk, destroys, excess)
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
        to_creature.append(
            _blockers_divide(c, combat, state.records.log is not None, rows, blk, atk, destroys)
        )
    explicit = (
        given(frame, c, combat, errors, s, deals & combat.att, deals & combat.blocking, excess)
        if dense
        else None
    )
    if explicit is not None:  # sources dividing as the scenario says drop the default
        to_player = [f.without(explicit.sources) for f in to_player]
        to_creature = [f.without(explicit.sources) for f in to_creature]
        e = explicit
        to_c = e.recipient >= 0
        to_creature.append(Flow(e.source[to_c], e.recipient[to_c], e.amount[to_c], e.row[to_c]))
        to_player.append(Flow(e.source[~to_c], e.recipient[~to_c], e.amount[~to_c], e.row[~to_c]))
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
        check_excess(frame, c, combat, errors, s, explicit, incoming, hot, destroys, excess)
    deal(state, s, [*to_creature, *to_player])


def _fights(
    creatures: CreatureRows, combat: CombatRows, deals: BoolArray
) -> tuple[IntArray, IntArray, IntArray]:
    """What the ``assign-damage`` payload's `amount`, `blockers` and `attackers` are: each
    row's damage to assign, and the blocks in effect (blocker and attacker rows)."""
    amount = read_only(np.where(deals, creatures.power, 0))
    if not combat.nblocks:
        empty = read_only(np.zeros(0, I64))
        return amount, empty, empty
    live = (combat.blocking[combat.bb] & combat.att[combat.ba]).nonzero()[0]
    return amount, read_only(combat.bb[live]), read_only(combat.ba[live])


def _record_divisions(
    divisions: list[StepDivisions],
    creatures: CreatureRows,
    combat: CombatRows,
    players: PlayerRows,
    s: int,
    deals: BoolArray,
    plan: BatchDamageAssignment,
) -> None:
    """What each dealer of step `s` could divide (decision search)."""
    remaining = creatures.toughness - creatures.marked
    np.maximum(remaining, 0, out=remaining)
    if combat.nblocks:
        live = (combat.blocking[combat.bb] & combat.att[combat.ba]).nonzero()[0]
        bb, ba, rank = combat.bb[live], combat.ba[live], combat.rank[live]
    else:
        bb = ba = rank = np.zeros(0, I64)
    # the step's own arrays, which nothing changes after its damage is assigned; power may
    # change in place later (a pump after the first-strike step)
    split = by_attacking = None
    if len(plan.any_split):
        split = plan.any_split & deals
        c = creatures
        divider = np.where(plan.divided_by >= 0, plan.divided_by, c.controller)
        by_attacking = divider == players.active_of(c.battle)
    divisions.append(
        StepDivisions(
            s,
            deals,
            creatures.power.copy(),
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


def deal(state: State, s: int, flows: list[Flow]) -> None:
    """Deal a step's damage at once, through the ``deal-damage`` systems (510.2): marked
    on creatures, lost by players, with life gained at the same time."""
    frame, c, p, log = state.frame, state.creatures, state.players, state.records.log
    event = BatchDamageEvent(
        frame.schedule.plans[s].name,
        concat([f.source for f in flows]),
        concat([f.recipient for f in flows]),
        concat([f.amount for f in flows]),
        np.ones(0, np.bool_),
        np.ones(0, np.bool_),
    )
    event.marked = np.ones(len(event.amount), np.bool_)
    event.loses_life = event.marked.copy()
    run_systems(frame, state.context, "deal-damage", event)
    amount, recipient = event.amount, event.recipient
    some = amount > 0
    creature = recipient >= 0
    marks = (creature & event.marked & some).nonzero()[0]
    np.add.at(c.marked, recipient[marks], amount[marks])
    player = (~creature & some).nonzero()[0]
    np.add.at(p.to_players, c.battle[event.source[player]], amount[player])
    np.add.at(c.dealt_to_players, event.source[player], amount[player])
    loses = player[event.loses_life[player]]
    np.add.at(p.life, -1 - recipient[loses], -amount[loses])
    for players, sources, gained in event.gains:
        np.add.at(p.life, players, gained)
        np.add.at(c.life_gained, sources, gained)
        if log is not None:
            log.gains.append((s, players, sources, gained))
    if log is not None:
        places = concat([f.places() for f in flows])
        log.damage.append((s, event.source[some], recipient[some], amount[some], places[some]))


def _attackers_divide(
    creatures: CreatureRows,
    combat: CombatRows,
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
    c = combat  # every block's attackers: without a gather when evenly spaced
    power = c.of_attackers(creatures.power) if ba is c.ba else creatures.power[ba]
    groups = None if combat.one_blocker_each else RowGroups.of(ba)
    if groups is None or groups.size == len(rows):  # one blocker each: all of it, or
        # lethal and the rest
        if excess is None:
            return Flow(ba, bb, power, rows), Flow.empty()
        amount = power.copy()
        sends = excess[ba].nonzero()[0]
        lethal = lethal_to(creatures, bb[sends], destroys, ba[sends])
        amount[sends] = np.minimum(power[sends], lethal)
        leftover = power[sends] - amount[sends]
        owner = ba[sends]
    else:
        lethal = lethal_to(creatures, bb, destroys, ba)
        amount, leftover = divide_in_order(power, lethal, groups)
        ex = np.zeros(groups.size, np.bool_) if excess is None else excess[groups.owner]
        amount[groups.start] += np.where(ex, 0, leftover)  # to the first blocker left
        leftover = np.where(ex, leftover, 0)
        owner = groups.owner
    sends = leftover.nonzero()[0]
    to_players = Flow(owner[sends], -1 - combat.attacking[owner[sends]], leftover[sends], 1 << 40)
    return Flow(ba, bb, amount, rows), to_players


def _blockers_divide(
    creatures: CreatureRows,
    combat: CombatRows,
    recording: bool,
    rows: IntArray,
    bb: IntArray,
    ba: IntArray,
    destroys: BoolArray | None,
) -> Flow:
    """Blockers' default division over the attackers they block, in the order they
    declared them (510.1d; a blocker sends no excess to a player, 702.19a). `rows` are the
    block rows that receive damage, grouped by blocker in that order, `bb` and `ba` their
    blockers and attackers."""
    c = combat
    amount = c.of_blockers(creatures.power) if bb is c.bb else creatures.power[bb]
    if combat.multi_block:
        groups = RowGroups.of(bb)
        if groups.size < len(rows):
            lethal = lethal_to(creatures, ba, destroys, bb)
            amount, leftover = divide_in_order(amount, lethal, groups)
            amount[groups.start] += leftover  # to the first attacker left
    return Flow(bb, ba, amount, combat.rank[rows] if recording else rows)


# -- state-based actions and leaving --------------------------------------------------------
