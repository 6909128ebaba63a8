"""What happens to creatures and players in a run: the plugins' systems at a point, state-based
actions (704), destruction, dying, leaving the battlefield or combat, players losing;
triggered abilities resolving round by round (603.3b), with state-based actions after each."""

from __future__ import annotations

from typing import Any

import numpy as np

from ecs_combat.batched.arrays import BoolArray, IntArray
from ecs_combat.batched.keyword_rows import KeywordRows
from ecs_combat.batched.keywords import add_counters, kept, keyword_index, listed_at, refresh
from ecs_combat.batched.numeric import mask_of, rows_in, run_starts, some
from ecs_combat.batched.state import CombatRows, CreatureRows, Frame, PlayerRows, State
from ecs_combat.errors import call_plugin
from ecs_combat.plugin.batch_context import BatchContext
from ecs_combat.plugin.payloads import (
    BatchDeaths,
    BatchDestruction,
    BatchEndOfCombat,
    BatchStateCheck,
    BatchTriggers,
)

I64 = np.int64


def run_systems(frame: Frame, context: BatchContext, point: str, payload: Any) -> None:
    """Run the batch's systems at a point, once each over the whole batch, with the
    plugins' context."""
    triggers = getattr(payload, "triggers", None)
    for scheduled in frame.schedule.systems[point]:
        batched = scheduled.system.batched
        assert batched is not None  # refused when the run began
        before = len(triggers) if triggers is not None else 0
        what = f"system {scheduled.system.name!r} at {point} (batched)"
        call_plugin(scheduled.plugin, what, batched, context, payload)
        named = scheduled.system.keywords
        for group in triggers[before:] if triggers is not None else ():
            group.plugin = scheduled.plugin
            if not group.keyword and len(named) == 1:
                group.keyword = next(iter(named))


def state_based_actions(state: State, battles: BoolArray | None) -> IntArray:
    """704.5a, f, g and the plugins' conditions, in some battles (all if None): creatures
    die, players lose; the `dies` systems follow, and the state-based actions are checked
    again after them (704.3) in the battles where creatures died, until a check finds
    nothing that dies. Returns who died, in row order, a row once for each time it died (a
    creature that returned can die again: RULES 11.11)."""
    dead = check_state(state, battles)
    if not dead.size or not state.frame.schedule.systems["dies"]:
        return dead
    deaths = [dead]
    while dead.size:
        dead = check_state(state, mask_of(state.frame.nb, state.creatures.battle[dead]))
        deaths.append(dead)
    out: IntArray = np.sort(np.concatenate(deaths), kind="stable")
    return out


def check_state(state: State, battles: BoolArray | None) -> IntArray:
    """One check of the state-based actions (704.3), then the `dies` systems and triggers.
    Returns who died: in the check, then as the triggers resolved."""
    frame, c, p, kw = state.frame, state.creatures, state.players, state.keywords
    nb = frame.nb
    checked = nb if battles is None else np.count_nonzero(battles)
    if checked == nb:
        battles = None
    if battles is not None and checked * 16 < nb:  # a few battles: their rows only
        rows = rows_in(c.battle, battles.nonzero()[0], frame.per_battle)
        toughness = c.toughness[rows]
        zero = toughness <= 0  # 0 or less: it dies, whatever is marked
        met = np.greater_equal(c.marked[rows], toughness)
        met |= zero
        met &= c.on_bf[rows]
        destroys, dies = mask_of(frame.n, rows[met & ~zero]), mask_of(frame.n, rows[met & zero])
    else:
        # The battles being checked are looked up for the few rows and players that meet a
        # condition only.
        toughness = c.toughness
        zero = toughness <= 0
        met = np.greater_equal(c.marked, toughness)
        met |= zero
        met &= c.on_bf
        if battles is not None:
            rows = met.nonzero()[0]
            met[rows[~battles[c.battle[rows]]]] = False
        dies = met & zero
        destroys = met ^ dies
    low = (p.life <= 0).nonzero()[0]  # few players: looked up one by one
    low = low[~p.lost[low]]
    if battles is not None:
        low = low[battles[p.battle[low]]]
    in_check = battles if battles is not None else np.ones(nb, np.bool_)
    check = BatchStateCheck(in_check, destroys, dies, mask_of(len(p.life), low))
    context = state.context
    put: list[tuple[IntArray, str, IntArray]] = []
    outer, kw.put = kw.put, put
    try:
        run_systems(frame, context, "state-based-actions", check)
    finally:
        kw.put = outer
    destroy_ = check.destroy & ~check.dies
    if some(destroy_):
        destroy_ = destroy(frame, context, destroy_)
    dead = ((destroy_ | check.dies) & c.on_bf).nonzero()[0]
    if dead.size:
        leave(c, state.combat, dead)
        if put:
            left_with_counters(frame, c, kw, put, dead)
    losing = check.loses.nonzero()[0]
    losing = losing[~p.lost[losing]]
    if losing.size:
        players_lose(p, c, state.combat, losing)
    if dead.size:
        later = creatures_died(state, dead)
        if later.size:
            dead = np.concatenate([dead, later])
    return dead


