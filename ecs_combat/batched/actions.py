"""What happens to creatures and players in a run: the plugins' systems at a point, state-based
actions (704), destruction, dying, leaving the battlefield or combat, players losing;
triggered abilities resolving round by round (603.3b), with state-based actions after each."""

from __future__ import annotations

from typing import Any

import numpy as np

from ecs_combat.batched.arrays import BoolArray, IntArray
from ecs_combat.batched.keywords import add_counters, kept, keyword_index, listed_at, refresh
from ecs_combat.batched.numeric import mask_of, rows_in, run_starts, some
from ecs_combat.batched.state import Run
from ecs_combat.errors import call_plugin
from ecs_combat.plugin.payloads import (
    BatchDeaths,
    BatchDestruction,
    BatchEndOfCombat,
    BatchStateCheck,
    BatchTriggers,
)

I64 = np.int64


def run_systems(run: Run, point: str, payload: Any) -> None:
    """Run the batch's systems at a point, once each over the whole batch."""
    triggers = getattr(payload, "triggers", None)
    context = run.context
    for scheduled in run.schedule.systems[point]:
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


def state_based_actions(run: Run, battles: BoolArray | None) -> IntArray:
    """704.5a, f, g and the plugins' conditions, in some battles (all if None): creatures
    die, players lose; the `dies` systems follow, and the state-based actions are checked
    again after them (704.3) in the battles where creatures died, until a check finds
    nothing that dies. Returns who died, in row order, a row once for each time it died (a
    creature that returned can die again: RULES 11.11)."""
    dead = check_state(run, battles)
    if not dead.size or not run.schedule.systems["dies"]:
        return dead
    deaths = [dead]
    while dead.size:
        dead = check_state(run, mask_of(run.nb, run.creatures.battle[dead]))
        deaths.append(dead)
    out: IntArray = np.sort(np.concatenate(deaths), kind="stable")
    return out


def check_state(run: Run, battles: BoolArray | None) -> IntArray:
    """One check of the state-based actions (704.3), then the `dies` systems and triggers.
    Returns who died: in the check, then as the triggers resolved."""
    c, p = run.creatures, run.players
    checked = run.nb if battles is None else np.count_nonzero(battles)
    if checked == run.nb:
        battles = None
    if battles is not None and checked * 16 < run.nb:  # a few battles: their rows only
        rows = rows_in(c.battle, battles.nonzero()[0], run.per_battle)
        toughness = c.toughness[rows]
        zero = toughness <= 0  # 0 or less: it dies, whatever is marked
        met = np.greater_equal(c.marked[rows], toughness)
        met |= zero
        met &= c.on_bf[rows]
        destroys, dies = mask_of(run.n, rows[met & ~zero]), mask_of(run.n, rows[met & zero])
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
    in_check = battles if battles is not None else np.ones(run.nb, np.bool_)
    check = BatchStateCheck(in_check, destroys, dies, mask_of(len(p.life), low))
    context = run.context
    put: list[tuple[IntArray, str, IntArray]] = []
    outer, context.counters_put = context.counters_put, put
    try:
        run_systems(run, "state-based-actions", check)
    finally:
        context.counters_put = outer
    destroy_ = check.destroy & ~check.dies
    if some(destroy_):
        destroy_ = destroy(run, destroy_)
    dead = ((destroy_ | check.dies) & c.on_bf).nonzero()[0]
    if dead.size:
        leave(run, dead)
        if put:
            left_with_counters(run, put, dead)
    losing = check.loses.nonzero()[0]
    losing = losing[~p.lost[losing]]
    if losing.size:
        players_lose(run, losing)
    if dead.size:
        later = creatures_died(run, dead)
        if later.size:
            dead = np.concatenate([dead, later])
    return dead


