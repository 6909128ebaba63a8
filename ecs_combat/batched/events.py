"""Scenario events over a whole batch, round by round (the n-th event of every battle at
a point at once), and cards cast by them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ecs_combat.batched.arrays import (
    ACTION_CODE,
    IntArray,
)
from ecs_combat.batched.results import GAME_ENDED, HAPPENED
from ecs_combat.batched.views import _CardTargets, _RowSide
from ecs_combat.plugin.definitions import color_mask

if TYPE_CHECKING:
    from ecs_combat.batched.engine import _Run


I64 = np.int64
U64 = np.uint64
SmallArray = npt.NDArray[np.int8]
AnyArray = npt.NDArray[Any]


def events_at(run: _Run, point: int, why: SmallArray) -> None:
    """The events at a point, round by round; state-based actions after each."""
    b = run.batch
    for rows in run.rounds[point]:
        battle = b.event_battle[rows]
        skip = why[battle]
        skip = np.where((skip == HAPPENED) & run.game_over[battle], GAME_ENDED, skip)
        run.ev_skip[rows] = skip
        go = rows[skip == HAPPENED]
        if go.size:
            apply_events(run, go)
            battles = run._battles(go, b.event_battle)
            run.refresh(battles)
            run.state_based_actions(battles)


def apply_events(run: _Run, rows: IntArray) -> None:
    """Apply one event in each of some battles (CONTRACT.md section 1)."""
    b = run.batch
    action = b.event_action[rows]
    target = b.event_target[rows]
    code = ACTION_CODE
    enter = action == code["enter"]
    if enter.any():
        t = target[enter]
        run.writable("entered")
        run.writable("attacking")
        run.on_bf[t] = True
        run.entered[t] = True
        # 506.3b-c: it attacks only if the attacking player controls it and the player it
        # would attack is still in the game.
        player = b.event_player[rows[enter]]
        active = run.active[run.battle[t]]
        attacks = (run.controller[t] == active) & ~run.lost[player]
        run.attacking[t] = np.where(attacks, player, -1)
        run.att[t] = attacks
        run.in_combat[t] = attacks
    to_player = (action == code["damage"]) & (target < 0)
    if to_player.any():
        run.life[-1 - target[to_player]] -= b.event_amount[rows[to_player]]
    cast = action == code["cast"]
    if cast.any():
        cast_cards(run, rows[cast])
    creature = ~enter & ~to_player & ~cast
    creature &= run.on_bf[np.where(creature, target, 0)]
    if not creature.any():
        return
    for name in (
        "grant",
        "remove",
        "counters",
        "pump",
        "damage",
        "remove-from-combat",
        "destroy",
    ):
        sel = creature & (action == code[name])
        if sel.any():
            _apply(run, name, rows[sel], target[sel])


def _apply(run: _Run, action: str, rows: IntArray, t: IntArray) -> None:
    """One kind of event on creatures still on the battlefield."""
    b = run.batch
    if action == "grant":
        run.kw_base[t] |= b.event_keywords[rows].astype(run.kt)
        run.update_own(t)
        given = np.flatnonzero(np.isin(b.event_instance_event, rows))
        if given.size:  # the events' instances, after the rows' earlier ones
            target = b.event_target[b.event_instance_event[given]]
            run._add_instances(
                target, b.event_instance_keyword[given], b.event_instance_parameter[given]
            )
    elif action == "remove":
        kws = b.event_keywords[rows].astype(run.kt)
        run.kw_base[t] &= ~kws
        if run.kw_counter is not None:
            run.kw_counter[t] &= ~kws
        if run.removed is None:
            run.removed = np.zeros(run.n, run.kt)
        run.removed[t] |= kws
        run.update_own(t)
        if run.inst_row.size:  # every instance of a removed keyword goes
            gone = np.zeros(run.n, run.kt)
            gone[t] = kws
            bits = (np.ones(1, run.kt) << run.inst_kw.astype(run.kt)).astype(run.kt)
            keep = (gone[run.inst_row] & bits) == 0
            run.inst_row = run.inst_row[keep]
            run.inst_kw = run.inst_kw[keep]
            run.inst_param = run.inst_param[keep]
    elif action == "counters":
        if b.event_counters is None:  # no counter changes at all
            return
        run.change_counters(t, b.event_counters[rows])
    elif action == "pump":
        run.writable("power")
        run.writable("toughness")
        run.power[t] += b.event_power[rows]
        run.toughness[t] += b.event_toughness[rows]
    elif action == "damage":
        run.marked[t] += b.event_amount[rows]
    elif action == "remove-from-combat":
        run.remove_from_combat(t)
    elif action == "destroy":
        run.refresh(run._battles(rows, b.event_battle))
        about = np.zeros(run.n, np.bool_)
        about[t] = True
        run.leave(np.flatnonzero(run.destroy(about)))


def cast_cards(run: _Run, rows: IntArray) -> None:
    """Cast cards; each checks its target as it resolves (608.2b) and resolves once per
    card and round, over all its legal targets at once."""
    b = run.batch
    t = b.event_target[rows]
    caster = b.event_player[rows]
    legal = run.on_bf[t].copy()
    if run.static and legal.any():
        run.refresh(run._battles(rows[legal], b.event_battle))
    cards = [run.reg.card(name) for name in b.card_names]
    card_colors = [0 if c is None else color_mask(c.colors) for c in cards]
    spell_colors = np.asarray(card_colors, I64)[b.event_card[rows]]
    targets = _RowSide(run, t, run.controller[t] != caster, spell_colors)
    for restriction in run.reg.restrictions_of("target"):
        legal &= np.asarray(restriction.test(targets), np.bool_)
    card_index = b.event_card[rows]
    attacking = run.att[t]
    blocking = run.blocking[t]
    for ci in np.unique(card_index).tolist():
        card = run.reg.card(b.card_names[ci])
        assert card is not None  # checked when the run began
        ok = legal & (card_index == ci)
        rule = card.target
        if rule.caster_controls:
            ok &= run.controller[t] == caster
        if rule.blocking_or_blocked:
            ok &= blocking | (attacking & run.blocked[t])
        elif rule.in_combat:
            ok &= attacking | blocking
        if ok.any() and card.resolve is not None:
            card.resolve(_CardTargets(run, t[ok], caster[ok]))


# -- output ---------------------------------------------------------------------------------