def left_with_counters(
    frame: Frame,
    c: CreatureRows,
    kw: KeywordRows,
    put: list[tuple[IntArray, str, IntArray]],
    gone: IntArray,
) -> None:
    """The counters the check's systems put on or removed from creatures that left in that
    same check are undone: every action of one check happens at once (704.3), so a creature
    dies with the counters it had, and its `dies` systems read them (704.5q)."""
    left = mask_of(frame.n, gone)
    for rows, kind, change in reversed(put):
        here = left[rows]
        if here.any():
            add_counters(frame, c, kw, rows[here], kind, -change[here])


def destroy(frame: Frame, context: BatchContext, creatures: BoolArray) -> BoolArray:
    """Row mask of creatures about to be destroyed, less those a system exempts (701.8)."""
    destruction = BatchDestruction(creatures)
    run_systems(frame, context, "destroy", destruction)
    out: BoolArray = destruction.creatures
    return out


def creatures_died(state: State, rows: IntArray) -> IntArray:
    """The `dies` systems for creatures that just died (700.4), in battles whose game goes
    on; the "dies" triggers they put on the stack resolve as block triggers do (RULES 11.5).
    Returns who died as they resolved (a row once for each time)."""
    none = np.zeros(0, I64)
    frame = state.frame
    if not frame.schedule.systems["dies"]:
        return none
    c = state.creatures
    rows = rows[~state.players.game_over[c.battle[rows]]]
    if not rows.size:
        return none
    deaths = BatchDeaths(mask_of(frame.n, rows))
    run_systems(frame, state.context, "dies", deaths)
    died = resolve_triggers(state, deaths.triggers)
    back = rows[c.on_bf[rows]]  # what returned, as it returned (RULES 9: value)
    c.returned[back] = c.power[back] + c.toughness[back]
    if back.size:
        refresh(state, mask_of(frame.nb, c.battle[back]))
    return died


def resolve_triggers(state: State, groups: list[BatchTriggers]) -> IntArray:
    """Resolve triggered abilities as the reference engine does (APNAP order, 603.3b; one
    source's in the order its keyword instances are listed; state-based actions after
    each; none of a player who has left the game, 800.4a): round r resolves the r-th trigger
    of every battle, one call per kind of trigger; a trigger whose source left the
    battlefield still resolves (113.7a). Triggers put on the stack while these resolve (a
    creature dies) resolve first, within the round. Returns who died in the checks after
    them."""
    frame, c, p = state.frame, state.creatures, state.players
    groups = [g.take(np.flatnonzero(~p.lost[c.controller[g.source]])) for g in groups]
    groups = [g for g in groups if len(g.source)]
    died = [np.zeros(0, I64)]
    if not groups:
        return died[0]
    source = np.concatenate([np.asarray(g.source, I64) for g in groups])
    instance = np.concatenate([np.asarray(g.instance, I64) for g in groups])
    kind = np.concatenate([np.full(len(g.source), i, I64) for i, g in enumerate(groups)])
    local = np.concatenate([np.arange(len(g.source), dtype=I64) for g in groups])
    keyword = np.concatenate(
        [np.full(len(g.source), keyword_index(frame, g.keyword), I64) for g in groups]
    )
    listed = listed_at(frame, state.keywords, source, keyword, instance)
    battle = c.battle[source]
    # players per battle (a battle's player rows are contiguous, battles ascending)
    seats = np.searchsorted(p.battle, battle, "right") - np.searchsorted(p.battle, battle)
    rank = (c.controller[source] - p.active_of(battle)) % seats  # from the active player
    order = np.lexsort((local, kind, listed, source, -rank, battle))
    starts = run_starts(battle[order])
    position = np.arange(len(order)) - np.repeat(starts, np.diff(np.append(starts, len(order))))
    outer, c.new_objects = c.new_objects, np.zeros(frame.n, np.bool_)
    new_objects = c.new_objects
    stale = c.stale
    try:
        for r in range(int(position.max()) + 1):
            now = order[position == r]
            now = now[~p.game_over[battle[now]]]
            if not now.size:
                continue
            c.stale = new_objects.copy() if new_objects.any() else None
            try:
                for k in np.unique(kind[now]).tolist():
                    _resolve_group(state.context, groups[k], local[now[kind[now] == k]])
            finally:
                c.stale = stale
            battles = mask_of(frame.nb, battle[now])
            refresh(state, battles)
            died.append(state_based_actions(state, battles))
    finally:
        c.new_objects = outer
        if outer is not None:  # what returned is a new object to the triggers below too
            outer |= new_objects
    return np.concatenate(died)