def left_with_counters(run: Run, put: list[tuple[IntArray, str, IntArray]], gone: IntArray) -> None:
    """The counters the check's systems put on or removed from creatures that left in that
    same check are undone: every action of one check happens at once (704.3), so a creature
    dies with the counters it had, and its `dies` systems read them (704.5q)."""
    left = mask_of(run.n, gone)
    for rows, kind, change in reversed(put):
        here = left[rows]
        if here.any():
            add_counters(run, rows[here], kind, -change[here])


def destroy(run: Run, creatures: BoolArray) -> BoolArray:
    """Row mask of creatures about to be destroyed, less those a system exempts (701.8)."""
    destruction = BatchDestruction(creatures)
    run_systems(run, "destroy", destruction)
    out: BoolArray = destruction.creatures
    return out


def creatures_died(run: Run, rows: IntArray) -> IntArray:
    """The `dies` systems for creatures that just died (700.4), in battles whose game goes
    on; the "dies" triggers they put on the stack resolve as block triggers do (RULES 11.5).
    Returns who died as they resolved (a row once for each time)."""
    none = np.zeros(0, I64)
    if not run.schedule.systems["dies"]:
        return none
    c = run.creatures
    rows = rows[~run.players.game_over[c.battle[rows]]]
    if not rows.size:
        return none
    deaths = BatchDeaths(mask_of(run.n, rows))
    run_systems(run, "dies", deaths)
    died = resolve_triggers(run, deaths.triggers)
    back = rows[c.on_bf[rows]]  # what returned, as it returned (RULES 9: value)
    c.returned[back] = c.power[back] + c.toughness[back]
    if back.size:
        refresh(run, mask_of(run.nb, c.battle[back]))
    return died


def resolve_triggers(run: Run, groups: list[BatchTriggers]) -> IntArray:
    """Resolve triggered abilities as the reference engine does (APNAP order, 603.3b; one
    source's in the order its keyword instances are listed; state-based actions after
    each; none of a player who has left the game, 800.4a): round r resolves the r-th trigger
    of every battle, one call per kind of trigger; a trigger whose source left the
    battlefield still resolves (113.7a). Triggers put on the stack while these resolve (a
    creature dies) resolve first, within the round. Returns who died in the checks after
    them."""
    c, p = run.creatures, run.players
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
        [np.full(len(g.source), keyword_index(run, g.keyword), I64) for g in groups]
    )
    listed = listed_at(run, source, keyword, instance)
    battle = c.battle[source]
    # players per battle (a battle's player rows are contiguous, battles ascending)
    seats = np.searchsorted(p.battle, battle, "right") - np.searchsorted(p.battle, battle)
    rank = (c.controller[source] - p.active_of(battle)) % seats  # from the active player
    order = np.lexsort((local, kind, listed, source, -rank, battle))
    starts = run_starts(battle[order])
    position = np.arange(len(order)) - np.repeat(starts, np.diff(np.append(starts, len(order))))
    outer, c.new_objects = c.new_objects, np.zeros(run.n, np.bool_)
    new_objects = c.new_objects
    context = run.context
    stale = context.stale
    try:
        for r in range(int(position.max()) + 1):
            now = order[position == r]
            now = now[~p.game_over[battle[now]]]
            if not now.size:
                continue
            context.stale = new_objects.copy() if new_objects.any() else None
            try:
                for k in np.unique(kind[now]).tolist():
                    _resolve_group(run, groups[k], local[now[kind[now] == k]])
            finally:
                context.stale = stale
            battles = mask_of(run.nb, battle[now])
            refresh(run, battles)
            died.append(state_based_actions(run, battles))
    finally:
        c.new_objects = outer
        if outer is not None:  # what returned is a new object to the triggers below too
            outer |= new_objects
    return np.concatenate(died)


def _resolve_group(run: Run, group: BatchTriggers, index: IntArray) -> None:
    """Some triggers of one kind resolve (at most one in each battle)."""
    taken = group.take(index)
    call_plugin(group.plugin, "a triggered ability (batched)", group.resolve, run.context, taken)


def sacrifice(run: Run, rows: IntArray) -> None:
    """Rows are sacrificed (701.17): they die (700.4); state-based actions are checked
    after the `dies` systems (704.3) in their battles."""
    rows = rows[run.creatures.on_bf[rows]]
    if not rows.size:
        return
    leave(run, rows)
    creatures_died(run, rows)
    if run.schedule.systems["dies"]:
        state_based_actions(run, mask_of(run.nb, run.creatures.battle[rows]))


def destroy_rows(run: Run, rows: IntArray) -> BoolArray:
    """An effect destroys some distinct rows (701.8): the `destroy` systems may keep some
    (indestructible, regeneration); the others die together as :func:`sacrifice` says. Per
    row given: whether it was destroyed."""
    rows = np.asarray(rows, I64)
    here = rows[run.creatures.on_bf[rows]]
    if not here.size:
        return np.zeros(len(rows), np.bool_)
    refresh(run, mask_of(run.nb, run.creatures.battle[here]))
    destroyed = destroy(run, mask_of(run.n, here))
    out: BoolArray = destroyed[rows] & run.creatures.on_bf[rows]
    sacrifice(run, rows[out])
    return out


def remove_damage(run: Run, rows: IntArray) -> None:
    """All damage marked on some rows is removed."""
    run.creatures.marked[rows] = 0


def players_lose(run: Run, losing: IntArray) -> None:
    """Players lose (704.5a); unless the game is over, they leave with their creatures and
    creatures attacking them are removed from combat (800.4a)."""
    p, c, combat = run.players, run.creatures, run.combat
    p.lost[losing] = True
    if p.remaining is None:
        p.remaining = np.bincount(p.battle[~p.lost], minlength=run.nb)
    else:
        np.subtract.at(p.remaining, p.battle[losing], 1)
    p.game_over = p.remaining < 2
    leaving = losing[~p.game_over[p.battle[losing]]]
    if not leaving.size:
        return
    gone = mask_of(len(p.life), leaving)
    leave(run, np.flatnonzero(c.on_bf & gone[c.controller]))
    attackers = np.flatnonzero(combat.att)
    hit = attackers[gone[combat.attacking[attackers]]]
    combat.att[hit] = False
    combat.in_combat[hit] = combat.blocking[hit]


def leave(run: Run, rows: IntArray) -> None:
    """Creatures leave the battlefield, and so combat (506.4)."""
    run.creatures.on_bf[rows] = False
    remove_from_combat(run, rows)


def remove_from_combat(run: Run, rows: IntArray) -> None:
    """No longer attacking or blocking (506.4); a blocked attacker stays blocked.
    (`attacking` keeps the player it attacked: it is read only where `att` holds.)"""
    combat = run.combat
    combat.att[rows] = False
    combat.blocking[rows] = False
    combat.in_combat[rows] = False


def lose_life(run: Run, players: IntArray, amount: IntArray | int) -> None:
    """Players (rows, may repeat) lose life (not damage, 119.3); not those who have left
    the game (800.4a)."""
    p = run.players
    here = ~p.lost[players]
    if not here.all():
        players = players[here]
        amount = kept(amount, here)
    np.subtract.at(p.life, players, amount)


def blockers_of(run: Run, attackers: IntArray) -> IntArray:
    """How many creatures still block each of some attacker rows (509.1h: blocks in effect)."""
    combat = run.combat
    if not combat.nblocks:
        return np.zeros(len(attackers), I64)
    in_effect = combat.blocking[combat.bb] & run.creatures.on_bf[combat.bb]
    count = np.bincount(combat.ba[in_effect], minlength=run.n)
    out: IntArray = count[attackers]
    return out


def end_of_combat(run: Run, battles: BoolArray) -> None:
    """The end of combat step (511): the plugins' delayed triggers, then state-based
    actions (704.3)."""
    if run.schedule.systems["end-of-combat"]:
        run_systems(run, "end-of-combat", BatchEndOfCombat(battles))
        state_based_actions(run, battles)