def _resolve_group(context: BatchContext, group: BatchTriggers, index: IntArray) -> None:
    """Some triggers of one kind resolve (at most one in each battle)."""
    taken = group.take(index)
    call_plugin(group.plugin, "a triggered ability (batched)", group.resolve, context, taken)


def sacrifice(state: State, rows: IntArray) -> None:
    """Rows are sacrificed (701.17): they die (700.4); state-based actions are checked
    after the `dies` systems (704.3) in their battles."""
    c = state.creatures
    rows = rows[c.on_bf[rows]]
    if not rows.size:
        return
    leave(c, state.combat, rows)
    creatures_died(state, rows)
    if state.frame.schedule.systems["dies"]:
        state_based_actions(state, mask_of(state.frame.nb, c.battle[rows]))


def destroy_rows(state: State, rows: IntArray) -> BoolArray:
    """An effect destroys some distinct rows (701.8): the `destroy` systems may keep some
    (indestructible, regeneration); the others die together as :func:`sacrifice` says. Per
    row given: whether it was destroyed."""
    rows = np.asarray(rows, I64)
    frame, c = state.frame, state.creatures
    here = rows[c.on_bf[rows]]
    if not here.size:
        return np.zeros(len(rows), np.bool_)
    refresh(state, mask_of(frame.nb, c.battle[here]))
    destroyed = destroy(frame, state.context, mask_of(frame.n, here))
    out: BoolArray = destroyed[rows] & c.on_bf[rows]
    sacrifice(state, rows[out])
    return out


def remove_damage(c: CreatureRows, rows: IntArray) -> None:
    """All damage marked on some rows is removed."""
    c.marked[rows] = 0


def players_lose(p: PlayerRows, c: CreatureRows, combat: CombatRows, losing: IntArray) -> None:
    """Players lose (704.5a); unless the game is over, they leave with their creatures and
    creatures attacking them are removed from combat (800.4a)."""
    p.lost[losing] = True
    if p.remaining is None:
        p.remaining = np.bincount(p.battle[~p.lost], minlength=len(p.game_over))
    else:
        np.subtract.at(p.remaining, p.battle[losing], 1)
    p.game_over = p.remaining < 2
    leaving = losing[~p.game_over[p.battle[losing]]]
    if not leaving.size:
        return
    gone = mask_of(len(p.life), leaving)
    leave(c, combat, np.flatnonzero(c.on_bf & gone[c.controller]))
    attackers = np.flatnonzero(combat.att)
    hit = attackers[gone[combat.attacking[attackers]]]
    combat.att[hit] = False
    combat.in_combat[hit] = combat.blocking[hit]


def leave(c: CreatureRows, combat: CombatRows, rows: IntArray) -> None:
    """Creatures leave the battlefield, and so combat (506.4)."""
    c.on_bf[rows] = False
    remove_from_combat(combat, rows)


def remove_from_combat(combat: CombatRows, rows: IntArray) -> None:
    """No longer attacking or blocking (506.4); a blocked attacker stays blocked.
    (`attacking` keeps the player it attacked: it is read only where `att` holds.)"""
    combat.att[rows] = False
    combat.blocking[rows] = False
    combat.in_combat[rows] = False


def lose_life(p: PlayerRows, players: IntArray, amount: IntArray | int) -> None:
    """Players (rows, may repeat) lose life (not damage, 119.3); not those who have left
    the game (800.4a)."""
    here = ~p.lost[players]
    if not here.all():
        players = players[here]
        amount = kept(amount, here)
    np.subtract.at(p.life, players, amount)


def blockers_of(c: CreatureRows, combat: CombatRows, attackers: IntArray) -> IntArray:
    """How many creatures still block each of some attacker rows (509.1h: blocks in effect)."""
    if not combat.nblocks:
        return np.zeros(len(attackers), I64)
    in_effect = combat.blocking[combat.bb] & c.on_bf[combat.bb]
    count = np.bincount(combat.ba[in_effect], minlength=len(c.on_bf))
    out: IntArray = count[attackers]
    return out


def end_of_combat(state: State, battles: BoolArray) -> None:
    """The end of combat step (511): the plugins' delayed triggers, then state-based
    actions (704.3)."""
    if state.frame.schedule.systems["end-of-combat"]:
        run_systems(state.frame, state.context, "end-of-combat", BatchEndOfCombat(battles))
        state_based_actions(state, battles)
